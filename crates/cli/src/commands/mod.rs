//! One module per subcommand: its options in, the driver (or a library) called, its
//! results rendered. What `cover` and `explore` share — one function or several, the
//! summary, `--gcov`, `--fail-under` and the exit code — is here; runs over several
//! functions are [`crate::library`]'s.

use crate::options::{CoverageRunOptions, FindingsOptions, OutputOptions};
use crate::progress::{Spinner, Verbosity};
use crate::render;
use anyhow::Result;
use fpforge_driver::findings;
use fpforge_driver::library::LibraryOptions;
use fpforge_driver::run::{run_one, CoverageOutcome, Job, Place, Seeds};
use fpforge_driver::{Functions, LoadedFunction, Program};
use fpforge_report::findings::count_defects;
use std::path::Path;
use std::process::ExitCode;

pub mod accuracy;
pub mod baseline;
pub mod confirm;
pub mod cover;
pub mod explore;
pub mod init;
pub mod ir;
pub mod list;
pub mod merge;
pub mod reach;
pub mod run;
pub mod sites;
pub mod solve;

/// Loads `program`'s entry function, its notes on stderr.
pub fn load(program: &Program) -> Result<LoadedFunction> {
    program.load(&render::print_note).map_err(render::error)
}

/// `cover` or `explore` with `job`: on one function into `run.out`, or on several
/// (`library`) with an index. `deep`: gcov counts every function the entry reaches.
pub fn coverage<J: Job<Outcome = CoverageOutcome>>(
    program: &Program,
    job: &J,
    library: &LibraryOptions,
    run: &CoverageRunOptions,
    deep: bool,
) -> Result<ExitCode> {
    let selection = match &program.functions {
        Functions::Selected(selection) => selection,
        Functions::One(_) => return one_coverage(program, job, run, deep),
    };
    let ran = crate::library::run(program, job, library, &run.out, &run.output, selection)?;
    let totals = ran.index.totals();
    let findings = triaged(
        &run.out,
        &run.ci.findings,
        &run.output,
        totals.crashes + totals.hangs,
    )?;
    Ok(crate::coverage_exit(
        crate::library::any_below_threshold(&ran.index, run.ci.fail_under),
        ran.interrupted,
        findings,
    ))
}

/// A coverage run on one function: the summary (or `coverage.json` with `--json`),
/// gcov's figure when asked, and the exit code.
fn one_coverage<J: Job<Outcome = CoverageOutcome>>(
    program: &Program,
    job: &J,
    run: &CoverageRunOptions,
    deep: bool,
) -> Result<ExitCode> {
    let spinner = Spinner::new(J::KIND.name(), run.output.verbosity);
    let watch = |status: &_| spinner.say(render::status(J::KIND, status));
    let place = Place {
        out: Some(&run.out),
        seeds: run.seeds.as_deref().map_or(Seeds::None, Seeds::File),
        junit: run.ci.junit.clone(),
        confirm: run.ci.confirm,
    };
    let (loaded, searched) =
        run_one(program, job, place, &render::print_note, Some(&watch)).map_err(render::error)?;
    spinner.finish();
    print_results(&searched, &run.output, &run.out)?;
    if run.output.verbosity == Verbosity::Normal && !run.output.json {
        crate::output::emit(&render::native_checks(&searched.native))?;
    }
    if run.gcov && !searched.interrupted {
        let line = fpforge_driver::gcov::figure(
            &loaded.module,
            loaded.func,
            deep,
            &loaded.build,
            &run.out,
        )?;
        if run.output.verbosity == Verbosity::Normal && !run.output.json {
            crate::output::emit(&line)?;
        }
    }
    let finished = &searched.finished;
    let below = run
        .ci
        .fail_under
        .filter(|&threshold| finished.feasible_percent < threshold);
    if let Some(threshold) = below {
        eprintln!(
            "error: feasible coverage {:.1}% is below --fail-under {threshold}",
            finished.feasible_percent
        );
    }
    let defects = count_defects(&finished.findings);
    let findings = triaged(&run.out, &run.ci.findings, &run.output, defects)?;
    Ok(crate::coverage_exit(
        below.is_some(),
        searched.interrupted,
        findings,
    ))
}

/// The number of findings that decide the exit code — all `found`, or with `--baseline`
/// the distinct ones it does not know — after writing `--sarif`.
pub fn triaged(
    out: &Path,
    ci: &FindingsOptions,
    output: &OutputOptions,
    found: usize,
) -> Result<usize> {
    if ci.sarif.is_none() && ci.baseline.is_none() {
        return Ok(found);
    }
    let entries = findings::collect(out).map_err(render::error)?;
    if let Some(file) = &ci.sarif {
        let run_dir = std::env::current_dir()?;
        findings::write_sarif(&entries, &run_dir, file).map_err(render::error)?;
    }
    let Some(baseline) = &ci.baseline else {
        return Ok(found);
    };
    let triage = findings::triage(&entries, baseline);
    if output.verbosity != Verbosity::Quiet {
        eprintln!(
            "findings: {} new, {} known to the baseline",
            triage.new, triage.known
        );
    }
    Ok(triage.new)
}

/// Prints what a finished `cover` or `explore` run says on stdout: `coverage.json` (as
/// written in `out`) with `--json`, nothing with `--quiet`, else the summary.
fn print_results(searched: &CoverageOutcome, output: &OutputOptions, out: &Path) -> Result<()> {
    if output.json {
        let path = out.join("coverage.json");
        let json = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        crate::output::emit(&json)?;
    } else if output.verbosity == Verbosity::Normal {
        crate::output::emit(&searched.finished.text)?;
    }
    Ok(())
}
