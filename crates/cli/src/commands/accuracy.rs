//! `fpforge accuracy`: the inputs on which a function's result is least accurate (the
//! `fpforge-accuracy` engine), and which operations are to blame.
//!
//! The output directory (`--out`) holds `inputs.txt` (the worst inputs found so far, worst
//! first, one per line in the form `fpforge run FILE -f FUNC -- <line>` reads back),
//! `report.json` (the report so far; `finished` says whether the search ended) and
//! `report.html` (the same report as a page), all replaced atomically as new worst
//! inputs are found, and at the end `errors.svg`. Ctrl-C stops the search and completes
//! the files. `--check-input REPORT` measures the worst input of an earlier
//! `report.json` again at `--precision` bits instead of searching. Several functions
//! run through the driver's library runner, each into `OUT/<function>/`.

use super::triaged;
use crate::interrupt::interrupt_flag;
use crate::options::AccuracyOptions;
use crate::progress::{Spinner, Verbosity};
use crate::render;
use anyhow::{Context, Result};
use fpforge_driver::exhaustive::{run_exhaustive as run_exhaustive_in, ExhaustiveOptions};
use fpforge_driver::run::{run_info, run_one, Place, RunStatus, Seeds};
use fpforge_driver::Functions;
use fpforge_report::accuracy::{check_json, check_text, text_report, ErrorRow, RunInfo};
use std::path::Path;
use std::process::ExitCode;

/// Runs `fpforge accuracy`.
pub fn run(mut options: AccuracyOptions) -> Result<ExitCode> {
    let job = &mut options.job;
    job.base.budget = job
        .base
        .budget
        .clone()
        .with_interrupt(Some(interrupt_flag()));
    if let Functions::Selected(selection) = &options.program.functions {
        let out = options
            .out
            .as_deref()
            .context("a run over several functions has an output directory")?;
        let ran = crate::library::run(
            &options.program,
            &options.job,
            &options.library,
            out,
            &options.output,
            selection,
        )?;
        let totals = ran.index.totals();
        let found = triaged(
            out,
            &options.findings,
            &options.output,
            totals.crashes + totals.hangs,
        )?;
        return Ok(crate::search_exit(ran.interrupted, found));
    }
    if let Some(exhaustive) = &options.exhaustive {
        return run_exhaustive(&options, exhaustive);
    }
    if let Some(source) = &options.check_input {
        return check(&options, source);
    }
    let verbosity = options.output.verbosity;
    let spinner = Spinner::new("accuracy", verbosity);
    let watch =
        |status: &_| spinner.say(render::status(fpforge_engine::EngineKind::Accuracy, status));
    let place = Place {
        out: options.out.as_deref(),
        seeds: Seeds::None,
        junit: None,
        confirm: options.confirm,
    };
    let (loaded, measured) = run_one(
        &options.program,
        &options.job,
        place,
        &render::print_note,
        Some(&watch),
    )
    .map_err(render::error)?;
    spinner.finish();
    if options.output.json {
        crate::output::emit(&measured.json)?;
    } else if verbosity == Verbosity::Normal {
        let info = RunInfo {
            findings: &measured.findings,
            diagnostic: measured.diagnostic.as_deref(),
            ..run_info(&loaded.module, loaded.func, &options.job.config)
        };
        crate::output::emit(&text_report(info, &loaded.module, &measured.report))?;
        crate::output::emit(&render::native_checks(&measured.native))?;
    }
    let interrupted = !measured.report.stop.completed();
    let defects = fpforge_report::findings::count_defects(&measured.findings);
    let found = match options.out.as_deref() {
        Some(out) => triaged(out, &options.findings, &options.output, defects)?,
        None => defects,
    };
    Ok(crate::search_exit(interrupted, found))
}

/// `--check-input`: the worst input of a report, measured at `--precision`.
fn check(options: &AccuracyOptions, source: &Path) -> Result<ExitCode> {
    let loaded = super::load(&options.program)?;
    let job = &options.job;
    let (checked, worst) = job
        .check((&loaded.module, loaded.func), source, &render::print_note)
        .map_err(render::error)?;
    let now = ErrorRow::new(&loaded.module, loaded.func, &checked.finding);
    if options.output.json {
        let info = RunInfo {
            strategy: "check",
            verify_precision: None,
            oracle: Some(&checked.oracle),
            metric: Some(checked.metric),
            ..run_info(&loaded.module, loaded.func, &job.config)
        };
        crate::output::emit(&check_json(info, &now, &checked.blame)?)?;
    } else {
        let shown = source.display().to_string();
        let measured = (job.config.precision, checked.metric);
        crate::output::emit(&check_text(&shown, measured, &now, &worst))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--exhaustive`: every input of the range checked; `exhaustive.json` and a one-line
/// summary.
fn run_exhaustive(options: &AccuracyOptions, exhaustive: &ExhaustiveOptions) -> Result<ExitCode> {
    let out = options
        .out
        .as_deref()
        .context("an exhaustive run has an output directory")?;
    let interrupt = interrupt_flag();
    let spinner = Spinner::new("exhaustive", options.output.verbosity);
    let watch = |status: &RunStatus| {
        let share = status.evals as f64 / status.total.max(1) as f64;
        spinner.say(format!(
            "{} of {} inputs ({:.1} %)",
            status.evals,
            status.total,
            100.0 * share
        ))
    };
    let ran = run_exhaustive_in(
        &options.program,
        exhaustive,
        out,
        Some(&interrupt),
        &render::print_note,
        Some(&watch),
    )
    .map_err(render::error)?;
    spinner.finish();
    if options.output.json {
        crate::output::emit(&ran.file.to_json()?)?;
    } else if options.output.verbosity == Verbosity::Normal {
        crate::output::emit(&ran.file.summary())?;
    }
    Ok(crate::search_exit(ran.interrupted, 0))
}
