//! The Alternating Variable Method as used by FloPSy (Lakhotia et al., ICTSS
//! 2010, §3.1, after Korel 1990): one variable at a time, *exploratory moves*
//! (a small step each way) and, on improvement, *pattern moves* (doubling
//! steps in the improving direction). Floats move both in ULPs and in the
//! value space at a decimal precision that is refined at each local optimum
//! (FloPSy's precision refinement); when no refinement helps, the search
//! restarts, alternating local restarts (perturb the best point) and global
//! restarts (a fresh random point).

use fpforge_search::ordinal::{from_ord, ord};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{float_value, sample, Objective, SearchEngine, StepResult};
use crate::eval::Value;
use crate::sort::{round_to, Sort};
use crate::term::mask;

/// Finest decimal precision of value-space moves (steps of 10^-MAX_PRECISION).
const MAX_PRECISION: i32 = 12;
/// Sweeps without a 1% gain after which the AVM treats the point as a local
/// optimum.
const CREEP_SWEEPS: u32 = 50;

/// The space a move happens in.
#[derive(Clone, Copy, Debug)]
enum Space {
    /// Float ordinals.
    Ulp,
    /// Float values, steps of `10^-precision`.
    Value,
    /// Rounding a float to `k` decimal digits after the point (k = 0, 1,
    /// ...): reaches the exact round values that equalities often need.
    Snap,
    /// Bit-vector integers, modulo 2^w.
    Int,
    /// Boolean flip.
    Flip,
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

    fn moved(&self, v: Value, space: Space, dir: i64, k: i64) -> Option<Value> {
        Some(match (space, v) {
            (Space::Flip, Value::Bool(b)) => Value::Bool(!b),
            (Space::Int, Value::Bv(x, w)) => {
                Value::Bv(x.wrapping_add((dir.wrapping_mul(k)) as u64) & mask(w), w)
            }
            (Space::Ulp | Space::Value | Space::Snap, Value::F32(_) | Value::F64(_)) => {
                let f = match v {
                    Value::F32(_) => crate::sort::FpFormat::F32,
                    _ => crate::sort::FpFormat::F64,
                };
                let x = v.as_f64()?;
                if x.is_nan() {
                    return None;
                }
                let y = match space {
                    Space::Ulp => from_ord(f, ord(f, x).saturating_add(dir.saturating_mul(k))),
                    Space::Snap => {
                        // `k` is the number of decimal digits kept.
                        let scale = 10f64.powi(k as i32);
                        round_to(f, (x * scale).round() / scale)
                    }
                    _ => round_to(
                        f,
                        x + (dir as f64) * (k as f64) * 10f64.powi(-self.precision),
                    ),
                };
                if y.to_bits() == x.to_bits() || y.is_nan() {
                    return None;
                }
                float_value(f, y)
            }
            _ => return None,
        })
    }

    /// Exploratory then pattern moves on variable `i`; true on improvement.
    fn explore(&mut self, obj: &mut Objective<'_>, i: usize) -> bool {
        let spaces: &[Space] = match obj.vars[i].sort {
            Sort::Fp(_) => &[Space::Snap, Space::Ulp, Space::Value],
            Sort::BitVec(_) => &[Space::Int],
            Sort::Bool => &[Space::Flip],
            Sort::RoundingMode => &[],
        };
        for &space in spaces {
            if let Space::Snap = space {
                for digits in 0..=i64::from(self.precision) {
                    let Some(nv) = self.moved(self.cur[i], space, 1, digits) else {
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
                continue;
            }
            for dir in [-1i64, 1] {
                let mut k = 1i64;
                let mut improved = false;
                while let Some(nv) = self.moved(self.cur[i], space, dir, k) {
                    let old = std::mem::replace(&mut self.cur[i], nv);
                    let fit = obj.fitness(&self.cur);
                    if fit < self.cur_fit {
                        self.cur_fit = fit;
                        improved = true;
                        if fit == 0.0 || matches!(space, Space::Flip) {
                            return true;
                        }
                        if k == i64::MAX {
                            // The step cannot grow: a saturated pattern move would
                            // creep linearly (2^63 at a time) across the range.
                            return true;
                        }
                        k = k.saturating_mul(2);
                    } else {
                        self.cur[i] = old;
                        break;
                    }
                }
                if improved {
                    return true;
                }
            }
        }
        false
    }

    /// Snaps every float variable to `k` decimal digits at once (k = 0..=
    /// precision): coordinate moves cannot follow curved valleys to an exact
    /// round minimum such as Rosenbrock's (1, 1), a joint snap can.
    fn snap_all(&mut self, obj: &mut Objective<'_>) -> bool {
        for digits in 0..=i64::from(self.precision) {
            let cand: Vec<Value> = self
                .cur
                .iter()
                .map(|&v| self.moved(v, Space::Snap, 1, digits).unwrap_or(v))
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
                if let Some(v) = self.moved(self.cur[i], Space::Ulp, dir, k) {
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
    fn step(&mut self, obj: &mut Objective<'_>) -> StepResult {
        if obj.vars.is_empty() {
            obj.fitness(&[]);
            return StepResult::Exhausted;
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
        StepResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{run_engine, StopReason};
    use crate::sort::Sort;
    use crate::term::{Op, TermStore};
    use crate::Fitness;
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
        let xx = s.mk(Op::FpMul, &[x, x]).unwrap();
        let d1 = s.mk(Op::FpSub, &[y, xx]).unwrap();
        let d1s = s.mk(Op::FpMul, &[d1, d1]).unwrap();
        let t1 = s.mk(Op::FpMul, &[hundred, d1s]).unwrap();
        let d2 = s.mk(Op::FpSub, &[one, x]).unwrap();
        let t2 = s.mk(Op::FpMul, &[d2, d2]).unwrap();
        let f = s.mk(Op::FpAdd, &[t1, t2]).unwrap();
        let eq = s.mk(Op::FpEq, &[f, zero]).unwrap();
        let mut obj = Objective::new(&s, &[eq], Fitness::BranchDistance);
        let mut avm = Avm::new(1);
        let r = run_engine(
            &mut avm,
            &mut obj,
            2_000_000,
            Instant::now() + Duration::from_secs(20),
        );
        assert_eq!(r, StopReason::Solved);
    }
}
