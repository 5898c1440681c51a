//! Findings as CI jobs consume them: the `--sarif` log of a library run validates against
//! the official SARIF 2.1.0 schema (the one the `serde-sarif` crate ships) and reads as
//! SARIF types; fingerprints do not depend on the seed; a `--baseline` written by
//! `fpforge baseline` makes a second run pass until a changed function brings a new
//! finding, which alone fails it.

use crate::common::{fixture, json_file, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The official SARIF 2.1.0 schema, from the `serde-sarif` package cargo downloaded (the
/// version `Cargo.lock` names, in cargo's registry sources).
fn sarif_schema() -> serde_json::Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"serde-sarif\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .expect("serde-sarif is locked")
        .trim_matches('"')
        .to_string();
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
    let sources = cargo_home.join("registry/src");
    let schema = std::fs::read_dir(&sources)
        .unwrap()
        .filter_map(|index| {
            let path = index.ok()?.path();
            let file = path.join(format!("serde-sarif-{version}/src/schema.json"));
            file.is_file().then_some(file)
        })
        .next()
        .unwrap_or_else(|| panic!("serde-sarif {version} under {}", sources.display()));
    json_file(&schema)
}

fn fpforge_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the fpforge binary runs")
}

/// `cover LIBRARY --all` with `seed`, its SARIF log written to `sarif`.
fn library_run(dir: &Path, out: &str, seed: &str, sarif: &str) -> Output {
    let library = fixture("library", "");
    fpforge_in(
        dir,
        &[
            "cover",
            &library,
            "--all",
            "--evals",
            "20000",
            "--no-reach",
            "--seed",
            seed,
            "--out",
            out,
            "--sarif",
            sarif,
        ],
    )
}

/// The fingerprints of a SARIF log's results.
fn fingerprints(log: &serde_json::Value) -> Vec<String> {
    let mut prints: Vec<String> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["fpforgeFinding/v1"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    prints.sort();
    prints
}

#[test]
fn a_library_runs_sarif_validates_and_its_fingerprints_do_not_depend_on_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let run = library_run(dir.path(), "a", "1", "a.sarif");
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let log = json_file(&dir.path().join("a.sarif"));
    let validator = jsonschema::validator_for(&sarif_schema()).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let typed: serde_sarif::sarif::Sarif = serde_json::from_value(log.clone()).unwrap();
    assert_eq!(typed.runs.len(), 1);
    let prints = fingerprints(&log);
    assert!(!prints.is_empty());

    let again = library_run(dir.path(), "b", "7", "b.sarif");
    assert_eq!(again.status.code(), Some(3), "{}", stderr(&again));
    assert_eq!(
        fingerprints(&json_file(&dir.path().join("b.sarif"))),
        prints
    );
}

/// A library of two files: `lookup` reads past its table for negative `k`; `scaled`
/// divides by `n`, which its guard keeps nonzero until `guarded` is false.
fn write_library(dir: &Path, guarded: bool) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("table.c"),
        "static const double table[4] = {1, 2, 3, 4};\n\
         double lookup(int k) {\n    if (k > 3) return 0;\n    return table[k];\n}\n",
    )
    .unwrap();
    let guard = if guarded { "if (n == 0) return 0;" } else { "" };
    std::fs::write(
        dir.join("scaled.c"),
        format!("double scaled(double x, int n) {{\n    {guard}\n    return x * (100 / n);\n}}\n"),
    )
    .unwrap();
}

fn cover_library(dir: &Path, lib: &Path, out: &str, baseline: Option<&str>) -> Output {
    let lib = lib.display().to_string();
    let mut args = vec![
        "cover",
        &lib,
        "--all",
        "--evals",
        "5000",
        "--no-reach",
        "--out",
        out,
    ];
    if let Some(file) = baseline {
        args.extend(["--baseline", file]);
    }
    fpforge_in(dir, &args)
}

#[test]
fn with_a_baseline_only_a_new_finding_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    write_library(&lib, true);
    let first = cover_library(dir.path(), &lib, "first", None);
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));

    let baseline = fpforge_in(dir.path(), &["baseline", "first"]);
    assert!(baseline.status.success(), "{}", stderr(&baseline));
    let text = String::from_utf8(baseline.stdout).unwrap();
    assert_eq!(
        text.lines().filter(|l| !l.starts_with('#')).count(),
        1,
        "{text}"
    );
    std::fs::write(dir.path().join("known.txt"), &text).unwrap();

    let same = cover_library(dir.path(), &lib, "same", Some("known.txt"));
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    assert!(
        stderr(&same).contains("0 new, 1 known"),
        "{}",
        stderr(&same)
    );

    write_library(&lib, false);
    let changed = cover_library(dir.path(), &lib, "changed", Some("known.txt"));
    assert_eq!(changed.status.code(), Some(3), "{}", stderr(&changed));
    assert!(
        stderr(&changed).contains("1 new, 1 known"),
        "{}",
        stderr(&changed)
    );
}

/// The commands of a `report.md`'s `sh` block, joined with `&&`.
fn report_command(report: &str) -> String {
    report
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a command block")
        .trim()
        .replace('\n', " && ")
}

/// `command` run by the shell in `dir`.
fn paste_in(dir: &Path, command: &str) -> Output {
    Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn confirmed_findings_come_with_a_reproducer_that_fails_natively_and_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let faults = fixture("findings", "faults.c");
    let run = fpforge_in(
        dir.path(),
        &[
            "cover",
            &faults,
            "-f",
            "scaled",
            "--evals",
            "20000",
            "--no-reach",
            "--out",
            "out",
            "--confirm",
        ],
    );
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let printed = String::from_utf8_lossy(&run.stdout).into_owned();
    let findings = dir.path().join("out/findings");
    let mut checked = 0;
    for entry in std::fs::read_dir(&findings).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let report = std::fs::read_to_string(case.join("report.md")).unwrap();
        assert!(report.contains("Confirmed natively"), "{name}: {report}");
        assert!(printed.contains("confirmed natively"), "{printed}");
        // clang's build is the second opinion, and agrees.
        assert!(
            printed.contains("; clang: confirmed natively: clang build with sanitizers"),
            "{printed}"
        );
        assert!(report.contains("Or with clang:"), "{name}: {report}");
        // The report's command, pasted in the finding's directory, fails while the
        // fault is there.
        let pasted = paste_in(&case, &report_command(&report));
        let sanitizer = String::from_utf8_lossy(&pasted.stderr).contains("runtime error")
            || pasted.status.code().is_none();
        assert!(
            !pasted.status.success() && sanitizer,
            "{name}: {}",
            stderr(&pasted)
        );
        let source = std::fs::read_to_string(case.join("repro.c")).unwrap();
        assert!(
            source.starts_with("/* fpforge reproducer of crash"),
            "{name}"
        );
        assert!(!source.contains("#include \""), "{name}: standalone");
        checked += 1;
    }
    assert!(checked >= 1, "{printed}");
}

#[test]
fn confirm_after_the_fact_replays_a_runs_crashes_from_another_directory() {
    let project = tempfile::tempdir().unwrap();
    let source = project.path().join("faults.c");
    std::fs::copy(fixture("findings", "faults.c"), &source).unwrap();
    let run = fpforge_in(
        project.path(),
        &[
            "cover",
            "faults.c",
            "-f",
            "scaled",
            "--evals",
            "20000",
            "--no-reach",
            "--out",
            "out",
        ],
    );
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    assert!(!project.path().join("out/findings").exists());
    let elsewhere = tempfile::tempdir().unwrap();
    let out = project.path().join("out");
    let out = out.to_str().unwrap();
    let confirm = fpforge_in(elsewhere.path(), &["confirm", out]);
    assert_eq!(confirm.status.code(), Some(3), "{}", stderr(&confirm));
    let printed = String::from_utf8_lossy(&confirm.stdout).into_owned();
    assert!(
        printed.contains("crash 1: confirmed natively: gcc build with sanitizers"),
        "{printed}"
    );
    let case = project.path().join("out/findings/crash-1");
    let report = std::fs::read_to_string(case.join("report.md")).unwrap();
    let pasted = paste_in(&case, &report_command(&report));
    assert!(!pasted.status.success(), "{}", stderr(&pasted));
    // Fixed, the input no longer traps: confirm says so and confirms nothing.
    let fixed = std::fs::read_to_string(&source)
        .unwrap()
        .replace("p = NULL;", "p = &factor;");
    std::fs::write(&source, fixed).unwrap();
    let again = fpforge_in(elsewhere.path(), &["confirm", out]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let printed = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        printed.contains("crashes/1.txt: the input no longer traps"),
        "{printed}"
    );
}

#[test]
fn a_call_of_an_undefined_function_is_no_defect_and_its_input_stays_a_test() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("findings", "undefined_hook.c");
    let run = fpforge_in(
        dir.path(),
        &[
            "cover",
            &source,
            "-f",
            "shifted_log",
            "--allow-undefined",
            "--evals",
            "20000",
            "--out",
            "out",
            "--sarif",
            "out.sarif",
            "--confirm",
        ],
    );
    // Not a defect: exit 0, no native check, nothing in SARIF.
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let printed = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        printed.contains("found 1 call(s) of a function left undefined"),
        "{printed}"
    );
    assert!(printed.contains("covered 4/4"), "{printed}");
    assert!(!dir.path().join("out/findings").exists());
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.sarif")).unwrap())
            .unwrap();
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    let kept = std::fs::read_to_string(dir.path().join("out/undefined/1.txt")).unwrap();
    assert!(kept.contains("domain_error"), "{kept}");
    // Natively, with the hook defined, the regression program calls the function on
    // the kept input (the hook runs) and checks the other tests.
    let hook = dir.path().join("hook.c");
    std::fs::write(
        &hook,
        "#include <stdio.h>\nvoid domain_error(const char *name) { printf(\"hook called by %s\\n\", name); }\n",
    )
    .unwrap();
    let regression = dir.path().join("out/regression.c");
    let text = std::fs::read_to_string(&regression).unwrap();
    assert!(
        text.contains("(unchecked: reaches a function the run left undefined)"),
        "{text}"
    );
    let exe = dir.path().join("regression");
    let built = Command::new("gcc")
        .args([regression.as_os_str(), source.as_ref(), hook.as_os_str()])
        .arg("-lm")
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", stderr(&built));
    let ran = Command::new(&exe).output().unwrap();
    assert!(ran.status.success(), "{}", stderr(&ran));
    assert!(
        String::from_utf8_lossy(&ran.stdout).contains("hook called by shifted_log"),
        "{}",
        String::from_utf8_lossy(&ran.stdout)
    );
}

#[test]
fn a_hang_that_is_only_fpforges_small_fuel_is_not_reproduced_natively() {
    let dir = tempfile::tempdir().unwrap();
    let slow = fixture("findings", "slow.c");
    let run = fpforge_in(
        dir.path(),
        &[
            "cover",
            &slow,
            "-f",
            "heron",
            "--evals",
            "3000",
            "--no-reach",
            "--fuel",
            "2000",
            "--out",
            "out",
            "--confirm",
        ],
    );
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let printed = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        printed.contains("hang 1: not reproduced natively: the call returned"),
        "{printed}"
    );
    let report = std::fs::read_to_string(dir.path().join("out/findings/hang-1/report.md")).unwrap();
    assert!(report.contains("Not reproduced natively"), "{report}");
}

#[test]
fn a_wrong_special_value_gets_a_reproducer_that_passes_once_the_function_is_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("hypot.c");
    std::fs::copy(fixture("findings", "naive_hypot.c"), &source).unwrap();
    let run = fpforge_in(
        dir.path(),
        &[
            "accuracy",
            "hypot.c",
            "-f",
            "hypot",
            "--oracle",
            "auto",
            "--evals",
            "20000",
            "--seed",
            "1",
            "--out",
            "out",
            "--confirm",
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let printed = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        printed.contains("wrong special value 1: confirmed natively"),
        "{printed}"
    );
    let case = dir.path().join("out/findings/wrong-special-value-1");
    let report = std::fs::read_to_string(case.join("report.md")).unwrap();
    assert!(
        report.contains("return is inf where the true value is"),
        "{report}"
    );
    assert!(report.contains("## Observed and true value"), "{report}");
    assert!(
        report.contains("- true value from: true function (MPFR hypot), stable at"),
        "{report}"
    );
    let command = report_command(&report);
    let paste = || paste_in(&case, &command);
    let wrong = paste();
    assert_eq!(wrong.status.code(), Some(1), "{}", stderr(&wrong));
    // Scaled by the larger magnitude, the squares cannot overflow: the reproducer passes.
    std::fs::write(
        &source,
        "#include <math.h>\ndouble hypot(double x, double y) {\n    double ax = fabs(x), ay = fabs(y);\n    \
         double m = ax > ay ? ax : ay, n = ax > ay ? ay : ax;\n    if (m == 0) return 0;\n    \
         double r = n / m;\n    return m * sqrt(1 + r * r);\n}\n",
    )
    .unwrap();
    let fixed = paste();
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stdout)
    );
}

/// `git ARGS` in `dir`.
fn git(dir: &Path, args: &[&str]) {
    let run = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(run.status.success(), "git {args:?}: {}", stderr(&run));
}

/// The functions an index lists.
fn indexed(index: &Path) -> Vec<String> {
    json_file(index)["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["function"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn changed_since_keeps_the_functions_a_commit_touches_and_their_callers() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::create_dir_all(repo.join("build")).unwrap();
    let source = "static double square(double x) { return x * x; }\n\n\
                  double area(double r) {\n    return 3.14159 * square(r);\n}\n\n\
                  double half(double x) {\n    return x / 2;\n}\n\n\
                  double twice(double x) {\n    return x * 2;\n}\n";
    std::fs::write(repo.join("src/lib.c"), source).unwrap();
    git(repo, &["init", "-q"]);
    git(
        repo,
        &["-c", "user.email=t@t", "-c", "user.name=t", "add", "src"],
    );
    git(
        repo,
        &[
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "one",
        ],
    );
    let edited = source
        .replace("return x * x;", "return x * x + 0.0;")
        .replace("return x / 2;", "return x * 0.5;");
    std::fs::write(repo.join("src/lib.c"), edited).unwrap();
    git(
        repo,
        &[
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            "commit",
            "-qam",
            "two",
        ],
    );

    let build = repo.join("build");
    let cover = |out: &str, rev: &str| {
        let run = fpforge_in(
            &build,
            &[
                "cover",
                "../src/lib.c",
                "--all",
                "--evals",
                "2000",
                "--no-reach",
                "--out",
                out,
                "--changed-since",
                rev,
            ],
        );
        assert!(run.status.success(), "{}", stderr(&run));
        indexed(&build.join(out).join("index.json"))
    };
    // `square` changed, so `area`, which calls it, is tested; `half` changed itself.
    assert_eq!(cover("since-one", "HEAD~1"), ["area", "half"]);
    assert!(cover("since-two", "HEAD").is_empty());
}

/// `examples/ieee_classify.c`'s `scaled_norm(const double *a, int n)`.
fn scaled_norm(extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ieee_classify.c");
    let example = example.display().to_string();
    let mut args = vec![
        "cover",
        &example,
        "-f",
        "scaled_norm",
        "--evals",
        "5000",
        "--no-reach",
        "--out",
        "out",
    ];
    args.extend_from_slice(extra);
    fpforge_in(dir.path(), &args)
}

#[test]
fn a_length_parameter_keeps_within_its_array_unless_the_user_says_otherwise() {
    // Runs with `n` past `a`'s length break the caller's contract: no crash is reported.
    let planned = scaled_norm(&[]);
    assert_eq!(planned.status.code(), Some(0), "{}", stderr(&planned));
    assert!(
        stderr(&planned).contains("`a: f64[8]`, `n in [0, 8]`"),
        "{}",
        stderr(&planned)
    );
    // A spec the user wrote is kept, and then the overrun is what it asked for.
    let asked = scaled_norm(&["--arg", "a: f64[2]", "--arg", "n in [0, 100]"]);
    assert_eq!(asked.status.code(), Some(3), "{}", stderr(&asked));
}

#[test]
fn accept_entries_in_the_project_file_are_a_baseline() {
    let dir = tempfile::tempdir().unwrap();
    write_library(&dir.path().join("lib"), true);
    let first = cover_library(dir.path(), &dir.path().join("lib"), "first", None);
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));
    let baseline = fpforge_in(dir.path(), &["baseline", "first"]);
    let text = String::from_utf8(baseline.stdout).unwrap();
    let print = text
        .lines()
        .find(|l| !l.starts_with('#'))
        .and_then(|l| l.split_whitespace().next())
        .expect("a fingerprint");
    let project = format!(
        "[sources]\nfiles = [\"lib/*.c\"]\n[select]\nall = true\n\n\
         [[accept]]\nfingerprint = \"{print}\"\nreason = \"lookup documents k in [0, 3]\"\n"
    );
    std::fs::write(dir.path().join("fpforge.toml"), project).unwrap();
    let run = fpforge_in(
        dir.path(),
        &["cover", "--evals", "5000", "--no-reach", "--out", "o"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stderr(&run).contains("0 new, 1 known"), "{}", stderr(&run));
}

#[test]
fn a_wrong_value_returned_with_an_error_status_is_no_defect() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("findings", "status_erf.c");
    let run = fpforge_in(
        dir.path(),
        &[
            "accuracy",
            &source,
            "-f",
            "gsl_sf_erf_e",
            "--oracle",
            "auto",
            "--evals",
            "5000",
            "--seed",
            "1",
            "--out",
            "out",
            "--confirm",
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let report = std::fs::read_to_string(dir.path().join("out/report.json")).unwrap();
    assert!(
        report.contains("\"status\": 16"),
        "the run saw the signalled zero: {report}"
    );
    let findings: Vec<String> = std::fs::read_dir(dir.path().join("out/findings"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(findings, ["wrong-special-value-1"]);
    let case = dir.path().join("out/findings/wrong-special-value-1");
    let md = std::fs::read_to_string(case.join("report.md")).unwrap();
    assert!(md.contains("- result[0] observed: `NaN`"), "{md}");
    assert!(md.contains("- status returned: `0`"), "{md}");
    let native = paste_in(&case, &report_command(&md));
    assert_eq!(native.status.code(), Some(1), "{}", stderr(&native));
    let printed = String::from_utf8_lossy(&native.stdout).into_owned();
    assert!(
        printed.starts_with("return: 0\nresult[0]: observed"),
        "{printed}"
    );
}

/// `accuracy` of the naive hypot (inf where the true value is finite) into `out`, with
/// `extra` flags.
fn naive_hypot_accuracy(dir: &Path, out: &str, extra: &[&str]) -> Output {
    let source = fixture("findings", "naive_hypot.c");
    let args = [
        &[
            "accuracy",
            source.as_str(),
            "-f",
            "hypot",
            "--oracle",
            "auto",
            "--evals",
            "5000",
            "--out",
            out,
        ][..],
        extra,
    ]
    .concat();
    fpforge_in(dir, &args)
}

#[test]
fn an_accuracy_runs_wrong_values_are_sarif_results_and_a_baseline_knows_them() {
    let dir = tempfile::tempdir().unwrap();
    // Without a baseline, a wrong value does not change the exit code.
    let first = naive_hypot_accuracy(dir.path(), "a", &["--seed", "1", "--sarif", "a.sarif"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let log = json_file(&dir.path().join("a.sarif"));
    let validator = jsonschema::validator_for(&sarif_schema()).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let rules: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"value/wrong-special-value"), "{rules:?}");
    let known = fpforge_in(dir.path(), &["baseline", "a"]);
    std::fs::write(dir.path().join("known.txt"), &known.stdout).unwrap();
    // Run again, the same defects are known: exit 0; against an empty baseline they are
    // new: exit 3. (Another seed may find the overflow for other signs of the arguments,
    // each its own defect, so the runs share their seed.)
    let again = naive_hypot_accuracy(dir.path(), "b", &["--seed", "1", "--baseline", "known.txt"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(stderr(&again).contains("0 new"), "{}", stderr(&again));
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    let fresh = naive_hypot_accuracy(dir.path(), "c", &["--seed", "1", "--baseline", "empty.txt"]);
    assert_eq!(fresh.status.code(), Some(3), "{}", stderr(&fresh));
}

#[test]
fn a_significant_error_against_the_true_function_is_confirmed_too() {
    // `expm1` as exp(x) - 1: 0 for tiny x, where the true value is x.
    let dir = tempfile::tempdir().unwrap();
    let oracles = fixture("accuracy", "oracles.c");
    let run = fpforge_in(
        dir.path(),
        &[
            "accuracy",
            &oracles,
            "-f",
            "expm1",
            "--oracle",
            "auto",
            "--evals",
            "5000",
            "--seed",
            "1",
            "--out",
            "out",
            "--confirm",
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let printed = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        printed.contains("large error 1: confirmed natively"),
        "{printed}"
    );
    let report =
        std::fs::read_to_string(dir.path().join("out/findings/large-error-1/report.md")).unwrap();
    assert!(report.contains("relative error"), "{report}");
}
