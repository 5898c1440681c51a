//! Soundness tests of `reach` and `explore` on the C fixtures: every input returned
//! re-executes on the concrete interpreter along the claimed path or side (checked here
//! independently of the library's own confirmation), every path of FPSE's dichotomic
//! benchmark up to 6 iterations is answered, no sampled input takes a path proved
//! infeasible, and emitted SMT-LIB gives the same answer to the solver's SMT-LIB reader.

use fpforge_engine::Budget;
use fpforge_exec::{BranchTrace, Concrete, ExecConfig, Interpreter};
use fpforge_explore::{
    explore, reach_path, reach_side, EngineConfig, ExploreConfig, ExploreReport, PathSpec,
    ReachAnswer, SideAnswer,
};
use fpforge_spec::InputSpec;
use fpir::{Arm, Func, InfeasibleMethod, Module, Side, SideStatus, Witness};
use std::path::PathBuf;
use std::time::Duration;

fn fixture(name: &str) -> Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/explore")
        .join(name);
    fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default()).expect("fixture compiles")
}

fn concrete_trace(module: &Module, func: Func, spec: &InputSpec, bits: &[u64]) -> Vec<Side> {
    let mut interp = Interpreter::new(
        module,
        Concrete,
        BranchTrace::default(),
        ExecConfig::default(),
    )
    .unwrap();
    interp.call(func, &spec.to_args(bits)).unwrap();
    interp.observer().events.clone()
}

/// The branch sites of `func`, in order.
fn sites_of(module: &Module, func: Func) -> Vec<fpir::BranchSite> {
    module
        .branch_sites
        .iter()
        .filter(|(_, d)| d.func == func)
        .map(|(s, _)| s)
        .collect()
}

fn config() -> EngineConfig {
    EngineConfig::default().with_query_timeout(Duration::from_secs(1))
}

/// A run of at most `limit`.
fn within(limit: Duration) -> Budget {
    Budget::default().with_time_limit(Some(limit))
}

/// The budget of most runs here: five seconds.
fn budget() -> Budget {
    within(Duration::from_secs(5))
}

/// The paths of the benchmark: precondition passed, then `k` iterations whose sides
/// follow `pattern` (T: the root is below mid), ending by convergence.
fn dichotomic_path(k: usize, pattern: &str) -> String {
    let mut text = String::from("br0:F br1:F");
    for i in 0..k - 1 {
        let side = pattern.as_bytes()[i % pattern.len()] as char;
        text.push_str(&format!(" br2:T br3:F br4:{side}"));
    }
    text + " br2:T br3:T"
}

#[test]
fn dichotomic_paths_are_answered_soundly() {
    let module = fixture("dichotomic.c");
    let func = module.func_by_name("dichotomic").unwrap();
    let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
    let (mut reached, mut infeasible) = (0, 0);
    for k in 1..=6 {
        for pattern in ["T", "F", "TF", "FT", "TTF"] {
            let text = dichotomic_path(k, pattern);
            let path = PathSpec::parse(&text, &module).unwrap();
            let report = reach_path(
                &module,
                func,
                spec.clone(),
                &path,
                config(),
                &budget(),
                false,
            )
            .unwrap();
            match report.answer {
                ReachAnswer::Reached(bits) => {
                    let trace = concrete_trace(&module, func, &spec, &bits);
                    assert_eq!(path.follow(&trace).matched, path.decisions.len(), "{text}");
                    reached += 1;
                }
                ReachAnswer::Infeasible { .. } => {
                    // No sampled input takes the path.
                    for i in 0..2000 {
                        let a = -0.5 + 6.0 * f64::from(i) / 2000.0;
                        let trace = concrete_trace(
                            &module,
                            func,
                            &spec,
                            &[u64::from((a as f32).to_bits())],
                        );
                        assert!(
                            path.follow(&trace).matched < path.decisions.len(),
                            "{text} at {a}"
                        );
                    }
                    infeasible += 1;
                }
                ReachAnswer::Unknown(why) => panic!("{text}: unknown ({why})"),
            }
            assert!(
                report.elapsed < Duration::from_secs(1),
                "{text}: {:?}",
                report.elapsed
            );
        }
    }
    assert!(
        reached >= 20 && infeasible >= 4,
        "{reached} reached, {infeasible} infeasible"
    );
}

#[test]
fn emitted_smtlib_gets_the_same_answer() {
    let module = fixture("dichotomic.c");
    let func = module.func_by_name("dichotomic").unwrap();
    let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
    for (text, want) in [
        (dichotomic_path(4, "TF"), "sat"),
        (dichotomic_path(4, "F"), "unsat"),
    ] {
        let path = PathSpec::parse(&text, &module).unwrap();
        let report = reach_path(
            &module,
            func,
            spec.clone(),
            &path,
            config(),
            &budget(),
            true,
        )
        .unwrap();
        let smt = report.smt2.expect("written");
        let mut out = Vec::new();
        let cfg = fpforge_solve::SolveConfig::default().with_timeout(Duration::from_secs(5));
        fpforge_solve::run_script(&smt, &cfg, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap().trim(), want, "{text}");
    }
}

#[test]
fn loop_shorthand_and_source_positions_parse() {
    let module = fixture("dichotomic.c");
    let a = PathSpec::parse("br0:F br1:F (br2:T br3:F br4:T)x3", &module).unwrap();
    let b = PathSpec::parse(
        "dichotomic.c:15:18:F dichotomic.c:15:9:F (dichotomic.c:18:T dichotomic.c:21:F dichotomic.c:23:T)x3",
        &module,
    )
    .unwrap();
    assert_eq!(a, b);
    assert_eq!(a.decisions.len(), 11);
    for bad in [
        "br2:case1",
        "br99:T",
        "dichotomic.c:15:T",
        "(br2:T",
        "br2:T)x2",
        "(br2:T)",
        "br2",
    ] {
        assert!(PathSpec::parse(bad, &module).is_err(), "{bad}");
    }
}

#[test]
fn type_punned_high_words_are_symbolic() {
    let module = fixture("ops.c");
    let func = module.func_by_name("highword").unwrap();
    let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
    // `ix >= 0x7ff00000` (inf or NaN) and `(ix | lx) == 0` (zero) are decided on the
    // words of the double read back through a union.
    let sites = sites_of(&module, func);
    for site in &sites[..2] {
        let side = module.parse_side(&format!("{site}:T")).unwrap();
        match reach_side(&module, func, spec.clone(), side, config(), &budget()).unwrap() {
            SideAnswer::Covered(bits) => {
                let trace = concrete_trace(&module, func, &spec, &bits);
                assert!(trace.contains(&side), "{side:?}");
            }
            other => panic!("{side:?}: {other:?}"),
        }
    }
}

#[test]
fn explore_covers_every_flopsy_goal() {
    let module = fixture("flopsy.c");
    for name in [
        "beale",
        "freudenstein_roth",
        "helical_valley",
        "powell",
        "rosenbrock",
        "wood",
    ] {
        let func = module.func_by_name(name).unwrap();
        let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
        let cfg = ExploreConfig::default().with_engine(config());
        let twenty = within(Duration::from_secs(20));
        let report = explore(&module, func, spec.clone(), &cfg, &twenty, |_| {}).unwrap();
        for side in &report.sides {
            match side.status {
                SideStatus::Covered { witness } => {
                    let coords = match witness {
                        Witness::Test(t) => &report.tests[t],
                        Witness::Finding(k) => &report.findings[k].coords,
                    };
                    let trace = concrete_trace(&module, func, &spec, coords);
                    assert!(
                        trace.contains(&side.side),
                        "{name} {}",
                        module.side_name(side.side)
                    );
                }
                ref other => {
                    // Only the x1 < 0 side of the helical valley's goal may be infeasible.
                    assert!(
                        matches!(other, SideStatus::Infeasible { .. }),
                        "{name} {}: {other:?}",
                        module.side_name(side.side)
                    )
                }
            }
        }
        let goal = report.sides.iter().rfind(|s| s.side.arm == Arm::True);
        assert!(
            matches!(goal.map(|s| &s.status), Some(SideStatus::Covered { .. })),
            "{name}: goal not covered"
        );
    }
}

#[test]
fn constant_conditions_prove_sides_infeasible() {
    let module = fixture("ops.c");
    let func = module.func_by_name("constant_branches").unwrap();
    let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
    let sites = sites_of(&module, func);
    let constant = fpir::analysis::infeasible_sides(&module, func);
    let side = |text: String| module.parse_side(&text).unwrap();
    // The sizeof test's then-side, and both sides of the branch behind it.
    assert_eq!(
        constant,
        [
            (
                side(format!("{}:T", sites[0])),
                InfeasibleMethod::ConstantCondition
            ),
            (side(format!("{}:T", sites[1])), InfeasibleMethod::DeadCode),
            (side(format!("{}:F", sites[1])), InfeasibleMethod::DeadCode),
        ]
    );
    let report = explore(
        &module,
        func,
        spec,
        &ExploreConfig::default().with_engine(config()),
        &budget(),
        |_| {},
    )
    .unwrap();
    assert!(report.complete);
    assert_eq!(
        report.tally().covered + report.tally().infeasible,
        report.sides.len()
    );
    assert_eq!(report.tally().infeasible, 3);
}

#[test]
fn switch_sides_and_integer_paths() {
    let module = fixture("ops.c");
    let func = module.func_by_name("integers").unwrap();
    let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
    let switch = module
        .branch_sites
        .iter()
        .find(|(_, d)| d.func == func && matches!(d.kind, fpir::BranchKind::Switch { .. }))
        .map(|(s, _)| s)
        .unwrap();
    // Cases 0, 1 and 3 of `a & 3`, and the default (2).
    let texts = ["case 0", "case1", "case3", "default"].map(|t| format!("{switch}:{t}"));
    let sides: Vec<Side> = texts
        .iter()
        .map(|t| module.parse_side(t).unwrap())
        .collect();
    let answers =
        fpforge_explore::reach_sides(&module, func, spec.clone(), &sides, config(), &budget())
            .unwrap();
    for (side, answer) in sides.iter().zip(answers) {
        match answer {
            SideAnswer::Covered(bits) => {
                let trace = concrete_trace(&module, func, &spec, &bits);
                assert!(trace.contains(side), "{side:?}");
            }
            other => panic!("{side:?}: {other:?}"),
        }
    }
    // A path through the switch's default after the divisions.
    let path = PathSpec::parse(&format!("{switch}:default"), &module).unwrap();
    let report = reach_path(
        &module,
        func,
        spec.clone(),
        &path,
        config(),
        &budget(),
        false,
    )
    .unwrap();
    let ReachAnswer::Reached(bits) = report.answer else {
        panic!("{:?}", report.answer)
    };
    assert_eq!(bits[0] & 3, 2);
}

/// Random bits of a coordinate: special values, small and wide numbers, raw patterns;
/// inside the range when there is one.
fn sample(rng: &mut rand_chacha::ChaCha8Rng, c: &fpforge_spec::Coord) -> u64 {
    use rand::Rng;
    let x: f64 = match (c.range, rng.gen_range(0..5)) {
        (Some(r), _) => rng.gen_range(r.lo..=r.hi),
        (None, 0) => [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, f64::INFINITY, f64::NAN][rng.gen_range(0..8)],
        (None, 1) => rng.gen_range(-10.0..10.0),
        (None, 2) => rng.gen_range(-1e6..1e6),
        (None, 3) => f64::from_bits(rng.gen()),
        (None, _) => f64::from(rng.gen_range(-100i32..100)),
    };
    match c.ty {
        fpir::Type::Float(fpir::FloatTy::F32) => u64::from((x as f32).to_bits()),
        fpir::Type::Float(fpir::FloatTy::F64) => x.to_bits(),
        ty => (x as i64 as u64) & ty.mask(),
    }
}

/// Short explorations (so most are incomplete): no sampled input takes a side reported
/// infeasible, whatever the method.
#[test]
fn sides_proved_infeasible_are_never_taken() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut proved = 0;
    for (file, name, args) in [
        ("ops.c", "arith64", ""),
        ("ops.c", "arith32", ""),
        ("ops.c", "casts", ""),
        ("ops.c", "highword", ""),
        ("ops.c", "floatbits", ""),
        ("ops.c", "selects", ""),
        ("ops.c", "integers", ""),
        ("ops.c", "constant_branches", ""),
        ("ops.c", "arrays", "v: f64[4]"),
        ("dichotomic.c", "dichotomic", ""),
        ("dichotomic.c", "dichotomic", "a in [0, 5]"),
        ("flopsy.c", "helical_valley", ""),
        ("flopsy.c", "beale", "x1 in [-4.5, 4.5]"),
    ] {
        let module = fixture(file);
        let func = module.func_by_name(name).unwrap();
        let specs: Vec<fpforge_spec::ArgSpec> = if args.is_empty() {
            Vec::new()
        } else {
            vec![args.parse().unwrap()]
        };
        let spec = InputSpec::for_function(&module, func, &specs, &[]).unwrap();
        let cfg = ExploreConfig::default()
            .with_engine(config().with_query_timeout(Duration::from_millis(100)));
        let short = within(Duration::from_millis(300));
        let report = explore(&module, func, spec.clone(), &cfg, &short, |_| {}).unwrap();
        let infeasible: Vec<_> = report
            .sides
            .iter()
            .filter(|s| matches!(s.status, SideStatus::Infeasible { .. }))
            .map(|s| s.side)
            .collect();
        proved += infeasible.len();
        if infeasible.is_empty() {
            continue;
        }
        for _ in 0..3000 {
            let bits: Vec<u64> = spec.coords().iter().map(|c| sample(&mut rng, c)).collect();
            let trace = concrete_trace(&module, func, &spec, &bits);
            for side in &infeasible {
                assert!(
                    !trace.contains(side),
                    "{name} ({args}): {side:?} taken by {bits:x?}"
                );
            }
        }
    }
    assert!(proved >= 5, "{proved} sides proved infeasible");
}

#[test]
fn bracket_paths_are_reached_and_confirmed() {
    let module = fixture("dichotomic.c");
    let func = module.func_by_name("dichotomic_bracket").unwrap();
    let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
    for (k, pattern) in [(2, "T"), (4, "F"), (5, "TF")] {
        let mut text = String::from("br5:F br6:F br7:F br8:F br9:T");
        for i in 0..k - 1 {
            let side = pattern.as_bytes()[i % pattern.len()] as char;
            text.push_str(&format!(" br10:T br11:F br12:{side}"));
        }
        text.push_str(" br10:T br11:T");
        let path = PathSpec::parse(&text, &module).unwrap();
        let report = reach_path(
            &module,
            func,
            spec.clone(),
            &path,
            config(),
            &budget(),
            false,
        )
        .unwrap();
        let ReachAnswer::Reached(bits) = report.answer else {
            panic!("{text}: {:?}", report.answer)
        };
        let trace = concrete_trace(&module, func, &spec, &bits);
        assert_eq!(path.follow(&trace).matched, path.decisions.len(), "{text}");
    }
}

/// Explores `name` in `module` with the parameter specs `args`.
fn explore_with(module: &Module, name: &str, args: &[&str]) -> (Func, InputSpec, ExploreReport) {
    let func = module.func_by_name(name).unwrap();
    let args: Vec<fpforge_spec::ArgSpec> = args.iter().map(|a| a.parse().unwrap()).collect();
    let spec = InputSpec::for_function(module, func, &args, &[]).unwrap();
    let cfg = ExploreConfig::default().with_engine(config());
    let report = explore(module, func, spec.clone(), &cfg, &budget(), |_| {}).unwrap();
    (func, spec, report)
}

/// The then-side of the `k`-th branch site of `func` and its status in `report`.
fn then_side(module: &Module, func: Func, report: &ExploreReport, k: usize) -> (Side, SideStatus) {
    let side = Side {
        site: sites_of(module, func)[k],
        arm: Arm::True,
    };
    let status = report.sides.iter().find(|s| s.side == side).unwrap().status;
    (side, status)
}

/// Differential: none of 10^4 inputs `draw` makes (seeded by `seed`) takes a side
/// `report` proves infeasible.
fn proved_sides_never_taken(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    report: &ExploreReport,
    seed: u64,
    mut draw: impl FnMut(&mut rand_chacha::ChaCha8Rng, usize) -> Vec<u64>,
) {
    use rand::SeedableRng;
    let proved: Vec<Side> = report
        .sides
        .iter()
        .filter(|s| s.status.is_infeasible())
        .map(|s| s.side)
        .collect();
    assert!(!proved.is_empty());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for i in 0..10_000 {
        let bits = draw(&mut rng, i);
        let trace = concrete_trace(module, func, spec, &bits);
        for side in &proved {
            assert!(!trace.contains(side), "{bits:x?} takes {side:?}");
        }
    }
}

/// A binary32 in [1, 2) times 2^e for e in `exponents`, as coordinate bits.
fn f32_binades(rng: &mut rand_chacha::ChaCha8Rng, exponents: std::ops::RangeInclusive<i32>) -> u64 {
    use rand::Rng;
    let x = rng.gen_range(1.0f32..2.0) * 2f32.powi(rng.gen_range(exponents));
    u64::from(x.to_bits())
}

const BIT_PRECISE: SideStatus = SideStatus::Infeasible {
    method: InfeasibleMethod::BitPrecise,
};

/// The absorption side of issue 19: in float, `a + b != a` never holds for `a` in [1, 2]
/// and `b` in (0, 2^-30) (half an ulp of `a` is at least 2^-24), which interval
/// reasoning cannot show (the sum's interval contains values other than `a`) and the
/// bit-precise backend proves; no input of 10^4 (`b` uniform or over its binades)
/// takes it.
#[test]
fn absorption_side_is_proved_by_the_bit_precise_backend() {
    use rand::Rng;
    let module = fixture("absorption.c");
    let (func, spec, report) = explore_with(
        &module,
        "absorbs",
        &["a in [1, 2]", "b in [0x1p-149, 0x1p-30]"],
    );
    let (_, status) = then_side(&module, func, &report, 0);
    assert_eq!(status, BIT_PRECISE);
    proved_sides_never_taken(&module, func, &spec, &report, 19, |rng, i| {
        let a = u64::from(rng.gen_range(1.0f32..=2.0).to_bits());
        let b = if i % 2 == 0 {
            u64::from(rng.gen_range(f32::from_bits(1)..=2f32.powi(-30)).to_bits())
        } else {
            f32_binades(rng, -149..=-31)
        };
        vec![a, b]
    });
}

/// With `b` up to 2^-20 the absorption side is taken, by a re-executed test.
#[test]
fn absorption_side_is_covered_when_b_reaches_half_an_ulp() {
    let module = fixture("absorption.c");
    let (func, spec, report) = explore_with(
        &module,
        "absorbs",
        &["a in [1, 2]", "b in [0x1p-149, 0x1p-20]"],
    );
    let (taken, status) = then_side(&module, func, &report, 0);
    let SideStatus::Covered {
        witness: Witness::Test(test),
    } = status
    else {
        panic!("{status:?}");
    };
    let trace = concrete_trace(&module, func, &spec, &report.tests[test]);
    assert!(trace.contains(&taken));
}

/// Behind `sin`, the absorption side needs the bit-precise backend with the call's
/// result abstracted to a value in [-1, 1]: proved, and never taken by 10^4 inputs
/// (`x` over wide magnitudes, `b` over its binades).
#[test]
fn absorption_behind_a_math_call_is_proved_with_the_result_abstracted() {
    use rand::Rng;
    let module = fixture("absorption.c");
    let (func, spec, report) =
        explore_with(&module, "absorbs_sine", &["b in [0x1p-1074, 0x1p-60]"]);
    assert_eq!(then_side(&module, func, &report, 1).1, BIT_PRECISE);
    proved_sides_never_taken(&module, func, &spec, &report, 191, |rng, _| {
        let x: f64 = rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-20..40));
        let b: f64 = rng.gen_range(1.0..2.0) * 2f64.powi(rng.gen_range(-1074..=-61));
        vec![x.to_bits(), b.to_bits()]
    });
}

/// `cover`'s fixture of open sides, explored: the absorption side proved bit-precise, the
/// side after two `pow` calls proved with their results uninterpreted, and no input of
/// 10^4 takes a side proved infeasible.
#[test]
fn sides_proved_through_uninterpreted_calls_are_never_taken() {
    use rand::Rng;
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/cover/open_sides.c");
    let module = fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default()).unwrap();
    let (func, spec, report) = explore_with(
        &module,
        "open_sides",
        &["a in [1, 2]", "b in [0x1p-149, 0x1p-30]"],
    );
    assert_eq!(then_side(&module, func, &report, 0).1, BIT_PRECISE);
    let (_, last) = then_side(&module, func, &report, 3);
    assert!(last.is_infeasible(), "{last:?}");
    proved_sides_never_taken(&module, func, &spec, &report, 1919, |rng, _| {
        let a = u64::from(rng.gen_range(1.0f32..=2.0).to_bits());
        let b = f32_binades(rng, -149..=-31);
        let x: f64 = rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-20..20));
        let y: f64 = rng.gen_range(-8.0..8.0);
        vec![a, b, x.to_bits(), y.to_bits()]
    });
}

/// `explore` on function `name` of `module` with the default configuration.
fn explored(module: &Module, name: &str) -> (Func, InputSpec, ExploreReport) {
    let func = module.func_by_name(name).unwrap();
    let spec = InputSpec::for_function(module, func, &[], &[]).unwrap();
    let config = ExploreConfig::default().with_engine(config());
    let report = explore(module, func, spec.clone(), &config, &budget(), |_| {}).unwrap();
    (func, spec, report)
}

/// What a program computes through the modelled floating-point environment, a C
/// library function or long double arithmetic depends on the inputs even where the
/// interpreter computes it outside the symbolic semantics: `explore` must not prove infeasible a side that an input takes
/// (it did, "exhaustive path exploration" after one run), and round-to-nearest results
/// keep their terms, so the solver still finds musl fmaf's halfway case.
#[test]
fn the_float_environment_and_libc_calls_are_no_proof() {
    let module = fixture("no_terms.c");
    let f32_bits = |x: f32| u64::from(x.to_bits());
    let cases: [(&str, Vec<Vec<u64>>); 4] = [
        (
            "halfway",
            vec![
                vec![f32_bits(0.0); 3],
                vec![
                    f32_bits(2.25),
                    f32_bits(f32::from_bits(0x201d_101c)),
                    f32_bits(f32::from_bits(0xf0)),
                ],
            ],
        ),
        (
            "inexact_product",
            vec![vec![1.0f64.to_bits()], vec![0.1f64.to_bits()]],
        ),
        (
            "round_trip",
            vec![vec![0.0f64.to_bits()], vec![1.5f64.to_bits()]],
        ),
        (
            "extended_square",
            vec![vec![0.0f64.to_bits()], vec![2.0f64.to_bits()]],
        ),
    ];
    for (name, witnesses) in cases {
        let (func, spec, report) = explored(&module, name);
        let status = |side: &Side| {
            report
                .sides
                .iter()
                .find(|s| s.side == *side)
                .map(|s| &s.status)
        };
        let mut taken = Vec::new();
        for bits in &witnesses {
            taken.extend(concrete_trace(&module, func, &spec, bits));
        }
        for side in &taken {
            assert!(
                !matches!(status(side), Some(SideStatus::Infeasible { .. })),
                "{name}: {} is taken by a witness but reported infeasible",
                module.side_name(*side)
            );
        }
        assert!(
            taken
                .iter()
                .any(|a| taken.iter().any(|b| a.site == b.site && a.arm != b.arm)),
            "{name}: the witnesses take the same sides"
        );
    }
    let (func, spec, report) = explored(&module, "halfway");
    let halfway_side = module
        .parse_side(&format!("{}:F", sites_of(&module, func)[0]))
        .unwrap();
    let found = report
        .sides
        .iter()
        .find(|s| s.side == halfway_side)
        .unwrap();
    let SideStatus::Covered {
        witness: Witness::Test(t),
    } = found.status
    else {
        panic!("the halfway case is not covered: {:?}", found.status)
    };
    assert!(concrete_trace(&module, func, &spec, &report.tests[t]).contains(&halfway_side));
}
