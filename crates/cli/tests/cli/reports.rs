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
