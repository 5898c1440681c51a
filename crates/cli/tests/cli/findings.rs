//! Crashes and hangs are findings: `cover` on `tests/fixtures/findings/faults.c` reports
//! each fault once, in a file of its own that `fpforge run` replays (exit 3), exits 3
//! itself, and keeps every crashing or hanging input out of `inputs.txt` and
//! `regression.c`, whose program then runs to its end natively. The faults a trap guard
//! watches for are reached as trap targets, and `reach` on such a target says its input
//! crashes (exit 3).

use crate::common::{fpforge, json_file, stderr, stdout, trap_sides};
use std::path::Path;
use std::process::Command;

fn fixture() -> String {
    crate::common::fixture("findings", "faults.c")
}

/// The inputs of `inputs.txt` (or of a finding file, without its comment lines).
fn input_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn replay(func: &str, line: &str) -> std::process::Output {
    let file = fixture();
    let mut args = vec!["run", &file, "-f", func, "--"];
    args.extend(line.split(' '));
    fpforge(&args)
}

#[test]
fn crashes_and_hangs_are_findings_that_replay() {
    for (func, kind, trap) in [
        ("weight", "crash", "out-of-bounds access"),
        ("buckets", "crash", "integer division by zero"),
        ("halvings", "hang", "fuel exhausted"),
        ("scaled", "crash", "null pointer dereference"),
        ("checked_inverse", "crash", "assertion failed"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_string_lossy().into_owned();
        let run = fpforge(&[
            "cover",
            &fixture(),
            "-f",
            func,
            "--seed",
            "1",
            "--out",
            &out,
        ]);
        assert_eq!(run.status.code(), Some(3), "{func}: {}", stderr(&run));
        assert!(
            stdout(&run).contains(&format!("{kind} 1: {trap}")),
            "{}",
            stdout(&run)
        );
        let coverage = json_file(&dir.path().join("coverage.json"));
        let findings = coverage["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{func}: one fault, one finding");
        assert_eq!(findings[0]["kind"], kind);
        let file = dir.path().join(findings[0]["file"].as_str().unwrap());
        let lines = input_lines(&file);
        assert_eq!(lines, [findings[0]["input"].as_str().unwrap()]);
        let replayed = replay(func, &lines[0]);
        assert_eq!(
            replayed.status.code(),
            Some(3),
            "{func}: {}",
            stdout(&replayed)
        );
        assert!(stdout(&replayed).contains(trap), "{}", stdout(&replayed));
        for line in input_lines(&dir.path().join("inputs.txt")) {
            assert_eq!(replay(func, &line).status.code(), Some(0), "{func} {line}");
        }
        assert_eq!(coverage["covered"], coverage["sides"], "{func}");
        check_trap_targets(&coverage, func);
        run_regression_natively(dir.path(), func);
    }
}

/// The crash a guard watches for (a table index, a divisor, a pointer) is its trap
/// target's finding; every other trap target is proved unreachable, none is left open.
fn check_trap_targets(coverage: &serde_json::Value, func: &str) {
    let traps = &coverage["traps"];
    assert_eq!(traps["not_reached"], 0, "{func}: {traps}");
    let guarded_fault = matches!(func, "weight" | "buckets" | "scaled");
    assert_eq!(traps["reached"] == 1, guarded_fault, "{func}: {traps}");
    for side in trap_sides(coverage) {
        if side["arm"] == "trap" && side["status"] == "covered" {
            assert_eq!(side["finding"], 0, "{func}: {side}");
            // `reach` aims at the same target and says the input then crashes.
            let name = side["side"].as_str().unwrap();
            let file = fixture();
            let reached = fpforge(&["reach", &file, "-f", func, "--branch", name]);
            assert_eq!(
                reached.status.code(),
                Some(3),
                "{func} {name}: {}",
                stdout(&reached)
            );
            assert!(
                stdout(&reached).contains("then crashes: "),
                "{}",
                stdout(&reached)
            );
        }
    }
}

/// Compiles `regression.c` with the fixture and runs it: it must end normally.
fn run_regression_natively(dir: &Path, func: &str) {
    run_regression_with(dir, func, &fixture());
}

/// Compiles `regression.c` with `source` and runs it: it must end normally.
fn run_regression_with(dir: &Path, func: &str, source: &str) {
    let exe = dir.join("regression");
    let built = Command::new("gcc")
        .args(["-std=c99", "-w", "-o"])
        .arg(&exe)
        .arg(dir.join("regression.c"))
        .arg(source)
        .arg("-lm")
        .output()
        .unwrap();
    assert!(built.status.success(), "{func}: {}", stderr(&built));
    let ran = Command::new(&exe).output().unwrap();
    assert!(ran.status.success(), "{func}: regression.c failed: {ran:?}");
}

/// A pointer parameter without a spec is one element; when nearly every run overruns it,
/// the run takes the shortest longer array the probes stay inside, says so, and finds no
/// crash: `split` fills `y[0]` and `y[1]`, `moments` fills `m[0..4]`. A pointer read
/// past its end on some inputs only (`peek`) stays one element and its overrun a crash.
#[test]
fn pointers_every_run_overruns_get_the_array_length_the_program_uses() {
    let source = crate::common::fixture("findings", "outputs.c");
    for (func, fitted) in [
        ("split", Some("y: f64[2]")),
        ("moments", Some("m: f64[8]")),
        ("peek", None),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = fpforge(
            &["cover", &source, "-f", func, "--time-limit", "5", "--out"]
                .into_iter()
                .chain([dir.path().to_str().unwrap()])
                .collect::<Vec<_>>(),
        );
        let said = stderr(&out);
        let crashes = dir.path().join("crashes");
        match fitted {
            Some(fitted) => {
                assert_eq!(out.status.code(), Some(0), "{func}: {said}");
                assert!(
                    said.contains(&format!(
                        "note: {func}: pointer parameters taken as `{fitted}`"
                    )),
                    "{func}: {said}"
                );
                assert!(!crashes.exists(), "{func}");
                let lines = input_lines(&dir.path().join("inputs.txt"));
                let len: usize = fitted[fitted.find('[').unwrap() + 1..fitted.len() - 1]
                    .parse()
                    .unwrap();
                assert!(
                    lines
                        .iter()
                        .all(|l| l.split(' ').nth(1).unwrap().split(',').count() == len),
                    "{func}: {lines:?}"
                );
                run_regression_with(dir.path(), func, &source);
            }
            None => {
                assert_eq!(out.status.code(), Some(3), "{func}: {said}");
                assert!(!said.contains("note:"), "{func}: {said}");
                assert!(crashes.join("1.txt").exists(), "{func}");
            }
        }
    }
}

/// A run that exhausts the search's fuel is re-run with far more before it counts as a
/// hang: `heron` iterates to a cap of 50 000 where it does not converge, past the fuel,
/// and then takes the sides after the loop. Those sides are covered and no hang is
/// reported; a loop that never ends (`halvings` above) is still one.
#[test]
fn a_slow_run_that_ends_is_a_test_not_a_hang() {
    let source = crate::common::fixture("findings", "slow.c");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let out = fpforge(&[
        "cover",
        &source,
        "-f",
        "heron",
        "--time-limit",
        "10",
        "--out",
        out_dir,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let coverage = json_file(&dir.path().join("coverage.json"));
    assert_eq!(coverage["hangs"], 0, "{coverage}");
    assert_eq!(coverage["covered"], coverage["sides"], "{coverage}");
    assert!(!dir.path().join("hangs").exists());
    run_regression_with(dir.path(), "heron", &source);
}
