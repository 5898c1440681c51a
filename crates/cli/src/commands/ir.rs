//! `fpforge ir`: print the lowered module in the fpir text form (for bug reports and tests).

use crate::inputs::{split_items, ProgramArgs};
use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

/// Flags of `fpforge ir`.
#[derive(Args, Debug)]
pub struct IrArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
}

/// Runs `fpforge ir`.
pub fn run(args: IrArgs) -> Result<ExitCode> {
    let (paths, _) = split_items(&args.items)?;
    let loaded = args.program.load(&paths)?;
    crate::output::emit(&fpir::write_module(&loaded.module))?;
    Ok(ExitCode::SUCCESS)
}
