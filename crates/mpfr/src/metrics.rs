//! Error metrics of a computed IEEE value against a high-precision reference, and FPGen's
//! two inaccuracy checks on one addition or subtraction.
//!
//! - **Relative error** `|computed - ref| / |ref|`, the true relative error, with two
//!   exceptions that divide by `MIN`, the format's smallest normal number (`DBL_MIN` =
//!   2^-1022 for binary64, `FLT_MIN` = 2^-126 for binary32), as FPGen's metric
//!   `|computed - ref| / max(|ref|, MIN)` does everywhere: a reference of zero, and a
//!   subnormal reference the result is within one ulp of. The first has no relative
//!   error; the second is the rounding gradual underflow forces on every evaluation (a
//!   correctly rounded result at 0.7 * 2^-1074 is 43 % off), not an error of the code.
//!   A result a whole ulp or more from a subnormal reference is measured as it truly is.
//! - **Ulp error** `|computed - ref| / ulp(ref)`, in ulps of the reference (the true
//!   value, under a true-function oracle), as libm authors and Zimmermann et al.'s
//!   accuracy reports count it: `ulp(ref) = 2^(max(e, emin) - p)` for
//!   `2^(e-1) <= |ref| < 2^e`, `p` the format's precision and `2^(emin-1)` its smallest
//!   normal, i.e. the spacing of the format's values in the binade of `ref`. A power of
//!   two belongs to the binade above it (`ulp(1) = 2^-52` in binary64, though the
//!   spacing below 1 is half that). As IEEE spaces them, subnormal and zero references
//!   share the smallest subnormal as their ulp (2^-1074 in binary64, 2^-149 in
//!   binary32), so a result one subnormal off a zero reference is 1 ulp off. A
//!   reference beyond the largest finite value keeps the binades going (2^972 in
//!   binary64 for `2^1024 <= |ref| < 2^1025`). A correctly rounded result is within
//!   half an ulp (exactly half at a tie, where only the even neighbour is correctly
//!   rounded); whether a result is the correctly rounded one is
//!   [`crate::FloatBits::correctly_rounded`]'s to say, from the bits, not this figure's
//!   (a double rounding of the quotient near 0.5).
//! - **Bits lost** `log2(1 + ulp error)`: how many trailing significand bits are wrong
//!   (0 for a correctly rounded result, 53 for a binary64 result with no correct bit).
//!
//! NaN against NaN and an infinity against the same infinity count as exact; any other
//! mismatch involving a NaN or an infinity is an infinite error.
//!
//! The checks ([`fpgen_checks`]): for `a ± b = r` with normal `a` and `b`, precision loss
//! is `|exp(a) - exp(b)|` (how many bits of the smaller operand are shifted out) and
//! cancellation is `max(exp(a), exp(b)) - exp(r)` (how many leading bits cancel; a zero
//! result counts as full cancellation, the format's precision plus one). FPGen's binary64
//! thresholds are alpha = 32 and beta = 40; for binary32 we scale them by 24/53 to 14 and
//! 18 ([`Thresholds::for_format`]).

use fpir::FloatTy;
use rug::float::Special;
use rug::Float;
use std::cmp::Ordering;
use std::fmt;

/// A high-precision value (an MPFR number) handed out by this crate's semantics: the
/// reference of a computed result.
#[derive(Clone, PartialEq, PartialOrd)]
pub struct HighValue(pub(crate) Float);

impl HighValue {
    /// The exact value of the IEEE number with raw bits `bits` in format `ty`.
    pub fn from_bits(ty: FloatTy, bits: u64) -> HighValue {
        HighValue(exact(ty, bits, 64))
    }

    /// The MPFR number itself (for callers that use `rug` themselves, such as tests).
    pub fn as_float(&self) -> &Float {
        &self.0
    }

    /// The value rounded to the nearest binary64 number.
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64()
    }

    /// The raw bits of the value rounded to nearest in format `ty`.
    pub fn round_bits(&self, ty: FloatTy) -> u64 {
        round_bits(ty, &self.0)
    }

    /// The MPFR precision of the value in bits.
    pub fn precision(&self) -> u32 {
        self.0.prec()
    }

    /// Whether two references agree to within `rel` relative difference (NaNs agree with
    /// NaNs, infinities with the same infinity).
    pub fn agrees_with(&self, other: &HighValue, rel: f64) -> bool {
        if self.0.is_nan() || other.0.is_nan() {
            return self.0.is_nan() && other.0.is_nan();
        }
        if self.0.is_infinite() || other.0.is_infinite() {
            return self.0 == other.0;
        }
        let prec = self.0.prec().max(other.0.prec()) + 8;
        let diff = Float::with_val(prec, &self.0 - &other.0).abs();
        let scale =
            Float::with_val(prec, self.0.abs_ref()).max(&Float::with_val(prec, other.0.abs_ref()));
        if scale.is_zero() {
            return diff.is_zero();
        }
        Float::with_val(prec, &diff / &scale).to_f64() <= rel
    }
}

impl From<Float> for HighValue {
    fn from(x: Float) -> HighValue {
        HighValue(x)
    }
}

impl fmt::Debug for HighValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.to_string_radix(16, None))
    }
}

impl fmt::Display for HighValue {
    /// Decimal scientific notation with 20 significant digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.20e}", self.0)
    }
}

/// Significand bits of a format (with the implicit bit).
pub fn precision_of(ty: FloatTy) -> u32 {
    match ty {
        FloatTy::F32 => 24,
        FloatTy::F64 => 53,
    }
}

/// The exact value of raw bits `bits` of format `ty`, at `prec` bits (at least the
/// format's own precision, so the value is exact).
pub(crate) fn exact(ty: FloatTy, bits: u64, prec: u32) -> Float {
    match ty {
        FloatTy::F32 => Float::with_val(prec.max(24), f32::from_bits(bits as u32)),
        FloatTy::F64 => Float::with_val(prec.max(53), f64::from_bits(bits)),
    }
}

/// `x` rounded to nearest-even in format `ty` (subnormals, overflow to infinity included),
/// as raw bits.
pub(crate) fn round_bits(ty: FloatTy, x: &Float) -> u64 {
    match ty {
        FloatTy::F32 => u64::from(x.to_f32().to_bits()),
        FloatTy::F64 => x.to_f64().to_bits(),
    }
}

/// The MPFR exponent `e` of the smallest normal number `2^(e-1)` of a format.
fn emin(ty: FloatTy) -> i32 {
    match ty {
        FloatTy::F32 => -125,
        FloatTy::F64 => -1021,
    }
}

/// The measured error of one computed value against its reference.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct ErrorMeasure {
    /// `|computed - ref| / |ref|`; against `MIN` for a zero reference or a subnormal one
    /// within an ulp (see the module docs).
    pub rel: f64,
    /// `|computed - ref| / ulp(ref)`, `ulp(ref)` the spacing of the format in the binade
    /// of `ref` (see the module docs for zeros, subnormals and powers of two).
    pub ulps: f64,
    /// `log2(1 + ulps)`.
    pub bits_lost: f64,
}

impl ErrorMeasure {
    /// The error of an exact result.
    pub const ZERO: ErrorMeasure = ErrorMeasure {
        rel: 0.0,
        ulps: 0.0,
        bits_lost: 0.0,
    };

    /// The error when one side is NaN or infinite and the other is not the same.
    pub const INFINITE: ErrorMeasure = ErrorMeasure {
        rel: f64::INFINITY,
        ulps: f64::INFINITY,
        bits_lost: f64::INFINITY,
    };
}

/// The error of the IEEE value `computed` (raw bits of format `ty`) against `reference`.
pub fn measure(ty: FloatTy, computed: u64, reference: &HighValue) -> ErrorMeasure {
    measure_float(ty, computed, &reference.0)
}

pub(crate) fn measure_float(ty: FloatTy, computed: u64, reference: &Float) -> ErrorMeasure {
    measure_exact(
        &exact(ty, computed, 64),
        reference,
        precision_of(ty) as i32,
        emin(ty),
    )
}

/// The error of the exact value `c` of a format with `p` significand bits whose smallest
/// normal is `2^(emin-1)` against `reference`.
pub(crate) fn measure_exact(c: &Float, reference: &Float, p: i32, emin: i32) -> ErrorMeasure {
    if c.is_nan() || reference.is_nan() {
        return if c.is_nan() && reference.is_nan() {
            ErrorMeasure::ZERO
        } else {
            ErrorMeasure::INFINITE
        };
    }
    if c.is_infinite() || reference.is_infinite() {
        return if *c == *reference {
            ErrorMeasure::ZERO
        } else {
            ErrorMeasure::INFINITE
        };
    }
    let prec = reference.prec().max(c.prec()) + 8;
    let diff = Float::with_val(prec, c - reference).abs();
    if diff.is_zero() {
        return ErrorMeasure::ZERO;
    }
    let e = reference.get_exp().unwrap_or(i32::MIN).max(emin);
    let ulps = Float::with_val(prec, &diff >> (e - p)).to_f64();
    let min_normal = Float::with_val(prec, Float::u_exp(1, emin - 1));
    let magnitude = Float::with_val(prec, reference.abs_ref());
    let denom = if magnitude.is_zero() || (magnitude < min_normal && ulps < 1.0) {
        min_normal
    } else {
        magnitude
    };
    let rel = Float::with_val(prec, &diff / &denom).to_f64();
    ErrorMeasure {
        rel,
        ulps,
        bits_lost: (1.0 + ulps).log2(),
    }
}

/// The largest error over the elements of an output array and its index (the first on
/// ties); `None` for an empty array.
pub fn max_over(
    ty: FloatTy,
    computed: &[u64],
    reference: &[HighValue],
) -> Option<(usize, ErrorMeasure)> {
    let mut best: Option<(usize, ErrorMeasure)> = None;
    for (i, (&c, r)) in computed.iter().zip(reference).enumerate() {
        let m = measure(ty, c, r);
        let better = match best {
            None => true,
            Some((_, b)) => m.rel.partial_cmp(&b.rel) == Some(Ordering::Greater),
        };
        if better {
            best = Some((i, m));
        }
    }
    best
}

/// FPGen's thresholds for the two checks, in exponent bits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub struct Thresholds {
    /// Precision loss: `|exp(a) - exp(b)| > alpha` (binary64 default 32).
    pub alpha: i32,
    /// Cancellation: `max(exp(a), exp(b)) - exp(r) > beta` (binary64 default 40).
    pub beta: i32,
}

impl Thresholds {
    /// FPGen's binary64 defaults (32, 40), scaled by 24/53 for binary32 (14, 18).
    pub fn for_format(ty: FloatTy) -> Thresholds {
        match ty {
            FloatTy::F64 => Thresholds {
                alpha: 32,
                beta: 40,
            },
            FloatTy::F32 => Thresholds {
                alpha: 14,
                beta: 18,
            },
        }
    }
}

/// The two check quantities of one addition or subtraction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CheckValues {
    /// `|exp(a) - exp(b)|`.
    pub precision_loss: i32,
    /// `max(exp(a), exp(b)) - exp(r)` (a zero result counts the format's precision + 1).
    pub cancellation: i32,
}

/// The unbiased exponent of a normal number, `None` for zeros, subnormals, infinities
/// and NaNs.
pub fn normal_exponent(ty: FloatTy, bits: u64) -> Option<i32> {
    let (e, max) = match ty {
        FloatTy::F32 => (((bits >> 23) & 0xff) as i32, 0xff),
        FloatTy::F64 => (((bits >> 52) & 0x7ff) as i32, 0x7ff),
    };
    let bias = match ty {
        FloatTy::F32 => 127,
        FloatTy::F64 => 1023,
    };
    (e != 0 && e != max).then_some(e - bias)
}

/// FPGen's check quantities for `a ± b = r` (raw bits of format `ty`); `None` unless both
/// operands are normal numbers.
pub fn fpgen_checks(ty: FloatTy, a: u64, b: u64, r: u64) -> Option<CheckValues> {
    let ea = normal_exponent(ty, a)?;
    let eb = normal_exponent(ty, b)?;
    let top = ea.max(eb);
    let magnitude = match ty {
        FloatTy::F32 => r & 0x7fff_ffff,
        FloatTy::F64 => r & !(1 << 63),
    };
    let cancellation = if magnitude == 0 {
        precision_of(ty) as i32 + 1
    } else {
        match normal_exponent(ty, r) {
            Some(er) => top - er,
            // Subnormal result: its exponent is at most the smallest normal's.
            None if !exact(ty, r, 64).is_finite() => 0,
            None => top - (emin(ty) - 1),
        }
    };
    Some(CheckValues {
        precision_loss: (ea - eb).abs(),
        cancellation,
    })
}

/// A NaN high-precision value (for results with no meaningful reference).
pub(crate) fn nan(prec: u32) -> Float {
    Float::with_val(prec, Special::Nan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hv(x: f64) -> HighValue {
        HighValue::from_bits(FloatTy::F64, x.to_bits())
    }

    #[test]
    fn exact_results_have_no_error() {
        assert_eq!(
            measure(FloatTy::F64, 1.5f64.to_bits(), &hv(1.5)),
            ErrorMeasure::ZERO
        );
        assert_eq!(
            measure(FloatTy::F64, f64::NAN.to_bits(), &hv(f64::NAN)),
            ErrorMeasure::ZERO
        );
        assert_eq!(
            measure(FloatTy::F64, 1.0f64.to_bits(), &hv(f64::INFINITY)).rel,
            f64::INFINITY
        );
    }

    #[test]
    fn one_ulp_and_relative_error() {
        let x = 1.0f64;
        let next = f64::from_bits(x.to_bits() + 1);
        let m = measure(FloatTy::F64, next.to_bits(), &hv(x));
        assert_eq!(m.ulps, 1.0);
        assert_eq!(m.rel, f64::EPSILON);
        assert_eq!(m.bits_lost, 1.0);
        // A zero result against a nonzero reference has relative error 1.
        assert_eq!(measure(FloatTy::F64, 0f64.to_bits(), &hv(1e-17)).rel, 1.0);
        // Against zero, the denominator is DBL_MIN.
        let tiny = f64::MIN_POSITIVE;
        assert_eq!(measure(FloatTy::F64, tiny.to_bits(), &hv(0.0)).rel, 1.0);
        // Subnormal spacing; two ulps from a subnormal reference is its true relative error.
        let sub = f64::from_bits(5);
        let two_off = measure(FloatTy::F64, 7, &hv(sub));
        assert_eq!(two_off.ulps, 2.0);
        assert_eq!(two_off.rel, 0.4);
        let f = 1.0f32;
        let m = measure(
            FloatTy::F32,
            u64::from(f.to_bits() + 2),
            &HighValue::from_bits(FloatTy::F32, u64::from(f.to_bits())),
        );
        assert_eq!(m.ulps, 2.0);
    }

    #[test]
    fn subnormal_references_rank_rounding_below_real_errors() {
        let smallest = f64::from_bits(1);
        // 0.7 * 2^-1074 correctly rounded is 2^-1074: the format's rounding, measured
        // against DBL_MIN as in the normal range.
        let tiny_ref = HighValue(Float::with_val(80, smallest) * 0.7f64);
        let rounded = measure(FloatTy::F64, 1, &tiny_ref);
        assert!(rounded.ulps < 0.5);
        assert!(rounded.rel < f64::EPSILON, "{}", rounded.rel);
        // A normal result where the truth is subnormal: the true relative error, not the one
        // against DBL_MIN (2^1022 times smaller).
        let truth = f64::from_bits(0x000f_0000_0000_0000);
        let wrong = measure(FloatTy::F64, 1e-20f64.to_bits(), &hv(truth));
        let expected = (1e-20 - truth) / truth;
        assert!((wrong.rel / expected - 1.0).abs() < 1e-12, "{}", wrong.rel);
    }

    #[test]
    fn array_maximum_names_the_element() {
        let refs = [hv(1.0), hv(2.0), hv(3.0)];
        let computed = [1.0f64.to_bits(), 2.5f64.to_bits(), 3.5f64.to_bits()];
        let (i, m) = max_over(FloatTy::F64, &computed, &refs).unwrap();
        assert_eq!(i, 1);
        assert_eq!(m.rel, 0.25);
    }

    #[test]
    fn fpgen_checks_on_cancellation_and_absorption() {
        let b = |x: f64| x.to_bits();
        let c = fpgen_checks(FloatTy::F64, b(1.0), b(-1.0), b(0.0)).unwrap();
        assert_eq!(c.precision_loss, 0);
        assert_eq!(c.cancellation, 54);
        let c = fpgen_checks(FloatTy::F64, b(1e20), b(1.0), b(1e20)).unwrap();
        assert_eq!(c.precision_loss, 66);
        assert_eq!(c.cancellation, 0);
        assert!(fpgen_checks(FloatTy::F64, b(0.0), b(1.0), b(1.0)).is_none());
        assert_eq!(
            Thresholds::for_format(FloatTy::F64),
            Thresholds {
                alpha: 32,
                beta: 40
            }
        );
    }
}
