//! `fpforge cover`: generate inputs that take every branch side of a function (the
//! `fpforge-cover` engine, with concolic execution as its prover), stream them to an
//! output directory (`fpforge_report::CoverageOut`: `inputs.txt`, `coverage.json`,
//! `coverage.lcov`, `regression.c`, `report.html`; the JUnit file with `--junit`), print
//! the summary, and exit 3 on findings, 4 below `--fail-under`. Ctrl-C (SIGINT) asks the
//! search to stop: the files are then completed as for a finished run, with stop reason
//! `interrupted`, and the exit code is 130.

use crate::inputs::read_seeds;
use crate::interrupt::interrupt_flag;
use crate::options::CoverOptions;
use crate::progress::{Progress, Verbosity};
use crate::prover::ConcolicProver;
use anyhow::Result;
use fpforge_cover::{cover_with, CoverEvent, CoverStop, SideProver};
use fpforge_report::{CoverageOut, Ending};
use fpforge_spec::InputSpec;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `fpforge cover`.
pub fn run(options: CoverOptions) -> Result<ExitCode> {
    let loaded = options.program.load()?;
    let prover = options.reach.then(|| {
        Arc::new(ConcolicProver {
            seed: options.config.seed,
        }) as Arc<dyn SideProver>
    });
    let config = options
        .config
        .with_prover(prover)
        .with_interrupt(Some(interrupt_flag()));
    let (module, func) = (&loaded.module, loaded.func);
    let spec = InputSpec::for_function(module, func, &config.args, &config.out_args)?;
    let config = config.with_seeds(read_seeds(options.seeds.as_deref(), &spec)?);
    let mut out = CoverageOut::create(&options.out, "cover", module, func, spec)?
        .with_junit(options.ci.junit.clone())
        .with_test_set(options.tests);
    let progress = Progress::new("cover", options.output.verbosity);
    let report = cover_with(module, func, &config, |event| {
        out.cover_event(event);
        if let CoverEvent::Progress {
            covered,
            total,
            evals,
            ..
        } = event
        {
            progress.say(format!("{covered}/{total} sides, {evals} evaluations"));
        }
    })?;
    progress.finish();
    let finished = out.finish(&report.sides, &Ending::of_cover(&report))?;
    super::print_results(&finished, &options.output, &options.out)?;
    let interrupted = report.stop == CoverStop::Interrupted;
    if options.gcov && !interrupted {
        let flags = &options.program.load.compiler_flags;
        let shown = options.output.verbosity == Verbosity::Normal && !options.output.json;
        crate::gcov::print_figure(module, func, config.deep, flags, &options.out, shown)?;
    }
    Ok(super::coverage_exit_code(
        &finished,
        &options.ci,
        interrupted,
    ))
}
