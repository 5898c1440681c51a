//! `long double` code through `accuracy` (`tests/fixtures/accuracy/longdouble.c`): a
//! cancellation in extended precision and a naive `expl(x) - 1` are found, with errors
//! checked against MPFR directly (the x87 arithmetic replayed at precision 64, the true
//! `expm1`), extended precision as an accumulator for a double result is reported
//! accurate, and the Shadow semantics runs extended code bit-identical to the concrete
//! run with the high-precision values of the re-execution.
//!
//! Functions that *return* a `long double` are measured on the extended result, in
//! extended ulps: a cancellation and a naive series (their x87 operations replayed in
//! MPFR, their errors within 1 % of MPFR's), an accurate mean (within half an extended
//! ulp), a NaN where the value is 1 (a wrong special value), and a naive `expl`
//! (`longdouble_libm.c`) measured against MPFR's true `exp` on its extended operand.

use fpforge_accuracy::{
    accuracy, AccuracyConfig, ErrorFinding, ErrorMeasure, FloatBits, Oracle, SpecialKind,
    TrueFunction,
};
use fpforge_engine::Budget;
use fpforge_exec::{Concrete, ExecConfig, Interpreter, NoObserver, Outcome};
use fpforge_lower::LoadOptions;
use fpforge_mpfr::{x87, HighPrecision, HighValue, Shadow};
use fpforge_spec::spec::long_double_of;
use fpforge_spec::{Arg, ArgSpec};
use fpir::f80::{Round, F80};
use fpir::{FloatTy, Func, MathFn, Module};
use rug::Float;
use std::path::PathBuf;
use std::sync::OnceLock;

fn load(name: &str) -> Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/accuracy")
        .join(name);
    fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers")
}

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| load("longdouble.c"))
}

/// A budget of `n` evaluations and no time limit: a reproducible run.
fn evals(n: u64) -> Budget {
    Budget::default().with_evals(Some(n))
}

fn func(name: &str) -> Func {
    module().func_by_name(name).expect("fixture function")
}

fn config(ranges: &[&str]) -> AccuracyConfig {
    AccuracyConfig::default().with_seed(1).with_args(
        ranges
            .iter()
            .map(|r| r.parse::<ArgSpec>().unwrap())
            .collect(),
    )
}

fn input(f: &ErrorFinding, k: usize) -> f64 {
    f64::from_bits(f.test.coords[k])
}

/// `x` rounded to the x87 format and back to an MPFR number.
fn x87_round(x: Float) -> Float {
    x87::value(x87::round(&x, Round::NearestTiesToEven), 64)
}

/// The `long double` input of a finding whose first coordinates are one.
fn long_double_input(f: &ErrorFinding) -> F80 {
    long_double_of(f.test.coords[0], f.test.coords[1])
}

/// The extended result of a finding.
fn extended(f: &ErrorFinding) -> F80 {
    match f.computed {
        FloatBits::Extended(x) => x,
        FloatBits::Ieee(..) => panic!("a long double result: {:?}", f.computed),
    }
}

/// The error of `computed` against `truth` in MPFR at 256 bits: relative, and in
/// extended ulps of `truth` (a 64-bit significand).
fn error_in_mpfr(computed: F80, truth: &Float) -> (f64, f64) {
    let diff = Float::with_val(256, x87::value(computed, 64) - truth).abs();
    let rel = Float::with_val(256, &diff / truth).abs().to_f64();
    let exp = truth.get_exp().expect("a finite nonzero truth");
    (rel, Float::with_val(256, diff >> (exp - 64)).to_f64())
}

/// Asserts that a finding's error is MPFR's `(rel, ulps)` within 1 %.
fn agrees_within_one_percent(error: &ErrorMeasure, (rel, ulps): (f64, f64), at: &str) {
    if rel == 0.0 {
        assert_eq!(error.rel, 0.0, "at {at}");
        return;
    }
    for (found, want) in [(error.rel, rel), (error.ulps, ulps)] {
        let ratio = found / want;
        assert!(
            (0.99..=1.01).contains(&ratio),
            "at {at}: {error:?} against MPFR's ({rel:e}, {ulps:e})"
        );
    }
}

#[test]
fn extended_cancellation_is_found_and_replayed_in_mpfr() {
    let report = accuracy(
        module(),
        func("ld_cancel"),
        &config(&["x in [-1, 1]"]),
        &evals(2000),
    )
    .unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.error.rel >= 0.5, "{:?}", worst.error);
    for f in &report.top {
        let x = input(f, 0);
        // The x87 operations replayed in MPFR at precision 64, then rounded to double.
        let y = x87_round(Float::with_val(128, 1) + x);
        let d = x87_round(y - 1u32);
        let q = x87_round(d / x);
        assert_eq!(f.computed.to_f64(), q.to_f64(), "computed at {x:e}");
        // ((1 + x) - 1) / x is 1 in the reals: the reference and the error follow.
        assert_eq!(
            f.reference,
            HighValue::from(Float::with_val(128, 1)),
            "at {x:e}"
        );
        let rel = (f.computed.to_f64() - 1.0).abs();
        assert!(
            (f.error.rel - rel).abs() <= 1e-12 * rel.max(1.0),
            "at {x:e}"
        );
    }
}

#[test]
fn naive_expm1_in_long_double_is_measured_against_mpfr() {
    let report = accuracy(
        module(),
        func("ld_expm1"),
        &config(&["x in [-1, 1]"]),
        &evals(2000),
    )
    .unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.error.ulps >= 1e3, "{:?}", worst.error);
    for f in &report.top {
        let x = input(f, 0);
        let truth = Float::with_val(256, x).exp_m1();
        assert!(
            f.reference
                .agrees_with(&HighValue::from(truth.clone()), 1e-30),
            "reference {} at {x:e}",
            f.reference
        );
        let true_rel = ((Float::with_val(256, f.computed.to_f64()) - &truth) / &truth)
            .abs()
            .to_f64();
        let ratio = f.error.rel / true_rel;
        assert!(
            (0.99..=1.01).contains(&ratio),
            "at {x:e}: {:e} vs {true_rel:e}",
            f.error.rel
        );
    }
}

#[test]
fn long_double_accumulator_for_a_double_result_is_accurate() {
    let ranges = ["x in [-1e150, 1e150]", "y in [-1e150, 1e150]"];
    let report = accuracy(module(), func("ld_hypot"), &config(&ranges), &evals(2000)).unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.error.ulps <= 0.5 + 1e-3, "{:?}", worst.error);
    assert!(report.evals >= 2000);
}

#[test]
fn shadow_runs_extended_code_as_the_concrete_run_does() {
    let series =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/longdouble/params.c");
    let module = fpforge_lower::load(&[series], &LoadOptions::default()).unwrap();
    let f = module.func_by_name("ld_series").unwrap();
    let exec = ExecConfig::default;
    let mut concrete = Interpreter::new(&module, Concrete, NoObserver, exec()).unwrap();
    let mut shadow = Interpreter::new(&module, Shadow::new(128), NoObserver, exec()).unwrap();
    let mut high = Interpreter::new(&module, HighPrecision::new(128), NoObserver, exec()).unwrap();
    for x in [-9.0f64, -3.5, -0.25, 0.0, 1e-9, 0.75, 5.0, 11.0] {
        let args = [Arg::Scalar(x.to_bits())];
        let Outcome::Returned(Some(c)) = concrete.call(f, &args).unwrap().outcome else {
            panic!("concrete run at {x}")
        };
        let Outcome::Returned(Some(s)) = shadow.call(f, &args).unwrap().outcome else {
            panic!("shadow run at {x}")
        };
        let Outcome::Returned(Some(h)) = high.call(f, &args).unwrap().outcome else {
            panic!("high-precision run at {x}")
        };
        assert_eq!(s.bits(), c, "shadow bits at {x}");
        let (sv, hv) = (
            shadow.semantics().high_value(FloatTy::F64, &s),
            high.semantics().high_value(FloatTy::F64, &h),
        );
        assert_eq!(sv, hv, "shadow and re-execution at {x}");
        // Away from the truncated series' zero near -9 the terms cancel little: the
        // computed value is the high-precision one to about double precision.
        if x > -5.0 {
            assert!(
                sv.agrees_with(&HighValue::from_bits(FloatTy::F64, c), 1e-15),
                "at {x}"
            );
        }
    }
    let one = F80 {
        sig: 1 << 63,
        se: 16383,
    };
    assert_eq!(x87::value(one, 64), 1);
}

#[test]
fn long_double_result_cancellation_is_measured_in_extended_ulps() {
    let f = func("ldr_cancel");
    let report = accuracy(module(), f, &config(&["x in [-1, 1]"]), &evals(2000)).unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.error.rel >= 0.5, "{:?}", worst.error);
    assert!(worst.error.ulps >= 1e18, "{:?}", worst.error);
    for f in &report.top {
        let x = long_double_input(f);
        let xv = x87::value(x, 64);
        // (x + 1) - 1 replayed at precision 64 (each operation rounded once, by MPFR),
        // then as the x87 rounds: the computed result bit for bit.
        let sum = Float::with_val(64, &xv + 1u32);
        let replayed = x87::round(&Float::with_val(64, sum - 1u32), Round::NearestTiesToEven);
        assert_eq!(extended(f), replayed, "computed at {xv}");
        // In the reals (x + 1) - 1 is x.
        let at = xv.to_string();
        agrees_within_one_percent(&f.error, error_in_mpfr(extended(f), &xv), &at);
    }
}

#[test]
fn naive_series_returning_long_double_agrees_with_mpfr() {
    let f = func("ldr_exp_series");
    let report = accuracy(module(), f, &config(&["x in [-10, 0]"]), &evals(2000)).unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.error.ulps >= 1e6, "{:?}", worst.error);
    for f in &report.top {
        let x = input(f, 0);
        // The 40 terms as the code sums them, at precision 64 (each operation rounded
        // once, by MPFR; no value leaves the normal range), and in the reals.
        let (mut sum, mut term) = (Float::with_val(64, 1), Float::with_val(64, 1));
        let (mut true_sum, mut true_term) = (Float::with_val(512, 1), Float::with_val(512, 1));
        for k in 1..40u32 {
            term = Float::with_val(64, &term * x) / k;
            sum = Float::with_val(64, &sum + &term);
            true_term = Float::with_val(512, &true_term * x) / k;
            true_sum += &true_term;
        }
        let computed = extended(f);
        assert_eq!(x87::value(computed, 64), sum, "computed at {x:e}");
        agrees_within_one_percent(&f.error, error_in_mpfr(computed, &true_sum), &x.to_string());
    }
}

#[test]
fn accurate_long_double_result_is_reported_accurate() {
    let ranges = ["a in [-1e300, 1e300]", "b in [-1e300, 1e300]"];
    let report = accuracy(module(), func("ldr_mean"), &config(&ranges), &evals(2000)).unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.error.ulps <= 0.5 + 1e-3, "{:?}", worst.error);
    assert!(matches!(worst.computed, FloatBits::Extended(_)));
    assert!(report.special_values.is_empty());
    assert!(report.evals >= 2000);
}

#[test]
fn nan_long_double_result_is_a_wrong_special_value() {
    let report = accuracy(
        module(),
        func("ldr_logistic"),
        &config(&["x in [-2e4, 2e4]"]),
        &evals(2000),
    )
    .unwrap();
    let special = report
        .special_values
        .iter()
        .find(|s| s.kind == SpecialKind::WrongSpecialValue)
        .expect("a NaN where the value is 1");
    let f = &special.finding;
    assert!(extended(f).is_nan(), "{:?}", f.computed);
    // expl overflows the extended range past ln(2^16384) = 11356.5...
    assert!(input(f, 0) > 11356.0, "at {}", input(f, 0));
    assert!(f
        .reference
        .agrees_with(&HighValue::from(Float::with_val(64, 1)), 1e-30));
    // ... and not before: there the logistic function is accurate.
    let worst = report.worst().expect("a finding");
    assert!(worst.error.ulps <= 2.0, "{:?}", worst.error);
}

#[test]
fn long_double_libm_name_is_measured_against_the_true_function() {
    let module = load("longdouble_libm.c");
    let f = module.func_by_name("expl").unwrap();
    let report = accuracy(&module, f, &config(&["x in [-10, 10]"]), &evals(2000)).unwrap();
    assert!(matches!(
        report.oracle,
        Oracle::TrueFunction(TrueFunction::Math(MathFn::Exp))
    ));
    let worst = report.worst().expect("a finding");
    assert!(worst.error.ulps >= 1e6, "{:?}", worst.error);
    for f in &report.top {
        let x = x87::value(long_double_input(f), 64);
        let truth = Float::with_val(256, x.exp_ref());
        assert!(f.ziv.is_some(), "every reported error is recomputed");
        agrees_within_one_percent(&f.error, error_in_mpfr(extended(f), &truth), &x.to_string());
    }
}
