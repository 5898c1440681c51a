//! The oracles on `tests/fixtures/accuracy/oracles.c`: the true function sees the error
//! of an approximation that the re-execution cannot see (judged against Rust's own
//! `exp` and `ln_1p`), `--oracle auto` takes the true function by the entry's name,
//! a GSL `_e` function is measured on `result->val` with its status, NaN where the true
//! value is finite comes first as a wrong special value, a pole is labeled as such, a C
//! reference agrees with MPFR, and every reported error is stable by Ziv's strategy.

use fpforge_accuracy::special::classify;
use fpforge_accuracy::{
    accuracy, check_input, neighbours, AccuracyConfig, AccuracyReport, ErrorMetric, OracleChoice,
    OracleKind, OutputLoc, SpecialKind, TrueFunction,
};
use fpforge_engine::Budget;
use fpforge_lower::LoadOptions;
use fpforge_spec::{ArgSpec, InputSpec};
use fpir::{Func, Module};
use std::path::PathBuf;
use std::sync::OnceLock;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/accuracy")
}

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path = fixtures().join("oracles.c");
        fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers")
    })
}

/// A budget of `n` evaluations and no time limit: a reproducible run.
fn evals(n: u64) -> Budget {
    Budget::default().with_evals(Some(n))
}

fn func(name: &str) -> Func {
    module().func_by_name(name).expect("fixture function")
}

/// Ranked by relative error: these runs are checked against Rust's own double
/// functions, which judge relative errors, not ulps (`tests/ulps.rs` checks those).
fn config(range: &str, oracle: OracleChoice) -> AccuracyConfig {
    AccuracyConfig::default()
        .with_seed(1)
        .with_metric(Some(ErrorMetric::Relative))
        .with_oracle(oracle)
        .with_args(vec![range.parse::<ArgSpec>().unwrap()])
}

fn mpfr(name: &str) -> OracleChoice {
    OracleChoice::Mpfr(TrueFunction::from_mpfr_name(name).unwrap())
}

/// The first (only) input coordinate of a finding, as a double.
fn input(f: &fpforge_accuracy::ErrorFinding) -> f64 {
    f64::from_bits(f.test.coords[0])
}

/// Every reported error is within a factor 2 of `truth`'s relative error, and stable.
fn check_against(report: &AccuracyReport, truth: fn(f64) -> f64) -> f64 {
    assert!(!report.top.is_empty());
    for f in &report.top {
        let x = input(f);
        let computed = f.computed.to_f64();
        let t = truth(x);
        let true_rel = ((computed - t) / t).abs();
        let ratio = f.error.rel / true_rel;
        assert!(
            (0.5..=2.0).contains(&ratio),
            "at {x:e}: reported {:e}, true {true_rel:e}",
            f.error.rel
        );
        let ziv = f.ziv.expect("every reported error is recomputed");
        assert!(ziv.agreed && ziv.precision >= 256, "{ziv:?}");
    }
    report.top[0].error.rel
}

#[test]
fn the_true_function_sees_what_the_re_execution_cannot() {
    let exp = config("x in [-1, 1]", mpfr("exp"));
    let report = accuracy(module(), func("exp_taylor3"), &exp, &evals(2000)).unwrap();
    assert_eq!(report.oracle.kind(), OracleKind::TrueFunction);
    assert_eq!(report.oracle.to_string(), "true function (MPFR exp)");
    let worst = check_against(&report, f64::exp);
    assert!(worst >= 0.05, "{worst:e}");

    let reexec = config("x in [-1, 1]", OracleChoice::Auto);
    let report = accuracy(module(), func("exp_taylor3"), &reexec, &evals(2000)).unwrap();
    assert_eq!(report.oracle.kind(), OracleKind::ReExecution);
    assert!(report
        .oracle
        .to_string()
        .starts_with("rounding error of this algorithm only"));
    assert!(report.worst().is_some_and(|w| w.error.rel < 1e-14));

    let log1p = config("x in [-0.5, 0.5]", mpfr("log1p"));
    let report = accuracy(module(), func("log1p_series2"), &log1p, &evals(2000)).unwrap();
    let worst = check_against(&report, f64::ln_1p);
    assert!(worst >= 0.09, "{worst:e}");
}

#[test]
fn auto_takes_the_true_function_by_name() {
    let c = config("x in [-1, 1]", OracleChoice::Auto);
    let report = accuracy(module(), func("expm1"), &c, &evals(2000)).unwrap();
    assert_eq!(report.oracle.to_string(), "true function (MPFR expm1)");
    // exp(x) - 1 cancels near 0: the relative error reaches 1 (computed 0).
    assert!(report.worst().is_some_and(|w| w.error.rel >= 0.5));
    check_against(&report, f64::exp_m1);
    // Overflow to infinity is exp's correctly rounded value, not a wrong special value.
    let wide = config("x in [700, 800]", OracleChoice::Auto);
    let report = accuracy(module(), func("expm1"), &wide, &evals(2000)).unwrap();
    assert!(
        report.special_values.is_empty(),
        "{:?}",
        report.special_values
    );
}

#[test]
fn a_gsl_e_function_is_measured_on_its_value_and_nan_comes_first() {
    let c = AccuracyConfig::default().with_seed(1);
    let report = accuracy(module(), func("gsl_sf_bessel_J0_e"), &c, &evals(3000)).unwrap();
    assert_eq!(report.oracle.to_string(), "true function (MPFR j0)");
    let first = report
        .special_values
        .first()
        .expect("NaN past 1e10 is found");
    assert_eq!(first.kind, SpecialKind::WrongSpecialValue);
    assert_eq!(first.finding.status, Some(0));
    assert_eq!(
        first.finding.output,
        OutputLoc::Element { param: 1, index: 0 }
    );
    assert!(first.finding.computed.to_f64().is_nan());
    assert!(input(&first.finding).abs() > 1e10);
    assert!(first.finding.reference.to_f64().is_finite());
    // Below 1e10 the host's j0 is measured against MPFR's: finite errors, ranked.
    let worst = report.worst().expect("finite errors");
    assert!(worst.error.rel.is_finite() && input(worst).abs() <= 1e10);
    // Re-executed, the result's value is what is measured, never its error estimate.
    let reexec = c.with_oracle(OracleChoice::ReExecution);
    let report = accuracy(module(), func("gsl_sf_bessel_J0_e"), &reexec, &evals(3000)).unwrap();
    assert_eq!(report.oracle.kind(), OracleKind::ReExecution);
    let value = OutputLoc::Element { param: 1, index: 0 };
    assert!(report.top.iter().all(|f| f.output == value));
    assert!(report
        .special_values
        .iter()
        .all(|s| s.finding.output == value));
}

#[test]
fn a_pole_is_labeled_and_not_ranked() {
    let c = config("x in [-4, 4]", OracleChoice::Auto);
    let at = |x: f64| {
        check_input(module(), func("psi"), &c, vec![x.to_bits()])
            .unwrap()
            .expect("psi runs")
            .finding
    };
    let pole = at(-2.0);
    assert_eq!(classify(&pole), Some(SpecialKind::Pole));
    // Between the poles the asymptotic series is only an approximation: finite errors.
    let between = at(2.5);
    assert_eq!(classify(&between), None);
    assert!(between.error.rel > 1e-4 && between.error.rel < 1e-1);
    let report = accuracy(module(), func("psi"), &c, &evals(2000)).unwrap();
    assert!(report.top.iter().all(|f| classify(f).is_none()));
    assert!(report
        .special_values
        .iter()
        .all(|s| classify(&s.finding) == Some(s.kind)));
}

#[test]
fn a_c_reference_agrees_with_mpfr() {
    let reference = OracleChoice::CReference {
        source: fixtures().join("ref_exp.c"),
        function: "ref_exp".to_string(),
    };
    let c = config("x in [-1, 1]", reference);
    let report = accuracy(module(), func("exp_taylor3"), &c, &evals(2000)).unwrap();
    assert_eq!(report.oracle.kind(), OracleKind::CReference);
    assert!(report.oracle.to_string().contains("ref_exp.c:ref_exp"));
    let exp = config("x in [-1, 1]", mpfr("exp"));
    for f in &report.top {
        let again = check_input(module(), func("exp_taylor3"), &exp, f.test.coords.clone())
            .unwrap()
            .unwrap()
            .finding;
        assert!(
            (again.error.rel - f.error.rel).abs() <= 1e-9 * f.error.rel,
            "{:e} vs {:e}",
            again.error.rel,
            f.error.rel
        );
    }
}

/// One input per region: no two reported inputs within 2^20 ulps, the near-duplicates
/// counted.
#[test]
fn reported_inputs_are_diverse_and_folds_are_counted() {
    let c = config("x in [-1, 1]", mpfr("exp"));
    let report = accuracy(module(), func("exp_taylor3"), &c, &evals(4000)).unwrap();
    let spec = InputSpec::for_function(module(), func("exp_taylor3"), &c.args, &[]).unwrap();
    assert_eq!(report.top.len(), c.top_k);
    for (i, a) in report.top.iter().enumerate() {
        for b in &report.top[i + 1..] {
            assert!(!neighbours(&spec, &a.test, &b.test));
        }
    }
    assert!(report.folded > 0);
}
