//! `fpforge explore`: generational, coverage-first path exploration of a function (the
//! `fpforge-explore` engine). Writes the same output directory as `cover`, prints the
//! same summary and exits with the same codes. Ctrl-C (SIGINT) stops the exploration:
//! the files are completed with stop reason `interrupted`, and the exit code is 130.

use crate::interrupt::interrupt_flag;
use crate::options::ExploreOptions;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `fpforge explore`.
pub fn run(mut options: ExploreOptions) -> Result<ExitCode> {
    let job = &mut options.job;
    job.base.budget = job
        .base
        .budget
        .clone()
        .with_interrupt(Some(interrupt_flag()));
    super::coverage(
        &options.program,
        &options.job,
        &options.library,
        &options.run,
        false,
    )
}
