//! `fpforge.toml`, the project file: what `cover`, `explore` and `accuracy` need to test
//! a library, so that the command alone, run in the file's directory, tests it.
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
//! ```
//!
//! Paths are relative to the file's directory. A flag given on the command line
//! overrides the file's value for that flag (a list flag replaces the file's list); the
//! file's selection (`all` and `functions`) is used only when none of `-f`, `--all` and
//! `--functions` is given; a function's `[function.NAME]` specs are used unless `--arg`
//! or `--out-arg` is given, which then applies to every function. An unknown key is an
//! error naming the key and its line.

use crate::args::{
    AccuracyArgs, Command, CoverArgs, ExploreArgs, FunctionSpecs, LibraryArgs, ProgramArgs,
};
use anyhow::{bail, Context, Result};
use clap::parser::ValueSource;
use clap::ArgMatches;
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
    sources: Sources,
    /// Which functions.
    #[serde(default)]
    select: Select,
    /// Time, threads, evaluations and seed.
    #[serde(default)]
    budget: Budget,
    /// Per-function input specs.
    #[serde(default)]
    function: BTreeMap<String, FunctionEntry>,
    /// The directory of the file, which its paths are relative to.
    #[serde(skip)]
    dir: PathBuf,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sources {
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    define: Vec<String>,
    std: Option<String>,
    #[serde(default)]
    cflags: Vec<String>,
    #[serde(default)]
    lib_dirs: Vec<PathBuf>,
    compile_commands: Option<PathBuf>,
    #[serde(default)]
    allow_undefined: bool,
    #[serde(default)]
    skip_unsupported: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Select {
    #[serde(default)]
    all: bool,
    #[serde(default)]
    functions: Vec<String>,
    #[serde(default)]
    skip: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Budget {
    time_limit: Option<f64>,
    total_time: Option<f64>,
    jobs: Option<usize>,
    evals: Option<u64>,
    seed: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionEntry {
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    out_args: Vec<String>,
}

impl Project {
    /// The project file of the current directory, if it has one.
    pub fn find() -> Result<Option<Project>> {
        let path = std::env::current_dir()
            .context("cannot read the current directory")?
            .join(PROJECT_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        Project::read(&path).map(Some)
    }

    /// Reads the project file `path`.
    pub fn read(path: &Path) -> Result<Project> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut project: Project =
            toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        project.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(project)
    }

    /// Fills the flags of `command` that `matches` (its parsed command line) did not
    /// get from the command line. Commands other than `cover`, `explore` and `accuracy`
    /// are left as they are.
    pub fn apply(&self, command: &mut Command, matches: &ArgMatches) -> Result<()> {
        let Some((_, matches)) = matches.subcommand() else {
            return Ok(());
        };
        let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        let budget = &self.budget;
        match command {
            Command::Cover(CoverArgs {
                items,
                program,
                library,
                time_limit,
                seed,
                evals,
                jobs,
                arg_specs,
                out_args,
                ..
            })
            | Command::Accuracy(AccuracyArgs {
                items,
                program,
                library,
                time_limit,
                seed,
                evals,
                jobs,
                arg_specs,
                out_args,
                ..
            }) => {
                self.apply_program(items, program, library, &given)?;
                fill(time_limit, budget.time_limit, given("time_limit"));
                fill(seed, budget.seed, given("seed"));
                if !given("evals") && budget.evals.is_some() {
                    *evals = budget.evals;
                }
                fill(jobs, budget.jobs, given("jobs"));
                self.apply_specs(library, arg_specs.is_empty() && out_args.is_empty())?;
            }
            Command::Explore(ExploreArgs {
                items,
                program,
                library,
                engine,
                jobs,
                ..
            }) => {
                self.apply_program(items, program, library, &given)?;
                fill(
                    &mut engine.time_limit,
                    budget.time_limit,
                    given("time_limit"),
                );
                fill(&mut engine.seed, budget.seed, given("seed"));
                fill(jobs, budget.jobs, given("jobs"));
                let no_specs = engine.arg_specs.is_empty() && engine.out_args.is_empty();
                self.apply_specs(library, no_specs)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The inputs, compiler flags and selection.
    fn apply_program(
        &self,
        items: &mut Vec<String>,
        program: &mut ProgramArgs,
        library: &mut LibraryArgs,
        given: &dyn Fn(&str) -> bool,
    ) -> Result<()> {
        let sources = &self.sources;
        let path = |p: &Path| self.dir.join(p);
        if !given("items") {
            *items = self.expand_files()?;
        }
        if !given("include") {
            program.include = sources
                .include
                .iter()
                .map(|d| path(Path::new(d)).display().to_string())
                .collect();
        }
        fill_list(&mut program.define, &sources.define, given("define"));
        fill_list(&mut program.cflags, &sources.cflags, given("cflags"));
        if !given("std") && sources.std.is_some() {
            program.std = sources.std.clone();
        }
        if !given("lib_dirs") {
            program.lib_dirs = sources.lib_dirs.iter().map(|d| path(d)).collect();
        }
        if !given("compile_commands") {
            program.compile_commands = sources.compile_commands.as_deref().map(path);
        }
        program.allow_undefined |= sources.allow_undefined;
        program.skip_unsupported |= sources.skip_unsupported;
        let selects = given("function") || given("all") || given("functions_file");
        if !selects {
            program.function = self.select.functions.clone();
            library.all = self.select.all;
        }
        fill_list(&mut library.skip, &self.select.skip, given("skip"));
        if !given("total_time") && self.budget.total_time.is_some() {
            library.total_time = self.budget.total_time;
        }
        Ok(())
    }

    /// The `[function.NAME]` specs, unless the command line gave specs for all.
    fn apply_specs(&self, library: &mut LibraryArgs, use_file: bool) -> Result<()> {
        if !use_file {
            return Ok(());
        }
        for (name, entry) in &self.function {
            let parse_error = |e: &dyn std::fmt::Display, spec: &str| {
                anyhow::anyhow!("{PROJECT_FILE}: [function.{name}]: `{spec}`: {e}")
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
            library
                .function_specs
                .insert(name.clone(), FunctionSpecs { args, out_args });
        }
        Ok(())
    }

    /// `sources.files` with globs expanded, as paths, in order (a glob's matches in name
    /// order).
    fn expand_files(&self) -> Result<Vec<String>> {
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
                .with_context(|| {
                    format!("{PROJECT_FILE}: files: cannot read {}", parent.display())
                })?
                .filter_map(|e| e.ok())
                .filter(|e| crate::glob::glob_matches(&name, &e.file_name().to_string_lossy()))
                .map(|e| e.path().display().to_string())
                .collect();
            if matched.is_empty() {
                bail!("{PROJECT_FILE}: files: `{entry}` matches no file");
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
        let entries =
            std::fs::read_dir(&next).with_context(|| format!("cannot read {}", next.display()))?;
        for entry in entries {
            let path = entry?.path();
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
        bail!("{}: no C or C++ file in it or below", dir.display());
    }
    found.sort();
    Ok(found)
}

/// Sets `flag` to the file's `value` unless the command line gave the flag.
fn fill<T: Copy>(flag: &mut T, value: Option<T>, given: bool) {
    if let (false, Some(value)) = (given, value) {
        *flag = value;
    }
}

/// Sets the list `flag` to the file's `values` unless the command line gave the flag.
fn fill_list(flag: &mut Vec<String>, values: &[String], given: bool) {
    if !given {
        *flag = values.to_vec();
    }
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
