//! `fpforge accuracy`: search for the inputs on which a function's result is least
//! accurate (the `fpforge-accuracy` engine), and say which operations are to blame.
//!
//! The output directory (`--out`) holds `inputs.txt` (the worst inputs found so far, worst
//! first, one per line in the form `fpforge run FILE -f FUNC -- <line>` reads back),
//! `report.json` (the report so far; `finished` says whether the search ended) and
//! `report.html` (the same report as a page), all replaced atomically as new worst
//! inputs are found, and at the end `errors.svg` (the error of a sample of the evaluated
//! inputs against the input, zeros and poles marked). Ctrl-C stops the search and
//! completes the files. `--check-input REPORT` measures the worst input of an earlier
//! `report.json` again at `--precision` bits instead of searching: an independent
//! re-evaluation of a reported error. Several functions run through [`crate::library`],
//! each measured into `OUT/<function>/` as one function is into `OUT/`.

use crate::interrupt::interrupt_flag;
use crate::library::{self, Job, LibraryEngine};
use crate::options::{AccuracyOptions, CiOptions, Functions};
use crate::progress::{Progress as Spinner, Verbosity};
use anyhow::{bail, Context, Result};
use fpforge_accuracy::{
    accuracy_with, check_input, implied_out_args, AccuracyConfig, AccuracyNews, AccuracyReport,
    Oracle,
};
use fpforge_engine::{Budget, Event, Stop};
use fpforge_exec::ExecConfig;
use fpforge_report::accuracy::{
    check_json, check_text, final_json, inputs_text, partial_json, read_worst, strategy_name,
    text_report, top_rows, FindingRow, Progress, RunInfo,
};
use fpforge_report::errors_svg::errors_svg;
use fpforge_report::findings::{dir_name, FindingRow as CrashRow};
use fpforge_report::html::{final_accuracy_page, partial_accuracy_page, REPORT_HTML};
use fpforge_report::outdir::INPUTS;
use fpforge_report::OutDir;
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::fs;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// `fpforge accuracy`.
pub fn run(options: AccuracyOptions) -> Result<ExitCode> {
    if let Functions::Selected(selection) = &options.program.functions {
        let engine = AccuracyEngine {
            config: options.config.clone(),
            budget: options
                .budget
                .clone()
                .with_interrupt(Some(interrupt_flag())),
        };
        let out = options
            .out
            .as_deref()
            .context("a run over several functions has an output directory")?;
        let ci = CiOptions::default();
        let run = library::Run {
            program: &options.program,
            options: options.library,
            out,
            ci: &ci,
            output: &options.output,
        };
        return run.run(selection, &engine);
    }
    let loaded = options.program.load()?;
    let (module, func) = (&loaded.module, loaded.func);
    let config = options.config;
    // Fail early, with the spec's own message, on specs that do not fit.
    let exec = ExecConfig::default().with_fuel(config.fuel);
    // A GSL `_e` function's result is an output, as the engine plans it.
    let outs = implied_out_args(module, func, &config.out_args);
    let planned = super::planned_inputs(module, func, &config.args, &outs, &exec)?;
    let (spec, config) = (planned.spec, config.with_args(planned.args));
    let info = run_info(module, func, &config);
    if let Some(source) = &options.check_input {
        return check(options.output.json, info, &config, module, func, source);
    }
    let diagnostic = super::probe(module, func, &spec, exec);
    let info = RunInfo {
        diagnostic: diagnostic.as_deref(),
        ..info
    };
    let mut out = options.out.as_deref().map(OutDir::create).transpose()?;
    let budget = options.budget.with_interrupt(Some(interrupt_flag()));
    let verbosity = options.output.verbosity;
    let run = Run {
        config: &config,
        budget: &budget,
        module,
        func,
        spec: &spec,
    };
    let report = search(run, info, out.as_mut(), verbosity)?;
    let info = RunInfo {
        findings: &report.findings,
        ..info
    };
    let json_text = finish(out, info, &report, module)?;
    if options.output.json {
        crate::output::emit(&json_text)?;
    } else if verbosity == Verbosity::Normal {
        crate::output::emit(&text_report(info, module, &report.report))?;
    }
    let interrupted = report.report.stop == Stop::Interrupted;
    Ok(crate::search_exit(interrupted, report.findings.len()))
}

/// The settings a report on `func` states, before any finding.
fn run_info<'a>(module: &'a Module, func: Func, config: &AccuracyConfig) -> RunInfo<'a> {
    RunInfo {
        function: module.funcs[func].display_name(),
        strategy: strategy_name(config.strategy),
        precision: config.precision,
        verify_precision: config.verify_precision,
        oracle: None,
        findings: &[],
        diagnostic: None,
    }
}

/// Writes the final files of a search into `out` (when there is one); returns the
/// JSON report.
fn finish(
    out: Option<OutDir>,
    info: RunInfo<'_>,
    report: &Searched,
    module: &Module,
) -> Result<String> {
    let json_text = final_json(info, report.progress, module, &report.report)?;
    if let Some(mut out) = out {
        out.write(INPUTS, &inputs_text(&top_rows(module, &report.report)));
        out.write(REPORT, &json_text);
        let page = final_accuracy_page(info, report.progress, module, &report.report);
        out.write(REPORT_HTML, &page);
        out.write(ERRORS_SVG, &errors_svg(&report.report));
        out.finish()?;
    }
    Ok(json_text)
}

/// `accuracy` as [`crate::library`] runs it on each function.
struct AccuracyEngine {
    config: AccuracyConfig,
    budget: Budget,
}

impl LibraryEngine for AccuracyEngine {
    const NAME: &'static str = "accuracy";

    fn settings(&self) -> String {
        let budget = (self.budget.evals, self.budget.time_limit);
        format!("{:?} {budget:?}", self.config)
    }

    fn search(&self, module: &Module, func: Func, job: Job<'_>) -> Result<()> {
        let config = &self.config;
        let (args, out_args) = job.specs(module, func, (&config.args, &config.out_args));
        let exec = ExecConfig::default().with_fuel(config.fuel);
        let outs = implied_out_args(module, func, &out_args);
        let planned = super::planned_inputs(module, func, &args, &outs, &exec)?;
        let spec = planned.spec;
        let budget = self.budget.clone().within(job.time_left);
        let config = config
            .clone()
            .with_args(planned.args)
            .with_out_args(out_args);
        let diagnostic = super::probe(module, func, &spec, exec);
        let info = RunInfo {
            diagnostic: diagnostic.as_deref(),
            ..run_info(module, func, &config)
        };
        let mut out = OutDir::create(job.out)?;
        let run = Run {
            config: &config,
            budget: &budget,
            module,
            func,
            spec: &spec,
        };
        let report = search(run, info, Some(&mut out), Verbosity::Quiet)?;
        let info = RunInfo {
            findings: &report.findings,
            ..info
        };
        finish(Some(out), info, &report, module)?;
        Ok(())
    }
}

/// The plot of the errors in the output directory.
const ERRORS_SVG: &str = "errors.svg";

/// The file of the JSON report in the output directory.
const REPORT: &str = "report.json";

/// Least time between two rewrites of the output files while the search runs.
const WRITE_INTERVAL: Duration = Duration::from_millis(500);

/// A finished search and when its last new worst input came.
struct Searched {
    report: AccuracyReport,
    progress: Progress,
    /// The crashes and hangs, written to `OUT/crashes/` and `OUT/hangs/` as found.
    findings: Vec<CrashRow>,
}

/// What one search measures.
#[derive(Clone, Copy)]
struct Run<'a> {
    config: &'a AccuracyConfig,
    budget: &'a Budget,
    module: &'a Module,
    func: Func,
    spec: &'a InputSpec,
}

/// Runs the search, rewriting `out` with the worst inputs so far at most every
/// [`WRITE_INTERVAL`], and showing progress on a terminal (unless `verbosity` is quiet).
fn search(
    run: Run<'_>,
    info: RunInfo<'_>,
    mut out: Option<&mut OutDir>,
    verbosity: Verbosity,
) -> Result<Searched> {
    let Run {
        config,
        budget,
        module,
        func,
        spec,
    } = run;
    let mut findings: Vec<CrashRow> = Vec::new();
    let spinner = Spinner::new("accuracy", verbosity);
    let mut found: Vec<FindingRow> = Vec::new();
    let started = Instant::now();
    let mut progress = Progress::default();
    let (mut dirty, mut last_write) = (false, started);
    let mut oracle: Option<Oracle> = None;
    let write = |found: &[FindingRow],
                 progress: Progress,
                 oracle: Option<&Oracle>,
                 out: &mut Option<&mut OutDir>| {
        let info = RunInfo { oracle, ..info };
        if let Some(out) = out.as_deref_mut() {
            out.write(INPUTS, &inputs_text(found));
            match partial_json(info, progress, found) {
                Ok(json) => out.write(REPORT, &json),
                Err(e) => out.fail(e),
            }
            out.write(REPORT_HTML, &partial_accuracy_page(info, progress, found));
        }
    };
    let report = accuracy_with(module, func, config, budget, |event| match event {
        Event::Detail(AccuracyNews::Started { oracle: o, .. }) => oracle = Some((*o).clone()),
        Event::Finding { finding, .. } => {
            let number = 1 + findings
                .iter()
                .filter(|f| f.kind == finding.kind.name())
                .count();
            let row = CrashRow::new(module, spec, finding, number);
            if let Some(out) = out.as_deref_mut() {
                out.make_dir(dir_name(finding.kind));
                out.write(&row.file, &row.file_text(module, func));
            }
            findings.push(row);
        }
        Event::Detail(AccuracyNews::NewWorst { finding, evals }) => {
            progress.worst_found_s = started.elapsed().as_secs_f64();
            progress.worst_found_evals = *evals;
            found.insert(0, FindingRow::new(module, func, finding));
            found.truncate(config.top_k);
            dirty = true;
            if last_write.elapsed() >= WRITE_INTERVAL {
                (last_write, dirty) = (Instant::now(), false);
                progress.evals = *evals;
                progress.elapsed = started.elapsed();
                write(&found, progress, oracle.as_ref(), &mut out);
            }
        }
        Event::Progress(now) => {
            if dirty && last_write.elapsed() >= WRITE_INTERVAL {
                (last_write, dirty) = (Instant::now(), false);
                progress.evals = now.evals;
                progress.elapsed = now.elapsed;
                write(&found, progress, oracle.as_ref(), &mut out);
            }
            spinner.say(format!(
                "worst relative error {:.3e}, {} inputs, {} checks covered",
                now.worst_error.unwrap_or(0.0),
                now.evals,
                now.settled
            ));
        }
        Event::Started { .. } | Event::Test { .. } => {}
    })?;
    spinner.finish();
    progress.evals = report.evals;
    progress.elapsed = report.elapsed;
    Ok(Searched {
        report,
        progress,
        findings,
    })
}

/// `--check-input`: the worst input of a report, measured at `--precision`.
fn check(
    json: bool,
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
    let Some(checked) = check_input(module, func, config, coords)? else {
        bail!("the input traps or produces no result when run again");
    };
    let now = FindingRow::new(module, func, &checked.finding);
    let info = RunInfo {
        strategy: "check",
        verify_precision: None,
        oracle: Some(&checked.oracle),
        ..info
    };
    if json {
        crate::output::emit(&check_json(info, &now, &checked.blame)?)?;
    } else {
        let shown = source.display().to_string();
        crate::output::emit(&check_text(&shown, config.precision, &now, &worst))?;
    }
    Ok(ExitCode::SUCCESS)
}
