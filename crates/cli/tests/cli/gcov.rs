//! gcov agrees with `fpforge cover`: for each function of `tests/fixtures/cover/gcov`
//! (one per file, every branch feasible), `cover` with a fixed seed and an evaluation
//! budget must cover every side; the emitted `regression.c`, compiled with
//! `gcc -O0 --coverage` together with the function, must then make gcov report every
//! branch of that function taken at least once (counted from the `branch N taken M`
//! lines of its `.gcov` file). gcc counts branches differently from
//! LLVM (`&&`, `||` and `?:` lower differently), so the assertion is gcov's own
//! percentage, not a comparison of counts. The outputs of `regression.c` must also equal
//! what `fpforge run` returns on each line of `inputs.txt`. `cover --gcov`, which
//! measures the same with gcov's JSON, must print the same branch counts. The same
//! check runs on `tests/fixtures/structs`, whose functions take structs by pointer with
//! no spec at all.

use fpir::float_text::parse_float;
use fpir::FloatTy;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(crate::common::fixture("cover/gcov", &format!("{name}.c")))
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Branches of function `name` in a `.gcov` file written by `gcov -b -c`: how many
/// were taken at least once and how many there are (`None` when the function is absent).
/// gcc 12's `-f` summary gives lines only, so the per-branch `branch N taken M` lines
/// after the `function NAME called` header are counted up to the next function.
fn taken(gcov: &str, name: &str) -> Option<(usize, usize)> {
    let header = format!("function {name} called");
    let mut lines = gcov.lines().skip_while(|l| !l.starts_with(&header));
    lines.next()?;
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
    Some((taken, branches.len()))
}

#[test]
fn gcov_branches_are_counted_per_function() {
    let gcov = "function g called 1 returned 100% blocks executed 100%\n\
                \x20       1:    2:    if (x) return 1;\n\
                branch  0 taken 1 (fallthrough)\n\
                branch  1 taken 0\n\
                function f called 3 returned 100% blocks executed 80%\n\
                branch  0 taken 3 (fallthrough)\n\
                branch  1 never executed\n\
                branch  2 taken 2\n";
    assert_eq!(taken(gcov, "f"), Some((2, 3)));
    assert_eq!(taken(gcov, "g"), Some((1, 2)));
    assert_eq!(taken(gcov, "h"), None);
}

/// The result `fpforge run` returns on one line of `inputs.txt`, in the form
/// `regression.c` prints it: a decimal integer or the bracketed bit pattern of a float.
fn expected(source: &Path, name: &str, line: &str) -> String {
    let file = source.to_string_lossy();
    let mut args = vec!["run", "--json", "-f", name, &file, "--"];
    args.extend(crate::common::words(line));
    let out = run(Command::new(env!("CARGO_BIN_EXE_fpforge")).args(&args));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let returned = &report["returned"];
    let exact = returned["exact"].as_str().unwrap();
    match returned["type"].as_str().unwrap() {
        "f64" => format!("[{:#018x}]", parse_float(FloatTy::F64, exact).unwrap()),
        "f32" => format!("[{:#010x}]", parse_float(FloatTy::F32, exact).unwrap()),
        _ => returned["decimal"].as_str().unwrap().to_string(),
    }
}

fn check(name: &str) {
    check_source(&fixture(name), name);
}

/// The check of the module docs on function `name` of `source`.
pub(crate) fn check_source(source: &Path, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let started = Instant::now();
    let cover = run(Command::new(env!("CARGO_BIN_EXE_fpforge")).args([
        "cover",
        &source.to_string_lossy(),
        "-f",
        name,
        "--seed",
        "1",
        "--evals",
        "20000",
        "--gcov",
        "--out",
        &out.to_string_lossy(),
    ]));
    let elapsed = started.elapsed();
    let coverage: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("coverage.json")).unwrap()).unwrap();
    assert_eq!(
        coverage["covered"],
        coverage["sides"],
        "{name}: {}",
        String::from_utf8_lossy(&cover.stdout)
    );

    let work = dir.path();
    std::fs::copy(source, work.join(format!("{name}.c"))).unwrap();
    std::fs::copy(out.join("regression.c"), work.join("regression.c")).unwrap();
    run(Command::new("gcc").current_dir(work).args([
        "-std=c99",
        "-O0",
        "--coverage",
        "-c",
        &format!("{name}.c"),
    ]));
    run(Command::new("gcc").current_dir(work).args([
        "-std=c99",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-O0",
        "-c",
        "regression.c",
    ]));
    run(Command::new("gcc").current_dir(work).args([
        "--coverage",
        "-o",
        "regression",
        "regression.o",
        &format!("{name}.o"),
        "-lm",
    ]));
    let printed = run(Command::new(work.join("regression")).current_dir(work));
    run(Command::new("gcov")
        .current_dir(work)
        .args(["-b", "-c", &format!("{name}.c")]));
    let gcov = std::fs::read_to_string(work.join(format!("{name}.c.gcov"))).unwrap();
    let (taken, branches) = taken(&gcov, name).unwrap_or_else(|| panic!("{name}: {gcov}"));
    eprintln!(
        "| {name} | {}/{} | {taken}/{branches} | {} | {:.2} s |",
        coverage["covered"],
        coverage["sides"],
        coverage["evals"],
        elapsed.as_secs_f64()
    );
    assert!(branches > 0 && taken == branches, "{name}: {gcov}");
    // `--gcov` (gcov's JSON) counts what this test counts from the `.gcov` text.
    let said = format!("gcov: {taken} of {branches} branches of {name} taken (100.0%)");
    let summary = String::from_utf8_lossy(&cover.stdout);
    assert!(summary.contains(&said), "{name}: {summary}");

    let inputs = std::fs::read_to_string(out.join("inputs.txt")).unwrap();
    let printed = String::from_utf8_lossy(&printed.stdout);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), inputs.lines().count(), "{name}: {printed}");
    for (line, result) in inputs.lines().zip(lines) {
        let want = expected(source, name, line);
        assert!(
            result == want || result.ends_with(&format!(" {want}")),
            "{name}({line}): regression.c printed {result}, fpforge run gives {want}"
        );
    }
}

macro_rules! gcov_agrees {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

gcov_agrees!(
    and_or,
    count_halvings,
    exp_bands,
    float_bits,
    float_int_mix,
    fma,
    hi_classify,
    hypot_order,
    int_digits,
    low_word,
    min_below,
    nan_payload,
    near_one,
    pointer_update,
    ranges,
    short_circuit,
    signed_zero,
    subnormal_scale,
    switch_quadrant,
);

/// `--gcov` with the default output directory, which is relative to where the user runs
/// fpforge: the regression program must still be found and run.
#[test]
fn gcov_with_the_default_relative_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("and_or");
    let cover = run(Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .current_dir(dir.path())
        .args(["cover", &source.to_string_lossy(), "-f", "and_or"])
        .args(["--seed", "1", "--evals", "20000", "--gcov"]));
    let summary = dir.path().join("fpforge-out/gcov/summary.txt");
    let line = std::fs::read_to_string(&summary).expect("--gcov wrote its summary");
    assert!(
        String::from_utf8_lossy(&cover.stdout).contains(line.trim()),
        "the summary is printed: {line}"
    );
}
