//! One module per subcommand: parse its flags, call the libraries, print its report.

use crate::library::Searched;
use crate::options::{CiOptions, CoverageRunOptions, OutputOptions, Program};
use crate::progress::Verbosity;
use anyhow::{Context, Result};
use fpforge_exec::finding::dominant_finding;
use fpforge_exec::finding::DOMINANT_SHARE;
use fpforge_exec::ExecConfig;
use fpforge_exec::{Concrete, Interpreter, NoObserver, Outcome, Trap, TrapKind};
use fpforge_report::findings::every_run_traps;
use fpforge_report::Finished;
use fpforge_spec::plan::InputPlan;
use fpforge_spec::{ArgSpec, InputSpec, OutArgSpec, ParamInput, SpecError};
use fpir::{Func, Module};
use std::path::Path;
use std::process::ExitCode;

pub mod accuracy;
pub mod cover;
pub mod explore;
pub mod init;
pub mod ir;
pub mod list;
pub mod merge;
pub mod reach;
pub mod run;
pub mod sites;
pub mod solve;

/// How many inputs [`probe`] runs.
const PROBE_RUNS: usize = 32;

/// The most steps a probe run takes (fewer when the engine's own fuel is smaller), so
/// that probing a function that loops for long costs little.
const PROBE_FUEL: u64 = 1_000_000;

/// Runs `func` on [`PROBE_RUNS`] inputs of `spec` (special values, then random ones)
/// before a search and, when nearly every run meets the same finding, says so on stderr
/// at once and returns the line for the reports (`fpforge_report::findings::every_run_traps`).
fn probe(module: &Module, func: Func, spec: &InputSpec, exec: ExecConfig) -> Option<String> {
    let (points, exec) = probe_setup(module, func, spec, &exec)?;
    let dominant = dominant_finding(module, func, spec, exec, &points).ok()??;
    let line = every_run_traps(module, spec, &dominant);
    eprintln!("warning: {line}");
    Some(line)
}

/// The [`PROBE_RUNS`] probe inputs of `spec` (special values, then random ones) and the
/// interpreter limits of a probe run: at most [`PROBE_FUEL`] steps.
fn probe_setup(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    exec: &ExecConfig,
) -> Option<(Vec<Vec<u64>>, ExecConfig)> {
    let funcs = module.reachable_funcs(func);
    let plan = InputPlan::new(module, func, &funcs, spec.clone()).ok()?;
    let exec = exec.clone().with_fuel(exec.fuel.min(PROBE_FUEL));
    Some((plan.probe_points(0, PROBE_RUNS), exec))
}

/// The array lengths [`planned_inputs`] tries, in order, for pointer parameters that
/// every probe run overruns.
const FITTED_LENGTHS: [usize; 8] = [2, 4, 8, 16, 32, 64, 128, 256];

/// The inputs of `func` planned from the user's specs, and the specs they came from.
pub(crate) struct Planned {
    /// The input plan.
    pub spec: InputSpec,
    /// The user's `--arg` specs plus one per pointer parameter whose length was fitted.
    pub args: Vec<ArgSpec>,
}

/// Plans the inputs of `func` from `args` and `outs`. A pointer parameter without a spec
/// defaults to one element; when nearly every probe run then goes out of bounds, the
/// program's contract is evidently a longer array (`__rem_pio2(x, y)` fills `y[0]` and
/// `y[1]`), so those parameters get the shortest length of [`FITTED_LENGTHS`] under
/// which the probes stop overrunning, and a note on stderr says so. A spec the user
/// wrote is never changed.
pub(crate) fn planned_inputs(
    module: &Module,
    func: Func,
    args: &[ArgSpec],
    outs: &[OutArgSpec],
    exec: &ExecConfig,
) -> Result<Planned, SpecError> {
    let spec = InputSpec::for_function(module, func, args, outs)?;
    let unplanned = default_pointees(&spec, args);
    if unplanned.is_empty() || !mostly_out_of_bounds(module, func, &spec, exec) {
        return Ok(Planned {
            spec,
            args: args.to_vec(),
        });
    }
    for len in FITTED_LENGTHS {
        let mut fitted = args.to_vec();
        for (name, elem) in &unplanned {
            fitted.push(format!("{name}: {elem}[{len}]").parse()?);
        }
        let wider = InputSpec::for_function(module, func, &fitted, outs)?;
        if !mostly_out_of_bounds(module, func, &wider, exec) {
            let fitted_names: Vec<String> = unplanned
                .iter()
                .map(|(name, elem)| format!("`{name}: {elem}[{len}]`"))
                .collect();
            eprintln!(
                "note: {}: pointer parameters taken as {} (nearly every run with one element went out of bounds); set them with --arg",
                module.funcs[func].name,
                fitted_names.join(", ")
            );
            return Ok(Planned {
                spec: wider,
                args: fitted,
            });
        }
    }
    Ok(Planned {
        spec,
        args: args.to_vec(),
    })
}

/// The pointer parameters of `spec` planned by default as one element (no `--arg`
/// names them), with their element types.
fn default_pointees(spec: &InputSpec, args: &[ArgSpec]) -> Vec<(String, fpir::Type)> {
    spec.params()
        .iter()
        .enumerate()
        .filter_map(|(i, param)| {
            let ParamInput::Pointee { ty, .. } = param else {
                return None;
            };
            let name = spec.param_name(i);
            let position = (i + 1).to_string();
            let named = args.iter().any(|a| a.name == name || a.name == position);
            (!named).then(|| (name.to_string(), *ty))
        })
        .collect()
}

/// Whether nearly every probe run of `func` under `spec` ([`DOMINANT_SHARE`] of them)
/// ends out of bounds, wherever it goes out (`__rem_pio2` writes `y[1]` on each of its
/// paths, each a different finding).
fn mostly_out_of_bounds(module: &Module, func: Func, spec: &InputSpec, exec: &ExecConfig) -> bool {
    let Some((points, exec)) = probe_setup(module, func, spec, exec) else {
        return false;
    };
    let Ok(mut interp) = Interpreter::new(module, Concrete, NoObserver, exec) else {
        return false;
    };
    let overruns = points
        .iter()
        .filter(|coords| {
            let Ok(run) = interp.call(func, &spec.to_args(coords)) else {
                return false;
            };
            matches!(
                run.outcome,
                Outcome::Trapped(Trap {
                    kind: TrapKind::OutOfBounds { .. } | TrapKind::ObjectOverrun { .. },
                    ..
                })
            )
        })
        .count();
    let (share, of) = DOMINANT_SHARE;
    !points.is_empty() && overruns * of >= points.len() * share
}

/// The exit code of a finished `cover` or `explore` run: 130 when Ctrl-C stopped it, 3
/// when it found crashes or hangs, else 4 when its feasible coverage is below
/// `--fail-under`, else 0. A shortfall is said on stderr whatever the code, so a CI log
/// shows it.
fn coverage_exit_code(finished: &Finished, ci: &CiOptions, interrupted: bool) -> ExitCode {
    let below = ci
        .fail_under
        .filter(|&threshold| finished.feasible_percent < threshold);
    if let Some(threshold) = below {
        eprintln!(
            "error: feasible coverage {:.1}% is below --fail-under {threshold}",
            finished.feasible_percent
        );
    }
    crate::coverage_exit(below.is_some(), interrupted, finished.findings)
}

/// The end of a one-function `cover` or `explore` run of `func` (`deep`: every function it
/// reaches): prints the results, measures gcov when asked, and returns the exit code.
fn conclude(
    searched: &Searched,
    run: &CoverageRunOptions,
    program: &Program,
    target: (&Module, Func, bool),
) -> Result<ExitCode> {
    let (module, func, deep) = target;
    print_results(&searched.finished, &run.output, &run.out)?;
    if run.gcov && !searched.interrupted {
        let flags = &program.load.compiler_flags;
        let shown = run.output.verbosity == Verbosity::Normal && !run.output.json;
        crate::gcov::print_figure(module, func, deep, flags, &run.out, shown)?;
    }
    Ok(coverage_exit_code(
        &searched.finished,
        &run.ci,
        searched.interrupted,
    ))
}

/// Prints what a finished `cover` or `explore` run says on stdout: `coverage.json` (as
/// written in `out`) with `--json`, nothing with `--quiet`, else the summary.
fn print_results(finished: &Finished, output: &OutputOptions, out: &Path) -> Result<()> {
    if output.json {
        let path = out.join("coverage.json");
        let json = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        crate::output::emit(&json)?;
    } else if output.verbosity == Verbosity::Normal {
        crate::output::emit(&finished.text)?;
    }
    Ok(())
}
