//! Errors of the coverage engine: inputs it cannot search over and interpreter misuse.
//! Branches not reached and traps of the program under test are results, not errors.

use fpforge_exec::ExecError;

/// Why a coverage run could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoverError {
    /// The entry function is not in the module.
    #[error("function {0} is not in the module")]
    UnknownFunc(fpir::Func),
    /// The argument specs do not fit the function.
    #[error(transparent)]
    Spec(#[from] fpforge_spec::SpecError),
    /// The interpreter rejected the module or a call.
    #[error(transparent)]
    Exec(#[from] ExecError),
}
