//! One module per subcommand: parse its flags, call the libraries, print its report.

use crate::options::CiOptions;
use crate::{EXIT_FAIL_UNDER, EXIT_FINDINGS};
use fpforge_report::Finished;
use std::process::ExitCode;

pub mod accuracy;
pub mod cover;
pub mod explore;
pub mod ir;
pub mod reach;
pub mod run;
pub mod sites;
pub mod solve;

/// The exit code of a finished `cover` or `explore` run: 3 when it found crashes or
/// hangs, else 4 when its feasible coverage is below `--fail-under`, else 0. A shortfall
/// is said on stderr whatever the code, so a CI log shows both.
fn coverage_exit_code(finished: &Finished, ci: &CiOptions) -> ExitCode {
    let below = ci
        .fail_under
        .filter(|&threshold| finished.feasible_percent < threshold);
    if let Some(threshold) = below {
        eprintln!(
            "error: feasible coverage {:.1}% is below --fail-under {threshold}",
            finished.feasible_percent
        );
    }
    if finished.findings > 0 {
        ExitCode::from(EXIT_FINDINGS)
    } else if below.is_some() {
        ExitCode::from(EXIT_FAIL_UNDER)
    } else {
        ExitCode::SUCCESS
    }
}
