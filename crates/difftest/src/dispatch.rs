//! Calling native functions of a fixed set of signatures.
//!
//! A `dlsym` address becomes callable only once it has a Rust `extern "C" fn` type. The
//! corpus and musl functions use a small number of shapes; [`SHAPES`] lists them and
//! [`call`] transmutes the address to the matching type. Every pointer parameter is a
//! `*mut u8` at the ABI level, so `double *` and `float *` share shapes.
//!
//! Rust has no `long double`: a signature with one ([`AbiKind::F80`]) is called through the
//! C trampoline `fpforge_call_extended` of the native runtime (`runtime.c`), by the
//! [`Signature::extended_shape`] code of one of [`EXTENDED_SHAPES`] ([`call_extended`]).
//! A `long double` argument is two words, as in the lowered module: its significand
//! ([`AbiKind::F80`]) and its sign and exponent ([`AbiKind::F80Exp`]).

use std::ffi::c_void;
use std::fmt;

/// The ABI class of a parameter or result.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AbiKind {
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `int` / `unsigned`.
    I32,
    /// `long` / `long long` / `unsigned long`.
    I64,
    /// Any data pointer.
    Ptr,
    /// `long double` (x86_fp80): as a parameter its significand, the next parameter
    /// being its [`AbiKind::F80Exp`]; as a result, both.
    F80,
    /// The sign and exponent of the `long double` parameter before.
    F80Exp,
    /// No value (results only).
    Void,
}

impl fmt::Display for AbiKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AbiKind::F32 => "f32",
            AbiKind::F64 => "f64",
            AbiKind::I32 => "i32",
            AbiKind::I64 => "i64",
            AbiKind::Ptr => "ptr",
            AbiKind::F80 => "f80",
            AbiKind::F80Exp => "f80-exponent",
            AbiKind::Void => "void",
        })
    }
}

/// A native signature: parameter kinds and result kind.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Signature {
    /// Parameters in order.
    pub params: Vec<AbiKind>,
    /// The result (`AbiKind::Void` for none).
    pub ret: AbiKind,
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, ") -> {}", self.ret)
    }
}

macro_rules! rust_ty {
    (F32) => { f32 };
    (F64) => { f64 };
    (I32) => { i32 };
    (I64) => { i64 };
    (Ptr) => { *mut u8 };
    (Void) => { () };
}

macro_rules! from_bits {
    (F32, $b:expr) => {
        f32::from_bits($b as u32)
    };
    (F64, $b:expr) => {
        f64::from_bits($b)
    };
    (I32, $b:expr) => {
        $b as u32 as i32
    };
    (I64, $b:expr) => {
        $b as i64
    };
    (Ptr, $b:expr) => {
        $b as usize as *mut u8
    };
}

macro_rules! to_bits {
    (F32, $v:expr) => {
        Some(u64::from($v.to_bits()))
    };
    (F64, $v:expr) => {
        Some($v.to_bits())
    };
    (I32, $v:expr) => {
        Some(u64::from($v as u32))
    };
    (I64, $v:expr) => {
        Some($v as u64)
    };
    (Void, $v:expr) => {{
        let () = $v;
        None
    }};
}

macro_rules! shapes {
    ($( ($($p:ident),*) -> $r:ident ;)*) => {
        /// Every supported signature.
        pub const SHAPES: &[(&[AbiKind], AbiKind)] = &[$( (&[$(AbiKind::$p),*], AbiKind::$r) ),*];

        /// Calls `ptr` as a function of signature `sig` with `args` (one raw value per
        /// parameter: float bits, integer bits, or an address for pointers). Returns the
        /// result's bits (zero-extended), or `None` for void.
        ///
        /// # Safety
        /// `ptr` must be a function of exactly that C signature, and pointer arguments
        /// must point to buffers large enough for what the function reads and writes.
        pub unsafe fn call(ptr: *const c_void, sig: &Signature, args: &[u64]) -> Result<Option<u64>, DispatchError> {
            if args.len() != sig.params.len() {
                return Err(DispatchError::Arity { expected: sig.params.len(), got: args.len() });
            }
            $(
                if sig.ret == AbiKind::$r && sig.params.as_slice() == [$(AbiKind::$p),*].as_slice() {
                    // SAFETY: the caller guarantees the signature; this is that signature.
                    let f: extern "C" fn($(rust_ty!($p)),*) -> rust_ty!($r) = unsafe { std::mem::transmute(ptr) };
                    let mut it = args.iter().copied();
                    let r = f($(from_bits!($p, it.next().unwrap_or(0))),*);
                    return Ok(to_bits!($r, r));
                }
            )*
            Err(DispatchError::Unsupported(sig.clone()))
        }
    };
}

shapes! {
    (F64) -> F64;
    (F64, F64) -> F64;
    (F64, F64, F64) -> F64;
    (F32) -> F32;
    (F32, F32) -> F32;
    (F32, F32, F32) -> F32;
    (F64, I32) -> F64;
    (F32, I32) -> F32;
    (I32, F64) -> F64;
    (I32, F32) -> F32;
    (F64, I64) -> F64;
    (F32, I64) -> F32;
    (F64) -> I32;
    (F32) -> I32;
    (F64) -> I64;
    (F32) -> I64;
    (F64) -> F32;
    (F32) -> F64;
    (F64, F32) -> F64;
    (F64, F64) -> I32;
    (F32, F32) -> I32;
    (F64, F64, I32) -> F64;
    (F64, I32) -> I32;
    (I32) -> I32;
    (I32, I32) -> I32;
    (I64) -> I64;
    (I64, I64) -> I64;
    (I32) -> F64;
    (I64) -> F64;
    (F64) -> Void;
    (Ptr, I32) -> F64;
    (Ptr, I32) -> F32;
    (Ptr, I32) -> I32;
    (Ptr, I32) -> Void;
    (Ptr, Ptr, I32) -> F64;
    (Ptr, Ptr, I32) -> Void;
    (Ptr, I32, F64) -> F64;
    (Ptr, I32, F64) -> Void;
    (F64, Ptr, I32) -> F64;
    (Ptr, Ptr, I32, F64) -> Void;
    (F64, Ptr) -> F64;
    (F32, Ptr) -> F32;
    (F64, F64, Ptr) -> F64;
    (F32, F32, Ptr) -> F32;
    (F64, Ptr, Ptr) -> Void;
    (F32, Ptr, Ptr) -> Void;
    (Ptr) -> F64;
    (Ptr) -> F32;
}

/// A call that [`call`] cannot make.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DispatchError {
    /// The signature is not in [`SHAPES`].
    #[error("unsupported native signature {0}")]
    Unsupported(Signature),
    /// Wrong number of arguments.
    #[error("expected {expected} arguments, got {got}")]
    Arity {
        /// Parameters of the signature.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
}

/// The `long double` signatures `fpforge_call_extended` calls, by shape code: one
/// letter per C parameter (`d` double, `f` float, `i` int, `l` long, `p` pointer, `L`
/// long double), `>`, the result's letter (`v` void).
pub const EXTENDED_SHAPES: &[&str] = &[
    "L>L", "LL>L", "LLL>L", "Li>L", "Ll>L", "Lp>L", "LLp>L", "L>i", "L>l", "dL>d", "fL>f", "iL>L",
    "Lpp>v", "p>L",
];

impl Signature {
    /// The shape code of a signature with a `long double` (see [`EXTENDED_SHAPES`]), or
    /// `None` when it has none.
    pub fn extended_shape(&self) -> Option<String> {
        if self.ret != AbiKind::F80 && !self.params.contains(&AbiKind::F80) {
            return None;
        }
        let letter = |k: AbiKind| match k {
            AbiKind::F64 => "d",
            AbiKind::F32 => "f",
            AbiKind::I32 => "i",
            AbiKind::I64 => "l",
            AbiKind::Ptr => "p",
            AbiKind::F80 => "L",
            AbiKind::F80Exp => "",
            AbiKind::Void => "v",
        };
        let params: String = self.params.iter().map(|&k| letter(k)).collect();
        Some(format!("{params}>{}", letter(self.ret)))
    }
}

/// True when [`call`] or [`call_extended`] supports `sig`.
pub fn supported(sig: &Signature) -> bool {
    match sig.extended_shape() {
        Some(shape) => EXTENDED_SHAPES.contains(&shape.as_str()),
        None => SHAPES
            .iter()
            .any(|(p, r)| *r == sig.ret && *p == sig.params.as_slice()),
    }
}

/// The runtime's `long double` trampoline: `(shape, function, words, result) -> called`,
/// the result's words written to `result` (a `long double`'s significand, then its sign
/// and exponent).
pub type ExtendedTrampoline =
    unsafe extern "C" fn(*const std::ffi::c_char, *const c_void, *const u64, *mut u64) -> i32;

/// Calls `ptr`, of a signature with a `long double`, through `trampoline` with `args`
/// (one word per parameter of the signature). Returns the result's words: both for a
/// `long double`, the first alone for any other result, none for void.
///
/// # Safety
/// As for [`call`]; `trampoline` must be the runtime's `fpforge_call_extended`.
pub unsafe fn call_extended(
    trampoline: ExtendedTrampoline,
    ptr: *const c_void,
    sig: &Signature,
    args: &[u64],
) -> Result<Vec<u64>, DispatchError> {
    if args.len() != sig.params.len() {
        return Err(DispatchError::Arity {
            expected: sig.params.len(),
            got: args.len(),
        });
    }
    let shape = sig
        .extended_shape()
        .filter(|s| EXTENDED_SHAPES.contains(&s.as_str()))
        .ok_or_else(|| DispatchError::Unsupported(sig.clone()))?;
    let code =
        std::ffi::CString::new(shape).map_err(|_| DispatchError::Unsupported(sig.clone()))?;
    let mut out = [0u64; 2];
    // SAFETY: the caller guarantees the signature and the trampoline; the shape code
    // names that signature and `out` has room for any result.
    let called = unsafe { trampoline(code.as_ptr(), ptr, args.as_ptr(), out.as_mut_ptr()) };
    if called == 0 {
        return Err(DispatchError::Unsupported(sig.clone()));
    }
    Ok(match sig.ret {
        AbiKind::F80 => out.to_vec(),
        AbiKind::Void => Vec::new(),
        _ => vec![out[0]],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" fn twice(x: f64) -> f64 {
        2.0 * x
    }

    extern "C" fn scale(p: *mut u8, n: i32, s: f64) {
        let p = p.cast::<f64>();
        for i in 0..n as usize {
            // SAFETY: the test passes a buffer of n doubles.
            unsafe { *p.add(i) *= s };
        }
    }

    extern "C" fn low_word(x: f64) -> i32 {
        x.to_bits() as i32
    }

    #[test]
    fn calls_each_kind() {
        let sig = Signature {
            params: vec![AbiKind::F64],
            ret: AbiKind::F64,
        };
        // SAFETY: `twice` is `extern "C" fn(f64) -> f64`, the signature given.
        let r = unsafe { call(twice as *const c_void, &sig, &[1.5f64.to_bits()]) };
        assert_eq!(r, Ok(Some(3.0f64.to_bits())));

        let mut buf = [1.0f64, -2.0, 0.5];
        let sig = Signature {
            params: vec![AbiKind::Ptr, AbiKind::I32, AbiKind::F64],
            ret: AbiKind::Void,
        };
        let args = [buf.as_mut_ptr() as u64, 3, 4.0f64.to_bits()];
        // SAFETY: `scale` has the signature given, and the pointer is to `buf`, the 3
        // doubles the count says.
        let r = unsafe { call(scale as *const c_void, &sig, &args) };
        assert_eq!(r, Ok(None));
        assert_eq!(buf, [4.0, -8.0, 2.0]);

        let sig = Signature {
            params: vec![AbiKind::F64],
            ret: AbiKind::I32,
        };
        let x = f64::from_bits(0x0000_0001_ffff_fffe);
        // SAFETY: `low_word` is `extern "C" fn(f64) -> i32`, the signature given.
        let r = unsafe { call(low_word as *const c_void, &sig, &[x.to_bits()]) };
        assert_eq!(r, Ok(Some(0xffff_fffe)));
    }

    #[test]
    fn refuses_unknown_shapes() {
        let sig = Signature {
            params: vec![AbiKind::Ptr; 5],
            ret: AbiKind::Ptr,
        };
        assert!(!supported(&sig));
        // SAFETY: `call` refuses a signature it does not support before calling
        // anything, so `twice`, whose signature differs, is never called.
        let r = unsafe { call(twice as *const c_void, &sig, &[0; 5]) };
        assert!(matches!(r, Err(DispatchError::Unsupported(_))));
    }
}
