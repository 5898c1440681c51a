//! Errors of the report layer: files that cannot be written, and programs a format
//! cannot express.

use std::path::PathBuf;
use thiserror::Error;

/// Why a report could not be written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A file or directory could not be created or written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file a report repeats could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A parameter has no C type for `regression.c` (an integer of an odd width, or a
    /// pointer to a pointer).
    #[error("parameter {index} of `{func}` has no C type for regression.c ({ty})")]
    UnsupportedParam {
        /// The function.
        func: String,
        /// 1-based parameter position.
        index: usize,
        /// Its IR type.
        ty: String,
    },
    /// The result has no C type for `regression.c`.
    #[error("the result of `{func}` has no C type for regression.c ({ty})")]
    UnsupportedResult {
        /// The function.
        func: String,
        /// Its IR type.
        ty: String,
    },
    /// A JSON document could not be serialized or read.
    #[error("bad JSON report: {0}")]
    Json(#[from] serde_json::Error),
}
