//! What can stop the driver: one error type, each variant naming its cause and, where
//! there is one, the file or function. Results found before an error stay on disk.

use fpforge_accuracy::AccuracyError;
use fpforge_cover::CoverError;
use fpforge_exec::ExecError;
use fpforge_explore::ExploreError;
use fpforge_lower::LowerError;
use fpforge_report::ReportError;
use fpforge_spec::SpecError;
use std::path::PathBuf;

/// Why the driver could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// The program could not be compiled, linked or lowered.
    #[error(transparent)]
    Load(#[from] LowerError),
    /// An input spec does not fit the function.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The interpreter could not be set up or run.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The coverage engine failed.
    #[error(transparent)]
    Cover(#[from] CoverError),
    /// The concolic engine failed.
    #[error(transparent)]
    Explore(#[from] ExploreError),
    /// The accuracy engine failed.
    #[error(transparent)]
    Accuracy(#[from] AccuracyError),
    /// An output file could not be formatted or written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A file or directory could not be read, written or run.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was done: `read`, `write`, `create`, `run`, ...
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A setting does not make sense; a front end names the setting as its user knows
    /// it (a flag, a key of a file).
    #[error("{setting}: {problem}")]
    Setting {
        /// Which setting.
        setting: Setting,
        /// What is wrong with it.
        problem: String,
    },
    /// A file the user gave, or a value that names itself, does not make sense (the
    /// message says which).
    #[error("{0}")]
    Invalid(String),
    /// A tool the driver runs (gcc, gcov, llvm-nm) is missing or failed.
    #[error("{0}")]
    Tool(String),
}

/// The settings whose errors a front end words in its own terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// Every function with external linkage and a floating-point parameter or result.
    All,
    /// A name or glob of the functions to test.
    Function,
    /// The part of a run's functions to take (`K/N`).
    Shard,
    /// The output directory of a merge.
    MergeOut,
    /// gcc's branch figure of a run's tests.
    Gcov,
    /// The git revision whose changes select the functions.
    ChangedSince,
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Setting::All => "all functions",
            Setting::Function => "function",
            Setting::Shard => "shard",
            Setting::MergeOut => "merge output",
            Setting::Gcov => "gcov",
            Setting::ChangedSince => "changed since",
        })
    }
}

impl DriverError {
    /// An error of `setting`.
    pub fn setting(setting: Setting, problem: impl Into<String>) -> Self {
        DriverError::Setting {
            setting,
            problem: problem.into(),
        }
    }

    /// An I/O error on `path` while doing `action`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        DriverError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// The driver's results.
pub type Result<T, E = DriverError> = std::result::Result<T, E>;
