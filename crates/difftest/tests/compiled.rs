//! Compiled runs against the interpreter: every exported function of the C corpus runs
//! with [`ExecConfig::compile`] on and off on the same generated inputs, and the runs
//! must agree exactly: outcome (returned bits, or the trap with its kind and location),
//! output arrays, step count, and every branch event with its operands. Each input also
//! runs with little fuel and at a small call depth, where a compiled run must stop and
//! hand the call to the interpreter, which reports the trap.

use fpforge_difftest::diff::{interpreter_args, DiffConfig, Differ};
use fpforge_difftest::inputs::InputGen;
use fpforge_difftest::instrument::FloatConstants;
use fpforge_difftest::native::{NativeConfig, NativeLib};
use fpforge_exec::{BranchEvent, Compilation, Concrete, ExecConfig, Interpreter, Observer, Run};
use fpforge_lower::{compile_to_bitcode, lower_bitcode, LoadOptions};
use fpforge_spec::Arg;
use fpir::eval::RoundingMode;
use fpir::{Func, Module};
use std::path::PathBuf;

/// Inputs per function.
const INPUTS: usize = 300;

/// Every branch event, operands included, without watching float operations (so runs
/// may be compiled).
#[derive(Default)]
struct Events(Vec<BranchEvent>);

impl Observer for Events {
    fn on_branch(&mut self, ev: &BranchEvent) {
        self.0.push(*ev);
    }
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus")
}

fn run(
    interp: &mut Interpreter<'_, Concrete, Events>,
    func: Func,
    args: &[Arg],
) -> (Run<u64>, Vec<BranchEvent>) {
    interp.observer_mut().0.clear();
    let run = interp.call(func, args).expect("a valid call");
    (run, std::mem::take(&mut interp.observer_mut().0))
}

/// Compares compiled and interpreted runs of the functions `names` of `file`; returns
/// the number of calls compared.
fn compare_file(
    file: &str,
    module: &Module,
    differ: &Differ<'_>,
    names: &[String],
    uncompiled: &mut Vec<String>,
) -> usize {
    let mut calls = 0;
    for name in names {
        let func = module
            .func_by_name(name)
            .expect("exported function is lowered");
        let Ok((_, specs)) = differ.plan_for(func) else {
            continue;
        };
        let mut gen = InputGen::new(specs.clone(), 7, name).with_int_limit(200);
        // Default limits, then limits some runs hit: little fuel, and a call depth of 2.
        let configs = [
            ExecConfig::default(),
            ExecConfig::default().with_fuel(5),
            ExecConfig::default().with_fuel(37),
            ExecConfig::default().with_max_depth(2),
        ];
        let mut pairs: Vec<_> = configs
            .iter()
            .map(|config| {
                let interp = |config: ExecConfig| {
                    Interpreter::new(module, Concrete, Events::default(), config)
                        .expect("valid module")
                };
                (
                    interp(config.clone().with_compile(Compilation::Eager)),
                    interp(config.clone().with_compile(Compilation::Off)),
                )
            })
            .collect();
        for _ in 0..INPUTS {
            let args = interpreter_args(&specs, &gen.next_args());
            for (compiled, interpreted) in &mut pairs {
                let want = run(interpreted, func, &args);
                let got = run(compiled, func, &args);
                assert_eq!(
                    got, want,
                    "{file}: {name}{args:?}: compiled and interpreted runs differ"
                );
                calls += 1;
            }
        }
        let compiled = pairs[0].0.compiled_runs();
        if compiled < INPUTS as u64 / 2 {
            uncompiled.push(format!("{name}: {compiled} of {INPUTS} runs compiled"));
        }
    }
    calls
}

/// Checks `file`; `expect_uncompiled` lists the functions whose default runs mostly
/// cannot run compiled, with their counts.
fn check(file: &str, expect_uncompiled: &[&str]) {
    let path = corpus_dir().join(file);
    let bitcode = compile_to_bitcode(&[path], &LoadOptions::default()).expect("corpus compiles");
    let module = lower_bitcode(bitcode.path()).expect("corpus lowers");
    let native = NativeLib::build(bitcode.path(), &NativeConfig::default()).expect("native build");
    let differ = Differ::new(&module, &native);
    let names: Vec<String> = native
        .funcs()
        .iter()
        .filter(|f| f.exported)
        .map(|f| f.name.clone())
        .collect();
    let mut uncompiled = Vec::new();
    let calls = compare_file(file, &module, &differ, &names, &mut uncompiled);
    assert!(
        calls >= names.len() * INPUTS,
        "{file}: only {calls} calls compared"
    );
    assert_eq!(
        uncompiled, expect_uncompiled,
        "{file}: functions whose runs mostly did not run compiled"
    );
}

#[test]
fn bits() {
    check("bits.c", &[]);
}

#[test]
fn tables() {
    check("tables.c", &[]);
}

#[test]
fn arrays() {
    check("arrays.c", &[]);
}

#[test]
fn mixed() {
    check("mixed.c", &[]);
}

#[test]
fn libm() {
    check("libm.c", &[]);
}

#[test]
fn structs() {
    check("structs.c", &[]);
}

#[test]
fn struct_return() {
    check("struct_return.c", &[]);
}

#[test]
fn misc() {
    check("misc.c", &["ms_fnptr: 0 of 300 runs compiled"]);
}

/// Deep recursion leaves native code for the interpreter, whose frames are on the heap:
/// the results (and the stack overflow past the depth limit) are the interpreter's.
#[test]
fn deep_recursion_falls_back_to_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("depth.c");
    std::fs::write(
        &path,
        "int depth(int n) { return n <= 0 ? 0 : 1 + depth(n - 1); }\n",
    )
    .unwrap();
    let bitcode = compile_to_bitcode(&[path], &LoadOptions::default()).unwrap();
    let module = lower_bitcode(bitcode.path()).unwrap();
    let func = module.func_by_name("depth").unwrap();
    let interp = |compile: Compilation| {
        let config = ExecConfig::default().with_compile(compile);
        Interpreter::new(&module, Concrete, Events::default(), config).unwrap()
    };
    let (mut compiled, mut interpreted) = (interp(Compilation::Eager), interp(Compilation::Off));
    // Only the shallow call completes compiled; the others are replayed.
    for (n, compiled_so_far) in [(150u64, 1), (20_000, 1), (100_000, 1)] {
        let args = [Arg::Scalar(n)];
        let got = run(&mut compiled, func, &args);
        assert_eq!(got, run(&mut interpreted, func, &args), "depth({n})");
        assert_eq!(compiled.compiled_runs(), compiled_so_far, "depth({n})");
    }
    let deepest = run(&mut compiled, func, &[Arg::Scalar(100_000)]).0;
    assert!(
        matches!(deepest.outcome, fpforge_exec::Outcome::Trapped(ref t) if t.kind == fpforge_exec::TrapKind::StackOverflow),
        "{deepest:?}"
    );
}

/// By default a function runs interpreted until it is hot, then compiled.
#[test]
fn default_compiles_hot_functions_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twice.c");
    std::fs::write(&path, "int twice(int n) { return n > 3 ? n + n : n; }\n").unwrap();
    let bitcode = compile_to_bitcode(&[path], &LoadOptions::default()).unwrap();
    let module = lower_bitcode(bitcode.path()).unwrap();
    let func = module.func_by_name("twice").unwrap();
    let mut interp =
        Interpreter::new(&module, Concrete, Events::default(), ExecConfig::default()).unwrap();
    let mut alone = Interpreter::new(
        &module,
        Concrete,
        Events::default(),
        ExecConfig::default().with_compile(Compilation::Off),
    )
    .unwrap();
    let mut calls = 0u64;
    while interp.compiled_runs() == 0 && calls < 1_000_000 {
        let args = [Arg::Scalar(calls % 8)];
        let got = run(&mut interp, func, &args);
        if calls < 100 {
            assert_eq!(got, run(&mut alone, func, &args));
            assert_eq!(interp.compiled_runs(), 0, "compiled after {calls} calls");
        }
        calls += 1;
    }
    assert!(
        (1_000..1_000_000).contains(&calls),
        "compiled after {calls} calls"
    );
    for n in 0..8 {
        let args = [Arg::Scalar(n)];
        assert_eq!(run(&mut interp, func, &args), run(&mut alone, func, &args));
    }
}

/// Runs started in a directed rounding mode stay in the interpreter (compiled code
/// rounds to nearest and keeps no flags), and agree with the native build called under
/// the same `fesetround`: every exported function of two corpus files, in each mode.
/// `third` shows that the mode reaches both sides: its interpreted result differs
/// between the modes, and the native one agrees in each. `tenth_off` (`1 - x * 0.1` in
/// long double) needs the native build to read its constants at run time: LLVM's x87
/// code generator computes `1 + x * -0.1`, which rounds otherwise in a directed mode.
#[test]
fn directed_rounding_runs_interpreted_and_agrees_with_native_code() {
    let dir = tempfile::tempdir().unwrap();
    let third = dir.path().join("third.c");
    std::fs::write(
        &third,
        "double third(double x) { return x / 3.0; }\n\
         long double tenth_off(long double x) { return 1.0L - x * 0.1L; }\n",
    )
    .unwrap();
    let mut thirds = Vec::new();
    for (sources, names) in [
        (vec![corpus_dir().join("libm.c")], None),
        (vec![corpus_dir().join("mixed.c")], None),
        (
            vec![third],
            Some(vec!["third".to_string(), "tenth_off".to_string()]),
        ),
    ] {
        let bitcode = compile_to_bitcode(&sources, &LoadOptions::default()).unwrap();
        let module = lower_bitcode(bitcode.path()).unwrap();
        let native_config =
            NativeConfig::default().with_float_constants(FloatConstants::ReadAtRunTime);
        let native = NativeLib::build(bitcode.path(), &native_config).unwrap();
        let differ = Differ::new(&module, &native);
        let names = names.unwrap_or_else(|| {
            let exported = native.funcs().iter().filter(|f| f.exported);
            exported.map(|f| f.name.clone()).collect()
        });
        for mode in RoundingMode::ALL {
            let mut config = DiffConfig::default().with_inputs(100);
            config.exec = config
                .exec
                .with_compile(Compilation::Eager)
                .with_rounding(mode);
            for name in &names {
                let report = differ.check(name, &config);
                if report.unsupported.is_some() {
                    continue;
                }
                assert_eq!(report.mismatches, 0, "{mode:?}: {}", report.describe());
                if mode != RoundingMode::Nearest {
                    assert_eq!(report.compiled, 0, "{mode:?} {name} ran compiled");
                }
            }
            if names.first().is_some_and(|n| n == "third") {
                let func = module.func_by_name("third").unwrap();
                let config = ExecConfig::default().with_rounding(mode);
                let mut interp = Interpreter::new(&module, Concrete, Events::default(), config)
                    .expect("valid module");
                thirds.push(
                    run(&mut interp, func, &[Arg::Scalar(1f64.to_bits())])
                        .0
                        .outcome,
                );
            }
        }
    }
    let one_third = |bits: u64| fpforge_exec::Outcome::Returned(Some(bits));
    assert_eq!(
        thirds,
        [
            one_third(0x3fd5_5555_5555_5555),
            one_third(0x3fd5_5555_5555_5555),
            one_third(0x3fd5_5555_5555_5556),
            one_third(0x3fd5_5555_5555_5555),
        ]
    );
}
