//! Math functions in MPFR: the high-precision value of every [`MathFn`] with a
//! floating-point result.
//!
//! MPFR's functions are correctly rounded at the working precision, so the reference of
//! `sin(x)` is within half an ulp of 128 bits of the true value. Functions MPFR lacks are
//! computed from MPFR's exact pieces or fall back to the C library, as listed here:
//!
//! | function | computed as |
//! |---|---|
//! | `rint`, `nearbyint` | `round_even` (round to nearest even, the default C rounding mode) |
//! | `logb` | the exponent of `x` (exact), `-inf` at 0, `+inf` at infinities |
//! | `lgamma` | `ln_abs_gamma` |
//! | `fdim` | `positive_diff` |
//! | `fmin`, `fmax`, `minnum`, `maxnum` | MPFR comparisons, NaN operands ignored as C does |
//! | `fmuladd` | `mul_add` (one rounding at the working precision) |
//! | `ldexp`, `scalbn` | exact scaling by `2^n` |
//! | `nextafter` | the C library on the operands rounded to the format (no real-valued meaning) |
//! | `ilogb`, `lround`, `llround`, `lrint`, `llrint` | integer results: the C library on the rounded operand |
//! | `frexp`, `modf` | exponent / integer part from MPFR (see the semantics) |
//!
//! The functions of the last two rows have no MPFR value here; the semantics handles them.

use fpir::MathFn;
use rug::float::Special;
use rug::Float;

/// The high-precision value of `func` on `args` at `prec` bits; `int_arg` is the integer
/// operand of `ldexp`/`scalbn`. `None` for functions without a real-valued MPFR
/// counterpart (see the module docs).
pub(crate) fn eval(func: MathFn, prec: u32, args: &[Float], int_arg: i32) -> Option<Float> {
    use MathFn::*;
    let nan = || Float::with_val(prec, Special::Nan);
    let x = args.first().cloned().unwrap_or_else(nan);
    let y = || args.get(1).cloned().unwrap_or_else(nan);
    let z = || args.get(2).cloned().unwrap_or_else(nan);
    let mut x = Float::with_val(prec, x);
    let r = match func {
        Fabs => x.abs(),
        Sqrt => x.sqrt(),
        Cbrt => x.cbrt(),
        Floor => x.floor(),
        Ceil => x.ceil(),
        Trunc => x.trunc(),
        Round => x.round(),
        Rint | Nearbyint => x.round_even(),
        Exp => x.exp(),
        Exp2 => x.exp2(),
        Expm1 => x.exp_m1(),
        Log => x.ln(),
        Log2 => x.log2(),
        Log10 => x.log10(),
        Log1p => x.ln_1p(),
        Logb => logb(prec, &x),
        Sin => x.sin(),
        Cos => x.cos(),
        Tan => x.tan(),
        Asin => x.asin(),
        Acos => x.acos(),
        Atan => x.atan(),
        Sinh => x.sinh(),
        Cosh => x.cosh(),
        Tanh => x.tanh(),
        Asinh => x.asinh(),
        Acosh => x.acosh(),
        Atanh => x.atanh(),
        Erf => x.erf(),
        Erfc => x.erfc(),
        Tgamma => x.gamma(),
        Lgamma => x.ln_abs_gamma().0,
        J0 => x.j0(),
        J1 => x.j1(),
        Y0 => x.y0(),
        Y1 => x.y1(),
        Pow => rug::ops::Pow::pow(x, &y()),
        Atan2 => x.atan2(&y()),
        Fmod => x % &y(),
        Remainder => x.remainder(&y()),
        Hypot => x.hypot(&y()),
        Copysign => x.copysign(&y()),
        Fmin | Minnum => pick(x, y(), |a, b| b < a),
        Fmax | Maxnum => pick(x, y(), |a, b| b > a),
        Fdim => x.positive_diff(&y()),
        Fma | Fmuladd => x.mul_add(&y(), &z()),
        Ldexp | Scalbn => {
            x <<= int_arg;
            x
        }
        Nextafter | Ilogb | Lround | Llround | Lrint | Llrint | Frexp | Modf => return None,
    };
    Some(r)
}

/// `fmin`-like choice: a NaN operand is ignored; otherwise `y` when `better(x, y)`.
fn pick(x: Float, y: Float, better: impl Fn(&Float, &Float) -> bool) -> Float {
    if x.is_nan() || (!y.is_nan() && better(&x, &y)) {
        y
    } else {
        x
    }
}

/// C's `logb`: the unbiased exponent of `x` as a float.
fn logb(prec: u32, x: &Float) -> Float {
    if x.is_nan() {
        return x.clone();
    }
    if x.is_infinite() {
        return Float::with_val(prec, Special::Infinity);
    }
    match x.get_exp() {
        Some(e) => Float::with_val(prec, e - 1),
        None => Float::with_val(prec, Special::NegInfinity),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_float_function_has_a_value_or_a_documented_fallback() {
        for f in MathFn::ALL {
            let args = [
                Float::with_val(128, 0.75),
                Float::with_val(128, 1.5),
                Float::with_val(128, 2.0),
            ];
            let r = eval(f, 128, &args, 3);
            let fallback = matches!(
                f,
                MathFn::Nextafter
                    | MathFn::Ilogb
                    | MathFn::Lround
                    | MathFn::Llround
                    | MathFn::Lrint
                    | MathFn::Llrint
                    | MathFn::Frexp
                    | MathFn::Modf
            );
            assert_eq!(r.is_none(), fallback, "{f:?}");
        }
        let x = [Float::with_val(128, 8.0)];
        assert_eq!(eval(MathFn::Logb, 128, &x, 0).unwrap(), 3);
        assert_eq!(eval(MathFn::Ldexp, 128, &x, -2).unwrap(), 2);
    }
}
