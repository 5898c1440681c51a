//! End-to-end tests of `fpforge reach` and `fpforge explore`: every input they print or
//! write is read back by `fpforge run` and takes the claimed path or sides; infeasible
//! paths are reported with their proof; `--emit-smt2` writes a script `fpforge solve`
//! answers the same way.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(name: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/explore");
    root.join(name).to_string_lossy().into_owned()
}

fn fpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(args)
        .output()
        .expect("the fpforge binary runs")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The decisions `fpforge run --json` lists for `args`, as `site:side`.
fn branches(file: &str, func: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["run", "--json", file, "-f", func, "--"];
    all.extend_from_slice(args);
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&fpforge(&all))).expect("run --json prints JSON");
    common::listed_decisions(&report)
}

#[test]
fn reach_path_input_takes_the_path() {
    let file = fixture("dichotomic.c");
    let path = "br0:F br1:F (br2:T br3:F br4:T br2:T br3:F br4:F)x2 br2:T br3:T";
    let text = stdout(&fpforge(&[
        "reach",
        &file,
        "-f",
        "dichotomic",
        "--path",
        path,
    ]));
    assert!(text.starts_with("reached"), "{text}");
    let input = text
        .lines()
        .find_map(|l| l.strip_prefix("input: "))
        .expect("an input line");
    let taken = branches(&file, "dichotomic", &[input]);
    let want: Vec<&str> = "br0:F br1:F br2:T br3:F br4:T br2:T br3:F br4:F br2:T br3:F br4:T br2:T br3:F br4:F br2:T br3:T"
        .split(' ')
        .collect();
    assert_eq!(taken, want);
}

#[test]
fn reach_reports_infeasible_paths_with_their_proof() {
    let file = fixture("dichotomic.c");
    let dir = tempfile::tempdir().unwrap();
    let smt = dir.path().join("q.smt2");
    let smt = smt.to_string_lossy();
    let text = stdout(&fpforge(&[
        "reach",
        &file,
        "-f",
        "dichotomic",
        "--path",
        "br0:F br1:F (br2:T br3:F br4:F)x3 br2:T br3:T",
        "--emit-smt2",
        &smt,
    ]));
    assert!(
        text.starts_with("infeasible (interval labeling"),
        "{text}"
    );
    let solved = stdout(&fpforge(&["solve", &smt]));
    assert_eq!(solved.trim(), "unsat");
    // A thirteenth iteration does not exist: the loop's decision is input-independent
    // (every input-dependent decision before it is named, so the prefix is exact).
    let text = stdout(&fpforge(&[
        "reach",
        &file,
        "-f",
        "dichotomic",
        "--path",
        "br0:F br1:F (br2:T br3:F br4:T)x12 br2:T",
    ]));
    assert!(
        text.starts_with("infeasible (input-independent decision"),
        "{text}"
    );
}

#[test]
fn reach_branch_and_json() {
    let file = fixture("dichotomic.c");
    let out = fpforge(&[
        "reach",
        &file,
        "-f",
        "dichotomic",
        "--branch",
        "dichotomic.c:21:13:T",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["status"], "reached");
    let input = v["input"].as_str().unwrap();
    assert!(branches(&file, "dichotomic", &[input]).contains(&"br3:T".to_string()));
}

#[test]
fn explore_inputs_take_the_sides_coverage_json_credits() {
    let file = fixture("flopsy.c");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let text = stdout(&fpforge(&[
        "explore",
        &file,
        "-f",
        "helical_valley",
        "--time-limit",
        "20",
        "--out",
        &out,
    ]));
    assert!(text.contains("helical_valley: covered"), "{text}");
    let inputs = std::fs::read_to_string(dir.path().join("inputs.txt")).unwrap();
    let lines: Vec<&str> = inputs.lines().collect();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("coverage.json")).unwrap())
            .unwrap();
    let mut covered = 0;
    for site in json["sites"].as_array().unwrap() {
        for side in site["sides"].as_array().unwrap() {
            if side["status"] == "covered" {
                let test = side["test"].as_u64().unwrap() as usize;
                let args: Vec<&str> = lines[test].split(' ').collect();
                let taken = branches(&file, "helical_valley", &args);
                let want = format!(
                    "{}:{}",
                    site["id"].as_str().unwrap(),
                    side["side"].as_str().unwrap()
                );
                assert!(taken.contains(&want), "{want} not in {taken:?}");
                covered += 1;
            }
        }
    }
    assert_eq!(covered as u64, json["covered"].as_u64().unwrap());
    // The goal (the last site's then-side) is covered.
    let last = json["sites"].as_array().unwrap().last().unwrap();
    assert_eq!(last["sides"][0]["status"], "covered");
}
