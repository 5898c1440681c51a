//! Loading a [`Program`]: compile, link and lower its inputs, find the entry function,
//! and refuse (or, with `--allow-undefined`, warn about) calls it may make to functions
//! nothing defines, and add trap guards for the commands that aim at faults.

use crate::options::{Program, TrapTargets};
use anyhow::{bail, Context, Result};
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::path::Path;

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
        let module = fpforge_lower::load(&self.paths, &self.load)?;
        let func = find_function(&module, entry)?;
        let missing = module.unresolved_from(func);
        if !missing.is_empty() && self.allow_undefined {
            eprintln!(
                "warning: `{entry}` may call undefined functions, which trap if reached: {}",
                missing.join(", ")
            );
        } else if !missing.is_empty() {
            bail!(
                "`{entry}` calls functions that are neither defined in the inputs nor known math functions: {} (add the files that define them, or pass --allow-undefined to trap when one is reached)",
                missing.join(", ")
            );
        }
        let mut loaded = Loaded { module, func };
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

fn find_function(module: &Module, name: &str) -> Result<Func> {
    if let Some(func) = module.func_by_name(name) {
        return Ok(func);
    }
    let mut names: Vec<&str> = module.funcs.values().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    let shown = names
        .iter()
        .take(20)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = if names.len() > 20 { ", ..." } else { "" };
    let available = if names.is_empty() {
        "the inputs define no functions".to_string()
    } else {
        format!("defined functions: {shown}{more}")
    };
    Err(anyhow::anyhow!("no function named `{name}` ({available})"))
        .context("cannot find the entry function")
}

/// The inputs of a `--seeds` file for `spec`: one argument line each (blank lines and
/// `#` comments skipped); a line that does not fit is an error naming `FILE:LINE`.
pub fn read_seeds(path: Option<&Path>, spec: &InputSpec) -> Result<Vec<Vec<u64>>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read --seeds file {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(i, line)| {
            spec.parse_line(line.trim())
                .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}
