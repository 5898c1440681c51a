//! `fpforge run`: execute a function on given arguments with the concrete interpreter and
//! report its result, the output arrays, the branch sites taken and any trap. The branch
//! decisions print folded into `(...)xN` groups, and JSON lists the first
//! [`LISTED_DECISIONS`] one by one, so a loop that runs until the fuel is gone prints a
//! few lines, not millions.

use crate::inputs::{split_items, Loaded, ProgramArgs};
use crate::trace::{DecisionLog, Item};
use crate::values::{parse_arg, show, ShownValue};
use crate::EXIT_TRAPPED;
use anyhow::{bail, Context, Result};
use clap::Args;
use fpforge_exec::{Arg, Compilation, Concrete, ExecConfig, Interpreter, Outcome, Trap};
use fpir::{BranchSite, Function, Module, Side, Type};
use serde::Serialize;
use std::fmt::{self, Write};
use std::process::ExitCode;

/// Decisions the JSON report lists one by one (`branches`); `sides` and `trace` cover
/// the whole run.
const LISTED_DECISIONS: usize = 10_000;

/// Top-level items of the folded trace the report shows.
const SHOWN_TRACE_ITEMS: usize = 2_000;

/// Name lowering gives the hidden first parameter that receives a struct returned by value.
const SRET_PARAM: &str = ".sret";

/// Clang returns aggregates of at most 16 bytes in registers (lowered to `.sret`); larger
/// ones already are an ordinary result-pointer parameter.
const SRET_BYTES: u32 = 16;

/// The element type of the hidden struct-result parameter, when the function has one.
fn sret_elem(func: &Function) -> Option<Type> {
    let first = func.param_names.first()?.as_deref();
    (first == Some(SRET_PARAM)).then(|| func.param_pointees[0].unwrap_or(Type::I64))
}

/// Flags of `fpforge run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories, then the function's arguments:
    /// floats (`1.5`, `0x1.8p+1`, `-inf`, `nan`, `raw:7ff8000000000001`), integers,
    /// arrays for pointer parameters (`[1.5, 0x1p-3]`). Negative decimal numbers work
    /// as they are; put `--` before other arguments that start with `-` (`-inf`, `-0x1p-3`).
    #[arg(required = true, allow_negative_numbers = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// Instruction budget; running out is reported as a trap.
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct BranchRow {
    site: String,
    outcome: String,
    location: String,
}

#[derive(Serialize)]
struct SideRow {
    site: String,
    outcome: String,
    location: String,
    count: u64,
}

#[derive(Serialize)]
struct ArrayRow {
    parameter: String,
    values: Vec<ShownValue>,
}

#[derive(Serialize)]
struct RunReport {
    function: String,
    arguments: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    returned: Option<ShownValue>,
    /// The fields of a struct returned by value, as a buffer of its element type.
    #[serde(skip_serializing_if = "Option::is_none")]
    returned_struct: Option<Vec<ShownValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trap: Option<String>,
    arrays: Vec<ArrayRow>,
    /// Number of branch decisions in the run.
    decisions: u64,
    /// The decisions, folded into `(...)xN` groups (cut after [`SHOWN_TRACE_ITEMS`] items
    /// or when the log stopped storing, saying how many decisions it leaves out).
    trace: String,
    /// Every side taken, in first-taken order, with how often.
    sides: Vec<SideRow>,
    /// The first [`LISTED_DECISIONS`] decisions, one by one.
    branches: Vec<BranchRow>,
    steps: u64,
}

/// Runs `fpforge run`.
pub fn run(args: RunArgs) -> Result<ExitCode> {
    let (paths, arg_texts) = split_items(&args.items)?;
    let loaded = args.program.load(&paths)?;
    let call_args = parse_call_args(&loaded, &arg_texts)?;
    // One call: compiling it to native code would cost more than it saves.
    let mut config = ExecConfig::default().with_compile(Compilation::Off);
    if let Some(fuel) = args.fuel {
        config = config.with_fuel(fuel);
    }
    let mut interp = Interpreter::new(&loaded.module, Concrete, DecisionLog::default(), config)?;
    let run = interp.call(loaded.func, &call_args)?;
    let report = build_report(&loaded, &arg_texts, &call_args, &run, interp.observer());
    if args.json {
        crate::output::emit(&(serde_json::to_string_pretty(&report)? + "\n"))?;
    } else {
        crate::output::emit(&print_text(&report)?)?;
    }
    Ok(if report.trap.is_some() {
        ExitCode::from(EXIT_TRAPPED)
    } else {
        ExitCode::SUCCESS
    })
}

fn parse_call_args(loaded: &Loaded, texts: &[String]) -> Result<Vec<Arg>> {
    let func = &loaded.module.funcs[loaded.func];
    let types = func.param_types();
    let hidden = sret_elem(func);
    let first_visible = usize::from(hidden.is_some());
    if texts.len() != types.len() - first_visible {
        bail!(
            "`{}` takes {} argument(s) ({}), {} given",
            func.name,
            types.len() - first_visible,
            signature(&loaded.module, loaded.func),
            texts.len()
        );
    }
    let result_buffer = hidden.map(|elem| Arg::Array {
        elem,
        values: vec![0; (SRET_BYTES / elem.bytes()) as usize],
    });
    let given = texts
        .iter()
        .zip(&types[first_visible..])
        .enumerate()
        .map(|(i, (text, &ty))| {
            let pointee = func
                .param_pointees
                .get(i + first_visible)
                .copied()
                .flatten();
            parse_arg(text, ty, pointee)
                .with_context(|| format!("argument {} of `{}`", i + 1, func.name))
        });
    result_buffer.into_iter().map(Ok).chain(given).collect()
}

/// `x: f64, a: ptr<f64>` for error messages.
fn signature(module: &Module, func: fpir::Func) -> String {
    let f = &module.funcs[func];
    let first_visible = usize::from(sret_elem(f).is_some());
    f.param_types()
        .iter()
        .enumerate()
        .skip(first_visible)
        .map(|(i, ty)| {
            let name = f
                .param_names
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("arg{}", i + 1));
            match f.param_pointees.get(i).copied().flatten() {
                Some(p) => format!("{name}: {p}*"),
                None => format!("{name}: {ty}"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn build_report(
    loaded: &Loaded,
    arg_texts: &[String],
    call_args: &[Arg],
    run: &fpforge_exec::Run<u64>,
    log: &DecisionLog,
) -> RunReport {
    let module = &loaded.module;
    let func = &module.funcs[loaded.func];
    let (returned, trap) = match &run.outcome {
        Outcome::Returned(value) => (
            value.and_then(|bits| func.ret.map(|ty| show(ty, bits))),
            None,
        ),
        Outcome::Trapped(trap) => (None, Some(describe_trap(module, trap))),
    };
    let array_params = call_args.iter().enumerate().filter_map(|(i, a)| match a {
        Arg::Array { elem, .. } => Some((i, *elem)),
        Arg::Scalar(_) => None,
    });
    let mut arrays: Vec<ArrayRow> = array_params
        .zip(&run.arrays)
        .map(|((i, elem), values)| ArrayRow {
            parameter: func
                .param_names
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("arg{}", i + 1)),
            values: values.iter().map(|&bits| show(elem, bits)).collect(),
        })
        .collect();
    let returned_struct = match (&run.outcome, sret_elem(func)) {
        (Outcome::Returned(_), Some(_)) if !arrays.is_empty() => Some(arrays.remove(0).values),
        _ => None,
    };
    let location = |site: BranchSite| module.describe_loc(module.branch_sites[site].loc);
    let branches = log
        .decisions()
        .take(LISTED_DECISIONS)
        .map(|side| BranchRow {
            site: side.site.to_string(),
            outcome: module.arm_name(side.site, side.arm),
            location: location(side.site),
        })
        .collect();
    let sides = log
        .sides()
        .into_iter()
        .map(|(side, count)| SideRow {
            site: side.site.to_string(),
            outcome: module.arm_name(side.site, side.arm),
            location: location(side.site),
            count,
        })
        .collect();
    RunReport {
        function: func.name.clone(),
        arguments: arg_texts.to_vec(),
        returned,
        returned_struct,
        trap,
        arrays,
        decisions: log.total(),
        trace: trace_text(module, log),
        sides,
        branches,
        steps: run.steps,
    }
}

/// The folded decisions, `br0:F (br2:T br3:F)x3 br2:F`, cut after [`SHOWN_TRACE_ITEMS`]
/// items with a count of the decisions left out.
fn trace_text(module: &Module, log: &DecisionLog) -> String {
    let show = |&side: &Side| module.side_name(side);
    let folded = log.folded();
    let mut text = String::new();
    for (k, item) in folded.iter().take(SHOWN_TRACE_ITEMS).enumerate() {
        if k > 0 {
            text.push(' ');
        }
        // Writing to a String cannot fail.
        let _ = item.write(&mut text, &show);
    }
    let left_out = log.omitted()
        + folded
            .iter()
            .skip(SHOWN_TRACE_ITEMS)
            .map(Item::expanded_len)
            .sum::<u64>();
    if left_out > 0 {
        text.push_str(&format!(" ... and {left_out} more"));
    }
    text
}

/// `out-of-bounds access of 8 bytes at 0x... in lookup at file.c:6:12`.
fn describe_trap(module: &Module, trap: &Trap) -> String {
    let func = module.funcs.get(trap.func).map_or("?", |f| f.name.as_str());
    format!(
        "{} in {func} at {}",
        trap.kind,
        module.describe_loc(trap.loc)
    )
}

fn print_text(report: &RunReport) -> Result<String, fmt::Error> {
    let mut out = String::new();
    let call = format!("{}({})", report.function, report.arguments.join(", "));
    match (&report.returned, &report.trap) {
        (_, Some(trap)) => writeln!(out, "{call} trapped: {trap}")?,
        (Some(v), None) if v.ty.starts_with('f') => {
            writeln!(out, "{call} = {}  ({} {})", v.exact, v.ty, v.decimal)?
        }
        (Some(v), None) => writeln!(out, "{call} = {}  ({} {})", v.decimal, v.ty, v.exact)?,
        (None, None) => match &report.returned_struct {
            Some(fields) => {
                let items: Vec<&str> = fields.iter().map(|v| v.exact.as_str()).collect();
                writeln!(
                    out,
                    "{call} = {{{}}}  (struct result buffer)",
                    items.join(", ")
                )?
            }
            None => writeln!(out, "{call} returned")?,
        },
    }
    for array in &report.arrays {
        let items: Vec<&str> = array.values.iter().map(|v| v.exact.as_str()).collect();
        writeln!(out, "  {} = [{}]", array.parameter, items.join(", "))?;
    }
    writeln!(out, "branches ({}): {}", report.decisions, report.trace)?;
    let mut sites: Vec<(&str, &str, Vec<String>)> = Vec::new();
    for side in &report.sides {
        let count = format!("{} {}", side.outcome, side.count);
        match sites.iter_mut().find(|(site, _, _)| *site == side.site) {
            Some((_, _, counts)) => counts.push(count),
            None => sites.push((&side.site, &side.location, vec![count])),
        }
    }
    let width = sites.iter().map(|(_, loc, _)| loc.len()).max().unwrap_or(0);
    for (site, location, counts) in sites {
        writeln!(out, "  {site:<6} {location:<width$}  {}", counts.join(", "))?;
    }
    writeln!(out, "steps: {}", report.steps)?;
    Ok(out)
}
