//! A run over several functions killed with SIGKILL (no chance to finish its files) at
//! several moments, then `--resume`d until it ends, holds the files of a run that was
//! never interrupted: `index.json` and each `coverage.json` timing fields aside, every
//! other file byte for byte, no file left over (a temporary one, an old search's), and
//! every function's page final. On `tests/fixtures/library` with an evaluation budget
//! and no prover, so that the run is deterministic.

use crate::common::{fixture, json_file, stderr};
use crate::library::without_times;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A run ended by its evaluations (no time limit, no prover with a time budget of its
/// own), whose `near_root_two` searches for about a second (its true side is
/// infeasible), the other functions for milliseconds.
const FLAGS: [&str; 10] = [
    "--all",
    "--evals",
    "600000",
    "--starts",
    "100000",
    "--no-reach",
    "--time-limit",
    "600",
    "--jobs",
    "2",
];

/// `fpforge cover tests/fixtures/library FLAGS --out OUT [--resume]` as a child process.
fn spawn(out: &Path, resume: bool) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(["cover", &fixture("library", "")])
        .args(FLAGS)
        .args(resume.then_some("--resume"))
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fpforge binary runs")
}

/// Whether `dir/coverage.json` says its search finished.
fn finished(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("coverage.json"))
        .is_ok_and(|text| text.contains("\"finished\": true"))
}

/// When to kill: once `ready` holds for the output directory, `after` later.
struct Moment {
    ready: fn(&Path) -> bool,
    after: Duration,
}

/// The moments, one run each: a search has just started (its directory keyed), the
/// long search is under way, it has just finished (its files being completed), the
/// index is being written.
const MOMENTS: [Moment; 4] = [
    Moment {
        ready: |out| {
            std::fs::read_dir(out).is_ok_and(|mut dirs| {
                dirs.any(|d| d.is_ok_and(|d| d.path().join("run-key").exists()))
            })
        },
        after: Duration::ZERO,
    },
    Moment {
        ready: |out| out.join("near_root_two/run-key").exists(),
        after: Duration::from_millis(300),
    },
    Moment {
        ready: |out| finished(&out.join("near_root_two")),
        after: Duration::ZERO,
    },
    Moment {
        ready: |out| out.join("index.json").exists(),
        after: Duration::ZERO,
    },
];

/// Runs `child` until `moment` comes, then kills it (SIGKILL); returns whether the kill
/// ended it (rather than the run ending first).
fn kill_at(mut child: Child, out: &Path, moment: &Moment) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if (moment.ready)(out) {
            std::thread::sleep(moment.after);
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let ended = child.wait_with_output().unwrap();
    ended.status.signal() == Some(libc::SIGKILL)
}

/// Every file under `out` by its path inside `out`: JSON without its timing fields,
/// a function's page as whether it says its run finished (pages print times), a
/// finding's file with `out` written `OUT` (its replay command names it), anything else
/// as its bytes.
fn files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![out.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let name = path.strip_prefix(out).unwrap().display().to_string();
            let bytes = std::fs::read(&path).unwrap();
            let compared = match path.extension().and_then(|e| e.to_str()) {
                Some("json") => without_times(&json_file(&path)).to_string().into_bytes(),
                Some("html") if dir != out => {
                    let page = String::from_utf8(bytes).unwrap();
                    let final_page = page.contains("id=\"finished\" data-value=\"true\"");
                    assert!(final_page, "{}: not the final page", path.display());
                    Vec::new()
                }
                Some("html") => Vec::new(),
                Some("txt") if name.contains("crashes/") => String::from_utf8(bytes)
                    .unwrap()
                    .replace(&out.display().to_string(), "OUT")
                    .into_bytes(),
                _ => bytes,
            };
            files.insert(name, compared);
        }
    }
    files
}

#[test]
fn a_run_killed_at_any_moment_and_resumed_ends_with_the_files_of_an_uninterrupted_run() {
    let root = tempfile::tempdir().unwrap();
    let (whole, killed) = (root.path().join("whole"), root.path().join("killed"));
    let run = spawn(&whole, false).wait_with_output().unwrap();
    assert_eq!(
        run.status.code(),
        Some(3),
        "lookup crashes: {}",
        stderr(&run)
    );

    let kills: Vec<bool> = MOMENTS
        .iter()
        .enumerate()
        .map(|(i, moment)| kill_at(spawn(&killed, i > 0), &killed, moment))
        .collect();
    // The later moments come a few milliseconds before the run would end on its own:
    // on a loaded machine the run may win that race, so only the first two must kill.
    assert!(
        kills[..2].iter().all(|&k| k),
        "the first two moments come before the run ends: {kills:?}"
    );
    let run = spawn(&killed, true).wait_with_output().unwrap();
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));

    let (want, got) = (files(&whole), files(&killed));
    let (want_names, got_names): (Vec<_>, Vec<_>) = (want.keys().collect(), got.keys().collect());
    for name in [
        "near_root_two/inputs.txt",
        "lookup/crashes/1.txt",
        "coverage.lcov",
    ] {
        assert!(want.contains_key(name), "{name}: {want_names:?}");
    }
    assert_eq!(want_names, got_names);
    for (name, bytes) in &want {
        assert!(bytes == &got[name], "{name} differs");
    }
}
