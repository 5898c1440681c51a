//! What the driver says, worded for a terminal: its notes as `note:` and `warning:`
//! lines, load errors with what to do about them, and progress lines.

use fpforge_accuracy::AccuracyError;
use fpforge_driver::error::Setting;
use fpforge_driver::native::NativeCheck;
use fpforge_driver::run::RunStatus;
use fpforge_driver::{DriverError, Note};
use fpforge_engine::{EngineKind, ErrorFigure, ErrorMetric};
use fpforge_lower::LowerError;
use fpforge_report::accuracy::ulps_text;

/// A note as one stderr line.
pub fn note(note: &Note) -> String {
    let level = if note.is_warning() { "warning" } else { "note" };
    let text = match note {
        Note::LinkedFromLibrary(files) => {
            let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            format!("linked from the library: {}", files.join(", "))
        }
        Note::MayUseUndefined { entry, names } => format!(
            "`{entry}` may use functions or globals that nothing defines, which trap if reached: {}",
            names.join(", ")
        ),
        Note::LengthParameters { function, specs } => {
            let specs: Vec<String> = specs.iter().map(|s| format!("`{s}`")).collect();
            format!(
                "{function}: taken as {} (runs with the length parameter past the array overran it: the caller's contract); set them with --arg",
                specs.join(", ")
            )
        }
        Note::DeclaredLengths { function, specs } => {
            let specs: Vec<String> = specs.iter().map(|s| format!("`{s}`")).collect();
            format!(
                "{function}: taken as {} (the declaration dimensions each array by the parameter); set them with --arg",
                specs.join(", ")
            )
        }
        Note::PointersFitted { function, specs } => {
            let specs: Vec<String> = specs.iter().map(|s| format!("`{s}`")).collect();
            format!(
                "{function}: pointer parameters taken as {} (nearly every run with one element went out of bounds); set them with --arg",
                specs.join(", ")
            )
        }
        Note::EveryRunTraps(line) => line.clone(),
        Note::SavedTestsDropped { reason } => format!(
            "the saved tests do not fit the function's inputs any more, so its search starts afresh: {reason}"
        ),
        other => format!("{other:?}"),
    };
    format!("{level}: {text}")
}

/// Prints a note on stderr.
pub fn print_note(note: Note) {
    eprintln!("{}", self::note(&note));
}

/// A driver error as the one-line message a user reads: a function not found says so,
/// missing symbols say what to do about them.
pub fn error(e: DriverError) -> anyhow::Error {
    match e {
        DriverError::Load(e @ LowerError::NoEntry { .. }) => {
            anyhow::Error::new(e).context("cannot find the entry function")
        }
        DriverError::Load(e @ LowerError::Undefined { .. }) => {
            anyhow::anyhow!(fpforge_driver::program::load_error_text(&e))
        }
        DriverError::Setting { setting, problem } => anyhow::anyhow!(match setting {
            Setting::All => format!("--all: {problem}"),
            Setting::Function => format!("-f {problem}"),
            Setting::Shard => format!("--shard {problem}"),
            Setting::MergeOut => format!("--out {problem}"),
            Setting::Gcov => format!("--gcov: {problem}"),
            Setting::ChangedSince => format!("--changed-since: {problem}"),
            other => format!("{other}: {problem}"),
        }),
        DriverError::Accuracy(AccuracyError::NothingToMeasure(function)) => anyhow::anyhow!(
            "`{function}` returns no floating-point value and has no floating-point output array: name one with --out-arg"
        ),
        other => other.into(),
    }
}

/// The progress line of one function's run.
pub fn status(kind: EngineKind, status: &RunStatus) -> String {
    match kind {
        EngineKind::Explore => format!(
            "{} tests, {} findings, {} sides taken",
            status.tests, status.findings, status.settled
        ),
        EngineKind::Accuracy => {
            let worst = match status.worst_error {
                Some(ErrorFigure {
                    value,
                    metric: ErrorMetric::Ulps,
                }) => format!("{} ulps", ulps_text(value)),
                Some(ErrorFigure {
                    value,
                    metric: ErrorMetric::Relative,
                }) => format!("relative error {value:.3e}"),
                None => format!("relative error {:.3e}", 0.0),
            };
            format!(
                "worst {worst}, {} inputs, {} checks covered",
                status.evals, status.settled
            )
        }
        _ => format!(
            "{}/{} sides, {} evaluations",
            status.settled, status.total, status.evals
        ),
    }
}

/// One line per native check of `--confirm`: the finding, the verdict, its report.
pub fn native_checks(checks: &[NativeCheck]) -> String {
    checks
        .iter()
        .map(|check| {
            let report = check.dir.join("report.md");
            format!(
                "{}: {} ({})\n",
                check.finding,
                check.words(),
                report.display()
            )
        })
        .collect()
}
