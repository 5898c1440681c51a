//! `fpforge explore`: generational, coverage-first path exploration of a function (the
//! `fpforge-explore` engine). Writes the same output directory as `cover`
//! (`fpforge_report::CoverageOut`: `inputs.txt`, `coverage.json`, `coverage.lcov`,
//! `regression.c`) and prints the same summary.

use super::reach::EngineArgs;
use crate::inputs::{split_items, ProgramArgs};
use anyhow::{bail, Result};
use clap::Args;
use fpforge_explore::{explore, ExploreConfig, ExploreEvent};
use fpforge_report::{CoverageOut, Ending};
use std::path::PathBuf;
use std::process::ExitCode;

/// Flags of `fpforge explore`.
#[derive(Args, Debug)]
pub struct ExploreArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "fpforge-out")]
    out: PathBuf,
}

/// Runs `fpforge explore`.
pub fn run(args: ExploreArgs) -> Result<ExitCode> {
    let (paths, rest) = split_items(&args.items)?;
    if let Some(extra) = rest.first() {
        bail!("unexpected argument `{extra}`: `explore` takes input files only");
    }
    let loaded = args.program.load(&paths)?;
    let (module, func) = (&loaded.module, loaded.func);
    let spec = args.engine.spec(module, func)?;
    let config = ExploreConfig::default().with_engine(args.engine.config()?);
    let mut out = CoverageOut::create(&args.out, "explore", module, func, spec.clone())?;
    let report = explore(module, func, spec, &config, |event| match event {
        ExploreEvent::Started { sides } => out.started(sides),
        ExploreEvent::Test {
            index,
            input,
            new_sides,
        } => out.test(*index, input, new_sides),
    })?;
    let summary = out.finish(&report.sides, &Ending::of_explore(&report))?;
    crate::output::emit(&summary)?;
    Ok(ExitCode::SUCCESS)
}
