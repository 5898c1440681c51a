//! `fpforge solve`: answer an SMT-LIB 2.6 floating-point script (QF_FP, QF_BVFP, QF_BV).
//!
//! Responses stream to stdout as each command runs; a malformed command stops the script
//! with `FILE:LINE:COL: message` after the earlier responses were printed.

use crate::options::SolveOptions;
use anyhow::{Context, Result};
use fpforge_solve::{run_script, SolveError};
use std::io::ErrorKind;
use std::process::ExitCode;

/// Runs `fpforge solve`.
pub fn run(options: SolveOptions) -> Result<ExitCode> {
    let (config, file) = (&options.config, &options.file);
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading standard input")?
    } else {
        std::fs::read_to_string(file).with_context(|| format!("{}: cannot read", file.display()))?
    };
    let mut stdout = std::io::stdout().lock();
    match run_script(&text, config, &mut stdout) {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(SolveError::Io(e)) if e.kind() == ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e @ SolveError::Parse { .. }) => Err(anyhow::anyhow!("{}:{e}", file.display())),
        Err(e) => Err(e.into()),
    }
}
