//! The IR verifier: checks every invariant that the interpreter and the engines rely on
//! and reports all violations, each with where it is.
//!
//! Like cranelift's verifier it never stops at the first problem and never panics, so
//! it can run on any module, including hand-written or half-lowered ones. A location
//! reads `f0 "name" bb2 inst3` (`term` for the terminator, `const v4` for a constant,
//! no block for function-wide problems), `g1 "name"` for a global, and `module` for
//! the site tables.
//!
//! # Invariants
//!
//! Globals:
//! - the alignment is a power of two;
//! - every reloc lies inside the global's bytes with 8 bytes of room, and its target
//!   global or function exists.
//!
//! Functions:
//! - every type in the register table is valid (integers are 1 to 64 bits wide);
//! - the entry block `bb0` exists; its parameters are the function's parameters, and
//!   `param_pointees` and `param_names` have one entry per parameter; a pointee type is
//!   given only for `ptr` parameters;
//! - every register of the table is defined exactly once, as a block parameter, a
//!   constant or an instruction result, and every register named is in the table;
//! - constants fit their register: integer bits within the width, `f32` bits within 32
//!   bits; addresses are `ptr` constants whose global or function exists;
//! - every instruction's result register has the type the instruction produces (`icmp`
//!   and `fcmp` give `i1`, `load` its type, casts their `to` type, `alloca` and
//!   `ptroffset` give `ptr`, math calls the format of the call or an integer for the
//!   `f -> int` shape, direct calls the callee's result type); instructions other than
//!   calls and stores have a result register, stores have none;
//! - operands have the types the instruction names: integer arithmetic on integers of
//!   its type, float arithmetic, `fneg` and `fcmp` on floats of theirs, `icmp` on
//!   integers or pointers of its type, `select` on an `i1` condition and two values of
//!   its type, addresses of loads, stores, indirect calls and `ptroffset` bases are
//!   `ptr`, stored values have the store's type, `alloca` counts and `ptroffset` indices
//!   are integers, and the cast operand has the `from` type;
//! - casts are legal: `trunc` narrows and `zext`/`sext` widen integers, `fpext` is
//!   `f32 -> f64` and `fptrunc` `f64 -> f32`, `fptoui`/`fptosi` go from float to integer
//!   and `uitofp`/`sitofp` back, `ptrtoint` and `inttoptr` convert between `ptr` and
//!   integers, and `bitcast` keeps the width;
//! - `alloca` alignments are powers of two;
//! - direct callees exist and get as many arguments as they take, of their parameter
//!   types; external callees index `Module::externals`; math calls get the operands of
//!   their [`MathShape`]: `(f)`, `(f, f)`, `(f, f, f)`, `(f, i32)`, `(f)` or `(f, ptr)`;
//! - every use of a register, including block-call arguments, is dominated by its
//!   definition (constants dominate everything; uses in unreachable blocks are not
//!   checked);
//! - jump targets exist and are not the entry block (so the entry block's parameters
//!   stay the function's parameters), and each block call passes one argument of the
//!   right type per target parameter;
//! - `br` conditions are `i1`; a `switch` is on an integer register of its type, with
//!   distinct case values that fit the type;
//! - `ret` returns a value of the function's result type, or nothing from a void function;
//! - an `invoke` ends a block whose last instruction is a call; its landing's exception
//!   register is `ptr`, its selector `i32` (both defined by the terminator), and its
//!   catch clauses name `ptr` typeinfo registers;
//! - `locs` has one entry per instruction, and every source location names a file of
//!   the module.
//!
//! Module:
//! - every parameter shape belongs to a `ptr` parameter of an existing function, a
//!   struct's fields lie inside its size, and a span's pointer is followed by an integer
//!   parameter (its length);
//! - the site tables equal what [`Module::index_sites`] derives from the instructions
//!   (site ids dense, each used once, and every entry up to date).

use crate::analysis::{Cfg, Dominators};
use crate::entities::{Block, EntityId, EntityVec, Func, Reg};
use crate::inst::{BlockCall, Callee, CastOp, InstKind, Terminator};
use crate::math::MathShape;
use crate::module::{AddrBase, Const, Function, Module, SrcLoc};
use crate::shape::{Extent, ParamShape};
use crate::types::Type;
use crate::write::{cast_name, float_bin_name, int_bin_name, quote};
use std::collections::HashSet;
use std::fmt;

/// A broken IR invariant, naming where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct VerifyError {
    /// Function, block and instruction.
    pub location: String,
    /// The broken invariant.
    pub message: String,
}

/// Checks every invariant of `module`, returning all violations found.
pub fn verify_module(module: &Module) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    verify_globals(module, &mut errors);
    let mut tables_safe = true;
    for (fid, func) in module.funcs.iter() {
        FuncVerifier::new(module, fid, func, &mut errors).run();
        tables_safe &= func.consts.iter().all(|(r, _)| func.regs.get(*r).is_some());
    }
    verify_shapes(module, &mut errors);
    if tables_safe {
        verify_sites(module, &mut errors);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn verify_shapes(module: &Module, errors: &mut Vec<VerifyError>) {
    for (&(fid, param), shape) in &module.param_shapes {
        let mut report = |message: String| {
            errors.push(VerifyError {
                location: format!("shape {fid} {param}"),
                message,
            })
        };
        let Some(func) = module.funcs.get(fid) else {
            report("no such function".to_string());
            continue;
        };
        let ty = func.params().get(param).and_then(|&r| func.regs.get(r));
        let next = func.params().get(param + 1).and_then(|&r| func.regs.get(r));
        match (shape, ty) {
            (ParamShape::LongDouble, Some(&Type::I64)) if next != Some(&Type::Int(16)) => {
                report("a long double's significand is not followed by an i16".to_string());
            }
            (ParamShape::LongDouble, Some(&Type::I64)) => {}
            (_, Some(&Type::Ptr)) => {}
            _ => report("the parameter is not a pointer".to_string()),
        }
        match shape {
            ParamShape::Struct(s) => {
                for field in &s.fields {
                    if field.offset + u64::from(field.ty.bytes()) > s.size {
                        report(format!("field `{}` lies outside the struct", field.path));
                    }
                }
            }
            ParamShape::Span(_) => {
                let len = func.params().get(param + 1).and_then(|&r| func.regs.get(r));
                if !matches!(len, Some(Type::Int(_))) {
                    report("a span's pointer is not followed by an integer length".to_string());
                }
            }
            ParamShape::Array(extents) => {
                for extent in extents {
                    let Extent::Param(p) = *extent else { continue };
                    let len = func.params().get(p).and_then(|&r| func.regs.get(r));
                    if p == param || len.is_none() {
                        report(format!("extent `param {p}` names no other parameter"));
                    }
                }
            }
            ParamShape::Vector(_) | ParamShape::LongDouble | ParamShape::ByReference => {}
        }
    }
}

fn verify_globals(module: &Module, errors: &mut Vec<VerifyError>) {
    for (id, global) in module.globals.iter() {
        let mut report = |message: String| {
            errors.push(VerifyError {
                location: format!("{id} {}", quote(&global.name)),
                message,
            })
        };
        if !global.align.is_power_of_two() {
            report(format!("alignment {} is not a power of two", global.align));
        }
        for reloc in &global.relocs {
            let size = global.init.len() as u64;
            if size < 8 || reloc.at > size - 8 {
                report(format!(
                    "reloc at byte {} needs 8 bytes but the global has {size}",
                    reloc.at
                ));
            }
            if !addr_base_exists(module, reloc.target) {
                report(format!(
                    "reloc at byte {} points to {}, which does not exist",
                    reloc.at,
                    addr_base_text(reloc.target)
                ));
            }
        }
    }
}

/// Compares the site tables with the ones the instructions define.
fn verify_sites(module: &Module, errors: &mut Vec<VerifyError>) {
    let mut report = |message: String| {
        errors.push(VerifyError {
            location: "module".into(),
            message,
        })
    };
    let mut derived = module.clone();
    if let Err(e) = derived.index_sites() {
        report(format!("site ids in the instructions are malformed: {e}"));
        return;
    }
    let branch = compare_sites("branch", &module.branch_sites, &derived.branch_sites);
    let op = compare_sites("op", &module.op_sites, &derived.op_sites);
    for message in branch.into_iter().chain(op) {
        report(message);
    }
}

/// Describes the first difference between a site table and the derived one.
fn compare_sites<K: EntityId + fmt::Display, V: PartialEq>(
    kind: &str,
    table: &EntityVec<K, V>,
    derived: &EntityVec<K, V>,
) -> Option<String> {
    if table.len() != derived.len() {
        return Some(format!(
            "the {kind} site table has {} entries but the instructions define {}",
            table.len(),
            derived.len()
        ));
    }
    let (site, _) = table
        .iter()
        .zip(derived.values())
        .find(|((_, entry), expected)| entry != expected)?
        .0;
    Some(format!(
        "the {kind} site table entry for {site} does not match the instructions"
    ))
}

fn addr_base_exists(module: &Module, base: AddrBase) -> bool {
    match base {
        AddrBase::Global(g) => module.globals.get(g).is_some(),
        AddrBase::Func(f) => module.funcs.get(f).is_some(),
    }
}

fn addr_base_text(base: AddrBase) -> String {
    match base {
        AddrBase::Global(g) => g.to_string(),
        AddrBase::Func(f) => f.to_string(),
    }
}

/// Why a cast from `from` to `to` is illegal, if it is.
fn cast_problem(op: CastOp, from: Type, to: Type) -> Option<&'static str> {
    use CastOp::*;
    let ok = match (op, from, to) {
        (Trunc, Type::Int(a), Type::Int(b)) => b < a,
        (Zext | Sext, Type::Int(a), Type::Int(b)) => b > a,
        (Fpext, Type::F32, Type::F64) | (Fptrunc, Type::F64, Type::F32) => true,
        (Fptoui | Fptosi, Type::Float(_), Type::Int(_))
        | (Uitofp | Sitofp, Type::Int(_), Type::Float(_))
        | (Ptrtoint, Type::Ptr, Type::Int(_))
        | (Inttoptr, Type::Int(_), Type::Ptr) => true,
        (Bitcast, _, _) => from.bits() == to.bits(),
        _ => false,
    };
    if ok {
        return None;
    }
    Some(match op {
        Trunc => "trunc must narrow an integer",
        Zext | Sext => "zext and sext must widen an integer",
        Fpext => "fpext must go from f32 to f64",
        Fptrunc => "fptrunc must go from f64 to f32",
        Fptoui | Fptosi => "fptoui and fptosi go from a float to an integer",
        Uitofp | Sitofp => "uitofp and sitofp go from an integer to a float",
        Ptrtoint => "ptrtoint goes from ptr to an integer",
        Inttoptr => "inttoptr goes from an integer to ptr",
        Bitcast => "bitcast must keep the width",
    })
}

fn valid_type(ty: Type) -> bool {
    match ty {
        Type::Int(bits) => (1..=64).contains(&bits),
        Type::Float(_) | Type::Ptr => true,
    }
}

/// True when `bits` fit in a register of type `ty`.
fn bits_fit(ty: Type, bits: u64) -> bool {
    ty.bits() >= 64 || bits >> ty.bits() == 0
}

/// Where a register is defined.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Def {
    Const,
    Param(Block),
    Inst(Block, usize),
}

/// A place inside a function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum At {
    Func,
    Const(Reg),
    Block(Block),
    Inst(Block, usize),
    Term(Block),
}

struct FuncVerifier<'a> {
    module: &'a Module,
    fid: Func,
    func: &'a Function,
    errors: &'a mut Vec<VerifyError>,
    defs: Vec<Option<Def>>,
    doms: Dominators,
}

impl<'a> FuncVerifier<'a> {
    fn new(
        module: &'a Module,
        fid: Func,
        func: &'a Function,
        errors: &'a mut Vec<VerifyError>,
    ) -> Self {
        FuncVerifier {
            module,
            fid,
            func,
            errors,
            defs: vec![None; func.regs.len()],
            doms: Dominators::new(&Cfg::new(func)),
        }
    }

    fn report(&mut self, at: At, message: String) {
        let mut location = format!("{} {}", self.fid, quote(&self.func.name));
        match at {
            At::Func => {}
            At::Const(r) => location.push_str(&format!(" const {r}")),
            At::Block(b) => location.push_str(&format!(" {b}")),
            At::Inst(b, i) => location.push_str(&format!(" {b} inst{i}")),
            At::Term(b) => location.push_str(&format!(" {b} term")),
        }
        self.errors.push(VerifyError { location, message });
    }

    fn run(mut self) {
        for (r, &ty) in self.func.regs.iter() {
            if !valid_type(ty) {
                self.report(At::Func, format!("{r} has the invalid type {ty:?}"));
            }
        }
        self.check_loc(At::Func, self.func.loc);
        let Some(entry) = self.func.blocks.get(Function::ENTRY) else {
            self.report(At::Func, "there is no entry block bb0".into());
            return;
        };
        self.check_params(&entry.params);
        self.collect_defs();
        self.check_consts();
        for (b, block) in self.func.blocks.iter() {
            if block.locs.len() != block.insts.len() {
                self.report(
                    At::Block(b),
                    format!(
                        "{} instructions but {} locations",
                        block.insts.len(),
                        block.locs.len()
                    ),
                );
            }
            for (i, inst) in block.insts.iter().enumerate() {
                let at = At::Inst(b, i);
                self.check_inst(at, inst.dest, &inst.kind);
                self.check_loc(at, block.locs.get(i).copied().flatten());
            }
            self.check_term(b, &block.term);
            self.check_loc(At::Term(b), block.term_loc);
        }
    }

    fn check_loc(&mut self, at: At, loc: Option<SrcLoc>) {
        if let Some(loc) = loc {
            if self.module.files.get(loc.file).is_none() {
                let n = self.module.files.len();
                self.report(
                    at,
                    format!(
                        "the location names {}, but the module has {n} files",
                        loc.file
                    ),
                );
            }
        }
    }

    fn check_params(&mut self, params: &[Reg]) {
        let n = params.len();
        let pointees = self.func.param_pointees.len();
        if pointees != n {
            self.report(
                At::Func,
                format!("param_pointees has {pointees} entries for {n} parameters"),
            );
        }
        let names = self.func.param_names.len();
        if names != n {
            self.report(
                At::Func,
                format!("param_names has {names} entries for {n} parameters"),
            );
        }
        for (&p, pointee) in params.iter().zip(&self.func.param_pointees) {
            let ty = self.func.regs.get(p).copied();
            if pointee.is_some() && ty.is_some_and(|t| t != Type::Ptr) {
                self.report(
                    At::Func,
                    format!("parameter {p} is not a pointer but has a pointee type"),
                );
            }
        }
    }

    fn define(&mut self, r: Reg, def: Def, at: At) {
        let Some(slot) = self.defs.get_mut(r.index()) else {
            let n = self.func.regs.len();
            self.report(
                at,
                format!("{r} is defined but the register table has only {n} registers"),
            );
            return;
        };
        match *slot {
            None => *slot = Some(def),
            Some(first) => {
                let first = match first {
                    Def::Const => "as a constant".to_string(),
                    Def::Param(b) => format!("as a parameter of {b}"),
                    Def::Inst(b, i) => format!("by {b} inst{i}"),
                };
                self.report(at, format!("{r} is defined twice (first {first})"));
            }
        }
    }

    fn collect_defs(&mut self) {
        let func = self.func;
        for &(r, _) in &func.consts {
            self.define(r, Def::Const, At::Const(r));
        }
        for (b, block) in func.blocks.iter() {
            for &p in &block.params {
                self.define(p, Def::Param(b), At::Block(b));
            }
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(d) = inst.dest {
                    self.define(d, Def::Inst(b, i), At::Inst(b, i));
                }
            }
            if let Terminator::Invoke { landing, .. } = &block.term {
                // Defined by the terminator: after every instruction of the block.
                let after = Def::Inst(b, block.insts.len());
                self.define(landing.exception, after, At::Term(b));
                self.define(landing.selector, after, At::Term(b));
            }
        }
        let undefined: Vec<usize> = (0..self.defs.len())
            .filter(|&i| self.defs[i].is_none())
            .collect();
        for i in undefined {
            self.report(At::Func, format!("{} is never defined", Reg::new(i)));
        }
    }

    fn check_consts(&mut self) {
        for &(r, value) in &self.func.consts {
            let Some(&ty) = self.func.regs.get(r) else {
                continue;
            };
            match value {
                Const::Bits(bits) if !bits_fit(ty, bits) => {
                    self.report(At::Const(r), format!("bits {bits:#x} do not fit in {ty}"));
                }
                Const::Bits(_) => {}
                Const::Addr(base, _) => {
                    if ty != Type::Ptr {
                        self.report(
                            At::Const(r),
                            format!("an address constant must be ptr, not {ty}"),
                        );
                    }
                    if !addr_base_exists(self.module, base) {
                        self.report(
                            At::Const(r),
                            format!(
                                "the address of {}, which does not exist",
                                addr_base_text(base)
                            ),
                        );
                    }
                }
            }
        }
    }

    /// Checks that `r` exists and that its definition dominates a use at `at`; returns
    /// its type.
    fn use_reg(&mut self, at: At, r: Reg) -> Option<Type> {
        let Some(&ty) = self.func.regs.get(r) else {
            let n = self.func.regs.len();
            self.report(
                at,
                format!("{r} is used but the register table has only {n} registers"),
            );
            return None;
        };
        let (block, index) = match at {
            At::Inst(b, i) => (b, i),
            At::Term(b) => (b, usize::MAX),
            At::Func | At::Const(_) | At::Block(_) => return Some(ty),
        };
        if !self.doms.is_reachable(block) {
            return Some(ty);
        }
        match self.defs.get(r.index()).copied().flatten() {
            Some(Def::Inst(d, j)) if d == block && j >= index => {
                self.report(at, format!("{r} is used before its definition (inst{j})"));
            }
            Some(Def::Inst(d, _) | Def::Param(d)) if !self.doms.dominates(d, block) => {
                self.report(
                    at,
                    format!("{r} is defined in {d}, which does not dominate this use"),
                );
            }
            _ => {}
        }
        Some(ty)
    }

    /// Uses `r` as `what`, which must have type `want`.
    fn operand(&mut self, at: At, what: &str, r: Reg, want: Type) {
        if let Some(ty) = self.use_reg(at, r) {
            if ty != want {
                self.report(at, format!("{what} {r} has type {ty}, expected {want}"));
            }
        }
    }

    /// Uses `r` as `what`, which must be an integer.
    fn int_operand(&mut self, at: At, what: &str, r: Reg) {
        if let Some(ty) = self.use_reg(at, r) {
            if !ty.is_int() {
                self.report(at, format!("{what} {r} has type {ty}, expected an integer"));
            }
        }
    }

    /// Checks the result register against the type the instruction produces.
    fn result(&mut self, at: At, opcode: &str, dest: Option<Reg>, want: Type) {
        match dest {
            None => self.report(
                at,
                format!("{opcode} produces a value but has no result register"),
            ),
            Some(d) => self.optional_result(at, d, want),
        }
    }

    fn optional_result(&mut self, at: At, dest: Reg, want: Type) {
        if let Some(&ty) = self.func.regs.get(dest) {
            if ty != want {
                self.report(at, format!("result {dest} has type {ty}, expected {want}"));
            }
        }
    }

    fn check_inst(&mut self, at: At, dest: Option<Reg>, kind: &InstKind) {
        match *kind {
            InstKind::IntBin { op, ty, lhs, rhs } => {
                let opcode = int_bin_name(op);
                if !ty.is_int() {
                    self.report(at, format!("{opcode} on {ty}, expected an integer type"));
                }
                self.operand(at, "lhs", lhs, ty);
                self.operand(at, "rhs", rhs, ty);
                self.result(at, opcode, dest, ty);
            }
            InstKind::FloatBin {
                op, ty, lhs, rhs, ..
            } => {
                let ty = Type::Float(ty);
                self.operand(at, "lhs", lhs, ty);
                self.operand(at, "rhs", rhs, ty);
                self.result(at, float_bin_name(op), dest, ty);
            }
            InstKind::Fneg { ty, arg } => {
                let ty = Type::Float(ty);
                self.operand(at, "operand", arg, ty);
                self.result(at, "fneg", dest, ty);
            }
            InstKind::Icmp { ty, lhs, rhs, .. } => {
                if !ty.is_int() && ty != Type::Ptr {
                    self.report(at, format!("icmp on {ty}, expected an integer or ptr"));
                }
                self.operand(at, "lhs", lhs, ty);
                self.operand(at, "rhs", rhs, ty);
                self.result(at, "icmp", dest, Type::BOOL);
            }
            InstKind::Fcmp { ty, lhs, rhs, .. } => {
                self.operand(at, "lhs", lhs, Type::Float(ty));
                self.operand(at, "rhs", rhs, Type::Float(ty));
                self.result(at, "fcmp", dest, Type::BOOL);
            }
            InstKind::Cast { op, from, to, arg } => {
                if let Some(problem) = cast_problem(op, from, to) {
                    self.report(at, format!("{} {from} to {to}: {problem}", cast_name(op)));
                }
                self.operand(at, "operand", arg, from);
                self.result(at, cast_name(op), dest, to);
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                self.operand(at, "condition", cond, Type::BOOL);
                self.operand(at, "true value", if_true, ty);
                self.operand(at, "false value", if_false, ty);
                self.result(at, "select", dest, ty);
            }
            InstKind::Load { ty, addr } => {
                self.operand(at, "address", addr, Type::Ptr);
                self.result(at, "load", dest, ty);
            }
            InstKind::Store { ty, addr, value } => {
                self.operand(at, "address", addr, Type::Ptr);
                self.operand(at, "stored value", value, ty);
                if let Some(d) = dest {
                    self.report(at, format!("store has a result register {d}"));
                }
            }
            InstKind::Alloca { count, align, .. } => {
                if let Some(count) = count {
                    self.int_operand(at, "count", count);
                }
                if !align.is_power_of_two() {
                    self.report(at, format!("alignment {align} is not a power of two"));
                }
                self.result(at, "alloca", dest, Type::Ptr);
            }
            InstKind::PtrOffset {
                base, ref terms, ..
            } => {
                self.operand(at, "base", base, Type::Ptr);
                for term in terms {
                    self.int_operand(at, "index", term.index);
                }
                self.result(at, "ptroffset", dest, Type::Ptr);
            }
            InstKind::Call {
                ref callee,
                ref args,
            } => self.check_call(at, dest, callee, args),
        }
    }

    fn check_call(&mut self, at: At, dest: Option<Reg>, callee: &Callee, args: &[Reg]) {
        match *callee {
            Callee::Direct(f) => {
                let Some(target) = self.module.funcs.get(f) else {
                    self.report(at, format!("calls {f}, which does not exist"));
                    self.untyped_args(at, args);
                    return;
                };
                let name = format!("{f} {}", quote(&target.name));
                match target.blocks.get(Function::ENTRY) {
                    Some(entry) => {
                        let params: Vec<Option<Type>> = entry
                            .params
                            .iter()
                            .map(|&p| target.regs.get(p).copied())
                            .collect();
                        self.args(at, &name, args, &params);
                    }
                    None => self.untyped_args(at, args),
                }
                match (dest, target.ret) {
                    (Some(d), None) => {
                        self.report(at, format!("result {d} but {name} returns nothing"));
                    }
                    (Some(d), Some(ret)) => self.optional_result(at, d, ret),
                    (None, _) => {}
                }
            }
            Callee::Indirect(r) => {
                self.operand(at, "callee", r, Type::Ptr);
                self.untyped_args(at, args);
            }
            Callee::Math(call, _) => {
                let f = Some(Type::Float(call.ty));
                let params: &[Option<Type>] = match call.func.shape() {
                    MathShape::Unary | MathShape::ToInt => &[f],
                    MathShape::Binary => &[f, f],
                    MathShape::Ternary => &[f, f, f],
                    MathShape::FloatInt => &[f, Some(Type::I32)],
                    MathShape::FloatPtrInt | MathShape::FloatPtrFloat => &[f, Some(Type::Ptr)],
                };
                let name = format!("math {}.{}", call.func.name(), call.ty);
                self.args(at, &name, args, params);
                match (dest, call.func.shape()) {
                    (Some(d), MathShape::ToInt) => {
                        if let Some(ty) = self.func.regs.get(d).filter(|t| !t.is_int()) {
                            self.report(
                                at,
                                format!("result {d} has type {ty}, expected an integer"),
                            );
                        }
                    }
                    (Some(d), _) => self.optional_result(at, d, Type::Float(call.ty)),
                    (None, _) => {}
                }
            }
            Callee::Builtin(_) => self.untyped_args(at, args),
            Callee::External(e) => {
                let n = self.module.externals.len();
                if e as usize >= n {
                    self.report(
                        at,
                        format!("calls extern {e}, but the module has {n} externals"),
                    );
                }
                self.untyped_args(at, args);
            }
        }
    }

    fn untyped_args(&mut self, at: At, args: &[Reg]) {
        for &a in args {
            self.use_reg(at, a);
        }
    }

    /// Checks call arguments against `params` (`None`: parameter type unknown).
    fn args(&mut self, at: At, callee: &str, args: &[Reg], params: &[Option<Type>]) {
        if args.len() != params.len() {
            self.report(
                at,
                format!(
                    "{callee} takes {} arguments but gets {}",
                    params.len(),
                    args.len()
                ),
            );
        }
        for (i, &a) in args.iter().enumerate() {
            match params.get(i).copied().flatten() {
                Some(want) => self.operand(at, &format!("argument {i}"), a, want),
                None => {
                    self.use_reg(at, a);
                }
            }
        }
    }

    fn block_call(&mut self, at: At, call: &BlockCall) {
        let Some(target) = self.func.blocks.get(call.block) else {
            self.report(at, format!("jumps to {}, which does not exist", call.block));
            self.untyped_args(at, &call.args);
            return;
        };
        if call.block == Function::ENTRY {
            self.report(at, format!("jumps to the entry block {}", call.block));
        }
        let (n, m) = (call.args.len(), target.params.len());
        if n != m {
            self.report(
                at,
                format!("passes {n} arguments to {}, which takes {m}", call.block),
            );
        }
        for (i, &a) in call.args.iter().enumerate() {
            match target.params.get(i).and_then(|&p| self.func.regs.get(p)) {
                Some(&want) => {
                    self.operand(at, &format!("argument {i} to {}", call.block), a, want)
                }
                None => {
                    self.use_reg(at, a);
                }
            }
        }
    }

    fn check_term(&mut self, b: Block, term: &Terminator) {
        let at = At::Term(b);
        match *term {
            Terminator::Jump(ref to) => self.block_call(at, to),
            Terminator::Br {
                cond,
                ref then_to,
                ref else_to,
                ..
            } => {
                self.operand(at, "condition", cond, Type::BOOL);
                self.block_call(at, then_to);
                self.block_call(at, else_to);
            }
            Terminator::Switch {
                ty,
                value,
                ref cases,
                ref default,
                ..
            } => {
                if !ty.is_int() {
                    self.report(at, format!("switch on {ty}, expected an integer type"));
                }
                self.operand(at, "scrutinee", value, ty);
                let mut seen = HashSet::new();
                for case in cases {
                    if !bits_fit(ty, case.value) {
                        self.report(
                            at,
                            format!("case value {:#x} does not fit in {ty}", case.value),
                        );
                    }
                    if !seen.insert(case.value) {
                        self.report(at, format!("case value {:#x} appears twice", case.value));
                    }
                    self.block_call(at, &case.target);
                }
                self.block_call(at, default);
            }
            Terminator::Ret(value) => match (value, self.func.ret) {
                (Some(r), Some(ret)) => self.operand(at, "returned value", r, ret),
                (Some(r), None) => {
                    self.use_reg(at, r);
                    self.report(at, format!("returns {r} from a function returning nothing"));
                }
                (None, Some(ret)) => {
                    self.report(
                        at,
                        format!("returns nothing from a function returning {ret}"),
                    );
                }
                (None, None) => {}
            },
            Terminator::Unreachable => {}
            Terminator::Invoke {
                ref normal,
                ref landing,
            } => {
                let ends_in_call = self.func.blocks[b]
                    .insts
                    .last()
                    .is_some_and(|i| matches!(i.kind, InstKind::Call { .. }));
                if !ends_in_call {
                    self.report(
                        at,
                        "invoke after a block that does not end in a call".into(),
                    );
                }
                for (what, r, want) in [
                    ("exception", landing.exception, Type::Ptr),
                    ("selector", landing.selector, Type::I32),
                ] {
                    if self.func.regs.get(r) != Some(&want) {
                        self.report(at, format!("the landing's {what} {r} must be {want}"));
                    }
                }
                for typeinfo in landing.typeinfos() {
                    self.operand(at, "typeinfo", typeinfo, Type::Ptr);
                }
                self.block_call(at, normal);
                self.block_call(at, &landing.to);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_rules() {
        assert_eq!(cast_problem(CastOp::Trunc, Type::I64, Type::I32), None);
        assert!(cast_problem(CastOp::Trunc, Type::I32, Type::I32).is_some());
        assert!(cast_problem(CastOp::Zext, Type::I32, Type::I8).is_some());
        assert_eq!(cast_problem(CastOp::Fpext, Type::F32, Type::F64), None);
        assert!(cast_problem(CastOp::Fptrunc, Type::F32, Type::F64).is_some());
        assert_eq!(cast_problem(CastOp::Bitcast, Type::I64, Type::F64), None);
        assert!(cast_problem(CastOp::Bitcast, Type::I32, Type::F64).is_some());
        assert_eq!(cast_problem(CastOp::Ptrtoint, Type::Ptr, Type::I64), None);
        assert!(cast_problem(CastOp::Inttoptr, Type::F64, Type::Ptr).is_some());
    }
}
