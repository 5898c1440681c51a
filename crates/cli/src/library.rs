//! Runs of `cover`, `explore` and `accuracy` over several functions (`--all`, `-f`
//! repeated or a glob, `--functions FILE`, less `--skip`): the inputs are compiled,
//! linked, lowered and guarded once, the functions are spread over `--jobs` threads
//! (largest first, by instruction count), each writes `OUT/<function>/` as a
//! one-function run writes `OUT/`, and the run ends by writing `OUT/index.json`,
//! `OUT/report.html` and, for the coverage engines, the merged `OUT/coverage.lcov`
//! (`fpforge_report::index`), rows in name order. A function that cannot be tested gets
//! a row with its error, and the run goes on; `--total-time` bounds the whole run and
//! Ctrl-C stops it, the functions not started then getting a row that says so.
//! `--shard K/N` runs one part of the functions ([`crate::shard`]), and `--resume`
//! keeps or continues what OUT holds ([`crate::resume`]).

use crate::args::FunctionSpecs;
use crate::glob::glob_matches;
use crate::interrupt::interrupt_flag;
use crate::options::{
    CiOptions, CoverageRunOptions, LibraryOptions, OutputOptions, Program, Resume, Selection,
    TrapTargets,
};
use crate::progress::{Progress, Verbosity};
use crate::resume::{self, Saved};
use crate::shard::Shard;
use anyhow::{bail, Context, Result};
use fpforge_engine::Interrupt;
use fpforge_report::html::{index_page, REPORT_HTML};
use fpforge_report::index::{merged_lcov, Index, IndexRow, Measure, RowOutcome, ShardOf};
use fpforge_report::{write_atomic, Finished};
use fpforge_spec::{ArgSpec, OutArgSpec};
use fpir::{Func, Function, Module, Type};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, ExitCode};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What one function's search ended with.
pub struct Searched {
    /// The summary, findings and feasible coverage.
    pub finished: Finished,
    /// Whether Ctrl-C stopped it.
    pub interrupted: bool,
}

/// One function's search as a run over several functions hands it to the engine.
pub struct Job<'a> {
    /// The function's directory.
    pub out: &'a Path,
    /// What is left of the whole run's time, when it is bounded.
    pub time_left: Option<Duration>,
    /// The `inputs.txt` of an earlier run with other settings (`--resume`), whose
    /// tests run first.
    pub saved_tests: Option<&'a str>,
    /// The function's own input specs (fpforge.toml), which replace the engine's.
    pub specs: Option<&'a FunctionSpecs>,
}

impl Job<'_> {
    /// The `--arg` and `--out-arg` specs of the job's function `func`: its own, or those
    /// of `engine` (the whole run's) that name one of its parameters, so that a run-wide
    /// `--out-arg result` applies to the functions that have a `result`.
    pub fn specs(
        &self,
        module: &Module,
        func: Func,
        engine: (&[ArgSpec], &[OutArgSpec]),
    ) -> (Vec<ArgSpec>, Vec<OutArgSpec>) {
        if let Some(own) = self.specs {
            return (own.args.clone(), own.out_args.clone());
        }
        let function = &module.funcs[func];
        let (args, outs) = engine;
        let args = args
            .iter()
            .filter(|a| names_a_param(function, &a.name))
            .cloned();
        let outs = outs
            .iter()
            .filter(|o| names_a_param(function, &o.name))
            .cloned();
        (args.collect(), outs.collect())
    }
}

/// Whether a spec's name (`x`, a 1-based position, a field path `p.mass`) names a
/// parameter of `function`.
fn names_a_param(function: &Function, name: &str) -> bool {
    let param = name.split(['.', '[']).next().unwrap_or(name);
    let count = function.param_types().len();
    let by_position = param
        .parse::<usize>()
        .is_ok_and(|k| (1..=count).contains(&k));
    by_position
        || function
            .param_names
            .iter()
            .any(|n| n.as_deref() == Some(param))
}

/// An engine a run over several functions calls on each.
pub trait LibraryEngine: Sync {
    /// `cover`, `explore` or `accuracy`, as `index.json` names the engine.
    const NAME: &'static str;

    /// Every setting that changes the engine's results (seed, budgets, specs), as text:
    /// the run's key ([`crate::resume`]) hashes it.
    fn settings(&self) -> String;

    /// Searches `func` and writes its files into `job.out`.
    fn search(&self, module: &Module, func: Func, job: Job<'_>) -> Result<()>;
}

/// The seeds of a job's saved tests under `spec`; none, with a warning, when they no
/// longer fit it (the parameters changed): the search then starts afresh.
pub fn saved_seeds(job: &Job<'_>, spec: &fpforge_spec::InputSpec) -> Vec<Vec<u64>> {
    let Some(text) = job.saved_tests else {
        return Vec::new();
    };
    let origin = job.out.join(fpforge_report::outdir::INPUTS);
    crate::inputs::parse_seeds(text, &origin, spec).unwrap_or_else(|e| {
        eprintln!("warning: the saved tests do not fit the function's inputs any more, so its search starts afresh: {e:#}");
        Vec::new()
    })
}

/// Whether a `-f` pattern selects `function`: a glob matches its plain name, that name
/// without its scopes (`c*` selects `geo::clamp<float>`) or its symbol; a name without
/// wildcards selects every function that answers to it ([`Function::answers_to`]).
fn selects(pattern: &str, function: &Function) -> bool {
    if pattern.contains(['*', '?']) {
        [
            function.plain_name(),
            function.unqualified_name(),
            &function.name,
        ]
        .iter()
        .any(|name| glob_matches(pattern, name))
    } else {
        function.answers_to(pattern)
    }
}

/// Whether a function takes or returns a floating-point value (directly or through a
/// pointer the source types as one), which `--all` asks for.
fn has_float_interface(function: &Function) -> bool {
    let is_float = |ty: &Type| matches!(ty, Type::Float(_));
    function.ret.as_ref().is_some_and(is_float)
        || function.param_types().iter().any(is_float)
        || function.param_pointees.iter().flatten().any(is_float)
}

/// The names of the functions the bitcode defines with external linkage (`llvm-nm`).
fn exported_names(bitcode: &Path) -> Result<BTreeSet<String>> {
    let output = ["llvm-nm-14", "llvm-nm"]
        .iter()
        .find_map(|nm| {
            Command::new(nm)
                .args(["--defined-only", "--extern-only", "--just-symbol-name"])
                .arg(bitcode)
                .output()
                .ok()
        })
        .context("cannot run llvm-nm-14 to list the functions with external linkage")?;
    if !output.status.success() {
        bail!(
            "llvm-nm failed on the linked bitcode: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect())
}

/// A selected function.
pub struct Candidate {
    /// Its display name.
    pub name: String,
    /// Its directory under the output directory (see [`IndexRow::directory`]).
    pub directory: String,
    /// The function.
    pub func: Func,
    /// Instructions in its body, which orders the functions largest first.
    pub size: usize,
    /// Why it cannot be tested, when it cannot.
    pub problem: Option<String>,
}

/// The program loaded once, with the selected functions in name order.
pub struct Library {
    /// The lowered program.
    pub module: Module,
    /// The selected functions, in name order.
    pub candidates: Vec<Candidate>,
}

impl Library {
    /// Compiles, links and lowers `program`'s inputs, selects the functions, and guards
    /// every function they reach when the program asks for trap targets.
    pub fn load(program: &Program, selection: &Selection) -> Result<Library> {
        let loaded =
            fpforge_lower::load_entries(&program.paths, &program.load, |module, bitcode| {
                let exported = if selection.all {
                    exported_names(bitcode)?
                } else {
                    BTreeSet::new()
                };
                anyhow::Ok(select(module, selection, &exported)?.into_keys().collect())
            })?;
        if !loaded.library_files.is_empty() {
            crate::inputs::note_library_files(&loaded.library_files);
        }
        let mut module = loaded.module;
        let chosen: Vec<(String, Func)> = loaded
            .entries
            .iter()
            .map(|entry| (entry.name.clone(), entry.func))
            .collect();
        let problems: Vec<Option<String>> = loaded
            .entries
            .into_iter()
            .map(|entry| match entry.checked {
                Ok(missing) => {
                    crate::inputs::warn_missing(&entry.name, &missing);
                    None
                }
                Err(e) => Some(crate::inputs::load_error_text(e)),
            })
            .collect();
        if program.trap_targets == TrapTargets::On {
            let reached: BTreeSet<Func> = chosen
                .iter()
                .map(|(_, func)| func)
                .zip(&problems)
                .filter(|(_, problem)| problem.is_none())
                .flat_map(|(&func, _)| module.reachable_funcs(func))
                .collect();
            let reached: Vec<Func> = reached.into_iter().collect();
            fpir::guard::add_trap_guards(&mut module, &reached)
                .context("adding trap guards to the lowered program")?;
        }
        let candidates = chosen
            .into_iter()
            .zip(problems)
            .map(|((name, func), problem)| Candidate {
                size: module.funcs[func]
                    .blocks
                    .values()
                    .map(|b| b.insts.len())
                    .sum(),
                directory: module.funcs[func].name.clone(),
                name,
                func,
                problem,
            })
            .collect();
        Ok(Library { module, candidates })
    }

    /// Keeps only `shard`'s part of the candidates; returns what the shard's index says
    /// of it.
    fn keep_shard(&mut self, shard: Shard, run: &str) -> ShardOf {
        let sizes: Vec<usize> = self.candidates.iter().map(|c| c.size).collect();
        let selected = self.candidates.iter().map(|c| c.name.clone()).collect();
        let mut takes = shard.takes(&sizes).into_iter();
        self.candidates.retain(|_| takes.next().unwrap_or(false));
        ShardOf {
            index: shard.index,
            count: shard.count,
            run: run.to_string(),
            selected,
        }
    }
}

/// The functions `selection` names, by name: `--all`'s, then every `-f` pattern's (a
/// pattern that matches nothing is an error), less those `--skip` matches.
fn select(
    module: &Module,
    selection: &Selection,
    exported: &BTreeSet<String>,
) -> Result<BTreeMap<String, Func>> {
    let mut chosen = BTreeMap::new();
    if selection.all {
        for (func, function) in module.funcs.iter() {
            if exported.contains(&function.name) && has_float_interface(function) {
                chosen.insert(function.display_name().to_string(), func);
            }
        }
        if chosen.is_empty() {
            bail!("--all: the inputs define no function with external linkage and a floating-point parameter or result");
        }
    }
    for pattern in &selection.patterns {
        let mut matched = false;
        for (func, function) in module.funcs.iter().filter(|(_, f)| selects(pattern, f)) {
            matched = true;
            chosen.insert(function.display_name().to_string(), func);
        }
        if !matched {
            bail!("-f {pattern}: no function of the inputs has that name");
        }
    }
    chosen.retain(|_, &mut func| {
        !selection
            .skip
            .iter()
            .any(|skip| selects(skip, &module.funcs[func]))
    });
    Ok(chosen)
}

/// A run over several functions: the program, its budget and how it reports.
pub struct Run<'a> {
    /// The inputs and how to load them.
    pub program: &'a Program,
    /// Threads, total time, shard and resumption.
    pub options: LibraryOptions,
    /// The output directory.
    pub out: &'a Path,
    /// The coverage threshold.
    pub ci: &'a CiOptions,
    /// JSON or summary, progress or not.
    pub output: &'a OutputOptions,
}

/// When a run over several functions must stop, and the key its functions' directories
/// are written under.
struct Pace<'a> {
    /// The end of `--total-time`.
    deadline: Option<Instant>,
    /// Set by Ctrl-C.
    interrupt: &'a Interrupt,
    /// The run's key ([`resume::run_key`]).
    run_key: &'a str,
}

/// What the progress line counts.
#[derive(Default)]
struct Tally {
    done: usize,
    covered: usize,
    crashes: usize,
}

impl<'a> Run<'a> {
    /// The run of `program` over several functions, with `cover`'s or `explore`'s
    /// shared options `run`.
    pub fn new(program: &'a Program, options: LibraryOptions, run: &'a CoverageRunOptions) -> Self {
        Run {
            program,
            options,
            out: &run.out,
            ci: &run.ci,
            output: &run.output,
        }
    }

    /// Runs `engine` on the functions `selection` names, writes the index, prints the
    /// summary (or `index.json` with `--json`) and returns the exit code: 130 after
    /// Ctrl-C, 3 when a function crashed or hung, 4 when one is below `--fail-under`.
    pub fn run<E: LibraryEngine>(&self, selection: &Selection, engine: &E) -> Result<ExitCode> {
        let started = Instant::now();
        let interrupt = interrupt_flag();
        let mut library = Library::load(self.program, selection)?;
        let run_key = resume::run_key(E::NAME, &engine.settings());
        let shard = self
            .options
            .shard
            .map(|shard| library.keep_shard(shard, &run_key));
        let pace = Pace {
            deadline: self.options.total_time.map(|t| started + t),
            interrupt: &interrupt,
            run_key: &run_key,
        };
        let progress = Progress::new(E::NAME, self.output.verbosity);
        let rows = self.run_all(&library, engine, &pace, &progress);
        progress.finish();
        let index = Index {
            engine: E::NAME,
            seconds: started.elapsed().as_secs_f64(),
            rows,
            shard,
        };
        let json = write_index(self.out, &index)?;
        if self.output.json {
            crate::output::emit(&json)?;
        } else if self.output.verbosity == Verbosity::Normal {
            let lcov = match index.measure() {
                Measure::Coverage => ", coverage.lcov",
                Measure::Accuracy => "",
            };
            let wrote = format!(
                "wrote {}/index.json, {REPORT_HTML}{lcov} and one directory per function\n",
                self.out.display()
            );
            crate::output::emit(&(index.summary() + &wrote))?;
        }
        let totals = index.totals();
        Ok(crate::coverage_exit(
            self.any_below_threshold(&index),
            // The watcher sets `interrupt` up to 20 ms after the signal; a run whose
            // last function ends within that window was interrupted all the same.
            interrupt.raised() || crate::interrupt::requested(),
            totals.crashes + totals.hangs,
        ))
    }

    /// Whether a function's feasible coverage is below `--fail-under`; says each on
    /// stderr.
    fn any_below_threshold(&self, index: &Index) -> bool {
        let Some(threshold) = self.ci.fail_under else {
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

    /// Runs every candidate on `jobs` threads, largest first; returns the rows in name
    /// order.
    fn run_all<E: LibraryEngine>(
        &self,
        library: &Library,
        engine: &E,
        pace: &Pace<'_>,
        progress: &Progress,
    ) -> Vec<IndexRow> {
        let count = library.candidates.len();
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by_key(|&i| Reverse(library.candidates[i].size));
        let queue = Mutex::new(order.into_iter());
        let rows: Mutex<Vec<Option<IndexRow>>> = Mutex::new(vec![None; count]);
        let tally = Mutex::new(Tally::default());
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
                    let outcome = self.run_one(library, candidate, engine, pace);
                    let mut tally = tally.lock().expect(lock_error);
                    tally.done += 1;
                    match &outcome {
                        RowOutcome::Ran(counts) => {
                            tally.covered += counts.covered;
                            tally.crashes += counts.crashes;
                        }
                        RowOutcome::Measured(counts) => tally.crashes += counts.crashes,
                        RowOutcome::Error(_) | RowOutcome::NotRun(_) => {}
                    }
                    progress.say(format!(
                        "{}/{count} functions, {} sides covered, {} crashes",
                        tally.done, tally.covered, tally.crashes
                    ));
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

    /// Runs one function unless it cannot be tested, it is finished already (with
    /// `--resume`) or the run is over.
    fn run_one<E: LibraryEngine>(
        &self,
        library: &Library,
        candidate: &Candidate,
        engine: &E,
        pace: &Pace<'_>,
    ) -> RowOutcome {
        if let Some(problem) = &candidate.problem {
            return RowOutcome::Error(problem.clone());
        }
        let dir = self.out.join(&candidate.directory);
        let specs = self.options.specs.get(&candidate.name);
        let own_key = resume::run_key(pace.run_key, &format!("{specs:?}"));
        let key = resume::function_key(&own_key, &library.module, candidate.func);
        let measure = Measure::of(E::NAME);
        let saved = match self.options.resume {
            Resume::Continue => Saved::read(&dir, &key, measure),
            Resume::Restart => Saved::Nothing,
        };
        let saved_tests = match saved {
            Saved::Finished(outcome) => return outcome,
            Saved::Tests(tests) => Some(tests),
            Saved::Nothing => None,
        };
        if pace.interrupt.raised() || crate::interrupt::requested() {
            return RowOutcome::NotRun("interrupted".to_string());
        }
        let time_left = pace
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        if time_left == Some(Duration::ZERO) {
            return RowOutcome::NotRun("total time".to_string());
        }
        let job = Job {
            out: &dir,
            time_left,
            saved_tests: saved_tests.as_deref(),
            specs,
        };
        let outcome = resume::start(&dir, &key)
            .and_then(|()| engine.search(&library.module, candidate.func, job))
            .and_then(|()| Ok(measure.read(&dir)?));
        match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                // An error row has no directory: drop the key written for the search.
                let _ = std::fs::remove_dir_all(&dir);
                RowOutcome::Error(format!("{e:#}"))
            }
        }
    }
}

/// Writes `index`'s `index.json`, index page and, for the coverage engines, merged lcov
/// file (of the functions' `coverage.lcov` in `out`) into `out`; returns the JSON.
pub fn write_index(out: &Path, index: &Index) -> Result<String> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let json = index.to_json()?;
    write_atomic(&out.join("index.json"), &json)?;
    write_atomic(&out.join(REPORT_HTML), &index_page(index))?;
    if index.measure() == Measure::Coverage {
        let mut tracefiles = Vec::new();
        for row in index.rows.iter().filter(|row| row.has_directory()) {
            let path = out.join(&row.directory).join("coverage.lcov");
            tracefiles.push(
                std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
            );
        }
        let lcov = merged_lcov(tracefiles.iter().map(String::as_str));
        write_atomic(&out.join("coverage.lcov"), &lcov)?;
    }
    Ok(json)
}
