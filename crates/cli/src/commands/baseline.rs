//! `fpforge baseline OUT`: prints a baseline accepting every finding of an output
//! directory (the driver's `findings`), for a later run's `--baseline`.

use anyhow::Result;
use fpforge_driver::findings::{baseline_text, collect};
use std::path::Path;
use std::process::ExitCode;

/// Runs `fpforge baseline`.
pub fn run(out: &Path) -> Result<ExitCode> {
    let entries = collect(out).map_err(crate::render::error)?;
    crate::output::emit(&baseline_text(&entries))?;
    Ok(ExitCode::SUCCESS)
}
