//! Structured parameters: a struct passed by pointer is one coordinate per scalar field,
//! read from the program's debug info. `cover` needs no spec to cover a physics step on
//! one; `run` reads a struct as `{field: value, ...}`; `--arg` restricts or fixes fields.

use crate::common::{fixture, fpforge, json_file as json, stderr};
use std::path::{Path, PathBuf};

fn particle() -> String {
    fixture("structs", "particle.c")
}

#[test]
fn a_struct_pointer_step_is_covered_with_no_spec() {
    crate::gcov::check_source(Path::new(&particle()), "step");
}

#[test]
fn run_reads_a_struct_with_nested_fields() {
    let out = fpforge(&[
        "run",
        &particle(),
        "-f",
        "step",
        "{pos: [1, -2, 30], mass: 2, st: {v: {x: 1, y: -20, z: 0}, flags: 1}}",
        "0.5",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // pos = (1.5, -12, 30): escaped (30 - 10) + (-10 + 12) = 22, times mass 2.
    assert!(text.contains("= 0x1.6p+5"), "{text}");
    let bad = fpforge(&["run", &particle(), "-f", "step", "{pos: [1, 2}", "0.5"]);
    assert!(!bad.status.success());
}

/// Runs `cover` on `function` of `source` with a fixed seed and `extra` flags into a new
/// directory; the directory and its `out` subdirectory.
fn cover(source: &str, function: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_text = out.to_string_lossy().into_owned();
    let mut args = vec![
        "cover", source, "-f", function, "--seed", "1", "--out", &out_text,
    ];
    args.extend(extra);
    let run = fpforge(&args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{function}: {stderr}");
    (dir, out)
}

#[test]
fn field_specs_fix_and_restrict_fields() {
    let specs = [
        "--arg",
        "p.mass = 2",
        "--arg",
        "p.pos in [-20, 20]",
        "--arg",
        "p.st.flags in [0, 3]",
    ];
    let (_dir, out) = cover(&particle(), "step", &specs);
    let coverage = json(&out.join("coverage.json"));
    // `mass <= 0` cannot hold with the mass fixed to 2; every other side is covered.
    let (covered, sides) = (coverage["covered"].as_u64(), coverage["sides"].as_u64());
    assert_eq!(
        covered.zip(sides).map(|(c, s)| s - c),
        Some(1),
        "{coverage}"
    );
    let inputs = std::fs::read_to_string(out.join("inputs.txt")).unwrap();
    for line in inputs.lines() {
        assert!(line.contains("mass: 0x1p+1,"), "{line}");
        let pos = line
            .split("pos: [")
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap();
        for value in pos.split(", ") {
            let x = fpir::float_text::parse_float(fpir::FloatTy::F64, value).unwrap();
            assert!(f64::from_bits(x).abs() <= 20.0, "{line}");
        }
    }
    let unknown = fpforge(&[
        "cover",
        &particle(),
        "-f",
        "step",
        "--arg",
        "p.speed in [0, 1]",
    ]);
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        err.contains("no field `speed`") && err.contains("st.v.x"),
        "{err}"
    );
}

/// `cubic` reads four coefficients through a pointer the default spec gives one element:
/// cover, explore and accuracy say at once that every run traps there, with the `--arg`
/// that fixes it, on stderr and in their JSON reports; with the length given they do not.
/// Where a longer array stops the overruns (`cubic` reads `c[3]`), they take it and say
/// so instead. A struct whose data sits behind a (null) pointer field is named as needing
/// a driver.
#[test]
fn every_engine_says_when_every_run_traps() {
    let source = fixture("structs", "short.c");
    let dir = tempfile::tempdir().unwrap();
    let said = "every run traps: out-of-bounds access";
    let hint = "give its length with --arg 'c: f64[N]'";
    for (engine, report) in [
        ("cover", "coverage.json"),
        ("explore", "coverage.json"),
        ("accuracy", "report.json"),
    ] {
        let out = dir.path().join(engine);
        let run = fpforge(&[
            engine,
            &source,
            "-f",
            "far",
            "--time-limit",
            "2",
            "--out",
            &out.to_string_lossy(),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        let line = stderr.lines().find(|l| l.contains(said));
        let line = line.unwrap_or_else(|| panic!("{engine}: {stderr}"));
        assert!(
            line.contains(hint) && line.contains("short.c:14:"),
            "{line}"
        );
        let diagnostic = json(&out.join(report))["diagnostic"].clone();
        assert!(
            diagnostic.as_str().is_some_and(|d| d.contains(said)),
            "{engine}: {diagnostic}"
        );
        if engine == "cover" {
            let page = std::fs::read_to_string(out.join("report.html")).unwrap();
            assert!(page.contains("<p id=\"diagnostic\"><strong>every run traps"));
        }
    }
    for engine in ["cover", "explore", "accuracy"] {
        let out = dir.path().join(format!("{engine}-cubic"));
        let run = fpforge(&[
            engine,
            &source,
            "-f",
            "cubic",
            "--time-limit",
            "2",
            "--out",
            &out.to_string_lossy(),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            stderr.contains("note: cubic: pointer parameters taken as `c: f64[4]`")
                && !stderr.contains(said),
            "{engine}: {stderr}"
        );
    }
    let buffer_source = fixture("structs", "buffer.c");
    let buffer_out = dir.path().join("buffer");
    let buffer_out = buffer_out.to_string_lossy();
    let buffer = fpforge(&["cover", &buffer_source, "-f", "total", "--out", &buffer_out]);
    let stderr = String::from_utf8_lossy(&buffer.stderr);
    assert!(
        stderr.contains("every run traps: null pointer dereference")
            && stderr.contains("`b.data` is a null pointer"),
        "{stderr}"
    );
    let out = dir.path().join("given");
    let run = fpforge(&[
        "cover",
        &source,
        "-f",
        "far",
        "--arg",
        "c: f64[512]",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(run.status.success());
    assert!(!String::from_utf8_lossy(&run.stderr).contains(said));
    assert!(json(&out.join("coverage.json")).get("diagnostic").is_none());
}

/// The C++ functions of `model.cpp` take a `std::vector` (by reference and by value), a
/// `std::array` and a struct of arrays by reference: `cover` with no spec covers every
/// side of each, and each test replays under `fpforge run` with the same sides.
#[test]
fn cpp_containers_and_a_struct_of_arrays_are_covered_with_no_spec() {
    let source = fixture("structs", "model.cpp");
    for function in [
        "_Z8norm_sumRKSt6vectorIdSaIdEE",
        "_Z7largestSt6vectorIfSaIfEE",
        "_Z6cornerRKSt5arrayIdLm4EE",
        "_Z7advanceR3soad",
    ] {
        let (_dir, out) = cover(&source, function, &[]);
        let coverage = json(&out.join("coverage.json"));
        assert_eq!(
            coverage["covered"], coverage["sides"],
            "{function}: {coverage}"
        );
        assert!(coverage["sides"].as_u64() > Some(0));
        crate::common::check_credited_sides(&out, &source, function);
    }
}

/// `explore` solves over the fields of a struct (its symbolic inputs skip the fixed field
/// and the null pointer): with the flags fixed to 1 it covers every side but the one that
/// needs them even, which it proves infeasible; every test replays with its sides.
#[test]
fn explore_solves_over_struct_fields() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = fpforge(&[
        "explore",
        &particle(),
        "-f",
        "step",
        "--arg",
        "p.st.flags = 1",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let coverage = json(&out.join("coverage.json"));
    let (covered, sides) = (coverage["covered"].as_u64(), coverage["sides"].as_u64());
    assert_eq!(
        (
            coverage["infeasible"].as_u64(),
            covered.zip(sides).map(|(c, s)| s - c)
        ),
        (Some(1), Some(1))
    );
    crate::common::check_credited_sides(&out, &particle(), "step");
}

/// `--out-arg r` without a type on a struct pointer is a zero-filled output of the
/// struct's size: its fields' type when they share one (`result`: two doubles), bytes
/// otherwise (`result_e10`: two doubles and an int, 24 bytes). Neither run overruns it.
#[test]
fn an_output_struct_takes_the_size_of_the_struct() {
    let source = fixture("structs", "results.c");
    for (func, items) in [("inverse_e", 2), ("scaled_e10_e", 24)] {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().to_str().unwrap();
        let out = fpforge(&[
            "cover",
            &source,
            "-f",
            func,
            "--out-arg",
            "r",
            "--time-limit",
            "3",
            "--out",
            out_dir,
        ]);
        assert_eq!(out.status.code(), Some(0), "{func}: {}", stderr(&out));
        assert!(!dir.path().join("crashes").exists(), "{func}");
        let inputs = std::fs::read_to_string(dir.path().join("inputs.txt")).unwrap();
        for line in inputs.lines().filter(|l| !l.starts_with('#')) {
            let output = line.split(' ').nth(1).unwrap();
            assert_eq!(output.split(',').count(), items, "{func}: {line}");
        }
    }
}
