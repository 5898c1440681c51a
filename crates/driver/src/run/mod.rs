//! One engine on one function into one output directory: plan the inputs, probe them,
//! run the engine within its budget with every event streamed to the directory's
//! writer, and finish the files. A run on one function and each function of a run over
//! several go through the same [`Job::run`]; [`crate::library`] adds the index.

mod accuracy;
mod coverage;
mod value_defects;

pub use accuracy::{run_info, AccuracyJob};
pub use coverage::{CoverJob, ExploreJob};

use crate::error::Result;
use crate::native::{Confirm, NativeCheck};
use crate::note::{Note, Notes};
use crate::out::Finished;
use crate::plan::{parse_seeds, read_seeds, Specs};
use crate::program::{LoadedFunction, NativeBuild, Program};
use crate::record::ProgramRecord;
use fpforge_engine::settings::{optional, seconds};
use fpforge_engine::{Budget, EngineKind, ErrorFigure, Progress, Settings};
use fpforge_exec::ExecConfig;
use fpforge_report::replay::Replay;
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::path::{Path, PathBuf};

/// Where a function's search starts from, beside the engine's own starting points.
#[derive(Clone, Copy, Debug)]
pub enum Seeds<'a> {
    /// Nothing.
    None,
    /// A file of input lines the user gave (`--seeds`): a line that does not fit is an
    /// error.
    File(&'a Path),
    /// The `inputs.txt` an earlier run left in the function's directory: when its lines
    /// no longer fit (the parameters changed) the search starts afresh, with a note.
    Saved(&'a str),
}

impl Seeds<'_> {
    /// The coordinate bits of the seeds under `spec`; saved tests read from `dir`.
    fn read(self, spec: &InputSpec, dir: Option<&Path>, notes: Notes<'_>) -> Result<Vec<Vec<u64>>> {
        match self {
            Seeds::None => Ok(Vec::new()),
            Seeds::File(path) => read_seeds(Some(path), spec),
            Seeds::Saved(text) => {
                let origin = dir
                    .unwrap_or(Path::new("."))
                    .join(fpforge_report::outdir::INPUTS);
                Ok(parse_seeds(text, &origin, spec).unwrap_or_else(|e| {
                    notes(Note::SavedTestsDropped {
                        reason: e.to_string(),
                    });
                    Vec::new()
                }))
            }
        }
    }
}

/// How far one function's run has come, for a progress line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunStatus {
    /// Evaluations of the program so far (engines that count them).
    pub evals: u64,
    /// Targets settled: sides covered, checks covered.
    pub settled: usize,
    /// Targets in all (engines that know it up front).
    pub total: usize,
    /// Tests kept so far.
    pub tests: usize,
    /// Crashes and hangs found so far.
    pub findings: usize,
    /// The largest error found so far, in its metric (`accuracy`).
    pub worst_error: Option<ErrorFigure>,
}

impl From<&Progress> for RunStatus {
    fn from(progress: &Progress) -> RunStatus {
        RunStatus {
            evals: progress.evals,
            settled: progress.settled,
            total: progress.total,
            worst_error: progress.worst_error,
            ..RunStatus::default()
        }
    }
}

/// Who watches a run's progress.
pub type Watch<'a> = &'a (dyn Fn(&RunStatus) + Sync);

/// One function's run: the program, where it writes, and what it starts from.
pub struct Task<'a> {
    /// The loaded program.
    pub module: &'a Module,
    /// The function.
    pub func: Func,
    /// Its output directory (`accuracy` may run without one).
    pub out: Option<&'a Path>,
    /// Its evaluations, time and interrupt.
    pub budget: Budget,
    /// Its input specs.
    pub specs: Specs,
    /// What its search starts from.
    pub seeds: Seeds<'a>,
    /// Where the JUnit file goes, if anywhere (coverage runs).
    pub junit: Option<PathBuf>,
    /// How its findings replay and where its sources are.
    pub replay: Replay,
    /// Whether its findings are confirmed natively, built as `build` says.
    pub confirm: Confirm,
    /// How the program builds natively.
    pub build: &'a NativeBuild,
    /// Who hears the notes.
    pub notes: Notes<'a>,
    /// Who watches the progress, if anyone.
    pub watch: Option<Watch<'a>>,
}

impl Task<'_> {
    /// Tells the watcher, if there is one.
    fn show(&self, status: &RunStatus) {
        if let Some(watch) = self.watch {
            watch(status);
        }
    }
}

/// What a coverage run on one function ended with.
pub struct CoverageOutcome {
    /// The summary, findings and feasible coverage.
    pub finished: Finished,
    /// Whether the caller's interrupt stopped it.
    pub interrupted: bool,
    /// With `--confirm`, each finding's native check.
    pub native: Vec<NativeCheck>,
}

/// What every job holds beside its engine's settings: each function's budget and the
/// run-wide input specs.
#[derive(Debug, Clone, Default)]
pub struct JobBase {
    /// Each function's evaluations, time and interrupt.
    pub budget: Budget,
    /// The run-wide input specs.
    pub specs: Specs,
}

impl JobBase {
    /// The settings of `engine` (its group named `name`) under this budget and specs.
    fn settings(&self, name: &'static str, engine: Settings) -> Settings {
        Settings::new()
            .with_group(name, engine)
            .with_group("budget", budget_settings(&self.budget))
            .with_group("specs", self.specs.settings())
    }
}

/// An engine as the driver runs it on each function: its settings, and its run into a
/// directory.
pub trait Job: Sync {
    /// Which engine.
    const KIND: EngineKind;

    /// What a run on one function ends with.
    type Outcome;

    /// Every setting that changes the results (the engine's, the budget's evaluations
    /// and time, the specs, the tests kept), by name ([`fpforge_engine::settings`]): a
    /// run's resume key hashes it.
    fn settings(&self) -> Settings;

    /// The run-wide budget and input specs.
    fn base(&self) -> &JobBase;

    /// How one run of the function executes (its fuel).
    fn exec(&self) -> ExecConfig;

    /// Runs on `task`'s function and writes its files.
    fn run(&self, task: Task<'_>) -> Result<Self::Outcome>;
}

/// The parts of `budget` that change a run's results: its evaluations and time (not
/// its interrupt, which stops a run that is then not finished).
fn budget_settings(budget: &Budget) -> Settings {
    Settings::new()
        .with("evals", optional(budget.evals))
        .with("time_limit", optional(budget.time_limit.map(seconds)))
}

/// Where a run on one function writes and what it starts from.
#[derive(Clone, Debug)]
pub struct Place<'a> {
    /// The output directory (`accuracy` may run without one).
    pub out: Option<&'a Path>,
    /// What the search starts from.
    pub seeds: Seeds<'a>,
    /// Where the JUnit file goes, if anywhere.
    pub junit: Option<PathBuf>,
    /// Whether findings are confirmed natively.
    pub confirm: Confirm,
}

/// Loads `program` (which names one function) and runs `job` on it into `place`: the
/// path of a one-function command. Returns the loaded program with the outcome, for
/// what the front end shows next (gcov, a text report).
pub fn run_one<J: Job>(
    program: &Program,
    job: &J,
    place: Place<'_>,
    notes: Notes<'_>,
    watch: Option<Watch<'_>>,
) -> Result<(LoadedFunction, J::Outcome)> {
    let loaded = program.load(notes)?;
    if let (Some(out), Some(entry)) = (place.out, program.entry()) {
        ProgramRecord::of(program, entry, &job.base().specs, job.exec().fuel).write(out)?;
    }
    let task = Task {
        module: &loaded.module,
        func: loaded.func,
        out: place.out,
        budget: job.base().budget.clone(),
        specs: job.base().specs.clone(),
        seeds: place.seeds,
        junit: place.junit,
        replay: program.replay(),
        confirm: place.confirm,
        build: &loaded.build,
        notes,
        watch,
    };
    let outcome = job.run(task)?;
    Ok((loaded, outcome))
}
