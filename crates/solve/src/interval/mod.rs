//! Interval domains and the complete (FPSE) side of the solver.
//!
//! After Botella, Gotlieb and Michel, "Symbolic execution of floating-point
//! computations", STVR 16(2), 2006 (FPSE): every term has a domain — floats an
//! interval `[lo, hi]` over the total order `-oo < ... < -0 < +0 < ... < +oo`
//! plus a NaN flag, bit-vectors an unsigned range with known bits ([`known`];
//! the signed range is derived from both), Booleans a subset of
//! `{false, true}`, rounding modes a subset of the five ([`RmSet`]). Projection functions ([`proj`]) narrow domains, the
//! propagator ([`propagate`]) runs them to a fixpoint, and labeling
//! ([`labeling`]) splits domains; exhausting labeling proves `unsat`.
//!
//! Float bounds are stored as ordinals ([`fpforge_search::ordinal`]), so intersection is
//! `max`/`min` and "the float halving the count" is an ordinal midpoint.

pub mod bv;
pub mod known;
pub mod labeling;
pub mod max_ulp;
pub mod proj;
pub mod propagate;

/// Formulas shared by the tests of the interval modules.
#[cfg(test)]
pub(crate) mod test_formulas {
    use crate::sort::Sort;
    use crate::term::{Op, TermId, TermStore};

    /// The absorption problem `x + 1 == x` for f32 `x`, with the bounds `0 <= x <= 100`
    /// that make it unsat: returns `(x, x + 1 == x, x >= 0, x <= 100)`.
    pub(crate) fn bounded_absorption(s: &mut TermStore) -> (TermId, TermId, TermId, TermId) {
        let x = s.declare("x", Sort::F32);
        let one = s.f32_const(1.0);
        let zero = s.f32_const(0.0);
        let hundred = s.f32_const(100.0);
        let rne = s.rm_const(crate::sort::SmtRounding::Rne);
        let sum = s.mk(Op::FpAdd, &[rne, x, one]).unwrap();
        let eq = s.mk(Op::FpEq, &[sum, x]).unwrap();
        let ge = s.mk(Op::FpGeq, &[x, zero]).unwrap();
        let le = s.mk(Op::FpLeq, &[x, hundred]).unwrap();
        (x, eq, ge, le)
    }
}

use fpforge_search::ordinal::{from_ord, max_ord, min_ord};

use crate::sort::{HostFormat, SmtRounding, Sort};
use crate::term::mask;
pub use known::Tnum;

/// A float domain: ordinals `lo..=hi` (empty when `lo > hi`) and maybe NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FDom {
    /// Lowest ordinal.
    pub lo: i64,
    /// Highest ordinal.
    pub hi: i64,
    /// Whether NaN is in the domain.
    pub nan: bool,
}

impl FDom {
    /// Every value of format `f`, NaN included.
    pub fn full(f: HostFormat) -> FDom {
        FDom {
            lo: min_ord(f),
            hi: max_ord(f),
            nan: true,
        }
    }

    /// Ordinals `lo..=hi`, no NaN.
    pub fn range(lo: i64, hi: i64) -> FDom {
        FDom { lo, hi, nan: false }
    }

    /// Only NaN.
    pub fn nan_only() -> FDom {
        FDom {
            lo: 1,
            hi: 0,
            nan: true,
        }
    }

    /// No value.
    pub fn empty() -> FDom {
        FDom {
            lo: 1,
            hi: 0,
            nan: false,
        }
    }

    /// True when the ordinal range is empty.
    pub fn range_empty(&self) -> bool {
        self.lo > self.hi
    }

    /// True when the domain has no value at all.
    pub fn is_empty(&self) -> bool {
        self.range_empty() && !self.nan
    }

    /// Number of values (NaN counts as one).
    pub fn count(&self) -> u128 {
        let r = if self.range_empty() {
            0
        } else {
            (i128::from(self.hi) - i128::from(self.lo) + 1) as u128
        };
        r + u128::from(self.nan)
    }

    /// Intersection.
    pub fn meet(&self, o: &FDom) -> FDom {
        FDom {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
            nan: self.nan && o.nan,
        }
        .normalized()
    }

    /// Interval hull of the union.
    pub fn join(&self, o: &FDom) -> FDom {
        let (lo, hi) = match (self.range_empty(), o.range_empty()) {
            (true, true) => (1, 0),
            (true, false) => (o.lo, o.hi),
            (false, true) => (self.lo, self.hi),
            (false, false) => (self.lo.min(o.lo), self.hi.max(o.hi)),
        };
        FDom {
            lo,
            hi,
            nan: self.nan || o.nan,
        }
    }

    fn normalized(self) -> FDom {
        if self.lo > self.hi {
            FDom {
                lo: 1,
                hi: 0,
                nan: self.nan,
            }
        } else {
            self
        }
    }

    /// The lower bound as a value.
    pub fn lo_v(&self, f: HostFormat) -> f64 {
        from_ord(f, self.lo)
    }

    /// The upper bound as a value.
    pub fn hi_v(&self, f: HostFormat) -> f64 {
        from_ord(f, self.hi)
    }

    /// The single non-NaN value, if the domain is exactly one.
    pub fn single(&self, f: HostFormat) -> Option<f64> {
        (!self.nan && self.lo == self.hi).then(|| from_ord(f, self.lo))
    }

    /// Whether some zero (either sign) is in the range.
    pub fn has_zero(&self) -> bool {
        !self.range_empty() && self.lo <= 0 && self.hi >= -1
    }

    /// Whether an infinity is in the range.
    pub fn has_inf(&self, f: HostFormat) -> bool {
        !self.range_empty() && (self.lo == min_ord(f) || self.hi == max_ord(f))
    }

    /// The part of the range at or below `-0`, without NaN.
    pub fn neg_part(&self) -> FDom {
        FDom::range(self.lo, self.hi.min(-1)).normalized()
    }

    /// The part of the range at or above `+0`, without NaN.
    pub fn pos_part(&self) -> FDom {
        FDom::range(self.lo.max(0), self.hi).normalized()
    }

    /// The negated domain (`ord(-x) = -ord(x) - 1`).
    pub fn neg(&self) -> FDom {
        if self.range_empty() {
            return *self;
        }
        FDom {
            lo: -self.hi - 1,
            hi: -self.lo - 1,
            nan: self.nan,
        }
    }
}

/// A bit-vector domain: the reduced product of the unsigned range `lo..=hi`
/// and the known bits `bits` ([`Tnum`]); the signed view is derived from
/// both ([`BDom::signed`]).
///
/// Every constructor reduces: the range shrinks to the least and greatest
/// values consistent with the known bits ([`Tnum::next_ge`],
/// [`Tnum::prev_le`]), and the common leading bits of `lo` and `hi` become
/// known. After that `lo` and `hi` are members, the leading bits they share
/// are known, and a domain without values is the canonical [`BDom::EMPTY`],
/// so `==` compares sets of values. Bits above the width are known zero
/// because `hi` is below `2^w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BDom {
    /// Lowest value.
    pub lo: u64,
    /// Highest value.
    pub hi: u64,
    /// Known bits.
    pub bits: Tnum,
}

impl BDom {
    /// No value.
    pub const EMPTY: BDom = BDom {
        lo: 1,
        hi: 0,
        bits: Tnum { val: 0, unk: 0 },
    };

    /// All values of width `w`.
    pub fn full(w: u32) -> BDom {
        BDom::range(0, mask(w))
    }

    /// The values `lo..=hi` (empty when `lo > hi`).
    pub fn range(lo: u64, hi: u64) -> BDom {
        BDom::new(lo, hi, Tnum::TOP)
    }

    /// Exactly `v`.
    pub fn single(v: u64) -> BDom {
        BDom::range(v, v)
    }

    /// The values of `t` (truncated to `w` bits).
    pub fn of_bits(t: Tnum, w: u32) -> BDom {
        BDom::new(0, mask(w), t)
    }

    /// The values in `lo..=hi` consistent with `bits`, reduced.
    pub fn new(lo: u64, hi: u64, bits: Tnum) -> BDom {
        if lo > hi {
            return BDom::EMPTY;
        }
        let Some(bits) = bits.meet(Tnum::prefix(lo, hi)) else {
            return BDom::EMPTY;
        };
        let (Some(lo), Some(hi)) = (bits.next_ge(lo), bits.prev_le(hi)) else {
            return BDom::EMPTY;
        };
        if lo > hi {
            return BDom::EMPTY;
        }
        // lo and hi are members, so their common prefix is consistent.
        let bits = bits.meet(Tnum::prefix(lo, hi)).unwrap_or(bits);
        BDom { lo, hi, bits }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.lo > self.hi
    }

    /// The single value, if there is exactly one.
    pub fn value(&self) -> Option<u64> {
        (self.lo == self.hi).then_some(self.lo)
    }

    /// Intersection.
    pub fn meet(&self, o: &BDom) -> BDom {
        match self.bits.meet(o.bits) {
            Some(b) => BDom::new(self.lo.max(o.lo), self.hi.min(o.hi), b),
            None => BDom::EMPTY,
        }
    }

    /// Hull of the union: the range hull and the bits known in both.
    pub fn join(&self, o: &BDom) -> BDom {
        if self.is_empty() {
            return *o;
        }
        if o.is_empty() {
            return *self;
        }
        BDom::new(self.lo.min(o.lo), self.hi.max(o.hi), self.bits.join(o.bits))
    }

    /// Number of values (in the range and consistent with the known bits).
    pub fn count(&self) -> u128 {
        if self.is_empty() {
            0
        } else {
            self.bits.count_le(self.hi) - self.bits.count_le(self.lo) + 1
        }
    }

    /// The signed view as a `w`-bit two's-complement interval (`lo > hi`
    /// when empty): exact bounds of each half that holds values, so a
    /// domain straddling the sign boundary gives `[least negative, greatest
    /// non-negative]`, the signed hull.
    pub fn signed(&self, w: u32) -> (i128, i128) {
        if self.is_empty() {
            return (1, 0);
        }
        let half = 1u64 << (w - 1);
        let s = |v: u64| {
            if v >= half {
                i128::from(v) - (i128::from(half) << 1)
            } else {
                i128::from(v)
            }
        };
        if self.lo < half && self.hi >= half {
            // Both halves are non-empty (lo and hi are members).
            let neg_lo = self.bits.next_ge(half).unwrap_or(self.hi);
            let pos_hi = self.bits.prev_le(half - 1).unwrap_or(self.lo);
            (s(neg_lo), s(pos_hi))
        } else {
            (s(self.lo), s(self.hi))
        }
    }

    /// The values whose `w`-bit signed reading lies in `r`: the union of the
    /// non-negative and the negative part, each a range, met with `self`.
    pub fn meet_signed(&self, r: (i128, i128), w: u32) -> BDom {
        let half = 1i128 << (w - 1);
        let (lo, hi) = (r.0.max(-half), r.1.min(half - 1));
        if lo > hi {
            return BDom::EMPTY;
        }
        let mut out = BDom::EMPTY;
        if hi >= 0 {
            out = out.join(&self.meet(&BDom::range(lo.max(0) as u64, hi as u64)));
        }
        if lo < 0 {
            let u = |v: i128| (v + 2 * half) as u64;
            out = out.join(&self.meet(&BDom::range(u(lo), u(hi.min(-1)))));
        }
        out
    }
}

/// Boolean domain bits.
pub const CAN_FALSE: u8 = 1;
/// Boolean domain bits.
pub const CAN_TRUE: u8 = 2;

/// The domain of one term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dom {
    /// A subset of `{false, true}` as [`CAN_FALSE`] | [`CAN_TRUE`].
    Bool(u8),
    /// A float domain.
    Fp(FDom),
    /// A bit-vector domain.
    Bv(BDom),
    /// A non-empty set of rounding modes: bit `i` stands for
    /// `SmtRounding::ALL[i]` (see [`RmSet`]).
    Rm(RmSet),
}

/// A set of rounding modes as a bit mask over [`SmtRounding::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RmSet(pub u8);

impl RmSet {
    /// All five modes.
    pub const ALL: RmSet = RmSet(0b11111);

    /// Exactly `r`.
    pub fn single(r: SmtRounding) -> RmSet {
        RmSet(1 << r.index())
    }

    /// Whether `r` is in the set.
    pub fn contains(self, r: SmtRounding) -> bool {
        self.0 & (1 << r.index()) != 0
    }

    /// The modes of the set, in [`SmtRounding::ALL`] order.
    pub fn modes(self) -> impl Iterator<Item = SmtRounding> {
        SmtRounding::ALL
            .into_iter()
            .filter(move |r| self.contains(*r))
    }

    /// The single mode, if the set has exactly one.
    pub fn value(self) -> Option<SmtRounding> {
        (self.0.count_ones() == 1).then(|| SmtRounding::ALL[self.0.trailing_zeros() as usize])
    }
}

impl Dom {
    /// The unconstrained domain of a sort.
    pub fn full(sort: Sort) -> Dom {
        match sort {
            Sort::Bool => Dom::Bool(CAN_FALSE | CAN_TRUE),
            Sort::Fp(f) => Dom::Fp(FDom::full(f.expect_host())),
            Sort::BitVec(w) => Dom::Bv(BDom::full(w)),
            Sort::RoundingMode => Dom::Rm(RmSet::ALL),
        }
    }

    /// True when no value remains.
    pub fn is_empty(&self) -> bool {
        match self {
            Dom::Bool(b) => *b == 0,
            Dom::Fp(d) => d.is_empty(),
            Dom::Bv(d) => d.is_empty(),
            Dom::Rm(m) => m.0 == 0,
        }
    }

    /// Number of values.
    pub fn count(&self) -> u128 {
        match self {
            Dom::Bool(b) => u128::from(b.count_ones()),
            Dom::Fp(d) => d.count(),
            Dom::Bv(d) => d.count(),
            Dom::Rm(m) => u128::from(m.0.count_ones()),
        }
    }

    /// Intersection (domains of one sort).
    pub fn meet(&self, o: &Dom) -> Dom {
        match (self, o) {
            (Dom::Bool(a), Dom::Bool(b)) => Dom::Bool(a & b),
            (Dom::Fp(a), Dom::Fp(b)) => Dom::Fp(a.meet(b)),
            (Dom::Bv(a), Dom::Bv(b)) => Dom::Bv(a.meet(b)),
            (Dom::Rm(a), Dom::Rm(b)) => Dom::Rm(RmSet(a.0 & b.0)),
            _ => *self,
        }
    }

    /// Hull of the union (domains of one sort).
    pub fn join(&self, o: &Dom) -> Dom {
        match (self, o) {
            (Dom::Bool(a), Dom::Bool(b)) => Dom::Bool(a | b),
            (Dom::Fp(a), Dom::Fp(b)) => Dom::Fp(a.join(b)),
            (Dom::Bv(a), Dom::Bv(b)) => Dom::Bv(a.join(b)),
            (Dom::Rm(a), Dom::Rm(b)) => Dom::Rm(RmSet(a.0 | b.0)),
            _ => *self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpforge_search::ordinal::ord;

    #[test]
    fn float_domains_meet_join_and_negate() {
        let f = HostFormat::F32;
        let a = FDom::range(ord(f, -1.0), ord(f, 2.0));
        let b = FDom::range(ord(f, 0.0), ord(f, 5.0));
        assert_eq!(a.meet(&b), FDom::range(0, ord(f, 2.0)));
        assert_eq!(a.join(&b), FDom::range(ord(f, -1.0), ord(f, 5.0)));
        assert!(a.has_zero() && !b.neg_part().has_zero() && b.pos_part().has_zero());
        assert_eq!(a.neg(), FDom::range(ord(f, -2.0), ord(f, 1.0)));
        assert!(FDom::range(3, 2).is_empty());
        assert_eq!(FDom::nan_only().count(), 1);
        assert_eq!(FDom::full(f).count(), (2u128 * 0x7f80_0001) + 1);
    }
}
