//! The accuracy engine on `tests/fixtures/accuracy/sums.c`: naive summation has inputs
//! with relative error at least 0.5, compensated summation stays accurate, output
//! arrays are measured per element, the same seed gives the same report, the random
//! strategy runs under the same reference, and every reported error is reproduced at a
//! second precision. Budgets are evaluation limits so results do not depend on speed.

use fpforge_accuracy::{
    accuracy, check_input, AccuracyConfig, CandidateStrategy, Check, OutputLoc, SiteSelection,
};
use fpforge_engine::Budget;
use fpforge_lower::LoadOptions;
use fpforge_spec::{ArgSpec, OutArgSpec};
use fpir::{Func, Module};
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

/// A budget of `n` evaluations and no time limit: a reproducible run.
fn evals(n: u64) -> Budget {
    Budget::default().with_evals(Some(n))
}

fn sum_config(seed: u64) -> AccuracyConfig {
    AccuracyConfig::default().with_seed(seed).with_args(vec![
        "a: f64[4] in [-100, 100]".parse::<ArgSpec>().unwrap(),
        "n = 4".parse().unwrap(),
    ])
}

#[test]
fn naive_sum_is_inaccurate_and_kahan_is_not() {
    let report = accuracy(module(), func("naive_sum"), &sum_config(1), &evals(3000)).unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.error.rel >= 0.5, "naive sum: {:?}", worst.error);
    assert_eq!(worst.output, OutputLoc::Return);
    // The cancellation target at the one fadd is covered, and blame names that site.
    assert!(report
        .targets
        .iter()
        .any(|t| t.target.check == Check::Cancellation && t.covered()));
    assert_eq!(report.blame.rows[0].op, "fadd");
    assert!(
        report.blame.rows[0].location.contains("sums.c:10"),
        "{:?}",
        report.blame.rows
    );

    // Error-free transformations (Shewchuk's partials) give a faithful sum: at most one
    // ulp, whatever the cancellation. (Kahan's compensated sum is not enough: its
    // compensation term is lost when a later addend cancels the running sum.)
    let exact = accuracy(module(), func("msum"), &sum_config(1), &evals(3000)).unwrap();
    let e = exact.worst().map_or(0.0, |w| w.error.rel);
    assert!(e <= f64::EPSILON, "msum {e} vs naive {}", worst.error.rel);
    let kahan = accuracy(module(), func("kahan_sum"), &sum_config(1), &evals(3000)).unwrap();
    assert!(kahan.worst().is_some_and(|w| w.error.rel >= 0.5));
}

#[test]
fn same_seed_same_report() {
    let a = accuracy(module(), func("naive_sum"), &sum_config(7), &evals(800)).unwrap();
    let b = accuracy(module(), func("naive_sum"), &sum_config(7), &evals(800)).unwrap();
    let coords = |r: &fpforge_accuracy::AccuracyReport| {
        r.top
            .iter()
            .map(|f| f.test.coords.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(coords(&a), coords(&b));
    assert_eq!(a.evals, 800);
    assert_eq!(a.blame, b.blame);
}

#[test]
fn random_strategy_and_recheck_at_256_bits() {
    let config = sum_config(3).with_strategy(CandidateStrategy::Random);
    let report = accuracy(module(), func("naive_sum"), &config, &evals(1500)).unwrap();
    let worst = report.worst().expect("random finds some error");
    let again = check_input(
        module(),
        func("naive_sum"),
        &sum_config(3).with_precision(256),
        worst.test.coords.clone(),
    )
    .unwrap()
    .expect("re-check runs")
    .finding;
    assert_eq!(again.computed, worst.computed);
    assert!(again.reference.agrees_with(&worst.reference, 1e-30));
    assert!((again.error.rel - worst.error.rel).abs() <= 1e-12 * worst.error.rel);
}

#[test]
fn output_arrays_are_measured_per_element() {
    let config = AccuracyConfig::default()
        .with_seed(2)
        .with_args(vec![
            "a: f64[4] in [-100, 100]".parse().unwrap(),
            "n = 4".parse().unwrap(),
        ])
        .with_out_args(vec!["b".parse::<OutArgSpec>().unwrap()])
        .with_sites(SiteSelection::Loops);
    let report = accuracy(module(), func("prefix_sums"), &config, &evals(1500)).unwrap();
    let worst = report.worst().expect("a finding");
    assert!(matches!(worst.output, OutputLoc::Element { param: 1, index } if index >= 1));
    assert!(worst.error.rel >= 0.5, "{:?}", worst.error);
    assert_eq!(report.targets.len(), 2);
}

#[test]
fn sites_by_line_and_loops() {
    let lines = sum_config(1).with_sites(SiteSelection::Lines(vec![("sums.c".into(), 10)]));
    let report = accuracy(module(), func("naive_sum"), &lines, &evals(50)).unwrap();
    assert_eq!(report.targets.len(), 2);
    let none = sum_config(1).with_sites(SiteSelection::Lines(vec![("sums.c".into(), 11)]));
    assert!(accuracy(module(), func("naive_sum"), &none, &evals(50))
        .unwrap()
        .targets
        .is_empty());
    // kahan_sum's four add/subs are all in its loop.
    let loops = sum_config(1).with_sites(SiteSelection::Loops);
    assert_eq!(
        accuracy(module(), func("kahan_sum"), &loops, &evals(50))
            .unwrap()
            .targets
            .len(),
        8
    );
    // pairwise_sum recurses instead of looping.
    assert!(accuracy(module(), func("pairwise_sum"), &loops, &evals(50))
        .unwrap()
        .targets
        .is_empty());
}

#[test]
fn a_change_of_path_is_flagged() {
    // `x + y == x` holds in binary64 for tiny y, never in MPFR: the worst error comes
    // from the other branch, and no input has an error on the reference's own path.
    let config = AccuracyConfig::default().with_seed(1).with_args(vec![
        "x in [1, 2]".parse().unwrap(),
        "y in [-1e-17, 1e-17]".parse().unwrap(),
    ]);
    let report = accuracy(module(), func("absorbed"), &config, &evals(600)).unwrap();
    let worst = report.worst().expect("a finding");
    assert!(worst.diverged);
    assert!(report.worst_same_path.is_none());
    assert!(!report.blame.divergences.is_empty());
}

/// The reported inputs are distinct problems: no two lie within 2^20 ulps of each other
/// in every coordinate (a neighbour replaces a kept input only when it is worse), and
/// the list still holds its `top_k` inputs.
#[test]
fn reported_inputs_are_never_neighbours() {
    for (name, seed) in [("naive_sum", 1), ("absorbed", 2), ("roundtrip", 3)] {
        let config = if name == "naive_sum" {
            sum_config(seed)
        } else {
            AccuracyConfig::default().with_seed(seed)
        };
        let report = accuracy(module(), func(name), &config, &evals(6000)).unwrap();
        let spec = fpforge_spec::InputSpec::for_function(
            module(),
            func(name),
            &config.args,
            &config.out_args,
        )
        .unwrap();
        let tests: Vec<_> = report.top.iter().map(|f| &f.test).collect();
        assert!(!tests.is_empty(), "{name}");
        for (i, a) in tests.iter().enumerate() {
            for b in &tests[i + 1..] {
                assert!(
                    !fpforge_accuracy::neighbours(&spec, a, b),
                    "{name}: {} and {} are neighbours",
                    a.line(),
                    b.line()
                );
            }
        }
    }
}
