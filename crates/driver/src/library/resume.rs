//! What a run over several functions finds in `OUT/<function>/` before it runs the
//! function: `--resume` skips the functions already finished with the same settings and
//! continues the others from their saved tests.
//!
//! Each function's directory holds `run-key`, written before its search starts: a hash
//! of the run's settings (the engine's, which include the seed, budgets and `--arg`
//! specs) and of the function as lowered (its body and every function and global it
//! reaches, so an edited source, other compiler flags or trap guards change it). With
//! `--resume` a function whose `run-key` matches and whose `coverage.json` (`report.json`
//! for `accuracy`) says `finished` with another stop than `interrupted` keeps its files
//! and row. One whose
//! key matches but did not finish (Ctrl-C, a killed machine) is searched again from the
//! start: the search is deterministic, so this gives exactly the files an uninterrupted
//! run writes, which its saved tests as seeds would not (seeds change the search). One
//! whose key differs (an extended budget, another seed, an edited function) continues
//! from its saved `inputs.txt`, re-executed as seeds before the search (`cover` and
//! `explore`; `accuracy`, which takes no seeds, searches it again from the start).
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
use fpforge_report::index::{Measure, RowOutcome};
use fpforge_report::outdir::INPUTS;
use fpir::{Func, Module};
use std::path::Path;

/// The file of a function's directory that holds its key.
const RUN_KEY: &str = "run-key";

/// A stable hash of `parts`: 64-bit FNV-1a, the same on every machine and toolchain, so
/// every shard of a run computes the same key.
fn fnv1a<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let hash = parts
        .into_iter()
        .flat_map(|part| part.bytes().chain([0u8]))
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("{hash:016x}")
}

/// The key of a run of `engine` with `settings` (every setting that changes its results).
pub fn run_key(engine: &str, settings: &str) -> String {
    fnv1a([engine, settings])
}

/// The key of `func` in a run whose key is `run`: the run's and the lowered function's
/// with everything it reaches.
pub fn function_key(run: &str, module: &Module, func: Func) -> String {
    let reached: Vec<String> = module
        .reachable_funcs(func)
        .into_iter()
        .map(|f| format!("{:?}", module.funcs[f]))
        .collect();
    let globals = format!("{:?}", module.globals);
    let name = &module.funcs[func].name;
    fnv1a(
        [run, name.as_str(), globals.as_str()]
            .into_iter()
            .chain(reached.iter().map(String::as_str)),
    )
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

    #[test]
    fn keys_are_stable_and_change_with_the_settings() {
        assert_eq!(run_key("cover", "seed 0"), run_key("cover", "seed 0"));
        assert_ne!(run_key("cover", "seed 0"), run_key("cover", "seed 1"));
        assert_ne!(run_key("cover", "seed 0"), run_key("explore", "seed 0"));
        // FNV-1a of "a\0": fixed, so shards on other machines agree.
        assert_eq!(fnv1a(["a"]), "089be207b544f1e4");
    }
}
