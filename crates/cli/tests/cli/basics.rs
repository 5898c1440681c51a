//! `run`, `sites`, `ir` and `solve` on the fixtures of `tests/fixtures/cli`: results,
//! exit codes and one-line error messages that name cause and location.

use crate::common::{fpforge, stderr, stdout};
use std::process::{Command, Output};

fn fixture(name: &str) -> String {
    crate::common::fixture("cli", name)
}

#[test]
fn run_prints_result_and_branches() {
    let out = fpforge(&[
        "run",
        &fixture("branches.c"),
        "-f",
        "sign_class",
        "--",
        "-0x1p-1074",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("sign_class(-0x1p-1074) = -1"), "{text}");
    assert!(text.contains("branches (2): br0:F br1:T"), "{text}");
    assert!(text.contains("branches.c:6:9"), "{text}");
}

#[test]
fn run_json_reports_output_arrays() {
    let out = fpforge(&[
        "run",
        &fixture("branches.c"),
        "-f",
        "double_and_sum",
        "[1, 0x1.8p+0, -0.0]",
        "3",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["returned"]["exact"], "0x1.4p+2");
    let values: Vec<&str> = report["arrays"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["exact"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["0x1p+1", "0x1.8p+1", "-0x0p+0"]);
    assert_eq!(report["arrays"][0]["parameter"], "a");
}

#[test]
fn syntax_error_shows_clang_diagnostic() {
    let out = fpforge(&["run", &fixture("syntax_error.c"), "-f", "broken", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("syntax_error.c:3:16: error: expected expression"),
        "{err}"
    );
}

#[test]
fn unknown_function_lists_defined_ones() {
    let out = fpforge(&["run", &fixture("branches.c"), "-f", "nope", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no function named `nope`"), "{err}");
    assert!(err.contains("sign_class"), "{err}");
}

#[test]
fn float128_is_a_clear_unsupported_error() {
    let out = fpforge(&["run", &fixture("float128.c"), "-f", "widen", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("unsupported: fp128 (__float128)"), "{err}");
    assert!(err.contains("float128.c:"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn skip_unsupported_runs_the_supported_functions() {
    // `halve` does not reach `widen`, so it loads without the flag.
    let lazy = fpforge(&["run", &fixture("float128.c"), "-f", "halve", "3"]);
    assert_eq!(lazy.status.code(), Some(0), "{}", stderr(&lazy));
    let strict = fpforge(&["run", &fixture("float128.c"), "-f", "widen", "3"]);
    assert_eq!(strict.status.code(), Some(1));
    let lenient = fpforge(&[
        "run",
        &fixture("float128.c"),
        "-f",
        "halve",
        "--skip-unsupported",
        "3",
    ]);
    assert_eq!(lenient.status.code(), Some(0), "{}", stderr(&lenient));
    assert!(
        stdout(&lenient).contains("halve(3) = 0x1.8p+0"),
        "{}",
        stdout(&lenient)
    );
    let entry = fpforge(&[
        "run",
        &fixture("float128.c"),
        "-f",
        "widen",
        "--skip-unsupported",
        "3",
    ]);
    assert_eq!(entry.status.code(), Some(1));
    assert!(stderr(&entry).contains("not lowered"), "{}", stderr(&entry));
}

#[test]
fn unresolved_externals_are_listed() {
    let out = fpforge(&[
        "run",
        &fixture("calls_unknown.c"),
        "-f",
        "uses_mystery",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("helper, mystery"), "{err}");
}

#[test]
fn allow_undefined_warns_and_traps_only_when_reached() {
    let strict = fpforge(&[
        "run",
        &fixture("error_path.c"),
        "-f",
        "checked_sum",
        "1",
        "2",
    ]);
    assert_eq!(strict.status.code(), Some(1));
    let err = stderr(&strict);
    assert!(
        err.contains("perror") && err.contains("--allow-undefined"),
        "{err}"
    );

    let args = ["run", &fixture("error_path.c"), "-f", "checked_sum"];
    let fine = fpforge(&[&args[..], &["--allow-undefined", "1", "2"]].concat());
    assert_eq!(fine.status.code(), Some(0), "{}", stderr(&fine));
    assert!(stdout(&fine).contains("= 0x1.8p+1"), "{}", stdout(&fine));
    let warning = stderr(&fine);
    assert!(
        warning.contains("warning:") && warning.contains("perror"),
        "{warning}"
    );

    // The error path calls `perror`, which the libc model leaves undefined: the run
    // traps there.
    let reached = fpforge(&[&args[..], &["--allow-undefined", "--", "-1", "2"]].concat());
    assert_eq!(reached.status.code(), Some(3), "{}", stderr(&reached));
    let report = stdout(&reached);
    assert!(report.contains("perror"), "{report}");
}

#[test]
fn reading_an_undefined_global_is_an_error_not_a_zero() {
    let out = fpforge(&["run", &fixture("undefined_global.c"), "-f", "guarded", "3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty(), "no result: {}", stdout(&out));
    let err = stderr(&out);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.contains("`guarded` may use what no input defines: globals MAXLOG")
            && first.contains("--allow-undefined"),
        "{err}"
    );
    assert!(
        err.contains("MAXLOG (global): used at ")
            && err.contains("undefined_global.c:6:13 in guarded → clamp"),
        "{err}"
    );
}

#[test]
fn lib_dir_pulls_in_what_the_function_needs() {
    let cache = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fpforge"))
            .args(["run", &fixture("uses_library.c"), "-f", "guarded_poly"])
            .args(extra)
            .env("FPFORGE_CACHE_DIR", cache.path())
            .output()
            .unwrap()
    };
    let without = run(&["2"]);
    assert_eq!(without.status.code(), Some(1));
    assert!(
        stderr(&without).contains("functions polevl; globals MAXLOG"),
        "{}",
        stderr(&without)
    );
    let with = run(&["--lib-dir", &fixture("libdir"), "2"]);
    assert_eq!(with.status.code(), Some(0), "{}", stderr(&with));
    // polevl computes (1*2 + 2)*2 + 3 = 11.
    assert!(
        stdout(&with).contains("guarded_poly(2) = 0x1.6p+3"),
        "{}",
        stdout(&with)
    );
    let note = stderr(&with);
    assert!(
        note.contains("linked from the library: ")
            && note.contains("polevl.c")
            && note.contains("const.c")
            && !note.contains("unused.c"),
        "{note}"
    );
    let big = run(&["--lib-dir", &fixture("libdir"), "1e6"]);
    assert!(
        stdout(&big).contains("= 0x1.62e42fefa39efp+9"),
        "MAXLOG is read from const.c: {}",
        stdout(&big)
    );
}

#[test]
fn endless_loop_stops_on_fuel() {
    let out = fpforge(&[
        "run",
        &fixture("forever.c"),
        "-f",
        "spin",
        "--fuel",
        "100000",
        "--",
        "-1",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("trapped"), "{text}");
    assert!(text.contains("fuel"), "{text}");
    // Three steps per iteration: the 33,333 decisions print as one group and one count.
    assert!(text.contains("branches (33333): (br0:T)x33333\n"), "{text}");
    assert!(text.contains("forever.c:5:5  T 33333\n"), "{text}");
    assert!(text.len() < 500, "{text}");
}

#[test]
fn run_folds_loops_and_counts_sides() {
    let out = fpforge(&[
        "run",
        &fixture("branches.c"),
        "-f",
        "double_and_sum",
        "[1, 2, 3, 4]",
        "4",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = crate::common::listed_decisions(&report);
    assert_eq!(report["decisions"], listed.len());
    // The folded trace expands to the listed decisions, and the side counts add up.
    let trace = report["trace"].as_str().unwrap();
    assert_eq!(expand_trace(trace), listed, "{trace}");
    let counted: u64 = report["sides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, listed.len() as u64);
    assert!(trace.contains(")x4"), "{trace}");
}

/// The decisions of a folded trace, `a (b c)x2` -> `a b c b c`.
fn expand_trace(text: &str) -> Vec<String> {
    let spaced = text.replace('(', "( ").replace(")x", " )x");
    let mut open: Vec<Vec<String>> = vec![Vec::new()];
    for word in spaced.split_whitespace() {
        if word == "(" {
            open.push(Vec::new());
        } else if let Some(count) = word.strip_prefix(")x") {
            let body = open.pop().expect("a group was opened");
            let n = body.len() * count.parse::<usize>().expect("a repetition count");
            let outer = open.last_mut().expect("an unbalanced `)`");
            outer.extend(body.iter().cycle().take(n).cloned());
        } else {
            open.last_mut().unwrap().push(word.to_string());
        }
    }
    assert_eq!(open.len(), 1, "unbalanced `(` in {text}");
    open.pop().unwrap()
}

#[test]
fn out_of_bounds_read_is_a_trap_with_location() {
    let out = fpforge(&["run", &fixture("out_of_bounds.c"), "-f", "lookup", "4"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("out of bounds") || text.contains("out-of-bounds"),
        "{text}"
    );
    assert!(text.contains("out_of_bounds.c:6:"), "{text}");
    let ok = fpforge(&["run", &fixture("out_of_bounds.c"), "-f", "lookup", "3"]);
    assert!(stdout(&ok).contains("= 0x1p+3"), "{}", stdout(&ok));
}

#[test]
fn null_dereference_is_a_trap() {
    let out = fpforge(&["run", &fixture("out_of_bounds.c"), "-f", "deref_null", "2"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stdout(&out).contains("null"), "{}", stdout(&out));
}

#[test]
fn wrong_argument_count_names_the_signature() {
    let out = fpforge(&["run", &fixture("branches.c"), "-f", "hypot_via_libm", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("takes 2 argument(s) (x: f64, y: f64), 1 given"),
        "{err}"
    );
}

#[test]
fn malformed_value_names_the_argument() {
    let out = fpforge(&["run", &fixture("branches.c"), "-f", "sign_class", "1.5.2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("argument 1 of `sign_class`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn sites_lists_branches_and_ops_with_locations() {
    let out = fpforge(&[
        "sites",
        &fixture("branches.c"),
        "-f",
        "hypot_via_libm",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ops: Vec<&str> = report["op_sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["what"].as_str().unwrap())
        .collect();
    assert_eq!(
        ops,
        [
            "fmul f64",
            "fmul f64",
            "fadd f64",
            "sqrt.f64",
            "hypot.f64",
            "fmul f64",
            "fadd f64"
        ]
    );
    assert!(report["op_sites"][0]["location"]
        .as_str()
        .unwrap()
        .ends_with("branches.c:28:19"));
}

/// Native result of `rough_cos(x)` from the same three sources built by clang-14.
fn native_rough_cos(xs: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.c");
    let calls: String = xs
        .iter()
        .map(|x| format!("    printf(\"%a\\n\", rough_cos({x}));\n"))
        .collect();
    std::fs::write(
        &main,
        format!("#include <stdio.h>\ndouble rough_cos(double);\nint main(void) {{\n{calls}}}\n"),
    )
    .unwrap();
    let exe = dir.path().join("native");
    let multi = fixture("multi");
    let status = Command::new("clang-14")
        .args([
            "-O0",
            "-ffp-contract=off",
            "-DTERMS=5",
            "-I",
            &fixture("include"),
        ])
        .args(["kernel.c", "reduce.c", "cosine.c"].map(|f| format!("{multi}/{f}")))
        .arg(&main)
        .args(["-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(&exe).output().unwrap();
    stdout(&out).lines().map(str::to_string).collect()
}

#[test]
fn directory_and_file_lists_link_into_one_program_matching_native() {
    let xs = ["0.3", "2.0", "-4.0", "1e3", "0x1.921fb54442d18p+1"];
    let native = native_rough_cos(&xs);
    let multi = fixture("multi");
    let include = fixture("include");
    let files = ["reduce.c", "kernel.c", "cosine.c"].map(|f| format!("{multi}/{f}"));
    for (x, expected) in xs.iter().zip(&native) {
        let from_dir = fpforge(&[
            "run",
            &multi,
            "-I",
            &include,
            "-D",
            "TERMS=5",
            "-f",
            "rough_cos",
            "--",
            x,
        ]);
        assert_eq!(from_dir.status.code(), Some(0), "{}", stderr(&from_dir));
        let first = stdout(&from_dir)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(
            first.contains(&format!("= {expected} ")),
            "{first} vs native {expected}"
        );
        let mut args = vec!["run"];
        args.extend(files.iter().map(String::as_str));
        args.extend([
            "-I",
            &include,
            "--cflag",
            "-DTERMS=5",
            "-f",
            "rough_cos",
            "--",
            x,
        ]);
        let from_files = fpforge(&args);
        assert_eq!(stdout(&from_files).lines().next(), Some(first.as_str()));
    }
}

#[test]
fn missing_macro_shows_the_compiler_error() {
    let out = fpforge(&[
        "run",
        &fixture("multi"),
        "-I",
        &fixture("include"),
        "-f",
        "rough_cos",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("compile with -DTERMS=n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn closed_stdout_is_not_a_crash() {
    // `head -c 0` exits at once, so the pipe is closed before fpforge writes.
    let script = format!(
        "{{ sleep 0.3; exec '{}' ir '{}' -f sign_class; }} | head -c 0",
        env!("CARGO_BIN_EXE_fpforge"),
        fixture("branches.c")
    );
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(out.status.success());
}

fn solve_fixture(name: &str) -> String {
    crate::common::fixture("solve", name)
}

/// Reads `(fp #bS #bE #bM)` for `name` from a printed model, as f32.
fn model_f32(model: &str, name: &str) -> f32 {
    let start = model
        .find(&format!("(define-fun {name} "))
        .expect("variable in model");
    let fp = &model[start..];
    let fields: Vec<&str> = fp[fp.find("(fp ").unwrap() + 4..]
        .split(')')
        .next()
        .unwrap()
        .split_whitespace()
        .map(|f| f.trim_start_matches("#b"))
        .collect();
    let bits = u32::from_str_radix(&fields.concat(), 2).unwrap();
    f32::from_bits(bits)
}

#[test]
fn solve_answers_sat_with_a_model_that_holds() {
    let out = fpforge(&["solve", &solve_fixture("absorption.smt2"), "--seed", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("sat\n"), "{text}");
    let (x, y) = (model_f32(&text, "x"), model_f32(&text, "y"));
    assert!(x + y == x && y != 0.0 && x > 1.0, "x = {x:e}, y = {y:e}");
}

#[test]
fn solve_proves_unsat_by_propagation() {
    let out = fpforge(&[
        "solve",
        &solve_fixture("empty_range.smt2"),
        "--solver",
        "interval",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "unsat");
}

#[test]
fn solve_parse_error_names_file_line_and_column() {
    let out = fpforge(&["solve", &solve_fixture("bad_command.smt2")]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("bad_command.smt2:3:"), "{err}");
    assert!(err.contains("fp.frobnicate"), "{err}");
}

#[test]
fn bitcode_and_textual_ir_inputs_run_like_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("branches.c");
    let from_source = fpforge(&["run", &source, "-f", "sign_class", "--", "-0.0"]);
    assert_eq!(
        from_source.status.code(),
        Some(0),
        "{}",
        stderr(&from_source)
    );
    let first_line = |out: &Output| stdout(out).lines().next().unwrap_or_default().to_string();
    for (flag, ext) in [("-c", "bc"), ("-S", "ll")] {
        let ir = dir.path().join(format!("branches.{ext}"));
        let status = Command::new("clang-14")
            .args(["-O0", "-g", "-emit-llvm", flag, &source, "-o"])
            .arg(&ir)
            .status()
            .unwrap();
        assert!(status.success());
        let out = fpforge(&[
            "run",
            ir.to_str().unwrap(),
            "-f",
            "sign_class",
            "--",
            "-0.0",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(first_line(&out), first_line(&from_source), "{ext}");
    }
}

#[test]
fn struct_results_come_back_without_a_hidden_argument() {
    let out = fpforge(&[
        "run",
        &fixture("struct_result.c"),
        "-f",
        "cmul",
        "1",
        "2",
        "3",
        "4",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fields: Vec<&str> = report["returned_struct"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["exact"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["-0x1.4p+2", "0x1.4p+3"]);
    assert_eq!(report["arrays"].as_array().unwrap().len(), 0);
}

/// Every number, range and duration is checked before anything runs: a one-line error
/// naming the flag and the value, exit code 1, never a panic.
#[test]
fn out_of_range_flags_are_one_line_errors() {
    let file = fixture("branches.c");
    let sums = crate::common::fixture("accuracy", "sums.c");
    let cases: [(&[&str], &str); 7] = [
        (
            &["cover", &file, "-f", "sign_class", "--time-limit", "1e30"],
            "--time-limit must be",
        ),
        (
            &["cover", &file, "-f", "sign_class", "--jobs", "0"],
            "--jobs must be between 1",
        ),
        (
            &["cover", &file, "-f", "sign_class", "--starts", "0"],
            "--starts must be at least 1",
        ),
        (
            &["explore", &file, "-f", "sign_class", "--query-timeout", "0"],
            "--query-timeout must be",
        ),
        (
            &["accuracy", &sums, "-f", "naive_sum", "--time-limit", "nan"],
            "--time-limit must be",
        ),
        (
            &["accuracy", &sums, "-f", "naive_sum", "--precision", "1"],
            "--precision must be between 2",
        ),
        (
            &["accuracy", &sums, "-f", "naive_sum", "--top-k", "0"],
            "--top-k must be at least 1",
        ),
    ];
    for (args, want) in cases {
        let out = fpforge(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(want),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let out = fpforge(&["solve", &solve_fixture("absorption.smt2"), "--timeout", "0"]);
    assert!(
        stderr(&out).contains("--time-limit must be"),
        "{}",
        stderr(&out)
    );
}
