//! Math functions in MPFR: the high-precision value of every row of fpir's math table
//! ([`fpir::for_each_math_fn!`]) with a real-valued floating-point result.
//!
//! MPFR's functions are correctly rounded at the working precision, so the reference of
//! `sin(x)` is within half an ulp of 128 bits of the true value. A row's `mpfr` field
//! names the method of rug's `Float` that computes it (`sin`, `atan2`, `mul_add`, ...,
//! and `pow`/`rem` through rug's `Pow` and std's `Rem`), or one of the special handlers
//! below:
//!
//! | function | handler | computed as |
//! |---|---|---|
//! | `rint`, `nearbyint` | `round_even` | round to nearest even, the default C rounding mode |
//! | `logb` | `special(logb)` | the exponent of `x` (exact), `-inf` at 0, `+inf` at infinities |
//! | `lgamma` | `special(lgamma)` | `ln_abs_gamma` |
//! | `fdim` | `positive_diff` | |
//! | `fmin`, `fmax`, `minnum`, `maxnum` | `special(min)`, `special(max)` | MPFR comparisons, NaN operands ignored as C does |
//! | `fmuladd` | `mul_add` | one rounding at the working precision |
//! | `ldexp`, `scalbn` | `special(scale)` | exact scaling by `2^n` |
//! | `nextafter` | `special(host)` | the C library on the operands rounded to the format (no real-valued meaning) |
//! | `ilogb`, `lround`, `llround`, `lrint`, `llrint` | `special(host)` | integer results: the C library on the rounded operand |
//! | `frexp`, `modf` | `special(frexp)`, `special(modf)` | exponent / integer part from MPFR (see the semantics) |

use fpir::MathFn;
use rug::float::Special;
use rug::ops::Pow;
use rug::Float;
use std::ops::Rem;

/// The high-precision counterpart of a math call.
pub(crate) enum Counterpart {
    /// The function's value at the working precision.
    Value(Float),
    /// No real-valued counterpart: the C library's result on the rounded operands stands.
    Host,
    /// `frexp`: the semantics splits the operand itself.
    Frexp,
    /// `modf`: the semantics splits the operand itself.
    Modf,
}

/// Generates [`eval`] from fpir's math table: one match arm per row, from its `mpfr`
/// field and its shape.
macro_rules! mpfr_reference {
    ($($variant:ident { $name:literal, $shape:ident, $origin:ident, $host:tt, $mpfr:tt, $solver:tt, $inline:ident })*) => {
        /// The high-precision counterpart of `func` on `args` at `prec` bits; `int_arg`
        /// is the integer operand of `ldexp`/`scalbn`.
        pub(crate) fn eval(func: MathFn, prec: u32, args: &[Float], int_arg: i32) -> Counterpart {
            let nan = || Float::with_val(prec, Special::Nan);
            let x = args.first().cloned().unwrap_or_else(nan);
            let y = || args.get(1).cloned().unwrap_or_else(nan);
            let z = || args.get(2).cloned().unwrap_or_else(nan);
            let x = Float::with_val(prec, x);
            match func {
                $(MathFn::$variant => mpfr_value!($shape $mpfr, prec, x, y, z, int_arg),)*
            }
        }
    };
}

/// One row's reference from its shape and `mpfr` field, on `x` and the lazily cloned
/// `y()`, `z()`.
macro_rules! mpfr_value {
    ($shape:ident [special(logb)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value(logb($prec, &$x))
    };
    ($shape:ident [special(lgamma)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value($x.ln_abs_gamma().0)
    };
    ($shape:ident [special(min)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value(pick($x, $y(), |a, b| b < a))
    };
    ($shape:ident [special(max)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value(pick($x, $y(), |a, b| b > a))
    };
    ($shape:ident [special(scale)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value($x << $n)
    };
    ($shape:ident [special(host)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Host
    };
    ($shape:ident [special(frexp)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Frexp
    };
    ($shape:ident [special(modf)], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Modf
    };
    (Unary [$method:ident], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value($x.$method())
    };
    (Binary [$method:ident], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value($x.$method(&$y()))
    };
    (Ternary [$method:ident], $prec:ident, $x:ident, $y:ident, $z:ident, $n:ident) => {
        Counterpart::Value($x.$method(&$y(), &$z()))
    };
}

fpir::for_each_math_fn!(mpfr_reference);

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

    fn value(r: Counterpart) -> Float {
        match r {
            Counterpart::Value(v) => v,
            Counterpart::Host | Counterpart::Frexp | Counterpart::Modf => panic!("no value"),
        }
    }

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
            );
            match r {
                Counterpart::Value(_) => assert!(!fallback, "{f:?}"),
                Counterpart::Host => assert!(fallback, "{f:?}"),
                Counterpart::Frexp => assert_eq!(f, MathFn::Frexp),
                Counterpart::Modf => assert_eq!(f, MathFn::Modf),
            }
        }
        let x = [Float::with_val(128, 8.0)];
        assert_eq!(value(eval(MathFn::Logb, 128, &x, 0)), 3);
        assert_eq!(value(eval(MathFn::Ldexp, 128, &x, -2)), 2);
        let y = [Float::with_val(128, 7.5), Float::with_val(128, 2.0)];
        assert_eq!(value(eval(MathFn::Fmod, 128, &y, 0)), 1.5);
        assert_eq!(value(eval(MathFn::Pow, 128, &y, 0)), 56.25);
    }
}
