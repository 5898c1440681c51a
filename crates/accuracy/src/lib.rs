//! `fpforge-accuracy`: the inputs on which a floating-point function is least accurate,
//! and the operations to blame.
//!
//! After FPGen (H. Guo and C. Rubio-González, "Efficient Generation of Error-Inducing
//! Floating-Point Inputs via Symbolic Execution", ICSE 2020), without its hand work:
//!
//! - **Oracles** ([`oracle`]): every candidate runs concretely and is measured against
//!   the true function in MPFR when the entry's name says which it is, a C reference
//!   the user gives, or else the same code run under [`fpforge_mpfr::HighPrecision`]
//!   (MPFR at `precision` bits, default 128: the rounding error of the algorithm only);
//!   the error is counted in ulps of the true value (the default under a true function
//!   of the result's format) or as the relative error (FPGen's, but against the true
//!   value where that is subnormal: [`fpforge_mpfr::metrics`]), [`metric`]; both, with
//!   bits lost and whether the result is correctly rounded ([`measure`]), in the
//!   result's own format (a `float`, `double` or `long double` return value, or output
//!   arrays), made stable for every reported input by Ziv's strategy.
//! - **Findings**: wrong special values and poles apart and first ([`special`]), then
//!   the worst inputs, one per region (under the ulps metric, one per zero, pole or
//!   hill of the error: [`regions`]).
//! - **Targets** are FPGen's precision-loss and cancellation checks after every selected
//!   `fadd`/`fsub`, observed on the concrete run ([`targets`]).
//! - **Zeros and poles** ([`zeros`]): sign changes between evaluated inputs, from the
//!   search and a signed-log sweep of every coordinate, bisected in ulp space to
//!   adjacent doubles (after ATOMU, Zou et al., POPL'20).
//! - **Atomic condition numbers** ([`condition`]) of every operation, ATOMU's targets,
//!   maximized beside FPGen's checks; every finding names the operation with the
//!   largest.
//! - **Search** follows FPGen's concretization: a random phase for a base input, then
//!   rounds over a subset of the coordinates, the subset halved when a round makes no
//!   progress, driven by the alternating variable method and an evolution strategy
//!   ([`engine`]).
//! - **Exhaustive binary32** ([`exhaustive`]): every `float` input of a `float f(float)`
//!   judged against the true function, the largest error in ulps exact.
//! - **Blame** ranks op sites of the worst input by the error they introduce, measured
//!   under [`fpforge_mpfr::Shadow`] ([`blame`]).
//!
//! ```no_run
//! use fpforge_accuracy::{accuracy, AccuracyConfig};
//! use fpforge_engine::Budget;
//! # fn demo(module: &fpir::Module, f: fpir::Func) -> Result<(), fpforge_accuracy::AccuracyError> {
//! let budget = Budget::default().with_evals(Some(20_000));
//! let report = accuracy(module, f, &AccuracyConfig::default().with_seed(1), &budget)?;
//! if let Some(w) = report.worst() {
//!     println!("relative error {:e} ({} bits lost)", w.error.rel, w.error.bits_lost);
//! }
//! # Ok(()) }
//! ```

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod blame;
pub mod condition;
pub mod config;
pub mod engine;
pub mod error;
pub mod exhaustive;
pub mod measure;
pub mod metric;
pub mod oracle;
pub mod regions;
pub mod special;
pub mod targets;
pub mod zeros;

pub use blame::{Blame, BlameRow};
pub use config::{AccuracyConfig, CandidateStrategy, Sampling, SiteSelection};
pub use engine::{
    accuracy, accuracy_with, check_input, AccuracyEvent, AccuracyNews, AccuracyReport, Checked,
    CoordInfo, ErrorSample, TargetStatus, HILL_POOL, SAMPLE_SIZE,
};
pub use error::AccuracyError;
pub use fpforge_engine::ErrorMetric;
pub use fpforge_mpfr::{ErrorMeasure, FloatBits, Format, HighValue, TrueFunction};
pub use measure::{ErrorFinding, OutputLoc, Ziv};
pub use oracle::{implied_out_args, Oracle, OracleChoice, OracleKind};
pub use regions::{neighbours, NEIGHBOUR_ULPS};
pub use special::{PoleAnswer, SpecialKind, SpecialValue};
pub use targets::{Check, Target};
