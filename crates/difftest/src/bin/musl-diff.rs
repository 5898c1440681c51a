//! `musl-diff`: runs musl's `src/math` through the interpreter and natively, then
//! measures interpreter speed against native `-O0` code. See `bench/musl/run.sh`.
//!
//! ```text
//! musl-diff --musl DIR [--inputs N] [--only f,g] [--rounding MODE] [--no-diff] [--no-bench] [--bench-secs S]
//! ```
//!
//! `--rounding downward|upward|zero` runs both sides in that mode: the interpreter's
//! runs start in it (`ExecConfig::rounding`, so they are interpreted, not compiled),
//! the native call is made with the host's `fesetround` set to it, and the native build
//! reads float constants at run time (`FloatConstants::ReadAtRunTime`: LLVM's code
//! generator would fold and rewrite them as if rounding were to nearest).

use anyhow::{bail, Context, Result};
use fpforge_difftest::bench::{bench_inputs, bench_interp, bench_native};
use fpforge_difftest::diff::{DiffConfig, Differ, FuncReport};
use fpforge_difftest::instrument::FloatConstants;
use fpforge_difftest::musl::{closure, FileScan, MuslTree};
use fpforge_difftest::native::{NativeConfig, NativeLib};
use fpforge_exec::Compilation;
use fpforge_lower::{compile_to_bitcode, lower_bitcode, LoadOptions};
use fpir::eval::RoundingMode;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

struct Args {
    musl: PathBuf,
    inputs: usize,
    only: Vec<String>,
    diff: bool,
    bench: bool,
    bench_secs: f64,
    rounding: RoundingMode,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        musl: PathBuf::new(),
        inputs: 2000,
        only: Vec::new(),
        diff: true,
        bench: true,
        bench_secs: 2.0,
        rounding: RoundingMode::Nearest,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--musl" => args.musl = PathBuf::from(value()?),
            "--inputs" => args.inputs = value()?.parse().context("--inputs")?,
            "--only" => args.only = value()?.split(',').map(str::to_string).collect(),
            "--bench-secs" => args.bench_secs = value()?.parse().context("--bench-secs")?,
            "--rounding" => {
                let name = value()?;
                args.rounding = RoundingMode::from_name(&name).with_context(|| {
                    format!("--rounding {name}: expected nearest, downward, upward or zero")
                })?;
            }
            "--quick" => {
                args.inputs = 300;
                args.bench_secs = 0.5;
            }
            "--no-diff" => args.diff = false,
            "--no-bench" => args.bench = false,
            "-h" | "--help" => {
                println!(
                    "musl-diff --musl DIR [--inputs N] [--only f,g] [--rounding MODE] [--quick] [--no-diff] [--no-bench] [--bench-secs S]"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other}"),
        }
    }
    if args.musl.as_os_str().is_empty() {
        bail!("--musl DIR is required (the unpacked musl source package)");
    }
    Ok(args)
}

/// One lowered and natively built unit: a musl file with everything it links with.
struct Unit {
    module: fpir::Module,
    native: NativeLib,
}

fn build_unit(
    scans: &[FileScan],
    index: usize,
    trace: bool,
    float_constants: FloatConstants,
) -> Result<Unit, String> {
    let files: Vec<PathBuf> = closure(scans, index)
        .into_iter()
        .map(|i| scans[i].bitcode.clone())
        .collect();
    let opts = LoadOptions::default();
    let bitcode = compile_to_bitcode(&files, &opts)
        .map_err(|e| format!("compile: {}", first_line(&e.to_string())))?;
    let module = lower_bitcode(bitcode.path())
        .map_err(|e| format!("lower: {}", first_line(&e.to_string())))?;
    let config = NativeConfig::default()
        .with_symbolic(true)
        .with_trace(trace)
        .with_float_constants(float_constants);
    let native = NativeLib::build(bitcode.path(), &config)
        .map_err(|e| format!("native: {}", first_line(&e.to_string())))?;
    if trace && native.sites() as usize != module.branch_sites.len() {
        return Err(format!(
            "site numbering: the instrumenter found {} branch sites, the lowering {}",
            native.sites(),
            module.branch_sites.len()
        ));
    }
    Ok(Unit { module, native })
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").chars().take(240).collect()
}

fn wanted(args: &Args, name: &str) -> bool {
    args.only.is_empty() || args.only.iter().any(|o| o == name)
}

fn run_diff(args: &Args, scans: &[FileScan]) -> Result<bool> {
    // jn/yn loop |n| times: fold integer arguments into a range that still crosses every
    // overflow and underflow threshold of scalbn/ldexp (|n| > 2098).
    // Every run compiled (a run that would trap is replayed in the interpreter), so the
    // table checks the code searches run once a function is hot.
    let mut config = DiffConfig::default()
        .with_inputs(args.inputs)
        .with_int_limit(2200);
    config.exec = config
        .exec
        .with_compile(Compilation::Eager)
        .with_rounding(args.rounding);
    let mut rows: Vec<(FuncReport, String)> = Vec::new();
    let mut long_double = 0usize;
    let mut skipped: Vec<String> = Vec::new();
    for (i, scan) in scans.iter().enumerate() {
        if scan.path.parent().is_some_and(|p| p.ends_with("fenv")) {
            continue;
        }
        let candidates: Vec<_> = scan
            .funcs
            .iter()
            .filter(|f| f.exported && wanted(args, &f.name))
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let runnable: Vec<_> = candidates
            .iter()
            .filter(|f| f.signature.is_some())
            .collect();
        for f in candidates.iter().filter(|f| f.signature.is_none()) {
            skipped.push(format!("{} ({})", f.name, f.llvm_signature));
        }
        if runnable.is_empty() {
            continue;
        }
        eprintln!("musl-diff: {}", scan.path.display());
        let constants = match args.rounding {
            RoundingMode::Nearest => FloatConstants::AsCompiled,
            _ => FloatConstants::ReadAtRunTime,
        };
        let unit = build_unit(scans, i, true, constants);
        if scan.long_double {
            long_double += runnable.len();
        }
        for f in runnable {
            let (report, note) = match &unit {
                Err(why) => (
                    FuncReport {
                        name: f.name.clone(),
                        signature: f.signature.clone(),
                        tried: 0,
                        mismatches: 0,
                        branch_events: 0,
                        compiled: 0,
                        examples: Vec::new(),
                        unsupported: Some(why.clone()),
                    },
                    String::new(),
                ),
                Ok(u) => {
                    let note = match u.module.func_by_name(&f.name) {
                        Some(func) => {
                            let missing = u.module.unresolved_from(func);
                            if missing.is_empty() {
                                String::new()
                            } else {
                                format!("unresolved: {}", missing.join(" "))
                            }
                        }
                        None => String::new(),
                    };
                    (
                        Differ::new(&u.module, &u.native).check(&f.name, &config),
                        note,
                    )
                }
            };
            eprintln!("{}", report.describe());
            rows.push((report, note));
        }
    }
    let root = format!("{}/", args.musl.display());
    println!("| function | signature | inputs | run compiled | mismatches | unsupported / notes |");
    println!("|---|---|---:|---:|---:|---|");
    let (mut ran, mut clean, mut inputs, mut bad, mut compiled) = (0, 0, 0, 0, 0);
    for (r, note) in &rows {
        let sig = r
            .signature
            .as_ref()
            .map_or(String::new(), ToString::to_string);
        let why = match (&r.unsupported, note.is_empty()) {
            (Some(w), _) => w.replace(&root, "").replace('|', "\\|"),
            (None, false) => note.clone(),
            (None, true) => String::new(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            r.name, sig, r.tried, r.compiled, r.mismatches, why
        );
        if r.unsupported.is_none() {
            ran += 1;
            inputs += r.tried;
            compiled += r.compiled;
            bad += r.mismatches;
            if r.mismatches == 0 {
                clean += 1;
            }
        }
    }
    println!();
    println!(
        "{} functions taking double/float/int/long double (or pointers to them as out-parameters): {ran} ran ({clean} with zero mismatches, {inputs} inputs of which {compiled} ran compiled, {bad} mismatching inputs), {} unsupported.",
        rows.len(),
        rows.len() - ran
    );
    println!(
        "{long_double} of them are in files defining a function with a long double (x86_fp80) parameter or result. Not run: {} with other argument types: {}.",
        skipped.len(),
        skipped.join(", ")
    );
    Ok(bad == 0 && ran == rows.len())
}

const BENCH_FUNCS: &[&str] = &["tanh", "exp", "log1p", "atan2", "fmod"];

/// Rounds per measurement; the best rate of each counts.
const BENCH_ROUNDS: usize = 3;

fn run_bench(args: &Args, tree: &MuslTree, scans: &[FileScan]) -> Result<()> {
    let secs = Duration::from_secs_f64(args.bench_secs);
    println!();
    println!(
        "| function | IR steps/call | fpforge + BranchTrace, compiled (calls/s) | interpreter alone (calls/s) | native clang -O0 from C (calls/s) | native from the same bitcode (calls/s) | same bitcode + trace hooks (calls/s) | slowdown vs clang -O0: fpforge | interpreter alone |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for name in BENCH_FUNCS.iter().filter(|n| wanted(args, n)) {
        let index = scans
            .iter()
            .position(|s| s.funcs.iter().any(|f| f.name == *name && f.exported))
            .with_context(|| format!("{name} not found in musl"))?;
        let plain = build_unit(scans, index, false, FloatConstants::AsCompiled)
            .map_err(anyhow::Error::msg)?;
        let traced = build_unit(scans, index, true, FloatConstants::AsCompiled)
            .map_err(anyhow::Error::msg)?;
        let sources: Vec<PathBuf> = closure(scans, index)
            .into_iter()
            .map(|i| scans[i].path.clone())
            .collect();
        let from_c = NativeLib::build_sources(
            &sources,
            &tree.flags,
            &NativeConfig::default()
                .with_symbolic(true)
                .with_trace(false),
        )?;
        let differ = Differ::new(&plain.module, &plain.native);
        let func = plain
            .module
            .func_by_name(name)
            .with_context(|| format!("{name} not lowered"))?;
        let (sig, specs) = differ.plan_for(func).map_err(anyhow::Error::msg)?;
        let inputs = bench_inputs(&specs, 4096, name);
        // The machine is shared: each rate is the best of BENCH_ROUNDS interleaved rounds.
        let native = |lib: &NativeLib| {
            bench_native(lib, name, &sig, &inputs, secs).map_err(anyhow::Error::msg)
        };
        let (mut compiled, mut interp, mut steps) = (0f64, 0f64, 0f64);
        let (mut c, mut same, mut hooked) = (0f64, 0f64, 0f64);
        for _ in 0..BENCH_ROUNDS {
            let (rate, s) = bench_interp(&plain.module, func, &inputs, secs, Compilation::Eager)
                .map_err(anyhow::Error::msg)?;
            compiled = compiled.max(rate);
            steps = s;
            let (rate, _) = bench_interp(&plain.module, func, &inputs, secs, Compilation::Off)
                .map_err(anyhow::Error::msg)?;
            interp = interp.max(rate);
            c = c.max(native(&from_c)?);
            same = same.max(native(&plain.native)?);
            hooked = hooked.max(native(&traced.native)?);
        }
        println!(
            "| {name} | {steps:.0} | {compiled:.3e} | {interp:.3e} | {c:.3e} | {same:.3e} | {hooked:.3e} | {:.1}x | {:.1}x |",
            c / compiled,
            c / interp
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(2),
        Err(e) => {
            eprintln!("musl-diff: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> Result<bool> {
    let args = parse_args()?;
    let build = tempfile::Builder::new().prefix("fpforge-musl").tempdir()?;
    let tree = MuslTree::prepare(&args.musl, build.path())?;
    eprintln!("musl-diff: scanning {}", tree.root.display());
    let scans = tree.scan()?;
    let mut ok = true;
    if args.diff {
        ok = run_diff(&args, &scans)?;
    }
    if args.bench {
        run_bench(&args, &tree, &scans)?;
    }
    Ok(ok)
}
