//! [`AccuracyError`]: why an accuracy run cannot start. What the program under test does
//! (traps, NaNs) is a result, not an error.

use fpforge_exec::ExecError;
use fpforge_spec::SpecError;
use thiserror::Error;

/// Errors of [`crate::accuracy`].
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AccuracyError {
    /// The parameter specs or output arrays do not fit the function.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The interpreter cannot run the module.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// There is no floating-point result to measure.
    #[error("`{0}` returns no floating-point value and has no floating-point output array: name one as an output array")]
    NothingToMeasure(String),
    /// A check input does not have one value per coordinate.
    #[error("the input has {got} values but the function has {expected} input coordinates")]
    InputLength {
        /// Coordinates of the input spec.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// The oracle cannot be used.
    #[error("oracle: {0}")]
    Oracle(String),
    /// `--exhaustive` cannot check this function or oracle.
    #[error("--exhaustive: {0}")]
    Exhaustive(String),
    /// Setting up the inputs failed.
    #[error("{0}")]
    Inputs(String),
}
