//! Differential tests of the concolic semantics: on random inputs over the C fixtures in
//! `tests/fixtures/explore/ops.c`, every term the semantics builds, evaluated with the
//! solver's exact evaluator at the run's input, equals the concrete value bit for bit
//! (self-check mode), the concrete half of every value equals the `Concrete` run, and
//! every instruction kind is exercised.

use fpforge_exec::{BranchTrace, Concrete, ExecConfig, Interpreter, Outcome};
use fpforge_explore::{CallPolicy, Concolic};
use fpforge_solve::eval::{eval_term, Model};
use fpforge_spec::{Arg, InputSpec};
use fpir::{FloatTy, Module, Type};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;

fn fixture(name: &str) -> Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/explore")
        .join(name);
    fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default()).expect("fixture compiles")
}

/// Random bits of type `ty`: special values, small numbers, wide magnitudes, raw bits.
fn random_bits(rng: &mut ChaCha8Rng, ty: Type) -> u64 {
    match ty {
        Type::Float(FloatTy::F64) => {
            let x: f64 = match rng.gen_range(0..6) {
                0 => [
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    2.0,
                    3.0,
                    f64::INFINITY,
                    f64::NAN,
                    1e300,
                    -2.5e9,
                    4.3e9,
                    1e19,
                    -1e19,
                ][rng.gen_range(0..13)],
                1 => rng.gen_range(-10.0..10.0),
                2 => rng.gen_range(-1e10..1e10),
                3 => f64::from_bits(rng.gen()),
                4 => (rng.gen_range(-100i32..100)) as f64,
                _ => rng.gen_range(-1e20..1e20),
            };
            x.to_bits()
        }
        Type::Float(FloatTy::F32) => {
            let x: f32 = match rng.gen_range(0..5) {
                0 => [
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    f32::INFINITY,
                    f32::NAN,
                    3e9,
                    -70000.0,
                    255.5,
                ][rng.gen_range(0..9)],
                1 => rng.gen_range(-10.0..10.0),
                2 => f32::from_bits(rng.gen()),
                3 => rng.gen_range(-300.0..300.0),
                _ => rng.gen_range(-1e12..1e12),
            };
            u64::from(x.to_bits())
        }
        Type::Int(w) => {
            let v: u64 = match rng.gen_range(0..3) {
                0 => rng.gen_range(0..8),
                1 => rng.gen::<i8>() as i64 as u64,
                _ => rng.gen(),
            };
            v & (Type::Int(w)).mask()
        }
        Type::Ptr => 0,
    }
}

#[test]
fn terms_evaluate_to_the_concrete_values() {
    let module = fixture("ops.c");
    let names = [
        "arith64",
        "arith32",
        "casts",
        "highword",
        "floatbits",
        "selects",
        "mathcalls",
        "integers",
        "arrays",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut checked_total = std::collections::HashMap::new();
    for name in names {
        let func = module.func_by_name(name).expect("function exists");
        let spec = if name == "arrays" {
            InputSpec::for_function(&module, func, &["v: f64[4]".parse().unwrap()], &[]).unwrap()
        } else {
            InputSpec::for_function(&module, func, &[], &[]).unwrap()
        };
        let sem = Concolic::new(&module, &spec, CallPolicy::Symbolic).with_self_check(true);
        let mut conc =
            Interpreter::new(&module, sem, BranchTrace::default(), ExecConfig::default()).unwrap();
        let mut plain = Interpreter::new(
            &module,
            Concrete,
            BranchTrace::default(),
            ExecConfig::default(),
        )
        .unwrap();
        for _ in 0..300 {
            let bits: Vec<u64> = spec
                .coords()
                .iter()
                .map(|c| random_bits(&mut rng, c.ty))
                .collect();
            let args: Vec<Arg> = spec.to_args(&bits);
            conc.observer_mut().clear();
            plain.observer_mut().clear();
            let a = conc.call(func, &args).unwrap();
            let b = plain.call(func, &args).unwrap();
            assert_eq!(
                conc.observer().events,
                plain.observer().events,
                "{name}: same branches"
            );
            match (a.outcome, b.outcome) {
                (Outcome::Returned(Some(v)), Outcome::Returned(Some(w))) => {
                    assert_eq!(v.bits, w, "{name}: concrete half equals Concrete");
                    if let Some(t) = v.term {
                        let sem = conc.semantics();
                        let model = Model {
                            values: spec
                                .coords()
                                .iter()
                                .zip(&bits)
                                .map(|(c, &b)| fpforge_explore::concolic::bits_value(c.ty, b))
                                .collect(),
                            ..Model::default()
                        };
                        let got = eval_term(sem.store(), t, &model)
                            .map(|v| fpforge_explore::concolic::value_bits(&v));
                        let ret = module.funcs[func].ret.unwrap();
                        let same = got == Some(w)
                            || (matches!(ret, Type::Float(_)) && {
                                let nan = |x: u64| match ret {
                                    Type::Float(FloatTy::F32) => f32::from_bits(x as u32).is_nan(),
                                    _ => f64::from_bits(x).is_nan(),
                                };
                                got.is_some_and(nan) && nan(w)
                            });
                        assert!(
                            same,
                            "{name}({bits:x?}): result term gives {got:x?}, concrete {w:#x}"
                        );
                    }
                }
                (x, y) => assert_eq!(format!("{x:?}"), format!("{y:?}"), "{name}: same outcome"),
            }
            // Every path entry's constraint holds at the input that took it.
            let sem = conc.semantics();
            let model = Model {
                values: spec
                    .coords()
                    .iter()
                    .zip(&bits)
                    .map(|(c, &b)| fpforge_explore::concolic::bits_value(c.ty, b))
                    .collect(),
                ..Model::default()
            };
            for e in sem.path() {
                if let Some(c) = e.constraint {
                    let v = eval_term(sem.store(), c, &model);
                    assert!(
                        v.is_some_and(|v| v.as_bool()),
                        "{name}: constraint of {:?} holds",
                        e.side.site
                    );
                }
            }
        }
        let sem = conc.semantics();
        assert!(
            sem.mismatches().is_empty(),
            "{name}: {:?}",
            &sem.mismatches()[..sem.mismatches().len().min(5)]
        );
        for (k, v) in sem.checked() {
            *checked_total.entry(*k).or_insert(0u64) += v;
        }
    }
    let mut kinds: Vec<_> = checked_total.keys().copied().collect();
    kinds.sort_unstable();
    for kind in [
        "fadd", "fsub", "fmul", "fdiv", "fneg", "fcmp", "icmp", "add", "sub", "mul", "sdiv",
        "srem", "udiv", "urem", "shl", "lshr", "ashr", "and", "or", "xor", "trunc", "zext", "sext",
        "fptrunc", "fpext", "fptosi", "fptoui", "sitofp", "uitofp", "load", "exp", "log", "sqrt",
        "fabs", "floor", "ceil", "trunc", "round", "rint", "atan", "sin", "cos", "tan", "fma",
        "bswap", "modf",
    ] {
        assert!(
            checked_total.contains_key(kind),
            "no `{kind}` term was checked (checked: {kinds:?})"
        );
    }
}

/// Instructions clang -O0 + mem2reg does not emit for the fixtures (`select`, `bitcast`,
/// min/max/abs intrinsics), driven directly through the semantics in self-check mode.
#[test]
fn direct_operations_agree() {
    use fpforge_exec::{InputSlot, Semantics};
    let module = fixture("ops.c");
    let func = module.func_by_name("integers").unwrap();
    let spec = InputSpec::for_function(&module, func, &[], &[]).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut sem = Concolic::new(&module, &spec, CallPolicy::Symbolic).with_self_check(true);
    for _ in 0..500 {
        sem.begin_run();
        let (a, b, c) = (
            random_bits(&mut rng, Type::I32),
            random_bits(&mut rng, Type::I32),
            random_bits(&mut rng, Type::I64),
        );
        let a = sem.input(InputSlot(0), Type::I32, a);
        let b = sem.input(InputSlot(1), Type::I32, b);
        let c = sem.input(InputSlot(2), Type::I64, c);
        let cond = sem.icmp(fpir::IntPred::Slt, Type::I32, &a, &b);
        let _ = sem.select(Type::I32, &cond, &a, &b);
        let k = sem.constant(Type::I32, 5);
        let _ = sem.select(Type::I32, &cond, &k, &b);
        let f = sem.bitcast(Type::I32, Type::F32, &a);
        let g = sem.bitcast(Type::I64, Type::F64, &c);
        let _ = sem.bitcast(Type::F32, Type::I32, &f);
        let back = sem.bitcast(Type::F64, Type::I64, &g);
        let fc = sem.fcmp(fpir::FloatPred::Ult, FloatTy::F32, &f, &f);
        let _ = sem.select(Type::F64, &fc, &g, &g);
        let _ = sem.smax(Type::I32, &a, &b);
        let _ = sem.smin(Type::I64, &c, &back);
        let _ = sem.umax(Type::I32, &a, &b);
        let _ = sem.umin(Type::I32, &a, &b);
        let _ = sem.abs(Type::I32, &a);
        let _ = sem.bswap(Type::I64, &c);
        for pred in fpir::FloatPred::ALL {
            let _ = sem.fcmp(pred, FloatTy::F64, &g, &g);
        }
    }
    assert!(
        sem.mismatches().is_empty(),
        "{:?}",
        &sem.mismatches()[..sem.mismatches().len().min(5)]
    );
    for kind in [
        "select", "bitcast", "smax", "smin", "umax", "umin", "abs", "bswap",
    ] {
        assert!(sem.checked().contains_key(kind), "{kind}");
    }
}
