//! Float ordinals: the IEEE values of one format numbered in increasing order.
//!
//! `-0` and `+0` get consecutive ordinals (`-1` and `0`), so the order is the
//! total order FPSE uses for domains (`-0 < +0`), and "the float halfway
//! between two floats by count" is the mean of their ordinals. NaN has no
//! ordinal. Values of both formats travel as `f64` (binary32 values widen exactly).

use crate::sort::FpFormat;

/// Ordinal of `-oo` in format `f`.
pub fn min_ord(f: FpFormat) -> i64 {
    ord(f, f64::NEG_INFINITY)
}

/// Ordinal of `+oo` in format `f`.
pub fn max_ord(f: FpFormat) -> i64 {
    ord(f, f64::INFINITY)
}

/// The ordinal of a non-NaN value `x` of format `f` (for binary32, `x` must
/// be exactly representable).
pub fn ord(f: FpFormat, x: f64) -> i64 {
    let (mag, neg) = match f {
        FpFormat::F32 => {
            let b = (x as f32).to_bits();
            (i64::from(b & 0x7fff_ffff), b >> 31 == 1)
        }
        FpFormat::F64 => {
            let b = x.to_bits();
            ((b & 0x7fff_ffff_ffff_ffff) as i64, b >> 63 == 1)
        }
    };
    if neg {
        -mag - 1
    } else {
        mag
    }
}

/// The value with ordinal `o` (clamped to the infinities).
pub fn from_ord(f: FpFormat, o: i64) -> f64 {
    let o = o.clamp(min_ord(f), max_ord(f));
    match f {
        FpFormat::F32 => {
            let v = if o < 0 {
                f32::from_bits(((-o - 1) as u32) | 0x8000_0000)
            } else {
                f32::from_bits(o as u32)
            };
            f64::from(v)
        }
        FpFormat::F64 => {
            if o < 0 {
                f64::from_bits(((-o - 1) as u64) | 0x8000_0000_0000_0000)
            } else {
                f64::from_bits(o as u64)
            }
        }
    }
}

/// Rounds an f64 to format `f` (RNE), returned widened.
pub fn round_to(f: FpFormat, x: f64) -> f64 {
    match f {
        FpFormat::F32 => f64::from(x as f32),
        FpFormat::F64 => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_monotone_and_invertible() {
        for f in [FpFormat::F32, FpFormat::F64] {
            let xs = [
                f64::NEG_INFINITY,
                -1.5,
                -1e-40,
                -0.0,
                0.0,
                1e-45,
                1.0,
                3.0e38,
                f64::INFINITY,
            ];
            let xs: Vec<f64> = xs.iter().map(|&x| round_to(f, x)).collect();
            for w in xs.windows(2) {
                assert!(ord(f, w[0]) < ord(f, w[1]), "{:?} {w:?}", f);
            }
            for &x in &xs {
                assert_eq!(from_ord(f, ord(f, x)).to_bits(), x.to_bits());
            }
            assert_eq!(ord(f, -0.0), -1);
            assert_eq!(ord(f, 0.0), 0);
            assert_eq!(
                from_ord(f, ord(f, 1.0) + 1),
                round_to(
                    f,
                    if f == FpFormat::F32 {
                        1.0 + f64::from(f32::EPSILON)
                    } else {
                        1.0 + f64::EPSILON
                    }
                )
            );
        }
    }
}
