//! Exhaustive binary32 checking (`fpforge_accuracy::exhaustive`) on a function of our
//! own (`tests/fixtures/exhaustive/naive_expf.c`, errors of a few ulps and wrong special
//! values), judged independently:
//!
//! - on a window of 16,384 inputs every input is judged here by MPFR at 200 bits with
//!   the ulp of the true value's binade computed here: the count of incorrectly rounded
//!   results, the wrong special values and the largest error with every input reaching
//!   it are the checker's;
//! - on larger windows every reported largest error is MPFR's at 10,000 bits;
//! - the compiled tier the checker runs gives, on 200,000 inputs of the whole space,
//!   the bits of the fixture compiled natively by clang-14 -O0 and gcc -O2 (NaN
//!   payloads aside).

use fpforge_accuracy::exhaustive::{Exhaustive, Floor, InputRange, Tally};
use fpforge_accuracy::{OracleChoice, TrueFunction};
use fpforge_lower::LoadOptions;
use fpir::Module;
use rug::Float;
use std::path::PathBuf;
use std::sync::OnceLock;

fn source() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/exhaustive/naive_expf.c")
}

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| fpforge_lower::load(&[source()], &LoadOptions::default()).unwrap())
}

fn exhaustive() -> Exhaustive<'static> {
    let f = module().func_by_name("naive_expf").unwrap();
    let exp = OracleChoice::Mpfr(TrueFunction::from_mpfr_name("exp").unwrap());
    Exhaustive::new(module(), f, &exp).unwrap()
}

/// The tally of `range` in chunks of 4,096 inputs on one thread.
fn check(range: &InputRange) -> Tally {
    let ex = exhaustive();
    let mut checker = ex.checker().unwrap();
    let floor = Floor::default();
    checker.probe(range, 64, &floor).unwrap();
    let mut tally = Tally::default();
    let len = range.len();
    for start in (0..len).step_by(4096) {
        let span = start..(start + 4096).min(len);
        let part = checker
            .check(range, span, &floor, &|_| false)
            .unwrap()
            .unwrap();
        tally.join(&part);
    }
    assert!(tally.exact());
    tally
}

/// `exp(x)` at `prec` bits, and the ulp error of `c` and whether it is correctly rounded
/// (`None` for the error when `c` is not finite).
fn judge(x: u32, c: u32, prec: u32) -> (Option<f64>, bool) {
    let t = Float::with_val(prec, f32::from_bits(x)).exp();
    let cf = f32::from_bits(c);
    let rounded = t.to_f32();
    let correct = rounded.to_bits() == c;
    if !cf.is_finite() {
        return (None, correct);
    }
    // ulp(t) = 2^(max(e, -125) - 24) for 2^(e-1) <= |t| < 2^e.
    let e = t.get_exp().unwrap().max(-125);
    let diff = Float::with_val(prec, Float::with_val(prec, cf) - &t).abs();
    let ulps = (diff >> (e - 24)).to_f64();
    (Some(ulps), correct)
}

#[test]
fn every_input_of_a_window_judged_here_gives_the_checkers_tally() {
    // 88.34 .. 88.47: finite results, then +inf (wrong special values) from 88.38.
    for (lo, hi) in [(0x42b0_b000u32, 0x42b0_efff), (0x3f80_0000, 0x3f80_3fff)] {
        let range = InputRange::bits(lo, hi);
        let tally = check(&range);
        let ex = exhaustive();
        let mut checker = ex.checker().unwrap();
        let (mut wrong, mut special, mut max, mut at) = (0u64, 0u64, 0.0f64, Vec::new());
        for x in lo..=hi {
            let c = checker.run(x).unwrap().unwrap();
            let (ulps, correct) = judge(x, c, 200);
            wrong += u64::from(!correct);
            match ulps {
                None => special += 1,
                Some(u) if u > max => (max, at) = (u, vec![x]),
                Some(u) if u == max => at.push(x),
                Some(_) => {}
            }
        }
        assert_eq!(tally.inputs, u64::from(hi - lo) + 1);
        assert_eq!(tally.incorrectly_rounded, wrong);
        assert_eq!(tally.wrong_special.count, special);
        let m = tally.max.as_ref().unwrap();
        assert!(
            (m.ulps - max).abs() <= 1e-12 * max,
            "{} against {max}",
            m.ulps
        );
        let listed: Vec<u32> = m.cases.listed.iter().map(|c| c.input).collect();
        assert_eq!(listed, at);
        assert!(tally.fast >= tally.inputs - 2);
    }
}

#[test]
fn every_largest_error_is_mpfrs_at_ten_thousand_bits() {
    for text in ["0.5..1", "0x42afc000..0x42b1ffff", "-87..-80"] {
        let range = InputRange::parse(text).unwrap();
        let mut sub = range.clone();
        if range.len() > 1 << 17 {
            // The first 2^17 inputs of the range.
            let first = range.nth(0);
            sub = InputRange::bits(first, first + (1 << 17) - 1);
        }
        let tally = check(&sub);
        let m = tally.max.as_ref().unwrap();
        assert!(m.cases.count >= 1);
        for case in &m.cases.listed {
            let (ulps, _) = judge(case.input, case.computed, 10_000);
            let ulps = ulps.unwrap();
            assert!(
                (ulps - m.ulps).abs() <= 1e-12 * ulps,
                "{text}: {} against {ulps}",
                m.ulps
            );
        }
        let recheck = exhaustive().recheck(m);
        assert!(recheck.agreed && (recheck.ulps - m.ulps).abs() <= 1e-12 * m.ulps);
    }
}

/// `naive_expf` compiled natively by `compiler` with `flags` into a shared object.
fn native(compiler: &str, flags: &[&str], dir: &std::path::Path) -> libloading::Library {
    let so = dir.join(format!("{compiler}.so"));
    let status = std::process::Command::new(compiler)
        .args(flags)
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(source())
        .status()
        .unwrap();
    assert!(status.success(), "{compiler} builds the fixture");
    // SAFETY: a shared object of our fixture, with no initializers.
    unsafe { libloading::Library::new(&so).unwrap() }
}

#[test]
fn the_compiled_tier_gives_the_native_bits() {
    let dir = tempfile::tempdir().unwrap();
    let ex = exhaustive();
    let mut checker = ex.checker().unwrap();
    for (compiler, flags) in [("clang-14", &["-O0"][..]), ("gcc", &["-O2"][..])] {
        let lib = native(compiler, flags, dir.path());
        // SAFETY: `naive_expf` is `float naive_expf(float)`.
        let f = unsafe {
            lib.get::<extern "C" fn(f32) -> f32>(b"naive_expf\0")
                .unwrap()
        };
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut mismatches = Vec::new();
        for i in 0..200_000u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = if i < 64 {
                i.rotate_right(6)
            } else {
                state as u32
            };
            let ours = checker.run(x).unwrap().unwrap();
            let theirs = f(f32::from_bits(x)).to_bits();
            let both_nan = f32::from_bits(ours).is_nan() && f32::from_bits(theirs).is_nan();
            if ours != theirs && !both_nan {
                mismatches.push((x, ours, theirs));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{compiler}: {:x?}",
            &mismatches[..mismatches.len().min(8)]
        );
    }
    // Every run but the first few was native code.
    assert!(
        checker.compiled_runs() >= 399_000,
        "{}",
        checker.compiled_runs()
    );
}
