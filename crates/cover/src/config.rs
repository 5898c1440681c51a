//! The configuration of a coverage run: search parameters and which sites count (the
//! run's evaluations, time and interrupt are its [`fpforge_search::Budget`]).
//! Defaults follow CoverMe's evaluation (Fu & Su, PLDI'17: `n_start = 500`, `n_iter = 5`).

use crate::prover::SideProver;
use fpforge_exec::Compilation;
use fpforge_search::Space;
use fpforge_spec::{ArgSpec, OutArgSpec};
use std::sync::Arc;
use std::time::Duration;

/// The default of [`CoverConfig::pair_evals`].
pub const DEFAULT_PAIR_EVALS: u64 = 2_000;

/// How branch distances are measured ([`crate::distance`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// `|a - b|` in real arithmetic (binary64), as in CoverMe; overflows to infinity for
    /// far-apart operands.
    Real,
    /// The number of floating-point values between `a` and `b` (ordered-bits distance),
    /// finite for every pair of non-NaN values and exact near zero and for huge values.
    Ulp,
}

/// Parameters of [`crate::cover`]. Build with [`CoverConfig::default`] and the `with_*`
/// methods.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CoverConfig {
    /// Seed of every random choice; the same seed and eval limit give the same tests
    /// (default 0).
    pub seed: u64,
    /// Number of starting points (default 500).
    pub n_start: u32,
    /// Basinhopping hops per start (default 5).
    pub n_iter: u32,
    /// Include the branch sites of functions the entry function calls (default false:
    /// the entry function's own sites only).
    pub deep: bool,
    /// Search spaces, used in turn by successive starts (default: real, then
    /// ordered bits).
    pub spaces: Vec<Space>,
    /// Branch distance metric (default [`Metric::Ulp`]).
    pub metric: Metric,
    /// Finish each start that found no zero with the alternating variable method in
    /// exact ulp steps (default true; false is CoverMe's search alone).
    pub ulp_refine: bool,
    /// Aim every other start at one uncovered side whose branch a test reaches, from
    /// that test (default true; false is CoverMe's search alone).
    pub targeted: bool,
    /// Rank evaluations first by how many unsaturated sides the run takes, then by `r`
    /// (default true; false is CoverMe's representing function alone).
    pub levels: bool,
    /// Instruction budget of one run of the function under test (default 100 000: a
    /// run of a libm function takes a few thousand; loops bounded by an input, such as
    /// `jn`'s, would otherwise make one evaluation cost milliseconds);
    /// a run that exhausts it keeps the coverage it made before.
    pub fuel: u64,
    /// When evaluations run as native code instead of in the interpreter (default
    /// [`Compilation::WhenHot`]: once the search has evaluated the function long enough
    /// for compiling to pay off; the results are the same either way).
    pub compile: Compilation,
    /// Evaluate points made of special values first and start searches from constants
    /// harvested from the program (default true; false is CoverMe's random starts).
    pub seeding: bool,
    /// After the sides, aim at every operand relation (`<`, `==`, `>`) of each ordered
    /// comparison that no test shows yet, a few thousand evaluations each (default
    /// true). Compilers partition comparisons differently (gcc compiles `x < y ? y : x`
    /// as a branch on `x > y`), so these tests cover branches another build has.
    pub boundaries: bool,
    /// Keep inputs whose runs show a new pair of consecutive sides as tests, up to a
    /// bound ([`crate::pairs`]; default true). The sides and their witnesses stay as they
    /// are; the extra tests take branches of other builds (gcc's copies of a comparison
    /// into the arms of a `?:`) and paths AFL-style edge coverage counts.
    pub pairs: bool,
    /// Evaluations spent looking for new pairs once every side is covered or settled:
    /// random points and tests with one coordinate replaced (default
    /// [`DEFAULT_PAIR_EVALS`]; 0: none). Counted against
    /// the run's evaluation budget, so runs stay reproducible.
    pub pair_evals: u64,
    /// Parameter specs (`--arg`): shapes, ranges and fixed values (default: none, every
    /// parameter takes [`fpforge_spec::InputSpec`]'s default).
    pub args: Vec<ArgSpec>,
    /// Output arrays (`--out-arg`) (default: none).
    pub out_args: Vec<OutArgSpec>,
    /// The user's own inputs (`--seeds`), as coordinate bits of the spec: evaluated
    /// first, and the first starts search from them (default: none).
    pub seeds: Vec<Vec<u64>>,
    /// Worker threads (default 1). Starts run in rounds, each worker with its own seed
    /// stream, and are merged in worker order after each round, so the same seed and
    /// job count give the same tests whatever the timing.
    pub jobs: usize,
    /// Settles the sides the search left open: a witness (re-executed before it counts)
    /// or a proof of infeasibility (default: none).
    pub prover: Option<Arc<dyn SideProver>>,
    /// Time the prover gets (default: none, meaning what is left of the run's time
    /// limit, at most 3 s: the search stops early to leave the
    /// prover a fifth of the limit, so the run ends within it).
    pub prover_time: Option<Duration>,
}

impl Default for CoverConfig {
    fn default() -> Self {
        CoverConfig {
            seed: 0,
            n_start: 500,
            n_iter: 5,
            deep: false,
            spaces: vec![Space::Real, Space::OrderedBits],
            metric: Metric::Ulp,
            ulp_refine: true,
            levels: true,
            targeted: true,
            fuel: 100_000,
            compile: Compilation::WhenHot,
            seeding: true,
            boundaries: true,
            pairs: true,
            pair_evals: DEFAULT_PAIR_EVALS,
            args: Vec::new(),
            out_args: Vec::new(),
            seeds: Vec::new(),
            jobs: 1,
            prover: None,
            prover_time: None,
        }
    }
}

impl CoverConfig {
    /// Sets [`CoverConfig::seed`].
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets [`CoverConfig::n_start`].
    pub fn with_n_start(mut self, n_start: u32) -> Self {
        self.n_start = n_start;
        self
    }

    /// Sets [`CoverConfig::n_iter`].
    pub fn with_n_iter(mut self, n_iter: u32) -> Self {
        self.n_iter = n_iter;
        self
    }

    /// Sets [`CoverConfig::deep`].
    pub fn with_deep(mut self, deep: bool) -> Self {
        self.deep = deep;
        self
    }

    /// Sets [`CoverConfig::spaces`] (an empty list means the default).
    pub fn with_spaces(mut self, spaces: Vec<Space>) -> Self {
        self.spaces = spaces;
        self
    }

    /// Sets [`CoverConfig::metric`].
    pub fn with_metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// Sets [`CoverConfig::ulp_refine`].
    pub fn with_ulp_refine(mut self, refine: bool) -> Self {
        self.ulp_refine = refine;
        self
    }

    /// Sets [`CoverConfig::levels`].
    pub fn with_levels(mut self, levels: bool) -> Self {
        self.levels = levels;
        self
    }

    /// Sets [`CoverConfig::targeted`].
    pub fn with_targeted(mut self, targeted: bool) -> Self {
        self.targeted = targeted;
        self
    }

    /// Sets [`CoverConfig::compile`].
    pub fn with_compile(mut self, compile: Compilation) -> Self {
        self.compile = compile;
        self
    }

    /// Sets [`CoverConfig::fuel`].
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }

    /// Sets [`CoverConfig::seeding`].
    pub fn with_seeding(mut self, seeding: bool) -> Self {
        self.seeding = seeding;
        self
    }

    /// Sets [`CoverConfig::boundaries`].
    pub fn with_boundaries(mut self, boundaries: bool) -> Self {
        self.boundaries = boundaries;
        self
    }

    /// Sets [`CoverConfig::pairs`].
    pub fn with_pairs(mut self, pairs: bool) -> Self {
        self.pairs = pairs;
        self
    }

    /// Sets [`CoverConfig::pair_evals`].
    pub fn with_pair_evals(mut self, evals: u64) -> Self {
        self.pair_evals = evals;
        self
    }

    /// Sets [`CoverConfig::args`] and [`CoverConfig::out_args`].
    pub fn with_args(mut self, args: Vec<ArgSpec>, out_args: Vec<OutArgSpec>) -> Self {
        self.args = args;
        self.out_args = out_args;
        self
    }

    /// Sets [`CoverConfig::jobs`] (at least 1).
    pub fn with_jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// Sets [`CoverConfig::prover`].
    pub fn with_prover(mut self, prover: Option<Arc<dyn SideProver>>) -> Self {
        self.prover = prover;
        self
    }

    /// Sets [`CoverConfig::prover_time`].
    pub fn with_prover_time(mut self, time: Option<Duration>) -> Self {
        self.prover_time = time;
        self
    }

    /// Sets [`CoverConfig::seeds`].
    pub fn with_seeds(mut self, seeds: Vec<Vec<u64>>) -> Self {
        self.seeds = seeds;
        self
    }
}
