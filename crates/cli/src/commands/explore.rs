//! `fpforge explore`: generational, coverage-first path exploration of a function (the
//! `fpforge-explore` engine). Writes the same output directory as `cover`
//! (`fpforge_report::CoverageOut`: `inputs.txt`, `coverage.json`, `coverage.lcov`,
//! `regression.c`, `report.html`; the JUnit file with `--junit`), prints the same
//! summary and exits with the same codes. Ctrl-C (SIGINT) stops the exploration: the
//! files are completed with stop reason `interrupted`, and the exit code is 130.

use crate::inputs::read_seeds;
use crate::interrupt::interrupt_flag;
use crate::options::ExploreOptions;
use crate::progress::{Progress, Verbosity};
use anyhow::Result;
use fpforge_explore::{explore, ExploreConfig, ExploreEvent, ExploreStop};
use fpforge_report::{CoverageOut, Ending};
use fpforge_spec::InputSpec;
use std::process::ExitCode;

/// Runs `fpforge explore`.
pub fn run(options: ExploreOptions) -> Result<ExitCode> {
    let loaded = options.program.load()?;
    let (module, func) = (&loaded.module, loaded.func);
    let engine = options.engine;
    let spec = InputSpec::for_function(module, func, &engine.args, &engine.out_args)?;
    let config = ExploreConfig::default()
        .with_engine(engine.config.with_interrupt(Some(interrupt_flag())))
        .with_seeds(read_seeds(options.seeds.as_deref(), &spec)?);
    let mut out = CoverageOut::create(&options.out, "explore", module, func, spec.clone())?
        .with_junit(options.ci.junit.clone())
        .with_test_set(options.tests);
    let progress = Progress::new("explore", options.output.verbosity);
    let (mut tests, mut findings, mut covered) = (0, 0, 0);
    let report = explore(module, func, spec, &config, |event| {
        out.explore_event(event);
        match event {
            ExploreEvent::Test { new_sides, .. } => {
                tests += 1;
                covered += new_sides.len();
            }
            ExploreEvent::Finding { new_sides, .. } => {
                findings += 1;
                covered += new_sides.len();
            }
            ExploreEvent::Started { .. } => {}
        }
        progress.say(format!(
            "{tests} tests, {findings} findings, {covered} sides taken"
        ));
    })?;
    progress.finish();
    let finished = out.finish(&report.sides, &Ending::of_explore(&report))?;
    super::print_results(&finished, &options.output, &options.out)?;
    let interrupted = report.stop == ExploreStop::Interrupted;
    if options.gcov && !interrupted {
        let flags = &options.program.load.compiler_flags;
        let shown = options.output.verbosity == Verbosity::Normal && !options.output.json;
        crate::gcov::print_figure(module, func, false, flags, &options.out, shown)?;
    }
    Ok(super::coverage_exit_code(
        &finished,
        &options.ci,
        interrupted,
    ))
}
