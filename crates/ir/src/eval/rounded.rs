//! What each rounding operation computes under a floating-point environment other than
//! the default one: a rounding mode of `<fenv.h>` and the exception flags the operation
//! raises, exactly as x86-64 SSE code compiled by clang-14 computes and raises them.
//!
//! Each operation first computes the host's round-to-nearest result. Where its error is
//! exactly a float (sums always; products, quotients and roots away from the subnormal
//! range) an error-free transformation gives that error (TwoSum, or the `fma` residual)
//! and the result steps one ulp toward the mode when the error's sign asks. Everything
//! else (results near or past either end of the exponent range, `fma`, conversions)
//! takes the exact path: the operands' integer significands combined in 128 bits with a
//! sticky bit, then rounded once by `round_exact`, which also decides overflow (the
//! rounded result with an unbounded exponent exceeds the largest finite number) and
//! underflow (tiny after rounding, as SSE detects it, and inexact).
//!
//! NaN results are the host's own (the operand NaN quieted, or the default NaN), which
//! are SSE's; infinities and zeros are exact in every mode but for the sign of an exact
//! zero sum, `-0` under [`RoundingMode::Downward`].

use super::{fptosi, fptoui, width, TWO63};
use crate::types::{FloatTy, Type};
use std::ops::{BitOr, BitOrAssign};

/// A rounding mode of `<fenv.h>`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum RoundingMode {
    /// To nearest, ties to even (`FE_TONEAREST`), the mode every run starts in.
    #[default]
    Nearest,
    /// Toward negative infinity (`FE_DOWNWARD`).
    Downward,
    /// Toward positive infinity (`FE_UPWARD`).
    Upward,
    /// Toward zero (`FE_TOWARDZERO`).
    TowardZero,
}

impl RoundingMode {
    /// The mode as rustc_apfloat names it (the `long double` arithmetic of
    /// [`crate::f80`]): glibc's `fesetround` sets the x87 control word as well as SSE's.
    pub fn apfloat(self) -> rustc_apfloat::Round {
        match self {
            RoundingMode::Nearest => rustc_apfloat::Round::NearestTiesToEven,
            RoundingMode::Downward => rustc_apfloat::Round::TowardNegative,
            RoundingMode::Upward => rustc_apfloat::Round::TowardPositive,
            RoundingMode::TowardZero => rustc_apfloat::Round::TowardZero,
        }
    }

    /// Every mode.
    pub const ALL: [RoundingMode; 4] = [
        RoundingMode::Nearest,
        RoundingMode::Downward,
        RoundingMode::Upward,
        RoundingMode::TowardZero,
    ];

    /// The mode's `FE_*` value in glibc's x86-64 `<fenv.h>` (the MXCSR rounding field).
    pub fn fe_value(self) -> i32 {
        match self {
            RoundingMode::Nearest => 0,
            RoundingMode::Downward => 0x400,
            RoundingMode::Upward => 0x800,
            RoundingMode::TowardZero => 0xc00,
        }
    }

    /// The mode whose `FE_*` value is `value`.
    pub fn from_fe_value(value: i32) -> Option<RoundingMode> {
        RoundingMode::ALL
            .into_iter()
            .find(|m| m.fe_value() == value)
    }

    /// The mode's name on the command line: `nearest`, `downward`, `upward`, `zero`.
    pub fn name(self) -> &'static str {
        match self {
            RoundingMode::Nearest => "nearest",
            RoundingMode::Downward => "downward",
            RoundingMode::Upward => "upward",
            RoundingMode::TowardZero => "zero",
        }
    }

    /// The mode named `name` (see [`RoundingMode::name`]).
    pub fn from_name(name: &str) -> Option<RoundingMode> {
        RoundingMode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// A set of floating-point exceptions, as bits of glibc's x86-64 `FE_*` values (those of
/// the MXCSR status field).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Exceptions(u8);

impl Exceptions {
    /// No exception.
    pub const NONE: Exceptions = Exceptions(0);
    /// `FE_INVALID`.
    pub const INVALID: Exceptions = Exceptions(0x01);
    /// `FE_DIVBYZERO`.
    pub const DIVBYZERO: Exceptions = Exceptions(0x04);
    /// `FE_OVERFLOW`.
    pub const OVERFLOW: Exceptions = Exceptions(0x08);
    /// `FE_UNDERFLOW`.
    pub const UNDERFLOW: Exceptions = Exceptions(0x10);
    /// `FE_INEXACT`.
    pub const INEXACT: Exceptions = Exceptions(0x20);
    /// `FE_ALL_EXCEPT`.
    pub const ALL: Exceptions = Exceptions(0x3d);

    /// The exceptions among the `FE_*` bits of `bits` (other bits are ignored).
    pub fn from_fe_bits(bits: u64) -> Exceptions {
        Exceptions(bits as u8 & Exceptions::ALL.0)
    }

    /// The `FE_*` bits.
    pub fn fe_bits(self) -> u8 {
        self.0
    }

    /// Whether every exception of `other` is in `self`.
    pub fn contains(self, other: Exceptions) -> bool {
        self.0 & other.0 == other.0
    }

    /// The exceptions of `self` that are also in `other`.
    pub fn intersect(self, other: Exceptions) -> Exceptions {
        Exceptions(self.0 & other.0)
    }

    /// `self` without the exceptions of `other`.
    pub fn without(self, other: Exceptions) -> Exceptions {
        Exceptions(self.0 & !other.0)
    }

    fn when(self, cond: bool) -> Exceptions {
        if cond {
            self
        } else {
            Exceptions::NONE
        }
    }
}

impl BitOr for Exceptions {
    type Output = Exceptions;
    fn bitor(self, rhs: Exceptions) -> Exceptions {
        Exceptions(self.0 | rhs.0)
    }
}

impl BitOrAssign for Exceptions {
    fn bitor_assign(&mut self, rhs: Exceptions) {
        self.0 |= rhs.0;
    }
}

/// A result and the exceptions its operation raised.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Rounded {
    /// The result's bits (`f32` in the low 32 bits, integers zero-extended).
    pub bits: u64,
    /// The exceptions raised.
    pub raised: Exceptions,
}

impl Rounded {
    fn exact(bits: u64) -> Rounded {
        Rounded {
            bits,
            raised: Exceptions::NONE,
        }
    }
}

/// The parameters of a binary format that rounding needs.
#[derive(Clone, Copy)]
struct Format {
    /// Bits of the whole encoding.
    width: u32,
    /// Significand bits, the hidden bit included.
    precision: i32,
    /// The exponent of a subnormal's least significant bit.
    min_lsb: i32,
    /// The largest exponent of a finite value.
    emax: i32,
}

impl Format {
    fn of(ty: FloatTy) -> Format {
        match ty {
            FloatTy::F32 => Format {
                width: 32,
                precision: 24,
                min_lsb: -149,
                emax: 127,
            },
            FloatTy::F64 => Format {
                width: 64,
                precision: 53,
                min_lsb: -1074,
                emax: 1023,
            },
        }
    }

    /// The smallest exponent of a normal value.
    fn emin(self) -> i32 {
        self.min_lsb + self.precision - 1
    }

    fn sign_bit(self) -> u64 {
        1 << (self.width - 1)
    }

    fn inf(self, neg: bool) -> u64 {
        let magnitude = (((self.emax as u64 + 1) << 1) - 1) << (self.precision - 1);
        self.signed(neg, magnitude)
    }

    fn max_finite(self, neg: bool) -> u64 {
        self.signed(neg, self.inf(false) - 1)
    }

    fn zero(self, neg: bool) -> u64 {
        self.signed(neg, 0)
    }

    fn signed(self, neg: bool, magnitude: u64) -> u64 {
        if neg {
            magnitude | self.sign_bit()
        } else {
            magnitude
        }
    }

    /// A finite nonzero value as `(negative, significand, exponent)`:
    /// `(-1)^negative * significand * 2^exponent`.
    fn decode(self, bits: u64) -> (bool, u64, i32) {
        let frac_bits = self.precision - 1;
        let neg = bits & self.sign_bit() != 0;
        let biased = ((bits & !self.sign_bit()) >> frac_bits) as i32;
        let frac = bits & ((1 << frac_bits) - 1);
        if biased == 0 {
            (neg, frac, self.min_lsb)
        } else {
            (neg, frac | 1 << frac_bits, self.min_lsb + biased - 1)
        }
    }
}

/// Where the discarded part of a significand lies relative to half an ulp.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Discarded {
    Zero,
    BelowHalf,
    Half,
    AboveHalf,
}

/// `sig * 2^exp` (plus a sticky nonzero amount below `2^exp` when `sticky`) cut at the
/// bit of weight `2^lsb` (`lsb >= exp` or nothing is cut), and rounded by `mode`: the
/// kept significand (which may have carried one bit up) and whether it is inexact.
fn cut(sig: u128, exp: i32, lsb: i32, sticky: bool, mode: RoundingMode, neg: bool) -> (u128, bool) {
    let shift = lsb - exp;
    let (kept, discarded) = if shift <= 0 {
        // Only when every bit of `sig` is kept (see `round_exact`).
        let kind = if sticky {
            Discarded::BelowHalf
        } else {
            Discarded::Zero
        };
        (sig << -shift, kind)
    } else if shift > 128 {
        (0, Discarded::BelowHalf)
    } else {
        let (kept, rest) = if shift == 128 {
            (0, sig)
        } else {
            (sig >> shift, sig & ((1 << shift) - 1))
        };
        let half = 1u128 << (shift - 1);
        let kind = match rest.cmp(&half) {
            _ if rest == 0 && !sticky => Discarded::Zero,
            std::cmp::Ordering::Less => Discarded::BelowHalf,
            std::cmp::Ordering::Equal if !sticky => Discarded::Half,
            _ => Discarded::AboveHalf,
        };
        (kept, kind)
    };
    let inexact = discarded != Discarded::Zero;
    let up = match mode {
        RoundingMode::Nearest => {
            discarded == Discarded::AboveHalf || (discarded == Discarded::Half && kept & 1 == 1)
        }
        RoundingMode::Upward => inexact && !neg,
        RoundingMode::Downward => inexact && neg,
        RoundingMode::TowardZero => false,
    };
    (kept + u128::from(up), inexact)
}

/// The exact value `(-1)^neg * (sig * 2^exp + s)`, where `s` is a nonzero amount below
/// `2^exp` when `sticky` and 0 otherwise, rounded once to `ty` by `mode`. `sig` is nonzero.
fn round_exact(
    ty: FloatTy,
    mode: RoundingMode,
    neg: bool,
    sig: u128,
    exp: i32,
    sticky: bool,
) -> Rounded {
    let f = Format::of(ty);
    let top = exp + 127 - sig.leading_zeros() as i32;
    let unbounded_lsb = top - f.precision + 1;
    let lsb = unbounded_lsb.max(f.min_lsb);
    let (mut kept, inexact) = cut(sig, exp, lsb, sticky, mode, neg);
    let mut lsb = lsb;
    if kept == 1 << f.precision {
        kept >>= 1;
        lsb += 1;
    }
    let mut raised = Exceptions::INEXACT.when(inexact);
    if kept != 0 && lsb + 127 - kept.leading_zeros() as i32 > f.emax {
        let to_infinity = match mode {
            RoundingMode::Nearest => true,
            RoundingMode::Upward => !neg,
            RoundingMode::Downward => neg,
            RoundingMode::TowardZero => false,
        };
        let bits = if to_infinity {
            f.inf(neg)
        } else {
            f.max_finite(neg)
        };
        return Rounded {
            bits,
            raised: Exceptions::OVERFLOW | Exceptions::INEXACT,
        };
    }
    if top < f.emin() && inexact {
        // Tiny after rounding: the result rounded with an unbounded exponent is below the
        // smallest normal (it reaches it only by carrying into it).
        let (unbounded, _) = cut(sig, exp, unbounded_lsb, sticky, mode, neg);
        let reaches_normal = unbounded == 1 << f.precision && top + 1 == f.emin();
        raised |= Exceptions::UNDERFLOW.when(!reaches_normal);
    }
    let magnitude = if kept == 0 {
        0
    } else {
        kept as u64 + (((lsb - f.min_lsb) as u64) << (f.precision - 1))
    };
    Rounded {
        bits: f.signed(neg, magnitude),
        raised,
    }
}

/// `(-1)^na * sa * 2^ea + (-1)^nb * sb * 2^eb` for nonzero significands of at most 126
/// bits, rounded by `mode`.
fn add_exact(
    ty: FloatTy,
    mode: RoundingMode,
    a: (bool, u128, i32),
    b: (bool, u128, i32),
) -> Rounded {
    // Both significands with their top bit at bit 125: the larger magnitude keeps every
    // bit, the smaller one loses bits only when it is more than 20 bits below, where the
    // difference cannot cancel more than one leading bit, so a sticky bit is enough.
    let normalize = |(neg, sig, exp): (bool, u128, i32)| {
        let shift = sig.leading_zeros() as i32 - 2;
        (neg, sig << shift, exp - shift)
    };
    let (mut a, mut b) = (normalize(a), normalize(b));
    if (b.2, b.1) > (a.2, a.1) {
        std::mem::swap(&mut a, &mut b);
    }
    let distance = (a.2 - b.2) as u32;
    let (b_kept, sticky) = if distance >= 128 {
        (0, true)
    } else {
        (b.1 >> distance, b.1 & ((1 << distance) - 1) != 0)
    };
    let sig = if a.0 == b.0 {
        a.1 + b_kept
    } else {
        a.1 - b_kept - u128::from(sticky)
    };
    if sig == 0 && !sticky {
        return Rounded::exact(Format::of(ty).zero(mode == RoundingMode::Downward));
    }
    round_exact(ty, mode, a.0, sig, a.2, sticky)
}

/// The host's float types, over which the fast paths are written once.
trait Host: Copy + PartialOrd {
    fn from_raw(bits: u64) -> Self;
    fn raw(self) -> u64;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn fma(self, b: Self, c: Self) -> Self;
    fn sqrt(self) -> Self;
    fn next_up(self) -> Self;
    fn next_down(self) -> Self;
    fn abs(self) -> Self;
    fn is_finite(self) -> bool;
    fn is_nan(self) -> bool;
    fn is_zero(self) -> bool;
    fn is_sign_negative(self) -> bool;
    /// `2^k`.
    fn pow2(k: i32) -> Self;
}

macro_rules! host {
    ($t:ty, $u:ty) => {
        impl Host for $t {
            fn from_raw(bits: u64) -> $t {
                <$t>::from_bits(bits as $u)
            }
            fn raw(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn add(self, o: $t) -> $t {
                self + o
            }
            fn sub(self, o: $t) -> $t {
                self - o
            }
            fn mul(self, o: $t) -> $t {
                self * o
            }
            fn div(self, o: $t) -> $t {
                self / o
            }
            fn neg(self) -> $t {
                -self
            }
            fn fma(self, b: $t, c: $t) -> $t {
                self.mul_add(b, c)
            }
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            fn next_up(self) -> $t {
                <$t>::next_up(self)
            }
            fn next_down(self) -> $t {
                <$t>::next_down(self)
            }
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_zero(self) -> bool {
                self == 0.0
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn pow2(k: i32) -> $t {
                <$t>::from_bits(((k + <$t>::MAX_EXP - 1) as $u) << (<$t>::MANTISSA_DIGITS - 1))
            }
        }
    };
}
host!(f32, u32);
host!(f64, u64);

/// Whether `bits` of format `ty` is a signalling NaN.
fn is_signalling(ty: FloatTy, bits: u64) -> bool {
    let f = Format::of(ty);
    let quiet = 1u64 << (f.precision - 2);
    let magnitude = bits & !f.sign_bit();
    magnitude > f.inf(false) && magnitude & quiet == 0
}

/// `INVALID` when any operand is a signalling NaN.
fn signalling(ty: FloatTy, operands: &[u64]) -> Exceptions {
    Exceptions::INVALID.when(operands.iter().any(|&x| is_signalling(ty, x)))
}

/// A result the host computed exactly (a NaN, an infinity or a zero from special
/// operands): its bits and `INVALID` when it is a NaN no operand was.
fn special<T: Host>(ty: FloatTy, result: T, operands: &[T]) -> Rounded {
    let made_nan = result.is_nan() && !operands.iter().any(|x| x.is_nan());
    let signals = operands.iter().any(|x| is_signalling(ty, x.raw()));
    Rounded {
        bits: result.raw(),
        raised: Exceptions::INVALID.when(made_nan || signals),
    }
}

/// The round-to-nearest result `r` moved to `mode` given the sign of the exact error
/// `exact - r` (`error` as a float, nonzero).
fn step<T: Host>(r: T, error: T, mode: RoundingMode) -> T {
    let above = error > T::from_raw(0);
    match mode {
        RoundingMode::Nearest => r,
        RoundingMode::Upward if above => r.next_up(),
        RoundingMode::Downward if !above => r.next_down(),
        RoundingMode::TowardZero if above && r.is_sign_negative() => r.next_up(),
        RoundingMode::TowardZero if !above && !r.is_sign_negative() => r.next_down(),
        _ => r,
    }
}

/// The result of the fast path: `r` stepped by `error`, inexact when the error is
/// nonzero, overflowing when the step reaches infinity.
fn stepped<T: Host>(r: T, error: T, mode: RoundingMode) -> Rounded {
    if error.is_zero() {
        return Rounded::exact(r.raw());
    }
    let v = step(r, error, mode);
    let overflow = Exceptions::OVERFLOW.when(!v.is_finite());
    Rounded {
        bits: v.raw(),
        raised: Exceptions::INEXACT | overflow,
    }
}

fn decode_pair(ty: FloatTy, a: u64, b: u64) -> ((bool, u128, i32), (bool, u128, i32)) {
    let f = Format::of(ty);
    let widen = |(n, s, e): (bool, u64, i32)| (n, u128::from(s), e);
    (widen(f.decode(a)), widen(f.decode(b)))
}

fn add_host<T: Host>(ty: FloatTy, mode: RoundingMode, x: T, y: T) -> Rounded {
    let r = x.add(y);
    if !x.is_finite() || !y.is_finite() {
        return special(ty, r, &[x, y]);
    }
    if x.is_zero() || y.is_zero() {
        if r.is_zero() && mode == RoundingMode::Downward {
            // Zeros of opposite signs sum to -0 downward; equal ones keep their sign.
            let both_positive = !x.is_sign_negative() && !y.is_sign_negative();
            return Rounded::exact(Format::of(ty).zero(!both_positive));
        }
        return Rounded::exact(r.raw());
    }
    if !r.is_finite() {
        let (a, b) = decode_pair(ty, x.raw(), y.raw());
        return add_exact(ty, mode, a, b);
    }
    // Fast2Sum on the operands ordered by magnitude: the error of a sum is a float,
    // however small, and no intermediate overflows when the sum does not.
    let (big, small) = if x.abs() >= y.abs() { (x, y) } else { (y, x) };
    let error = small.sub(r.sub(big));
    if r.is_zero() {
        return Rounded::exact(Format::of(ty).zero(mode == RoundingMode::Downward));
    }
    stepped(r, error, mode)
}

fn mul_host<T: Host>(ty: FloatTy, mode: RoundingMode, x: T, y: T) -> Rounded {
    let r = x.mul(y);
    if !x.is_finite() || !y.is_finite() || x.is_zero() || y.is_zero() {
        return special(ty, r, &[x, y]);
    }
    let f = Format::of(ty);
    if r.is_finite() && r.abs() >= T::pow2(f.emin() + 2 * f.precision) {
        // Far enough above the subnormals that the product's error is a float.
        return stepped(r, x.fma(y, r.neg()), mode);
    }
    let (a, b) = decode_pair(ty, x.raw(), y.raw());
    round_exact(ty, mode, a.0 != b.0, a.1 * b.1, a.2 + b.2, false)
}

fn div_host<T: Host>(ty: FloatTy, mode: RoundingMode, x: T, y: T) -> Rounded {
    let r = x.div(y);
    if !x.is_finite() || !y.is_finite() || x.is_zero() || y.is_zero() {
        let by_zero = y.is_zero() && x.is_finite() && !x.is_zero();
        let mut out = special(ty, r, &[x, y]);
        out.raised |= Exceptions::DIVBYZERO.when(by_zero);
        return out;
    }
    let f = Format::of(ty);
    let normal = T::pow2(f.emin() + f.precision);
    if r.is_finite() && r.abs() >= normal && x.abs() >= T::pow2(f.emin() + 2 * f.precision) {
        // x - r*y has the sign of x/y - r (y > 0) or the opposite one.
        let residual = r.neg().fma(y, x);
        let error = if y.is_sign_negative() {
            residual.neg()
        } else {
            residual
        };
        return stepped(r, error, mode);
    }
    let (a, b) = decode_pair(ty, x.raw(), y.raw());
    let (na, nb) = (
        a.1.leading_zeros() as i32 - 64,
        b.1.leading_zeros() as i32 - 64,
    );
    let (sa, sb) = (a.1 << na, b.1 << nb);
    let numerator = sa << 64;
    let (q, rest) = (numerator / sb, numerator % sb);
    let exp = (a.2 - na) - 64 - (b.2 - nb);
    round_exact(ty, mode, a.0 != b.0, q, exp, rest != 0)
}

fn sqrt_host<T: Host>(ty: FloatTy, mode: RoundingMode, x: T) -> Rounded {
    let r = x.sqrt();
    if !x.is_finite() || x.is_zero() || x.is_sign_negative() {
        return special(ty, r, &[x]);
    }
    let f = Format::of(ty);
    if x >= T::pow2(f.emin() + 2 * f.precision) {
        return stepped(r, r.neg().fma(r, x), mode);
    }
    let (_, sig, exp) = f.decode(x.raw());
    let sig = u128::from(sig);
    let mut shift = sig.leading_zeros() as i32 - 2;
    if (exp - shift) % 2 != 0 {
        shift -= 1;
    }
    let n = sig << shift;
    let root = isqrt(n);
    round_exact(ty, mode, false, root, (exp - shift) / 2, root * root != n)
}

/// The integer square root of `n < 2^126`.
fn isqrt(n: u128) -> u128 {
    let mut y = (n as f64).sqrt() as u128;
    if y > 0 {
        y = (y + n / y) / 2;
    }
    while y * y > n {
        y -= 1;
    }
    while (y + 1) * (y + 1) <= n {
        y += 1;
    }
    y
}

fn fma_host<T: Host>(ty: FloatTy, mode: RoundingMode, x: T, y: T, z: T) -> Rounded {
    let r = x.fma(y, z);
    if !x.is_finite() || !y.is_finite() || !z.is_finite() {
        // `0 * inf + qNaN` is quiet, as `vfmadd` computes it.
        return special(ty, r, &[x, y, z]);
    }
    if x.is_zero() || y.is_zero() {
        // The product is an exact zero: the sum of two values, one of them a zero.
        return add_host(ty, mode, x.mul(y), z);
    }
    let (a, b) = decode_pair(ty, x.raw(), y.raw());
    let product = (a.0 != b.0, a.1 * b.1, a.2 + b.2);
    if z.is_zero() {
        return round_exact(ty, mode, product.0, product.1, product.2, false);
    }
    let (c, _) = decode_pair(ty, z.raw(), z.raw());
    add_exact(ty, mode, product, c)
}

/// The fast path `$f` at the host type of format `$ty`, on raw operands.
macro_rules! on_host {
    ($ty:expr, $f:ident($mode:expr; $($arg:expr),*)) => {
        match $ty {
            FloatTy::F32 => $f::<f32>($ty, $mode, $(f32::from_raw($arg)),*),
            FloatTy::F64 => $f::<f64>($ty, $mode, $(f64::from_raw($arg)),*),
        }
    };
}

/// `fadd` in `mode`.
pub fn fadd_in(ty: FloatTy, mode: RoundingMode, a: u64, b: u64) -> Rounded {
    on_host!(ty, add_host(mode; a, b))
}

/// `fsub` in `mode`: `a + (-b)` (the sign flip is exact; a NaN `b` keeps its payload,
/// as `subsd` does).
pub fn fsub_in(ty: FloatTy, mode: RoundingMode, a: u64, b: u64) -> Rounded {
    let b_is_nan = Format::of(ty).inf(false) < b & !ty.sign_bit();
    let negated = if b_is_nan { b } else { b ^ ty.sign_bit() };
    fadd_in(ty, mode, a, negated)
}

/// `fmul` in `mode`.
pub fn fmul_in(ty: FloatTy, mode: RoundingMode, a: u64, b: u64) -> Rounded {
    on_host!(ty, mul_host(mode; a, b))
}

/// `fdiv` in `mode`.
pub fn fdiv_in(ty: FloatTy, mode: RoundingMode, a: u64, b: u64) -> Rounded {
    on_host!(ty, div_host(mode; a, b))
}

/// `sqrt` in `mode`.
pub fn sqrt_in(ty: FloatTy, mode: RoundingMode, a: u64) -> Rounded {
    on_host!(ty, sqrt_host(mode; a))
}

/// `fma(a, b, c)` in `mode`, rounded once.
pub fn fma_in(ty: FloatTy, mode: RoundingMode, a: u64, b: u64, c: u64) -> Rounded {
    on_host!(ty, fma_host(mode; a, b, c))
}

/// `fptrunc`/`fpext` from `from` to `to` in `mode` (widening is exact).
pub fn fconvert_in(from: FloatTy, to: FloatTy, mode: RoundingMode, a: u64) -> Rounded {
    let native = super::fconvert(Type::Float(from), Type::Float(to), a);
    let value = super::to_f64(from, a);
    if from == to || !value.is_finite() || value == 0.0 || from == FloatTy::F32 {
        let nan_made_quiet = signalling(from, &[a]);
        return Rounded {
            bits: native,
            raised: nan_made_quiet,
        };
    }
    let (neg, sig, exp) = Format::of(from).decode(a);
    round_exact(to, mode, neg, u128::from(sig), exp, false)
}

/// An integer `neg ? -magnitude : magnitude` rounded to `to` in `mode`.
fn from_integer(to: FloatTy, mode: RoundingMode, neg: bool, magnitude: u64) -> Rounded {
    if magnitude == 0 {
        return Rounded::exact(0);
    }
    round_exact(to, mode, neg, u128::from(magnitude), 0, false)
}

/// `sitofp` from the integer type `from` to the float type `to` in `mode`.
pub fn sitofp_in(from: Type, to: FloatTy, mode: RoundingMode, a: u64) -> Rounded {
    let v = from.sign_extend(a);
    from_integer(to, mode, v < 0, v.unsigned_abs())
}

/// `uitofp` from the integer type `from` to the float type `to` in `mode`. From 64
/// bits to `double`, clang's x86-64 sequence computes `(2^52 + lo - 2^52) + (2^84 +
/// hi * 2^32 - 2^84)` for the 32-bit halves: one rounding, but 0 converts to `-0`
/// downward (the constrained form `-frounding-math` emits gives `+0`; fpir lowers both
/// to `uitofp`, and models the plain one).
pub fn uitofp_in(from: Type, to: FloatTy, mode: RoundingMode, a: u64) -> Rounded {
    if a == 0 && to == FloatTy::F64 && width(from) == 64 {
        return Rounded::exact(Format::of(to).zero(mode == RoundingMode::Downward));
    }
    from_integer(to, mode, false, a)
}

/// The exceptions `cvttsd2si` (`cvttss2si`) raises converting `x`, widened exactly from
/// the source format, to a signed integer of `bits` bits: `INVALID` for NaN and out of
/// range, else `INEXACT` for a fraction.
fn cvtt_raises(x: f64, bits: u32) -> Exceptions {
    let in_range = if bits == 64 {
        (-TWO63..TWO63).contains(&x)
    } else {
        x > -2_147_483_649.0 && x < 2_147_483_648.0
    };
    if !in_range {
        Exceptions::INVALID
    } else {
        Exceptions::INEXACT.when(x.trunc() != x)
    }
}

/// `fptosi` and the exceptions its conversion raises (the result does not depend on the
/// mode: the conversion truncates).
pub fn fptosi_in(from: Type, to: Type, a: u64) -> Rounded {
    let x = super::float_value(from, a);
    let bits = if width(to) > 32 { 64 } else { 32 };
    Rounded {
        bits: fptosi(from, to, a),
        raised: cvtt_raises(x, bits),
    }
}

/// `fptoui` and the exceptions its instruction sequence raises in `mode` (see the
/// module docs of [`super`]: to 64 bits clang converts both `x` and `x - 2^63`, the
/// subtraction rounded in `mode`).
pub fn fptoui_in(from: Type, to: Type, mode: RoundingMode, a: u64) -> Rounded {
    let x = super::float_value(from, a);
    let raised = match width(to) {
        64 => {
            let from_ty = from.as_float().unwrap_or(FloatTy::F64);
            let shifted = fsub_in(from_ty, mode, a, super::from_f64(from_ty, TWO63));
            let y = super::to_f64(from_ty, shifted.bits);
            cvtt_raises(x, 64) | shifted.raised | cvtt_raises(y, 64)
        }
        w if w >= 32 => cvtt_raises(x, 64),
        _ => cvtt_raises(x, 32),
    };
    Rounded {
        bits: fptoui(from, to, a),
        raised,
    }
}
