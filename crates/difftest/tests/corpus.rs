//! Bit-exact differential tests: every exported function of the C corpus in
//! `tests/fixtures/corpus` runs in fpforge (compiled, and in the interpreter alone) and
//! natively (clang-14 -O0, same bitcode) on thousands of deterministic inputs; results,
//! output arrays and branch traces must be identical. Needs clang-14 and the LLVM 14 tools (`scripts/setup.sh`).

use fpforge_difftest::diff::{DiffConfig, Differ};
use fpforge_difftest::native::{NativeConfig, NativeLib};
use fpforge_exec::Compilation;
use fpforge_lower::{compile_to_bitcode, lower_bitcode, LoadOptions};
use std::path::PathBuf;

/// Inputs per function: a few thousand, sized so the whole suite stays within a couple
/// of minutes in a debug build.
const INPUTS: usize = 4000;

/// Functions with loops run fewer inputs (each one executes thousands of instructions).
const LOOPY_INPUTS: usize = 1500;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus")
}

/// Compiles one corpus file, checks the site-numbering contract, runs every exported
/// function, and returns the number of functions tested.
fn run_file(file: &str, loopy: &[&str]) -> Result<usize, String> {
    let path = corpus_dir().join(file);
    let bitcode = compile_to_bitcode(&[path], &LoadOptions::default())
        .map_err(|e| format!("{file}: compile failed: {e}"))?;
    let module =
        lower_bitcode(bitcode.path()).map_err(|e| format!("{file}: lowering failed: {e}"))?;
    let native = NativeLib::build(bitcode.path(), &NativeConfig::default())
        .map_err(|e| format!("{file}: native build failed: {e}"))?;
    if native.sites() as usize != module.branch_sites.len() {
        return Err(format!(
            "{file}: the instrumenter numbered {} branch sites, the lowering {}",
            native.sites(),
            module.branch_sites.len()
        ));
    }
    let differ = Differ::new(&module, &native);
    let mut failures = Vec::new();
    let mut tested = 0;
    let mut events = 0;
    for f in native.funcs().iter().filter(|f| f.exported) {
        let inputs = if loopy.contains(&f.name.as_str()) {
            LOOPY_INPUTS
        } else {
            INPUTS
        };
        // Compiled runs (the default) and the interpreter alone both match native code.
        for compile in [Compilation::Eager, Compilation::Off] {
            let mut config = DiffConfig::default().with_inputs(inputs);
            config.exec = config.exec.with_compile(compile);
            let report = differ.check(&f.name, &config);
            if report.unsupported.is_some() || report.mismatches > 0 || report.tried != inputs {
                failures.push(report.describe());
            }
            events += report.branch_events;
        }
        tested += 1;
    }
    if !failures.is_empty() {
        return Err(format!(
            "{file}: {} of {tested} functions differ:\n{}",
            failures.len(),
            failures.join("\n")
        ));
    }
    if !module.branch_sites.is_empty() && events == 0 {
        return Err(format!("{file}: no branch events were compared"));
    }
    Ok(tested)
}

fn check_file(file: &str, loopy: &[&str]) -> usize {
    run_file(file, loopy).unwrap_or_else(|e| panic!("{e}"))
}

/// The corpus has at least 32 functions.
#[test]
fn corpus_is_large_enough() {
    let mut count = 0;
    for entry in std::fs::read_dir(corpus_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "c") {
            let text = std::fs::read_to_string(&path).unwrap();
            count += text
                .lines()
                .filter(|l| {
                    !l.starts_with("static")
                        && !l.starts_with(' ')
                        && l.ends_with(") {")
                        && l.contains('(')
                })
                .count();
        }
    }
    assert!(count >= 32, "only {count} exported corpus functions");
}

#[test]
fn bits() {
    assert_eq!(check_file("bits.c", &[]), 11);
}

#[test]
fn tables() {
    assert_eq!(
        check_file("tables.c", &["tb_prime_count", "tb_histogram"]),
        7
    );
}

#[test]
fn arrays() {
    assert_eq!(check_file("arrays.c", &["ar_sort_f", "ar_mat_trace"]), 11);
}

#[test]
fn mixed() {
    assert_eq!(check_file("mixed.c", &["mx_digits"]), 14);
}

#[test]
fn libm() {
    assert_eq!(check_file("libm.c", &[]), 14);
}

#[test]
fn structs() {
    assert_eq!(
        check_file(
            "structs.c",
            &["rc_fact", "rc_fib", "rc_cbrt_bisect", "st_welford"]
        ),
        9
    );
}

/// Small structs returned by value (`{ double, double }` and `<2 x float>` in registers).
#[test]
fn struct_return() {
    assert_eq!(check_file("struct_return.c", &[]), 2);
}

/// The inline assembly of libm sources, recognized and lowered to operations.
#[test]
fn asm() {
    assert_eq!(check_file("asm.c", &[]), 10);
}

#[test]
fn misc() {
    assert_eq!(check_file("misc.c", &["ms_heap", "ms_vla"]), 8);
}

/// Integers wider than 64 bits: `__int128`, `_BitInt(65..96)` and bitfield runs of 72,
/// 96 and 200 bits, legalized into 64-bit limbs by the lowering.
#[test]
fn wide() {
    assert_eq!(check_file("wide.c", &["wd_divide", "wd_bitint"]), 10);
}

/// `long double` functions of every shape `dispatch::EXTENDED_SHAPES` lists except the
/// void one, called natively through the runtime's trampoline. The soft-float x87
/// arithmetic is slow in a debug build: every function runs the shorter input count.
#[test]
fn long_double() {
    let all = [
        "ld_poly",
        "ld_hypot",
        "ld_fma3",
        "ld_scale",
        "ld_scale_long",
        "ld_split",
        "ld_remainder",
        "ld_class",
        "ld_round",
        "ld_mix",
        "ld_mix_float",
        "ld_power",
    ];
    assert_eq!(check_file("long_double.c", &all), 12);
}
