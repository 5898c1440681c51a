//! The IR verifier (placeholder until the verifier lands).

use crate::module::Module;

/// A broken IR invariant, naming where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct VerifyError {
    /// Function, block and instruction.
    pub location: String,
    /// The broken invariant.
    pub message: String,
}

/// Checks every invariant of `module`.
pub fn verify_module(_module: &Module) -> Result<(), Vec<VerifyError>> {
    Ok(())
}
