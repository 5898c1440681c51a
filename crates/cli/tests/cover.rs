//! End-to-end tests of `fpforge cover`: the output directory's files, inputs that
//! `fpforge run` reads back and that take the sides `coverage.json` credits them with,
//! and the same inputs for the same seed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/cover");
    root.join("branchy.c").to_string_lossy().into_owned()
}

fn fpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(args)
        .output()
        .expect("the fpforge binary runs")
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

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
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
        assert_eq!(coverage["covered"], coverage["total"]);
        let lcov = std::fs::read_to_string(dir.path().join("coverage.lcov")).unwrap();
        assert!(lcov.contains("BRDA:"), "{lcov}");
        let inputs = std::fs::read_to_string(dir.path().join("inputs.txt")).unwrap();
        let lines: Vec<&str> = inputs.lines().collect();
        assert_eq!(coverage["tests"], lines.len());
        for (index, line) in lines.iter().enumerate() {
            let mut args = vec!["run", "--json", "-f", func];
            let file = fixture();
            args.push(&file);
            args.push("--");
            args.extend(line.split(' '));
            let run = fpforge(&args);
            assert_eq!(
                run.status.code(),
                Some(0),
                "{func} {line}: {}",
                String::from_utf8_lossy(&run.stderr)
            );
            let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
            let taken: Vec<(String, String)> = report["branches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    let site = b["site"].as_str().unwrap().to_string();
                    (site, b["outcome"].as_str().unwrap().to_string())
                })
                .collect();
            for site in coverage["sites"].as_array().unwrap() {
                for side in site["sides"].as_array().unwrap() {
                    if side["test"] == index {
                        let want = (
                            site["id"].as_str().unwrap().to_string(),
                            side["side"].as_str().unwrap().to_string(),
                        );
                        assert!(taken.contains(&want), "{func} {line}: {want:?} {taken:?}");
                    }
                }
            }
        }
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

    let out = cover("impossible", a.path(), "1");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("covered 3/4"), "{summary}");
    assert!(summary.contains("branchy.c:"), "{summary}");
    assert!(summary.contains("not reached"), "{summary}");
    let coverage = json(&a.path().join("coverage.json"));
    let statuses: Vec<&str> = coverage["sites"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["sides"].as_array().unwrap())
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == "not reached").count(),
        1,
        "{coverage}"
    );
}
