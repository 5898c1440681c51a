//! The C library model end to end: programs of `tests/fixtures/libc/` run through
//! `fpforge run -f main` print byte for byte what their native build prints, and the
//! report shows argv, the exit status, `errno` and both streams.

use crate::common::{fixture, fpforge, stderr, stdout};
use std::process::Command;

/// The native build's (stdout, stderr, exit code) with `args`.
fn native(source: &str, args: &[&str]) -> (String, String, i32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = dir.path().join("prog");
    let built = Command::new("clang-14")
        .args(["-w", "-O0", "-ffp-contract=off", source, "-o"])
        .arg(&exe)
        .status()
        .expect("clang-14 runs (scripts/setup.sh)");
    assert!(built.success());
    let out = Command::new(&exe).args(args).output().expect("runs");
    (stdout(&out), stderr(&out), out.status.code().unwrap_or(-1))
}

/// Runs `main` of the fixture `name` with the one argument `arg` natively and under
/// `fpforge run`, checks that the outputs are byte-identical (stdout at least
/// `min_lines` lines) and returns the report.
fn run_matches_native(name: &str, arg: &str, min_lines: usize) -> serde_json::Value {
    let source = fixture("libc", name);
    let (want_out, want_err, _) = native(&source, &[arg]);
    let out = fpforge(&["run", &source, "-f", "main", "--json", "--", arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let got_out = report["stdout"].as_str().expect("stdout");
    assert!(
        want_out.lines().count() > min_lines,
        "{}",
        want_out.lines().count()
    );
    for (k, (got, want)) in got_out.lines().zip(want_out.lines()).enumerate() {
        assert_eq!(got, want, "line {}", k + 1);
    }
    assert_eq!(got_out, want_out);
    assert_eq!(report["stderr"].as_str(), Some(want_err.as_str()));
    report
}

#[test]
fn printf_and_strings_match_the_native_build() {
    let report = run_matches_native("formats.c", "60", 2_500);
    assert_eq!(report["exit_status"], 0);
}

/// `%Lf %Le %Lg %La` on x87 values, passed by `printf`, `sprintf`, `snprintf` and
/// `fprintf` among other variable arguments.
#[test]
fn long_double_conversions_match_the_native_build() {
    run_matches_native("long_double.c", "60", 1_700);
}

#[test]
fn main_gets_argv_and_reports_exit_status_errno_and_streams() {
    let source = fixture("libc", "hello.c");
    let (want_out, want_err, want_code) = native(&source, &["2.5", "7"]);
    let out = fpforge(&["run", &source, "-f", "main", "--", "2.5", "7"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "exit(7) is no trap: {}",
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(
        text.contains(&format!("exit status: {want_code}")),
        "{text}"
    );
    assert!(text.contains("errno: 33 (EDOM)"), "{text}");
    assert!(text.contains(&format!("stdout:\n{want_out}")), "{text}");
    assert!(text.contains(&format!("stderr:\n{want_err}")), "{text}");
}

#[test]
fn newlibs_errno_and_reentrancy_state_are_the_c_runtimes() {
    let source = fixture("libc", "newlib_runtime.c");
    for (x, returned, errno) in [("-2.5", "2.5", Some(33)), ("4", "4.0", None)] {
        let out = fpforge(&["run", &source, "-f", "signed_magnitude", "--json", "--", x]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        assert_eq!(
            report["returned"]["decimal"], returned,
            "signgam written to and read back from _impure_ptr"
        );
        assert_eq!(report["errno"].as_i64(), errno, "{report}");
    }
}

/// qsort (even with a comparator that NaNs make no order, and with equal keys), bsearch
/// (duplicates, misses) and div/ldiv/lldiv run from the C runtime fpforge links in and
/// print what the native C library prints, for several seeds of the data.
#[test]
fn qsort_bsearch_and_div_match_the_native_library() {
    let source = fixture("libc", "sorting.c");
    for seed in ["1", "77", "4242"] {
        let (want_out, _, _) = native(&source, &[seed]);
        assert!(want_out.lines().count() > 100, "{want_out}");
        let out = fpforge(&["run", &source, "-f", "main", "--json", "--", seed]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        assert_eq!(
            report["stdout"].as_str(),
            Some(want_out.as_str()),
            "seed {seed}"
        );
    }
}
