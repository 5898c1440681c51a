//! `fpforge accuracy --exhaustive` on a cheap function of our own
//! (`tests/fixtures/exhaustive/naive_expf.c`) over small ranges: the result does not
//! depend on `--jobs`, shards merged give the unsharded result, a run stopped by Ctrl-C
//! and resumed gives it too, and the flags it cannot honour are one-line errors.

use crate::common::{fixture, fpforge, json_file, stderr, success};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// `accuracy naive_expf.c -f naive_expf --oracle mpfr:exp --exhaustive --out OUT EXTRA`.
fn exhaustive_args<'a>(source: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "accuracy",
        source,
        "-f",
        "naive_expf",
        "--oracle",
        "mpfr:exp",
        "--exhaustive",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

fn run(out: &Path, extra: &[&str]) -> serde_json::Value {
    let source = fixture("exhaustive", "naive_expf.c");
    let dir = out.to_string_lossy().into_owned();
    success(&fpforge(&exhaustive_args(&source, &dir, extra)));
    json_file(&out.join("exhaustive.json"))
}

/// What must not depend on how the run was split: the whole file but its time.
fn result(file: &serde_json::Value) -> serde_json::Value {
    let mut file = file.clone();
    file["seconds"] = serde_json::Value::Null;
    file
}

/// [87.875, 89) (147,456 inputs: wrong special values above 88.37, errors of tens of
/// ulps).
const RANGE: &str = "0x42afc000..0x42b1ffff";

#[test]
fn jobs_and_shards_merged_give_the_unsharded_result() {
    let tmp = tempfile::tempdir().unwrap();
    let one = run(&tmp.path().join("one"), &["--range", RANGE]);
    assert_eq!(one["finished"], true);
    assert_eq!(one["tally"]["exact"], true);
    assert_eq!(one["recheck"]["agreed"], true);
    assert!(one["tally"]["max"]["ulps"].as_f64().unwrap() > 1.0);
    assert!(
        one["tally"]["wrong_special_values"]["count"]
            .as_u64()
            .unwrap()
            > 0
    );
    let two = run(&tmp.path().join("two"), &["--range", RANGE, "--jobs", "2"]);
    assert_eq!(result(&one), result(&two));
    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let dir = tmp.path().join(format!("shard{}", &k[..1]));
        let part = run(&dir, &["--range", RANGE, "--shard", k]);
        assert_eq!(part["shard"]["count"], 2);
        assert!(
            part["tally"]["inputs"].as_u64().unwrap() < one["tally"]["inputs"].as_u64().unwrap()
        );
        shards.push(dir.to_string_lossy().into_owned());
    }
    let merged_dir = tmp.path().join("merged");
    let merged_out = merged_dir.to_string_lossy().into_owned();
    let out = success(&fpforge(&[
        "merge",
        &shards[1],
        &shards[0],
        "--out",
        &merged_out,
    ]));
    assert!(
        out.starts_with("naive_expf: 147456 inputs, largest error"),
        "{out}"
    );
    let merged = json_file(&merged_dir.join("exhaustive.json"));
    assert_eq!(result(&one), result(&merged));
    assert_eq!(merged["shard"], serde_json::Value::Null);
    // A shard given twice, or missing, is refused.
    let twice = fpforge(&["merge", &shards[0], &shards[0], "--out", &merged_out]);
    assert!(!twice.status.success());
    assert!(stderr(&twice).contains("given twice"), "{}", stderr(&twice));
    let missing = fpforge(&["merge", &shards[0], "--out", &merged_out]);
    assert!(
        stderr(&missing).contains("missing shards: 2/2"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_run_stopped_by_ctrl_c_resumes_to_the_same_result() {
    let tmp = tempfile::tempdir().unwrap();
    // [1, 1.125): 2^20 inputs in 256 chunks, several seconds in a debug build.
    let range = "0x3f800000..0x3f8fffff";
    let whole = run(&tmp.path().join("whole"), &["--range", range]);
    let dir = tmp.path().join("stopped");
    let out = dir.to_string_lossy().into_owned();
    let source = fixture("exhaustive", "naive_expf.c");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(exhaustive_args(&source, &out, &["--range", range]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let chunks = dir.join("exhaustive");
    let started = Instant::now();
    let count = || std::fs::read_dir(&chunks).map_or(0, |d| d.count());
    while count() < 20 && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: the child is ours and still running (or just ended: the signal is lost).
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    let stopped = json_file(&dir.join("exhaustive.json"));
    assert_eq!(status.code(), Some(130));
    assert_eq!(stopped["finished"], false);
    assert_eq!(stopped["recheck"], serde_json::Value::Null);
    let kept = count();
    assert!(
        kept < 256 && stopped["chunks_done"] == kept as u64,
        "{kept} chunks kept"
    );
    let resumed = run(&dir, &["--range", range, "--resume", "--jobs", "2"]);
    assert_eq!(resumed["finished"], true);
    assert_eq!(count(), 256);
    assert!(kept >= 20, "{kept} chunks kept");
    assert_eq!(result(&whole), result(&resumed));
}

#[test]
fn what_it_cannot_honour_is_a_one_line_error() {
    let source = fixture("exhaustive", "naive_expf.c");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_string_lossy().into_owned();
    let cases: [(&[&str], &str); 6] = [
        (
            &["-f", "not_float"],
            "`not_float` is not a function of one float returning float",
        ),
        (
            &["-f", "naive_expf"],
            "no true function is known for `naive_expf`",
        ),
        (
            &["-f", "naive_expf", "--evals", "10"],
            "--evals does not apply",
        ),
        (
            &["-f", "naive_expf", "--oracle", "reexec"],
            "--oracle auto or mpfr:NAME",
        ),
        (
            &[
                "-f",
                "naive_expf",
                "--oracle",
                "mpfr:exp",
                "--range",
                "2..1",
            ],
            "--range: 2..1: LO is above HI",
        ),
        (
            &["-f", "naive_expf", "--oracle", "mpfr:atan2"],
            "MPFR atan2 is not a function of one float",
        ),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["accuracy", &source, "--exhaustive", "--out", &out];
        args.extend_from_slice(extra);
        let ran = fpforge(&args);
        let err = stderr(&ran);
        assert_eq!(ran.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains(expected), "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let range_alone = fpforge(&["accuracy", &source, "-f", "naive_expf", "--range", "1..2"]);
    assert!(stderr(&range_alone).contains("--range is for --exhaustive"));
}
