//! `fpforge sites`: the branch and op sites of a function, with source locations
//! (`fpforge_report::sites`).

use crate::options::SitesOptions;
use anyhow::Result;
use fpforge_report::sites::SitesReport;
use std::process::ExitCode;

/// Runs `fpforge sites`.
pub fn run(options: SitesOptions) -> Result<ExitCode> {
    let loaded = super::load(&options.program)?;
    let funcs = if options.deep {
        loaded.module.reachable_funcs(loaded.func)
    } else {
        vec![loaded.func]
    };
    let report = SitesReport::new(
        &loaded.module,
        &funcs,
        loaded.module.funcs[loaded.func].display_name(),
    );
    if options.json {
        crate::output::emit(&report.to_json()?)?;
    } else {
        crate::output::emit(&report.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
