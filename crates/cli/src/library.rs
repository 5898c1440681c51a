//! Runs of `cover` and `explore` over several functions (`--all`, `-f` repeated or a
//! glob, `--functions FILE`): the inputs are compiled, linked, lowered and guarded once,
//! the functions are spread over `--jobs` threads (largest first, by instruction
//! count), each writes `OUT/<function>/` as a one-function run writes `OUT/`, and the
//! run ends by writing `OUT/index.json`, `OUT/report.html` and the merged
//! `OUT/coverage.lcov` (`fpforge_report::index`), rows in name order. A function that
//! cannot be tested gets a row with its error, and the run goes on; `--total-time`
//! bounds the whole run and Ctrl-C stops it, the functions not started then getting a
//! row that says so.

use crate::interrupt::interrupt_flag;
use crate::options::{
    CiOptions, CoverageRunOptions, LibraryBudget, OutputOptions, Program, Selection, TrapTargets,
};
use crate::progress::{Progress, Verbosity};
use anyhow::{bail, Context, Result};
use fpforge_report::html::{index_page, REPORT_HTML};
use fpforge_report::index::{merged_lcov, Index, IndexRow, RowOutcome, RunCounts};
use fpforge_report::{write_atomic, Finished};
use fpir::{Func, Function, Module, Type};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What one function's search ended with.
pub struct Searched {
    /// The summary, findings and feasible coverage.
    pub finished: Finished,
    /// Whether Ctrl-C stopped it.
    pub interrupted: bool,
}

/// An engine a run over several functions calls on each.
pub trait LibraryEngine: Sync {
    /// `cover` or `explore`, as `index.json` names the engine.
    const NAME: &'static str;

    /// Searches `func` and writes its files into `out`, within `time_left` of the
    /// whole run when it is bounded.
    fn search(
        &self,
        module: &Module,
        func: Func,
        out: &Path,
        time_left: Option<Duration>,
    ) -> Result<Searched>;
}

/// A function's own time limit, shortened to what is left of the run's.
pub fn clamp(limit: Option<Duration>, time_left: Option<Duration>) -> Option<Duration> {
    match (limit, time_left) {
        (Some(limit), Some(left)) => Some(limit.min(left)),
        (limit, left) => limit.or(left),
    }
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

/// Whether `name` matches `pattern`, where `*` matches any run of characters and `?`
/// any one.
fn glob_matches(pattern: &str, name: &str) -> bool {
    let (pattern, name): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), name.chars().collect());
    // matched[j]: the pattern so far matches name[..j].
    let mut matched = vec![false; name.len() + 1];
    matched[0] = true;
    for &p in &pattern {
        let mut next = vec![false; name.len() + 1];
        for j in 0..=name.len() {
            next[j] = match p {
                '*' => matched[j] || (j > 0 && next[j - 1]),
                '?' => j > 0 && matched[j - 1],
                c => j > 0 && matched[j - 1] && name[j - 1] == c,
            };
        }
        matched = next;
    }
    matched[name.len()]
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
struct Candidate {
    /// Its display name.
    name: String,
    /// Its directory under the output directory (see [`IndexRow::directory`]).
    directory: String,
    func: Func,
    /// Instructions in its body, which orders the functions largest first.
    size: usize,
    /// Why it cannot be tested, when it cannot.
    problem: Option<String>,
}

/// The program loaded once, with the selected functions in name order.
struct Library {
    module: Module,
    candidates: Vec<Candidate>,
}

impl Library {
    /// Compiles, links and lowers `program`'s inputs, selects the functions, and guards
    /// every function they reach when the program asks for trap targets.
    fn load(program: &Program, selection: &Selection) -> Result<Library> {
        if !program.load.lib_dirs.is_empty() || program.load.compile_commands.is_some() {
            bail!("--lib-dir and --compile-commands take one function for now: give the library's files as inputs");
        }
        let bitcode = fpforge_lower::compile_to_bitcode(&program.paths, &program.load)?;
        let exported = if selection.all {
            exported_names(bitcode.path())?
        } else {
            BTreeSet::new()
        };
        let mut module = fpforge_lower::lower_bitcode_with(bitcode.path(), &program.load)?;
        let chosen = select(&module, selection, &exported)?;
        let problems: Vec<Option<String>> = chosen
            .values()
            .map(|&func| undefined_calls(&module, func, program.load.allow_undefined))
            .collect();
        if program.trap_targets == TrapTargets::On {
            let reached: BTreeSet<Func> = chosen
                .values()
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
}

/// The functions `selection` names, by name: `--all`'s, then every `-f` pattern's (a
/// pattern that matches nothing is an error).
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
    Ok(chosen)
}

/// Why `func` cannot be tested because it may call functions nothing defines, unless
/// `allow` (then it is only a warning).
fn undefined_calls(module: &Module, func: Func, allow: bool) -> Option<String> {
    let missing = module.unresolved_from(func);
    let name = &module.funcs[func].name;
    if missing.is_empty() {
        None
    } else if allow {
        eprintln!(
            "warning: `{name}` may call undefined functions, which trap if reached: {}",
            missing.join(", ")
        );
        None
    } else {
        Some(format!(
            "calls functions that are neither defined in the inputs nor known math functions: {} (pass --allow-undefined to trap when one is reached)",
            missing.join(", ")
        ))
    }
}

/// A run over several functions: the program, its budget and how it reports.
pub struct Run<'a> {
    /// The inputs and how to load them.
    pub program: &'a Program,
    /// Threads and total time.
    pub budget: LibraryBudget,
    /// The output directory.
    pub out: &'a Path,
    /// The coverage threshold.
    pub ci: &'a CiOptions,
    /// JSON or summary, progress or not.
    pub output: &'a OutputOptions,
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
    pub fn new(program: &'a Program, budget: LibraryBudget, run: &'a CoverageRunOptions) -> Self {
        Run {
            program,
            budget,
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
        let library = Library::load(self.program, selection)?;
        let deadline = self.budget.total_time.map(|t| started + t);
        let progress = Progress::new(E::NAME, self.output.verbosity);
        let rows = self.run_all(&library, engine, deadline, &interrupt, &progress);
        progress.finish();
        let index = Index {
            engine: E::NAME,
            seconds: started.elapsed().as_secs_f64(),
            rows,
        };
        let json = self.write(&index)?;
        if self.output.json {
            crate::output::emit(&json)?;
        } else if self.output.verbosity == Verbosity::Normal {
            let wrote = format!(
                "wrote {}/index.json, {REPORT_HTML}, coverage.lcov and one directory per function\n",
                self.out.display()
            );
            crate::output::emit(&(index.summary() + &wrote))?;
        }
        let totals = index.totals();
        Ok(crate::coverage_exit(
            self.any_below_threshold(&index),
            interrupt.load(Ordering::Relaxed),
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
        deadline: Option<Instant>,
        interrupt: &AtomicBool,
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
            for _ in 0..self.budget.jobs.min(count) {
                scope.spawn(|| loop {
                    let next = queue.lock().expect(lock_error).next();
                    let Some(i) = next else { break };
                    let candidate = &library.candidates[i];
                    let outcome = self.run_one(library, candidate, engine, deadline, interrupt);
                    let mut tally = tally.lock().expect(lock_error);
                    tally.done += 1;
                    if let RowOutcome::Ran(counts) = &outcome {
                        tally.covered += counts.covered;
                        tally.crashes += counts.crashes;
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
            }
        });
        rows.into_inner()
            .expect(lock_error)
            .into_iter()
            .flatten()
            .collect()
    }

    /// Runs one function unless it cannot be tested or the run is over.
    fn run_one<E: LibraryEngine>(
        &self,
        library: &Library,
        candidate: &Candidate,
        engine: &E,
        deadline: Option<Instant>,
        interrupt: &AtomicBool,
    ) -> RowOutcome {
        if let Some(problem) = &candidate.problem {
            return RowOutcome::Error(problem.clone());
        }
        if interrupt.load(Ordering::Relaxed) || crate::interrupt::requested() {
            return RowOutcome::NotRun("interrupted".to_string());
        }
        let time_left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if time_left == Some(Duration::ZERO) {
            return RowOutcome::NotRun("total time".to_string());
        }
        let dir = self.out.join(&candidate.directory);
        let counts = engine
            .search(&library.module, candidate.func, &dir, time_left)
            .and_then(|_| read_counts(&dir));
        match counts {
            Ok(counts) => RowOutcome::Ran(counts),
            Err(e) => RowOutcome::Error(format!("{e:#}")),
        }
    }

    /// Writes `index.json`, the index page and the merged lcov file; returns the JSON.
    fn write(&self, index: &Index) -> Result<String> {
        std::fs::create_dir_all(self.out)
            .with_context(|| format!("cannot create {}", self.out.display()))?;
        let json = index.to_json()?;
        write_atomic(&self.out.join("index.json"), &json)?;
        write_atomic(&self.out.join(REPORT_HTML), &index_page(index))?;
        let mut tracefiles = Vec::new();
        for row in index.rows.iter().filter(|row| row.counts().is_some()) {
            let path = self.out.join(&row.directory).join("coverage.lcov");
            tracefiles.push(
                std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
            );
        }
        let lcov = merged_lcov(tracefiles.iter().map(String::as_str));
        write_atomic(&self.out.join("coverage.lcov"), &lcov)?;
        Ok(json)
    }
}

/// The counts of the `coverage.json` a function's run wrote in `dir`.
fn read_counts(dir: &Path) -> Result<RunCounts> {
    let path = dir.join("coverage.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(RunCounts::from_coverage_json(&text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_plain_names() {
        assert!(glob_matches("exp*", "expm1"));
        assert!(glob_matches("exp*", "exp"));
        assert!(!glob_matches("exp*", "frexp"));
        assert!(glob_matches("*exp", "frexp"));
        assert!(glob_matches("?in", "sin"));
        assert!(!glob_matches("?in", "asin"));
        assert!(glob_matches("a*b*c", "aXbYbc"));
        assert!(!glob_matches("a*b*c", "aXbYb"));
        assert!(glob_matches("sin", "sin") && !glob_matches("sin", "sinf"));
    }

    #[test]
    fn a_function_limit_shrinks_to_the_time_left() {
        let s = Duration::from_secs;
        assert_eq!(clamp(Some(s(10)), Some(s(3))), Some(s(3)));
        assert_eq!(clamp(Some(s(2)), Some(s(3))), Some(s(2)));
        assert_eq!(clamp(Some(s(2)), None), Some(s(2)));
        assert_eq!(clamp(None, Some(s(3))), Some(s(3)));
    }
}
