//! What each [`Builtin`] (the C library's memory functions, `exit` and `abort`, LLVM's
//! bit intrinsics, and through [`crate::libc`] the rest of the C library model) does to memory and values under a [`Semantics`].
//!
//! Both the interpreter's `step` and the compiled tier's runtime helper call [`run`], so
//! the two tiers agree on every builtin by construction; this module sits below both
//! (it needs only the semantics and memory).

use crate::memory::Memory;
use crate::semantics::Semantics;
use crate::trap::TrapKind;
use fpir::{Builtin, F80Op, Type};

/// Runs builtin `b` at type `ty` on arguments whose concrete bits are `bits` (0 past the
/// last argument) and whose values `value(k)` returns, in a frame whose stack mark is
/// `mark` (`u64::MAX` when the frame never moves the stack pointer). Returns the result
/// (`None` for builtins that return nothing) or the trap the call raises.
#[inline]
pub(crate) fn run<'v, S: Semantics>(
    sem: &mut S,
    mem: &mut Memory,
    b: Builtin,
    ty: Type,
    bits: [u64; 3],
    value: impl Fn(usize) -> &'v S::Value,
    mark: u64,
) -> Result<Option<S::Value>, TrapKind>
where
    S::Value: 'v,
{
    let [a, x, n] = bits;
    let result = match b {
        Builtin::Memcpy | Builtin::Memmove => {
            sem.copy(mem, a, x, n)?;
            sem.address(a)
        }
        Builtin::Memset => {
            sem.fill(mem, a, x as u8, n)?;
            sem.address(a)
        }
        Builtin::Malloc => {
            let p = mem.malloc(a)?;
            sem.address(p)
        }
        Builtin::Calloc => {
            let p = match a.checked_mul(x) {
                Some(size) => mem.malloc(size)?,
                None => 0,
            };
            sem.address(p)
        }
        Builtin::Realloc => {
            let p = realloc(sem, mem, a, x)?;
            sem.address(p)
        }
        Builtin::Free => {
            mem.free(a)?;
            return Ok(None);
        }
        Builtin::Abort => return Err(TrapKind::Abort),
        Builtin::Exit => return Err(TrapKind::Exit(a as u32 as i32)),
        Builtin::AssertFail => return Err(TrapKind::AssertFail),
        Builtin::Ctpop => sem.ctpop(ty, value(0)),
        Builtin::Ctlz => sem.ctlz(ty, value(0)),
        Builtin::Cttz => sem.cttz(ty, value(0)),
        Builtin::Bswap => sem.bswap(ty, value(0)),
        Builtin::Abs => sem.abs(ty, value(0)),
        Builtin::Smax => sem.smax(ty, value(0), value(1)),
        Builtin::Smin => sem.smin(ty, value(0), value(1)),
        Builtin::Umax => sem.umax(ty, value(0), value(1)),
        Builtin::Umin => sem.umin(ty, value(0), value(1)),
        Builtin::StackSave => sem.address(mem.stack_pointer()),
        Builtin::AccessSlack => sem.constant(Type::I64, mem.access_slack(a, x) as u64),
        Builtin::BoundsFault => {
            return Err(TrapKind::ObjectOverrun {
                offset: a as i64,
                size: n,
                object: x,
            })
        }
        Builtin::Libc(f) => return crate::libc::call(sem, mem, f, &bits),
        Builtin::F80(op) => f80(sem, mem, op, ty, &bits)?,
        Builtin::Unwind => return Err(TrapKind::Raised { exception: a }),
        Builtin::Terminate => return Err(TrapKind::Terminate),
        Builtin::StackRestore => {
            // A restore below the frame's own mark would free the caller's allocas.
            if a >= mark {
                mem.stack_release(a);
            }
            return Ok(None);
        }
    };
    Ok(Some(result))
}

/// An operation on extended values (`long double`) on the concrete bits `args`, its
/// result a constant to every semantics; `ty` is the call's result type. Rounds in the
/// run's rounding mode (nearest-even unless the program changed it), and so do the
/// host's `*l` functions, called with the host in that mode (glibc's `expl` rounds
/// its result, and steers its argument reduction, by the current mode).
pub(crate) fn f80<S: Semantics>(
    sem: &mut S,
    mem: &mut Memory,
    op: F80Op,
    ty: Type,
    args: &[u64],
) -> Result<S::Value, TrapKind> {
    let mode = mem.float_env().mode();
    let bits = match fpir::f80::eval_builtin(op, ty, args, mode.apfloat()) {
        Some(bits) => bits,
        None if mem.float_env().is_native() => crate::libm_f80::eval(mem, ty, args)?,
        None => {
            let (bits, raised) =
                crate::libm::under_host_mode(mode, || crate::libm_f80::eval(mem, ty, args));
            let env = mem.float_env_mut();
            env.set_raised(env.raised() | raised);
            bits?
        }
    };
    Ok(sem.constant(ty, bits & ty.mask()))
}

/// `realloc(p, size)` as glibc does it: NULL mallocs, size 0 frees and returns NULL, a
/// failed allocation leaves the block alone and returns NULL.
fn realloc<S: Semantics>(
    sem: &mut S,
    mem: &mut Memory,
    p: u64,
    size: u64,
) -> Result<u64, TrapKind> {
    if p == 0 {
        return mem.malloc(size);
    }
    let old = mem.block_size(p)?;
    if size == 0 {
        mem.free(p)?;
        return Ok(0);
    }
    let q = mem.malloc(size)?;
    if q != 0 {
        sem.copy(mem, q, p, old.min(size))?;
        mem.free(p)?;
    }
    Ok(q)
}
