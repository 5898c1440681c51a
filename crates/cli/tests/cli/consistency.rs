//! One CLI: the shared options mean the same on every command that has them. `--json`
//! prints JSON (for `cover` and `explore`, the `coverage.json` the run writes); `--quiet`
//! prints nothing but errors and still writes every file; the same `--seed` gives the same
//! results; `--time-limit` bounds the search (the run's own clock, within 0.2 s);
//! `--timeout` is `solve`'s old name for `--time-limit`; a flag a command does not have is
//! a usage error (exit 1), and after `--` every word is an argument of the function.

use crate::common::{fixture, fpforge, json_file, stderr, stdout};
use std::path::Path;
use std::process::Output;

fn branchy() -> String {
    fixture("cover", "branchy.c")
}

fn sums() -> String {
    fixture("accuracy", "sums.c")
}

/// The searching commands on a small function, each with `--out DIR` and `extra`.
fn searches(dir: &Path, extra: &[&str]) -> Vec<(&'static str, Output)> {
    let (branchy, sums) = (branchy(), sums());
    let out = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let with = |base: Vec<&str>| -> Vec<String> {
        base.into_iter()
            .map(str::to_string)
            .chain(extra.iter().map(|s| s.to_string()))
            .collect()
    };
    let runs: Vec<(&'static str, Vec<String>)> = vec![
        (
            "cover",
            with(vec!["cover", &branchy, "-f", "classify", "--evals", "3000"])
                .into_iter()
                .chain(["--out".to_string(), out("cover")])
                .collect(),
        ),
        (
            "explore",
            with(vec!["explore", &branchy, "-f", "classify"])
                .into_iter()
                .chain(["--out".to_string(), out("explore")])
                .collect(),
        ),
        (
            "accuracy",
            with(vec![
                "accuracy",
                &sums,
                "-f",
                "naive_sum",
                "--arg",
                "a: f64[4] in [-100, 100]",
                "--arg",
                "n = 4",
                "--evals",
                "500",
            ])
            .into_iter()
            .chain(["--out".to_string(), out("accuracy")])
            .collect(),
        ),
        (
            "reach",
            with(vec![
                "reach", &branchy, "-f", "classify", "--branch", "br2:T",
            ]),
        ),
    ];
    runs.into_iter()
        .map(|(name, args)| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            (name, fpforge(&args))
        })
        .collect()
}

#[test]
fn json_and_quiet_mean_the_same_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    for (name, out) in searches(dir.path(), &["--json", "--seed", "3"]) {
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let printed: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name} --json: {e}: {}", stdout(&out)));
        let file = match name {
            "cover" | "explore" => Some("coverage.json"),
            "accuracy" => Some("report.json"),
            _ => None,
        };
        if let Some(file) = file {
            assert_eq!(
                printed,
                json_file(&dir.path().join(name).join(file)),
                "{name}"
            );
        }
    }
    for (name, out) in searches(dir.path(), &["--quiet", "--seed", "3"]) {
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{name} --quiet");
        if name != "reach" {
            assert_eq!(stdout(&out), "", "{name} --quiet");
            assert!(dir.path().join(name).join("inputs.txt").exists(), "{name}");
        }
    }
    for run in [
        fpforge(&["run", &branchy(), "-f", "classify", "--json", "--", "1.5"]),
        fpforge(&["sites", &branchy(), "-f", "classify", "--json"]),
    ] {
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        let _: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    }
}

#[test]
fn the_same_seed_gives_the_same_results() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = searches(a.path(), &["--seed", "11", "--quiet"]);
    let second = searches(b.path(), &["--seed", "11", "--quiet"]);
    // Everything but the time a run took.
    let results = |out: &Output| -> Vec<String> {
        stdout(out)
            .lines()
            .filter(|l| !l.ends_with(" s"))
            .map(str::to_string)
            .collect()
    };
    for ((name, x), (_, y)) in first.iter().zip(&second) {
        assert_eq!(results(x), results(y), "{name}");
        if *name != "reach" {
            let inputs = |d: &Path| std::fs::read_to_string(d.join(name).join("inputs.txt"));
            assert_eq!(
                inputs(a.path()).unwrap(),
                inputs(b.path()).unwrap(),
                "{name}"
            );
        }
    }
}

/// Each searching command with `--time-limit 1` on a search that never finishes by
/// itself: the run's own clock stops within 0.2 s of the limit (`cover` stops its
/// search at 0.8 s to leave its prover the rest, which may need less).
#[test]
fn time_limits_hold() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let faults = fixture("findings", "faults.c");
    let (branchy, sums) = (branchy(), sums());
    let cover_out = out("cover");
    let cover = [
        "cover",
        &branchy,
        "-f",
        "impossible",
        "--starts",
        "100000000",
        "--time-limit",
        "1",
        "--quiet",
        "--out",
        &cover_out,
    ];
    let explore_out = out("explore");
    let explore = [
        "explore",
        &faults,
        "-f",
        "halvings",
        "--time-limit",
        "1",
        "--quiet",
        "--out",
        &explore_out,
    ];
    let accuracy = [
        "accuracy",
        &sums,
        "-f",
        "naive_sum",
        "--arg",
        "a: f64[4] in [-100, 100]",
        "--arg",
        "n = 4",
        "--evals",
        "1000000000",
        "--time-limit",
        "1",
        "--json",
    ];
    let mut seconds = Vec::new();
    for (args, file) in [(&cover[..], "cover"), (&explore[..], "explore")] {
        let run = fpforge(args);
        assert!(matches!(run.status.code(), Some(0 | 3)), "{}", stderr(&run));
        let coverage = json_file(&dir.path().join(file).join("coverage.json"));
        assert_eq!(coverage["stop"], "time limit", "{file}");
        seconds.push((file, coverage["seconds"].as_f64().unwrap()));
    }
    let run = fpforge(&accuracy);
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["stop"], "time limit");
    seconds.push(("accuracy", report["elapsed_s"].as_f64().unwrap()));
    for (name, s) in seconds {
        assert!(
            (0.75..=1.2).contains(&s),
            "{name}: {s} s for --time-limit 1"
        );
    }
}

#[test]
fn flags_a_command_lacks_are_errors_and_arguments_follow_the_double_dash() {
    let branchy = branchy();
    for args in [
        vec![
            "run",
            &branchy,
            "-f",
            "classify",
            "--time-limit",
            "1",
            "--",
            "1",
        ],
        vec!["sites", &branchy, "-f", "classify", "--seed", "1"],
        vec!["ir", &branchy, "-f", "classify", "--json"],
        vec![
            "reach", &branchy, "-f", "classify", "--branch", "br2:T", "--out", "x",
        ],
        vec![
            "reach",
            &branchy,
            "-f",
            "classify",
            "--branch",
            "br2:T",
            "--emit-smt2",
            "x",
        ],
    ] {
        let run = fpforge(&args);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {}", stdout(&run));
        let message = stderr(&run);
        assert!(message.starts_with("error: "), "{args:?}: {message}");
    }
    // After `--`, `--json` is a value of the function's parameter, not the flag.
    let run = fpforge(&["run", &branchy, "-f", "classify", "--", "--json"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(stderr(&run).contains("--json"), "{}", stderr(&run));
    assert!(!stdout(&run).starts_with('{'));
}

#[test]
fn solve_takes_time_limit_and_its_old_name() {
    let script = fixture("solve", "absorption.smt2");
    let new = fpforge(&["solve", &script, "--time-limit", "5"]);
    let old = fpforge(&["solve", &script, "--timeout", "5"]);
    assert_eq!(new.status.code(), Some(0), "{}", stderr(&new));
    assert_eq!(stdout(&new), stdout(&old));
    let bad = fpforge(&["solve", &script, "--time-limit", "0"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("--time-limit"), "{}", stderr(&bad));
}
