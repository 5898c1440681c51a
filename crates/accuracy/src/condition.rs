//! Atomic condition numbers: how much one floating-point operation magnifies the
//! relative errors of its operands (after ATOMU, Zou et al., POPL'20).
//!
//! An operation `r = f(x)` with a relative error `e` in `x` gives `r` a relative error
//! of about `cond(x) * e`, `cond(x) = |x f'(x) / f(x)|`; an operation whose condition
//! number is large at the operands it gets turns the rounding errors before it into a
//! large error after it (cancellation in `a - b` is the best known case). The engine
//! records, per op site, the largest condition number one run reaches
//! ([`crate::targets::CheckObserver`]), maximizes it as a search goal beside FPGen's
//! checks, and reports for every finding the op site with the largest one.
//!
//! Multiplication and division have condition number 1 and `sqrt` 1/2: they never
//! magnify an error and are not recorded, nor are operations without a formula here.

use fpir::{FloatBinOp, MathFn, OpKind};

/// The atomic condition number of an operation of `kind` at `args` (as doubles), the
/// largest over its operands; `None` for operations that cannot magnify errors or have
/// no formula here. Infinite where the result vanishes and the operands do not.
pub fn condition(kind: &OpKind, args: &[f64]) -> Option<f64> {
    let c = match (kind, args) {
        (OpKind::Arith(FloatBinOp::Fadd, _), &[a, b, ..]) => sum_condition(a, b, a + b),
        (OpKind::Arith(FloatBinOp::Fsub, _), &[a, b, ..]) => sum_condition(a, b, a - b),
        (OpKind::Math(call), &[x, ref rest @ ..]) => math_condition(call.func, x, rest)?,
        _ => return None,
    };
    (!c.is_nan()).then_some(c)
}

/// `(|a| + |b|) / |a ± b|`: large when the sum cancels.
fn sum_condition(a: f64, b: f64, sum: f64) -> f64 {
    let mass = a.abs() + b.abs();
    if mass == 0.0 {
        0.0
    } else {
        mass / sum.abs()
    }
}

/// `|x f'(x) / f(x)|` for the math function `f` at its first operand `x` (the largest
/// over the operands for a binary one, `rest` the others), when it has a formula here.
///
/// Every row of fpir's math table is decided here, with no catch-all arm: a new row
/// does not compile until someone gives it a formula or says why it has none.
fn math_condition(f: MathFn, x: f64, rest: &[f64]) -> Option<f64> {
    use MathFn as M;
    let c = match f {
        M::Sin => x * x.cos() / x.sin(),
        M::Cos => x * x.tan(),
        M::Tan => 2.0 * x / (2.0 * x).sin(),
        M::Exp => x,
        M::Exp2 => x * std::f64::consts::LN_2,
        M::Exp10 => x * std::f64::consts::LN_10,
        M::Expm1 => x * x.exp() / x.exp_m1(),
        M::Log | M::Log2 | M::Log10 => 1.0 / x.ln(),
        M::Log1p => x / ((1.0 + x) * x.ln_1p()),
        M::Asin => x / ((1.0 - x * x).sqrt() * x.asin()),
        M::Acos => -x / ((1.0 - x * x).sqrt() * x.acos()),
        M::Atan => x / ((1.0 + x * x) * x.atan()),
        M::Sinh => x / x.tanh(),
        M::Cosh => x * x.tanh(),
        M::Tanh => 2.0 * x / (2.0 * x).sinh(),
        M::Pow => {
            let &[y, ..] = rest else { return None };
            // d/dx: y; d/dy: y log x.
            y.abs().max((y * x.abs().ln()).abs())
        }
        // Exact, or at most as sensitive as their operands (`sqrt` 1/2, `cbrt` 1/3,
        // `hypot` at most 1, a choice or a rescaling of an operand 1): they never
        // magnify an error.
        M::Fabs
        | M::Copysign
        | M::Sqrt
        | M::Cbrt
        | M::Hypot
        | M::Fmin
        | M::Fmax
        | M::Minnum
        | M::Maxnum
        | M::Ldexp
        | M::Scalbn
        | M::Frexp
        | M::Nextafter => return None,
        // Integer-valued: their derivative is zero between the steps, and an error
        // that crosses a step changes the result by a jump no condition number measures.
        M::Floor
        | M::Ceil
        | M::Trunc
        | M::Round
        | M::Rint
        | M::Nearbyint
        | M::Logb
        | M::Ilogb
        | M::Lround
        | M::Llround
        | M::Lrint
        | M::Llrint => return None,
        // They can magnify errors (near their zeros and poles, or by cancellation) but
        // have no formula here yet: not recorded until one is written and checked
        // against the definition (the tests' central difference).
        M::Asinh
        | M::Acosh
        | M::Atanh
        | M::Erf
        | M::Erfc
        | M::Tgamma
        | M::Lgamma
        | M::J0
        | M::J1
        | M::Y0
        | M::Y1
        | M::Atan2
        | M::Fmod
        | M::Remainder
        | M::Fdim
        | M::Fma
        | M::Fmuladd
        | M::Modf => return None,
    };
    Some(c.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpir::{FloatTy, MathCall};

    fn math(func: MathFn) -> OpKind {
        OpKind::Math(MathCall {
            func,
            ty: FloatTy::F64,
        })
    }

    /// A function, its Rust counterpart and where to compare them.
    type Case = (MathFn, fn(f64) -> f64, f64);

    /// The condition number by its definition, from a central difference.
    fn numeric(f: fn(f64) -> f64, x: f64) -> f64 {
        let h = x.abs() * 1e-6;
        let derivative = (f(x + h) - f(x - h)) / (2.0 * h);
        (x * derivative / f(x)).abs()
    }

    #[test]
    fn formulas_match_the_definition() {
        let cases: [Case; 8] = [
            (MathFn::Sin, f64::sin, 3.1),
            (MathFn::Cos, f64::cos, 1.5),
            (MathFn::Tan, f64::tan, 1.4),
            (MathFn::Log, f64::ln, 1.01),
            (MathFn::Exp, f64::exp, 7.0),
            (MathFn::Expm1, f64::exp_m1, 0.3),
            (MathFn::Atan, f64::atan, 2.0),
            (MathFn::Acos, f64::acos, 0.9),
        ];
        for (func, f, x) in cases {
            let c = condition(&math(func), &[x]).unwrap();
            let n = numeric(f, x);
            assert!((c - n).abs() <= 1e-4 * n, "{func:?} at {x}: {c} vs {n}");
        }
    }

    #[test]
    fn cancellation_is_ill_conditioned_and_products_are_not_recorded() {
        let sub = OpKind::Arith(FloatBinOp::Fsub, FloatTy::F64);
        assert_eq!(condition(&sub, &[1.0, 0.75]), Some(7.0));
        assert_eq!(condition(&sub, &[2.0, 2.0]), Some(f64::INFINITY));
        let add = OpKind::Arith(FloatBinOp::Fadd, FloatTy::F64);
        assert_eq!(condition(&add, &[1.0, 2.0]), Some(1.0));
        let mul = OpKind::Arith(FloatBinOp::Fmul, FloatTy::F64);
        assert_eq!(condition(&mul, &[1e300, 1e-300]), None);
        assert_eq!(condition(&math(MathFn::Sqrt), &[2.0]), None);
        let pow = condition(&math(MathFn::Pow), &[10.0, 3.0]).unwrap();
        assert!((pow - 3.0 * 10f64.ln()).abs() < 1e-12);
    }
}
