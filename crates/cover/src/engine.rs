//! The search loop (CoverMe, Fu & Su, PLDI'17, Sec. 4): minimize the
//! representing function `FOO_R` by basinhopping from `n_start` starting points until
//! every included side is covered or the budget is spent.
//!
//! The search begins by evaluating points made of special values (zeros, ones,
//! infinities, NaN, the extreme normals and subnormals), which take the special-case
//! branches of libm-style code at once, and the axis points (one parameter at a special
//! value or a far power of two, the others at 1: [`InputPlan::special_points`]). Each
//! start then picks its space in turn from [`CoverConfig::spaces`] (a start holding an
//! infinity or a NaN searches in ordered bits, where it can move), seeds a ChaCha8
//! generator with the run's seed on stream `start`, and runs basinhopping with target 0.
//! A start whose basinhopping converges without a zero is finished by the alternating
//! variable method in exact ulp steps ([`fpforge_search::avm()`]), which lands on
//! equalities a line search stops short of.
//!
//! Inside the objective, every run whose sides include an uncovered one is re-executed
//! with a fresh [`BranchTrace`] interpreter; the sides of that re-run that were not
//! covered become covered with the input as their witness test (incidental coverage
//! counts), saturation is updated, and the objective returns 0, which ends the start.
//! The next start then continues from that witness, since inputs that reach a new side
//! are close to the sides behind it. A zero `r` that covered nothing new (the run
//! trapped, or ended inside a callee) counts as 1 so it cannot end a search.
//!
//! With [`CoverConfig::targeted`] every other start aims at one uncovered side whose
//! branch a test already reaches (the frontier, round robin): it starts from the test
//! closest to taking that side and minimizes the smallest distance to taking the side
//! over the run (a run that misses the branch scores above any distance). CoverMe's `r` is 0 at every branch with
//! two unsaturated sides, so it says nothing about a side whose sibling leads to work
//! too; the targeted objective does. New coverage still ends the search with 0.
//!
//! The trap targets take one turn of that round robin together, so that a function
//! whose pointer accesses give it hundreds of guards still aims its targeted starts at
//! its own branches as often.
//!
//! A run that exhausts its fuel scores far worse than one that ends, so line searches
//! leave loops bounded by their inputs. But an iteration cap (GSL's `n > 10000`) is
//! taken only by runs longer than the fuel: when a targeted start's run runs out of fuel
//! while its distance to the target was still shrinking at the target's branch, the
//! input is evaluated again with ten times the fuel and scored by that run, so the
//! search climbs past the fuel towards the cap. These long runs may cost a start at most
//! as many steps as its other runs took, none once one of them runs out of fuel too, and
//! are remembered by input for the rest of the start.
//!
//! A start can still wander where most neighbours loop past the fuel (an infinite or NaN
//! intermediate that an iteration never converges on): each such run costs the whole
//! fuel and scores as the worst, so one start could take a short run's whole budget. A
//! start gives up once its runs out of fuel number `STUCK_RUNS` and cost more than
//! `STUCK_RATIO` times the steps of its runs that ended (`StartCost`); the next start
//! takes over. Steps, not time, decide, so runs stay deterministic.
//!
//! With [`CoverConfig::levels`] the objective ranks runs first by how many unsaturated
//! sides they take (like the approach level of search-based testing) and then by `r`:
//! CoverMe compares branch distances measured at different branches, so a run that went
//! deeper but ended far from its last branch could lose to a shallow run.
//!
//! Sides proved infeasible from constant branch conditions
//! ([`SideTable::infeasible`]) count as done from the start, so a run whose other sides
//! are all covered ends at once instead of searching for them. Trap targets (the `trap`
//! sides of [`fpir::guard`]'s guards) are sides like any other; once they are all that
//! is left open, the prover is asked about them, so that a function whose accesses and
//! divisors cannot trap does not spend its whole budget looking for a crash; those it
//! leaves open get as many more starts as the branches took (at least twenty).
//!
//! With [`CoverConfig::jobs`] above 1, the starts run in rounds: every worker thread
//! runs four starts with its own start numbers (hence seed streams) from
//! a snapshot of the coverage so far and an equal share of the evaluations left, and the
//! tests the workers found are then confirmed again in worker order. The result depends
//! on the seed, the job count and the evaluation budget, never on timing (a time limit
//! or an interrupt can still cut a round short).
//!
//! With [`CoverConfig::boundaries`], once the sides are done, every ordered comparison a
//! test executes is checked for the three operand relations `<`, `==`, `>`; each relation
//! no test shows gets a short exact-step search from the closest test, and an input that
//! shows it is kept as a test. Sides are one compiler's partition of the inputs: gcc
//! compiles `x < y ? y : x` as a branch on `x > y`, whose sides these tests cover.
//!
//! With [`CoverConfig::pairs`], every run also notes its pairs of consecutive sides
//! ([`crate::pairs`]); an input whose confirming re-run covers nothing new but shows a
//! pair no test shows is kept as a pair test (a bounded number), which the searches do
//! not start from and which joins the tests when the run ends. Once the sides are done,
//! [`CoverConfig::pair_evals`] evaluations of random points and of tests with one
//! coordinate replaced look for more, as a fuzzer would.
//!
//! Confirmations share one tracing interpreter per fuel: making one prepares every
//! function of the module. A confirming run out of the search's fuel runs again with ten
//! times it, and one still out of fuel, a possible hang, with a hundred times it (a
//! bounded number of times). A run that ends in a crash or hang already found is not
//! confirmed at all, whatever sides it took: it would run into the same trap again.
//!
//! Finally every side left uncovered is explained ([`MissReason`]): whether some test reaches
//! its branch (CoverMe's "likely infeasible", Sec. 5 — a label, never a proof) and which
//! test came closest to taking it.

use crate::config::{CoverConfig, Metric};
use crate::distance::distance;
use crate::error::CoverError;
use crate::pairs::{Pair, PairTracker};
use crate::prover::{Settlement, SideProver};
use crate::report::CoverReport;
use crate::represent::{Goal, Penalty, SiteShapes};
use crate::sides::SideTable;
use fpforge_engine::settings::{coordinates, optional, seconds};
use fpforge_engine::{Engine, EngineKind, Event, NoDetail, Progress, Settings};
use fpforge_exec::finding::FindingLog;
use fpforge_exec::{
    BranchTrace, Concrete, ExecConfig, ExecError, Finding, FindingKey, FindingKind, FullTrace,
    Interpreter, Observer, Outcome, Run, Trap, TrapKind,
};
use fpforge_search::{
    avm, basinhopping, AvmConfig, BasinhoppingConfig, Budget, Clock, Evaluator, Limits, Space, Stop,
};
use fpforge_spec::plan::{InputPlan, Test};
use fpforge_spec::InputSpec;
use fpir::{
    Closest, Effort, Func, InfeasibleMethod, MissReason, Module, OpenReason, Side, SideReport,
    SideStatus, Witness,
};
use fpir::{CmpPred, FloatPred, IntPred};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// What a coverage run reports as it happens: the included sides, each new test and
/// finding, and progress (at most every [`PROGRESS_EVERY`] during a search, and after
/// each start). Cover has no news of its own.
pub type CoverEvent<'a> = Event<'a, NoDetail>;

/// Scales `r` so that runs taking more unsaturated sides rank lower whatever their
/// distance: `clamp(r, lo, hi) * (lo / hi)^k` for `k` unsaturated sides taken, so levels
/// occupy disjoint ranges and the scaling (by powers of two) is exact, keeping the full
/// precision of distances within a level. Ulp distances are at least 1: `[1, 2^64]`
/// and 15 levels fit in the exponent range; real distances use `[2^-64, 2^64]` and 7
/// levels. Deeper runs share the last level.
fn leveled(r: f64, open_hits: u32, metric: Metric) -> f64 {
    let (lo_exp, max_level) = match metric {
        Metric::Ulp => (0, 15),
        Metric::Real => (-64, 7),
    };
    let k = open_hits.min(max_level) as i32;
    r.clamp(2f64.powi(lo_exp), 2f64.powi(64)) * 2f64.powi((lo_exp - 64) * k)
}

/// The objective of a targeted search at a run that does not reach the target's branch:
/// above every branch distance.
const UNREACHED: f64 = 1.2e21;

/// The objective of a run out of fuel that covered nothing new, from `value`, what it
/// would be had the run ended: [`OUT_OF_FUEL`] times that, and up to twice that for
/// the largest inputs, since loop counts mostly grow with orders, lengths and arguments.
/// Line searches then leave inputs whose loops outlast the fuel rather than spend their
/// budget on them, while a run that went deeper still ranks first ([`leveled`] puts
/// 2^64 between depths).
fn out_of_fuel(value: f64, point: &[f64]) -> f64 {
    let magnitude = |v: f64| {
        if v.is_nan() {
            1024.0
        } else {
            v.abs().ln_1p() / std::f64::consts::LN_2
        }
    };
    let mean = point.iter().map(|&v| magnitude(v)).sum::<f64>() / point.len().max(1) as f64;
    value * OUT_OF_FUEL * (1.0 + mean.min(1024.0) / 1024.0)
}

/// How much worse a run out of fuel scores than it would have had it ended
/// ([`out_of_fuel`]).
const OUT_OF_FUEL: f64 = 65536.0;

/// The share of the time limit the search gets when a prover follows it (the prover gets
/// the rest, so the run ends within the limit): a fifth of the limit, at most
/// [`PROVER_DEFAULT_MAX_TIME`], goes to the prover unless `--reach-time` sets its time.
fn search_share(limit: Duration, config: &CoverConfig) -> Duration {
    if config.prover.is_none() || config.prover_time.is_some() {
        return limit;
    }
    limit - (limit / 5).min(PROVER_DEFAULT_MAX_TIME)
}

/// The fewest starts aimed at trap targets once only they are open (see
/// [`Search::settle_lone_trap_targets`]).
const TRAP_SEARCH_MIN_STARTS: u32 = 20;

/// The most time a [`SideProver`] gets for trap targets that are all that is open
/// ([`Search::settle_lone_trap_targets`]).
const TRAP_PROVER_TIME: Duration = Duration::from_secs(1);

/// The most time a [`SideProver`] gets by default: sides it can settle it mostly
/// settles fast, and a run whose sides stay open should not take the whole limit.
const PROVER_DEFAULT_MAX_TIME: Duration = Duration::from_secs(3);

/// How many times the search's fuel an input that ran out of it gets when it is
/// confirmed, before it counts as a hang: at the default fuel, ten million steps, a
/// tenth of a second in the interpreter.
const PATIENCE: u64 = 100;

/// How many confirmations in one search get [`PATIENCE`], so that hangs that do not end
/// cost at most that many long runs.
const PATIENT_RERUNS: u32 = 16;

/// How many times the search's fuel an evaluation gets when its run ran out of fuel while
/// closing in on the side the start aims at ([`Search::evaluate`]), and a confirmation
/// whose run ran out of the search's: at the default fuel a million steps, room for
/// GSL's iteration caps (10 000 iterations of a few dozen steps each).
const CLOSING_PATIENCE: u64 = 10;

/// How many of a start's evaluations must have run out of fuel before it may give up
/// ([`StartCost::stuck`]).
const STUCK_RUNS: u32 = 32;

/// How many times the steps of a start's ended runs its runs out of fuel must have cost
/// before it gives up ([`StartCost::stuck`]).
const STUCK_RATIO: u64 = 16;

/// What one start's evaluations cost, for two limits:
/// - evaluations with [`CLOSING_PATIENCE`] may take as many steps as its other
///   evaluations took, so they at most double its cost, and none after one of them ran
///   out of that fuel too (a loop that does not end, rather than one that runs to its
///   cap);
/// - a start whose neighbourhood is mostly loops that outlast the fuel (NaN or infinite
///   intermediates whose iterations never converge) spends nearly all its time on runs
///   that each score as the worst; it gives up ([`StartCost::stuck`]), and the time goes
///   to the next start.
#[derive(Clone, Copy, Debug, Default)]
struct StartCost {
    /// Steps of the start's runs with the search's fuel.
    search_steps: u64,
    /// Steps of its runs with [`CLOSING_PATIENCE`] times that.
    closing_steps: u64,
    /// Whether one of those ran out of fuel.
    closing_exhausted: bool,
    /// Evaluations whose run (the longer one, when there were two) ran out of fuel.
    runs_out_of_fuel: u32,
    /// The steps of those runs.
    steps_out_of_fuel: u64,
    /// The steps of the evaluations' runs that ended.
    steps_ended: u64,
}

impl StartCost {
    /// Whether the start may make one more evaluation with [`CLOSING_PATIENCE`].
    fn allows_closing(&self) -> bool {
        !self.closing_exhausted && self.closing_steps <= self.search_steps
    }

    /// Counts a run with [`CLOSING_PATIENCE`] times the fuel.
    fn record_closing(&mut self, steps: u64, out_of_fuel: bool) {
        self.closing_steps += steps;
        self.closing_exhausted |= out_of_fuel;
    }

    /// Counts the run that scores one evaluation.
    fn record(&mut self, steps: u64, out_of_fuel: bool) {
        if out_of_fuel {
            self.runs_out_of_fuel += 1;
            self.steps_out_of_fuel += steps;
        } else {
            self.steps_ended += steps;
        }
    }

    /// Whether [`STUCK_RUNS`] runs ran out of fuel and cost more than [`STUCK_RATIO`]
    /// times the steps of the runs that ended.
    fn stuck(&self) -> bool {
        self.runs_out_of_fuel >= STUCK_RUNS
            && self.steps_out_of_fuel > STUCK_RATIO.saturating_mul(self.steps_ended)
    }
}

/// The fuel a run gets, as a multiple of the search's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fuel {
    /// The search's.
    Search,
    /// [`CLOSING_PATIENCE`] times the search's, for a confirmation whose run ran out of
    /// it.
    Closing,
    /// [`PATIENCE`] times the search's, for an input that may hang.
    Patient,
}

impl Fuel {
    /// The multiple of the search's fuel.
    fn times(self) -> u64 {
        match self {
            Fuel::Search => 1,
            Fuel::Closing => CLOSING_PATIENCE,
            Fuel::Patient => PATIENCE,
        }
    }
}

/// Whether a run ended by exhausting its fuel.
fn out_of_fuel_outcome(outcome: &Outcome<u64>) -> bool {
    matches!(outcome, Outcome::Trapped(trap) if trap.kind == TrapKind::FuelExhausted)
}

/// The interval between progress reports.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Smallest first step of the local search in ordered-bits coordinates (ulps).
const ORDERED_ABS_STEP: f64 = (1u64 << 20) as f64;

/// Generates tests covering the branches of `func` (see [`CoverConfig`]) within
/// `budget`.
pub fn cover(
    module: &Module,
    func: Func,
    config: &CoverConfig,
    budget: &Budget,
) -> Result<CoverReport, CoverError> {
    cover_with(module, func, config, budget, |_| {})
}

/// [`cover`], calling `on_event` with the included sides, then with each new test and
/// with progress as they happen (so callers can stream results).
pub fn cover_with(
    module: &Module,
    func: Func,
    config: &CoverConfig,
    budget: &Budget,
    mut on_event: impl FnMut(&CoverEvent<'_>),
) -> Result<CoverReport, CoverError> {
    if module.funcs.get(func).is_none() {
        return Err(CoverError::UnknownFunc(func));
    }
    let clock = budget.start();
    let started = clock.started();
    let funcs = if config.deep {
        module.reachable_funcs(func)
    } else {
        vec![func]
    };
    let table = SideTable::new(module, func, &funcs);
    let spec = InputSpec::for_function(module, func, &config.args, &config.out_args)?;
    let mut plan = InputPlan::new(module, func, &funcs, spec)?;
    if !config.seeding {
        plan = plan.without_harvest();
    }
    let shapes = SiteShapes::new(module, &table);
    let infeasible = table.infeasible(module);
    let shared = Shared {
        infeasible: &infeasible,
        module,
        func,
        table: &table,
        plan: &plan,
        shapes: &shapes,
        config,
        started,
        deadline: budget.time_limit.map(|t| started + search_share(t, config)),
        end: clock.deadline(),
        clock: &clock,
    };
    on_event(&CoverEvent::Started {
        sides: &table.sides,
    });
    let mut search = Search::new(&shared, on_event)?;
    let (stop, starts) = search.run(&shared)?;
    let branches_done = matches!(
        stop,
        Stop::TargetsReached | Stop::Exhausted | Stop::TrapSearchSpent
    );
    if config.boundaries && branches_done {
        search.cover_boundaries()?;
    }
    if branches_done {
        search.hunt_pairs()?;
    }
    if let Some(prover) = &config.prover {
        if stop != Stop::Interrupted {
            search.settle(prover.as_ref())?;
        }
    }
    search.adopt_pair_tests();
    if stop != Stop::Interrupted {
        search.keep_a_run_of_the_body()?;
    }
    let misses = search.explain_misses()?;
    let infeasible = std::mem::take(&mut search.proved);
    let witness = std::mem::take(&mut search.witness);
    let tests = std::mem::take(&mut search.tests);
    let findings = std::mem::take(&mut search.findings.list);
    let evals = search.evals;
    drop(search);
    let sides = table
        .sides
        .iter()
        .enumerate()
        .map(|(s, &side)| SideReport {
            side,
            status: match (witness[s], infeasible[s]) {
                (Some(witness), _) => SideStatus::Covered { witness },
                (None, Some(method)) => SideStatus::Infeasible { method },
                (None, None) => SideStatus::NotReached { reason: misses[s] },
            },
        })
        .collect();
    Ok(CoverReport {
        func,
        sides,
        tests,
        findings,
        evals,
        starts,
        elapsed: started.elapsed(),
        stop,
        plan,
    })
}

impl Engine for CoverConfig {
    const KIND: EngineKind = EngineKind::Cover;
    type Detail<'a> = NoDetail;
    type Report = CoverReport;
    type Error = CoverError;

    fn settings(&self) -> Settings {
        let CoverConfig {
            seed,
            n_start,
            n_iter,
            deep,
            spaces,
            metric,
            ulp_refine,
            targeted,
            levels,
            fuel,
            // Native code computes the interpreter's results bit for bit: how fast, not what.
            compile: _,
            seeding,
            boundaries,
            pairs,
            pair_evals,
            args,
            out_args,
            seeds,
            jobs,
            prover,
            prover_time,
        } = self;
        let settings = Settings::new()
            .with("seed", seed)
            .with("n_start", n_start)
            .with("n_iter", n_iter)
            .with("deep", deep)
            .with_each("spaces", spaces.iter().map(|&s| space_name(s)))
            .with(
                "metric",
                match metric {
                    Metric::Real => "real",
                    Metric::Ulp => "ulp",
                },
            )
            .with("ulp_refine", ulp_refine)
            .with("targeted", targeted)
            .with("levels", levels)
            .with("fuel", fuel)
            .with("seeding", seeding)
            .with("boundaries", boundaries)
            .with("pairs", pairs)
            .with("pair_evals", pair_evals)
            .with_each("args", args)
            .with_each("out_args", out_args)
            .with_each("seeds", seeds.iter().map(|s| coordinates(s)))
            .with("jobs", jobs);
        let settings = match prover {
            Some(prover) => settings.with_group("prover", prover.settings()),
            None => settings.with("prover", "none"),
        };
        settings.with("prover_time", optional(prover_time.map(seconds)))
    }

    fn run(
        &self,
        module: &Module,
        func: Func,
        budget: &Budget,
        events: &mut dyn FnMut(&CoverEvent<'_>),
    ) -> Result<CoverReport, CoverError> {
        cover_with(module, func, self, budget, events)
    }
}

/// A search space's name in settings: `real` or `ordered-bits`.
fn space_name(space: Space) -> &'static str {
    match space {
        Space::Real => "real",
        Space::OrderedBits => "ordered-bits",
    }
}

/// What every search of one run shares (read-only, so worker threads can share it).
struct Shared<'m, 's> {
    /// Sides proved never taken ([`SideTable::infeasible`]).
    infeasible: &'s [Option<InfeasibleMethod>],
    module: &'m Module,
    func: Func,
    table: &'s SideTable,
    plan: &'s InputPlan,
    shapes: &'s SiteShapes,
    config: &'s CoverConfig,
    started: Instant,
    /// When the search stops: the end of the time limit, or earlier to leave the
    /// prover its share ([`search_share`]).
    deadline: Option<Instant>,
    /// When the run must end, the prover's work included.
    end: Option<Instant>,
    /// The run's budget being spent: its evaluation cap and interrupt.
    clock: &'s Clock,
}

/// What a worker of a parallel round hands back: the inputs it kept as tests or findings
/// (re-confirmed by the merge, in order), its evaluations, and why it stopped early, if
/// it did.
struct RoundResult {
    found: Vec<Vec<u64>>,
    evals: u64,
    starts: u32,
    /// The worker's searches aimed at each side.
    effort: Vec<Effort>,
    stop: Option<Stop>,
}

/// Evaluations spent on each boundary goal.
const BOUNDARY_EVALS: u64 = 2_000;

/// The three operand relations of an ordered comparison with predicate `pred`, as
/// predicates (`<`, `==`, `>`, signed or unsigned as `pred` is); none for equality
/// tests, whose partition every compiler keeps.
fn relations(pred: CmpPred) -> Option<[CmpPred; 3]> {
    use FloatPred as F;
    use IntPred as I;
    match pred {
        CmpPred::Float(F::Olt | F::Ole | F::Ogt | F::Oge | F::Ult | F::Ule | F::Ugt | F::Uge) => {
            Some([F::Olt, F::Oeq, F::Ogt].map(CmpPred::Float))
        }
        CmpPred::Int(I::Ult | I::Ule | I::Ugt | I::Uge) => {
            Some([I::Ult, I::Eq, I::Ugt].map(CmpPred::Int))
        }
        CmpPred::Int(I::Slt | I::Sle | I::Sgt | I::Sge) => {
            Some([I::Slt, I::Eq, I::Sgt].map(CmpPred::Int))
        }
        _ => None,
    }
}

/// What the workers of a parallel round start from: the main search's coverage, tests,
/// findings and pairs so far.
struct Snapshot<'a> {
    covered: &'a [bool],
    tests: &'a [Test],
    findings: &'a HashSet<FindingKey>,
    pairs: &'a HashSet<Pair>,
    /// How many more pair tests the run may keep.
    pair_tests_left: usize,
}

/// Pair tests a run may keep per included side of the program (trap targets aside:
/// [`CoverConfig::pairs`]), besides
/// [`PAIR_TESTS_MIN`]: a bound on the regression file, not on the search.
const PAIR_TESTS_PER_SIDE: usize = 2;

/// Pair tests a run may keep whatever its number of sides.
const PAIR_TESTS_MIN: usize = 16;

/// The random stream of the evaluations spent on pairs after the sides
/// ([`CoverConfig::pair_evals`]); starts use the streams from 0 up.
const PAIR_STREAM: u64 = u64::MAX;

/// Starts each worker runs per parallel round.
const STARTS_PER_ROUND: u32 = 4;

/// Where the round robin over frontier sides resumes ([`Search::next_target`]).
#[derive(Clone, Copy, Debug, Default)]
struct TargetCursor {
    /// The side index the next turn starts looking from.
    side: usize,
    /// The side index the next choice among trap targets starts looking from.
    trap: usize,
}

/// A confirming re-run ([`Search::trace`]).
struct Traced {
    outcome: Outcome<u64>,
    /// The included sides it takes that are not covered yet.
    new: Vec<u32>,
    /// Its pairs of consecutive sides no test shows.
    fresh_pairs: Vec<Pair>,
}

/// The state of one coverage run (or of one worker's share of a round).
struct Search<'m, 's, E> {
    shared: &'s Shared<'m, 's>,
    module: &'m Module,
    func: Func,
    table: &'s SideTable,
    plan: &'s InputPlan,
    interp: Interpreter<'m, Concrete, Penalty<'s>>,
    exec_config: ExecConfig,
    /// Sides taken by a test or finding, or proved infeasible: done either way.
    covered: Vec<bool>,
    witness: Vec<Option<Witness>>,
    covered_count: usize,
    /// Sides proved infeasible: from constant conditions at the start, by the prover
    /// when it settles sides.
    proved: Vec<Option<InfeasibleMethod>>,
    /// Whether the prover was already asked about the trap targets alone
    /// ([`Search::settle_lone_trap_targets`]).
    trap_targets_settled: bool,
    /// Starts left for trap targets once they are all that is open and the prover left
    /// some.
    trap_starts_left: Option<u32>,
    tests: Vec<Test>,
    /// The interpreters that confirm inputs, one per [`Fuel`] (indexed by `fuel as
    /// usize`), each made on first use ([`Search::traced_run`]).
    tracers: [Option<Interpreter<'m, Concrete, BranchTrace>>; 3],
    /// The interpreter that evaluates again, with [`CLOSING_PATIENCE`] times the fuel, a
    /// run out of fuel that was closing in on its target, made on first use
    /// ([`Search::run_closing`]).
    closing_interp: Option<Interpreter<'m, Concrete, Penalty<'s>>>,
    /// The values of the current start's evaluations with [`CLOSING_PATIENCE`], by
    /// input: line searches come back to their best points, and each visit would
    /// spend a long run.
    closing_memo: HashMap<Vec<u64>, f64>,
    /// What the current start's evaluations cost.
    start_cost: StartCost,
    /// Raised when the current start is stuck ([`StartCost::stuck`]); its minimizers
    /// then stop with [`Stop::GaveUp`].
    give_up: Rc<Cell<bool>>,
    /// Tests kept for new pairs of consecutive sides alone ([`crate::pairs`]), appended
    /// to `tests` when the run ends, so the searches (which start from tests) run as
    /// they would without them.
    pair_tests: Vec<Test>,
    /// How many pair tests this search may keep.
    pair_cap: usize,
    /// Crashes and hangs met so far.
    findings: FindingLog<'m>,
    /// The inputs kept as tests or findings, in order, as they were evaluated.
    kept: Vec<Vec<u64>>,
    evals: u64,
    /// Evaluations this search may make in all (the run's limit, or a worker's quota).
    eval_cap: Option<u64>,
    /// Starts run so far.
    starts: u32,
    /// Where the round robin over frontier sides resumes.
    target_cursor: TargetCursor,
    /// What was spent on each side so far (searches aimed at it, prover time).
    effort: Vec<Effort>,
    /// Why the prover left each side open, when it said.
    open_reasons: Vec<Option<OpenReason>>,
    started: Instant,
    /// When progress was last reported.
    last_progress: Instant,
    on_event: E,
    /// Whether `FOO_R` is ranked by depth first ([`CoverConfig::levels`]).
    levels: bool,
    /// The branch distance metric.
    metric: Metric,
    /// An interpreter error met inside the objective, reported when the start ends.
    error: Option<ExecError>,
    /// Re-runs with [`PATIENCE`] times the fuel left for inputs that ran out of it.
    patient_reruns_left: u32,
    /// Keys of runs out of fuel whose patient re-run ended: slow, not hangs.
    slow: HashSet<FindingKey>,
}

/// One worker's share of a parallel round: `count` starts numbered from `first`, from a
/// snapshot of the coverage so far, within `cap` evaluations.
fn run_worker(
    shared: &Shared<'_, '_>,
    snapshot: &Snapshot<'_>,
    first: u32,
    count: u32,
    cap: Option<u64>,
) -> Result<RoundResult, CoverError> {
    let noop: fn(&CoverEvent<'_>) = |_| {};
    let mut search = Search::new(shared, noop)?;
    search.covered = snapshot.covered.to_vec();
    search.covered_count = snapshot.covered.iter().filter(|&&c| c).count();
    search.tests = snapshot.tests.to_vec();
    search.findings.assume_known(snapshot.findings);
    search.pair_cap = snapshot.pair_tests_left;
    let pairs = &mut search.interp.observer_mut().pairs;
    pairs.learn(snapshot.pairs.iter().copied());
    pairs.enabled &= snapshot.pair_tests_left > 0;
    search.eval_cap = cap;
    search.target_cursor = TargetCursor {
        side: first as usize,
        trap: first as usize,
    };
    // The prover is the main search's to ask, between rounds.
    search.trap_targets_settled = true;
    search
        .table
        .saturate(&search.covered, &mut search.interp.observer_mut().saturated);
    let stop = search.run_starts(first, count)?;
    Ok(RoundResult {
        found: search.kept,
        evals: search.evals,
        starts: search.starts,
        effort: search.effort,
        stop,
    })
}

impl<'m, 's, E: FnMut(&CoverEvent<'_>)> Search<'m, 's, E> {
    /// A search with nothing covered yet.
    fn new(shared: &'s Shared<'m, 's>, on_event: E) -> Result<Self, CoverError> {
        let config = shared.config;
        let exec_config = ExecConfig::default()
            .with_fuel(config.fuel)
            .with_compile(config.compile);
        let pairs = PairTracker::new(shared.module, shared.table, config.pairs);
        let pair_cap = PAIR_TESTS_PER_SIDE * pairs.program_sides() + PAIR_TESTS_MIN;
        let penalty = Penalty::new(shared.shapes, shared.table.len(), config.metric, pairs);
        let mut interp = Interpreter::new(shared.module, Concrete, penalty, exec_config.clone())?;
        let covered: Vec<bool> = shared.infeasible.iter().map(Option::is_some).collect();
        shared
            .table
            .saturate(&covered, &mut interp.observer_mut().saturated);
        let findings = FindingLog::new(shared.module, shared.func, exec_config.clone());
        Ok(Search {
            shared,
            module: shared.module,
            func: shared.func,
            table: shared.table,
            plan: shared.plan,
            interp,
            exec_config,
            covered_count: covered.iter().filter(|&&c| c).count(),
            covered,
            witness: vec![None; shared.table.len()],
            proved: shared.infeasible.to_vec(),
            trap_targets_settled: false,
            trap_starts_left: None,
            tests: Vec::new(),
            tracers: [None, None, None],
            closing_interp: None,
            closing_memo: HashMap::new(),
            start_cost: StartCost::default(),
            give_up: Rc::new(Cell::new(false)),
            pair_tests: Vec::new(),
            pair_cap,
            findings,
            kept: Vec::new(),
            evals: 0,
            eval_cap: shared.clock.eval_cap(),
            starts: 0,
            target_cursor: TargetCursor::default(),
            effort: vec![Effort::default(); shared.table.len()],
            open_reasons: vec![None; shared.table.len()],
            started: shared.started,
            last_progress: shared.started,
            on_event,
            levels: config.levels,
            metric: config.metric,
            error: None,
            patient_reruns_left: PATIENT_RERUNS,
            slow: HashSet::new(),
        })
    }

    /// Why the run must stop now, if it must.
    fn must_stop(&self) -> Option<Stop> {
        if self.covered_count == self.table.len() {
            Some(Stop::TargetsReached)
        } else if self.trap_starts_left == Some(0) {
            Some(Stop::TrapSearchSpent)
        } else if self.interrupted() {
            Some(Stop::Interrupted)
        } else if self.eval_cap.is_some_and(|m| self.evals >= m) {
            Some(Stop::EvalLimit)
        } else if self.shared.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Stop::TimeLimit)
        } else {
            None
        }
    }

    /// Runs the special points, then the starts (in parallel rounds with more than one
    /// job); returns why it stopped and how many starts ran.
    fn run(&mut self, shared: &Shared<'_, '_>) -> Result<(Stop, u32), CoverError> {
        let config = shared.config;
        let mut points = self.seed_points();
        if config.seeding {
            points.extend(self.plan.special_points());
        }
        for point in points {
            if let Some(stop) = self.must_stop() {
                return Ok((stop, 0));
            }
            self.evaluate(&point);
            if let Some(err) = self.error.take() {
                return Err(err.into());
            }
        }
        if self.plan.dims() > 0 {
            let stop = if config.jobs <= 1 {
                self.run_starts(0, config.n_start)?
            } else {
                self.run_rounds(shared)?
            };
            if let Some(stop) = stop {
                return Ok((stop, self.starts));
            }
        }
        let stop = if self.covered_count == self.table.len() {
            Stop::TargetsReached
        } else {
            Stop::Exhausted
        };
        Ok((stop, self.starts))
    }

    /// Parallel rounds: each of `jobs` workers runs [`STARTS_PER_ROUND`] starts from the
    /// coverage so far with its own start numbers (so its own seed streams) and an equal
    /// share of the evaluations left; then their tests are confirmed again in worker
    /// order, so the result depends on the seed and the job count, not on timing.
    fn run_rounds(&mut self, shared: &Shared<'_, '_>) -> Result<Option<Stop>, CoverError> {
        let config = shared.config;
        let jobs = config.jobs as u32;
        let mut next = 0u32;
        while next < config.n_start {
            self.settle_lone_trap_targets()?;
            if let Some(stop) = self.must_stop() {
                return Ok(Some(stop));
            }
            let cap = shared
                .clock
                .eval_cap()
                .map(|m| m.saturating_sub(self.evals) / u64::from(jobs));
            if cap == Some(0) {
                return Ok(Some(Stop::EvalLimit));
            }
            let snapshot = Snapshot {
                covered: &self.covered,
                tests: &self.tests,
                findings: self.findings.keys(),
                pairs: self.interp.observer().pairs.known(),
                pair_tests_left: self.pair_cap.saturating_sub(self.pair_tests.len()),
            };
            let snapshot = &snapshot;
            let results: Vec<Result<RoundResult, CoverError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..jobs)
                    .map(|w| {
                        let first = next + w * STARTS_PER_ROUND;
                        let count = STARTS_PER_ROUND.min(config.n_start.saturating_sub(first));
                        scope.spawn(move || run_worker(shared, snapshot, first, count, cap))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a cover worker panicked"))
                    .collect()
            });
            next += jobs * STARTS_PER_ROUND;
            let mut stop = None;
            for result in results {
                let result = result?;
                self.evals += result.evals;
                self.starts += result.starts;
                self.count_trap_starts(result.starts);
                for (total, worker) in self.effort.iter_mut().zip(&result.effort) {
                    total.aimed_searches += worker.aimed_searches;
                    total.aimed_evaluations += worker.aimed_evaluations;
                }
                for coords in result.found {
                    self.confirm(coords)?;
                }
                stop = stop.or(result.stop.filter(|s| *s != Stop::EvalLimit));
            }
            self.progress();
            if let Some(stop) = stop {
                return Ok(Some(stop));
            }
        }
        Ok(None)
    }

    /// Runs `count` starts numbered from `first` (the number seeds the start's random
    /// stream); returns why the run must stop, or `None` when the starts are done.
    fn run_starts(&mut self, first: u32, count: u32) -> Result<Option<Stop>, CoverError> {
        let config = self.shared.config;
        let deadline = self.shared.deadline;
        let default_spaces = [Space::Real, Space::OrderedBits];
        let spaces: &[Space] = if config.spaces.is_empty() {
            &default_spaces
        } else {
            &config.spaces
        };
        let mut from_witness: Option<Vec<f64>> = None;
        for start in first..first.saturating_add(count) {
            self.settle_lone_trap_targets()?;
            if let Some(stop) = self.must_stop() {
                return Ok(Some(stop));
            }
            let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
            rng.set_stream(u64::from(start));
            self.closing_memo.clear();
            self.start_cost = StartCost::default();
            self.give_up.set(false);
            let mut space = spaces[start as usize % spaces.len()];
            let aim = if config.targeted && start % 2 == 1 && from_witness.is_none() {
                let mut cursor = self.target_cursor;
                let aim = self.next_target(&mut cursor);
                self.target_cursor = cursor;
                aim
            } else {
                None
            };
            self.interp.observer_mut().target = aim;
            let evals_before = self.evals;
            let seed = self.seed_point(start as usize);
            let mut point = match aim {
                Some(_) => self.closest_test(),
                None => from_witness
                    .take()
                    .or(seed)
                    .unwrap_or_else(|| self.plan.start(&mut rng)),
            };
            self.plan.snap_integers(&mut point);
            if self.covered_count == self.table.len() {
                self.interp.observer_mut().target = None;
                return Ok(Some(Stop::TargetsReached));
            }
            if point.iter().any(|v| !v.is_finite()) {
                space = Space::OrderedBits;
            }
            let abs_step = match space {
                Space::Real => 1.0,
                Space::OrderedBits => ORDERED_ABS_STEP,
            };
            let hopping = BasinhoppingConfig::default()
                .with_n_iter(config.n_iter)
                .with_abs_step(abs_step);
            let budget = self.budget(deadline);
            let integer = self.plan.integer_coordinates();
            let give_up = Rc::clone(&self.give_up);
            let mut ev = Evaluator::new(|x: &[f64]| self.evaluate(x), space, budget)
                .with_integer_coordinates(integer.clone())
                .with_give_up(Rc::clone(&give_up));
            let coords = ev.encode(&point);
            let result = basinhopping(&mut ev, &coords, &hopping, &mut rng);
            let mut outcome = ev.finish(result);
            if outcome.reason == Stop::Exhausted && config.ulp_refine {
                let budget = self.budget(deadline);
                let mut ev = Evaluator::new(|x: &[f64]| self.evaluate(x), Space::Real, budget)
                    .with_integer_coordinates(integer)
                    .with_give_up(give_up);
                let result = avm(&mut ev, &outcome.best_input, &AvmConfig::default());
                outcome = ev.finish(result.map(|_| ()));
            }
            self.interp.observer_mut().target = None;
            self.starts += 1;
            self.count_trap_starts(1);
            if let Some(side) = aim {
                let effort = &mut self.effort[side as usize];
                effort.aimed_searches += 1;
                effort.aimed_evaluations += self.evals - evals_before;
            }
            if let Some(err) = self.error.take() {
                return Err(err.into());
            }
            self.progress();
            if self.interrupted() {
                return Ok(Some(Stop::Interrupted));
            }
            match outcome.reason {
                Stop::TargetsReached => from_witness = Some(outcome.best_input),
                Stop::EvalLimit => return Ok(Some(Stop::EvalLimit)),
                Stop::TimeLimit => return Ok(Some(Stop::TimeLimit)),
                Stop::Exhausted | Stop::GaveUp | Stop::Interrupted | Stop::TrapSearchSpent => {}
            }
        }
        Ok(None)
    }

    /// A fresh concrete interpreter for re-running tests under `observer`.
    fn tracer<O: Observer>(&self, observer: O) -> Result<Interpreter<'m, Concrete, O>, ExecError> {
        Interpreter::new(self.module, Concrete, observer, self.exec_config.clone())
    }

    /// The boundary goals no test reaches yet: for each included ordered comparison that
    /// some test executes, the operand relations none of its executions shows.
    fn missing_goals(&self) -> Result<Vec<Goal>, CoverError> {
        let mut tracer = self.tracer(FullTrace::default())?;
        let mut seen: std::collections::BTreeMap<u32, [bool; 3]> = Default::default();
        for test in &self.tests {
            tracer.observer_mut().clear();
            tracer.call(self.func, test.args())?;
            for ev in &tracer.observer().branches {
                self.note_relations(ev, &mut seen);
            }
        }
        let mut goals = Vec::new();
        for (site, shown) in seen {
            let site = fpir::BranchSite(site);
            let Some(rels) = self.module.branch_sites[site]
                .cmp
                .and_then(|c| relations(c.pred))
            else {
                continue;
            };
            for (k, pred) in rels.into_iter().enumerate() {
                if !shown[k] {
                    goals.push(Goal { site, pred });
                }
            }
        }
        Ok(goals)
    }

    /// Records which relations the operands of a branch event show, for included ordered
    /// comparisons.
    fn note_relations(
        &self,
        ev: &fpforge_exec::BranchEvent,
        seen: &mut std::collections::BTreeMap<u32, [bool; 3]>,
    ) {
        let guard = self.module.trap_check(ev.side.site).is_some();
        if guard || self.table.first_side(ev.side.site).is_none() {
            return;
        }
        let Some(cmp) = self.module.branch_sites[ev.side.site].cmp else {
            return;
        };
        let (Some(rels), Some([a, b])) = (relations(cmp.pred), ev.operands) else {
            return;
        };
        let shown = seen.entry(ev.side.site.0).or_default();
        for (k, pred) in rels.into_iter().enumerate() {
            shown[k] |= distance(pred, cmp.ty, a, b, true, self.metric) == 0.0;
        }
    }

    /// Whether a phase after the searches must end: interrupted, or out of evaluations or
    /// time.
    fn spent(&self) -> bool {
        self.interrupted()
            || self.eval_cap.is_some_and(|m| self.evals >= m)
            || self.shared.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Spends [`CoverConfig::pair_evals`] evaluations on new pairs of consecutive sides
    /// once the sides are done, as a fuzzer would: in turn a random starting point and a
    /// test with one coordinate taken from a random point. Evaluation keeps the inputs
    /// that show new pairs ([`Search::confirm`]).
    fn hunt_pairs(&mut self) -> Result<(), CoverError> {
        let config = self.shared.config;
        if self.plan.dims() == 0 {
            return Ok(());
        }
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        rng.set_stream(PAIR_STREAM);
        for i in 0..config.pair_evals {
            if !self.interp.observer().pairs.enabled || self.spent() {
                break;
            }
            let mut point = self.plan.start(&mut rng);
            let queued = self.tests.len() + self.pair_tests.len();
            if i % 2 == 1 && queued > 0 {
                let pick = rng.gen_range(0..queued);
                let test = self
                    .tests
                    .get(pick)
                    .unwrap_or_else(|| &self.pair_tests[pick - self.tests.len()]);
                let mut mutated = self.plan.encode(test);
                let k = rng.gen_range(0..mutated.len());
                mutated[k] = point[k];
                point = mutated;
            }
            self.plan.snap_integers(&mut point);
            self.evaluate(&point);
            if let Some(err) = self.error.take() {
                return Err(err.into());
            }
        }
        Ok(())
    }

    /// Aims a short search at every missing boundary goal ([`CoverConfig::boundaries`])
    /// from the test closest to it; each input that reaches its goal is re-executed and
    /// kept as a test.
    fn cover_boundaries(&mut self) -> Result<(), CoverError> {
        let goals = self.missing_goals()?;
        let mut reached: Vec<Goal> = Vec::new();
        for goal in goals {
            if reached.contains(&goal) {
                continue;
            }
            if self.spent() {
                break;
            }
            self.interp.observer_mut().goal = Some(goal);
            let start = self.closest_test();
            let mut budget = self.budget(self.shared.deadline);
            budget.max_evals = Some(
                budget
                    .max_evals
                    .map_or(BOUNDARY_EVALS, |m| m.min(BOUNDARY_EVALS)),
            );
            let integer = self.plan.integer_coordinates();
            let mut ev = Evaluator::new(|x: &[f64]| self.evaluate(x), Space::Real, budget)
                .with_integer_coordinates(integer);
            let result = avm(&mut ev, &start, &AvmConfig::default());
            let outcome = ev.finish(result.map(|_| ()));
            self.interp.observer_mut().goal = None;
            if let Some(err) = self.error.take() {
                return Err(err.into());
            }
            if outcome.reason == Stop::TargetsReached {
                let bits = self.plan.bits(&outcome.best_input);
                reached.extend(self.keep_boundary_test(bits)?);
            }
        }
        Ok(())
    }

    /// Re-executes a boundary test; keeps it when it shows a relation no test showed
    /// (unless an evaluation already kept it for new sides). Returns the goals it reaches.
    fn keep_boundary_test(&mut self, bits: Vec<u64>) -> Result<Vec<Goal>, CoverError> {
        let test = self.plan.test(bits);
        if self.tests.contains(&test) {
            return Ok(Vec::new());
        }
        let mut tracer = self.tracer(FullTrace::default())?;
        let run = tracer.call(self.func, test.args())?;
        if let Outcome::Trapped(trap) = run.outcome {
            self.confirm_finding(&trap, test.coords)?;
            return Ok(Vec::new());
        }
        let mut seen = Default::default();
        for ev in &tracer.observer().branches {
            self.note_relations(ev, &mut seen);
        }
        let goals: Vec<Goal> = seen
            .iter()
            .flat_map(|(&site, shown)| {
                let site = fpir::BranchSite(site);
                let rels = self.module.branch_sites[site]
                    .cmp
                    .and_then(|c| relations(c.pred));
                rels.into_iter().flat_map(move |rels| {
                    rels.into_iter()
                        .zip(*shown)
                        .filter(|&(_, s)| s)
                        .map(move |(pred, _)| Goal { site, pred })
                })
            })
            .collect();
        let index = self.tests.len();
        self.kept.push(test.coords.clone());
        self.tests.push(test);
        (self.on_event)(&CoverEvent::Test {
            index,
            coords: &self.tests[index].coords,
            new_sides: &[],
        });
        Ok(goals)
    }

    /// Explains every uncovered side: whether some test reaches its branch (then
    /// CoverMe's heuristic calls it likely infeasible) and the test that came closest to
    /// taking it, with its branch distance.
    fn explain_misses(&mut self) -> Result<Vec<MissReason>, CoverError> {
        let mut misses = vec![MissReason::default(); self.table.len()];
        for (s, miss) in misses.iter_mut().enumerate() {
            if self.covered[s] {
                continue;
            }
            miss.branch_reached = self.table.siblings(s as u32).any(|t| self.taken(t));
            miss.effort = self.effort[s];
            miss.open = self.open_reasons[s];
        }
        if misses.iter().any(|m| m.branch_reached) {
            self.survey_closest_tests(&mut misses)?;
        }
        Ok(misses)
    }

    /// Runs every test once, measuring its distance to every side, and gives each
    /// missed side whose branch was reached its closest test (the first, on ties).
    fn survey_closest_tests(&mut self, misses: &mut [MissReason]) -> Result<(), CoverError> {
        let args: Vec<Vec<fpforge_spec::Arg>> = self.tests.iter().map(Test::to_args).collect();
        self.interp.observer_mut().survey = Some(vec![f64::INFINITY; self.table.len()]);
        for (index, args) in args.iter().enumerate() {
            self.interp.observer_mut().begin();
            self.interp.call(self.func, args)?;
            let survey = self.interp.observer().survey.as_deref().unwrap_or_default();
            for (miss, &d) in misses.iter_mut().zip(survey) {
                if miss.branch_reached
                    && d.is_finite()
                    && miss.closest.is_none_or(|c| d < c.distance)
                {
                    miss.closest = Some(Closest {
                        test: index,
                        distance: d,
                    });
                }
            }
        }
        self.interp.observer_mut().survey = None;
        Ok(())
    }

    /// Whether some test takes side `s` (covered, not merely proved infeasible).
    fn taken(&self, s: u32) -> bool {
        self.covered[s as usize] && self.proved[s as usize].is_none()
    }

    /// The next uncovered side (round robin from `cursor`) whose branch some test
    /// reaches: the target of a targeted search. The trap targets take one turn of the
    /// round robin together, in a round robin of their own: a function's trap guards can
    /// outnumber its branches a hundred to one (every access through a pointer
    /// parameter), and one round robin over both left its branches a start in a hundred.
    fn next_target(&self, cursor: &mut TargetCursor) -> Option<u32> {
        let n = self.table.len();
        let is_trap = |s: usize| self.module.trap_check(self.table.sides[s].site).is_some();
        let frontier =
            |s: usize| !self.covered[s] && self.table.siblings(s as u32).any(|t| self.taken(t));
        let from = |first: usize| (0..n).map(move |step| (first + step) % n);
        let s = from(cursor.side).find(|&s| frontier(s))?;
        if !is_trap(s) {
            cursor.side = s + 1;
            return Some(s as u32);
        }
        let trap = from(cursor.trap)
            .find(|&t| is_trap(t) && frontier(t))
            .unwrap_or(s);
        cursor.trap = trap + 1;
        cursor.side = from(s)
            .find(|&p| !is_trap(p) && frontier(p))
            .unwrap_or(s + 1);
        Some(trap as u32)
    }

    /// The user's seed inputs ([`CoverConfig::seeds`]) as search points.
    fn seed_points(&self) -> Vec<Vec<f64>> {
        (0..self.shared.config.seeds.len())
            .filter_map(|i| self.seed_point(i))
            .collect()
    }

    /// Seed input `i` as a search point.
    fn seed_point(&self, i: usize) -> Option<Vec<f64>> {
        let bits = self.shared.config.seeds.get(i)?;
        (bits.len() == self.plan.dims()).then(|| self.plan.encode(&self.plan.test(bits.clone())))
    }

    /// The point of the test closest to the current target (each test is run once).
    fn closest_test(&mut self) -> Vec<f64> {
        let points: Vec<Vec<f64>> = self.tests.iter().map(|t| self.plan.encode(t)).collect();
        let mut best: Option<(f64, Vec<f64>)> = None;
        for point in points {
            let d = self.evaluate(&point);
            if best.as_ref().is_none_or(|(b, _)| d < *b) {
                best = Some((d, point));
            }
        }
        best.map_or_else(|| vec![0.0; self.plan.dims()], |(_, p)| p)
    }

    /// The budget of one search: what is left of the run's evaluations, its deadline,
    /// and target 0.
    fn budget(&self, deadline: Option<Instant>) -> Limits {
        let mut budget = Limits::default().with_target(0.0);
        if let Some(m) = self.eval_cap {
            budget = budget.with_eval_limit(m.saturating_sub(self.evals));
        }
        if let Some(d) = deadline {
            budget = budget.with_deadline(d);
        }
        budget
    }

    /// Whether the caller asked the run to stop.
    fn interrupted(&self) -> bool {
        self.shared.clock.interrupted()
    }

    /// `FOO_R` at `point`, recording any new coverage. Once the run is interrupted every
    /// evaluation returns 0, the target, so the search in progress ends at once.
    fn evaluate(&mut self, point: &[f64]) -> f64 {
        if self.error.is_some() {
            return f64::INFINITY;
        }
        if self.interrupted() {
            return 0.0;
        }
        let bits = self.plan.bits(point);
        let args = self.plan.spec().to_args(&bits);
        self.interp.observer_mut().begin();
        let run = match self.interp.call(self.func, &args) {
            Ok(run) => run,
            Err(err) => {
                self.error = Some(err);
                return f64::INFINITY;
            }
        };
        self.evals += 1;
        if self.last_progress.elapsed() >= PROGRESS_EVERY {
            self.progress();
        }
        let closing = self.interp.observer().target_closing && out_of_fuel_outcome(&run.outcome);
        if let Some(&value) = self.closing_memo.get(&bits).filter(|_| closing) {
            return value;
        }
        self.start_cost.search_steps += run.steps;
        let closing = closing && self.start_cost.allows_closing();
        let (outcome, steps) = if closing {
            match self.run_closing(&args) {
                Ok(closing_run) => {
                    self.start_cost.record_closing(
                        closing_run.steps,
                        out_of_fuel_outcome(&closing_run.outcome),
                    );
                    (closing_run.outcome, closing_run.steps)
                }
                Err(err) => {
                    self.error = Some(err);
                    return f64::INFINITY;
                }
            }
        } else {
            (run.outcome, run.steps)
        };
        self.start_cost.record(steps, out_of_fuel_outcome(&outcome));
        if self.start_cost.stuck() {
            self.give_up.set(true);
        }
        let observer = match (&self.closing_interp, closing) {
            (Some(interp), true) => interp.observer(),
            _ => self.interp.observer(),
        };
        let r = observer.r;
        let open_hits = observer.open_hits;
        let aimed = (observer.target.is_some() || observer.goal.is_some())
            .then_some(observer.target_distance);
        let candidate = match &outcome {
            // A known crash or hang runs again into the same trap and is kept for
            // nothing, however new its sides (a library's loops bounded by an input
            // would otherwise be confirmed at every evaluation), unless a patient
            // re-run may show that its loop ends.
            Outcome::Trapped(trap) => {
                !self.findings.is_known(trap) || self.patient_hang_key(&outcome).is_some()
            }
            Outcome::Returned(_) | Outcome::Threw(_) => {
                !observer.pairs.fresh.is_empty()
                    || observer.hits.iter().any(|&s| !self.covered[s as usize])
            }
        };
        if candidate {
            match self.confirm(bits.clone()) {
                Ok(true) => return 0.0,
                Ok(false) => {}
                Err(err) => {
                    self.error = Some(err);
                    return f64::INFINITY;
                }
            }
        }
        let value = if let Some(d) = aimed {
            d.min(UNREACHED)
        } else {
            let r = if r == 0.0 { 1.0 } else { r };
            if self.levels {
                leveled(r, open_hits, self.metric)
            } else {
                r
            }
        };
        let value = if out_of_fuel_outcome(&outcome) {
            out_of_fuel(value, point)
        } else {
            value
        };
        if closing {
            self.closing_memo.insert(bits, value);
        }
        value
    }

    /// Runs `args` again with [`CLOSING_PATIENCE`] times the fuel, in an interpreter whose
    /// observer starts as the search's (saturation, target, goal; pairs are the search
    /// observer's to note). Its observer then holds what the run's evaluation reads.
    fn run_closing(&mut self, args: &[fpforge_spec::Arg]) -> Result<Run<u64>, ExecError> {
        let interp = match &mut self.closing_interp {
            Some(interp) => interp,
            slot => {
                let shared = self.shared;
                let pairs = PairTracker::new(self.module, self.table, false);
                let penalty = Penalty::new(shared.shapes, self.table.len(), self.metric, pairs);
                let steps = self.exec_config.fuel.saturating_mul(CLOSING_PATIENCE);
                let exec = self.exec_config.clone().with_fuel(steps);
                slot.insert(Interpreter::new(self.module, Concrete, penalty, exec)?)
            }
        };
        let search = self.interp.observer();
        let observer = interp.observer_mut();
        observer.saturated.clone_from(&search.saturated);
        observer.target = search.target;
        observer.goal = search.goal;
        observer.begin();
        interp.call(self.func, args)
    }

    /// Hands the sides still open to `prover` (see [`Search::settle_sides`]).
    /// Sides the prover already answered `unknown` for are not asked again: its
    /// answer would not change.
    fn settle(&mut self, prover: &dyn SideProver) -> Result<(), CoverError> {
        let open: Vec<usize> = (0..self.table.len())
            .filter(|&s| !self.covered[s] && self.effort[s].proof_time.is_none())
            .collect();
        let time = self.prover_time(PROVER_DEFAULT_MAX_TIME);
        self.settle_sides(prover, &open, time)
    }

    /// When the only open sides are trap targets (the program's own are all covered or
    /// proved), asks the prover about them once, so that a run whose remaining targets
    /// cannot trap ends instead of searching its whole budget for a crash.
    fn settle_lone_trap_targets(&mut self) -> Result<(), CoverError> {
        let Some(prover) = self.shared.config.prover.clone() else {
            return Ok(());
        };
        if self.trap_targets_settled {
            return Ok(());
        }
        let open: Vec<usize> = (0..self.table.len())
            .filter(|&s| !self.covered[s])
            .collect();
        let only_traps = open
            .iter()
            .all(|&s| self.module.trap_check(self.table.sides[s].site).is_some());
        if open.is_empty() || !only_traps {
            return Ok(());
        }
        self.trap_targets_settled = true;
        let time = self.prover_time(TRAP_PROVER_TIME);
        self.settle_sides(prover.as_ref(), &open, time)?;
        // A crash the search has not met in the starts the branches took is rare: the
        // targets left get as many more (at least TRAP_SEARCH_MIN_STARTS), not the
        // whole budget.
        if self.covered_count < self.table.len() {
            self.trap_starts_left = Some(self.starts.max(TRAP_SEARCH_MIN_STARTS));
        }
        Ok(())
    }

    /// Counts `starts` against the trap targets' share, once it is set.
    fn count_trap_starts(&mut self, starts: u32) {
        if let Some(left) = &mut self.trap_starts_left {
            *left = left.saturating_sub(starts);
        }
    }

    /// The time the prover gets: [`CoverConfig::prover_time`] when set, else what is
    /// left of the time limit, at most `most` (without a limit, `most`).
    fn prover_time(&self, most: Duration) -> Duration {
        let remaining = self
            .shared
            .end
            .map_or(most, |end| end.saturating_duration_since(Instant::now()));
        self.shared
            .config
            .prover_time
            .unwrap_or_else(|| remaining.min(most))
    }

    /// Hands the sides `open` to `prover` for `time`: a witness counts once its re-run takes the
    /// side ([`Search::confirm`]); a proof marks the side proved, and done.
    fn settle_sides(
        &mut self,
        prover: &dyn SideProver,
        open: &[usize],
        time: Duration,
    ) -> Result<(), CoverError> {
        if open.is_empty() {
            return Ok(());
        }
        let sides: Vec<Side> = open.iter().map(|&s| self.table.sides[s]).collect();
        let asked = Instant::now();
        let answers = prover.settle(self.module, self.func, self.plan.spec(), &sides, time);
        let spent = asked.elapsed();
        for (&s, answer) in open.iter().zip(answers) {
            let tried = &mut self.effort[s].proof_time;
            *tried = Some(tried.unwrap_or_default() + spent);
            match answer {
                Settlement::Witness(bits) if bits.len() == self.plan.spec().dims() => {
                    self.confirm(bits)?;
                }
                Settlement::Infeasible(method) if !self.covered[s] => {
                    self.proved[s] = Some(method);
                    self.covered[s] = true;
                    self.covered_count += 1;
                }
                Settlement::Unknown(Some(why)) => self.open_reasons[s] = Some(why),
                _ => {}
            }
        }
        self.table
            .saturate(&self.covered, &mut self.interp.observer_mut().saturated);
        Ok(())
    }

    /// Re-executes the input `bits` with a fresh tracing interpreter (a run out of the
    /// search's fuel again with [`CLOSING_PATIENCE`] times it); keeps it as a test
    /// if the re-run covers new sides (or, failing that, shows new pairs of consecutive
    /// sides: [`Search::keep_pair_test`]), or as a finding if it crashes or hangs in a
    /// new way (see [`Search::confirm_finding`]). Returns whether it covered new sides.
    fn confirm(&mut self, bits: Vec<u64>) -> Result<bool, ExecError> {
        let test = self.plan.test(bits);
        let Traced {
            mut outcome,
            mut new,
            mut fresh_pairs,
        } = self.trace(test.args(), Fuel::Search)?;
        if out_of_fuel_outcome(&outcome) {
            Traced {
                outcome,
                new,
                fresh_pairs,
            } = self.trace(test.args(), Fuel::Closing)?;
        }
        if let Some(key) = self.patient_hang_key(&outcome) {
            self.patient_reruns_left -= 1;
            Traced {
                outcome,
                new,
                fresh_pairs,
            } = self.trace(test.args(), Fuel::Patient)?;
            if self.patient_hang_key(&outcome).is_none() {
                // The loop ends: runs out of fuel there are slow, not hangs.
                self.findings.assume_known(&HashSet::from([key.clone()]));
                self.slow.insert(key);
            }
        }
        if let Outcome::Trapped(trap) = outcome {
            return self.confirm_finding(&trap, test.coords);
        }
        if new.is_empty() {
            if !fresh_pairs.is_empty() {
                self.keep_pair_test(test, fresh_pairs);
            }
            return Ok(false);
        }
        self.interp.observer_mut().pairs.learn(fresh_pairs);
        self.keep_test(test, &new);
        Ok(true)
    }

    /// Keeps `test` as the witness of the sides `new` its run covered first.
    fn keep_test(&mut self, test: Test, new: &[u32]) {
        let index = self.tests.len();
        self.kept.push(test.coords.clone());
        self.tests.push(test);
        let new_sides = self.credit(new, Witness::Test(index));
        (self.on_event)(&CoverEvent::Test {
            index,
            coords: &self.tests[index].coords,
            new_sides: &new_sides,
        });
    }

    /// A function with nothing to search for (no branch side, or none open) ends before
    /// any evaluation; it still gets one test, its first seed or special point, so that
    /// the regression test calls it and line coverage counts its body. A run that traps
    /// there is kept as a finding instead, and one out of fuel is not kept.
    fn keep_a_run_of_the_body(&mut self) -> Result<(), ExecError> {
        if !self.tests.is_empty() || !self.findings.list.is_empty() {
            return Ok(());
        }
        let first = self.seed_points().into_iter().next();
        let Some(point) = first.or_else(|| self.plan.special_points().into_iter().next()) else {
            return Ok(());
        };
        let test = self.plan.test(self.plan.bits(&point));
        let Traced { outcome, new, .. } = self.trace(test.args(), Fuel::Search)?;
        match outcome {
            Outcome::Trapped(trap) if trap.kind != TrapKind::FuelExhausted => {
                self.confirm_finding(&trap, test.coords)?;
            }
            Outcome::Trapped(_) => {}
            Outcome::Returned(_) | Outcome::Threw(_) => self.keep_test(test, &new),
        }
        Ok(())
    }

    /// Keeps `test`, whose run covered no new side but shows the pairs `fresh`, while the
    /// run may keep more pair tests ([`PAIR_TESTS_PER_SIDE`]).
    fn keep_pair_test(&mut self, test: Test, fresh: Vec<Pair>) {
        if self.pair_tests.len() >= self.pair_cap {
            return;
        }
        self.kept.push(test.coords.clone());
        self.pair_tests.push(test);
        let pairs = &mut self.interp.observer_mut().pairs;
        pairs.learn(fresh);
        pairs.enabled = self.pair_tests.len() < self.pair_cap;
    }

    /// Appends the pair tests to the tests, reporting each, once the searches are over.
    fn adopt_pair_tests(&mut self) {
        for test in std::mem::take(&mut self.pair_tests) {
            let index = self.tests.len();
            self.tests.push(test);
            (self.on_event)(&CoverEvent::Test {
                index,
                coords: &self.tests[index].coords,
                new_sides: &[],
            });
        }
    }

    /// Keeps the input `coords`, whose run ended in `trap`, as a finding when it is a
    /// new one: minimized, and the witness of the sides its minimized run takes first.
    /// Returns whether it covered new sides.
    fn confirm_finding(&mut self, trap: &Trap, coords: Vec<u64>) -> Result<bool, ExecError> {
        let Some(index) = self.findings.add(self.plan.spec(), trap, coords.clone())? else {
            return Ok(false);
        };
        self.kept.push(coords);
        let args = self.plan.spec().to_args(&self.findings.list[index].coords);
        let Traced { new, .. } = self.trace(&args, Fuel::Search)?;
        let new_sides = self.credit(&new, Witness::Finding(index));
        (self.on_event)(&CoverEvent::Finding {
            index,
            finding: &self.findings.list[index],
            new_sides: &new_sides,
        });
        Ok(!new.is_empty())
    }

    /// The finding key of a run that ran out of fuel where a patient re-run may tell a
    /// slow run from a hang (re-runs are left, and the key is new or known to be slow): a
    /// loop bounded by an input or by an iteration cap (GSL's `nmax` of 10 000) may run
    /// past the search's fuel and still end, and then it is a test, not a hang.
    fn patient_hang_key(&self, outcome: &Outcome<u64>) -> Option<FindingKey> {
        let Outcome::Trapped(trap) = outcome else {
            return None;
        };
        let finding = Finding::of(trap, Vec::new())?;
        let key = finding.key();
        let undecided = !self.findings.is_known(trap) || self.slow.contains(&key);
        let patient = finding.kind == FindingKind::Hang && self.patient_reruns_left > 0;
        (patient && undecided).then_some(key)
    }

    /// Runs `args` in a tracing interpreter with `fuel`: how the run ended, the
    /// included sides it takes that are not covered yet, and its new pairs.
    fn trace(&mut self, args: &[fpforge_spec::Arg], fuel: Fuel) -> Result<Traced, ExecError> {
        let (outcome, events) = self.traced_run(args, fuel)?;
        let taken: Vec<u32> = events
            .iter()
            .filter_map(|&side| self.table.index_of(side))
            .collect();
        let pairs = &self.interp.observer().pairs;
        let fresh_pairs = if pairs.enabled {
            pairs.fresh_in(taken.iter().copied())
        } else {
            Vec::new()
        };
        let mut new: Vec<u32> = taken
            .into_iter()
            .filter(|&s| !self.covered[s as usize])
            .collect();
        new.sort_unstable();
        new.dedup();
        Ok(Traced {
            outcome,
            new,
            fresh_pairs,
        })
    }

    /// Runs `args` with `fuel` in a tracing interpreter of its own (not the search's,
    /// whose observer keeps state across runs): how the run ended and the sides it took,
    /// in order. One tracer per fuel serves every confirmation, since making an
    /// interpreter prepares every function of the module (milliseconds for a library)
    /// and each run starts from fresh memory anyway.
    fn traced_run(
        &mut self,
        args: &[fpforge_spec::Arg],
        fuel: Fuel,
    ) -> Result<(Outcome<u64>, Vec<Side>), ExecError> {
        let tracer = match &mut self.tracers[fuel as usize] {
            Some(tracer) => tracer,
            slot => {
                let steps = self.exec_config.fuel.saturating_mul(fuel.times());
                let exec = self.exec_config.clone().with_fuel(steps);
                slot.insert(Interpreter::new(
                    self.module,
                    Concrete,
                    BranchTrace::default(),
                    exec,
                )?)
            }
        };
        tracer.observer_mut().clear();
        let run = tracer.call(self.func, args)?;
        Ok((
            run.outcome,
            std::mem::take(&mut tracer.observer_mut().events),
        ))
    }

    /// Marks the side indices `new` covered by `witness` and updates saturation; returns
    /// the sides.
    fn credit(&mut self, new: &[u32], witness: Witness) -> Vec<Side> {
        for &s in new {
            self.covered[s as usize] = true;
            self.witness[s as usize] = Some(witness);
        }
        self.covered_count += new.len();
        self.table
            .saturate(&self.covered, &mut self.interp.observer_mut().saturated);
        new.iter().map(|&s| self.table.sides[s as usize]).collect()
    }

    fn progress(&mut self) {
        self.last_progress = Instant::now();
        (self.on_event)(&CoverEvent::Progress(Progress {
            evals: self.evals,
            elapsed: self.started.elapsed(),
            settled: self.covered_count - self.proved.iter().flatten().count(),
            total: self.table.len(),
            worst_error: None,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_out_of_fuel_rank_after_ended_runs_of_their_depth() {
        for metric in [Metric::Ulp, Metric::Real] {
            let ended = leveled(1.0, 2, metric);
            let out = out_of_fuel(ended, &[1e308, f64::NAN]);
            assert!(out > ended && out <= 2.0 * OUT_OF_FUEL * ended);
            assert!(
                out < leveled(1.0, 1, metric),
                "a deeper run still ranks first"
            );
        }
        let at = |point: &[f64]| out_of_fuel(3.0, point);
        assert!(at(&[4.0, 1.5]) < at(&[40.0, 1.5]));
        assert!(at(&[-40.0, 1.5]) < at(&[-4e9, 1.5]));
        assert!(at(&[f64::INFINITY]).is_finite());
        assert_eq!(at(&[0.0, 0.0]), 3.0 * OUT_OF_FUEL);
    }

    #[test]
    fn a_start_is_stuck_only_when_many_runs_out_of_fuel_outweigh_the_ended_ones() {
        let fuel = 100_000;
        let mut nan_loops = StartCost::default();
        for _ in 0..STUCK_RUNS - 1 {
            nan_loops.record(fuel, true);
            nan_loops.record(125, false);
        }
        assert!(!nan_loops.stuck(), "fewer than STUCK_RUNS runs out of fuel");
        nan_loops.record(fuel, true);
        assert!(nan_loops.stuck());

        let mut long_loops = StartCost::default();
        for _ in 0..4 * STUCK_RUNS {
            long_loops.record(fuel, true);
            long_loops.record(fuel / 2, false);
            long_loops.record(fuel / 2, false);
        }
        assert!(
            !long_loops.stuck(),
            "runs that end cost as much as those out of fuel"
        );
    }

    #[test]
    fn deeper_runs_rank_lower_whatever_their_distance() {
        for metric in [Metric::Ulp, Metric::Real] {
            assert!(leveled(1.8e19, 2, metric) < leveled(1.0, 1, metric));
            assert!(leveled(1.0, 1, metric) < leveled(2.0, 1, metric));
            assert!(leveled(5e-324, 0, metric) > 0.0);
            assert!(leveled(1.0, 40, metric) > 0.0);
            assert!(leveled(1.8e19, 40, metric).is_normal());
            assert_eq!(leveled(3.0, 1, metric) / leveled(2.0, 1, metric), 1.5);
        }
        assert!(leveled(1e-10, 1, Metric::Real) < leveled(1e-9, 1, Metric::Real));
    }
}
