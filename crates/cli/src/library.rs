//! Runs over several functions as a terminal shows them: the driver's library runner
//! with a progress line, then the index's summary (or `index.json` with `--json`), and
//! the functions below `--fail-under`.

use crate::options::OutputOptions;
use crate::progress::{Spinner, Verbosity};
use crate::render;
use anyhow::Result;
use fpforge_driver::library::{LibraryOptions, LibraryRun, LibraryRunner, LibraryStatus};
use fpforge_driver::run::Job;
use fpforge_driver::{Program, Selection};
use fpforge_report::html::REPORT_HTML;
use fpforge_report::index::{Index, Measure};
use std::path::Path;

/// `job` over the functions `selection` names, into `out`: the progress line while it
/// runs, then the summary (or `index.json` with `--json`).
pub fn run<J: Job>(
    program: &Program,
    job: &J,
    options: &LibraryOptions,
    out: &Path,
    output: &OutputOptions,
    selection: &Selection,
) -> Result<LibraryRun> {
    let spinner = Spinner::new(J::KIND.name(), output.verbosity);
    let watch = |status: &LibraryStatus| {
        spinner.say(format!(
            "{}/{} functions, {} sides covered, {} crashes",
            status.done, status.count, status.covered, status.crashes
        ));
    };
    let runner = LibraryRunner {
        program,
        job,
        options,
        out,
        notes: &render::print_note,
        watch: Some(&watch),
    };
    let ran = runner.run(selection).map_err(render::error)?;
    spinner.finish();
    if output.json {
        crate::output::emit(&ran.json)?;
    } else if output.verbosity == Verbosity::Normal {
        let lcov = match ran.index.measure() {
            Measure::Coverage => ", coverage.lcov",
            Measure::Accuracy => "",
        };
        let wrote = format!(
            "wrote {}/index.json, {REPORT_HTML}{lcov} and one directory per function\n",
            out.display()
        );
        crate::output::emit(&(ran.index.summary() + &wrote))?;
    }
    Ok(ran)
}

/// Whether a function's feasible coverage is below `threshold`; says each on stderr.
pub fn any_below_threshold(index: &Index, threshold: Option<f64>) -> bool {
    let Some(threshold) = threshold else {
        return false;
    };
    let below: Vec<(&str, f64)> = index
        .rows
        .iter()
        .filter_map(|row| Some((row.function.as_str(), row.counts()?.feasible_percent())))
        .filter(|&(_, percent)| percent < threshold)
        .collect();
    for (function, percent) in &below {
        eprintln!(
            "error: `{function}`: feasible coverage {percent:.1}% is below --fail-under {threshold}"
        );
    }
    !below.is_empty()
}
