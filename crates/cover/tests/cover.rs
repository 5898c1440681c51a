//! Coverage runs on the C fixtures in `tests/fixtures/cover`: full coverage of feasible
//! sides, every claim confirmed by re-execution, determinism, and infeasible sides left
//! as not reached. Budgets are evaluation limits so results do not depend on speed.

use fpforge_cover::{cover, CoverConfig, CoverReport, Settlement, SideProver};
use fpforge_engine::{Budget, Interrupt, Stop};
use fpforge_exec::{BranchTrace, Concrete, ExecConfig, Interpreter, Outcome, TrapKind};
use fpforge_lower::LoadOptions;
use fpforge_spec::{Arg, ArgSpec, OutArgSpec};
use fpir::{Arm, Func, InfeasibleMethod, Module, Side, SideReport, SideStatus, Witness};
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

fn config(seed: u64) -> CoverConfig {
    CoverConfig::default().with_seed(seed)
}

/// A budget of `n` evaluations and no time limit: a reproducible run.
fn evals(n: u64) -> Budget {
    Budget::default().with_evals(Some(n))
}

fn run(name: &str, seed: u64, n: u64) -> CoverReport {
    cover(module(), func(name), &config(seed), &evals(n)).expect("cover runs")
}

/// Re-executes every test and checks that each side the report calls covered is taken
/// by its witness.
fn check_witnesses(report: &CoverReport) {
    check_witnesses_in(module(), report);
}

/// [`check_witnesses`] for a report on a function of `m`.
fn check_witnesses_in(m: &Module, report: &CoverReport) {
    for side in &report.sides {
        let SideStatus::Covered { witness } = side.status else {
            continue;
        };
        let coords = match witness {
            Witness::Test(t) => &report.tests[t].coords,
            Witness::Finding(k) => &report.findings[k].coords,
        };
        let mut interp = Interpreter::new(
            m,
            Concrete,
            BranchTrace::default(),
            ExecConfig::default().with_fuel(1_000_000),
        )
        .unwrap();
        interp
            .call(report.func, &report.plan.spec().to_args(coords))
            .unwrap();
        let taken: BTreeSet<Side> = interp.observer().events.iter().copied().collect();
        assert!(
            taken.contains(&side.side),
            "{witness:?} ({}) does not take {}",
            report.plan.spec().line(coords),
            m.side_name(side.side)
        );
    }
}

fn assert_full(report: &CoverReport) {
    check_witnesses(report);
    let missing: Vec<String> = report
        .sides
        .iter()
        .filter(|s| matches!(s.status, SideStatus::NotReached { .. }))
        .map(|s| module().side_name(s.side))
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
        .filter(|s| matches!(s.status, SideStatus::NotReached { .. }))
        .map(|s| &s.side)
        .collect();
    assert_eq!(not_reached.len(), 1, "{:?}", report.sides);
    assert_eq!(not_reached[0].arm, Arm::True);
    assert_eq!(report.tally().covered, 3);
    assert_eq!(report.evals, 5_000);
}

#[test]
fn same_seed_same_tests() {
    let lines = |r: &CoverReport| {
        r.tests
            .iter()
            .map(|t| t.line().to_string())
            .collect::<Vec<_>>()
    };
    let a = run("count_above", 11, 20_000);
    let b = run("count_above", 11, 20_000);
    assert_eq!(lines(&a), lines(&b));
    assert_eq!(a.evals, b.evals);
}

#[test]
fn deep_includes_the_callees_sites() {
    let shallow = run("outer", 7, 20_000);
    assert_eq!(shallow.sides.len(), 2);
    assert_full(&shallow);
    let deep = cover(
        module(),
        func("outer"),
        &config(7).with_deep(true),
        &evals(20_000),
    )
    .unwrap();
    assert_eq!(deep.sides.len(), 6);
    assert_full(&deep);
}

#[test]
fn coverme_alone_still_confirms_what_it_claims() {
    let baseline = config(8)
        .with_metric(fpforge_cover::Metric::Real)
        .with_spaces(vec![fpforge_cover::Space::Real])
        .with_ulp_refine(false)
        .with_levels(false)
        .with_targeted(false);
    let report = cover(module(), func("dispatch"), &baseline, &evals(20_000)).unwrap();
    check_witnesses(&report);
    assert!(report.tally().covered >= 4, "{:?}", report.sides);
}

fn spec(text: &str) -> ArgSpec {
    text.parse().expect("valid spec")
}

#[test]
fn arrays_and_fixed_values_from_specs() {
    let config = config(12).with_args(vec![spec("a: f64[4]"), spec("n = 4")], Vec::new());
    let report = cover(module(), func("array_sum"), &config, &evals(60_000)).unwrap();
    check_witnesses(&report);
    // With `n = 4` only `n > 2`'s false side is out of reach, and it is labelled so.
    let missed: Vec<&SideReport> = report
        .sides
        .iter()
        .filter(|s| !matches!(s.status, SideStatus::Covered { .. }))
        .collect();
    assert_eq!(missed.len(), 1, "{:?}", report.sides);
    assert_eq!(missed[0].side.arm, Arm::False);
    assert!(matches!(missed[0].status, SideStatus::NotReached { reason } if reason.branch_reached));
    assert_eq!(report.plan.dims(), 4);
    for test in &report.tests {
        let line = test.line();
        assert!(line.starts_with('[') && line.ends_with("] 4"), "{line}");
        assert_eq!(line.matches(',').count(), 3, "{line}");
    }
}

#[test]
fn ranges_bound_every_input() {
    let config = config(13).with_args(vec![spec("x in [0, 1]")], Vec::new());
    let report = cover(module(), func("in_range"), &config, &evals(20_000)).unwrap();
    check_witnesses(&report);
    assert_eq!(report.tally().covered, 3, "{:?}", report.sides);
    for test in &report.tests {
        let x = f64::from_bits(test.coords[0]);
        assert!((0.0..=1.0).contains(&x), "{x}");
    }
    assert_full(&run("in_range", 13, 20_000));
}

#[test]
fn output_arrays_are_not_inputs() {
    let config = config(14).with_args(
        vec![spec("n = 3")],
        vec!["a: f64[3]".parse::<OutArgSpec>().unwrap()],
    );
    let report = cover(module(), func("array_sum"), &config, &evals(20_000)).unwrap();
    assert_eq!(report.plan.dims(), 0);
    assert_eq!(report.tests.len(), 1);
    assert_eq!(report.tests[0].line(), "[0x0p+0,0x0p+0,0x0p+0] 3");
}

#[test]
fn jobs_give_the_same_tests_for_the_same_seed() {
    let lines = |r: &CoverReport| {
        r.tests
            .iter()
            .map(|t| t.line().to_string())
            .collect::<Vec<_>>()
    };
    for name in ["classify", "count_above"] {
        let jobs = config(15).with_jobs(2);
        let a = cover(module(), func(name), &jobs, &evals(40_000)).unwrap();
        let b = cover(module(), func(name), &jobs, &evals(40_000)).unwrap();
        check_witnesses(&a);
        assert_eq!(lines(&a), lines(&b), "{name}");
        assert_eq!(a.tally().covered, b.tally().covered);
    }
    assert_full(
        &cover(
            module(),
            func("classify"),
            &config(15).with_jobs(2),
            &evals(60_000),
        )
        .unwrap(),
    );
}

#[test]
fn selects_are_sites_and_constant_branches_are_infeasible() {
    let m = module();
    let f = func("sign_or_one");
    // `return x < -1.0 ? -1.0 : 1.0;` is a `select`, which lowering makes a branch site
    // numbered after every `br` and `switch` of the module (`quadrant`'s come later in
    // the file).
    let at_line = |func: Func, line: u32| {
        m.branch_sites
            .iter()
            .filter(|(_, s)| s.func == func && s.loc.is_some_and(|l| l.line == line))
            .map(|(site, _)| site.0 as usize)
            .collect::<Vec<_>>()
    };
    let [select] = at_line(f, 132)[..] else {
        panic!("one branch site for the `?:` of sign_or_one")
    };
    let [switch] = at_line(func("quadrant"), 137)[..] else {
        panic!("one branch site for the switch of quadrant")
    };
    assert!(select > switch, "{select} {switch}");
    let report = cover(m, f, &config(16), &evals(20_000)).unwrap();
    let status = |site: usize, arm: Arm| {
        report
            .sides
            .iter()
            .find(|s| s.side.site.0 as usize == site && s.side.arm == arm)
            .map(|s| s.status)
    };
    // The select's two sides are covered.
    assert!(matches!(
        status(select, Arm::True),
        Some(SideStatus::Covered { .. })
    ));
    assert!(matches!(
        status(select, Arm::False),
        Some(SideStatus::Covered { .. })
    ));
    // `sizeof(x) == sizeof(float)` is false: its then side is infeasible, and the two
    // branches of `x > 0 && x < 1` are dead.
    assert_eq!(report.tally().infeasible, 5, "{:?}", report.sides);
    assert!(report.sides.iter().any(|s| s.status
        == SideStatus::Infeasible {
            method: InfeasibleMethod::ConstantCondition
        }));
    assert_eq!(
        report.tally().covered + report.tally().infeasible,
        report.sides.len()
    );
    assert_eq!(report.stop, Stop::TargetsReached);
}

#[test]
fn interrupt_ends_the_run_with_what_was_found() {
    let interrupt = Interrupt::new();
    interrupt.raise();
    let budget = evals(1_000_000).with_interrupt(Some(interrupt));
    let report = cover(module(), func("impossible"), &config(17), &budget).unwrap();
    assert_eq!(report.stop, Stop::Interrupted);
    assert!(report.evals < 1_000);
}

#[test]
fn switch_defaults_the_value_cannot_reach_are_infeasible() {
    let report = run("quadrant", 18, 20_000);
    check_witnesses(&report);
    assert_eq!(report.tally().covered, 4, "{:?}", report.sides);
    let default = report
        .sides
        .iter()
        .find(|s| s.side.arm == Arm::Default)
        .unwrap();
    assert_eq!(
        default.status,
        SideStatus::Infeasible {
            method: InfeasibleMethod::ImpossibleValue
        }
    );
    assert_eq!(report.stop, Stop::TargetsReached);
}

/// A prover that answers every side with the same witness, or proves it infeasible.
struct FixedProver(Settlement);

impl SideProver for FixedProver {
    fn settings(&self) -> fpforge_engine::Settings {
        fpforge_engine::Settings::new().with("method", "fixed")
    }

    fn settle(
        &self,
        _: &Module,
        _: Func,
        _: &fpforge_spec::InputSpec,
        sides: &[Side],
        _: std::time::Duration,
    ) -> Vec<Settlement> {
        vec![self.0.clone(); sides.len()]
    }
}

#[test]
fn prover_witnesses_count_only_when_their_rerun_takes_the_side() {
    let with = |answer: Settlement| {
        let config = config(5).with_prover(Some(std::sync::Arc::new(FixedProver(answer))));
        cover(module(), func("impossible"), &config, &evals(3_000)).unwrap()
    };
    // `x < 0 && x > 1`: a witness claiming the impossible side is re-run and dropped.
    let report = with(Settlement::Witness(vec![(-1.0f64).to_bits()]));
    assert_eq!(report.tally().covered, 3);
    assert!(report.sides.iter().all(|s| !s.status.is_infeasible()));
    let method = InfeasibleMethod::IntervalLabeling;
    let report = with(Settlement::Infeasible(method));
    let proved: Vec<_> = report
        .sides
        .iter()
        .filter(|s| s.status == SideStatus::Infeasible { method })
        .collect();
    assert_eq!(proved.len(), 1, "{:?}", report.sides);
    assert_eq!(
        report.tally().covered + report.tally().infeasible,
        report.sides.len()
    );
}

/// `cover` confirms every input in one interpreter per fuel (the search's, and a hundred
/// times it for an input that ran out of the search's), so a run that runs out of fuel
/// must leave nothing behind in its interpreter: each run after it ends, and takes the
/// sides it takes, as in an interpreter of its own.
#[test]
fn an_interpreter_after_a_run_out_of_fuel_answers_as_a_fresh_one() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/findings/slow.c");
    let module = fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers");
    let heron = module.func_by_name("heron").expect("fixture function");
    let run = |interp: &mut Interpreter<'_, Concrete, BranchTrace>, x: f64| {
        interp.observer_mut().clear();
        let run = interp.call(heron, &[Arg::Scalar(x.to_bits())]).unwrap();
        (
            run.outcome,
            std::mem::take(&mut interp.observer_mut().events),
        )
    };
    // heron(NaN) iterates 50,000 times, about half a million steps; heron(2) converges.
    let inputs = [f64::NAN, 2.0, f64::NAN, 0.5];
    for (fuel, long_run_ends) in [(100_000, false), (10_000_000, true)] {
        let fresh = || {
            let exec = ExecConfig::default().with_fuel(fuel);
            Interpreter::new(&module, Concrete, BranchTrace::default(), exec).unwrap()
        };
        let mut shared = fresh();
        for x in inputs {
            let answer = run(&mut shared, x);
            assert_eq!(answer, run(&mut fresh(), x), "heron({x}) at fuel {fuel}");
            if x.is_nan() {
                let out_of_fuel = matches!(&answer.0,
                    Outcome::Trapped(trap) if trap.kind == TrapKind::FuelExhausted);
                assert_eq!(out_of_fuel, !long_run_ends, "heron({x}) at fuel {fuel}");
            }
        }
    }
}

/// An iteration with a cap (`tests/fixtures/cover/capped_iteration.c`, as GSL's 1F1
/// series has) that only inputs in a narrow band take, after about 150,000 steps: past
/// the search's fuel, which runs out from about 5,000 iterations on. A targeted search
/// climbs the iteration count towards the cap, and runs out of fuel that were still
/// closing in on it are evaluated again with more fuel, so the climb goes on past the
/// fuel to the cap. Scored as runs out of fuel, they stopped the climb at the fuel:
/// these seeds missed the cap in 20,000 evaluations.
#[test]
fn iteration_caps_past_the_fuel_are_reached() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/cover/capped_iteration.c");
    let module = fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers");
    let capped = module
        .func_by_name("capped_iteration")
        .expect("fixture function");
    let cap = module
        .branch_sites
        .iter()
        .find(|(_, data)| data.loc.is_some_and(|loc| loc.line == 11))
        .map(|(site, _)| Side {
            site,
            arm: Arm::True,
        })
        .expect("the cap's branch");
    for seed in [1, 6] {
        let report = cover(&module, capped, &config(seed), &evals(20_000)).expect("cover runs");
        check_witnesses_in(&module, &report);
        let witness = report
            .sides
            .iter()
            .find(|s| s.side == cap)
            .and_then(|s| match s.status {
                SideStatus::Covered {
                    witness: Witness::Test(t),
                } => Some(&report.tests[t]),
                _ => None,
            })
            .unwrap_or_else(|| panic!("seed {seed}: the cap is not reached"));
        let mut interp = Interpreter::new(
            &module,
            Concrete,
            BranchTrace::default(),
            ExecConfig::default().with_fuel(CoverConfig::default().fuel),
        )
        .unwrap();
        let run = interp.call(capped, &witness.to_args()).unwrap();
        assert!(
            matches!(&run.outcome, Outcome::Trapped(trap) if trap.kind == TrapKind::FuelExhausted),
            "seed {seed}: the cap's witness {} ends within the search's fuel",
            witness.line()
        );
    }
}
