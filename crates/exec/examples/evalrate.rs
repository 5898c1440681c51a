//! Evaluation rate of one function: lowers C sources, then calls `FUNC` `CALLS` times with a
//! [`BranchTrace`] observer cleared before every call, as coverage search does.
//!
//! ```sh
//! cargo run --release -p fpforge-exec --example evalrate -- FUNC CALLS FILE... [-- CLANG_FLAGS...]
//! ```
//!
//! Float parameters get deterministic pseudo-random values in [-0.75, 8) (the moderate
//! inputs of the musl speed benchmark); integer parameters get `EVALRATE_INT` (default 100).
//! Functions are compiled on their first call (`Compilation::Eager`, so every measured
//! call runs compiled); `EVALRATE_COMPILE=0` leaves the interpreter alone
//! (`Compilation::Off`).
//! The same `CALLS` prefix of inputs is used by every run, so machine instructions per call
//! are exact and free of noise on a loaded machine:
//!
//! ```sh
//! valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//!     target/release/examples/evalrate exp 1000 exp.c exp_data.c ... -- -I...
//! ```
//!
//! run with two values of `CALLS`; the difference of the instruction totals divided by the
//! difference of the calls is the cost of one call. The wall-clock rate printed is only
//! indicative when other jobs share the machine. It also prints how many calls ran as
//! native code: the others stopped (a trap, a C++ throw) and were replayed in the
//! interpreter, or call functions with landing pads, which stay interpreted.

use fpforge_exec::{BranchTrace, Compilation, Concrete, ExecConfig, Interpreter};
use fpforge_spec::Arg;
use fpir::{FloatTy, Type};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: evalrate FUNC CALLS FILE... [-- CLANG_FLAGS...]";
    let name = args.next().expect(usage);
    let calls: u64 = args.next().and_then(|n| n.parse().ok()).expect(usage);
    let mut files = Vec::new();
    let mut flags = Vec::new();
    let mut in_flags = false;
    for a in args {
        if a == "--" {
            in_flags = true;
        } else if in_flags {
            flags.push(a);
        } else {
            files.push(PathBuf::from(a));
        }
    }
    let mut opts = fpforge_lower::LoadOptions::default();
    opts.compiler_flags = flags;
    let module = fpforge_lower::load(&files, &opts).expect("sources lower");
    let fpir::FuncLookup::Found(func) = module.lookup_func(&name) else {
        panic!("no one function named `{name}`");
    };
    let int_value: u64 = std::env::var("EVALRATE_INT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let param_types: Vec<Type> = {
        let f = &module.funcs[func];
        f.params().iter().map(|&r| f.regs[r]).collect()
    };
    let mut it = Interpreter::new(
        &module,
        Concrete,
        BranchTrace::default(),
        ExecConfig::default().with_compile(
            if std::env::var("EVALRATE_COMPILE").as_deref() == Ok("0") {
                Compilation::Off
            } else {
                Compilation::Eager
            },
        ),
    )
    .expect("valid module");
    // xorshift64*: deterministic inputs, cheap enough not to blur the counts.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut unit = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut argv: Vec<Arg> = Vec::with_capacity(param_types.len());
    let (mut steps, mut events) = (0u64, 0usize);
    let start = Instant::now();
    for _ in 0..calls {
        argv.clear();
        for &ty in &param_types {
            let x = -0.75 + 8.75 * unit();
            argv.push(Arg::Scalar(match ty {
                Type::Float(FloatTy::F64) => x.to_bits(),
                Type::Float(FloatTy::F32) => u64::from((x as f32).to_bits()),
                _ => int_value,
            }));
        }
        it.observer_mut().clear();
        let run = it.call(func, &argv).expect("valid call");
        steps += run.steps;
        events += it.observer().events.len();
    }
    let secs = start.elapsed().as_secs_f64();
    let per_call = |x: f64| x / calls.max(1) as f64;
    println!(
        "{name}: {calls} calls, {:.1} steps/call, {:.1} branches/call, {:.1} ns/call, {:.3e} calls/s, {} ran compiled",
        per_call(steps as f64),
        per_call(events as f64),
        per_call(secs * 1e9),
        calls as f64 / secs,
        it.compiled_runs()
    );
}
