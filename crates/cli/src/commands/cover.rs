//! `fpforge cover`: generate inputs that take every branch side of a function (the
//! `fpforge-cover` engine, with concolic execution as its prover), stream them to an
//! output directory (`fpforge_report::CoverageOut`: `inputs.txt`, `coverage.json`,
//! `coverage.lcov`, `regression.c`, `report.html`; the JUnit file with `--junit`), print
//! the summary, and exit 3 on findings, 4 below `--fail-under`. Ctrl-C (SIGINT) asks the
//! search to stop: the files are then completed as for a finished run, with stop reason
//! `interrupted`, and the exit code is 130. Several functions run through
//! [`crate::library`], each searched by [`search`].

use crate::inputs::read_seeds;
use crate::interrupt::interrupt_flag;
use crate::library::{self, Job, LibraryEngine, Searched};
use crate::options::{CoverOptions, Functions};
use crate::progress::Progress;
use crate::prover::ConcolicProver;
use anyhow::Result;
use fpforge_cover::{cover_with, CoverConfig, SideProver};
use fpforge_engine::{Budget, Event, Stop};
use fpforge_exec::ExecConfig;
use fpforge_report::{CoverageOut, Ending, TestSet};
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `fpforge cover`.
pub fn run(options: CoverOptions) -> Result<ExitCode> {
    let prover = options.reach.then(|| {
        Arc::new(ConcolicProver {
            seed: options.config.seed,
        }) as Arc<dyn SideProver>
    });
    let config = options.config.clone().with_prover(prover);
    let budget = options
        .budget
        .clone()
        .with_interrupt(Some(interrupt_flag()));
    if let Functions::Selected(selection) = &options.program.functions {
        let engine = CoverEngine {
            config,
            budget,
            tests: options.run.tests,
        };
        let run = library::Run::new(&options.program, options.library, &options.run);
        return run.run(selection, &engine);
    }
    let loaded = options.program.load()?;
    let (module, func) = (&loaded.module, loaded.func);
    let exec = ExecConfig::default().with_fuel(config.fuel);
    let planned = super::planned_inputs(module, func, &config.args, &config.out_args, &exec)?;
    let spec = planned.spec;
    let out_args = config.out_args.clone();
    let config = config
        .with_args(planned.args, out_args)
        .with_seeds(read_seeds(options.run.seeds.as_deref(), &spec)?);
    let progress = Progress::new("cover", options.run.output.verbosity);
    let searched = search(
        module,
        func,
        spec,
        (&config, &budget),
        (&options.run.out, options.run.ci.junit.clone()),
        options.run.tests,
        |message| progress.say(message),
    )?;
    progress.finish();
    let target = (module, func, config.deep);
    super::conclude(&searched, &options.run, &options.program, target)
}

/// Covers `func` (inputs planned by `spec`) with `run`'s config within its budget,
/// keeping the directory `out.0` (and the JUnit file `out.1`) current; `say` hears the
/// progress.
fn search(
    module: &Module,
    func: Func,
    spec: InputSpec,
    run: (&CoverConfig, &Budget),
    out: (&Path, Option<PathBuf>),
    tests: TestSet,
    mut say: impl FnMut(String),
) -> Result<Searched> {
    let (config, budget) = run;
    let exec = ExecConfig::default().with_fuel(config.fuel);
    let diagnostic = super::probe(module, func, &spec, exec);
    let mut files = CoverageOut::create(out.0, "cover", module, func, spec)?
        .with_diagnostic(diagnostic)
        .with_junit(out.1)
        .with_test_set(tests);
    let report = cover_with(module, func, config, budget, |event| {
        files.event(event);
        if let Event::Progress(progress) = event {
            say(format!(
                "{}/{} sides, {} evaluations",
                progress.settled, progress.total, progress.evals
            ));
        }
    })?;
    Ok(Searched {
        finished: files.finish(&report.sides, &Ending::of_cover(&report))?,
        interrupted: report.stop == Stop::Interrupted,
    })
}

/// `cover` as [`crate::library`] runs it on each function.
struct CoverEngine {
    config: CoverConfig,
    budget: Budget,
    tests: TestSet,
}

impl LibraryEngine for CoverEngine {
    const NAME: &'static str = "cover";

    fn settings(&self) -> String {
        let budget = (self.budget.evals, self.budget.time_limit);
        format!("{:?} {budget:?} {:?}", self.config, self.tests)
    }

    fn search(&self, module: &Module, func: Func, job: Job<'_>) -> Result<()> {
        let config = &self.config;
        let (args, out_args) = job.specs(module, func, (&config.args, &config.out_args));
        let exec = ExecConfig::default().with_fuel(config.fuel);
        let planned = super::planned_inputs(module, func, &args, &out_args, &exec)?;
        let spec = planned.spec;
        let budget = self.budget.clone().within(job.time_left);
        let config = config
            .clone()
            .with_args(planned.args, out_args)
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
