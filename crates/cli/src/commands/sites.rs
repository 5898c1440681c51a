//! `fpforge sites`: the branch and op sites of a function, with source locations.

use crate::inputs::{split_items, ProgramArgs};
use anyhow::Result;
use clap::Args;
use fpforge_report::sites::SitesReport;
use std::process::ExitCode;

/// Flags of `fpforge sites`.
#[derive(Args, Debug)]
pub struct SitesArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// Include the sites of every function the entry function may call.
    #[arg(long)]
    deep: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `fpforge sites`.
pub fn run(args: SitesArgs) -> Result<ExitCode> {
    let (paths, _) = split_items(&args.items)?;
    let loaded = args.program.load(&paths)?;
    let funcs = if args.deep {
        loaded.module.reachable_funcs(loaded.func)
    } else {
        vec![loaded.func]
    };
    let report = SitesReport::new(&loaded.module, &funcs, &args.program.function);
    if args.json {
        crate::output::emit(&report.to_json()?)?;
    } else {
        crate::output::emit(&report.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
