//! What a call calls: a defined function, a math function (an op site), a builtin with
//! fixed meaning, an intrinsic that lowering drops or forwards, or an unknown external.
//!
//! Precedence: a function defined in the module is always called directly (musl's own
//! `sin` runs as code); otherwise LLVM intrinsics and C math functions with the expected
//! signature (`sin`/`sinf`, `frexp`, `lround`, ...: the rows of fpir's math table, by
//! their [`MathOrigin`]) become [`Callee::Math`], the memory, allocation and termination
//! functions of libc become builtins, the C library functions fpforge models
//! ([`LibcFn`]: output, strings, number parsing, `errno`) become [`Builtin::Libc`], and any
//! other name is an external that traps when called.
//!
//! [`Callee::Math`]: fpir::Callee::Math
//! [`MathOrigin`]: fpir::MathOrigin

use crate::layout::scalar;
use fpir::{Builtin, CastOp, FloatBinOp, LibcFn, MathCall, MathFn, MathShape, Type};
use llvm_ir::Type as LType;

/// How a call to a function that the module does not define is lowered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Target {
    /// Drop the call (debug info, lifetime markers, hints).
    Drop,
    /// The result is argument 0 (`llvm.expect`, libc `memcpy`'s returned pointer); the
    /// call itself is dropped.
    Forward,
    /// A builtin; the call's arguments pass through [`BuiltinArgs`].
    Builtin(Builtin, BuiltinArgs),
    /// A builtin whose result, if used, is argument 0 (libc `memcpy`/`memmove`/`memset`).
    BuiltinReturningArg0(Builtin, BuiltinArgs),
    /// A math function: an op site.
    Math(MathCall),
    /// A constrained floating-point intrinsic (`#pragma STDC FENV_ACCESS ON`), lowered as
    /// the plain operation it constrains: every fpir operation honours the run's
    /// rounding mode and raises its exceptions (see `fpforge-exec`'s `fenv`).
    Constrained(Constrained),
    /// `llvm.eh.typeid.for`: the selector id of a typeinfo, a constant (see `func::eh`).
    TypeidFor,
    /// `llvm.umul.with.overflow.iN` (the size of C++'s `new T[n]`): the product and
    /// whether it wrapped, computed without a branch.
    UmulWithOverflow,
    /// An external that traps when called.
    External,
    /// Something fpir cannot represent.
    Unsupported(&'static str),
}

/// The plain operation behind an `llvm.experimental.constrained.*` intrinsic.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Constrained {
    /// `fadd` .. `frem`.
    Bin(FloatBinOp),
    /// A conversion.
    Cast(CastOp),
    /// `fcmp`/`fcmps`: the predicate comes from [`crate::beside`].
    Fcmp,
}

/// How a builtin's arguments are formed from the call's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BuiltinArgs {
    /// All arguments as they are.
    All,
    /// The first three (drops the `isvolatile` flag of `llvm.mem*`).
    First3,
    /// `(ptr, int, len)` of libc `memset`: the byte is truncated to `i8`.
    MemsetTruncByte,
}

/// Classifies a call of `name` (not defined in the module) with parameter types `params`
/// and result type `ret`.
pub(crate) fn classify(name: &str, params: &[LType], ret: &LType) -> Target {
    if let Some(rest) = name.strip_prefix("llvm.") {
        return classify_intrinsic(rest, params);
    }
    if let Some(call) = c_math(name, params, ret) {
        return Target::Math(call);
    }
    use BuiltinArgs::*;
    match name {
        "memcpy" => Target::BuiltinReturningArg0(Builtin::Memcpy, All),
        "memmove" => Target::BuiltinReturningArg0(Builtin::Memmove, All),
        "memset" => Target::BuiltinReturningArg0(Builtin::Memset, MemsetTruncByte),
        "malloc" => Target::Builtin(Builtin::Malloc, All),
        "calloc" => Target::Builtin(Builtin::Calloc, All),
        "realloc" => Target::Builtin(Builtin::Realloc, All),
        "free" => Target::Builtin(Builtin::Free, All),
        "abort" => Target::Builtin(Builtin::Abort, All),
        "exit" | "_Exit" => Target::Builtin(Builtin::Exit, All),
        "__assert_fail" => Target::Builtin(Builtin::AssertFail, All),
        // The C++ runtime's (crates/lower/runtime/cxxrt.c) raise, and std::terminate.
        "__fpforge_unwind" => Target::Builtin(Builtin::Unwind, All),
        "_ZSt9terminatev" => Target::Builtin(Builtin::Terminate, All),
        "abs" | "labs" | "llabs" => Target::Builtin(Builtin::Abs, All),
        _ => match LibcFn::from_c_symbol(name) {
            Some(f) => Target::Builtin(Builtin::Libc(f), All),
            None => Target::External,
        },
    }
}

fn classify_intrinsic(rest: &str, params: &[LType]) -> Target {
    use BuiltinArgs::*;
    let stem = rest.split('.').next().unwrap_or(rest);
    match stem {
        "dbg" | "lifetime" | "assume" | "donothing" | "prefetch" | "sideeffect" | "var"
        | "pseudoprobe" => return Target::Drop,
        "experimental" if rest.starts_with("experimental.noalias.scope.decl") => {
            return Target::Drop
        }
        "experimental" if rest.starts_with("experimental.constrained.") => {
            return constrained(&rest["experimental.constrained.".len()..], params)
        }
        "expect" | "ssa" | "annotation" => return Target::Forward,
        "eh" if rest.starts_with("eh.typeid.for") => return Target::TypeidFor,
        "umul" if rest.starts_with("umul.with.overflow") => return Target::UmulWithOverflow,
        "ptr" if rest.starts_with("ptr.annotation") => return Target::Forward,
        "memcpy" => return Target::Builtin(Builtin::Memcpy, First3),
        "memmove" => return Target::Builtin(Builtin::Memmove, First3),
        "memset" => return Target::Builtin(Builtin::Memset, First3),
        "ctpop" => return Target::Builtin(Builtin::Ctpop, All),
        "ctlz" => return Target::Builtin(Builtin::Ctlz, All),
        "cttz" => return Target::Builtin(Builtin::Cttz, All),
        "bswap" => return Target::Builtin(Builtin::Bswap, All),
        "abs" => return Target::Builtin(Builtin::Abs, All),
        "smax" => return Target::Builtin(Builtin::Smax, All),
        "smin" => return Target::Builtin(Builtin::Smin, All),
        "umax" => return Target::Builtin(Builtin::Umax, All),
        "umin" => return Target::Builtin(Builtin::Umin, All),
        "stacksave" => return Target::Builtin(Builtin::StackSave, All),
        "stackrestore" => return Target::Builtin(Builtin::StackRestore, All),
        "trap" | "debugtrap" | "ubsantrap" => return Target::Builtin(Builtin::Abort, All),
        "va_start" | "va_end" | "va_copy" => {
            return Target::Unsupported("variable arguments (va_start/va_arg)")
        }
        _ => {}
    }
    let Some(func) = intrinsic_math(stem) else {
        return Target::Unsupported("LLVM intrinsic");
    };
    match params.first().and_then(scalar).and_then(Type::as_float) {
        Some(ty) => Target::Math(MathCall { func, ty }),
        None => Target::Unsupported("math intrinsic on a type other than float or double"),
    }
}

fn constrained(rest: &str, params: &[LType]) -> Target {
    let stem = rest.split('.').next().unwrap_or(rest);
    let op = match stem {
        "fadd" => Constrained::Bin(FloatBinOp::Fadd),
        "fsub" => Constrained::Bin(FloatBinOp::Fsub),
        "fmul" => Constrained::Bin(FloatBinOp::Fmul),
        "fdiv" => Constrained::Bin(FloatBinOp::Fdiv),
        "frem" => Constrained::Bin(FloatBinOp::Frem),
        "fpext" => Constrained::Cast(CastOp::Fpext),
        "fptrunc" => Constrained::Cast(CastOp::Fptrunc),
        "sitofp" => Constrained::Cast(CastOp::Sitofp),
        "uitofp" => Constrained::Cast(CastOp::Uitofp),
        "fptosi" => Constrained::Cast(CastOp::Fptosi),
        "fptoui" => Constrained::Cast(CastOp::Fptoui),
        "fcmp" | "fcmps" => Constrained::Fcmp,
        _ => match intrinsic_math(stem) {
            Some(func) => match params.first().and_then(scalar).and_then(Type::as_float) {
                Some(ty) => return Target::Math(MathCall { func, ty }),
                None => {
                    return Target::Unsupported(
                        "math intrinsic on a type other than float or double",
                    )
                }
            },
            None => return Target::Unsupported("constrained floating-point intrinsic"),
        },
    };
    Target::Constrained(op)
}

/// The math function LLVM names `llvm.STEM.*`, if it has an intrinsic.
fn intrinsic_math(stem: &str) -> Option<MathFn> {
    MathFn::from_name(stem).filter(|f| f.origin().is_llvm_intrinsic())
}

/// A C math function (`sin`, `sinf`, ...) called with the signature it has in `<math.h>`.
fn c_math(name: &str, params: &[LType], ret: &LType) -> Option<MathCall> {
    let call = MathCall::from_c_symbol(name)?;
    let f = Some(Type::Float(call.ty));
    let ps: Vec<Option<Type>> = params.iter().map(scalar).collect();
    let r = scalar(ret);
    let ok = match call.func.shape() {
        MathShape::Unary => ps == [f] && r == f,
        MathShape::Binary => ps == [f, f] && r == f,
        MathShape::Ternary => ps == [f, f, f] && r == f,
        MathShape::FloatInt => ps == [f, Some(Type::I32)] && r == f,
        MathShape::ToInt => ps == [f] && r.is_some_and(Type::is_int),
        MathShape::FloatPtrInt | MathShape::FloatPtrFloat => ps == [f, Some(Type::Ptr)] && r == f,
    };
    ok.then_some(call)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpir::FloatTy;

    const D: LType = LType::FPType(llvm_ir::types::FPType::Double);
    const F: LType = LType::FPType(llvm_ir::types::FPType::Single);
    const I32: LType = LType::IntegerType { bits: 32 };

    #[test]
    fn c_math_names_and_signatures() {
        let sin = classify("sin", &[D], &D);
        assert_eq!(
            sin,
            Target::Math(MathCall {
                func: MathFn::Sin,
                ty: FloatTy::F64
            })
        );
        let modff = classify("erff", &[F], &F);
        assert_eq!(
            modff,
            Target::Math(MathCall {
                func: MathFn::Erf,
                ty: FloatTy::F32
            })
        );
        assert_eq!(
            classify("ilogbf", &[F], &I32),
            Target::Math(MathCall {
                func: MathFn::Ilogb,
                ty: FloatTy::F32
            })
        );
        assert_eq!(classify("sin", &[I32], &D), Target::External);
        assert_eq!(classify("fmuladd", &[D, D, D], &D), Target::External);
        assert_eq!(
            classify("printf", &[], &I32),
            Target::Builtin(Builtin::Libc(LibcFn::Printf), BuiltinArgs::All)
        );
        assert_eq!(
            classify("labs", &[I32], &I32),
            Target::Builtin(Builtin::Abs, BuiltinArgs::All)
        );
        assert_eq!(classify("fopen", &[], &I32), Target::External);
    }

    #[test]
    fn intrinsics() {
        assert_eq!(
            classify("llvm.fmuladd.f64", &[D, D, D], &D),
            Target::Math(MathCall {
                func: MathFn::Fmuladd,
                ty: FloatTy::F64
            })
        );
        assert_eq!(classify("llvm.dbg.value", &[], &D), Target::Drop);
        assert_eq!(
            classify("llvm.memcpy.p0i8.p0i8.i64", &[], &D),
            Target::Builtin(Builtin::Memcpy, BuiltinArgs::First3)
        );
        assert!(matches!(
            classify(
                "llvm.sin.f80",
                &[LType::FPType(llvm_ir::types::FPType::X86_FP80)],
                &D
            ),
            Target::Unsupported(_)
        ));
    }
}
