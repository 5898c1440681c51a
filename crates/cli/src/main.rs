//! `fpforge`: generate and check test inputs for floating-point C/C++ code.
//!
//! The binary is thin: it turns flags into validated inputs and configs (`inputs`),
//! calls the library crates, and prints reports (`commands`). Errors print as one line
//! naming the cause (and the location when there is one) and exit non-zero.

mod commands;
mod inputs;
mod interrupt;
mod output;
mod values;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Test-input generation for floating-point C/C++ code.
#[derive(Parser, Debug)]
#[command(name = "fpforge", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a function on given arguments and show its result, branches taken and traps.
    Run(commands::run::RunArgs),
    /// List the branch and floating-point op sites of a function with source locations.
    Sites(commands::sites::SitesArgs),
    /// Print the lowered IR (fpir text form) of the inputs.
    Ir(commands::ir::IrArgs),
    /// Generate inputs that take every branch of a function (CoverMe-style search).
    Cover(commands::cover::CoverArgs),
    /// Decide an SMT-LIB floating-point script: sat (with a checked model), unsat, unknown.
    Solve(commands::solve::SolveArgs),
    /// Find an input taking a path or branch side, or prove none exists (concolic + solver).
    Reach(commands::reach::ReachArgs),
    /// Explore a function's paths generationally: tests, covered and infeasible branch sides.
    Explore(commands::explore::ExploreArgs),
    /// Find the inputs on which a function is least accurate (MPFR reference) and blame ops.
    Accuracy(commands::accuracy::AccuracyArgs),
}

/// Exit code of a run whose program trapped (out-of-bounds access, fuel exhausted, ...).
pub const EXIT_TRAPPED: u8 = 3;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => commands::run::run(args),
        Command::Sites(args) => commands::sites::run(args),
        Command::Ir(args) => commands::ir::run(args),
        Command::Solve(args) => commands::solve::run(args),
        Command::Cover(args) => commands::cover::run(args),
        Command::Reach(args) => commands::reach::run(args),
        Command::Explore(args) => commands::explore::run(args),
        Command::Accuracy(args) => commands::accuracy::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
