//! `fpforge cover`: inputs that take every branch side of a function (the `fpforge-cover`
//! engine, with concolic execution as its prover), streamed to an output directory
//! (`inputs.txt`, `coverage.json`, `coverage.lcov`, `regression.c`, `report.html`; the
//! JUnit file with `--junit`); the summary; exit 3 on findings, 4 below `--fail-under`.
//! Ctrl-C (SIGINT) asks the search to stop: the files are then completed as for a
//! finished run, with stop reason `interrupted`, and the exit code is 130. Several
//! functions run through the driver's library runner.

use crate::interrupt::interrupt_flag;
use crate::options::CoverOptions;
use anyhow::Result;
use fpforge_cover::SideProver;
use fpforge_driver::prover::ConcolicProver;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `fpforge cover`.
pub fn run(mut options: CoverOptions) -> Result<ExitCode> {
    let job = &mut options.job;
    let prover = options.reach.then(|| {
        Arc::new(ConcolicProver {
            seed: job.config.seed,
        }) as Arc<dyn SideProver>
    });
    job.config = job.config.clone().with_prover(prover);
    job.base.budget = job
        .base
        .budget
        .clone()
        .with_interrupt(Some(interrupt_flag()));
    let deep = job.config.deep;
    super::coverage(
        &options.program,
        &options.job,
        &options.library,
        &options.run,
        deep,
    )
}
