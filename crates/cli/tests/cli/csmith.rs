//! Csmith's random programs (`csmith --float`) run by `fpforge run -f main` print byte for
//! byte what their native build prints: a sample of the differential that
//! `bench/csmith/run.py` runs on thousands of programs (docs/BENCHMARKS.md).
//!
//! The programs are generated at test time from their seeds (Csmith 2.3, installed by
//! scripts/setup.sh); nothing generated is kept in the repository. The seeds are the
//! first 50 from 1,700,000 whose programs the benchmark judged free of undefined
//! behaviour (the UBSan build silent, -O0 and -O2 printing the same checksum), so every
//! difference here is fpforge's.

use crate::common::{fpforge, stderr, stdout};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SEEDS: [u32; 50] = [
    1700000, 1700001, 1700003, 1700004, 1700005, 1700007, 1700008, 1700009, 1700010, 1700011,
    1700012, 1700013, 1700014, 1700016, 1700017, 1700018, 1700019, 1700020, 1700021, 1700022,
    1700024, 1700025, 1700026, 1700027, 1700029, 1700032, 1700033, 1700034, 1700035, 1700036,
    1700037, 1700038, 1700039, 1700040, 1700042, 1700043, 1700044, 1700045, 1700046, 1700047,
    1700048, 1700050, 1700051, 1700054, 1700055, 1700056, 1700057, 1700059, 1700060, 1700062,
];

const CSMITH_INCLUDE: &str = "/usr/include/csmith";

/// The most a native run may take; every sampled program ends in well under a second.
const NATIVE_LIMIT: Duration = Duration::from_secs(20);

/// Writes Csmith's program for `seed` into `dir` and returns its path.
fn generate(seed: u32, dir: &Path) -> String {
    let source = dir.join(format!("csmith_{seed}.c"));
    let status = Command::new("csmith")
        .args(["--float", "--seed", &seed.to_string(), "-o"])
        .arg(&source)
        .status()
        .expect("csmith runs (scripts/setup.sh installs csmith and libcsmith-dev)");
    assert!(status.success(), "csmith --seed {seed} failed");
    source.to_string_lossy().into_owned()
}

/// What the native `clang-14 -O0 -ffp-contract=off` build prints.
fn native_stdout(source: &str, dir: &Path) -> String {
    let exe = dir.join("prog");
    let built = Command::new("clang-14")
        .args([
            "-w",
            "-O0",
            "-ffp-contract=off",
            "-I",
            CSMITH_INCLUDE,
            source,
            "-o",
        ])
        .arg(&exe)
        .status()
        .expect("clang-14 runs");
    assert!(built.success(), "{source} does not build natively");
    let mut child = Command::new(&exe)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the native build runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > NATIVE_LIMIT {
            let _ = child.kill();
            panic!("{source}: the native build runs longer than {NATIVE_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    stdout(&child.wait_with_output().expect("output"))
}

/// What `fpforge run -f main` says the program printed, or why it did not run.
fn fpforge_stdout(source: &str) -> Result<String, String> {
    let out = fpforge(&["run", source, "-f", "main", "-I", CSMITH_INCLUDE, "--json"]);
    if out.status.code() != Some(0) {
        return Err(format!("exit {:?}: {}", out.status.code(), stderr(&out)));
    }
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&out)).map_err(|e| format!("report: {e}"))?;
    if let Some(trap) = report["trap"].as_str() {
        return Err(format!("trap: {trap}"));
    }
    report["stdout"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "no stdout in the report".to_string())
}

#[test]
fn fifty_csmith_programs_print_what_their_native_builds_print() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut differences = Vec::new();
    for seed in SEEDS {
        let source = generate(seed, dir.path());
        let want = native_stdout(&source, dir.path());
        assert!(want.contains("checksum = "), "seed {seed}: {want}");
        match fpforge_stdout(&source) {
            Ok(got) if got == want => {}
            Ok(got) => differences.push(format!("seed {seed}: native {want:?}, fpforge {got:?}")),
            Err(why) => differences.push(format!("seed {seed}: {why}")),
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
