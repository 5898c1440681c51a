//! Errors of the explore crate. Unreachable paths, unknown answers and traps of the
//! program under test are results, not errors.

use fpforge_exec::ExecError;
use fpforge_spec::SpecError;
use thiserror::Error;

/// What stops `reach` or `explore` before it can search.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExploreError {
    /// A path spec or branch decision does not parse or names no site.
    #[error("bad path `{text}`: {reason}")]
    PathSyntax {
        /// The text given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The interpreter refused the module or the arguments.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The input spec does not fit the function.
    #[error(transparent)]
    Spec(#[from] SpecError),
}
