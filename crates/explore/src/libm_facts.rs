//! Math calls as uninterpreted results for the bit-precise backend.
//!
//! The solver has `exp log atan sin cos tan` only as extension operators, evaluated by
//! the host libm: interval propagation and search take them, the bit-precise backend
//! (which has a circuit for every IEEE operation) does not. [`LibmFacts::abstract_query`]
//! rewrites a query for it: each application `f(x)` becomes a fresh variable `y` (one per
//! distinct application, so equal calls stay equal), constrained only by facts that
//! hold for every input under any libm that returns results in the functions' ranges:
//!
//! | `f` | facts on `y = f(x)` |
//! |---|---|
//! | `sin`, `cos` | NaN exactly when `x` is NaN or infinite; otherwise in [-1, 1] |
//! | `tan` | NaN exactly when `x` is NaN or infinite |
//! | `exp` | NaN exactly when `x` is; never negative (`-0` included) |
//! | `log` | NaN exactly when `x` is NaN or below `-0` |
//! | `atan` | NaN exactly when `x` is; otherwise in [-1.6, 1.6] (beyond ±π/2 and any rounding of it) |
//!
//! The rewritten query is weaker than the original (every model of the original extends
//! to one of it), so its `unsat` proves the original's; its models are only candidates
//! the caller checks against the original.

use fpforge_solve::term::ExtFn;
use fpforge_solve::{FpFormat, Op, SmtRounding, Sort, TermId, TermStore};
use std::collections::{HashMap, HashSet};

/// The fresh variables of the math applications seen so far, kept across the queries of
/// one store so that each application is abstracted once.
#[derive(Debug, Default)]
pub struct LibmFacts {
    /// Per extension application (with abstracted operands), its variable and facts.
    results: HashMap<TermId, (TermId, TermId)>,
}

impl LibmFacts {
    /// `query` with every extension application replaced by its variable, plus the
    /// facts of those variables; `None` when a term cannot be rebuilt.
    pub fn abstract_query(
        &mut self,
        store: &mut TermStore,
        query: &[TermId],
    ) -> Option<Vec<TermId>> {
        let mut order: Vec<TermId> = subterms(store, query).into_iter().collect();
        order.sort_unstable();
        let mut rewritten: HashMap<TermId, TermId> = HashMap::new();
        let mut facts = Vec::new();
        for t in order {
            let term = store.get(t).clone();
            let args: Vec<TermId> = term.args.iter().map(|a| rewritten[a]).collect();
            let rebuilt = if args[..] == term.args[..] {
                t
            } else {
                store.mk(term.op, &args).ok()?
            };
            let new = match term.op {
                Op::Ext(f) => {
                    let (var, fact) = match self.results.get(&rebuilt) {
                        Some(&known) => known,
                        None => {
                            let made = result_var(store, f, args[0], term.sort)?;
                            self.results.insert(rebuilt, made);
                            made
                        }
                    };
                    facts.push(fact);
                    var
                }
                _ => rebuilt,
            };
            rewritten.insert(t, new);
        }
        let mut out: Vec<TermId> = query.iter().map(|t| rewritten[t]).collect();
        facts.sort_unstable();
        facts.dedup();
        out.extend(facts);
        Some(out)
    }
}

/// Every term `roots` use, themselves included.
pub fn subterms(store: &TermStore, roots: &[TermId]) -> HashSet<TermId> {
    let mut seen = HashSet::new();
    let mut stack = roots.to_vec();
    while let Some(t) = stack.pop() {
        if seen.insert(t) {
            stack.extend(store.get(t).args.iter().copied());
        }
    }
    seen
}

/// A fresh variable for `f(x)` of sort `sort` and the conjunction of its facts.
fn result_var(store: &mut TermStore, f: ExtFn, x: TermId, sort: Sort) -> Option<(TermId, TermId)> {
    let Sort::Fp(format) = sort else {
        return None;
    };
    let name = format!("libm.{f:?}.{}", store.vars().len()).to_lowercase();
    let y = store.declare(&name, sort);
    let mut b = Facts { store, format };
    let x_nan = b.mk(Op::FpIsNaN, &[x])?;
    let y_nan = b.mk(Op::FpIsNaN, &[y])?;
    let x_inf = b.mk(Op::FpIsInfinite, &[x])?;
    let nan_or_inf = b.mk(Op::Or, &[x_nan, x_inf])?;
    let fact = match f {
        ExtFn::Sin | ExtFn::Cos => {
            let nan = b.mk(Op::Eq, &[y_nan, nan_or_inf])?;
            let range = b.within(y, y_nan, 1.0)?;
            b.mk(Op::And, &[nan, range])?
        }
        ExtFn::Tan => b.mk(Op::Eq, &[y_nan, nan_or_inf])?,
        ExtFn::Exp => {
            let nan = b.mk(Op::Eq, &[y_nan, x_nan])?;
            let negative = b.mk(Op::FpIsNegative, &[y])?;
            let never_negative = b.mk(Op::Not, &[negative])?;
            b.mk(Op::And, &[nan, never_negative])?
        }
        ExtFn::Log => {
            let zero = b.constant(0.0, SmtRounding::Rne)?;
            let below = b.mk(Op::FpLt, &[x, zero])?;
            let undefined = b.mk(Op::Or, &[x_nan, below])?;
            b.mk(Op::Eq, &[y_nan, undefined])?
        }
        ExtFn::Atan => {
            let nan = b.mk(Op::Eq, &[y_nan, x_nan])?;
            let range = b.within(y, y_nan, 1.6)?;
            b.mk(Op::And, &[nan, range])?
        }
    };
    Some((y, fact))
}

/// Builds fact terms in one format.
struct Facts<'s> {
    store: &'s mut TermStore,
    format: FpFormat,
}

impl Facts<'_> {
    fn mk(&mut self, op: Op, args: &[TermId]) -> Option<TermId> {
        self.store.mk(op, args).ok()
    }

    /// `x` in the format, rounded by `mode` (a bound stays a bound in a narrow format).
    fn constant(&mut self, x: f64, mode: SmtRounding) -> Option<TermId> {
        let wide = self.store.f64_const(x);
        if self.format == FpFormat::F64 {
            return Some(wide);
        }
        let rm = self.store.rm_const(mode);
        self.mk(Op::FpToFp(self.format), &[rm, wide])
    }

    /// `y` is NaN (`y_nan`) or in [-bound, bound] (rounded outward).
    fn within(&mut self, y: TermId, y_nan: TermId, bound: f64) -> Option<TermId> {
        let lo = self.constant(-bound, SmtRounding::Rtn)?;
        let hi = self.constant(bound, SmtRounding::Rtp)?;
        let above = self.mk(Op::FpGeq, &[y, lo])?;
        let below = self.mk(Op::FpLeq, &[y, hi])?;
        let inside = self.mk(Op::And, &[above, below])?;
        self.mk(Op::Or, &[y_nan, inside])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpforge_solve::{Answer, SolveConfig, Solver, Strategy};

    /// Decides `query` abstracted, by the bit-precise backend alone.
    fn bit_precise(store: &mut TermStore, query: &[TermId]) -> Answer {
        let weaker = LibmFacts::default().abstract_query(store, query).unwrap();
        let cfg = SolveConfig::default().with_strategy(Strategy::BitPrecise);
        Solver::new(store, cfg).check(&weaker)
    }

    fn apply(store: &mut TermStore, f: ExtFn, x: TermId) -> TermId {
        store.mk(Op::Ext(f), &[x]).unwrap()
    }

    #[test]
    fn each_fact_rules_out_what_no_libm_returns_and_allows_what_they_do() {
        let cases: [(ExtFn, f64, bool); 8] = [
            (ExtFn::Sin, 1.5, false),
            (ExtFn::Cos, -1.0, true),
            (ExtFn::Tan, 1e300, true),
            (ExtFn::Exp, -0.5, false),
            (ExtFn::Exp, 0.0, true),
            (ExtFn::Log, -1e300, true),
            (ExtFn::Atan, 1.61, false),
            (ExtFn::Atan, -1.57, true),
        ];
        for (f, bound, reachable) in cases {
            let mut store = TermStore::new();
            let x = store.declare("x", Sort::F64);
            let y = apply(&mut store, f, x);
            let c = store.f64_const(bound);
            // f(x) <= bound for a negative bound, >= for a positive one.
            let op = if bound < 0.0 { Op::FpLeq } else { Op::FpGeq };
            let q = store.mk(op, &[y, c]).unwrap();
            let answer = bit_precise(&mut store, &[q]);
            assert_eq!(
                matches!(answer, Answer::Sat(_)),
                reachable,
                "{f:?} vs {bound}: {answer:?}"
            );
            assert_eq!(
                matches!(answer, Answer::Unsat),
                !reachable,
                "{f:?} vs {bound}"
            );
        }
    }

    #[test]
    fn equal_applications_share_one_result_and_nan_follows_the_operand() {
        let mut store = TermStore::new();
        let x = store.declare("x", Sort::F64);
        let a = apply(&mut store, ExtFn::Sin, x);
        let b = apply(&mut store, ExtFn::Sin, x);
        let differ = store.mk(Op::FpLt, &[a, b]).unwrap();
        assert!(matches!(bit_precise(&mut store, &[differ]), Answer::Unsat));
        // exp(x) is NaN only for a NaN x.
        let e = apply(&mut store, ExtFn::Exp, x);
        let e_nan = store.mk(Op::FpIsNaN, &[e]).unwrap();
        let x_nan = store.mk(Op::FpIsNaN, &[x]).unwrap();
        let x_num = store.mk(Op::Not, &[x_nan]).unwrap();
        assert!(matches!(
            bit_precise(&mut store, &[e_nan, x_num]),
            Answer::Unsat
        ));
    }
}
