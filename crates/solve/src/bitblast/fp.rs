//! Floating-point circuits, generic in the format `(eb, sb)`.
//!
//! The design follows symfpu (Brain, Schanda, Sun, "Building Better Bit-Blasters
//! for Floating-Point Problems", TACAS 2019) and Brain et al., "An Automatable
//! Formal Semantics for IEEE-754 Floating-Point Arithmetic" (ARITH 2015), in our
//! own code: a packed operand is *unpacked* into its class (NaN, infinity, zero),
//! sign, a signed unbiased exponent wide enough for every intermediate value, and a
//! significand normalized so its top bit is set (subnormals included); each
//! operation computes its exact result as a wider significand plus a sticky bit;
//! `round` is the one place where rounding modes act (subnormal denormalization,
//! increment per mode, carry, overflow to infinity or the largest finite value)
//! and where the result is packed. Special classes are decided beside the
//! arithmetic and selected at the end.
//!
//! Values are packed IEEE patterns, least significant bit first. Results of
//! arithmetic carry the format's one quiet NaN; operands may be any NaN pattern
//! (SMT-LIB has one NaN, so every circuit treats all NaN patterns alike).
//! A rounding mode is a 3-bit word holding [`SmtRounding::index`].

use super::aig::{Aig, Lit};
use super::bv::{self, Word};
use crate::sort::FpFormat;
use crate::sort::SmtRounding;

/// Bits of a rounding-mode word.
pub const MODE_BITS: usize = 3;

/// The mode word of a constant mode.
pub fn mode_constant(rm: SmtRounding) -> Word {
    bv::constant(rm.index() as u128, MODE_BITS)
}

/// A rounding-mode word decoded to one flag per mode.
#[derive(Clone, Copy, Debug)]
pub struct Modes {
    rne: Lit,
    rna: Lit,
    rtp: Lit,
    rtn: Lit,
}

impl Modes {
    /// Decodes a mode word (indices past the five modes act as round toward zero,
    /// and never occur: mode variables are constrained to the five).
    pub fn decode(g: &mut Aig, mode: &[Lit]) -> Modes {
        let is = |g: &mut Aig, rm: SmtRounding| bv::eq_const(g, mode, rm.index() as u64);
        Modes {
            rne: is(g, SmtRounding::Rne),
            rna: is(g, SmtRounding::Rna),
            rtp: is(g, SmtRounding::Rtp),
            rtn: is(g, SmtRounding::Rtn),
        }
    }

    /// Whether rounding the magnitude up (away from zero) is what the mode does to a
    /// value of sign `sign` whose kept last bit is `lsb`, first discarded bit `guard`
    /// and rest `sticky`.
    fn rounds_up(&self, g: &mut Aig, sign: Lit, lsb: Lit, guard: Lit, sticky: Lit) -> Lit {
        let inexact = g.or(guard, sticky);
        let odd_or_above = g.or(sticky, lsb);
        let nearest_even = g.and(guard, odd_or_above);
        let rne = g.and(self.rne, nearest_even);
        let rna = g.and(self.rna, guard);
        let up = g.and(self.rtp, !sign);
        let down = g.and(self.rtn, sign);
        let directed = g.or(up, down);
        let directed = g.and(directed, inexact);
        g.or_all([rne, rna, directed])
    }

    /// Whether an overflow of a value of sign `sign` gives infinity (else the
    /// largest finite value).
    fn overflows_to_infinity(&self, g: &mut Aig, sign: Lit) -> Lit {
        let up = g.and(self.rtp, !sign);
        let down = g.and(self.rtn, sign);
        g.or_all([self.rne, self.rna, up, down])
    }
}

/// Width of the signed exponent of unpacked values of `f`: room for the sum of two
/// exponents of normalized subnormals minus a normalization shift of three
/// significands (the widest intermediate, in `fma`).
pub fn exp_width(f: FpFormat) -> usize {
    (f.eb as usize).max(bv::bits_for(u64::from(f.sb))) + 4
}

fn bias(f: FpFormat) -> i64 {
    (1i64 << (f.eb - 1)) - 1
}

fn signed_constant(v: i64, w: usize) -> Word {
    bv::constant(v as i128 as u128, w)
}

/// The parts of a packed value.
struct Fields {
    sign: Lit,
    exp: Word,
    frac: Word,
}

fn fields(f: FpFormat, x: &[Lit]) -> Fields {
    let fb = f.sb as usize - 1;
    Fields {
        sign: x[fb + f.eb as usize],
        exp: x[fb..fb + f.eb as usize].to_vec(),
        frac: x[..fb].to_vec(),
    }
}

fn pack(sign: Lit, exp: &[Lit], frac: &[Lit]) -> Word {
    let mut w = frac.to_vec();
    w.extend_from_slice(exp);
    w.push(sign);
    w
}

/// The format's quiet NaN.
pub fn nan(f: FpFormat) -> Word {
    bv::constant(f.nan(), (f.eb + f.sb) as usize)
}

fn infinity(f: FpFormat, sign: Lit) -> Word {
    let exp = vec![Lit::TRUE; f.eb as usize];
    pack(sign, &exp, &bv::constant(0, f.sb as usize - 1))
}

fn zero(f: FpFormat, sign: Lit) -> Word {
    pack(
        sign,
        &bv::constant(0, f.eb as usize),
        &bv::constant(0, f.sb as usize - 1),
    )
}

fn max_finite(f: FpFormat, sign: Lit) -> Word {
    let mut exp = vec![Lit::TRUE; f.eb as usize];
    exp[0] = Lit::FALSE;
    pack(sign, &exp, &vec![Lit::TRUE; f.sb as usize - 1])
}

/// An unpacked operand.
#[derive(Clone, Debug)]
pub struct Unpacked {
    /// Any NaN pattern.
    pub nan: Lit,
    /// An infinity.
    pub inf: Lit,
    /// A zero.
    pub zero: Lit,
    /// A subnormal.
    pub subnormal: Lit,
    /// The sign bit.
    pub sign: Lit,
    /// The unbiased exponent of the top significand bit (finite non-zero values).
    exp: Word,
    /// The significand, `sb` bits, top bit set (finite non-zero values).
    sig: Word,
}

impl Unpacked {
    /// A normal number.
    pub fn normal(&self, g: &mut Aig) -> Lit {
        let special = g.or_all([self.nan, self.inf, self.zero, self.subnormal]);
        !special
    }

    fn finite(&self, g: &mut Aig) -> Lit {
        !g.or(self.nan, self.inf)
    }
}

/// Unpacks `x` of format `f` with an exponent of `ew` bits.
pub fn unpack(g: &mut Aig, f: FpFormat, x: &[Lit], ew: usize) -> Unpacked {
    let Fields { sign, exp, frac } = fields(f, x);
    let exp_zero = !bv::any(g, &exp);
    let exp_ones = bv::all(g, &exp);
    let frac_zero = !bv::any(g, &frac);
    let mut sig = frac.clone();
    sig.push(!exp_zero);
    let (sig, shift) = bv::normalize(g, &sig);
    let unbiased = bv::sub(g, &bv::zext(&exp, ew), &signed_constant(bias(f), ew));
    let at_min = signed_constant(1 - bias(f), ew);
    let before_shift = bv::ite(g, exp_zero, &at_min, &unbiased);
    let exp = bv::sub(g, &before_shift, &bv::zext(&shift, ew));
    Unpacked {
        nan: g.and(exp_ones, !frac_zero),
        inf: g.and(exp_ones, frac_zero),
        zero: g.and(exp_zero, frac_zero),
        subnormal: g.and(exp_zero, !frac_zero),
        sign,
        exp,
        sig,
    }
}

/// Rounds the finite non-zero value `(-1)^sign * sig * 2^(exp - (W-1))` (the top bit
/// of `sig`, `W >= sb + 2` bits wide, set; `sticky` for anything below its last
/// bit) to format `f` under `modes`, and packs it.
fn round(
    g: &mut Aig,
    f: FpFormat,
    modes: &Modes,
    sign: Lit,
    exp: &[Lit],
    sig: &[Lit],
    sticky: Lit,
) -> Word {
    let (w, sb, ew) = (sig.len(), f.sb as usize, exp.len());
    debug_assert!(w >= sb + 2);
    let emin = signed_constant(1 - bias(f), ew);
    // Below the normal range the value is denormalized to the minimum exponent.
    let tiny = bv::slt(g, exp, &emin);
    let distance = bv::sub(g, &emin, exp);
    let denormalized = bv::lshr_sticky(g, sig, &distance);
    let m = bv::ite(g, tiny, &denormalized, sig);
    let e = bv::ite(g, tiny, &emin, exp);
    let low = w - sb;
    let kept = &m[low..];
    let guard = m[low - 1];
    let rest = bv::any(g, &m[..low - 1]);
    let sticky = g.or(rest, sticky);
    let up = modes.rounds_up(g, sign, kept[0], guard, sticky);
    let (sum, carry) = bv::increment(g, kept, up);
    // A carry out means the significand became 2^sb: one more exponent step.
    let carried = bv::constant(1u128 << (sb - 1), sb);
    let sig = bv::ite(g, carry, &carried, &sum);
    let (e_plus, _) = bv::increment(g, &e, Lit::TRUE);
    let e = bv::ite(g, carry, &e_plus, &e);
    let overflow = bv::slt(g, &signed_constant(bias(f), ew), &e);
    let biased = bv::add(g, &e, &signed_constant(bias(f), ew));
    let is_normal = sig[sb - 1];
    let exp_field: Word = biased[..f.eb as usize]
        .iter()
        .map(|&b| g.and(b, is_normal))
        .collect();
    let finite = pack(sign, &exp_field, &sig[..sb - 1]);
    let to_inf = modes.overflows_to_infinity(g, sign);
    let inf = infinity(f, sign);
    let max = max_finite(f, sign);
    let big = bv::ite(g, to_inf, &inf, &max);
    bv::ite(g, overflow, &big, &finite)
}

/// Selects among the special results and the rounded one.
struct Cases {
    nan: Lit,
    inf: Lit,
    inf_sign: Lit,
    zero: Lit,
    zero_sign: Lit,
}

fn select(g: &mut Aig, f: FpFormat, c: Cases, rounded: &[Lit]) -> Word {
    let z = zero(f, c.zero_sign);
    let r = bv::ite(g, c.zero, &z, rounded);
    let i = infinity(f, c.inf_sign);
    let r = bv::ite(g, c.inf, &i, &r);
    bv::ite(g, c.nan, &nan(f), &r)
}

/// An exact finite operand of an addition: its significand may be wider than the
/// format's (an unrounded product in `fma`).
struct Summand {
    sign: Lit,
    zero: Lit,
    exp: Word,
    sig: Word,
}

fn summand(u: &Unpacked, width: usize) -> Summand {
    let pad = width - u.sig.len();
    let mut sig = vec![Lit::FALSE; pad];
    sig.extend_from_slice(&u.sig);
    Summand {
        sign: u.sign,
        zero: u.zero,
        exp: u.exp.clone(),
        sig,
    }
}

/// The rounded sum of two finite summands of one significand width (IEEE 754
/// §6.3 for zero sums: `+0` unless both are `-0`, `-0` toward negative).
fn add_finite(g: &mut Aig, f: FpFormat, modes: &Modes, a: &Summand, b: &Summand) -> Word {
    let w = a.sig.len();
    let a_above_b = {
        let exp_gt = bv::slt(g, &b.exp, &a.exp);
        let exp_eq = bv::eq(g, &a.exp, &b.exp);
        let sig_ge = bv::ule(g, &b.sig, &a.sig);
        let tie = g.and(exp_eq, sig_ge);
        let larger = g.or(exp_gt, tie);
        let a_larger = g.and(!a.zero, larger);
        g.or(b.zero, a_larger)
    };
    let pick = |g: &mut Aig, x: &[Lit], y: &[Lit]| bv::ite(g, a_above_b, x, y);
    let big_exp = pick(g, &a.exp, &b.exp);
    let small_exp = pick(g, &b.exp, &a.exp);
    let big_sig = pick(g, &a.sig, &b.sig);
    let small_sig = pick(g, &b.sig, &a.sig);
    let big_sign = g.ite(a_above_b, a.sign, b.sign);
    // Three bits below the significands (guard, round, sticky) and one carry bit
    // above keep the sum exact up to the sticky bit.
    let extend = |s: &[Lit]| {
        let mut e = vec![Lit::FALSE; 3];
        e.extend_from_slice(s);
        e.push(Lit::FALSE);
        e
    };
    let distance = bv::sub(g, &big_exp, &small_exp);
    let aligned = bv::lshr_sticky(g, &extend(&small_sig), &distance);
    let subtract = g.xor(a.sign, b.sign);
    let sum = bv::add(g, &extend(&big_sig), &aligned);
    let difference = bv::sub(g, &extend(&big_sig), &aligned);
    let exact = bv::ite(g, subtract, &difference, &sum);
    let (normalized, shift) = bv::normalize(g, &exact);
    let is_zero = !normalized[w + 3];
    let ew = big_exp.len();
    let (top_exp, _) = bv::increment(g, &big_exp, Lit::TRUE);
    let exp = bv::sub(g, &top_exp, &bv::zext(&shift, ew));
    let rounded = round(g, f, modes, big_sign, &exp, &normalized, Lit::FALSE);
    let zero_sign = g.ite(subtract, modes.rtn, a.sign);
    let z = zero(f, zero_sign);
    bv::ite(g, is_zero, &z, &rounded)
}

/// `fp.add`.
pub fn add(g: &mut Aig, f: FpFormat, mode: &[Lit], x: &[Lit], y: &[Lit]) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f);
    let (ux, uy) = (unpack(g, f, x, ew), unpack(g, f, y, ew));
    let w = f.sb as usize;
    let rounded = add_finite(g, f, &modes, &summand(&ux, w), &summand(&uy, w));
    let opposite = g.xor(ux.sign, uy.sign);
    let both_inf = g.and(ux.inf, uy.inf);
    let inf_minus_inf = g.and(both_inf, opposite);
    let cases = Cases {
        nan: g.or_all([ux.nan, uy.nan, inf_minus_inf]),
        inf: g.or(ux.inf, uy.inf),
        inf_sign: g.ite(ux.inf, ux.sign, uy.sign),
        zero: Lit::FALSE,
        zero_sign: Lit::FALSE,
    };
    select(g, f, cases, &rounded)
}

/// `fp.sub`: `x + (-y)`.
pub fn sub(g: &mut Aig, f: FpFormat, mode: &[Lit], x: &[Lit], y: &[Lit]) -> Word {
    add(g, f, mode, x, &negate(y))
}

/// Flips the sign bit (NaN stays a NaN pattern).
fn negate(x: &[Lit]) -> Word {
    let mut y = x.to_vec();
    let top = y.len() - 1;
    y[top] = !y[top];
    y
}

/// The exact product of two finite significands: sign, exponent, `2 sb` bits with
/// the top bit set (for non-zero operands).
fn product(g: &mut Aig, ux: &Unpacked, uy: &Unpacked) -> Summand {
    let p = bv::mul_wide(g, &ux.sig, &uy.sig);
    let top = *p.last().expect("non-empty product");
    let mut shifted = vec![Lit::FALSE];
    shifted.extend_from_slice(&p[..p.len() - 1]);
    let sig = bv::ite(g, top, &p, &shifted);
    let sum = bv::add(g, &ux.exp, &uy.exp);
    let (exp, _) = bv::increment(g, &sum, top);
    Summand {
        sign: g.xor(ux.sign, uy.sign),
        zero: g.or(ux.zero, uy.zero),
        exp,
        sig,
    }
}

/// `inf * 0` or `0 * inf`.
fn invalid_product(g: &mut Aig, ux: &Unpacked, uy: &Unpacked) -> Lit {
    let a = g.and(ux.inf, uy.zero);
    let b = g.and(ux.zero, uy.inf);
    g.or(a, b)
}

/// `fp.mul`.
pub fn mul(g: &mut Aig, f: FpFormat, mode: &[Lit], x: &[Lit], y: &[Lit]) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f);
    let (ux, uy) = (unpack(g, f, x, ew), unpack(g, f, y, ew));
    let p = product(g, &ux, &uy);
    let rounded = round(g, f, &modes, p.sign, &p.exp, &p.sig, Lit::FALSE);
    let invalid = invalid_product(g, &ux, &uy);
    let cases = Cases {
        nan: g.or_all([ux.nan, uy.nan, invalid]),
        inf: g.or(ux.inf, uy.inf),
        inf_sign: p.sign,
        zero: p.zero,
        zero_sign: p.sign,
    };
    select(g, f, cases, &rounded)
}

/// `fp.fma`: `x * y + z` rounded once.
pub fn fma(g: &mut Aig, f: FpFormat, mode: &[Lit], x: &[Lit], y: &[Lit], z: &[Lit]) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f);
    let (ux, uy, uz) = (
        unpack(g, f, x, ew),
        unpack(g, f, y, ew),
        unpack(g, f, z, ew),
    );
    let p = product(g, &ux, &uy);
    let addend = summand(&uz, p.sig.len());
    let rounded = add_finite(g, f, &modes, &p, &addend);
    let product_inf = g.or(ux.inf, uy.inf);
    let opposite = g.xor(p.sign, uz.sign);
    let both_inf = g.and(product_inf, uz.inf);
    let inf_minus_inf = g.and(both_inf, opposite);
    let invalid = invalid_product(g, &ux, &uy);
    let cases = Cases {
        nan: g.or_all([ux.nan, uy.nan, uz.nan, invalid, inf_minus_inf]),
        inf: g.or(product_inf, uz.inf),
        inf_sign: g.ite(product_inf, p.sign, uz.sign),
        zero: Lit::FALSE,
        zero_sign: Lit::FALSE,
    };
    select(g, f, cases, &rounded)
}

/// `fp.div`.
pub fn div(g: &mut Aig, f: FpFormat, mode: &[Lit], x: &[Lit], y: &[Lit]) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f);
    let sb = f.sb as usize;
    let (ux, uy) = (unpack(g, f, x, ew), unpack(g, f, y, ew));
    // Long division of the significands (both in [2^(sb-1), 2^sb)): sb + 3 quotient
    // bits, the first of weight 2^(sb+2), and the remainder as sticky.
    let divisor = bv::zext(&uy.sig, sb + 1);
    let mut rem = bv::zext(&ux.sig, sb + 1);
    let mut quotient = vec![Lit::FALSE; sb + 3];
    for i in (0..sb + 3).rev() {
        let fits = bv::ule(g, &divisor, &rem);
        let less = bv::sub(g, &rem, &divisor);
        let r = bv::ite(g, fits, &less, &rem);
        quotient[i] = fits;
        if i > 0 {
            rem = vec![Lit::FALSE];
            rem.extend_from_slice(&r[..sb]);
        } else {
            rem = r;
        }
    }
    let sticky = bv::any(g, &rem);
    let top = quotient[sb + 2];
    let mut shifted = vec![Lit::FALSE];
    shifted.extend_from_slice(&quotient[..sb + 2]);
    let sig = bv::ite(g, top, &quotient, &shifted);
    let diff = bv::sub(g, &ux.exp, &uy.exp);
    let (diff_minus_one, _) = bv::add_carry(g, &diff, &vec![Lit::TRUE; ew], Lit::FALSE);
    let exp = bv::ite(g, top, &diff, &diff_minus_one);
    let sign = g.xor(ux.sign, uy.sign);
    let rounded = round(g, f, &modes, sign, &exp, &sig, sticky);
    let zero_by_zero = g.and(ux.zero, uy.zero);
    let inf_by_inf = g.and(ux.inf, uy.inf);
    let x_finite = ux.finite(g);
    let nonzero_by_zero = {
        let nonzero = g.and(!ux.zero, uy.zero);
        g.and(nonzero, !ux.nan)
    };
    let finite_by_inf = g.and(x_finite, uy.inf);
    let cases = Cases {
        nan: g.or_all([ux.nan, uy.nan, zero_by_zero, inf_by_inf]),
        inf: g.or(ux.inf, nonzero_by_zero),
        inf_sign: sign,
        zero: g.or(ux.zero, finite_by_inf),
        zero_sign: sign,
    };
    select(g, f, cases, &rounded)
}

/// `fp.sqrt`.
pub fn sqrt(g: &mut Aig, f: FpFormat, mode: &[Lit], x: &[Lit]) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f);
    let sb = f.sb as usize;
    let ux = unpack(g, f, x, ew);
    // Make the exponent even (an odd one moves a factor 2 into the significand),
    // then take the integer root of sig * 2^(sb+3): sb + 2 bits, top bit set.
    let odd = ux.exp[0];
    let mut doubled = vec![Lit::FALSE];
    doubled.extend_from_slice(&ux.sig);
    let sig = bv::ite(g, odd, &doubled, &bv::zext(&ux.sig, sb + 1));
    let mut radicand = vec![Lit::FALSE; sb + 3];
    radicand.extend_from_slice(&sig);
    let (root, rem_nonzero) = integer_sqrt(g, &radicand);
    let mut even_exp = ux.exp.clone();
    even_exp[0] = Lit::FALSE;
    let mut exp = even_exp[1..].to_vec();
    exp.push(*even_exp.last().expect("non-empty exponent"));
    let rounded = round(g, f, &modes, Lit::FALSE, &exp, &root, rem_nonzero);
    let negative = g.and(ux.sign, !ux.zero);
    let cases = Cases {
        nan: g.or(ux.nan, negative),
        inf: ux.inf,
        inf_sign: Lit::FALSE,
        zero: ux.zero,
        zero_sign: ux.sign,
    };
    select(g, f, cases, &rounded)
}

/// The integer square root of `n` (an even number of bits) by the digit-by-digit
/// method: the root (half the bits) and whether a remainder is left.
fn integer_sqrt(g: &mut Aig, n: &[Lit]) -> (Word, Lit) {
    let half = n.len() / 2;
    // The remainder stays below 2 * root + 1 < 2^(half+1); shifted in, 2^(half+3).
    let rw = half + 3;
    let mut rem = bv::constant(0, rw);
    let mut root: Word = Vec::new();
    for i in (0..half).rev() {
        // rem = rem * 4 + next two bits; trial = root * 4 + 1.
        let mut r = vec![n[2 * i], n[2 * i + 1]];
        r.extend_from_slice(&rem[..rw - 2]);
        let mut trial = vec![Lit::TRUE, Lit::FALSE];
        trial.extend_from_slice(&root);
        let trial = bv::zext(&trial, rw);
        let fits = bv::ule(g, &trial, &r);
        let less = bv::sub(g, &r, &trial);
        rem = bv::ite(g, fits, &less, &r);
        root.insert(0, fits);
    }
    let rem_nonzero = bv::any(g, &rem);
    (root, rem_nonzero)
}

/// The magnitude of the integer `modes` rounds the finite value `sign, exp, sig`
/// to, on `m` bits, and whether it needs more than `m` bits.
fn integer_part(g: &mut Aig, modes: &Modes, u: &Unpacked, m: usize) -> (Word, Lit) {
    let sb = u.sig.len();
    let ew = u.exp.len();
    let k = sb.max(m) + 1;
    let too_big = bv::sle(g, &signed_constant(m as i64, ew), &u.exp);
    // Weight of the significand's last bit: 2^shift.
    let shift = bv::sub(g, &u.exp, &signed_constant(sb as i64 - 1, ew));
    let fractional = shift[ew - 1];
    let left = bv::shl(g, &bv::zext(&u.sig, k), &shift);
    let mut with_guard = vec![Lit::FALSE; 2];
    with_guard.extend_from_slice(&u.sig);
    let right_by = bv::neg(g, &shift);
    let shifted = bv::lshr_sticky(g, &with_guard, &right_by);
    let up = modes.rounds_up(g, u.sign, shifted[2], shifted[1], shifted[0]);
    let (right, _) = bv::increment(g, &bv::zext(&shifted[2..], k), up);
    let mag = bv::ite(g, fractional, &right, &left);
    let high = bv::any(g, &mag[m..]);
    let too_big = g.or(too_big, high);
    let too_big = g.and(too_big, !u.zero);
    let zero = bv::constant(0, m);
    let mag = bv::ite(g, u.zero, &zero, &mag[..m]);
    (mag, too_big)
}

/// The magnitude `mag` with sign `sign` rounded to `f` (a zero magnitude gives the
/// zero of that sign), with exponents of `ew` bits.
fn from_magnitude(
    g: &mut Aig,
    f: FpFormat,
    modes: &Modes,
    sign: Lit,
    mag: &[Lit],
    ew: usize,
) -> Word {
    from_scaled(g, f, modes, sign, mag, &bv::constant(0, ew))
}

/// `(-1)^sign * mag * 2^lsb_exp` rounded to `f` (a zero magnitude gives the zero of
/// that sign); `lsb_exp` is a signed exponent word.
fn from_scaled(
    g: &mut Aig,
    f: FpFormat,
    modes: &Modes,
    sign: Lit,
    mag: &[Lit],
    lsb_exp: &[Lit],
) -> Word {
    let (n, ew) = (mag.len(), lsb_exp.len());
    let w = n.max(f.sb as usize + 2);
    let mut padded = vec![Lit::FALSE; w - n];
    padded.extend_from_slice(mag);
    let (normalized, shift) = bv::normalize(g, &padded);
    let msb_exp = bv::add(g, lsb_exp, &signed_constant(n as i64 - 1, ew));
    let exp = bv::sub(g, &msb_exp, &bv::zext(&shift, ew));
    let rounded = round(g, f, modes, sign, &exp, &normalized, Lit::FALSE);
    let is_zero = !bv::any(g, mag);
    let z = zero(f, sign);
    bv::ite(g, is_zero, &z, &rounded)
}

/// The long division steps of [`rem`] on format `f`.
fn rem_steps(f: FpFormat) -> i64 {
    (1i64 << f.eb) + i64::from(f.sb)
}

/// Whether [`rem`]'s circuit on format `f` stays small enough to build (steps times
/// significand bits within about two binary64 circuits): binary64 and narrower,
/// not binary128, whose 2^15 steps would take tens of millions of gates.
pub fn rem_fits(f: FpFormat) -> bool {
    rem_steps(f).saturating_mul(i64::from(f.sb)) <= 1 << 18
}

/// `fp.rem`: `x - y * n` with `n` the integer nearest `x / y` (ties to even), exact.
///
/// Long division of the significands, one step per unit of exponent difference (the
/// circuit grows with the format's exponent range: about 2^eb steps), keeps the
/// remainder and the quotient's last bit; the final step picks the nearer of the two
/// candidate remainders.
pub fn rem(g: &mut Aig, f: FpFormat, x: &[Lit], y: &[Lit]) -> Word {
    let max_steps = rem_steps(f);
    let ew = exp_width(f);
    let sb = f.sb as usize;
    let (ux, uy) = (unpack(g, f, x, ew), unpack(g, f, y, ew));
    // With the divisor doubled (weight of its last bit 2^(ey - sb)), the dividend's
    // significand is below it, and `steps = ex - ey + 1` doublings of the remainder
    // reach x's scale; fewer than zero steps mean |x| < |y| / 2: the result is x.
    let divisor = {
        let mut d = vec![Lit::FALSE];
        d.extend_from_slice(&uy.sig);
        bv::zext(&d, sb + 2)
    };
    let diff = bv::sub(g, &ux.exp, &uy.exp);
    let (steps, _) = bv::increment(g, &diff, Lit::TRUE);
    let mut r = bv::zext(&ux.sig, sb + 2);
    let mut odd = Lit::FALSE;
    for i in 0..max_steps {
        let active = bv::slt(g, &signed_constant(i, ew), &steps);
        let mut doubled = vec![Lit::FALSE];
        doubled.extend_from_slice(&r[..sb + 1]);
        let fits = bv::ule(g, &divisor, &doubled);
        let less = bv::sub(g, &doubled, &divisor);
        let next = bv::ite(g, fits, &less, &doubled);
        r = bv::ite(g, active, &next, &r);
        odd = g.ite(active, fits, odd);
    }
    let mut twice = vec![Lit::FALSE];
    twice.extend_from_slice(&r[..sb + 1]);
    let above_half = bv::ult(g, &divisor, &twice);
    let at_half = bv::eq(g, &divisor, &twice);
    let tie_to_even = g.and(at_half, odd);
    let next_multiple = g.or(above_half, tie_to_even);
    let complement = bv::sub(g, &divisor, &r);
    let mag = bv::ite(g, next_multiple, &complement, &r);
    let sign = g.xor(ux.sign, next_multiple);
    let lsb_exp = bv::sub(g, &uy.exp, &signed_constant(sb as i64, ew));
    let rne = Modes {
        rne: Lit::TRUE,
        rna: Lit::FALSE,
        rtp: Lit::FALSE,
        rtn: Lit::FALSE,
    };
    let exact = from_scaled(g, f, &rne, sign, &mag, &lsb_exp);
    let below_half = steps[ew - 1];
    let x_finite = ux.finite(g);
    let keep_x = g.or_all([below_half, uy.inf, ux.zero]);
    let keep_x = g.and(keep_x, x_finite);
    let r = bv::ite(g, keep_x, x, &exact);
    let invalid = g.or_all([ux.nan, uy.nan, ux.inf, uy.zero]);
    bv::ite(g, invalid, &nan(f), &r)
}

/// `fp.roundToIntegral`.
pub fn round_to_integral(g: &mut Aig, f: FpFormat, mode: &[Lit], x: &[Lit]) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f);
    let sb = f.sb as usize;
    let ux = unpack(g, f, x, ew);
    let (mag, _) = integer_part(g, &modes, &ux, sb + 1);
    let rounded = from_magnitude(g, f, &modes, ux.sign, &mag, ew);
    // From 2^(sb-1) on, every float is an integer.
    let integral = bv::sle(g, &signed_constant(sb as i64 - 1, ew), &ux.exp);
    let unchanged = g.or_all([integral, ux.inf, ux.zero]);
    let r = bv::ite(g, unchanged, x, &rounded);
    bv::ite(g, ux.nan, &nan(f), &r)
}

/// `to_fp` from format `from` to format `to`.
pub fn convert(g: &mut Aig, from: FpFormat, to: FpFormat, mode: &[Lit], x: &[Lit]) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(from).max(exp_width(to));
    let ux = unpack(g, from, x, ew);
    let w = (from.sb as usize).max(to.sb as usize + 2);
    let u = summand(&ux, w);
    let rounded = round(g, to, &modes, ux.sign, &u.exp, &u.sig, Lit::FALSE);
    let cases = Cases {
        nan: ux.nan,
        inf: ux.inf,
        inf_sign: ux.sign,
        zero: ux.zero,
        zero_sign: ux.sign,
    };
    select(g, to, cases, &rounded)
}

/// `to_fp` from a bit-vector integer, signed (two's complement) or unsigned.
pub fn from_integer(g: &mut Aig, f: FpFormat, mode: &[Lit], a: &[Lit], signed: bool) -> Word {
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f).max(bv::bits_for(a.len() as u64) + 2);
    let sign = if signed {
        *a.last().expect("non-empty word")
    } else {
        Lit::FALSE
    };
    let negated = bv::neg(g, a);
    let mag = bv::ite(g, sign, &negated, a);
    from_magnitude(g, f, &modes, sign, &mag, ew)
}

/// `fp.to_sbv`/`fp.to_ubv` of width `w`: the rounded integer, or `unspecified` for
/// NaN, infinities and integers out of range; and whether the result is specified.
pub fn to_integer(
    g: &mut Aig,
    f: FpFormat,
    mode: &[Lit],
    x: &[Lit],
    signed: bool,
    unspecified: &[Lit],
) -> (Word, Lit) {
    let w = unspecified.len();
    let modes = Modes::decode(g, mode);
    let ew = exp_width(f).max(bv::bits_for(w as u64 + 1) + 2);
    let ux = unpack(g, f, x, ew);
    let (mag, too_big) = integer_part(g, &modes, &ux, w + 1);
    let finite = ux.finite(g);
    let fits_in = !g.or(too_big, mag[w]);
    let fits = g.and(finite, fits_in);
    let is_zero = !bv::any(g, &mag);
    let value = &mag[..w];
    let (in_range, result) = if signed {
        let below_half = !value[w - 1];
        let half = bv::constant(1u128 << (w - 1), w);
        let at_most_half = bv::ule(g, value, &half);
        let positive_ok = g.and(!ux.sign, below_half);
        let negative_ok = g.and(ux.sign, at_most_half);
        let ok = g.or(positive_ok, negative_ok);
        let negated = bv::neg(g, value);
        (ok, bv::ite(g, ux.sign, &negated, value))
    } else {
        (g.or(!ux.sign, is_zero), value.to_vec())
    };
    let ok = g.and(fits, in_range);
    (bv::ite(g, ok, &result, unspecified), ok)
}

/// Comparison of two operands.
pub struct Compare {
    x: Unpacked,
    y: Unpacked,
    /// `x < y` by magnitude when both are finite non-zero of one sign or bits.
    less: Lit,
    /// Same value: identical bits or two zeros, neither NaN.
    equal: Lit,
}

impl Compare {
    /// Unpacks both operands of format `f` and orders them.
    pub fn new(g: &mut Aig, f: FpFormat, x: &[Lit], y: &[Lit]) -> Compare {
        let ew = exp_width(f);
        let (ux, uy) = (unpack(g, f, x, ew), unpack(g, f, y, ew));
        let n = x.len() - 1;
        let mag_lt = bv::ult(g, &x[..n], &y[..n]);
        let mag_gt = bv::ult(g, &y[..n], &x[..n]);
        let both_zero = g.and(ux.zero, uy.zero);
        let neither_nan = !g.or(ux.nan, uy.nan);
        let neg_pos = g.and(ux.sign, !uy.sign);
        let pos_pos = {
            let both = g.and(!ux.sign, !uy.sign);
            g.and(both, mag_lt)
        };
        let neg_neg = {
            let both = g.and(ux.sign, uy.sign);
            g.and(both, mag_gt)
        };
        let ordered = g.or_all([neg_pos, pos_pos, neg_neg]);
        let less = g.and(ordered, !both_zero);
        let less = g.and(less, neither_nan);
        let same_bits = bv::eq(g, x, y);
        let same = g.or(same_bits, both_zero);
        let equal = g.and(same, neither_nan);
        Compare {
            x: ux,
            y: uy,
            less,
            equal,
        }
    }

    /// `fp.lt`.
    pub fn lt(&self) -> Lit {
        self.less
    }

    /// `fp.eq`.
    pub fn eq(&self) -> Lit {
        self.equal
    }

    /// `fp.leq`.
    pub fn leq(&self, g: &mut Aig) -> Lit {
        g.or(self.less, self.equal)
    }
}

/// `fp.min` (or `fp.max` when `max`); two zeros of different signs give `x` when
/// `choice` is set, `y` otherwise (SMT-LIB leaves it open).
pub fn min_max(g: &mut Aig, f: FpFormat, x: &[Lit], y: &[Lit], max: bool, choice: Lit) -> Word {
    let cmp = Compare::new(g, f, x, y);
    let yx = Compare::new(g, f, y, x);
    let pick_x = if max { yx.lt() } else { cmp.lt() };
    let both_zero = g.and(cmp.x.zero, cmp.y.zero);
    let signs_differ = g.xor(cmp.x.sign, cmp.y.sign);
    let open = g.and(both_zero, signs_differ);
    let chosen = g.ite(open, choice, pick_x);
    let r = bv::ite(g, chosen, x, y);
    let r = bv::ite(g, cmp.y.nan, x, &r);
    bv::ite(g, cmp.x.nan, y, &r)
}

/// Whether `x` is a NaN pattern.
pub fn is_nan(g: &mut Aig, f: FpFormat, x: &[Lit]) -> Lit {
    let Fields { exp, frac, .. } = fields(f, x);
    let ones = bv::all(g, &exp);
    let frac_set = bv::any(g, &frac);
    g.and(ones, frac_set)
}

/// SMT-LIB `=` on floats: identical patterns, or both NaN.
pub fn same(g: &mut Aig, f: FpFormat, x: &[Lit], y: &[Lit]) -> Lit {
    let bits = bv::eq(g, x, y);
    let nx = is_nan(g, f, x);
    let ny = is_nan(g, f, y);
    let both = g.and(nx, ny);
    g.or(bits, both)
}

/// `fp.abs` (`fp.neg` when `negate_sign`): sign cleared (flipped); NaN stays NaN.
pub fn abs_neg(g: &mut Aig, f: FpFormat, x: &[Lit], negate_sign: bool) -> Word {
    let mut y = x.to_vec();
    let top = y.len() - 1;
    y[top] = if negate_sign { !y[top] } else { Lit::FALSE };
    let n = is_nan(g, f, x);
    bv::ite(g, n, &nan(f), &y)
}

/// Unpacks for the classification predicates.
pub fn classify(g: &mut Aig, f: FpFormat, x: &[Lit]) -> Unpacked {
    unpack(g, f, x, exp_width(f))
}
