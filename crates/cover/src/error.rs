//! Errors of the coverage engine: inputs it cannot search over and interpreter misuse.
//! Branches not reached and traps of the program under test are results, not errors.

use fpforge_exec::ExecError;

/// Why a coverage run could not start.
#[derive(Debug, thiserror::Error)]
pub enum CoverError {
    /// The entry function is not in the module.
    #[error("function {0} is not in the module")]
    UnknownFunc(fpir::Func),
    /// A parameter type the engine cannot generate values for.
    #[error("parameter {index} of `{func}` has type {ty}, which `cover` cannot generate yet (double, float, integers and pointers to them are supported)")]
    UnsupportedParam {
        /// Function name.
        func: String,
        /// 1-based parameter number.
        index: usize,
        /// Its type, as the IR prints it (`ptr` for pointers without a known pointee).
        ty: String,
    },
    /// A result type the emitted C regression test cannot declare.
    #[error("`{func}` returns {ty}, which has no C scalar type the regression test can declare")]
    UnsupportedResult {
        /// Function name.
        func: String,
        /// Its type, as the IR prints it.
        ty: String,
    },
    /// The argument specs do not fit the function.
    #[error(transparent)]
    Spec(#[from] fpforge_exec::SpecError),
    /// The interpreter rejected the module or a call.
    #[error(transparent)]
    Exec(#[from] ExecError),
}
