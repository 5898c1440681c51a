//! `explore`: generational, coverage-first path exploration (SAGE's generational search,
//! Godefroid et al., NDSS 2008, with FloPSy's and FPSE's solvers behind the queries).
//!
//! A run's path condition is expanded from its bound: for each input-dependent decision
//! `j` at or after the bound and each other side of that site, the query "decisions
//! before `j` as in the run, side at `j`" goes to the solver; a model becomes a new run
//! with bound `j + 1`. Flips toward sides not yet covered go first (target sides, when
//! given, before everything); flips toward covered sides only when nothing else is left,
//! so branch coverage grows first and paths later. A flip's first query gets an eighth of
//! the query time limit; one that comes back unknown is retried at the end of the work
//! list with the whole limit, then four times more each time (up to 64 times the limit).
//!
//! When the work list empties and every flip was decided on an exact prefix (no
//! concretization before it, no query unknown, every child run followed its expected
//! prefix, no run trapped), the exploration enumerated every feasible path, and
//! each side never taken is reported infeasible ("exhaustive path exploration"). Otherwise
//! sides never taken are "not reached".
//!
//! When it is not complete, a side can still be proved infeasible by the prefixes
//! explored: no flip toward it is undecided, and every undecided flip leads (in the entry
//! function's control-flow graph) only to blocks from which its site cannot be reached
//! (see `PrefixProof` for the conditions and the argument).
//!
//! A proof that needs an `unsat` only the solver's bit-precise backend gave (a flip it
//! decided that the same argument without it leaves undecided) is labeled
//! [`InfeasibleMethod::BitPrecise`].
//!
//! Flips a math call left open (its result concretized before them, or an extension
//! operator in a query that came back unknown) go to a bit-precise step once the
//! exploration ends, in the time left (a fifth of the limit is kept for it as soon as
//! there is one): the run's path is rebuilt with the calls' results uninterpreted
//! ([`crate::CallPolicy::Uninterpreted`]), an over-approximation of the inputs taking
//! the prefix, and the flip asked again (extension operators abstracted by
//! [`crate::libm_facts`] if the query is hard). `unsat` decides it; a model counts only
//! when its concrete run takes the side. Sides still not reached carry the reason
//! ([`fpir::OpenReason`]) of what kept them open.
//!
//! Sides whose condition is a constant (or whose site is unreachable through constant
//! conditions, or whose switch value is impossible) are reported infeasible by
//! [`fpir::analysis::constants`] whatever the search did.
//!
//! Every test is re-executed on the concrete interpreter and its coverage taken from
//! that run.

use crate::concolic::{CallPolicy, PathEntry};
use crate::error::ExploreError;
use crate::session::{
    ConcolicRun, EngineConfig, QueryAnswer, QueryStats, RunEnd, Session, UnsatBy,
};
use fpforge_engine::settings::coordinates;
use fpforge_engine::{Budget, Engine, EngineKind, Event, NoDetail, Settings, Stop};
use fpforge_exec::finding::FindingLog;
use fpforge_exec::{Finding, Trap, TrapKind};
use fpforge_spec::{ArgSpec, InputSpec, OutArgSpec};
use fpir::analysis::{infeasible_sides, Cfg};
use fpir::EntityId;
use fpir::{
    Arm, Block, BranchSite, Callee, Effort, Func, InfeasibleMethod, InstKind, MissReason, Module,
    OpenReason, Side, SideReport, SideStatus, SideTally, Witness,
};
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Settings of [`explore`].
#[non_exhaustive]
#[derive(Clone, Debug, Default)]
pub struct ExploreConfig {
    /// Limits, solver and call policy. Default: [`EngineConfig::default`].
    pub engine: EngineConfig,
    /// Stop as soon as all these sides are taken, and try flips toward them first.
    /// Default: none (explore until the work list or the time runs out).
    pub targets: Vec<Side>,
    /// The user's own inputs (`--seeds`), as coordinate bits of the spec: run first,
    /// each expanded like the default first input. Default: none.
    pub seeds: Vec<Vec<u64>>,
    /// Parameter specs (`--arg`) of a run through [`Engine::run`]. Default: none.
    pub args: Vec<ArgSpec>,
    /// Output arrays (`--out-arg`) of a run through [`Engine::run`]. Default: none.
    pub out_args: Vec<OutArgSpec>,
}

impl ExploreConfig {
    /// Sets [`ExploreConfig::engine`].
    pub fn with_engine(mut self, engine: EngineConfig) -> Self {
        self.engine = engine;
        self
    }
    /// Sets [`ExploreConfig::args`] and [`ExploreConfig::out_args`].
    pub fn with_args(mut self, args: Vec<ArgSpec>, out_args: Vec<OutArgSpec>) -> Self {
        self.args = args;
        self.out_args = out_args;
        self
    }
    /// Sets [`ExploreConfig::targets`].
    pub fn with_targets(mut self, targets: Vec<Side>) -> Self {
        self.targets = targets;
        self
    }
    /// Sets [`ExploreConfig::seeds`].
    pub fn with_seeds(mut self, seeds: Vec<Vec<u64>>) -> Self {
        self.seeds = seeds;
        self
    }
}

/// The result of [`explore`].
#[derive(Clone, Debug)]
pub struct ExploreReport {
    /// The entry function.
    pub func: Func,
    /// Every side of the entry function's branch sites (then the targets elsewhere), in
    /// site order.
    pub sides: Vec<SideReport>,
    /// The tests (coordinate bits), each adding coverage, in the order found.
    pub tests: Vec<Vec<u64>>,
    /// The inputs on which the function crashes or hangs, one per fault, in the order
    /// found.
    pub findings: Vec<Finding>,
    /// When each test was found (time since the start).
    pub found_at: Vec<Duration>,
    /// Distinct paths run.
    pub paths: u64,
    /// Concolic runs.
    pub runs: u64,
    /// Solver queries.
    pub queries: QueryStats,
    /// True when the exploration enumerated every feasible path (see the module docs).
    pub complete: bool,
    /// Why it stopped.
    pub stop: Stop,
    /// Wall-clock time.
    pub elapsed: Duration,
}

fpforge_engine::ended_by_fields!(ExploreReport);

impl Engine for ExploreConfig {
    const KIND: EngineKind = EngineKind::Explore;
    type Detail<'a> = NoDetail;
    type Report = ExploreReport;
    type Error = ExploreError;

    fn settings(&self) -> Settings {
        let ExploreConfig {
            engine,
            targets,
            seeds,
            args,
            out_args,
        } = self;
        Settings::new()
            .with_group("engine", engine.settings())
            .with_each("targets", targets.iter().map(|&side| side_text(side)))
            .with_each("seeds", seeds.iter().map(|s| coordinates(s)))
            .with_each("args", args)
            .with_each("out_args", out_args)
    }

    /// Explores with inputs planned from [`ExploreConfig::args`] and
    /// [`ExploreConfig::out_args`].
    fn run(
        &self,
        module: &Module,
        func: Func,
        budget: &Budget,
        events: &mut dyn FnMut(&ExploreEvent<'_>),
    ) -> Result<ExploreReport, ExploreError> {
        let spec = InputSpec::for_function(module, func, &self.args, &self.out_args)?;
        explore(module, func, spec, self, budget, events)
    }
}

/// A side in settings: its site and arm by index (`br3:T`, `br7:case2`, `br7:default`),
/// which needs no module, unlike [`Module::side_name`]'s case values.
fn side_text(side: Side) -> String {
    let arm = match side.arm {
        Arm::True => "T".to_string(),
        Arm::False => "F".to_string(),
        Arm::Case(i) => format!("case{i}"),
        Arm::Default => "default".to_string(),
    };
    format!("{}:{arm}", side.site)
}

impl ExploreReport {
    /// How many sides are covered, proved infeasible, and neither.
    pub fn tally(&self) -> SideTally {
        SideTally::of(&self.sides)
    }
}

/// What [`explore`] reports as it happens: the tracked sides, each new test and each
/// new finding (its minimized run is the witness of the sides it took first). Explore
/// has no news of its own.
pub type ExploreEvent<'a> = Event<'a, NoDetail>;

/// Every side of the branch sites a run of `func` tracks ([`Module::tracked_sites`]).
pub fn sides_of(module: &Module, func: Func) -> Vec<Side> {
    module
        .tracked_sites(func, &[func])
        .into_iter()
        .flat_map(|site| module.sides_of(site))
        .collect()
}

/// Decisions of a run that are flipped; later ones are left (and the exploration is
/// then not complete).
const MAX_FLIP_DEPTH: usize = 10_000;

/// A flip's first query gets an eighth of the query time limit.
const FIRST_EIGHTHS: u32 = 1;

/// Retries of unknown queries get the whole limit, then four times more each, up to 64
/// times the limit (in eighths).
const MAX_EIGHTHS: u32 = 64 * 8;

/// Work items.
enum Job {
    /// Run an input; expand from `bound`; its decisions must begin with `expected`;
    /// `origin` is the flip that produced it, with what leaves that flip open when the
    /// run does not follow `expected`.
    Run {
        input: Vec<u64>,
        bound: usize,
        expected: Vec<Side>,
        origin: Option<(Side, OpenReason)>,
    },
    /// Solve for side `alt` at entry `j` of `run`, with the query time limit times
    /// `scale / 8`.
    Flip {
        run: Rc<ConcolicRun>,
        j: usize,
        alt: Arm,
        scale: u32,
    },
}

impl Job {
    /// The side a flip aims at, or the flip a run came from.
    fn aim(&self) -> Option<Side> {
        match self {
            Job::Flip { run, j, alt, .. } => Some(Side {
                site: run.path[*j].side.site,
                arm: *alt,
            }),
            Job::Run { origin, .. } => origin.map(|(side, _)| side),
        }
    }
}

/// The state of one exploration: the work lists, what is covered, and what is left
/// undecided (per-side proofs must not depend on it).
struct Exploration<'m, 'c, E> {
    module: &'m Module,
    config: &'c ExploreConfig,
    session: Session<'m>,
    on_event: E,
    sides: Vec<Side>,
    covered: HashMap<Side, Witness>,
    findings: FindingLog<'m>,
    reached_sites: HashSet<BranchSite>,
    tests: Vec<Vec<u64>>,
    found_at: Vec<Duration>,
    paths: HashSet<Vec<Side>>,
    urgent: VecDeque<Job>,
    later: VecDeque<Job>,
    complete: bool,
    /// Flips left undecided, and why.
    open: Vec<(Side, OpenReason)>,
    /// Flips decided `unsat` by the bit-precise backend only: a proof that needs one is
    /// labeled [`InfeasibleMethod::BitPrecise`].
    bit_precise: Vec<Side>,
    /// Flips left open because of a math call: the run, the decision and the arm, for
    /// the bit-precise step ([`Exploration::abstract_math_calls`]).
    cut_by_calls: Vec<(Rc<ConcolicRun>, usize, Arm)>,
    /// Something left unseen alternatives at no particular flip (a trap, a cut path),
    /// and why (the first such).
    blocked: Option<OpenReason>,
    /// Time the solver spent on queries for each side.
    solver_time: HashMap<Side, Duration>,
}

/// Explores the paths of `func` (see the module docs), reporting tests to `on_event`.
pub fn explore(
    module: &Module,
    func: Func,
    spec: InputSpec,
    config: &ExploreConfig,
    budget: &Budget,
    on_event: impl FnMut(&ExploreEvent<'_>),
) -> Result<ExploreReport, ExploreError> {
    let clock = budget.start();
    let session = Session::new(module, func, spec, config.engine.clone(), clock)?;
    let mut sides = sides_of(module, func);
    for t in &config.targets {
        if !sides.contains(t) {
            sides.push(*t);
        }
    }
    let mut x = Exploration {
        module,
        config,
        session,
        on_event,
        sides,
        covered: HashMap::new(),
        findings: FindingLog::new(module, func, config.engine.exec.clone()),
        reached_sites: HashSet::new(),
        tests: Vec::new(),
        found_at: Vec::new(),
        paths: HashSet::new(),
        urgent: VecDeque::new(),
        later: VecDeque::new(),
        complete: true,
        open: Vec::new(),
        bit_precise: Vec::new(),
        cut_by_calls: Vec::new(),
        blocked: None,
        solver_time: HashMap::new(),
    };
    (x.on_event)(&ExploreEvent::Started { sides: &x.sides });
    let dims = x.session.spec().dims();
    let seeds = config
        .seeds
        .iter()
        .filter(|bits| bits.len() == dims)
        .cloned();
    for input in seeds.chain(std::iter::once(x.session.seed_input())) {
        x.urgent.push_back(Job::Run {
            input,
            bound: 0,
            expected: Vec::new(),
            origin: None,
        });
    }
    let stop = x.run_jobs()?;
    if stop != Stop::Interrupted {
        x.abstract_math_calls(func)?;
    }
    Ok(x.finish(func, stop))
}

/// The share of the time limit kept for the bit-precise step once a math call has left a
/// flip open: a fifth.
const CALL_STEP_SHARE: u32 = 5;

impl<E: FnMut(&ExploreEvent<'_>)> Exploration<'_, '_, E> {
    /// Works through the lists until they are empty, the targets are taken or the time
    /// is up.
    fn run_jobs(&mut self) -> Result<Stop, ExploreError> {
        let call_step_start =
            (self.session.clock().time_limit()).map(|limit| limit - limit / CALL_STEP_SHARE);
        loop {
            let kept_for_calls = !self.cut_by_calls.is_empty()
                && call_step_start.is_some_and(|at| self.session.elapsed() >= at);
            if self.session.out_of_time() || kept_for_calls {
                return Ok(Stop::TimeLimit);
            }
            if self.session.interrupted() {
                return Ok(Stop::Interrupted);
            }
            let Some(job) = self.next_job() else {
                return Ok(Stop::Exhausted);
            };
            match job {
                Job::Run {
                    input,
                    bound,
                    expected,
                    origin,
                } => {
                    if self.run(input, bound, &expected, origin)? {
                        return Ok(Stop::TargetsReached);
                    }
                }
                Job::Flip { run, j, alt, scale } => self.flip(run, j, alt, scale),
            }
        }
    }

    /// The next job: urgent ones first, but a flip toward a side covered meanwhile
    /// waits behind everything.
    fn next_job(&mut self) -> Option<Job> {
        while let Some(job) = self.urgent.pop_front() {
            if matches!(job, Job::Flip { .. })
                && job.aim().is_some_and(|s| self.covered.contains_key(&s))
            {
                self.later.push_back(job);
                continue;
            }
            return Some(job);
        }
        self.later.pop_front()
    }

    /// Runs `input` concolically, records the coverage of its concrete run, and queues
    /// the flips of its decisions from `bound` on. True when every target is taken.
    fn run(
        &mut self,
        input: Vec<u64>,
        bound: usize,
        expected: &[Side],
        origin: Option<(Side, OpenReason)>,
    ) -> Result<bool, ExploreError> {
        let run = self.session.run(&input)?;
        let decisions = run.decisions();
        if !decisions.starts_with(expected) {
            self.complete = false;
            self.open.extend(origin);
        }
        if let RunEnd::Trapped(kind) = &run.end {
            if !self.trap_follows_path(&run, kind) {
                // A trap whose condition is no branch (an unguarded division, fuel, ...)
                // cuts the path short: alternatives behind it are unseen.
                self.complete = false;
                self.blocked.get_or_insert(match kind {
                    TrapKind::FuelExhausted => OpenReason::LoopBound,
                    TrapKind::DeadlinePassed => OpenReason::TimeOut,
                    _ => OpenReason::Unsupported,
                });
            }
        }
        let concrete = self.session.concrete_run(&input)?;
        match &concrete.trap {
            Some(trap) => self.record_finding(trap, input)?,
            None => self.record_test(input, &concrete.sides),
        }
        let targets = &self.config.targets;
        if !targets.is_empty() && targets.iter().all(|t| self.covered.contains_key(t)) {
            self.paths.insert(decisions);
            return Ok(true);
        }
        if !self.paths.insert(decisions) {
            return Ok(false);
        }
        self.queue_flips(Rc::new(run), bound);
        Ok(false)
    }

    /// True when the decisions of `run` alone explain its trap `kind`: the run ends by
    /// the program's own choice (`abort`, a failed `assert`, `exit`, `unreachable`, an
    /// unknown function), or after taking a trap guard's `trap` side with only guards
    /// since (a division's overflow guard follows its zero-divisor guard). Every input
    /// taking the same decisions then traps the same way, so no alternative is unseen.
    fn trap_follows_path(&self, run: &ConcolicRun, kind: &TrapKind) -> bool {
        let chosen = matches!(
            kind,
            TrapKind::Abort
                | TrapKind::AssertFail
                | TrapKind::Exit(_)
                | TrapKind::Unreachable
                | TrapKind::UnknownExternal(_)
        );
        let trailing_guards = run
            .path
            .iter()
            .rev()
            .take_while(|entry| self.module.trap_check(entry.side.site).is_some());
        let guarded = trailing_guards
            .into_iter()
            .any(|entry| self.module.is_trap_target(entry.side));
        chosen || guarded
    }

    /// Keeps `input` as a test when its concrete run takes sides no test took before.
    fn record_test(&mut self, input: Vec<u64>, concrete: &[Side]) {
        let index = self.tests.len();
        let new_sides = self.credit(concrete, Witness::Test(index));
        if new_sides.is_empty() {
            return;
        }
        (self.on_event)(&ExploreEvent::Test {
            index,
            coords: &input,
            new_sides: &new_sides,
        });
        self.tests.push(input);
        self.found_at.push(self.session.elapsed());
    }

    /// Keeps `input`, whose concrete run ended in `trap`, as a finding when it is a new
    /// one: minimized, and the witness of the sides its minimized run takes first.
    fn record_finding(&mut self, trap: &Trap, input: Vec<u64>) -> Result<(), ExploreError> {
        let Some(index) = self.findings.add(self.session.spec(), trap, input)? else {
            return Ok(());
        };
        let coords = self.findings.list[index].coords.clone();
        let concrete = self.session.concrete_run(&coords)?;
        let new_sides = self.credit(&concrete.sides, Witness::Finding(index));
        (self.on_event)(&ExploreEvent::Finding {
            index,
            finding: &self.findings.list[index],
            new_sides: &new_sides,
        });
        Ok(())
    }

    /// Marks the tracked sides of `concrete` that no input took before as covered by
    /// `witness`; returns them.
    fn credit(&mut self, concrete: &[Side], witness: Witness) -> Vec<Side> {
        self.reached_sites.extend(concrete.iter().map(|d| d.site));
        let new_sides: Vec<Side> = self
            .sides
            .iter()
            .copied()
            .filter(|d| !self.covered.contains_key(d) && concrete.contains(d))
            .collect();
        for d in &new_sides {
            self.covered.insert(*d, witness);
        }
        new_sides
    }

    /// Queues a flip toward every other side of each input-dependent decision of `run`
    /// from `bound` on: target sides first, covered sides last.
    fn queue_flips(&mut self, run: Rc<ConcolicRun>, bound: usize) {
        if run.path.len() > MAX_FLIP_DEPTH {
            self.complete = false;
            self.blocked.get_or_insert(OpenReason::LoopBound);
        }
        for j in bound..run.path.len().min(MAX_FLIP_DEPTH) {
            let entry: PathEntry = run.path[j];
            let site = entry.side.site;
            if entry.decider.is_none() {
                // Input-independent, unless a concretization made it so.
                if j >= run.exact_prefix {
                    self.complete = false;
                    // The run's own side is no flip: only the others are undecided.
                    for side in self.module.sides_of(site) {
                        if side == entry.side {
                            continue;
                        }
                        self.open.push((side, run.cut));
                        if run.cut == OpenReason::LibmCall && self.call_step_allowed() {
                            self.cut_by_calls.push((Rc::clone(&run), j, side.arm));
                        }
                    }
                }
                continue;
            }
            for side in self.module.sides_of(site) {
                if side == entry.side {
                    continue;
                }
                let job = Job::Flip {
                    run: Rc::clone(&run),
                    j,
                    alt: side.arm,
                    scale: FIRST_EIGHTHS,
                };
                let covered = self.covered.contains_key(&side);
                if self.config.targets.contains(&side) && !covered {
                    self.urgent.push_front(job);
                } else if covered {
                    self.later.push_back(job);
                } else {
                    self.urgent.push_back(job);
                }
            }
        }
    }

    /// Asks the solver for an input taking side `alt` at decision `j` of `run`, with the
    /// decisions before as the run took them.
    fn flip(&mut self, run: Rc<ConcolicRun>, j: usize, alt: Arm, scale: u32) {
        let entry = run.path[j];
        let side = Side {
            site: entry.side.site,
            arm: alt,
        };
        let Some(c) = self.session.semantics_mut().constraint_for(&entry, alt) else {
            self.complete = false;
            self.open.push((side, OpenReason::Unsupported));
            return;
        };
        let mut query: Vec<_> = run.path[..j].iter().filter_map(|e| e.constraint).collect();
        query.push(c);
        let exact = j < run.exact_prefix;
        // What leaves the flip open if it is not decided: the prefix's concretization,
        // a model that leaves the path, or the solver's time.
        let inexact = if exact {
            OpenReason::Unsupported
        } else {
            run.cut
        };
        let asked = Instant::now();
        let answer = self.session.solve(&query, &run.input, scale);
        let tried = self.solver_time.entry(side).or_default();
        *tried += asked.elapsed();
        match answer {
            QueryAnswer::Sat(next) => {
                let mut expected: Vec<Side> = run.path[..j].iter().map(|e| e.side).collect();
                expected.push(side);
                self.urgent.push_back(Job::Run {
                    input: next,
                    bound: j + 1,
                    expected,
                    origin: Some((side, inexact)),
                });
            }
            QueryAnswer::Unsat(UnsatBy::Intervals) if exact => {}
            QueryAnswer::Unsat(UnsatBy::BitPrecise) if exact => self.bit_precise.push(side),
            QueryAnswer::Unknown if scale < MAX_EIGHTHS => {
                // Retried with a longer limit once everything else is done.
                self.later.push_back(Job::Flip {
                    run,
                    j,
                    alt,
                    scale: if scale < 8 { 8 } else { scale * 4 },
                });
            }
            QueryAnswer::Unsat(_) => self.leave_open(run, j, alt, inexact),
            QueryAnswer::Unknown => {
                let why = if !exact {
                    run.cut
                } else if self.session.uses_extension(&query) {
                    OpenReason::LibmCall
                } else {
                    OpenReason::TimeOut
                };
                self.leave_open(run, j, alt, why);
            }
        }
    }

    /// Records the flip toward `alt` at decision `j` of `run` as undecided, for `why`.
    fn leave_open(&mut self, run: Rc<ConcolicRun>, j: usize, alt: Arm, why: OpenReason) {
        self.complete = false;
        let side = Side {
            site: run.path[j].side.site,
            arm: alt,
        };
        self.open.push((side, why));
        if why == OpenReason::LibmCall && self.call_step_allowed() {
            self.cut_by_calls.push((run, j, alt));
        }
    }

    /// Whether the bit-precise step may give math calls terms: not when the caller asked
    /// for every call to be concretized ([`CallPolicy::Concretize`]).
    fn call_step_allowed(&self) -> bool {
        self.config.engine.calls != CallPolicy::Concretize
    }

    /// The bit-precise step for the flips a math call left open: each goes again with
    /// the run's path condition rebuilt under [`CallPolicy::Uninterpreted`] (calls
    /// without an operator become unconstrained results, extension operators are
    /// abstracted by [`crate::libm_facts`] when the query is hard), which
    /// over-approximates the inputs taking the prefix. Its `unsat` decides the flip (the
    /// engine that gave it counts for the label); a model is kept when its concrete run
    /// takes the side. Runs in the time left ([`CALL_STEP_SHARE`] of the limit is kept
    /// for it once such a flip exists).
    fn abstract_math_calls(&mut self, func: Func) -> Result<(), ExploreError> {
        if self.cut_by_calls.is_empty() {
            return Ok(());
        }
        let engine = &self.config.engine;
        let config = engine.clone().with_calls(CallPolicy::Uninterpreted);
        let spec = self.session.spec().clone();
        let clock = self.session.clock().clone();
        let mut step = Session::new(self.module, func, spec, config, clock)?;
        for (run, j, alt) in std::mem::take(&mut self.cut_by_calls) {
            if step.out_of_time() || step.interrupted() {
                break;
            }
            let side = Side {
                site: run.path[j].side.site,
                arm: alt,
            };
            if self.covered.contains_key(&side) {
                continue;
            }
            let again = step.run(&run.input)?;
            let same_prefix = again.path.len() > j
                && again.path[..=j]
                    .iter()
                    .zip(&run.path[..=j])
                    .all(|(a, b)| a.side == b.side);
            if !same_prefix || j >= again.exact_prefix {
                continue;
            }
            let Some(c) = step.semantics_mut().constraint_for(&again.path[j], alt) else {
                continue;
            };
            let mut query: Vec<_> = again.path[..j]
                .iter()
                .filter_map(|e| e.constraint)
                .collect();
            query.push(c);
            match step.solve(&query, &run.input, 8) {
                QueryAnswer::Unsat(by) => {
                    if let Some(k) = self
                        .open
                        .iter()
                        .position(|&(d, why)| d == side && why == OpenReason::LibmCall)
                    {
                        self.open.swap_remove(k);
                        if by == UnsatBy::BitPrecise {
                            self.bit_precise.push(side);
                        }
                    }
                }
                QueryAnswer::Sat(input) => {
                    let concrete = self.session.concrete_run(&input)?;
                    if concrete.trap.is_none() && concrete.sides.contains(&side) {
                        self.record_test(input, &concrete.sides);
                    }
                }
                QueryAnswer::Unknown => {}
            }
        }
        Ok(())
    }

    /// The report: each side covered, proved infeasible, or not reached.
    fn finish(mut self, func: Func, stop: Stop) -> ExploreReport {
        let complete = self.complete && stop == Stop::Exhausted;
        // Work left when the search stopped is undecided too.
        for job in std::mem::take(&mut self.urgent)
            .into_iter()
            .chain(std::mem::take(&mut self.later))
        {
            match job.aim() {
                Some(side) => self.open.push((side, OpenReason::TimeOut)),
                None => {
                    self.blocked.get_or_insert(OpenReason::TimeOut);
                }
            }
        }
        let prefixes = PrefixProof::new(self.module, func, &self.open, self.blocked);
        // The same arguments with the bit-precise backend's answers taken away.
        let without_bit_precise: Vec<(Side, OpenReason)> = self
            .open
            .iter()
            .copied()
            .chain(self.bit_precise.iter().map(|&d| (d, OpenReason::TimeOut)))
            .collect();
        let prefixes_alone =
            PrefixProof::new(self.module, func, &without_bit_precise, self.blocked);
        let complete_alone = complete && self.bit_precise.is_empty();
        let constant = self.constant_infeasible();
        let sides = self
            .sides
            .iter()
            .map(|&side| SideReport {
                side,
                status: match self.covered.get(&side) {
                    Some(&witness) => SideStatus::Covered { witness },
                    None => match constant.get(&side) {
                        Some(&method) => SideStatus::Infeasible { method },
                        None if complete || prefixes.proves(side) => {
                            let method =
                                if complete_alone || (complete && prefixes_alone.proves(side)) {
                                    InfeasibleMethod::ExhaustiveExploration
                                } else if prefixes_alone.proves(side) {
                                    InfeasibleMethod::PrefixExploration
                                } else {
                                    InfeasibleMethod::BitPrecise
                                };
                            SideStatus::Infeasible { method }
                        }
                        None => SideStatus::NotReached {
                            reason: MissReason {
                                branch_reached: self.reached_sites.contains(&side.site),
                                closest: None,
                                effort: Effort {
                                    proof_time: self.solver_time.get(&side).copied(),
                                    ..Effort::default()
                                },
                                open: prefixes.obstacle(side),
                            },
                        },
                    },
                },
            })
            .collect();
        ExploreReport {
            func,
            sides,
            tests: self.tests,
            findings: self.findings.list,
            found_at: self.found_at,
            paths: self.paths.len() as u64,
            runs: self.session.runs,
            queries: self.session.stats,
            complete,
            stop,
            elapsed: self.session.elapsed(),
        }
    }

    /// The sides that constant conditions rule out, in every function the sides are in.
    fn constant_infeasible(&self) -> HashMap<Side, InfeasibleMethod> {
        let funcs: HashSet<Func> = self
            .sides
            .iter()
            .map(|d| self.module.branch_sites[d.site].func)
            .collect();
        funcs
            .into_iter()
            .flat_map(|f| infeasible_sides(self.module, f))
            .collect()
    }
}

/// Per-side proofs when the exploration is not complete (see the module docs): a side
/// `S` of a site `s` of the entry function is infeasible when no flip toward `S` is left
/// undecided and every other undecided flip is in the entry function with a target block
/// from which the control-flow graph cannot reach `s`'s block (no trap or cut path, and
/// the entry function is not recursive and makes no indirect call).
///
/// Why: take an input that takes `S` and the explored run sharing the longest prefix of
/// decisions with it. Where they part, the input's side is a flip of that run (or of
/// the run it was generated from): decided unsat on an exact prefix (so no such input),
/// decided sat (then a run shares a longer prefix), or undecided, and then its target
/// cannot lead to `s`. If they do not part before the input takes `S` at `s`, the run
/// was at `s` with another side and the flip toward `S` was decided unsat.
struct PrefixProof {
    /// Blocks reachable from each block of the entry function (inclusive).
    reach: Vec<Vec<bool>>,
    /// Each undecided flip, why, and the entry-function block it leads to.
    open: Vec<(Side, OpenReason, Option<Block>)>,
    /// Block of each branch site of the entry function.
    sites: HashMap<BranchSite, Block>,
    /// Why the argument cannot be made at all (a trap or a cut path, recursion or an
    /// indirect call); `None` when it can.
    unusable: Option<OpenReason>,
}

impl PrefixProof {
    fn new(
        module: &Module,
        func: Func,
        open: &[(Side, OpenReason)],
        blocked: Option<OpenReason>,
    ) -> PrefixProof {
        let cfg = Cfg::new(&module.funcs[func]);
        let reach = (0..cfg.len())
            .map(|start| cfg.reachable_from(Block::new(start)))
            .collect();
        let in_func = |d: &Side| module.branch_sites[d.site].func == func;
        let sites = module
            .branch_sites
            .iter()
            .filter(|(_, d)| d.func == func)
            .map(|(site, d)| (site, d.block))
            .collect();
        PrefixProof {
            reach,
            sites,
            open: open
                .iter()
                .map(|&(d, why)| (d, why, module.side_target(d).filter(|_| in_func(&d))))
                .collect(),
            unusable: blocked
                .or_else(|| (!calls_are_tame(module, func)).then_some(OpenReason::Unsupported)),
        }
    }

    fn proves(&self, side: Side) -> bool {
        self.sites.contains_key(&side.site) && self.obstacle(side).is_none()
    }

    /// What keeps the argument from proving `side` (`None` when it proves it, or the
    /// side is outside the entry function): an undecided flip toward it first, then
    /// what makes the argument unusable, then an undecided flip that may lead to it.
    fn obstacle(&self, side: Side) -> Option<OpenReason> {
        let &block = self.sites.get(&side.site)?;
        let toward = self.open.iter().find(|(d, _, _)| *d == side);
        let may_lead = self.open.iter().find(|(_, _, target)| {
            target.is_none_or(|b| self.reach.get(b.index()).is_none_or(|r| r[block.index()]))
        });
        toward
            .map(|&(_, why, _)| why)
            .or(self.unusable)
            .or(may_lead.map(|&(_, why, _)| why))
    }
}

/// True when no function `func` may call (transitively) calls `func` again or calls
/// through a pointer: one activation of `func` per run, so its sites are reached only
/// along its own control-flow graph.
fn calls_are_tame(module: &Module, func: Func) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![func];
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        for (_, block) in module.funcs[f].blocks.iter() {
            for inst in &block.insts {
                match &inst.kind {
                    InstKind::Call {
                        callee: Callee::Direct(g),
                        ..
                    } => {
                        if *g == func {
                            return false;
                        }
                        stack.push(*g);
                    }
                    InstKind::Call {
                        callee: Callee::Indirect(_),
                        ..
                    } => return false,
                    _ => {}
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_targets_seeds_and_the_engine() {
        let config = ExploreConfig::default()
            .with_targets(vec![
                Side {
                    site: BranchSite(3),
                    arm: Arm::True,
                },
                Side {
                    site: BranchSite(7),
                    arm: Arm::Case(2),
                },
            ])
            .with_seeds(vec![vec![1.5f64.to_bits()]])
            .with_args(vec!["x in [0, 1]".parse().unwrap()], Vec::new());
        let text = config.settings().text();
        for line in [
            "engine.seed = 0",
            "engine.strategy = portfolio",
            "engine.exec.fuel = 1000000",
            "targets = br3:T",
            "targets = br7:case2",
            "seeds = 3ff8000000000000",
            "args = x in [0.0, 1.0]",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in {text}");
        }
        let reseeded = config
            .clone()
            .with_engine(EngineConfig::default().with_seed(1));
        assert_ne!(reseeded.settings(), config.settings());
    }
}
