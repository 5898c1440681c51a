//! Math functions, evaluated by the host C library so results are bit-identical to native C.
//!
//! Every [`MathFn`] is supported at both formats: the `f64` form calls the C function
//! (`sin`), the `f32` form its `f`-suffixed twin (`sinf`), through `extern "C"`
//! declarations linked against `libm`. `lgamma` goes through `lgamma_r` (same value, no
//! write to the global `signgam`). A few LLVM intrinsics are computed directly, matching
//! what clang-14 -O0 emits on x86-64 without FMA:
//!
//! | function | computed as |
//! |---|---|
//! | `fmuladd(a, b, c)` | `a * b + c`, two roundings (clang -O0 does not fuse) |
//! | `minnum(x, y)` | `isnan(x) ? y : (y < x ? y : x)` (the x86 `minsd` lowering; `minnum(+0, -0) = +0`) |
//! | `maxnum(x, y)` | `isnan(x) ? y : (y > x ? y : x)` |
//!
//! `fmin`/`fmax` (the libc calls) go to the host libm, whose choice between `+0` and `-0`
//! may differ from the intrinsics. Integer results (`ilogb`, `lround`, ...) are truncated
//! to the destination width; integer operands (`ldexp`, `scalbn`) are read as `i32`.
//! `frexp` and `modf` return their second result for the interpreter to store.

use fpir::{FloatTy, MathCall, MathFn, Type};

/// Every math function the interpreter evaluates (all of [`MathFn::ALL`], at `f32` and `f64`).
pub fn supported_math() -> &'static [MathFn] {
    MathFn::ALL
}

#[allow(missing_docs)]
mod sys {
    #[link(name = "m")]
    extern "C" {
        pub fn fabs(x: f64) -> f64;
        pub fn sqrt(x: f64) -> f64;
        pub fn cbrt(x: f64) -> f64;
        pub fn floor(x: f64) -> f64;
        pub fn ceil(x: f64) -> f64;
        pub fn trunc(x: f64) -> f64;
        pub fn round(x: f64) -> f64;
        pub fn rint(x: f64) -> f64;
        pub fn nearbyint(x: f64) -> f64;
        pub fn exp(x: f64) -> f64;
        pub fn exp2(x: f64) -> f64;
        pub fn expm1(x: f64) -> f64;
        pub fn log(x: f64) -> f64;
        pub fn log2(x: f64) -> f64;
        pub fn log10(x: f64) -> f64;
        pub fn log1p(x: f64) -> f64;
        pub fn logb(x: f64) -> f64;
        pub fn sin(x: f64) -> f64;
        pub fn cos(x: f64) -> f64;
        pub fn tan(x: f64) -> f64;
        pub fn asin(x: f64) -> f64;
        pub fn acos(x: f64) -> f64;
        pub fn atan(x: f64) -> f64;
        pub fn sinh(x: f64) -> f64;
        pub fn cosh(x: f64) -> f64;
        pub fn tanh(x: f64) -> f64;
        pub fn asinh(x: f64) -> f64;
        pub fn acosh(x: f64) -> f64;
        pub fn atanh(x: f64) -> f64;
        pub fn erf(x: f64) -> f64;
        pub fn erfc(x: f64) -> f64;
        pub fn tgamma(x: f64) -> f64;
        pub fn j0(x: f64) -> f64;
        pub fn j1(x: f64) -> f64;
        pub fn y0(x: f64) -> f64;
        pub fn y1(x: f64) -> f64;
        pub fn pow(x: f64, y: f64) -> f64;
        pub fn atan2(x: f64, y: f64) -> f64;
        pub fn fmod(x: f64, y: f64) -> f64;
        pub fn remainder(x: f64, y: f64) -> f64;
        pub fn hypot(x: f64, y: f64) -> f64;
        pub fn copysign(x: f64, y: f64) -> f64;
        pub fn fmin(x: f64, y: f64) -> f64;
        pub fn fmax(x: f64, y: f64) -> f64;
        pub fn fdim(x: f64, y: f64) -> f64;
        pub fn nextafter(x: f64, y: f64) -> f64;
        pub fn fma(x: f64, y: f64, z: f64) -> f64;
        pub fn ldexp(x: f64, n: i32) -> f64;
        pub fn scalbn(x: f64, n: i32) -> f64;
        pub fn ilogb(x: f64) -> i32;
        pub fn lround(x: f64) -> i64;
        pub fn llround(x: f64) -> i64;
        pub fn lrint(x: f64) -> i64;
        pub fn llrint(x: f64) -> i64;
        pub fn frexp(x: f64, e: *mut i32) -> f64;
        pub fn modf(x: f64, i: *mut f64) -> f64;
        pub fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        pub fn fabsf(x: f32) -> f32;
        pub fn sqrtf(x: f32) -> f32;
        pub fn cbrtf(x: f32) -> f32;
        pub fn floorf(x: f32) -> f32;
        pub fn ceilf(x: f32) -> f32;
        pub fn truncf(x: f32) -> f32;
        pub fn roundf(x: f32) -> f32;
        pub fn rintf(x: f32) -> f32;
        pub fn nearbyintf(x: f32) -> f32;
        pub fn expf(x: f32) -> f32;
        pub fn exp2f(x: f32) -> f32;
        pub fn expm1f(x: f32) -> f32;
        pub fn logf(x: f32) -> f32;
        pub fn log2f(x: f32) -> f32;
        pub fn log10f(x: f32) -> f32;
        pub fn log1pf(x: f32) -> f32;
        pub fn logbf(x: f32) -> f32;
        pub fn sinf(x: f32) -> f32;
        pub fn cosf(x: f32) -> f32;
        pub fn tanf(x: f32) -> f32;
        pub fn asinf(x: f32) -> f32;
        pub fn acosf(x: f32) -> f32;
        pub fn atanf(x: f32) -> f32;
        pub fn sinhf(x: f32) -> f32;
        pub fn coshf(x: f32) -> f32;
        pub fn tanhf(x: f32) -> f32;
        pub fn asinhf(x: f32) -> f32;
        pub fn acoshf(x: f32) -> f32;
        pub fn atanhf(x: f32) -> f32;
        pub fn erff(x: f32) -> f32;
        pub fn erfcf(x: f32) -> f32;
        pub fn tgammaf(x: f32) -> f32;
        pub fn j0f(x: f32) -> f32;
        pub fn j1f(x: f32) -> f32;
        pub fn y0f(x: f32) -> f32;
        pub fn y1f(x: f32) -> f32;
        pub fn powf(x: f32, y: f32) -> f32;
        pub fn atan2f(x: f32, y: f32) -> f32;
        pub fn fmodf(x: f32, y: f32) -> f32;
        pub fn remainderf(x: f32, y: f32) -> f32;
        pub fn hypotf(x: f32, y: f32) -> f32;
        pub fn copysignf(x: f32, y: f32) -> f32;
        pub fn fminf(x: f32, y: f32) -> f32;
        pub fn fmaxf(x: f32, y: f32) -> f32;
        pub fn fdimf(x: f32, y: f32) -> f32;
        pub fn nextafterf(x: f32, y: f32) -> f32;
        pub fn fmaf(x: f32, y: f32, z: f32) -> f32;
        pub fn ldexpf(x: f32, n: i32) -> f32;
        pub fn scalbnf(x: f32, n: i32) -> f32;
        pub fn ilogbf(x: f32) -> i32;
        pub fn lroundf(x: f32) -> i64;
        pub fn llroundf(x: f32) -> i64;
        pub fn lrintf(x: f32) -> i64;
        pub fn llrintf(x: f32) -> i64;
        pub fn frexpf(x: f32, e: *mut i32) -> f32;
        pub fn modff(x: f32, i: *mut f32) -> f32;
        pub fn lgammaf_r(x: f32, sign: *mut i32) -> f32;
    }
}

fn mask_to(ret: Type, v: u64) -> u64 {
    match ret {
        Type::Int(w) if w < 64 => v & ((1u64 << w) - 1),
        _ => v,
    }
}

/// Evaluates `call` on raw operand bits; returns the result bits and, for `frexp`/`modf`,
/// the bits of the second result (an `i32` exponent, or the integral part).
pub fn eval(call: MathCall, args: &[u64], ret: Type) -> (u64, Option<u64>) {
    let raw = |i: usize| args.get(i).copied().unwrap_or(0);
    match call.ty {
        FloatTy::F64 => eval64(call.func, [raw(0), raw(1), raw(2)], ret),
        FloatTy::F32 => eval32(call.func, [raw(0), raw(1), raw(2)], ret),
    }
}

/// The result of one evaluation before it is turned into bits.
enum R<T> {
    F(T),
    I(i64),
    Two(T, u64),
}

fn eval64(func: MathFn, raw: [u64; 3], ret: Type) -> (u64, Option<u64>) {
    use sys::*;
    use MathFn::*;
    use R::{F, I};
    let [x, y, z] = raw.map(f64::from_bits);
    let n = raw[1] as u32 as i32;
    // SAFETY: these are the C library's pure math functions; the out-pointers of
    // `frexp`, `modf` and `lgamma_r` point to live locals.
    let r = match func {
        Fabs => F(unsafe { fabs(x) }),
        Sqrt => F(unsafe { sqrt(x) }),
        Cbrt => F(unsafe { cbrt(x) }),
        Floor => F(unsafe { floor(x) }),
        Ceil => F(unsafe { ceil(x) }),
        Trunc => F(unsafe { trunc(x) }),
        Round => F(unsafe { round(x) }),
        Rint => F(unsafe { rint(x) }),
        Nearbyint => F(unsafe { nearbyint(x) }),
        Exp => F(unsafe { exp(x) }),
        Exp2 => F(unsafe { exp2(x) }),
        Expm1 => F(unsafe { expm1(x) }),
        Log => F(unsafe { log(x) }),
        Log2 => F(unsafe { log2(x) }),
        Log10 => F(unsafe { log10(x) }),
        Log1p => F(unsafe { log1p(x) }),
        Logb => F(unsafe { logb(x) }),
        Sin => F(unsafe { sin(x) }),
        Cos => F(unsafe { cos(x) }),
        Tan => F(unsafe { tan(x) }),
        Asin => F(unsafe { asin(x) }),
        Acos => F(unsafe { acos(x) }),
        Atan => F(unsafe { atan(x) }),
        Sinh => F(unsafe { sinh(x) }),
        Cosh => F(unsafe { cosh(x) }),
        Tanh => F(unsafe { tanh(x) }),
        Asinh => F(unsafe { asinh(x) }),
        Acosh => F(unsafe { acosh(x) }),
        Atanh => F(unsafe { atanh(x) }),
        Erf => F(unsafe { erf(x) }),
        Erfc => F(unsafe { erfc(x) }),
        Tgamma => F(unsafe { tgamma(x) }),
        J0 => F(unsafe { j0(x) }),
        J1 => F(unsafe { j1(x) }),
        Y0 => F(unsafe { y0(x) }),
        Y1 => F(unsafe { y1(x) }),
        Pow => F(unsafe { pow(x, y) }),
        Atan2 => F(unsafe { atan2(x, y) }),
        Fmod => F(unsafe { fmod(x, y) }),
        Remainder => F(unsafe { remainder(x, y) }),
        Hypot => F(unsafe { hypot(x, y) }),
        Copysign => F(unsafe { copysign(x, y) }),
        Fmin => F(unsafe { fmin(x, y) }),
        Fmax => F(unsafe { fmax(x, y) }),
        Fdim => F(unsafe { fdim(x, y) }),
        Nextafter => F(unsafe { nextafter(x, y) }),
        Lgamma => {
            let mut sign = 0i32;
            F(unsafe { lgamma_r(x, &mut sign) })
        }
        Minnum => F(if x.is_nan() || y < x { y } else { x }),
        Maxnum => F(if x.is_nan() || y > x { y } else { x }),
        Fma => F(unsafe { fma(x, y, z) }),
        Fmuladd => F(x * y + z),
        Ldexp => F(unsafe { ldexp(x, n) }),
        Scalbn => F(unsafe { scalbn(x, n) }),
        Ilogb => I(i64::from(unsafe { ilogb(x) })),
        Lround => I(unsafe { lround(x) }),
        Llround => I(unsafe { llround(x) }),
        Lrint => I(unsafe { lrint(x) }),
        Llrint => I(unsafe { llrint(x) }),
        Frexp => {
            let mut e = 0i32;
            let m = unsafe { frexp(x, &mut e) };
            R::Two(m, u64::from(e as u32))
        }
        Modf => {
            let mut ip = 0f64;
            let frac = unsafe { modf(x, &mut ip) };
            R::Two(frac, ip.to_bits())
        }
    };
    match r {
        F(v) => (v.to_bits(), None),
        I(v) => (mask_to(ret, v as u64), None),
        R::Two(v, second) => (v.to_bits(), Some(second)),
    }
}

fn eval32(func: MathFn, raw: [u64; 3], ret: Type) -> (u64, Option<u64>) {
    use sys::*;
    use MathFn::*;
    use R::{F, I};
    let [x, y, z] = raw.map(|b| f32::from_bits(b as u32));
    let n = raw[1] as u32 as i32;
    // SAFETY: as in `eval64`.
    let r = match func {
        Fabs => F(unsafe { fabsf(x) }),
        Sqrt => F(unsafe { sqrtf(x) }),
        Cbrt => F(unsafe { cbrtf(x) }),
        Floor => F(unsafe { floorf(x) }),
        Ceil => F(unsafe { ceilf(x) }),
        Trunc => F(unsafe { truncf(x) }),
        Round => F(unsafe { roundf(x) }),
        Rint => F(unsafe { rintf(x) }),
        Nearbyint => F(unsafe { nearbyintf(x) }),
        Exp => F(unsafe { expf(x) }),
        Exp2 => F(unsafe { exp2f(x) }),
        Expm1 => F(unsafe { expm1f(x) }),
        Log => F(unsafe { logf(x) }),
        Log2 => F(unsafe { log2f(x) }),
        Log10 => F(unsafe { log10f(x) }),
        Log1p => F(unsafe { log1pf(x) }),
        Logb => F(unsafe { logbf(x) }),
        Sin => F(unsafe { sinf(x) }),
        Cos => F(unsafe { cosf(x) }),
        Tan => F(unsafe { tanf(x) }),
        Asin => F(unsafe { asinf(x) }),
        Acos => F(unsafe { acosf(x) }),
        Atan => F(unsafe { atanf(x) }),
        Sinh => F(unsafe { sinhf(x) }),
        Cosh => F(unsafe { coshf(x) }),
        Tanh => F(unsafe { tanhf(x) }),
        Asinh => F(unsafe { asinhf(x) }),
        Acosh => F(unsafe { acoshf(x) }),
        Atanh => F(unsafe { atanhf(x) }),
        Erf => F(unsafe { erff(x) }),
        Erfc => F(unsafe { erfcf(x) }),
        Tgamma => F(unsafe { tgammaf(x) }),
        J0 => F(unsafe { j0f(x) }),
        J1 => F(unsafe { j1f(x) }),
        Y0 => F(unsafe { y0f(x) }),
        Y1 => F(unsafe { y1f(x) }),
        Pow => F(unsafe { powf(x, y) }),
        Atan2 => F(unsafe { atan2f(x, y) }),
        Fmod => F(unsafe { fmodf(x, y) }),
        Remainder => F(unsafe { remainderf(x, y) }),
        Hypot => F(unsafe { hypotf(x, y) }),
        Copysign => F(unsafe { copysignf(x, y) }),
        Fmin => F(unsafe { fminf(x, y) }),
        Fmax => F(unsafe { fmaxf(x, y) }),
        Fdim => F(unsafe { fdimf(x, y) }),
        Nextafter => F(unsafe { nextafterf(x, y) }),
        Lgamma => {
            let mut sign = 0i32;
            F(unsafe { lgammaf_r(x, &mut sign) })
        }
        Minnum => F(if x.is_nan() || y < x { y } else { x }),
        Maxnum => F(if x.is_nan() || y > x { y } else { x }),
        Fma => F(unsafe { fmaf(x, y, z) }),
        Fmuladd => F(x * y + z),
        Ldexp => F(unsafe { ldexpf(x, n) }),
        Scalbn => F(unsafe { scalbnf(x, n) }),
        Ilogb => I(i64::from(unsafe { ilogbf(x) })),
        Lround => I(unsafe { lroundf(x) }),
        Llround => I(unsafe { llroundf(x) }),
        Lrint => I(unsafe { lrintf(x) }),
        Llrint => I(unsafe { llrintf(x) }),
        Frexp => {
            let mut e = 0i32;
            let m = unsafe { frexpf(x, &mut e) };
            R::Two(m, u64::from(e as u32))
        }
        Modf => {
            let mut ip = 0f32;
            let frac = unsafe { modff(x, &mut ip) };
            R::Two(frac, u64::from(ip.to_bits()))
        }
    };
    match r {
        F(v) => (u64::from(v.to_bits()), None),
        I(v) => (mask_to(ret, v as u64), None),
        R::Two(v, second) => (u64::from(v.to_bits()), Some(second)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(func: MathFn, ty: FloatTy) -> MathCall {
        MathCall { func, ty }
    }

    #[test]
    fn matches_rust_std() {
        let x = 0.7f64;
        let (r, _) = eval(call(MathFn::Sin, FloatTy::F64), &[x.to_bits()], Type::F64);
        assert_eq!(r, x.sin().to_bits());
        let xf = 0.7f32;
        let (r, _) = eval(
            call(MathFn::Sqrt, FloatTy::F32),
            &[u64::from(xf.to_bits())],
            Type::F32,
        );
        assert_eq!(r, u64::from(xf.sqrt().to_bits()));
    }

    #[test]
    fn frexp_returns_exponent() {
        let (m, e) = eval(
            call(MathFn::Frexp, FloatTy::F64),
            &[8.0f64.to_bits(), 0],
            Type::F64,
        );
        assert_eq!(f64::from_bits(m), 0.5);
        assert_eq!(e, Some(4));
    }

    #[test]
    fn minnum_follows_x86_lowering() {
        let m = call(MathFn::Minnum, FloatTy::F64);
        let (r, _) = eval(m, &[0.0f64.to_bits(), (-0.0f64).to_bits()], Type::F64);
        assert_eq!(r, 0.0f64.to_bits());
        let (r, _) = eval(m, &[f64::NAN.to_bits(), 1.0f64.to_bits()], Type::F64);
        assert_eq!(r, 1.0f64.to_bits());
    }

    #[test]
    fn lround_truncates_to_destination() {
        let (r, _) = eval(
            call(MathFn::Lround, FloatTy::F64),
            &[(-2.5f64).to_bits()],
            Type::I32,
        );
        assert_eq!(r, u64::from(-3i32 as u32));
    }
}
