//! Exact IEEE-754 arithmetic in every rounding mode, over every binary format
//! ([`FpFormat`]: any `(_ FloatingPoint eb sb)` whose pattern fits in 128 bits).
//!
//! Every operation computes the exact result as a big integer times a power of two
//! (with a sticky bit when the exact quotient or root has more bits), and rounds it once
//! in [`round`]: the one place where the five modes differ. This is the model checker's
//! semantics for modes the host FPU does not offer (Rust's `+ - * /` round to nearest,
//! ties to even) and for conversions; it is tested exhaustively against a rational
//! reference on small formats and against the host's operations on binary32 and binary64.
//!
//! Values are bit patterns (sign, biased exponent, trailing significand); a NaN result is
//! the format's quiet NaN with an empty payload.

use std::cmp::Ordering;

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::sort::{FpFormat, SmtRounding};

impl FpFormat {
    fn bias(self) -> i64 {
        (1i64 << (self.eb - 1)) - 1
    }

    /// The exponent of the least significant bit of a subnormal.
    fn min_lsb(self) -> i64 {
        1 - self.bias() - i64::from(self.sb - 1)
    }

    fn exp_mask(self) -> u128 {
        (1u128 << self.eb) - 1
    }

    fn frac_bits(self) -> u32 {
        self.sb - 1
    }

    /// The sign bit of a pattern.
    pub fn sign_bit(self) -> u128 {
        1u128 << (self.eb + self.sb - 1)
    }

    /// The quiet NaN.
    pub fn nan(self) -> u128 {
        (self.exp_mask() << self.frac_bits()) | (1u128 << (self.sb - 2))
    }

    /// The infinity of the given sign.
    pub fn inf(self, neg: bool) -> u128 {
        self.signed(neg, self.exp_mask() << self.frac_bits())
    }

    /// The zero of the given sign.
    pub fn zero(self, neg: bool) -> u128 {
        self.signed(neg, 0)
    }

    /// The largest finite magnitude with the given sign.
    fn max_finite(self, neg: bool) -> u128 {
        self.signed(neg, self.inf(false) - 1)
    }

    fn signed(self, neg: bool, magnitude: u128) -> u128 {
        if neg {
            magnitude | self.sign_bit()
        } else {
            magnitude
        }
    }

    /// Whether `bits` is a NaN.
    pub fn is_nan(self, bits: u128) -> bool {
        bits & !self.sign_bit() > self.inf(false)
    }

    /// The bit pattern's meaning.
    pub fn decode(self, bits: u128) -> Num {
        let neg = bits & self.sign_bit() != 0;
        let exp = (bits >> self.frac_bits()) & self.exp_mask();
        let frac = bits & ((1u128 << self.frac_bits()) - 1);
        if exp == self.exp_mask() {
            return if frac == 0 { Num::Inf(neg) } else { Num::Nan };
        }
        let (mag, lsb) = if exp == 0 {
            (frac, self.min_lsb())
        } else {
            (
                frac | (1u128 << self.frac_bits()),
                exp as i64 - self.bias() - i64::from(self.frac_bits()),
            )
        };
        Num::Finite(Exact {
            neg,
            mag: BigUint::from(mag),
            exp: lsb,
        })
    }
}

/// An exact finite value `(-1)^neg * mag * 2^exp` (a zero keeps its sign).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// The sign.
    pub neg: bool,
    /// The magnitude's integer significand.
    pub mag: BigUint,
    /// The power of two it is scaled by.
    pub exp: i64,
}

impl Exact {
    /// `mag * 2^exp` with the given sign.
    pub fn new(neg: bool, mag: impl Into<BigUint>, exp: i64) -> Exact {
        Exact {
            neg,
            mag: mag.into(),
            exp,
        }
    }

    fn is_zero(&self) -> bool {
        self.mag.is_zero()
    }
}

/// A decoded float.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Num {
    /// Not a number.
    Nan,
    /// An infinity, negative when true.
    Inf(bool),
    /// A finite value, zeros included.
    Finite(Exact),
}

/// Where the discarded part of an exact value lies, in units of the kept last place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    Zero,
    BelowHalf,
    Half,
    AboveHalf,
}

/// Whether rounding the kept magnitude `q` (odd when `odd`) with a discarded `tail`
/// away from zero is what mode `rm` does for a value of sign `neg`.
fn rounds_up(rm: SmtRounding, neg: bool, odd: bool, tail: Tail) -> bool {
    match (rm, tail) {
        (_, Tail::Zero) => false,
        (SmtRounding::Rne, Tail::Half) => odd,
        (SmtRounding::Rne | SmtRounding::Rna, t) => t != Tail::BelowHalf,
        (SmtRounding::Rtp, _) => !neg,
        (SmtRounding::Rtn, _) => neg,
        (SmtRounding::Rtz, _) => false,
    }
}

/// Splits `mag * 2^exp` (plus a sticky remainder below `2^exp` when `sticky`) at the
/// bit of weight `2^lsb`: the kept integer and where the rest lies. Callers with a
/// sticky remainder keep at least two bits below the last place, so the remainder
/// alone never decides between the tails below and above a half.
fn split(mag: &BigUint, exp: i64, sticky: bool, lsb: i64) -> (BigUint, Tail) {
    let shift = lsb - exp;
    if shift <= 0 {
        let tail = if sticky { Tail::BelowHalf } else { Tail::Zero };
        return (mag << (-shift) as u64, tail);
    }
    let shift = shift as u64;
    let kept = mag >> shift;
    let rest = mag - (&kept << shift);
    let half = BigUint::one() << (shift - 1);
    let tail = match rest.cmp(&half) {
        Ordering::Less if rest.is_zero() && !sticky => Tail::Zero,
        Ordering::Less => Tail::BelowHalf,
        Ordering::Equal if sticky => Tail::AboveHalf,
        Ordering::Equal => Tail::Half,
        Ordering::Greater => Tail::AboveHalf,
    };
    (kept, tail)
}

/// Rounds the exact value `x` (plus a sticky remainder below its last bit when
/// `sticky`) to format `f` in mode `rm`. A zero `x` without sticky stays a zero of its
/// sign.
pub fn round(f: FpFormat, rm: SmtRounding, x: &Exact, sticky: bool) -> u128 {
    if x.is_zero() && !sticky {
        return f.zero(x.neg);
    }
    let top = if x.is_zero() {
        x.exp - 1
    } else {
        x.exp + x.mag.bits() as i64 - 1
    };
    let lsb = (top - i64::from(f.frac_bits())).max(f.min_lsb());
    let (mut q, tail) = split(&x.mag, x.exp, sticky, lsb);
    let odd = q.bit(0);
    let mut lsb = lsb;
    if rounds_up(rm, x.neg, odd, tail) {
        q += 1u32;
        if q.bits() > u64::from(f.sb) {
            q >>= 1u32;
            lsb += 1;
        }
    }
    let q = q.to_u128().expect("a significand fits in 128 bits");
    let hidden = 1u128 << f.frac_bits();
    if q < hidden {
        return f.signed(x.neg, q);
    }
    let biased = lsb + i64::from(f.frac_bits()) + f.bias();
    if biased >= f.exp_mask() as i64 {
        let to_inf = match rm {
            SmtRounding::Rne | SmtRounding::Rna => true,
            SmtRounding::Rtp => !x.neg,
            SmtRounding::Rtn => x.neg,
            SmtRounding::Rtz => false,
        };
        return if to_inf {
            f.inf(x.neg)
        } else {
            f.max_finite(x.neg)
        };
    }
    f.signed(x.neg, ((biased as u128) << f.frac_bits()) | (q - hidden))
}

/// The sign of an exact zero sum of operands that are not both zeros of one sign:
/// `-0` toward negative, `+0` otherwise (IEEE 754 §6.3).
fn cancelled_zero(f: FpFormat, rm: SmtRounding) -> u128 {
    f.zero(rm == SmtRounding::Rtn)
}

/// The exact sum of two finite values, rounded; zero sums follow IEEE 754 §6.3.
fn add_exact(f: FpFormat, rm: SmtRounding, a: &Exact, b: &Exact) -> u128 {
    if a.is_zero() && b.is_zero() && a.neg == b.neg {
        return f.zero(a.neg);
    }
    let e = a.exp.min(b.exp);
    let ma = &a.mag << (a.exp - e) as u64;
    let mb = &b.mag << (b.exp - e) as u64;
    let sum = if a.neg == b.neg {
        Exact::new(a.neg, ma + mb, e)
    } else {
        match ma.cmp(&mb) {
            Ordering::Equal => return cancelled_zero(f, rm),
            Ordering::Greater => Exact::new(a.neg, ma - mb, e),
            Ordering::Less => Exact::new(b.neg, mb - ma, e),
        }
    };
    round(f, rm, &sum, false)
}

/// `fp.add`.
pub fn add(f: FpFormat, rm: SmtRounding, x: u128, y: u128) -> u128 {
    match (f.decode(x), f.decode(y)) {
        (Num::Nan, _) | (_, Num::Nan) => f.nan(),
        (Num::Inf(a), Num::Inf(b)) if a != b => f.nan(),
        (Num::Inf(a), _) | (_, Num::Inf(a)) => f.inf(a),
        (Num::Finite(a), Num::Finite(b)) => add_exact(f, rm, &a, &b),
    }
}

/// `fp.sub`.
pub fn sub(f: FpFormat, rm: SmtRounding, x: u128, y: u128) -> u128 {
    let y = if f.is_nan(y) { y } else { y ^ f.sign_bit() };
    add(f, rm, x, y)
}

/// `fp.mul`.
pub fn mul(f: FpFormat, rm: SmtRounding, x: u128, y: u128) -> u128 {
    match (f.decode(x), f.decode(y)) {
        (Num::Nan, _) | (_, Num::Nan) => f.nan(),
        (Num::Inf(_), Num::Finite(z)) | (Num::Finite(z), Num::Inf(_)) if z.is_zero() => f.nan(),
        (Num::Inf(a), Num::Inf(b)) => f.inf(a != b),
        (Num::Inf(a), Num::Finite(b)) | (Num::Finite(b), Num::Inf(a)) => f.inf(a != b.neg),
        (Num::Finite(a), Num::Finite(b)) => {
            let p = Exact::new(a.neg != b.neg, &a.mag * &b.mag, a.exp + b.exp);
            round(f, rm, &p, false)
        }
    }
}

/// `a / b` of positive integers with at least `bits` significant bits in the
/// quotient: `(quotient, scale, sticky)` with `a / b = (quotient + rest) * 2^-scale`.
fn long_div(a: &BigUint, b: &BigUint, bits: u32) -> (BigUint, u64, bool) {
    let scale = (u64::from(bits) + 2 + b.bits()).saturating_sub(a.bits());
    let num = a << scale;
    let q = &num / b;
    let sticky = !(&num - &q * b).is_zero();
    (q, scale, sticky)
}

/// `fp.div`.
pub fn div(f: FpFormat, rm: SmtRounding, x: u128, y: u128) -> u128 {
    match (f.decode(x), f.decode(y)) {
        (Num::Nan, _) | (_, Num::Nan) | (Num::Inf(_), Num::Inf(_)) => f.nan(),
        (Num::Inf(a), Num::Finite(b)) => f.inf(a != b.neg),
        (Num::Finite(a), Num::Inf(b)) => f.zero(a.neg != b),
        (Num::Finite(a), Num::Finite(b)) if b.is_zero() => {
            if a.is_zero() {
                f.nan()
            } else {
                f.inf(a.neg != b.neg)
            }
        }
        (Num::Finite(a), Num::Finite(b)) => {
            let neg = a.neg != b.neg;
            if a.is_zero() {
                return f.zero(neg);
            }
            let (q, scale, sticky) = long_div(&a.mag, &b.mag, f.sb);
            let exact = Exact::new(neg, q, a.exp - b.exp - scale as i64);
            round(f, rm, &exact, sticky)
        }
    }
}

/// `fp.sqrt`.
pub fn sqrt(f: FpFormat, rm: SmtRounding, x: u128) -> u128 {
    match f.decode(x) {
        Num::Nan | Num::Inf(true) => f.nan(),
        Num::Inf(false) => f.inf(false),
        Num::Finite(a) if a.is_zero() => x,
        Num::Finite(a) if a.neg => f.nan(),
        Num::Finite(a) => {
            // Scale to an even exponent with room for sb + 2 root bits.
            let want = 2 * (u64::from(f.sb) + 2);
            let mut shift = want.saturating_sub(a.mag.bits());
            if (a.exp - shift as i64) % 2 != 0 {
                shift += 1;
            }
            let m = &a.mag << shift;
            let root = m.sqrt();
            let sticky = &root * &root != m;
            let exact = Exact::new(false, root, (a.exp - shift as i64) / 2);
            round(f, rm, &exact, sticky)
        }
    }
}

/// `fp.fma`: `x * y + z` rounded once.
pub fn fma(f: FpFormat, rm: SmtRounding, x: u128, y: u128, z: u128) -> u128 {
    let (a, b, c) = (f.decode(x), f.decode(y), f.decode(z));
    let product = match (&a, &b) {
        (Num::Nan, _) | (_, Num::Nan) => return f.nan(),
        (Num::Inf(_), Num::Finite(v)) | (Num::Finite(v), Num::Inf(_)) if v.is_zero() => {
            return f.nan()
        }
        (Num::Inf(p), Num::Inf(q)) => Num::Inf(p != q),
        (Num::Inf(p), Num::Finite(v)) | (Num::Finite(v), Num::Inf(p)) => Num::Inf(*p != v.neg),
        (Num::Finite(p), Num::Finite(q)) => {
            Num::Finite(Exact::new(p.neg != q.neg, &p.mag * &q.mag, p.exp + q.exp))
        }
    };
    match (product, c) {
        (_, Num::Nan) => f.nan(),
        (Num::Inf(p), Num::Inf(q)) if p != q => f.nan(),
        (Num::Inf(p), _) | (_, Num::Inf(p)) => f.inf(p),
        (Num::Finite(p), Num::Finite(q)) => add_exact(f, rm, &p, &q),
        (Num::Nan, _) => f.nan(),
    }
}

/// `fp.roundToIntegral`: the integer `rm` rounds `x` to, as a float of the same format
/// (a zero keeps the operand's sign).
pub fn round_to_integral(f: FpFormat, rm: SmtRounding, x: u128) -> u128 {
    match f.decode(x) {
        Num::Finite(a) if a.exp < 0 => match integer_of(&a, rm) {
            n if n.is_zero() => f.zero(a.neg),
            n => round(f, SmtRounding::Rne, &Exact::new(a.neg, n, 0), false),
        },
        _ if f.is_nan(x) => f.nan(),
        _ => x,
    }
}

/// The magnitude of the integer that `rm` rounds the finite `a` to.
fn integer_of(a: &Exact, rm: SmtRounding) -> BigUint {
    let (mut q, tail) = split(&a.mag, a.exp, false, 0);
    if rounds_up(rm, a.neg, q.bit(0), tail) {
        q += 1u32;
    }
    q
}

/// The integer `rm` rounds `x` to, as (negative, magnitude); `None` for NaN and the
/// infinities (`fp.to_sbv`/`fp.to_ubv` then leave the result unspecified).
pub fn to_integer(f: FpFormat, rm: SmtRounding, x: u128) -> Option<(bool, BigUint)> {
    match f.decode(x) {
        Num::Finite(a) => {
            let n = integer_of(&a, rm);
            Some((a.neg && !n.is_zero(), n))
        }
        _ => None,
    }
}

/// `fp.rem`: `x - y * n` with `n` the integer nearest `x / y` (ties to even), exact.
pub fn rem(f: FpFormat, x: u128, y: u128) -> u128 {
    match (f.decode(x), f.decode(y)) {
        (Num::Nan, _) | (_, Num::Nan) | (Num::Inf(_), _) => f.nan(),
        (_, Num::Finite(b)) if b.is_zero() => f.nan(),
        (Num::Finite(_), Num::Inf(_)) => x,
        (Num::Finite(a), _) if a.is_zero() => x,
        (Num::Finite(a), Num::Finite(b)) => {
            let e = a.exp.min(b.exp);
            let ma = &a.mag << (a.exp - e) as u64;
            let mb = &b.mag << (b.exp - e) as u64;
            let n = &ma / &mb;
            let r = &ma - &n * &mb;
            let twice = &r << 1u32;
            let nearer_next = match twice.cmp(&mb) {
                Ordering::Greater => true,
                Ordering::Equal => n.bit(0),
                Ordering::Less => false,
            };
            let (neg, mag) = if nearer_next {
                (!a.neg, &mb - r)
            } else {
                (a.neg, r)
            };
            if mag.is_zero() {
                return f.zero(a.neg);
            }
            round(f, SmtRounding::Rne, &Exact::new(neg, mag, e), false)
        }
    }
}

/// `to_fp` between formats: `x` of format `from` rounded to `to`.
pub fn convert(from: FpFormat, to: FpFormat, rm: SmtRounding, x: u128) -> u128 {
    match from.decode(x) {
        Num::Nan => to.nan(),
        Num::Inf(neg) => to.inf(neg),
        Num::Finite(a) => round(to, rm, &a, false),
    }
}

/// The integer `(-1)^neg * mag` rounded to format `f`.
pub fn from_integer(f: FpFormat, rm: SmtRounding, neg: bool, mag: u128) -> u128 {
    if mag == 0 {
        return f.zero(false);
    }
    round(f, rm, &Exact::new(neg, mag, 0), false)
}

/// The rational `(-1)^neg * num / den` (`den > 0`) rounded to format `f`; a zero
/// numerator gives `+0` (SMT-LIB's real zero has no sign).
pub fn from_rational(
    f: FpFormat,
    rm: SmtRounding,
    neg: bool,
    num: &BigUint,
    den: &BigUint,
) -> u128 {
    if num.is_zero() {
        return f.zero(false);
    }
    let (q, scale, sticky) = long_div(num, den, f.sb);
    round(f, rm, &Exact::new(neg, q, -(scale as i64)), sticky)
}

/// The IEEE class of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Not a number.
    Nan,
    /// An infinity.
    Infinite,
    /// A zero.
    Zero,
    /// A subnormal number.
    Subnormal,
    /// A normal number.
    Normal,
}

/// The class of `x` in format `f`.
pub fn classify(f: FpFormat, x: u128) -> Class {
    let exp = (x >> f.frac_bits()) & f.exp_mask();
    let frac = x & ((1u128 << f.frac_bits()) - 1);
    match (exp, frac) {
        (0, 0) => Class::Zero,
        (0, _) => Class::Subnormal,
        (e, 0) if e == f.exp_mask() => Class::Infinite,
        (e, _) if e == f.exp_mask() => Class::Nan,
        _ => Class::Normal,
    }
}

/// Whether the sign bit of `x` is set (NaNs included).
pub fn sign_of(f: FpFormat, x: u128) -> bool {
    x & f.sign_bit() != 0
}

/// IEEE comparison of two values: `None` when one is a NaN; the zeros are equal.
pub fn compare(f: FpFormat, x: u128, y: u128) -> Option<Ordering> {
    let signed = |n: Num| match n {
        Num::Nan => None,
        Num::Inf(neg) => Some((if neg { -1 } else { 1 }, None)),
        Num::Finite(e) if e.is_zero() => Some((0, None)),
        Num::Finite(e) => Some((0, Some(e))),
    };
    let (a, b) = (signed(f.decode(x))?, signed(f.decode(y))?);
    Some(match (a, b) {
        ((ia, _), (ib, _)) if ia != 0 || ib != 0 => ia.cmp(&ib),
        ((_, None), (_, None)) => Ordering::Equal,
        ((_, Some(p)), (_, None)) => sign_order(p.neg),
        ((_, None), (_, Some(q))) => sign_order(q.neg).reverse(),
        ((_, Some(p)), (_, Some(q))) => compare_exact(&p, &q),
    })
}

/// The order of a non-zero value of the given sign against zero.
fn sign_order(neg: bool) -> Ordering {
    if neg {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// The order of two non-zero exact values.
fn compare_exact(p: &Exact, q: &Exact) -> Ordering {
    if p.neg != q.neg {
        return sign_order(p.neg);
    }
    let e = p.exp.min(q.exp);
    let mp = &p.mag << (p.exp - e) as u64;
    let mq = &q.mag << (q.exp - e) as u64;
    let magnitudes = mp.cmp(&mq);
    if p.neg {
        magnitudes.reverse()
    } else {
        magnitudes
    }
}

/// `fp.neg`: the sign flipped (a NaN stays a NaN).
pub fn neg(f: FpFormat, x: u128) -> u128 {
    x ^ f.sign_bit()
}

/// `fp.abs`: the sign cleared.
pub fn abs(f: FpFormat, x: u128) -> u128 {
    x & !f.sign_bit()
}

/// A real literal (`12`, `0.5`, `-3.25`, `(/ 1 3)` spelled `1/3`) as
/// `(negative, numerator, denominator)`; `None` when it is not one.
pub fn parse_real(text: &str) -> Option<(bool, BigUint, BigUint)> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if let Some((n, d)) = body.split_once('/') {
        let (n, _) = parse_decimal(n)?;
        let (d, scale) = parse_decimal(d)?;
        if d.is_zero() || scale != 0 {
            return None;
        }
        return Some((neg, n, d));
    }
    let (n, scale) = parse_decimal(body)?;
    Some((neg, n, BigUint::from(10u32).pow(scale)))
}

/// Digits with an optional decimal point: the integer of all digits and how many
/// follow the point.
fn parse_decimal(text: &str) -> Option<(BigUint, u32)> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = format!("{int}{frac}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((
        BigUint::parse_bytes(digits.as_bytes(), 10)?,
        u32::try_from(frac.len()).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use num_rational::BigRational;
    use num_traits::Signed;
    use rand::{Rng, SeedableRng};

    const MODES: [SmtRounding; 5] = SmtRounding::ALL;

    fn rational(e: &Exact) -> BigRational {
        let m = BigRational::from_integer(BigInt::from(e.mag.clone()));
        let p = BigRational::from_integer(BigInt::from(2)).pow(e.exp as i32);
        if e.neg {
            -(m * p)
        } else {
            m * p
        }
    }

    /// Every finite value of a small format, ascending, with its pattern (-0 before +0).
    fn finite_values(f: FpFormat) -> Vec<(BigRational, u128)> {
        let n = 1u128 << (f.eb + f.sb);
        let mut v: Vec<(BigRational, u128)> = (0..n)
            .filter_map(|b| match f.decode(b) {
                Num::Finite(e) => Some((rational(&e), b)),
                _ => None,
            })
            .collect();
        v.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then((b.1 & f.sign_bit()).cmp(&(a.1 & f.sign_bit())))
        });
        v
    }

    /// The reference rounding of a non-zero real given by `cmp(c)` = ordering of the
    /// candidate `c` against it: IEEE 754 §4.3 by search over the format's values.
    fn reference(
        f: FpFormat,
        values: &[(BigRational, u128)],
        rm: SmtRounding,
        cmp: &dyn Fn(&BigRational) -> Ordering,
        mid_cmp: &dyn Fn(&BigRational, &BigRational) -> Ordering,
    ) -> u128 {
        // The largest value <= v and the smallest >= v (none beyond the finite range).
        let at_or_below = values.partition_point(|(c, _)| cmp(c) != Ordering::Greater);
        let below = at_or_below.checked_sub(1).map(|i| &values[i]);
        let above = values.get(values.partition_point(|(c, _)| cmp(c) == Ordering::Less));
        if let (Some(b), Some(a)) = (below, above) {
            if cmp(&b.0) == Ordering::Equal {
                return b.1;
            }
            // v lies strictly between b and a, and the zeros are values.
            let neg = a.0 <= BigRational::zero();
            let b_even = (b.1 & 1) == 0;
            let pick_b = match rm {
                SmtRounding::Rtn => true,
                SmtRounding::Rtp => false,
                SmtRounding::Rtz => !neg,
                SmtRounding::Rne | SmtRounding::Rna => match mid_cmp(&b.0, &a.0) {
                    Ordering::Less => false,
                    Ordering::Greater => true,
                    Ordering::Equal if rm == SmtRounding::Rne => b_even,
                    Ordering::Equal => neg,
                },
            };
            // -0 sorts before +0, so a zero picked here has v's sign.
            return if pick_b { b.1 } else { a.1 };
        }
        // Beyond the largest finite magnitude: compare with MAX + ulp/2.
        let (max, max_bits) = if above.is_none() {
            values.last().unwrap().clone()
        } else {
            values.first().unwrap().clone()
        };
        let neg = above.is_some();
        let ulp = {
            let prev = if neg {
                &values[1].0
            } else {
                &values[values.len() - 2].0
            };
            (&max - prev).abs()
        };
        let two = BigRational::from_integer(BigInt::from(2));
        let edge = if neg {
            &max - &ulp / &two
        } else {
            &max + &ulp / &two
        };
        let past_edge = if neg {
            cmp(&edge) != Ordering::Less
        } else {
            cmp(&edge) != Ordering::Greater
        };
        let to_inf = match rm {
            SmtRounding::Rne | SmtRounding::Rna => past_edge,
            SmtRounding::Rtp => !neg,
            SmtRounding::Rtn => neg,
            SmtRounding::Rtz => false,
        };
        if to_inf {
            f.inf(neg)
        } else {
            max_bits
        }
    }

    /// Rounds the exact rational `v` (non-zero) by the reference.
    fn reference_of(
        f: FpFormat,
        values: &[(BigRational, u128)],
        rm: SmtRounding,
        v: &BigRational,
    ) -> u128 {
        let two = BigRational::from_integer(BigInt::from(2));
        reference(f, values, rm, &|c| c.cmp(v), &|a, b| {
            ((a + b) / &two).cmp(v)
        })
    }

    fn finite(f: FpFormat, b: u128) -> Option<BigRational> {
        match f.decode(b) {
            Num::Finite(e) => Some(rational(&e)),
            _ => None,
        }
    }

    fn same(f: FpFormat, a: u128, b: u128) -> bool {
        a == b || (f.is_nan(a) && f.is_nan(b))
    }

    const SMALL: FpFormat = FpFormat { eb: 3, sb: 4 };

    #[test]
    fn small_format_arithmetic_matches_the_rational_reference() {
        let f = SMALL;
        let values = finite_values(f);
        let n = 1u128 << (f.eb + f.sb);
        for rm in MODES {
            for x in 0..n {
                for y in 0..n {
                    let (Some(a), Some(b)) = (finite(f, x), finite(f, y)) else {
                        continue;
                    };
                    let ops: [(&str, u128, Option<BigRational>); 3] = [
                        ("add", add(f, rm, x, y), Some(&a + &b)),
                        ("mul", mul(f, rm, x, y), Some(&a * &b)),
                        ("div", div(f, rm, x, y), (!b.is_zero()).then(|| &a / &b)),
                    ];
                    for (name, got, exact) in ops {
                        let Some(exact) = exact.filter(|e| !e.is_zero()) else {
                            continue;
                        };
                        let want = reference_of(f, &values, rm, &exact);
                        assert_eq!(got, want, "{name} {rm:?} {x:#x} {y:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn small_format_sqrt_fma_and_conversions_match_the_reference() {
        let f = SMALL;
        let values = finite_values(f);
        let n = 1u128 << (f.eb + f.sb);
        let two = BigRational::from_integer(BigInt::from(2));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for rm in MODES {
            for x in 0..n {
                let Some(a) = finite(f, x) else { continue };
                if a > BigRational::zero() {
                    let want = reference(
                        f,
                        &values,
                        rm,
                        &|c| {
                            if *c < BigRational::zero() {
                                Ordering::Less
                            } else {
                                (c * c).cmp(&a)
                            }
                        },
                        &|lo, hi| {
                            let m = (lo + hi) / &two;
                            (&m * &m).cmp(&a)
                        },
                    );
                    assert_eq!(sqrt(f, rm, x), want, "sqrt {rm:?} {x:#x}");
                }
                // Integers and rationals near every value.
                for k in [-3i64, -1, 1, 2, 5, 30, 200] {
                    let want =
                        reference_of(f, &values, rm, &BigRational::from_integer(BigInt::from(k)));
                    assert_eq!(
                        from_integer(f, rm, k < 0, u128::from(k.unsigned_abs())),
                        want,
                        "int {k} {rm:?}"
                    );
                }
                let wider = FpFormat { eb: 5, sb: 7 };
                let widened = convert(f, wider, rm, x);
                assert_eq!(convert(wider, f, rm, widened), x, "round trip {x:#x}");
            }
            for _ in 0..20_000 {
                let (x, y, z) = (
                    rng.gen_range(0..n),
                    rng.gen_range(0..n),
                    rng.gen_range(0..n),
                );
                let (Some(a), Some(b), Some(c)) = (finite(f, x), finite(f, y), finite(f, z)) else {
                    continue;
                };
                let exact = &a * &b + &c;
                if exact.is_zero() {
                    continue;
                }
                assert_eq!(
                    fma(f, rm, x, y, z),
                    reference_of(f, &values, rm, &exact),
                    "fma {rm:?} {x:#x} {y:#x} {z:#x}"
                );
            }
        }
    }

    #[test]
    fn narrowing_conversions_match_the_reference() {
        let wide = FpFormat { eb: 4, sb: 6 };
        let values = finite_values(SMALL);
        for rm in MODES {
            for x in 0..1u128 << 10 {
                let got = convert(wide, SMALL, rm, x);
                match finite(wide, x) {
                    Some(v) if !v.is_zero() => {
                        assert_eq!(got, reference_of(SMALL, &values, rm, &v), "{rm:?} {x:#x}")
                    }
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn zero_results_take_the_signs_ieee_gives_them() {
        let f = FpFormat::F64;
        let b = |v: f64| u128::from(v.to_bits());
        let (one, m_one) = (b(1.0), b(-1.0));
        let (pz, nz) = (b(0.0), b(-0.0));
        for rm in MODES {
            let cancel = if rm == SmtRounding::Rtn { nz } else { pz };
            assert_eq!(add(f, rm, one, m_one), cancel, "{rm:?}");
            assert_eq!(add(f, rm, pz, nz), cancel, "{rm:?}");
            assert_eq!(add(f, rm, nz, nz), nz);
            assert_eq!(fma(f, rm, pz, m_one, pz), cancel, "{rm:?}");
            assert_eq!(mul(f, rm, nz, one), nz);
            assert_eq!(round_to_integral(f, rm, b(-0.25)) >> 63, 1);
            assert_eq!(rem(f, b(-4.0), b(2.0)), nz);
        }
    }

    fn random_f64(rng: &mut rand_chacha::ChaCha8Rng) -> f64 {
        match rng.gen_range(0..4) {
            0 => f64::from_bits(rng.gen()),
            1 => rng.gen_range(-4.0..4.0),
            2 => f64::from_bits(rng.gen_range(0..1u64 << 53)) * if rng.gen() { -1.0 } else { 1.0 },
            _ => [
                0.0,
                -0.0,
                1.0,
                f64::MAX,
                f64::MIN_POSITIVE,
                f64::INFINITY,
                f64::NAN,
            ][rng.gen_range(0..7)],
        }
    }

    #[test]
    fn nearest_even_agrees_with_the_host_fpu() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (d, s) = (FpFormat::F64, FpFormat::F32);
        let rne = SmtRounding::Rne;
        for _ in 0..20_000 {
            let (x, y, z) = (
                random_f64(&mut rng),
                random_f64(&mut rng),
                random_f64(&mut rng),
            );
            let b = |v: f64| u128::from(v.to_bits());
            for (got, want) in [
                (add(d, rne, b(x), b(y)), x + y),
                (sub(d, rne, b(x), b(y)), x - y),
                (mul(d, rne, b(x), b(y)), x * y),
                (div(d, rne, b(x), b(y)), x / y),
                (sqrt(d, rne, b(x)), x.sqrt()),
                (fma(d, rne, b(x), b(y), b(z)), x.mul_add(y, z)),
                (rem(d, b(x), b(y)), crate::eval::ieee_remainder(x, y)),
                (round_to_integral(d, SmtRounding::Rtn, b(x)), x.floor()),
                (round_to_integral(d, SmtRounding::Rna, b(x)), x.round()),
            ] {
                assert!(
                    same(d, got, b(want)),
                    "{x:e} {y:e} {z:e}: {:e} vs {want:e}",
                    f64::from_bits(got as u64)
                );
            }
            let (p, q, r) = (x as f32, y as f32, z as f32);
            let b32 = |v: f32| u128::from(v.to_bits());
            for (got, want) in [
                (add(s, rne, b32(p), b32(q)), p + q),
                (mul(s, rne, b32(p), b32(q)), p * q),
                (div(s, rne, b32(p), b32(q)), p / q),
                (sqrt(s, rne, b32(p)), p.sqrt()),
                (fma(s, rne, b32(p), b32(q), b32(r)), p.mul_add(q, r)),
                (convert(d, s, rne, b(x)), x as f32),
            ] {
                assert!(same(s, got, b32(want)), "{p:e} {q:e} {r:e}");
            }
            let i: i64 = rng.gen();
            assert_eq!(
                from_integer(d, rne, i < 0, u128::from(i.unsigned_abs())),
                b(i as f64)
            );
            assert_eq!(
                from_integer(s, rne, i < 0, u128::from(i.unsigned_abs())),
                b32(i as f32)
            );
        }
    }

    #[test]
    fn real_literals_round_in_every_mode() {
        let f = FpFormat::F32;
        let tenth = |rm| {
            let (neg, n, d) = parse_real("0.1").unwrap();
            f32::from_bits(from_rational(f, rm, neg, &n, &d) as u32)
        };
        assert_eq!(tenth(SmtRounding::Rne), 0.1f32);
        assert_eq!(tenth(SmtRounding::Rtz), 0.099999994f32);
        assert_eq!(tenth(SmtRounding::Rtp), 0.1f32);
        let (neg, n, d) = parse_real("-1/3").unwrap();
        assert!(neg);
        let third = f32::from_bits(from_rational(f, SmtRounding::Rtn, neg, &n, &d) as u32);
        assert_eq!(third, -0.33333334f32);
        assert!(parse_real("1e5").is_none() && parse_real("").is_none());
    }
}
