//! Progress on stderr for the commands that search (`cover`, `explore`, `reach`,
//! `accuracy`): one spinner line saying what the run has found so far, redrawn at most
//! every [`REDRAW`]. Hidden when stderr is not a terminal (so logs and pipes get only the
//! results) and with `--quiet`; cleared before the results are printed.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The least time between two redraws.
const REDRAW: Duration = Duration::from_millis(200);

/// Whether a command shows progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Progress on a terminal, the summary on stdout.
    Normal,
    /// `--quiet`: no progress and no summary; files and `--json` output only.
    Quiet,
}

impl Verbosity {
    /// `Quiet` when `quiet` is set.
    pub fn of(quiet: bool) -> Verbosity {
        if quiet {
            Verbosity::Quiet
        } else {
            Verbosity::Normal
        }
    }
}

/// A spinner line on stderr.
pub struct Spinner {
    bar: ProgressBar,
}

impl Spinner {
    /// A spinner for `command`, drawn only on a terminal and when not quiet.
    pub fn new(command: &str, verbosity: Verbosity) -> Spinner {
        let shown = verbosity == Verbosity::Normal && std::io::stderr().is_terminal();
        let target = if shown {
            ProgressDrawTarget::stderr_with_hz(5)
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        let style = ProgressStyle::with_template("{spinner} {prefix}: {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_prefix(command.to_string());
        if shown {
            bar.enable_steady_tick(REDRAW);
        }
        Spinner { bar }
    }

    /// Says what the run has found so far.
    pub fn say(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Clears the line before results are printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
