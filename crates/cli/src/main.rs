//! `fpforge`: generate and check test inputs for floating-point C/C++ code.
//!
//! The binary is thin and layered: [`args`] is what clap parses, [`options`] validates it
//! into each command's options (every number, range and duration checked once), and
//! [`commands`] call the engines and the report layer (`fpforge-report`) with them.
//! Errors print as one line naming the cause (and the location when there is one) and
//! exit non-zero.

mod args;
mod commands;
mod inputs;
mod interrupt;
mod options;
mod output;
mod prover;
mod values;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

/// Exit code of a run whose program trapped (out-of-bounds access, fuel exhausted, ...).
pub const EXIT_TRAPPED: u8 = 3;

/// Exit code of a `cover` or `explore` run that found inputs on which the function
/// crashes or hangs (the same code as a trapped `run`: the program faulted).
pub const EXIT_FINDINGS: u8 = EXIT_TRAPPED;

fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(args) => commands::run::run(args.try_into()?),
        Command::Sites(args) => commands::sites::run(args.try_into()?),
        Command::Ir(args) => commands::ir::run(args.try_into()?),
        Command::Solve(args) => commands::solve::run(args.try_into()?),
        Command::Cover(args) => commands::cover::run(args.try_into()?),
        Command::Reach(args) => commands::reach::run(args.try_into()?),
        Command::Explore(args) => commands::explore::run(args.try_into()?),
        Command::Accuracy(args) => commands::accuracy::run(args.try_into()?),
    }
}

fn main() -> ExitCode {
    match dispatch(Cli::parse().command) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
