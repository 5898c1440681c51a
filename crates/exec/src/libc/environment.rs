//! The `<fenv.h>` functions of the C library model: they read and change the run's
//! [`FloatEnv`], and save it to and restore it from a `fenv_t` in [`Memory`].
//!
//! `fenv_t` is glibc's x86-64 layout (32 bytes: the x87 environment, then MXCSR at
//! byte 28) and `fexcept_t` its `unsigned short`; the rounding mode and the flags are
//! read back from MXCSR. `fesetenv(FE_DFL_ENV)` restores round-to-nearest with no flag;
//! `FE_NOMASK_ENV` (unmasked exceptions, a `SIGFPE` on the next one) is unsupported.

use crate::fenv::FloatEnv;
use crate::memory::Memory;
use crate::trap::TrapKind;
use fpir::eval::{Exceptions, RoundingMode};
use fpir::{LibcFn, Type};

/// `FE_DFL_ENV`, `(const fenv_t *) -1`.
const FE_DFL_ENV: u64 = u64::MAX;
/// `FE_NOMASK_ENV`, `(const fenv_t *) -2`.
const FE_NOMASK_ENV: u64 = u64::MAX - 1;
/// Where MXCSR sits in glibc's `fenv_t`.
const MXCSR_OFFSET: u64 = 28;
/// MXCSR with every exception masked and round-to-nearest.
const MXCSR_DEFAULT: u64 = 0x1f80;

/// Runs the `<fenv.h>` function `f` on its arguments `arg(k)`: its `int` result.
pub(super) fn call(
    mem: &mut Memory,
    env: &mut FloatEnv,
    f: LibcFn,
    arg: impl Fn(usize) -> u64,
) -> Result<i64, TrapKind> {
    let excepts = || Exceptions::from_fe_bits(arg(0));
    match f {
        LibcFn::Fesetround => match RoundingMode::from_fe_value(arg(0) as u32 as i32) {
            Some(mode) => {
                env.set_mode(mode);
                Ok(0)
            }
            None => Ok(1),
        },
        LibcFn::Fegetround => Ok(i64::from(env.mode().fe_value())),
        LibcFn::Feclearexcept => {
            env.set_raised(env.raised().without(excepts()));
            Ok(0)
        }
        LibcFn::Fetestexcept => Ok(i64::from(env.raised().intersect(excepts()).fe_bits())),
        LibcFn::Feraiseexcept => {
            env.set_raised(env.raised() | excepts());
            Ok(0)
        }
        LibcFn::Fegetexceptflag => {
            let kept = env.raised().intersect(Exceptions::from_fe_bits(arg(1)));
            mem.store(Type::Int(16), arg(0), u64::from(kept.fe_bits()))?;
            Ok(0)
        }
        LibcFn::Fesetexceptflag => {
            let chosen = Exceptions::from_fe_bits(arg(1));
            let saved = Exceptions::from_fe_bits(mem.load(Type::Int(16), arg(0))?);
            env.set_raised(env.raised().without(chosen) | saved.intersect(chosen));
            Ok(0)
        }
        LibcFn::Fegetenv => {
            store_env(mem, env, arg(0))?;
            Ok(0)
        }
        LibcFn::Fesetenv => {
            load_env(mem, env, arg(0))?;
            Ok(0)
        }
        LibcFn::Feholdexcept => {
            store_env(mem, env, arg(0))?;
            env.set_raised(Exceptions::NONE);
            Ok(0)
        }
        LibcFn::Feupdateenv => {
            let pending = env.raised();
            load_env(mem, env, arg(0))?;
            env.set_raised(env.raised() | pending);
            Ok(0)
        }
        _ => unreachable!("the C library model passes only <fenv.h> functions"),
    }
}

/// `fegetenv`: glibc's `fenv_t` at `at`, the x87 control and status words mirroring
/// MXCSR.
fn store_env(mem: &mut Memory, env: &FloatEnv, at: u64) -> Result<(), TrapKind> {
    let mode = env.mode().fe_value() as u64;
    let flags = u64::from(env.raised().fe_bits());
    mem.fill(at, 0, 32)?;
    mem.store(Type::Int(16), at, 0x037f | mode)?;
    mem.store(Type::Int(16), at + 4, flags)?;
    mem.store(Type::Int(16), at + 8, 0xffff)?;
    mem.store(
        Type::I32,
        at + MXCSR_OFFSET,
        MXCSR_DEFAULT | mode << 3 | flags,
    )
}

/// `fesetenv`: the mode and flags of the `fenv_t` at `at`, or of `FE_DFL_ENV`.
fn load_env(mem: &Memory, env: &mut FloatEnv, at: u64) -> Result<(), TrapKind> {
    let (mode, raised) = match at {
        FE_DFL_ENV => (RoundingMode::Nearest, Exceptions::NONE),
        FE_NOMASK_ENV => {
            return Err(TrapKind::Unsupported(
                "fesetenv(FE_NOMASK_ENV): unmasked floating-point exceptions".into(),
            ))
        }
        _ => {
            let status = mem.load(Type::Int(16), at + 4)?;
            let mxcsr = mem.load(Type::I32, at + MXCSR_OFFSET)?;
            let mode = RoundingMode::from_fe_value(((mxcsr >> 3) & 0xc00) as i32);
            (
                mode.unwrap_or_default(),
                Exceptions::from_fe_bits(status | mxcsr),
            )
        }
    };
    env.set_mode(mode);
    env.set_raised(raised);
    Ok(())
}
