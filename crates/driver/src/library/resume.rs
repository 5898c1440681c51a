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

use crate::error::{DriverError, Result};
use fpforge_report::index::{Measure, RowOutcome};
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
    /// Tests of a run with other settings: the text of its `inputs.txt`.
    Tests(String),
}

impl Saved {
    /// What `dir` holds for a function of key `key` whose row `measure` reads.
    pub fn read(dir: &Path, key: &str, measure: Measure) -> Saved {
        let same_key = std::fs::read_to_string(dir.join(RUN_KEY)).is_ok_and(|k| k.trim() == key);
        if same_key {
            return match measure.read(dir) {
                Ok(outcome) if outcome.completed() => Saved::Finished(outcome),
                _ => Saved::Nothing,
            };
        }
        match std::fs::read_to_string(dir.join(fpforge_report::outdir::INPUTS)) {
            Ok(tests) if !tests.trim().is_empty() => Saved::Tests(tests),
            _ => Saved::Nothing,
        }
    }
}

/// Empties `dir` when an earlier search wrote it (it has a `run-key`: what that search
/// left would mix with the new one's files; a directory fpforge did not write is never
/// removed) and writes the function's key into it.
pub fn start(dir: &Path, key: &str) -> Result<()> {
    if dir.join(RUN_KEY).is_file() {
        std::fs::remove_dir_all(dir).map_err(|e| DriverError::io("clear", dir, e))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| DriverError::io("create", dir, e))?;
    fpforge_report::write_atomic(&dir.join(RUN_KEY), &format!("{key}\n"))?;
    Ok(())
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
        start(dir.path(), "k1").unwrap();
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
        start(user.path(), "k1").unwrap();
        assert!(
            user.path().join("notes.txt").is_file(),
            "not fpforge's: kept"
        );
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
