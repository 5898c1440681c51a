//! Runs over several functions: `cover` and `explore` on `tests/fixtures/library/` (two
//! files; `lookup` crashes, `first` takes a pointer to pointers no spec fits,
//! `count_bits` has no floating-point parameter, `square` is static, and no input takes
//! `near_root_two`'s true side, so its search runs out its budget) with `--all`,
//! globs, `--functions`, `--jobs` and `--total-time`: one directory per function, an
//! `index.json` that repeats each function's `coverage.json` (`report.json` for
//! `accuracy`), and a merged lcov file. A library search path for several functions:
//! `tests/fixtures/cli/uses_library.c` and `tests/fixtures/libsearch/ratio.c` with
//! `tests/fixtures/cli/libdir` and `tests/fixtures/libsearch/lib`.

use crate::common::{fixture, fpforge, json_file, stderr, stdout};
use std::path::Path;
use std::process::Output;

/// The functions `--all` selects in the fixture, in name order.
pub const ALL: [&str; 6] = [
    "clamp",
    "classify",
    "first",
    "lookup",
    "near_root_two",
    "scale",
];

/// Runs `COMMAND tests/fixtures/library --out DIR EXTRA...`, with `--evals 3000` for
/// `cover`.
pub fn on_library(command: &str, dir: &Path, extra: &[&str]) -> Output {
    let library = fixture("library", "");
    let out = dir.to_string_lossy().into_owned();
    let mut args = vec![command, &library, "--out", &out];
    if command == "cover" {
        args.extend(["--evals", "3000"]);
    }
    args.extend_from_slice(extra);
    fpforge(&args)
}

/// The names of the rows of `index.json`.
pub fn row_names(index: &serde_json::Value) -> Vec<String> {
    index["functions"]
        .as_array()
        .expect("a functions list")
        .iter()
        .map(|row| row["function"].as_str().unwrap().to_string())
        .collect()
}

/// `value` without the fields that hold times (`seconds`, `test_seconds`).
pub fn without_times(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(key, _)| !matches!(key.as_str(), "seconds" | "test_seconds"))
            .map(|(key, v)| (key.clone(), without_times(v)))
            .collect(),
        serde_json::Value::Array(items) => items.iter().map(without_times).collect(),
        other => other.clone(),
    }
}

#[test]
fn all_writes_a_directory_per_function_and_an_index_of_their_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let run = on_library("cover", dir.path(), &["--all"]);
    assert_eq!(
        run.status.code(),
        Some(3),
        "lookup crashes: {}",
        stderr(&run)
    );
    let index = json_file(&dir.path().join("index.json"));
    assert_eq!(index["schema"], 1);
    assert_eq!(index["engine"], "cover");
    assert_eq!(
        row_names(&index),
        ALL,
        "static and integer-only functions are skipped"
    );
    let fields = [
        "sides",
        "covered",
        "infeasible",
        "not_reached",
        "traps",
        "crashes",
        "hangs",
        "tests",
        "seconds",
        "stop",
    ];
    for row in index["functions"].as_array().unwrap() {
        let name = row["function"].as_str().unwrap();
        if name == "first" {
            assert_eq!(row["status"], "error");
            assert!(
                row["error"]
                    .as_str()
                    .unwrap()
                    .contains("pointer to a pointer"),
                "{row}"
            );
            assert!(!dir.path().join(name).exists());
            continue;
        }
        assert_eq!(row["status"], "finished", "{row}");
        assert_eq!(row["directory"], name);
        let coverage = json_file(&dir.path().join(name).join("coverage.json"));
        assert_eq!(coverage["function"], name);
        for field in fields {
            assert_eq!(row[field], coverage[field], "{name}: {field}");
        }
        for file in ["inputs.txt", "coverage.lcov", "regression.c", "report.html"] {
            assert!(dir.path().join(name).join(file).exists(), "{name}/{file}");
        }
    }
    let lookup = &index["functions"][3];
    assert!(lookup["crashes"].as_u64().unwrap() >= 1, "{lookup}");
    assert!(dir.path().join("lookup/crashes").is_dir());
    let totals = &index["totals"];
    assert_eq!(totals["functions"], 6);
    assert_eq!(totals["errors"], 1);
    assert_eq!(totals["not_run"], 0);
    let summed = |field: &str| -> u64 {
        index["functions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|row| row[field].as_u64())
            .sum()
    };
    for field in ["sides", "covered", "crashes", "tests"] {
        assert_eq!(totals[field].as_u64().unwrap(), summed(field), "{field}");
    }
    let text = stdout(&run);
    assert!(
        text.lines()
            .any(|l| l.starts_with("first ") && l.contains(" error: parameter `rows`")),
        "{text}"
    );
    assert!(
        text.contains("total: 6 functions (1 not testable, 0 not run)"),
        "{text}"
    );
}

#[test]
fn globs_repeated_names_and_function_files_select() {
    let cases: [(&[&str], &[&str]); 4] = [
        (&["-f", "cl*"], &["clamp", "classify"]),
        (
            &["--all", "--skip", "cl*", "--skip", "first"],
            &["lookup", "near_root_two", "scale"],
        ),
        (&["-f", "scale", "-f", "?ookup"], &["lookup", "scale"]),
        (&["--functions", "LIST"], &["classify", "count_bits"]),
    ];
    for (flags, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("functions.txt");
        std::fs::write(&list, "# two names\nclassify\n\ncount_bits\n").unwrap();
        let list = list.to_string_lossy().into_owned();
        let flags: Vec<&str> = flags
            .iter()
            .map(|f| if *f == "LIST" { list.as_str() } else { f })
            .collect();
        let out = dir.path().join("out");
        let run = on_library("cover", &out, &flags);
        assert!(matches!(run.status.code(), Some(0 | 3)), "{}", stderr(&run));
        assert_eq!(
            row_names(&json_file(&out.join("index.json"))),
            want,
            "{flags:?}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let run = on_library("cover", dir.path(), &["-f", "nothing*"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("-f nothing*: no function of the inputs has that name"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn one_plain_name_keeps_the_one_function_layout() {
    let dir = tempfile::tempdir().unwrap();
    let run = on_library("cover", dir.path(), &["-f", "clamp"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(
        json_file(&dir.path().join("coverage.json"))["function"],
        "clamp"
    );
    assert!(!dir.path().join("index.json").exists());
    assert!(!dir.path().join("clamp").exists());
}

#[test]
fn any_number_of_jobs_writes_the_same_files() {
    let runs: Vec<tempfile::TempDir> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let dir = tempfile::tempdir().unwrap();
            let run = on_library("cover", dir.path(), &["--all", "--jobs", jobs]);
            assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
            dir
        })
        .collect();
    let index = |dir: &tempfile::TempDir| without_times(&json_file(&dir.path().join("index.json")));
    assert_eq!(index(&runs[0]), index(&runs[1]));
    for name in ALL.iter().filter(|&&n| n != "first") {
        let file = |dir: &tempfile::TempDir, file: &str| {
            std::fs::read_to_string(dir.path().join(name).join(file)).unwrap()
        };
        assert_eq!(
            file(&runs[0], "inputs.txt"),
            file(&runs[1], "inputs.txt"),
            "{name}"
        );
        assert_eq!(
            file(&runs[0], "coverage.lcov"),
            file(&runs[1], "coverage.lcov"),
            "{name}"
        );
        let coverage =
            |dir| without_times(&serde_json::from_str(&file(dir, "coverage.json")).unwrap());
        assert_eq!(coverage(&runs[0]), coverage(&runs[1]), "{name}");
    }
    let merged = |dir: &tempfile::TempDir| {
        std::fs::read_to_string(dir.path().join("coverage.lcov")).unwrap()
    };
    assert_eq!(merged(&runs[0]), merged(&runs[1]));
}

#[test]
fn functions_not_started_within_the_total_time_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let run = on_library("cover", dir.path(), &["--all", "--total-time", "0.001"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let index = json_file(&dir.path().join("index.json"));
    assert_eq!(row_names(&index), ALL);
    for row in index["functions"].as_array().unwrap() {
        assert_eq!(row["status"], "not run", "{row}");
        assert_eq!(row["error"], "total time", "{row}");
    }
    assert_eq!(index["totals"]["not_run"], 6);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("coverage.lcov")).unwrap(),
        ""
    );
}

#[test]
fn explore_runs_over_several_functions_too() {
    let dir = tempfile::tempdir().unwrap();
    let run = on_library(
        "explore",
        dir.path(),
        &["-f", "cl*", "-f", "lookup", "--time-limit", "5", "--json"],
    );
    assert_eq!(
        run.status.code(),
        Some(3),
        "lookup crashes: {}",
        stderr(&run)
    );
    let printed: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(printed, json_file(&dir.path().join("index.json")));
    assert_eq!(printed["engine"], "explore");
    assert_eq!(row_names(&printed), ["clamp", "classify", "lookup"]);
    for name in ["clamp", "classify"] {
        let coverage = json_file(&dir.path().join(name).join("coverage.json"));
        assert_eq!(coverage["engine"], "explore");
        assert_eq!(coverage["covered"], coverage["sides"], "{name}");
    }
}

#[test]
fn one_function_flags_are_refused_with_several() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, want) in [
        (vec!["--all", "--gcov"], "--gcov takes one function"),
        (
            vec!["--all", "--junit", "j.xml"],
            "--junit takes one function",
        ),
        (
            vec!["-f", "clamp", "--total-time", "5"],
            "--total-time is for runs over several functions",
        ),
    ] {
        let run = on_library("cover", dir.path(), &flags);
        assert_eq!(run.status.code(), Some(1), "{flags:?}");
        assert!(stderr(&run).contains(want), "{flags:?}: {}", stderr(&run));
    }
    let run = fpforge(&[
        "run",
        &fixture("library", "shapes.c"),
        "-f",
        "clamp",
        "-f",
        "classify",
        "1",
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("this command takes one function"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn ctrl_c_keeps_every_finished_function_and_writes_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let library = fixture("library", "");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args([
            "cover",
            &library,
            "--all",
            "--no-reach",
            "--time-limit",
            "60",
            // near_root_two's side is infeasible: a budget it cannot spend before the
            // interrupt, however fast its compiled search runs (the default ends it in
            // about half a second, sometimes before the interrupt).
            "--evals",
            "1000000000",
            "--starts",
            "100000000",
            "--out",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let index_path = dir.path().join("near_root_two/coverage.json");
    let started = std::time::Instant::now();
    while !index_path.exists() && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill(2) on the child's own pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let run = child.wait_with_output().unwrap();
    let index = json_file(&dir.path().join("index.json"));
    assert_eq!(run.status.code(), Some(130), "{}{index}", stderr(&run));
    assert_eq!(row_names(&index), ALL);
    let mut interrupted = 0;
    for row in index["functions"].as_array().unwrap() {
        let status = row["status"].as_str().unwrap();
        assert!(
            ["finished", "interrupted", "not run", "error"].contains(&status),
            "{row}"
        );
        if status == "not run" {
            assert_eq!(row["error"], "interrupted", "{row}");
        }
        if let Some(dir_name) = row["directory"].as_str() {
            let coverage = json_file(&dir.path().join(dir_name).join("coverage.json"));
            assert_eq!(coverage["finished"], true, "{row}");
            assert_eq!(row["stop"], coverage["stop"], "{row}");
        }
        interrupted += usize::from(status == "interrupted");
    }
    assert_eq!(interrupted, 1, "near_root_two was stopped: {index}");
    assert_eq!(index["functions"][4]["status"], "interrupted");
}

#[test]
fn fail_under_names_each_function_below_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let flags = [
        "-f",
        "clamp",
        "-f",
        "near_root_two",
        "--no-reach",
        "--fail-under",
        "90",
    ];
    let run = on_library("cover", dir.path(), &flags);
    assert_eq!(run.status.code(), Some(4), "{}", stderr(&run));
    let errors = stderr(&run);
    assert!(
        errors.contains("error: `near_root_two`: feasible coverage 50.0% is below --fail-under 90"),
        "{errors}"
    );
    assert!(!errors.contains("`clamp`"), "{errors}");
}

#[test]
fn accuracy_runs_over_several_functions_with_their_worst_inputs_in_the_index() {
    let runs: Vec<tempfile::TempDir> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let dir = tempfile::tempdir().unwrap();
            let flags = ["--all", "--evals", "2000", "--jobs", jobs, "--quiet"];
            let run = on_library("accuracy", dir.path(), &flags);
            assert_eq!(
                run.status.code(),
                Some(3),
                "lookup crashes: {}",
                stderr(&run)
            );
            dir
        })
        .collect();
    let dir = runs[0].path();
    let index = json_file(&dir.join("index.json"));
    assert_eq!(index["engine"], "accuracy");
    assert_eq!(row_names(&index), ALL);
    for row in index["functions"].as_array().unwrap() {
        let name = row["function"].as_str().unwrap();
        if name == "first" {
            assert_eq!(row["status"], "error", "{row}");
            continue;
        }
        let report = json_file(&dir.join(name).join("report.json"));
        assert_eq!(report["function"], name);
        for (field, in_report) in [
            ("evals", "evals"),
            ("crashes", "crashes"),
            ("hangs", "hangs"),
            ("stop", "stop"),
            ("seconds", "elapsed_s"),
        ] {
            assert_eq!(row[field], report[in_report], "{name}: {field}");
        }
        match report["worst"].as_object() {
            Some(worst) => {
                for field in ["input", "rel_error", "ulp_error", "bits_lost"] {
                    assert_eq!(row["worst"][field], worst[field], "{name}: {field}");
                }
            }
            None => assert!(row["worst"].is_null(), "{row}"),
        }
    }
    let rows = index["functions"].as_array().unwrap();
    let worst = rows
        .iter()
        .filter_map(|r| Some((r["function"].as_str()?, r["worst"]["rel_error"].as_f64()?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("some function loses accuracy");
    assert_eq!(index["totals"]["worst"]["function"], worst.0);
    assert_eq!(index["totals"]["worst"]["rel_error"], worst.1);
    assert_eq!(index["totals"]["crashes"], 1);
    assert_eq!(index["totals"]["evals"], 2000 * 5);
    assert!(!dir.join("coverage.lcov").exists());
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("<a href=\"scale/report.html\">"), "{page}");
    assert!(page.contains("id=\"worst_rel_error\""), "{page}");
    assert_eq!(
        without_times(&index),
        without_times(&json_file(&runs[1].path().join("index.json"))),
        "any --jobs gives the same index"
    );
    let run = on_library("accuracy", dir, &["--all", "--check-input", "r.json"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("--check-input takes one function"),
        "{}",
        stderr(&run)
    );
}

/// `fpforge cover ARGS` in `dir`, with the library index cached in `cache`.
fn cover_in(dir: &Path, cache: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .arg("cover")
        .args(args)
        .current_dir(dir)
        .env("FPFORGE_CACHE_DIR", cache)
        .output()
        .expect("the fpforge binary runs")
}

#[test]
fn a_search_path_serves_every_selected_function_and_each_is_checked_alone() {
    let inputs = [
        fixture("cli", "uses_library.c"),
        fixture("libsearch", "ratio.c"),
    ];
    let (libdir, wide) = (fixture("cli", "libdir"), fixture("libsearch", "lib"));
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let run = cover_in(
        dir.path(),
        cache.path(),
        &[
            &inputs[0],
            &inputs[1],
            "--all",
            "--lib-dir",
            &libdir,
            "--lib-dir",
            &wide,
            "--out",
            "flags",
            "--evals",
            "2000",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let note = stderr(&run);
    assert!(
        ["polevl.c", "const.c", "wide.c"]
            .iter()
            .all(|f| note.contains(f))
            && !note.contains("unused.c"),
        "what any selected function reaches is linked, nothing else: {note}"
    );
    let index = json_file(&dir.path().join("flags/index.json"));
    assert_eq!(
        row_names(&index),
        ["guarded_poly", "ratio", "widened"],
        "the library's own functions are not selected"
    );
    for row in &index["functions"].as_array().unwrap()[..2] {
        assert_eq!(row["status"], "finished", "{row}");
        assert_eq!(row["covered"], 2, "{row}");
    }
    let widened = &index["functions"][2];
    assert_eq!(widened["status"], "error");
    assert!(
        widened["error"].as_str().unwrap().contains(
            "fp128 (__float128) in function `wide_square` (reached: widened → wide_square)"
        ),
        "{widened}"
    );
    std::fs::write(
        dir.path().join("fpforge.toml"),
        format!(
            "[sources]\nfiles = [\"{}\", \"{}\"]\nlib_dirs = [\"{libdir}\", \"{wide}\"]\n\n[select]\nall = true\n\n[budget]\nevals = 2000\n",
            inputs[0], inputs[1]
        ),
    )
    .unwrap();
    let project = cover_in(dir.path(), cache.path(), &["--out", "project"]);
    assert_eq!(project.status.code(), Some(0), "{}", stderr(&project));
    assert_eq!(
        without_times(&json_file(&dir.path().join("project/index.json"))),
        without_times(&index),
        "fpforge.toml's lib_dirs load as --lib-dir does"
    );
}

/// A run-wide `--out-arg r` applies to the functions with a parameter `r` (a struct the
/// function fills, sized from the debug info) and is left out for the others, which run
/// with their default inputs (pointers fitted to what they write) rather than failing.
#[test]
fn a_run_wide_spec_applies_where_the_parameter_exists() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let results = fixture("structs", "results.c");
    let outputs = fixture("findings", "outputs.c");
    let run = fpforge(&[
        "cover",
        &results,
        &outputs,
        "--all",
        "--out-arg",
        "r",
        "--time-limit",
        "2",
        "--out",
        out,
    ]);
    assert_eq!(
        run.status.code(),
        Some(3),
        "peek's overrun: {}",
        stderr(&run)
    );
    let index = json_file(&dir.path().join("index.json"));
    let names = ["inverse_e", "moments", "peek", "scaled_e10_e", "split"];
    assert_eq!(row_names(&index), names);
    for row in index["functions"].as_array().unwrap() {
        let name = row["function"].as_str().unwrap();
        assert_eq!(row["covered"], row["sides"], "{name}: {row}");
        let crashes = if name == "peek" { 1 } else { 0 };
        assert_eq!(row["crashes"], crashes, "{name}: {row}");
    }
    let e10 = std::fs::read_to_string(dir.path().join("scaled_e10_e/inputs.txt")).unwrap();
    let line = e10.lines().find(|l| !l.starts_with('#')).unwrap();
    assert_eq!(
        line.split(' ').nth(1).unwrap().split(',').count(),
        24,
        "{line}"
    );
}
