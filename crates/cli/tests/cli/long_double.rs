//! `long double` end to end: programs of `tests/fixtures/longdouble/` print byte for
//! byte what their native build prints, `fpforge run` passes and prints long doubles
//! exactly, and `cover` searches them and writes a `regression.c` declaring them that
//! passes (`basics` checks that `__float128` is a named "unsupported" error).

use crate::common::{fixture, fpforge, stderr, stdout};
use std::process::Command;

#[test]
fn long_double_programs_print_what_their_native_build_prints() {
    for (name, lines) in [("ops.c", 3_000), ("math.c", 500)] {
        program_prints_what_its_native_build_prints(name, lines);
    }
}

/// Arithmetic, conversions and comparisons (`ops.c`) and the math functions of the C
/// library (`math.c`: sqrtl, fabsl, copysignl exact, the others the host's).
fn program_prints_what_its_native_build_prints(name: &str, lines: usize) {
    let source = fixture("longdouble", name);
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = dir.path().join("prog");
    let built = Command::new("clang-14")
        .args(["-w", "-O0", "-ffp-contract=off", &source, "-lm", "-o"])
        .arg(&exe)
        .status()
        .expect("clang-14 runs (scripts/setup.sh)");
    assert!(built.success());
    let want = stdout(&Command::new(&exe).output().expect("runs"));
    assert!(want.lines().count() >= lines, "{}", want.lines().count());
    let out = fpforge(&["run", &source, "-f", "main", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let got = report["stdout"].as_str().expect("stdout");
    for (k, (got, want)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(got, want, "{name} line {}", k + 1);
    }
    assert_eq!(got, want);
}

/// Bitcode compiled without `-ffp-contract=off` has `llvm.fmuladd.f80` where the source
/// writes `a * b + c`; the x87 build rounds the product and the sum, and so does fpforge.
#[test]
fn contracted_long_double_products_round_twice_as_the_x87_does() {
    let source = fixture("longdouble", "ops.c");
    let dir = tempfile::tempdir().expect("temp dir");
    let (exe, ll) = (dir.path().join("prog"), dir.path().join("ops.ll"));
    let clang = |args: &[&str], out: &std::path::Path| {
        let built = Command::new("clang-14")
            .args(["-w", "-O0"])
            .args(args)
            .arg(&source)
            .arg("-o")
            .arg(out)
            .status()
            .expect("clang-14 runs (scripts/setup.sh)");
        assert!(built.success());
    };
    clang(&["-lm"], &exe);
    clang(&["-S", "-emit-llvm", "-Xclang", "-disable-O0-optnone"], &ll);
    let text = std::fs::read_to_string(&ll).expect("IR text");
    assert!(
        text.contains("@llvm.fmuladd.f80("),
        "ops.c has a contracted a * b + c"
    );
    let want = stdout(&Command::new(&exe).output().expect("runs"));
    let out = fpforge(&["run", &ll.to_string_lossy(), "-f", "main", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(report["stdout"].as_str().expect("stdout"), want);
}

/// A C driver calling `scale` and `narrow` of `params.c` natively on `x`, printing the
/// results as `fpforge run` does.
const DRIVER: &str = r#"#include <stdio.h>
#include <stdlib.h>
long double scale(long double x, int n, long double y);
double narrow(long double x);
int main(int argc, char **argv) {
  long double x = strtold(argv[1], 0), y = strtold(argv[2], 0);
  printf("%La\n%a\n", scale(x, 3, y), narrow(x));
  return 0;
}
"#;

#[test]
fn run_passes_and_prints_long_doubles_as_the_native_build_computes_them() {
    let source = fixture("longdouble", "params.c");
    let dir = tempfile::tempdir().expect("temp dir");
    let driver = dir.path().join("driver.c");
    std::fs::write(&driver, DRIVER).expect("written");
    let exe = dir.path().join("native");
    let built = Command::new("clang-14")
        .args(["-w", "-O0", "-ffp-contract=off", &source])
        .arg(&driver)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-14 runs");
    assert!(built.success());
    let values = [
        ("0x1.0000000000000002p+0", "0.1"),
        ("2.75", "-0x1.fffffffffffffffep-2"),
        ("-3.3", "1e-4940"),
        ("0x1.8p+1000", "inf"),
    ];
    for (x, y) in values {
        let native = stdout(&Command::new(&exe).args([x, y]).output().expect("runs"));
        let mut lines = native.lines();
        let (want_scale, want_narrow) =
            (lines.next().expect("scale"), lines.next().expect("narrow"));
        let out = fpforge(&["run", &source, "-f", "scale", "--json", "--", x, "3", y]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        let returned = &report["returned"];
        assert_eq!(returned["type"], "f80");
        let exact = returned["exact"].as_str().expect("exact");
        let decimal = returned["decimal"].as_str().expect("decimal");
        assert_eq!(
            fpir::f80::parse(exact),
            fpir::f80::parse(decimal),
            "the decimal reads back to the value"
        );
        let native_value = fpir::f80::parse(want_scale).expect("glibc's %La reads");
        assert_eq!(
            fpir::f80::parse(exact),
            Some(native_value),
            "scale({x}, 3, {y})"
        );
        let out = fpforge(&["run", &source, "-f", "narrow", "--", x]);
        assert!(
            stdout(&out).starts_with(&format!("narrow({x}) = {want_narrow} ")),
            "{}",
            stdout(&out)
        );
    }
    let out = fpforge(&["run", &source, "-f", "scale", "--", "1.5x", "3", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("takes a long double"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn cover_searches_long_doubles_and_its_regression_file_passes() {
    let source = fixture("longdouble", "params.c");
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let out = fpforge(&[
        "cover",
        &source,
        "-f",
        "scale",
        "--arg",
        "x: f80 in [-8, 8]",
        "--time-limit",
        "2",
        "--out",
        out_dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("covered 4/4"), "{}", stdout(&out));
    let inputs = std::fs::read_to_string(out_dir.join("inputs.txt")).expect("inputs.txt");
    for line in inputs.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.len(), 3, "{line}");
        let replay = fpforge(&[
            "run", &source, "-f", "scale", "--", words[0], words[1], words[2],
        ]);
        assert_eq!(replay.status.code(), Some(0), "{line}: {}", stderr(&replay));
    }
    let regression = std::fs::read_to_string(out_dir.join("regression.c")).expect("regression.c");
    assert!(regression.contains("long double scale(long double, int, long double);"));
    let exe = dir.path().join("regression");
    let built = Command::new("clang-14")
        .args(["-w", "-std=c99", "-O0"])
        .arg(out_dir.join("regression.c"))
        .arg(&source)
        .args(["-lm", "-o"])
        .arg(&exe)
        .status()
        .expect("clang-14 runs");
    assert!(built.success());
    let ran = Command::new(&exe).output().expect("runs");
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
}
