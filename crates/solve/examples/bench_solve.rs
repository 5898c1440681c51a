//! Runs SMT-LIB files through every fpforge strategy and through Z3 (the
//! system libz3), printing one tab-separated line per (file, solver):
//! `file  solver  status  seconds`. Used by `bench/solve/run.py`.
//!
//! `cargo run --release -p fpforge-solve --example bench_solve -- [--timeout S]
//! [--search-timeout S] FILE...` (the second limit applies to the search-only
//! strategies, which can never answer `unsat`).

use std::time::{Duration, Instant};

use fpforge_solve::{run_script, SolveConfig, Strategy};
use z3::{Config, Context, Params, SatResult, Solver};

fn main() {
    let mut timeout = Duration::from_secs(60);
    let mut search_timeout = None;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--timeout" || a == "--search-timeout" {
            let s: f64 = args
                .next()
                .and_then(|v| v.parse().ok())
                .expect("--timeout needs seconds");
            if a == "--timeout" {
                timeout = Duration::from_secs_f64(s);
            } else {
                search_timeout = Some(Duration::from_secs_f64(s));
            }
        } else {
            files.push(a);
        }
    }
    let z3_cfg = Config::new();
    let ctx = Context::new(&z3_cfg);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable file");
        let name = std::path::Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (label, strategy) in [
            ("fpforge-interval", Strategy::Interval),
            ("fpforge-avm", Strategy::Avm),
            ("fpforge-es", Strategy::Es),
            ("fpforge-random", Strategy::Random),
            ("fpforge-bit-precise", Strategy::BitPrecise),
            ("fpforge-portfolio", Strategy::Portfolio),
        ] {
            let limit = match strategy {
                Strategy::Avm | Strategy::Es | Strategy::Random => {
                    search_timeout.unwrap_or(timeout)
                }
                _ => timeout,
            };
            let cfg = SolveConfig::default()
                .with_strategy(strategy)
                .with_timeout(limit);
            let start = Instant::now();
            let status = match run_script(&text, &cfg, &mut std::io::sink()) {
                Ok(s) => s
                    .answers
                    .first()
                    .map_or("none".to_string(), |a| a.to_string()),
                Err(e) => format!("error({e})"),
            };
            println!(
                "{name}\t{label}\t{status}\t{:.3}",
                start.elapsed().as_secs_f64()
            );
        }
        if text.contains("fpext.") {
            // fpforge's extension operators are not SMT-LIB.
            println!("{name}\tz3\tunsupported\t0.000");
            continue;
        }
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with("(check-sat") && !l.starts_with("(exit"))
            .collect::<Vec<_>>()
            .join("\n");
        let solver = Solver::new(&ctx);
        let mut p = Params::new(&ctx);
        p.set_u32(
            "timeout",
            timeout.as_millis().min(u128::from(u32::MAX)) as u32,
        );
        solver.set_params(&p);
        let start = Instant::now();
        solver.from_string(body);
        let status = match solver.check() {
            SatResult::Sat => "sat",
            SatResult::Unsat => "unsat",
            SatResult::Unknown => "unknown",
        };
        println!("{name}\tz3\t{status}\t{:.3}", start.elapsed().as_secs_f64());
    }
}
