//! Airy's `Ai(x)` at any precision on the whole real line.
//!
//! MPFR's `ai` sums the power series, whose cost grows fast with `|x|` (about 3 ms at
//! ±200, 1 s at -1000, 38 s at -3000, and an assertion of MPFR's fails further out).
//! Far from 0 the asymptotic expansions (DLMF 9.7.5 and 9.7.9) converge fast instead:
//! with `ζ = 2/3 |x|^(3/2)`, their terms `u_k / ζ^k` shrink until `k ≈ 2ζ`, where the
//! smallest is about `e^(-2ζ)`. So the expansion serves every precision it can reach,
//! and MPFR's series the rest of `[-AI_SERIES_LIMIT, AI_SERIES_LIMIT]`.
//!
//! On the negative axis the expansion multiplies by `cos(ζ - π/4)` and `sin(ζ - π/4)`:
//! `ζ` is computed with as many more bits as its integer part has, so that the
//! reduction modulo `2π` keeps the precision asked for (GSL loses it there: at
//! `x = -1e26` it returns `-1e290` for a value of `7e-9`).

use rug::float::Constant;
use rug::ops::Pow;
use rug::Float;

/// Beyond this `|x|`, MPFR's series is not used (it takes milliseconds to minutes).
pub const AI_SERIES_LIMIT: f64 = 200.0;

/// Extra bits carried through the expansion's sums.
const GUARD_BITS: u32 = 64;

/// `Ai(x)` at `prec` bits; `None` where neither the expansion reaches `prec` bits nor
/// MPFR's series is affordable (`|x| > AI_SERIES_LIMIT` at thousands of bits).
pub fn ai(prec: u32, x: &Float) -> Option<Float> {
    if x.is_infinite() {
        // Ai decays to 0 at both ends.
        return Some(Float::new(prec));
    }
    let z = Float::with_val(prec + GUARD_BITS, x.abs_ref());
    let zeta = Float::with_val(prec + GUARD_BITS, (&z).pow(1.5f64)) * 2u32 / 3u32;
    if expansion_reaches(&zeta, prec + GUARD_BITS) {
        return Some(expansion(prec, x, &z));
    }
    (x.to_f64().abs() <= AI_SERIES_LIMIT).then(|| Float::with_val(prec, x.ai_ref()))
}

/// Whether the expansion's smallest term, about `e^(-2ζ)`, is below `2^-bits`.
fn expansion_reaches(zeta: &Float, bits: u32) -> bool {
    2.0 * zeta.to_f64() * std::f64::consts::LOG2_E > f64::from(bits)
}

/// The asymptotic expansion of `Ai(x)`, `z = |x|` (DLMF 9.7.5 for `x > 0`, 9.7.9 for
/// `x < 0`).
fn expansion(prec: u32, x: &Float, z: &Float) -> Float {
    // ζ's integer bits are lost to the reduction of cos(ζ - π/4) modulo 2π.
    let reduction_bits = if x.is_sign_negative() {
        super::integer_bits(z) * 3 / 2 + 2
    } else {
        0
    };
    let work = prec + GUARD_BITS + reduction_bits;
    let z = Float::with_val(work, z);
    let zeta = Float::with_val(work, (&z).pow(1.5f64)) * 2u32 / 3u32;
    let terms = terms(&zeta, work);
    let signed = |sign: fn(usize) -> bool, k: usize| {
        if sign(k) {
            terms[k].clone()
        } else {
            -terms[k].clone()
        }
    };
    let sqrt_pi = Float::with_val(work, Constant::Pi).sqrt();
    let quarter_root = Float::with_val(work, z.root_ref(4));
    let value = if x.is_sign_negative() {
        // Σ (-1)^k u_2k / ζ^2k and Σ (-1)^k u_(2k+1) / ζ^(2k+1).
        let mut even = Float::new(work);
        let mut odd = Float::new(work);
        for k in 0..terms.len() {
            let term = signed(|k| (k / 2) % 2 == 0, k);
            if k % 2 == 0 {
                even += term;
            } else {
                odd += term;
            }
        }
        let phase = zeta - Float::with_val(work, Constant::Pi) / 4u32;
        let (sin, cos) = phase.sin_cos(Float::new(work));
        (cos * even + sin * odd) / (sqrt_pi * quarter_root)
    } else {
        // Σ (-1)^k u_k / ζ^k.
        let mut sum = Float::new(work);
        for k in 0..terms.len() {
            sum += signed(|k| k % 2 == 0, k);
        }
        let decay = Float::with_val(work, -&zeta).exp();
        decay * sum / (sqrt_pi * quarter_root * 2u32)
    };
    Float::with_val(prec, value)
}

/// The terms `u_k / ζ^k` with DLMF 9.7.2's `u_k = u_(k-1) (6k-5)(6k-3)(6k-1) / ((2k-1)
/// 216 k)`, to the first below `2^-work` (or the smallest, where the expansion starts
/// to diverge).
fn terms(zeta: &Float, work: u32) -> Vec<Float> {
    let mut terms = vec![Float::with_val(work, 1u32)];
    let tiny = Float::with_val(work, Float::i_exp(1, -(work as i32)));
    for k in 1u64.. {
        let ratio = Float::with_val(work, (6 * k - 5) * (6 * k - 3) * (6 * k - 1))
            / (Float::with_val(work, (2 * k - 1) * 216 * k) * zeta);
        if ratio >= 1u32 {
            break;
        }
        let term = Float::with_val(work, &terms[terms.len() - 1] * ratio);
        let done = term < tiny;
        terms.push(term);
        if done {
            break;
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `|a - b| / |b|` as an f64.
    fn relative_difference(a: &Float, b: &Float) -> f64 {
        let diff = Float::with_val(b.prec() + 64, a - b);
        (diff / b).to_f64().abs()
    }

    #[test]
    fn the_expansion_agrees_with_mpfrs_series_where_both_reach() {
        for x in [-199.7, -150.3, -60.1, -31.25, 31.25, 60.5, 150.0, 199.9] {
            for prec in [64u32, 128, 256] {
                let x = Float::with_val(prec, x);
                let z = Float::with_val(prec, x.abs_ref());
                let zeta = Float::with_val(prec, (&z).pow(1.5f64)) * 2u32 / 3u32;
                assert!(expansion_reaches(&zeta, prec + GUARD_BITS), "x = {x}");
                let series = Float::with_val(prec, x.ai_ref());
                let asymptotic = expansion(prec, &x, &z);
                let bound = 4.0 * 2f64.powi(-(prec as i32));
                let diff = relative_difference(&asymptotic, &series);
                assert!(diff <= bound, "x = {x}, {prec} bits: {diff:e} > {bound:e}");
            }
        }
    }

    #[test]
    fn far_out_the_value_is_stable_across_precisions() {
        // GSL 2.7.1 is wrong by 1e298 at the first (FPCC's input).
        for x in [-1.1319127674021417e26f64, -3.0e8, -1.0e300, 1.0e5] {
            let low = ai(128, &Float::with_val(53, x)).expect("the expansion reaches 128 bits");
            let high = ai(1024, &Float::with_val(53, x)).expect("and 1024");
            let diff = relative_difference(&low, &high);
            assert!(diff <= 2f64.powi(-120), "x = {x}: {diff:e}");
            let amplitude = (x.abs().powf(-0.25) / std::f64::consts::PI.sqrt()).max(0.0);
            if x < 0.0 {
                assert!(low.to_f64().abs() <= amplitude * 1.001, "x = {x}: {low}");
            } else {
                assert!(
                    low.is_sign_positive() && low.to_f64() == 0.0,
                    "x = {x}: {low}"
                );
            }
        }
    }

    #[test]
    fn far_out_the_value_is_mpmaths() {
        // mpmath's airyai at 80 digits.
        for (x, value) in [
            (
                -1.1319127674021417e26,
                "7.4211941813054193912302719891866e-9",
            ),
            (-3.0e8, "-0.0021345201599362773500066216705312"),
        ] {
            let expected = Float::with_val(128, Float::parse(value).expect("a number"));
            let got = ai(128, &Float::with_val(53, x)).expect("the expansion reaches 128 bits");
            let diff = relative_difference(&got, &expected);
            assert!(diff <= 1e-30, "x = {x}: {got} against {expected}");
        }
    }

    #[test]
    fn near_zero_mpfrs_series_serves_and_far_out_at_huge_precision_nothing_does() {
        let x = Float::with_val(53, -2.338_107_410_459_767);
        let near_zero = ai(128, &x).expect("MPFR's series");
        assert_eq!(near_zero, Float::with_val(128, x.ai_ref()));
        // ζ = 1886 at -200: the smallest term is about 2^-5442.
        assert!(ai(8192, &Float::with_val(53, -250.0)).is_none());
        assert!(ai(4096, &Float::with_val(53, -250.0)).is_some());
        let infinity = Float::with_val(53, rug::float::Special::NegInfinity);
        assert_eq!(ai(128, &infinity), Some(Float::new(128)));
        assert_eq!(
            ai(128, &Float::with_val(53, rug::float::Special::Nan)),
            None
        );
    }
}
