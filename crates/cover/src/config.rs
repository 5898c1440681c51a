//! The configuration of a coverage run: budgets, search parameters and which sites count.
//! Defaults follow CoverMe's evaluation (Fu & Su, PLDI'17: `n_start = 500`, `n_iter = 5`).

use fpforge_search::Space;
use std::time::Duration;

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
    /// Wall-clock budget (default 10 s).
    pub time_limit: Option<Duration>,
    /// Number of starting points (default 500).
    pub n_start: u32,
    /// Basinhopping hops per start (default 5).
    pub n_iter: u32,
    /// Total evaluations of the representing function (default: unlimited). Use this
    /// rather than the time limit for reproducible runs.
    pub max_evals: Option<u64>,
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
    /// Instruction budget of one run of the function under test (default 1 000 000);
    /// a run that exhausts it keeps the coverage it made before.
    pub fuel: u64,
}

impl Default for CoverConfig {
    fn default() -> Self {
        CoverConfig {
            seed: 0,
            time_limit: Some(Duration::from_secs(10)),
            n_start: 500,
            n_iter: 5,
            max_evals: None,
            deep: false,
            spaces: vec![Space::Real, Space::OrderedBits],
            metric: Metric::Ulp,
            ulp_refine: true,
            levels: true,
            targeted: true,
            fuel: 1_000_000,
        }
    }
}

impl CoverConfig {
    /// Sets [`CoverConfig::seed`].
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets [`CoverConfig::time_limit`] (`None`: no time limit).
    pub fn with_time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
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

    /// Sets [`CoverConfig::max_evals`].
    pub fn with_max_evals(mut self, max_evals: Option<u64>) -> Self {
        self.max_evals = max_evals;
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

    /// Sets [`CoverConfig::fuel`].
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }
}
