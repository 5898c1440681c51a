//! The report of `fpforge run`: the call, its result or trap, the output arrays, the
//! branch decisions (folded into `(...)xN` groups by [`crate::trace`], every side taken
//! with how often, and the first [`LISTED_DECISIONS`] one by one) and the steps; as text
//! or JSON.

use crate::trace::{DecisionLog, Item};
use crate::values::{show, show_long_double, ShownValue};
use fpforge_exec::libc::errno_name;
use fpforge_exec::{EnvModel, FloatEnv};
use fpforge_exec::{Outcome, ProgramOutput, Run, Trap, TrapKind};
use fpforge_spec::Arg;
use fpir::eval::{Exceptions, RoundingMode};
use fpir::f80::F80;
use fpir::{BranchSite, Func, Module, ParamShape, Side};
use serde::Serialize;
use std::fmt::{self, Write};

/// Decisions the JSON report lists one by one (`branches`); `sides` and `trace` cover
/// the whole run.
pub const LISTED_DECISIONS: usize = 10_000;

/// Top-level items of the folded trace the report shows.
const SHOWN_TRACE_ITEMS: usize = 2_000;

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

/// A C++ exception that escaped the call: its type, and `what()` when known.
#[derive(Serialize)]
struct ThrownRow {
    #[serde(rename = "type")]
    type_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    what: Option<String>,
}

/// What one call did.
#[derive(Serialize)]
pub struct RunReport {
    function: String,
    arguments: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    returned: Option<ShownValue>,
    /// The fields of a struct returned by value, as a buffer of its element type.
    #[serde(skip_serializing_if = "Option::is_none")]
    returned_struct: Option<Vec<ShownValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trap: Option<String>,
    /// The C++ exception that escaped the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    throws: Option<ThrownRow>,
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
    /// What the program wrote to `stdout` (invalid UTF-8 replaced).
    stdout: String,
    /// What the program wrote to `stderr`.
    stderr: String,
    /// `errno` at the end, when nonzero.
    #[serde(skip_serializing_if = "Option::is_none")]
    errno: Option<i32>,
    /// The exit status: `main`'s return value or `exit`'s argument.
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_status: Option<i32>,
    /// The rounding mode the run started in (`nearest`, `downward`, `upward`, `zero`).
    rounding: &'static str,
    /// The floating-point exceptions raised by the end of the run (`FE_INEXACT`, ...),
    /// when the run kept them (a run not to nearest, or of a program using `<fenv.h>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    fp_exceptions: Option<Vec<&'static str>>,
}

impl RunReport {
    /// The report of `run`, the call of `func` on `call_args` (given as `arg_texts`),
    /// whose decisions `log` recorded.
    pub fn new(
        module: &Module,
        func: Func,
        arg_texts: &[String],
        call_args: &[Arg],
        run: &Run<u64>,
        log: &DecisionLog,
        output: &ProgramOutput,
    ) -> RunReport {
        let long_double_result = module.param_shapes.get(&(func, 0))
            == Some(&ParamShape::LongDouble)
            && module.funcs[func].sret_elem().is_some();
        let func = &module.funcs[func];
        let (returned, trap) = match &run.outcome {
            Outcome::Returned(_) if long_double_result => (
                run.arrays.first().map(|words| {
                    show_long_double(F80 {
                        sig: words.first().copied().unwrap_or(0),
                        se: words.get(1).copied().unwrap_or(0) as u16,
                    })
                }),
                None,
            ),
            Outcome::Returned(value) => (
                value.and_then(|bits| func.ret.map(|ty| show(ty, bits))),
                None,
            ),
            Outcome::Trapped(Trap {
                kind: TrapKind::Exit(_),
                ..
            }) => (None, None),
            Outcome::Trapped(trap) => (None, Some(describe_trap(module, trap))),
            Outcome::Threw(_) => (None, None),
        };
        let throws = match &run.outcome {
            Outcome::Threw(thrown) => Some(ThrownRow {
                type_name: thrown.type_name.clone(),
                what: thrown.what.clone(),
            }),
            _ => None,
        };
        let exit_status = match &run.outcome {
            Outcome::Trapped(Trap {
                kind: TrapKind::Exit(code),
                ..
            }) => Some(*code),
            Outcome::Returned(Some(bits)) if func.name == "main" => Some(*bits as u32 as i32),
            _ => None,
        };
        let array_params = call_args.iter().enumerate().filter_map(|(i, a)| match a {
            Arg::Array { elem, .. } => Some((i, *elem)),
            Arg::Scalar(_) | Arg::Block { .. } | Arg::Vector { .. } => None,
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
        let returned_struct = match (&run.outcome, func.sret_elem()) {
            (Outcome::Returned(_), Some(_)) if long_double_result && !arrays.is_empty() => {
                arrays.remove(0);
                None
            }
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
            // A C++ function by its signature; a Fortran routine by its name.
            function: if func.name.starts_with("_Z") {
                func.display_name().to_string()
            } else {
                func.plain_name().to_string()
            },
            arguments: arg_texts.to_vec(),
            returned,
            returned_struct,
            trap,
            throws,
            arrays,
            decisions: log.total(),
            trace: trace_text(module, log),
            sides,
            branches,
            steps: run.steps,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            errno: (output.errno != 0).then_some(output.errno),
            exit_status,
            rounding: RoundingMode::Nearest.name(),
            fp_exceptions: None,
        }
    }

    /// The report with the rounding mode the run started in and, when the run kept
    /// them, the exceptions it raised.
    pub fn with_float_env(mut self, env: &FloatEnv) -> RunReport {
        self.rounding = env.start().name();
        if env.model() == EnvModel::Exact {
            let raised = env.raised();
            let names = [
                (Exceptions::INVALID, "FE_INVALID"),
                (Exceptions::DIVBYZERO, "FE_DIVBYZERO"),
                (Exceptions::OVERFLOW, "FE_OVERFLOW"),
                (Exceptions::UNDERFLOW, "FE_UNDERFLOW"),
                (Exceptions::INEXACT, "FE_INEXACT"),
            ];
            let shown = names.iter().filter(|(e, _)| raised.contains(*e));
            self.fp_exceptions = Some(shown.map(|&(_, name)| name).collect());
        }
        self
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
    let func = module
        .funcs
        .get(trap.func)
        .map_or("?", |f| f.display_name());
    format!(
        "{} in {func} at {}",
        trap.kind,
        module.describe_loc(trap.loc)
    )
}

impl RunReport {
    /// The report as JSON.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The report as text.
    pub fn to_text(&self) -> String {
        // Writing to a String cannot fail.
        self.text().unwrap_or_default()
    }

    /// True when the call trapped.
    pub fn trapped(&self) -> bool {
        self.trap.is_some()
    }

    fn text(&self) -> Result<String, fmt::Error> {
        let report = self;
        let mut out = String::new();
        let call = format!("{}({})", report.function, report.arguments.join(", "));
        match (&report.returned, &report.trap) {
            (_, Some(trap)) => writeln!(out, "{call} trapped: {trap}")?,
            (None, None) if report.throws.is_some() => {
                if let Some(thrown) = &report.throws {
                    match &thrown.what {
                        Some(what) => writeln!(out, "{call} throws {}: {what}", thrown.type_name)?,
                        None => writeln!(out, "{call} throws {}", thrown.type_name)?,
                    }
                }
            }
            (Some(v), None) if v.ty.starts_with('f') => {
                writeln!(out, "{call} = {}  ({} {})", v.exact, v.ty, v.decimal)?
            }
            (Some(v), None) => writeln!(out, "{call} = {}  ({} {})", v.decimal, v.ty, v.exact)?,
            (None, None) if report.exit_status.is_some() && report.returned_struct.is_none() => {
                writeln!(out, "{call} exited")?
            }
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
        if report.rounding != RoundingMode::Nearest.name() {
            writeln!(out, "rounding: {}", report.rounding)?;
        }
        if let Some(raised) = &report.fp_exceptions {
            let list = if raised.is_empty() {
                "none".to_string()
            } else {
                raised.join(" ")
            };
            writeln!(out, "fp exceptions: {list}")?;
        }
        if let Some(code) = report.exit_status {
            writeln!(out, "exit status: {code}")?;
        }
        if let Some(errno) = report.errno {
            match errno_name(errno) {
                Some(name) => writeln!(out, "errno: {errno} ({name})")?,
                None => writeln!(out, "errno: {errno}")?,
            }
        }
        for (name, text) in [("stdout", &report.stdout), ("stderr", &report.stderr)] {
            if !text.is_empty() {
                writeln!(out, "{name}:")?;
                out.push_str(text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }
}
