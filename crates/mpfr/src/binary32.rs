//! The true value of a one-argument function at a `float` input, as exhaustive binary32
//! checking needs it: whether a computed `float` is the correctly rounded result, its
//! error in ulps, and whether it is a wrong special value, for each of the 2^32 inputs.
//!
//! - **The fast path** ([`FastPath`]): the host C library's `double` function (glibc's)
//!   at the input, with a bound `B` on its error in `double` ulps. The true value lies in
//!   `r ± B·ulp(r)`; when both ends of that interval round to the same `float`, the
//!   correctly rounded result is decided, and the ulp error of the computed result is
//!   known within `±B·2^-28` ulps (`2^-52` relative to a `float` ulp of `2^-23`), bounds
//!   the caller gets both of ([`Verdict::ulps`]). An input whose interval straddles a
//!   rounding boundary (or whose `double` value is infinite while the computed result
//!   differs) is left to MPFR. A `double` zero or subnormal is trusted for its sign (glibc
//!   underflows to a zero of the true value's sign), and a `double` NaN for a domain error.
//! - **MPFR** ([`exact`]): the function at 128 bits, then at twice that until the value
//!   rounds to one `float` from both ends of its error interval (Ziv's strategy), with
//!   the ulp error computed by [`crate::metrics`] from it.
//!
//! Which functions have a fast path, and the bound each is given ([`FastPath::new`]), is
//! the table in [`host_bound`]: glibc's `double` functions whose published largest known
//! errors (its `libm-test-ulps` file for x86-64) are at most 5 ulps everywhere, given
//! 16. The bound is those figures with a margin, not a proof. Functions whose `double`
//! results lose relative accuracy somewhere (near the zeros of `lgamma`, `j0`, `j1`,
//! `y0`, `y1`; `tgamma`, 9 ulps known) have no fast path: every input goes to MPFR.

use crate::metrics::{measure, HighValue};
use crate::oracle::{Operand, TrueFunction};
use fpir::{FloatTy, MathCall, MathFn, Type};
use rug::Float;

/// What an input's computed result is, against the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Both finite (the true value may lie beyond the largest `float`): the error counts.
    Finite,
    /// A non-finite result that is the correct one: NaN where the true value is
    /// undefined, the true infinity at a pole, the infinity an overflow rounds to.
    CorrectSpecial,
    /// NaN or an infinity where the true value is finite and does not round to it.
    WrongSpecialValue,
    /// The true value is infinite or undefined and the result is not it.
    Pole,
}

/// What was decided about one input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// How the result stands against the true value.
    pub class: Class,
    /// Whether the result is the true value rounded to nearest (bits equal; NaN for
    /// NaN).
    pub correctly_rounded: bool,
    /// Bounds on the ulp error (`lo <= true error <= hi`; equal when exact, both 0 for
    /// another class than [`Class::Finite`]).
    pub ulps: (f64, f64),
}

impl Verdict {
    fn special(class: Class) -> Verdict {
        Verdict {
            class,
            correctly_rounded: class == Class::CorrectSpecial,
            ulps: (0.0, 0.0),
        }
    }
}

/// The bound, in `double` ulps, on the error of the host's `double` function computing
/// `f`, when it is trusted (see the module docs); `None` sends every input to MPFR.
pub fn host_bound(f: MathFn) -> Option<f64> {
    use MathFn as M;
    // glibc's sysdeps/x86_64/fpu/libm-test-ulps (its current text), "double" rows: 1 or
    // 2 ulps for these (tan none), erfc 5, cbrt 4; exact for sqrt, fabs and the
    // rounding functions; 16 for all. (tgamma 9, y1 6, lgamma 4 and the Bessel
    // functions are listed low too, but their relative error near zeros is unbounded.)
    const BOUND: f64 = 16.0;
    match f {
        M::Exp | M::Exp2 | M::Exp10 | M::Expm1 | M::Log | M::Log2 | M::Log10 | M::Log1p => {
            Some(BOUND)
        }
        M::Sin | M::Cos | M::Tan | M::Asin | M::Acos | M::Atan => Some(BOUND),
        M::Sinh | M::Cosh | M::Tanh | M::Asinh | M::Acosh | M::Atanh => Some(BOUND),
        M::Cbrt | M::Erf | M::Erfc | M::Sqrt | M::Fabs => Some(BOUND),
        M::Floor | M::Ceil | M::Trunc | M::Round | M::Rint | M::Nearbyint => Some(BOUND),
        _ => None,
    }
}

/// The fast path of one function (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct FastPath {
    call: MathCall,
    /// `B·2^-52`: the relative half-width of the interval around a `double` result.
    rel: f64,
    /// `B·2^-1074`: its absolute half-width for `double` subnormals.
    abs: f64,
}

impl FastPath {
    /// The fast path of `f`, when it is a unary function of fpir's math table with a
    /// trusted host bound ([`host_bound`]).
    pub fn new(f: TrueFunction) -> Option<FastPath> {
        let TrueFunction::Math(func) = f else {
            return None;
        };
        let bound = host_bound(func)?;
        Some(FastPath {
            call: MathCall {
                func,
                ty: FloatTy::F64,
            },
            rel: bound * f64::EPSILON,
            abs: bound * f64::from_bits(1),
        })
    }

    /// The host's `double` value at `x`.
    pub fn host(&self, x: f32) -> f64 {
        let (bits, _) = fpforge_exec::libm::eval(self.call, &[f64::from(x).to_bits()], Type::F64);
        f64::from_bits(bits)
    }

    /// What the fast path decides for the `float` input `x` whose computed result is
    /// `c` (raw bits of both), or `None` when only MPFR can tell.
    pub fn decide(&self, x: u32, c: u32) -> Option<Verdict> {
        let xf = f32::from_bits(x);
        let cf = f32::from_bits(c);
        if xf.is_nan() {
            return Some(nan_truth(cf));
        }
        let r = self.host(xf);
        if r.is_nan() {
            return Some(nan_truth(cf));
        }
        if r.is_infinite() {
            // A pole or an overflow: the right infinity is correct either way; anything
            // else needs to know which.
            return (f64::from(cf) == r).then(|| Verdict::special(Class::CorrectSpecial));
        }
        let slack = self.rel * r.abs() + self.abs;
        let (lo, hi) = if r.abs() < f64::MIN_POSITIVE {
            // Far below the float subnormals: trust the sign, as for a zero.
            (0.0f64.copysign(r), (r.abs() + slack).copysign(r))
        } else {
            ((r - slack).next_down(), (r + slack).next_up())
        };
        let rounded = lo as f32;
        if rounded.to_bits() != (hi as f32).to_bits() {
            return None;
        }
        let correctly_rounded = rounded.to_bits() == c;
        if !cf.is_finite() {
            let class = if correctly_rounded {
                Class::CorrectSpecial
            } else {
                Class::WrongSpecialValue
            };
            return Some(Verdict::special(class));
        }
        let d = (f64::from(cf) - r).abs();
        let d_hi = (d + slack) * (1.0 + 4.0 * f64::EPSILON);
        let d_lo = ((d - slack) * (1.0 - 4.0 * f64::EPSILON)).max(0.0);
        let (small, big) = if lo.abs() <= hi.abs() {
            (lo, hi)
        } else {
            (hi, lo)
        };
        Some(Verdict {
            class: Class::Finite,
            correctly_rounded,
            ulps: (d_lo / ulp32(big), d_hi / ulp32(small)),
        })
    }
}

/// The verdict on result `c` where the true value is NaN.
fn nan_truth(c: f32) -> Verdict {
    Verdict::special(if c.is_nan() {
        Class::CorrectSpecial
    } else {
        Class::Pole
    })
}

/// The spacing of `float`s in the binade of `y` (a finite `double`), the binades
/// continuing beyond the largest `float`, the smallest subnormal below the normals: the
/// ulp of [`crate::metrics`].
pub fn ulp32(y: f64) -> f64 {
    let biased = ((y.to_bits() >> 52) & 0x7ff) as i64;
    let k = (biased - 1023).max(-126);
    f64::from_bits(((k - 23 + 1023) as u64) << 52)
}

/// The first precision [`exact`] tries.
pub const START_PRECISION: u32 = 128;

/// The precision [`exact`] stops doubling at.
pub const MAX_PRECISION: u32 = 8192;

/// What MPFR says about the input `x` whose computed result is `c` (raw bits), for the
/// true function `f` of one float, and the precision that decided it; `None` when `f`
/// takes other operands. The value is computed at [`START_PRECISION`] bits, then at
/// twice that while it is within `2^-(p-8)` of a rounding boundary of `float`, up to
/// `max_precision`.
pub fn exact(f: TrueFunction, x: u32, c: u32, max_precision: u32) -> Option<(Verdict, u32)> {
    let op = [Operand::Float(FloatTy::F32, u64::from(x))];
    let mut prec = START_PRECISION.min(max_precision);
    loop {
        let t = f.eval(prec, &op)?;
        if prec >= max_precision || rounding_decided(&t, prec) {
            return Some((judge(&t, c), prec));
        }
        prec *= 2;
    }
}

/// What MPFR says about the input `x` whose computed result is `c`, with the true value
/// computed at `prec` bits once (a re-check at a chosen precision); `None` when `f`
/// takes other operands.
pub fn verdict_at(f: TrueFunction, x: u32, c: u32, prec: u32) -> Option<Verdict> {
    let t = f.eval(prec, &[Operand::Float(FloatTy::F32, u64::from(x))])?;
    Some(judge(&t, c))
}

/// Whether the true value `t`, known to `prec` bits, rounds to one `float` from both
/// ends of `t·(1 ± 2^-(prec-8))`.
fn rounding_decided(t: &HighValue, prec: u32) -> bool {
    let v = t.as_float();
    if !v.is_finite() || v.is_zero() {
        return true;
    }
    let wide = prec + 16;
    let eps = Float::with_val(wide, v.abs_ref()) >> (prec - 8);
    let lo = Float::with_val(wide, v - &eps).to_f32();
    let hi = Float::with_val(wide, v + &eps).to_f32();
    lo.to_bits() == hi.to_bits()
}

/// The verdict on result `c` against the true value `t`.
fn judge(t: &HighValue, c: u32) -> Verdict {
    let cf = f32::from_bits(c);
    let v = t.as_float();
    if v.is_nan() {
        return nan_truth(cf);
    }
    if v.is_infinite() {
        let same = f64::from(cf) == v.to_f64();
        return Verdict::special(if same {
            Class::CorrectSpecial
        } else {
            Class::Pole
        });
    }
    let correctly_rounded = t.round_bits(FloatTy::F32) == u64::from(c);
    if !cf.is_finite() {
        return Verdict::special(if correctly_rounded {
            Class::CorrectSpecial
        } else {
            Class::WrongSpecialValue
        });
    }
    let ulps = measure(FloatTy::F32, u64::from(c), t).ulps;
    Verdict {
        class: Class::Finite,
        correctly_rounded,
        ulps: (ulps, ulps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_of_floats_are_the_metrics_ulps() {
        assert_eq!(ulp32(1.0), 2f64.powi(-23));
        assert_eq!(ulp32(1.5), 2f64.powi(-23));
        assert_eq!(ulp32(0.99), 2f64.powi(-24));
        assert_eq!(ulp32(1e-45), 2f64.powi(-149));
        assert_eq!(ulp32(0.0), 2f64.powi(-149));
        assert_eq!(ulp32(1e39), 2f64.powi(130 - 24));
        assert_eq!(ulp32(-3.0), 2f64.powi(-22));
    }

    #[test]
    fn exp_is_decided_fast_and_agrees_with_mpfr() {
        let f = TrueFunction::for_entry("expf").unwrap();
        let fast = FastPath::new(f).unwrap();
        let x = 0.3f32.to_bits();
        let cr = f64::from(0.3f32).exp() as f32;
        let v = fast.decide(x, cr.to_bits()).unwrap();
        assert!(v.correctly_rounded && v.class == Class::Finite);
        let (m, _) = exact(f, x, cr.next_up().to_bits(), MAX_PRECISION).unwrap();
        let w = fast.decide(x, cr.next_up().to_bits()).unwrap();
        assert!(!w.correctly_rounded && w.ulps.0 <= m.ulps.0 && m.ulps.0 <= w.ulps.1);
        assert!(w.ulps.1 - w.ulps.0 < 1e-6);
        // Overflow: +inf is the correctly rounded result; NaN is a wrong special value.
        let big = 100f32.to_bits();
        let inf = f32::INFINITY.to_bits();
        assert_eq!(fast.decide(big, inf).unwrap().class, Class::CorrectSpecial);
        let nan = fast.decide(0.5f32.to_bits(), f32::NAN.to_bits()).unwrap();
        assert_eq!(nan.class, Class::WrongSpecialValue);
        assert!(FastPath::new(TrueFunction::for_entry("j0f").unwrap()).is_none());
    }
}
