//! `fpforge accuracy`: search for the inputs on which a function's result is least
//! accurate (the `fpforge-accuracy` engine), and say which operations are to blame.
//!
//! The output directory (`--out`) holds `inputs.txt` (the worst inputs found so far, worst
//! first, one per line in the form `fpforge run FILE -f FUNC -- <line>` reads back) and
//! `report.json` (the report so far; `finished` says whether the search ended), both
//! replaced atomically as new worst inputs are found. Ctrl-C stops the search and
//! completes the files. `--check-input REPORT` measures the worst input of an earlier
//! `report.json` again at `--precision` bits instead of searching: an independent
//! re-evaluation of a reported error.

use crate::inputs::{split_items, ProgramArgs};
use crate::interrupt::interrupt_flag;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use fpforge_accuracy::{
    accuracy_with, check_input, AccuracyConfig, AccuracyEvent, AccuracyReport, Sampling,
    SiteSelection, Strategy,
};
use fpforge_exec::{ArgSpec, InputSpec, OutArgSpec};
use fpforge_report::accuracy::{
    check_json, check_text, final_json, inputs_text, partial_json, read_worst, strategy_name,
    text_report, top_rows, FindingRow, Progress, RunInfo,
};
use fpforge_report::outdir::INPUTS;
use fpforge_report::OutDir;
use fpir::{Func, Module};
use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How candidates are generated.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum StrategyArg {
    /// FPGen-style search: random phase, then subset rounds (AVM, ES) toward the checks.
    Search,
    /// Pure random sampling (the baseline).
    Random,
}

/// Flags of `fpforge accuracy`.
#[derive(Args, Debug)]
pub struct AccuracyArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// A parameter's shape, range or value: `x: f64`, `a: f64[8] in [-100, 100]`,
    /// `x in [0, 10]`, `n = 8` (NAME is the parameter's name or 1-based position).
    #[arg(long = "arg", value_name = "SPEC")]
    arg_specs: Vec<ArgSpec>,
    /// An output array (zero-filled, not an input) whose elements are measured instead
    /// of the return value: `out` or `out: f64[8]`.
    #[arg(long = "out-arg", value_name = "SPEC")]
    out_args: Vec<OutArgSpec>,
    /// Wall-clock budget in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    time_limit: f64,
    /// Evaluation budget; a run that ends by it is reproducible.
    #[arg(long, value_name = "N")]
    evals: Option<u64>,
    /// Seed of the search.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// MPFR precision of the reference, in bits.
    #[arg(long, value_name = "P", default_value_t = 128)]
    precision: u32,
    /// Precision at which every kept input is measured again (0: no second measurement).
    #[arg(long, value_name = "P", default_value_t = 2200)]
    verify_precision: u32,
    /// How candidates are generated.
    #[arg(long, value_enum, default_value_t = StrategyArg::Search)]
    strategy: StrategyArg,
    /// Additions/subtractions carrying FPGen's checks: `all`, `loops`, or `FILE:LINE`
    /// (comma-separated for several lines).
    #[arg(long, value_name = "SITES", default_value = "all")]
    sites: String,
    /// Checked executions of each site: `uniform:START:STEP` or `log:START`.
    #[arg(long, value_name = "SCHEDULE", default_value = "uniform:0:1")]
    sampling: String,
    /// Number of worst inputs kept.
    #[arg(long, value_name = "K", default_value_t = 10)]
    top_k: usize,
    /// Measure the worst input of this earlier report.json at --precision instead of
    /// searching.
    #[arg(long, value_name = "REPORT")]
    check_input: Option<PathBuf>,
    /// Output directory (inputs.txt, report.json).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the JSON report on stdout instead of the text report.
    #[arg(long)]
    json: bool,
}

fn parse_sites(text: &str) -> Result<SiteSelection> {
    match text {
        "all" => Ok(SiteSelection::All),
        "loops" => Ok(SiteSelection::Loops),
        _ => text
            .split(',')
            .map(|item| {
                let (file, line) = item
                    .rsplit_once(':')
                    .with_context(|| format!("--sites: `{item}` is not all, loops or FILE:LINE"))?;
                let line: u32 = line
                    .trim()
                    .parse()
                    .with_context(|| format!("--sites: bad line number in `{item}`"))?;
                Ok((file.trim().to_string(), line))
            })
            .collect::<Result<Vec<_>>>()
            .map(SiteSelection::Lines),
    }
}

fn parse_sampling(text: &str) -> Result<Sampling> {
    let parts: Vec<&str> = text.split(':').collect();
    let num = |s: &str| -> Result<u64> {
        s.trim()
            .parse()
            .with_context(|| format!("--sampling: `{s}` is not a count"))
    };
    match parts.as_slice() {
        ["uniform", start, step] => Ok(Sampling::Uniform {
            start: num(start)?,
            step: num(step)?.max(1),
        }),
        ["log", start] => Ok(Sampling::Logarithmic { start: num(start)? }),
        _ => bail!("--sampling: expected uniform:START:STEP or log:START, got `{text}`"),
    }
}

impl AccuracyArgs {
    fn config(&self) -> Result<AccuracyConfig> {
        if !(self.time_limit.is_finite() && self.time_limit > 0.0) {
            bail!("--time-limit must be a positive number of seconds");
        }
        if self.precision < 2 {
            bail!("--precision must be at least 2 bits");
        }
        Ok(AccuracyConfig::default()
            .with_seed(self.seed)
            .with_time_limit(Some(Duration::from_secs_f64(self.time_limit)))
            .with_max_evals(self.evals)
            .with_precision(self.precision)
            .with_verify_precision((self.verify_precision > 0).then_some(self.verify_precision))
            .with_strategy(match self.strategy {
                StrategyArg::Search => Strategy::Search,
                StrategyArg::Random => Strategy::Random,
            })
            .with_sites(parse_sites(&self.sites)?)
            .with_sampling(parse_sampling(&self.sampling)?)
            .with_top_k(self.top_k.max(1))
            .with_args(self.arg_specs.clone())
            .with_out_args(self.out_args.clone()))
    }
}

/// `fpforge accuracy`.
pub fn run(args: AccuracyArgs) -> Result<ExitCode> {
    let (paths, extra) = split_items(&args.items)?;
    if !extra.is_empty() {
        bail!(
            "unexpected arguments {:?}: describe inputs with --arg (e.g. --arg 'a: f64[4] in [-100, 100]')",
            extra
        );
    }
    let config = args.config()?;
    let loaded = args.program.load(&paths)?;
    let (module, func) = (&loaded.module, loaded.func);
    // Fail early, with the spec's own message, on specs that do not fit.
    InputSpec::for_function(module, func, &config.args, &config.out_args)?;
    let info = RunInfo {
        function: &module.funcs[func].name,
        strategy: strategy_name(config.strategy),
        precision: config.precision,
        verify_precision: config.verify_precision,
    };
    if let Some(source) = &args.check_input {
        return check(&args, info, &config, module, func, source);
    }
    let mut out = args.out.as_deref().map(OutDir::create).transpose()?;
    let config = config.with_interrupt(Some(interrupt_flag()));
    let report = search(&config, info, module, func, out.as_mut())?;
    let json_text = final_json(info, report.progress, module, &report.report)?;
    if let Some(mut out) = out {
        out.write(INPUTS, &inputs_text(&top_rows(module, &report.report)));
        out.write(REPORT, &json_text);
        out.finish()?;
    }
    if args.json {
        crate::output::emit(&json_text)?;
    } else {
        crate::output::emit(&text_report(info, module, &report.report))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The file of the JSON report in the output directory.
const REPORT: &str = "report.json";

/// Least time between two rewrites of the output files while the search runs.
const WRITE_INTERVAL: Duration = Duration::from_millis(500);

/// A finished search and when its last new worst input came.
struct Searched {
    report: AccuracyReport,
    progress: Progress,
}

/// Runs the search, rewriting `out` with the worst inputs so far at most every
/// [`WRITE_INTERVAL`], and showing progress on a terminal.
fn search(
    config: &AccuracyConfig,
    info: RunInfo<'_>,
    module: &Module,
    func: Func,
    mut out: Option<&mut OutDir>,
) -> Result<Searched> {
    let terminal = std::io::stderr().is_terminal();
    let mut found: Vec<FindingRow> = Vec::new();
    let started = Instant::now();
    let mut progress = Progress::default();
    let (mut dirty, mut last_write) = (false, started);
    let write = |found: &[FindingRow], progress: Progress, out: &mut Option<&mut OutDir>| {
        if let Some(out) = out.as_deref_mut() {
            out.write(INPUTS, &inputs_text(found));
            match partial_json(info, progress, found) {
                Ok(json) => out.write(REPORT, &json),
                Err(e) => out.fail(e),
            }
        }
    };
    let report = accuracy_with(module, func, config, |event| match event {
        AccuracyEvent::Started { .. } => {}
        AccuracyEvent::NewWorst { finding, evals } => {
            progress.worst_found_s = started.elapsed().as_secs_f64();
            progress.worst_found_evals = *evals;
            found.insert(0, FindingRow::new(module, func, finding));
            found.truncate(config.top_k);
            dirty = true;
            if last_write.elapsed() >= WRITE_INTERVAL {
                (last_write, dirty) = (Instant::now(), false);
                progress.evals = *evals;
                progress.elapsed = started.elapsed();
                write(&found, progress, &mut out);
            }
        }
        AccuracyEvent::Progress {
            evals,
            best_rel,
            covered,
            elapsed,
        } => {
            if dirty && last_write.elapsed() >= WRITE_INTERVAL {
                (last_write, dirty) = (Instant::now(), false);
                progress.evals = *evals;
                progress.elapsed = *elapsed;
                write(&found, progress, &mut out);
            }
            if terminal {
                eprint!(
                    "\r\x1b[Kaccuracy: worst relative error {best_rel:.3e}, {evals} inputs, {covered} checks covered, {:.1} s",
                    elapsed.as_secs_f64()
                );
            }
        }
    })?;
    if terminal {
        eprintln!();
    }
    progress.evals = report.evals;
    progress.elapsed = report.elapsed;
    Ok(Searched { report, progress })
}

/// `--check-input`: the worst input of a report, measured at `--precision`.
fn check(
    args: &AccuracyArgs,
    info: RunInfo<'_>,
    config: &AccuracyConfig,
    module: &Module,
    func: Func,
    source: &Path,
) -> Result<ExitCode> {
    let text =
        fs::read_to_string(source).with_context(|| format!("cannot read {}", source.display()))?;
    let worst = read_worst(&text)
        .with_context(|| format!("{} is not an fpforge accuracy report", source.display()))?
        .with_context(|| format!("{} reports no input", source.display()))?;
    let coords = worst
        .coord_bits()
        .map_err(|e| anyhow::anyhow!("{e} in {}", source.display()))?;
    let Some((finding, blame)) = check_input(module, func, config, coords)? else {
        bail!("the input traps or produces no result when run again");
    };
    let now = FindingRow::new(module, func, &finding);
    let info = RunInfo {
        strategy: "check",
        verify_precision: None,
        ..info
    };
    if args.json {
        crate::output::emit(&check_json(info, &now, &blame)?)?;
    } else {
        let shown = source.display().to_string();
        crate::output::emit(&check_text(&shown, config.precision, &now, &worst))?;
    }
    Ok(ExitCode::SUCCESS)
}
