//! The files users open in their own tools: `genhtml` (lcov 1.16) reads every
//! `coverage.lcov` that `cover` and `explore` write, and counts the branches
//! `coverage.json` lists.

use crate::common::{fixture, fpforge, json_file, stderr};
use std::path::Path;
use std::process::Command;

/// Runs genhtml on `dir/coverage.lcov`; returns its "branches" line.
fn genhtml(dir: &Path) -> String {
    let html = dir.join("html");
    let out = Command::new("genhtml")
        .args(["--branch-coverage", "--quiet", "-o"])
        .arg(&html)
        .arg(dir.join("coverage.lcov"))
        .output()
        .expect("genhtml runs (apt-get install lcov; scripts/setup.sh does)");
    assert!(out.status.success(), "genhtml: {}", stderr(&out));
    assert!(html.join("index.html").exists());
    let summary = Command::new("lcov")
        .args(["--summary", "--rc", "lcov_branch_coverage=1"])
        .arg(dir.join("coverage.lcov"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&summary.stdout).into_owned()
        + &String::from_utf8_lossy(&summary.stderr);
    text.lines()
        .find(|l| l.trim_start().starts_with("branches"))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn genhtml_reads_every_lcov_file_and_counts_the_sides() {
    let cases = [
        ("cover", "cover", "branchy.c", "dispatch", ""),
        ("cover", "cover", "branchy.c", "outer", "--deep"),
        ("cover", "cover", "branchy.c", "impossible", ""),
        ("explore", "explore", "flopsy.c", "beale", ""),
        ("cover", "findings", "faults.c", "scaled", ""),
    ];
    for (command, dir, file, func, extra) in cases {
        let out_dir = tempfile::tempdir().unwrap();
        let out = out_dir.path().to_string_lossy().into_owned();
        let file = fixture(dir, file);
        let mut args = vec![
            command,
            &file,
            "-f",
            func,
            "--time-limit",
            "5",
            "--out",
            &out,
        ];
        if !extra.is_empty() {
            args.push(extra);
        }
        let run = fpforge(&args);
        assert!(
            matches!(run.status.code(), Some(0 | 3)),
            "{func}: {}",
            stderr(&run)
        );
        let coverage = json_file(&out_dir.path().join("coverage.json"));
        let branches = genhtml(out_dir.path());
        let want = format!(
            "({} of {} branches)",
            coverage["covered"], coverage["sides"]
        );
        assert!(
            branches.contains(&want),
            "{command} {func}: {branches} vs {want}"
        );
    }
}

/// Builds `regression.c` with `source` by `compiler` and runs it with `args`.
fn regression_run(
    dir: &Path,
    source: &Path,
    compiler: &str,
    args: &[&str],
) -> std::process::Output {
    let exe = dir.join(format!("regression-{compiler}"));
    let built = Command::new(compiler)
        .args(["-std=c99", "-O0", "-w", "-o"])
        .arg(&exe)
        .arg(dir.join("regression.c"))
        .arg(source)
        .arg("-lm")
        .output()
        .expect("the C compiler runs");
    assert!(built.status.success(), "{compiler}: {}", stderr(&built));
    Command::new(&exe).args(args).output().unwrap()
}

/// `regression.c` checks results: it passes, built by gcc and by clang, on the function
/// it was generated from, and fails with a mismatch line once a constant changes.
#[test]
fn regression_program_fails_when_the_function_changes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let source = fixture("cover", "blend.c");
    let run = fpforge(&[
        "cover", &source, "-f", "blend", "--seed", "1", "--out", &out,
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    for compiler in ["gcc", "clang-14"] {
        for args in [&[][..], &["--exact-nan"][..]] {
            let ran = regression_run(dir.path(), Path::new(&source), compiler, args);
            assert!(
                ran.status.success(),
                "{compiler} {args:?}: {}",
                stderr(&ran)
            );
        }
    }
    let mutated = dir.path().join("blend.c");
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&mutated, text.replace("0.25", "0.3")).unwrap();
    let ran = regression_run(dir.path(), &mutated, "gcc", &[]);
    assert_eq!(ran.status.code(), Some(1), "the mutant passed: {ran:?}");
    let err = stderr(&ran);
    assert!(err.contains(": return: expected 0x"), "{err}");
    assert!(err.contains("mismatching results"), "{err}");
}

#[test]
fn genhtml_reads_the_merged_lcov_of_a_run_over_several_functions() {
    let out_dir = tempfile::tempdir().unwrap();
    let run = crate::library::on_library("cover", out_dir.path(), &["--all"]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let totals = &json_file(&out_dir.path().join("index.json"))["totals"];
    let branches = genhtml(out_dir.path());
    let want = format!("({} of {} branches)", totals["covered"], totals["sides"]);
    assert!(branches.contains(&want), "{branches} vs {want}");
    let merged = std::fs::read_to_string(out_dir.path().join("coverage.lcov")).unwrap();
    for name in ["clamp", "classify", "lookup", "scale"] {
        let own = std::fs::read_to_string(out_dir.path().join(name).join("coverage.lcov")).unwrap();
        assert!(
            merged.contains(&own),
            "{name}'s records are in the merged file"
        );
    }
}
