//! `fpforge cover`: generate inputs that take every branch side of a function (the
//! `fpforge-cover` engine), stream them to an output directory, and summarize what was
//! covered and what was not reached.
//!
//! The output directory (`fpforge_report::CoverageOut`) holds `inputs.txt`,
//! `coverage.json`, `coverage.lcov` and `regression.c`, kept current as tests are found.
//! Ctrl-C (SIGINT) asks the search to stop: the files are then completed as for a
//! finished run, with stop reason `interrupted`.
//!
//! `--arg` and `--out-arg` shape the parameters ([`fpforge_exec::spec`]); the `--no-*`
//! flags switch off one improvement over CoverMe each, for measurements.

use crate::inputs::{split_items, ProgramArgs};
use crate::interrupt::interrupt_flag;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use fpforge_cover::{
    cover_with, split_selects, CoverConfig, CoverEvent, Metric, Settlement, SideProver, Space,
};
use fpforge_exec::{ArgSpec, Compilation, InputSpec, OutArgSpec};
use fpforge_explore::reach::{reach_sides, SideAnswer};
use fpforge_explore::session::EngineConfig;
use fpforge_report::{CoverageOut, Ending};
use fpir::{Func, Module, Side};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// `--compile`: when evaluations run as native code.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum CompileArg {
    /// Once the function is hot.
    Hot,
    /// From the first evaluation.
    Eager,
    /// Never: the interpreter alone.
    Off,
}

impl From<CompileArg> for Compilation {
    fn from(arg: CompileArg) -> Self {
        match arg {
            CompileArg::Hot => Compilation::WhenHot,
            CompileArg::Eager => Compilation::Eager,
            CompileArg::Off => Compilation::Off,
        }
    }
}

/// Flags of `fpforge cover`.
#[derive(Args, Debug)]
pub struct CoverArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// Wall-clock budget in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    time_limit: f64,
    /// Seed of the search; the same seed and `--evals` give the same inputs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Number of starting points of the search.
    #[arg(long, value_name = "N", default_value_t = 500)]
    starts: u32,
    /// Evaluation budget; a run that ends by it rather than by the time limit is
    /// reproducible.
    #[arg(long, value_name = "N")]
    evals: Option<u64>,
    /// Also cover the branches of the functions FUNC calls.
    #[arg(long)]
    deep: bool,
    /// Instruction budget of one run of FUNC; a run that exhausts it keeps the coverage
    /// it made before.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    fuel: u64,
    /// A parameter's shape, range or value: `x: f64`, `a: f64[8]`, `a: f64[8] in [-1, 1]`,
    /// `x in [0, 10]`, `n = 4` (NAME is the parameter's name or 1-based position).
    #[arg(long = "arg", value_name = "SPEC")]
    arg_specs: Vec<ArgSpec>,
    /// An output array (zero-filled, not an input): `out` or `out: f64[8]`.
    #[arg(long = "out-arg", value_name = "SPEC")]
    out_args: Vec<OutArgSpec>,
    /// Worker threads; the same --seed, --jobs and --evals give the same inputs.
    #[arg(long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Search in real coordinates only (CoverMe), not also in ordered-bits (ulp) space.
    #[arg(long)]
    no_ulp_space: bool,
    /// Measure branch distances in reals (CoverMe), not in ulps.
    #[arg(long)]
    no_ulp_distance: bool,
    /// No special-value points first and no starts from the program's constants.
    #[arg(long)]
    no_seeding: bool,
    /// No exact ulp-step search after a start converges.
    #[arg(long)]
    no_refine: bool,
    /// No starts aimed at one uncovered side from the closest test.
    #[arg(long)]
    no_targeted: bool,
    /// Rank runs by `r` alone (CoverMe), not first by how deep they get.
    #[arg(long)]
    no_levels: bool,
    /// No extra tests for the `<`, `==`, `>` operand relations of comparisons that the
    /// tests covering the sides do not show.
    #[arg(long)]
    no_boundaries: bool,
    /// When evaluations run as native code rather than in the interpreter (same
    /// results): `hot` once the search has evaluated the function long enough for
    /// compiling to pay off, `eager` from the first evaluation, `off` never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = CompileArg::Hot)]
    compile: CompileArg,
    /// Leave `select`s (conditional expressions clang did not compile to branches) alone
    /// instead of covering both of their sides as branch sites.
    #[arg(long)]
    no_select_sites: bool,
    /// Do not hand the sides the search left open to concolic execution (`reach`),
    /// which finds witnesses the search missed or proves sides infeasible.
    #[arg(long)]
    no_reach: bool,
    /// Seconds `reach` gets for the open sides (default: what is left of the time
    /// limit, at least 1 and at most 3).
    #[arg(long, value_name = "S")]
    reach_time: Option<f64>,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "fpforge-out")]
    out: PathBuf,
}

/// `reach` as cover's prover: one exploration aimed at every open side.
struct ConcolicProver {
    seed: u64,
}

impl SideProver for ConcolicProver {
    fn settle(
        &self,
        module: &Module,
        func: Func,
        spec: &InputSpec,
        sides: &[Side],
        time_limit: Duration,
    ) -> Vec<Settlement> {
        let config = EngineConfig::default()
            .with_time_limit(time_limit)
            .with_seed(self.seed);
        match reach_sides(module, func, spec.clone(), sides, config) {
            Ok(answers) => answers
                .into_iter()
                .map(|answer| match answer {
                    SideAnswer::Covered(bits) => Settlement::Witness(bits),
                    SideAnswer::Infeasible { method } => Settlement::Infeasible(method),
                    SideAnswer::Unknown => Settlement::Unknown,
                })
                .collect(),
            Err(_) => vec![Settlement::Unknown; sides.len()],
        }
    }
}

/// Runs `fpforge cover`.
pub fn run(args: CoverArgs) -> Result<ExitCode> {
    let (paths, rest) = split_items(&args.items)?;
    if let Some(extra) = rest.first() {
        bail!("unexpected argument `{extra}`: `cover` takes input files only");
    }
    let time_limit = Duration::try_from_secs_f64(args.time_limit)
        .ok()
        .filter(|t| !t.is_zero())
        .with_context(|| {
            format!(
                "--time-limit must be a positive number of seconds, not {:?}",
                args.time_limit
            )
        })?;
    let mut loaded = args.program.load(&paths)?;
    if !args.no_select_sites {
        let funcs = if args.deep {
            loaded.module.reachable_funcs(loaded.func)
        } else {
            vec![loaded.func]
        };
        split_selects(&mut loaded.module, &funcs)
            .map_err(|err| anyhow::anyhow!("cannot split selects: {err}"))?;
    }
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let reach_time = args
        .reach_time
        .map(|secs| {
            Duration::try_from_secs_f64(secs)
                .with_context(|| format!("--reach-time must be seconds, not {secs}"))
        })
        .transpose()?;
    let spaces = if args.no_ulp_space {
        vec![Space::Real]
    } else {
        vec![Space::Real, Space::OrderedBits]
    };
    let config = CoverConfig::default()
        .with_seed(args.seed)
        .with_time_limit(Some(time_limit))
        .with_n_start(args.starts)
        .with_max_evals(args.evals)
        .with_deep(args.deep)
        .with_fuel(args.fuel)
        .with_compile(args.compile.into())
        .with_args(args.arg_specs.clone(), args.out_args.clone())
        .with_jobs(args.jobs)
        .with_spaces(spaces)
        .with_metric(if args.no_ulp_distance {
            Metric::Real
        } else {
            Metric::Ulp
        })
        .with_seeding(!args.no_seeding)
        .with_ulp_refine(!args.no_refine)
        .with_targeted(!args.no_targeted)
        .with_levels(!args.no_levels)
        .with_boundaries(!args.no_boundaries)
        .with_interrupt(Some(interrupt_flag()))
        .with_prover(if args.no_reach {
            None
        } else {
            Some(Arc::new(ConcolicProver { seed: args.seed }))
        })
        .with_prover_time(reach_time);
    let (module, func) = (&loaded.module, loaded.func);
    let spec = InputSpec::for_function(module, func, &config.args, &config.out_args)?;
    let mut out = CoverageOut::create(&args.out, "cover", module, func, spec)?;
    let progress = std::io::stderr().is_terminal();
    let report = cover_with(module, func, &config, |event| match event {
        CoverEvent::Started { sides, .. } => out.started(sides),
        CoverEvent::Test {
            index,
            test,
            new_sides,
        } => out.test(*index, &test.coords, new_sides),
        CoverEvent::Progress {
            covered,
            total,
            evals,
            elapsed,
        } => {
            if progress {
                eprint!(
                    "\r\x1b[Kcover: {covered}/{total} sides, {evals} evals, {:.1} s",
                    elapsed.as_secs_f64()
                );
            }
        }
    })?;
    if progress {
        eprint!("\r\x1b[K");
    }
    let summary = out.finish(&report.sides, &Ending::of_cover(&report))?;
    crate::output::emit(&summary)?;
    Ok(ExitCode::SUCCESS)
}
