//! Fortran 77 sources through f2c: `fpforge run` agrees bit for bit with a `gfortran -O0`
//! build of the same source (a C driver `main` calls the routines on special and random
//! inputs and prints the bits; it runs under fpforge and natively, linked with
//! gfortran's objects); `cover` takes every side of `examples/fortran/dstep.f` at its
//! Fortran lines, and its `regression.c`, linked with `gfortran --coverage` objects,
//! makes gcov count every branch of the routine taken; names as Fortran spells them;
//! scalars by reference as plain values; f2c's errors at the Fortran line.

use crate::common::{fixture, fpforge, stderr, success};
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/fortran/dstep.f")
        .to_string_lossy()
        .into_owned()
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A gfortran -O0 object of `source` in `dir` (with `--coverage` when asked).
fn gfortran_object(source: &str, dir: &Path, coverage: bool) -> PathBuf {
    let object = dir.join(format!(
        "{}.o",
        Path::new(source).file_stem().unwrap().to_string_lossy()
    ));
    let mut cmd = Command::new("gfortran");
    cmd.args(["-O0", "-c", source, "-o"]).arg(&object);
    if coverage {
        cmd.arg("--coverage").current_dir(dir);
    }
    run_ok(&mut cmd);
    object
}

/// The special and random doubles the differential runs on.
fn inputs() -> Vec<f64> {
    let mut values = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.5,
        -3.5,
        7.0,
        1e-300,
        -1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e3,
        1500.0,
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..20 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let magnitude = 10f64.powf((state % 1000) as f64 / 100.0 - 5.0);
        values.push(if state & 1 == 0 {
            magnitude
        } else {
            -magnitude
        });
    }
    values
}

/// The C driver: calls every routine of tests/fixtures/fortran/intrinsics.f and
/// examples/fortran/dstep.f on pairs of the inputs, printing result bits one line each.
fn driver() -> String {
    let values: Vec<String> = inputs()
        .iter()
        .map(|v| format!("{:#x}ULL", v.to_bits()))
        .collect();
    format!(
        r#"#include <stdio.h>
#include <string.h>
double mixed_(double *, double *, int *);
double extrema_(double *, double *);
int halve_(double *, int *, double *);
int zquot_(double *, double *, double *, double *, double *, double *);
double dstep_(double *, double *, int *);
static const unsigned long long in[] = {{ {values} }};
static unsigned long long bits(double x) {{
  unsigned long long b;
  memcpy(&b, &x, 8);
  return x != x ? 0x7ff8000000000000ULL : b;
}}
static double at(int i) {{ double x; memcpy(&x, &in[i], 8); return x; }}
int main(void) {{
  int n = sizeof in / sizeof in[0];
  for (int i = 0; i < n; i++) {{
    for (int j = 0; j < n; j += 3) {{
      double x = at(i), y = at(j), cr = 0, ci = 0, r = 0, a = at((i + j) % n), b = at((i * 7 + j) % n);
      int k = (i + j) % 9 - 4, m = j % 5;
      double x1 = x, y1 = y;
      printf("%d %d mixed %llx\n", i, j, bits(mixed_(&x1, &y1, &k)));
      printf("%d %d extrema %llx\n", i, j, bits(extrema_(&x1, &y1)));
      halve_(&x1, &m, &r);
      printf("%d %d halve %llx\n", i, j, bits(r));
      zquot_(&x1, &y1, &a, &b, &cr, &ci);
      printf("%d %d zquot %llx %llx\n", i, j, bits(cr), bits(ci));
      printf("%d %d dstep %llx\n", i, j, bits(dstep_(&x1, &y1, &m)));
    }}
  }}
  return 0;
}}
"#,
        values = values.join(", ")
    )
}

/// The lines of a run's output that the driver prints.
fn result_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            l.split_whitespace().count() >= 4
                && l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.parse::<u32>().is_ok())
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn run_agrees_with_gfortran_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let intrinsics = fixture("fortran", "intrinsics.f");
    let example = example();
    let source = dir.path().join("driver.c");
    std::fs::write(&source, driver()).unwrap();
    let objects = [
        gfortran_object(&intrinsics, dir.path(), false),
        gfortran_object(&example, dir.path(), false),
    ];
    let native = dir.path().join("native");
    run_ok(
        Command::new("gfortran")
            .arg("-O0")
            .arg(&source)
            .args(&objects)
            .arg("-o")
            .arg(&native)
            .arg("-lm"),
    );
    let expected = result_lines(&run_ok(&mut Command::new(&native)));
    let source = source.to_string_lossy().into_owned();
    let out = fpforge(&[
        "run",
        &source,
        &intrinsics,
        &example,
        "-f",
        "main",
        "--fuel",
        "100000000",
    ]);
    let got = result_lines(&success(&out));
    assert_eq!(
        expected.len(),
        inputs().len() * inputs().len().div_ceil(3) * 5
    );
    let differ: Vec<(&String, &String)> =
        expected.iter().zip(&got).filter(|(a, b)| a != b).collect();
    assert!(
        differ.is_empty() && expected.len() == got.len(),
        "{} of {} lines differ ({} native, {} fpforge), first: {:?}",
        differ.len(),
        expected.len(),
        expected.len(),
        got.len(),
        differ.first()
    );
}

#[test]
fn scalars_by_reference_and_fortran_names() {
    let example = example();
    let listed = success(&fpforge(&["list", &example]));
    assert!(
        listed.contains(
            "double precision function dstep(double precision x, double precision h, integer n)"
        ),
        "{listed}"
    );
    assert!(listed.contains("dstep.f:3:"), "the header's line: {listed}");
    let out = success(&fpforge(&[
        "run", &example, "-f", "DSTEP", "--", "2", "3", "4",
    ]));
    assert!(
        out.starts_with("dstep(2, 3, 4) = 0x1.a2a57c42164adp+5"),
        "{out}"
    );
    assert!(out.contains("dstep.f:9:"), "sites at Fortran lines: {out}");
    // An array dimensioned by a parameter: `[...]`; the scalars plain.
    let out = success(&fpforge(&[
        "run",
        &example,
        "-f",
        "dnorm",
        "--",
        "3",
        "[3, 4, 12]",
        "0",
    ]));
    assert!(out.contains("r = [0x1.ap+3]"), "{out}");
}

#[test]
fn f2c_errors_name_the_fortran_line() {
    let bad = fixture("fortran", "bad.f");
    let out = fpforge(&["run", &bad, "-f", "bad", "--", "1"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("bad.f:3: f2c: syntax error"),
        "one line naming the file and line: {err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn stop_and_write_are_outcomes() {
    let intrinsics = fixture("fortran", "intrinsics.f");
    let out = fpforge(&["run", &intrinsics, "-f", "check", "--", "-2"]);
    let text = success(&out);
    assert!(text.contains("exit status: 0"), "{text}");
    assert!(text.contains("negative: -2"), "{text}");
    assert!(text.contains("STOP bad input"), "{text}");
}

/// Branches of `name` in a `gcov -b -c` file: taken at least once, and all.
fn taken(gcov: &str, name: &str) -> (usize, usize) {
    let header = format!("function {name} called");
    let mut lines = gcov.lines().skip_while(|l| !l.starts_with(&header));
    lines.next().expect("the function is in the gcov file");
    let branches: Vec<&str> = lines
        .take_while(|l| !l.starts_with("function "))
        .filter(|l| l.starts_with("branch "))
        .collect();
    let taken = branches
        .iter()
        .filter(|l| {
            l.split_whitespace()
                .skip_while(|w| *w != "taken")
                .nth(1)
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|n| n > 0)
        })
        .count();
    (taken, branches.len())
}

#[test]
fn cover_takes_every_side_and_gcov_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let example = example();
    let out_dir = dir.path().join("out");
    let out = success(&fpforge(&[
        "cover",
        &example,
        "-f",
        "dstep",
        "--arg",
        "n in [0, 20]",
        "--evals",
        "20000",
        "--seed",
        "1",
        "--out",
        &out_dir.to_string_lossy(),
    ]));
    assert!(out.contains("covered 8/8 branch sides (100.0%)"), "{out}");
    let coverage = std::fs::read_to_string(out_dir.join("coverage.json")).unwrap();
    for line in [":9:", ":11:", ":16:", ":18:"] {
        assert!(
            coverage.contains(&format!("dstep.f{line}")),
            "a site at dstep.f{line}: {coverage}"
        );
    }
    // The regression program with gfortran's instrumented object: gcov judges.
    let copy = dir.path().join("dstep.f");
    std::fs::copy(&example, &copy).unwrap();
    let object = gfortran_object(&copy.to_string_lossy(), dir.path(), true);
    let program = dir.path().join("regression");
    run_ok(
        Command::new("gcc")
            .args(["-std=c99", "-O0", "--coverage"])
            .arg(out_dir.join("regression.c"))
            .arg(&object)
            .arg("-o")
            .arg(&program)
            .arg("-lm")
            .current_dir(dir.path()),
    );
    run_ok(Command::new(&program).current_dir(dir.path()));
    run_ok(
        Command::new("gcov")
            .args(["-b", "-c", "dstep.f"])
            .current_dir(dir.path()),
    );
    let gcov = std::fs::read_to_string(dir.path().join("dstep.f.gcov")).unwrap();
    let (hit, all) = taken(&gcov, "dstep_");
    assert!(all > 0 && hit == all, "gcov: {hit} of {all} branches taken");
}
