//! C++ end to end, on the team's corpus in `tests/fixtures/cpp` (templates, namespaces,
//! methods, a static method, `<stdexcept>` throws and catches, rethrow, `noexcept`,
//! virtual calls, function-local statics, every operator new and delete): functions are
//! named by their plain names; `cover` with nothing but `-f` takes at least 95% of each
//! function's own conditional branches as gcov counts them on `g++ -O0 --coverage
//! regression.cpp SOURCE.cpp` (throwing inputs included, the regression program
//! passing); and `fpforge run` agrees with a native g++ build on random inputs, throws
//! included (same result bits, or the same exception type and `what()`).

use crate::common::{fixture, fpforge};
use fpir::float_text::parse_float;
use fpir::FloatTy;
use std::fmt::Write as _;
use std::process::Command;

/// Every function of the corpus with branches of its own, by fixture directory, file and
/// plain name; `structs/model.cpp` takes a `std::vector` by reference and by value, a
/// `std::array` and a struct of arrays by reference, which regression.cpp builds.
const COVERED: &[(&str, &str, &str)] = &[
    ("cpp", "geometry.cpp", "clamp"),
    ("cpp", "geometry.cpp", "cross_sign"),
    ("cpp", "geometry.cpp", "projection"),
    ("cpp", "steps.cpp", "checked_step"),
    ("cpp", "steps.cpp", "safe_step"),
    ("cpp", "shapes.cpp", "capped_area"),
    ("cpp", "shapes.cpp", "heap_area"),
    ("structs", "model.cpp", "norm_sum"),
    ("structs", "model.cpp", "largest"),
    ("structs", "model.cpp", "corner"),
    ("structs", "model.cpp", "advance"),
];

/// `gcov: TAKEN of TOTAL branches ...` of a `--gcov` summary.
fn gcov_counts(summary: &str) -> (usize, usize) {
    let words: Vec<&str> = summary.split_whitespace().collect();
    let number = |k: usize| words[k].parse::<usize>().expect("a count");
    (number(1), number(3))
}

#[test]
fn cover_takes_the_gcov_branches_of_every_corpus_function() {
    for &(fixtures, file, name) in COVERED {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_string_lossy().into_owned();
        let source = fixture(fixtures, file);
        let result = fpforge(&[
            "cover", &source, "-f", name, "--out", &out, "--gcov", "--quiet",
        ]);
        assert!(
            result.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert!(dir.path().join("regression.cpp").is_file(), "{name}");
        assert!(!dir.path().join("regression.c").exists(), "{name}");
        let summary = std::fs::read_to_string(dir.path().join("gcov/summary.txt")).unwrap();
        assert!(!summary.contains("mismatches"), "{name}: {summary}");
        let (taken, total) = gcov_counts(&summary);
        assert!(total > 0, "{name}: {summary}");
        assert!(taken * 100 >= total * 95, "{name}: {summary}");
    }
}

#[test]
fn an_exception_escaping_the_function_is_its_outcome() {
    let source = fixture("cpp", "steps.cpp");
    let out = fpforge(&["run", &source, "-f", "checked_step", "--", "1", "-1"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(
            "checked_step(double, double)(1, -1) throws std::invalid_argument: bad step"
        ),
        "{text}"
    );
    let out = fpforge(&[
        "run",
        &source,
        "-f",
        "counted_step",
        "--json",
        "--",
        "nan",
        "1",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["throws"]["type"], "std::domain_error");
    assert_eq!(report["throws"]["what"], "x is nan");
    assert!(report.get("returned").is_none());
    let out = fpforge(&["run", &source, "-f", "safe_step", "--", "1e301", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(" = -0x1.8p+1 "),
        "caught by catch (...): {text}"
    );
}

#[test]
fn a_throw_through_noexcept_is_a_crash() {
    let source = fixture("cpp", "steps.cpp");
    let out = fpforge(&["run", &source, "-f", "must_step", "--", "1", "0"]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("trapped: std::terminate called"), "{text}");
    let ok = fpforge(&["run", &source, "-f", "must_step", "--", "1", "2"]);
    assert_eq!(ok.status.code(), Some(0));
}

#[test]
fn functions_are_named_by_plain_name_signature_or_symbol() {
    let source = fixture("cpp", "geometry.cpp");
    let shown = |args: &[&str]| {
        let mut all = vec!["run", source.as_str()];
        all.extend_from_slice(args);
        let out = fpforge(&all);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, text, _) = shown(&["-f", "cross_sign", "--", "1", "0", "0", "1"]);
    assert_eq!(code, Some(0));
    assert!(
        text.starts_with(
            "geo::Vec2::cross_sign(double, double, double, double)(1, 0, 0, 1) = 0x1p+0"
        ),
        "{text}"
    );
    for name in ["Vec2::cross_sign", "_ZN3geo4Vec210cross_signEdddd"] {
        assert_eq!(
            shown(&["-f", name, "--", "1", "0", "0", "1"]).0,
            Some(0),
            "{name}"
        );
    }
    let (code, _, err) = shown(&["-f", "scale", "--", "1"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("`scale` names several functions")
            && err.contains("scale(double), scale(float)"),
        "{err}"
    );
    let (code, text, _) = shown(&["-f", "scale(float)", "--", "1.5"]);
    assert_eq!(code, Some(0));
    assert!(text.starts_with("scale(float)(1.5) = 0x1.8p+1"), "{text}");
    let list = fpforge(&["list", &source]);
    let text = String::from_utf8_lossy(&list.stdout);
    for name in [
        "float geo::clamp<float>(float, float, float)",
        "geo::projection(double, double, double, double)",
        "scale(double)",
        "scale(float)",
    ] {
        assert!(text.contains(name), "{name} in {text}");
    }
}

/// The functions the differential test calls: file, plain name, symbol, parameters
/// (all `double`), result `double`.
const DIFFERENTIAL: &[(&str, &str, &str, usize)] = &[
    ("steps.cpp", "checked_step", "_Z12checked_stepdd", 2),
    ("steps.cpp", "safe_step", "_Z9safe_stepdd", 2),
    ("steps.cpp", "counted_step", "_Z12counted_stepdd", 2),
    ("geometry.cpp", "projection", "_ZN3geo10projectionEdddd", 4),
    (
        "geometry.cpp",
        "cross_sign",
        "_ZN3geo4Vec210cross_signEdddd",
        4,
    ),
];

/// Inputs per function.
const RANDOM_INPUTS: usize = 10;

/// A small deterministic generator of double bit patterns that favours the values that
/// make the corpus throw or branch (zero, negatives, NaN, huge), then random bits.
struct Inputs(u64);

impl Inputs {
    fn next_bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        const SPECIAL: [f64; 8] = [0.0, -0.0, 1.0, -1.0, 1e301, f64::NAN, f64::INFINITY, 0.5];
        match self.0 % 4 {
            0 => SPECIAL[(self.0 >> 8) as usize % SPECIAL.len()].to_bits(),
            1 => ((self.0 >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0).to_bits(),
            _ => self.0.rotate_left(29),
        }
    }
}

/// What `fpforge run` gives for a call: the result's bits in hex, or the exception.
fn fpforge_outcome(source: &str, name: &str, bits: &[u64]) -> String {
    let args: Vec<String> = bits.iter().map(|b| format!("raw:{b:016x}")).collect();
    let mut all = vec!["run", source, "-f", name, "--json", "--"];
    all.extend(args.iter().map(String::as_str));
    let out = fpforge(&all);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
    if let Some(thrown) = report.get("throws") {
        return format!(
            "throws {}: {}",
            thrown["type"].as_str().unwrap(),
            thrown["what"].as_str().unwrap_or("")
        );
    }
    let exact = report["returned"]["exact"].as_str().expect("a result");
    format!(
        "{:016x}",
        parse_float(FloatTy::F64, exact).expect("a float")
    )
}

/// A C++ program calling each function of `calls` (symbol, argument bits) natively and
/// printing what `fpforge_outcome` gives.
fn native_harness(calls: &[(&str, Vec<u64>)]) -> String {
    let mut c = String::from(
        "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n\
         #include <cxxabi.h>\n#include <exception>\n#include <typeinfo>\n\
         static double d(uint64_t b) { double x; memcpy(&x, &b, 8); return x; }\n\
         static void result(double r) { uint64_t b; memcpy(&b, &r, 8); printf(\"%016llx\\n\", (unsigned long long)b); }\n\
         static void thrown() {\n\
         \x20 const std::type_info *t = abi::__cxa_current_exception_type();\n\
         \x20 int status = 0;\n\
         \x20 char *name = abi::__cxa_demangle(t->name(), NULL, NULL, &status);\n\
         \x20 const char *what = \"\";\n\
         \x20 try { throw; } catch (const std::exception &e) { what = e.what(); } catch (...) {}\n\
         \x20 printf(\"throws %s: %s\\n\", name, what);\n\
         \x20 free(name);\n}\n",
    );
    let mut symbols: Vec<&str> = calls.iter().map(|(s, _)| *s).collect();
    symbols.dedup();
    for (k, symbol) in symbols.iter().enumerate() {
        let arity = calls
            .iter()
            .find(|(s, _)| s == symbol)
            .map_or(0, |(_, a)| a.len());
        let params = vec!["double"; arity].join(", ");
        let _ = writeln!(c, "double f{k}({params}) __asm__(\"{symbol}\");");
    }
    c.push_str("int main() {\n");
    for (symbol, bits) in calls {
        let k = symbols.iter().position(|s| s == symbol).unwrap_or(0);
        let args: Vec<String> = bits.iter().map(|b| format!("d(0x{b:x}ull)")).collect();
        let _ = writeln!(
            c,
            "  try {{ result(f{k}({})); }} catch (...) {{ thrown(); }}",
            args.join(", ")
        );
    }
    c.push_str("  return 0;\n}\n");
    c
}

#[test]
fn fpforge_run_agrees_with_a_native_build_throws_included() {
    let mut inputs = Inputs(0x9e37_79b9_7f4a_7c15);
    let dir = tempfile::tempdir().unwrap();
    for file in ["steps.cpp", "geometry.cpp"] {
        let source = fixture("cpp", file);
        let calls: Vec<(&str, &str, Vec<u64>)> = DIFFERENTIAL
            .iter()
            .filter(|(f, ..)| *f == file)
            .flat_map(|&(_, name, symbol, arity)| {
                (0..RANDOM_INPUTS)
                    .map(|_| {
                        (
                            name,
                            symbol,
                            (0..arity).map(|_| inputs.next_bits()).collect(),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let harness = dir.path().join(format!("{file}-native.cpp"));
        let program: Vec<(&str, Vec<u64>)> =
            calls.iter().map(|(_, s, b)| (*s, b.clone())).collect();
        std::fs::write(&harness, native_harness(&program)).unwrap();
        let binary = dir.path().join(format!("{file}-native"));
        let built = Command::new("g++")
            .args(["-O0", "-ffp-contract=off", "-o"])
            .arg(&binary)
            .arg(&harness)
            .arg(&source)
            .output()
            .expect("g++ runs");
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let native = Command::new(&binary).output().expect("the harness runs");
        let native = String::from_utf8_lossy(&native.stdout).into_owned();
        let native: Vec<&str> = native.lines().collect();
        assert_eq!(native.len(), calls.len());
        let mut throws = 0;
        for ((name, _, bits), native) in calls.iter().zip(native) {
            let ours = fpforge_outcome(&source, name, bits);
            assert_eq!(ours, native, "{name} on {bits:x?}");
            throws += usize::from(ours.starts_with("throws"));
        }
        if file == "steps.cpp" {
            assert!(throws > 0, "{file}: no input threw");
        }
    }
}

#[test]
fn globs_select_cpp_functions_into_directories_named_by_symbol() {
    let source = fixture("cpp", "geometry.cpp");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let run = fpforge(&["cover", &source, "-f", "c*", "--out", &out, "--quiet"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("index.json")).unwrap())
            .unwrap();
    let rows: Vec<(String, String)> = index["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["function"].as_str().unwrap().to_string(),
                row["directory"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("clampf(float)", "_Z6clampff"),
            (
                "float geo::clamp<float>(float, float, float)",
                "_ZN3geo5clampIfEET_S1_S1_S1_"
            ),
            (
                "geo::Vec2::cross_sign(double, double, double, double)",
                "_ZN3geo4Vec210cross_signEdddd"
            ),
        ]
        .map(|(f, d)| (f.to_string(), d.to_string()))
    );
    for (_, directory) in &rows {
        assert!(dir.path().join(directory).join("regression.cpp").is_file());
    }
    let lcov = std::fs::read_to_string(dir.path().join("coverage.lcov")).unwrap();
    assert!(
        lcov.contains("FN:5,float geo::clamp<float>(float, float, float)"),
        "{lcov}"
    );
}

#[test]
fn every_operator_new_and_delete_runs() {
    // new[] (its size through llvm.umul.with.overflow), an over-aligned new, a nothrow
    // new[], and their deletes; the results are what g++ computes (a[n-1] + a[0]).
    let source = fixture("cpp", "alloc.cpp");
    for (args, want) in [
        (["4", "2"], "= 0x1.8p+2 "),
        (["16", "-1.5"], "= -0x1.68p+4 "),
        (["0", "2"], "= -0x1p+0 "),
    ] {
        let out = fpforge(&["run", &source, "-f", "sum_heap", "--", args[0], args[1]]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.lines().next().unwrap_or("").contains(want),
            "{args:?}: {text}"
        );
    }
}

/// `list` aligns its columns up to a width: the long signatures of libstdc++'s template
/// instantiations run over on their own rows and do not push every other row's symbol
/// hundreds of columns to the right.
#[test]
fn list_keeps_short_rows_aligned_beside_long_template_names() {
    let source = fixture("structs", "model.cpp");
    let listed = fpforge(&["list", &source]);
    assert!(listed.status.success());
    let text = String::from_utf8_lossy(&listed.stdout);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("corner("))
        .expect("corner is listed");
    assert!(
        text.lines().any(|l| l.len() > 200),
        "a long row exists: {text}"
    );
    let symbol_at = row.find("_Z6corner").expect("its symbol");
    assert!(symbol_at <= 2 + 60 + 2, "{row}");
}
