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
//! Sides whose condition is a constant (or whose site is unreachable through constant
//! conditions) are reported infeasible by [`crate::constant`] whatever the search did.
//!
//! Every test is re-executed on the concrete interpreter and its coverage taken from
//! that run.

use crate::concolic::PathEntry;
use crate::constant::constant_infeasible;
use crate::error::ExploreError;
use crate::path::Decision;
use crate::reach::InfeasibleMethod;
use crate::session::{ConcolicRun, EngineConfig, QueryAnswer, QueryStats, RunEnd, Session};
use fpforge_exec::{BranchOutcome, InputSpec};
use fpir::{BranchKind, BranchSite, Callee, EntityId, Func, InstKind, Module, Terminator};
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

/// Settings of [`explore`].
#[non_exhaustive]
#[derive(Clone, Debug, Default)]
pub struct ExploreConfig {
    /// Limits, solver and call policy. Default: [`EngineConfig::default`].
    pub engine: EngineConfig,
    /// Stop as soon as all these sides are taken, and try flips toward them first.
    /// Default: none (explore until the work list or the time runs out).
    pub targets: Vec<Decision>,
}

impl ExploreConfig {
    /// Sets [`ExploreConfig::engine`].
    pub fn with_engine(mut self, engine: EngineConfig) -> Self {
        self.engine = engine;
        self
    }
    /// Sets [`ExploreConfig::targets`].
    pub fn with_targets(mut self, targets: Vec<Decision>) -> Self {
        self.targets = targets;
        self
    }
}

/// What is known about one branch side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideStatus {
    /// Taken by test number `test`.
    Covered {
        /// Index into [`ExploreReport::tests`].
        test: usize,
    },
    /// Proved never taken.
    Infeasible {
        /// The proof.
        method: InfeasibleMethod,
    },
    /// Not taken by any test; not proved infeasible.
    NotReached,
}

/// One branch side and its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideReport {
    /// The side.
    pub side: Decision,
    /// Its status.
    pub status: SideStatus,
}

/// Why the exploration stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExploreStop {
    /// The work list is empty.
    Exhausted,
    /// Every target side was taken.
    TargetReached,
    /// The time limit passed.
    TimeLimit,
}

impl fmt::Display for ExploreStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExploreStop::Exhausted => "every path explored",
            ExploreStop::TargetReached => "targets reached",
            ExploreStop::TimeLimit => "time limit",
        })
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
    pub stop: ExploreStop,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl ExploreReport {
    /// Sides covered.
    pub fn covered(&self) -> usize {
        self.sides
            .iter()
            .filter(|s| matches!(s.status, SideStatus::Covered { .. }))
            .count()
    }

    /// Sides proved infeasible.
    pub fn infeasible(&self) -> usize {
        self.sides
            .iter()
            .filter(|s| matches!(s.status, SideStatus::Infeasible { .. }))
            .count()
    }
}

/// Progress of [`explore`], reported as it happens.
#[derive(Clone, Debug)]
pub enum ExploreEvent<'a> {
    /// The sides being tracked.
    Started {
        /// Every side.
        sides: &'a [Decision],
    },
    /// A new test covering new sides.
    Test {
        /// Its index.
        index: usize,
        /// Its coordinate bits.
        input: &'a [u64],
        /// The sides it covers first.
        new_sides: &'a [Decision],
    },
}

/// Every side of the branch sites of `func`.
pub fn sides_of(module: &Module, func: Func) -> Vec<Decision> {
    let mut out = Vec::new();
    for (site, data) in module.branch_sites.iter() {
        if data.func != func {
            continue;
        }
        out.extend(
            outcomes(data.kind)
                .into_iter()
                .map(|outcome| Decision { site, outcome }),
        );
    }
    out
}

fn outcomes(kind: BranchKind) -> Vec<BranchOutcome> {
    match kind {
        BranchKind::Cond => vec![BranchOutcome::Cond(true), BranchOutcome::Cond(false)],
        BranchKind::Switch { cases } => (0..cases)
            .map(|i| BranchOutcome::Case(Some(i)))
            .chain([BranchOutcome::Case(None)])
            .collect(),
    }
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
    /// `origin` is the flip that produced it.
    Run {
        input: Vec<u64>,
        bound: usize,
        expected: Vec<(BranchSite, BranchOutcome)>,
        origin: Option<Decision>,
    },
    /// Solve for side `alt` at entry `j` of `run`, with the query time limit times
    /// `scale / 8`.
    Flip {
        run: Rc<ConcolicRun>,
        j: usize,
        alt: BranchOutcome,
        scale: u32,
    },
}

/// Explores the paths of `func` (see the module docs), reporting tests to `on_event`.
pub fn explore(
    module: &Module,
    func: Func,
    spec: InputSpec,
    config: &ExploreConfig,
    mut on_event: impl FnMut(&ExploreEvent<'_>),
) -> Result<ExploreReport, ExploreError> {
    let mut s = Session::new(module, func, spec, config.engine.clone())?;
    let mut sides = sides_of(module, func);
    for t in &config.targets {
        if !sides.contains(t) {
            sides.push(*t);
        }
    }
    on_event(&ExploreEvent::Started { sides: &sides });
    let mut covered: HashMap<Decision, usize> = HashMap::new();
    let mut tests: Vec<Vec<u64>> = Vec::new();
    let mut found_at: Vec<Duration> = Vec::new();
    let mut paths: HashSet<Vec<(BranchSite, BranchOutcome)>> = HashSet::new();
    let mut urgent: VecDeque<Job> = VecDeque::new();
    let mut later: VecDeque<Job> = VecDeque::new();
    let mut complete = true;
    // Flips left undecided (per-side proofs must not depend on them), and whether
    // something left unseen alternatives at no particular flip (a trap, a cut path).
    let mut open: Vec<Decision> = Vec::new();
    let mut blocked = false;
    urgent.push_back(Job::Run {
        input: s.seed_input(),
        bound: 0,
        expected: Vec::new(),
        origin: None,
    });
    let stop = loop {
        if s.out_of_time() {
            break ExploreStop::TimeLimit;
        }
        let job = match urgent.pop_front() {
            Some(Job::Flip { run, j, alt, scale }) => {
                let side = Decision {
                    site: run.path[j].site,
                    outcome: alt,
                };
                if covered.contains_key(&side) {
                    later.push_back(Job::Flip { run, j, alt, scale });
                    continue;
                }
                Job::Flip { run, j, alt, scale }
            }
            Some(job) => job,
            None => match later.pop_front() {
                Some(job) => job,
                None => break ExploreStop::Exhausted,
            },
        };
        match job {
            Job::Run {
                input,
                bound,
                expected,
                origin,
            } => {
                let run = s.run(&input)?;
                let decisions = run.decisions();
                if !decisions.starts_with(&expected) {
                    complete = false;
                    open.extend(origin);
                }
                if matches!(run.end, RunEnd::Trapped(_)) {
                    // A trap (integer division by zero, fuel, ...) cuts the path short:
                    // its condition is no branch, so alternatives behind it are unseen.
                    complete = false;
                    blocked = true;
                }
                let concrete = s.concrete_decisions(&input)?;
                let new_sides: Vec<Decision> = sides
                    .iter()
                    .copied()
                    .filter(|d| !covered.contains_key(d) && concrete.contains(&(d.site, d.outcome)))
                    .collect();
                if !new_sides.is_empty() {
                    let index = tests.len();
                    for d in &new_sides {
                        covered.insert(*d, index);
                    }
                    tests.push(input.clone());
                    found_at.push(s.elapsed());
                    on_event(&ExploreEvent::Test {
                        index,
                        input: &input,
                        new_sides: &new_sides,
                    });
                }
                if !config.targets.is_empty()
                    && config.targets.iter().all(|t| covered.contains_key(t))
                {
                    paths.insert(decisions);
                    break ExploreStop::TargetReached;
                }
                if !paths.insert(decisions) {
                    continue;
                }
                let run = Rc::new(run);
                if run.path.len() > MAX_FLIP_DEPTH {
                    complete = false;
                    blocked = true;
                }
                for j in bound..run.path.len().min(MAX_FLIP_DEPTH) {
                    let entry: PathEntry = run.path[j];
                    let kind = module.branch_sites[entry.site].kind;
                    if entry.decider.is_none() {
                        // Input-independent, unless a concretization made it so.
                        if j >= run.exact_prefix {
                            complete = false;
                            open.extend(outcomes(kind).into_iter().map(|outcome| Decision {
                                site: entry.site,
                                outcome,
                            }));
                        }
                        continue;
                    }
                    for alt in outcomes(kind) {
                        if alt == entry.outcome {
                            continue;
                        }
                        let side = Decision {
                            site: entry.site,
                            outcome: alt,
                        };
                        let job = Job::Flip {
                            run: Rc::clone(&run),
                            j,
                            alt,
                            scale: FIRST_EIGHTHS,
                        };
                        if config.targets.contains(&side) && !covered.contains_key(&side) {
                            urgent.push_front(job);
                        } else if covered.contains_key(&side) {
                            later.push_back(job);
                        } else {
                            urgent.push_back(job);
                        }
                    }
                }
            }
            Job::Flip { run, j, alt, scale } => {
                let entry = run.path[j];
                let side = Decision {
                    site: entry.site,
                    outcome: alt,
                };
                let Some(c) = s.semantics_mut().constraint_for(&entry, alt) else {
                    complete = false;
                    open.push(side);
                    continue;
                };
                let mut query: Vec<_> = run.path[..j].iter().filter_map(|e| e.constraint).collect();
                query.push(c);
                let exact = j < run.exact_prefix;
                match s.solve(&query, &run.input, scale) {
                    QueryAnswer::Sat(next) => {
                        let mut expected: Vec<_> =
                            run.path[..j].iter().map(|e| (e.site, e.outcome)).collect();
                        expected.push((entry.site, alt));
                        urgent.push_back(Job::Run {
                            input: next,
                            bound: j + 1,
                            expected,
                            origin: Some(side),
                        });
                    }
                    QueryAnswer::Unsat if exact => {}
                    QueryAnswer::Unsat => {
                        complete = false;
                        open.push(side);
                    }
                    QueryAnswer::Unknown if scale < MAX_EIGHTHS => {
                        // Retried with a longer limit once everything else is done.
                        later.push_back(Job::Flip {
                            run,
                            j,
                            alt,
                            scale: if scale < 8 { 8 } else { scale * 4 },
                        });
                    }
                    QueryAnswer::Unknown => {
                        complete = false;
                        open.push(side);
                    }
                }
            }
        }
    };
    let complete = complete && stop == ExploreStop::Exhausted;
    // Work left when the search stopped is undecided too.
    for job in urgent.into_iter().chain(later) {
        match job {
            Job::Flip { run, j, alt, .. } => open.push(Decision {
                site: run.path[j].site,
                outcome: alt,
            }),
            Job::Run {
                origin: Some(o), ..
            } => open.push(o),
            Job::Run { origin: None, .. } => blocked = true,
        }
    }
    let prefixes = PrefixProof::new(module, func, &open, blocked);
    let constant: HashSet<Decision> = sides
        .iter()
        .map(|d| module.branch_sites[d.site].func)
        .collect::<HashSet<_>>()
        .into_iter()
        .flat_map(|f| constant_infeasible(module, f))
        .collect();
    let sides = sides
        .into_iter()
        .map(|side| SideReport {
            side,
            status: match covered.get(&side) {
                Some(&test) => SideStatus::Covered { test },
                None if constant.contains(&side) => SideStatus::Infeasible {
                    method: InfeasibleMethod::ConstantCondition,
                },
                None if complete => SideStatus::Infeasible {
                    method: InfeasibleMethod::ExhaustiveExploration,
                },
                None if prefixes.proves(side) => SideStatus::Infeasible {
                    method: InfeasibleMethod::PrefixExploration,
                },
                None => SideStatus::NotReached,
            },
        })
        .collect();
    Ok(ExploreReport {
        func,
        sides,
        tests,
        found_at,
        paths: paths.len() as u64,
        runs: s.runs,
        queries: s.stats,
        complete,
        stop,
        elapsed: s.elapsed(),
    })
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
    reach: Vec<HashSet<fpir::Block>>,
    open: Vec<(Decision, Option<fpir::Block>)>,
    /// Block of each branch site of the entry function.
    sites: HashMap<BranchSite, fpir::Block>,
    usable: bool,
}

impl PrefixProof {
    fn new(module: &Module, func: Func, open: &[Decision], blocked: bool) -> PrefixProof {
        let f = &module.funcs[func];
        let succ: Vec<Vec<fpir::Block>> = f
            .blocks
            .iter()
            .map(|(_, b)| b.term.targets().iter().map(|t| t.block).collect())
            .collect();
        let reach = (0..succ.len())
            .map(|start| {
                let mut seen = HashSet::new();
                let mut stack = vec![fpir::Block::new(start)];
                while let Some(b) = stack.pop() {
                    if seen.insert(b) {
                        stack.extend(succ[b.index()].iter().copied());
                    }
                }
                seen
            })
            .collect();
        let target = |d: &Decision| -> Option<fpir::Block> {
            let data = &module.branch_sites[d.site];
            if data.func != func {
                return None;
            }
            match (&module.funcs[data.func].blocks[data.block].term, d.outcome) {
                (Terminator::Br { then_to, .. }, BranchOutcome::Cond(true)) => Some(then_to.block),
                (Terminator::Br { else_to, .. }, BranchOutcome::Cond(false)) => Some(else_to.block),
                (Terminator::Switch { cases, .. }, BranchOutcome::Case(Some(i))) => {
                    cases.get(i as usize).map(|c| c.target.block)
                }
                (Terminator::Switch { default, .. }, BranchOutcome::Case(None)) => {
                    Some(default.block)
                }
                _ => None,
            }
        };
        let sites = module
            .branch_sites
            .iter()
            .filter(|(_, d)| d.func == func)
            .map(|(site, d)| (site, d.block))
            .collect();
        PrefixProof {
            reach,
            sites,
            open: open.iter().map(|d| (*d, target(d))).collect(),
            usable: !blocked && calls_are_tame(module, func),
        }
    }

    fn proves(&self, side: Decision) -> bool {
        let Some(block) = self.block_of(side.site) else {
            return false;
        };
        self.usable
            && self.open.iter().all(|(d, target)| {
                *d != side
                    && target.is_some_and(|b| {
                        self.reach
                            .get(b.index())
                            .is_some_and(|r| !r.contains(&block))
                    })
            })
    }

    fn block_of(&self, site: BranchSite) -> Option<fpir::Block> {
        self.sites.get(&site).copied()
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
