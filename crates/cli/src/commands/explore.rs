//! `fpforge explore`: generational, coverage-first path exploration of a function (the
//! `fpforge-explore` engine). Writes the same output directory as `cover`
//! (`fpforge_report::CoverageOut`: `inputs.txt`, `coverage.json`, `coverage.lcov`,
//! `regression.c`, `report.html`; the JUnit file with `--junit`), prints the same
//! summary and exits with the same codes. Ctrl-C (SIGINT) stops the exploration: the
//! files are completed with stop reason `interrupted`, and the exit code is 130.
//! Several functions run through [`crate::library`], each explored by [`search`].

use crate::inputs::read_seeds;
use crate::interrupt::interrupt_flag;
use crate::library::{self, Job, LibraryEngine, Searched};
use crate::options::{EngineOptions, ExploreOptions, Functions};
use crate::progress::Progress;
use anyhow::Result;
use fpforge_engine::{Budget, Event, Stop};
use fpforge_explore::{explore, ExploreConfig};
use fpforge_report::{CoverageOut, Ending, TestSet};
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `fpforge explore`.
pub fn run(options: ExploreOptions) -> Result<ExitCode> {
    let mut engine = options.engine.clone();
    engine.budget = engine.budget.with_interrupt(Some(interrupt_flag()));
    if let Functions::Selected(selection) = &options.program.functions {
        let engine = ExploreEngine {
            engine,
            tests: options.run.tests,
        };
        let run = library::Run::new(&options.program, options.library, &options.run);
        return run.run(selection, &engine);
    }
    let loaded = options.program.load()?;
    let (module, func) = (&loaded.module, loaded.func);
    let exec = &engine.config.exec;
    let spec = super::planned_inputs(module, func, &engine.args, &engine.out_args, exec)?.spec;
    let config = ExploreConfig::default()
        .with_engine(engine.config)
        .with_seeds(read_seeds(options.run.seeds.as_deref(), &spec)?);
    let progress = Progress::new("explore", options.run.output.verbosity);
    let searched = search(
        module,
        func,
        spec,
        (&config, &engine.budget),
        (&options.run.out, options.run.ci.junit.clone()),
        options.run.tests,
        |message| progress.say(message),
    )?;
    progress.finish();
    let target = (module, func, false);
    super::conclude(&searched, &options.run, &options.program, target)
}

/// Explores `func` (inputs planned by `spec`) with `config`, keeping the directory
/// `out.0` (and the JUnit file `out.1`) current; `say` hears the progress.
fn search(
    module: &Module,
    func: Func,
    spec: InputSpec,
    run: (&ExploreConfig, &Budget),
    out: (&Path, Option<PathBuf>),
    tests: TestSet,
    mut say: impl FnMut(String),
) -> Result<Searched> {
    let (config, budget) = run;
    let diagnostic = super::probe(module, func, &spec, config.engine.exec.clone());
    let mut files = CoverageOut::create(out.0, "explore", module, func, spec.clone())?
        .with_diagnostic(diagnostic)
        .with_junit(out.1)
        .with_test_set(tests);
    let (mut kept, mut findings, mut covered) = (0, 0, 0);
    let report = explore(module, func, spec, config, budget, |event| {
        files.event(event);
        match event {
            Event::Test { new_sides, .. } => {
                kept += 1;
                covered += new_sides.len();
            }
            Event::Finding { new_sides, .. } => {
                findings += 1;
                covered += new_sides.len();
            }
            Event::Started { .. } | Event::Progress(_) | Event::Detail(_) => {}
        }
        say(format!(
            "{kept} tests, {findings} findings, {covered} sides taken"
        ));
    })?;
    Ok(Searched {
        finished: files.finish(&report.sides, &Ending::of_explore(&report))?,
        interrupted: report.stop == Stop::Interrupted,
    })
}

/// `explore` as [`crate::library`] runs it on each function.
struct ExploreEngine {
    engine: EngineOptions,
    tests: TestSet,
}

impl LibraryEngine for ExploreEngine {
    const NAME: &'static str = "explore";

    fn settings(&self) -> String {
        let engine = &self.engine;
        format!(
            "{:?} {:?} {:?} {:?} {:?}",
            engine.config, engine.budget.time_limit, engine.args, engine.out_args, self.tests
        )
    }

    fn search(&self, module: &Module, func: Func, job: Job<'_>) -> Result<()> {
        let engine = &self.engine;
        let (args, out_args) = job.specs(module, func, (&engine.args, &engine.out_args));
        let exec = &engine.config.exec;
        let spec = super::planned_inputs(module, func, &args, &out_args, exec)?.spec;
        let budget = engine.budget.clone().within(job.time_left);
        let config = ExploreConfig::default()
            .with_engine(engine.config.clone())
            .with_seeds(library::saved_seeds(&job, &spec));
        search(
            module,
            func,
            spec,
            (&config, &budget),
            (job.out, None),
            self.tests,
            |_| (),
        )?;
        Ok(())
    }
}
