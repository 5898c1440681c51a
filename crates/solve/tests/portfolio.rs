//! The portfolio's answer does not depend on timing: the same script and seed give
//! the same output, byte for byte (answer, model and method), with one thread or two,
//! on an idle machine or under artificial load.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use fpforge_solve::{run_script, SolveConfig};

/// `a + b != a` for binary32 `a` in [1, 2] and `b` in (0, `bound`): unsat while every
/// `b` is absorbed, which labeling cannot exhaust.
fn bounded_absorption(bound: &str) -> String {
    format!(
        "(declare-const a Float32)
         (declare-const b Float32)
         (assert (fp.leq ((_ to_fp 8 24) RNE 1.0) a))
         (assert (fp.leq a ((_ to_fp 8 24) RNE 2.0)))
         (assert (fp.lt (_ +zero 8 24) b))
         (assert (fp.lt b ((_ to_fp 8 24) RNE {bound})))
         (assert (not (= (fp.add RNE a b) a)))"
    )
}

/// Scripts decided by each side of the portfolio: search, labeling, and the
/// bit-precise backend (sat and unsat), the last ones only after several rounds.
fn scripts() -> Vec<(&'static str, String)> {
    vec![
        (
            "absorption, sat by search",
            "(declare-const x Float32)
             (declare-const y Float32)
             (assert (fp.eq (fp.add RNE x y) x))
             (assert (not (fp.isZero y)))
             (assert (not (fp.isInfinite x)))"
                .to_string(),
        ),
        (
            "sqrt2, unsat by intervals",
            "(declare-const x Float32)
             (assert (fp.eq (fp.mul RNE x x) ((_ to_fp 8 24) RNE 2.0)))"
                .to_string(),
        ),
        (
            "bounded absorption, unsat by the bit-precise backend",
            bounded_absorption("0.000000001"),
        ),
        (
            "a rounding-mode variable",
            "(declare-const r RoundingMode)
             (declare-const x Float64)
             (assert (distinct r RNE))
             (assert (fp.eq (fp.mul r x x) ((_ to_fp 11 53) RNE 2.25)))"
                .to_string(),
        ),
        (
            "bounded absorption with one way out (b = 2^-24, a odd), sat by the bit-precise backend",
            bounded_absorption("0.00000005961"),
        ),
    ]
}

/// fpforge's output for `script` with its `check-sat`, model and method.
fn output(script: &str, jobs: usize) -> String {
    let cfg = SolveConfig::default()
        .with_timeout(Duration::from_secs(120))
        .with_method(true)
        .with_jobs(jobs);
    let mut out = Vec::new();
    run_script(
        &format!("{script}(check-sat)\n(get-model)\n"),
        &cfg,
        &mut out,
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

/// `threads` threads that spin until dropped.
struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    fn start(threads: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..threads)
            .map(|i| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = i as f64;
                    while !stop.load(Ordering::Relaxed) {
                        x = black_box(x.mul_add(1.000_000_1, 1e-9));
                    }
                })
            })
            .collect();
        Load { stop, threads }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            t.join().unwrap();
        }
    }
}

#[test]
fn the_output_is_the_same_for_any_jobs_and_any_load() {
    let mut methods = Vec::new();
    for (name, script) in scripts() {
        let alone = output(&script, 1);
        assert!(
            alone.starts_with("sat\n; sat") || alone.starts_with("unsat\n; unsat"),
            "{name}: {alone}"
        );
        methods.push(alone.lines().nth(1).unwrap().to_string());
        for load in [2, 0, 2] {
            let _load = Load::start(load);
            for jobs in [2, 1] {
                assert_eq!(
                    output(&script, jobs),
                    alone,
                    "{name}, --jobs {jobs}, load {load}"
                );
            }
        }
    }
    for method in [
        "sat (search)",
        "unsat (intervals)",
        "sat (bit-precise)",
        "unsat (bit-precise)",
    ] {
        assert!(
            methods.iter().any(|m| m.ends_with(method)),
            "no script decided by {method}: {methods:?}"
        );
    }
}
