//! Math functions, evaluated by the host C library so results are bit-identical to native C.
//!
//! Every row of fpir's math table ([`fpir::for_each_math_fn!`]) is evaluated here at both
//! formats, as its `host` field says: `libm(sin, sinf)` calls `sin` at `f64` and `sinf`
//! at `f32`, with the C signature of the row's shape. The functions are looked up in
//! glibc's `libm.so.6` with `dlsym` (see `sys`): linking them statically would pick up the
//! Rust toolchain's own `cbrt`, `fmin`, `fma`, ... from compiler-builtins, which are not
//! glibc's. `lgamma` goes through `lgamma_r` (same value, no write to the global
//! `signgam`). The rows marked `computed` are LLVM intrinsics computed here, matching
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
//!
//! [`eval_in`] evaluates under a rounding mode ([`under_host_mode`]): glibc's functions
//! run with the host's mode set to it (through glibc's own `fesetround`, so x87 and SSE
//! both), and the exceptions they raise are read back with `fetestexcept`, which is
//! what native code calling them under that mode gets.

use fpir::eval::{Exceptions, RoundingMode};
use fpir::{FloatTy, MathCall, MathFn, Type};
use sys::HostFn;

/// The C library's math functions, resolved at run time from `libm.so.6`.
///
/// Plain `extern "C"` declarations are not enough: the Rust toolchain's compiler-builtins
/// defines some of these symbols itself (`cbrt`, `fmin`, `fma`, `floor`, ...) and a static
/// definition wins over the shared library at link time, so `cbrt(-2.0)` would not be
/// glibc's. Each function is looked up with `dlsym` in `libm.so.6` (what native code
/// calls) on its first call; only if that fails does it fall back to the statically
/// linked symbol.
mod sys {
    use std::ffi::{c_char, c_int, c_void};
    use std::sync::OnceLock;

    extern "C" {
        fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }

    const RTLD_NOW: c_int = 2;

    /// A C math function of type `F` (an `extern "C" fn` pointer), resolved on first use.
    pub struct HostFn<F> {
        /// The symbol, NUL-terminated.
        symbol: &'static str,
        /// The statically linked function of that name.
        fallback: F,
        resolved: OnceLock<F>,
    }

    impl<F: Copy> HostFn<F> {
        /// # Safety
        /// `symbol` is NUL-terminated and names a C function whose signature `F`
        /// describes, and `fallback` is that function. The function must be safe to call
        /// through `F`: a C math function is defined for every argument value (NaN and
        /// infinities included), and the ones that return a second result through a
        /// pointer (`frexp`, `modf`, `lgamma_r`) take it as `&mut`, which they only write.
        pub const unsafe fn new(symbol: &'static str, fallback: F) -> HostFn<F> {
            HostFn {
                symbol,
                fallback,
                resolved: OnceLock::new(),
            }
        }

        /// The function, from `libm.so.6` if it has the symbol.
        #[inline]
        pub fn get(&self) -> F {
            *self.resolved.get_or_init(|| self.resolve())
        }

        fn resolve(&self) -> F {
            const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
            let handle = libm_handle();
            if handle.is_null() {
                return self.fallback;
            }
            // SAFETY: `symbol` is NUL-terminated (`new`'s contract).
            let sym = unsafe { dlsym(handle, self.symbol.as_ptr().cast()) };
            if sym.is_null() {
                return self.fallback;
            }
            // SAFETY: a non-null symbol from libm.so.6 is the C function of that name,
            // whose signature `F` describes (`new`'s contract), and `F` is a function
            // pointer of the same size as `sym`.
            unsafe { std::mem::transmute_copy::<*mut c_void, F>(&sym) }
        }
    }

    /// The address of the symbol `name` in `libm.so.6`, if it has one.
    pub fn lookup(name: &str) -> Option<usize> {
        let handle = libm_handle();
        let name = std::ffi::CString::new(name).ok()?;
        if handle.is_null() {
            return None;
        }
        // SAFETY: `handle` is a live dlopen handle and `name` is NUL-terminated.
        let sym = unsafe { dlsym(handle, name.as_ptr()) };
        (!sym.is_null()).then_some(sym as usize)
    }

    /// `dlopen("libm.so.6")`, once; null if the library cannot be loaded.
    fn libm_handle() -> *mut c_void {
        static HANDLE: OnceLock<usize> = OnceLock::new();
        // SAFETY: dlopen is called with a NUL-terminated name.
        *HANDLE.get_or_init(|| unsafe { dlopen(c"libm.so.6".as_ptr(), RTLD_NOW) } as usize)
            as *mut c_void
    }
}

/// glibc's `<fenv.h>` functions, resolved like the math functions.
mod host_fenv {
    use super::HostFn;
    use std::ffi::c_int;

    mod fallback {
        use std::ffi::c_int;

        #[link(name = "m")]
        // SAFETY: the C library's `<fenv.h>` functions with their C signatures; each is
        // safe to call with any `int`.
        unsafe extern "C" {
            pub safe fn fesetround(mode: c_int) -> c_int;
            pub safe fn feclearexcept(excepts: c_int) -> c_int;
            pub safe fn fetestexcept(excepts: c_int) -> c_int;
        }
    }

    pub static FESETROUND: HostFn<extern "C" fn(c_int) -> c_int> =
        // SAFETY: the NUL-terminated symbol and the fallback are the C function whose
        // signature the type describes.
        unsafe { HostFn::new("fesetround\0", fallback::fesetround) };
    pub static FECLEAREXCEPT: HostFn<extern "C" fn(c_int) -> c_int> =
        // SAFETY: as for `FESETROUND`.
        unsafe { HostFn::new("feclearexcept\0", fallback::feclearexcept) };
    pub static FETESTEXCEPT: HostFn<extern "C" fn(c_int) -> c_int> =
        // SAFETY: as for `FESETROUND`.
        unsafe { HostFn::new("fetestexcept\0", fallback::fetestexcept) };
}

/// Runs `f` with the host in rounding mode `mode` (glibc's `fesetround`) and its
/// exception flags clear; returns what `f` returns and the exceptions raised meanwhile.
/// The host is back in round-to-nearest with clear flags afterwards. `f` should do its
/// floating-point work in C (the Rust compiler assumes the default environment).
pub fn under_host_mode<T>(mode: RoundingMode, f: impl FnOnce() -> T) -> (T, Exceptions) {
    let all = i32::from(Exceptions::ALL.fe_bits());
    (host_fenv::FECLEAREXCEPT.get())(all);
    (host_fenv::FESETROUND.get())(mode.fe_value());
    let result = std::hint::black_box(f());
    let raised = (host_fenv::FETESTEXCEPT.get())(all);
    (host_fenv::FESETROUND.get())(RoundingMode::Nearest.fe_value());
    (host_fenv::FECLEAREXCEPT.get())(all);
    (result, Exceptions::from_fe_bits(raised as u64))
}

/// Evaluates `call` as [`eval`] does, with the host in rounding mode `mode`; also
/// returns the exceptions the call raised.
pub fn eval_in(
    call: MathCall,
    args: &[u64],
    ret: Type,
    mode: RoundingMode,
) -> (u64, Option<u64>, Exceptions) {
    let ((bits, second), raised) = under_host_mode(mode, || eval(call, args, ret));
    (bits, second, raised)
}

/// The address of the C function `name` in the host's `libm.so.6`.
pub(crate) fn host_symbol(name: &str) -> Option<usize> {
    sys::lookup(name)
}

/// A host float format, read from and written to raw bits.
trait Raw: Copy {
    fn from_raw(bits: u64) -> Self;
    fn to_raw(self) -> u64;
}

impl Raw for f64 {
    #[inline]
    fn from_raw(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    #[inline]
    fn to_raw(self) -> u64 {
        self.to_bits()
    }
}

impl Raw for f32 {
    #[inline]
    fn from_raw(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
    #[inline]
    fn to_raw(self) -> u64 {
        u64::from(self.to_bits())
    }
}

/// The result of one evaluation before it is turned into bits.
enum R<T> {
    /// A float.
    F(T),
    /// An integer, truncated to the destination type.
    I(i64),
    /// A float and the bits of the second result stored through the pointer operand.
    Two(T, u64),
}

impl<T: Raw> R<T> {
    #[inline]
    fn into_bits(self, ret: Type) -> (u64, Option<u64>) {
        match self {
            R::F(v) => (v.to_raw(), None),
            R::I(v) => (v as u64 & ret.mask(), None),
            R::Two(v, second) => (v.to_raw(), Some(second)),
        }
    }
}

/// Evaluates `call` on raw operand bits; returns the result bits and, for `frexp`/`modf`,
/// the bits of the second result (an `i32` exponent, or the integral part).
pub fn eval(call: MathCall, args: &[u64], ret: Type) -> (u64, Option<u64>) {
    let raw = |i: usize| args.get(i).copied().unwrap_or(0);
    let raw = [raw(0), raw(1), raw(2)];
    match call.ty {
        FloatTy::F64 => eval64(call.func, raw).into_bits(ret),
        FloatTy::F32 => eval32(call.func, raw).into_bits(ret),
    }
}

/// Generates, from fpir's math table, the host functions (`host::sin::F64`, ...) and
/// `eval64`/`eval32`, one match arm per row.
macro_rules! host_libm {
    ($($variant:ident { $name:literal, $shape:ident, $origin:ident, $host:tt, $mpfr:tt, $solver:tt, $inline:ident })*) => {
        /// One module per host C function pair, named after its `f64` symbol, holding
        /// the `F64` and `F32` functions.
        mod host {
            use super::HostFn;
            $(host_fns!($shape $host);)*
        }

        host_libm!(@eval eval64, F64, f64, $($variant $shape $host)*);
        host_libm!(@eval eval32, F32, f32, $($variant $shape $host)*);
    };
    (@eval $eval:ident, $format:ident, $float:ty, $($variant:ident $shape:ident $host:tt)*) => {
        fn $eval(func: MathFn, raw: [u64; 3]) -> R<$float> {
            let [x, y, z] = raw.map(<$float>::from_raw);
            let n = raw[1] as u32 as i32;
            match func {
                $(MathFn::$variant => host_eval!($format, $shape $host, x, y, z, n),)*
            }
        }
    };
}

/// The host functions of one row at both formats, with the C signature of its shape and
/// handler (nothing for a row computed in Rust).
macro_rules! host_fns {
    (Unary [libm($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64) -> f64, $f32(f32) -> f32);
    };
    (Binary [libm($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64, f64) -> f64, $f32(f32, f32) -> f32);
    };
    (Ternary [libm($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64, f64, f64) -> f64, $f32(f32, f32, f32) -> f32);
    };
    (FloatInt [libm($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64, std::ffi::c_int) -> f64, $f32(f32, std::ffi::c_int) -> f32);
    };
    (ToInt [c_int($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64) -> std::ffi::c_int, $f32(f32) -> std::ffi::c_int);
    };
    (ToInt [c_long($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64) -> std::ffi::c_long, $f32(f32) -> std::ffi::c_long);
    };
    (ToInt [c_longlong($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64) -> std::ffi::c_longlong, $f32(f32) -> std::ffi::c_longlong);
    };
    (Unary [lgamma_r($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64, &mut std::ffi::c_int) -> f64, $f32(f32, &mut std::ffi::c_int) -> f32);
    };
    (FloatPtrInt [libm($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64, &mut std::ffi::c_int) -> f64, $f32(f32, &mut std::ffi::c_int) -> f32);
    };
    (FloatPtrFloat [libm($f64:ident, $f32:ident)]) => {
        host_module!($f64: $f64(f64, &mut f64) -> f64, $f32(f32, &mut f32) -> f32);
    };
    ($shape:ident [computed($how:ident)]) => {};
}

/// `mod NAME { F64, F32 }`: two C functions with their fallback declarations.
macro_rules! host_module {
    ($module:ident: $f64:ident($($a64:ty),*) -> $r64:ty, $f32:ident($($a32:ty),*) -> $r32:ty) => {
        pub mod $module {
            use super::HostFn;

            mod fallback {
                #[link(name = "m")]
                // SAFETY: these are the C library's math functions with their C
                // signatures, and both are safe to call (see `HostFn::new`).
                unsafe extern "C" {
                    pub safe fn $f64($(_: $a64),*) -> $r64;
                    pub safe fn $f32($(_: $a32),*) -> $r32;
                }
            }

            pub static F64: HostFn<extern "C" fn($($a64),*) -> $r64> =
                // SAFETY: the NUL-terminated symbol and the fallback are the C function
                // whose signature the type describes.
                unsafe { HostFn::new(concat!(stringify!($f64), "\0"), fallback::$f64) };
            pub static F32: HostFn<extern "C" fn($($a32),*) -> $r32> =
                // SAFETY: as for `F64`.
                unsafe { HostFn::new(concat!(stringify!($f32), "\0"), fallback::$f32) };
        }
    };
}

/// One row's evaluation at `$format` on operands `x`, `y`, `z` (floats) and `n` (`i32`).
macro_rules! host_eval {
    ($format:ident, Unary [libm($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::F((host::$module::$format.get())($x))
    };
    ($format:ident, Binary [libm($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::F((host::$module::$format.get())($x, $y))
    };
    ($format:ident, Ternary [libm($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::F((host::$module::$format.get())($x, $y, $z))
    };
    ($format:ident, FloatInt [libm($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::F((host::$module::$format.get())($x, $n))
    };
    ($format:ident, ToInt [$c_type:ident($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::I(i64::from((host::$module::$format.get())($x)))
    };
    ($format:ident, Unary [lgamma_r($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {{
        let mut sign = 0;
        R::F((host::$module::$format.get())($x, &mut sign))
    }};
    ($format:ident, FloatPtrInt [libm($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {{
        let mut e = 0;
        let m = (host::$module::$format.get())($x, &mut e);
        R::Two(m, u64::from(e as u32))
    }};
    ($format:ident, FloatPtrFloat [libm($module:ident, $_f32:ident)], $x:ident, $y:ident, $z:ident, $n:ident) => {{
        let mut integral = 0.0;
        let frac = (host::$module::$format.get())($x, &mut integral);
        R::Two(frac, integral.to_raw())
    }};
    ($format:ident, Binary [computed(min_num)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::F(if $x.is_nan() || $y < $x { $y } else { $x })
    };
    ($format:ident, Binary [computed(max_num)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::F(if $x.is_nan() || $y > $x { $y } else { $x })
    };
    ($format:ident, Ternary [computed(mul_add)], $x:ident, $y:ident, $z:ident, $n:ident) => {
        R::F($x * $y + $z)
    };
}

fpir::for_each_math_fn!(host_libm);

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
