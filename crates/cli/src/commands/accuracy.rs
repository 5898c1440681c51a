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

use crate::commands::cover::{on_interrupt, write_atomic};
use crate::inputs::{split_items, ProgramArgs};
use crate::values::show;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use fpforge_accuracy::{
    accuracy_with, check_input, AccuracyConfig, AccuracyEvent, AccuracyReport, Blame, Finding,
    OutputLoc, Sampling, SiteSelection, Strategy,
};
use fpforge_exec::{ArgSpec, InputSpec, OutArgSpec};
use fpir::{Func, Module, Type};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::fs;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
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

/// One measured input in the JSON report.
#[derive(Serialize, Deserialize)]
struct FindingJson {
    /// The input as `fpforge run` reads it.
    input: String,
    /// Raw bits of each input coordinate (hex), what `--check-input` reads.
    coords: Vec<String>,
    /// `return` or `PARAM[INDEX]`.
    output: String,
    computed: String,
    computed_decimal: String,
    reference: String,
    /// Relative error (`null` when infinite).
    rel_error: Option<f64>,
    ulp_error: Option<f64>,
    bits_lost: Option<f64>,
    /// Whether the reference run took other branches than the computed run.
    #[serde(default)]
    diverged: bool,
}

#[derive(Serialize)]
struct BlameJson {
    site: String,
    location: String,
    op: String,
    execs: u64,
    introduced_bits: f64,
    result_bits: f64,
    cancellations: u64,
    precision_losses: u64,
}

#[derive(Serialize)]
struct DivergenceJson {
    site: String,
    location: String,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    function: &'a str,
    finished: bool,
    strategy: &'static str,
    precision: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    verify_precision: Option<u32>,
    evals: u64,
    elapsed_s: f64,
    /// When the last new worst input was found (seconds, inputs tried).
    worst_found_s: f64,
    worst_found_evals: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<String>,
    /// The input with the largest finite relative error.
    worst: Option<&'a FindingJson>,
    top: &'a [FindingJson],
    /// An input whose result is NaN or infinite while the reference is finite (or the
    /// other way round), apart from the finite errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    non_finite: Option<FindingJson>,
    /// The worst input whose reference run took the same branches (pure rounding error).
    #[serde(skip_serializing_if = "Option::is_none")]
    worst_same_path: Option<FindingJson>,
    targets_total: usize,
    targets_covered: usize,
    blame: Vec<BlameJson>,
    divergences: Vec<DivergenceJson>,
}

/// Only the part of a report `--check-input` needs.
#[derive(Deserialize)]
struct CheckSource {
    worst: Option<FindingJson>,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn finding_json(module: &Module, func: Func, f: &Finding) -> FindingJson {
    let shown = show(Type::Float(f.ty), f.computed);
    FindingJson {
        input: f.test.line().to_string(),
        coords: f.test.coords.iter().map(|b| format!("{b:#x}")).collect(),
        output: output_name(module, func, f.output),
        computed: shown.exact,
        computed_decimal: shown.decimal,
        reference: f.reference.to_string(),
        rel_error: finite(f.error.rel),
        ulp_error: finite(f.error.ulps),
        bits_lost: finite(f.error.bits_lost),
        diverged: f.diverged,
    }
}

fn output_name(module: &Module, func: Func, loc: OutputLoc) -> String {
    match loc {
        OutputLoc::Return => "return".to_string(),
        OutputLoc::Element { param, index } => {
            let f = &module.funcs[func];
            let name = f
                .param_names
                .get(param)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("{}", param + 1));
            format!("{name}[{index}]")
        }
    }
}

fn blame_json(blame: &Blame) -> (Vec<BlameJson>, Vec<DivergenceJson>) {
    let rows = blame
        .rows
        .iter()
        .map(|r| BlameJson {
            site: r.site.to_string(),
            location: r.location.clone(),
            op: r.op.clone(),
            execs: r.execs,
            introduced_bits: r.introduced_bits,
            result_bits: r.result_bits,
            cancellations: r.cancellations,
            precision_losses: r.precision_losses,
        })
        .collect();
    let divergences = blame
        .divergences
        .iter()
        .map(|(site, location)| DivergenceJson {
            site: site.to_string(),
            location: location.clone(),
        })
        .collect();
    (rows, divergences)
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

/// The output directory, kept current while the search runs.
struct OutDir {
    dir: PathBuf,
    error: Option<anyhow::Error>,
}

impl OutDir {
    fn write(&mut self, inputs: &str, report: &str) {
        if self.error.is_some() {
            return;
        }
        let result = write_atomic(&self.dir.join("inputs.txt"), inputs)
            .and_then(|()| write_atomic(&self.dir.join("report.json"), report));
        if let Err(e) = result {
            self.error = Some(e);
        }
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
    let mut config = args.config()?;
    let loaded = args.program.load(&paths)?;
    let (module, func) = (&loaded.module, loaded.func);
    let name = module.funcs[func].name.clone();
    // Fail early, with the spec's own message, on specs that do not fit.
    InputSpec::for_function(module, func, &config.args, &config.out_args)?;

    if let Some(source) = &args.check_input {
        return check(&args, &config, module, func, source);
    }

    let mut out = match &args.out {
        Some(dir) => {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            Some(OutDir {
                dir: dir.clone(),
                error: None,
            })
        }
        None => None,
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    on_interrupt(&interrupt);
    config = config.with_interrupt(Some(Arc::clone(&interrupt)));
    let progress = std::io::stderr().is_terminal();
    let mut found: Vec<FindingJson> = Vec::new();
    let strategy = strategy_name(config.strategy);
    let started = Instant::now();
    let mut worst_found = (0.0f64, 0u64);
    let (mut dirty, mut last_write) = (false, started);
    let partial = |found: &[FindingJson], evals: u64, worst_found: (f64, u64)| {
        let json = ReportJson {
            function: &name,
            finished: false,
            strategy,
            precision: config.precision,
            verify_precision: config.verify_precision,
            evals,
            elapsed_s: started.elapsed().as_secs_f64(),
            worst_found_s: worst_found.0,
            worst_found_evals: worst_found.1,
            stop: None,
            worst: found.first(),
            top: found,
            non_finite: None,
            worst_same_path: None,
            targets_total: 0,
            targets_covered: 0,
            blame: Vec::new(),
            divergences: Vec::new(),
        };
        let report = serde_json::to_string_pretty(&json).map(|t| t + "\n");
        (inputs_text(found), report.unwrap_or_default())
    };
    let report = accuracy_with(module, func, &config, |event| match event {
        AccuracyEvent::Started { .. } => {}
        AccuracyEvent::NewWorst { finding, evals } => {
            worst_found = (started.elapsed().as_secs_f64(), *evals);
            found.insert(0, finding_json(module, func, finding));
            found.truncate(config.top_k);
            dirty = true;
            if last_write.elapsed() >= WRITE_INTERVAL {
                last_write = Instant::now();
                dirty = false;
                write_partial(out.as_mut(), &partial(&found, *evals, worst_found));
            }
        }
        AccuracyEvent::Progress {
            evals,
            best_rel,
            covered,
            elapsed,
        } => {
            if dirty && last_write.elapsed() >= WRITE_INTERVAL {
                last_write = Instant::now();
                dirty = false;
                write_partial(out.as_mut(), &partial(&found, *evals, worst_found));
            }
            if progress {
                eprint!(
                    "\r\x1b[Kaccuracy: worst relative error {best_rel:.3e}, {evals} inputs, {covered} checks covered, {:.1} s",
                    elapsed.as_secs_f64()
                );
            }
        }
    })?;
    if progress {
        eprintln!();
    }
    let top: Vec<FindingJson> = report
        .top
        .iter()
        .map(|f| finding_json(module, func, f))
        .collect();
    let (blame, divergences) = blame_json(&report.blame);
    let json = ReportJson {
        function: &name,
        finished: true,
        strategy,
        precision: config.precision,
        verify_precision: config.verify_precision,
        evals: report.evals,
        elapsed_s: report.elapsed.as_secs_f64(),
        worst_found_s: worst_found.0,
        worst_found_evals: worst_found.1,
        stop: Some(report.stop.to_string()),
        worst: top.first(),
        top: &top,
        non_finite: report
            .non_finite
            .as_ref()
            .map(|f| finding_json(module, func, f)),
        worst_same_path: report
            .worst_same_path
            .as_ref()
            .map(|f| finding_json(module, func, f)),
        targets_total: report.targets.len(),
        targets_covered: report.targets.iter().filter(|t| t.covered()).count(),
        blame,
        divergences,
    };
    let json_text = serde_json::to_string_pretty(&json)? + "\n";
    if let Some(out) = out.as_mut() {
        out.write(&inputs_text(&top), &json_text);
        if let Some(err) = out.error.take() {
            return Err(err);
        }
    }
    if args.json {
        crate::output::emit(&json_text)?;
    } else {
        crate::output::emit(&text_report(module, &name, &config, &report))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Least time between two rewrites of the output files while the search runs.
const WRITE_INTERVAL: Duration = Duration::from_millis(500);

fn write_partial(out: Option<&mut OutDir>, (inputs, report): &(String, String)) {
    if let Some(out) = out {
        out.write(inputs, report);
    }
}

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Search => "search",
        Strategy::Random => "random",
    }
}

fn inputs_text(found: &[FindingJson]) -> String {
    found.iter().map(|f| format!("{}\n", f.input)).collect()
}

/// `--check-input`: the worst input of a report, measured at `--precision`.
fn check(
    args: &AccuracyArgs,
    config: &AccuracyConfig,
    module: &Module,
    func: Func,
    source: &PathBuf,
) -> Result<ExitCode> {
    let text =
        fs::read_to_string(source).with_context(|| format!("cannot read {}", source.display()))?;
    let parsed: CheckSource = serde_json::from_str(&text)
        .with_context(|| format!("{} is not an fpforge accuracy report", source.display()))?;
    let Some(worst) = parsed.worst else {
        bail!("{} reports no input", source.display());
    };
    let coords = worst
        .coords
        .iter()
        .map(|c| {
            u64::from_str_radix(c.trim_start_matches("0x"), 16)
                .with_context(|| format!("bad coordinate `{c}` in {}", source.display()))
        })
        .collect::<Result<Vec<u64>>>()?;
    let Some((finding, blame)) = check_input(module, func, config, coords)? else {
        bail!("the input traps or produces no result when run again");
    };
    let now = finding_json(module, func, &finding);
    let (blame, divergences) = blame_json(&blame);
    let name = &module.funcs[func].name;
    let json = ReportJson {
        function: name,
        finished: true,
        strategy: "check",
        precision: config.precision,
        verify_precision: None,
        evals: 1,
        elapsed_s: 0.0,
        worst_found_s: 0.0,
        worst_found_evals: 1,
        stop: None,
        worst: Some(&now),
        top: std::slice::from_ref(&now),
        non_finite: None,
        worst_same_path: None,
        targets_total: 0,
        targets_covered: 0,
        blame,
        divergences,
    };
    if args.json {
        crate::output::emit(&(serde_json::to_string_pretty(&json)? + "\n"))?;
    } else {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "re-check of {} at {} bits",
            source.display(),
            config.precision
        );
        let _ = writeln!(t, "input: {}", now.input);
        let _ = writeln!(t, "computed {} ({})", now.computed, now.computed_decimal);
        let _ = writeln!(
            t,
            "reference {} (report: {})",
            now.reference, worst.reference
        );
        let _ = writeln!(
            t,
            "relative error {} (report: {})",
            show_err(now.rel_error),
            show_err(worst.rel_error)
        );
        crate::output::emit(&t)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn show_err(x: Option<f64>) -> String {
    x.map_or_else(|| "inf".to_string(), |v| format!("{v:.6e}"))
}

fn text_report(
    module: &Module,
    name: &str,
    config: &AccuracyConfig,
    report: &AccuracyReport,
) -> String {
    let mut t = String::new();
    let verify = config.verify_precision.map_or(String::new(), |p| {
        format!(", kept inputs verified at {p} bits")
    });
    let _ = writeln!(
        t,
        "accuracy of {name}: {} inputs in {:.1} s ({}), strategy {}, MPFR reference at {} bits{verify}",
        report.evals,
        report.elapsed.as_secs_f64(),
        report.stop,
        strategy_name(report.strategy),
        config.precision,
    );
    let Some(w) = report.worst() else {
        let _ = writeln!(t, "no input ran to completion with a measurable error");
        return t;
    };
    let f = finding_json(module, report.func, w);
    let _ = writeln!(t, "worst input: {}", f.input);
    let _ = writeln!(
        t,
        "  result {}: computed  {} ({})",
        f.output, f.computed, f.computed_decimal
    );
    let _ = writeln!(
        t,
        "  {:width$}  reference {}",
        "",
        f.reference,
        width = f.output.len() + 7
    );
    let _ = writeln!(
        t,
        "  relative error {}, {} ulps, {} bits lost",
        show_err(f.rel_error),
        f.ulp_error
            .map_or("inf".to_string(), |u| format!("{u:.3e}")),
        f.bits_lost.map_or("inf".to_string(), |b| format!("{b:.1}")),
    );
    if w.diverged {
        let _ = writeln!(
            t,
            "  (the reference run took other branches: the error includes a change of path)"
        );
        match &report.worst_same_path {
            Some(s) => {
                let s = finding_json(module, report.func, s);
                let _ = writeln!(
                    t,
                    "worst input on the reference's path: relative error {} at {}, input {}",
                    show_err(s.rel_error),
                    s.output,
                    s.input
                );
            }
            None => {
                let _ = writeln!(t, "no input with an error kept the reference's path");
            }
        }
    }
    if let Some(n) = &report.non_finite {
        let n = finding_json(module, report.func, n);
        let _ = writeln!(
            t,
            "non-finite result: {} computed {} where the reference is {}, on input {}",
            n.output, n.computed_decimal, n.reference, n.input
        );
    }
    let covered = report.targets.iter().filter(|t| t.covered()).count();
    let _ = writeln!(
        t,
        "FPGen checks covered: {covered}/{} (precision loss and cancellation at {} add/sub sites)",
        report.targets.len(),
        report.targets.len() / 2
    );
    if report.blame.rows.is_empty() {
        let _ = writeln!(t, "blame: no operation introduced error");
    } else {
        let _ = writeln!(
            t,
            "blame (op sites of the worst input, by error introduced):"
        );
        let _ = writeln!(
            t,
            "  {:<6} {:<8} {:>7} {:>11} {:>11} {:>7} {:>7}  location",
            "site", "op", "execs", "introduced", "result err", "cancel", "ploss"
        );
        for r in report.blame.rows.iter().take(10) {
            let _ = writeln!(
                t,
                "  {:<6} {:<8} {:>7} {:>9.1} b {:>9.1} b {:>7} {:>7}  {}",
                r.site.to_string(),
                r.op,
                r.execs,
                r.introduced_bits,
                r.result_bits,
                r.cancellations,
                r.precision_losses,
                r.location,
            );
        }
    }
    if !report.blame.divergences.is_empty() {
        let list: Vec<String> = report
            .blame
            .divergences
            .iter()
            .map(|(s, l)| format!("{s} at {l}"))
            .collect();
        let _ = writeln!(
            t,
            "control flow diverges from the exact run at: {}",
            list.join(", ")
        );
    }
    t
}
