//! `long double` code through `accuracy` (`tests/fixtures/accuracy/longdouble.c`): a
//! cancellation in extended precision and a naive `expl(x) - 1` are found, with errors
//! checked against MPFR directly (the x87 arithmetic replayed at precision 64, the true
//! `expm1`), extended precision as an accumulator for a double result is reported
//! accurate, and the Shadow semantics runs extended code bit-identical to the concrete
//! run with the high-precision values of the re-execution.

use fpforge_accuracy::{accuracy, AccuracyConfig, Finding};
use fpforge_exec::{Concrete, ExecConfig, Interpreter, NoObserver, Outcome};
use fpforge_lower::LoadOptions;
use fpforge_mpfr::{x87, HighPrecision, HighValue, Shadow};
use fpforge_spec::{Arg, ArgSpec};
use fpir::f80::{Round, F80};
use fpir::{FloatTy, Func, Module};
use rug::Float;
use std::path::PathBuf;
use std::sync::OnceLock;

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/accuracy/longdouble.c");
        fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers")
    })
}

fn func(name: &str) -> Func {
    module().func_by_name(name).expect("fixture function")
}

fn config(ranges: &[&str]) -> AccuracyConfig {
    AccuracyConfig::default()
        .with_seed(1)
        .with_time_limit(None)
        .with_max_evals(Some(2000))
        .with_args(
            ranges
                .iter()
                .map(|r| r.parse::<ArgSpec>().unwrap())
                .collect(),
        )
}

fn input(f: &Finding, k: usize) -> f64 {
    f64::from_bits(f.test.coords[k])
}

/// `x` rounded to the x87 format and back to an MPFR number.
fn x87_round(x: Float) -> Float {
    x87::value(x87::round(&x, Round::NearestTiesToEven), 64)
}

#[test]
fn extended_cancellation_is_found_and_replayed_in_mpfr() {
    let report = accuracy(module(), func("ld_cancel"), &config(&["x in [-1, 1]"])).unwrap();
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
    let report = accuracy(module(), func("ld_expm1"), &config(&["x in [-1, 1]"])).unwrap();
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
    let report = accuracy(module(), func("ld_hypot"), &config(&ranges)).unwrap();
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
