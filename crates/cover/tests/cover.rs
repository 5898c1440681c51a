//! Coverage runs on the C fixtures in `tests/fixtures/cover`: full coverage of feasible
//! sides, every claim confirmed by re-execution, determinism, and infeasible sides left
//! as not reached. Budgets are evaluation limits so results do not depend on speed.

use fpforge_cover::{cover, Arm, CoverConfig, CoverReport, Side, SideStatus};
use fpforge_exec::{BranchTrace, Concrete, ExecConfig, Interpreter};
use fpforge_lower::LoadOptions;
use fpir::{Func, Module};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::OnceLock;

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/cover/branchy.c");
        fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers")
    })
}

fn func(name: &str) -> Func {
    module().func_by_name(name).expect("fixture function")
}

fn config(seed: u64, evals: u64) -> CoverConfig {
    CoverConfig::default()
        .with_seed(seed)
        .with_time_limit(None)
        .with_max_evals(Some(evals))
}

fn run(name: &str, seed: u64, evals: u64) -> CoverReport {
    cover(module(), func(name), &config(seed, evals)).expect("cover runs")
}

/// Re-executes every test and checks that each side the report calls covered is taken
/// by its witness.
fn check_witnesses(report: &CoverReport) {
    let m = module();
    for side in &report.sides {
        let SideStatus::Covered { test } = side.status else {
            continue;
        };
        let mut interp = Interpreter::new(
            m,
            Concrete,
            BranchTrace::default(),
            ExecConfig::default().with_fuel(1_000_000),
        )
        .unwrap();
        interp
            .call(report.func, &report.tests[test].to_args())
            .unwrap();
        let taken: BTreeSet<Side> = interp
            .observer()
            .events
            .iter()
            .map(|&(site, outcome)| Side {
                site,
                arm: match outcome {
                    fpforge_exec::BranchOutcome::Cond(true) => Arm::Then,
                    fpforge_exec::BranchOutcome::Cond(false) => Arm::Else,
                    fpforge_exec::BranchOutcome::Case(Some(i)) => Arm::Case(i),
                    fpforge_exec::BranchOutcome::Case(None) => Arm::Default,
                },
            })
            .collect();
        assert!(
            taken.contains(&side.side),
            "test {test} ({}) does not take {}",
            report.tests[test].line(),
            side.side
        );
    }
}

fn assert_full(report: &CoverReport) {
    check_witnesses(report);
    let missing: Vec<String> = report
        .sides
        .iter()
        .filter(|s| s.status == SideStatus::NotReached)
        .map(|s| s.side.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "not reached: {missing:?} after {} evals",
        report.evals
    );
}

#[test]
fn fdlibm_style_word_tests_reach_subnormals_infinities_and_nan() {
    let report = run("classify", 1, 60_000);
    assert_eq!(report.sides.len(), 14);
    assert_full(&report);
}

#[test]
fn exact_equality_with_a_product() {
    assert_full(&run("scaled_equal", 2, 60_000));
}

#[test]
fn switch_cases_and_the_float_test_behind_one() {
    let report = run("dispatch", 3, 60_000);
    assert_eq!(report.sides.len(), 6);
    assert_full(&report);
}

#[test]
fn loop_with_a_counted_condition() {
    assert_full(&run("count_above", 4, 60_000));
}

#[test]
fn float_and_pointer_parameters() {
    assert_full(&run("mixed", 5, 60_000));
}

#[test]
fn infeasible_side_is_not_reached_and_never_claimed() {
    let report = run("impossible", 6, 5_000);
    check_witnesses(&report);
    let not_reached: Vec<&Side> = report
        .sides
        .iter()
        .filter(|s| s.status == SideStatus::NotReached)
        .map(|s| &s.side)
        .collect();
    assert_eq!(not_reached.len(), 1, "{:?}", report.sides);
    assert_eq!(not_reached[0].arm, Arm::Then);
    assert_eq!(report.covered(), 3);
    assert_eq!(report.evals, 5_000);
}

#[test]
fn same_seed_same_tests() {
    let lines = |r: &CoverReport| r.tests.iter().map(|t| t.line()).collect::<Vec<_>>();
    let a = run("count_above", 11, 20_000);
    let b = run("count_above", 11, 20_000);
    assert_eq!(lines(&a), lines(&b));
    assert_eq!(a.evals, b.evals);
}

#[test]
fn lcov_has_a_record_per_side() {
    let report = run("impossible", 6, 2_000);
    let lcov = report.lcov(module());
    assert_eq!(lcov.matches("BRDA:").count(), report.sides.len(), "{lcov}");
    assert!(lcov.contains("BRF:4\nBRH:3\n"), "{lcov}");
}

#[test]
fn deep_includes_the_callees_sites() {
    let shallow = run("outer", 7, 20_000);
    assert_eq!(shallow.sides.len(), 2);
    assert_full(&shallow);
    let deep = cover(module(), func("outer"), &config(7, 20_000).with_deep(true)).unwrap();
    assert_eq!(deep.sides.len(), 6);
    assert_full(&deep);
}

#[test]
fn coverme_alone_still_confirms_what_it_claims() {
    let baseline = config(8, 20_000)
        .with_metric(fpforge_cover::Metric::Real)
        .with_spaces(vec![fpforge_cover::Space::Real])
        .with_ulp_refine(false)
        .with_levels(false)
        .with_targeted(false);
    let report = cover(module(), func("dispatch"), &baseline).unwrap();
    check_witnesses(&report);
    assert!(report.covered() >= 4, "{:?}", report.sides);
}
