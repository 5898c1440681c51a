//! The LLVM module being lowered, as lowering looks things up in it: the layouts of its
//! types and what each of its global names denotes.
//!
//! Functions keep their definition order and globals their order in the LLVM module, so
//! `Func(i)` is the `i`-th `define` and `Global(i)` the `i`-th global variable of the
//! linked module, leaving out LLVM's own `llvm.*` globals (`llvm.used`,
//! `llvm.global_ctors`: constructors are not run). A declared function whose address is
//! taken gets a stub (see [`crate::stubs`]) whose id follows the defined functions, in
//! the order the addresses are first taken. The table is read-only once built, except
//! that stubs are allocated on first use, behind a `RefCell` because constant folding
//! only borrows it. What an alias denotes takes folding its aliasee, so aliases resolve
//! in [`crate::consts`].

use crate::layout::Layout;
use fpir::{AddrBase, EntityId, Func, Global};
use llvm_ir::function::FunctionDeclaration;
use llvm_ir::module::GlobalVariable;
use llvm_ir::{Constant, ConstantRef, Name};
use std::cell::RefCell;
use std::collections::HashMap;

/// What a global name denotes.
pub(crate) enum Symbol<'m> {
    /// A defined function, a global variable, or the stub of a declared function.
    Addr(AddrBase),
    /// An alias of the constant (usually an address) it names.
    Alias(&'m Constant),
}

/// The names of one LLVM module and the layouts of its types.
pub(crate) struct Symbols<'m> {
    /// The module being lowered.
    pub llvm: &'m llvm_ir::Module,
    /// Type layouts.
    pub layout: Layout<'m>,
    /// Defined functions by name.
    funcs: HashMap<&'m str, Func>,
    globals: HashMap<&'m Name, Global>,
    aliases: HashMap<&'m Name, &'m ConstantRef>,
    /// Declared (not defined) functions by name.
    decls: HashMap<&'m str, &'m FunctionDeclaration>,
    /// Declarations standing behind stubs, in stub id order.
    stubs: RefCell<Vec<&'m FunctionDeclaration>>,
}

impl<'m> Symbols<'m> {
    /// The symbol table of `llvm`.
    pub fn new(llvm: &'m llvm_ir::Module) -> Self {
        let funcs = llvm
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), Func::new(i)))
            .collect();
        let globals = program_globals(llvm)
            .enumerate()
            .map(|(i, g)| (&g.name, Global::new(i)))
            .collect();
        Symbols {
            llvm,
            layout: Layout::new(&llvm.types),
            funcs,
            globals,
            aliases: llvm
                .global_aliases
                .iter()
                .map(|a| (&a.name, &a.aliasee))
                .collect(),
            decls: llvm
                .func_declarations
                .iter()
                .map(|d| (d.name.as_str(), d))
                .collect(),
            stubs: RefCell::new(Vec::new()),
        }
    }

    /// The global variables that are program data, in id order.
    pub fn program_globals(&self) -> impl Iterator<Item = &'m GlobalVariable> {
        program_globals(self.llvm)
    }

    /// The defined function named `name`.
    pub fn func(&self, name: &str) -> Option<Func> {
        self.funcs.get(name).copied()
    }

    /// What the global name `name` denotes, allocating a stub for a declared function.
    /// `None` for names the module neither defines nor declares.
    pub fn lookup(&self, name: &Name) -> Option<Symbol<'m>> {
        if let Name::Name(s) = name {
            if let Some(f) = self.func(s) {
                return Some(Symbol::Addr(AddrBase::Func(f)));
            }
            if let Some(&decl) = self.decls.get(s.as_str()) {
                return Some(Symbol::Addr(AddrBase::Func(self.stub(decl))));
            }
        }
        if let Some(&g) = self.globals.get(name) {
            return Some(Symbol::Addr(AddrBase::Global(g)));
        }
        self.aliases
            .get(name)
            .map(|&aliasee: &&'m ConstantRef| Symbol::Alias(aliasee.as_ref()))
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

    /// The declaration behind the `index`-th stub, once allocated.
    pub fn stub_decl(&self, index: usize) -> Option<&'m FunctionDeclaration> {
        self.stubs.borrow().get(index).copied()
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
}

/// The global variables of `llvm` without LLVM's own (`llvm.used`,
/// `llvm.global_ctors`, `llvm.global.annotations`, ...): lists for the compiler and
/// linker, not program data a program can address.
fn program_globals(llvm: &llvm_ir::Module) -> impl Iterator<Item = &GlobalVariable> {
    llvm.global_vars
        .iter()
        .filter(|g| !matches!(&g.name, Name::Name(s) if s.starts_with("llvm.")))
}

/// The text of an LLVM global name (`@foo` -> `foo`, `@0` -> `0`).
pub(crate) fn name_text(name: &Name) -> String {
    match name {
        Name::Name(s) => s.to_string(),
        Name::Number(n) => n.to_string(),
    }
}
