//! `fpforge confirm OUT`: the crashes and hangs of an earlier run confirmed natively (the
//! driver's `later`), one verdict line per finding. Exit 3 when a finding is confirmed
//! natively (a defect), as a run that finds one exits.

use anyhow::Result;
use fpforge_driver::later::confirm_saved;
use fpforge_driver::native::NativeVerdict;
use std::path::Path;
use std::process::ExitCode;

/// Runs `fpforge confirm`.
pub fn run(out: &Path) -> Result<ExitCode> {
    let confirmed = confirm_saved(out, &crate::render::print_note).map_err(crate::render::error)?;
    let mut text = String::new();
    let mut defects = 0;
    for function in &confirmed {
        if function.checks.is_empty() && function.gone.is_empty() {
            continue;
        }
        text += &format!("{} ({}):\n", function.function, function.dir.display());
        for gone in &function.gone {
            text += &format!("  {gone}\n");
        }
        for line in crate::render::native_checks(&function.checks).lines() {
            text += &format!("  {line}\n");
        }
        defects += function
            .checks
            .iter()
            .filter(|c| matches!(c.verdict, NativeVerdict::Confirmed(_)))
            .count();
    }
    if text.is_empty() {
        text = "no crash or hang to confirm\n".to_string();
    }
    crate::output::emit(&text)?;
    Ok(if defects > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}
