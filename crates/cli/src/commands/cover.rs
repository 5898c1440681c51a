//! `fpforge cover`: generate inputs that take every branch side of a function (the
//! `fpforge-cover` engine), stream them to an output directory, and summarize what was
//! covered and what was not reached.
//!
//! The output directory holds `inputs.txt` (one test per line, exact arguments that
//! `fpforge run FILE -f FUNC -- <line>` reads back; appended and flushed as tests are
//! found), `coverage.json` (per site: id, location, each side's status and witness test,
//! its 0-based line in `inputs.txt`), `coverage.lcov` (`BRDA` records) and `regression.c`
//! (a C99 program calling FUNC on every test and printing the results, see
//! [`fpforge_cover::emit_c()`]); these three are rewritten atomically when the search
//! starts and after every new test. Ctrl-C (SIGINT) asks the search to stop: the files
//! are then completed as for a finished run, with stop reason `interrupted`; and since
//! each `inputs.txt` line is written with one `write` call and the other files are
//! replaced by renames, even a killed run leaves a valid directory.
//!
//! `--arg` and `--out-arg` shape the parameters ([`fpforge_exec::spec`]); the `--no-*`
//! flags switch off one improvement over CoverMe each, for measurements.

use crate::inputs::{split_items, ProgramArgs};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use fpforge_cover::report::lcov;
use fpforge_cover::{
    cover_with, emit_c, split_selects, CoverConfig, CoverEvent, CoverReport, Metric, Settlement,
    SideProver, Space,
};
use fpforge_exec::plan::{InputPlan, Test};
use fpforge_exec::{ArgSpec, Compilation, InputSpec, OutArgSpec};
use fpforge_explore::reach::{reach_sides, SideAnswer};
use fpforge_explore::session::EngineConfig;
use fpir::{Func, InfeasibleMethod, MissReason, Module, Side, SideReport, SideStatus};
use serde::Serialize;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
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

#[derive(Serialize)]
struct SideRow {
    side: String,
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<usize>,
    /// Why an uncovered side is uncovered, as far as the search knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct SiteRow {
    id: String,
    /// `select` for a conditional expression that clang compiled to a `select` and
    /// `cover` splits into a branch (not a site of `fpforge sites` or `fpforge run`).
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    location: String,
    sides: Vec<SideRow>,
}

#[derive(Serialize)]
struct CoverageJson<'a> {
    function: &'a str,
    finished: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<String>,
    covered: usize,
    total: usize,
    tests: usize,
    evals: u64,
    /// Seconds spent searching (after compiling and loading), once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    search_seconds: Option<f64>,
    /// Sides proved infeasible, once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    infeasible: Option<usize>,
    sites: Vec<SiteRow>,
}

/// The output directory, kept current while the search runs.
struct OutDir<'m> {
    module: &'m Module,
    func: Func,
    /// Sites numbered from here on are split `select`s.
    first_select: u32,
    dir: PathBuf,
    inputs: File,
    plan: Option<InputPlan>,
    sides: Vec<Side>,
    witness: Vec<Option<usize>>,
    tests: Vec<Test>,
    evals: u64,
    /// The first write error; later writes are skipped and it is reported at the end.
    error: Option<anyhow::Error>,
    progress: bool,
}

impl OutDir<'_> {
    fn on_event(&mut self, event: &CoverEvent<'_>) {
        if self.error.is_some() {
            return;
        }
        let result = match event {
            CoverEvent::Started { sides, plan } => {
                self.plan = Some((*plan).clone());
                self.sides = sides.to_vec();
                self.witness = vec![None; sides.len()];
                self.write_files(None)
            }
            CoverEvent::Test {
                index,
                test,
                new_sides,
            } => {
                for side in *new_sides {
                    if let Some(i) = self.sides.iter().position(|s| s == side) {
                        self.witness[i] = Some(*index);
                    }
                }
                self.tests.truncate(*index);
                self.tests.push((*test).clone());
                self.inputs
                    .write_all(format!("{}\n", test.line()).as_bytes())
                    .and_then(|()| self.inputs.flush())
                    .context("cannot write inputs.txt")
                    .and_then(|()| self.write_files(None))
            }
            CoverEvent::Progress {
                covered,
                total,
                evals,
                elapsed,
            } => {
                self.evals = *evals;
                if self.progress {
                    eprint!(
                        "\r\x1b[Kcover: {covered}/{total} sides, {evals} evals, {:.1} s",
                        elapsed.as_secs_f64()
                    );
                }
                Ok(())
            }
        };
        if let Err(err) = result {
            self.error = Some(err);
        }
    }

    /// Rewrites `coverage.json` and `coverage.lcov` from the state so far (`report` once
    /// the search has ended).
    fn write_files(&self, report: Option<&CoverReport>) -> Result<()> {
        if let Some(plan) = &self.plan {
            if let Ok(c) = emit_c(self.module, self.func, plan, &self.tests) {
                write_atomic(&self.dir.join("regression.c"), &c)?;
            }
        }
        let sides: Vec<SideReport> = match report {
            Some(report) => report.sides.clone(),
            None => self
                .sides
                .iter()
                .zip(&self.witness)
                .map(|(&side, witness)| SideReport {
                    side,
                    status: witness.map_or(
                        SideStatus::NotReached {
                            reason: MissReason::default(),
                        },
                        |test| SideStatus::Covered { test },
                    ),
                })
                .collect(),
        };
        write_atomic(
            &self.dir.join("coverage.lcov"),
            &lcov(self.module, self.func, &sides),
        )?;
        let mut sites: Vec<SiteRow> = Vec::new();
        for side in &sides {
            if sites
                .last()
                .is_none_or(|s| s.id != side.side.site.to_string())
            {
                sites.push(SiteRow {
                    id: side.side.site.to_string(),
                    kind: (side.side.site.0 >= self.first_select).then_some("select"),
                    location: self
                        .module
                        .describe_loc(self.module.branch_sites[side.side.site].loc),
                    sides: Vec::new(),
                });
            }
            let arm = self.module.arm_name(side.side.site, side.side.arm);
            let row = match side.status {
                SideStatus::Covered { test } => SideRow {
                    side: arm,
                    status: side.status.to_string(),
                    test: Some(test),
                    reason: None,
                },
                SideStatus::NotReached { .. } if report.is_none() => SideRow {
                    side: arm,
                    status: "not reached".to_string(),
                    test: None,
                    reason: Some("the search is still running".to_string()),
                },
                SideStatus::NotReached { reason } => SideRow {
                    side: arm,
                    status: side.status.to_string(),
                    test: None,
                    reason: Some(miss_reason(&reason)),
                },
                SideStatus::Infeasible { method } => SideRow {
                    side: arm,
                    status: side.status.to_string(),
                    test: None,
                    reason: Some(infeasible_reason(method).to_string()),
                },
            };
            if let Some(site) = sites.last_mut() {
                site.sides.push(row);
            }
        }
        let json = CoverageJson {
            function: &self.module.funcs[self.func].name,
            finished: report.is_some(),
            stop: report.map(|r| r.stop.to_string()),
            covered: self.witness.iter().filter(|w| w.is_some()).count(),
            total: self.sides.len(),
            tests: self.tests.len(),
            evals: report.map_or(self.evals, |r| r.evals),
            search_seconds: report.map(|r| r.elapsed.as_secs_f64()),
            infeasible: report.map(CoverReport::infeasible),
            sites,
        };
        write_atomic(
            &self.dir.join("coverage.json"),
            &(serde_json::to_string_pretty(&json)? + "\n"),
        )
    }
}

/// The flag SIGINT sets: the handler may only touch an atomic.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn note_interrupt(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Makes Ctrl-C set `flag` (through [`INTERRUPTED`], watched by a thread) instead of
/// killing the process, so the search stops and the output files are completed.
pub(crate) fn on_interrupt(flag: &Arc<AtomicBool>) {
    let handler = note_interrupt as extern "C" fn(libc::c_int);
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
    let flag = Arc::clone(flag);
    std::thread::spawn(move || loop {
        if INTERRUPTED.load(Ordering::Relaxed) {
            flag.store(true, Ordering::Relaxed);
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    });
}

/// Writes `text` to a temporary file beside `path` and renames it over `path`.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text)
        .and_then(|()| fs::rename(&tmp, path))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Why a side was proved never taken, in words.
fn infeasible_reason(method: InfeasibleMethod) -> &'static str {
    match method {
        InfeasibleMethod::ConstantCondition => {
            "the branch condition is a constant that selects another side"
        }
        InfeasibleMethod::DeadCode => {
            "no path from the function's entry reaches this branch (constant branches cut it off)"
        }
        InfeasibleMethod::ImpossibleValue => "the switch value's possible bits rule this side out",
        _ => "concolic execution proved it",
    }
}

/// Why a side was not covered, in words: what [`MissReason`] records.
fn miss_reason(miss: &MissReason) -> String {
    match (miss.branch_reached, miss.closest) {
        (true, Some(fpir::Closest { test, distance: d })) => format!(
            "tests reach this branch but none takes this side; the closest is test {test} \
             (branch distance {d:e}); a search cannot prove it infeasible"
        ),
        (true, None) => "tests reach this branch but none takes this side; \
                         a search cannot prove it infeasible"
            .to_string(),
        (false, _) => "no test reaches this branch".to_string(),
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
    let first_select = loaded.module.branch_sites.len() as u32;
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
    let interrupt = Arc::new(AtomicBool::new(false));
    on_interrupt(&interrupt);
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
        .with_interrupt(Some(interrupt))
        .with_prover(if args.no_reach {
            None
        } else {
            Some(Arc::new(ConcolicProver { seed: args.seed }))
        })
        .with_prover_time(reach_time);
    fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let inputs_path = args.out.join("inputs.txt");
    let inputs = File::create(&inputs_path)
        .with_context(|| format!("cannot create {}", inputs_path.display()))?;
    let mut out = OutDir {
        module: &loaded.module,
        func: loaded.func,
        first_select,
        dir: args.out.clone(),
        inputs,
        plan: None,
        sides: Vec::new(),
        witness: Vec::new(),
        tests: Vec::new(),
        evals: 0,
        error: None,
        progress: std::io::stderr().is_terminal(),
    };
    let report = cover_with(&loaded.module, loaded.func, &config, |event| {
        out.on_event(event)
    })?;
    if out.progress {
        eprint!("\r\x1b[K");
    }
    if let Some(err) = out.error.take() {
        return Err(err);
    }
    out.write_files(Some(&report))?;
    let mut text = summary(&loaded.module, &report, &args.out);
    if let Err(err) = emit_c(&loaded.module, loaded.func, &report.plan, &report.tests) {
        let _ = writeln!(text, "no regression.c: {err}");
    }
    crate::output::emit(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn summary(module: &Module, report: &CoverReport, out: &Path) -> String {
    let mut text = String::new();
    let total = report.sides.len();
    let covered = report.covered();
    let percent = if total == 0 {
        100.0
    } else {
        100.0 * covered as f64 / total as f64
    };
    let name = &module.funcs[report.func].name;
    let infeasible = report.infeasible();
    let proved = if infeasible == 0 {
        String::new()
    } else {
        format!("; {infeasible} proved infeasible")
    };
    let _ = writeln!(
        text,
        "{name}: covered {covered}/{total} branch sides ({percent:.1}%) with {} tests{proved}",
        report.tests.len()
    );
    let _ = writeln!(
        text,
        "{} evaluations, {} starts, {:.2} s; stopped: {}",
        report.evals,
        report.starts,
        report.elapsed.as_secs_f64(),
        report.stop
    );
    let missing: Vec<_> = report
        .sides
        .iter()
        .filter(|s| !matches!(s.status, SideStatus::Covered { .. }))
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(text, "uncovered:");
        let _ = writeln!(
            text,
            "  {:<8} {:<10} {:<40} status",
            "site", "side", "location"
        );
        for s in missing {
            let _ = writeln!(
                text,
                "  {:<8} {:<10} {:<40} {}",
                s.side.site.to_string(),
                module.arm_name(s.side.site, s.side.arm),
                module.describe_loc(module.branch_sites[s.side.site].loc),
                s.status
            );
        }
    }
    let _ = writeln!(
        text,
        "wrote {}/inputs.txt, coverage.json, coverage.lcov, regression.c",
        out.display()
    );
    text
}
