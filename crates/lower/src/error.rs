//! The crate's error type.

use std::path::PathBuf;

/// Why loading or lowering failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LowerError {
    /// A tool (clang-14, llvm-link-14, opt-14, f2c) is not installed.
    #[error("`{tool}` not found: run scripts/setup.sh to install the toolchain (clang-14, llvm-link-14, opt-14, f2c)")]
    ToolNotFound {
        /// The program that could not be started.
        tool: String,
    },
    /// The compiler rejected a source file; `stderr` is its diagnostics as printed, but
    /// with control characters and bytes that are not UTF-8 escaped, and cut after its
    /// first lines when long (saying how much was cut).
    #[error("cannot compile {}:\n{stderr}", file.display())]
    Compile {
        /// The source file.
        file: PathBuf,
        /// The compiler's error output, escaped and cut for a terminal.
        stderr: String,
    },
    /// f2c rejected a Fortran source: its message at the Fortran file and line
    /// (`dstep.f:3: f2c: syntax error`).
    #[error("{location}: {message}")]
    Fortran {
        /// `file:line` in the user's Fortran file (or the file alone).
        location: String,
        /// What f2c said.
        message: String,
    },
    /// `llvm-link` or `opt` failed.
    #[error("`{tool}` failed:\n{stderr}")]
    Tool {
        /// The program that failed.
        tool: String,
        /// Its error output, escaped and cut for a terminal (as the compiler's is).
        stderr: String,
    },
    /// An input is neither C, C++, LLVM IR, bitcode nor a directory.
    #[error("{}: not a C/C++ source (.c, .cpp, .cc, .cxx), Fortran 77 source (.f, .F, .for), LLVM IR (.ll) or bitcode (.bc) file", path.display())]
    UnknownInput {
        /// The offending path.
        path: PathBuf,
    },
    /// No input files were given (or the directories given hold none).
    #[error(
        "no input files (directories are searched for .c, .cpp, .cc, .cxx, .f, .F, .for, .ll and .bc files)"
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
        /// What went wrong: LLVM's message, escaped and cut for a terminal (as the
        /// compiler's output is).
        message: String,
    },
    /// The program uses a construct fpir cannot represent where the entry function can
    /// reach it (see [`LoadOptions::skip_unsupported`](crate::LoadOptions::skip_unsupported)
    /// to load anyway, with such functions trapping when called).
    #[error("{location}: unsupported: {what}{}", describe_reached(reached))]
    Unsupported {
        /// The construct, the instruction and the enclosing function or global.
        what: String,
        /// `file:line:col` of the construct (or `<unknown location>`).
        location: String,
        /// The chain of references from the entry function to the function or global
        /// holding the construct, entry first (empty before reachability is known).
        reached: Vec<String>,
    },
    /// The entry function may call functions or use globals that no input defines, or
    /// call functions that were not lowered; every one is listed (see
    /// [`LoadOptions::allow_undefined`](crate::LoadOptions::allow_undefined) to load
    /// anyway, with each trapping when reached).
    #[error("{}", describe_missing(entry, missing, searched))]
    Undefined {
        /// The entry function.
        entry: String,
        /// What it may use and nothing defines, functions first, each sorted by name.
        missing: Vec<Missing>,
        /// What the library search linked and could not index.
        searched: Searched,
    },
    /// Two library files define a symbol the entry function needs (see
    /// [`LoadOptions::lib_dirs`](crate::LoadOptions::lib_dirs)).
    #[error(
        "conflicting definitions of `{symbol}` in the library: {}",
        describe_paths(files)
    )]
    Conflict {
        /// The symbol.
        symbol: String,
        /// The files that define it.
        files: Vec<PathBuf>,
    },
    /// A `compile_commands.json` is not a list of compile commands.
    #[error("{}: not a compile_commands.json: {message}", path.display())]
    CompileCommands {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The inputs define no function of the entry function's name.
    #[error("no function named `{name}` ({})", describe_defined(defined))]
    NoEntry {
        /// The name asked for.
        name: String,
        /// The functions the inputs define, sorted.
        defined: Vec<String>,
    },
    /// Several functions answer to the entry function's name.
    #[error("`{name}` names several functions; name one by its signature: {}", candidates.join(", "))]
    AmbiguousEntry {
        /// The name asked for.
        name: String,
        /// The display names of the functions it names, sorted.
        candidates: Vec<String>,
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

/// Something the entry function may use that the loaded module lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// What kind of symbol it is.
    pub kind: MissingKind,
    /// Its name.
    pub name: String,
    /// `file:line:col` of the use the chain ends with (a call, or the first instruction
    /// using the address), or `<unknown location>`.
    pub used_at: String,
    /// The functions and globals from the entry function to the one that uses it,
    /// entry first.
    pub chain: Vec<String>,
}

/// What a library search did (see
/// [`LoadOptions::lib_dirs`](crate::LoadOptions::lib_dirs)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Searched {
    /// The library files linked in, in the order they were pulled in.
    pub linked: Vec<PathBuf>,
    /// The library files that did not compile (so what they define is unknown), with
    /// the compiler's first error.
    pub unindexed: Vec<(PathBuf, String)>,
}

/// The kinds of [`Missing`] symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MissingKind {
    /// A function no input defines and fpforge does not know (calling it traps).
    Function,
    /// A global variable no input defines (reading or writing it traps).
    Global,
    /// A function whose code was not lowered (calling it traps), with why.
    NotLowered(String),
}

/// ` (reached: a → b → c)` for a chain of more than one name, else nothing.
fn describe_reached(chain: &[String]) -> String {
    if chain.len() < 2 {
        return String::new();
    }
    format!(" (reached: {})", chain.join(" → "))
}

/// The summary line (names by kind), then one line per symbol with its use and chain,
/// then what the library search linked and could not compile.
fn describe_missing(entry: &str, missing: &[Missing], searched: &Searched) -> String {
    let names = |want: fn(&MissingKind) -> bool| {
        missing
            .iter()
            .filter(|m| want(&m.kind))
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let groups = [
        ("functions", names(|k| *k == MissingKind::Function)),
        ("globals", names(|k| *k == MissingKind::Global)),
        (
            "functions not lowered",
            names(|k| matches!(k, MissingKind::NotLowered(_))),
        ),
    ];
    let summary = groups
        .iter()
        .filter(|(_, list)| !list.is_empty())
        .map(|(what, list)| format!("{what} {list}"))
        .collect::<Vec<_>>()
        .join("; ");
    let mut text = format!("`{entry}` may use what no input defines: {summary}");
    for m in missing {
        let (what, verb) = match &m.kind {
            MissingKind::Function => ("function".to_string(), "called"),
            MissingKind::Global => ("global".to_string(), "used"),
            MissingKind::NotLowered(why) => (format!("not lowered: {why}"), "called"),
        };
        text.push_str(&format!(
            "\n  {} ({what}): {verb} at {} in {}",
            m.name,
            m.used_at,
            m.chain.join(" → ")
        ));
    }
    if !searched.linked.is_empty() {
        text.push_str(&format!(
            "\n  linked from the library: {}",
            describe_paths(&searched.linked)
        ));
    }
    if let Some((first, why)) = searched.unindexed.first() {
        text.push_str(&format!(
            "\n  {} library files did not compile, so what they define is unknown (the first: {}: {why})",
            searched.unindexed.len(),
            first.display()
        ));
    }
    text
}

fn describe_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first twenty names of `defined`, or that there are none.
fn describe_defined(defined: &[String]) -> String {
    const SHOWN: usize = 20;
    if defined.is_empty() {
        return "the inputs define no functions".to_string();
    }
    let shown: Vec<&str> = defined.iter().take(SHOWN).map(String::as_str).collect();
    let more = match defined.len().saturating_sub(SHOWN) {
        0 => String::new(),
        rest => format!(" and {rest} more: `fpforge list` shows them all"),
    };
    format!("defined functions: {}{more}", shown.join(", "))
}
