//! The search for error-inducing inputs.
//!
//! After FPGen (Guo & Rubio-González, ICSE'20, Sec. III-C), with our own search in place
//! of symbolic execution:
//!
//! 1. **Random phase**: `random_phase` inputs drawn uniformly from the argument ranges
//!    (or from the cover engine's start distribution for unranged coordinates); the worst
//!    becomes the *base* input.
//! 2. **Rounds**: a subset of `k` coordinates (initially all) is searched while the
//!    others stay at the base. Rounds alternate their goal between the error itself
//!    (minimize `-log2(relative error)`, with the largest cancellation as a tie-breaker
//!    where the error is zero) and one uncovered check target (minimize its distance,
//!    [`crate::targets`]); every other error round maximizes instead the atomic
//!    condition number of one op site ([`crate::condition`]), the sites seen so far
//!    taken in turn. Rounds alternate the method between the alternating variable
//!    method in ulp steps ([`fpforge_search::avm()`]) and a (1+1) evolution strategy in
//!    the ordered-bits space of binary64 (a step is a number of ulps, adapted by the 1/5
//!    success rule; one candidate in `COPY_ONE_IN` instead copies a float coordinate's
//!    value or its negation into another, since equal and opposite values, where
//!    differences and variances vanish, lie too far apart in ulps for a step). A round that improves the worst error or covers a target moves the
//!    base there; a round without progress halves `k` (FPGen's subset adaptation), and
//!    after three fruitless rounds at `k = 1` the search restarts from a kept input or a
//!    random one with all coordinates.
//!
//! Zeros and poles ([`crate::zeros`]) get a quarter of the evaluation budget: after the
//! random phase every binary64 coordinate is swept on a signed-log scale (the others at
//! the base), and every sign change seen between consecutive evaluations that differ in
//! one coordinate, in the sweep or in the rounds, is bisected in ulp space down to
//! adjacent doubles, which are evaluated with a few ulps around them. An input next to a
//! located pole is listed as a pole, never ranked as an error. (Where the error is the
//! largest over several output elements, signs do not compare and this part is off.)
//!
//! Every candidate is measured against the oracle ([`crate::measure`],
//! [`crate::oracle`]) and ranked by the run's metric ([`crate::metric`]: ulps of the true
//! value or relative error; the objective of the error rounds is `-log2` of it); the
//! `top_k` worst are kept, one per region ([`crate::regions`]): an input within
//! [`NEIGHBOUR_ULPS`](crate::regions::NEIGHBOUR_ULPS) of a kept one in every coordinate
//! is the same problem and is folded into it (the worse of the two stays), and the
//! report counts the folds. Under
//! the ulps metric so is an input on the hill of the error of a kept one (the error
//! does not dip between them: one zero, pole or region), and the search keeps
//! [`HILL_POOL`] times as many for the report to pick `top_k` from.
//! Inputs whose computed or true value is not finite are kept apart
//! ([`crate::special`]). Every reported error is recomputed by Ziv's strategy
//! ([`Measurer::stabilize`]) before the report. With
//! [`CandidateStrategy::Random`] only the random phase runs, for the whole budget: the baseline
//! a benchmark compares against under the same reference.

use crate::blame::{blame, Blame};
use crate::config::{AccuracyConfig, CandidateStrategy};
use crate::error::AccuracyError;
use crate::measure::{ErrorFinding, Measurer};
use crate::metric::{figure, worse};
use crate::oracle::Oracle;
use crate::regions::{neighbours, one_per_region, Hills};
use crate::special::{classify, SpecialKind, SpecialValue};
use crate::targets::{Target, Targets};
use crate::zeros::{bisect, sweep, Bracket, Sample, Signal, Singularity, SingularityKind};
use fpforge_engine::settings::optional;
use fpforge_engine::{Engine, EngineKind, ErrorFigure, ErrorMetric, Event, Progress, Settings};
use fpforge_exec::finding::FindingLog;
use fpforge_mpfr::ErrorMeasure;
use fpforge_search::ordinal::{from_ordinal, to_ordinal};
use fpforge_search::{avm, AvmConfig, Budget, Clock, Evaluator, Limits, Space, Stop};
use fpforge_spec::plan::Test;
use fpforge_spec::InputSpec;
use fpir::{FloatTy, Func, Module, OpSite, Type};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// A check target and whether the run covered it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetStatus {
    /// The target.
    pub target: Target,
    /// Smallest distance seen (`<= 0`: covered); `None` when never executed.
    pub best_distance: Option<i32>,
}

impl TargetStatus {
    /// Whether some input passed the check.
    pub fn covered(&self) -> bool {
        self.best_distance.is_some_and(|d| d <= 0)
    }
}

/// The result of [`accuracy`].
#[derive(Clone, Debug)]
pub struct AccuracyReport {
    /// The entry function.
    pub func: Func,
    /// The worst inputs with a finite error, worst first (at most `top_k`), each
    /// re-executed.
    pub top: Vec<ErrorFinding>,
    /// What every error was measured against.
    pub oracle: Oracle,
    /// What errors are counted and ranked in.
    pub metric: ErrorMetric,
    /// Inputs whose computed result is not finite where the oracle's is (wrong special
    /// values, first), or whose oracle value is infinite or undefined (poles), one per
    /// region and kind, at most `top_k`, in the order found (re-executed).
    pub special_values: Vec<SpecialValue>,
    /// Candidates that would have entered the worst inputs but lie within
    /// [`NEIGHBOUR_ULPS`](crate::regions::NEIGHBOUR_ULPS) of a kept one, or (under the
    /// ulps metric) on its hill of the error: near-duplicates folded into it.
    pub folded: u64,
    /// Under the re-execution oracle, the input with the largest finite error among
    /// those whose reference run took the same branches as the concrete run: pure
    /// rounding error, no change of path (re-executed).
    pub worst_same_path: Option<ErrorFinding>,
    /// Blame for the worst input.
    pub blame: Blame,
    /// Inputs on which the function crashes or hangs, one per fault, minimized.
    pub crashes: Vec<fpforge_exec::Finding>,
    /// The check targets.
    pub targets: Vec<TargetStatus>,
    /// Candidates evaluated.
    pub evals: u64,
    /// Wall-clock time spent.
    pub elapsed: Duration,
    /// Why it ended.
    pub stop: Stop,
    /// How candidates were generated.
    pub strategy: CandidateStrategy,
    /// Zeros and poles located, in the order found.
    pub singularities: Vec<Singularity>,
    /// Evaluations spent aiming at zeros and poles (included in `evals`).
    pub zero_evals: u64,
    /// The input coordinates, for plots.
    pub coords: Vec<CoordInfo>,
    /// A uniform sample of the evaluated inputs with their errors (at most
    /// [`SAMPLE_SIZE`], drawn by reservoir sampling under the run's seed).
    pub samples: Vec<ErrorSample>,
}

/// An input coordinate as plots name it.
#[derive(Clone, Debug, PartialEq)]
pub struct CoordInfo {
    /// `x`, `a[2]`, `p.mass`: the parameter's name, with the element.
    pub name: String,
    /// The value's type.
    pub ty: Type,
}

impl CoordInfo {
    /// The coordinates of `spec`.
    fn of(spec: &InputSpec) -> Vec<CoordInfo> {
        spec.coords()
            .iter()
            .map(|c| CoordInfo {
                name: match c.elem {
                    Some(e) => format!("{}[{e}]", spec.param_name(c.param)),
                    None => spec.param_name(c.param).to_string(),
                },
                ty: c.ty,
            })
            .collect()
    }

    /// The value of raw bits `bits` of this coordinate, as a double.
    pub fn value(&self, bits: u64) -> f64 {
        match self.ty {
            Type::Float(FloatTy::F64) => f64::from_bits(bits),
            Type::Float(FloatTy::F32) => f64::from(f32::from_bits(bits as u32)),
            Type::Int(_) => self.ty.sign_extend(bits) as f64,
            Type::Ptr => 0.0,
        }
    }
}

/// One evaluated input and its errors (infinite or NaN where a value is not finite).
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorSample {
    /// The input, one value per coordinate.
    pub point: Vec<f64>,
    /// Its relative error.
    pub rel: f64,
    /// Its error in ulps.
    pub ulps: f64,
}

/// Evaluated inputs a report keeps as a sample, at most.
pub const SAMPLE_SIZE: usize = 1000;

/// Reservoir sampling (Vitter's algorithm R) of the evaluated inputs, with a generator
/// of its own so the search's draws stay as they are.
struct Reservoir {
    samples: Vec<ErrorSample>,
    seen: u64,
    rng: ChaCha8Rng,
}

impl Reservoir {
    fn new(seed: u64) -> Reservoir {
        Reservoir {
            samples: Vec::new(),
            seen: 0,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5a4d_504c_4553),
        }
    }

    fn offer(&mut self, point: &[f64], error: &ErrorMeasure) {
        self.seen += 1;
        let sample = ErrorSample {
            point: point.to_vec(),
            rel: error.rel,
            ulps: error.ulps,
        };
        if self.samples.len() < SAMPLE_SIZE {
            self.samples.push(sample);
        } else {
            let j = self.rng.gen_range(0..self.seen);
            if let Some(slot) = self.samples.get_mut(j as usize) {
                *slot = sample;
            }
        }
    }
}

impl AccuracyReport {
    /// The worst input found, if any candidate ran to completion.
    pub fn worst(&self) -> Option<&ErrorFinding> {
        self.top.first()
    }

    /// How many located singularities are of `kind`.
    pub fn count(&self, kind: SingularityKind) -> usize {
        self.singularities.iter().filter(|s| s.kind == kind).count()
    }
}

fpforge_engine::ended_by_fields!(AccuracyReport);

impl Engine for AccuracyConfig {
    const KIND: EngineKind = EngineKind::Accuracy;
    type Detail<'a> = AccuracyNews<'a>;
    type Report = AccuracyReport;
    type Error = AccuracyError;

    fn settings(&self) -> Settings {
        let AccuracyConfig {
            seed,
            precision,
            verify_precision,
            oracle,
            metric,
            ziv_max_precision,
            strategy,
            sites,
            sampling,
            random_phase,
            top_k,
            fuel,
            args,
            out_args,
        } = self;
        Settings::new()
            .with("seed", seed)
            .with("precision", precision)
            .with("verify_precision", optional(*verify_precision))
            .with("oracle", oracle)
            .with("metric", metric.map_or("auto", ErrorMetric::name))
            .with("ziv_max_precision", ziv_max_precision)
            .with(
                "strategy",
                match strategy {
                    CandidateStrategy::Search => "search",
                    CandidateStrategy::Random => "random",
                },
            )
            .with("sites", sites)
            .with("sampling", sampling)
            .with("random_phase", random_phase)
            .with("top_k", top_k)
            .with("fuel", fuel)
            .with_each("args", args)
            .with_each("out_args", out_args)
    }

    fn run(
        &self,
        module: &Module,
        func: Func,
        budget: &Budget,
        events: &mut dyn FnMut(&AccuracyEvent<'_>),
    ) -> Result<AccuracyReport, AccuracyError> {
        accuracy_with(module, func, self, budget, events)
    }
}

/// What the engine reports while it runs: each crash or hang (kept apart from the
/// error findings, with no sides), progress, and its own [`AccuracyNews`].
pub type AccuracyEvent<'a> = Event<'a, AccuracyNews<'a>>;

/// Accuracy's news beside the shared events.
#[derive(Debug)]
pub enum AccuracyNews<'a> {
    /// The search starts.
    Started {
        /// What every candidate is measured against.
        oracle: &'a Oracle,
        /// What errors are counted and ranked in.
        metric: ErrorMetric,
        /// The check targets.
        targets: &'a [Target],
    },
    /// A new worst input.
    NewWorst {
        /// It.
        finding: &'a ErrorFinding,
        /// Evaluations so far.
        evals: u64,
    },
}

/// Runs the search on `func` and returns the report.
pub fn accuracy(
    module: &Module,
    func: Func,
    config: &AccuracyConfig,
    budget: &Budget,
) -> Result<AccuracyReport, AccuracyError> {
    accuracy_with(module, func, config, budget, |_| {})
}

/// One input measured again by [`check_input`].
#[derive(Clone, Debug)]
pub struct Checked {
    /// The input and its error.
    pub finding: ErrorFinding,
    /// Blame for it.
    pub blame: Blame,
    /// What the error was measured against.
    pub oracle: Oracle,
    /// What the error is counted in.
    pub metric: ErrorMetric,
}

/// Measures one input (raw bits per coordinate) at `config.precision`, with blame.
pub fn check_input(
    module: &Module,
    func: Func,
    config: &AccuracyConfig,
    coords: Vec<u64>,
) -> Result<Option<Checked>, AccuracyError> {
    let funcs = module.reachable_funcs(func);
    let targets = Targets::select(module, &funcs, &config.sites);
    let mut m = Measurer::new(module, func, config, targets)?;
    let expected = m.plan().dims();
    if coords.len() != expected {
        return Err(AccuracyError::InputLength {
            expected,
            got: coords.len(),
        });
    }
    let test = m.plan().test(coords);
    let Some(finding) = m.measure(&test) else {
        return Ok(None);
    };
    let blame = blame(module, func, &test, config.precision, config.fuel)?;
    Ok(Some(Checked {
        finding,
        blame,
        oracle: m.oracle().clone(),
        metric: m.metric(),
    }))
}

/// [`accuracy`], reporting events to `on_event` as they happen.
pub fn accuracy_with(
    module: &Module,
    func: Func,
    config: &AccuracyConfig,
    budget: &Budget,
    mut on_event: impl FnMut(&AccuracyEvent<'_>),
) -> Result<AccuracyReport, AccuracyError> {
    let clock = budget.start();
    let start = clock.started();
    let funcs = module.reachable_funcs(func);
    let targets = Targets::select(module, &funcs, &config.sites);
    let measurer = Measurer::new(module, func, config, targets.clone())?;
    let crashes = FindingLog::new(module, func, measurer.exec_config().clone());
    on_event(&AccuracyEvent::Started { sides: &[] });
    on_event(&AccuracyEvent::Detail(AccuracyNews::Started {
        oracle: measurer.oracle(),
        metric: measurer.metric(),
        targets: &targets.list,
    }));
    let zeros = ZeroSearch::new(measurer.oracle());
    let mut state = State {
        measurer,
        config,
        top: Vec::new(),
        special: Vec::new(),
        folded: 0,
        same_path: None,
        distances: vec![None; targets.len()],
        evals: 0,
        start,
        deadline: budget
            .time_limit
            .map(|t| start + t.mul_f64(SEARCH_SHARE_OF_TIME)),
        clock: &clock,
        last_progress: start,
        stop: None,
        crashes,
        on_event: &mut on_event,
        zeros,
        reservoir: Reservoir::new(config.seed),
        conditioned: vec![false; module.op_sites.len()],
    };
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    match config.strategy {
        CandidateStrategy::Random => {
            while state.running() {
                let p = state.random_point(&mut rng);
                state.eval_point(&p, Goal::Error);
            }
        }
        CandidateStrategy::Search => search(&mut state, &mut rng),
    }
    let stop = state.stop.unwrap_or(Stop::EvalLimit);
    let evals = state.evals;
    let crashes = std::mem::take(&mut state.crashes.list);
    let kept: Vec<Test> = state.top.iter().map(|(f, _)| f.test.clone()).collect();
    // Every reported input is re-executed, and its error made stable.
    let top: Vec<ErrorFinding> = kept
        .iter()
        .filter_map(|test| {
            let f = state.measurer.measure_verified(test)?;
            Some(state.measurer.stabilize(f))
        })
        .collect();
    let metric = state.measurer.metric();
    let (top, late_folds) = reported(&mut state, top);
    let mut special_values: Vec<SpecialValue> = std::mem::take(&mut state.special)
        .into_iter()
        .filter_map(|s| {
            let f = state.measurer.measure_verified(&s.finding.test)?;
            let f = state.measurer.stabilize(f);
            let located_pole = state
                .zeros
                .near_pole(&state.measurer.plan().encode(&f.test));
            let kind = classify(&f).or(located_pole.then_some(SpecialKind::Pole))?;
            Some(SpecialValue { kind, finding: f })
        })
        .collect();
    special_values.sort_by_key(|s| s.kind);
    let worst_same_path = match state.same_path.take() {
        Some(f) => state
            .measurer
            .measure_verified(&f.test)
            .map(|f| state.measurer.stabilize(f)),
        None => None,
    };
    let blame = match top.first() {
        Some(w) => blame(module, func, &w.test, config.precision, config.fuel)?,
        None => Blame::default(),
    };
    let targets = targets
        .list
        .iter()
        .zip(&state.distances)
        .map(|(&target, &best_distance)| TargetStatus {
            target,
            best_distance,
        })
        .collect();
    Ok(AccuracyReport {
        func,
        top,
        oracle: state.measurer.oracle().clone(),
        metric,
        special_values,
        folded: state.folded + late_folds,
        worst_same_path,
        blame,
        crashes,
        targets,
        evals,
        elapsed: start.elapsed(),
        stop,
        strategy: config.strategy,
        singularities: std::mem::take(&mut state.zeros.found),
        zero_evals: state.zeros.evals,
        coords: CoordInfo::of(state.measurer.plan().spec()),
        samples: std::mem::take(&mut state.reservoir.samples),
    })
}

/// What a round minimizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    /// `-log2(relative error)`.
    Error,
    /// The distance of target `i`.
    Target(usize),
    /// `-log2` of the condition number at an op site.
    Condition(OpSite),
}

/// A kept worst input: its finding and the search point it came from.
type Kept = (ErrorFinding, Vec<f64>);

/// Objective value of a candidate that trapped or produced no result.
const FAILED: f64 = 1e9;

struct State<'m, 'c, 'e, E: FnMut(&AccuracyEvent<'_>)> {
    measurer: Measurer<'m>,
    config: &'c AccuracyConfig,
    /// Worst findings, worst first.
    top: Vec<Kept>,
    special: Vec<SpecialValue>,
    folded: u64,
    same_path: Option<ErrorFinding>,
    distances: Vec<Option<i32>>,
    evals: u64,
    start: Instant,
    deadline: Option<Instant>,
    /// The run's budget being spent: its evaluation cap and interrupt.
    clock: &'c Clock,
    last_progress: Instant,
    stop: Option<Stop>,
    crashes: FindingLog<'m>,
    on_event: &'e mut E,
    zeros: ZeroSearch,
    /// Per op site, whether a run has given it a condition number.
    conditioned: Vec<bool>,
    reservoir: Reservoir,
}

/// Share of the time limit the search may use: the rest is for re-measuring the
/// reported inputs by Ziv's strategy, so that the whole run stays within the limit.
const SEARCH_SHARE_OF_TIME: f64 = 0.95;

/// How many times `top_k` inputs the search keeps under the ulps metric: inputs on one
/// hill of the error are one entry of the report, and the others take the places they
/// leave.
pub const HILL_POOL: usize = 2;

/// Share of the evaluation budget aimed at zeros and poles: one in four.
const ZERO_SHARE: u64 = 4;

/// Values of the coarse sweep of one coordinate, at most.
const SWEEP_POINTS: usize = 256;

/// Ulps on each side of a located zero or pole evaluated as candidates.
const SURROUNDING_ULPS: i64 = 4;

/// Ulps from a located pole within which an input is the pole, not an error.
const POLE_ULPS: u64 = SURROUNDING_ULPS as u64 + 1;

/// Brackets waiting to be bisected, at most.
const MAX_PENDING_BRACKETS: usize = 64;

/// The zero-and-pole part of the search state.
struct ZeroSearch {
    /// The signal that says where the true function is: the oracle's value, or the
    /// computed one under the re-execution (whose value is the same code's).
    truth: Signal,
    /// The last evaluated point and its sample, while brackets are being recorded.
    previous: Option<(Vec<f64>, Sample)>,
    /// Whether consecutive evaluations are compared (not during a bisection).
    bisecting: bool,
    /// The sample of the last evaluation.
    last: Option<Sample>,
    pending: VecDeque<Bracket>,
    found: Vec<Singularity>,
    /// Evaluations spent on the sweep and the bisections.
    evals: u64,
    /// The share a time limit alone gives at least: what an evaluation budget gives the
    /// same sweep ([`sweep_coordinates`] sets it).
    least_allowance: u64,
}

impl ZeroSearch {
    fn new(oracle: &Oracle) -> ZeroSearch {
        let truth = match oracle {
            Oracle::ReExecution => Signal::Computed,
            Oracle::TrueFunction(_) | Oracle::CReference(_) => Signal::Oracle,
        };
        ZeroSearch {
            truth,
            previous: None,
            bisecting: false,
            last: None,
            pending: VecDeque::new(),
            found: Vec::new(),
            evals: 0,
            least_allowance: SWEEP_POINTS as u64,
        }
    }

    /// Records the sample of an evaluation and the brackets it closes with the last.
    fn record(&mut self, point: &[f64], sample: Option<Sample>, binary64: impl Fn(usize) -> bool) {
        self.last = sample;
        if self.bisecting {
            return;
        }
        let Some(sample) = sample else {
            self.previous = None;
            return;
        };
        if let Some((p, s)) = &self.previous {
            for b in Bracket::between((p, *s), (point, sample)) {
                if binary64(b.coord) && self.is_new(&b) && self.pending.len() < MAX_PENDING_BRACKETS
                {
                    self.pending.push_back(b);
                }
            }
        }
        self.previous = Some((point.to_vec(), sample));
    }

    /// Whether no pending bracket overlaps `b` and no located singularity lies in it.
    fn is_new(&self, b: &Bracket) -> bool {
        !self.pending.iter().any(|p| p.overlaps(b))
            && !self
                .found
                .iter()
                .any(|s| s.signal == b.signal && b.contains(&s.point, s.coord, s.below))
    }

    /// Whether `point` lies next to a located pole of the true function (a pole of the
    /// code alone is where its errors are).
    fn near_pole(&self, point: &[f64]) -> bool {
        self.found.iter().any(|s| {
            s.kind == SingularityKind::Pole && s.signal == self.truth && s.near(point, POLE_ULPS)
        })
    }
}

impl<E: FnMut(&AccuracyEvent<'_>)> State<'_, '_, '_, E> {
    /// Whether the budget allows another evaluation (sets the stop reason when not).
    fn running(&mut self) -> bool {
        if self.stop.is_some() {
            return false;
        }
        if self.clock.eval_cap().is_some_and(|m| self.evals >= m) {
            self.stop = Some(Stop::EvalLimit);
        } else if self.evals.is_multiple_of(16)
            && self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stop = Some(Stop::TimeLimit);
        } else if self.clock.interrupted() {
            self.stop = Some(Stop::Interrupted);
        }
        self.stop.is_none()
    }

    /// Keeps `test` as a crash finding when its run trapped in a new way.
    fn note_crash(&mut self, test: &Test) {
        let Some(trap) = self.measurer.last_trap().cloned() else {
            return;
        };
        let spec = self.measurer.plan().spec();
        if let Ok(Some(index)) = self.crashes.add(spec, &trap, test.coords.clone()) {
            (self.on_event)(&AccuracyEvent::Finding {
                index,
                finding: &self.crashes.list[index],
                new_sides: &[],
            });
        }
    }

    fn remaining_evals(&self) -> u64 {
        self.clock
            .eval_cap()
            .map_or(u64::MAX, |m| m.saturating_sub(self.evals))
    }

    /// Evaluations the zero search may have spent by now: a share of the budget, or
    /// under a time limit alone a share of the evaluations so far, and at least a full
    /// sweep and its bisections (so a longer budget never sweeps more coarsely).
    fn zero_allowance(&self) -> u64 {
        if !self.measurer.measures_one_value() {
            return 0;
        }
        match self.clock.eval_cap() {
            Some(budget) => budget / ZERO_SHARE,
            None => (self.evals / ZERO_SHARE).max(self.zeros.least_allowance),
        }
    }

    /// Whether the run and the zero search's share allow another evaluation.
    fn zero_running(&mut self) -> bool {
        self.zeros.evals < self.zero_allowance() && self.running()
    }

    /// Evaluates `point` for the zero search; its sample.
    fn eval_zero(&mut self, point: &[f64]) -> Option<Sample> {
        self.zeros.evals += 1;
        self.eval_point(point, Goal::Error);
        self.zeros.last
    }

    /// The condition number of the `turn`-th op site (cyclically) among those seen so
    /// far, or the error when none is.
    fn condition_goal(&self, turn: u64) -> Goal {
        let seen: Vec<usize> = (0..self.conditioned.len())
            .filter(|&i| self.conditioned[i])
            .collect();
        if seen.is_empty() {
            return Goal::Error;
        }
        Goal::Condition(OpSite(seen[(turn % seen.len() as u64) as usize] as u32))
    }

    /// The worst error kept, in the run's metric.
    fn best_error(&self) -> f64 {
        self.top.first().map_or(0.0, |(f, _)| self.figure(&f.error))
    }

    /// `error` in the run's metric.
    fn figure(&self, error: &ErrorMeasure) -> f64 {
        figure(self.measurer.metric(), error)
    }

    /// Whether error `a` ranks above `b` in the run's metric.
    fn worse(&self, a: &ErrorMeasure, b: &ErrorMeasure) -> bool {
        worse(self.measurer.metric(), a, b)
    }

    /// How many worst inputs the search keeps: `top_k`, and under the ulps metric
    /// [`HILL_POOL`] times as many, for the report to pick one per hill from.
    fn kept_max(&self) -> usize {
        let k = self.config.top_k.max(1);
        match self.measurer.metric() {
            ErrorMetric::Ulps => k.saturating_mul(HILL_POOL),
            ErrorMetric::Relative => k,
        }
    }

    fn covered(&self) -> usize {
        self.distances
            .iter()
            .filter(|d| d.is_some_and(|d| d <= 0))
            .count()
    }

    fn random_point<R: Rng>(&self, rng: &mut R) -> Vec<f64> {
        let plan = self.measurer.plan();
        let fallback = plan.start(rng);
        plan.spec()
            .coords()
            .iter()
            .zip(fallback)
            .map(|(c, x)| match c.range {
                Some(r) if r.lo.is_finite() && r.hi.is_finite() => {
                    r.lo + (r.hi - r.lo) * rng.gen::<f64>()
                }
                _ => x,
            })
            .collect()
    }

    /// Measures a point, keeps what it found and returns the objective of `goal`.
    fn eval_point(&mut self, point: &[f64], goal: Goal) -> f64 {
        self.evals += 1;
        let test = self.measurer.plan().decode(point);
        let finding = self.measurer.measure(&test);
        self.note_crash(&test);
        let checks = self.measurer.checks();
        let mut max_cancel = 0i32;
        for (i, d) in self.distances.iter_mut().enumerate() {
            if let Some(new) = checks.distance(i) {
                if d.is_none_or(|old| new < old) {
                    *d = Some(new);
                }
            }
        }
        for i in (1..self.distances.len()).step_by(2) {
            max_cancel = max_cancel.max(checks.best[i]);
        }
        let goal_value = match goal {
            Goal::Target(i) => checks.distance(i).map_or(FAILED, f64::from),
            Goal::Condition(site) => checks
                .conditions
                .get(site.0 as usize)
                .copied()
                .flatten()
                .map_or(FAILED, |c| -c.max(f64::MIN_POSITIVE).log2()),
            Goal::Error => 0.0,
        };
        for (seen, c) in self.conditioned.iter_mut().zip(&checks.conditions) {
            *seen |= c.is_some();
        }
        let value = match &finding {
            None => FAILED,
            Some(f) => {
                // Non-finite results are kept apart and give no guidance.
                let error = match self.figure(&f.error) {
                    e if e.is_finite() => e,
                    _ => 0.0,
                };
                let err_obj = -(error.max(f64::MIN_POSITIVE * 1e-30)).log2();
                match goal {
                    Goal::Error => err_obj - 1e-3 * f64::from(max_cancel.max(0)),
                    Goal::Target(_) | Goal::Condition(_) => goal_value + 1e-6 * err_obj,
                }
            }
        };
        // The input as run: a search point outside a coordinate's range is clamped.
        let input = self.measurer.plan().encode(&test);
        let sample = finding.as_ref().map(|f| self.sample(f));
        let spec = self.measurer.plan().spec();
        self.zeros.record(&input, sample, |i| binary64(spec, i));
        if let Some(f) = finding {
            self.reservoir.offer(&input, &f.error);
            self.keep(f, point);
        }
        if self.last_progress.elapsed() >= Duration::from_millis(250) {
            self.last_progress = Instant::now();
            let event = AccuracyEvent::Progress(Progress {
                evals: self.evals,
                elapsed: self.start.elapsed(),
                settled: self.covered(),
                total: self.distances.len(),
                worst_error: Some(ErrorFigure {
                    value: self.best_error(),
                    metric: self.measurer.metric(),
                }),
            });
            (self.on_event)(&event);
        }
        value
    }

    /// What the zero search sees of a finding: the computed value, and the oracle's
    /// when the oracle is the function itself.
    fn sample(&self, f: &ErrorFinding) -> Sample {
        let computed = f.computed.to_f64();
        let oracle = match self.measurer.oracle() {
            Oracle::ReExecution => None,
            Oracle::TrueFunction(_) | Oracle::CReference(_) => Some(f.reference.to_f64()),
        };
        Sample { computed, oracle }
    }

    fn keep(&mut self, f: ErrorFinding, point: &[f64]) {
        if let Some(kind) = classify(&f) {
            self.keep_special(kind, f);
            return;
        }
        if self.figure(&f.error) > 0.0 && self.zeros.near_pole(point) {
            self.keep_special(SpecialKind::Pole, f);
            return;
        }
        if !self.figure(&f.error).is_finite() {
            return;
        }
        let re_execution = matches!(self.measurer.oracle(), Oracle::ReExecution);
        if re_execution
            && !f.diverged
            && self.figure(&f.error) > 0.0
            && self
                .same_path
                .as_ref()
                .is_none_or(|g| self.worse(&f.error, &g.error))
        {
            if let Some(v) = self.measurer.measure_verified(&f.test) {
                let better = self
                    .same_path
                    .as_ref()
                    .is_none_or(|g| self.worse(&v.error, &g.error));
                if !v.diverged && self.figure(&v.error).is_finite() && better {
                    self.same_path = Some(v);
                }
            }
        }
        let (k, metric) = (self.kept_max(), self.measurer.metric());
        let enters = |f: &ErrorFinding, top: &[Kept]| {
            figure(metric, &f.error) > 0.0
                && !top.iter().any(|(g, _)| g.test.coords == f.test.coords)
                && (top.len() < k
                    || top
                        .last()
                        .is_some_and(|(g, _)| worse(metric, &f.error, &g.error)))
        };
        if !enters(&f, &self.top) {
            return;
        }
        // Measured again against the verification reference before it is kept.
        let Some(f) = self.measurer.measure_verified(&f.test) else {
            return;
        };
        if !enters(&f, &self.top) || !figure(metric, &f.error).is_finite() {
            return;
        }
        // One problem is one entry: a neighbour of a kept input, or an input on its hill
        // of the error, replaces it only when worse. (It may be the same problem as
        // another kept input too: the report folds those.)
        let spec = self.measurer.plan().spec();
        let neighbour = self
            .top
            .iter()
            .position(|(g, _)| neighbours(spec, &g.test, &f.test));
        if let Some(i) = neighbour.or_else(|| self.same_hill(&f)) {
            self.folded += 1;
            if !worse(metric, &f.error, &self.top[i].0.error) {
                return;
            }
            self.top.remove(i);
        }
        let pos = self
            .top
            .iter()
            .position(|(g, _)| worse(metric, &f.error, &g.error))
            .unwrap_or(self.top.len());
        self.top.insert(pos, (f, point.to_vec()));
        self.top.truncate(k);
        if pos == 0 {
            let event = AccuracyEvent::Detail(AccuracyNews::NewWorst {
                finding: &self.top[0].0,
                evals: self.evals,
            });
            (self.on_event)(&event);
        }
    }
}

impl<E: FnMut(&AccuracyEvent<'_>)> State<'_, '_, '_, E> {
    /// Under the ulps metric, the kept input on whose hill of the error `f` lies
    /// ([`Hills`]); `None` under the relative metric.
    fn same_hill(&mut self, f: &ErrorFinding) -> Option<usize> {
        if self.measurer.metric() != ErrorMetric::Ulps {
            return None;
        }
        let plan = self.measurer.plan();
        let point = plan.encode(&f.test);
        let kept: Vec<(Vec<f64>, ErrorMeasure)> = self
            .top
            .iter()
            .map(|(g, _)| (plan.encode(&g.test), g.error))
            .collect();
        let mut hills = hills(&mut self.measurer, &self.zeros.found)?;
        kept.iter()
            .position(|(q, e)| hills.same((&point, &f.error), (q, e)))
    }

    /// Moves the kept worst inputs next to a located pole to the special values.
    fn poles_out_of_top(&mut self) {
        let (poles, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.top)
            .into_iter()
            .partition(|(_, p)| self.zeros.near_pole(p));
        self.top = rest;
        for (f, _) in poles {
            self.keep_special(SpecialKind::Pole, f);
        }
    }

    /// Keeps a special value unless one of its kind in the same region is kept, or
    /// `top_k` are.
    fn keep_special(&mut self, kind: SpecialKind, f: ErrorFinding) {
        let spec = self.measurer.plan().spec();
        let known = self
            .special
            .iter()
            .any(|s| s.kind == kind && neighbours(spec, &s.finding.test, &f.test));
        if !known && self.special.len() < self.config.top_k.max(1) {
            self.special.push(SpecialValue { kind, finding: f });
        }
    }
}

/// Under the ulps metric, the hills of the error next to the located zeros and poles
/// `found`, inputs measured by `measurer` at the working precision
/// ([`crate::regions`]); `None` under the relative metric.
fn hills<'a, 'm>(
    measurer: &'a mut Measurer<'m>,
    found: &'a [Singularity],
) -> Option<Hills<'a, impl FnMut(&[f64]) -> Option<ErrorMeasure> + use<'a, 'm>>> {
    (measurer.metric() == ErrorMetric::Ulps).then(|| {
        Hills::new(found, move |point: &[f64]| {
            let test = measurer.plan().decode(point);
            Some(measurer.measure(&test)?.error)
        })
    })
}

/// The kept worst inputs `top` (re-measured and stabilized), worst first in the run's
/// metric, one per region: none a neighbour of a worse one, and under the ulps metric
/// none on the hill of the error of a worse one, at most `top_k` ([`crate::regions`]); and
/// how many were folded.
fn reported<E: FnMut(&AccuracyEvent<'_>)>(
    state: &mut State<'_, '_, '_, E>,
    top: Vec<ErrorFinding>,
) -> (Vec<ErrorFinding>, u64) {
    let metric = state.measurer.metric();
    let mut sorted: Vec<(ErrorFinding, Vec<f64>)> = top
        .into_iter()
        .map(|f| {
            let point = state.measurer.plan().encode(&f.test);
            (f, point)
        })
        .collect();
    sorted.sort_by(|a, b| figure(metric, &b.0.error).total_cmp(&figure(metric, &a.0.error)));
    let k = state.config.top_k.max(1);
    let spec = state.measurer.plan().spec().clone();
    one_per_region(
        &spec,
        sorted,
        k,
        hills(&mut state.measurer, &state.zeros.found),
    )
}

/// Whether coordinate `i` of `spec` is a binary64 value (the ones the zero search
/// sweeps and narrows).
fn binary64(spec: &InputSpec, i: usize) -> bool {
    spec.coords()
        .get(i)
        .is_some_and(|c| c.ty == Type::Float(FloatTy::F64))
}

/// Evaluations per round and coordinate.
const ROUND_EVALS_PER_COORD: u64 = 60;

fn search<E: FnMut(&AccuracyEvent<'_>)>(state: &mut State<'_, '_, '_, E>, rng: &mut ChaCha8Rng) {
    let dims = state.measurer.plan().dims();
    let mut base: Vec<f64> = Vec::new();
    for _ in 0..state.config.random_phase {
        if !state.running() {
            return;
        }
        let p = state.random_point(rng);
        state.eval_point(&p, Goal::Error);
        if base.is_empty() {
            base = p;
        }
    }
    if let Some((_, p)) = state.top.first() {
        base.clone_from(p);
    }
    if dims == 0 {
        // Nothing to search: one evaluation is the whole story.
        while state.running() {
            state.eval_point(&[], Goal::Error);
            state.stop = Some(Stop::EvalLimit);
        }
        return;
    }
    if base.len() != dims {
        base = state.random_point(rng);
    }
    sweep_coordinates(state, &base);
    let mut k = dims;
    let mut stuck = 0u32;
    let mut round = 0u64;
    while state.running() {
        narrow_brackets(state);
        round += 1;
        let uncovered: Vec<usize> = (0..state.distances.len())
            .filter(|&i| state.distances[i].is_none_or(|d| d > 0))
            .collect();
        let goal = if round.is_multiple_of(2) && !uncovered.is_empty() {
            // The uncovered target closest to being covered (ties: lowest index).
            let best = uncovered
                .iter()
                .copied()
                .min_by_key(|&i| state.distances[i].unwrap_or(i32::MAX))
                .unwrap_or(uncovered[0]);
            Goal::Target(best)
        } else if round % 4 == 3 {
            state.condition_goal(round / 4)
        } else {
            Goal::Error
        };
        let mut subset: Vec<usize> = (0..dims).collect();
        for i in 0..k.min(dims) {
            let j = rng.gen_range(i..dims);
            subset.swap(i, j);
        }
        subset.truncate(k.min(dims));
        subset.sort_unstable();
        let before = state.best_error();
        let before_covered = state.covered();
        let limit = (ROUND_EVALS_PER_COORD * k as u64 + 100).min(state.remaining_evals());
        let best_point = if round.is_multiple_of(3) {
            es_round(state, rng, &base, &subset, goal, limit)
        } else {
            avm_round(state, &base, &subset, goal, limit)
        };
        let improved_error = state.best_error() > before;
        let improved_target = state.covered() > before_covered;
        if improved_error {
            if let Some((_, p)) = state.top.first() {
                base.clone_from(p);
            }
            stuck = 0;
        } else if improved_target {
            if let Some(p) = best_point {
                base = p;
            }
            stuck = 0;
        } else if k > 1 {
            k = (k / 2).max(1);
        } else {
            stuck += 1;
            if stuck >= 3 {
                stuck = 0;
                k = dims;
                let pick = rng.gen_range(0..=state.top.len());
                base = match state.top.get(pick) {
                    Some((_, p)) => p.clone(),
                    None => state.random_point(rng),
                };
            }
        }
    }
}

/// The coarse signed-log sweep of every binary64 coordinate, the others at `base`
/// (brackets are recorded as the sweep goes), then the bisection of what it bracketed.
fn sweep_coordinates<E: FnMut(&AccuracyEvent<'_>)>(state: &mut State<'_, '_, '_, E>, base: &[f64]) {
    let spec = state.measurer.plan().spec();
    let swept: Vec<usize> = (0..base.len()).filter(|&i| binary64(spec, i)).collect();
    if swept.is_empty() {
        return;
    }
    // Half of the share for the sweep, the rest for the bisections.
    state.zeros.least_allowance = 2 * swept.len() as u64 * SWEEP_POINTS as u64;
    let points = (state.zero_allowance() / (2 * swept.len() as u64)).min(SWEEP_POINTS as u64);
    for &i in &swept {
        let range = state.measurer.plan().spec().coords()[i].range;
        state.zeros.previous = None;
        for x in sweep(range, points as usize) {
            if !state.zero_running() {
                return;
            }
            let mut p = base.to_vec();
            p[i] = x;
            state.eval_zero(&p);
        }
    }
    state.zeros.previous = None;
    narrow_brackets(state);
}

/// Bisects the pending brackets while the zero search's share allows; each located zero
/// or pole is kept, and the doubles around it evaluated.
fn narrow_brackets<E: FnMut(&AccuracyEvent<'_>)>(state: &mut State<'_, '_, '_, E>) {
    while state.zero_running() {
        let Some(bracket) = state.zeros.pending.pop_front() else {
            break;
        };
        if !state.zeros.is_new(&bracket) {
            continue;
        }
        state.zeros.bisecting = true;
        let located = bisect(&bracket, |x| {
            if !state.zero_running() {
                return None;
            }
            let mut p = bracket.point.clone();
            p[bracket.coord] = x;
            state.eval_zero(&p)
        });
        if let Some(s) = located {
            let around = s.surroundings(SURROUNDING_ULPS);
            let point = s.point.clone();
            let coord = s.coord;
            let pole = s.kind == SingularityKind::Pole;
            state.zeros.found.push(s);
            if pole {
                state.poles_out_of_top();
            }
            for x in around {
                if !state.zero_running() {
                    break;
                }
                let mut p = point.clone();
                p[coord] = x;
                state.eval_zero(&p);
            }
        }
        state.zeros.bisecting = false;
        state.zeros.previous = None;
    }
}

/// The full point with `sub` written into the coordinates of `subset`.
fn merged(base: &[f64], subset: &[usize], sub: &[f64]) -> Vec<f64> {
    let mut p = base.to_vec();
    for (&i, &x) in subset.iter().zip(sub) {
        p[i] = x;
    }
    p
}

/// One round of the alternating variable method over `subset`; the best full point.
fn avm_round<E: FnMut(&AccuracyEvent<'_>)>(
    state: &mut State<'_, '_, '_, E>,
    base: &[f64],
    subset: &[usize],
    goal: Goal,
    limit: u64,
) -> Option<Vec<f64>> {
    let mut budget = Limits::default()
        .with_eval_limit(limit)
        .with_target(f64::NEG_INFINITY);
    if let Some(d) = state.deadline {
        budget = budget.with_deadline(d);
    }
    if let Goal::Target(_) = goal {
        budget = budget.with_target(0.0);
    }
    let start: Vec<f64> = subset.iter().map(|&i| base[i]).collect();
    let mut ev = Evaluator::new(
        |sub: &[f64]| state.eval_point(&merged(base, subset, sub), goal),
        Space::Real,
        budget,
    );
    let result = avm(&mut ev, &start, &AvmConfig::default().with_max_sweeps(8)).map(|_| ());
    let outcome = ev.finish(result);
    (!outcome.best_input.is_empty()).then(|| merged(base, subset, &outcome.best_input))
}

/// One round of a (1+1) evolution strategy in ordered-bits coordinates over `subset`.
fn es_round<E: FnMut(&AccuracyEvent<'_>)>(
    state: &mut State<'_, '_, '_, E>,
    rng: &mut ChaCha8Rng,
    base: &[f64],
    subset: &[usize],
    goal: Goal,
    limit: u64,
) -> Option<Vec<f64>> {
    let mut x: Vec<f64> = subset.iter().map(|&i| to_ordinal(base[i])).collect();
    let mut fx = state.eval_point(&merged(base, subset, &decode(&x)), goal);
    let mut sigma = 2f64.powi(40);
    for _ in 1..limit {
        if !state.running() {
            break;
        }
        let copy = rng
            .gen_ratio(1, COPY_ONE_IN)
            .then(|| copied_coordinate(state.measurer.plan().spec(), rng, base, subset, &x))
            .flatten();
        let y: Vec<f64> = copy.unwrap_or_else(|| {
            x.iter()
                .map(|&c| {
                    if rng.gen_bool(0.5) {
                        c
                    } else {
                        (c + normal(rng) * sigma).round()
                    }
                })
                .collect()
        });
        let fy = state.eval_point(&merged(base, subset, &decode(&y)), goal);
        if fy <= fx {
            x = y;
            fx = fy;
            sigma = (sigma * 1.5).min(2f64.powi(62));
        } else {
            sigma = (sigma * 0.9).max(1.0);
        }
        if matches!(goal, Goal::Target(_)) && fx <= 0.0 {
            break;
        }
    }
    Some(merged(base, subset, &decode(&x)))
}

/// One in this many evolution-strategy candidates copies a coordinate instead of
/// perturbing it.
const COPY_ONE_IN: u32 = 8;

/// `x` (ordinals of `subset`'s coordinates) with one float coordinate set to the value,
/// or its negation, of another coordinate of the same type: equal and opposite values
/// are where differences, variances and determinants vanish, and a random perturbation
/// of ulp-distances almost never lands there. `None` when no coordinate can be copied.
fn copied_coordinate<R: Rng>(
    spec: &InputSpec,
    rng: &mut R,
    base: &[f64],
    subset: &[usize],
    x: &[f64],
) -> Option<Vec<f64>> {
    let coords = spec.coords();
    let is_float = |i: usize| matches!(coords.get(i).map(|c| c.ty), Some(Type::Float(_)));
    let targets: Vec<usize> = (0..subset.len()).filter(|&p| is_float(subset[p])).collect();
    let &target = targets.get(rng.gen_range(0..targets.len().max(1)))?;
    let ty = coords[subset[target]].ty;
    let sources: Vec<usize> = (0..base.len())
        .filter(|&j| j != subset[target] && coords.get(j).is_some_and(|c| c.ty == ty))
        .collect();
    let &source = sources.get(rng.gen_range(0..sources.len().max(1)))?;
    let full = merged(base, subset, &decode(x));
    let value = if rng.gen_bool(0.5) {
        full[source]
    } else {
        -full[source]
    };
    let mut y = x.to_vec();
    y[target] = to_ordinal(value);
    Some(y)
}

fn decode(ordinals: &[f64]) -> Vec<f64> {
    ordinals.iter().map(|&c| from_ordinal(c)).collect()
}

/// A standard normal variate (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u: f64 = 1.0 - rng.gen::<f64>();
    let v: f64 = rng.gen();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}
