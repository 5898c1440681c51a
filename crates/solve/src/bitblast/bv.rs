//! Word-level bit-vector circuits over an [`Aig`]: a word is a slice of
//! literals, least significant bit first.
//!
//! Arithmetic is ripple-carry (adders, subtractors, comparators), shift-and-add
//! multiplication, restoring division, and logarithmic barrel shifters; SMT-LIB's
//! total semantics are kept (`bvudiv` by zero is all ones, `bvurem` by zero is
//! the dividend, shifts by the width or more give zero or the sign). The
//! floating-point circuits ([`crate::bitblast::fp`]) build on the same
//! primitives, plus the sticky right shift and the leading-zero normalizer.

use super::aig::{Aig, Lit};

/// A word: literals, least significant first.
pub type Word = Vec<Lit>;

/// The constant `value` on `w` bits (bits past 128 are zero).
pub fn constant(value: u128, w: usize) -> Word {
    (0..w)
        .map(|i| Lit::constant(i < 128 && (value >> i) & 1 == 1))
        .collect()
}

/// `w` fresh inputs.
pub fn inputs(g: &mut Aig, w: usize) -> Word {
    (0..w).map(|_| g.input()).collect()
}

/// `a` zero-extended (or truncated) to `w` bits.
pub fn zext(a: &[Lit], w: usize) -> Word {
    (0..w)
        .map(|i| a.get(i).copied().unwrap_or(Lit::FALSE))
        .collect()
}

/// `a` sign-extended (or truncated) to `w` bits.
pub fn sext(a: &[Lit], w: usize) -> Word {
    let sign = *a.last().expect("non-empty word");
    (0..w).map(|i| a.get(i).copied().unwrap_or(sign)).collect()
}

/// Bitwise `!a`.
pub fn not(a: &[Lit]) -> Word {
    a.iter().map(|&l| !l).collect()
}

/// Bitwise combination of two words of one width.
pub fn zip(g: &mut Aig, a: &[Lit], b: &[Lit], f: fn(&mut Aig, Lit, Lit) -> Lit) -> Word {
    a.iter().zip(b).map(|(&x, &y)| f(g, x, y)).collect()
}

/// `if c then t else e`, bitwise.
pub fn ite(g: &mut Aig, c: Lit, t: &[Lit], e: &[Lit]) -> Word {
    t.iter().zip(e).map(|(&x, &y)| g.ite(c, x, y)).collect()
}

/// Whether any bit is set.
pub fn any(g: &mut Aig, a: &[Lit]) -> Lit {
    g.or_all(a.iter().copied())
}

/// Whether every bit is set.
pub fn all(g: &mut Aig, a: &[Lit]) -> Lit {
    g.and_all(a.iter().copied())
}

/// `a == b`.
pub fn eq(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Lit {
    let same = zip(g, a, b, Aig::iff);
    all(g, &same)
}

/// `a == value`.
pub fn eq_const(g: &mut Aig, a: &[Lit], value: u64) -> Lit {
    eq(g, a, &constant(u128::from(value), a.len()))
}

/// `a + b + carry_in` on the width of `a`, and the carry out.
pub fn add_carry(g: &mut Aig, a: &[Lit], b: &[Lit], carry_in: Lit) -> (Word, Lit) {
    let mut carry = carry_in;
    let mut sum = Vec::with_capacity(a.len());
    for (&x, &y) in a.iter().zip(b) {
        let half = g.xor(x, y);
        sum.push(g.xor(half, carry));
        let both = g.and(x, y);
        let through = g.and(half, carry);
        carry = g.or(both, through);
    }
    (sum, carry)
}

/// `a + b` modulo `2^w`.
pub fn add(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Word {
    add_carry(g, a, b, Lit::FALSE).0
}

/// `a - b` modulo `2^w`.
pub fn sub(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Word {
    add_carry(g, a, &not(b), Lit::TRUE).0
}

/// `-a` modulo `2^w`.
pub fn neg(g: &mut Aig, a: &[Lit]) -> Word {
    add_carry(g, &not(a), &constant(0, a.len()), Lit::TRUE).0
}

/// `a + 1`-style increment by the single bit `inc`.
pub fn increment(g: &mut Aig, a: &[Lit], inc: Lit) -> (Word, Lit) {
    add_carry(g, a, &constant(0, a.len()), inc)
}

/// `a < b`, unsigned.
pub fn ult(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Lit {
    // a - b borrows exactly when a < b: the carry of a + !b + 1 is clear.
    !add_carry(g, a, &not(b), Lit::TRUE).1
}

/// `a <= b`, unsigned.
pub fn ule(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Lit {
    !ult(g, b, a)
}

/// `a < b`, two's complement.
pub fn slt(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Lit {
    // Flipping the sign bits maps signed order onto unsigned order.
    let flip = |w: &[Lit]| {
        let mut w = w.to_vec();
        let top = w.len() - 1;
        w[top] = !w[top];
        w
    };
    ult(g, &flip(a), &flip(b))
}

/// `a <= b`, two's complement.
pub fn sle(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Lit {
    !slt(g, b, a)
}

/// `a * b` modulo `2^w`, by shift and add.
pub fn mul(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Word {
    let w = a.len();
    let mut acc = constant(0, w);
    for (i, &bit) in b.iter().enumerate() {
        let partial: Word = (0..w)
            .map(|j| {
                if j < i {
                    Lit::FALSE
                } else {
                    g.and(a[j - i], bit)
                }
            })
            .collect();
        acc = add(g, &acc, &partial);
    }
    acc
}

/// The full product of `a` (width `n`) and `b` (width `m`) on `n + m` bits.
pub fn mul_wide(g: &mut Aig, a: &[Lit], b: &[Lit]) -> Word {
    let w = a.len() + b.len();
    mul(g, &zext(a, w), &zext(b, w))
}

/// Unsigned quotient and remainder with SMT-LIB's division by zero
/// (quotient all ones, remainder the dividend), by restoring division.
pub fn udivrem(g: &mut Aig, a: &[Lit], b: &[Lit]) -> (Word, Word) {
    let w = a.len();
    let wide_b = zext(b, w + 1);
    let mut rem = constant(0, w + 1);
    let mut quot = vec![Lit::FALSE; w];
    for i in (0..w).rev() {
        let mut shifted = vec![a[i]];
        shifted.extend_from_slice(&rem[..w]);
        let fits = !ult(g, &shifted, &wide_b);
        let diff = sub(g, &shifted, &wide_b);
        rem = ite(g, fits, &diff, &shifted);
        quot[i] = fits;
    }
    // Division by zero needs no case: every trial subtraction of 0 fits, so the
    // quotient is all ones and the remainder the dividend.
    (quot, rem[..w].to_vec())
}

/// `a << amount`; zero when `amount >= w`.
pub fn shl(g: &mut Aig, a: &[Lit], amount: &[Lit]) -> Word {
    shift(g, a, amount, Lit::FALSE, Direction::Left)
}

/// `a >> amount`, logical; zero when `amount >= w`.
pub fn lshr(g: &mut Aig, a: &[Lit], amount: &[Lit]) -> Word {
    shift(g, a, amount, Lit::FALSE, Direction::Right)
}

/// `a >> amount`, arithmetic; all sign bits when `amount >= w`.
pub fn ashr(g: &mut Aig, a: &[Lit], amount: &[Lit]) -> Word {
    let sign = *a.last().expect("non-empty word");
    shift(g, a, amount, sign, Direction::Right)
}

/// `a >> amount` (logical) with every bit shifted out ORed into bit 0 (the
/// sticky bit of rounding); all of `a` becomes sticky when `amount >= w`.
pub fn lshr_sticky(g: &mut Aig, a: &[Lit], amount: &[Lit]) -> Word {
    shift(g, a, amount, Lit::FALSE, Direction::RightSticky)
}

/// Which way a barrel shifter moves bits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Left,
    Right,
    /// Right, keeping whether any set bit was shifted out in bit 0.
    RightSticky,
}

/// Barrel shifter: stage `k` shifts by `2^k` when bit `k` of `amount` is set;
/// any set bit of weight `>= w` shifts everything out (all `fill`, or only the
/// sticky bit).
fn shift(g: &mut Aig, a: &[Lit], amount: &[Lit], fill: Lit, direction: Direction) -> Word {
    let w = a.len();
    let mut cur = a.to_vec();
    let mut overflow = Lit::FALSE;
    for (k, &bit) in amount.iter().enumerate() {
        let step = 1usize.checked_shl(k as u32).unwrap_or(usize::MAX);
        if step >= w {
            overflow = g.or(overflow, bit);
            continue;
        }
        let mut moved: Word = (0..w)
            .map(|i| {
                let from = if direction == Direction::Left {
                    i.checked_sub(step)
                } else {
                    Some(i + step).filter(|&j| j < w)
                };
                from.map_or(fill, |j| cur[j])
            })
            .collect();
        if direction == Direction::RightSticky {
            let lost = any(g, &cur[..step]);
            moved[0] = g.or(moved[0], lost);
        }
        cur = ite(g, bit, &moved, &cur);
    }
    let mut gone = vec![fill; w];
    if direction == Direction::RightSticky {
        gone[0] = any(g, a);
    }
    ite(g, overflow, &gone, &cur)
}

/// `a` shifted left until its top bit is set, and the shift (the count of
/// leading zeros, `w` for zero) on `bits_for(w)` bits.
pub fn normalize(g: &mut Aig, a: &[Lit]) -> (Word, Word) {
    let w = a.len();
    let cw = bits_for(w as u64);
    let mut cur = a.to_vec();
    let mut count = vec![Lit::FALSE; cw];
    for k in (0..cw).rev() {
        let step = 1usize << k;
        if step >= w {
            continue;
        }
        // The top `step` bits all clear: shift them out.
        let top_clear = !any(g, &cur[w - step..]);
        let moved: Word = (0..w)
            .map(|i| i.checked_sub(step).map_or(Lit::FALSE, |j| cur[j]))
            .collect();
        cur = ite(g, top_clear, &moved, &cur);
        count[k] = top_clear;
    }
    // Only a zero word still has a clear top bit: its count is `w`.
    let zero = !cur[w - 1];
    let full = constant(w as u128, cw);
    let count = ite(g, zero, &full, &count);
    (cur, count)
}

/// The number of bits that hold `0..=n`.
pub fn bits_for(n: u64) -> usize {
    (64 - n.leading_zeros()).max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::mask;

    /// Evaluates a word whose inputs are the first nodes, bit `i` of `x` for
    /// node `1 + i`.
    fn value(g: &Aig, word: &[Lit], x: u64) -> u64 {
        let values = g.simulate(&|n| if (x >> (n - 1)) & 1 == 1 { !0 } else { 0 });
        word.iter()
            .enumerate()
            .map(|(i, &l)| (Aig::read(&values, l) & 1) << i)
            .sum()
    }

    /// Checks a binary circuit on 4-bit operands against `reference`, exhaustively.
    fn exhaustive(build: fn(&mut Aig, &[Lit], &[Lit]) -> Word, reference: fn(u64, u64) -> u64) {
        let mut g = Aig::new();
        let a = inputs(&mut g, 4);
        let b = inputs(&mut g, 4);
        let out = build(&mut g, &a, &b);
        for x in 0..16u64 {
            for y in 0..16u64 {
                let got = value(&g, &out, x | (y << 4));
                assert_eq!(got, reference(x, y) & mask(out.len() as u32), "{x} {y}");
            }
        }
    }

    #[test]
    fn arithmetic_matches_integers() {
        exhaustive(add, |x, y| x + y);
        exhaustive(sub, |x, y| x.wrapping_sub(y));
        exhaustive(mul, |x, y| x * y);
        exhaustive(mul_wide, |x, y| x * y);
        exhaustive(
            |g, a, b| udivrem(g, a, b).0,
            |x, y| x.checked_div(y).unwrap_or(15),
        );
        exhaustive(
            |g, a, b| udivrem(g, a, b).1,
            |x, y| if y == 0 { x } else { x % y },
        );
        exhaustive(|g, a, _| neg(g, a), |x, _| x.wrapping_neg());
    }

    #[test]
    fn shifts_and_comparisons_match_integers() {
        exhaustive(shl, |x, y| if y >= 4 { 0 } else { x << y });
        exhaustive(lshr, |x, y| if y >= 4 { 0 } else { x >> y });
        exhaustive(ashr, |x, y| {
            let x = ((x << 60) as i64) >> 60;
            (x >> y.min(3)) as u64
        });
        exhaustive(|g, a, b| vec![ult(g, a, b)], |x, y| u64::from(x < y));
        exhaustive(|g, a, b| vec![ule(g, a, b)], |x, y| u64::from(x <= y));
        exhaustive(
            |g, a, b| vec![slt(g, a, b)],
            move |x, y| u64::from(((x << 60) as i64) < ((y << 60) as i64)),
        );
        exhaustive(
            |g, a, b| vec![sle(g, a, b)],
            move |x, y| u64::from(((x << 60) as i64) <= ((y << 60) as i64)),
        );
    }

    #[test]
    fn sticky_shift_and_normalize_match_integers() {
        exhaustive(lshr_sticky, |x, y| {
            let kept = if y >= 4 { 0 } else { x >> y };
            let lost = if y >= 4 { x } else { x & ((1 << y) - 1) };
            kept | u64::from(lost != 0)
        });
        exhaustive(
            |g, a, _| normalize(g, a).0,
            |x, _| {
                if x == 0 {
                    0
                } else {
                    x << (x.leading_zeros() - 60)
                }
            },
        );
        exhaustive(
            |g, a, _| normalize(g, a).1,
            |x, _| u64::from(x.leading_zeros() - 60),
        );
    }
}
