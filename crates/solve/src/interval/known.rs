//! Known bits of bit-vectors as tristate numbers.
//!
//! A [`Tnum`] is a pair `(val, unk)`: the bits set in `unk` are unknown, the
//! others are known and equal to the bits of `val` (`val & unk == 0`). It
//! stands for the set `{x : x & !unk == val}`. This is the domain of LLVM's
//! `KnownBits` and of the Linux eBPF verifier's `tnum`; the transfer
//! functions for `+`, `-` and `*` are the verifier's (Vishwanathan et al.,
//! "Sound, precise, and fast abstract interpretation with tristate numbers",
//! CGO 2022, which proves them sound and `add`/`sub` optimal). Operations of
//! a `w`-bit vector truncate their result to `w` bits, so bits above the
//! width are known zero, like the values.
//!
//! Indirect projections (operand from result and other operand) are written
//! next to each operator; each returns a tnum to intersect with the operand's
//! domain, so bits it cannot tell stay unknown.

use crate::term::mask;

/// A tristate number: known bits `val`, unknown bits `unk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tnum {
    /// The values of the known bits (zero where unknown).
    pub val: u64,
    /// The unknown bits.
    pub unk: u64,
}

impl Tnum {
    /// Nothing known.
    pub const TOP: Tnum = Tnum {
        val: 0,
        unk: u64::MAX,
    };

    /// Exactly `v`.
    pub fn constant(v: u64) -> Tnum {
        Tnum { val: v, unk: 0 }
    }

    /// The bits known in both `lo` and `hi` because every value between them
    /// shares them: the common leading bits.
    pub fn prefix(lo: u64, hi: u64) -> Tnum {
        let diff = lo ^ hi;
        if diff == 0 {
            return Tnum::constant(lo);
        }
        let m = u64::MAX >> diff.leading_zeros();
        Tnum {
            val: lo & !m,
            unk: m,
        }
    }

    /// Whether `x` is one of the values.
    pub fn contains(self, x: u64) -> bool {
        x & !self.unk == self.val
    }

    /// Bits known to be one.
    pub fn ones(self) -> u64 {
        self.val
    }

    /// Bits known to be zero.
    pub fn zeros(self) -> u64 {
        !self.val & !self.unk
    }

    /// Intersection, `None` when a bit is known to be both 0 and 1.
    pub fn meet(self, o: Tnum) -> Option<Tnum> {
        if (self.val ^ o.val) & !self.unk & !o.unk != 0 {
            return None;
        }
        Some(Tnum {
            val: self.val | o.val,
            unk: self.unk & o.unk,
        })
    }

    /// The smallest tnum holding both.
    pub fn join(self, o: Tnum) -> Tnum {
        let unk = self.unk | o.unk | (self.val ^ o.val);
        Tnum {
            val: self.val & !unk,
            unk,
        }
    }

    /// Bits outside `mask(w)` dropped (known zero).
    pub fn trunc(self, w: u32) -> Tnum {
        let m = mask(w);
        Tnum {
            val: self.val & m,
            unk: self.unk & m,
        }
    }

    /// The smallest value `>= lo` in the set.
    ///
    /// Let `p` be the highest known bit where `lo` disagrees. If the known bit
    /// is 1 (and `lo`'s is 0), set it and take the least bits below `p`. If it
    /// is 0, no value with `lo`'s bits above `p` works: raise the lowest
    /// unknown bit above `p` that is 0 in `lo` and take the least bits below
    /// it; without one there is no such value.
    pub fn next_ge(self, lo: u64) -> Option<u64> {
        let diff = (lo ^ self.val) & !self.unk;
        if diff == 0 {
            return Some(lo);
        }
        let bit = 1u64 << (63 - diff.leading_zeros());
        let at_or_below = bit | (bit - 1);
        if self.val & bit != 0 {
            return Some((lo & !at_or_below) | bit | (self.val & (bit - 1)));
        }
        let cand = self.unk & !lo & !at_or_below;
        if cand == 0 {
            return None;
        }
        let q = cand & cand.wrapping_neg();
        Some((lo & !(q | (q - 1))) | q | (self.val & (q - 1)))
    }

    /// The largest value `<= hi` in the set (`next_ge` on complements).
    pub fn prev_le(self, hi: u64) -> Option<u64> {
        let c = Tnum {
            val: !self.val & !self.unk,
            unk: self.unk,
        };
        c.next_ge(!hi).map(|v| !v)
    }

    /// The number of values `<= v` in the set: for every bit `i` where `v`
    /// has a 1 that the set may clear, while all bits above `i` can equal
    /// `v`'s, the values below `v` first differing there; plus `v` itself.
    pub fn count_le(self, v: u64) -> u128 {
        let mut n = 0u128;
        for i in (0..64).rev() {
            let b = 1u64 << i;
            let above = if i == 63 { 0 } else { !((b << 1) - 1) };
            if (v ^ self.val) & !self.unk & above != 0 {
                return n;
            }
            if v & b != 0 && (self.unk & b != 0 || self.val & b == 0) {
                n += 1u128 << (self.unk & (b - 1)).count_ones();
            }
        }
        n + u128::from(self.contains(v))
    }

    /// `x & y`.
    pub fn and(self, o: Tnum) -> Tnum {
        let val = self.val & o.val;
        Tnum {
            val,
            unk: (self.val | self.unk) & (o.val | o.unk) & !val,
        }
    }

    /// `x | y`.
    pub fn or(self, o: Tnum) -> Tnum {
        let val = self.val | o.val;
        Tnum {
            val,
            unk: (self.unk | o.unk) & !val,
        }
    }

    /// `x ^ y`.
    pub fn xor(self, o: Tnum) -> Tnum {
        let unk = self.unk | o.unk;
        Tnum {
            val: (self.val ^ o.val) & !unk,
            unk,
        }
    }

    /// `!x` on `w` bits.
    pub fn not(self, w: u32) -> Tnum {
        Tnum {
            val: !self.val & !self.unk,
            unk: self.unk,
        }
        .trunc(w)
    }

    /// `x + y` on `w` bits: the carries that unknown bits can change are
    /// `(sv + sm) ^ sv`, which with the unknown inputs are the unknown outputs.
    pub fn add(self, o: Tnum, w: u32) -> Tnum {
        let sm = self.unk.wrapping_add(o.unk);
        let sv = self.val.wrapping_add(o.val);
        let sigma = sm.wrapping_add(sv);
        let mu = (sigma ^ sv) | self.unk | o.unk;
        Tnum {
            val: sv & !mu,
            unk: mu,
        }
        .trunc(w)
    }

    /// `x - y` on `w` bits (the borrows unknown bits can change).
    pub fn sub(self, o: Tnum, w: u32) -> Tnum {
        let dv = self.val.wrapping_sub(o.val);
        let alpha = dv.wrapping_add(self.unk);
        let beta = dv.wrapping_sub(o.unk);
        let mu = (alpha ^ beta) | self.unk | o.unk;
        Tnum {
            val: dv & !mu,
            unk: mu,
        }
        .trunc(w)
    }

    /// `x * y` on `w` bits: the known product plus, for every bit of `x`,
    /// the partial product it may contribute as unknown bits.
    pub fn mul(self, o: Tnum, w: u32) -> Tnum {
        let acc_v = self.val.wrapping_mul(o.val);
        let mut acc_m = Tnum::constant(0);
        let (mut a, mut b) = (self.trunc(w), o.trunc(w));
        while a.val != 0 || a.unk != 0 {
            if a.val & 1 != 0 {
                acc_m = acc_m.add(Tnum { val: 0, unk: b.unk }, 64);
            } else if a.unk & 1 != 0 {
                acc_m = acc_m.add(
                    Tnum {
                        val: 0,
                        unk: b.val | b.unk,
                    },
                    64,
                );
            }
            a = a.lshr(1);
            b = b.shl(1, 64);
        }
        Tnum::constant(acc_v).add(acc_m, w)
    }

    /// `x << k` on `w` bits (`k < 64`).
    pub fn shl(self, k: u32, w: u32) -> Tnum {
        Tnum {
            val: self.val << k,
            unk: self.unk << k,
        }
        .trunc(w)
    }

    /// `x >> k`, logical (`k < 64`).
    pub fn lshr(self, k: u32) -> Tnum {
        Tnum {
            val: self.val >> k,
            unk: self.unk >> k,
        }
    }

    /// `x >> k`, arithmetic on `w` bits (`k < w`): bits shifted in copy the
    /// sign bit, known or not.
    pub fn ashr(self, k: u32, w: u32) -> Tnum {
        let s = self.lshr(k);
        let fill = mask(w) & !mask(w - k);
        let sb = 1u64 << (w - 1);
        if self.unk & sb != 0 {
            Tnum {
                val: s.val & !fill,
                unk: s.unk | fill,
            }
        } else if self.val & sb != 0 {
            Tnum {
                val: s.val | fill,
                unk: s.unk,
            }
        } else {
            s
        }
    }

    /// Bits `hi..=lo`.
    pub fn extract(self, hi: u32, lo: u32) -> Tnum {
        self.lshr(lo).trunc(hi - lo + 1)
    }

    /// `w`-bit `x` sign-extended by `n` bits.
    pub fn sign_extend(self, w: u32, n: u32) -> Tnum {
        let x = self.trunc(w);
        let fill = mask(w + n) & !mask(w);
        let sb = 1u64 << (w - 1);
        if x.unk & sb != 0 {
            Tnum {
                val: x.val,
                unk: x.unk | fill,
            }
        } else if x.val & sb != 0 {
            Tnum {
                val: x.val | fill,
                unk: x.unk,
            }
        } else {
            x
        }
    }

    /// Bits at positions `pos` set from `t`'s bits at the same positions,
    /// the others unknown: the operand of an operator that copies `t`'s bits
    /// `pos` (after a shift).
    fn only(self, pos: u64) -> Tnum {
        Tnum {
            val: self.val & pos,
            unk: self.unk | !pos,
        }
    }
}

/// Indirect projections: the operand `x` of `z = op(x, y)` given `z` and `y`
/// as a tnum (unknown where it cannot tell).
pub mod back {
    use super::Tnum;
    use crate::term::mask;

    /// `z = x & y`: a 1 in `z` is a 1 in `x`; a 0 in `z` where `y` is 1 is a
    /// 0 in `x`.
    pub fn and(z: Tnum, y: Tnum) -> Tnum {
        let z1 = z.ones();
        let z0y1 = z.zeros() & y.ones();
        Tnum {
            val: z1,
            unk: !(z1 | z0y1),
        }
    }

    /// `z = x | y`: a 0 in `z` is a 0 in `x`; a 1 in `z` where `y` is 0 is a
    /// 1 in `x`.
    pub fn or(z: Tnum, y: Tnum) -> Tnum {
        let z1y0 = z.ones() & y.zeros();
        Tnum {
            val: z1y0,
            unk: !(z.zeros() | z1y0),
        }
    }

    /// `z = x << k` on `w` bits: `x`'s bits below `w - k` are `z`'s bits
    /// from `k` up.
    pub fn shl(z: Tnum, k: u32, w: u32) -> Tnum {
        z.lshr(k).only(mask(w - k))
    }

    /// `z = x >> k` (logical or arithmetic) on `w` bits: `x`'s bits from `k`
    /// to `w - 1` are `z`'s bits below `w - k`.
    pub fn shr(z: Tnum, k: u32, w: u32) -> Tnum {
        Tnum {
            val: z.val << k,
            unk: z.unk << k,
        }
        .only(mask(w) & !mask(k))
    }

    /// `z = extract(hi, lo, x)`: `x`'s bits `hi..=lo` are `z`'s.
    pub fn extract(z: Tnum, hi: u32, lo: u32) -> Tnum {
        Tnum {
            val: z.val << lo,
            unk: z.unk << lo,
        }
        .only(mask(hi - lo + 1) << lo)
    }

    /// `z = sign_extend(n, x)` of a `w`-bit `x`: the low `w` bits are `x`,
    /// and every bit from `w - 1` up is `x`'s sign bit.
    pub fn sign_extend(z: Tnum, w: u32, n: u32) -> Tnum {
        let mut x = z.only(mask(w));
        let sb = 1u64 << (w - 1);
        let top = mask(w + n) & !mask(w - 1);
        let (ones, zeros) = (z.ones() & top, z.zeros() & top);
        if ones != 0 {
            x = Tnum {
                val: x.val | sb,
                unk: x.unk & !sb,
            };
        } else if zeros != 0 {
            x = Tnum {
                val: x.val & !sb,
                unk: x.unk & !sb,
            };
        }
        x
    }

    /// `z = x * c` on `w` bits for a constant `c = 2^k * o`, `o` odd:
    /// `z = (x * o) << k`, so `x * o` agrees with `z >> k` below bit `w - k`,
    /// and `x = (z >> k) * o^-1` there (`o` is invertible modulo `2^(w-k)`).
    /// `None` when `c` is 0 (nothing follows).
    pub fn mul_const(z: Tnum, c: u64, w: u32) -> Option<Tnum> {
        let c = c & mask(w);
        if c == 0 {
            return None;
        }
        let k = c.trailing_zeros();
        let o = c >> k;
        // Newton's iteration for the inverse of an odd number modulo 2^64.
        let mut inv = o;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(o.wrapping_mul(inv)));
        }
        let lw = w - k;
        Some(z.lshr(k).mul(Tnum::constant(inv), lw).only(mask(lw)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_tnum(rng: &mut ChaCha8Rng, w: u32) -> Tnum {
        let unk = rng.gen::<u64>() & rng.gen::<u64>() & mask(w);
        Tnum {
            val: rng.gen::<u64>() & !unk & mask(w),
            unk,
        }
    }

    fn members(t: Tnum, w: u32) -> Vec<u64> {
        (0..=mask(w)).filter(|&x| t.contains(x)).collect()
    }

    #[test]
    fn search_and_count_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..3000 {
            let w = rng.gen_range(1..=8);
            let t = random_tnum(&mut rng, w);
            let ms = members(t, w);
            let v = rng.gen_range(0..=mask(w));
            assert_eq!(
                t.next_ge(v),
                ms.iter().copied().find(|&x| x >= v),
                "{t:?} {v}"
            );
            assert_eq!(t.prev_le(v), ms.iter().copied().rev().find(|&x| x <= v));
            assert_eq!(
                t.count_le(v),
                ms.iter().filter(|&&x| x <= v).count() as u128
            );
        }
        assert_eq!(Tnum::TOP.count_le(u64::MAX), 1u128 << 64);
        assert_eq!(Tnum::TOP.next_ge(u64::MAX), Some(u64::MAX));
        assert_eq!(Tnum::constant(5).next_ge(6), None);
    }

    #[test]
    fn transfer_functions_contain_every_result() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for _ in 0..1500 {
            let w = rng.gen_range(1..=6);
            let (a, b) = (random_tnum(&mut rng, w), random_tnum(&mut rng, w));
            let k = rng.gen_range(0..w);
            let c = rng.gen_range(0..=mask(w));
            for x in members(a, w) {
                assert!(a.not(w).contains(!x & mask(w)));
                assert!(a.shl(k, w).contains((x << k) & mask(w)));
                assert!(a.lshr(k).contains(x >> k));
                let sx = ((x << (64 - w)) as i64 >> (64 - w)) as u64;
                assert!(a.ashr(k, w).contains((sx >> k) & mask(w)));
                assert!(a.sign_extend(w, 3).contains(sx & mask(w + 3)));
                let z = x.wrapping_mul(c) & mask(w);
                if let Some(bx) = back::mul_const(Tnum::constant(z), c, w) {
                    assert!(bx.contains(x), "{x} * {c} = {z}, back {bx:?}");
                }
                for y in members(b, w) {
                    let ops = [
                        (a.and(b), x & y),
                        (a.or(b), x | y),
                        (a.xor(b), x ^ y),
                        (a.add(b, w), x.wrapping_add(y) & mask(w)),
                        (a.sub(b, w), x.wrapping_sub(y) & mask(w)),
                        (a.mul(b, w), x.wrapping_mul(y) & mask(w)),
                    ];
                    for (i, (t, v)) in ops.into_iter().enumerate() {
                        assert!(t.contains(v), "op {i}: {a:?} {b:?} {x} {y}");
                    }
                    let cz = |v: u64| Tnum::constant(v);
                    assert!(back::and(cz(x & y), b).contains(x));
                    assert!(back::or(cz(x | y), b).contains(x));
                }
            }
        }
    }
}
