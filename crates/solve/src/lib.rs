//! fpforge-solve: a floating-point constraint solver that stands beside Z3.
//!
//! Constraints are SMT-LIB 2.6 QF_FP / QF_BVFP / QF_BV over binary32,
//! binary64, bit-vectors up to 64 bits, Booleans and rounding modes, in all
//! five rounding modes. Two families of engines answer them:
//!
//! * **search** (FloPSy, Lakhotia et al., ICTSS 2010): branch-distance fitness
//!   minimized by the alternating variable method, an evolution strategy and
//!   random search — fast on satisfiable queries, never says `unsat`;
//! * **interval propagation and labeling** (FPSE, Botella, Gotlieb, Michel,
//!   STVR 2006; max-ULP filtering after Marre and Michel, 2010 and Bagnara et
//!   al., 2016; bit-vectors as ranges plus known bits) — can prove `unsat` by
//!   exhausting the search.
//!
//! A third, complete engine decides what those leave open:
//!
//! * **bit-precise** ([`bitblast`]): every operation as a bit-vector circuit
//!   (symfpu's unpack / operate / round / pack), bit-blasted to CaDiCaL.
//!
//! Every `sat` answer carries a model re-checked by the exact evaluator
//! ([`eval`]); `unsat` comes from exhausted interval search or from the
//! bit-precise backend (cross-checked by labeling).
//!
//! Solving terms built in Rust (the API the engines use):
//!
//! ```
//! use fpforge_solve::{Answer, Op, SmtRounding, Solver, SolveConfig, Sort, TermStore};
//! let mut s = TermStore::new();
//! let x = s.declare("x", Sort::F32);
//! let one = s.f32_const(1.0);
//! let rne = s.rm_const(SmtRounding::Rne);
//! let sum = s.mk(Op::FpAdd, &[rne, x, one]).unwrap();
//! let absorbed = s.mk(Op::FpEq, &[sum, x]).unwrap(); // x + 1 == x
//! let positive = s.mk(Op::FpIsPositive, &[x]).unwrap();
//! let mut solver = Solver::new(&s, SolveConfig::default());
//! match solver.check(&[absorbed, positive]) {
//!     Answer::Sat(model) => assert!(model.values[0].as_f64().unwrap() >= 16777216.0),
//!     other => panic!("expected sat, got {other:?}"),
//! }
//! ```
//!
//! Layout: [`sort`] and [`term`] (the hash-consed arena), [`sexpr`] and
//! [`smtlib`] (reader, script runner, model printer), [`eval`] (IEEE semantics),
//! [`ieee`] (exact arithmetic in every rounding mode),
//! [`search`] (FloPSy engines), [`interval`] (FPSE domains, projections,
//! propagation, labeling), [`bitblast`] (circuits, CNF, CaDiCaL), [`solver`] (the
//! portfolio and its statistics).
//! Float ordinals and the AVM's moves come from `fpforge-search`
//! ([`fpforge_search::ordinal`], [`mod@fpforge_search::avm`]).
#![deny(missing_docs)]

pub mod bitblast;
pub mod eval;
pub mod ieee;
pub mod interval;
pub mod search;
pub mod sexpr;
pub mod smtlib;
pub mod solver;
pub mod sort;
pub mod term;

use std::fmt;
use std::time::Duration;

pub use eval::{check_model, Model, Value};
pub use interval::labeling::VarOrder;
pub use solver::{Answer, Solver, Stats};
pub use sort::{FpFormat, SmtRounding, Sort};
pub use term::{Op, TermError, TermId, TermStore, VarId};

/// Which engine answers `check-sat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Interval propagation with labeling (complete: can answer `unsat`).
    Interval,
    /// Alternating variable method.
    Avm,
    /// (mu + lambda) evolution strategy.
    Es,
    /// Random search.
    Random,
    /// The bit-precise backend alone (complete: bit-blasting to SAT).
    BitPrecise,
    /// All of the above interleaved under one time limit; first answer wins.
    #[default]
    Portfolio,
}

impl Strategy {
    /// The CLI name: `interval`, `avm`, `es`, `random`, `bit-precise` or `portfolio`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Interval => "interval",
            Strategy::Avm => "avm",
            Strategy::Es => "es",
            Strategy::Random => "random",
            Strategy::BitPrecise => "bit-precise",
            Strategy::Portfolio => "portfolio",
        }
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;

    /// Parses a CLI name (see [`Strategy::name`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Strategy::Interval,
            Strategy::Avm,
            Strategy::Es,
            Strategy::Random,
            Strategy::BitPrecise,
            Strategy::Portfolio,
        ]
        .into_iter()
        .find(|st| st.name() == s)
        .ok_or_else(|| {
            format!(
                "unknown solver '{s}' (expected interval, avm, es, random, bit-precise or portfolio)"
            )
        })
    }
}

/// The fitness function the search engines minimize (FloPSy §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Fitness {
    /// Sum of branch distances in the value space (FloPSy's table).
    #[default]
    BranchDistance,
    /// Sum of distances counted in units in the last place.
    Ulp,
}

/// Solver configuration.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct SolveConfig {
    /// Wall-clock limit per `check-sat`. Default: 10 s.
    pub timeout: Duration,
    /// Engine choice. Default: [`Strategy::Portfolio`].
    pub strategy: Strategy,
    /// Seed of every random choice; runs are reproducible given the seed and
    /// enough time. Default: 0.
    pub seed: u64,
    /// Print statistics after each `check-sat`. Default: false.
    pub stats: bool,
    /// After each `sat`/`unsat`, print the method that decided it as a comment line
    /// (`; unsat (bit-precise)`, `; sat (search)`, `; unsat (intervals)`). Default: false.
    pub method: bool,
    /// Fitness for the search engines. Default: [`Fitness::BranchDistance`].
    pub fitness: Fitness,
    /// Slow-convergence cut-off for direct projections: a narrowing that
    /// removes less than this fraction of a domain does not re-schedule
    /// propagation. Default: 0.0 (FPSE §5).
    pub direct_epsilon: f64,
    /// Same cut-off for indirect projections. Default: 0.1 (FPSE §5).
    pub indirect_epsilon: f64,
    /// Labeling's variable choice. Default: [`VarOrder::LargestFirst`].
    pub var_order: VarOrder,
    /// Threads of the portfolio: from 2 on, the bit-precise backend takes its turns
    /// ahead on a thread of its own; the answer, its model and its method are the same
    /// for every value (see [`solver`]). Default: 1.
    pub jobs: usize,
}

impl Default for SolveConfig {
    fn default() -> Self {
        SolveConfig {
            timeout: Duration::from_secs(10),
            strategy: Strategy::Portfolio,
            seed: 0,
            stats: false,
            method: false,
            fitness: Fitness::BranchDistance,
            direct_epsilon: 0.0,
            indirect_epsilon: 0.1,
            var_order: VarOrder::LargestFirst,
            jobs: 1,
        }
    }
}

impl SolveConfig {
    /// Sets [`SolveConfig::timeout`].
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
    /// Sets [`SolveConfig::strategy`].
    pub fn with_strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }
    /// Sets [`SolveConfig::seed`].
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Sets [`SolveConfig::stats`].
    pub fn with_stats(mut self, stats: bool) -> Self {
        self.stats = stats;
        self
    }
    /// Sets [`SolveConfig::method`].
    pub fn with_method(mut self, method: bool) -> Self {
        self.method = method;
        self
    }
    /// Sets [`SolveConfig::fitness`].
    pub fn with_fitness(mut self, fitness: Fitness) -> Self {
        self.fitness = fitness;
        self
    }
    /// Sets [`SolveConfig::var_order`].
    pub fn with_var_order(mut self, var_order: VarOrder) -> Self {
        self.var_order = var_order;
        self
    }
    /// Sets [`SolveConfig::jobs`].
    pub fn with_jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs;
        self
    }
    /// Sets [`SolveConfig::direct_epsilon`] and [`SolveConfig::indirect_epsilon`].
    pub fn with_epsilons(mut self, direct: f64, indirect: f64) -> Self {
        self.direct_epsilon = direct;
        self.indirect_epsilon = indirect;
        self
    }
}

/// The answer to one `check-sat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A model was found and checked.
    Sat,
    /// Proved by interval search or the bit-precise backend.
    Unsat,
    /// Neither within the limits.
    Unknown,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Sat => "sat",
            Status::Unsat => "unsat",
            Status::Unknown => "unknown",
        })
    }
}

/// What a script run did.
#[derive(Clone, Debug, Default)]
pub struct ScriptSummary {
    /// One status per `check-sat`, in order.
    pub answers: Vec<Status>,
    /// Number of notes written (ignored commands and options).
    pub notes: usize,
    /// Statistics summed over all `check-sat`s.
    pub stats: Stats,
}

/// Errors of this crate. Unsat and unknown are answers, not errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SolveError {
    /// Malformed or unsupported SMT-LIB input.
    #[error("{line}:{col}: {msg}")]
    Parse {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
        /// What is wrong.
        msg: String,
    },
    /// Writing the responses failed.
    #[error("writing solver output: {0}")]
    Io(#[from] std::io::Error),
}

/// Executes an SMT-LIB script, writing responses (`sat`/`unsat`/`unknown`,
/// models, values, notes as `;` comments) to `out`. Stops at the first
/// malformed command with [`SolveError::Parse`]; responses to earlier
/// commands have been written by then.
pub fn run_script(
    text: &str,
    config: &SolveConfig,
    out: &mut dyn std::io::Write,
) -> Result<ScriptSummary, SolveError> {
    smtlib::run(text, config, out)
}
