//! The host C library's `long double` math functions (`sinl`, `powl`, `frexpl`, ...),
//! the reference for [`F80Op::Libm`]: one per row of fpir's math table whose C function
//! has a `long double` version (the `double` name with an `l`). Rust has no 80-bit
//! type to declare them with, so they are called through the C shims of
//! `csrc/long_double.c` (built by `build.rs`), which take the function's address
//! (looked up in `libm.so.6` like [`crate::libm`]'s) and the operands' 10 bytes.
//!
//! [`F80Op::Libm`]: fpir::F80Op::Libm

use crate::memory::Memory;
use crate::trap::TrapKind;
use fpir::f80::{Evaluated, F80};
use fpir::{MathFn, MathShape, Type};
use std::ffi::{c_char, c_void, CStr};
use std::sync::OnceLock;

extern "C" {
    fn fpforge_ld_unary(f: *const c_void, a: *const u8, out: *mut u8);
    fn fpforge_ld_binary(f: *const c_void, a: *const u8, b: *const u8, out: *mut u8);
    fn fpforge_ld_ternary(f: *const c_void, a: *const u8, b: *const u8, c: *const u8, out: *mut u8);
    fn fpforge_ld_float_int(f: *const c_void, a: *const u8, n: i32, out: *mut u8);
    fn fpforge_ld_to_int(f: *const c_void, kind: i32, a: *const u8) -> i64;
    fn fpforge_ld_frexp(f: *const c_void, a: *const u8, e: *mut i32, out: *mut u8);
    fn fpforge_ld_modf(f: *const c_void, a: *const u8, ip: *mut u8, out: *mut u8);
    fn fpforge_ld_snprintf(buf: *mut u8, n: usize, fmt: *const c_char, a: *const u8) -> i32;
}

/// The host's `snprintf(buf, n, fmt, x)` of the one `long double` `x`: the bytes it
/// writes (at most 8191), or `None` when it fails.
pub(crate) fn host_format(fmt: &CStr, x: F80) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 8192];
    let bytes = x.to_le_bytes();
    // SAFETY: the buffer is as long as passed, `fmt` is a C string and `bytes` the 10
    // bytes the shim reads.
    let n =
        unsafe { fpforge_ld_snprintf(buf.as_mut_ptr(), buf.len(), fmt.as_ptr(), bytes.as_ptr()) };
    let n = usize::try_from(n).ok().filter(|&n| n < buf.len())?;
    buf.truncate(n);
    Some(buf)
}

/// The C symbol of `f`'s `long double` version, when the C library has one.
pub(crate) fn symbol(f: MathFn) -> Option<String> {
    match f.origin() {
        fpir::MathOrigin::Llvm => None,
        _ => Some(format!("{}l", f.name())),
    }
}

/// The address of `f`'s `long double` version in the host's `libm.so.6`, looked up once.
fn address(f: MathFn) -> Option<*const c_void> {
    static FOUND: OnceLock<Vec<Option<usize>>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        MathFn::ALL
            .iter()
            .map(|&g| symbol(g).and_then(|name| crate::libm::host_symbol(&name)))
            .collect()
    });
    let index = MathFn::ALL.iter().position(|&g| g == f)?;
    found[index].map(|a| a as *const c_void)
}

/// What the call of `f`'s `long double` version on `args` (its operands, see
/// [`fpir::F80Op::Libm`]) of result type `result` computes. `frexpl` and `modfl` store
/// their second result in `mem`.
pub(crate) fn eval(
    mem: &mut Memory,
    f: MathFn,
    result: Type,
    args: &[u64],
) -> Result<Evaluated, TrapKind> {
    let arg = |k: usize| args.get(k).copied().unwrap_or(0);
    let operand = |k: usize| {
        F80 {
            sig: arg(k),
            se: arg(k + 1) as u16,
        }
        .to_le_bytes()
    };
    let Some(address) = address(f) else {
        return Err(TrapKind::UnknownExternal(symbol(f).unwrap_or_default()));
    };
    let a = operand(0);
    let mut out = [0u8; 10];
    // SAFETY: `address` is the C library's `long double` version of `f`, whose C
    // signature the shape gives and the shim called here casts it to; every operand
    // and result buffer is 10 bytes, and the math functions are defined on every value.
    unsafe {
        match f.shape() {
            MathShape::Unary => fpforge_ld_unary(address, a.as_ptr(), out.as_mut_ptr()),
            MathShape::Binary => {
                let b = operand(2);
                fpforge_ld_binary(address, a.as_ptr(), b.as_ptr(), out.as_mut_ptr());
            }
            MathShape::Ternary => {
                let (b, c) = (operand(2), operand(4));
                fpforge_ld_ternary(
                    address,
                    a.as_ptr(),
                    b.as_ptr(),
                    c.as_ptr(),
                    out.as_mut_ptr(),
                );
            }
            MathShape::FloatInt => {
                fpforge_ld_float_int(address, a.as_ptr(), arg(2) as i32, out.as_mut_ptr());
            }
            MathShape::ToInt => {
                let kind = match f.name() {
                    "ilogb" => 0,
                    name if name.starts_with("ll") => 2,
                    _ => 1,
                };
                let v = fpforge_ld_to_int(address, kind, a.as_ptr()) as u64;
                return Ok(Evaluated::Bits(v & result.mask()));
            }
            MathShape::FloatPtrInt => {
                let mut e = 0i32;
                fpforge_ld_frexp(address, a.as_ptr(), &mut e, out.as_mut_ptr());
                mem.store(Type::I32, arg(2), u64::from(e as u32))?;
            }
            MathShape::FloatPtrFloat => {
                let mut ip = [0u8; 10];
                fpforge_ld_modf(address, a.as_ptr(), ip.as_mut_ptr(), out.as_mut_ptr());
                let ip = F80::from_le_bytes(ip);
                mem.store(Type::I64, arg(2), ip.sig)?;
                mem.store(Type::Int(16), arg(2).wrapping_add(8), u64::from(ip.se))?;
            }
        }
    }
    Ok(Evaluated::Extended(F80::from_le_bytes(out)))
}
