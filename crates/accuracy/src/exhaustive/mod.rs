//! Exhaustive binary32 checking (`--exhaustive`): every `float` input of a function of
//! one `float` returning `float` (or a [`InputRange`] of them) run in the compiled tier
//! and judged against the true function, with an exact result: the largest error in
//! ulps and every input reaching it, the number of incorrectly rounded results, the
//! wrong special values and poles ([`Tally`]).
//!
//! Each input's result is judged by [`fpforge_mpfr::binary32`]: its fast path (the host's
//! `double` function within a bound) when it decides, MPFR otherwise. The fast path gives
//! the ulp error within bounds `lo <= e <= hi`; the largest error is then made exact
//! without running MPFR on every input: a [`Floor`] shared by the threads of a run holds
//! the largest `lo` seen (a lower bound of the run's largest error, witnessed by one of its
//! inputs), a chunk keeps the inputs whose `hi` reaches its floor, and at its end MPFR
//! judges them again, highest `hi` first, until the next `hi` is below the largest exact
//! error found. Every input whose error equals the largest is kept. A chunk whose errors
//! are all below the floor says so ([`Tally::below`]) instead of resolving them; the
//! run's largest error, at least the floor, is exact all the same.
//!
//! The largest error is re-checked at [`RECHECK_PRECISION`] bits ([`Exhaustive::recheck`]).
//!
//! The driver splits the inputs into chunks, runs them on threads and keeps their tallies
//! on disk; [`Tally::join`] joins them in any order into the same result.

pub mod range;
pub mod tally;

pub use range::InputRange;
pub use tally::{Case, Cases, MaxError, Tally, LISTED};

use crate::error::AccuracyError;
use crate::oracle::OracleChoice;
use crate::special::SpecialKind;
use fpforge_exec::{Compilation, Concrete, ExecConfig, Interpreter, NoObserver, Outcome};
use fpforge_mpfr::binary32::{self, Class, FastPath, Verdict};
use fpforge_mpfr::{Operand, TrueFunction};
use fpforge_spec::Arg;
use fpir::{FloatTy, Func, Module, Type};
use std::sync::atomic::{AtomicU64, Ordering};

/// The precision of the re-check of the largest error.
pub const RECHECK_PRECISION: u32 = 1024;

/// Inputs between two calls of a chunk's `stop` callback.
pub const STEP: u64 = 1 << 16;

/// A function of one `float` to check exhaustively, and its true function.
pub struct Exhaustive<'m> {
    module: &'m Module,
    func: Func,
    truth: TrueFunction,
    fast: Option<FastPath>,
}

/// A lower bound of the largest error of a run, raised by every thread.
#[derive(Debug, Default)]
pub struct Floor(AtomicU64);

impl Floor {
    /// The bound now (0 at first).
    pub fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }

    /// Raises the bound to `ulps` if that is higher.
    pub fn raise(&self, ulps: f64) {
        // Non-negative floats order as their bits.
        self.0.fetch_max(ulps.max(0.0).to_bits(), Ordering::Relaxed);
    }
}

/// The largest error judged again at [`RECHECK_PRECISION`] bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recheck {
    /// The precision.
    pub precision: u32,
    /// The error of the first listed input at that precision.
    pub ulps: f64,
    /// Whether every listed input's error agrees with the reported one to 1e-9.
    pub agreed: bool,
}

impl<'m> Exhaustive<'m> {
    /// `func` of `module` checked against the true function `oracle` names (`auto`: the
    /// one its name says; `mpfr:NAME`); an error when it is not `float f(float)` or the
    /// oracle is not a true function of one operand.
    pub fn new(
        module: &'m Module,
        func: Func,
        oracle: &OracleChoice,
    ) -> Result<Exhaustive<'m>, AccuracyError> {
        let f = &module.funcs[func];
        let float = Type::Float(FloatTy::F32);
        if f.param_types() != [float] || f.ret != Some(float) {
            return Err(AccuracyError::Exhaustive(format!(
                "`{}` is not a function of one float returning float",
                f.display_name()
            )));
        }
        let probe = [Operand::Float(FloatTy::F32, 0)];
        let truth = match oracle {
            OracleChoice::Auto => TrueFunction::for_entry(&f.name).ok_or_else(|| {
                AccuracyError::Exhaustive(format!(
                    "no true function is known for `{}`: name one with --oracle mpfr:NAME",
                    f.display_name()
                ))
            })?,
            OracleChoice::Mpfr(t) => *t,
            OracleChoice::CReference { .. } | OracleChoice::ReExecution => {
                return Err(AccuracyError::Exhaustive(
                    "checks against a true function only: --oracle auto or mpfr:NAME".to_string(),
                ))
            }
        };
        if !truth.fits(&probe) {
            return Err(AccuracyError::Exhaustive(format!(
                "MPFR {} is not a function of one float",
                truth.mpfr_name()
            )));
        }
        Ok(Exhaustive {
            module,
            func,
            truth,
            fast: FastPath::new(truth),
        })
    }

    /// The true function.
    pub fn truth(&self) -> TrueFunction {
        self.truth
    }

    /// Whether results are judged by the fast path first (else MPFR judges every one).
    pub fn has_fast_path(&self) -> bool {
        self.fast.is_some()
    }

    /// The bound in `double` ulps the fast path trusts the host's function to, when
    /// there is a fast path.
    pub fn fast_bound(&self) -> Option<f64> {
        match (self.truth, self.fast) {
            (TrueFunction::Math(f), Some(_)) => binary32::host_bound(f),
            _ => None,
        }
    }

    /// A checker for one thread.
    pub fn checker(&self) -> Result<Checker<'m>, AccuracyError> {
        let exec = ExecConfig::default().with_compile(Compilation::Eager);
        Ok(Checker {
            interp: Interpreter::new(self.module, Concrete, NoObserver, exec)?,
            func: self.func,
            truth: self.truth,
            fast: self.fast,
        })
    }

    /// The inputs of `max` judged again at [`RECHECK_PRECISION`] bits.
    pub fn recheck(&self, max: &MaxError) -> Recheck {
        let mut first = None;
        let mut agreed = true;
        for case in &max.cases.listed {
            let v = binary32::verdict_at(self.truth, case.input, case.computed, RECHECK_PRECISION);
            let ulps = v.map_or(f64::NAN, |v| v.ulps.0);
            first.get_or_insert(ulps);
            agreed &= (ulps - max.ulps).abs() <= 1e-9 * max.ulps;
        }
        Recheck {
            precision: RECHECK_PRECISION,
            ulps: first.unwrap_or(f64::NAN),
            agreed,
        }
    }
}

/// Runs and judges inputs on one thread.
pub struct Checker<'m> {
    interp: Interpreter<'m, Concrete, NoObserver>,
    func: Func,
    truth: TrueFunction,
    fast: Option<FastPath>,
}

/// An input whose error may be the largest: its case and the upper bound of its error.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    case: Case,
    hi: f64,
}

impl Checker<'_> {
    /// The function's result on `x` (raw bits), `None` when the run traps.
    pub fn run(&mut self, x: u32) -> Result<Option<u32>, AccuracyError> {
        let run = self.interp.call(self.func, &[Arg::Scalar(u64::from(x))])?;
        Ok(match run.outcome {
            Outcome::Returned(Some(bits)) => Some(bits as u32),
            _ => None,
        })
    }

    /// How many runs so far ran as native code (the compiled tier), not interpreted.
    pub fn compiled_runs(&self) -> u64 {
        self.interp.compiled_runs()
    }

    /// The verdict on result `c` at input `x`, and whether the fast path gave it.
    pub fn judge(&self, x: u32, c: u32) -> (Verdict, bool) {
        if let Some(v) = self.fast.and_then(|f| f.decide(x, c)) {
            return (v, true);
        }
        (self.exact(x, c), false)
    }

    /// MPFR's verdict.
    pub fn exact(&self, x: u32, c: u32) -> Verdict {
        binary32::exact(self.truth, x, c, binary32::MAX_PRECISION)
            .map(|(v, _)| v)
            .expect("the true function takes one float (checked by Exhaustive::new)")
    }

    /// Raises `floor` to the largest lower error bound over `samples` inputs of `range`
    /// spread evenly, so that the chunks that come first need not resolve their small
    /// errors.
    pub fn probe(
        &mut self,
        range: &InputRange,
        samples: u64,
        floor: &Floor,
    ) -> Result<(), AccuracyError> {
        let len = range.len();
        let samples = samples.min(len).max(1);
        for k in 0..samples {
            let x = range.nth(k * (len / samples));
            if let Some(c) = self.run(x)? {
                let (v, _) = self.judge(x, c);
                if v.class == Class::Finite {
                    floor.raise(v.ulps.0);
                }
            }
        }
        Ok(())
    }

    /// The tally of the inputs of `range` at indices `span`; `None` when `stop`, called
    /// with the inputs done every [`STEP`] inputs, asks to stop.
    pub fn check(
        &mut self,
        range: &InputRange,
        span: std::ops::Range<u64>,
        floor: &Floor,
        stop: &dyn Fn(u64) -> bool,
    ) -> Result<Option<Tally>, AccuracyError> {
        let mut tally = Tally::default();
        let mut local = 0.0f64;
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut kept_at = 0usize;
        let mut since = 0;
        let mut shared = floor.get();
        for i in span {
            if since == STEP {
                if stop(since) {
                    return Ok(None);
                }
                since = 0;
                shared = floor.get();
            }
            since += 1;
            let x = range.nth(i);
            tally.inputs += 1;
            let Some(c) = self.run(x)? else {
                tally.traps.add(Case {
                    input: x,
                    computed: 0,
                });
                continue;
            };
            let case = Case {
                input: x,
                computed: c,
            };
            let (v, fast) = self.judge(x, c);
            tally.fast += u64::from(fast);
            if !v.correctly_rounded {
                tally.incorrectly_rounded += 1;
            }
            match v.class {
                Class::Finite => {
                    // The shared floor is raised (a locked operation) only when the
                    // chunk's own bound rises, and read back every STEP inputs.
                    if v.ulps.0 > local {
                        local = v.ulps.0;
                        floor.raise(local);
                    }
                    if v.ulps.1 >= local.max(shared) {
                        candidates.push(Candidate { case, hi: v.ulps.1 });
                    }
                    if candidates.len() >= 2 * kept_at.max(1024) {
                        let threshold = local.max(floor.get());
                        candidates.retain(|c| c.hi >= threshold);
                        kept_at = candidates.len();
                    }
                }
                Class::CorrectSpecial => {}
                Class::WrongSpecialValue => {
                    tally.special_mut(SpecialKind::WrongSpecialValue).add(case)
                }
                Class::Pole => tally.special_mut(SpecialKind::Pole).add(case),
            }
        }
        stop(since);
        self.resolve(&mut tally, candidates, local.max(floor.get()));
        Ok(Some(tally))
    }

    /// Sets `tally`'s largest error from the `candidates` whose upper bound reaches
    /// `threshold`, judged by MPFR highest bound first.
    fn resolve(&self, tally: &mut Tally, mut candidates: Vec<Candidate>, threshold: f64) {
        candidates.retain(|c| c.hi >= threshold);
        candidates.sort_by(|a, b| b.hi.total_cmp(&a.hi).then(a.case.cmp(&b.case)));
        let mut max: Option<MaxError> = None;
        for cand in candidates {
            if max.as_ref().is_some_and(|m| cand.hi < m.ulps) {
                break;
            }
            tally.resolved += 1;
            let ulps = self.exact(cand.case.input, cand.case.computed).ulps.0;
            match &mut max {
                Some(m) if ulps < m.ulps => {}
                Some(m) if ulps == m.ulps => m.cases.add(cand.case),
                _ => {
                    let mut cases = Cases::default();
                    cases.add(cand.case);
                    max = Some(MaxError { ulps, cases });
                }
            }
        }
        tally.below = threshold;
        tally.max = max.filter(|m| m.ulps >= threshold);
    }
}
