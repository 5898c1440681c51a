//! The floating-point environment of a run (`<fenv.h>`): the rounding mode every
//! rounding operation honours and the sticky exception flags, which [`crate::Memory`]
//! keeps per run; the `<fenv.h>` functions of the C library model; and what each
//! floating-point operation computes and raises in a modelled environment.
//!
//! A run starts in [`crate::ExecConfig::rounding`] with no flag raised. Its environment
//! is [`EnvModel::Native`] when it starts to nearest and the program calls no `<fenv.h>`
//! function: the mode cannot change and the flags cannot be read, so operations run as
//! the host computes them (and the compiled tier may run the code). Otherwise it is
//! [`EnvModel::Exact`]: every rounding operation goes through [`fpir::eval::rounded`]
//! (the mode's result and the exceptions SSE raises), and the host C library's math
//! functions run with the host in the run's mode ([`crate::libm::eval_in`]). Only the
//! interpreter runs such a program (see [`crate::Interpreter::new`]).
//!
//! `fenv_t` is glibc's x86-64 layout (32 bytes: the x87 environment, then MXCSR at
//! byte 28) and `fexcept_t` its `unsigned short`; the rounding mode and the flags are
//! read back from MXCSR. `fesetenv(FE_DFL_ENV)` restores round-to-nearest with no flag;
//! `FE_NOMASK_ENV` (unmasked exceptions, a `SIGFPE` on the next one) is unsupported.

use crate::libm;
use crate::memory::Memory;
use crate::trap::TrapKind;
use fpir::eval::rounded::{self, Rounded};
use fpir::eval::{Exceptions, RoundingMode};
use fpir::{FloatBinOp, FloatTy, LibcFn, MathCall, MathFn, Type};

/// How a run's floating-point operations are computed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum EnvModel {
    /// As the host computes them, to nearest, with no flag kept.
    #[default]
    Native,
    /// In the run's rounding mode, with every exception recorded.
    Exact,
}

/// A run's rounding mode and raised exceptions.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct FloatEnv {
    model: EnvModel,
    start: RoundingMode,
    mode: RoundingMode,
    raised: Exceptions,
}

/// `FE_DFL_ENV`, `(const fenv_t *) -1`.
const FE_DFL_ENV: u64 = u64::MAX;
/// `FE_NOMASK_ENV`, `(const fenv_t *) -2`.
const FE_NOMASK_ENV: u64 = u64::MAX - 1;
/// Where MXCSR sits in glibc's `fenv_t`.
const MXCSR_OFFSET: u64 = 28;
/// MXCSR with every exception masked and round-to-nearest.
const MXCSR_DEFAULT: u64 = 0x1f80;

impl FloatEnv {
    /// An environment of the given model whose runs start in `start`.
    pub fn new(model: EnvModel, start: RoundingMode) -> FloatEnv {
        FloatEnv {
            model,
            start,
            mode: start,
            raised: Exceptions::NONE,
        }
    }

    /// How operations are computed.
    pub fn model(&self) -> EnvModel {
        self.model
    }

    /// The rounding mode runs start in.
    pub fn start(&self) -> RoundingMode {
        self.start
    }

    /// The current rounding mode.
    pub fn mode(&self) -> RoundingMode {
        self.mode
    }

    /// The exceptions raised so far in the run.
    pub fn raised(&self) -> Exceptions {
        self.raised
    }

    /// Back to the start of a run.
    pub(crate) fn reset(&mut self) {
        self.mode = self.start;
        self.raised = Exceptions::NONE;
    }

    /// Whether operations run as the host computes them.
    #[inline(always)]
    pub(crate) fn is_native(&self) -> bool {
        self.model == EnvModel::Native
    }

    /// Records what an operation raised and gives its result.
    pub(crate) fn record(&mut self, r: Rounded) -> u64 {
        self.raised |= r.raised;
        r.bits
    }
}

/// A float binary operation in `mode`.
pub(crate) fn float_bin(
    op: FloatBinOp,
    ty: FloatTy,
    mode: RoundingMode,
    a: u64,
    b: u64,
) -> Rounded {
    match op {
        FloatBinOp::Fadd => rounded::fadd_in(ty, mode, a, b),
        FloatBinOp::Fsub => rounded::fsub_in(ty, mode, a, b),
        FloatBinOp::Fmul => rounded::fmul_in(ty, mode, a, b),
        FloatBinOp::Fdiv => rounded::fdiv_in(ty, mode, a, b),
        FloatBinOp::Frem => {
            let call = MathCall {
                func: MathFn::Fmod,
                ty,
            };
            let (bits, _, raised) = libm::eval_in(call, &[a, b], Type::Float(ty), mode);
            Rounded { bits, raised }
        }
    }
}

/// A conversion that involves a float (`fptrunc`, `fpext`, `fptosi`, `fptoui`,
/// `sitofp`, `uitofp`) in `mode`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FloatCast {
    Convert,
    ToSigned,
    ToUnsigned,
    FromSigned,
    FromUnsigned,
}

impl FloatCast {
    pub(crate) fn eval(self, from: Type, to: Type, mode: RoundingMode, a: u64) -> Rounded {
        let float = |t: Type| t.as_float().unwrap_or(FloatTy::F64);
        match self {
            FloatCast::Convert => rounded::fconvert_in(float(from), float(to), mode, a),
            FloatCast::ToSigned => rounded::fptosi_in(from, to, a),
            FloatCast::ToUnsigned => rounded::fptoui_in(from, to, mode, a),
            FloatCast::FromSigned => rounded::sitofp_in(from, float(to), mode, a),
            FloatCast::FromUnsigned => rounded::uitofp_in(from, float(to), mode, a),
        }
    }
}

/// A math call in `mode`: the result, the second result of `frexp`/`modf`, and what it
/// raised. `sqrt`, `fma` and `fmuladd` are rounded operations of their own; the
/// sign-bit functions raise nothing; the others are the host's under `mode`.
pub(crate) fn math(
    call: MathCall,
    args: &[u64],
    ret: Type,
    mode: RoundingMode,
) -> (u64, Option<u64>, Exceptions) {
    let arg = |k: usize| args.get(k).copied().unwrap_or(0);
    let ty = call.ty;
    let single = |r: Rounded| (r.bits, None, r.raised);
    match call.func {
        MathFn::Sqrt => single(rounded::sqrt_in(ty, mode, arg(0))),
        MathFn::Fma => single(rounded::fma_in(ty, mode, arg(0), arg(1), arg(2))),
        MathFn::Fmuladd => {
            // Two roundings, as clang -O0 computes it (see `crate::libm`).
            let product = rounded::fmul_in(ty, mode, arg(0), arg(1));
            let sum = rounded::fadd_in(ty, mode, product.bits, arg(2));
            (sum.bits, None, product.raised | sum.raised)
        }
        func => match func.sign_bit_op() {
            Some(op) => (op.eval(ty, arg(0), arg(1)), None, Exceptions::NONE),
            None => libm::eval_in(call, args, ret, mode),
        },
    }
}

/// Runs the `<fenv.h>` function `f` on its arguments `arg(k)`: its `int` result.
pub(crate) fn call(
    mem: &mut Memory,
    f: LibcFn,
    arg: impl Fn(usize) -> u64,
) -> Result<i64, TrapKind> {
    let excepts = || Exceptions::from_fe_bits(arg(0));
    let env = mem.float_env_mut();
    match f {
        LibcFn::Fesetround => match RoundingMode::from_fe_value(arg(0) as u32 as i32) {
            Some(mode) => {
                env.mode = mode;
                Ok(0)
            }
            None => Ok(1),
        },
        LibcFn::Fegetround => Ok(i64::from(env.mode.fe_value())),
        LibcFn::Feclearexcept => {
            env.raised = env.raised.without(excepts());
            Ok(0)
        }
        LibcFn::Fetestexcept => Ok(i64::from(env.raised.intersect(excepts()).fe_bits())),
        LibcFn::Feraiseexcept => {
            env.raised |= excepts();
            Ok(0)
        }
        LibcFn::Fegetexceptflag => {
            let kept = env.raised.intersect(Exceptions::from_fe_bits(arg(1)));
            mem.store(Type::Int(16), arg(0), u64::from(kept.fe_bits()))?;
            Ok(0)
        }
        LibcFn::Fesetexceptflag => {
            let chosen = Exceptions::from_fe_bits(arg(1));
            let saved = Exceptions::from_fe_bits(mem.load(Type::Int(16), arg(0))?);
            let env = mem.float_env_mut();
            env.raised = env.raised.without(chosen) | saved.intersect(chosen);
            Ok(0)
        }
        LibcFn::Fegetenv => {
            store_env(mem, arg(0))?;
            Ok(0)
        }
        LibcFn::Fesetenv => {
            load_env(mem, arg(0))?;
            Ok(0)
        }
        LibcFn::Feholdexcept => {
            store_env(mem, arg(0))?;
            mem.float_env_mut().raised = Exceptions::NONE;
            Ok(0)
        }
        LibcFn::Feupdateenv => {
            let pending = mem.float_env().raised;
            load_env(mem, arg(0))?;
            mem.float_env_mut().raised |= pending;
            Ok(0)
        }
        _ => unreachable!("the C library model passes only <fenv.h> functions"),
    }
}

/// `fegetenv`: glibc's `fenv_t` at `at`, the x87 control and status words mirroring
/// MXCSR.
fn store_env(mem: &mut Memory, at: u64) -> Result<(), TrapKind> {
    let env = *mem.float_env();
    let mode = env.mode.fe_value() as u64;
    let flags = u64::from(env.raised.fe_bits());
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
fn load_env(mem: &mut Memory, at: u64) -> Result<(), TrapKind> {
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
    let env = mem.float_env_mut();
    env.mode = mode;
    env.raised = raised;
    Ok(())
}
