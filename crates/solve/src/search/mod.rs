//! Search-based solving after FloPSy (Lakhotia, McMinn, Harman, Gotlieb,
//! "FloPSy — Search-Based Floating Point Constraint Solving for Symbolic
//! Execution", ICTSS 2010): constraints become a fitness function to minimize,
//! and a candidate whose fitness is zero is a model.
//!
//! This module owns the shared pieces: the search space (the variables in the
//! cone of the assertions), the fitness ([`Objective`], FloPSy §3 branch
//! distances and an ULP variant), value sampling, and [`run_engine`], which hands one-step engines
//! ([`avm`], [`es`], [`random`]) to search's executor ([`fpforge_search::run_steps`])
//! under an evaluation and time budget. Search never answers `unsat`.

pub mod avm;
pub mod es;
pub mod random;

use std::time::Instant;

use fpforge_search::ordinal::{from_ord, max_ord, min_ord, ord};
use fpforge_search::{run_steps, Limits, OneStep, Stepped, Stop};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::eval::{Model, TermEvaluator, Value};
use crate::sort::{round_to, HostFormat, SmtRounding, Sort};
use crate::term::{mask, Op, TermId, TermStore};
use crate::Fitness;

/// FloPSy's constant K added to the distance of a false relation.
const K: f64 = 1.0;
/// The distance of a relation on NaN or with an unbounded difference.
const FAR: f64 = 1e300;

/// A variable the search assigns: its index in the model and its sort.
#[derive(Clone, Copy, Debug)]
pub struct SearchVar {
    /// Index into [`Model::values`].
    pub index: usize,
    /// Its sort.
    pub sort: Sort,
}

/// The fitness of the assertions, plus the best candidate and any model found.
pub struct Objective<'s> {
    store: &'s TermStore,
    assertions: Vec<TermId>,
    ev: TermEvaluator,
    kind: Fitness,
    /// The variables in the cone of the assertions.
    pub vars: Vec<SearchVar>,
    base: Model,
    /// Number of fitness evaluations so far.
    pub evals: u64,
    /// A candidate that satisfies every assertion under the exact evaluator.
    pub solution: Option<Model>,
    /// Optional per-variable ordinal bounds for floats (from propagation).
    pub bounds: Vec<Option<(i64, i64)>>,
}

impl<'s> Objective<'s> {
    /// The objective of `assertions` in `store`.
    pub fn new(store: &'s TermStore, assertions: &[TermId], kind: Fitness) -> Objective<'s> {
        let ev = TermEvaluator::new(store, assertions);
        let mut seen = vec![false; store.vars().len()];
        let mut stack = assertions.to_vec();
        let mut visited = vec![false; store.len()];
        while let Some(t) = stack.pop() {
            if std::mem::replace(&mut visited[t.index()], true) {
                continue;
            }
            if let Op::Var(v) = store.get(t).op {
                seen[v.index()] = true;
            }
            stack.extend(store.get(t).args.iter().copied());
        }
        let vars: Vec<SearchVar> = store
            .vars()
            .iter()
            .enumerate()
            .filter(|(i, _)| seen[*i])
            .map(|(i, v)| SearchVar {
                index: i,
                sort: v.sort,
            })
            .collect();
        Objective {
            store,
            assertions: assertions.to_vec(),
            ev,
            kind,
            bounds: vec![None; vars.len()],
            vars,
            base: Model::zeros(store),
            evals: 0,
            solution: None,
        }
    }

    /// The fitness of a candidate (one value per search variable); zero
    /// exactly when every assertion holds. Records a checked solution.
    pub fn fitness(&mut self, cand: &[Value]) -> f64 {
        self.evals += 1;
        for (v, x) in self.vars.iter().zip(cand) {
            self.base.values[v.index] = *x;
        }
        self.ev.run(self.store, &self.base);
        let mut total = 0.0;
        for i in 0..self.assertions.len() {
            let a = self.assertions[i];
            let mut d = self.distance(a, true);
            if self.ev.is_tainted(a) {
                d += K;
            }
            total += d;
        }
        if total == 0.0 && self.solution.is_none() && self.ev.holds(&self.assertions) {
            self.solution = Some(self.base.clone());
        }
        total
    }

    /// Branch distance of Boolean term `t` from value `want` (FloPSy §3).
    fn distance(&self, t: TermId, want: bool) -> f64 {
        let term = self.store.get(t);
        let a = &term.args;
        if self.ev.value(t).as_bool() == want {
            return 0.0;
        }
        match (term.op, want) {
            (Op::Not, _) => self.distance(a[0], !want),
            (Op::And, true) | (Op::Or, false) => {
                self.distance(a[0], want) + self.distance(a[1], want)
            }
            (Op::And, false) | (Op::Or, true) => {
                self.distance(a[0], want).min(self.distance(a[1], want))
            }
            (Op::Implies, true) => self.distance(a[0], false).min(self.distance(a[1], true)),
            (Op::Implies, false) => self.distance(a[0], true) + self.distance(a[1], false),
            (Op::FpLt | Op::FpLeq | Op::FpGt | Op::FpGeq | Op::FpEq, _) => {
                let (x, y) = (self.float(a[0]), self.float(a[1]));
                if x.is_nan() || y.is_nan() {
                    return FAR;
                }
                match (term.op, want) {
                    (Op::FpEq, false) => K,
                    (Op::FpEq, true) => self.gap(a[0], x, y),
                    // x < y wanted, x >= y holds; x >= y wanted, x < y holds; ...
                    _ => self.gap(a[0], x, y) + K,
                }
            }
            (Op::Eq, true) | (Op::Distinct, false) => self.eq_gap(a[0], a[1]),
            (Op::BvUlt | Op::BvUle | Op::BvUgt | Op::BvUge, _) => {
                self.int_gap(a[0], a[1], false) + K
            }
            (Op::BvSlt | Op::BvSle | Op::BvSgt | Op::BvSge, _) => {
                self.int_gap(a[0], a[1], true) + K
            }
            _ => K,
        }
    }

    /// Distance between two values wanted identical (`=`).
    fn eq_gap(&self, a: TermId, b: TermId) -> f64 {
        match self.store.sort(a) {
            Sort::Fp(_) => {
                let (x, y) = (self.float(a), self.float(b));
                if x.is_nan() || y.is_nan() {
                    FAR
                } else {
                    self.gap(a, x, y) + K
                }
            }
            Sort::BitVec(_) => self.int_gap(a, b, false) + K,
            _ => K,
        }
    }

    fn float(&self, t: TermId) -> f64 {
        self.ev.value(t).as_f64().unwrap_or(f64::NAN)
    }

    /// |x - y| in the value space or in ULPs, capped at [`FAR`].
    fn gap(&self, t: TermId, x: f64, y: f64) -> f64 {
        let d = match (self.kind, self.store.sort(t)) {
            (Fitness::Ulp, Sort::Fp(f)) => {
                let f = f.expect_host();
                ord(f, x).abs_diff(ord(f, y)) as f64
            }
            _ => (x - y).abs(),
        };
        if d.is_finite() {
            d.min(FAR)
        } else {
            FAR
        }
    }

    fn int_gap(&self, a: TermId, b: TermId, signed: bool) -> f64 {
        let (Value::Bv(x, w), Value::Bv(y, _)) = (self.ev.value(a), self.ev.value(b)) else {
            return K;
        };
        if signed {
            let s = |v: u64| {
                if w >= 64 {
                    v as i64 as f64
                } else {
                    (((v << (64 - w)) as i64) >> (64 - w)) as f64
                }
            };
            (s(x) - s(y)).abs()
        } else {
            (x as f64 - y as f64).abs()
        }
    }
}

/// Draws a value for a search variable: special values, small numbers,
/// uniform bit patterns and (when known) values inside propagated bounds.
pub fn sample(rng: &mut ChaCha8Rng, sort: Sort, bounds: Option<(i64, i64)>) -> Value {
    match sort {
        Sort::Bool => Value::Bool(rng.gen()),
        Sort::BitVec(w) => {
            let v = match rng.gen_range(0..4) {
                0 => rng.gen_range(0..16u64),
                1 => mask(w).wrapping_sub(rng.gen_range(0..16u64)),
                _ => rng.gen::<u64>(),
            };
            Value::Bv(v & mask(w), w)
        }
        Sort::Fp(f) => {
            let f = f.expect_host();
            let x = match (bounds, rng.gen_range(0..8)) {
                (Some((lo, hi)), 0..=3) => from_ord(f, rng.gen_range(lo..=hi)),
                (_, 0) => {
                    const SPECIAL: [f64; 9] = [
                        0.0,
                        -0.0,
                        1.0,
                        -1.0,
                        2.0,
                        0.5,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NAN,
                    ];
                    SPECIAL[rng.gen_range(0..SPECIAL.len())]
                }
                (_, 1..=3) => rng.gen_range(-100.0..100.0),
                (_, 4 | 5) => {
                    let m: f64 = rng.gen_range(-1.0..1.0);
                    m * 10f64.powi(rng.gen_range(-30..30))
                }
                _ => from_ord(f, rng.gen_range(min_ord(f)..=max_ord(f))),
            };
            float_value(f, round_to(f, x))
        }
        Sort::RoundingMode => Value::Rm(SmtRounding::ALL[rng.gen_range(0..5)]),
    }
}

/// Wraps an f64 (already representable in `f`) as a value of format `f`.
pub fn float_value(f: HostFormat, x: f64) -> Value {
    match f {
        HostFormat::F32 => Value::F32(x as f32),
        HostFormat::F64 => Value::F64(x),
    }
}

/// A search engine as a one-step solver, run by search's executor
/// ([`fpforge_search::run_steps`]) through [`run_engine`].
pub trait SearchEngine {
    /// Performs a bounded unit of work (a move, a generation, a batch).
    fn step(&mut self, obj: &mut Objective<'_>) -> Stepped;
}

/// An engine and the objective it minimizes, as the executor steps them.
struct Bound<'e, 'o, 's> {
    engine: &'e mut dyn SearchEngine,
    obj: &'o mut Objective<'s>,
}

impl OneStep for Bound<'_, '_, '_> {
    fn step(&mut self) -> Stepped {
        self.engine.step(self.obj)
    }

    fn evals(&self) -> u64 {
        self.obj.evals
    }

    fn reached(&self) -> bool {
        self.obj.solution.is_some()
    }
}

/// Runs `engine` until a model is found ([`Stop::TargetsReached`]), `max_evals` more
/// evaluations are spent, or `deadline` passes.
pub fn run_engine(
    engine: &mut dyn SearchEngine,
    obj: &mut Objective<'_>,
    max_evals: u64,
    deadline: Instant,
) -> Stop {
    let limits = Limits::default()
        .with_eval_limit(obj.evals.saturating_add(max_evals))
        .with_deadline(deadline);
    run_steps(&mut Bound { engine, obj }, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitness_is_zero_exactly_on_models() {
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F64);
        let two = s.f64_const(2.0);
        let lt = s.mk(Op::FpLt, &[x, two]).unwrap();
        let not = s.mk(Op::Not, &[lt]).unwrap();
        let mut obj = Objective::new(&s, &[not], Fitness::BranchDistance);
        assert_eq!(obj.fitness(&[Value::F64(0.0)]), 3.0);
        assert_eq!(obj.fitness(&[Value::F64(1.0)]), 2.0);
        assert!(obj.solution.is_none());
        assert_eq!(obj.fitness(&[Value::F64(2.0)]), 0.0);
        assert!(obj.solution.is_some());
        let mut nan = Objective::new(&s, &[lt], Fitness::Ulp);
        assert_eq!(nan.fitness(&[Value::F64(f64::NAN)]), FAR);
        assert_eq!(
            nan.fitness(&[Value::F64(3.0)]),
            (ord(HostFormat::F64, 3.0) - ord(HostFormat::F64, 2.0)) as f64 + K
        );
    }
}
