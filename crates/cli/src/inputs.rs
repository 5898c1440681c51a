//! Loading a [`Program`]: compile, link and lower its inputs from the entry function,
//! refuse (or, with `--allow-undefined`, warn about) what it may use that nothing
//! defines, and add trap guards for the commands that aim at faults.

use crate::options::{Program, TrapTargets};
use anyhow::{Context, Result};
use fpforge_lower::{LowerError, Missing};
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::path::{Path, PathBuf};

/// A module loaded from the inputs, with the entry function resolved.
pub struct Loaded {
    /// The lowered program.
    pub module: Module,
    /// The function the user named.
    pub func: Func,
}

impl Program {
    /// Compiles, links and lowers the inputs, and finds the entry function.
    pub fn load(&self) -> Result<Loaded> {
        let entry = self.entry()?;
        let loaded = match fpforge_lower::load_program(&self.paths, &self.load) {
            Ok(loaded) => loaded,
            Err(e @ LowerError::NoEntry { .. }) => {
                return Err(e).context("cannot find the entry function")
            }
            Err(e @ LowerError::Undefined { .. }) => anyhow::bail!(load_error_text(e)),
            Err(e) => return Err(e.into()),
        };
        if !loaded.library_files.is_empty() {
            note_library_files(&loaded.library_files);
        }
        warn_missing(entry, &loaded.missing);
        let func = loaded
            .entry
            .context("internal error: no entry function after loading one")?;
        let mut loaded = Loaded {
            module: loaded.module,
            func,
        };
        if self.trap_targets == TrapTargets::On {
            loaded.add_trap_guards()?;
        }
        Ok(loaded)
    }
}

impl Loaded {
    /// Guards every instruction that may trap in the functions the entry reaches
    /// ([`fpir::guard`]).
    fn add_trap_guards(&mut self) -> Result<()> {
        let funcs = self.module.reachable_funcs(self.func);
        fpir::guard::add_trap_guards(&mut self.module, &funcs)
            .context("adding trap guards to the lowered program")?;
        Ok(())
    }
}

/// The message of a load error; what to do about missing symbols follows their summary.
pub fn load_error_text(e: LowerError) -> String {
    if !matches!(e, LowerError::Undefined { .. }) {
        return e.to_string();
    }
    let text = e.to_string();
    let (summary, details) = split_first_line(&text);
    format!("{summary} (add the files that define them or a --lib-dir holding them, or pass --allow-undefined to trap when one is reached){details}")
}

/// Says which library files the search path linked in.
pub fn note_library_files(files: &[PathBuf]) {
    let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    eprintln!("note: linked from the library: {}", files.join(", "));
}

/// Warns that `entry` may use the `missing` symbols (`--allow-undefined`), when any.
pub fn warn_missing(entry: &str, missing: &[Missing]) {
    if missing.is_empty() {
        return;
    }
    let names: Vec<&str> = missing.iter().map(|m| m.name.as_str()).collect();
    eprintln!(
        "warning: `{entry}` may use functions or globals that nothing defines, which trap if reached: {}",
        names.join(", ")
    );
}

/// The first line of `text` and the rest (with its leading newline).
fn split_first_line(text: &str) -> (&str, &str) {
    text.find('\n').map_or((text, ""), |i| text.split_at(i))
}

/// The inputs of a `--seeds` file for `spec`: one argument line each (blank lines and
/// `#` comments skipped); a line that does not fit is an error naming `FILE:LINE`.
pub fn read_seeds(path: Option<&Path>, spec: &InputSpec) -> Result<Vec<Vec<u64>>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read --seeds file {}", path.display()))?;
    parse_seeds(&text, path, spec)
}

/// The argument lines of `text` (read from `origin`, which errors name) as coordinate
/// bits of `spec`; blank lines and `#` comments skipped.
pub fn parse_seeds(text: &str, origin: &Path, spec: &InputSpec) -> Result<Vec<Vec<u64>>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(i, line)| {
            spec.parse_line(line.trim())
                .map_err(|e| anyhow::anyhow!("{}:{}: {e}", origin.display(), i + 1))
        })
        .collect()
}
