//! `fpforge.toml`, the project file: what `cover`, `explore` and `accuracy` need to test
//! a library, so that the command alone, run in the file's directory, tests it. This
//! module reads it (the front end decides which of its values a command line overrides)
//! and [`init`] writes a first one.
//!
//! ```toml
//! [sources]
//! files = ["src/*.c", "extra/k_rem_pio2.c"]   # files, directories, or * globs in the file name
//! include = ["include"]                       # -I
//! define = ["NDEBUG", "WANT_ROUNDING=1"]      # -D
//! std = "c99"
//! cflags = ["-fno-builtin"]
//! lib_dirs = []                               # --lib-dir
//! compile_commands = "build/compile_commands.json"
//! source_root = "."                           # outputs write paths relative to it
//! allow_undefined = false
//! skip_unsupported = false
//!
//! [select]
//! all = true                                  # --all
//! functions = ["exp*", "log"]                 # -f, repeated
//! skip = ["__*"]                              # --skip, repeated
//!
//! [budget]
//! time_limit = 10.0                           # per function
//! total_time = 600.0
//! jobs = 2
//! evals = 100000                              # cover and accuracy
//! seed = 0
//!
//! [function.frexp]                            # one function's --arg / --out-arg
//! args = ["x in [-1e300, 1e300]"]
//! out_args = ["e: i32[1]"]
//!
//! [[accept]]                                  # a known finding: not a failure (--baseline)
//! fingerprint = "0bf4f1f33700d2da"
//! reason = "lookup documents k in [0, 3]"
//! ```
//!
//! Paths are relative to the file's directory. A flag given on the command line
//! overrides the file's value for that flag (a list flag replaces the file's list); the
//! file's selection (`all` and `functions`) is used only when none of `-f`, `--all` and
//! `--functions` is given; a function's `[function.NAME]` specs are used unless `--arg`
//! or `--out-arg` is given, which then applies to every function. An unknown key is an
//! error naming the key and its line.

pub mod init;

use crate::error::{DriverError, Result};
use crate::plan::Specs;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's name, looked for in the current directory.
pub const PROJECT_FILE: &str = "fpforge.toml";

/// What `fpforge.toml` holds (see the module docs).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    /// Inputs and how to compile them.
    #[serde(default)]
    pub sources: ProjectSources,
    /// Which functions.
    #[serde(default)]
    pub select: Select,
    /// Time, threads, evaluations and seed.
    #[serde(default)]
    pub budget: ProjectBudget,
    /// Per-function input specs.
    #[serde(default)]
    pub function: BTreeMap<String, FunctionEntry>,
    /// Findings known and accepted (`[[accept]]`), as a baseline holds them.
    #[serde(default)]
    pub accept: Vec<Accepted>,
    /// The directory of the file, which its paths are relative to.
    #[serde(skip)]
    pub dir: PathBuf,
}

/// `[[accept]]`: a finding known and accepted, by its fingerprint, and why.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Accepted {
    /// The finding's fingerprint (16 hex digits, as `fpforge baseline` prints it).
    pub fingerprint: String,
    /// Why it is accepted (for the reader).
    #[serde(default)]
    pub reason: String,
}

/// `[sources]`: the inputs and how to compile them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectSources {
    /// Files, directories, or `*` globs in the file name, relative to the file (`--items`).
    #[serde(default)]
    pub files: Vec<String>,
    /// `-I` directories.
    #[serde(default)]
    pub include: Vec<String>,
    /// `-D` macros.
    #[serde(default)]
    pub define: Vec<String>,
    /// The C standard (`--std`).
    pub std: Option<String>,
    /// Other compiler flags.
    #[serde(default)]
    pub cflags: Vec<String>,
    /// Library directories (`--lib-dir`).
    #[serde(default)]
    pub lib_dirs: Vec<PathBuf>,
    /// A compile_commands.json (`--compile-commands`).
    pub compile_commands: Option<PathBuf>,
    /// The directory outputs write source paths relative to (`--source-root`).
    pub source_root: Option<PathBuf>,
    /// Let reached undefined symbols trap instead of refusing the program.
    #[serde(default)]
    pub allow_undefined: bool,
    /// Skip functions that do not lower.
    #[serde(default)]
    pub skip_unsupported: bool,
}

/// `[select]`: which functions.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Select {
    /// Every function with external linkage and a floating-point parameter or result.
    #[serde(default)]
    pub all: bool,
    /// Names and globs (`-f`).
    #[serde(default)]
    pub functions: Vec<String>,
    /// Names and globs to leave out (`--skip`).
    #[serde(default)]
    pub skip: Vec<String>,
}

/// `[budget]`: time, threads, evaluations and seed.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectBudget {
    /// Seconds per function.
    pub time_limit: Option<f64>,
    /// Seconds of the whole run.
    pub total_time: Option<f64>,
    /// Functions run side by side.
    pub jobs: Option<usize>,
    /// Evaluations per function (`cover` and `accuracy`).
    pub evals: Option<u64>,
    /// The seed.
    pub seed: Option<u64>,
}

/// `[function.NAME]`: one function's input specs, as text.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionEntry {
    /// `--arg` specs.
    #[serde(default)]
    pub args: Vec<String>,
    /// `--out-arg` specs.
    #[serde(default)]
    pub out_args: Vec<String>,
}

impl Project {
    /// The project file of the current directory, if it has one.
    pub fn find() -> Result<Option<Project>> {
        let path = std::env::current_dir()
            .map_err(|e| DriverError::io("read", ".", e))?
            .join(PROJECT_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        Project::read(&path).map(Some)
    }

    /// Reads the project file `path`.
    pub fn read(path: &Path) -> Result<Project> {
        let text = std::fs::read_to_string(path).map_err(|e| DriverError::io("read", path, e))?;
        let mut project: Project = toml::from_str(&text)
            .map_err(|e| DriverError::Invalid(format!("{}: {e}", path.display())))?;
        project.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(project)
    }

    /// The `[function.NAME]` specs, read.
    pub fn function_specs(&self) -> Result<BTreeMap<String, Specs>> {
        let mut specs = BTreeMap::new();
        for (name, entry) in &self.function {
            let parse_error = |e: &dyn std::fmt::Display, spec: &str| {
                DriverError::Invalid(format!("{PROJECT_FILE}: [function.{name}]: `{spec}`: {e}"))
            };
            let args = entry
                .args
                .iter()
                .map(|s| s.parse().map_err(|e| parse_error(&e, s)))
                .collect::<Result<_>>()?;
            let out_args = entry
                .out_args
                .iter()
                .map(|s| s.parse().map_err(|e| parse_error(&e, s)))
                .collect::<Result<_>>()?;
            specs.insert(name.clone(), Specs { args, out_args });
        }
        Ok(specs)
    }

    /// `sources.files` with globs expanded, as paths, in order (a glob's matches in name
    /// order).
    pub fn expand_files(&self) -> Result<Vec<String>> {
        let mut files = Vec::new();
        for entry in &self.sources.files {
            let path = self.dir.join(entry);
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !name.contains(['*', '?']) {
                files.push(path.display().to_string());
                continue;
            }
            let parent = path.parent().unwrap_or(Path::new("."));
            let mut matched: Vec<String> = std::fs::read_dir(parent)
                .map_err(|e| DriverError::io("read", parent, e))?
                .filter_map(|e| e.ok())
                .filter(|e| crate::library::glob_matches(&name, &e.file_name().to_string_lossy()))
                .map(|e| e.path().display().to_string())
                .collect();
            if matched.is_empty() {
                return Err(DriverError::Invalid(format!(
                    "{PROJECT_FILE}: files: `{entry}` matches no file"
                )));
            }
            matched.sort();
            files.extend(matched);
        }
        Ok(files)
    }
}

/// The extensions of the C and C++ files `fpforge init` takes as sources.
const SOURCE_EXTENSIONS: [&str; 4] = ["c", "cc", "cpp", "cxx"];

/// Whether `dir` is an fpforge output directory, whose `regression.c` files are not the
/// library's.
fn is_output_dir(dir: &Path) -> bool {
    ["index.json", "coverage.json"]
        .iter()
        .any(|marker| dir.join(marker).is_file())
}

/// The C and C++ files under `dir`, recursively (hidden directories and fpforge's
/// output directories skipped), in path order; an error when there is none.
pub fn find_sources(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        if is_output_dir(&next) {
            continue;
        }
        let read = |e| DriverError::io("read", &next, e);
        let entries = std::fs::read_dir(&next).map_err(read)?;
        for entry in entries {
            let path = entry.map_err(read)?.path();
            let hidden = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if path.is_dir() && !hidden {
                pending.push(path);
            } else if path
                .extension()
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&&*e.to_string_lossy()))
            {
                found.push(path);
            }
        }
    }
    if found.is_empty() {
        return Err(DriverError::Invalid(format!(
            "{}: no C or C++ file in it or below",
            dir.display()
        )));
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Project, String> {
        toml::from_str::<Project>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key_and_line() {
        let err = parse("[sources]\nfiles = [\"a.c\"]\nincludes = [\"inc\"]\n").unwrap_err();
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("unknown field `includes`"), "{err}");
        let err = parse("[budget]\njobs = 2\n[extra]\n").unwrap_err();
        assert!(
            err.contains("unknown field `extra`") && err.contains("line 3"),
            "{err}"
        );
        let err = parse("[function.f]\nargs = []\nspec = 1\n").unwrap_err();
        assert!(
            err.contains("unknown field `spec`") && err.contains("line 3"),
            "{err}"
        );
    }

    #[test]
    fn every_section_reads() {
        let project = parse(
            "[sources]\nfiles = [\"*.c\"]\ndefine = [\"N=1\"]\n[select]\nall = true\nskip = [\"_*\"]\n\
             [budget]\ntime_limit = 2.5\njobs = 2\n[function.f]\nargs = [\"x in [0, 1]\"]\n",
        )
        .unwrap();
        assert_eq!(project.sources.define, ["N=1"]);
        assert!(project.select.all);
        assert_eq!(project.budget.time_limit, Some(2.5));
        assert_eq!(project.budget.jobs, Some(2));
        assert_eq!(project.function["f"].args, ["x in [0, 1]"]);
    }
}
