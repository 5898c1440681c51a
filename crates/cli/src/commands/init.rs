//! `fpforge init DIR`: writes a first `DIR/fpforge.toml` for the C and C++ files under
//! `DIR` (`fpforge_driver::project::init`): the sources, the compiler flags given to
//! `init`, every function `--all` selects with its signature, the ones needing a spec
//! marked.

use crate::options::InitOptions;
use crate::render;
use anyhow::{bail, Context, Result};
use fpforge_driver::library::Library;
use fpforge_driver::project::init::project_text;
use fpforge_driver::project::PROJECT_FILE;
use fpforge_driver::Functions;
use std::process::ExitCode;

/// Runs `fpforge init`.
pub fn run(options: InitOptions) -> Result<ExitCode> {
    let path = options.dir.join(PROJECT_FILE);
    if path.exists() && !options.force {
        bail!("{} exists: pass --force to replace it", path.display());
    }
    let Functions::Selected(selection) = &options.program.functions else {
        bail!("internal error: init selects every function");
    };
    let library =
        Library::load(&options.program, selection, &render::print_note).map_err(render::error)?;
    let text = project_text(&options.dir, &options.program, &library);
    std::fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    let marked = text.matches("# NEEDS A SPEC").count();
    crate::output::emit(&format!(
        "wrote {}: {} sources, {} functions, {marked} needing a spec\n",
        path.display(),
        options.program.paths.len(),
        library.candidates.len(),
    ))?;
    Ok(ExitCode::SUCCESS)
}
