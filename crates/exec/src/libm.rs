//! Math functions, evaluated by the host C library so results are bit-identical to native C.
//!
//! Every [`MathFn`] is supported at both formats: the `f64` form calls the C function
//! (`sin`), the `f32` form its `f`-suffixed twin (`sinf`). The functions are looked up in
//! glibc's `libm.so.6` with `dlsym` (see `sys`): linking them statically would pick up the
//! Rust toolchain's own `cbrt`, `fmin`, `fma`, ... from compiler-builtins, which are not
//! glibc's. `lgamma` goes through `lgamma_r` (same value, no write to the global
//! `signgam`). A few LLVM intrinsics are computed directly, matching what clang-14 -O0
//! emits on x86-64 without FMA:
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
    &MathFn::ALL
}

/// The C library's math functions, resolved at run time from `libm.so.6`.
///
/// Plain `extern "C"` declarations are not enough: the Rust toolchain's compiler-builtins
/// defines some of these symbols itself (`cbrt`, `fmin`, `fma`, `floor`, ...) and a static
/// definition wins over the shared library at link time, so `cbrt(-2.0)` would not be
/// glibc's. Each entry is looked up with `dlsym` in `libm.so.6` (what native code calls);
/// only if that fails does it fall back to the statically linked symbol.
mod sys {
    use std::ffi::{c_char, c_int, c_void};
    use std::sync::OnceLock;

    extern "C" {
        fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }

    const RTLD_NOW: c_int = 2;

    macro_rules! libm_table {
        ($($name:ident: fn($($arg:ty),*) -> $ret:ty;)*) => {
            mod fallback {
                #[link(name = "m")]
                // SAFETY: these are the C library's math functions with their C
                // signatures, and every one is safe to call (see `Table`).
                unsafe extern "C" {
                    $(pub safe fn $name($(_: $arg),*) -> $ret;)*
                }
            }

            /// One function pointer per C math function. They are safe to call: a C math
            /// function is defined for every argument value (NaN and infinities
            /// included), and the ones that return a second result through a pointer
            /// (`frexp`, `modf`, `lgamma_r`) take it as `&mut`, which they only write.
            pub struct Table {
                $(pub $name: extern "C" fn($($arg),*) -> $ret,)*
            }

            impl Table {
                fn load() -> Table {
                    // SAFETY: dlopen/dlsym are called with NUL-terminated names; a
                    // non-null symbol from libm.so.6 is the C function of that name, whose
                    // signature is the declared one (a `&mut` parameter is passed as the
                    // pointer C expects), so the transmute makes the pointer `Table`
                    // describes.
                    unsafe {
                        let handle = dlopen(c"libm.so.6".as_ptr(), RTLD_NOW);
                        Table {
                            $($name: {
                                let name = concat!(stringify!($name), "\0");
                                let sym = if handle.is_null() {
                                    std::ptr::null_mut()
                                } else {
                                    dlsym(handle, name.as_ptr().cast())
                                };
                                if sym.is_null() {
                                    fallback::$name
                                } else {
                                    std::mem::transmute::<
                                        *mut c_void,
                                        extern "C" fn($($arg),*) -> $ret,
                                    >(sym)
                                }
                            },)*
                        }
                    }
                }
            }
        };
    }

    libm_table! {
        fabs: fn(f64) -> f64;
        sqrt: fn(f64) -> f64;
        cbrt: fn(f64) -> f64;
        floor: fn(f64) -> f64;
        ceil: fn(f64) -> f64;
        trunc: fn(f64) -> f64;
        round: fn(f64) -> f64;
        rint: fn(f64) -> f64;
        nearbyint: fn(f64) -> f64;
        exp: fn(f64) -> f64;
        exp2: fn(f64) -> f64;
        expm1: fn(f64) -> f64;
        log: fn(f64) -> f64;
        log2: fn(f64) -> f64;
        log10: fn(f64) -> f64;
        log1p: fn(f64) -> f64;
        logb: fn(f64) -> f64;
        sin: fn(f64) -> f64;
        cos: fn(f64) -> f64;
        tan: fn(f64) -> f64;
        asin: fn(f64) -> f64;
        acos: fn(f64) -> f64;
        atan: fn(f64) -> f64;
        sinh: fn(f64) -> f64;
        cosh: fn(f64) -> f64;
        tanh: fn(f64) -> f64;
        asinh: fn(f64) -> f64;
        acosh: fn(f64) -> f64;
        atanh: fn(f64) -> f64;
        erf: fn(f64) -> f64;
        erfc: fn(f64) -> f64;
        tgamma: fn(f64) -> f64;
        j0: fn(f64) -> f64;
        j1: fn(f64) -> f64;
        y0: fn(f64) -> f64;
        y1: fn(f64) -> f64;
        pow: fn(f64, f64) -> f64;
        atan2: fn(f64, f64) -> f64;
        fmod: fn(f64, f64) -> f64;
        remainder: fn(f64, f64) -> f64;
        hypot: fn(f64, f64) -> f64;
        copysign: fn(f64, f64) -> f64;
        fmin: fn(f64, f64) -> f64;
        fmax: fn(f64, f64) -> f64;
        fdim: fn(f64, f64) -> f64;
        nextafter: fn(f64, f64) -> f64;
        fma: fn(f64, f64, f64) -> f64;
        ldexp: fn(f64, i32) -> f64;
        scalbn: fn(f64, i32) -> f64;
        ilogb: fn(f64) -> i32;
        lround: fn(f64) -> i64;
        llround: fn(f64) -> i64;
        lrint: fn(f64) -> i64;
        llrint: fn(f64) -> i64;
        frexp: fn(f64, &mut i32) -> f64;
        modf: fn(f64, &mut f64) -> f64;
        lgamma_r: fn(f64, &mut i32) -> f64;
        fabsf: fn(f32) -> f32;
        sqrtf: fn(f32) -> f32;
        cbrtf: fn(f32) -> f32;
        floorf: fn(f32) -> f32;
        ceilf: fn(f32) -> f32;
        truncf: fn(f32) -> f32;
        roundf: fn(f32) -> f32;
        rintf: fn(f32) -> f32;
        nearbyintf: fn(f32) -> f32;
        expf: fn(f32) -> f32;
        exp2f: fn(f32) -> f32;
        expm1f: fn(f32) -> f32;
        logf: fn(f32) -> f32;
        log2f: fn(f32) -> f32;
        log10f: fn(f32) -> f32;
        log1pf: fn(f32) -> f32;
        logbf: fn(f32) -> f32;
        sinf: fn(f32) -> f32;
        cosf: fn(f32) -> f32;
        tanf: fn(f32) -> f32;
        asinf: fn(f32) -> f32;
        acosf: fn(f32) -> f32;
        atanf: fn(f32) -> f32;
        sinhf: fn(f32) -> f32;
        coshf: fn(f32) -> f32;
        tanhf: fn(f32) -> f32;
        asinhf: fn(f32) -> f32;
        acoshf: fn(f32) -> f32;
        atanhf: fn(f32) -> f32;
        erff: fn(f32) -> f32;
        erfcf: fn(f32) -> f32;
        tgammaf: fn(f32) -> f32;
        j0f: fn(f32) -> f32;
        j1f: fn(f32) -> f32;
        y0f: fn(f32) -> f32;
        y1f: fn(f32) -> f32;
        powf: fn(f32, f32) -> f32;
        atan2f: fn(f32, f32) -> f32;
        fmodf: fn(f32, f32) -> f32;
        remainderf: fn(f32, f32) -> f32;
        hypotf: fn(f32, f32) -> f32;
        copysignf: fn(f32, f32) -> f32;
        fminf: fn(f32, f32) -> f32;
        fmaxf: fn(f32, f32) -> f32;
        fdimf: fn(f32, f32) -> f32;
        nextafterf: fn(f32, f32) -> f32;
        fmaf: fn(f32, f32, f32) -> f32;
        ldexpf: fn(f32, i32) -> f32;
        scalbnf: fn(f32, i32) -> f32;
        ilogbf: fn(f32) -> i32;
        lroundf: fn(f32) -> i64;
        llroundf: fn(f32) -> i64;
        lrintf: fn(f32) -> i64;
        llrintf: fn(f32) -> i64;
        frexpf: fn(f32, &mut i32) -> f32;
        modff: fn(f32, &mut f32) -> f32;
        lgammaf_r: fn(f32, &mut i32) -> f32;
    }

    /// The table, resolved on first use.
    pub fn table() -> &'static Table {
        static TABLE: OnceLock<Table> = OnceLock::new();
        TABLE.get_or_init(Table::load)
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
    use MathFn::*;
    let t = sys::table();
    use R::{F, I};
    let [x, y, z] = raw.map(f64::from_bits);
    let n = raw[1] as u32 as i32;
    // SAFETY: these are the C library's pure math functions; the out-pointers of
    // `frexp`, `modf` and `lgamma_r` point to live locals.
    let r = match func {
        Fabs => F((t.fabs)(x)),
        Sqrt => F((t.sqrt)(x)),
        Cbrt => F((t.cbrt)(x)),
        Floor => F((t.floor)(x)),
        Ceil => F((t.ceil)(x)),
        Trunc => F((t.trunc)(x)),
        Round => F((t.round)(x)),
        Rint => F((t.rint)(x)),
        Nearbyint => F((t.nearbyint)(x)),
        Exp => F((t.exp)(x)),
        Exp2 => F((t.exp2)(x)),
        Expm1 => F((t.expm1)(x)),
        Log => F((t.log)(x)),
        Log2 => F((t.log2)(x)),
        Log10 => F((t.log10)(x)),
        Log1p => F((t.log1p)(x)),
        Logb => F((t.logb)(x)),
        Sin => F((t.sin)(x)),
        Cos => F((t.cos)(x)),
        Tan => F((t.tan)(x)),
        Asin => F((t.asin)(x)),
        Acos => F((t.acos)(x)),
        Atan => F((t.atan)(x)),
        Sinh => F((t.sinh)(x)),
        Cosh => F((t.cosh)(x)),
        Tanh => F((t.tanh)(x)),
        Asinh => F((t.asinh)(x)),
        Acosh => F((t.acosh)(x)),
        Atanh => F((t.atanh)(x)),
        Erf => F((t.erf)(x)),
        Erfc => F((t.erfc)(x)),
        Tgamma => F((t.tgamma)(x)),
        J0 => F((t.j0)(x)),
        J1 => F((t.j1)(x)),
        Y0 => F((t.y0)(x)),
        Y1 => F((t.y1)(x)),
        Pow => F((t.pow)(x, y)),
        Atan2 => F((t.atan2)(x, y)),
        Fmod => F((t.fmod)(x, y)),
        Remainder => F((t.remainder)(x, y)),
        Hypot => F((t.hypot)(x, y)),
        Copysign => F((t.copysign)(x, y)),
        Fmin => F((t.fmin)(x, y)),
        Fmax => F((t.fmax)(x, y)),
        Fdim => F((t.fdim)(x, y)),
        Nextafter => F((t.nextafter)(x, y)),
        Lgamma => {
            let mut sign = 0i32;
            F((t.lgamma_r)(x, &mut sign))
        }
        Minnum => F(if x.is_nan() || y < x { y } else { x }),
        Maxnum => F(if x.is_nan() || y > x { y } else { x }),
        Fma => F((t.fma)(x, y, z)),
        Fmuladd => F(x * y + z),
        Ldexp => F((t.ldexp)(x, n)),
        Scalbn => F((t.scalbn)(x, n)),
        Ilogb => I(i64::from((t.ilogb)(x))),
        Lround => I((t.lround)(x)),
        Llround => I((t.llround)(x)),
        Lrint => I((t.lrint)(x)),
        Llrint => I((t.llrint)(x)),
        Frexp => {
            let mut e = 0i32;
            let m = (t.frexp)(x, &mut e);
            R::Two(m, u64::from(e as u32))
        }
        Modf => {
            let mut ip = 0f64;
            let frac = (t.modf)(x, &mut ip);
            R::Two(frac, ip.to_bits())
        }
    };
    match r {
        F(v) => (v.to_bits(), None),
        I(v) => (v as u64 & ret.mask(), None),
        R::Two(v, second) => (v.to_bits(), Some(second)),
    }
}

fn eval32(func: MathFn, raw: [u64; 3], ret: Type) -> (u64, Option<u64>) {
    use MathFn::*;
    let t = sys::table();
    use R::{F, I};
    let [x, y, z] = raw.map(|b| f32::from_bits(b as u32));
    let n = raw[1] as u32 as i32;
    // SAFETY: as in `eval64`.
    let r = match func {
        Fabs => F((t.fabsf)(x)),
        Sqrt => F((t.sqrtf)(x)),
        Cbrt => F((t.cbrtf)(x)),
        Floor => F((t.floorf)(x)),
        Ceil => F((t.ceilf)(x)),
        Trunc => F((t.truncf)(x)),
        Round => F((t.roundf)(x)),
        Rint => F((t.rintf)(x)),
        Nearbyint => F((t.nearbyintf)(x)),
        Exp => F((t.expf)(x)),
        Exp2 => F((t.exp2f)(x)),
        Expm1 => F((t.expm1f)(x)),
        Log => F((t.logf)(x)),
        Log2 => F((t.log2f)(x)),
        Log10 => F((t.log10f)(x)),
        Log1p => F((t.log1pf)(x)),
        Logb => F((t.logbf)(x)),
        Sin => F((t.sinf)(x)),
        Cos => F((t.cosf)(x)),
        Tan => F((t.tanf)(x)),
        Asin => F((t.asinf)(x)),
        Acos => F((t.acosf)(x)),
        Atan => F((t.atanf)(x)),
        Sinh => F((t.sinhf)(x)),
        Cosh => F((t.coshf)(x)),
        Tanh => F((t.tanhf)(x)),
        Asinh => F((t.asinhf)(x)),
        Acosh => F((t.acoshf)(x)),
        Atanh => F((t.atanhf)(x)),
        Erf => F((t.erff)(x)),
        Erfc => F((t.erfcf)(x)),
        Tgamma => F((t.tgammaf)(x)),
        J0 => F((t.j0f)(x)),
        J1 => F((t.j1f)(x)),
        Y0 => F((t.y0f)(x)),
        Y1 => F((t.y1f)(x)),
        Pow => F((t.powf)(x, y)),
        Atan2 => F((t.atan2f)(x, y)),
        Fmod => F((t.fmodf)(x, y)),
        Remainder => F((t.remainderf)(x, y)),
        Hypot => F((t.hypotf)(x, y)),
        Copysign => F((t.copysignf)(x, y)),
        Fmin => F((t.fminf)(x, y)),
        Fmax => F((t.fmaxf)(x, y)),
        Fdim => F((t.fdimf)(x, y)),
        Nextafter => F((t.nextafterf)(x, y)),
        Lgamma => {
            let mut sign = 0i32;
            F((t.lgammaf_r)(x, &mut sign))
        }
        Minnum => F(if x.is_nan() || y < x { y } else { x }),
        Maxnum => F(if x.is_nan() || y > x { y } else { x }),
        Fma => F((t.fmaf)(x, y, z)),
        Fmuladd => F(x * y + z),
        Ldexp => F((t.ldexpf)(x, n)),
        Scalbn => F((t.scalbnf)(x, n)),
        Ilogb => I(i64::from((t.ilogbf)(x))),
        Lround => I((t.lroundf)(x)),
        Llround => I((t.llroundf)(x)),
        Lrint => I((t.lrintf)(x)),
        Llrint => I((t.llrintf)(x)),
        Frexp => {
            let mut e = 0i32;
            let m = (t.frexpf)(x, &mut e);
            R::Two(m, u64::from(e as u32))
        }
        Modf => {
            let mut ip = 0f32;
            let frac = (t.modff)(x, &mut ip);
            R::Two(frac, u64::from(ip.to_bits()))
        }
    };
    match r {
        F(v) => (u64::from(v.to_bits()), None),
        I(v) => (v as u64 & ret.mask(), None),
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
