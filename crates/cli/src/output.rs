//! Writing reports to standard output: a reader that goes away (`fpforge ... | head`) ends
//! the output quietly instead of failing.

use std::io::{ErrorKind, Write};

/// Writes `text` to stdout; a closed pipe is not an error.
pub fn emit(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
