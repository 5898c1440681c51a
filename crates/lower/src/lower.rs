//! Module-level lowering, the orchestration of the other modules: the symbol table
//! ([`crate::symbols`]), global initializers ([`crate::consts`]), the function bodies
//! ([`crate::func`]), stubs ([`crate::stubs`]), then the site tables.
//!
//! Functions keep their definition order and globals their order in the LLVM module
//! (see [`crate::symbols`]). Stubs for declared functions whose address is taken come
//! after the defined functions, then one function per alias of a function (musl's
//! `weak_alias(__lgamma_r, lgamma_r)`), which calls its target, so the alias name can be
//! run too; calls and addresses inside the module go to the target directly.
//! Declarations of global variables that no input defines (`extern double table[];`)
//! become zero-filled globals.
//!
//! Branch and op sites are numbered while lowering, in LLVM textual order: functions in
//! definition order, blocks in order, instructions in order. Branch sites come in two
//! series (see [`crate::ctx`]): first one per conditional `br` (also `br i1 true`) and
//! per `switch`, then one per `select` whose condition is not a constant, which lowering
//! turns into a branch (see [`crate::func`]); skeletons of unsupported functions keep
//! theirs, so the numbering stays textual. One op site per
//! `fadd`/`fsub`/`fmul`/`fdiv`/`frem` (also their constrained intrinsics) and per math
//! call. That order is a contract with the differential test harness, which numbers the
//! `br i1` and `switch` lines, then the `select i1 %...` lines, of `llvm-dis` output of
//! the same bitcode and must get the same ids. Floating-point operations on unsupported
//! types in dead code, which lowering drops, get no op site; stubs' math calls are
//! numbered last.

use crate::consts::Folded;
use crate::ctx::Ctx;
use crate::error::LowerError;
use crate::fenv::FcmpPredicates;
use crate::func::lower_function;
use crate::stubs::{alias_function, lower_stub};
use crate::symbols::{name_text, Symbols};
use fpir::{AddrBase, Global, GlobalData, Reloc};
use llvm_ir::module::GlobalVariable;
use llvm_ir::terminator::Terminator;
use llvm_ir::Type;

/// Lowers a parsed LLVM module to fpir and indexes its sites.
pub(crate) fn lower_module(
    llvm: &llvm_ir::Module,
    skip_unsupported: bool,
    fcmp_predicates: FcmpPredicates,
) -> Result<fpir::Module, LowerError> {
    let symbols = Symbols::new(llvm);
    let branch_terminators = llvm
        .functions
        .iter()
        .flat_map(|f| &f.basic_blocks)
        .filter(|bb| matches!(bb.term, Terminator::CondBr(_) | Terminator::Switch(_)))
        .count() as u32;
    let mut ctx = Ctx::new(fcmp_predicates, branch_terminators);
    for g in symbols.program_globals() {
        let data = lower_global(&symbols, &mut ctx, g, skip_unsupported)?;
        ctx.out.globals.push(data);
    }
    for f in &llvm.functions {
        let func = lower_function(&symbols, &mut ctx, f, skip_unsupported)?;
        ctx.out.funcs.push(func);
    }
    let mut done = 0;
    while let Some(decl) = symbols.stub_decl(done) {
        let stub = lower_stub(&mut ctx, decl)?;
        ctx.out.funcs.push(stub);
        done += 1;
    }
    for alias in &llvm.global_aliases {
        let name = name_text(&alias.name);
        if let Ok(Some(Folded::Addr(AddrBase::Func(target), 0))) = symbols.fold(&alias.aliasee) {
            let wrapper = alias_function(&name, target, &ctx.out.funcs[target]);
            ctx.out.funcs.push(wrapper);
        }
    }
    let mut module = ctx.out;
    module
        .index_sites()
        .map_err(|e| LowerError::Verify(e.to_string()))?;
    if cfg!(debug_assertions) {
        fpir::verify_module(&module).map_err(|errors| {
            LowerError::Verify(
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        })?;
    }
    Ok(module)
}

/// The C standard streams a program may declare (`extern FILE *stdout`).
fn is_std_stream(name: &str) -> bool {
    matches!(name, "stdin" | "stdout" | "stderr")
}

/// Lowers a global variable: its initializer as bytes and relocations. With
/// `skip_unsupported`, an initializer that cannot be represented becomes zeros.
fn lower_global(
    symbols: &Symbols<'_>,
    ctx: &mut Ctx,
    g: &GlobalVariable,
    skip_unsupported: bool,
) -> Result<GlobalData, LowerError> {
    let name = name_text(&g.name);
    let location = ctx
        .src_loc(&g.debugloc)
        .map(|l| ctx.out.describe_loc(Some(l)))
        .unwrap_or_else(|| "<unknown location>".to_string());
    let unsupported = |what: String| LowerError::Unsupported {
        what: format!("{what} in global `{name}`"),
        location: location.clone(),
    };
    let value_ty = match g.ty.as_ref() {
        Type::PointerType { pointee_type, .. } => pointee_type,
        other => return Err(unsupported(format!("global of type {other}"))),
    };
    let sa = symbols.layout.size_align(value_ty).map_err(unsupported)?;
    let size = usize::try_from(sa.size)
        .ok()
        .filter(|&s| s <= 1 << 32)
        .ok_or_else(|| unsupported(format!("global of {} bytes", sa.size)))?;
    let mut init = vec![0u8; size];
    let mut relocs = Vec::new();
    if let Some(c) = &g.initializer {
        match symbols.write_init(c, 0, &mut init, &mut relocs) {
            Ok(()) => {}
            Err(_) if skip_unsupported => {
                init.fill(0);
                relocs.clear();
            }
            Err(e) => return Err(unsupported(e)),
        }
    } else if is_std_stream(&name) && size == 8 {
        // glibc's `stdout` and `stderr` are `FILE *` globals the program only declares:
        // each points at itself, so the libc model tells the streams apart by address.
        relocs.push(Reloc {
            at: 0,
            target: AddrBase::Global(Global(ctx.out.globals.len() as u32)),
            addend: 0,
        });
    }
    Ok(GlobalData {
        name: name.clone(),
        init,
        align: if g.alignment > 0 {
            g.alignment
        } else {
            sa.align
        },
        constant: g.is_constant,
        relocs,
    })
}
