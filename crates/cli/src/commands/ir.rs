//! `fpforge ir`: print the lowered module in the fpir text form (for bug reports and tests).

use crate::options::IrOptions;
use anyhow::Result;
use std::process::ExitCode;

/// Runs `fpforge ir`.
pub fn run(options: IrOptions) -> Result<ExitCode> {
    let loaded = super::load(&options.program)?;
    crate::output::emit(&fpir::write_module(&loaded.module))?;
    Ok(ExitCode::SUCCESS)
}
