//! Branch distance: how far the operands of a comparison are from making it take a wanted
//! outcome (CoverMe, Fu & Su, PLDI'17, Sec. 4; Korel's branch functions).
//!
//! For a comparison that must become true, with `d(a, b)` the distance of the operands:
//! `a == b`: `d(a, b)`; `a <= b`: `d(a, b)` when `a > b`; `a < b`: `d(a, b) + eps`
//! when `a >= b`; `a != b`: `eps`. Making a comparison false is making its inverse
//! true (`!(a olt b)` is `a uge b`). A distance is 0 exactly when the outcome holds.
//!
//! Floats: `d` is `|a - b|` ([`Metric::Real`], `eps` the smallest normal) or the number
//! of values between them ([`Metric::Ulp`], `eps` one). An ordered comparison with a NaN
//! operand is [`NAN_DISTANCE`] away from true; wanting a NaN (`uno`) measures how far an
//! operand is from the NaNs in ordered bits, so searches in that space can walk there.
//! Integers: the exact difference (signed or unsigned as the predicate says), `eps` 1.

use crate::config::Metric;
use fpir::{CmpPred, FloatPred, FloatTy, IntPred, Type};

/// The distance of an ordered comparison with a NaN operand from holding: beyond any
/// finite distance of either metric.
pub const NAN_DISTANCE: f64 = 1.8e19;

/// Distance from `lhs pred rhs` (raw bits of type `ty`) to being `want`.
pub fn distance(pred: CmpPred, ty: Type, lhs: u64, rhs: u64, want: bool, metric: Metric) -> f64 {
    match (pred, ty) {
        (CmpPred::Float(p), Type::Float(ft)) => {
            let p = if want { p } else { invert_float(p) };
            let (a, b) = (to_f64(ft, lhs), to_f64(ft, rhs));
            float_true(p, a, b, ft, metric)
        }
        (CmpPred::Int(p), _) => {
            let p = if want { p } else { invert_int(p) };
            int_true(p, ty.bits(), lhs, rhs)
        }
        _ => 1.0,
    }
}

/// Distance from an integer `value` of type `ty` to equal `case` (switch cases).
pub fn int_gap(ty: Type, value: u64, case: u64) -> f64 {
    let bits = ty.bits();
    (signed(bits, value) - signed(bits, case)).unsigned_abs() as f64
}

fn to_f64(ft: FloatTy, bits: u64) -> f64 {
    match ft {
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
        FloatTy::F64 => f64::from_bits(bits),
    }
}

/// The ordinal of `x` in its own format, as an exact integer: consecutive values differ
/// by one, both zeros are 0.
fn ordinal(ft: FloatTy, x: f64) -> i64 {
    use fpforge_search::ordinal::{signed_ulps, HostFormat};
    let format = match ft {
        FloatTy::F32 => HostFormat::F32,
        FloatTy::F64 => HostFormat::F64,
    };
    signed_ulps(format, x)
}

/// `d(a, b)` for non-NaN operands.
fn gap(a: f64, b: f64, ft: FloatTy, metric: Metric) -> f64 {
    match metric {
        Metric::Real => {
            let d = (a - b).abs();
            if d.is_nan() {
                NAN_DISTANCE
            } else {
                d
            }
        }
        Metric::Ulp => {
            (i128::from(ordinal(ft, a)) - i128::from(ordinal(ft, b))).unsigned_abs() as f64
        }
    }
}

fn eps(metric: Metric) -> f64 {
    match metric {
        Metric::Real => f64::MIN_POSITIVE,
        Metric::Ulp => 1.0,
    }
}

/// How far `x` is from the NaNs, in ordered bits of its format (always at least 1).
fn to_nan(ft: FloatTy, x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    (ordinal(ft, f64::INFINITY) - ordinal(ft, x.abs()) + 1) as f64
}

fn float_true(p: FloatPred, a: f64, b: f64, ft: FloatTy, metric: Metric) -> f64 {
    use FloatPred::*;
    let unordered = a.is_nan() || b.is_nan();
    let holds = match p {
        False => false,
        True => true,
        Oeq => a == b,
        Ogt => a > b,
        Oge => a >= b,
        Olt => a < b,
        Ole => a <= b,
        One => !unordered && a != b,
        Ord => !unordered,
        Ueq => unordered || a == b,
        Ugt => unordered || a > b,
        Uge => unordered || a >= b,
        Ult => unordered || a < b,
        Ule => unordered || a <= b,
        Une => a != b,
        Uno => unordered,
    };
    if holds {
        return 0.0;
    }
    if unordered {
        return match p {
            Uno => 0.0,
            False => 1.0,
            _ => NAN_DISTANCE,
        };
    }
    match p {
        False => 1.0,
        Uno => to_nan(ft, a).min(to_nan(ft, b)),
        Oeq | Ueq | Ole | Ule | Oge | Uge => gap(a, b, ft, metric),
        Olt | Ult | Ogt | Ugt => gap(a, b, ft, metric) + eps(metric),
        One | Une | Ord | True => eps(metric),
    }
}

fn signed(bits: u32, v: u64) -> i128 {
    let shift = 64 - bits.clamp(1, 64);
    i128::from(((v << shift) as i64) >> shift)
}

fn unsigned(bits: u32, v: u64) -> i128 {
    let shift = 64 - bits.clamp(1, 64);
    i128::from((v << shift) >> shift)
}

fn int_true(p: IntPred, bits: u32, lhs: u64, rhs: u64) -> f64 {
    use IntPred::*;
    let (a, b) = match p {
        Ugt | Uge | Ult | Ule => (unsigned(bits, lhs), unsigned(bits, rhs)),
        _ => (signed(bits, lhs), signed(bits, rhs)),
    };
    let d = match p {
        Eq => (a - b).abs(),
        Ne => i128::from(a == b),
        Ugt | Sgt => (b - a + 1).max(0),
        Uge | Sge => (b - a).max(0),
        Ult | Slt => (a - b + 1).max(0),
        Ule | Sle => (a - b).max(0),
    };
    d as f64
}

fn invert_float(p: FloatPred) -> FloatPred {
    use FloatPred::*;
    match p {
        False => True,
        True => False,
        Oeq => Une,
        Une => Oeq,
        Ogt => Ule,
        Ule => Ogt,
        Oge => Ult,
        Ult => Oge,
        Olt => Uge,
        Uge => Olt,
        Ole => Ugt,
        Ugt => Ole,
        One => Ueq,
        Ueq => One,
        Ord => Uno,
        Uno => Ord,
    }
}

fn invert_int(p: IntPred) -> IntPred {
    use IntPred::*;
    match p {
        Eq => Ne,
        Ne => Eq,
        Ugt => Ule,
        Ule => Ugt,
        Uge => Ult,
        Ult => Uge,
        Sgt => Sle,
        Sle => Sgt,
        Sge => Slt,
        Slt => Sge,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(pred: FloatPred, a: f64, b: f64, want: bool, metric: Metric) -> f64 {
        distance(
            CmpPred::Float(pred),
            Type::F64,
            a.to_bits(),
            b.to_bits(),
            want,
            metric,
        )
    }

    #[test]
    fn zero_exactly_when_the_outcome_holds() {
        let values = [
            f64::NAN,
            -f64::INFINITY,
            -1.0,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::MAX,
        ];
        let ordered_and_unordered = FloatPred::ALL
            .iter()
            .filter(|p| !matches!(p, FloatPred::False | FloatPred::True));
        for &p in ordered_and_unordered {
            for &a in &values {
                for &b in &values {
                    for want in [true, false] {
                        for metric in [Metric::Real, Metric::Ulp] {
                            let d = f(p, a, b, want, metric);
                            let holds = float_true(p, a, b, FloatTy::F64, metric) == 0.0;
                            assert_eq!(d == 0.0, holds == want, "{p:?} {a} {b} {want}");
                            assert!(d >= 0.0, "{p:?} {a} {b} {want}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn distances_shrink_towards_the_boundary() {
        assert_eq!(
            f(FloatPred::Olt, 3.0, 1.0, true, Metric::Real),
            2.0 + f64::MIN_POSITIVE
        );
        assert_eq!(f(FloatPred::Oeq, 0.0, 5e-324, true, Metric::Ulp), 1.0);
        assert_eq!(f(FloatPred::Oeq, -0.0, 5e-324, true, Metric::Ulp), 1.0);
        assert!(f(FloatPred::Oeq, f64::MAX, -f64::MAX, true, Metric::Ulp).is_finite());
        assert_eq!(
            f(FloatPred::Uno, f64::INFINITY, 1.0, true, Metric::Ulp),
            1.0
        );
        assert_eq!(
            f(FloatPred::Olt, f64::NAN, 1.0, true, Metric::Ulp),
            NAN_DISTANCE
        );
    }

    #[test]
    fn integers_follow_signedness() {
        let minus_one = u64::from(u32::MAX);
        let d = |p, a, b, want| distance(CmpPred::Int(p), Type::I32, a, b, want, Metric::Ulp);
        assert_eq!(d(IntPred::Slt, minus_one, 0, true), 0.0);
        assert_eq!(
            d(IntPred::Ult, minus_one, 0, true),
            f64::from(u32::MAX) + 1.0
        );
        assert_eq!(
            d(IntPred::Eq, 0x7ff0_0000, 0x7fe0_0000, true),
            f64::from(0x10_0000)
        );
        assert_eq!(d(IntPred::Eq, 5, 5, false), 1.0);
        assert_eq!(int_gap(Type::I32, minus_one, 2), 3.0);
    }
}
