//! The trigamma function `ψ1(x) = d²/dx² ln Γ(x)` at any precision (MPFR has digamma
//! only).
//!
//! For `x > 0` the recurrence `ψ1(x) = 1/x² + ψ1(x + 1)` moves the argument up to
//! `y ≥ work` (in bits), where the asymptotic expansion `1/y + 1/(2y²) + Σ B_2k /
//! y^(2k+1)` (DLMF 5.15.8) has terms that shrink below `2^-work` in a few dozen steps
//! (the smallest is about `e^(-2πy)`). For `x < 0` the reflection `ψ1(x) + ψ1(1 - x) =
//! π² / sin²(πx)` (DLMF 5.15.6) with MPFR's exact `sin_pi`; the non-positive integers
//! are poles (`+inf`). The Bernoulli numbers come from `ζ(2k)`: `B_2k = (-1)^(k+1) 2
//! (2k)! ζ(2k) / (2π)^2k`.

use rug::float::{Constant, Special};
use rug::Float;
use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// `ζ(2k)` at `work` bits, by `(work, k)`: the expansion's costliest factor, the same
    /// at every argument.
    static ZETA_EVEN: RefCell<HashMap<(u32, u32), Float>> = RefCell::new(HashMap::new());
}

/// Bits carried beyond the precision asked for through the sums.
const GUARD_BITS: u32 = 64;

/// `ψ1(x)` at `prec` bits: `+inf` at the poles `0, -1, -2, ...` and at `-inf`'s side
/// nothing (`None`, as for a NaN).
pub fn trigamma(prec: u32, x: &Float) -> Option<Float> {
    if x.is_nan() || (x.is_infinite() && x.is_sign_negative()) {
        return None;
    }
    if x.is_infinite() {
        return Some(Float::new(prec));
    }
    let work = prec + GUARD_BITS;
    if x.is_sign_negative() || x.is_zero() {
        if x.is_integer() {
            return Some(Float::with_val(prec, Special::Infinity));
        }
        let sin = Float::with_val(work, x.sin_pi_ref());
        let pi = Float::with_val(work, Constant::Pi);
        let reflected = Float::with_val(work, pi.square() / sin.square());
        let complement = Float::with_val(work, 1u32 - x);
        return Some(Float::with_val(
            prec,
            reflected - positive(work, &complement),
        ));
    }
    Some(Float::with_val(prec, positive(work, x)))
}

/// `ψ1(x)` for `x > 0` at `work` bits.
fn positive(work: u32, x: &Float) -> Float {
    let threshold = f64::from(work);
    let mut y = Float::with_val(work, x);
    let mut shifted = Float::new(work);
    while y.to_f64() < threshold {
        shifted += Float::with_val(work, y.square_ref()).recip();
        y += 1u32;
    }
    shifted + asymptotic(work, &y)
}

/// DLMF 5.15.8 at `y ≥ work / 9` (the smallest term is then below `2^-work`).
fn asymptotic(work: u32, y: &Float) -> Float {
    let y2 = Float::with_val(work, y.square_ref());
    let two_pi_squared = Float::with_val(work, Float::with_val(work, Constant::Pi) * 2u32).square();
    let mut sum = Float::with_val(work, y.recip_ref()) + Float::with_val(work, &y2 * 2u32).recip();
    // A_k = 2 (2k)! / ((2π)^2k y^(2k+1)); the term is (-1)^(k+1) A_k ζ(2k).
    let mut magnitude =
        Float::with_val(work, 4u32) / (Float::with_val(work, &two_pi_squared * &y2) * y);
    let tiny = Float::with_val(work, Float::i_exp(1, -(work as i32))) / y;
    for k in 1u32.. {
        let term = ZETA_EVEN.with(|cache| {
            let mut cache = cache.borrow_mut();
            let zeta = cache
                .entry((work, k))
                .or_insert_with(|| Float::with_val(work, Float::zeta_u(2 * k)));
            Float::with_val(work, &magnitude * &*zeta)
        });
        if k % 2 == 1 {
            sum += &term;
        } else {
            sum -= &term;
        }
        let growth = Float::with_val(work, u64::from(2 * k + 2) * u64::from(2 * k + 1))
            / Float::with_val(work, &two_pi_squared * &y2);
        if term < tiny || growth >= 1u32 {
            break;
        }
        magnitude *= growth;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relative_difference(a: &Float, b: &Float) -> f64 {
        (Float::with_val(256, a - b) / b).to_f64().abs()
    }

    #[test]
    fn known_values_on_both_sides_and_the_poles() {
        // mpmath's psi(1, x) at 60 digits; the first is FPCC's input, where GSL 2.7.1
        // returns 5.12e23.
        let cases = [
            (
                -6143.999999999999,
                "1208925819614629174706179.28970538652454420991366202066378557",
            ),
            (
                1.0,
                "1.64493406684822643647241516664602518921894990120679843773556",
            ),
            (
                0.5,
                "4.93480220054467930941724549993807556765684970362039531320667",
            ),
            (
                -2.5,
                "9.53924664498912375386168994438252001210129414806483975765112",
            ),
            (
                1e-10,
                "99999999999999992715.2054709670598974142639234861217066824396",
            ),
            (
                123456.789,
                "8.10003287879917094157741311110505942351447882584819635739906e-6",
            ),
            (
                3.0e300,
                "3.33333333333333315831746581598527502681793625128477808875733e-301",
            ),
        ];
        for (x, want) in cases {
            let want = Float::with_val(200, Float::parse(want).expect("a number"));
            let got = trigamma(160, &Float::with_val(53, x)).expect("a value");
            let diff = relative_difference(&got, &want);
            assert!(diff <= 1e-45, "psi1({x}) = {got}, want {want}: {diff:e}");
        }
        for pole in [0.0, -1.0, -6144.0, -1.7e192] {
            let got = trigamma(64, &Float::with_val(53, pole)).expect("a pole");
            assert!(
                got.is_infinite() && got.is_sign_positive(),
                "psi1({pole}) = {got}"
            );
        }
        assert_eq!(trigamma(64, &Float::with_val(53, Special::Nan)), None);
    }
}
