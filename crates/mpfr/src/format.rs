//! The formats a computed result is measured in: IEEE `float` and `double` ([`FloatTy`])
//! and the x87 extended format of `long double` ([`crate::x87`]).
//!
//! [`FloatBits`] is a result exactly as the code produced it; its error against a
//! reference ([`FloatBits::error`]) is counted in ulps of its own format, so a
//! `long double` result is judged in extended ulps (64-bit significand, the x87
//! exponent range) and a `double` one in binary64 ulps.

use crate::metrics::{exact, measure, round_bits, ErrorMeasure, HighValue};
use crate::x87;
use fpir::f80::{Round, F80};
use fpir::FloatTy;
use rug::Float;

/// The format of a measured result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// An IEEE binary format (`float`, `double`).
    Ieee(FloatTy),
    /// The x87 extended format (`long double`).
    Extended,
}

/// A floating-point result in its format, as raw bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatBits {
    /// Raw bits of an IEEE format.
    Ieee(FloatTy, u64),
    /// An x87 extended value.
    Extended(F80),
}

impl FloatBits {
    /// Its format.
    pub fn format(self) -> Format {
        match self {
            FloatBits::Ieee(ty, _) => Format::Ieee(ty),
            FloatBits::Extended(_) => Format::Extended,
        }
    }

    /// Its exact value.
    pub fn value(self) -> HighValue {
        HighValue(self.exact(64))
    }

    /// Whether it is a finite number.
    pub fn is_finite(self) -> bool {
        self.exact(64).is_finite()
    }

    /// Its value rounded to the nearest double (an extended value beyond a double's
    /// range overflows to an infinity or underflows to a zero of its sign).
    pub fn to_f64(self) -> f64 {
        match self {
            FloatBits::Ieee(FloatTy::F64, bits) => f64::from_bits(bits),
            FloatBits::Ieee(FloatTy::F32, bits) => f64::from(f32::from_bits(bits as u32)),
            FloatBits::Extended(x) => {
                f64::from_bits(x.to_float(FloatTy::F64, Round::NearestTiesToEven))
            }
        }
    }

    /// Its error against `reference`, in ulps of its format.
    pub fn error(self, reference: &HighValue) -> ErrorMeasure {
        match self {
            FloatBits::Ieee(ty, bits) => measure(ty, bits, reference),
            FloatBits::Extended(x) => x87::measure(x, reference),
        }
    }

    /// Whether it is `reference` rounded to nearest (ties to even) in its own format:
    /// the correctly rounded result. The bits must match, so a zero of the wrong sign is
    /// not correctly rounded; NaN is the correct result for a NaN reference, whatever
    /// its payload. Judged at the reference's precision: a reference within its own
    /// error of a midpoint between two values of the format (Ziv's strategy makes
    /// reported ones stable) may round either way.
    pub fn correctly_rounded(self, reference: &HighValue) -> bool {
        if reference.0.is_nan() {
            return self.exact(64).is_nan();
        }
        reference.round_to(self.format()) == self
    }

    /// Its exact value at `prec` bits (raised to the format's precision).
    pub(crate) fn exact(self, prec: u32) -> Float {
        match self {
            FloatBits::Ieee(ty, bits) => exact(ty, bits, prec),
            FloatBits::Extended(x) => x87::value(x, prec),
        }
    }
}

impl HighValue {
    /// The value rounded to nearest in `format` (as the x87 rounds, for the extended
    /// format).
    pub fn round_to(&self, format: Format) -> FloatBits {
        match format {
            Format::Ieee(ty) => FloatBits::Ieee(ty, round_bits(ty, &self.0)),
            Format::Extended => FloatBits::Extended(x87::round(&self.0, Round::NearestTiesToEven)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extended(x: f64) -> FloatBits {
        FloatBits::Extended(F80::from_float(FloatTy::F64, x.to_bits()))
    }

    #[test]
    fn extended_results_count_extended_ulps() {
        let one = extended(1.0);
        let next = FloatBits::Extended(F80 {
            sig: (1 << 63) + 1,
            se: 0x3fff,
        });
        let m = next.error(&one.value());
        assert_eq!(m.ulps, 1.0);
        assert_eq!(m.rel, 2f64.powi(-63));
        assert_eq!(next.to_f64(), 1.0);
        assert_eq!(one.error(&one.value()), ErrorMeasure::ZERO);
    }

    #[test]
    fn correctly_rounded_results_are_the_reference_rounded_to_nearest() {
        let ieee = |x: f64| FloatBits::Ieee(FloatTy::F64, x.to_bits());
        let third = HighValue::from(Float::with_val(200, Float::with_val(200, 1) / 3));
        let nearest = 1.0f64 / 3.0;
        assert!(ieee(nearest).correctly_rounded(&third));
        assert!(!ieee(nearest.next_up()).correctly_rounded(&third));
        assert!(!ieee(-0.0).correctly_rounded(&ieee(0.0).value()));
        let nan = HighValue::from(Float::with_val(53, rug::float::Special::Nan));
        assert!(ieee(f64::NAN).correctly_rounded(&nan));
        assert!(!ieee(1.0).correctly_rounded(&nan));
        let single = FloatBits::Ieee(FloatTy::F32, u64::from((1.0f32 / 3.0).to_bits()));
        assert!(single.correctly_rounded(&third));
        assert!(extended(1.0).correctly_rounded(&extended(1.0).value()));
    }

    #[test]
    fn rounding_to_a_format_keeps_its_range() {
        // 2^2000 overflows a double but not the extended format.
        let big = HighValue::from(Float::with_val(64, Float::u_exp(1, 2001)));
        assert_eq!(
            big.round_to(Format::Ieee(FloatTy::F64)),
            FloatBits::Ieee(FloatTy::F64, f64::INFINITY.to_bits())
        );
        let rounded = big.round_to(Format::Extended);
        assert!(rounded.is_finite());
        assert_eq!(rounded.value(), big);
        assert_eq!(rounded.to_f64(), f64::INFINITY);
        assert!(!FloatBits::Extended(F80::INDEFINITE).is_finite());
    }
}
