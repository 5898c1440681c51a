//! `<fenv.h>` end to end: `tests/fixtures/fenv/modes.c` sets each rounding mode, computes
//! sums, quotients, roots, conversions, `fma`, overflows and underflows, tests the
//! exception flags and prints everything with `%a`; `fpforge run -f main` prints byte
//! for byte what the native build prints, started in each mode with `--rounding` (the
//! native build calls `fesetround` first), and with a library of C fallbacks like
//! musl's `src/fenv/fenv.c` in `--lib-dir`, which the builtins take precedence over
//! (musl's x86-64 build uses assembly that sets MXCSR, which the builtins model).

use crate::common::{fixture, fpforge, stderr, stdout};
use fpir::eval::RoundingMode;
use std::process::Command;

/// The native build's stdout, started in `mode`.
fn native(source: &str, mode: RoundingMode) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = dir.path().join("prog");
    let start = match mode {
        RoundingMode::Nearest => "FE_TONEAREST",
        RoundingMode::Downward => "FE_DOWNWARD",
        RoundingMode::Upward => "FE_UPWARD",
        RoundingMode::TowardZero => "FE_TOWARDZERO",
    };
    let built = Command::new("clang-14")
        .args(["-w", "-O0", "-ffp-contract=off", "-frounding-math"])
        .arg(format!("-DSTART_MODE={start}"))
        .arg(source)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .status()
        .expect("clang-14 runs (scripts/setup.sh)");
    assert!(built.success());
    let out = Command::new(&exe).output().expect("runs");
    assert!(out.status.success());
    stdout(&out)
}

/// `fpforge run SOURCE -f main --json EXTRA...`: the report.
fn run(source: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["run", source, "-f", "main", "--json"];
    args.extend_from_slice(extra);
    let out = fpforge(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("JSON")
}

fn same_lines(got: &str, want: &str, what: &str) {
    for (k, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "{what}: line {}", k + 1);
    }
    assert_eq!(got, want, "{what}");
}

#[test]
fn every_rounding_mode_and_flag_matches_the_native_build() {
    let source = fixture("fenv", "modes.c");
    for mode in RoundingMode::ALL {
        let want = native(&source, mode);
        assert!(want.lines().count() > 200, "{want}");
        let report = run(&source, &["--rounding", mode.name()]);
        assert_eq!(report["rounding"], mode.name());
        let got = report["stdout"].as_str().expect("stdout");
        same_lines(got, &want, mode.name());
        assert_eq!(
            report["fp_exceptions"],
            serde_json::json!([]),
            "fesetenv(FE_DFL_ENV) at the end clears every flag"
        );
    }
}

#[test]
fn c_fallbacks_in_a_library_do_not_replace_the_builtins() {
    let source = fixture("fenv", "modes.c");
    let fallback = fixture("fenv", "fallback");
    let want = native(&source, RoundingMode::Nearest);
    let report = run(&source, &["--lib-dir", &fallback]);
    same_lines(
        report["stdout"].as_str().expect("stdout"),
        &want,
        "fallback",
    );
}

#[test]
fn a_bad_rounding_mode_is_refused() {
    let source = fixture("fenv", "modes.c");
    let out = fpforge(&["run", &source, "-f", "main", "--rounding", "sideways"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("'sideways'"), "{}", stderr(&out));
}

/// `long double` arithmetic and conversions honour the rounding mode as the x87 does
/// under glibc's `fesetround`, through the constrained intrinsics of
/// `#pragma STDC FENV_ACCESS ON`.
#[test]
fn long_double_rounds_in_every_mode_as_the_native_build() {
    let source = fixture("fenv", "long_double.c");
    for mode in RoundingMode::ALL {
        let want = native(&source, mode);
        assert!(want.lines().count() > 70, "{want}");
        let report = run(&source, &["--rounding", mode.name()]);
        same_lines(
            report["stdout"].as_str().expect("stdout"),
            &want,
            mode.name(),
        );
    }
}
