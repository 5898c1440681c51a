//! Loading a [`Program`]: compile, link and lower its inputs from the entry function,
//! refusing (or, with `--allow-undefined`, warning about) what it may use that nothing
//! defines.

use crate::options::Program;
use anyhow::{Context, Result};
use fpforge_lower::LowerError;
use fpir::{Func, Module};

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
        let loaded = match fpforge_lower::load_program(&self.paths, &self.load) {
            Ok(loaded) => loaded,
            Err(e @ LowerError::NoEntry { .. }) => {
                return Err(e).context("cannot find the entry function")
            }
            Err(e @ LowerError::Undefined { .. }) => {
                let text = e.to_string();
                let (summary, details) = split_first_line(&text);
                anyhow::bail!(
                    "{summary} (add the files that define them or a --lib-dir holding them, or pass --allow-undefined to trap when one is reached){details}"
                );
            }
            Err(e) => return Err(e.into()),
        };
        if !loaded.library_files.is_empty() {
            let files: Vec<String> = loaded
                .library_files
                .iter()
                .map(|f| f.display().to_string())
                .collect();
            eprintln!("note: linked from the library: {}", files.join(", "));
        }
        if !loaded.missing.is_empty() {
            let names: Vec<&str> = loaded.missing.iter().map(|m| m.name.as_str()).collect();
            eprintln!(
                "warning: `{}` may use functions or globals that nothing defines, which trap if reached: {}",
                self.function,
                names.join(", ")
            );
        }
        let func = loaded
            .entry
            .context("internal error: no entry function after loading one")?;
        Ok(Loaded {
            module: loaded.module,
            func,
        })
    }
}

/// The first line of `text` and the rest (with its leading newline).
fn split_first_line(text: &str) -> (&str, &str) {
    text.find('\n').map_or((text, ""), |i| text.split_at(i))
}
