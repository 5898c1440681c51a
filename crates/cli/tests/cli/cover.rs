//! `fpforge cover`: the output directory's files, inputs that `fpforge run` reads back
//! and that take the sides `coverage.json` credits them with, and the same inputs for
//! the same seed.

use crate::common::{check_credited_sides, coverage_sides, fpforge, json_file as json, trap_sides};
use std::path::Path;
use std::process::{Command, Output};

fn fixture() -> String {
    crate::common::fixture("cover", "branchy.c")
}

fn cover(func: &str, out: &Path, seed: &str) -> Output {
    let out = out.to_string_lossy();
    fpforge(&[
        "cover",
        &fixture(),
        "-f",
        func,
        "--evals",
        "20000",
        "--seed",
        seed,
        "--out",
        &out,
    ])
}

#[test]
fn inputs_reproduce_their_sides_under_run() {
    for func in ["classify", "dispatch", "mixed"] {
        let dir = tempfile::tempdir().unwrap();
        let out = cover(func, dir.path(), "3");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary = String::from_utf8_lossy(&out.stdout);
        assert!(summary.contains("(100.0%)"), "{summary}");
        let coverage = json(&dir.path().join("coverage.json"));
        assert_eq!(coverage["finished"], true);
        assert_eq!(coverage["covered"], coverage["sides"]);
        let lcov = std::fs::read_to_string(dir.path().join("coverage.lcov")).unwrap();
        assert!(lcov.contains("BRDA:"), "{lcov}");
        check_credited_sides(dir.path(), &fixture(), func);
    }
}

#[test]
fn same_seed_same_inputs_and_uncovered_sides_listed() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    assert_eq!(cover("count_above", a.path(), "9").status.code(), Some(0));
    assert_eq!(cover("count_above", b.path(), "9").status.code(), Some(0));
    let read = |d: &Path| std::fs::read_to_string(d.join("inputs.txt")).unwrap();
    assert!(!read(a.path()).is_empty());
    assert_eq!(read(a.path()), read(b.path()));

    // The search alone can only guess that `x < 0 && x > 1` never holds; concolic
    // execution proves it, and with `--no-reach` the guess stays a guess.
    let statuses = |dir: &Path| -> Vec<String> {
        let coverage = json(&dir.join("coverage.json"));
        coverage_sides(&coverage)
            .into_iter()
            .filter(|s| s["status"] != "covered")
            .map(|s| format!("{} {}", s["status"], s["method"]))
            .collect()
    };
    let out = cover("impossible", a.path(), "1");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("covered 3/4"), "{summary}");
    assert!(summary.contains("branchy.c:"), "{summary}");
    assert_eq!(
        statuses(a.path()),
        vec![r#""infeasible" "exhaustive path exploration""#],
        "{summary}"
    );
    let out = cover_with(
        "impossible",
        b.path(),
        &["--evals", "20000", "--seed", "1", "--no-reach"],
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains("not reached (likely infeasible)"),
        "{summary}"
    );
    assert_eq!(
        statuses(b.path()),
        vec![r#""not reached" null"#],
        "{summary}"
    );
    let coverage = json(&b.path().join("coverage.json"));
    let open = coverage_sides(&coverage)
        .into_iter()
        .find(|s| s["status"] == "not reached")
        .cloned()
        .unwrap();
    assert_eq!(open["branch_reached"], true);
    assert_eq!(open["likely_infeasible"], true, "{open}");
    assert!(open["closest"]["distance"].as_f64().unwrap() > 0.0);

    // A search that ends before it aimed at the side for long says so.
    let out = cover_with(
        "impossible",
        b.path(),
        &["--evals", "300", "--seed", "1", "--no-reach"],
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains("not reached (not tried enough)"),
        "{summary}"
    );
    let coverage = json(&b.path().join("coverage.json"));
    let open = coverage_sides(&coverage)
        .into_iter()
        .find(|s| s["status"] == "not reached")
        .cloned()
        .unwrap();
    assert_eq!(open["likely_infeasible"], false, "{open}");
    assert!(
        open["reason"]
            .as_str()
            .unwrap()
            .contains("before the run ended"),
        "{open}"
    );
}

fn cover_with(func: &str, out: &Path, extra: &[&str]) -> Output {
    let out = out.to_string_lossy();
    let file = fixture();
    let mut args = vec!["cover", &file, "-f", func, "--out", &out];
    args.extend(extra);
    fpforge(&args)
}

#[test]
fn array_fixed_and_range_specs_shape_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let out = cover_with(
        "array_sum",
        dir.path(),
        &[
            "--arg",
            "a: f64[4] in [-1000, 1000]",
            "--arg",
            "n = 4",
            "--evals",
            "60000",
            "--seed",
            "2",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inputs = std::fs::read_to_string(dir.path().join("inputs.txt")).unwrap();
    assert!(!inputs.is_empty());
    for line in inputs.lines() {
        let (array, n) = line.split_once(' ').unwrap();
        assert_eq!(n, "4", "{line}");
        let values: Vec<&str> = array.trim_matches(['[', ']']).split(',').collect();
        assert_eq!(values.len(), 4, "{line}");
        let run = fpforge(&[
            "run",
            "--json",
            "-f",
            "array_sum",
            &fixture(),
            "--",
            array,
            n,
        ]);
        assert_eq!(run.status.code(), Some(0), "{line}");
    }
    let coverage = json(&dir.path().join("coverage.json"));
    let statuses: Vec<String> = coverage_sides(&coverage)
        .into_iter()
        .filter(|s| s["status"] != "covered")
        .map(|s| format!("{} {}", s["status"], s["method"]))
        .collect();
    // With `n = 4` fixed, `n > 2` never fails: concolic execution proves it.
    assert_eq!(
        statuses,
        [r#""infeasible" "exhaustive path exploration""#],
        "{statuses:?}"
    );
    // And no access of the four-element array goes out of bounds.
    let targets: Vec<&serde_json::Value> = trap_sides(&coverage)
        .into_iter()
        .filter(|s| s["arm"] == "trap")
        .collect();
    assert!(!targets.is_empty());
    for target in targets {
        assert_eq!(target["status"], "infeasible", "{target}");
    }

    let bad = cover_with(
        "array_sum",
        dir.path(),
        &["--arg", "a: f64[4]", "--arg", "m = 1"],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no parameter `m`"));
}

#[test]
fn jobs_give_the_same_inputs_for_the_same_seed() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let args = ["--jobs", "2", "--seed", "4", "--evals", "30000"];
    assert_eq!(
        cover_with("count_above", a.path(), &args).status.code(),
        Some(0)
    );
    assert_eq!(
        cover_with("count_above", b.path(), &args).status.code(),
        Some(0)
    );
    let read = |d: &Path| std::fs::read_to_string(d.join("inputs.txt")).unwrap();
    assert!(!read(a.path()).is_empty());
    assert_eq!(read(a.path()), read(b.path()));
}

/// Starts `args` (an engine writing `--out DIR`), sends it SIGINT once its
/// `coverage.json` exists, and checks it exits 130 with every file completed.
fn interrupt_and_check(args: &[&str], dir: &Path) {
    let child = Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(args)
        .args(["--out", &dir.to_string_lossy()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let coverage = dir.join("coverage.json");
    let started = std::time::Instant::now();
    while !coverage.exists() && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{args:?}");
    assert!(started.elapsed().as_secs() < 30);
    let coverage = json(&coverage);
    assert_eq!(coverage["finished"], true);
    assert_eq!(coverage["stop"], "interrupted");
    let inputs = std::fs::read_to_string(dir.join("inputs.txt")).unwrap();
    assert_eq!(coverage["tests"], inputs.lines().count());
    assert!(inputs.is_empty() || inputs.ends_with('\n'));
    for file in ["coverage.lcov", "regression.c"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    assert!(String::from_utf8_lossy(&output.stdout).contains("stopped: interrupted"));
}

#[test]
fn ctrl_c_leaves_a_finished_output_directory() {
    // `impossible` never covers its last side, so only the signal ends this run.
    let dir = tempfile::tempdir().unwrap();
    let file = fixture();
    let cover = [
        "cover",
        &file,
        "-f",
        "impossible",
        "--time-limit",
        "60",
        "--starts",
        "100000000",
    ];
    interrupt_and_check(&cover, dir.path());
    // A loop halving its argument has a path per trip count: explore goes on.
    let dir = tempfile::tempdir().unwrap();
    let faults = crate::common::fixture("findings", "faults.c");
    let explore = ["explore", &faults, "-f", "halvings", "--time-limit", "60"];
    interrupt_and_check(&explore, dir.path());
}

/// Compiled and interpreted evaluations give the same search: `--compile eager` and
/// `--compile off` write the same inputs and coverage for the same seed and budget.
#[test]
fn compiled_and_interpreted_evaluations_find_the_same_inputs() {
    let (eager, off) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for func in ["classify", "mixed"] {
        for (dir, when) in [(&eager, "eager"), (&off, "off")] {
            let out = cover_with(
                func,
                dir.path(),
                &["--evals", "20000", "--seed", "5", "--compile", when],
            );
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let read = |dir: &Path| std::fs::read_to_string(dir.join("inputs.txt")).unwrap();
        assert_eq!(read(eager.path()), read(off.path()), "{func}");
        let sides = |dir: &Path| json(&dir.join("coverage.json"))["sites"].clone();
        assert_eq!(sides(eager.path()), sides(off.path()), "{func}");
    }
}

/// Every side `coverage.json` names (switch cases, a `?:`, conditional branches) is a
/// side `reach --branch` accepts, and none that a test covers is reported infeasible.
#[test]
fn every_side_name_is_accepted_by_reach() {
    for func in ["dispatch", "sign_or_one", "quadrant"] {
        let dir = tempfile::tempdir().unwrap();
        let out = cover(func, dir.path(), "2");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            crate::common::stderr(&out)
        );
        let coverage = json(&dir.path().join("coverage.json"));
        let sides = coverage_sides(&coverage);
        assert!(sides.len() >= 2, "{func}");
        for side in sides {
            let name = side["side"].as_str().unwrap();
            let file = fixture();
            let args = [
                "reach",
                &file,
                "-f",
                func,
                "--branch",
                name,
                "--time-limit",
                "2",
            ];
            let answer = crate::common::success(&fpforge(&args));
            let first = answer.lines().next().unwrap_or_default();
            assert!(
                ["reached", "infeasible", "unknown"]
                    .iter()
                    .any(|a| first.starts_with(a)),
                "{func} {name}: {answer}"
            );
            if side["status"] == "covered" {
                assert!(!first.starts_with("infeasible"), "{func} {name}: {answer}");
            }
        }
    }
}

/// `--seeds FILE` runs the user's inputs first: with a budget of three evaluations and
/// no built-in seeding, cover keeps the three seeds (the sides of infinities and NaNs no
/// random start takes) and explore starts from them; a line that does not fit the
/// function is an error naming the file and line.
#[test]
fn seeds_run_first_and_bad_lines_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds.txt");
    std::fs::write(&seeds, "# special values\ninf\n\nnan\n-inf\n").unwrap();
    let seeds = seeds.to_string_lossy().into_owned();
    let budget = ["--evals", "3", "--no-seeding", "--no-reach", "--seed", "1"];
    let (with, without) = (dir.path().join("with"), dir.path().join("without"));
    let mut flags = budget.to_vec();
    flags.extend(["--seeds", &seeds]);
    assert_eq!(cover_with("classify", &with, &flags).status.code(), Some(0));
    assert_eq!(
        cover_with("classify", &without, &budget).status.code(),
        Some(0)
    );
    let inputs = std::fs::read_to_string(with.join("inputs.txt")).unwrap();
    assert_eq!(inputs, "inf\nraw:7ff8000000000000\n-inf\n");
    let covered = |d: &Path| json(&d.join("coverage.json"))["covered"].as_u64().unwrap();
    assert!(covered(&with) > covered(&without));
    check_credited_sides(&with, &fixture(), "classify");

    let explored = dir.path().join("explored");
    let out = fpforge(&[
        "explore",
        &fixture(),
        "-f",
        "classify",
        "--seeds",
        &seeds,
        "--out",
        &explored.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let first = std::fs::read_to_string(explored.join("inputs.txt")).unwrap();
    assert!(first.starts_with("inf\n"), "{first}");

    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "inf\n1 2\n").unwrap();
    let bad = bad.to_string_lossy().into_owned();
    for command in ["cover", "explore"] {
        let out = fpforge(&[command, &fixture(), "-f", "classify", "--seeds", &bad]);
        assert_eq!(out.status.code(), Some(1));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains(&format!("{bad}:2: 2 values for 1 parameters")),
            "{message}"
        );
    }
}

/// The run ends with the fewest tests that keep its coverage (sides and operand
/// relations): fewer lines than with `--no-minimize`, the same covered sides, each
/// credited to a test whose run takes it, and `regression.c` with the kept tests.
#[test]
fn the_test_set_is_minimized_without_losing_coverage() {
    let (small, all) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let flags = ["--seed", "1", "--evals", "20000"];
    assert_eq!(
        cover_with("count_above", small.path(), &flags)
            .status
            .code(),
        Some(0)
    );
    let mut every = flags.to_vec();
    every.push("--no-minimize");
    assert_eq!(
        cover_with("count_above", all.path(), &every).status.code(),
        Some(0)
    );
    let lines = |d: &Path| {
        std::fs::read_to_string(d.join("inputs.txt"))
            .unwrap()
            .lines()
            .count()
    };
    assert!(
        lines(small.path()) < lines(all.path()),
        "{} vs {}",
        lines(small.path()),
        lines(all.path())
    );
    let covered = check_credited_sides(small.path(), &fixture(), "count_above");
    assert_eq!(
        covered,
        check_credited_sides(all.path(), &fixture(), "count_above")
    );
    let regression = std::fs::read_to_string(small.path().join("regression.c")).unwrap();
    let count = format!("#define FPFORGE_TESTS {}\n", lines(small.path()));
    assert!(regression.contains(&count), "{regression}");
}

/// The sides cover's search leaves open end proved with their method (the absorption
/// side: bit-precise) or open with the reason concolic execution gives, in
/// coverage.json (`open_reason`) and in the summary (the search covers `pow`'s first
/// side; the last side is proved with `pow`'s results uninterpreted).
#[test]
fn open_sides_end_proved_or_open_by_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let source = crate::common::fixture("cover", "open_sides.c");
    let run = fpforge(&[
        "cover",
        &source,
        "-f",
        "open_sides",
        "--arg",
        "a in [1, 2]",
        "--arg",
        "b in [0x1p-149, 0x1p-30]",
        "--time-limit",
        "2",
        // Concolic execution ends once its work list is empty (a few seconds); the
        // generous limit only keeps a loaded machine from cutting it short.
        "--reach-time",
        "30",
        "--out",
        &out,
    ]);
    let summary = crate::common::success(&run);
    let coverage = json(&dir.path().join("coverage.json"));
    let open: Vec<String> = coverage_sides(&coverage)
        .into_iter()
        .filter(|s| s["status"] != "covered")
        .map(|s| {
            format!(
                "{} {} {} {}",
                s["side"], s["status"], s["method"], s["open_reason"]
            )
        })
        .collect();
    assert_eq!(
        open,
        [
            r#""br0:T" "infeasible" "bit-precise" null"#,
            r#""br2:T" "not reached" null "libm call""#,
            r#""br3:T" "infeasible" "every prefix to the site explored" null"#,
        ],
        "{summary}"
    );
    assert!(summary.contains("infeasible (bit-precise)"), "{summary}");
    assert!(summary.contains("open: libm call"), "{summary}");
}

#[test]
fn a_function_without_branches_gets_one_test_that_runs_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy();
    let fixture = crate::common::fixture("cover", "branch_free.c");
    let run = fpforge(&[
        "cover", &fixture, "-f", "affine", "--evals", "100", "--out", &out,
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let coverage = json(&dir.path().join("coverage.json"));
    assert_eq!(coverage["sides"], 0);
    assert_eq!(coverage["tests"], 1, "{coverage}");
    let inputs = std::fs::read_to_string(dir.path().join("inputs.txt")).unwrap();
    assert_eq!(inputs.lines().count(), 1, "{inputs}");
    let lcov = std::fs::read_to_string(dir.path().join("coverage.lcov")).unwrap();
    let count = |key: &str| -> u64 {
        let line = lcov.lines().find(|l| l.starts_with(key)).expect(key);
        line[key.len()..].parse().unwrap()
    };
    assert!(count("LF:") >= 2, "{lcov}");
    assert_eq!(
        count("LH:"),
        count("LF:"),
        "every line of the body runs: {lcov}"
    );
}
