//! Each function's inputs, planned before its search: the user's specs, and for a
//! pointer parameter the user did not describe, a length fitted by probes; then a probe
//! of the planned inputs that says when nearly every run meets the same fault. Also the
//! seeds a run starts from, read from a file of input lines.

use crate::error::{DriverError, Result};
use crate::note::{Note, Notes};
use fpforge_engine::Settings;
use fpforge_exec::finding::{dominant_finding, DOMINANT_SHARE};
use fpforge_exec::{Concrete, ExecConfig, Interpreter, NoObserver, Outcome, Trap, TrapKind};
use fpforge_report::findings::every_run_traps;
use fpforge_spec::plan::InputPlan;
use fpforge_spec::{ArgSpec, InputSpec, OutArgSpec, ParamInput};
use fpir::{Func, Function, Module};
use std::path::Path;

/// How many inputs a probe runs.
const PROBE_RUNS: usize = 32;

/// The most steps a probe run takes (fewer when the engine's own fuel is smaller), so
/// that probing a function that loops for long costs little.
const PROBE_FUEL: u64 = 1_000_000;

/// The array lengths [`planned_inputs`] tries, in order, for pointer parameters that
/// every probe run overruns.
const FITTED_LENGTHS: [usize; 8] = [2, 4, 8, 16, 32, 64, 128, 256];

/// A function's input specs as the user gives them (`--arg`, `--out-arg`, or
/// fpforge.toml's `[function.NAME]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Specs {
    /// Parameter specs: shapes, ranges, fixed values.
    pub args: Vec<ArgSpec>,
    /// Output arrays.
    pub out_args: Vec<OutArgSpec>,
}

impl Specs {
    /// The specs by their `--arg` and `--out-arg` texts, in order, for a run's key.
    pub fn settings(&self) -> Settings {
        let Specs { args, out_args } = self;
        Settings::new()
            .with_each("args", args)
            .with_each("out_args", out_args)
    }

    /// The specs of a run over several functions that apply to `function`: those that
    /// name one of its parameters, so that a run-wide `--out-arg result` applies to the
    /// functions that have a `result`.
    pub fn for_function(&self, function: &Function) -> Specs {
        Specs {
            args: self
                .args
                .iter()
                .filter(|a| names_a_param(function, &a.name))
                .cloned()
                .collect(),
            out_args: self
                .out_args
                .iter()
                .filter(|o| names_a_param(function, &o.name))
                .cloned()
                .collect(),
        }
    }
}

/// Whether a spec's name (`x`, a 1-based position, a field path `p.mass`) names a
/// parameter of `function`.
fn names_a_param(function: &Function, name: &str) -> bool {
    let param = name.split(['.', '[']).next().unwrap_or(name);
    let count = function.param_types().len();
    let by_position = param
        .parse::<usize>()
        .is_ok_and(|k| (1..=count).contains(&k));
    by_position
        || function
            .param_names
            .iter()
            .any(|n| n.as_deref() == Some(param))
}

/// The inputs of a function planned from the user's specs, and the specs they came from.
pub struct Planned {
    /// The input plan.
    pub spec: InputSpec,
    /// The user's `--arg` specs plus one per pointer parameter whose length was fitted.
    pub args: Vec<ArgSpec>,
}

/// Runs `func` on 32 inputs of `spec` (special values, then random ones)
/// before a search and, when nearly every run meets the same finding, tells `notes` and
/// returns the line for the reports ([`every_run_traps`]).
pub fn probe(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    exec: ExecConfig,
    notes: Notes<'_>,
) -> Option<String> {
    let (points, exec) = probe_setup(module, func, spec, &exec)?;
    let dominant = dominant_finding(module, func, spec, exec, &points).ok()??;
    let line = every_run_traps(module, spec, &dominant);
    notes(Note::EveryRunTraps(line.clone()));
    Some(line)
}

/// The 32 probe inputs of `spec` (special values, then random ones) and the
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

/// Plans the inputs of `func` from `args` and `outs`. A pointer parameter without a spec
/// defaults to one element; when nearly every probe run then goes out of bounds, the
/// program's contract is evidently a longer array (`__rem_pio2(x, y)` fills `y[0]` and
/// `y[1]`), so those parameters get the shortest length of 2, 4, ..., 256 under
/// which the probes stop overrunning, and `notes` hears so. Then an integer parameter
/// that is such an array's length (`scaled_norm(const double *a, int n)`: the runs
/// overrun `a` when `n` exceeds its length, and not otherwise) is kept within it, the
/// array given at least 8 elements: a run past the length the caller
/// passes breaks the function's contract, not the function. A spec the user wrote is
/// never changed. A Fortran array argument declared with a length parameter (`X(N)`)
/// is paired with it from the declaration, without probes.
pub fn planned_inputs(
    module: &Module,
    func: Func,
    (args, outs): (&[ArgSpec], &[OutArgSpec]),
    exec: &ExecConfig,
    notes: Notes<'_>,
) -> Result<Planned> {
    let declared = declared_lengths(module, func, args, notes)?;
    let args = &declared[..];
    let fitted = fitted_pointers(module, func, (args, outs), exec, notes)?;
    with_length_params(module, func, (args, outs), fitted, exec, notes)
}

/// `args` with a spec for each Fortran array dummy argument whose one extent is another
/// parameter (`X(N)`), neither of them named by the user: the array gets
/// [`LENGTH_PAIRED`] elements and the length parameter a range within it, as
/// [`with_length_params`] does from probes, here from the declaration.
fn declared_lengths(
    module: &Module,
    func: Func,
    args: &[ArgSpec],
    notes: Notes<'_>,
) -> Result<Vec<ArgSpec>> {
    let f = &module.funcs[func];
    let name = |i: usize| {
        f.param_names
            .get(i)
            .cloned()
            .flatten()
            .unwrap_or_else(|| (i + 1).to_string())
    };
    let named = |i: usize| {
        let position = (i + 1).to_string();
        args.iter().any(|a| a.name == name(i) || a.name == position)
    };
    let mut texts: Vec<String> = Vec::new();
    let mut paired = Vec::new();
    for (&(owner, i), shape) in module.param_shapes.range((func, 0)..=(func, usize::MAX)) {
        debug_assert_eq!(owner, func);
        let fpir::ParamShape::Array(extents) = shape else {
            continue;
        };
        let [fpir::Extent::Param(n)] = extents[..] else {
            continue;
        };
        let is_int = matches!(f.param_pointees.get(n), Some(Some(fpir::Type::Int(_))));
        if !is_int || named(i) || named(n) || paired.contains(&n) {
            continue;
        }
        let elem = f
            .param_pointees
            .get(i)
            .copied()
            .flatten()
            .unwrap_or(fpir::Type::F64);
        texts.push(format!("{}: {elem}[{LENGTH_PAIRED}]", name(i)));
        texts.push(format!("{} in [0, {LENGTH_PAIRED}]", name(n)));
        paired.push(n);
    }
    let mut specs = args.to_vec();
    if texts.is_empty() {
        return Ok(specs);
    }
    for text in &texts {
        specs.push(text.parse()?);
    }
    notes(Note::DeclaredLengths {
        function: f.plain_name().to_string(),
        specs: texts,
    });
    Ok(specs)
}

/// The inputs with default pointer parameters fitted (see [`planned_inputs`]).
fn fitted_pointers(
    module: &Module,
    func: Func,
    (args, outs): (&[ArgSpec], &[OutArgSpec]),
    exec: &ExecConfig,
    notes: Notes<'_>,
) -> Result<Planned> {
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
            notes(Note::PointersFitted {
                function: module.funcs[func].name.clone(),
                specs: unplanned
                    .iter()
                    .map(|(name, elem)| format!("{name}: {elem}[{len}]"))
                    .collect(),
            });
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

/// The array length a pointer parameter gets when an integer parameter is its length.
const LENGTH_PAIRED: usize = 8;

/// `planned` with each integer parameter the user left unspecified that is the length
/// of an array parameter the user left unspecified kept within it (see
/// [`planned_inputs`]).
fn with_length_params(
    module: &Module,
    func: Func,
    (args, outs): (&[ArgSpec], &[OutArgSpec]),
    planned: Planned,
    exec: &ExecConfig,
    notes: Notes<'_>,
) -> Result<Planned> {
    let spec = &planned.spec;
    let named = |i: usize| {
        let position = (i + 1).to_string();
        args.iter()
            .any(|a| a.name == spec.param_name(i) || a.name == position)
    };
    let arrays: Vec<(usize, fpir::Type, usize)> = spec
        .params()
        .iter()
        .enumerate()
        .filter(|&(i, _)| !named(i))
        .filter_map(|(i, param)| match *param {
            ParamInput::Pointee { ty, .. } => Some((i, ty, 1)),
            ParamInput::Array { elem, len, .. } => Some((i, elem, len)),
            _ => None,
        })
        .collect();
    let counts: Vec<usize> = spec
        .params()
        .iter()
        .enumerate()
        .filter(|&(i, param)| {
            !named(i)
                && matches!(
                    param,
                    ParamInput::Scalar {
                        ty: fpir::Type::Int(_),
                        ..
                    }
                )
        })
        .map(|(i, _)| i)
        .collect();
    let mut pairs = Vec::new();
    for &(array, elem, len) in &arrays {
        let paired = counts
            .iter()
            .copied()
            .filter(|n| !pairs.iter().any(|&(_, m, _, _)| m == *n))
            .find(|&n| is_length_of(module, func, spec, (n, len), exec));
        if let Some(n) = paired {
            pairs.push((array, n, elem, len.max(LENGTH_PAIRED)));
        }
    }
    if pairs.is_empty() {
        return Ok(planned);
    }
    let mut specs: Vec<ArgSpec> = planned
        .args
        .iter()
        .filter(|a| !pairs.iter().any(|&(p, ..)| a.name == spec.param_name(p)))
        .cloned()
        .collect();
    let mut texts = Vec::new();
    for &(array, n, elem, len) in &pairs {
        let (array, n) = (spec.param_name(array), spec.param_name(n));
        texts.push(format!("{array}: {elem}[{len}]"));
        texts.push(format!("{n} in [0, {len}]"));
    }
    for text in &texts {
        specs.push(text.parse()?);
    }
    notes(Note::LengthParameters {
        function: module.funcs[func].name.clone(),
        specs: texts,
    });
    Ok(Planned {
        spec: InputSpec::for_function(module, func, &specs, outs)?,
        args: specs,
    })
}

/// Whether integer parameter `n` is the length of an array of `len` elements: with `n`
/// set to `len + 1`, most probe runs go out of bounds; with `n = len`, few do.
fn is_length_of(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    (n, len): (usize, usize),
    exec: &ExecConfig,
) -> bool {
    let Some(coord) = spec.coords().iter().position(|c| c.param == n) else {
        return false;
    };
    let Some((points, exec)) = probe_setup(module, func, spec, exec) else {
        return false;
    };
    let overruns = |count: usize| {
        let with_count: Vec<Vec<u64>> = points
            .iter()
            .map(|p| {
                let mut p = p.clone();
                p[coord] = count as u64;
                p
            })
            .collect();
        count_out_of_bounds(module, func, spec, &with_count, &exec)
    };
    let (past, within) = (overruns(len + 1), overruns(len));
    past * 4 >= points.len() * 3 && within * 4 <= points.len()
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
    let overruns = count_out_of_bounds(module, func, spec, &points, &exec);
    let (share, of) = DOMINANT_SHARE;
    !points.is_empty() && overruns * of >= points.len() * share
}

/// How many runs of `func` on `points` end out of bounds.
fn count_out_of_bounds(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    points: &[Vec<u64>],
    exec: &ExecConfig,
) -> usize {
    let Ok(mut interp) = Interpreter::new(module, Concrete, NoObserver, exec.clone()) else {
        return 0;
    };
    points
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
        .count()
}

/// The inputs of a file of input lines (`--seeds`, a saved `inputs.txt`) for `spec`;
/// none when `path` is `None`.
pub fn read_seeds(path: Option<&Path>, spec: &InputSpec) -> Result<Vec<Vec<u64>>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path).map_err(|e| DriverError::io("read", path, e))?;
    parse_seeds(&text, path, spec)
}

/// The argument lines of `text` (read from `origin`, which errors name as `FILE:LINE`)
/// as coordinate bits of `spec`; blank lines and `#` comments skipped.
pub fn parse_seeds(text: &str, origin: &Path, spec: &InputSpec) -> Result<Vec<Vec<u64>>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(i, line)| {
            spec.parse_line(line.trim())
                .map_err(|e| DriverError::Invalid(format!("{}:{}: {e}", origin.display(), i + 1)))
        })
        .collect()
}
