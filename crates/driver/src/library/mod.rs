//! Runs of an engine over several functions: the inputs are compiled, linked, lowered
//! and guarded once, the functions are spread over `jobs` threads (largest first, by
//! instruction count), each writes `OUT/<function>/` as a one-function run writes
//! `OUT/`, and the run ends by writing `OUT/index.json`, `OUT/report.html` and, for the
//! coverage engines, the merged `OUT/coverage.lcov` (`fpforge_report::index`), rows in
//! name order. A function that cannot be tested gets a row with its error, and the run
//! goes on; a total time bounds the whole run and the budget's interrupt stops it, the
//! functions not started then getting a row that says so. A [`Shard`] runs one part of
//! the functions, and [`Resume::Continue`] keeps or continues what OUT holds
//! ([`resume`]); [`merge`] joins the shards' directories.

mod changed;
mod glob;
pub use glob::glob_matches;
pub mod merge;
pub mod resume;
mod select;
pub mod shard;

pub use select::{Candidate, Library};
pub use shard::Shard;

use crate::error::{DriverError, Result};
use crate::native::Confirm;
use crate::note::Notes;
use crate::plan::Specs;
use crate::program::{Program, Selection};
use crate::record::ProgramRecord;
use crate::run::{Job, Seeds, Task};
use fpforge_engine::Interrupt;
use fpforge_report::html::{index_page, REPORT_HTML};
use fpforge_report::index::{merged_lcov, Index, IndexRow, Measure, RowOutcome};
use fpforge_report::write_atomic;
use resume::Saved;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a run over several functions is split and spends its time.
#[derive(Debug, Clone, PartialEq)]
pub struct LibraryOptions {
    /// Functions run side by side.
    pub jobs: usize,
    /// Time of the whole run.
    pub total_time: Option<Duration>,
    /// The part of the functions this process runs.
    pub shard: Option<Shard>,
    /// Whether to keep what OUT holds.
    pub resume: Resume,
    /// Input specs of single functions (fpforge.toml's `[function.NAME]`), which
    /// replace the run-wide ones for those functions.
    pub specs: BTreeMap<String, Specs>,
    /// Whether findings are confirmed natively.
    pub confirm: Confirm,
}

impl Default for LibraryOptions {
    fn default() -> Self {
        LibraryOptions {
            jobs: 1,
            total_time: None,
            shard: None,
            resume: Resume::Restart,
            specs: BTreeMap::new(),
            confirm: Confirm::Off,
        }
    }
}

/// What a run over several functions does with the functions OUT already holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// Search every function again.
    Restart,
    /// Keep the finished ones and continue the others ([`resume`]).
    Continue,
}

/// How far a run over several functions has come, for a progress line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LibraryStatus {
    /// Functions done.
    pub done: usize,
    /// Functions in the run.
    pub count: usize,
    /// Sides covered so far.
    pub covered: usize,
    /// Crashes found so far.
    pub crashes: usize,
}

/// Who watches a run over several functions.
pub type LibraryWatch<'a> = &'a (dyn Fn(&LibraryStatus) + Sync);

/// A finished run over several functions.
pub struct LibraryRun {
    /// Its index, as written.
    pub index: Index,
    /// `index.json`'s text.
    pub json: String,
    /// Whether the interrupt stopped it.
    pub interrupted: bool,
}

/// When a run over several functions must stop, and the key its functions' directories
/// are written under.
struct Pace<'a> {
    /// The end of the total time.
    deadline: Option<Instant>,
    /// The budget's interrupt, if it has one.
    interrupt: Option<&'a Interrupt>,
    /// The run's key ([`resume::run_key`]).
    run_key: &'a str,
}

impl Pace<'_> {
    fn interrupted(&self) -> bool {
        self.interrupt.is_some_and(Interrupt::raised)
    }
}

/// A run of one job over the functions of a program.
pub struct LibraryRunner<'a, J: Job> {
    /// The inputs and how to load them.
    pub program: &'a Program,
    /// The engine.
    pub job: &'a J,
    /// Threads, total time, shard and resumption.
    pub options: &'a LibraryOptions,
    /// The output directory.
    pub out: &'a Path,
    /// Who hears the notes.
    pub notes: Notes<'a>,
    /// Who watches the progress, if anyone.
    pub watch: Option<LibraryWatch<'a>>,
}

impl<J: Job> LibraryRunner<'_, J> {
    /// Runs the job on the functions `selection` names and writes the index.
    pub fn run(&self, selection: &Selection) -> Result<LibraryRun> {
        let started = Instant::now();
        let mut library = Library::load(self.program, selection, self.notes)?;
        let run_key = resume::run_key(J::KIND, &self.job.settings());
        let shard = self
            .options
            .shard
            .map(|shard| library.keep_shard(shard, &run_key));
        let pace = Pace {
            deadline: self.options.total_time.map(|t| started + t),
            interrupt: self.job.base().budget.interrupt.as_ref(),
            run_key: &run_key,
        };
        let rows = self.run_all(&library, &pace);
        let index = Index {
            engine: J::KIND.name(),
            seconds: started.elapsed().as_secs_f64(),
            rows,
            shard,
        };
        let json = write_index(self.out, &index)?;
        Ok(LibraryRun {
            index,
            json,
            interrupted: pace.interrupted(),
        })
    }

    /// Runs every candidate on `jobs` threads, largest first; returns the rows in name
    /// order.
    fn run_all(&self, library: &Library, pace: &Pace<'_>) -> Vec<IndexRow> {
        let count = library.candidates.len();
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by_key(|&i| Reverse(library.candidates[i].size));
        let queue = Mutex::new(order.into_iter());
        let rows: Mutex<Vec<Option<IndexRow>>> = Mutex::new(vec![None; count]);
        let status = Mutex::new(LibraryStatus {
            count,
            ..LibraryStatus::default()
        });
        let lock_error = "a worker panicked";
        std::thread::scope(|scope| {
            for job in 1..=self.options.jobs.min(count) {
                // Named so that a profiler or /proc tells the workers from the loading
                // threads (bench/libs/jobs.py reads their CPU time by that name).
                let worker = std::thread::Builder::new().name(format!("job {job}"));
                let spawned = worker.spawn_scoped(scope, || loop {
                    let next = queue.lock().expect(lock_error).next();
                    let Some(i) = next else { break };
                    let candidate = &library.candidates[i];
                    let outcome = self.run_one(library, candidate, pace);
                    let mut status = status.lock().expect(lock_error);
                    status.done += 1;
                    match &outcome {
                        RowOutcome::Ran(counts) => {
                            status.covered += counts.covered;
                            status.crashes += counts.crashes;
                        }
                        RowOutcome::Measured(counts) => status.crashes += counts.crashes,
                        RowOutcome::Error(_) | RowOutcome::NotRun(_) => {}
                    }
                    if let Some(watch) = self.watch {
                        watch(&status);
                    }
                    rows.lock().expect(lock_error)[i] = Some(IndexRow {
                        function: candidate.name.clone(),
                        directory: candidate.directory.clone(),
                        outcome,
                    });
                });
                spawned.expect("cannot start a worker thread");
            }
        });
        rows.into_inner()
            .expect(lock_error)
            .into_iter()
            .flatten()
            .collect()
    }

    /// Runs one function unless it cannot be tested, it is finished already (when
    /// resuming) or the run is over.
    fn run_one(&self, library: &Library, candidate: &Candidate, pace: &Pace<'_>) -> RowOutcome {
        if let Some(problem) = &candidate.problem {
            return RowOutcome::Error(problem.clone());
        }
        let dir = self.out.join(&candidate.directory);
        let function = &library.module.funcs[candidate.func];
        let specs = match self.options.specs.get(&candidate.name) {
            Some(own) => own.clone(),
            None => self.job.base().specs.for_function(function),
        };
        let key = resume::function_key(pace.run_key, &specs, &library.module, candidate.func);
        let measure = Measure::of(J::KIND.name());
        let saved = match self.options.resume {
            Resume::Continue => Saved::read(&dir, &key, measure),
            Resume::Restart => Saved::Nothing,
        };
        let saved_tests = match saved {
            Saved::Finished(outcome) => return outcome,
            Saved::Tests(tests) => Some(tests),
            Saved::Nothing => None,
        };
        if pace.interrupted() {
            return RowOutcome::NotRun("interrupted".to_string());
        }
        let time_left = pace
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        if time_left == Some(Duration::ZERO) {
            return RowOutcome::NotRun("total time".to_string());
        }
        let record = ProgramRecord::of(self.program, &candidate.name, &specs, self.job.exec().fuel);
        let task = Task {
            module: &library.module,
            func: candidate.func,
            out: Some(&dir),
            budget: self.job.base().budget.clone().within(time_left),
            specs,
            seeds: saved_tests.as_deref().map_or(Seeds::None, Seeds::Saved),
            junit: None,
            replay: self.program.replay(),
            confirm: self.options.confirm,
            build: &library.build,
            notes: self.notes,
            watch: None,
        };
        // After `start`, which clears what a run that did not finish left.
        let outcome = resume::start(&dir, &key, saved_tests.as_deref(), measure)
            .and_then(|()| record.write(&dir))
            .and_then(|()| self.job.run(task))
            .and_then(|_| Ok(measure.read(&dir)?));
        match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                // An error row has no directory: drop the key written for the search.
                let _ = resume::remove(&dir);
                RowOutcome::Error(e.to_string())
            }
        }
    }
}

/// Writes `index`'s `index.json`, index page and, for the coverage engines, merged lcov
/// file (of the functions' `coverage.lcov` in `out`) into `out`; returns the JSON.
pub fn write_index(out: &Path, index: &Index) -> Result<String> {
    std::fs::create_dir_all(out).map_err(|e| DriverError::io("create", out, e))?;
    let json = index.to_json()?;
    write_atomic(&out.join("index.json"), &json)?;
    write_atomic(&out.join(REPORT_HTML), &index_page(index))?;
    if index.measure() == Measure::Coverage {
        let mut tracefiles = Vec::new();
        for row in index.rows.iter().filter(|row| row.has_directory()) {
            let path = out.join(&row.directory).join("coverage.lcov");
            tracefiles.push(
                std::fs::read_to_string(&path).map_err(|e| DriverError::io("read", &path, e))?,
            );
        }
        let lcov = merged_lcov(tracefiles.iter().map(String::as_str));
        write_atomic(&out.join("coverage.lcov"), &lcov)?;
    }
    Ok(json)
}
