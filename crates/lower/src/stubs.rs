//! Stubs: function bodies synthesized for functions the module only declares but whose
//! address it takes (`integrate(sin, 0, 1)`, a table of libm function pointers).
//!
//! fpir addresses name functions with bodies, so each such declaration gets a one-block
//! function of the same name and signature that makes the call a direct call would make
//! (a math call, a builtin or an external that traps) and returns its result. Stubs get
//! the function ids after every defined function, in the order their addresses are
//! first taken, so they never disturb the numbering of defined functions or of the
//! branch sites; a stub's math call is an op site numbered after all the textual ones.
//! Aliases of defined functions get a similar forwarding function ([`alias_function`]).

use crate::calls::{classify, BuiltinArgs, Target};
use crate::ctx::Ctx;
use crate::error::LowerError;
use crate::layout::{describe_unsupported, scalar};
use fpir::{
    BlockData, Builtin, Callee, CastOp, EntityVec, Func, Function, Inst, InstKind, Reg, Terminator,
    Type,
};
use llvm_ir::function::FunctionDeclaration;

/// Builds the stub for `decl`.
pub(crate) fn lower_stub(
    ctx: &mut Ctx,
    decl: &FunctionDeclaration,
) -> Result<Function, LowerError> {
    let location = {
        let loc = ctx.src_loc(&decl.debugloc);
        ctx.out.describe_loc(loc)
    };
    let unsupported = |what: String| LowerError::Unsupported {
        what: format!("taking the address of `{}`: {what}", decl.name),
        location: location.clone(),
        reached: Vec::new(),
    };
    let mut regs: EntityVec<Reg, Type> = EntityVec::new();
    let mut params = Vec::with_capacity(decl.parameters.len());
    let mut param_pointees = Vec::with_capacity(decl.parameters.len());
    for p in &decl.parameters {
        let ty = scalar(&p.ty)
            .ok_or_else(|| unsupported(format!("{} parameter", describe_unsupported(&p.ty))))?;
        params.push(regs.push(ty));
        param_pointees.push(match p.ty.as_ref() {
            llvm_ir::Type::PointerType { pointee_type, .. } => scalar(pointee_type),
            _ => None,
        });
    }
    let ret = match decl.return_type.as_ref() {
        llvm_ir::Type::VoidType => None,
        other => Some(
            scalar(other)
                .ok_or_else(|| unsupported(format!("{} result", describe_unsupported(other))))?,
        ),
    };
    let param_types: Vec<llvm_ir::Type> = decl
        .parameters
        .iter()
        .map(|p| p.ty.as_ref().clone())
        .collect();
    let mut insts = Vec::new();
    let mut args = params.clone();
    let callee = match classify(&decl.name, &param_types, &decl.return_type) {
        Target::Math(call) => Callee::Math(call, ctx.next_op()),
        Target::External => Callee::External(ctx.external(&decl.name)),
        Target::Builtin(b, how) | Target::BuiltinReturningArg0(b, how) => {
            if how == BuiltinArgs::MemsetTruncByte {
                if let Some(byte) = args.get(1).copied().filter(|&r| regs[r] != Type::I8) {
                    let narrow = regs.push(Type::I8);
                    insts.push(Inst {
                        dest: Some(narrow),
                        kind: InstKind::Cast {
                            op: CastOp::Trunc,
                            from: regs[byte],
                            to: Type::I8,
                            arg: byte,
                        },
                    });
                    args[1] = narrow;
                }
            }
            Callee::Builtin(b)
        }
        Target::Drop
        | Target::Forward
        | Target::Constrained(_)
        | Target::TypeidFor
        | Target::UmulWithOverflow
        | Target::Unsupported(_) => return Err(unsupported("it is an LLVM intrinsic".to_string())),
    };
    let (dest, result) = match callee {
        // libc `memcpy`/`memmove`/`memset` return their first argument.
        Callee::Builtin(b) if returns_first_argument(b) && ret.is_some() => {
            (None, params.first().copied())
        }
        _ => {
            let dest = ret.map(|t| regs.push(t));
            (dest, dest)
        }
    };
    insts.push(Inst {
        dest,
        kind: InstKind::Call { callee, args },
    });
    let n = params.len();
    let locs = vec![None; insts.len()];
    let mut blocks = EntityVec::new();
    blocks.push(BlockData {
        params,
        insts,
        locs,
        term: Terminator::Ret(result),
        term_loc: None,
    });
    Ok(Function {
        name: decl.name.clone(),
        demangled: fpir::names::demangle(&decl.name),
        ret,
        param_pointees,
        param_names: vec![None; n],
        regs,
        consts: Vec::new(),
        blocks,
        loc: None,
    })
}

/// The stub of `decl` when [`lower_stub`] fails with `error` (a signature fpir cannot
/// hold): no parameters, and a call of the external naming the function and why, so
/// that calling it traps like a skeleton of a defined function.
pub(crate) fn trapping_stub(
    ctx: &mut Ctx,
    decl: &FunctionDeclaration,
    error: &LowerError,
) -> Function {
    let trap = ctx.external(&format!("{} (not lowered: {error})", decl.name));
    let mut blocks = EntityVec::new();
    blocks.push(BlockData {
        params: Vec::new(),
        insts: vec![Inst {
            dest: None,
            kind: InstKind::Call {
                callee: Callee::External(trap),
                args: Vec::new(),
            },
        }],
        locs: vec![None],
        term: Terminator::Unreachable,
        term_loc: None,
    });
    Function {
        name: decl.name.clone(),
        demangled: fpir::names::demangle(&decl.name),
        ret: None,
        param_pointees: Vec::new(),
        param_names: Vec::new(),
        regs: EntityVec::new(),
        consts: Vec::new(),
        blocks,
        loc: None,
    }
}

fn returns_first_argument(b: Builtin) -> bool {
    matches!(b, Builtin::Memcpy | Builtin::Memmove | Builtin::Memset)
}

/// A function named `name` that calls `target` (whose lowered form is `callee`) with its
/// own parameters and returns the result: what an alias of `target` runs.
pub(crate) fn alias_function(name: &str, target: Func, callee: &Function) -> Function {
    let mut regs: EntityVec<Reg, Type> = EntityVec::new();
    let params: Vec<Reg> = callee
        .param_types()
        .into_iter()
        .map(|t| regs.push(t))
        .collect();
    let dest = callee.ret.map(|t| regs.push(t));
    let mut blocks = EntityVec::new();
    blocks.push(BlockData {
        params: params.clone(),
        insts: vec![Inst {
            dest,
            kind: InstKind::Call {
                callee: Callee::Direct(target),
                args: params,
            },
        }],
        locs: vec![callee.loc],
        term: Terminator::Ret(dest),
        term_loc: callee.loc,
    });
    Function {
        name: name.to_string(),
        demangled: fpir::names::demangle(name),
        ret: callee.ret,
        param_pointees: callee.param_pointees.clone(),
        param_names: callee.param_names.clone(),
        regs,
        consts: Vec::new(),
        blocks,
        loc: callee.loc,
    }
}
