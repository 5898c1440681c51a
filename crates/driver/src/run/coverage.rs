//! `cover` and `explore` on one function: both keep a [`CoverageOut`] current from the
//! engine's events and end with the same summary.

use super::{CoverageOutcome, Job, JobBase, RunStatus, Task};
use crate::error::{DriverError, Result};
use crate::native::{confirm_natively, Confirm, Defect, NativeCheck, Target};
use crate::out::{CoverageOut, TestSet};
use crate::plan::{planned_inputs, probe, Planned};
use fpforge_cover::{cover_with, CoverConfig};
use fpforge_engine::{Engine, EngineKind, Event, Settings, Stop};
use fpforge_exec::{ExecConfig, Finding};
use fpforge_explore::{explore, EngineConfig, ExploreConfig};
use fpforge_report::coverage::Ending;
use fpforge_report::findings::CrashRow;
use fpforge_spec::InputSpec;
use std::path::Path;

/// `cover` as the driver runs it.
#[derive(Debug, Clone)]
pub struct CoverJob {
    /// The engine's settings (its prover plugged in by the caller).
    pub config: CoverConfig,
    /// Each function's budget and the run-wide specs.
    pub base: JobBase,
    /// All tests, or the fewest that keep the coverage.
    pub tests: TestSet,
}

/// `explore` as the driver runs it.
#[derive(Debug, Clone)]
pub struct ExploreJob {
    /// The concolic engine's settings.
    pub config: EngineConfig,
    /// Each function's budget and the run-wide specs.
    pub base: JobBase,
    /// All tests, or the fewest that keep the coverage.
    pub tests: TestSet,
}

/// The output directory of a coverage run, which it must have.
fn out_of<'a>(task: &Task<'a>) -> Result<&'a Path> {
    task.out.ok_or_else(|| {
        DriverError::Invalid("a coverage run writes an output directory".to_string())
    })
}

/// The output directory of `engine`'s run on `task`'s function (inputs `spec`), kept
/// current from the engine's events.
fn coverage_out<'m>(
    task: &Task<'m>,
    engine: &'static str,
    (spec, diagnostic): (InputSpec, Option<String>),
    tests: TestSet,
) -> Result<CoverageOut<'m>> {
    let out = CoverageOut::create(
        out_of(task)?,
        engine,
        (task.module, task.func),
        spec,
        task.replay.clone(),
    )?;
    Ok(out
        .with_diagnostic(diagnostic)
        .with_junit(task.junit.clone())
        .with_test_set(tests))
}

/// With `--confirm`, `findings` (of inputs `spec`, in the order found, with their `rows`
/// as the run wrote them) replayed natively, each with its reproducer and report.
fn confirm(
    task: &Task<'_>,
    spec: &InputSpec,
    (findings, rows): (&[Finding], &[CrashRow]),
) -> Result<Vec<NativeCheck>> {
    if task.confirm == Confirm::Off || findings.is_empty() {
        return Ok(Vec::new());
    }
    let defects: Vec<Defect<'_>> = findings
        .iter()
        .zip(rows)
        .filter(|(finding, _)| finding.kind.is_defect())
        .map(|(finding, row)| Defect::of_finding(finding, row))
        .collect();
    let target = Target {
        module: task.module,
        func: task.func,
        spec,
        build: task.build,
    };
    confirm_natively(&target, &defects, out_of(task)?)
}

/// The planned inputs of `task`'s function under `exec`.
fn plan(task: &Task<'_>, exec: &ExecConfig) -> Result<Planned> {
    let specs = (task.specs.args.as_slice(), task.specs.out_args.as_slice());
    planned_inputs(task.module, task.func, specs, exec, task.notes)
}

impl Job for CoverJob {
    const KIND: EngineKind = EngineKind::Cover;

    fn exec(&self) -> ExecConfig {
        ExecConfig::default().with_fuel(self.config.fuel)
    }
    type Outcome = CoverageOutcome;

    fn settings(&self) -> Settings {
        let CoverJob {
            config,
            base,
            tests,
        } = self;
        base.settings("cover", config.settings())
            .with("tests", tests.name())
    }

    fn base(&self) -> &JobBase {
        &self.base
    }

    fn run(&self, task: Task<'_>) -> Result<CoverageOutcome> {
        let out = out_of(&task)?;
        let (module, func) = (task.module, task.func);
        let exec = ExecConfig::default().with_fuel(self.config.fuel);
        let planned = plan(&task, &exec)?;
        let seeds = task.seeds.read(&planned.spec, Some(out), task.notes)?;
        let config = self
            .config
            .clone()
            .with_args(planned.args, task.specs.out_args.clone())
            .with_seeds(seeds);
        let diagnostic = probe(module, func, &planned.spec, exec, task.notes);
        let spec = planned.spec;
        let mut files = coverage_out(&task, "cover", (spec.clone(), diagnostic), self.tests)?;
        let report = cover_with(module, func, &config, &task.budget, |event| {
            files.event(event);
            if let Event::Progress(progress) = event {
                task.show(&RunStatus::from(progress));
            }
        })?;
        let finished = files.finish(&report.sides, &Ending::of_cover(&report))?;
        Ok(CoverageOutcome {
            native: confirm(&task, &spec, (&report.findings, &finished.findings))?,
            finished,
            interrupted: report.stop == Stop::Interrupted,
        })
    }
}

impl Job for ExploreJob {
    const KIND: EngineKind = EngineKind::Explore;

    fn exec(&self) -> ExecConfig {
        self.config.exec.clone()
    }
    type Outcome = CoverageOutcome;

    fn settings(&self) -> Settings {
        let ExploreJob {
            config,
            base,
            tests,
        } = self;
        // The engine that runs: `run` gives it the seeds of the function's directory alone.
        let engine = ExploreConfig::default().with_engine(config.clone());
        base.settings("explore", engine.settings())
            .with("tests", tests.name())
    }

    fn base(&self) -> &JobBase {
        &self.base
    }

    fn run(&self, task: Task<'_>) -> Result<CoverageOutcome> {
        let out = out_of(&task)?;
        let (module, func) = (task.module, task.func);
        let spec = plan(&task, &self.config.exec)?.spec;
        let config = ExploreConfig::default()
            .with_engine(self.config.clone())
            .with_seeds(task.seeds.read(&spec, Some(out), task.notes)?);
        let diagnostic = probe(module, func, &spec, self.config.exec.clone(), task.notes);
        let mut files = coverage_out(&task, "explore", (spec.clone(), diagnostic), self.tests)?;
        let kept = spec.clone();
        let mut status = RunStatus::default();
        let report = explore(module, func, spec, &config, &task.budget, |event| {
            files.event(event);
            let taken = match event {
                Event::Test { new_sides, .. } => {
                    status.tests += 1;
                    new_sides.len()
                }
                Event::Finding { new_sides, .. } => {
                    status.findings += 1;
                    new_sides.len()
                }
                Event::Started { .. } | Event::Progress(_) => 0,
                Event::Detail(none) => match *none {},
            };
            status.settled += taken;
            task.show(&status);
        })?;
        let finished = files.finish(&report.sides, &Ending::of_explore(&report))?;
        Ok(CoverageOutcome {
            native: confirm(&task, &kept, (&report.findings, &finished.findings))?,
            finished,
            interrupted: report.stop == Stop::Interrupted,
        })
    }
}
