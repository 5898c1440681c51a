//! Crashes and hangs as users keep them: one file per finding in `OUT/crashes/` and
//! `OUT/hangs/` (numbered from 1 in the order found), made of `#` comment lines (what
//! happened, where, and the command that replays it) and one line in `inputs.txt`'s
//! format, so that
//!
//! ```sh
//! fpforge run SRC... [FLAGS] -f FUNC -- $(grep -v '^#' OUT/crashes/1.txt)
//! ```
//!
//! reproduces it (exit code 3) from the directory the run started in ([`crate::replay`]). The same findings are listed in `coverage.json`
//! (`findings`) and in the summary. [`every_run_traps`] is the one line that says when
//! nearly every input meets the same finding, with what `--arg` would let runs past it.

use crate::replay::Replay;
use fpforge_exec::finding::DominantFinding;
use fpforge_exec::{Finding, FindingKind, TrapKind};
use fpforge_spec::{FieldValue, InputSpec, ParamInput};
use fpir::{Func, Module, ParamShape, SrcLoc};
use serde::Serialize;
use std::path::Path;

/// Where a finding happened: the function, its location and the calls that led there.
struct Place {
    function: String,
    location: String,
    stack: Vec<String>,
}

impl Place {
    fn of(module: &Module, finding: &Finding) -> Place {
        let name = |f: Func| {
            module
                .funcs
                .get(f)
                .map_or_else(|| f.to_string(), |f| f.display_name().to_string())
        };
        let trap = &finding.trap;
        Place {
            function: name(trap.func),
            location: module.describe_loc(trap.loc),
            stack: trap
                .stack
                .iter()
                .map(|call| format!("{} at {}", name(call.func), module.describe_loc(call.loc)))
                .collect(),
        }
    }
}

/// `finding` in one line: the fault, its place and its call stack
/// (`integer division by zero in f at f.c:12:7 (called from g at g.c:3:1)`).
pub fn fault_line(module: &Module, finding: &Finding) -> String {
    let place = Place::of(module, finding);
    let mut text = format!(
        "{} in {} at {}",
        finding.trap.kind, place.function, place.location
    );
    if !place.stack.is_empty() {
        text += &format!(" (called from {})", place.stack.join(", called from "));
    }
    text
}

/// The directory of a kind of finding inside the output directory.
pub fn dir_name(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::Crash => "crashes",
        FindingKind::Hang => "hangs",
    }
}

/// One finding as reports list it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CrashRow {
    /// `crash` or `hang`.
    pub kind: &'static str,
    /// Its number among the findings of its kind, from 1.
    pub number: usize,
    /// The trap's message (`integer division by zero`, `fuel exhausted`, ...).
    pub trap: String,
    /// The function executing the faulting instruction.
    pub function: String,
    /// Its source location.
    pub location: String,
    /// The same location, for reports that place the finding in the source.
    #[serde(skip)]
    pub loc: Option<SrcLoc>,
    /// The calls that led there, innermost first: `caller at file:line:col`.
    pub stack: Vec<String>,
    /// The finding's file, relative to the output directory (`crashes/1.txt`).
    pub file: String,
    /// The input, as `fpforge run` reads it.
    pub input: String,
    /// The command that replays it, as seen from the run's directory.
    pub replay: String,
    /// The same command reading the input from the finding's file.
    #[serde(skip)]
    pub replay_from_file: String,
}

impl CrashRow {
    /// The row of `finding`, the `number`-th of its kind (from 1), an input of `spec` of
    /// the entry function `func`; its file goes to the output directory `out_dir` (as
    /// seen from the run's directory).
    pub fn new(
        (module, func): (&Module, Func),
        spec: &InputSpec,
        finding: &Finding,
        number: usize,
        (replay, out_dir): (&Replay, &Path),
    ) -> Self {
        let file = format!("{}/{number}.txt", dir_name(finding.kind));
        let input = spec.line(&finding.coords);
        let place = Place::of(module, finding);
        CrashRow {
            kind: finding.kind.name(),
            number,
            trap: finding.trap.kind.to_string(),
            function: place.function,
            location: place.location,
            loc: finding.trap.loc,
            stack: place.stack,
            file: file.clone(),
            replay: replay.command(module, func, &input),
            replay_from_file: replay.command_from_file(module, func, &out_dir.join(&file)),
            input,
        }
    }

    /// The finding's file (see the module docs).
    pub fn file_text(&self) -> String {
        let stack: String = self
            .stack
            .iter()
            .map(|call| format!("#   called from {call}\n"))
            .collect();
        format!(
            "# {}: {} in {} at {}\n{stack}# replay: {}\n{}\n",
            self.kind, self.trap, self.function, self.location, self.replay_from_file, self.input
        )
    }

    /// The summary line: `crash 1: integer division by zero in f at f.c:12:7 (crashes/1.txt)`.
    pub fn summary_line(&self) -> String {
        format!(
            "{} {}: {} in {} at {} ({})",
            self.kind, self.number, self.trap, self.function, self.location, self.file
        )
    }
}

/// The line saying that (nearly) every run meets `dominant`: `every run traps:
/// out-of-bounds access ... at particle.c:12:9 (30 of 30 probe runs); give its length
/// with --arg 'x: f64[N]'`, the hint naming the parameters a memory fault may come from
/// (pointers to one element, structs), or the ranges that may avoid another fault.
pub fn every_run_traps(module: &Module, spec: &InputSpec, dominant: &DominantFinding) -> String {
    let trap = &dominant.finding.trap;
    let function = module
        .funcs
        .get(trap.func)
        .map_or_else(|| trap.func.to_string(), |f| f.display_name().to_string());
    let memory = matches!(
        trap.kind,
        TrapKind::OutOfBounds { .. } | TrapKind::ObjectOverrun { .. } | TrapKind::NullDeref { .. }
    );
    let mut hints = Vec::new();
    for (param, input) in spec.params().iter().enumerate() {
        let name = spec.param_name(param);
        match input {
            ParamInput::Pointee { ty, .. } if memory => {
                hints.push(format!("give its length with --arg '{name}: {ty}[N]'"));
            }
            ParamInput::Vector { elem, .. } if memory => {
                hints.push(format!(
                    "give its length with --arg '{name}: vector<{elem}>[N]'"
                ));
            }
            ParamInput::Struct { fields, .. } if memory => {
                let null = fields.iter().find(|f| f.value == FieldValue::Null);
                hints.push(match null {
                    Some(field) => format!(
                        "`{}` is a null pointer: call the function from a driver that builds `{name}`",
                        ParamShape::field_name(name, &field.path)
                    ),
                    None => format!("fix or restrict the fields of `{name}` with --arg ('{name}.n = 4')"),
                });
            }
            _ => {}
        }
    }
    if hints.is_empty() {
        hints.push("restrict the inputs with --arg 'NAME in [LO, HI]'".to_string());
    }
    format!(
        "every run traps: {} in {function} at {} ({} of {} probe runs); {}",
        trap.kind,
        module.describe_loc(trap.loc),
        dominant.met,
        dominant.runs,
        hints.join("; ")
    )
}
