//! Constraint propagation over term domains (FPSE, Botella et al. 2006, §5).
//!
//! Every non-leaf term `t = op(args)` is a constraint. Revising it applies the
//! direct projection (narrowing `t`) and then the indirect projections
//! (narrowing each argument); a domain that changes re-schedules the
//! constraints it takes part in, AC-3 style, until a fixpoint, an empty domain
//! (a conflict), or the revision cap. To avoid FPSE's slow convergence, a
//! change smaller than the configured fraction of the domain (0 for direct,
//! 10% for indirect projections by default) is kept but does not re-schedule.
//!
//! Dedicated projections: the Boolean connectives, `ite`, `=`/`distinct`,
//! `fp.add`/`sub`/`mul`/`div` (squares separately), `neg`, `abs`, `sqrt`,
//! `roundToIntegral`, float-to-float conversion, comparisons and
//! classification (direct and indirect); `min`/`max` (direct, and the bound
//! the result puts on each operand); `fma`, `to_fp` from bit-vectors and
//! `fp.to_sbv` (direct); bit patterns to floats both ways,
//! where a sign half of the patterns (a known sign bit) fixes the float's sign
//! and known exponent bits bound its magnitude, and the floats' sign parts and
//! NaN give ranges and known bits of the patterns; the bit-vector operators of
//! [`super::bv`] on ranges plus known bits, direct and indirect (logic,
//! shifts by constants and ranges, `extract`/`concat`/extensions, modular
//! `bvadd`/`bvsub`, `bvmul` with an inverse for constants, unsigned and signed
//! comparisons). Other operators (`fp.rem`, `fp.to_ubv`,
//! signed division, ...) are handled by
//! evaluation once all their arguments are single values; labeling makes
//! every variable a single value eventually, so propagation plus labeling
//! stays complete.

use std::collections::VecDeque;

use fpforge_search::ordinal::{from_ord, max_ord, min_ord, ord};

use super::proj::{self, Arith, Cmp, Monotone};
use super::{bv, BDom, Dom, FDom, RmSet, Tnum, CAN_FALSE, CAN_TRUE};
use crate::eval::{apply, Value};
use crate::sort::{HostFormat, SmtRounding, Sort};
use crate::term::{mask, Op, TermId, TermStore};

/// Revisions allowed per call to [`Propagator::propagate`].
const MAX_REVISIONS: u64 = 200_000;

/// Domains of all terms, indexed by [`TermId`].
pub type Doms = Vec<Dom>;

/// An empty domain was derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict;

/// The propagation network of a set of assertions.
pub struct Propagator<'s> {
    store: &'s TermStore,
    roots: Vec<TermId>,
    cone: Vec<TermId>,
    parents: Vec<Vec<TermId>>,
    queued: Vec<bool>,
    queue: VecDeque<TermId>,
    direct_eps: f64,
    indirect_eps: f64,
    /// Constraint revisions performed so far.
    pub revisions: u64,
}

fn bool_dom(can_false: bool, can_true: bool) -> Dom {
    Dom::Bool(if can_false { CAN_FALSE } else { 0 } | if can_true { CAN_TRUE } else { 0 })
}

fn fdom(d: &Dom) -> FDom {
    match d {
        Dom::Fp(x) => *x,
        _ => FDom::empty(),
    }
}

fn bdom(d: &Dom) -> BDom {
    match d {
        Dom::Bv(x) => *x,
        _ => BDom::EMPTY,
    }
}

fn bits(d: &Dom) -> u8 {
    match d {
        Dom::Bool(b) => *b,
        _ => 0,
    }
}

fn bv_width(sort: Sort) -> u32 {
    match sort {
        Sort::BitVec(w) => w,
        _ => 64,
    }
}

fn rm_set(d: &Dom) -> RmSet {
    match d {
        Dom::Rm(m) => *m,
        _ => RmSet(0),
    }
}

/// The integer `(-1)^neg * mag` rounded to format `f` in mode `rm`, widened.
fn int_to_float(f: HostFormat, rm: SmtRounding, neg: bool, mag: u64) -> f64 {
    let bits = crate::ieee::from_integer(f.into(), rm, neg, u128::from(mag));
    Value::from_float_bits(f.into(), bits)
        .as_f64()
        .unwrap_or(f64::NAN)
}

fn fmt_of(sort: Sort) -> HostFormat {
    match sort {
        Sort::Fp(f) => f.expect_host(),
        _ => HostFormat::F64,
    }
}

/// The single value of a domain, if it has exactly one.
pub fn single_value(d: &Dom, sort: Sort) -> Option<Value> {
    match (d, sort) {
        (Dom::Bool(b), _) => match *b {
            CAN_TRUE => Some(Value::Bool(true)),
            CAN_FALSE => Some(Value::Bool(false)),
            _ => None,
        },
        (Dom::Fp(x), Sort::Fp(f)) => {
            if x.count() != 1 {
                return None;
            }
            let f = f.expect_host();
            let v = if x.nan { f64::NAN } else { from_ord(f, x.lo) };
            Some(match f {
                HostFormat::F32 => Value::F32(v as f32),
                HostFormat::F64 => Value::F64(v),
            })
        }
        (Dom::Bv(x), Sort::BitVec(w)) => (x.lo == x.hi).then_some(Value::Bv(x.lo, w)),
        (Dom::Rm(m), _) => m.value().map(Value::Rm),
        _ => None,
    }
}

/// The domain holding exactly `v`.
pub fn value_dom(v: Value) -> Dom {
    match v {
        Value::Bool(b) => bool_dom(!b, b),
        Value::F32(x) if x.is_nan() => Dom::Fp(FDom::nan_only()),
        Value::F64(x) if x.is_nan() => Dom::Fp(FDom::nan_only()),
        Value::F32(x) => {
            let o = ord(HostFormat::F32, f64::from(x));
            Dom::Fp(FDom::range(o, o))
        }
        Value::F64(x) => {
            let o = ord(HostFormat::F64, x);
            Dom::Fp(FDom::range(o, o))
        }
        Value::Bv(x, _) => Dom::Bv(BDom::single(x)),
        Value::Rm(r) => Dom::Rm(RmSet::single(r)),
        Value::Float(..) => unreachable!("the interval domain runs on binary32/binary64 only"),
    }
}

/// Whether a float domain lost NaN, an infinity, a zero or a sign: such
/// changes enable other projections (finite operands, fixed signs) however
/// few values they remove, so they always re-schedule.
fn structural_change(old: &Dom, new: &Dom) -> bool {
    let (Dom::Fp(a), Dom::Fp(b)) = (old, new) else {
        return false;
    };
    let inf = |d: &FDom| {
        !d.range_empty()
            && (d.lo == min_ord(HostFormat::F32)
                || d.lo == min_ord(HostFormat::F64)
                || d.hi == max_ord(HostFormat::F32)
                || d.hi == max_ord(HostFormat::F64))
    };
    let signs = |d: &FDom| (!d.range_empty() && d.lo < 0, !d.range_empty() && d.hi >= 0);
    a.nan != b.nan || inf(a) != inf(b) || a.has_zero() != b.has_zero() || signs(a) != signs(b)
}

/// The floats whose bit patterns lie in `x` (of format `f`): each sign half
/// of `x` (met with the known bits) gives a range of ordinals — positive
/// patterns map to ordinals identically, negative ones in reverse — and NaN
/// when it holds a pattern above the infinity's; the result is their hull.
/// So a known sign bit fixes the float's sign, and known exponent bits bound
/// its magnitude through the range they reduce to.
fn patterns_to_floats(f: HostFormat, x: BDom) -> FDom {
    let sign = 1u64 << (f.width() - 1);
    let inf = max_ord(f) as u64;
    let mut out = FDom::empty();
    for base in [0, sign] {
        let half = x.meet(&BDom::range(base, base | (sign - 1)));
        if half.is_empty() {
            continue;
        }
        let num = half.meet(&BDom::range(base, base | inf));
        if !num.is_empty() {
            let (lo, hi) = ((num.lo - base) as i64, (num.hi - base) as i64);
            let r = if base == 0 {
                FDom::range(lo, hi)
            } else {
                FDom::range(-hi - 1, -lo - 1)
            };
            out = out.join(&r);
        }
        if half.hi > base | inf {
            out.nan = true;
        }
    }
    out
}

/// The bit patterns of the floats of `z`: the pattern range of each sign
/// part (their join keeps the bits both share, e.g. a small exponent's
/// leading zeros), and for NaN every pattern with an all-ones exponent.
fn floats_to_patterns(f: HostFormat, z: FDom) -> BDom {
    let sign = 1u64 << (f.width() - 1);
    let inf = max_ord(f) as u64;
    let mut out = BDom::EMPTY;
    let p = z.pos_part();
    if !p.range_empty() {
        out = out.join(&BDom::range(p.lo as u64, p.hi as u64));
    }
    let n = z.neg_part();
    if !n.range_empty() {
        out = out.join(&BDom::range(
            sign | (-n.hi - 1) as u64,
            sign | (-n.lo - 1) as u64,
        ));
    }
    if z.nan {
        let nan = BDom::new(
            inf + 1,
            mask(f.width()),
            Tnum {
                val: inf,
                unk: sign | ((inf & inf.wrapping_neg()) - 1),
            },
        );
        out = out.join(&nan);
    }
    out
}

/// Removes one value (given as its single-value domain) from the ends of `d`.
fn remove_end(d: &Dom, v: &Dom) -> Dom {
    match (d, v) {
        (Dom::Fp(x), Dom::Fp(s)) => {
            let mut x = *x;
            if s.nan {
                x.nan = false;
            } else {
                if x.lo == s.lo {
                    x.lo += 1;
                }
                if x.hi == s.lo {
                    x.hi -= 1;
                }
            }
            Dom::Fp(x.meet(&x))
        }
        (Dom::Bv(x), Dom::Bv(s)) => {
            let (mut lo, mut hi) = (x.lo, x.hi);
            if lo == s.lo {
                lo = lo.wrapping_add(1);
                if lo == 0 {
                    return Dom::Bv(BDom::EMPTY);
                }
            }
            if hi == s.lo {
                if hi == 0 {
                    return Dom::Bv(BDom::EMPTY);
                }
                hi -= 1;
            }
            Dom::Bv(BDom::new(lo, hi, x.bits))
        }
        (Dom::Bool(x), Dom::Bool(s)) => Dom::Bool(x & !s),
        (Dom::Rm(x), Dom::Rm(s)) => Dom::Rm(RmSet(x.0 & !s.0)),
        _ => *d,
    }
}

impl<'s> Propagator<'s> {
    /// A network for `roots`; epsilons as in [`crate::SolveConfig`].
    pub fn new(
        store: &'s TermStore,
        roots: &[TermId],
        direct_eps: f64,
        indirect_eps: f64,
    ) -> Propagator<'s> {
        let mut seen = vec![false; store.len()];
        let mut stack = roots.to_vec();
        while let Some(t) = stack.pop() {
            if std::mem::replace(&mut seen[t.index()], true) {
                continue;
            }
            stack.extend(store.get(t).args.iter().copied());
        }
        let cone: Vec<TermId> = (0..store.len() as u32)
            .map(TermId)
            .filter(|t| seen[t.index()])
            .collect();
        let mut parents = vec![Vec::new(); store.len()];
        for &t in &cone {
            for &a in store.get(t).args.iter() {
                if !parents[a.index()].contains(&t) {
                    parents[a.index()].push(t);
                }
            }
        }
        Propagator {
            store,
            roots: roots.to_vec(),
            cone,
            parents,
            queued: vec![false; store.len()],
            queue: VecDeque::new(),
            direct_eps,
            indirect_eps,
            revisions: 0,
        }
    }

    /// The terms the assertions depend on, in id order.
    pub fn cone(&self) -> &[TermId] {
        &self.cone
    }

    /// Initial domains: constants are single values, roots are `true`,
    /// everything else is unconstrained. Then propagates.
    pub fn initial(&mut self) -> Result<Doms, Conflict> {
        let mut doms: Doms = (0..self.store.len())
            .map(|i| Dom::full(self.store.sort(TermId(i as u32))))
            .collect();
        for &t in &self.cone {
            let term = self.store.get(t);
            if term.args.is_empty() && !matches!(term.op, Op::Var(_)) {
                if let Some(v) = apply(term.op, &[]) {
                    doms[t.index()] = value_dom(v);
                }
            }
        }
        for &r in &self.roots {
            doms[r.index()] = doms[r.index()].meet(&Dom::Bool(CAN_TRUE));
            if doms[r.index()].is_empty() {
                return Err(Conflict);
            }
        }
        let all: Vec<TermId> = self.cone.clone();
        self.propagate(&mut doms, &all)?;
        Ok(doms)
    }

    /// Propagates after the domains of `changed` were narrowed.
    pub fn propagate(&mut self, doms: &mut Doms, changed: &[TermId]) -> Result<(), Conflict> {
        for &t in changed {
            self.schedule(t);
        }
        let limit = self.revisions + MAX_REVISIONS;
        let result = loop {
            let Some(t) = self.queue.pop_front() else {
                break Ok(());
            };
            self.queued[t.index()] = false;
            if self.revisions >= limit {
                continue;
            }
            self.revisions += 1;
            if let Err(c) = self.revise(doms, t) {
                break Err(c);
            }
        };
        while let Some(t) = self.queue.pop_front() {
            self.queued[t.index()] = false;
        }
        result
    }

    fn enqueue(&mut self, t: TermId) {
        if !self.store.get(t).args.is_empty()
            && !std::mem::replace(&mut self.queued[t.index()], true)
        {
            self.queue.push_back(t);
        }
    }

    /// Schedules `t`'s own constraint and those of its parents.
    fn schedule(&mut self, t: TermId) {
        self.enqueue(t);
        for i in 0..self.parents[t.index()].len() {
            let p = self.parents[t.index()][i];
            self.enqueue(p);
        }
    }

    fn update(&mut self, doms: &mut Doms, t: TermId, new: Dom, eps: f64) -> Result<(), Conflict> {
        let old = doms[t.index()];
        let n = old.meet(&new);
        if n.is_empty() {
            return Err(Conflict);
        }
        if n == old {
            return Ok(());
        }
        doms[t.index()] = n;
        let (oc, nc) = (old.count(), n.count());
        let significant = eps <= 0.0
            || nc <= 2
            || (oc - nc) as f64 >= eps * oc as f64
            || structural_change(&old, &n);
        if significant {
            self.schedule(t);
        }
        Ok(())
    }

    /// Revises constraint `t` by the projections of its operator family.
    fn revise(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        match self.store.get(t).op {
            Op::Var(_) | Op::BoolConst(_) | Op::FpConst(..) | Op::BvConst(..) | Op::RmConst(_) => {
                Ok(())
            }
            Op::Not
            | Op::And
            | Op::Or
            | Op::Implies
            | Op::Ite
            | Op::Eq
            | Op::Distinct
            | Op::Xor => self.revise_logic(doms, t),
            Op::FpAdd
            | Op::FpSub
            | Op::FpMul
            | Op::FpDiv
            | Op::FpFma
            | Op::FpMin
            | Op::FpMax
            | Op::FpNeg
            | Op::FpAbs
            | Op::Ext(_)
            | Op::FpSqrt
            | Op::FpRoundToIntegral
            | Op::FpToFp(_) => self.revise_fp_arith(doms, t),
            Op::FpLt
            | Op::FpLeq
            | Op::FpGt
            | Op::FpGeq
            | Op::FpEq
            | Op::FpIsNaN
            | Op::FpIsZero
            | Op::FpIsInfinite
            | Op::FpIsNegative
            | Op::FpIsPositive
            | Op::FpIsNormal
            | Op::FpIsSubnormal => self.revise_fp_test(doms, t),
            Op::BitsToFp(_)
            | Op::FpToBits(_)
            | Op::UbvToFp(_)
            | Op::SbvToFp(_)
            | Op::FpToSbv(_) => self.revise_conversion(doms, t),
            Op::BvNot
            | Op::BvNeg
            | Op::BvAnd
            | Op::BvOr
            | Op::BvXor
            | Op::BvAdd
            | Op::BvSub
            | Op::BvMul
            | Op::BvUdiv
            | Op::BvUrem
            | Op::BvShl
            | Op::BvLshr
            | Op::BvAshr
            | Op::Extract(..)
            | Op::Concat
            | Op::ZeroExtend(_)
            | Op::SignExtend(_) => self.revise_bv_op(doms, t),
            Op::BvUlt
            | Op::BvUle
            | Op::BvUgt
            | Op::BvUge
            | Op::BvSlt
            | Op::BvSle
            | Op::BvSgt
            | Op::BvSge => self.revise_bv_cmp(doms, t),
            _ => self.fallback(doms, t),
        }
    }

    /// A direct projection: narrows term `t` to `dom`.
    fn direct(&mut self, t: TermId, dom: Dom, doms: &mut Doms) -> Result<(), Conflict> {
        self.update(doms, t, dom, self.direct_eps)
    }

    /// An indirect projection: narrows argument `arg` to `dom`.
    fn indirect(&mut self, arg: TermId, dom: Dom, doms: &mut Doms) -> Result<(), Conflict> {
        self.update(doms, arg, dom, self.indirect_eps)
    }

    /// The Boolean connectives, `ite`, and `=`/`distinct`/`xor` on any sort.
    fn revise_logic(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let store = self.store;
        let term = store.get(t);
        let a: &[TermId] = &term.args;
        match term.op {
            Op::Not => {
                let swap = |b: u8| ((b & CAN_FALSE) << 1) | ((b & CAN_TRUE) >> 1);
                self.direct(t, Dom::Bool(swap(bits(&doms[a[0].index()]))), doms)?;
                self.indirect(a[0], Dom::Bool(swap(bits(&doms[t.index()]))), doms)?;
            }
            Op::And | Op::Or | Op::Implies => {
                // Implies is (or (not a) b): flip a's bits.
                let flip = |b: u8| ((b & CAN_FALSE) << 1) | ((b & CAN_TRUE) >> 1);
                let neg_a = term.op == Op::Implies;
                let get_a = |doms: &Doms| {
                    if neg_a {
                        flip(bits(&doms[a[0].index()]))
                    } else {
                        bits(&doms[a[0].index()])
                    }
                };
                let (x, y) = (get_a(doms), bits(&doms[a[1].index()]));
                let is_and = term.op == Op::And;
                // For `and`, "absorbing" is false; for `or`, true.
                let (absorb, unit) = if is_and {
                    (CAN_FALSE, CAN_TRUE)
                } else {
                    (CAN_TRUE, CAN_FALSE)
                };
                let can_absorb = x & absorb != 0 || y & absorb != 0;
                let can_unit = x & unit != 0 && y & unit != 0;
                self.direct(
                    t,
                    Dom::Bool(
                        if can_absorb { absorb } else { 0 } | if can_unit { unit } else { 0 },
                    ),
                    doms,
                )?;
                let z = bits(&doms[t.index()]);
                let set_a = |v: u8| if neg_a { flip(v) } else { v };
                if z == unit {
                    self.indirect(a[0], Dom::Bool(set_a(unit)), doms)?;
                    self.indirect(a[1], Dom::Bool(unit), doms)?;
                } else if z == absorb {
                    let (x, y) = (get_a(doms), bits(&doms[a[1].index()]));
                    if x == unit {
                        self.indirect(a[1], Dom::Bool(absorb), doms)?;
                    }
                    if y == unit {
                        self.indirect(a[0], Dom::Bool(set_a(absorb)), doms)?;
                    }
                }
            }
            Op::Ite => {
                let c = bits(&doms[a[0].index()]);
                let (x, y) = (doms[a[1].index()], doms[a[2].index()]);
                let v = match c {
                    CAN_TRUE => x,
                    CAN_FALSE => y,
                    _ => x.join(&y),
                };
                self.direct(t, v, doms)?;
                let z = doms[t.index()];
                match c {
                    CAN_TRUE => self.indirect(a[1], z, doms)?,
                    CAN_FALSE => self.indirect(a[2], z, doms)?,
                    _ => {
                        if z.meet(&x).is_empty() {
                            self.indirect(a[0], Dom::Bool(CAN_FALSE), doms)?;
                        } else if z.meet(&y).is_empty() {
                            self.indirect(a[0], Dom::Bool(CAN_TRUE), doms)?;
                        }
                    }
                }
            }
            Op::Eq | Op::Distinct | Op::Xor => {
                let (x, y) = (doms[a[0].index()], doms[a[1].index()]);
                let eq_true = term.op == Op::Eq;
                let meet = x.meet(&y);
                let can_eq = !meet.is_empty();
                let can_ne = !(x.count() == 1 && y.count() == 1 && x == y);
                self.direct(
                    t,
                    if eq_true {
                        bool_dom(can_ne, can_eq)
                    } else {
                        bool_dom(can_eq, can_ne)
                    },
                    doms,
                )?;
                let z = bits(&doms[t.index()]);
                let want_eq = if eq_true {
                    z == CAN_TRUE
                } else {
                    z == CAN_FALSE
                };
                let want_ne = if eq_true {
                    z == CAN_FALSE
                } else {
                    z == CAN_TRUE
                };
                if want_eq {
                    self.indirect(a[0], meet, doms)?;
                    self.indirect(a[1], meet, doms)?;
                } else if want_ne {
                    if y.count() == 1 {
                        self.indirect(a[0], remove_end(&x, &y), doms)?;
                    }
                    if x.count() == 1 {
                        self.indirect(a[1], remove_end(&y, &x), doms)?;
                    }
                }
            }
            _ => self.fallback(doms, t)?,
        }
        Ok(())
    }

    /// Float arithmetic: the four operations (squares apart), `fma`, `min`/`max`,
    /// sign operations, the extension functions and the monotone unary operations.
    /// A rounded operation's projections are joined over the modes its
    /// rounding-mode operand may take, and a mode whose image misses the result's
    /// domain is removed from that operand.
    fn revise_fp_arith(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let store = self.store;
        let term = store.get(t);
        let a: &[TermId] = &term.args;
        match term.op {
            Op::FpAdd | Op::FpSub | Op::FpMul | Op::FpDiv => self.revise_rounded_binary(doms, t)?,
            Op::FpFma => {
                let f = fmt_of(term.sort);
                let (x, y, z) = (
                    fdom(&doms[a[1].index()]),
                    fdom(&doms[a[2].index()]),
                    fdom(&doms[a[3].index()]),
                );
                self.per_mode(doms, t, a[0], |rm| proj::fma_fwd(f, rm, &x, &y, &z))?;
            }
            Op::FpMin | Op::FpMax => {
                let max = term.op == Op::FpMax;
                let (x, y) = (fdom(&doms[a[0].index()]), fdom(&doms[a[1].index()]));
                self.direct(t, Dom::Fp(proj::min_max_fwd(max, &x, &y)), doms)?;
                self.fallback(doms, t)?;
                let z = fdom(&doms[t.index()]);
                self.indirect(a[0], Dom::Fp(proj::min_max_bwd(max, &z, &x)), doms)?;
                let y = fdom(&doms[a[1].index()]);
                self.indirect(a[1], Dom::Fp(proj::min_max_bwd(max, &z, &y)), doms)?;
            }
            Op::FpNeg => {
                self.direct(t, Dom::Fp(fdom(&doms[a[0].index()]).neg()), doms)?;
                self.indirect(a[0], Dom::Fp(fdom(&doms[t.index()]).neg()), doms)?;
            }
            Op::FpAbs => {
                let x = fdom(&doms[a[0].index()]);
                let mut v = x.pos_part().join(&x.neg_part().neg());
                v.nan = x.nan;
                self.direct(t, Dom::Fp(v), doms)?;
                let z = fdom(&doms[t.index()]);
                let p = z.pos_part();
                let mut back = p.join(&p.neg());
                back.nan = z.nan;
                self.indirect(a[0], Dom::Fp(back), doms)?;
            }
            Op::Ext(g) => {
                let f = fmt_of(term.sort);
                let x = fdom(&doms[a[0].index()]);
                if let Some(v) = proj::ext_fwd(g, f, &x) {
                    self.direct(t, Dom::Fp(v), doms)?;
                } else {
                    self.fallback(doms, t)?;
                }
            }
            Op::FpSqrt | Op::FpRoundToIntegral | Op::FpToFp(_) => {
                let fx = fmt_of(store.sort(a[1]));
                let fz = fmt_of(term.sort);
                let op = term.op;
                let g = move |rm| match op {
                    Op::FpSqrt => Monotone::Sqrt(rm),
                    Op::FpRoundToIntegral => Monotone::RoundIntegral(rm),
                    _ => Monotone::Convert(fz, rm),
                };
                let x = fdom(&doms[a[1].index()]);
                self.per_mode(doms, t, a[0], |rm| proj::monotone_fwd(g(rm), fx, fz, &x))?;
                let z = fdom(&doms[t.index()]);
                let nx =
                    self.join_modes(doms, a[0], |rm| proj::monotone_bwd(g(rm), fx, fz, &z, &x));
                self.indirect(a[1], Dom::Fp(nx), doms)?;
            }
            _ => self.fallback(doms, t)?,
        }
        Ok(())
    }

    /// The direct projection of `t` joined over the modes of `rm` (`fwd` maps a
    /// mode to its image); modes whose image misses `t`'s domain leave `rm`.
    fn per_mode(
        &mut self,
        doms: &mut Doms,
        t: TermId,
        rm: TermId,
        fwd: impl Fn(SmtRounding) -> FDom,
    ) -> Result<(), Conflict> {
        let z = fdom(&doms[t.index()]);
        let (mut hull, mut possible) = (FDom::empty(), RmSet(0));
        for m in rm_set(&doms[rm.index()]).modes() {
            let image = fwd(m);
            if !image.meet(&z).is_empty() {
                possible.0 |= RmSet::single(m).0;
                hull = hull.join(&image);
            }
        }
        self.direct(t, Dom::Fp(hull), doms)?;
        self.indirect(rm, Dom::Rm(possible), doms)
    }

    /// The modes the rounding-mode term `rm` may still take.
    fn modes_of(&self, doms: &Doms, rm: TermId) -> impl Iterator<Item = SmtRounding> {
        rm_set(&doms[rm.index()]).modes()
    }

    /// The join over the modes of `rm` of an indirect projection.
    fn join_modes(&self, doms: &Doms, rm: TermId, bwd: impl Fn(SmtRounding) -> FDom) -> FDom {
        rm_set(&doms[rm.index()])
            .modes()
            .fold(FDom::empty(), |acc, m| acc.join(&bwd(m)))
    }

    /// `fp.add`, `fp.sub`, `fp.mul`, `fp.div` (squares `x * x` apart): FPSE's
    /// projections per rounding mode.
    fn revise_rounded_binary(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let term = self.store.get(t);
        let a: &[TermId] = &term.args;
        let f = fmt_of(term.sort);
        if term.op == Op::FpMul && a[1] == a[2] {
            let x = fdom(&doms[a[1].index()]);
            self.per_mode(doms, t, a[0], |rm| proj::square_fwd(f, rm, &x))?;
            let z = fdom(&doms[t.index()]);
            let nx = self.join_modes(doms, a[0], |rm| proj::square_bwd(f, rm, &z, &x));
            return self.indirect(a[1], Dom::Fp(nx), doms);
        }
        let (x, y) = (fdom(&doms[a[1].index()]), fdom(&doms[a[2].index()]));
        let (op, y_eff) = match term.op {
            Op::FpAdd => (Arith::Add, y),
            Op::FpSub => (Arith::Add, y.neg()),
            Op::FpMul => (Arith::Mul, y),
            _ => (Arith::Div, y),
        };
        self.per_mode(doms, t, a[0], |rm| proj::arith_fwd(f, op, rm, &x, &y_eff))?;
        let z = fdom(&doms[t.index()]);
        let nx = self.join_modes(doms, a[0], |rm| {
            proj::arith_bwd(f, op, rm, &z, &x, &y_eff, false)
        });
        self.indirect(a[1], Dom::Fp(nx), doms)?;
        let x = fdom(&doms[a[1].index()]);
        let ny = self.join_modes(doms, a[0], |rm| {
            proj::arith_bwd(f, op, rm, &z, &y_eff, &x, true)
        });
        let ny = if term.op == Op::FpSub { ny.neg() } else { ny };
        self.indirect(a[2], Dom::Fp(ny), doms)
    }

    /// Float comparisons and classification.
    fn revise_fp_test(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let store = self.store;
        let term = store.get(t);
        let a: &[TermId] = &term.args;
        match term.op {
            Op::FpLt | Op::FpLeq | Op::FpGt | Op::FpGeq | Op::FpEq => {
                let f = fmt_of(store.sort(a[0]));
                let (c, swap) = match term.op {
                    Op::FpLt => (Cmp::Lt, false),
                    Op::FpLeq => (Cmp::Leq, false),
                    Op::FpGt => (Cmp::Lt, true),
                    Op::FpGeq => (Cmp::Leq, true),
                    _ => (Cmp::Eq, false),
                };
                let (i, j) = if swap { (a[1], a[0]) } else { (a[0], a[1]) };
                let (x, y) = (fdom(&doms[i.index()]), fdom(&doms[j.index()]));
                let (cf, ct) = proj::cmp_fwd(f, c, &x, &y);
                self.direct(t, bool_dom(cf, ct), doms)?;
                let z = bits(&doms[t.index()]);
                if z == CAN_TRUE || z == CAN_FALSE {
                    let (nx, ny) = proj::cmp_bwd(c, z == CAN_TRUE, &x, &y);
                    self.indirect(i, Dom::Fp(nx), doms)?;
                    self.indirect(j, Dom::Fp(ny), doms)?;
                }
            }
            Op::FpIsNaN | Op::FpIsZero | Op::FpIsInfinite | Op::FpIsNegative | Op::FpIsPositive => {
                let f = fmt_of(store.sort(a[0]));
                let x = fdom(&doms[a[0].index()]);
                let r = FDom { nan: false, ..x };
                let (lo_inf, hi_inf) = (min_ord(f), max_ord(f));
                let (true_part, false_part) = match term.op {
                    Op::FpIsNaN => (FDom::nan_only(), r),
                    Op::FpIsZero => (
                        FDom::range(-1, 0),
                        FDom {
                            nan: true,
                            ..FDom::range(lo_inf, hi_inf)
                        },
                    ),
                    Op::FpIsInfinite => (
                        FDom::range(lo_inf, hi_inf),
                        FDom {
                            nan: true,
                            ..FDom::range(lo_inf + 1, hi_inf - 1)
                        },
                    ),
                    Op::FpIsNegative => (
                        FDom::range(lo_inf, -1),
                        FDom {
                            nan: true,
                            ..FDom::range(0, hi_inf)
                        },
                    ),
                    _ => (
                        FDom::range(0, hi_inf),
                        FDom {
                            nan: true,
                            ..FDom::range(lo_inf, -1)
                        },
                    ),
                };
                let ct = !x.meet(&true_part).is_empty();
                let cf = match term.op {
                    // Ranges cannot express holes: test the exact complement.
                    Op::FpIsZero => x.nan || r.count() > r.meet(&FDom::range(-1, 0)).count(),
                    Op::FpIsInfinite => {
                        x.nan
                            || r.count()
                                > u128::from(r.lo == lo_inf)
                                    + u128::from(r.hi == hi_inf && r.hi != r.lo)
                    }
                    _ => !x.meet(&false_part).is_empty(),
                };
                self.direct(t, bool_dom(cf, ct), doms)?;
                let z = bits(&doms[t.index()]);
                if z == CAN_TRUE {
                    let mut n = x.meet(&true_part);
                    if term.op == Op::FpIsInfinite {
                        // Only the two infinities: shrink to whichever ends are infinite.
                        if n.lo != lo_inf {
                            n.lo = hi_inf;
                        }
                        if n.hi != hi_inf {
                            n.hi = lo_inf;
                        }
                        n = n.meet(&n);
                    }
                    self.indirect(a[0], Dom::Fp(n), doms)?;
                } else if z == CAN_FALSE {
                    let n = match term.op {
                        Op::FpIsZero => {
                            let mut n = x;
                            if n.lo == -1 || n.lo == 0 {
                                n.lo = n.lo.max(1);
                            }
                            if n.hi == 0 || n.hi == -1 {
                                n.hi = n.hi.min(-2);
                            }
                            n.meet(&n)
                        }
                        _ => x.meet(&false_part),
                    };
                    self.indirect(a[0], Dom::Fp(n), doms)?;
                }
            }
            Op::FpIsNormal | Op::FpIsSubnormal => {
                self.fallback(doms, t)?;
                if bits(&doms[t.index()]) == CAN_TRUE {
                    let x = fdom(&doms[a[0].index()]);
                    self.indirect(a[0], Dom::Fp(FDom { nan: false, ..x }), doms)?;
                }
            }
            _ => self.fallback(doms, t)?,
        }
        Ok(())
    }

    /// Conversions between floats, bit patterns and bit-vector integers.
    fn revise_conversion(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let store = self.store;
        let term = store.get(t);
        let a: &[TermId] = &term.args;
        match term.op {
            Op::BitsToFp(f) => {
                let f = f.expect_host();
                self.direct(
                    t,
                    Dom::Fp(patterns_to_floats(f, bdom(&doms[a[0].index()]))),
                    doms,
                )?;
                self.indirect(
                    a[0],
                    Dom::Bv(floats_to_patterns(f, fdom(&doms[t.index()]))),
                    doms,
                )?;
            }
            Op::FpToBits(f) => {
                let f = f.expect_host();
                self.direct(
                    t,
                    Dom::Bv(floats_to_patterns(f, fdom(&doms[a[0].index()]))),
                    doms,
                )?;
                self.indirect(
                    a[0],
                    Dom::Fp(patterns_to_floats(f, bdom(&doms[t.index()]))),
                    doms,
                )?;
            }
            Op::UbvToFp(f) => {
                let f = f.expect_host();
                let x = bdom(&doms[a[1].index()]);
                if !x.is_empty() {
                    let conv = |rm, v: u64| ord(f, int_to_float(f, rm, false, v));
                    self.per_mode(doms, t, a[0], |rm| {
                        FDom::range(conv(rm, x.lo), conv(rm, x.hi))
                    })?;
                    let z = fdom(&doms[t.index()]);
                    if x.hi - x.lo <= i64::MAX as u64 && !z.range_empty() {
                        let span = (x.hi - x.lo) as i64;
                        let n = self.modes_of(doms, a[0]).fold(BDom::EMPTY, |acc, rm| {
                            let at = |i: i64| conv(rm, x.lo + i as u64);
                            match (
                                proj::first_true(0, span, |i| at(i) >= z.lo),
                                proj::last_true(0, span, |i| at(i) <= z.hi),
                            ) {
                                (Some(l), Some(h)) => {
                                    acc.join(&BDom::range(x.lo + l as u64, x.lo + h as u64))
                                }
                                _ => acc,
                            }
                        });
                        self.indirect(a[1], Dom::Bv(n), doms)?;
                    }
                }
            }
            Op::SbvToFp(f) => {
                let f = f.expect_host();
                // Monotone in the signed value in every mode.
                let w = bv_width(store.sort(a[1]));
                let (lo, hi) = bdom(&doms[a[1].index()]).signed(w);
                if lo <= hi {
                    let conv =
                        |rm, v: i128| ord(f, int_to_float(f, rm, v < 0, v.unsigned_abs() as u64));
                    self.per_mode(doms, t, a[0], |rm| FDom::range(conv(rm, lo), conv(rm, hi)))?;
                }
            }
            Op::FpToSbv(w) => {
                // Monotone where specified: finite inputs whose rounded value
                // fits; otherwise SMT-LIB leaves the result open.
                let f = fmt_of(store.sort(a[1]));
                let x = fdom(&doms[a[1].index()]);
                let half = 2f64.powi(w as i32 - 1);
                let r = |rm, o: i64| crate::eval::round_integral(from_ord(f, o), rm);
                if !x.nan && !x.range_empty() && !x.has_inf(f) {
                    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                    for rm in self.modes_of(doms, a[0]) {
                        lo = lo.min(r(rm, x.lo));
                        hi = hi.max(r(rm, x.hi));
                    }
                    if lo >= -half && hi < half {
                        self.direct(
                            t,
                            Dom::Bv(BDom::full(w).meet_signed((lo as i128, hi as i128), w)),
                            doms,
                        )?;
                    }
                }
                self.fallback(doms, t)?;
            }
            _ => self.fallback(doms, t)?,
        }
        Ok(())
    }

    /// Bit-vector operators: ranges plus known bits ([`super::bv`]), then
    /// evaluation once the arguments are single values.
    fn revise_bv_op(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let store = self.store;
        let term = store.get(t);
        let a: &[TermId] = &term.args;
        let w = bv_width(store.sort(a[0]));
        let wy = a.get(1).map_or(w, |&y| bv_width(store.sort(y)));
        let args: Vec<BDom> = a.iter().map(|&i| bdom(&doms[i.index()])).collect();
        if let Some(v) = bv::fwd(term.op, w, wy, &args) {
            self.direct(t, Dom::Bv(v), doms)?;
        }
        for (i, &ai) in a.iter().enumerate() {
            let args: Vec<BDom> = a.iter().map(|&i| bdom(&doms[i.index()])).collect();
            let z = bdom(&doms[t.index()]);
            if let Some(v) = bv::bwd(term.op, w, wy, &z, &args, i) {
                self.indirect(ai, Dom::Bv(v), doms)?;
            }
        }
        self.fallback(doms, t)
    }

    /// Unsigned and signed bit-vector comparisons (signed ones read the signed
    /// view of the domains).
    fn revise_bv_cmp(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let store = self.store;
        let term = store.get(t);
        let a: &[TermId] = &term.args;
        let w = bv_width(store.sort(a[0]));
        let (x, y) = (bdom(&doms[a[0].index()]), bdom(&doms[a[1].index()]));
        let (cf, ct) = bv::cmp_fwd(term.op, w, &x, &y);
        self.direct(t, bool_dom(cf, ct), doms)?;
        let z = bits(&doms[t.index()]);
        if z == CAN_TRUE || z == CAN_FALSE {
            let (nx, ny) = bv::cmp_bwd(term.op, w, z == CAN_TRUE, &x, &y);
            self.indirect(a[0], Dom::Bv(nx), doms)?;
            self.indirect(a[1], Dom::Bv(ny), doms)?;
        }
        Ok(())
    }

    /// Direct projection by evaluation when every argument is a single value.
    fn fallback(&mut self, doms: &mut Doms, t: TermId) -> Result<(), Conflict> {
        let term = self.store.get(t);
        let mut args = Vec::with_capacity(term.args.len());
        for &a in term.args.iter() {
            match single_value(&doms[a.index()], self.store.sort(a)) {
                Some(v) => args.push(v),
                None => return Ok(()),
            }
        }
        match apply(term.op, &args) {
            Some(v) => self.update(doms, t, value_dom(v), self.direct_eps),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn propagation_narrows_absorption_bounds() {
        // x + 1 == x with x in [0, 100] has no solution.
        let mut s = TermStore::new();
        let (x, eq, ge, le) = crate::interval::test_formulas::bounded_absorption(&mut s);
        let mut p = Propagator::new(&s, &[eq, ge, le], 0.0, 0.1);
        let doms = p.initial();
        // Propagation alone narrows but need not refute; labeling does.
        if let Ok(doms) = doms {
            let Dom::Fp(dx) = doms[x.index()] else {
                panic!("x is a float")
            };
            assert!(!dx.nan && dx.lo >= -1 && dx.hi <= ord(HostFormat::F32, 100.0));
        }
    }

    #[test]
    fn patterns_and_floats_enclose_each_other() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let f = HostFormat::F32;
        let m = mask(32);
        for _ in 0..3000 {
            // Random patterns: a range with random known bits, sampled.
            let a = rng.gen_range(0..=m);
            let b = rng.gen_range(a..=m);
            let unk = (rng.gen::<u64>() | rng.gen::<u64>()) & m;
            let x = BDom::new(
                a,
                b,
                Tnum {
                    val: rng.gen::<u64>() & !unk & m,
                    unk,
                },
            );
            if x.is_empty() {
                continue;
            }
            let fl = patterns_to_floats(f, x);
            for _ in 0..20 {
                let Some(v) = x.bits.next_ge(rng.gen_range(x.lo..=x.hi)) else {
                    continue;
                };
                let v = f64::from(f32::from_bits(v as u32));
                let inside = if v.is_nan() {
                    fl.nan
                } else {
                    !fl.range_empty() && fl.lo <= ord(f, v) && ord(f, v) <= fl.hi
                };
                assert!(inside, "{x:?} -> {fl:?} misses {v}");
            }
            // Random floats: an ordinal range, maybe NaN, sampled.
            let (lo, hi) = (min_ord(f), max_ord(f));
            let p = rng.gen_range(lo..=hi);
            let span = rng.gen_range(0..1i64 << 30);
            let q = rng.gen_range(p..=hi.min(p + span));
            let z = FDom {
                lo: p,
                hi: q,
                nan: rng.gen_bool(0.3),
            };
            let pats = floats_to_patterns(f, z);
            for _ in 0..20 {
                let o = rng.gen_range(p..=q);
                let bits = u64::from((from_ord(f, o) as f32).to_bits());
                assert!(pats.lo <= bits && bits <= pats.hi && pats.bits.contains(bits));
            }
            if z.nan {
                for nan in [0x7fc0_0000u64, 0xffc0_0001, 0x7f80_0001, 0xffff_ffff] {
                    assert!(pats.lo <= nan && nan <= pats.hi && pats.bits.contains(nan));
                }
            }
        }
    }

    #[test]
    fn signed_ranges_round_trip() {
        let full = BDom::full(8);
        assert_eq!(BDom::range(0xf0, 0xff).signed(8), (-16, -1));
        assert_eq!(BDom::range(0x70, 0x90).signed(8), (-128, 127));
        // Known bits sharpen the signed view of a range across the boundary.
        let odd = BDom::new(0x70, 0x90, Tnum { val: 1, unk: !1 });
        assert_eq!(odd.signed(8), (-127, 127));
        assert_eq!(full.meet_signed((-16, -1), 8), BDom::range(0xf0, 0xff));
        assert_eq!(full.meet_signed((-1, 1), 8), BDom::full(8));
        // Sign-extended results outside the narrow range are clamped first.
        assert_eq!(full.meet_signed((-300, -100), 8), BDom::range(0x80, 0x9c));
        assert!(full.meet_signed((-1000, -900), 8).is_empty());
        // b <s -100 and b >s 100 is unsat; b <s -100 alone narrows b.
        let mut s = TermStore::new();
        let b = s.declare("b", Sort::BitVec(8));
        let m100 = s.bv_const((-100i64) as u64, 8).unwrap();
        let p100 = s.bv_const(100, 8).unwrap();
        let lt = s.mk(Op::BvSlt, &[b, m100]).unwrap();
        let gt = s.mk(Op::BvSgt, &[b, p100]).unwrap();
        assert_eq!(
            Propagator::new(&s, &[lt, gt], 0.0, 0.1).initial().err(),
            Some(Conflict)
        );
        let doms = Propagator::new(&s, &[lt], 0.0, 0.1).initial().unwrap();
        assert_eq!(doms[b.index()], Dom::Bv(BDom::range(0x80, 0x9b)));
    }

    #[test]
    fn conversions_between_floats_and_integers_propagate() {
        // 1.5 <= x <= 3.7 and b = to_sbv(RTZ, x): b in [1, 3]; then
        // to_fp(b) >= 4 is a conflict.
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F32);
        let lo = s.f32_const(1.5);
        let hi = s.f32_const(3.7);
        let four = s.f32_const(4.0);
        let ge = s.mk(Op::FpGeq, &[x, lo]).unwrap();
        let le = s.mk(Op::FpLeq, &[x, hi]).unwrap();
        let rtz = s.rm_const(SmtRounding::Rtz);
        let b = s.mk(Op::FpToSbv(8), &[rtz, x]).unwrap();
        let doms = Propagator::new(&s, &[ge, le], 0.0, 0.1).initial().unwrap();
        assert_eq!(
            doms[x.index()],
            Dom::Fp(FDom::range(
                ord(HostFormat::F32, 1.5),
                ord(HostFormat::F32, f64::from(3.7f32))
            ))
        );
        let rne = s.rm_const(SmtRounding::Rne);
        let back = s
            .mk(Op::SbvToFp(crate::sort::FpFormat::F32), &[rne, b])
            .unwrap();
        let big = s.mk(Op::FpGeq, &[back, four]).unwrap();
        let mut p = Propagator::new(&s, &[ge, le, big], 0.0, 0.1);
        assert_eq!(p.initial().err(), Some(Conflict));
    }

    #[test]
    fn propagation_detects_simple_conflicts() {
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F64);
        let two = s.f64_const(2.0);
        let lt = s.mk(Op::FpLt, &[x, two]).unwrap();
        let gt = s.mk(Op::FpGt, &[x, two]).unwrap();
        let mut p = Propagator::new(&s, &[lt, gt], 0.0, 0.1);
        assert_eq!(p.initial().err(), Some(Conflict));
        let b = s.declare("b", Sort::BitVec(8));
        let k = s.bv_const(3, 8).unwrap();
        let ult = s.mk(Op::BvUlt, &[b, k]).unwrap();
        let sum = s.mk(Op::BvAdd, &[b, k]).unwrap();
        let ten = s.bv_const(10, 8).unwrap();
        let eq = s.mk(Op::Eq, &[sum, ten]).unwrap();
        let mut p = Propagator::new(&s, &[ult, eq], 0.0, 0.1);
        assert_eq!(p.initial().err(), Some(Conflict));
    }
}
