//! Which functions a run over several takes: `all` (every function with external
//! linkage, as `llvm-nm` lists the linked bitcode, and a floating-point parameter or
//! result), names and globs, less the skipped ones; loaded once, with the functions'
//! load problems kept for their rows.

use super::changed::{changed_functions, reaches_changed};
use super::glob::glob_matches;
use super::shard::Shard;
use crate::error::{DriverError, Result, Setting};
use crate::note::{Note, Notes};
use crate::program::{
    add_trap_guards, load_error_text, note_missing, NativeBuild, Program, Selection, TrapTargets,
};
use fpforge_report::index::ShardOf;
use fpir::{Func, Function, Module, Type};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Whether a `-f` pattern selects `function`: a glob matches its plain name, that name
/// without its scopes (`c*` selects `geo::clamp<float>`) or its symbol; a name without
/// wildcards selects every function that answers to it ([`Function::answers_to`]).
fn selects(pattern: &str, function: &Function) -> bool {
    if pattern.contains(['*', '?']) {
        [
            function.plain_name(),
            function.unqualified_name(),
            &function.name,
        ]
        .iter()
        .any(|name| glob_matches(pattern, name))
    } else {
        function.answers_to(pattern)
    }
}

/// Whether a function takes or returns a floating-point value (directly or through a
/// pointer the source types as one), which `--all` asks for.
fn has_float_interface(function: &Function) -> bool {
    let is_float = |ty: &Type| matches!(ty, Type::Float(_));
    function.ret.as_ref().is_some_and(is_float)
        || function.param_types().iter().any(is_float)
        || function.param_pointees.iter().flatten().any(is_float)
}

/// The names of the functions the bitcode defines with external linkage (`llvm-nm`).
fn exported_names(bitcode: &Path) -> Result<BTreeSet<String>> {
    let output = ["llvm-nm-14", "llvm-nm"]
        .iter()
        .find_map(|nm| {
            Command::new(nm)
                .args(["--defined-only", "--extern-only", "--just-symbol-name"])
                .arg(bitcode)
                .output()
                .ok()
        })
        .ok_or_else(|| {
            DriverError::Tool(
                "cannot run llvm-nm-14 to list the functions with external linkage".to_string(),
            )
        })?;
    if !output.status.success() {
        return Err(DriverError::Tool(format!(
            "llvm-nm failed on the linked bitcode: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect())
}

/// A selected function.
pub struct Candidate {
    /// Its display name.
    pub name: String,
    /// Its directory under the output directory (see [`fpforge_report::index::IndexRow::directory`]).
    pub directory: String,
    /// The function.
    pub func: Func,
    /// Instructions in its body, which orders the functions largest first.
    pub size: usize,
    /// Why it cannot be tested, when it cannot.
    pub problem: Option<String>,
}

/// The program loaded once, with the selected functions in name order.
pub struct Library {
    /// The lowered program.
    pub module: Module,
    /// The selected functions, in name order.
    pub candidates: Vec<Candidate>,
    /// How the program builds natively.
    pub build: NativeBuild,
}

impl Library {
    /// Compiles, links and lowers `program`'s inputs, selects the functions, and guards
    /// every function they reach when the program asks for trap targets.
    pub fn load(program: &Program, selection: &Selection, notes: Notes<'_>) -> Result<Library> {
        let loaded =
            fpforge_lower::load_entries(&program.paths, &program.load, |module, bitcode| {
                let exported = if selection.all {
                    exported_names(bitcode)?
                } else {
                    BTreeSet::new()
                };
                let chosen = select(module, selection, &exported)?;
                let chosen = match &selection.changed_since {
                    None => chosen,
                    Some(rev) => {
                        let changed = changed_functions(module, rev, &program.load.source_paths)?;
                        chosen
                            .into_iter()
                            .filter(|&(_, func)| reaches_changed(module, func, &changed))
                            .collect()
                    }
                };
                Ok::<_, DriverError>(chosen.into_keys().collect())
            })?;
        if !loaded.library_files.is_empty() {
            notes(Note::LinkedFromLibrary(loaded.library_files.clone()));
        }
        let mut module = loaded.module;
        let chosen: Vec<(String, Func)> = loaded
            .entries
            .iter()
            .map(|entry| (entry.name.clone(), entry.func))
            .collect();
        let problems: Vec<Option<String>> = loaded
            .entries
            .into_iter()
            .map(|entry| match entry.checked {
                Ok(missing) => {
                    note_missing(notes, &entry.name, &missing);
                    None
                }
                Err(e) => Some(load_error_text(&e)),
            })
            .collect();
        if program.trap_targets == TrapTargets::On {
            let reached: BTreeSet<Func> = chosen
                .iter()
                .map(|(_, func)| func)
                .zip(&problems)
                .filter(|(_, problem)| problem.is_none())
                .flat_map(|(&func, _)| module.reachable_funcs(func))
                .collect();
            let reached: Vec<Func> = reached.into_iter().collect();
            add_trap_guards(&mut module, &reached)?;
        }
        let candidates = chosen
            .into_iter()
            .zip(problems)
            .map(|((name, func), problem)| Candidate {
                size: module.funcs[func]
                    .blocks
                    .values()
                    .map(|b| b.insts.len())
                    .sum(),
                directory: module.funcs[func].name.clone(),
                name,
                func,
                problem,
            })
            .collect();
        let build = NativeBuild {
            flags: program.load.compiler_flags.clone(),
            sources: loaded.sources,
        };
        Ok(Library {
            module,
            candidates,
            build,
        })
    }

    /// Keeps only `shard`'s part of the candidates; returns what the shard's index says
    /// of it.
    pub(super) fn keep_shard(&mut self, shard: Shard, run: &str) -> ShardOf {
        let sizes: Vec<usize> = self.candidates.iter().map(|c| c.size).collect();
        let selected = self.candidates.iter().map(|c| c.name.clone()).collect();
        let mut takes = shard.takes(&sizes).into_iter();
        self.candidates.retain(|_| takes.next().unwrap_or(false));
        ShardOf {
            index: shard.index,
            count: shard.count,
            run: run.to_string(),
            selected,
        }
    }
}

/// The functions `selection` names, by name: `--all`'s, then every `-f` pattern's (a
/// pattern that matches nothing is an error), less those `--skip` matches.
fn select(
    module: &Module,
    selection: &Selection,
    exported: &BTreeSet<String>,
) -> Result<BTreeMap<String, Func>> {
    let mut chosen = BTreeMap::new();
    if selection.all {
        for (func, function) in module.funcs.iter() {
            if exported.contains(&function.name) && has_float_interface(function) {
                chosen.insert(function.display_name().to_string(), func);
            }
        }
        if chosen.is_empty() {
            return Err(DriverError::setting(
                Setting::All,
                "the inputs define no function with external linkage and a floating-point parameter or result",
            ));
        }
    }
    for pattern in &selection.patterns {
        let mut matched = false;
        for (func, function) in module.funcs.iter().filter(|(_, f)| selects(pattern, f)) {
            matched = true;
            chosen.insert(function.display_name().to_string(), func);
        }
        if !matched {
            return Err(DriverError::setting(
                Setting::Function,
                format!("{pattern}: no function of the inputs has that name"),
            ));
        }
    }
    chosen.retain(|_, &mut func| {
        !selection
            .skip
            .iter()
            .any(|skip| selects(skip, &module.funcs[func]))
    });
    Ok(chosen)
}
