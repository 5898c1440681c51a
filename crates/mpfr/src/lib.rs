//! `fpforge-mpfr`: MPFR-backed semantics for fpforge's interpreter and floating-point
//! error metrics; the only crate that sees `rug`.
//!
//! - [`semantics`]: [`HighPrecision`] (every FP value and operation in MPFR; control flow
//!   follows the high-precision values) and [`Shadow`] (the concrete run drives; an MPFR
//!   shadow rides beside every FP register and memory cell, with per op site error and
//!   cancellation records and branch divergences).
//! - [`binary32`]: the true value at a `float` input decided fast (the host's `double`
//!   function within a bound) or by MPFR, for exhaustive binary32 checking.
//! - [`math`]: math functions in MPFR, with the documented fallbacks.
//! - [`oracle`]: true functions (the mathematical function an entry computes) in MPFR,
//!   recognized by C library, GSL and Cephes names.
//! - [`x87`]: the x87 extended format (`long double`) in MPFR: exact values, rounding
//!   at precision 64 in the x87 exponent range, errors in extended ulps.
//! - [`format`](mod@format): the formats a result is measured in (`float`, `double`, `long double`)
//!   and a result's error in ulps of its own format.
//! - [`metrics`]: relative, ulp and bits-lost errors against a [`HighValue`] reference,
//!   and FPGen's precision-loss and cancellation checks.
//!
//! ```
//! use fpforge_mpfr::{HighPrecision, metrics};
//! use fpforge_exec::{ExecConfig, Interpreter, NoObserver, Outcome};
//! # fn demo(module: &fpir::Module, f: fpir::Func, args: &[fpforge_spec::Arg]) -> Result<(), fpforge_exec::ExecError> {
//! let mut interp = Interpreter::new(module, HighPrecision::new(128), NoObserver, ExecConfig::default())?;
//! let run = interp.call(f, args)?;
//! if let Outcome::Returned(Some(v)) = run.outcome {
//!     let reference = interp.semantics().high_value(fpir::FloatTy::F64, &v);
//!     println!("reference {reference}");
//! }
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

pub mod binary32;
pub mod exactness;
pub mod format;
pub mod math;
pub mod metrics;
pub mod oracle;
pub mod semantics;
pub mod x87;

pub use format::{FloatBits, Format};
pub use metrics::{measure, ErrorMeasure, HighValue, Thresholds};
pub use oracle::{Operand, TrueFunction};
pub use semantics::{
    HighPrecision, Mode, MpValue, Mpfr, Reference, Shadow, Shadowed, SiteStats, DEFAULT_PRECISION,
};
