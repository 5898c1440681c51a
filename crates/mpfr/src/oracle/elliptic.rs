//! The complete elliptic integrals `K(k)` and `E(k)` (modulus `k`, GSL's convention) by
//! the arithmetic-geometric mean, at any precision.
//!
//! With `a_0 = 1`, `b_0 = sqrt(1 - k^2)`, `c_0 = k` and `a_(n+1) = (a_n + b_n) / 2`,
//! `b_(n+1) = sqrt(a_n b_n)`, `c_(n+1) = (a_n - b_n) / 2`: `K = π / (2 M)` where `M` is
//! the common limit, and `E = K (1 - Σ 2^(n-1) c_n^2)` (DLMF 19.8.1, 19.8.6). The mean
//! converges quadratically, so a few dozen steps reach thousands of bits.

use rug::float::Constant;
use rug::Float;

/// Bits carried beyond the precision asked for: `1 - k^2` cancels next to `|k| = 1`
/// (`k^2` of a double is exact in 106 bits, so 128 guard bits keep it exact).
const GUARD_BITS: u32 = 128;

/// Which complete integral.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EllipticKind {
    /// `K(k)`, of the first kind.
    First,
    /// `E(k)`, of the second kind.
    Second,
}

/// Steps of the mean: it doubles the bits that agree at each, so 64 reach any precision.
const MAX_STEPS: u32 = 64;

/// The integral at `prec` bits: `+inf` for `K` at `|k| = 1`, `None` for `|k| > 1`, where
/// the value is complex, and for a NaN.
pub fn complete(kind: EllipticKind, prec: u32, k: &Float) -> Option<Float> {
    if k.is_nan() {
        return None;
    }
    let work = prec + GUARD_BITS;
    let k = Float::with_val(work, k);
    let k2 = Float::with_val(work, k.square_ref());
    let complement = Float::with_val(work, 1u32 - &k2);
    if complement.is_sign_negative() && !complement.is_zero() {
        return None;
    }
    if complement.is_zero() {
        return Some(match kind {
            EllipticKind::First => Float::with_val(prec, rug::float::Special::Infinity),
            EllipticKind::Second => Float::with_val(prec, 1u32),
        });
    }
    let mut a = Float::with_val(work, 1u32);
    let mut b = complement.sqrt();
    // Σ 2^(n-1) c_n^2, from n = 0 (c_0 = k).
    let mut sum = Float::with_val(work, &k2 / 2u32);
    let mut weight = Float::with_val(work, 1u32);
    let tiny = Float::with_val(work, Float::i_exp(1, -(work as i32)));
    for _ in 0..MAX_STEPS {
        let c = Float::with_val(work, &a - &b) / 2u32;
        let next_a = Float::with_val(work, &a + &b) / 2u32;
        b = Float::with_val(work, &a * &b).sqrt();
        a = next_a;
        sum += Float::with_val(work, c.square_ref()) * &weight;
        weight *= 2u32;
        if c.abs() <= Float::with_val(work, &a * &tiny) {
            break;
        }
    }
    let first = Float::with_val(work, Constant::Pi) / (a * 2u32);
    Some(Float::with_val(
        prec,
        match kind {
            EllipticKind::First => first,
            EllipticKind::Second => Float::with_val(work, 1u32 - sum) * first,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal(text: &str) -> Float {
        Float::with_val(200, Float::parse(text).expect("a number"))
    }

    fn relative_difference(a: &Float, b: &Float) -> f64 {
        (Float::with_val(256, a - b) / b).to_f64().abs()
    }

    #[test]
    fn known_values_next_to_one_and_at_the_ends() {
        // mpmath's ellipk(k^2) and ellipe(k^2) at 60 digits.
        let cases = [
            (
                0.5,
                "1.68575035481259604287120365779907698950080089414108904411995",
                "1.46746220933942715545979526699091613602536175232723196050079",
            ),
            (
                0.9999999999999999,
                "19.4081210556784697132940668215268857952751497787564780874326",
                "1.00000000000000209922313484139579561023063452654249589044565",
            ),
            (
                -0.3,
                "1.60804861993051279835910526655529538436507525796952184456337",
                "1.53483346492324904435480856549406860285190951151380949689604",
            ),
        ];
        for (k, first, second) in cases {
            let k = Float::with_val(53, k);
            for (kind, want) in [(EllipticKind::First, first), (EllipticKind::Second, second)] {
                let got = complete(kind, 160, &k).expect("|k| < 1");
                let diff = relative_difference(&got, &decimal(want));
                assert!(diff <= 1e-45, "{kind:?}({k}) = {got}, want {want}");
            }
        }
        let one = Float::with_val(53, 1.0);
        assert!(complete(EllipticKind::First, 64, &one)
            .expect("a pole")
            .is_infinite());
        assert_eq!(
            complete(EllipticKind::Second, 64, &one),
            Some(Float::with_val(64, 1))
        );
        assert_eq!(
            complete(EllipticKind::First, 64, &Float::with_val(53, 1.5)),
            None
        );
        let nan = Float::with_val(53, rug::float::Special::Nan);
        assert_eq!(complete(EllipticKind::Second, 64, &nan), None);
    }
}
