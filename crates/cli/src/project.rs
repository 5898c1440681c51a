//! `fpforge.toml` applied to a command line: the flags the command line lacks take the
//! project file's values (the file itself is read by `fpforge_driver::project`). A flag
//! given on the command line overrides the file's value for that flag (a list flag
//! replaces the file's list); the file's selection (`all` and `functions`) is used only
//! when none of `-f`, `--all` and `--functions` is given; a function's `[function.NAME]`
//! specs are used unless `--arg` or `--out-arg` is given, which then applies to every
//! function.

use crate::args::{AccuracyArgs, Command, CoverArgs, ExploreArgs, LibraryArgs, ProgramArgs};
use anyhow::Result;
use clap::parser::ValueSource;
use clap::ArgMatches;
use fpforge_driver::project::Project;
use std::path::Path;

/// What the project file adds to a command line.
pub struct Applied<'a>(pub &'a Project);

impl Applied<'_> {
    /// Fills the flags of `command` that `matches` (its parsed command line) did not
    /// get from the command line. Commands other than `cover`, `explore` and `accuracy`
    /// are left as they are.
    pub fn apply(&self, command: &mut Command, matches: &ArgMatches) -> Result<()> {
        let Some((_, matches)) = matches.subcommand() else {
            return Ok(());
        };
        let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        let budget = &self.0.budget;
        if let Command::Cover(CoverArgs { run, .. }) | Command::Explore(ExploreArgs { run, .. }) =
            command
        {
            run.ci.accepted = self
                .0
                .accept
                .iter()
                .map(|a| a.fingerprint.clone())
                .collect();
        }
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
        let project = self.0;
        let sources = &project.sources;
        let path = |p: &Path| project.dir.join(p);
        if !given("items") {
            *items = project.expand_files()?;
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
        if !given("source_root") {
            program.source_root = sources.source_root.as_deref().map(path);
        }
        program.allow_undefined |= sources.allow_undefined;
        program.skip_unsupported |= sources.skip_unsupported;
        let selects = given("function") || given("all") || given("functions_file");
        if !selects {
            program.function = project.select.functions.clone();
            library.all = project.select.all;
        }
        fill_list(&mut library.skip, &project.select.skip, given("skip"));
        if !given("total_time") && project.budget.total_time.is_some() {
            library.total_time = project.budget.total_time;
        }
        Ok(())
    }

    /// The `[function.NAME]` specs, unless the command line gave specs for all.
    fn apply_specs(&self, library: &mut LibraryArgs, use_file: bool) -> Result<()> {
        if use_file {
            library.function_specs.extend(self.0.function_specs()?);
        }
        Ok(())
    }
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
