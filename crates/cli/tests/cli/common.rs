//! Helpers every CLI test module shares: running the binary, fixtures, JSON outputs, and
//! checking that an output directory's tests take the sides `coverage.json` credits.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The path of `tests/fixtures/DIR/NAME`.
pub fn fixture(dir: &str, name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(dir)
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs `COMMAND tests/fixtures/report/gauge.c -f gauge --time-limit 1 --out DIR EXTRA...`
/// (a function with sides of every status and a crash: `mode` 4 reads past a table).
pub fn fpforge_on_gauge(command: &str, dir: &Path, extra: &[&str]) -> Output {
    let source = fixture("report", "gauge.c");
    let out = dir.to_string_lossy().into_owned();
    let mut args = vec![
        command,
        &source,
        "-f",
        "gauge",
        "--time-limit",
        "1",
        "--out",
        &out,
    ];
    args.extend_from_slice(extra);
    fpforge(&args)
}

/// Runs `fpforge ARGS`.
pub fn fpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(args)
        .output()
        .expect("the fpforge binary runs")
}

/// Standard output as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Standard output of a run that must succeed.
pub fn success(out: &Output) -> String {
    assert!(out.status.success(), "{}", stderr(out));
    stdout(out)
}

/// A JSON file.
pub fn json_file(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The JSON a successful run printed.
pub fn json_stdout(out: &Output) -> serde_json::Value {
    serde_json::from_str(&success(out)).expect("JSON on stdout")
}

/// The decisions a `fpforge run --json` report lists one by one, as side names.
pub fn listed_decisions(report: &serde_json::Value) -> Vec<String> {
    report["branches"]
        .as_array()
        .expect("a branches list")
        .iter()
        .map(|b| {
            format!(
                "{}:{}",
                b["site"].as_str().unwrap(),
                b["outcome"].as_str().unwrap()
            )
        })
        .collect()
}

/// The decisions `fpforge run --json FILE -f FUNC -- ARGS` lists.
pub fn run_decisions(file: &str, func: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["run", "--json", file, "-f", func, "--"];
    all.extend_from_slice(args);
    listed_decisions(&json_stdout(&fpforge(&all)))
}

/// Every side row of the program's own branches in a `coverage.json` (trap guards'
/// sides are in [`trap_sides`]).
pub fn coverage_sides(coverage: &serde_json::Value) -> Vec<&serde_json::Value> {
    sides_of_sites(coverage, |site| site["kind"] != "trap")
}

/// Every side row of the trap guards in a `coverage.json`.
pub fn trap_sides(coverage: &serde_json::Value) -> Vec<&serde_json::Value> {
    sides_of_sites(coverage, |site| site["kind"] == "trap")
}

fn sides_of_sites(
    coverage: &serde_json::Value,
    keep: impl Fn(&serde_json::Value) -> bool,
) -> Vec<&serde_json::Value> {
    coverage["sites"]
        .as_array()
        .expect("a sites list")
        .iter()
        .filter(|site| keep(site))
        .flat_map(|site| site["sides"].as_array().expect("a sides list"))
        .collect()
}

/// Checks an output directory of `cover` or `explore` on `func` of `file`: each line of
/// `inputs.txt`, run by `fpforge run`, takes every side `coverage.json` credits to it,
/// and `coverage.json` counts as many tests and covered sides as it lists. Returns the
/// number of covered sides.
pub fn check_credited_sides(dir: &Path, file: &str, func: &str) -> usize {
    let coverage = json_file(&dir.join("coverage.json"));
    let inputs = std::fs::read_to_string(dir.join("inputs.txt")).unwrap();
    let lines: Vec<&str> = inputs.lines().collect();
    assert_eq!(coverage["tests"], lines.len());
    let mut covered = 0;
    for (index, line) in lines.iter().enumerate() {
        let args: Vec<&str> = words(line);
        let taken = run_decisions(file, func, &args);
        for side in coverage_sides(&coverage) {
            if side["test"] == index {
                let name = side["side"].as_str().unwrap().to_string();
                assert!(
                    taken.contains(&name),
                    "{func} {line}: {name} not in {taken:?}"
                );
                covered += 1;
            }
        }
    }
    assert_eq!(coverage["covered"], covered);
    covered
}

/// The arguments of a line of `inputs.txt`: split at spaces outside brackets and braces
/// (a struct's text has spaces).
pub fn words(line: &str) -> Vec<&str> {
    let (mut words, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in line.char_indices() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ' ' if depth == 0 => {
                words.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    words.push(&line[start..]);
    words
}
