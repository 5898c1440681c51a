//! The crate's error type.

use std::path::PathBuf;

/// Why loading or lowering failed.
#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    /// An LLVM tool (clang-14, llvm-link-14, opt-14) is not installed.
    #[error("`{tool}` not found: run scripts/setup.sh to install the LLVM 14 toolchain (clang-14, llvm-link-14, opt-14)")]
    ToolNotFound {
        /// The program that could not be started.
        tool: String,
    },
    /// The compiler rejected a source file; `stderr` is its diagnostics as printed.
    #[error("cannot compile {}:\n{stderr}", file.display())]
    Compile {
        /// The source file.
        file: PathBuf,
        /// The compiler's error output, unchanged.
        stderr: String,
    },
    /// `llvm-link` or `opt` failed.
    #[error("`{tool}` failed:\n{stderr}")]
    Tool {
        /// The program that failed.
        tool: String,
        /// Its error output, unchanged.
        stderr: String,
    },
    /// An input is neither C, C++, LLVM IR, bitcode nor a directory.
    #[error("{}: not a C/C++ source (.c, .cpp, .cc, .cxx), LLVM IR (.ll) or bitcode (.bc) file", path.display())]
    UnknownInput {
        /// The offending path.
        path: PathBuf,
    },
    /// No input files were given (or the directories given hold none).
    #[error(
        "no input files (directories are searched for .c, .cpp, .cc, .cxx, .ll and .bc files)"
    )]
    NoInputs,
    /// Reading an input or writing a temporary file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The bitcode could not be read.
    #[error("cannot read bitcode {}: {message}", path.display())]
    Parse {
        /// The bitcode file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The program uses a construct fpir cannot represent (see
    /// [`LoadOptions::skip_unsupported`](crate::LoadOptions::skip_unsupported) to load
    /// the other functions anyway).
    #[error("{location}: unsupported: {what}")]
    Unsupported {
        /// The construct, the instruction and the enclosing function.
        what: String,
        /// `file:line:col` of the construct (or `<unknown location>`).
        location: String,
    },
    /// The LLVM module is malformed in a way the LLVM verifier would have caught.
    #[error("{location}: malformed LLVM IR: {what}")]
    Malformed {
        /// What is wrong, naming the function.
        what: String,
        /// `file:line:col` of the construct (or `<unknown location>`).
        location: String,
    },
    /// Lowering hit a bug (a panic in this crate or in the LLVM reader).
    #[error("internal error while lowering {} (please report): {message}", path.display())]
    Internal {
        /// The bitcode being lowered.
        path: PathBuf,
        /// The panic message.
        message: String,
    },
    /// The lowered module broke an fpir invariant: a bug in this crate.
    #[error("internal error: the lowered module does not verify (please report):\n{0}")]
    Verify(String),
}
