//! Labeling: depth-first search over domain splits (FPSE, Botella et al.
//! 2006, §5.3). A variable is chosen by the selected heuristic, its float
//! domain is split at the float that halves the count of floats in it
//! (`x = v`, then `x < v`, then `x > v`; NaN separately), bit-vector ranges
//! are halved (each half keeps the known bits, so no value is lost),
//! Booleans tried both ways and rounding modes one by one; each child is propagated. A node whose
//! variables are all single values is checked with the exact evaluator.
//! Exhausting the tree proves that no model exists.

use std::time::Instant;

use super::propagate::{single_value, Doms, Propagator};
use super::{BDom, Dom, FDom, RmSet, CAN_FALSE, CAN_TRUE};
use crate::eval::{satisfying_choice, Model, TermEvaluator};
use crate::term::{Op, TermId, TermStore};

/// Which variable to split next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum VarOrder {
    /// The variable with the most values (balances float splits).
    #[default]
    LargestFirst,
    /// The variable with the fewest values above one (first-fail).
    FirstFail,
    /// Declaration order.
    InOrder,
}

/// The result of a labeling run.
#[derive(Clone, Debug)]
pub enum LabelOutcome {
    /// A model, checked by the evaluator.
    Sat(Model),
    /// The tree was exhausted: no model exists.
    Unsat,
    /// The node or time budget ran out.
    Unknown,
}

/// Labeling over a propagation network.
pub struct Labeling<'s> {
    store: &'s TermStore,
    roots: Vec<TermId>,
    prop: Propagator<'s>,
    vars: Vec<TermId>,
    order: VarOrder,
    /// Search nodes visited.
    pub nodes: u64,
    /// Nodes that ended in a propagation conflict.
    pub conflicts: u64,
    /// Set when a leaf was rejected only because a result SMT-LIB leaves
    /// unspecified and models do not choose (e.g. `fp.to_sbv` out of range) was
    /// involved; such a leaf might be a model under another interpretation, so
    /// `unsat` is withheld.
    incomplete: bool,
    /// The open nodes of the depth-first search, kept between calls so that
    /// a portfolio can resume labeling where it stopped.
    stack: Vec<(Doms, Option<TermId>)>,
}

impl<'s> Labeling<'s> {
    /// Labeling for `roots` with the given cut-offs and variable order.
    pub fn new(
        store: &'s TermStore,
        roots: &[TermId],
        direct_eps: f64,
        indirect_eps: f64,
        order: VarOrder,
    ) -> Labeling<'s> {
        let prop = Propagator::new(store, roots, direct_eps, indirect_eps);
        let vars = prop
            .cone()
            .iter()
            .copied()
            .filter(|&t| matches!(store.get(t).op, Op::Var(_)))
            .collect();
        Labeling {
            store,
            roots: roots.to_vec(),
            prop,
            vars,
            order,
            nodes: 0,
            conflicts: 0,
            incomplete: false,
            stack: Vec::new(),
        }
    }

    /// Constraint revisions so far.
    pub fn revisions(&self) -> u64 {
        self.prop.revisions
    }

    /// Propagates the root and makes it the first open node; returns the
    /// root domains, or `None` on a root conflict (then the search is over).
    pub fn root(&mut self) -> Option<Doms> {
        let root = self.prop.initial().ok()?;
        self.stack = vec![(root.clone(), None)];
        Some(root)
    }

    fn choose(&self, doms: &Doms) -> Option<TermId> {
        let open = self
            .vars
            .iter()
            .copied()
            .filter(|v| doms[v.index()].count() > 1);
        match self.order {
            VarOrder::InOrder => open.min_by_key(|v| v.0),
            VarOrder::LargestFirst => {
                open.max_by_key(|v| (doms[v.index()].count(), std::cmp::Reverse(v.0)))
            }
            VarOrder::FirstFail => open.min_by_key(|v| (doms[v.index()].count(), v.0)),
        }
    }

    /// Children of a split, in exploration order.
    fn split(d: &Dom) -> Vec<Dom> {
        match *d {
            Dom::Bool(_) => vec![Dom::Bool(CAN_FALSE), Dom::Bool(CAN_TRUE)],
            Dom::Fp(x) if x.nan && !x.range_empty() => {
                vec![Dom::Fp(FDom { nan: false, ..x }), Dom::Fp(FDom::nan_only())]
            }
            Dom::Fp(x) => {
                let mid = x.lo + ((i128::from(x.hi) - i128::from(x.lo)) / 2) as i64;
                let mut v = vec![Dom::Fp(FDom::range(mid, mid))];
                if mid > x.lo {
                    v.push(Dom::Fp(FDom::range(x.lo, mid - 1)));
                }
                if mid < x.hi {
                    v.push(Dom::Fp(FDom::range(mid + 1, x.hi)));
                }
                v
            }
            Dom::Bv(x) => {
                // Halve the range; each half keeps the known bits (and is
                // reduced by them), so the halves partition the values.
                let mid = x.lo + (x.hi - x.lo) / 2;
                vec![
                    Dom::Bv(x.meet(&BDom::range(x.lo, mid))),
                    Dom::Bv(x.meet(&BDom::range(mid + 1, x.hi))),
                ]
            }
            Dom::Rm(m) => m.modes().map(|r| Dom::Rm(RmSet::single(r))).collect(),
        }
    }

    fn model_of(&self, doms: &Doms) -> Model {
        let mut m = Model::zeros(self.store);
        for &v in &self.vars {
            if let (Op::Var(id), Some(val)) = (
                self.store.get(v).op,
                single_value(&doms[v.index()], self.store.sort(v)),
            ) {
                m.values[id.index()] = val;
            }
        }
        m
    }

    /// Continues depth-first labeling from the open nodes (see
    /// [`Labeling::root`]) for at most `max_nodes` nodes or until `deadline`.
    pub fn search(&mut self, max_nodes: u64, deadline: Instant) -> LabelOutcome {
        let limit = self.nodes.saturating_add(max_nodes);
        while let Some((mut doms, changed)) = self.stack.pop() {
            if self.nodes >= limit || (self.nodes.is_multiple_of(64) && Instant::now() >= deadline)
            {
                self.stack.push((doms, changed));
                return LabelOutcome::Unknown;
            }
            self.nodes += 1;
            if let Some(v) = changed {
                if self.prop.propagate(&mut doms, &[v]).is_err() {
                    self.conflicts += 1;
                    continue;
                }
            }
            let Some(var) = self.choose(&doms) else {
                let mut m = self.model_of(&doms);
                if let Some(choice) = satisfying_choice(self.store, &self.roots, &m) {
                    m.zero_choice = choice;
                    return LabelOutcome::Sat(m);
                }
                let mut ev = TermEvaluator::new(self.store, &self.roots);
                ev.run(self.store, &m);
                if self.roots.iter().any(|&r| ev.is_tainted(r)) {
                    self.incomplete = true;
                }
                self.conflicts += 1;
                continue;
            };
            for child in Self::split(&doms[var.index()]).into_iter().rev() {
                let mut d = doms.clone();
                d[var.index()] = child;
                self.stack.push((d, Some(var)));
            }
        }
        if self.incomplete {
            LabelOutcome::Unknown
        } else {
            LabelOutcome::Unsat
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::check_model;
    use crate::sort::Sort;
    use std::time::Duration;

    fn run(s: &TermStore, roots: &[TermId]) -> LabelOutcome {
        run_with(s, roots, VarOrder::LargestFirst)
    }

    fn run_with(s: &TermStore, roots: &[TermId], order: VarOrder) -> LabelOutcome {
        let mut l = Labeling::new(s, roots, 0.0, 0.1, order);
        if l.root().is_none() {
            return LabelOutcome::Unsat;
        }
        l.search(1_000_000, Instant::now() + Duration::from_secs(20))
    }

    #[test]
    fn labeling_proves_small_unsat_and_finds_models() {
        // x + 1 == x, 0 <= x <= 100: unsat, needs splitting.
        let mut s = TermStore::new();
        let (_x, eq, ge, le) = crate::interval::test_formulas::bounded_absorption(&mut s);
        for order in [
            VarOrder::LargestFirst,
            VarOrder::FirstFail,
            VarOrder::InOrder,
        ] {
            assert!(matches!(
                run_with(&s, &[eq, ge, le], order),
                LabelOutcome::Unsat
            ));
        }
        // Without the bound there are models (large x absorbs 1).
        match run(&s, &[eq]) {
            LabelOutcome::Sat(m) => assert!(check_model(&s, &[eq], &m)),
            other => panic!("expected sat, got {other:?}"),
        }
    }

    #[test]
    fn labeling_handles_bit_vectors_and_nan() {
        let mut s = TermStore::new();
        let b = s.declare("b", Sort::BitVec(8));
        let k = s.bv_const(200, 8).unwrap();
        let gt = s.mk(Op::BvUgt, &[b, k]).unwrap();
        let x = s.declare("x", Sort::F64);
        let nan = s.mk(Op::FpIsNaN, &[x]).unwrap();
        let rne = s.rm_const(crate::sort::SmtRounding::Rne);
        let y = s.mk(Op::FpAdd, &[rne, x, x]).unwrap();
        let isnan_y = s.mk(Op::FpIsNaN, &[y]).unwrap();
        let not_nan_y = s.mk(Op::Not, &[isnan_y]).unwrap();
        match run(&s, &[gt, nan]) {
            LabelOutcome::Sat(m) => assert!(check_model(&s, &[gt, nan], &m)),
            other => panic!("expected sat, got {other:?}"),
        }
        assert!(matches!(run(&s, &[nan, not_nan_y]), LabelOutcome::Unsat));
    }

    /// Random bit-vector formulas over three 4-bit variables: labeling
    /// answers exactly as brute force over all 4096 assignments (so no
    /// projection removed a model and exhausted labeling is a proof).
    #[test]
    fn bit_vector_labeling_matches_brute_force() {
        use crate::eval::Value;
        use rand::{Rng, SeedableRng};
        use rand_chacha::ChaCha8Rng;

        fn term(s: &mut TermStore, vars: &[TermId], rng: &mut ChaCha8Rng, d: u32) -> TermId {
            if d == 0 || rng.gen_bool(0.25) {
                return if rng.gen_bool(0.7) {
                    vars[rng.gen_range(0..vars.len())]
                } else {
                    s.bv_const(rng.gen_range(0..16), 4).unwrap()
                };
            }
            let a = term(s, vars, rng, d - 1);
            let b = term(s, vars, rng, d - 1);
            let binary = [
                Op::BvAnd,
                Op::BvOr,
                Op::BvXor,
                Op::BvAdd,
                Op::BvSub,
                Op::BvMul,
                Op::BvUdiv,
                Op::BvUrem,
                Op::BvShl,
                Op::BvLshr,
                Op::BvAshr,
            ];
            match rng.gen_range(0..16) {
                0 => s.mk(Op::BvNot, &[a]).unwrap(),
                1 => s.mk(Op::BvNeg, &[a]).unwrap(),
                2 => {
                    let c = s.mk(Op::Concat, &[a, b]).unwrap();
                    let (h, l) = [(3, 0), (7, 4), (5, 2)][rng.gen_range(0..3)];
                    s.mk(Op::Extract(h, l), &[c]).unwrap()
                }
                3 => {
                    let ext = [Op::SignExtend(3), Op::ZeroExtend(3)][rng.gen_range(0..2)];
                    let e = s.mk(ext, &[a]).unwrap();
                    let (h, l) = [(3, 0), (6, 3), (5, 2)][rng.gen_range(0..3)];
                    s.mk(Op::Extract(h, l), &[e]).unwrap()
                }
                _ => s
                    .mk(binary[rng.gen_range(0..binary.len())], &[a, b])
                    .unwrap(),
            }
        }

        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let (mut sat, mut unsat) = (0, 0);
        for _ in 0..200 {
            let mut s = TermStore::new();
            let vars: Vec<TermId> = ["a", "b", "c"]
                .iter()
                .map(|n| s.declare(n, Sort::BitVec(4)))
                .collect();
            let mut roots = Vec::new();
            for _ in 0..rng.gen_range(1..4) {
                let (x, y) = (
                    term(&mut s, &vars, &mut rng, 3),
                    term(&mut s, &vars, &mut rng, 2),
                );
                let cmp = [
                    Op::Eq,
                    Op::Distinct,
                    Op::BvUlt,
                    Op::BvUle,
                    Op::BvUgt,
                    Op::BvSlt,
                    Op::BvSle,
                    Op::BvSge,
                ][rng.gen_range(0..8)];
                let atom = s.mk(cmp, &[x, y]).unwrap();
                roots.push(if rng.gen_bool(0.2) {
                    s.mk(Op::Not, &[atom]).unwrap()
                } else {
                    atom
                });
            }
            let mut m = Model::zeros(&s);
            let mut models = 0;
            for v in 0..4096u64 {
                for (k, &var) in vars.iter().enumerate() {
                    let Op::Var(id) = s.get(var).op else {
                        unreachable!()
                    };
                    m.values[id.index()] = Value::Bv((v >> (4 * k)) & 15, 4);
                }
                models += u32::from(check_model(&s, &roots, &m));
            }
            match run(&s, &roots) {
                LabelOutcome::Sat(m) => {
                    assert!(check_model(&s, &roots, &m));
                    sat += 1;
                }
                LabelOutcome::Unsat => {
                    assert_eq!(models, 0, "unsat claimed, {models} models");
                    unsat += 1;
                }
                LabelOutcome::Unknown => panic!("small formula left open"),
            }
        }
        assert!(sat > 30 && unsat > 30, "sat {sat}, unsat {unsat}");
    }
}
