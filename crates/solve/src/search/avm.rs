//! The Alternating Variable Method as FloPSy uses it (Lakhotia et al., ICTSS
//! 2010, §3.1, after Korel 1990). The moves on one variable, an exploratory
//! step each way (down first) and then pattern moves that double the
//! improving step, are the search crate's
//! ([`fpforge_search::avm::explore_and_pattern`]); this module adds what is
//! FloPSy's. Floats move in ULPs and in the value space at a decimal
//! precision that is refined at each local optimum (FloPSy's precision
//! refinement), and snap to round decimals; bit-vectors move as integers
//! modulo 2^w and Booleans flip. When no refinement helps, the search
//! restarts, alternating local restarts (perturb the best point) and global
//! restarts (a fresh random point).

use std::convert::Infallible;

use fpforge_search::avm::{explore_and_pattern, Axis};
use fpforge_search::ordinal::{from_ord, ord};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{float_value, sample, Objective, SearchEngine};
use crate::eval::Value;
use crate::sort::{round_to, HostFormat, SmtRounding, Sort};
use crate::term::mask;
use fpforge_search::Stepped;

/// Finest decimal precision of value-space moves (steps of 10^-MAX_PRECISION).
const MAX_PRECISION: i32 = 12;
/// Sweeps without a 1% gain after which the AVM treats the point as a local
/// optimum.
const CREEP_SWEEPS: u32 = 50;
/// FloPSy's exploratory move: one step each way, down first.
const EXPLORATORY_STEPS: [i64; 2] = [-1, 1];

/// The space a variable moves in.
#[derive(Clone, Copy, Debug)]
enum Space {
    /// Float ordinals.
    Ulp,
    /// Float values, steps of `10^-precision`.
    Value,
    /// Bit-vector integers, modulo 2^w.
    Int,
    /// Boolean flip: one step either way is the other value, and there is no
    /// step beyond it.
    Flip,
    /// Rounding modes, cyclically in the order of `SmtRounding::ALL`.
    Mode,
}

/// `v` moved by `steps` steps of `space` (value steps of `10^-precision`);
/// `None` when that is no move.
fn stepped(v: Value, space: Space, steps: i64, precision: i32) -> Option<Value> {
    match (space, v) {
        (Space::Flip, Value::Bool(b)) => (steps.unsigned_abs() == 1).then_some(Value::Bool(!b)),
        (Space::Int, Value::Bv(x, w)) => Some(Value::Bv(x.wrapping_add(steps as u64) & mask(w), w)),
        (Space::Mode, Value::Rm(r)) => {
            let i = (r.index() as i64).wrapping_add(steps).rem_euclid(5);
            Some(Value::Rm(SmtRounding::ALL[i as usize]))
        }
        (Space::Ulp, _) => float_moved(v, |f, x| from_ord(f, ord(f, x).saturating_add(steps))),
        (Space::Value, _) => float_moved(v, |f, x| {
            round_to(f, x + (steps as f64) * 10f64.powi(-precision))
        }),
        _ => None,
    }
}

/// Float `v` rounded to `digits` decimal digits after the point: reaches the
/// exact round values that equalities often need.
fn snapped(v: Value, digits: i32) -> Option<Value> {
    let scale = 10f64.powi(digits);
    float_moved(v, |f, x| round_to(f, (x * scale).round() / scale))
}

/// The float `to(format, x)` computes from float `v = x`; `None` for a
/// non-float or NaN `v`, a NaN result, or the same value.
fn float_moved(v: Value, to: impl FnOnce(HostFormat, f64) -> f64) -> Option<Value> {
    let f = match v {
        Value::F32(_) => HostFormat::F32,
        Value::F64(_) => HostFormat::F64,
        _ => return None,
    };
    let x = v.as_f64()?;
    if x.is_nan() {
        return None;
    }
    let y = to(f, x);
    if y.to_bits() == x.to_bits() || y.is_nan() {
        return None;
    }
    Some(float_value(f, y))
}

/// Variable `var` of the objective moving in `space`, the others held at `cur`.
struct VarAxis<'a, 's> {
    obj: &'a mut Objective<'s>,
    cur: &'a mut [Value],
    var: usize,
    space: Space,
    precision: i32,
}

impl Axis for VarAxis<'_, '_> {
    type Point = Value;
    type Halt = Infallible;

    fn moved(&self, from: Value, steps: i64) -> Option<Value> {
        stepped(from, self.space, steps, self.precision)
    }

    fn eval(&mut self, at: Value) -> Result<f64, Infallible> {
        let old = std::mem::replace(&mut self.cur[self.var], at);
        let fit = self.obj.fitness(self.cur);
        self.cur[self.var] = old;
        Ok(fit)
    }

    /// A zero fitness is a model: nothing is lower.
    fn is_final(&self, value: f64) -> bool {
        value == 0.0
    }
}

/// AVM state, resumable step by step.
pub struct Avm {
    rng: ChaCha8Rng,
    cur: Vec<Value>,
    cur_fit: f64,
    var: usize,
    improved_in_sweep: bool,
    sweep_start_fit: f64,
    creeping_sweeps: u32,
    precision: i32,
    restarts: u64,
}

impl Avm {
    /// An AVM seeded with `seed`.
    pub fn new(seed: u64) -> Avm {
        Avm {
            rng: ChaCha8Rng::seed_from_u64(seed),
            cur: Vec::new(),
            cur_fit: f64::INFINITY,
            var: 0,
            improved_in_sweep: false,
            sweep_start_fit: f64::INFINITY,
            creeping_sweeps: 0,
            precision: 0,
            restarts: 0,
        }
    }

    /// Number of restarts so far.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Moves on variable `i`: for floats a snap, then ULP moves, then value
    /// moves, each tried only when the one before does not improve; true on
    /// improvement.
    fn explore(&mut self, obj: &mut Objective<'_>, i: usize) -> bool {
        match obj.vars[i].sort {
            Sort::Fp(_) => {
                self.snap(obj, i)
                    || self.line(obj, i, Space::Ulp)
                    || self.line(obj, i, Space::Value)
            }
            Sort::BitVec(_) => self.line(obj, i, Space::Int),
            Sort::Bool => self.line(obj, i, Space::Flip),
            Sort::RoundingMode => self.line(obj, i, Space::Mode),
        }
    }

    /// Exploratory and pattern moves of variable `i` in `space`.
    fn line(&mut self, obj: &mut Objective<'_>, i: usize, space: Space) -> bool {
        let at = self.cur[i];
        let mut axis = VarAxis {
            obj,
            cur: &mut self.cur,
            var: i,
            space,
            precision: self.precision,
        };
        let Ok(found) = explore_and_pattern(&mut axis, at, self.cur_fit, &EXPLORATORY_STEPS);
        let Some((to, fit)) = found else {
            return false;
        };
        self.cur[i] = to;
        self.cur_fit = fit;
        true
    }

    /// Snaps variable `i` to `k` decimal digits, k = 0..=precision, keeping the
    /// first that improves.
    fn snap(&mut self, obj: &mut Objective<'_>, i: usize) -> bool {
        for digits in 0..=self.precision {
            let Some(nv) = snapped(self.cur[i], digits) else {
                continue;
            };
            let old = std::mem::replace(&mut self.cur[i], nv);
            let fit = obj.fitness(&self.cur);
            if fit < self.cur_fit {
                self.cur_fit = fit;
                return true;
            }
            self.cur[i] = old;
        }
        false
    }

    /// Snaps every float variable to `k` decimal digits at once (k = 0..=
    /// precision): coordinate moves cannot follow curved valleys to an exact
    /// round minimum such as Rosenbrock's (1, 1), a joint snap can.
    fn snap_all(&mut self, obj: &mut Objective<'_>) -> bool {
        for digits in 0..=self.precision {
            let cand: Vec<Value> = self
                .cur
                .iter()
                .map(|&v| snapped(v, digits).unwrap_or(v))
                .collect();
            let fit = obj.fitness(&cand);
            if fit < self.cur_fit {
                self.cur = cand;
                self.cur_fit = fit;
                return true;
            }
        }
        false
    }

    fn restart(&mut self, obj: &mut Objective<'_>) {
        self.restarts += 1;
        let local = self.restarts % 2 == 1 && !self.cur.is_empty();
        for i in 0..obj.vars.len() {
            let fresh = sample(&mut self.rng, obj.vars[i].sort, obj.bounds[i]);
            if !local || self.rng.gen_bool(0.3) {
                self.cur[i] = fresh;
            } else {
                let dir = if self.rng.gen() { 1 } else { -1 };
                let k = 1i64 << self.rng.gen_range(0..20);
                if let Some(v) = stepped(self.cur[i], Space::Ulp, dir * k, self.precision) {
                    self.cur[i] = v;
                }
            }
        }
        self.cur_fit = obj.fitness(&self.cur);
        self.precision = 0;
        self.var = 0;
        self.improved_in_sweep = false;
    }
}

impl SearchEngine for Avm {
    fn step(&mut self, obj: &mut Objective<'_>) -> Stepped {
        if obj.vars.is_empty() {
            obj.fitness(&[]);
            return Stepped::Exhausted;
        }
        if self.cur.len() != obj.vars.len() {
            self.cur = (0..obj.vars.len())
                .map(|i| sample(&mut self.rng, obj.vars[i].sort, obj.bounds[i]))
                .collect();
            self.cur_fit = obj.fitness(&self.cur);
        }
        let i = self.var;
        if self.explore(obj, i) {
            self.improved_in_sweep = true;
        }
        self.var += 1;
        if self.var == obj.vars.len() {
            self.var = 0;
            if self.snap_all(obj) {
                self.improved_in_sweep = true;
            }
            // Fifty sweeps that together gain less than 1% are a local
            // optimum too: ULP moves can creep along a curved valley forever.
            if self.cur_fit < self.sweep_start_fit * 0.99 {
                self.sweep_start_fit = self.cur_fit;
                self.creeping_sweeps = 0;
            } else {
                self.creeping_sweeps += 1;
            }
            let crept = self.creeping_sweeps >= CREEP_SWEEPS;
            if crept {
                self.creeping_sweeps = 0;
                self.sweep_start_fit = self.cur_fit;
            }
            if !std::mem::replace(&mut self.improved_in_sweep, false) || crept {
                if self.precision < MAX_PRECISION {
                    self.precision += 1;
                } else {
                    self.restart(obj);
                }
            }
        }
        Stepped::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::run_engine;
    use crate::sort::Sort;
    use crate::term::{Op, TermStore};
    use crate::Fitness;
    use fpforge_search::Stop;
    use std::time::{Duration, Instant};

    #[test]
    fn avm_solves_rosenbrock() {
        // 100 (y - x^2)^2 + (1 - x)^2 == 0 over binary64.
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F64);
        let y = s.declare("y", Sort::F64);
        let one = s.f64_const(1.0);
        let hundred = s.f64_const(100.0);
        let zero = s.f64_const(0.0);
        let rne = s.rm_const(crate::sort::SmtRounding::Rne);
        let xx = s.mk(Op::FpMul, &[rne, x, x]).unwrap();
        let d1 = s.mk(Op::FpSub, &[rne, y, xx]).unwrap();
        let d1s = s.mk(Op::FpMul, &[rne, d1, d1]).unwrap();
        let t1 = s.mk(Op::FpMul, &[rne, hundred, d1s]).unwrap();
        let d2 = s.mk(Op::FpSub, &[rne, one, x]).unwrap();
        let t2 = s.mk(Op::FpMul, &[rne, d2, d2]).unwrap();
        let f = s.mk(Op::FpAdd, &[rne, t1, t2]).unwrap();
        let eq = s.mk(Op::FpEq, &[f, zero]).unwrap();
        let mut obj = Objective::new(&s, &[eq], Fitness::BranchDistance);
        let mut avm = Avm::new(1);
        let r = run_engine(
            &mut avm,
            &mut obj,
            2_000_000,
            Instant::now() + Duration::from_secs(20),
        );
        assert_eq!(r, Stop::TargetsReached);
    }
}
