//! `fpforge`: generate and check test inputs for floating-point C/C++ code.
//!
//! The binary is thin and layered: [`args`] is what clap parses, [`options`] validates it
//! into each command's options (every number, range and duration checked once), and
//! [`commands`] call the driver (`fpforge-driver`) with them and [`render`] what it
//! returns.
//! Errors print as one line naming the cause (and the location when there is one) and
//! exit non-zero.

#![deny(clippy::undocumented_unsafe_blocks)]

mod args;
mod commands;
mod interrupt;
mod library;
mod options;
mod output;
mod progress;
mod project;
mod render;

use args::{Cli, Command};
use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

/// Exit code of a run whose program trapped (out-of-bounds access, fuel exhausted, ...).
pub const EXIT_TRAPPED: u8 = 3;

/// Exit code of a `cover` or `explore` run that found inputs on which the function
/// crashes or hangs (the same code as a trapped `run`: the program faulted).
pub const EXIT_FINDINGS: u8 = EXIT_TRAPPED;

/// Exit code of a `cover` or `explore` run whose feasible coverage is below
/// `--fail-under` (and that found no crash or hang).
pub const EXIT_FAIL_UNDER: u8 = 4;

/// Exit code of a search that Ctrl-C stopped, after it wrote what it found (the shell's
/// code for SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The exit code of a search that ended as `interrupted` says, with `findings` crashes
/// or hangs: an interruption first, then findings.
pub fn search_exit(interrupted: bool, findings: usize) -> ExitCode {
    if interrupted {
        ExitCode::from(EXIT_INTERRUPTED)
    } else if findings > 0 {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    }
}

/// The exit code of a coverage run (of one function or several): 130 when Ctrl-C
/// stopped it, else 3 with `findings`, else 4 when coverage is `below` `--fail-under`.
pub fn coverage_exit(below: bool, interrupted: bool, findings: usize) -> ExitCode {
    if below && !interrupted && findings == 0 {
        ExitCode::from(EXIT_FAIL_UNDER)
    } else {
        search_exit(interrupted, findings)
    }
}

fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(args) => commands::run::run(args.try_into()?),
        Command::List(args) => commands::list::run(args.try_into()?),
        Command::Sites(args) => commands::sites::run(args.try_into()?),
        Command::Ir(args) => commands::ir::run(args.try_into()?),
        Command::Solve(args) => commands::solve::run(args.try_into()?),
        Command::Cover(args) => commands::cover::run(args.try_into()?),
        Command::Reach(args) => commands::reach::run(args.try_into()?),
        Command::Explore(args) => commands::explore::run(args.try_into()?),
        Command::Accuracy(args) => commands::accuracy::run(args.try_into()?),
        Command::Init(args) => commands::init::run(args.try_into()?),
        Command::Merge(args) => commands::merge::run(args.try_into()?),
        Command::Baseline(args) => commands::baseline::run(&args.out),
        Command::Confirm(args) => commands::confirm::run(&args.out),
    }
}

/// The command line and its matches (which say which flags it gave).
fn parse() -> Result<(Command, clap::ArgMatches), clap::Error> {
    let matches = Cli::command().try_get_matches()?;
    let cli = Cli::from_arg_matches(&matches)?;
    Ok((cli.command, matches))
}

/// `command` with what the current directory's `fpforge.toml` gives for the flags the
/// command line lacks.
fn with_project(mut command: Command, matches: &clap::ArgMatches) -> anyhow::Result<Command> {
    if let Some(project) = fpforge_driver::project::Project::find()? {
        project::Applied(&project).apply(&mut command, matches)?;
    }
    Ok(command)
}

fn main() -> ExitCode {
    let (command, matches) = match parse() {
        Ok(parsed) => parsed,
        Err(err) => {
            // Usage errors exit 1 like every other bad input; --help and --version 0.
            let code = if err.use_stderr() { 1 } else { 0 };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    match with_project(command, &matches).and_then(dispatch) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
