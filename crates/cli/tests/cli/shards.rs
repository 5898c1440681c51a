//! Runs over several functions split and continued: `--shard K/N` in separate processes
//! joined by `fpforge merge` into what one run writes, merge refusing shards that overlap,
//! are missing or come from different runs, `--resume` after Ctrl-C ending with the
//! files of an uninterrupted run, and `--resume` of a directory an earlier release wrote
//! (`tests/fixtures/resume/`); `cover` mostly, `accuracy` too.

use crate::common::{fixture, fpforge, json_file, stderr};
use crate::library::{on_library, row_names, without_times, ALL};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `fpforge cover tests/fixtures/library --all --out DIR --evals 3000 EXTRA...` as a child
/// process with SIGINT at its default.
fn spawn_cover(dir: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(["cover", &fixture("library", ""), "--all", "--out"])
        .arg(dir)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fpforge binary runs")
}

/// The text of `dir/function/file`.
fn text(dir: &Path, function: &str, file: &str) -> String {
    let path = dir.join(function).join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts that `got` holds the files of `want` (timing fields aside): `index.json`, the
/// merged `coverage.lcov`, and every function's `coverage.json`, `inputs.txt` and
/// `coverage.lcov`.
fn assert_same_run(want: &Path, got: &Path) {
    let index = |dir: &Path| without_times(&json_file(&dir.join("index.json")));
    assert_eq!(index(want), index(got));
    let lcov = |dir: &Path| std::fs::read_to_string(dir.join("coverage.lcov")).unwrap();
    assert_eq!(lcov(want), lcov(got));
    for name in ALL.iter().filter(|&&n| n != "first") {
        let coverage = |dir: &Path| {
            without_times(&serde_json::from_str(&text(dir, name, "coverage.json")).unwrap())
        };
        assert_eq!(coverage(want), coverage(got), "{name}");
        for file in ["inputs.txt", "coverage.lcov"] {
            assert_eq!(
                text(want, name, file),
                text(got, name, file),
                "{name}/{file}"
            );
        }
    }
}

#[test]
fn three_shards_in_separate_processes_merge_into_the_single_run() {
    let root = tempfile::tempdir().unwrap();
    let shard_dirs: Vec<_> = (1..=3).map(|k| root.path().join(format!("s{k}"))).collect();
    let children: Vec<Child> = shard_dirs
        .iter()
        .enumerate()
        .map(|(k, dir)| {
            spawn_cover(
                dir,
                &["--evals", "3000", "--shard", &format!("{}/3", k + 1)],
            )
        })
        .collect();
    let single = root.path().join("single");
    let run = on_library("cover", &single, &["--all"]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let mut seen = Vec::new();
    for (k, child) in children.into_iter().enumerate() {
        let done = child.wait_with_output().unwrap();
        assert!(
            matches!(done.status.code(), Some(0 | 3)),
            "{}",
            stderr(&done)
        );
        let index = json_file(&shard_dirs[k].join("index.json"));
        assert_eq!(index["shard"]["index"], k + 1);
        assert_eq!(index["shard"]["count"], 3);
        assert_eq!(index["shard"]["selected"], serde_json::json!(ALL));
        let names = row_names(&index);
        assert!(!names.is_empty(), "every shard gets a function: {index}");
        seen.extend(names);
    }
    seen.sort();
    assert_eq!(seen, ALL, "the shards partition the selection");
    let merged = root.path().join("merged");
    let dirs: Vec<String> = shard_dirs.iter().map(|d| d.display().to_string()).collect();
    let out = merged.display().to_string();
    let run = fpforge(&[
        "merge", &dirs[2], &dirs[0], &dirs[1], "--out", &out, "--quiet",
    ]);
    assert_eq!(
        run.status.code(),
        Some(3),
        "lookup crashes: {}",
        stderr(&run)
    );
    assert!(json_file(&merged.join("index.json")).get("shard").is_none());
    assert_same_run(&single, &merged);
    assert!(merged.join("lookup/crashes").is_dir());
    let page = std::fs::read_to_string(merged.join("report.html")).unwrap();
    assert!(page.contains("<a href=\"clamp/report.html\">"), "{page}");
}

#[test]
fn merge_names_overlapping_missing_and_foreign_shards() {
    let root = tempfile::tempdir().unwrap();
    let shard = |name: &str, flags: &[&str]| {
        let dir = root.path().join(name);
        let run = on_library(
            "cover",
            &dir,
            &[&["-f", "cl*", "-f", "scale"], flags].concat(),
        );
        assert!(matches!(run.status.code(), Some(0 | 3)), "{}", stderr(&run));
        dir.display().to_string()
    };
    let one = shard("one", &["--shard", "1/2"]);
    let two = shard("two", &["--shard", "2/2"]);
    let other_seed = shard("other", &["--shard", "2/2", "--seed", "7"]);
    let unsplit = shard("unsplit", &[]);
    let out = root.path().join("out").display().to_string();
    let cases: [(&[&str], &str); 5] = [
        (&[&one, &one], "shard 1/2 is given twice"),
        (&[&one], "missing shards: 2/2"),
        (&[&one, &other_seed], "are shards of different runs"),
        (&[&one, &unsplit], "not a shard's index (no \"shard\")"),
        (&[&one, &two, &one], "shard 1/2 is given twice"),
    ];
    for (dirs, want) in cases {
        let run = fpforge(&[&["merge"], dirs, &["--out", &out]].concat());
        assert_eq!(run.status.code(), Some(1), "{dirs:?}");
        assert!(stderr(&run).contains(want), "{dirs:?}: {}", stderr(&run));
        assert!(!Path::new(&out).join("index.json").exists(), "{dirs:?}");
    }
    let run = fpforge(&["merge", &one, &two, "--out", &one]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("overlaps the shard"),
        "{}",
        stderr(&run)
    );
    let run = fpforge(&["merge", &one, &two, "--out", &out, "--json"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(
        row_names(&json_file(&Path::new(&out).join("index.json"))),
        ["clamp", "classify", "scale"]
    );
}

#[test]
fn shard_numbers_count_from_one() {
    let dir = tempfile::tempdir().unwrap();
    for (shard, want) in [
        ("0/3", "K counts from 1 to N"),
        ("4/3", "K must be between 1 and 3"),
        ("2", "--shard must be K/N"),
    ] {
        let run = on_library("cover", dir.path(), &["--all", "--shard", shard]);
        assert_eq!(run.status.code(), Some(1), "{shard}");
        assert!(stderr(&run).contains(want), "{shard}: {}", stderr(&run));
    }
    let run = on_library("cover", dir.path(), &["-f", "clamp", "--shard", "1/2"]);
    assert!(
        stderr(&run).contains("--shard is for runs over several functions"),
        "{}",
        stderr(&run)
    );
}

/// Flags of a run whose `near_root_two` searches for seconds, ended by its evaluation
/// budget (deterministic) rather than by the clock.
const LONG: [&str; 8] = [
    "--evals",
    "2000000",
    "--starts",
    "100000",
    "--no-reach",
    "--time-limit",
    "600",
    "--jobs",
];

#[test]
fn resume_after_ctrl_c_ends_with_the_files_of_an_uninterrupted_run() {
    let root = tempfile::tempdir().unwrap();
    let (whole, resumed) = (root.path().join("whole"), root.path().join("resumed"));
    let flags = [&LONG[..], &["1"]].concat();
    let child = spawn_cover(&resumed, &flags);
    let started_long = resumed.join("near_root_two/run-key");
    let started = Instant::now();
    while !started_long.exists() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill(2) on the child's own pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
    let index = json_file(&resumed.join("index.json"));
    assert_eq!(index["functions"][4]["status"], "interrupted", "{index}");
    let finished_before: Vec<String> = index["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["status"] == "finished")
        .map(|row| row["function"].as_str().unwrap().to_string())
        .collect();
    let kept_coverage: Vec<String> = finished_before
        .iter()
        .map(|name| text(&resumed, name, "coverage.json"))
        .collect();

    let whole_run = spawn_cover(&whole, &flags).wait_with_output().unwrap();
    assert_eq!(whole_run.status.code(), Some(3), "{}", stderr(&whole_run));
    let again = spawn_cover(&resumed, &[&flags[..], &["--resume"]].concat())
        .wait_with_output()
        .unwrap();
    assert_eq!(again.status.code(), Some(3), "{}", stderr(&again));
    assert_same_run(&whole, &resumed);
    for (name, before) in finished_before.iter().zip(&kept_coverage) {
        assert_eq!(
            &text(&resumed, name, "coverage.json"),
            before,
            "{name} was finished: kept as it was, times included"
        );
    }
}

#[test]
fn resume_with_other_settings_continues_from_the_saved_tests() {
    let dir = tempfile::tempdir().unwrap();
    let flags = ["-f", "near*", "--no-reach", "--no-seeding"];
    let run = on_library(
        "cover",
        dir.path(),
        &[&flags[..], &["--seed", "1"]].concat(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let saved = text(dir.path(), "near_root_two", "inputs.txt");
    let key = text(dir.path(), "near_root_two", "run-key");
    let fresh = tempfile::tempdir().unwrap();
    let run = on_library(
        "cover",
        fresh.path(),
        &[&flags[..], &["--seed", "2"]].concat(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_ne!(
        text(fresh.path(), "near_root_two", "inputs.txt"),
        saved,
        "another seed finds another test"
    );
    let resumed = &[&flags[..], &["--seed", "2", "--resume"]].concat();
    let run = on_library("cover", dir.path(), resumed);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_ne!(text(dir.path(), "near_root_two", "run-key"), key);
    assert_eq!(
        text(dir.path(), "near_root_two", "inputs.txt"),
        saved,
        "the saved test runs first and takes the side"
    );
}

#[test]
fn accuracy_shards_merge_and_resume_like_cover() {
    let root = tempfile::tempdir().unwrap();
    let flags = ["--all", "--evals", "2000", "--quiet"];
    let accuracy = |dir: &Path, extra: &[&str]| {
        let run = on_library("accuracy", dir, &[&flags[..], extra].concat());
        assert!(matches!(run.status.code(), Some(0 | 3)), "{}", stderr(&run));
    };
    let single = root.path().join("single");
    accuracy(&single, &[]);
    let shards: Vec<String> = (1..=2)
        .map(|k| {
            let dir = root.path().join(format!("s{k}"));
            accuracy(&dir, &["--shard", &format!("{k}/2")]);
            dir.display().to_string()
        })
        .collect();
    let merged = root.path().join("merged");
    let out = merged.display().to_string();
    let run = fpforge(&["merge", &shards[0], &shards[1], "--out", &out, "--quiet"]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let index = |dir: &Path| without_times(&json_file(&dir.join("index.json")));
    assert_eq!(index(&single), index(&merged));
    for name in ALL.iter().filter(|&&n| n != "first") {
        assert_eq!(
            text(&single, name, "inputs.txt"),
            text(&merged, name, "inputs.txt"),
            "{name}"
        );
    }
    let before = text(&single, "scale", "report.json");
    accuracy(&single, &["--resume"]);
    assert_eq!(
        text(&single, "scale", "report.json"),
        before,
        "finished: kept"
    );
}

/// `fpforge cover tests/fixtures/cli/branches.c --all --evals 2000 --seed 1 --out OUT` as
/// fpforge 4deffda wrote it, before keys had a format: `run-key`, `inputs.txt`,
/// `coverage.json` and the crash of each function and `index.json` (without the files
/// `--resume` does not read: the pages, the lcov files, `regression.c`).
const PREVIOUS_RELEASE: &str = "branches-4deffda";

/// The functions of `tests/fixtures/cli/branches.c`, in name order.
const BRANCHES: [&str; 3] = ["double_and_sum", "hypot_via_libm", "sign_class"];

/// A copy of the previous release's output directory in `root`.
fn previous_release_out(root: &Path, name: &str) -> std::path::PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let out = root.join(name);
    copy(Path::new(&fixture("resume", PREVIOUS_RELEASE)), &out);
    out
}

/// `fpforge cover tests/fixtures/cli/branches.c --all --resume --out OUT FLAGS...`.
fn resume_branches(out: &Path, flags: &[&str]) -> std::process::Output {
    let source = fixture("cli", "branches.c");
    let out = out.display().to_string();
    let args = [
        &["cover", &source, "--all", "--resume", "--out", &out],
        flags,
    ]
    .concat();
    fpforge(&args)
}

/// The functions whose saved tests a run dropped (its warnings name their directories).
fn dropped(run: &std::process::Output) -> Vec<String> {
    stderr(run)
        .lines()
        .filter(|l| l.contains("saved tests do not fit"))
        .filter_map(|l| {
            let path = l.split(": ").nth(2)?;
            let dir = Path::new(path.split(':').next()?).parent()?;
            Some(dir.file_name()?.to_string_lossy().into_owned())
        })
        .collect()
}

#[test]
fn resume_continues_a_directory_of_the_previous_release() {
    let root = tempfile::tempdir().unwrap();
    let flags = ["--evals", "2000", "--seed", "1", "--quiet"];
    let out = previous_release_out(root.path(), "same-flags");
    let run = resume_branches(&out, &flags);
    // The previous release crashed `double_and_sum(a, n)` with `n` past `a`; this one
    // keeps `n` within `a` (the caller's contract), so its saved one-element tests no
    // longer fit and it alone starts afresh.
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(dropped(&run), ["double_and_sum"], "{}", stderr(&run));
    let index = json_file(&out.join("index.json"));
    assert_eq!(index["schema"], 1);
    assert_eq!(index["engine"], "cover");
    assert_eq!(row_names(&index), BRANCHES);
    assert_eq!(index["totals"]["finished"], 3, "{index}");
    for (row, name) in index["functions"].as_array().unwrap().iter().zip(BRANCHES) {
        assert_eq!(row["status"], "finished", "{row}");
        let coverage = json_file(&out.join(name).join("coverage.json"));
        for field in ["sides", "covered", "tests", "crashes", "stop"] {
            assert_eq!(row[field], coverage[field], "{name}: {field}");
        }
        for file in ["inputs.txt", "coverage.lcov", "regression.c", "report.html"] {
            assert!(out.join(name).join(file).is_file(), "{name}/{file}");
        }
        let key = text(&out, name, "run-key");
        assert!(
            key.starts_with("v2:"),
            "{name}: a key of this release: {key}"
        );
    }
    for file in ["coverage.lcov", "report.html"] {
        assert!(out.join(file).is_file(), "{file}");
    }

    // The directory is now this release's: resumed again, every function is kept.
    let kept: Vec<String> = BRANCHES
        .iter()
        .map(|name| text(&out, name, "coverage.json"))
        .collect();
    let again = resume_branches(&out, &flags);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    for (name, before) in BRANCHES.iter().zip(&kept) {
        assert_eq!(
            &text(&out, name, "coverage.json"),
            before,
            "{name}: kept, times included"
        );
    }

    // An earlier key is not this release's, so the saved tests are seeds: without
    // special values (`--no-seeding`), 20 evaluations never try a NaN or a zero, yet the
    // saved tests take all of sign_class's sides, and they are its tests again.
    let out = previous_release_out(root.path(), "other-flags");
    let flags = ["--evals", "20", "--seed", "1", "--no-seeding", "--no-reach"];
    let run = resume_branches(&out, &flags);
    assert!(matches!(run.status.code(), Some(0 | 3)), "{}", stderr(&run));
    assert_eq!(dropped(&run), ["double_and_sum"], "{}", stderr(&run));
    let sign_class = json_file(&out.join("sign_class/coverage.json"));
    assert_eq!(
        (&sign_class["covered"], &sign_class["sides"]),
        (&6.into(), &6.into())
    );
    assert_eq!(
        text(&out, "sign_class", "inputs.txt"),
        std::fs::read_to_string(fixture(
            "resume",
            &format!("{PREVIOUS_RELEASE}/sign_class/inputs.txt")
        ))
        .unwrap(),
    );
}
