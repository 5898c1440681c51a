//! The math functions: one table, [`for_each_math_fn!`](crate::for_each_math_fn), that
//! lists every function a math call can name, once, with everything each crate needs to
//! know about it.
//!
//! A row says:
//!
//! | field | meaning | read by |
//! |---|---|---|
//! | variant | the [`MathFn`] variant | everyone |
//! | `name` | the IR text name: the C `double` name, or the LLVM intrinsic's stem | fpir (text form), lower |
//! | `shape` | the [`MathShape`]: operand and result types | fpir (verifier), lower, exec, mpfr |
//! | `origin` | a C function, an LLVM intrinsic or both ([`MathOrigin`]) | lower |
//! | `host` | how the interpreter evaluates it (below) | exec (`libm`) |
//! | `mpfr` | its high-precision counterpart (below) | mpfr (`math`) |
//! | `solver` | the solver term it becomes (below) | explore (`concolic`) |
//! | `inline` | computed on the sign bit without a call ([`SignBitOp`]), or `none` | exec (`Concrete`, `jit`) |
//!
//! `host` is `libm(f64_symbol, f32_symbol)` for a function whose result the host C
//! library computes with the C signature its shape implies (a pointer operand as the
//! second result's `&mut`). The other handlers are `c_int`, `c_long`, `c_longlong`
//! (`f -> int` functions returning that C type), `lgamma_r` (the reentrant form, leaving
//! `signgam` alone), and `computed(min_num | max_num | mul_add)`: the LLVM intrinsics
//! computed in Rust as clang-14 -O0 emits them on x86-64.
//!
//! `mpfr` names the method of rug's `Float` that computes the function in MPFR (called
//! with the float operands its shape gives: `x.sin()`, `x.atan2(&y)`, `x.mul_add(&y, &z)`),
//! or a `special(...)` handler: `logb`, `lgamma`, `min`, `max` (C's NaN-ignoring choice),
//! `scale` (exact `x * 2^n`), `frexp`, `modf`, or `host` (no real-valued counterpart: the
//! C library's value stands).
//!
//! `solver` is `none` (the call is concretized), `abs`, `sqrt`, `round(MODE)`
//! (`fp.roundToIntegral` with an SMT-LIB rounding mode), `ext(F)` (the solver's extension
//! operator `fpext.f`), `fma`, `mul_add` (`fp.mul` then `fp.add`, two roundings) or
//! `modf` (the fraction and the integral part as two terms).
//!
//! Adding an ordinary function (unary, binary or ternary, with a host C function at both
//! formats and a rug method) is one row: every consumer generates its part from the
//! table, and a row whose handler a consumer does not know fails to compile there.

use crate::types::{FloatTy, Type};

/// Calls `$callback! { ... }` with every row of the math table, in order.
///
/// Each row reaches the callback as `Variant { "name", Shape, Origin, [host], [mpfr],
/// [solver], inline }`, the handler fields wrapped in brackets so that a callback can
/// match each as one token tree and hand it to a macro of its own whose rules are the
/// handlers it knows. Every callback starts with the same rule pattern:
///
/// ```text
/// ($($variant:ident { $name:literal, $shape:ident, $origin:ident, $host:tt, $mpfr:tt, $solver:tt, $inline:ident })*) => { ... }
/// ```
///
/// See the module docs for the fields.
#[macro_export]
macro_rules! for_each_math_fn {
    ($callback:ident) => {
        $crate::for_each_math_fn! { @rows $callback
//          name          shape           origin host                            MPFR              solver       inline
Fabs      { "fabs",       Unary,          Both,  libm(fabs, fabsf),              abs,              abs,         abs }
Sqrt      { "sqrt",       Unary,          Both,  libm(sqrt, sqrtf),              sqrt,             sqrt,        none }
Cbrt      { "cbrt",       Unary,          C,     libm(cbrt, cbrtf),              cbrt,             none,        none }
Floor     { "floor",      Unary,          Both,  libm(floor, floorf),            floor,            round(Rtn),  none }
Ceil      { "ceil",       Unary,          Both,  libm(ceil, ceilf),              ceil,             round(Rtp),  none }
Trunc     { "trunc",      Unary,          Both,  libm(trunc, truncf),            trunc,            round(Rtz),  none }
Round     { "round",      Unary,          Both,  libm(round, roundf),            round,            round(Rna),  none }
Rint      { "rint",       Unary,          Both,  libm(rint, rintf),              round_even,       round(Rne),  none }
Nearbyint { "nearbyint",  Unary,          Both,  libm(nearbyint, nearbyintf),    round_even,       round(Rne),  none }
Exp       { "exp",        Unary,          Both,  libm(exp, expf),                exp,              ext(Exp),    none }
Exp2      { "exp2",       Unary,          Both,  libm(exp2, exp2f),              exp2,             none,        none }
Exp10     { "exp10",      Unary,          C,     libm(exp10, exp10f),            exp10,            none,        none }
Expm1     { "expm1",      Unary,          C,     libm(expm1, expm1f),            exp_m1,           none,        none }
Log       { "log",        Unary,          Both,  libm(log, logf),                ln,               ext(Log),    none }
Log2      { "log2",       Unary,          Both,  libm(log2, log2f),              log2,             none,        none }
Log10     { "log10",      Unary,          Both,  libm(log10, log10f),            log10,            none,        none }
Log1p     { "log1p",      Unary,          C,     libm(log1p, log1pf),            ln_1p,            none,        none }
Logb      { "logb",       Unary,          C,     libm(logb, logbf),              special(logb),    none,        none }
Sin       { "sin",        Unary,          Both,  libm(sin, sinf),                sin,              ext(Sin),    none }
Cos       { "cos",        Unary,          Both,  libm(cos, cosf),                cos,              ext(Cos),    none }
Tan       { "tan",        Unary,          C,     libm(tan, tanf),                tan,              ext(Tan),    none }
Asin      { "asin",       Unary,          C,     libm(asin, asinf),              asin,             none,        none }
Acos      { "acos",       Unary,          C,     libm(acos, acosf),              acos,             none,        none }
Atan      { "atan",       Unary,          C,     libm(atan, atanf),              atan,             ext(Atan),   none }
Sinh      { "sinh",       Unary,          C,     libm(sinh, sinhf),              sinh,             none,        none }
Cosh      { "cosh",       Unary,          C,     libm(cosh, coshf),              cosh,             none,        none }
Tanh      { "tanh",       Unary,          C,     libm(tanh, tanhf),              tanh,             none,        none }
Asinh     { "asinh",      Unary,          C,     libm(asinh, asinhf),            asinh,            none,        none }
Acosh     { "acosh",      Unary,          C,     libm(acosh, acoshf),            acosh,            none,        none }
Atanh     { "atanh",      Unary,          C,     libm(atanh, atanhf),            atanh,            none,        none }
Erf       { "erf",        Unary,          C,     libm(erf, erff),                erf,              none,        none }
Erfc      { "erfc",       Unary,          C,     libm(erfc, erfcf),              erfc,             none,        none }
Tgamma    { "tgamma",     Unary,          C,     libm(tgamma, tgammaf),          gamma,            none,        none }
Lgamma    { "lgamma",     Unary,          C,     lgamma_r(lgamma_r, lgammaf_r),  special(lgamma),  none,        none }
J0        { "j0",         Unary,          C,     libm(j0, j0f),                  j0,               none,        none }
J1        { "j1",         Unary,          C,     libm(j1, j1f),                  j1,               none,        none }
Y0        { "y0",         Unary,          C,     libm(y0, y0f),                  y0,               none,        none }
Y1        { "y1",         Unary,          C,     libm(y1, y1f),                  y1,               none,        none }
Pow       { "pow",        Binary,         Both,  libm(pow, powf),                pow,              none,        none }
Atan2     { "atan2",      Binary,         C,     libm(atan2, atan2f),            atan2,            none,        none }
Fmod      { "fmod",       Binary,         C,     libm(fmod, fmodf),              rem,              none,        none }
Remainder { "remainder",  Binary,         C,     libm(remainder, remainderf),    remainder,        none,        none }
Hypot     { "hypot",      Binary,         C,     libm(hypot, hypotf),            hypot,            none,        none }
Copysign  { "copysign",   Binary,         Both,  libm(copysign, copysignf),      copysign,         none,        copysign }
Fmin      { "fmin",       Binary,         C,     libm(fmin, fminf),              special(min),     none,        none }
Fmax      { "fmax",       Binary,         C,     libm(fmax, fmaxf),              special(max),     none,        none }
Fdim      { "fdim",       Binary,         C,     libm(fdim, fdimf),              positive_diff,    none,        none }
Nextafter { "nextafter",  Binary,         C,     libm(nextafter, nextafterf),    special(host),    none,        none }
Minnum    { "minnum",     Binary,         Llvm,  computed(min_num),              special(min),     none,        none }
Maxnum    { "maxnum",     Binary,         Llvm,  computed(max_num),              special(max),     none,        none }
Fma       { "fma",        Ternary,        Both,  libm(fma, fmaf),                mul_add,          fma,         none }
Fmuladd   { "fmuladd",    Ternary,        Llvm,  computed(mul_add),              mul_add,          mul_add,     none }
Ldexp     { "ldexp",      FloatInt,       C,     libm(ldexp, ldexpf),            special(scale),   none,        none }
Scalbn    { "scalbn",     FloatInt,       C,     libm(scalbn, scalbnf),          special(scale),   none,        none }
Ilogb     { "ilogb",      ToInt,          C,     c_int(ilogb, ilogbf),           special(host),    none,        none }
Lround    { "lround",     ToInt,          Both,  c_long(lround, lroundf),        special(host),    none,        none }
Llround   { "llround",    ToInt,          Both,  c_longlong(llround, llroundf),  special(host),    none,        none }
Lrint     { "lrint",      ToInt,          Both,  c_long(lrint, lrintf),          special(host),    none,        none }
Llrint    { "llrint",     ToInt,          Both,  c_longlong(llrint, llrintf),    special(host),    none,        none }
Frexp     { "frexp",      FloatPtrInt,    C,     libm(frexp, frexpf),            special(frexp),   none,        none }
Modf      { "modf",       FloatPtrFloat,  C,     libm(modf, modff),              special(modf),    modf,        none }
        }
    };
    (@rows $callback:ident $(
        $variant:ident {
            $name:literal, $shape:ident, $origin:ident,
            $host:ident $(($($host_args:tt)*))?,
            $mpfr:ident $(($($mpfr_args:tt)*))?,
            $solver:ident $(($($solver_args:tt)*))?,
            $inline:ident
        }
    )*) => {
        $callback! { $(
            $variant {
                $name, $shape, $origin,
                [$host $(($($host_args)*))?],
                [$mpfr $(($($mpfr_args)*))?],
                [$solver $(($($solver_args)*))?],
                $inline
            }
        )* }
    };
}

/// How a math function's operands and result are typed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MathShape {
    /// `f -> f`.
    Unary,
    /// `(f, f) -> f`.
    Binary,
    /// `(f, f, f) -> f`.
    Ternary,
    /// `(f, i32) -> f`.
    FloatInt,
    /// `f -> int` (the result width comes from the call's destination register).
    ToInt,
    /// `(f, ptr) -> f`, storing an `i32` through the pointer (`frexp`'s exponent).
    FloatPtrInt,
    /// `(f, ptr) -> f`, storing a float of the call's format through the pointer
    /// (`modf`'s integral part).
    FloatPtrFloat,
}

/// Where a program's call of a math function comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MathOrigin {
    /// A C function of `<math.h>`: `name` at `double`, `name` + `f` at `float`.
    C,
    /// An LLVM intrinsic only: `llvm.name.f64`, `llvm.name.f32`.
    Llvm,
    /// Both a C function and an LLVM intrinsic.
    Both,
}

impl MathOrigin {
    /// Whether C code calls it by its name (`sin`, `sinf`).
    pub fn is_c(self) -> bool {
        matches!(self, MathOrigin::C | MathOrigin::Both)
    }

    /// Whether LLVM has an intrinsic for it (`llvm.sin.f64`).
    pub fn is_llvm_intrinsic(self) -> bool {
        matches!(self, MathOrigin::Llvm | MathOrigin::Both)
    }
}

/// A math function computed on the sign bit, without a call, by the interpreter and the
/// compiled tier alike (the C library computes it the same way).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SignBitOp {
    /// `fabs(x)`: the sign bit cleared.
    Abs,
    /// `copysign(x, y)`: `x`'s magnitude with `y`'s sign.
    Copysign,
}

impl SignBitOp {
    /// The result on raw operand bits of format `ty` (`y` is ignored by [`SignBitOp::Abs`]).
    #[inline]
    pub fn eval(self, ty: FloatTy, x: u64, y: u64) -> u64 {
        let sign = ty.sign_bit();
        let magnitude = sign - 1;
        match self {
            SignBitOp::Abs => x & magnitude,
            SignBitOp::Copysign => (x & magnitude) | (y & sign),
        }
    }
}

/// A call of a math function at one format.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct MathCall {
    /// Which function.
    pub func: MathFn,
    /// The format of its floating-point operands and result.
    pub ty: FloatTy,
}

impl MathCall {
    /// The type of the second result the call stores through its pointer operand, if its
    /// shape has one.
    pub fn second_result(self) -> Option<Type> {
        match self.func.shape() {
            MathShape::FloatPtrInt => Some(Type::I32),
            MathShape::FloatPtrFloat => Some(Type::Float(self.ty)),
            MathShape::Unary
            | MathShape::Binary
            | MathShape::Ternary
            | MathShape::FloatInt
            | MathShape::ToInt => None,
        }
    }
}

/// The callback that generates [`MathFn`] and its lookups from the table.
macro_rules! define_math_fn {
    ($($variant:ident { $name:literal, $shape:ident, $origin:ident, $host:tt, $mpfr:tt, $solver:tt, $inline:ident })*) => {
        /// A C math function or LLVM floating-point intrinsic, evaluated as the host libm
        /// does: one row of [`for_each_math_fn!`](crate::for_each_math_fn).
        ///
        /// The format (`sin` vs `sinf`) is carried separately by [`MathCall`].
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum MathFn {
            $(
                #[doc = concat!("`", $name, "`.")]
                $variant,
            )*
        }

        impl MathFn {
            /// Every math function, in the table's order.
            pub const ALL: [MathFn; [$($name),*].len()] = [$(MathFn::$variant),*];

            /// The operand/result shape.
            pub const fn shape(self) -> MathShape {
                match self {
                    $(MathFn::$variant => MathShape::$shape,)*
                }
            }

            /// The IR text name (the C double-precision name, or the LLVM intrinsic stem).
            pub const fn name(self) -> &'static str {
                match self {
                    $(MathFn::$variant => $name,)*
                }
            }

            /// Whether programs call it as a C function, an LLVM intrinsic or both.
            pub const fn origin(self) -> MathOrigin {
                match self {
                    $(MathFn::$variant => MathOrigin::$origin,)*
                }
            }

            /// The sign-bit operation it is, when it is computed without a call.
            #[inline]
            pub const fn sign_bit_op(self) -> Option<SignBitOp> {
                // A table rather than a match: this is asked on every math call the
                // interpreter makes, and rustc compiles the match into a chain of tests.
                const OPS: [Option<SignBitOp>; MathFn::ALL.len()] =
                    [$(sign_bit_op!($inline)),*];
                OPS[self as usize]
            }

            /// Looks a function up by its IR text name.
            pub fn from_name(name: &str) -> Option<MathFn> {
                match name {
                    $($name => Some(MathFn::$variant),)*
                    _ => None,
                }
            }
        }

        impl MathCall {
            /// The call a C program makes by calling `symbol`: `sin` is `sin` at `f64`,
            /// `sinf` is `sin` at `f32`; `None` for other names and for functions that
            /// are LLVM intrinsics only.
            pub fn from_c_symbol(symbol: &str) -> Option<MathCall> {
                let (func, ty) = match symbol {
                    $(
                        $name => (MathFn::$variant, FloatTy::F64),
                        concat!($name, "f") => (MathFn::$variant, FloatTy::F32),
                    )*
                    _ => return None,
                };
                func.origin().is_c().then_some(MathCall { func, ty })
            }
        }
    };
}

macro_rules! sign_bit_op {
    (none) => {
        None
    };
    (abs) => {
        Some(SignBitOp::Abs)
    };
    (copysign) => {
        Some(SignBitOp::Copysign)
    };
}

for_each_math_fn!(define_math_fn);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for f in MathFn::ALL {
            assert_eq!(MathFn::from_name(f.name()), Some(f));
        }
        assert_eq!(MathFn::from_name("sinf"), None);
        assert_eq!(MathFn::from_name("printf"), None);
    }

    #[test]
    fn c_symbols_at_both_formats() {
        let call = |func, ty| Some(MathCall { func, ty });
        assert_eq!(
            MathCall::from_c_symbol("sin"),
            call(MathFn::Sin, FloatTy::F64)
        );
        assert_eq!(
            MathCall::from_c_symbol("erff"),
            call(MathFn::Erf, FloatTy::F32)
        );
        assert_eq!(
            MathCall::from_c_symbol("modff"),
            call(MathFn::Modf, FloatTy::F32)
        );
        assert_eq!(MathCall::from_c_symbol("fmuladd"), None);
        assert_eq!(MathCall::from_c_symbol("minnumf"), None);
        assert_eq!(MathCall::from_c_symbol("sinff"), None);
        for f in MathFn::ALL.into_iter().filter(|f| f.origin().is_c()) {
            let f32_symbol = format!("{}f", f.name());
            assert_eq!(
                MathCall::from_c_symbol(&f32_symbol),
                call(f, FloatTy::F32),
                "{f32_symbol}"
            );
        }
    }

    #[test]
    fn sign_bit_ops_on_bits() {
        let neg_two = (-2.0f64).to_bits();
        let one = 1.0f64.to_bits();
        assert_eq!(
            SignBitOp::Abs.eval(FloatTy::F64, neg_two, 0),
            2.0f64.to_bits()
        );
        assert_eq!(
            SignBitOp::Copysign.eval(FloatTy::F64, one, neg_two),
            (-1.0f64).to_bits()
        );
        let nan32 = u64::from(0xffc0_0001u32);
        assert_eq!(SignBitOp::Abs.eval(FloatTy::F32, nan32, 0), 0x7fc0_0001);
        assert_eq!(
            SignBitOp::Copysign.eval(FloatTy::F32, 0x3f80_0000, 0x8000_0000),
            0xbf80_0000
        );
    }
}
