//! The ulps metric on `tests/fixtures/accuracy/ulps.c`: under a true function of the
//! result's format errors are ranked in ulps of the true value by default, every
//! reported figure is the one MPFR gives at 10,000 bits with the ulp of the true
//! value's binade computed here independently, "correctly rounded" is the true value
//! rounded to nearest in the result's format, and `--metric relative` ranks as before.

use fpforge_accuracy::{
    accuracy, AccuracyConfig, AccuracyReport, ErrorFinding, ErrorMetric, FloatBits, OracleChoice,
    TrueFunction,
};
use fpforge_engine::Budget;
use fpforge_lower::LoadOptions;
use fpforge_spec::ArgSpec;
use fpir::{FloatTy, Module};
use rug::ops::Pow;
use rug::Float;
use std::path::PathBuf;
use std::sync::OnceLock;

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/accuracy/ulps.c");
        fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers")
    })
}

/// `func` on `range` against `oracle` (the entry's own name when `None`), 2000
/// evaluations, seed 1.
fn run(
    func: &str,
    range: &str,
    oracle: Option<&str>,
    metric: Option<ErrorMetric>,
) -> AccuracyReport {
    let mut config = AccuracyConfig::default()
        .with_seed(1)
        .with_metric(metric)
        .with_args(vec![range.parse::<ArgSpec>().unwrap()]);
    if let Some(name) = oracle {
        config = config.with_oracle(OracleChoice::Mpfr(
            TrueFunction::from_mpfr_name(name).unwrap(),
        ));
    }
    let f = module().func_by_name(func).expect("fixture function");
    accuracy(
        module(),
        f,
        &config,
        &Budget::default().with_evals(Some(2000)),
    )
    .unwrap()
}

/// Precision of the independent check, far above what Ziv's strategy needed.
const CHECK_PRECISION: u32 = 10_000;

/// The error in ulps of `f`'s result and whether it is correctly rounded, from the true
/// function `truth` at [`CHECK_PRECISION`] bits: `ulp(t) = 2^(max(e, emin) - p)` for
/// `2^(e-1) <= |t| < 2^e`.
fn checked(f: &ErrorFinding, truth: fn(Float) -> Float) -> (f64, bool) {
    let (x, computed, p, emin, rounded_equal) = match f.computed {
        FloatBits::Ieee(FloatTy::F64, bits) => {
            let x = Float::with_val(CHECK_PRECISION, f64::from_bits(f.test.coords[0]));
            let c = f64::from_bits(bits);
            let t = truth(x.clone());
            (x, Float::with_val(64, c), 53, -1021, t.to_f64() == c)
        }
        FloatBits::Ieee(FloatTy::F32, bits) => {
            let x = Float::with_val(CHECK_PRECISION, f32::from_bits(f.test.coords[0] as u32));
            let c = f32::from_bits(bits as u32);
            let t = truth(x.clone());
            (x, Float::with_val(24, c), 24, -125, t.to_f32() == c)
        }
        other => panic!("unexpected result {other:?}"),
    };
    let t = truth(x);
    let e = t.get_exp().expect("a finite non-zero true value").max(emin);
    let ulp = Float::with_val(64, 2).pow(e - p);
    let diff = Float::with_val(CHECK_PRECISION, &computed - &t).abs();
    (
        Float::with_val(CHECK_PRECISION, diff / ulp).to_f64(),
        rounded_equal,
    )
}

/// Every reported input's ulps agree with [`checked`]'s to 1e-6 (relatively), and so
/// does "correctly rounded"; the inputs are ranked by ulps.
fn agrees_with_mpfr(report: &AccuracyReport, truth: fn(Float) -> Float) {
    assert_eq!(report.metric, ErrorMetric::Ulps);
    assert!(!report.top.is_empty());
    for f in &report.top {
        let (ulps, correctly_rounded) = checked(f, truth);
        assert!(
            (f.error.ulps - ulps).abs() <= 1e-6 * ulps,
            "{}: {} ulps reported, {ulps} by MPFR at {CHECK_PRECISION} bits",
            f.test.line(),
            f.error.ulps
        );
        assert_eq!(
            f.correctly_rounded(),
            correctly_rounded,
            "{}",
            f.test.line()
        );
        assert!(f.ziv.is_some_and(|z| z.agreed), "{}", f.test.line());
    }
    assert!(report
        .top
        .windows(2)
        .all(|w| w[0].error.ulps >= w[1].error.ulps));
}

#[test]
fn ulp_errors_of_a_double_function_are_mpfrs() {
    let report = run("cbrt_newton", "x in [1, 8]", Some("cbrt"), None);
    agrees_with_mpfr(&report, |x| x.cbrt());
    // A few tenths of an ulp above correct rounding: the worst is not correctly rounded.
    let worst = report.worst().unwrap();
    assert!(
        (0.5..2.0).contains(&worst.error.ulps),
        "{}",
        worst.error.ulps
    );
    assert!(!worst.correctly_rounded());
}

#[test]
fn ulp_errors_next_to_a_zero_and_of_a_float_function_are_mpfrs() {
    let report = run("sin_taylor9", "x in [-4, 4]", Some("sin"), None);
    agrees_with_mpfr(&report, |x| x.sin());
    // `expf` is a C library name: `--oracle auto` takes MPFR's exp, and a float
    // result of float operands is measured in float ulps.
    let report = run("expf", "x in [-10, 10]", None, None);
    agrees_with_mpfr(&report, |x| x.exp());
    assert!(report.top.iter().all(|f| f.correctly_rounded()));
}

#[test]
fn the_relative_metric_ranks_by_relative_error() {
    let report = run(
        "cbrt_newton",
        "x in [1, 8]",
        Some("cbrt"),
        Some(ErrorMetric::Relative),
    );
    assert_eq!(report.metric, ErrorMetric::Relative);
    assert!(report
        .top
        .windows(2)
        .all(|w| w[0].error.rel >= w[1].error.rel));
    // The re-execution measures the code against itself: relative by default.
    let report = run("cbrt_newton", "x in [1, 8]", Some("cbrt"), None);
    assert_eq!(report.metric, ErrorMetric::Ulps);
    let f = module().func_by_name("cbrt_newton").unwrap();
    let reexec = AccuracyConfig::default()
        .with_oracle(OracleChoice::ReExecution)
        .with_args(vec!["x in [1, 8]".parse::<ArgSpec>().unwrap()]);
    let report = accuracy(
        module(),
        f,
        &reexec,
        &Budget::default().with_evals(Some(300)),
    )
    .unwrap();
    assert_eq!(report.metric, ErrorMetric::Relative);
}
