//! `fpforge-cover`: inputs that take every branch of a floating-point function.
//!
//! The engine follows CoverMe (Z. Fu and Z. Su, "Achieving High Coverage for
//! Floating-Point Code via Unconstrained Programming", PLDI 2017):
//!
//! - **Representing function** (Sec. 3): the program is run with
//!   an observer that keeps a penalty `r` (starting at 1). At each branch of an included
//!   site, `r` becomes 0 when neither side is saturated, the branch distance to the
//!   unsaturated side when exactly one is, and stays unchanged when both are. The final
//!   `r` is `FOO_R(x) >= 0`, and `FOO_R(x) = 0` when `x` saturates a new branch side
//!   ([`represent`]).
//! - **Saturation** (Sec. 3): a side is saturated when it and every branch side
//!   reachable from its target in the control-flow graph are covered ([`sides`]).
//! - **Branch distance** (Sec. 4): `|a - b|` for `==`, `a - b + eps` for a
//!   strict `<` that does not hold, `eps` for `!=`, ...; measured in real numbers or in
//!   ulps ([`distance`]).
//! - **Search** (Sec. 4): `FOO_R` is minimized by basinhopping with Powell's
//!   method from `n_start` starting points; every zero is a new test, and saturation is
//!   updated ([`engine`]).
//!
//! Beyond CoverMe, each switchable in [`CoverConfig`] so it can be measured: searches in
//! the ordered-bits space of binary64 (subnormals, infinities, signed zeros and NaN become
//! reachable); branch distances in ulps; special values evaluated first and starting
//! points from constants harvested from the program; incidental coverage (any evaluation
//! that covers a new side records a test); an exact ulp-step local search (the
//! alternating variable method) after each start; an objective ranked by how deep a run
//! gets into unfinished code; starts aimed at one uncovered side from the test
//! closest to it; tests for the `<`/`==`/`>` relations of ordered comparisons that other
//! compilers branch on; tests for new pairs of consecutive sides ([`pairs`]), which
//! other builds and AFL-style edge coverage tell apart; and parallel rounds of starts
//! over `jobs` threads. Outside the search, sides behind constant conditions are proved
//! infeasible ([`fpir::analysis::constants`]). clang's `select`s are branch sites like any other:
//! lowering turns them into branches, as gcc (and so gcov) compiles those conditional
//! expressions.
//!
//! Parameters come from an [`fpforge_spec::InputSpec`] (scalars, pointees, arrays,
//! ranges, fixed values, output arrays; [`CoverConfig::args`]).
//!
//! Every test is re-executed with a fresh [`fpforge_exec::BranchTrace`] interpreter before
//! it is reported, and the sides it is credited with are those of the re-run. A side never
//! covered is reported as [`fpir::SideStatus::NotReached`] (a search cannot prove
//! infeasibility), unless a complete method proves it [`fpir::SideStatus::Infeasible`];
//! [`effort`] says when what was spent on it makes it likely infeasible.
//!
//! ```no_run
//! use fpforge_cover::{cover, CoverConfig};
//! use fpforge_engine::Budget;
//! # fn demo(module: &fpir::Module, f: fpir::Func) -> Result<(), fpforge_cover::CoverError> {
//! let budget = Budget::default().with_evals(Some(60_000));
//! let report = cover(module, f, &CoverConfig::default().with_seed(7), &budget)?;
//! println!("{}/{} sides covered", report.tally().covered, report.sides.len());
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

pub mod config;
pub mod distance;
pub mod effort;
pub mod engine;
pub mod error;
pub mod pairs;
pub mod prover;
pub mod report;
pub mod represent;
pub mod sides;

pub use config::{CoverConfig, Metric};
pub use engine::{cover, cover_with, CoverEvent};
pub use error::CoverError;
pub use fpforge_search::Space;
pub use prover::{Settlement, SideProver};
pub use report::CoverReport;
