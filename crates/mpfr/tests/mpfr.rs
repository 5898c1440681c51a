//! The MPFR semantics on the C fixtures in `tests/fixtures/accuracy/sums.c`: exact answers
//! at 128 and 256 bits (sums checked against integer arithmetic, a polynomial against
//! rational arithmetic), Shadow bit-identical to Concrete and agreeing with HighPrecision
//! where control flow does not diverge, memory round trips, output arrays, divergence and
//! cancellation records, and MPFR's libm against glibc.

use fpforge_exec::{Concrete, ExecConfig, InputSlot, Interpreter, NoObserver, Outcome, Semantics};
use fpforge_lower::LoadOptions;
use fpforge_mpfr::metrics::measure;
use fpforge_mpfr::{HighPrecision, HighValue, Shadow};
use fpforge_spec::Arg;
use fpir::{FloatTy, Func, MathCall, MathFn, MathShape, Module, Type};
use proptest::prelude::*;
use rug::{Float, Integer, Rational};
use std::path::PathBuf;
use std::sync::OnceLock;

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/accuracy/sums.c");
        fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers")
    })
}

fn func(name: &str) -> Func {
    module().func_by_name(name).expect("fixture function")
}

fn array(xs: &[f64]) -> Arg {
    Arg::Array {
        elem: Type::F64,
        values: xs.iter().map(|x| x.to_bits()).collect(),
    }
}

fn int(n: i32) -> Arg {
    Arg::Scalar(n as u32 as u64)
}

fn scalar(x: f64) -> Arg {
    Arg::Scalar(x.to_bits())
}

/// An interpreter over the fixtures under `semantics`, without an observer.
fn interpreter<S: Semantics>(semantics: S) -> Interpreter<'static, S, NoObserver> {
    Interpreter::new(module(), semantics, NoObserver, ExecConfig::default()).unwrap()
}

/// Runs under HighPrecision at `prec`; the returned IEEE bits and reference.
fn high(name: &str, args: &[Arg], prec: u32) -> (u64, HighValue) {
    let mut it = interpreter(HighPrecision::new(prec));
    let run = it.call(func(name), args).unwrap();
    let Outcome::Returned(Some(v)) = run.outcome else {
        panic!("{name} did not return: {:?}", run.outcome)
    };
    (v.bits(), it.semantics().high_value(FloatTy::F64, &v))
}

fn concrete(name: &str, args: &[Arg]) -> (u64, Vec<Vec<u64>>) {
    let mut it = interpreter(Concrete);
    let run = it.call(func(name), args).unwrap();
    let Outcome::Returned(v) = run.outcome else {
        panic!("{name} trapped")
    };
    (v.unwrap_or(0), run.arrays)
}

/// A Shadow run: (bits, reference, arrays, divergence count).
fn shadow(name: &str, args: &[Arg]) -> (u64, HighValue, Vec<Vec<u64>>, usize) {
    let mut it = interpreter(Shadow::new(128));
    let run = it.call(func(name), args).unwrap();
    let Outcome::Returned(Some(v)) = run.outcome else {
        panic!("{name} did not return")
    };
    let s = it.semantics();
    (
        v.bits(),
        s.high_value(FloatTy::F64, &v),
        run.arrays,
        s.divergences().len(),
    )
}

#[test]
fn sums_of_representable_values_are_exact_at_128_and_256_bits() {
    // 2^60 + 1 - 2^60 + 1 = 2 exactly; binary64 loses the first 1.
    let args = [array(&[2f64.powi(60), 1.0, -(2f64.powi(60)), 1.0]), int(4)];
    assert_eq!(f64::from_bits(concrete("naive_sum", &args).0), 1.0);
    for prec in [128, 256] {
        let (bits, r) = high("naive_sum", &args, prec);
        assert_eq!(f64::from_bits(bits), 2.0);
        assert_eq!(r.to_f64(), 2.0);
        assert!(r.agrees_with(&HighValue::from_bits(FloatTy::F64, 2f64.to_bits()), 0.0));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// k * 2^e with 53-bit k and e in [-30, 30] span at most 113 bits, so the exact sum is
    /// an integer multiple of 2^-30 below 2^116 that both precisions hold exactly.
    #[test]
    fn random_exact_sums(ks in prop::collection::vec((-(1i64 << 53)..(1i64 << 53), -30i32..30), 1..9)) {
        let xs: Vec<f64> = ks.iter().map(|&(k, e)| k as f64 * 2f64.powi(e)).collect();
        let exact: i128 = ks.iter().map(|&(k, e)| i128::from(k) << (e + 30)).sum();
        let q = Rational::from((Integer::from(exact), Integer::from(1) << 30));
        let args = [array(&xs), int(xs.len() as i32)];
        for prec in [128, 256] {
            let (bits, r) = high("naive_sum", &args, prec);
            let want = Float::with_val(prec, &q);
            prop_assert_eq!(f64::from_bits(bits).to_bits(), want.to_f64().to_bits());
            prop_assert_eq!(r.as_float().clone(), want.clone());
            prop_assert!(r.agrees_with(&HighValue::from(want.clone()), 0.0));
            prop_assert!(measure(FloatTy::F64, want.to_f64().to_bits(), &r).ulps <= 0.5);
        }
        // Pairwise and compensated summation have the same exact value.
        for name in ["pairwise_sum", "kahan_sum"] {
            let (bits, _) = high(name, &args, 256);
            prop_assert_eq!(bits, Float::with_val(256, &q).to_f64().to_bits());
        }
    }

    /// Horner's rule on positive coefficients and a positive point: no cancellation, so
    /// each precision p is within 4n ulps of p bits of the exact rational value.
    #[test]
    fn polynomial_against_rationals(cs in prop::collection::vec(0.001f64..1000.0, 2..8), x in 0.001f64..10.0) {
        let mut exact = Rational::from_f64(cs[cs.len() - 1]).unwrap();
        let xq = Rational::from_f64(x).unwrap();
        for &c in cs.iter().rev().skip(1) {
            exact = exact * &xq + Rational::from_f64(c).unwrap();
        }
        let args = [array(&cs), int(cs.len() as i32), scalar(x)];
        for prec in [128u32, 256] {
            let (bits, r) = high("horner", &args, prec);
            let e = Float::with_val(prec + 64, &exact);
            // The reference rounds to the correctly rounded double of the exact value...
            prop_assert_eq!(bits, e.to_f64().to_bits());
            // ...and is within 4n ulps of p bits of it.
            let rel = Float::with_val(prec + 64, r.as_float() - &e) / &e;
            let bound = 4.0 * cs.len() as f64 * 2f64.powi(1 - prec as i32);
            prop_assert!(rel.to_f64().abs() <= bound, "{} bits: {}", prec, rel.to_f64());
        }
        let (_, r128) = high("horner", &args, 128);
        let (_, r256) = high("horner", &args, 256);
        prop_assert!(r128.agrees_with(&r256, 2f64.powi(-110)));
    }

    /// Shadow's concrete part is bit-identical to Concrete, and where control flow does
    /// not diverge its shadow equals HighPrecision's value.
    #[test]
    fn shadow_is_concrete_and_agrees_with_high_precision(
        xs in prop::collection::vec(-100.0f64..100.0, 4),
        tiny in prop::collection::vec(-1e-14f64..1e-14, 4),
    ) {
        let mixed: Vec<f64> = xs.iter().zip(&tiny).enumerate()
            .map(|(i, (&x, &t))| if i % 2 == 0 { x } else { t }).collect();
        for data in [&xs, &mixed] {
            let args = [array(data), int(4)];
            for name in ["naive_sum", "kahan_sum", "pairwise_sum"] {
                let (sb, sr, _, div) = shadow(name, &args);
                prop_assert_eq!(sb, concrete(name, &args).0, "{}", name);
                prop_assert_eq!(div, 0);
                let (_, hr) = high(name, &args, 128);
                prop_assert!(sr.agrees_with(&hr, 0.0), "{} {:?} vs {:?}", name, sr, hr);
            }
            for name in ["absorbed", "roundtrip", "punned", "mathmix", "convert"] {
                let args = [scalar(data[0]), scalar(data[1])];
                let args = if name == "mathmix" || name == "convert" { &args[..1] } else { &args[..] };
                let (sb, sr, _, div) = shadow(name, args);
                prop_assert_eq!(sb, concrete(name, args).0, "{}", name);
                let (_, hr) = high(name, args, 128);
                if div == 0 && name != "punned" && name != "roundtrip" {
                    prop_assert!(sr.agrees_with(&hr, 1e-30), "{} {:?} vs {:?}", name, sr, hr);
                }
            }
        }
    }
}

#[test]
fn memory_round_trips_keep_the_high_precision_value() {
    let args = [scalar(1.0), scalar(1e-20)];
    assert_eq!(f64::from_bits(concrete("roundtrip", &args).0), 1.0);
    // buf[0] = 1 + 1e-20 survives a store, a memcpy and a load; the punned load sees the
    // rounded bits 1.0, so buf[2] = 1.
    let (_, r) = high("roundtrip", &args, 128);
    let want = Float::with_val(128, 1e-20f64) + 1u32;
    assert_eq!(r.to_f64(), want.to_f64());
    assert!((r.to_f64() - (1.0 + 1e-20)).abs() < 1e-30);
    // A value that goes through an integer register is the rounded IEEE value.
    let (_, r) = high("punned", &args, 128);
    assert_eq!(r.to_f64(), 0.0);
}

#[test]
fn output_arrays_carry_their_references() {
    let xs = [1e16, 1.0, -1e16, 1.0];
    let args = [
        array(&xs),
        Arg::Array {
            elem: Type::F64,
            values: vec![0; 4],
        },
        int(4),
    ];
    let mut it = interpreter(HighPrecision::new(128));
    it.call(func("prefix_sums"), &args).unwrap();
    let s = it.semantics();
    let base = s.slot_address(InputSlot(4)).expect("output array address");
    let refs: Vec<f64> = (0..4)
        .map(|k| {
            s.memory_value(it.memory(), FloatTy::F64, base + 8 * k)
                .unwrap()
                .to_f64()
        })
        .collect();
    assert_eq!(refs, [1e16, 1e16 + 1.0, 1.0, 2.0]);
    let (_, arrays) = concrete("prefix_sums", &args);
    assert_eq!(f64::from_bits(arrays[1][3]), 1.0);
}

#[test]
fn shadow_reports_divergence_and_cancellation() {
    // 1 + 1e-20 == 1 in binary64, not in MPFR: the branch diverges.
    let (bits, _, _, div) = shadow("absorbed", &[scalar(1.0), scalar(1e-20)]);
    assert_eq!(f64::from_bits(bits), 1.0);
    assert_eq!(div, 1);
    assert_eq!(
        high("absorbed", &[scalar(1.0), scalar(1e-20)], 128).0,
        0f64.to_bits()
    );

    let args = [array(&[1e16, 1.0, -1e16, 0.5]), int(4)];
    let mut it = interpreter(Shadow::new(128));
    it.call(func("naive_sum"), &args).unwrap();
    let stats = it.semantics().site_stats();
    let hot = stats.iter().filter(|s| s.execs > 0).collect::<Vec<_>>();
    assert_eq!(hot.len(), 1, "one fadd site in naive_sum");
    assert_eq!(hot[0].execs, 4);
    assert!(hot[0].cancellations >= 1, "{:?}", hot[0]);
    // 1e16 + 1 rounds (it introduces the error); 1e16 - 1e16 is exact, introduces
    // nothing and exposes it: the result is all error.
    assert!(hot[0].max_introduced_bits > 0.0, "{:?}", hot[0]);
    assert!(hot[0].max_introduced_bits < 2.0, "{:?}", hot[0]);
    assert!(hot[0].max_result_bits > 40.0, "{:?}", hot[0]);
}

#[test]
fn binary32_sums() {
    let xs = [1e8f32, 1.0, -1e8, 1.0];
    let args = [
        Arg::Array {
            elem: Type::F32,
            values: xs.iter().map(|x| u64::from(x.to_bits())).collect(),
        },
        int(4),
    ];
    let mut it = interpreter(HighPrecision::new(128));
    let run = it.call(func("naive_sumf"), &args).unwrap();
    let Outcome::Returned(Some(v)) = run.outcome else {
        panic!()
    };
    assert_eq!(f32::from_bits(v.bits() as u32), 2.0);
    let mut c = interpreter(Concrete);
    let Outcome::Returned(Some(cb)) = c.call(func("naive_sumf"), &args).unwrap().outcome else {
        panic!()
    };
    let r = it.semantics().high_value(FloatTy::F32, &v);
    assert_eq!(measure(FloatTy::F32, cb, &r).rel, 0.5);
}

/// MPFR's correctly rounded functions, rounded to binary64, against glibc: within one
/// ulp for the functions glibc keeps within one ulp; a documented looser bound for the
/// special functions where glibc's errors are larger.
#[test]
fn mpfr_libm_agrees_with_glibc() {
    let mut rng_state = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        (rng_state >> 11) as f64 / (1u64 << 53) as f64
    };
    for func in MathFn::ALL {
        let shape = func.shape();
        if !matches!(
            shape,
            MathShape::Unary | MathShape::Binary | MathShape::Ternary
        ) {
            continue;
        }
        let tolerance = match func {
            // glibc's libm-test-ulps allow up to a few ulps for these (x86_64: log10 2,
            // exp10 2, cbrt 4 for binary32, erfc 5, tgamma 9, lgamma 4, ...); Bessel functions are
            // not within any fixed bound near their zeros.
            MathFn::J0 | MathFn::J1 | MathFn::Y0 | MathFn::Y1 => continue,
            // Not glibc: clang -O0 rounds the product, the reference does not.
            MathFn::Fmuladd => continue,
            MathFn::Tgamma => 10.0,
            MathFn::Cbrt
            | MathFn::Exp10
            | MathFn::Log10
            | MathFn::Erf
            | MathFn::Erfc
            | MathFn::Lgamma
            | MathFn::Expm1
            | MathFn::Log1p
            | MathFn::Tan
            | MathFn::Asin
            | MathFn::Acos
            | MathFn::Atan
            | MathFn::Sinh
            | MathFn::Cosh
            | MathFn::Tanh
            | MathFn::Asinh
            | MathFn::Acosh
            | MathFn::Atanh
            | MathFn::Atan2
            | MathFn::Hypot
            | MathFn::Pow => 5.0,
            _ => 1.0,
        };
        for ty in [FloatTy::F64, FloatTy::F32] {
            let call = MathCall { func, ty };
            for _ in 0..200 {
                let x = [next() * 4.0 - 1.0, next() * 3.0 + 0.1, next() * 2.0];
                let x = match func {
                    MathFn::Acosh => [x[0].abs() + 1.0, x[1], x[2]],
                    MathFn::Asin | MathFn::Acos | MathFn::Atanh => [x[0] / 3.1, x[1], x[2]],
                    _ => x,
                };
                let bits: Vec<u64> = x
                    .iter()
                    .map(|&v| match ty {
                        FloatTy::F64 => v.to_bits(),
                        FloatTy::F32 => u64::from((v as f32).to_bits()),
                    })
                    .collect();
                let ret = Type::Float(ty);
                let (glibc, _) = Concrete.math(call, &bits, ret);
                let mut hp = HighPrecision::new(128);
                let args: Vec<_> = bits.iter().map(|&b| hp.constant(ret, b)).collect();
                let (v, _) = hp.math(call, &args, ret);
                let m = measure(ty, glibc, &hp.high_value(ty, &v));
                assert!(
                    m.ulps <= tolerance,
                    "{func:?} {ty:?} at {x:?}: {} ulps",
                    m.ulps
                );
            }
        }
    }
}

/// `exp10`'s reference is MPFR's `exp10`, at both formats: exact at non-negative
/// integers, correctly rounded elsewhere (glibc 2.36 returns `0x1.9999999999999p-4` for
/// `exp10(-1)`, one ulp below the `0.1` the reference rounds to).
#[test]
fn exp10_reference_is_mpfr() {
    let cases: [(FloatTy, f64, u64); 5] = [
        (FloatTy::F64, 2.0, 100f64.to_bits()),
        (FloatTy::F64, -1.0, 0.1f64.to_bits()),
        (FloatTy::F64, 0.5, 10f64.sqrt().to_bits()),
        (FloatTy::F32, 3.0, u64::from(1000f32.to_bits())),
        (FloatTy::F32, -2.0, u64::from(0.01f32.to_bits())),
    ];
    for (ty, x, want) in cases {
        let call = MathCall {
            func: MathFn::Exp10,
            ty,
        };
        let ret = Type::Float(ty);
        let bits = match ty {
            FloatTy::F64 => x.to_bits(),
            FloatTy::F32 => u64::from((x as f32).to_bits()),
        };
        let mut hp = HighPrecision::new(128);
        let arg = hp.constant(ret, bits);
        let (v, _) = hp.math(call, &[arg], ret);
        let reference = hp.high_value(ty, &v);
        assert_eq!(reference.round_bits(ty), want, "exp10({x}) at {ty:?}");
        if x >= 0.0 && x.fract() == 0.0 {
            let power = Float::with_val(128, Float::u_pow_u(10, x as u32));
            assert_eq!(*reference.as_float(), power, "exp10({x}) is exact");
        }
    }
}
