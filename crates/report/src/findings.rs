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
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Where a finding happened: the function, its location and the calls that led there.
struct FaultPlace {
    function: String,
    location: String,
    stack: Vec<String>,
}

impl FaultPlace {
    fn of(module: &Module, finding: &Finding) -> FaultPlace {
        let name = |f: Func| {
            module
                .funcs
                .get(f)
                .map_or_else(|| f.to_string(), |f| f.display_name().to_string())
        };
        let trap = &finding.trap;
        FaultPlace {
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

/// A finding's identity across runs, machines and releases: 16 hex digits hashing (FNV-1a,
/// 64 bits) its kind, the trap's class, the symbol and the file name, line and column of
/// the faulting instruction and of every call on its stack — the parts of the key that
/// deduplicates findings in a run ([`fpforge_exec::finding`]), without the directories
/// (which differ between checkouts) or anything of the input, seed or time. A hang, like
/// its key, keeps the functions only (its place is wherever the fuel ran out).
pub fn fingerprint(module: &Module, finding: &Finding) -> String {
    let place = |func: Func, loc: Option<SrcLoc>| {
        let symbol = module.funcs.get(func).map_or("?", |f| f.name.as_str());
        let at = match (finding.kind, loc) {
            (FindingKind::Crash | FindingKind::Undefined, Some(loc)) => {
                let path = module.files.get(loc.file).map_or("?", String::as_str);
                let name = Path::new(path)
                    .file_name()
                    .map_or(path.into(), |n| n.to_string_lossy());
                format!(" {name}:{}:{}", loc.line, loc.col)
            }
            _ => String::new(),
        };
        format!("{symbol}{at}")
    };
    let trap = &finding.trap;
    let mut text = format!(
        "fpforge-finding-v1\n{}\n{}\nat {}\n",
        finding.kind.name(),
        trap.kind.class(),
        place(trap.func, trap.loc)
    );
    for call in &trap.stack {
        text += &format!("from {}\n", place(call.func, call.loc));
    }
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// The fingerprint of a wrong value (`class`: `wrong special value`, `pole`, `large
/// error`) of the function with symbol `symbol` at its result `output` (`return`,
/// `result[0]`), the value being `value` (`NaN`, `+inf`, `-inf`, `zero`, `finite`) on
/// arguments of the signs `signs` (`+-0`, one per coordinate): one per function, result,
/// class, value and signs, whatever the input's magnitudes.
pub fn value_fingerprint(
    symbol: &str,
    (class, output): (&str, &str),
    (value, signs): (&str, &str),
) -> String {
    let text = format!("fpforge-value-v3\n{class}\n{symbol}\n{output}\n{value}\n{signs}\n");
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// FNV-1a, 64 bits: a hash whose value no Rust release or platform changes.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `finding` in one line: the fault, its place and its call stack
/// (`integer division by zero in f at f.c:12:7 (called from g at g.c:3:1)`).
pub fn fault_line(module: &Module, finding: &Finding) -> String {
    let place = FaultPlace::of(module, finding);
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
        FindingKind::Undefined => "undefined",
    }
}

/// For serde's `skip_serializing_if`: a count that is zero is left out.
pub(crate) fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// How many of `findings` are of `kind` (`crash`, `hang`, `undefined`).
pub fn count_kind(findings: &[CrashRow], kind: FindingKind) -> usize {
    findings.iter().filter(|f| f.kind == kind.name()).count()
}

/// The defects among `findings`: its crashes and hangs (what fails a run).
pub fn count_defects(findings: &[CrashRow]) -> usize {
    findings.iter().filter(|f| f.is_defect()).count()
}

/// The lines a summary lists `findings` with (nothing when there are none): `found 1
/// crash(es) and 0 hang(s) (kept out of WHERE):` and the calls of functions left
/// undefined apart (`undefined_note` says where their inputs went), then one line per
/// finding.
pub fn findings_summary(
    findings: &[CrashRow],
    (kept_out_of, undefined_note): (&str, &str),
) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let defects = count_defects(findings);
    let undefined = findings.len() - defects;
    let mut parts = Vec::new();
    if defects > 0 {
        parts.push(format!(
            "{} crash(es) and {} hang(s) (kept out of {kept_out_of})",
            count_kind(findings, FindingKind::Crash),
            count_kind(findings, FindingKind::Hang)
        ));
    }
    if undefined > 0 {
        parts.push(format!(
            "{undefined} call(s) of a function left undefined (--allow-undefined: no defect, \
             the harness's gap{undefined_note})"
        ));
    }
    let mut text = format!("found {}:\n", parts.join(", and "));
    for finding in findings {
        text += &format!("  {}\n", finding.summary_line());
    }
    text
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
    /// The trap's class, a stable identifier (`division-by-zero`, `fuel-exhausted`, ...).
    pub class: &'static str,
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
    /// Its identity across runs ([`fingerprint`]).
    pub fingerprint: String,
    /// The command that replays it, as seen from the run's directory.
    pub replay: String,
    /// The same command reading the input from the finding's file.
    #[serde(skip)]
    pub replay_from_file: String,
}

/// A finding as an output directory keeps it (`findings[]` of `coverage.json` and
/// `report.json`), read back for SARIF, baselines and merges.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedFinding {
    /// `crash` or `hang`.
    pub kind: String,
    /// The trap's message.
    pub trap: String,
    /// The trap's class ([`CrashRow::class`]).
    pub class: String,
    /// The function executing the faulting instruction.
    pub function: String,
    /// Its source location, `file:line:col`.
    pub location: String,
    /// The calls that led there, innermost first.
    pub stack: Vec<String>,
    /// Its file, relative to the function's output directory.
    pub file: String,
    /// The input.
    pub input: String,
    /// Its identity across runs.
    pub fingerprint: String,
    /// The command that replays it.
    pub replay: String,
}

/// The kind of an accuracy run's wrong value that is a defect of the function (a wrong
/// special value, a finite answer at a pole, a large error: the driver's `value_defects`),
/// as `report.json`'s `defects[]` lists it in [`SavedFinding`]'s fields, so that SARIF and
/// baselines read it as they read crashes.
pub const VALUE_KIND: &str = "value";

impl SavedFinding {
    /// Whether it is a crash or a hang: an input that traps, which `fpforge confirm`
    /// runs again.
    pub fn is_fault(&self) -> bool {
        [FindingKind::Crash, FindingKind::Hang]
            .iter()
            .any(|kind| self.kind == kind.name())
    }

    /// Whether it is a defect of the code (a crash or a hang): what SARIF lists, a
    /// baseline accepts and an exit code counts; a call of a function the run left
    /// undefined is none.
    pub fn is_defect(&self) -> bool {
        self.kind != FindingKind::Undefined.name()
    }
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
        let place = FaultPlace::of(module, finding);
        CrashRow {
            kind: finding.kind.name(),
            number,
            trap: finding.trap.kind.to_string(),
            class: finding.trap.kind.class(),
            function: place.function,
            location: place.location,
            loc: finding.trap.loc,
            stack: place.stack,
            file: file.clone(),
            fingerprint: fingerprint(module, finding),
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

    /// Whether it is a defect of the code (a crash or a hang), not a call of a function
    /// the user left undefined.
    pub fn is_defect(&self) -> bool {
        self.kind != FindingKind::Undefined.name()
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

#[cfg(test)]
mod tests {
    use super::*;
    use fpforge_exec::trap::{CallSite, Trap};

    /// `f` in `DIR/a.c`, called by `g`.
    fn module(dir: &str) -> Module {
        let text = format!(
            "file file0 \"{dir}/a.c\"\nfunc f0 \"f\"(v0: i32) -> i32 !0:1:0 {{\nbb0:\n  ret v0 !0:2:3\n}}\n\
             func f1 \"g\"(v0: i32) -> i32 !0:5:0 {{\nbb0:\n  ret v0 !0:6:3\n}}\n"
        );
        fpir::parse_module(&text).unwrap()
    }

    fn finding(kind: TrapKind, line: u32, coords: Vec<u64>) -> Finding {
        let at = |line| {
            Some(SrcLoc {
                file: fpir::FileId(0),
                line,
                col: 3,
            })
        };
        let trap = Trap {
            kind,
            func: Func(0),
            loc: at(line),
            stack: vec![CallSite {
                func: Func(1),
                loc: at(6),
            }],
        };
        Finding::of(&trap, coords).unwrap()
    }

    #[test]
    fn a_fingerprint_ignores_the_input_and_the_checkout_directory() {
        let (here, there) = (module("/home/me/proj"), module("/ci/build/proj"));
        let null = |coords| finding(TrapKind::NullDeref { addr: 8 }, 2, coords);
        let print = fingerprint(&here, &null(vec![1]));
        assert_eq!(print.len(), 16);
        assert_eq!(fingerprint(&there, &null(vec![7, 9])), print);
        let other_addr = finding(TrapKind::NullDeref { addr: 16 }, 2, vec![1]);
        assert_eq!(fingerprint(&here, &other_addr), print);
        let other_line = finding(TrapKind::NullDeref { addr: 8 }, 3, vec![1]);
        assert_ne!(fingerprint(&here, &other_line), print);
        assert_ne!(
            fingerprint(&here, &finding(TrapKind::Abort, 2, vec![1])),
            print
        );
    }

    #[test]
    fn a_hang_is_its_functions_wherever_the_fuel_ran_out() {
        let m = module("/p");
        let hang = |line| fingerprint(&m, &finding(TrapKind::FuelExhausted, line, vec![0]));
        assert_eq!(hang(2), hang(4));
    }
}
