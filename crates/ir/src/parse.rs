//! Reads the IR text form printed by [`crate::write`] (placeholder until the parser lands).

use crate::module::Module;

/// Malformed IR text, with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a module from IR text.
pub fn parse_module(_text: &str) -> Result<Module, ParseError> {
    Err(ParseError {
        line: 1,
        col: 1,
        message: "the IR text parser is not written yet".into(),
    })
}
