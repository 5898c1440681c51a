//! `fpforge reach`: an input that takes a given path (`--path`) or branch side
//! (`--branch`) of a function, or a proof that none exists (the `fpforge-explore` engine).
//!
//! Prints `reached` with the input (exact texts that `fpforge run` reads back),
//! `infeasible (proved by METHOD)`, or `unknown` with what was tried; `--emit-smt2 FILE`
//! writes the deciding path condition as SMT-LIB for other solvers. Exit code 0 in all
//! three cases (they are answers), 1 on errors.

use crate::inputs::{split_items, ProgramArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use fpforge_exec::{ArgSpec, InputSpec, OutArgSpec};
use fpforge_explore::{
    reach_path, reach_side, CallPolicy, EngineConfig, PathSpec, ReachAnswer, SideAnswer,
};
use fpforge_solve::Strategy;
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Search and solver flags shared by `reach` and `explore`.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Wall-clock budget in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    time_limit: f64,
    /// Limit of each solver query in seconds.
    #[arg(long, value_name = "S", default_value_t = 1.0)]
    query_timeout: f64,
    /// Solver for path conditions: portfolio, interval, avm, es or random.
    #[arg(long, value_name = "NAME", default_value = "portfolio")]
    solver: Strategy,
    /// Seed of the solver and of random restarts.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Concretize every math call instead of using the solver's operators for them.
    #[arg(long)]
    concretize_calls: bool,
    /// A parameter's shape, range or value: `x: f64`, `a: f64[8]`, `a: f64[8] in [-1, 1]`,
    /// `x in [0, 10]`, `n = 4` (NAME is the parameter's name or 1-based position).
    #[arg(long = "arg", value_name = "SPEC")]
    arg_specs: Vec<ArgSpec>,
    /// An output array (zero-filled, not an input): `out` or `out: f64[8]`.
    #[arg(long = "out-arg", value_name = "SPEC")]
    out_args: Vec<OutArgSpec>,
}

fn seconds(flag: &str, s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|t| !t.is_zero())
        .with_context(|| format!("{flag} must be a positive number of seconds, not {s:?}"))
}

impl EngineArgs {
    /// The engine configuration.
    pub fn config(&self) -> Result<EngineConfig> {
        Ok(EngineConfig::default()
            .with_time_limit(seconds("--time-limit", self.time_limit)?)
            .with_query_timeout(seconds("--query-timeout", self.query_timeout)?)
            .with_strategy(self.solver)
            .with_seed(self.seed)
            .with_calls(if self.concretize_calls {
                CallPolicy::Concretize
            } else {
                CallPolicy::Symbolic
            }))
    }

    /// The input spec of `func`.
    pub fn spec(&self, module: &fpir::Module, func: fpir::Func) -> Result<InputSpec> {
        Ok(InputSpec::for_function(
            module,
            func,
            &self.arg_specs,
            &self.out_args,
        )?)
    }
}

/// Flags of `fpforge reach`.
#[derive(Args, Debug)]
pub struct ReachArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// The branch decisions to take, in order: `br3:T br5:F`, `file.c:41:T`,
    /// `(br2:T br4:F)x12`, `br6:case 2`, `br6:default`. Other sites are free.
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with = "branch",
        required_unless_present = "branch"
    )]
    path: Option<String>,
    /// One branch side to reach by any path: `br7:T`, `file.c:41:F`.
    #[arg(long, value_name = "SIDE")]
    branch: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Write the deciding path condition to FILE as SMT-LIB (with --path).
    #[arg(long, value_name = "FILE")]
    emit_smt2: Option<PathBuf>,
    /// Print the answer as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `fpforge reach`.
pub fn run(args: ReachArgs) -> Result<ExitCode> {
    let (paths, rest) = split_items(&args.items)?;
    if let Some(extra) = rest.first() {
        bail!("unexpected argument `{extra}`: `reach` takes input files only");
    }
    let loaded = args.program.load(&paths)?;
    let (module, func) = (&loaded.module, loaded.func);
    let spec = args.engine.spec(module, func)?;
    let config = args.engine.config()?;
    let mut text = String::new();
    let (answer, detail, input) = if let Some(p) = &args.path {
        let path = PathSpec::parse(p, module)?;
        let report = reach_path(
            module,
            func,
            spec.clone(),
            &path,
            config,
            args.emit_smt2.is_some(),
        )?;
        if let Some(file) = &args.emit_smt2 {
            match &report.smt2 {
                Some(smt) => std::fs::write(file, smt)
                    .with_context(|| format!("cannot write {}", file.display()))?,
                None => {
                    let _ = writeln!(
                        text,
                        "no SMT-LIB written: the path condition uses math functions SMT-LIB lacks"
                    );
                }
            }
        }
        let detail = format!(
            "{} runs, {} queries ({} sat, {} unsat, {} unknown), {:.3} s",
            report.runs,
            report.queries.queries,
            report.queries.sat,
            report.queries.unsat,
            report.queries.unknown,
            report.elapsed.as_secs_f64()
        );
        match report.answer {
            ReachAnswer::Reached(input) => ("reached".to_string(), detail, Some(input)),
            ReachAnswer::Infeasible { method, prefix } => (
                format!("infeasible ({method}; the first {prefix} decisions can be taken)"),
                detail,
                None,
            ),
            ReachAnswer::Unknown(tried) => ("unknown".to_string(), tried, None),
        }
    } else {
        let side_text = args.branch.as_deref().unwrap_or_default();
        let side = module.parse_side(side_text)?;
        let start = std::time::Instant::now();
        let answer = reach_side(module, func, spec.clone(), side, config)?;
        let detail = format!("{:.3} s", start.elapsed().as_secs_f64());
        match answer {
            SideAnswer::Covered(input) => ("reached".to_string(), detail, Some(input)),
            SideAnswer::Infeasible { method } => (format!("infeasible ({method})"), detail, None),
            SideAnswer::Unknown => ("unknown".to_string(), detail, None),
        }
    };
    let line = input.as_ref().map(|bits| spec.line(bits));
    if args.json {
        let status = answer.split(' ').next().unwrap_or("unknown");
        let value = json!({
            "function": module.funcs[func].name,
            "status": status,
            "answer": answer,
            "input": line,
            "detail": detail,
        });
        let _ = writeln!(text, "{}", serde_json::to_string_pretty(&value)?);
    } else {
        let _ = writeln!(text, "{answer}");
        if let Some(line) = &line {
            let _ = writeln!(text, "input: {line}");
        }
        let _ = writeln!(text, "{detail}");
    }
    crate::output::emit(&text)?;
    Ok(ExitCode::SUCCESS)
}
