//! Loading a [`Program`]: compile, link and lower its inputs, find the entry function,
//! and refuse (or, with `--allow-undefined`, warn about) calls it may make to functions
//! nothing defines, and add trap guards for the commands that aim at faults.

use crate::options::{Program, TrapTargets};
use anyhow::{bail, Context, Result};
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
        let module = fpforge_lower::load(&self.paths, &self.load)?;
        let func = find_function(&module, &self.function)?;
        let missing = module.unresolved_from(func);
        if !missing.is_empty() && self.allow_undefined {
            eprintln!(
                "warning: `{}` may call undefined functions, which trap if reached: {}",
                self.function,
                missing.join(", ")
            );
        } else if !missing.is_empty() {
            bail!(
                "`{}` calls functions that are neither defined in the inputs nor known math functions: {} (add the files that define them, or pass --allow-undefined to trap when one is reached)",
                self.function,
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
