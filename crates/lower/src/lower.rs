//! Module-level lowering, the orchestration of the other modules: the symbol table
//! ([`crate::symbols`]), global initializers ([`crate::consts`]), the function bodies
//! ([`crate::func`]), stubs ([`crate::stubs`]), then the site tables.
//!
//! Functions keep their definition order and globals their order in the LLVM module
//! (see [`crate::symbols`]). Stubs for declared functions whose address is taken come
//! after the defined functions, then one function per alias of a function (musl's
//! `weak_alias(__lgamma_r, lgamma_r)`), which calls its target, so the alias name can be
//! run too; calls and addresses inside the module go to the target directly.
//! Declarations of global variables that no input defines (`extern double MACHEP;`)
//! become globals without bytes, so that a run touching one traps.
//!
//! Nothing the entry function may not reach stops lowering: a function that cannot be
//! lowered becomes a trapping skeleton, a global whose initial value cannot be
//! represented is zero-filled, and each such gap is recorded in [`Gaps`] for
//! [`crate::reach`] to judge against what the entry reaches.
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

use crate::beside::{Beside, WideInits};
use crate::consts::Folded;
use crate::ctx::Ctx;
use crate::error::LowerError;
use crate::func::lower_function;
use crate::paths::SourcePaths;
use crate::stubs::{alias_function, lower_stub, trapping_stub};
use crate::symbols::{name_text, Symbols};
use fpir::{AddrBase, EntityId, Func, Global, GlobalData, Reloc};
use llvm_ir::module::GlobalVariable;
use llvm_ir::terminator::Terminator;
use llvm_ir::Type;

/// What lowering could not do, kept beside the module: whether each gap is an error
/// depends on whether the entry function reaches it (see [`crate::reach`]).
#[derive(Debug, Default)]
pub(crate) struct Gaps {
    /// Functions lowered as trapping skeletons (and stubs of declarations whose
    /// signature fpir cannot hold), with the error that stopped each.
    pub skeletons: Vec<(Func, LowerError)>,
    /// Globals whose initial value fpir cannot represent (zero-filled), with why.
    pub unrepresentable: Vec<(Global, LowerError)>,
    /// Globals the inputs declare but do not define: empty, so every access traps.
    pub undefined: Vec<Global>,
}

/// A lowered module and its gaps.
#[derive(Debug)]
pub(crate) struct Lowered {
    /// The module.
    pub module: fpir::Module,
    /// What it lacks.
    pub gaps: Gaps,
}

/// Lowers a parsed LLVM module to fpir and indexes its sites.
pub(crate) fn lower_module(
    llvm: &llvm_ir::Module,
    beside: Beside,
    paths: &SourcePaths,
) -> Result<Lowered, LowerError> {
    let symbols = Symbols::new(llvm);
    let branch_terminators = llvm
        .functions
        .iter()
        .flat_map(|f| &f.basic_blocks)
        .filter(|bb| matches!(bb.term, Terminator::CondBr(_) | Terminator::Switch(_)))
        .count() as u32;
    let mut ctx = Ctx::new(beside, branch_terminators, paths.clone());
    let mut gaps = Gaps::default();
    for g in symbols.program_globals() {
        let id = Global::new(ctx.out.globals.len());
        let data = match &g.initializer {
            None => match runtime_global(&symbols, g, id) {
                Some(data) => data,
                None => {
                    gaps.undefined.push(id);
                    undefined_global(g)
                }
            },
            Some(_) => {
                let (data, gap) = lower_global(&symbols, &mut ctx, g);
                gaps.unrepresentable.extend(gap.map(|e| (id, e)));
                data
            }
        };
        ctx.out.globals.push(data);
    }
    for f in &llvm.functions {
        let id = Func::new(ctx.out.funcs.len());
        let (func, gap) = lower_function(&symbols, &mut ctx, f)?;
        gaps.skeletons.extend(gap.map(|e| (id, e)));
        ctx.out.funcs.push(func);
    }
    let mut done = 0;
    while let Some(decl) = symbols.stub_decl(done) {
        let id = Func::new(ctx.out.funcs.len());
        let stub = lower_stub(&mut ctx, decl).unwrap_or_else(|e| {
            let stub = trapping_stub(&mut ctx, decl, &e);
            gaps.skeletons.push((id, e));
            stub
        });
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
    if let Some(text) = &ctx.beside.text {
        crate::shapes::apply(&mut module, text);
    }
    for &at in &ctx.long_doubles {
        module.param_shapes.insert(at, fpir::ParamShape::LongDouble);
    }
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
    Ok(Lowered { module, gaps })
}

/// The globals a C runtime defines and a program only declares: glibc's standard
/// streams and newlib's `_impure_ptr`; `None` for any other name, or when the declared
/// type has no layout.
fn runtime_global(symbols: &Symbols<'_>, g: &GlobalVariable, id: Global) -> Option<GlobalData> {
    match name_text(&g.name).as_str() {
        "stdin" | "stdout" | "stderr" => Some(std_stream(g, id)),
        "_impure_ptr" => newlib_reent(symbols, g, id),
        _ => None,
    }
}

/// glibc's `stdout`, `stderr` or `stdin`, a `FILE *` the program only declares: it points
/// at itself (global `id`), so the libc model tells the streams apart by address.
fn std_stream(g: &GlobalVariable, id: Global) -> GlobalData {
    GlobalData {
        name: name_text(&g.name),
        init: vec![0; 8],
        align: 8,
        constant: false,
        relocs: vec![Reloc {
            at: 0,
            target: AddrBase::Global(id),
            addend: 0,
        }],
    }
}

/// newlib's `struct _reent *_impure_ptr`, the per-thread state behind `_REENT` (its
/// libm keeps `signgam` there): the pointer, then a zeroed `struct _reent` it points at,
/// in one global. newlib's `errno` is not read from it: `__errno()` is the libc model's
/// `errno` ([`fpir::LibcFn::ErrnoLocation`]).
fn newlib_reent(symbols: &Symbols<'_>, g: &GlobalVariable, id: Global) -> Option<GlobalData> {
    let Type::PointerType { pointee_type, .. } = g.ty.as_ref() else {
        return None;
    };
    let Type::PointerType {
        pointee_type: reent,
        ..
    } = pointee_type.as_ref()
    else {
        return None;
    };
    let reent = symbols.layout.size_align(reent).ok()?;
    let at = u64::from(reent.align).max(8);
    Some(GlobalData {
        name: name_text(&g.name),
        init: vec![0; usize::try_from(at + reent.size).ok()?],
        align: reent.align.max(8),
        constant: false,
        relocs: vec![Reloc {
            at: 0,
            target: AddrBase::Global(id),
            addend: at as i64,
        }],
    })
}

/// A global the inputs only declare (`extern double MACHEP;`): no bytes, so that a run
/// reading or writing it traps instead of reading a made-up zero.
fn undefined_global(g: &GlobalVariable) -> GlobalData {
    GlobalData {
        name: name_text(&g.name),
        init: Vec::new(),
        align: g.alignment.max(1),
        constant: g.is_constant,
        relocs: Vec::new(),
    }
}

/// Lowers a global variable: its initializer as bytes and relocations. A global whose
/// size or initial value fpir cannot represent comes back zero-filled, with the error.
fn lower_global(
    symbols: &Symbols<'_>,
    ctx: &mut Ctx,
    g: &GlobalVariable,
) -> (GlobalData, Option<LowerError>) {
    let name = name_text(&g.name);
    let location = ctx
        .src_loc(&g.debugloc)
        .map(|l| ctx.out.describe_loc(Some(l)))
        .unwrap_or_else(|| "<unknown location>".to_string());
    let mut data = GlobalData {
        name: name.clone(),
        init: Vec::new(),
        align: g.alignment.max(1),
        constant: g.is_constant,
        relocs: Vec::new(),
    };
    let unsupported = |what: String| LowerError::Unsupported {
        what: format!("{what} in global `{name}`"),
        location: location.clone(),
        reached: Vec::new(),
    };
    let value_ty = match g.ty.as_ref() {
        Type::PointerType { pointee_type, .. } => pointee_type,
        other => return (data, Some(unsupported(format!("global of type {other}")))),
    };
    let sa = match symbols.layout.size_align(value_ty) {
        Ok(sa) => sa,
        Err(e) => return (data, Some(unsupported(e))),
    };
    let Some(size) = usize::try_from(sa.size).ok().filter(|&s| s <= 1 << 32) else {
        return (
            data,
            Some(unsupported(format!("global of {} bytes", sa.size))),
        );
    };
    if g.alignment == 0 {
        data.align = sa.align;
    }
    data.init = vec![0u8; size];
    if let Some(c) = &g.initializer {
        let wide = ctx
            .beside
            .global_wide_ints
            .get(&name)
            .map_or(&[][..], Vec::as_slice);
        let mut wide = WideInits::InOrder(wide.iter());
        if let Err(e) = symbols.write_init(c, 0, &mut data.init, &mut data.relocs, &mut wide) {
            data.init.fill(0);
            data.relocs.clear();
            return (data, Some(unsupported(e)));
        }
    }
    (data, None)
}
