//! Findings: inputs on which the program under test crashes (a trap that is a fault:
//! out-of-bounds access, null dereference, division by zero, `abort`, a failed `assert`,
//! `unreachable`, ...) or hangs (runs out of fuel), and inputs that reach a function the
//! user left undefined (`--allow-undefined`: the harness's gap, no defect of the code,
//! which natively links the real function). Engines keep them apart from their tests: a
//! finding is the most valuable thing a test generator can report, and a test that
//! crashes is a useless regression test.
//!
//! The same fault reached from other inputs is one finding: findings are deduplicated by
//! [`FindingKey`]: crash or hang, the kind of trap, the function and source location of
//! the faulting instruction, and the call stack that led there. A hang's location is
//! wherever the fuel ran out, so a hang is keyed by its functions alone: the function
//! that was running and the callers on its stack. [`minimize`] then makes a finding's input as simple as it
//! can be while it still fails with the same key: each coordinate is tried at zero, then
//! at one, then (floats) rounded to an integer, within the coordinate's range.
//! [`FindingLog`] keeps an engine run's findings that way; engines share it.
//! [`dominant_finding`] runs a few probe inputs before a search and names the finding
//! that (nearly) every one of them meets: an input specification that cannot get past
//! the first access of a too-short pointer is worth saying at once, not after a search
//! that reports every branch as not reached.

use crate::concrete::Concrete;
use crate::interp::{ExecConfig, Interpreter, Outcome};
use crate::observer::NoObserver;
use crate::trap::{CallSite, ExecError, Trap, TrapKind};
use fpforge_spec::InputSpec;
use fpir::{Func, Module, SrcLoc, Type};
use std::collections::HashSet;
use std::mem::Discriminant;

/// Whether an input crashes, hangs or reaches an undefined function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum FindingKind {
    /// A fault: the run trapped.
    Crash,
    /// The run exhausted its fuel: a loop that does not end, or one longer than the budget.
    Hang,
    /// The run called a function nothing defines (loaded with `--allow-undefined`): what
    /// the real function does is unknown here, so the run stops; a gap of the harness,
    /// not a defect.
    Undefined,
}

impl FindingKind {
    /// Every kind, in report order.
    pub const ALL: [FindingKind; 3] = [
        FindingKind::Crash,
        FindingKind::Hang,
        FindingKind::Undefined,
    ];

    /// `crash`, `hang` or `undefined`.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Crash => "crash",
            FindingKind::Hang => "hang",
            FindingKind::Undefined => "undefined",
        }
    }

    /// Whether it is a defect of the code under test (a crash or a hang), which fails a
    /// run, rather than a gap of the harness.
    pub fn is_defect(self) -> bool {
        self != FindingKind::Undefined
    }
}

/// What makes two findings the same fault.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FindingKey {
    kind: FindingKind,
    trap: Discriminant<TrapKind>,
    func: Func,
    loc: Option<SrcLoc>,
    stack: Vec<CallSite>,
}

/// An input on which the function under test crashes or hangs.
#[derive(Clone, PartialEq, Debug)]
pub struct Finding {
    /// Crash or hang.
    pub kind: FindingKind,
    /// The trap and where it happened.
    pub trap: Trap,
    /// The input's coordinate bits (in its [`InputSpec`]'s order).
    pub coords: Vec<u64>,
}

impl Finding {
    /// The finding `trap` makes of the input `coords`; `None` when the trap is no fault
    /// (`exit(0)` ends a run normally).
    pub fn of(trap: &Trap, coords: Vec<u64>) -> Option<Finding> {
        let kind = match trap.kind {
            TrapKind::FuelExhausted => FindingKind::Hang,
            TrapKind::UnknownExternal(_) => FindingKind::Undefined,
            ref other if other.is_fault() => FindingKind::Crash,
            _ => return None,
        };
        Some(Finding {
            kind,
            trap: trap.clone(),
            coords,
        })
    }

    /// The finding's identity for deduplication.
    pub fn key(&self) -> FindingKey {
        let place = |loc: Option<SrcLoc>| match self.kind {
            FindingKind::Crash | FindingKind::Undefined => loc,
            FindingKind::Hang => None,
        };
        FindingKey {
            kind: self.kind,
            trap: std::mem::discriminant(&self.trap.kind),
            func: self.trap.func,
            loc: place(self.trap.loc),
            stack: self
                .trap
                .stack
                .iter()
                .map(|call| CallSite {
                    func: call.func,
                    loc: place(call.loc),
                })
                .collect(),
        }
    }
}

/// The simpler values worth trying for a coordinate of type `ty` holding `bits`, simplest
/// first: zero, one, and (for a float) the value rounded to an integer.
fn simpler_values(ty: Type, bits: u64) -> Vec<u64> {
    match ty.as_float() {
        Some(ft) => {
            let x = fpir::eval::to_f64(ft, bits);
            let mut values = vec![0.0, 1.0];
            if x.is_finite() {
                values.push(x.round());
            }
            values
                .into_iter()
                .map(|v| fpir::eval::from_f64(ft, v))
                .collect()
        }
        None => vec![0, 1],
    }
}

/// The value of a coordinate's bits as a number, for its range.
fn numeric(ty: Type, bits: u64) -> f64 {
    match ty.as_float() {
        Some(ft) => fpir::eval::to_f64(ft, bits),
        None => ty.sign_extend(bits) as f64,
    }
}

/// Makes `finding`'s input simpler while it still fails with the same key (see the
/// module docs), running `func` on `interp`; the result fails exactly as it says.
pub fn minimize(
    interp: &mut Interpreter<'_, Concrete, NoObserver>,
    func: Func,
    spec: &InputSpec,
    finding: Finding,
) -> Result<Finding, ExecError> {
    let key = finding.key();
    let mut best = finding;
    for (i, coord) in spec.coords().iter().enumerate() {
        let candidates = simpler_values(coord.ty, best.coords[i]);
        // Only values simpler than the current one: those listed before it.
        let simpler = candidates
            .iter()
            .position(|&c| c == best.coords[i])
            .unwrap_or(candidates.len());
        for &candidate in &candidates[..simpler] {
            let in_range = coord
                .range
                .is_none_or(|r| r.contains(numeric(coord.ty, candidate)));
            if !in_range {
                continue;
            }
            let mut coords = best.coords.clone();
            coords[i] = candidate;
            let run = interp.call(func, &spec.to_args(&coords))?;
            let Outcome::Trapped(trap) = run.outcome else {
                continue;
            };
            if let Some(found) = Finding::of(&trap, coords).filter(|f| f.key() == key) {
                best = found;
                break;
            }
        }
    }
    Ok(best)
}

/// The findings of one engine run: one per [`FindingKey`], minimized, in the order they
/// were found; and the interpreter that minimizes new ones.
pub struct FindingLog<'m> {
    /// Findings in the order they were found.
    pub list: Vec<Finding>,
    /// Their keys.
    keys: HashSet<FindingKey>,
    module: &'m Module,
    func: Func,
    exec_config: ExecConfig,
    /// Made on the first finding: most runs meet none.
    minimizer: Option<Interpreter<'m, Concrete, NoObserver>>,
}

impl<'m> FindingLog<'m> {
    /// No findings yet, for runs of `func` with `exec_config`.
    pub fn new(module: &'m Module, func: Func, exec_config: ExecConfig) -> Self {
        FindingLog {
            list: Vec::new(),
            keys: HashSet::new(),
            module,
            func,
            exec_config,
            minimizer: None,
        }
    }

    /// True when `trap` on any input would be a finding already known (or no finding).
    pub fn is_known(&self, trap: &Trap) -> bool {
        Finding::of(trap, Vec::new()).is_none_or(|f| self.keys.contains(&f.key()))
    }

    /// The keys of the findings so far (for a worker's snapshot).
    pub fn keys(&self) -> &HashSet<FindingKey> {
        &self.keys
    }

    /// Starts from the keys of findings found elsewhere (a worker ignores those).
    pub fn assume_known(&mut self, keys: &HashSet<FindingKey>) {
        self.keys.extend(keys.iter().cloned());
    }

    /// Records the input `coords` (in `spec`'s order) on which a run ended in `trap`, when
    /// that is a new finding: minimized, appended, and its index returned.
    pub fn add(
        &mut self,
        spec: &InputSpec,
        trap: &Trap,
        coords: Vec<u64>,
    ) -> Result<Option<usize>, ExecError> {
        let Some(finding) = Finding::of(trap, coords) else {
            return Ok(None);
        };
        if !self.keys.insert(finding.key()) {
            return Ok(None);
        }
        let minimizer = match &mut self.minimizer {
            Some(interp) => interp,
            None => self.minimizer.insert(Interpreter::new(
                self.module,
                Concrete,
                NoObserver,
                self.exec_config.clone(),
            )?),
        };
        let finding = minimize(minimizer, self.func, spec, finding)?;
        self.list.push(finding);
        Ok(Some(self.list.len() - 1))
    }
}

/// The share of probe runs needed for [`dominant_finding`] to speak: 9 in 10.
pub const DOMINANT_SHARE: (usize, usize) = (9, 10);

/// A finding that most probe runs meet.
#[derive(Clone, PartialEq, Debug)]
pub struct DominantFinding {
    /// The first probe input that met it.
    pub finding: Finding,
    /// How many probe runs met it.
    pub met: usize,
    /// How many probe runs there were.
    pub runs: usize,
}

/// Runs `func` on each input of `points` (coordinate bits in `spec`'s order) and returns
/// the crash, keyed as findings are, that at least [`DOMINANT_SHARE`] of the runs meet
/// (hangs do not count).
pub fn dominant_finding(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    exec_config: ExecConfig,
    points: &[Vec<u64>],
) -> Result<Option<DominantFinding>, ExecError> {
    let mut interp = Interpreter::new(module, Concrete, NoObserver, exec_config)?;
    let mut counts: Vec<(FindingKey, DominantFinding)> = Vec::new();
    for coords in points {
        let run = interp.call(func, &spec.to_args(coords))?;
        let Outcome::Trapped(trap) = run.outcome else {
            continue;
        };
        let Some(finding) = Finding::of(&trap, coords.clone()) else {
            continue;
        };
        // A probe's fuel may be shorter than the search's: running out of it says
        // nothing about the program.
        if finding.kind == FindingKind::Hang {
            continue;
        }
        let key = finding.key();
        match counts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, seen)) => seen.met += 1,
            None => counts.push((
                key,
                DominantFinding {
                    finding,
                    met: 1,
                    runs: points.len(),
                },
            )),
        }
    }
    let (share, of) = DOMINANT_SHARE;
    Ok(counts
        .into_iter()
        .map(|(_, d)| d)
        .max_by_key(|d| d.met)
        .filter(|d| d.met * of >= d.runs * share && d.runs > 0))
}
