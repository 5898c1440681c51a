//! Measures the Concrete interpreter with a branch-coverage observer on the workloads of
//! `tests/fixtures/exec/speed.c`; compare with `speed_native.c` built by clang-14 -O0.
//!
//! `cargo run --release -p fpforge-exec --example speed [loop|fib|arr|small|none]` (set
//! `SPEED_PRINT_IR=1` to print the IR)

use fpforge_exec::{BranchEvent, Concrete, ExecConfig, Interpreter, Observer};
use fpforge_spec::Arg;
use std::path::PathBuf;
use std::time::Instant;

/// Marks which (site, outcome) pairs were seen, as a coverage engine does.
#[derive(Default)]
struct Coverage {
    seen: Vec<[bool; 2]>,
}

impl Observer for Coverage {
    fn on_branch(&mut self, ev: &BranchEvent) {
        let i = ev.side.site.0 as usize;
        if i >= self.seen.len() {
            self.seen.resize(i + 1, [false; 2]);
        }
        match ev.side.arm {
            fpir::Arm::True => self.seen[i][1] = true,
            fpir::Arm::False => self.seen[i][0] = true,
            fpir::Arm::Case(_) | fpir::Arm::Default => {}
        }
    }
}

fn main() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/exec/speed.c");
    let module = fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default())
        .expect("speed.c lowers");
    if std::env::var_os("SPEED_PRINT_IR").is_some() {
        print!("{}", fpir::write_module(&module));
    }
    let mut it = Interpreter::new(
        &module,
        Concrete,
        Coverage::default(),
        ExecConfig::default().with_fuel(u64::MAX),
    )
    .expect("valid module");
    let f = |name: &str| module.func_by_name(name).expect("function exists");
    // `SPEED_SMALL=1` shrinks the workloads (for instruction counts under callgrind).
    let quick = std::env::var_os("SPEED_SMALL").is_some();
    let scale = if quick { 100 } else { 1 };
    let cases: [(&str, Vec<Arg>); 3] = [
        ("loop", vec![Arg::Scalar(10_000_000 / scale)]),
        ("fib", vec![Arg::Scalar(if quick { 20 } else { 30 })]),
        ("arr", vec![Arg::Scalar(100_000 / scale)]),
    ];
    let only = std::env::args().nth(1);
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    for (name, args) in cases {
        if !wanted(name) {
            continue;
        }
        let t = Instant::now();
        let run = it.call(f(name), &args).expect("valid call");
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{name:<10} {secs:.3} s  {:>11} steps  {:.2} ns/step  {:?}",
            run.steps,
            secs * 1e9 / run.steps as f64,
            run.outcome
        );
    }
    if !wanted("small") {
        return;
    }
    let small = f("small");
    let t = Instant::now();
    let mut steps = 0;
    for i in 0..1_000_000 / scale as u32 {
        let x = f64::from(i) * 1e-6 * scale as f64;
        let run = it
            .call(
                small,
                &[Arg::Scalar(x.to_bits()), Arg::Scalar(0.5f64.to_bits())],
            )
            .expect("valid call");
        steps += run.steps;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "small x1e6 {secs:.3} s  {steps:>11} steps  {:.1} ns/call",
        secs * 1e3
    );
}
