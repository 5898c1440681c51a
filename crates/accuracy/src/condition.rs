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
        (OpKind::Math(call), &[x, y, ..]) if call.func == MathFn::Pow => {
            // d/dx: y; d/dy: y log x.
            y.abs().max((y * x.abs().ln()).abs())
        }
        (OpKind::Math(call), &[x, ..]) => unary_condition(call.func, x)?,
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

/// `|x f'(x) / f(x)|` for the unary functions with a formula here.
fn unary_condition(f: MathFn, x: f64) -> Option<f64> {
    let c = match f {
        MathFn::Sin => x * x.cos() / x.sin(),
        MathFn::Cos => x * x.tan(),
        MathFn::Tan => 2.0 * x / (2.0 * x).sin(),
        MathFn::Exp => x,
        MathFn::Exp2 => x * std::f64::consts::LN_2,
        MathFn::Exp10 => x * std::f64::consts::LN_10,
        MathFn::Expm1 => x * x.exp() / x.exp_m1(),
        MathFn::Log | MathFn::Log2 | MathFn::Log10 => 1.0 / x.ln(),
        MathFn::Log1p => x / ((1.0 + x) * x.ln_1p()),
        MathFn::Asin => x / ((1.0 - x * x).sqrt() * x.asin()),
        MathFn::Acos => -x / ((1.0 - x * x).sqrt() * x.acos()),
        MathFn::Atan => x / ((1.0 + x * x) * x.atan()),
        MathFn::Sinh => x / x.tanh(),
        MathFn::Cosh => x * x.tanh(),
        MathFn::Tanh => 2.0 * x / (2.0 * x).sinh(),
        _ => return None,
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
