//! What a run wrote to `stdout` and `stderr` (capped at [`MAX_CAPTURED`] bytes each) and
//! where its `errno` lives: the state of the C library model ([`crate::libc`]), which
//! the run's [`crate::RunEnv`] keeps and empties on reset.

use crate::trap::TrapKind;

/// Bytes of each stream a run keeps; what a run writes beyond is counted, not kept.
pub const MAX_CAPTURED: usize = 1 << 20;

/// A run's standard streams and the address of its `errno`.
#[derive(Clone, Debug, Default)]
pub struct Streams {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    dropped: u64,
    pub(crate) errno_addr: Option<u64>,
    /// The addresses the program's `stdout` and `stderr` globals hold (0 when it
    /// declares neither).
    stdout_file: u64,
    stderr_file: u64,
}

/// What a run wrote and left in `errno`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramOutput {
    /// Bytes written to `stdout` (the first [`MAX_CAPTURED`]).
    pub stdout: Vec<u8>,
    /// Bytes written to `stderr` (the first [`MAX_CAPTURED`]).
    pub stderr: Vec<u8>,
    /// Bytes written beyond the cap, on either stream.
    pub dropped: u64,
    /// `errno` at the end of the run (0 when the program never took its address).
    pub errno: i32,
}

/// One of the two captured streams.
#[derive(Clone, Copy)]
pub(crate) enum Stream {
    /// `stdout`.
    Out,
    /// `stderr`.
    Err,
}

impl Streams {
    /// Streams for a program whose `stdout` and `stderr` globals hold these values.
    pub(crate) fn for_files(stdout: Option<u64>, stderr: Option<u64>) -> Streams {
        Streams {
            stdout_file: stdout.unwrap_or(0),
            stderr_file: stderr.unwrap_or(0),
            ..Streams::default()
        }
    }

    pub(crate) fn clear(&mut self) {
        self.stdout.clear();
        self.stderr.clear();
        self.dropped = 0;
        self.errno_addr = None;
    }

    pub(crate) fn write(&mut self, stream: Stream, bytes: &[u8]) {
        let buf = match stream {
            Stream::Out => &mut self.stdout,
            Stream::Err => &mut self.stderr,
        };
        let room = MAX_CAPTURED.saturating_sub(buf.len()).min(bytes.len());
        buf.extend_from_slice(&bytes[..room]);
        self.dropped += (bytes.len() - room) as u64;
    }

    /// The output, with `errno`'s value read by the caller.
    pub(crate) fn output(&self, errno: i32) -> ProgramOutput {
        ProgramOutput {
            stdout: self.stdout.clone(),
            stderr: self.stderr.clone(),
            dropped: self.dropped,
            errno,
        }
    }

    pub(crate) fn stream(&self, file: u64) -> Result<Stream, TrapKind> {
        if file != 0 && file == self.stdout_file {
            Ok(Stream::Out)
        } else if file != 0 && file == self.stderr_file {
            Ok(Stream::Err)
        } else {
            Err(TrapKind::Unsupported(format!(
                "output to a stream other than stdout and stderr ({file:#x})"
            )))
        }
    }
}
