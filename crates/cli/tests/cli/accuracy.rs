//! End-to-end tests of `fpforge accuracy` on `tests/fixtures/accuracy/sums.c`: naive
//! summation of four doubles in [-100, 100] has relative error at least 0.5, a sum by
//! error-free transformations stays within an ulp, the output directory holds the report
//! and inputs that `fpforge run` reproduces, the same seed gives the same report, and
//! `--check-input` re-measures a reported input at another precision.

use crate::common::{fpforge, json_stdout as json};
use std::path::Path;
use std::process::Output;

fn fixture() -> String {
    crate::common::fixture("accuracy", "sums.c")
}

/// Runs `accuracy` on `func` of `sums.c` (four doubles in [-100, 100], 2000 evaluations,
/// seed 1) with `extra` flags.
pub fn accuracy(func: &str, extra: &[&str]) -> Output {
    let fixture = fixture();
    let mut args = vec![
        "accuracy",
        fixture.as_str(),
        "-f",
        func,
        "--arg",
        "a: f64[4] in [-100, 100]",
        "--arg",
        "n = 4",
        "--evals",
        "2000",
        "--seed",
        "1",
    ];
    args.extend_from_slice(extra);
    fpforge(&args)
}

fn rel(report: &serde_json::Value) -> f64 {
    report["worst"]["rel_error"].as_f64().unwrap_or(0.0)
}

#[test]
fn naive_sum_is_inaccurate_and_exact_partials_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let naive = json(&accuracy("naive_sum", &["--json", "--out", &out]));
    assert!(rel(&naive) >= 0.5, "{naive}");
    assert_eq!(naive["blame"][0]["op"], "fadd");
    assert!(naive["targets_covered"].as_u64().unwrap() >= 1);

    // report.json in the directory is the printed report; inputs.txt replays with `run`.
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(file["worst"], naive["worst"]);
    let inputs = std::fs::read_to_string(dir.path().join("inputs.txt")).unwrap();
    let first = inputs.lines().next().unwrap();
    assert_eq!(first, naive["worst"]["input"].as_str().unwrap());
    let mut run_args = vec![
        "run".to_string(),
        fixture(),
        "-f".into(),
        "naive_sum".into(),
        "--json".into(),
        "--".into(),
    ];
    run_args.extend(first.split(' ').map(String::from));
    let run_args: Vec<&str> = run_args.iter().map(String::as_str).collect();
    let run = fpforge(&run_args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        text.contains(naive["worst"]["computed"].as_str().unwrap()),
        "run gives the computed value: {text}"
    );

    let exact = json(&accuracy("msum", &["--json"]));
    assert!(rel(&exact) <= f64::EPSILON, "{exact}");
    // The error terms `y - (hi - x)` carry the sum's rounding errors (their results are
    // far from the shadow's) but are exact operations: they are not blamed for them.
    let blame = exact["blame"].as_array().unwrap();
    let error_terms: Vec<_> = blame.iter().filter(|r| r["op"] == "fsub").collect();
    assert!(
        error_terms
            .iter()
            .any(|r| r["result_bits"].as_f64().unwrap() > 50.0),
        "{blame:?}"
    );
    for row in error_terms {
        assert_eq!(row["introduced_bits"].as_f64(), Some(0.0), "{row}");
    }

    // Each reported input says whether its error reaches the 1e-3 threshold.
    let labels = |report: &serde_json::Value| -> Vec<String> {
        let rows = report["top"].as_array().unwrap();
        for row in rows {
            let significant = row["rel_error"].as_f64().is_none_or(|r| r >= 1e-3);
            let label = if significant {
                "significant"
            } else {
                "below_threshold"
            };
            assert_eq!(row["significance"], label, "{row}");
        }
        rows.iter().map(|r| r["significance"].to_string()).collect()
    };
    assert!(
        labels(&naive).contains(&"\"significant\"".to_string()),
        "{naive}"
    );
    assert!(
        labels(&exact).iter().all(|l| l == "\"below_threshold\""),
        "{exact}"
    );
}

#[test]
fn same_seed_same_report_and_recheck() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let a = json(&accuracy("naive_sum", &["--json", "--out", &out]));
    let b = json(&accuracy("naive_sum", &["--json"]));
    assert_eq!(a["top"], b["top"]);
    assert_eq!(a["blame"], b["blame"]);

    let report = Path::new(&out)
        .join("report.json")
        .to_string_lossy()
        .into_owned();
    let check = json(&accuracy(
        "naive_sum",
        &["--check-input", &report, "--precision", "256", "--json"],
    ));
    assert_eq!(check["worst"]["computed"], a["worst"]["computed"]);
    assert_eq!(check["worst"]["coords"], a["worst"]["coords"]);
    let (x, y) = (rel(&check), rel(&a));
    assert!((x - y).abs() <= 1e-9 * y, "{x} vs {y}");
}

#[test]
fn text_report_and_errors() {
    let out = accuracy("naive_sum", &["--strategy", "random"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("strategy random"), "{text}");
    assert!(text.contains("worst input: ["), "{text}");
    assert!(text.contains("relative error"), "{text}");
    assert!(
        text.contains(" significant (relative error >= 1e-3), "),
        "{text}"
    );

    let bad = accuracy("naive_sum", &["--sites", "nowhere"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--sites"));
    let void = fpforge(&["accuracy", &fixture(), "-f", "prefix_sums", "--evals", "10"]);
    assert!(!void.status.success());
    assert!(String::from_utf8_lossy(&void.stderr).contains("--out-arg"));
}

/// Ctrl-C stops the search: the report is written, says `interrupted`, and the exit
/// code is 130.
#[test]
fn ctrl_c_writes_the_report_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(["accuracy", &fixture(), "-f", "naive_sum"])
        .args(["--arg", "a: f64[4] in [-100, 100]", "--arg", "n = 4"])
        .args([
            "--time-limit",
            "60",
            "--evals",
            "1000000000",
            "--json",
            "--out",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let report = dir.path().join("report.json");
    let started = std::time::Instant::now();
    while !report.exists() && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(written["stop"], "interrupted", "{written}");
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed["stop"], "interrupted");
}

/// Crashes met while measuring accuracy are findings too: written to `crashes/N.txt`
/// (which `fpforge run` replays with exit 3), listed in `report.json` and the summary,
/// and the run exits 3.
#[test]
fn crashes_found_while_measuring_are_findings() {
    let dir = tempfile::tempdir().unwrap();
    let faults = crate::common::fixture("findings", "faults.c");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args([
            "accuracy", &faults, "-f", "weight", "--evals", "20000", "--seed", "1",
        ])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        crate::common::stderr(&out)
    );
    let summary = crate::common::stdout(&out);
    assert!(
        summary.contains("crash 1: out-of-bounds access"),
        "{summary}"
    );
    let report = crate::common::json_file(&dir.path().join("report.json"));
    assert_eq!(report["crashes"], 1, "{report}");
    assert_eq!(report["findings"][0]["file"], "crashes/1.txt");
    let text = std::fs::read_to_string(dir.path().join("crashes/1.txt")).unwrap();
    let input = text.lines().find(|l| !l.starts_with('#')).unwrap();
    let mut args = vec!["run", &faults, "-f", "weight", "--"];
    args.extend(input.split(' '));
    assert_eq!(fpforge(&args).status.code(), Some(3), "{input}");
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(page.contains("data-finding=\"crashes/1.txt\""));
}

/// A wrong special value (here `(float)x` overflowing to infinity where the reference
/// stays finite) is the first thing the report says.
#[test]
fn a_wrong_special_value_comes_first() {
    let out = fpforge(&[
        "accuracy",
        &fixture(),
        "-f",
        "convert",
        "--evals",
        "3000",
        "--seed",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = crate::common::stdout(&out);
    let special = text
        .find("wrong special value: return computed ")
        .expect(&text);
    let worst = text.find("worst input:").expect(&text);
    assert!(special < worst, "{text}");
}

/// `--oracle`: the report names what its errors were measured against, the GSL `_e`
/// function's NaN comes first with its status in every report, and a C reference
/// compiled by fpforge gives the figures MPFR gives.
#[test]
fn oracles_are_named_and_special_values_come_first() {
    let oracles = crate::common::fixture("accuracy", "oracles.c");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = |func: &str, extra: &[&str]| {
        let mut args = vec!["accuracy", &oracles, "-f", func, "--evals", "2000"];
        args.extend_from_slice(extra);
        fpforge(&args)
    };
    let text = crate::common::stdout(&run("gsl_sf_bessel_J0_e", &["--out", out]));
    assert!(
        text.contains("oracle: true function (MPFR j0) at 128 bits"),
        "{text}"
    );
    let special = text
        .find("wrong special value: result[0] computed NaN")
        .expect(&text);
    assert!(special < text.find("worst input:").expect(&text), "{text}");
    assert!(text.contains("(status 0)"), "{text}");
    let report = crate::common::json_file(&dir.path().join("report.json"));
    assert_eq!(report["oracle"], "true function (MPFR j0)");
    assert_eq!(report["oracle_kind"], "true_function");
    assert_eq!(report["special_values"][0]["kind"], "wrong special value");
    assert_eq!(report["special_values"][0]["status"], 0);
    assert_eq!(report["non_finite"], report["special_values"][0]);
    assert!(report["worst"]["oracle_precision"].as_u64().unwrap() >= 256);
    assert_eq!(report["worst"]["stable"], true);
    assert!(report["folded"].as_u64().is_some());
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(page.contains(
        "<span id=\"oracle\" data-kind=\"true_function\">true function (MPFR j0)</span>"
    ));
    let specials = page
        .find("id=\"special_values\"")
        .expect("special values section");
    assert!(specials < page.find("id=\"worst\"").unwrap());

    // One metric for every oracle compared (a C reference is no true value: relative).
    let range = [
        "--arg",
        "x in [-1, 1]",
        "--seed",
        "1",
        "--json",
        "--metric",
        "relative",
    ];
    let reference = crate::common::fixture("accuracy", "ref_exp.c") + ":ref_exp";
    let by_c = json(&run(
        "exp_taylor3",
        &[&range[..], &["--oracle", &reference]].concat(),
    ));
    assert_eq!(by_c["oracle_kind"], "c_reference");
    let by_mpfr = json(&run(
        "exp_taylor3",
        &[&range[..], &["--oracle", "mpfr:exp"]].concat(),
    ));
    assert_eq!(by_mpfr["oracle"], "true function (MPFR exp)");
    assert_eq!(by_c["worst"]["input"], by_mpfr["worst"]["input"]);
    let (c, m) = (rel(&by_c), rel(&by_mpfr));
    assert!(m > 0.05 && (c - m).abs() <= 1e-9 * m, "{c} vs {m}");
    let by_code = json(&run("exp_taylor3", &range));
    assert_eq!(by_code["oracle_kind"], "re_execution");
    assert!(rel(&by_code) < 1e-14);

    let bad = run("exp_taylor3", &["--oracle", "mpfr:nosuch"]);
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn long_double_result_is_printed_exactly_in_extended_ulps_and_replays() {
    let fixture = crate::common::fixture("accuracy", "longdouble.c");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let base = [
        "accuracy",
        fixture.as_str(),
        "-f",
        "ldr_cancel",
        "--arg",
        "x in [-1, 1]",
        "--evals",
        "300",
        "--seed",
        "1",
        "--json",
    ];
    let report = json(&fpforge(&[&base[..], &["--out", &out]].concat()));
    let worst = &report["worst"];
    let computed = worst["computed"].as_str().unwrap();
    assert!(fpir::f80::parse(computed).is_some(), "exact: {worst}");
    // In extended ulps: one ulp of the reference is 2^-63 to 2^-64 of it.
    let ulps_per_rel = worst["ulp_error"].as_f64().unwrap() / rel(&report);
    assert!(
        (2f64.powi(63) * 0.999..=2f64.powi(64) * 1.001).contains(&ulps_per_rel),
        "{worst}"
    );

    // `fpforge run` of the reported input returns the reported value.
    let input = worst["input"].as_str().unwrap();
    let run = json(&fpforge(&[
        "run",
        &fixture,
        "-f",
        "ldr_cancel",
        "--json",
        "--",
        input,
    ]));
    assert_eq!(run["returned"]["type"], "f80");
    assert_eq!(run["returned"]["exact"], computed);

    let saved = Path::new(&out).join("report.json");
    let saved = saved.to_string_lossy();
    let check = json(&fpforge(
        &[&base[..], &["--check-input", &saved, "--precision", "256"]].concat(),
    ));
    assert_eq!(check["worst"]["computed"], worst["computed"]);
    let html = std::fs::read_to_string(Path::new(&out).join("report.html")).unwrap();
    assert!(
        html.contains(computed),
        "report.html shows the value exactly"
    );
}

/// `--metric ulps` on `tests/fixtures/accuracy/ulps.c`'s cube root, 2000 evaluations,
/// seed 1: the summary (times aside) is the golden one, `report.json` says the metric
/// and whether each input is correctly rounded, `report.html` shows it, and
/// `--metric relative` words the summary as before.
#[test]
fn metric_ulps_summary_is_golden() {
    // Run from the repository's root on a relative path, so the golden's paths are the
    // same on every machine.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fpforge = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_fpforge"))
            .current_dir(&root)
            .args(args)
            .output()
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let base = [
        "accuracy",
        "tests/fixtures/accuracy/ulps.c",
        "-f",
        "cbrt_newton",
        "--arg",
        "x in [1, 8]",
        "--oracle",
        "mpfr:cbrt",
        "--evals",
        "2000",
        "--seed",
        "1",
    ];
    let run = fpforge(&[&base[..], &["--metric", "ulps", "--out", &out]].concat());
    assert!(run.status.success(), "{}", crate::common::stderr(&run));
    // Times vary from run to run: `in 0.1 s` becomes `in T s`.
    let timeless = |text: String| -> String {
        text.lines()
            .map(|line| match (line.find(" in "), line.find(" s (")) {
                (Some(a), Some(b)) if a < b => format!("{} in T{}\n", &line[..a], &line[b..]),
                _ => format!("{line}\n"),
            })
            .collect()
    };
    let golden = crate::common::fixture("accuracy", "ulps_cbrt_newton.txt");
    let text = timeless(crate::common::stdout(&run));
    if std::env::var_os("FPFORGE_BLESS").is_some() {
        std::fs::write(&golden, &text).unwrap();
    }
    assert_eq!(text, std::fs::read_to_string(&golden).unwrap());

    let report = crate::common::json_file(&dir.path().join("report.json"));
    assert_eq!(report["metric"], "ulps");
    let rows = report["top"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["correctly_rounded"].is_boolean()));
    assert_eq!(report["worst"]["correctly_rounded"], false);
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(page.contains("<th>ulps</th><th>rounding</th>"));
    assert!(page.contains("data-correctly-rounded=\"false\""));

    // The same oracle by default: ulps; relative on demand, worded as before.
    let default = crate::common::stdout(&fpforge(&base));
    assert_eq!(timeless(default), text);
    let relative =
        crate::common::stdout(&fpforge(&[&base[..], &["--metric", "relative"]].concat()));
    assert!(relative.contains("  relative error "), "{relative}");
    assert!(
        relative.contains(" significant (relative error >= 1e-3)"),
        "{relative}"
    );
    assert!(!relative.contains("correctly rounded"), "{relative}");
}
