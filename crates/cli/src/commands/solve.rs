//! `fpforge solve`: answer an SMT-LIB 2.6 floating-point script (QF_FP, QF_BVFP, QF_BV).
//!
//! Responses stream to stdout as each command runs; a malformed command stops the script
//! with `FILE:LINE:COL: message` after the earlier responses were printed.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use fpforge_solve::{run_script, Fitness, SolveConfig, SolveError, Strategy};
use std::io::ErrorKind;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Flags of `fpforge solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// SMT-LIB 2.6 script (`-` reads standard input).
    file: PathBuf,
    /// Time limit per `check-sat`, in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    timeout: f64,
    /// Which engine answers: interval propagation (can prove unsat), search engines
    /// (sat only), or all of them interleaved.
    #[arg(long, value_enum, default_value_t = SolverChoice::Portfolio)]
    solver: SolverChoice,
    /// Fitness of the search engines.
    #[arg(long, value_enum, default_value_t = FitnessChoice::Branch)]
    fitness: FitnessChoice,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print propagations, nodes and time per phase after each check-sat.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SolverChoice {
    Interval,
    Avm,
    Es,
    Random,
    Portfolio,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FitnessChoice {
    /// Sum of branch distances in value space (FloPSy).
    Branch,
    /// Distances counted in ulps.
    Ulp,
}

impl SolveArgs {
    fn config(&self) -> Result<SolveConfig> {
        let timeout = Duration::try_from_secs_f64(self.timeout)
            .with_context(|| format!("--timeout {} is not a valid duration", self.timeout))?;
        let strategy = match self.solver {
            SolverChoice::Interval => Strategy::Interval,
            SolverChoice::Avm => Strategy::Avm,
            SolverChoice::Es => Strategy::Es,
            SolverChoice::Random => Strategy::Random,
            SolverChoice::Portfolio => Strategy::Portfolio,
        };
        let fitness = match self.fitness {
            FitnessChoice::Branch => Fitness::BranchDistance,
            FitnessChoice::Ulp => Fitness::Ulp,
        };
        Ok(SolveConfig::default()
            .with_timeout(timeout)
            .with_strategy(strategy)
            .with_fitness(fitness)
            .with_seed(self.seed)
            .with_stats(self.stats))
    }
}

/// Runs `fpforge solve`.
pub fn run(args: SolveArgs) -> Result<ExitCode> {
    let config = args.config()?;
    let text = if args.file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading standard input")?
    } else {
        std::fs::read_to_string(&args.file)
            .with_context(|| format!("{}: cannot read", args.file.display()))?
    };
    let mut stdout = std::io::stdout().lock();
    match run_script(&text, &config, &mut stdout) {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(SolveError::Io(e)) if e.kind() == ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e @ SolveError::Parse { .. }) => Err(anyhow::anyhow!("{}:{e}", args.file.display())),
        Err(e) => Err(e.into()),
    }
}
