//! Evaluation-rate measurements: fpforge's concrete runs (with a branch observer) vs
//! native code.
//!
//! Both sides cycle through the same argument lists for a fixed wall-clock time and
//! report calls per second. fpforge runs with a `BranchTrace` observer cleared before
//! every call, which is what coverage search pays for each evaluation, compiled to
//! native code (the default) or in the interpreter alone.

use crate::dispatch::{self, AbiKind, Signature};
use crate::inputs::ParamSpec;
use crate::native::NativeLib;
use fpforge_exec::{BranchTrace, Compilation, Concrete, ExecConfig, Interpreter};
use fpforge_spec::Arg;
use fpir::{Func, Module};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// `n` scalar argument lists of moderate values (floats in [-0.75, 8), ints in [-20, 20]),
/// deterministic per function name: the inputs a search spends most of its time on.
pub fn bench_inputs(specs: &[ParamSpec], n: usize, name: &str) -> Vec<Vec<u64>> {
    let seed = name
        .bytes()
        .fold(0x0062_656e_6368_u64, |h, b| h.rotate_left(7) ^ u64::from(b));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            specs
                .iter()
                .map(|s| match s {
                    ParamSpec::Scalar(AbiKind::F64) => rng.gen_range(-0.75f64..8.0).to_bits(),
                    ParamSpec::Scalar(AbiKind::F32) => {
                        u64::from(rng.gen_range(-0.75f32..8.0).to_bits())
                    }
                    _ => u64::from(rng.gen_range(-20i32..=20) as u32),
                })
                .collect()
        })
        .collect()
}

/// Calls per second of `func` over `inputs` for about `time` through
/// `Interpreter::call` under `compile` (`Eager`: compiled to native code; `Off`: the
/// interpreter alone), and the mean number of IR instructions executed per call.
pub fn bench_interp(
    module: &Module,
    func: Func,
    inputs: &[Vec<u64>],
    time: Duration,
    compile: Compilation,
) -> Result<(f64, f64), String> {
    let mut interp = Interpreter::new(
        module,
        Concrete,
        BranchTrace::default(),
        ExecConfig::default().with_compile(compile),
    )
    .map_err(|e| e.to_string())?;
    let args: Vec<Vec<Arg>> = inputs
        .iter()
        .map(|a| a.iter().map(|&v| Arg::Scalar(v)).collect())
        .collect();
    if args.is_empty() {
        return Err("no inputs".to_string());
    }
    // The first call compiles the function; the rate is that of the calls after it.
    interp.call(func, &args[0]).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut calls: u64 = 0;
    let mut steps: u64 = 0;
    loop {
        for a in &args {
            interp.observer_mut().clear();
            let run = interp.call(func, a).map_err(|e| e.to_string())?;
            steps += run.steps;
            black_box(&run);
        }
        calls += args.len() as u64;
        if start.elapsed() >= time {
            break;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    Ok((calls as f64 / secs, steps as f64 / calls as f64))
}

/// Native calls per second of `name` over `inputs` for about `time` (trace buffers are
/// reset before every call when the library is instrumented).
pub fn bench_native(
    lib: &NativeLib,
    name: &str,
    sig: &Signature,
    inputs: &[Vec<u64>],
    time: Duration,
) -> Result<f64, String> {
    let ptr = lib.symbol(name).map_err(|e| e.to_string())?;
    if inputs.is_empty() {
        return Err("no inputs".to_string());
    }
    let unary = sig.params == [AbiKind::F64] && sig.ret == AbiKind::F64;
    let binary = sig.params == [AbiKind::F64, AbiKind::F64] && sig.ret == AbiKind::F64;
    let start = Instant::now();
    let mut calls: u64 = 0;
    loop {
        for a in inputs {
            lib.reset_trace();
            if unary {
                // SAFETY: the signature says (double) -> double.
                let f: extern "C" fn(f64) -> f64 = unsafe { std::mem::transmute(ptr) };
                black_box(f(f64::from_bits(a[0])));
            } else if binary {
                // SAFETY: the signature says (double, double) -> double.
                let f: extern "C" fn(f64, f64) -> f64 = unsafe { std::mem::transmute(ptr) };
                black_box(f(f64::from_bits(a[0]), f64::from_bits(a[1])));
            } else {
                // SAFETY: `sig` is the function's signature and no argument is a pointer.
                black_box(unsafe { dispatch::call(ptr, sig, a) }.map_err(|e| e.to_string())?);
            }
        }
        calls += inputs.len() as u64;
        if start.elapsed() >= time {
            break;
        }
    }
    Ok(calls as f64 / start.elapsed().as_secs_f64())
}
