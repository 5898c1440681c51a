//! What each [`Builtin`] (the C library's memory functions, `exit` and `abort`, LLVM's
//! bit intrinsics, and the operations on extended values) does to memory and values
//! under a [`Semantics`].
//!
//! Both the interpreter's `step` and the compiled tier's runtime helpers call [`run`],
//! and both compute operations on extended values with [`f80_evaluated`], so the two
//! tiers agree on every builtin by construction; this module sits below both (it needs
//! only the semantics, memory and the run's [`RunEnv`]). The rest of the C library model
//! ([`crate::libc`]) is the interpreter's alone.

use crate::env::RunEnv;
use crate::fenv::FloatEnv;
use crate::memory::Memory;
use crate::semantics::Semantics;
use crate::trap::TrapKind;
use fpir::f80::{Evaluated, OtherHalf, MAX_ARGS};

/// The most arguments an operation on extended values takes (`fmal`: three extended
/// operands of two registers each).
pub use fpir::f80::MAX_ARGS as F80_MAX_ARGS;
use fpir::{Builtin, F80Op, MathShape, Type};

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
        // Any number of arguments, more than this entry carries: the interpreter calls
        // `crate::libc::call` itself (and the compiled tier bails at such a call), and
        // calls `Semantics::f80` with all of an extended operation's arguments, as the
        // compiled tier calls `f80_evaluated`.
        Builtin::Libc(_) | Builtin::F80(_) => return Err(TrapKind::Unreachable),
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

/// What the operation on extended values `op` gives on the concrete bits `args` of its
/// arguments (0 past the last), for a call of result type `ty` (which half of an
/// extended result, or the float or integer type of the others; see [`F80Op`]). Rounds
/// in the run's rounding mode, and so do the host's `*l` functions, called with the
/// host in that mode.
///
/// Lowering computes an extended result with two calls on the same arguments, one per
/// half, one after the other: the first keeps the half it does not return in `env` (an
/// [`OtherHalf`]), and the second returns it without computing the value again.
pub fn f80_concrete(
    mem: &mut Memory,
    env: &mut RunEnv,
    op: F80Op,
    ty: Type,
    args: &[u64],
) -> Result<u64, TrapKind> {
    let mut words = [0u64; MAX_ARGS];
    let n = args.len().min(MAX_ARGS);
    words[..n].copy_from_slice(&args[..n]);
    let round = env.float.mode().apfloat();
    let kept = env.f80_half.take();
    let bits = match kept.and_then(|half| half.answer(op, ty, &words, round)) {
        Some(bits) => bits,
        None => {
            let evaluated = f80_evaluated(mem, &mut env.float, op, ty, &words)?;
            if let Evaluated::Extended(x) = evaluated {
                if keeps_other_half(&env.float, op) {
                    env.f80_half = Some(OtherHalf::of(x, op, ty, &words, round));
                }
            }
            evaluated.for_result(ty)
        }
    };
    Ok(bits & ty.mask())
}

/// Whether the call of the other half of `op`'s result may skip computing it:
/// not for `frexpl` and `modfl`, whose every call stores its second result, nor for a
/// host `*l` function whose every call raises its exceptions in a modelled environment.
fn keeps_other_half(float: &FloatEnv, op: F80Op) -> bool {
    let F80Op::Libm(f) = op else {
        return true;
    };
    let stores = matches!(f.shape(), MathShape::FloatPtrInt | MathShape::FloatPtrFloat);
    float.is_native() && !stores
}

/// What an operation on extended values computes on the concrete bits `args`, for a
/// call whose result type is `ty`: both halves of an extended result at once. Rounds in
/// the run's rounding mode (nearest-even unless the program changed it), and so do the
/// host's `*l` functions, called with the host in that mode (glibc's `expl` rounds its
/// result, and steers its argument reduction, by the current mode); their exceptions
/// are recorded in `float`.
pub(crate) fn f80_evaluated(
    mem: &mut Memory,
    float: &mut FloatEnv,
    op: F80Op,
    ty: Type,
    args: &[u64],
) -> Result<Evaluated, TrapKind> {
    let mode = float.mode();
    let F80Op::Libm(f) = op else {
        let evaluated = fpir::f80::evaluate(op, ty, args, mode.apfloat());
        return Ok(evaluated.expect("every operation but the math functions is fpir's"));
    };
    if float.is_native() {
        return crate::libm_f80::eval(mem, f, ty, args);
    }
    let (evaluated, raised) =
        crate::libm::under_host_mode(mode, || crate::libm_f80::eval(mem, f, ty, args));
    float.set_raised(float.raised() | raised);
    evaluated
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
