//! The program a run works on — input files, how to compile and load them, the function
//! or functions to test — and loading it: compile, link and lower from the entry
//! function, refuse (or, when allowed, note) what it may use that nothing defines, and
//! add trap guards for the runs that aim at faults.

use crate::error::Result;
use crate::note::{Note, Notes};
use fpforge_lower::{LoadOptions, LowerError, Missing};
use fpforge_report::replay::Replay;
use fpir::{Func, Module};
use std::path::{Path, PathBuf};

/// The inputs and how to load them.
#[derive(Debug, Clone)]
pub struct Program {
    /// Input files and directories.
    pub paths: Vec<PathBuf>,
    /// The function, or the functions, to work on.
    pub functions: Functions,
    /// Compiler flags, the entry function (of a run on one) and what may be missing
    /// from what it reaches.
    pub load: LoadOptions,
    /// Whether loading adds trap guards.
    pub trap_targets: TrapTargets,
}

/// Whether a program gets trap guards ([`fpir::guard`]): a branch before every
/// instruction that may trap, whose `trap` side `cover` and `explore` aim at and `reach`
/// and `sites` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrapTargets {
    /// The program as lowered.
    Off,
    /// Guards in every function the entry reaches.
    On,
}

/// Which functions a run works on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Functions {
    /// One function by name: the output directory holds its files directly.
    One(String),
    /// Several: one directory per function and an index ([`crate::library`]).
    Selected(Selection),
}

/// The functions of a run over several.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection {
    /// Every function with external linkage and a floating-point parameter or result.
    pub all: bool,
    /// Names and globs (`exp*`).
    pub patterns: Vec<String>,
    /// Names and globs of functions to leave out.
    pub skip: Vec<String>,
    /// A git revision: only the functions whose definition, or a callee's, changed
    /// since it are kept.
    pub changed_since: Option<String>,
}

impl Functions {
    /// The functions named by `names` (names and globs, `*` and `?`), the lines of a
    /// patterns file (blank lines and `#` comments skipped), `all` and `skip`: one plain
    /// name alone keeps the one-function layout, anything else selects several; `None`
    /// when nothing names a function.
    pub fn select(
        names: &[String],
        patterns_file: Option<&Path>,
        all: bool,
        skip: &[String],
    ) -> Result<Option<Functions>> {
        let mut patterns = names.to_vec();
        if let Some(path) = patterns_file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| crate::DriverError::io("read", path, e))?;
            patterns.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string),
            );
        }
        let listed = all || patterns_file.is_some();
        Ok(match patterns.as_slice() {
            [one] if !listed && !one.contains(['*', '?']) => Some(Functions::One(one.clone())),
            [] if !all => None,
            _ => Some(Functions::Selected(Selection {
                all,
                patterns,
                skip: skip.to_vec(),
                changed_since: None,
            })),
        })
    }

    /// The same selection keeping only the functions changed since `rev` (or calling
    /// one that changed); one function stays one function.
    pub fn changed_since(self, rev: Option<String>) -> Functions {
        match self {
            Functions::Selected(selection) => Functions::Selected(Selection {
                changed_since: rev,
                ..selection
            }),
            one => one,
        }
    }

    /// Every function `all` selects.
    pub fn every() -> Functions {
        Functions::Selected(Selection {
            all: true,
            ..Selection::default()
        })
    }
}

impl Program {
    /// How outputs replay this program's findings and locate its sources.
    pub fn replay(&self) -> Replay {
        Replay::new(&self.paths, &self.load)
    }

    /// The program of `paths` working on `functions`, loaded with `load` (its entry is
    /// set from `functions` when they are one), without trap guards.
    pub fn new(paths: Vec<PathBuf>, functions: Functions, load: LoadOptions) -> Program {
        let load = match &functions {
            Functions::One(entry) => load.with_entry(entry),
            Functions::Selected(_) => load,
        };
        Program {
            paths,
            functions,
            load,
            trap_targets: TrapTargets::Off,
        }
    }

    /// The same program, loaded with or without trap guards.
    pub fn with_trap_targets(self, trap_targets: TrapTargets) -> Program {
        Program {
            trap_targets,
            ..self
        }
    }

    /// The entry function, when the program has one.
    pub fn entry(&self) -> Option<&str> {
        match &self.functions {
            Functions::One(name) => Some(name),
            Functions::Selected(_) => None,
        }
    }

    /// Compiles, links and lowers the inputs from the entry function, telling `notes`
    /// what the library search path linked and what nothing defines.
    pub fn load(&self, notes: Notes<'_>) -> Result<LoadedFunction> {
        let entry = self.entry().ok_or_else(|| {
            crate::DriverError::Invalid("this command takes one function".to_string())
        })?;
        let loaded = fpforge_lower::load_program(&self.paths, &self.load)?;
        if !loaded.library_files.is_empty() {
            notes(Note::LinkedFromLibrary(loaded.library_files.clone()));
        }
        note_missing(notes, entry, &loaded.missing);
        let func = loaded.entry.ok_or_else(|| {
            crate::DriverError::Invalid(
                "internal error: no entry function after loading one".to_string(),
            )
        })?;
        let mut loaded = LoadedFunction {
            module: loaded.module,
            func,
            build: NativeBuild {
                flags: self.load.compiler_flags.clone(),
                sources: loaded.sources,
            },
        };
        if self.trap_targets == TrapTargets::On {
            let reached = loaded.module.reachable_funcs(func);
            add_trap_guards(&mut loaded.module, &reached)?;
        }
        Ok(loaded)
    }
}

/// A module loaded from the inputs, with the entry function resolved.
pub struct LoadedFunction {
    /// The lowered program.
    pub module: Module,
    /// The function the user named.
    pub func: Func,
    /// How it builds natively.
    pub build: NativeBuild,
}

/// How a program builds natively (gcc, for `--confirm` and `--gcov`): the run's
/// compiler flags and the translation units it was compiled from.
#[derive(Debug, Clone, Default)]
pub struct NativeBuild {
    /// The compiler flags of the run (`-I`, `-D`, `-std=`, ...).
    pub flags: Vec<String>,
    /// The C and C++ files compiled into the program, canonical.
    pub sources: Vec<PathBuf>,
}

impl NativeBuild {
    /// The sources in C++ (`cxx`) or C; for a program loaded from bitcode alone, the
    /// files of that language its debug info names (none when it names none).
    pub(crate) fn sources(&self, module: &Module, cxx: bool) -> Vec<PathBuf> {
        let wanted: &[&str] = if cxx { &["cpp", "cc", "cxx"] } else { &["c"] };
        let in_language = |p: &PathBuf| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| wanted.contains(&e))
                && p.is_file()
        };
        if self.sources.is_empty() {
            module
                .files
                .values()
                .map(PathBuf::from)
                .filter(in_language)
                .filter_map(|p| std::fs::canonicalize(p).ok())
                .collect()
        } else {
            self.sources
                .iter()
                .filter(|p| in_language(p))
                .cloned()
                .collect()
        }
    }
}

/// Guards every instruction that may trap in `funcs` ([`fpir::guard`]).
pub(crate) fn add_trap_guards(module: &mut Module, funcs: &[Func]) -> Result<()> {
    fpir::guard::add_trap_guards(module, funcs).map_err(|e| {
        crate::DriverError::Invalid(format!("adding trap guards to the lowered program: {e}"))
    })?;
    Ok(())
}

/// Tells `notes` that `entry` may use the `missing` symbols, when any.
pub(crate) fn note_missing(notes: Notes<'_>, entry: &str, missing: &[Missing]) {
    if missing.is_empty() {
        return;
    }
    notes(Note::MayUseUndefined {
        entry: entry.to_string(),
        names: missing.iter().map(|m| m.name.clone()).collect(),
    });
}

/// The message of a load error; what to do about missing symbols follows their summary.
pub fn load_error_text(e: &LowerError) -> String {
    let text = e.to_string();
    if !matches!(e, LowerError::Undefined { .. }) {
        return text;
    }
    let (summary, details) = text
        .find('\n')
        .map_or((text.as_str(), ""), |i| text.split_at(i));
    format!("{summary} (add the files that define them or a --lib-dir holding them, or pass --allow-undefined to trap when one is reached){details}")
}
