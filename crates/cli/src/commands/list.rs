//! `fpforge list`: every function the inputs define, by the names `-f` takes
//! (`fpforge_report::sites::FunctionList`).

use crate::options::ListOptions;
use anyhow::Result;
use fpforge_report::sites::FunctionList;
use std::process::ExitCode;

/// Runs `fpforge list`.
pub fn run(options: ListOptions) -> Result<ExitCode> {
    // Listing runs nothing: a function that does not lower is listed all the same.
    let load = options
        .program
        .load
        .clone()
        .with_skip_unsupported(true)
        .with_allow_undefined(true);
    let module = fpforge_lower::load(&options.program.paths, &load)?;
    let list = FunctionList::new(&module);
    if options.json {
        crate::output::emit(&list.to_json()?)?;
    } else {
        crate::output::emit(&list.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
