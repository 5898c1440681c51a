//! What a run over several functions finds in `OUT/<function>/` before it runs the
//! function: `--resume` skips the functions already finished with the same settings and
//! continues the others from their saved tests.
//!
//! Each function's directory holds `run-key`, written before its search starts: a hash
//! of the run's settings and of the function as lowered. The settings are their
//! canonical text ([`fpforge_engine::settings`]: the engine's, with the seed and every
//! search parameter, the budget's evaluations and time, the `--arg` specs, the tests
//! kept), which each configuration writes value by value, never through `Debug`; the
//! function is the IR text of it and of every function and global it reaches
//! ([`fpir::write_reached`]: its body, so an edited source, other compiler flags or trap
//! guards change it, and the site ids and files its reports name). With `--resume` a
//! function whose `run-key` matches and whose `coverage.json` (`report.json` for
//! `accuracy`) says `finished` with another stop than `interrupted` keeps its files and
//! row. One whose key matches but did not finish (Ctrl-C, a killed machine) is searched
//! again from the start: the search is deterministic, so this gives exactly the files an
//! uninterrupted run writes, which its saved tests as seeds would not (seeds change the
//! search). One whose key differs (an extended budget, another seed, an edited function)
//! continues from its saved `inputs.txt`, re-executed as seeds before the search (`cover`
//! and `explore`; `accuracy`, which takes no seeds, searches it again from the start).
//!
//! A key names its format (`v2:` and the hash, `KEY_FORMAT`). The `run-key` of an
//! earlier fpforge is a bare hash of `Debug` texts, which this one cannot compute again:
//! it never matches, so such a directory is never taken as finished with the same
//! settings, and `--resume` continues it from its `inputs.txt` as it continues a run
//! with other settings, then writes a key of the current format.
//!
//! A run may be killed at any moment, and the next `--resume` must still make the same
//! decision, so [`start`] changes a directory in an order where every step leaves it
//! reading as before or as after: it removes the old search's files but `run-key` and
//! `inputs.txt` (what [`Saved::read`] looks at), then replaces `run-key` in one rename
//! with the new key followed by the saved tests the search starts from (a search
//! continued from them and killed is searched again from the same tests, not from
//! scratch), and only then removes the old `inputs.txt`. `remove_dir_all` would not do:
//! it removes in directory order, which can put `run-key` first (it does on ext4 for
//! these names), and a kill after it leaves the old tests without a key, which the next
//! run takes as seeds of another run's (measured: 32 sides covered instead of 30).

use crate::error::{DriverError, Result};
use crate::plan::Specs;
use fpforge_engine::{EngineKind, Settings};
use fpforge_report::index::{Measure, RowOutcome};
use fpforge_report::outdir::INPUTS;
use fpir::{Func, Module};
use std::path::Path;

/// The file of a function's directory that holds its key.
const RUN_KEY: &str = "run-key";

/// The format of the keys written now, before a colon in each: `v2:` and 16 hex digits.
/// (The unversioned keys of earlier releases were format 1.) A change of what is hashed
/// (the canonical text of [`Settings`], [`fpir::write_reached`], the parts below) raises
/// it, so a key of another format never matches by accident.
const KEY_FORMAT: &str = "v2";

/// The key of `parts`: [`KEY_FORMAT`], a colon and their 64-bit FNV-1a hash, the same on
/// every machine and toolchain, so every shard of a run computes the same key.
pub(crate) fn fnv1a<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let hash = parts
        .into_iter()
        .flat_map(|part| part.bytes().chain([0u8]))
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("{KEY_FORMAT}:{hash:016x}")
}

/// The key of a run of `engine` with `settings` (every setting that changes its results,
/// [`crate::run::Job::settings`]).
pub fn run_key(engine: EngineKind, settings: &Settings) -> String {
    fnv1a([engine.name(), &settings.text()])
}

/// The key of `func` in a run whose key is `run`, searched with `specs` (its own
/// fpforge.toml specs, or the run-wide ones that name its parameters): the run's key,
/// the specs' text and the text of the function as lowered with everything it reaches
/// ([`fpir::write_reached`]).
pub fn function_key(run: &str, specs: &Specs, module: &Module, func: Func) -> String {
    let reached = fpir::write_reached(module, func);
    fnv1a([run, &specs.settings().text(), &reached])
}

/// What a function's directory holds from an earlier run.
#[derive(Debug)]
pub enum Saved {
    /// Nothing to reuse: search from the start.
    Nothing,
    /// Finished with the same settings: this row, and no search.
    Finished(RowOutcome),
    /// Tests to start from, one per line: the `inputs.txt` of a run with other settings,
    /// or the tests a search with the same settings started from and did not finish.
    Tests(String),
}

impl Saved {
    /// What `dir` holds for a function of key `key` whose row `measure` reads.
    pub fn read(dir: &Path, key: &str, measure: Measure) -> Saved {
        if let Ok(text) = std::fs::read_to_string(dir.join(RUN_KEY)) {
            let (saved_key, seeds) = text.split_once('\n').unwrap_or((&text, ""));
            if saved_key == key {
                return match measure.read(dir) {
                    Ok(outcome) if outcome.completed() => Saved::Finished(outcome),
                    _ if seeds.is_empty() => Saved::Nothing,
                    _ => Saved::Tests(seeds.to_string()),
                };
            }
        }
        match std::fs::read_to_string(dir.join(INPUTS)) {
            Ok(tests) if !tests.trim().is_empty() => Saved::Tests(tests),
            _ => Saved::Nothing,
        }
    }
}

/// Readies `dir` for a search of key `key` that starts from `seeds` (the tests of
/// [`Saved::Tests`], if any) and whose row `measure` reads: empties it when an earlier
/// search wrote it (it has a `run-key`: what that search left would mix with the new
/// one's files; a directory fpforge did not write is never emptied, only its report,
/// which the search replaces anyway and which would otherwise read as the new key's
/// until it does) and writes the key and the seeds into `run-key`, in the order the
/// module docs give.
pub fn start(dir: &Path, key: &str, seeds: Option<&str>, measure: Measure) -> Result<()> {
    let ours = dir.join(RUN_KEY).is_file();
    if ours {
        clear(dir, &[RUN_KEY, INPUTS])?;
    } else {
        remove_file(&dir.join(measure.report_file()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| DriverError::io("create", dir, e))?;
    let seeds = seeds.unwrap_or("");
    fpforge_report::write_atomic(&dir.join(RUN_KEY), &format!("{key}\n{seeds}"))?;
    if ours {
        remove_file(&dir.join(INPUTS))?;
    }
    Ok(())
}

/// Removes `dir`, which an earlier search wrote, `run-key` last: a kill on the way
/// leaves a directory that still says whose it is.
pub fn remove(dir: &Path) -> Result<()> {
    clear(dir, &[RUN_KEY])?;
    remove_file(&dir.join(RUN_KEY))?;
    std::fs::remove_dir(dir).map_err(|e| DriverError::io("remove", dir, e))
}

/// Removes everything in `dir` but the files named `keep`.
fn clear(dir: &Path, keep: &[&str]) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| DriverError::io("clear", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| DriverError::io("clear", dir, e))?;
        if keep.iter().any(|&name| entry.file_name() == name) {
            continue;
        }
        let path = entry.path();
        let removed = if entry.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| DriverError::io("clear", &path, e))?;
    }
    Ok(())
}

/// Removes the file `path` if it is there.
fn remove_file(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(DriverError::io("remove", path, e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::out::TestSet;
    use crate::prover::ConcolicProver;
    use crate::run::{AccuracyJob, CoverJob, ExploreJob, Job, JobBase};
    use fpforge_accuracy::AccuracyConfig;
    use fpforge_cover::{CoverConfig, SideProver};
    use fpforge_engine::Budget;
    use fpforge_explore::EngineConfig;
    use std::sync::Arc;
    use std::time::Duration;

    const FINISHED: &str = r#"{ "finished": true, "stop": "evaluations", "seconds": 1.0,
        "sides": 2, "covered": 1, "infeasible": 0, "not_reached": 1,
        "traps": { "targets": 0, "reached": 0, "infeasible": 0, "not_reached": 0 },
        "crashes": 0, "hangs": 0, "tests": 1 }"#;

    fn dir_with(key: Option<&str>, coverage: Option<&str>, inputs: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        if let Some(key) = key {
            std::fs::write(dir.path().join(RUN_KEY), format!("{key}\n")).unwrap();
        }
        if let Some(coverage) = coverage {
            std::fs::write(dir.path().join("coverage.json"), coverage).unwrap();
        }
        std::fs::write(dir.path().join("inputs.txt"), inputs).unwrap();
        dir
    }

    #[test]
    fn only_a_finished_search_with_the_same_key_is_kept() {
        let kept = dir_with(Some("k1"), Some(FINISHED), "1.5\n");
        assert!(
            matches!(Saved::read(kept.path(), "k1", Measure::Coverage), Saved::Finished(RowOutcome::Ran(c)) if c.covered == 1)
        );
        let stopped = FINISHED.replace("\"evaluations\"", "\"interrupted\"");
        let again = dir_with(Some("k1"), Some(&stopped), "1.5\n");
        assert!(matches!(
            Saved::read(again.path(), "k1", Measure::Coverage),
            Saved::Nothing
        ));
        let cut = FINISHED.replace("\"finished\": true", "\"finished\": false");
        let again = dir_with(Some("k1"), Some(&cut), "1.5\n");
        assert!(matches!(
            Saved::read(again.path(), "k1", Measure::Coverage),
            Saved::Nothing
        ));
    }

    #[test]
    fn another_key_continues_from_the_saved_tests() {
        let other = dir_with(Some("k0"), Some(FINISHED), "1.5\n2.5\n");
        assert!(
            matches!(Saved::read(other.path(), "k1", Measure::Coverage), Saved::Tests(t) if t == "1.5\n2.5\n")
        );
        let unkeyed = dir_with(None, None, "1.5\n");
        assert!(matches!(
            Saved::read(unkeyed.path(), "k1", Measure::Coverage),
            Saved::Tests(_)
        ));
        let empty = dir_with(Some("k0"), None, "");
        assert!(matches!(
            Saved::read(empty.path(), "k1", Measure::Coverage),
            Saved::Nothing
        ));
    }

    #[test]
    fn only_a_directory_fpforge_wrote_is_cleared() {
        let dir = dir_with(Some("k0"), Some(FINISHED), "1.5\n");
        std::fs::create_dir(dir.path().join("crashes")).unwrap();
        std::fs::write(dir.path().join("crashes/crash-1.txt"), "0.5\n").unwrap();
        start(dir.path(), "k1", None, Measure::Coverage).unwrap();
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [RUN_KEY]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(RUN_KEY)).unwrap(),
            "k1\n"
        );
        let user = tempfile::tempdir().unwrap();
        std::fs::write(user.path().join("notes.txt"), "mine").unwrap();
        std::fs::write(user.path().join("coverage.json"), FINISHED).unwrap();
        start(user.path(), "k1", None, Measure::Coverage).unwrap();
        assert!(
            user.path().join("notes.txt").is_file(),
            "not fpforge's: kept"
        );
        assert!(
            matches!(
                Saved::read(user.path(), "k1", Measure::Coverage),
                Saved::Nothing
            ),
            "another search's report is no finished search of the new key"
        );
    }

    #[test]
    fn removing_a_directory_removes_it_whole() {
        let dir = holding(&[
            ("f/run-key", "k1\n"),
            ("f/inputs.txt", "1.5\n"),
            ("f/crashes/crash-1.txt", "0.5\n"),
        ]);
        remove(&dir.path().join("f")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// What a resume decides for `dir` and key `k1`, in words.
    fn decision(dir: &Path) -> String {
        match Saved::read(dir, "k1", Measure::Coverage) {
            Saved::Nothing => "from scratch".to_string(),
            Saved::Finished(_) => "keep".to_string(),
            Saved::Tests(tests) => format!("from {tests:?}"),
        }
    }

    /// A directory holding `files` (name, text; a name with a `/` in a subdirectory).
    fn holding(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_kill_at_any_step_of_start_leaves_the_decision_it_had() {
        let unfinished = FINISHED.replace("\"finished\": true", "\"finished\": false");
        // Each case: the directory before `start(k1, seeds)` (a finished search of
        // another key, an unfinished one of this key with and without saved tests), then
        // what each step leaves (the old search's files removed one by one, the key
        // replaced, the old tests removed, the new search's first files written).
        let cases: [(&str, &str, Option<&str>, &str); 3] = [
            (
                "k0\n",
                FINISHED,
                Some("1.5\n2.5\n"),
                "from \"1.5\\n2.5\\n\"",
            ),
            ("k1\n3.5\n", &unfinished, Some("3.5\n"), "from \"3.5\\n\""),
            ("k1\n", &unfinished, None, "from scratch"),
        ];
        for (key_file, report, seeds, want) in cases {
            let old = [
                ("coverage.json", report),
                ("coverage.lcov", "TN:\n"),
                ("crashes/crash-1.txt", "0.5\n"),
            ];
            let new_key = format!("k1\n{}", seeds.unwrap_or(""));
            let mut states: Vec<Vec<(&str, &str)>> = Vec::new();
            for kept in (0..=old.len()).rev() {
                let mut files = vec![(RUN_KEY, key_file), (INPUTS, "1.5\n2.5\n")];
                files.extend_from_slice(&old[..kept]);
                states.push(files);
            }
            states.push(vec![(RUN_KEY, &new_key), (INPUTS, "1.5\n2.5\n")]);
            states.push(vec![(RUN_KEY, &new_key)]);
            states.push(vec![
                (RUN_KEY, &new_key),
                (INPUTS, "9.5\n"),
                ("coverage.json", &unfinished),
            ]);
            for (step, files) in states.iter().enumerate() {
                let dir = holding(files);
                assert_eq!(decision(dir.path()), want, "{key_file:?}, step {step}");
            }
            let dir = holding(&states[0]);
            start(dir.path(), "k1", seeds, Measure::Coverage).unwrap();
            assert_eq!(decision(dir.path()), want, "{key_file:?}, started");
            assert_eq!(
                std::fs::read_to_string(dir.path().join(RUN_KEY)).unwrap(),
                new_key
            );
            assert!(!dir.path().join(INPUTS).exists());
            let dir = holding(&[(RUN_KEY, &new_key), ("coverage.json", FINISHED)]);
            assert_eq!(decision(dir.path()), "keep", "{key_file:?}, finished");
        }
    }

    /// A function that halves its argument, and one after it that nothing calls.
    const HALF: &str = r#"file file0 "half.c"
func f0 "half"(v0: f64 #x) -> f64 !0:1:1 {
  const v1: f64 = 0x1p-1
bb0:
  v2: f64 = fmul f64 v0, v1 @op0 !0:2:14
  ret v2 !0:2:5
}
"#;

    fn half() -> Module {
        fpir::parse_module(HALF).unwrap()
    }

    /// `cover --seed SEED --evals 2000 --time-limit 30 --arg 'x in [-1, 1]'` with the
    /// concolic prover.
    fn cover_job(seed: u64) -> CoverJob {
        let prover: Arc<dyn SideProver> = Arc::new(ConcolicProver { seed });
        CoverJob {
            config: CoverConfig::default()
                .with_seed(seed)
                .with_prover(Some(prover)),
            base: JobBase {
                budget: Budget::default()
                    .with_evals(Some(2000))
                    .with_time_limit(Some(Duration::from_secs(30))),
                specs: specs(&["x in [-1, 1]"]),
            },
            tests: TestSet::Minimized,
        }
    }

    fn specs(args: &[&str]) -> Specs {
        Specs {
            args: args.iter().map(|a| a.parse().unwrap()).collect(),
            out_args: Vec::new(),
        }
    }

    /// [`cover_job`]'s job of seed 1 with `budget`.
    fn with_budget(budget: Budget) -> CoverJob {
        let mut job = cover_job(1);
        job.base.budget = budget;
        job
    }

    fn cover_key(job: &CoverJob) -> String {
        run_key(EngineKind::Cover, &job.settings())
    }

    #[test]
    fn settings_are_named_values_never_debug_text() {
        let text = cover_job(1).settings().text();
        let want = "fpforge-settings 1
cover.seed = 1
cover.n_start = 500
cover.n_iter = 5
cover.deep = false
cover.spaces = real
cover.spaces = ordered-bits
cover.metric = ulp
cover.ulp_refine = true
cover.targeted = true
cover.levels = true
cover.fuel = 100000
cover.seeding = true
cover.boundaries = true
cover.pairs = true
cover.pair_evals = 2000
cover.jobs = 1
cover.prover.method = concolic
cover.prover.engine.query_timeout = 1
cover.prover.engine.strategy = portfolio
cover.prover.engine.seed = 1
cover.prover.engine.calls = symbolic
cover.prover.engine.exec.fuel = 1000000
cover.prover.engine.exec.max_depth = 50000
cover.prover.engine.exec.stack_bytes = 8388608
cover.prover.engine.exec.heap_bytes = 67108864
cover.prover.engine.exec.rounding = nearest
cover.prover_time = none
budget.evals = 2000
budget.time_limit = 30
specs.args = x in [-1.0, 1.0]
tests = minimized
";
        assert_eq!(text, want);
        let explore = ExploreJob {
            config: EngineConfig::default(),
            base: JobBase {
                budget: Budget::default().with_time_limit(Some(Duration::from_millis(2500))),
                specs: specs(&["n = 3"]),
            },
            tests: TestSet::All,
        };
        let accuracy = AccuracyJob {
            config: AccuracyConfig::default(),
            base: JobBase::default(),
        };
        for text in [explore.settings().text(), accuracy.settings().text()] {
            for line in text.lines().skip(1) {
                let (name, value) = line.split_once(" = ").unwrap();
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_lowercase() || b"_.".contains(&b)),
                    "{line}"
                );
                for debug in ["Some(", "None", "{", "Config", "Portfolio", "Symbolic"] {
                    assert!(!value.contains(debug), "{line}");
                }
            }
        }
        let accuracy = accuracy.settings().text();
        assert!(
            accuracy.contains("\naccuracy.oracle = auto\n"),
            "{accuracy}"
        );
        assert!(
            accuracy.contains("\naccuracy.sampling = uniform:0:1\n"),
            "{accuracy}"
        );
        assert!(explore
            .settings()
            .text()
            .contains("\nbudget.time_limit = 2.5\n"));
    }

    #[test]
    fn keys_are_golden_for_fixed_settings_and_function() {
        // Fixed by the canonical texts: a change here invalidates every saved run, so it
        // must come with a new KEY_FORMAT or a reason.
        let run = cover_key(&cover_job(1));
        assert_eq!(run, "v2:dffe8d4e028e6b27");
        let key = function_key(&run, &specs(&["x in [-1, 1]"]), &half(), Func(0));
        assert_eq!(key, "v2:aabfb61e22312c54");
    }

    #[test]
    fn every_setting_changes_the_run_key() {
        let base = cover_key(&cover_job(1));
        let mut changed = vec![
            ("seed", cover_job(2)),
            (
                "evals",
                with_budget(Budget::default().with_evals(Some(4000))),
            ),
            (
                "time",
                with_budget(
                    Budget::default()
                        .with_evals(Some(2000))
                        .with_time_limit(Some(Duration::from_secs(31))),
                ),
            ),
            (
                "specs",
                CoverJob {
                    base: JobBase {
                        specs: specs(&["x in [-1, 2]"]),
                        ..cover_job(1).base
                    },
                    ..cover_job(1)
                },
            ),
            (
                "tests",
                CoverJob {
                    tests: TestSet::All,
                    ..cover_job(1)
                },
            ),
        ];
        let mut job = cover_job(1);
        job.config = job.config.with_n_start(501);
        changed.push(("starts", job));
        let mut job = cover_job(1);
        job.config = job.config.with_prover(None);
        changed.push(("no prover", job));
        for (what, job) in &changed {
            assert_ne!(cover_key(job), base, "{what}");
        }
        let mut job = cover_job(1);
        job.config = job.config.with_compile(fpforge_exec::Compilation::Off);
        assert_eq!(cover_key(&job), base, "the compiled tier computes the same");
        let interrupt = Budget::default()
            .with_evals(Some(2000))
            .with_time_limit(Some(Duration::from_secs(30)))
            .with_interrupt(Some(fpforge_engine::Interrupt::default()));
        assert_eq!(
            cover_key(&with_budget(interrupt)),
            base,
            "an interrupt is not a setting"
        );
        let settings = cover_job(1).settings();
        assert_ne!(run_key(EngineKind::Explore, &settings), base);
    }

    #[test]
    fn the_function_key_is_its_text_and_what_it_reaches() {
        let run = cover_key(&cover_job(1));
        let key = |text: &str, specs: &Specs| {
            function_key(&run, specs, &fpir::parse_module(text).unwrap(), Func(0))
        };
        let none = Specs::default();
        let base = key(HALF, &none);
        let unrelated = format!("{HALF}func f1 \"other\"(v0: f64) -> f64 {{\nbb0:\n  ret v0\n}}\n");
        assert_eq!(
            key(&unrelated, &none),
            base,
            "what it does not reach is not in it"
        );
        let third = HALF.replace("0x1p-1", "0x1.5555555555555p-2");
        assert_ne!(key(&third, &none), base, "another constant");
        let moved = HALF.replace("!0:2:14", "!0:3:14");
        assert_ne!(key(&moved, &none), base, "another line in the reports");
        let renamed = HALF.replace("half.c", "third.c");
        assert_ne!(key(&renamed, &none), base, "another file in the reports");
        assert_ne!(key(HALF, &specs(&["x: f64"])), base, "its own specs");
        let other_run = cover_key(&cover_job(2));
        assert_ne!(function_key(&other_run, &none, &half(), Func(0)), base);
    }

    #[test]
    fn a_key_of_an_earlier_release_continues_from_the_saved_tests() {
        let run = cover_key(&cover_job(1));
        let key = function_key(&run, &Specs::default(), &half(), Func(0));
        assert!(key.starts_with("v2:"), "{key}");
        // A `run-key` as fpforge 4deffda wrote it: a bare hash of `Debug` texts.
        let old = dir_with(Some("7d3f5a2e9c41b0d8"), Some(FINISHED), "0x1p-1\n");
        assert!(
            matches!(Saved::read(old.path(), &key, Measure::Coverage), Saved::Tests(t) if t == "0x1p-1\n"),
            "finished, but not known to be with the same settings"
        );
        // FNV-1a of "a\0": fixed, so shards on other machines agree.
        assert_eq!(fnv1a(["a"]), "v2:089be207b544f1e4");
    }
}
