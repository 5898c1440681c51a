//! The x87 extended format (`long double`, see [`fpir::f80`]) in MPFR: the exact value of
//! an extended number ([`value`]), a number rounded to one as the x87 rounds ([`round`]:
//! MPFR at precision 64, then brought into the x87 exponent range, subnormals by
//! `subnormalize`), and the error of an extended result ([`measure`]).
//!
//! The semantics round their high-precision extended results with [`round`]; the
//! tests check that an operation at precision 64 finished by [`finish`] gives fpir's
//! soft-float results bit for bit, in every rounding mode.

use crate::metrics::{measure_exact, HighValue};
use crate::ErrorMeasure;
use fpir::f80::{self, F80};
use rug::float::{Round, Special};
use rug::Float;
use std::cmp::Ordering;

/// Significand bits of the x87 extended format (the integer bit included).
pub const PRECISION: u32 = 64;
/// MPFR exponent `e` (a value in `[2^(e-1), 2^e)`) of the smallest normal, `2^-16382`.
pub const NORMAL_EXP_MIN: i32 = -16381;
/// MPFR exponent of the largest finite value, just below `2^16384`.
pub const EXP_MAX: i32 = 16384;
const BIAS: i32 = 16383;
const INTEGER_BIT: u64 = 1 << 63;
const SIGN_BIT: u16 = 0x8000;
const EXP_MASK: u16 = 0x7fff;

/// The exact value of `x` at `prec` bits (at least 64, so it is exact); NaN for NaNs
/// and the encodings the x87 rejects.
pub fn value(x: F80, prec: u32) -> Float {
    let prec = prec.max(PRECISION);
    if x.is_nan() || x.is_unsupported_encoding() {
        return Float::with_val(prec, Special::Nan);
    }
    let exponent = x.se & EXP_MASK;
    let magnitude = if exponent == EXP_MASK {
        Float::with_val(prec, Special::Infinity)
    } else {
        // A denormal's (and pseudo-denormal's) scale is the smallest normal's.
        let scale = i32::from(exponent.max(1)) - BIAS - 63;
        Float::with_val(prec, x.sig) << scale
    };
    if x.is_negative() {
        -magnitude
    } else {
        magnitude
    }
}

/// MPFR's rounding direction for an x87 rounding mode (the x87 has no ties-away mode;
/// it reads as ties-to-even).
pub fn mpfr_round(round: f80::Round) -> Round {
    match round {
        f80::Round::NearestTiesToEven | f80::Round::NearestTiesToAway => Round::Nearest,
        f80::Round::TowardZero => Round::Zero,
        f80::Round::TowardPositive => Round::Up,
        f80::Round::TowardNegative => Round::Down,
    }
}

/// `x` rounded to an extended number in mode `round`, once.
pub fn round(x: &Float, round: f80::Round) -> F80 {
    let (r, ternary) = Float::with_val_round(PRECISION, x, mpfr_round(round));
    finish(r, ternary, round)
}

/// The extended number of `r`, a value already rounded to [`PRECISION`] bits with an
/// unbounded exponent in mode `round` (`ternary` says how it compares to the exact
/// value): subnormalized below the normal range without a second rounding error, and
/// overflowed as IEEE says for `round` above it.
pub fn finish(mut r: Float, ternary: Ordering, round: f80::Round) -> F80 {
    let sign = if r.is_sign_negative() { SIGN_BIT } else { 0 };
    if r.is_nan() {
        return F80::INDEFINITE;
    }
    if r.is_infinite() {
        return infinity(sign);
    }
    if !r.is_zero() {
        r.subnormalize_round(NORMAL_EXP_MIN, ternary, mpfr_round(round));
    }
    let Some(e) = r.get_exp().filter(|_| !r.is_zero()) else {
        return F80 { sig: 0, se: sign };
    };
    if e > EXP_MAX {
        return overflow(sign, round);
    }
    // A normal result is m * 2^(e - 64) with a 64-bit m; a subnormal one is a multiple
    // of the smallest subnormal 2^-16445 and keeps exponent field 0.
    let (shift, se) = if e >= NORMAL_EXP_MIN {
        (e - 64, sign | (e - 1 + BIAS) as u16)
    } else {
        (1 - BIAS - 63, sign)
    };
    let m = Float::with_val(PRECISION, r.abs() >> shift);
    let sig = m
        .to_integer()
        .and_then(|i| i.to_u64())
        .expect("a rounded extended significand fits 64 bits");
    F80 { sig, se }
}

fn infinity(sign: u16) -> F80 {
    F80 {
        sig: INTEGER_BIT,
        se: sign | EXP_MASK,
    }
}

/// The result of an overflow: the infinity, or the largest finite value when `round`
/// rounds toward zero on that side.
fn overflow(sign: u16, round: f80::Round) -> F80 {
    let negative = sign != 0;
    let to_infinity = match round {
        f80::Round::NearestTiesToEven | f80::Round::NearestTiesToAway => true,
        f80::Round::TowardZero => false,
        f80::Round::TowardPositive => !negative,
        f80::Round::TowardNegative => negative,
    };
    if to_infinity {
        infinity(sign)
    } else {
        F80 {
            sig: u64::MAX,
            se: sign | (EXP_MASK - 1),
        }
    }
}

/// The error of the extended result `computed` against `reference`, in extended ulps
/// (the relative error's floor is the smallest normal, `2^-16382`).
pub fn measure(computed: F80, reference: &HighValue) -> ErrorMeasure {
    measure_float(computed, reference.as_float())
}

pub(crate) fn measure_float(computed: F80, reference: &Float) -> ErrorMeasure {
    measure_exact(
        &value(computed, PRECISION),
        reference,
        PRECISION as i32,
        NORMAL_EXP_MIN,
    )
}
