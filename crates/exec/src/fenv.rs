//! The floating-point environment of a run (`<fenv.h>`): the rounding mode every
//! rounding operation honours and the sticky exception flags, which the run's
//! [`crate::RunEnv`] keeps, and what each floating-point operation computes and raises
//! in a modelled environment. The `<fenv.h>` functions that read and change it are the
//! C library model's (`crate::libc`).
//!
//! A run starts in [`crate::ExecConfig::rounding`] with no flag raised. Its environment
//! is [`EnvModel::Native`] when it starts to nearest and the program calls no `<fenv.h>`
//! function: the mode cannot change and the flags cannot be read, so operations run as
//! the host computes them (and the compiled tier may run the code). Otherwise it is
//! [`EnvModel::Exact`]: every rounding operation goes through [`fpir::eval::rounded`]
//! (the mode's result and the exceptions SSE raises), and the host C library's math
//! functions run with the host in the run's mode ([`crate::libm::eval_in`]). Only the
//! interpreter runs such a program (see [`crate::Interpreter::new`]).

use crate::libm;
use fpir::eval::rounded::{self, Rounded};
use fpir::eval::{Exceptions, RoundingMode};
use fpir::{FloatBinOp, FloatTy, MathCall, MathFn, Type};

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

    pub(crate) fn set_mode(&mut self, mode: RoundingMode) {
        self.mode = mode;
    }

    pub(crate) fn set_raised(&mut self, raised: Exceptions) {
        self.raised = raised;
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

/// A conversion that involves a float, each computed in a mode by [`FloatCast::eval`]
/// (`fptosi` and `fptoui` truncate, whatever the mode, but raise).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FloatCast {
    Fptrunc,
    Fpext,
    Fptoui,
    Fptosi,
    Uitofp,
    Sitofp,
}

impl FloatCast {
    pub(crate) fn eval(self, from: Type, to: Type, mode: RoundingMode, a: u64) -> Rounded {
        let float = |t: Type| t.as_float().unwrap_or(FloatTy::F64);
        match self {
            FloatCast::Fptrunc | FloatCast::Fpext => {
                rounded::fconvert_in(float(from), float(to), mode, a)
            }
            FloatCast::Fptosi => rounded::fptosi_in(from, to, a),
            FloatCast::Fptoui => rounded::fptoui_in(from, to, mode, a),
            FloatCast::Sitofp => rounded::sitofp_in(from, float(to), mode, a),
            FloatCast::Uitofp => rounded::uitofp_in(from, float(to), mode, a),
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
