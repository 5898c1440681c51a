//! End-to-end tests of `fpforge reach` and `fpforge explore`: every input they print or
//! write is read back by `fpforge run` and takes the claimed path or sides; infeasible
//! paths are reported with their proof; `--emit-smt2` writes a script `fpforge solve`
//! answers the same way.

use crate::common::success as stdout;
use crate::common::{check_credited_sides, fpforge, json_file, run_decisions as branches};

fn fixture(name: &str) -> String {
    crate::common::fixture("explore", name)
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
    assert!(text.starts_with("infeasible (interval labeling"), "{text}");
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
    assert!(check_credited_sides(dir.path(), &file, "helical_valley") > 0);
    let json = json_file(&dir.path().join("coverage.json"));
    assert_eq!(json["engine"], "explore");
    // The goal (the last site's then-side) is covered.
    let last = json["sites"].as_array().unwrap().last().unwrap();
    assert_eq!(last["sides"][0]["status"], "covered");
}
