//! `fpforge explore`: generational, coverage-first path exploration of a function (the
//! `fpforge-explore` engine). Writes the same output directory as `cover`
//! (`fpforge_report::CoverageOut`: `inputs.txt`, `coverage.json`, `coverage.lcov`,
//! `regression.c`) and prints the same summary.

use crate::options::ExploreOptions;
use crate::EXIT_FINDINGS;
use anyhow::Result;
use fpforge_explore::{explore, ExploreConfig};
use fpforge_report::{CoverageOut, Ending};
use fpforge_spec::InputSpec;
use std::process::ExitCode;

/// Runs `fpforge explore`.
pub fn run(options: ExploreOptions) -> Result<ExitCode> {
    let loaded = options.program.load()?;
    let (module, func) = (&loaded.module, loaded.func);
    let engine = options.engine;
    let spec = InputSpec::for_function(module, func, &engine.args, &engine.out_args)?;
    let config = ExploreConfig::default().with_engine(engine.config);
    let mut out = CoverageOut::create(&options.out, "explore", module, func, spec.clone())?;
    let report = explore(module, func, spec, &config, |event| {
        out.explore_event(event)
    })?;
    let finished = out.finish(&report.sides, &Ending::of_explore(&report))?;
    crate::output::emit(&finished.text)?;
    Ok(if finished.findings > 0 {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}
