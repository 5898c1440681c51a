//! Module-level lowering: ids for functions and globals, global initializers, the
//! function bodies ([`crate::func`]), stubs ([`crate::stubs`]), then the site tables.
//!
//! Functions keep their definition order and globals their order in the LLVM module, so
//! `Func(i)` is the `i`-th `define` and `Global(i)` the `i`-th global variable of the
//! linked module, leaving out LLVM's own `llvm.*` globals (`llvm.used`,
//! `llvm.global_ctors`: constructors are not run). Stubs for declared functions whose
//! address is taken come after the defined functions, then one function per alias of a
//! function (musl's `weak_alias(__lgamma_r, lgamma_r)`), which calls its target, so
//! the alias name can be run too; calls and addresses inside the module go to the
//! target directly. Declarations of global variables
//! that no input defines (`extern double table[];`) become zero-filled globals.
//!
//! Branch and op sites are numbered while lowering, in LLVM textual order: functions in
//! definition order, blocks in order, instructions in order; one branch site per
//! conditional `br` (also `br i1 true`) and per `switch`, one op site per
//! `fadd`/`fsub`/`fmul`/`fdiv`/`frem` (also their constrained intrinsics) and per math
//! call. That order is a contract with the differential test harness, which numbers the
//! `br i1` and `switch` lines of `llvm-dis` output of the same bitcode and must get the
//! same ids. Floating-point operations on unsupported types in dead code, which lowering
//! drops (see [`crate::func`]), get no op site; stubs' math calls are numbered last.
//!
//! Source files are interned as the debug info names them (the `DIFile` filename, not
//! joined with the compilation directory): the path as given to clang, which clang
//! makes relative to its working directory when the file lies under it. Reports then
//! print `file:line:col` the way compiler diagnostics do, and golden files do not depend
//! on the machine.

use crate::consts::Folded;
use crate::error::LowerError;
use crate::fenv::FcmpPredicates;
use crate::func::lower_function;
use crate::layout::Layout;
use crate::stubs::{alias_function, lower_stub};
use fpir::{AddrBase, EntityId, FileId, Func, Global, GlobalData, SrcLoc};
use llvm_ir::debugloc::DebugLoc;
use llvm_ir::function::FunctionDeclaration;
use llvm_ir::module::GlobalVariable;
use llvm_ir::{Constant, ConstantRef, Name, Type};
use std::cell::RefCell;
use std::collections::HashMap;

/// State shared by the lowering of all functions of one module.
pub(crate) struct Ctx<'m> {
    /// The module being lowered.
    pub llvm: &'m llvm_ir::Module,
    /// Type layouts.
    pub layout: Layout<'m>,
    /// Defined functions by name.
    pub funcs: HashMap<&'m str, Func>,
    globals: HashMap<&'m Name, Global>,
    aliases: HashMap<&'m Name, &'m ConstantRef>,
    /// Declared (not defined) functions by name.
    decls: HashMap<&'m str, &'m FunctionDeclaration>,
    /// Stubs for declared functions whose address is taken, in id order after the
    /// defined functions (see [`crate::stubs`]).
    stubs: RefCell<Vec<&'m FunctionDeclaration>>,
    files: HashMap<String, FileId>,
    externals: HashMap<String, u32>,
    /// Skeletons instead of errors for unsupported functions (and zeros for
    /// unrepresentable global initializers).
    skip_unsupported: bool,
    /// Predicates of constrained comparisons (see [`crate::fenv`]).
    pub fcmp_predicates: FcmpPredicates,
    /// The module being built (files, externals and globals fill in as lowering goes).
    pub out: fpir::Module,
    next_branch: u32,
    next_op: u32,
}

/// Lowers a parsed LLVM module to fpir and indexes its sites.
pub(crate) fn lower_module(
    llvm: &llvm_ir::Module,
    skip_unsupported: bool,
    fcmp_predicates: FcmpPredicates,
) -> Result<fpir::Module, LowerError> {
    let mut ctx = Ctx {
        llvm,
        layout: Layout::new(&llvm.types),
        funcs: HashMap::new(),
        globals: HashMap::new(),
        aliases: HashMap::new(),
        decls: HashMap::new(),
        stubs: RefCell::new(Vec::new()),
        files: HashMap::new(),
        externals: HashMap::new(),
        skip_unsupported,
        fcmp_predicates,
        out: fpir::Module::default(),
        next_branch: 0,
        next_op: 0,
    };
    for (i, f) in llvm.functions.iter().enumerate() {
        ctx.funcs.insert(f.name.as_str(), Func::new(i));
    }
    let program_globals: Vec<&GlobalVariable> = llvm
        .global_vars
        .iter()
        .filter(|g| !is_llvm_special(g))
        .collect();
    for (i, g) in program_globals.iter().enumerate() {
        ctx.globals.insert(&g.name, Global::new(i));
    }
    for d in &llvm.func_declarations {
        ctx.decls.insert(d.name.as_str(), d);
    }
    for a in &llvm.global_aliases {
        ctx.aliases.insert(&a.name, &a.aliasee);
    }
    for g in program_globals {
        let data = ctx.lower_global(g)?;
        ctx.out.globals.push(data);
    }
    for f in &llvm.functions {
        let func = lower_function(&mut ctx, f, skip_unsupported)?;
        ctx.out.funcs.push(func);
    }
    let mut done = 0;
    loop {
        let next = ctx.stubs.borrow().get(done).copied();
        let Some(decl) = next else { break };
        let stub = lower_stub(&mut ctx, decl)?;
        ctx.out.funcs.push(stub);
        done += 1;
    }
    for alias in &llvm.global_aliases {
        let name = name_text(&alias.name);
        if let Ok(Some(Folded::Addr(AddrBase::Func(target), 0))) = ctx.fold(&alias.aliasee) {
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

/// LLVM's own globals (`llvm.used`, `llvm.global_ctors`, `llvm.global.annotations`,
/// ...): lists for the compiler and linker, not program data a program can address.
fn is_llvm_special(g: &GlobalVariable) -> bool {
    matches!(&g.name, Name::Name(s) if s.starts_with("llvm."))
}

/// The text of an LLVM global name (`@foo` -> `foo`, `@0` -> `0`).
pub(crate) fn name_text(name: &Name) -> String {
    match name {
        Name::Name(s) => s.to_string(),
        Name::Number(n) => n.to_string(),
    }
}

impl<'m> Ctx<'m> {
    /// Interns a debug location's file and returns the location.
    pub fn src_loc(&mut self, loc: &Option<DebugLoc>) -> Option<SrcLoc> {
        let loc = loc.as_ref()?;
        let file = match self.files.get(&loc.filename) {
            Some(&id) => id,
            None => {
                let id = self.out.files.push(loc.filename.clone());
                self.files.insert(loc.filename.clone(), id);
                id
            }
        };
        Some(SrcLoc {
            file,
            line: loc.line,
            col: loc.col.unwrap_or(0),
        })
    }

    /// The index of an external function in `Module::externals`, added on first use.
    pub fn external(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.externals.get(name) {
            return i;
        }
        let i = self.out.externals.len() as u32;
        self.out.externals.push(name.to_string());
        self.externals.insert(name.to_string(), i);
        i
    }

    /// The next branch and op site numbers.
    pub fn site_counters(&self) -> (u32, u32) {
        (self.next_branch, self.next_op)
    }

    /// Rewinds the site numbering (before lowering a function again).
    pub fn reset_site_counters(&mut self, (branch, op): (u32, u32)) {
        self.next_branch = branch;
        self.next_op = op;
    }

    /// The next branch site id (textual order).
    pub fn next_branch(&mut self) -> fpir::BranchSite {
        self.next_branch += 1;
        fpir::BranchSite(self.next_branch - 1)
    }

    /// The next op site id (textual order).
    pub fn next_op(&mut self) -> fpir::OpSite {
        self.next_op += 1;
        fpir::OpSite(self.next_op - 1)
    }

    /// What a global name refers to as an address: a defined function, a global
    /// variable, (through an alias) an offset into one, or the stub standing for a
    /// function the module only declares. `None` for unknown names.
    pub fn resolve(&self, name: &Name) -> Result<Option<(AddrBase, i64)>, String> {
        if let Name::Name(s) = name {
            if let Some(&f) = self.funcs.get(s.as_str()) {
                return Ok(Some((AddrBase::Func(f), 0)));
            }
            if let Some(&decl) = self.decls.get(s.as_str()) {
                return Ok(Some((AddrBase::Func(self.stub(decl)), 0)));
            }
        }
        if let Some(&g) = self.globals.get(name) {
            return Ok(Some((AddrBase::Global(g), 0)));
        }
        if let Some(aliasee) = self.aliases.get(name) {
            return match self.fold(aliasee)? {
                Some(crate::consts::Folded::Addr(base, off)) => Ok(Some((base, off))),
                _ => Err(format!("alias @{} of a non-address", name_text(name))),
            };
        }
        Ok(None)
    }

    /// The id of the stub for declared function `decl`, allocated on first use.
    fn stub(&self, decl: &'m FunctionDeclaration) -> Func {
        let mut stubs = self.stubs.borrow_mut();
        let index = match stubs.iter().position(|d| std::ptr::eq(*d, decl)) {
            Some(i) => i,
            None => {
                stubs.push(decl);
                stubs.len() - 1
            }
        };
        Func::new(self.llvm.functions.len() + index)
    }

    /// The name of the function a call operand names, looking through bitcasts and
    /// aliases, or `None` when it is not a constant function reference.
    pub fn callee_name(&self, c: &'m Constant) -> Option<&'m str> {
        match c {
            Constant::GlobalReference {
                name: Name::Name(s),
                ..
            } => match self.aliases.get(&Name::Name(s.clone())) {
                Some(aliasee) => self.callee_name(aliasee),
                None => Some(s.as_str()),
            },
            Constant::BitCast(b) => self.callee_name(&b.operand),
            Constant::AddrSpaceCast(a) => self.callee_name(&a.operand),
            _ => None,
        }
    }

    fn lower_global(
        &mut self,
        g: &'m llvm_ir::module::GlobalVariable,
    ) -> Result<GlobalData, LowerError> {
        let name = name_text(&g.name);
        let location = self
            .src_loc(&g.debugloc)
            .map(|l| self.out.describe_loc(Some(l)))
            .unwrap_or_else(|| "<unknown location>".to_string());
        let unsupported = |what: String| LowerError::Unsupported {
            what: format!("{what} in global `{name}`"),
            location: location.clone(),
        };
        let value_ty = match g.ty.as_ref() {
            Type::PointerType { pointee_type, .. } => pointee_type,
            other => return Err(unsupported(format!("global of type {other}"))),
        };
        let sa = self.layout.size_align(value_ty).map_err(unsupported)?;
        let size = usize::try_from(sa.size)
            .ok()
            .filter(|&s| s <= 1 << 32)
            .ok_or_else(|| unsupported(format!("global of {} bytes", sa.size)))?;
        let mut init = vec![0u8; size];
        let mut relocs = Vec::new();
        if let Some(c) = &g.initializer {
            match self.write_init(c, 0, &mut init, &mut relocs) {
                Ok(()) => {}
                Err(_) if self.skip_unsupported => {
                    init.fill(0);
                    relocs.clear();
                }
                Err(e) => return Err(unsupported(e)),
            }
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
}
