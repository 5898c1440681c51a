//! Function bodies: LLVM instructions and terminators to fpir, one handler per opcode.
//!
//! Registers are allocated on first mention (parameters first, then values in the order
//! the body names them); phis become block parameters and every jump passes the phi
//! values for its edge. Values that are pure renamings — `bitcast` between pointers,
//! `addrspacecast`, `freeze`, `llvm.expect`, the pointer libc `memcpy` returns — are not
//! instructions: their uses read the original operand. Constants become registers of
//! the function's constant table (one per distinct type and value); constant expressions
//! that need a run-time address as an integer are materialized as instructions before
//! their use.
//!
//! Aggregate and vector values (`{ double, double }` returned by a small-struct
//! function, `<2 x float>`) live in memory: the register is a `ptr` to a copy of the
//! bytes that nothing writes through afterwards — a stack slot made where the value is
//! made (`load`, `insertvalue`, call results), or a constant global for constants.
//! `extractvalue`/`extractelement` read from it, `store` copies it, and a function
//! returning one takes a hidden first parameter ([`SRET_NAME`]) to copy it into.
//!
//! Blocks only reachable through a branch on a constant are dead code; an unsupported
//! instruction there is dropped (its result, if fpir can type it, reads as zero) instead
//! of failing the function, and a terminator operand that cannot be lowered becomes
//! zero, so every block and branch site survives. A function lowered as a skeleton
//! (`LoadOptions::skip_unsupported`) is lowered as if all of it were dead code, behind a
//! trapping call at its entry.

use crate::calls::{classify, BuiltinArgs, Constrained, Target};
use crate::consts::{int_width, mask, sext, Folded};
use crate::ctx::Ctx;
use crate::error::LowerError;
use crate::layout::{describe_unsupported, gep_offsets, scalar, uniform_element, GepIndex};
use crate::symbols::Symbols;
use fpir::{
    BlockCall, BlockData, Builtin, Callee, CastOp, Const, EntityVec, FloatBinOp, FloatPred,
    Function, Inst, InstKind, IntBinOp, IntPred, Reg, SrcLoc, SwitchCase, Terminator, Type,
};
use llvm_ir::debugloc::DebugLoc;
use llvm_ir::function::ParameterAttribute;
use llvm_ir::instruction::{Call, Phi};
use llvm_ir::terminator as term;
use llvm_ir::{Constant, FPPredicate, Instruction, IntPredicate, Name, Operand, TypeRef};
use std::collections::HashMap;

/// The name of the hidden first parameter through which a function returning an
/// aggregate or vector (`{ double, double }`, `<2 x float>`) delivers its result: the
/// caller passes a slot, the callee copies the value there and returns nothing.
pub(crate) const SRET_NAME: &str = ".sret";

/// Lowers one defined function. With `skip_unsupported`, a function using something
/// fpir cannot represent is lowered as a skeleton instead of failing (see
/// [`FnLower::skipped`]).
pub(crate) fn lower_function<'m>(
    symbols: &Symbols<'m>,
    ctx: &mut Ctx,
    f: &'m llvm_ir::Function,
    skip_unsupported: bool,
) -> Result<Function, LowerError> {
    let counters = ctx.site_counters();
    match FnLower::new(symbols, ctx, f, None).run() {
        Err(e @ LowerError::Unsupported { .. }) if skip_unsupported => {
            ctx.reset_site_counters(counters);
            FnLower::new(symbols, ctx, f, Some(e.to_string())).run()
        }
        result => result,
    }
}

struct FnLower<'c, 'm> {
    symbols: &'c Symbols<'m>,
    ctx: &'c mut Ctx,
    f: &'m llvm_ir::Function,
    regs: EntityVec<Reg, Type>,
    consts: Vec<(Reg, Const)>,
    const_regs: HashMap<(Type, Const), Reg>,
    values: HashMap<&'m Name, Reg>,
    aliases: HashMap<&'m Name, &'m Operand>,
    blocks: HashMap<&'m Name, fpir::Block>,
    phis: Vec<Vec<&'m Phi>>,
    /// The LLVM block being lowered (the predecessor of the edges its terminator makes).
    block_name: Option<&'m Name>,
    insts: Vec<Inst>,
    locs: Vec<Option<SrcLoc>>,
    /// Debug location of the instruction being lowered (for error messages).
    dloc: &'m Option<DebugLoc>,
    /// Its interned location.
    loc: Option<SrcLoc>,
    /// True while lowering a block that is dead (see [`FnLower::live_blocks`]):
    /// unsupported instructions there are dropped instead of failing the function.
    lenient: bool,
    /// Why the function is lowered as a skeleton, when it is.
    skipped: Option<String>,
    /// The fpir result type.
    ret: Option<Type>,
    /// The hidden first parameter receiving an aggregate result, when the function
    /// returns one.
    sret: Option<Reg>,
    /// Block and instruction index of the instruction being lowered.
    position: (usize, usize),
}

impl<'c, 'm> FnLower<'c, 'm> {
    fn new(
        symbols: &'c Symbols<'m>,
        ctx: &'c mut Ctx,
        f: &'m llvm_ir::Function,
        skipped: Option<String>,
    ) -> Self {
        FnLower {
            symbols,
            ctx,
            f,
            regs: EntityVec::new(),
            consts: Vec::new(),
            const_regs: HashMap::new(),
            values: HashMap::new(),
            aliases: HashMap::new(),
            blocks: HashMap::new(),
            phis: Vec::new(),
            block_name: None,
            insts: Vec::new(),
            locs: Vec::new(),
            dloc: &None,
            loc: None,
            lenient: false,
            skipped,
            ret: None,
            sret: None,
            position: (0, 0),
        }
    }

    /// Lowers the function. A skipped function (`self.skipped`) is lowered as a
    /// skeleton: every block is treated as dead code (unsupported instructions dropped,
    /// branch sites kept), parameters and a result of unsupported types are left out,
    /// and the entry block first calls an external named after the function and the
    /// reason, so running it traps and `Module::unresolved_from` reports it.
    fn run(&mut self) -> Result<Function, LowerError> {
        let f = self.f;
        self.dloc = &f.debugloc;
        let mut params = Vec::new();
        let mut param_pointees = Vec::new();
        let mut param_names = Vec::new();
        if self.is_mem(&f.return_type) {
            let sret = self.new_reg(Type::Ptr);
            self.sret = Some(sret);
            params.push(sret);
            param_pointees.push(uniform_element(&f.return_type));
            param_names.push(Some(SRET_NAME.to_string()));
        }
        for p in &f.parameters {
            if self.skipped.is_some() && self.reg_ty(&p.ty).is_none() {
                continue;
            }
            params.push(self.value(&p.name, &p.ty)?);
            param_pointees.push(match p.ty.as_ref() {
                llvm_ir::Type::PointerType { pointee_type, .. } => scalar(pointee_type),
                llvm_ir::Type::VectorType { element_type, .. }
                | llvm_ir::Type::ArrayType { element_type, .. } => scalar(element_type),
                _ => None,
            });
            param_names.push(match &p.name {
                Name::Name(s) => Some(s.to_string()),
                Name::Number(_) => None,
            });
        }
        let ret = match f.return_type.as_ref() {
            llvm_ir::Type::VoidType => None,
            _ if self.sret.is_some() => None,
            other if self.skipped.is_some() => scalar(other),
            other => Some(scalar(other).ok_or_else(|| {
                self.unsupported(format!("{} result", describe_unsupported(other)))
            })?),
        };
        self.ret = ret;
        for (i, bb) in f.basic_blocks.iter().enumerate() {
            self.blocks
                .insert(&bb.name, <fpir::Block as fpir::EntityId>::new(i));
            let mut phis = Vec::new();
            for inst in &bb.instrs {
                match inst {
                    Instruction::Phi(phi) => phis.push(phi),
                    other => self.find_alias(other),
                }
            }
            self.phis.push(phis);
        }
        let live = match self.skipped {
            Some(_) => vec![false; f.basic_blocks.len()],
            None => self.live_blocks(),
        };
        let mut phis = std::mem::take(&mut self.phis);
        for (phis, &live) in phis.iter_mut().zip(&live) {
            // Phis of types fpir cannot hold may only sit in dead code; drop them there.
            phis.retain(|phi| live || self.reg_ty(&phi.to_type).is_some());
        }
        self.phis = phis;
        let mut blocks = EntityVec::new();
        let mut dropped_code = false;
        for (i, bb) in f.basic_blocks.iter().enumerate() {
            self.block_name = Some(&bb.name);
            self.lenient = !live[i];
            let block_params = if i == 0 {
                params.clone()
            } else {
                let mut ps = Vec::new();
                let phis = self.phis[i].clone();
                for phi in phis {
                    self.dloc = &phi.debugloc;
                    ps.push(self.value(&phi.dest, &phi.to_type)?);
                }
                ps
            };
            if let (0, Some(reason)) = (i, &self.skipped) {
                let name = format!("{} (not lowered: {reason})", f.name);
                let trap = Callee::External(self.ctx.external(&name));
                self.push(
                    None,
                    InstKind::Call {
                        callee: trap,
                        args: Vec::new(),
                    },
                );
            }
            for (j, inst) in bb.instrs.iter().enumerate() {
                self.position = (i, j);
                self.dloc = inst_debugloc(inst);
                self.loc = self.ctx.src_loc(self.dloc);
                let emitted = self.insts.len();
                match self.lower_inst(inst) {
                    Ok(()) => {}
                    Err(LowerError::Unsupported { .. }) if self.lenient => {
                        self.insts.truncate(emitted);
                        self.locs.truncate(emitted);
                        dropped_code = true;
                    }
                    Err(e) => return Err(e),
                }
            }
            self.dloc = term_debugloc(&bb.term);
            self.loc = self.ctx.src_loc(self.dloc);
            let term_loc = self.loc;
            let term = match self.lower_term(&bb.term) {
                Err(LowerError::Unsupported { .. })
                    if self.lenient
                        && !matches!(
                            bb.term,
                            term::Terminator::CondBr(_) | term::Terminator::Switch(_)
                        ) =>
                {
                    Terminator::Unreachable
                }
                other => other?,
            };
            blocks.push(BlockData {
                params: block_params,
                insts: std::mem::take(&mut self.insts),
                locs: std::mem::take(&mut self.locs),
                term,
                term_loc,
            });
        }
        if dropped_code {
            self.define_dropped_values(&blocks);
        }
        let loc = self.ctx.src_loc(&f.debugloc).or_else(|| {
            blocks
                .values()
                .find_map(|b: &BlockData| b.locs.iter().flatten().next().copied())
        });
        Ok(Function {
            name: f.name.clone(),
            ret,
            param_pointees,
            param_names,
            regs: std::mem::take(&mut self.regs),
            consts: std::mem::take(&mut self.consts),
            blocks,
            loc,
        })
    }

    /// Which blocks can run: those reachable from the entry when a branch on a constant
    /// condition only follows the edge it takes. Dead code is common at `-O0`: musl's
    /// `isnan(x)` expands to `sizeof(x) == sizeof(double) ? ... : __fpclassifyl(x)`,
    /// whose `long double` arm sits behind `br i1 false`. Unsupported instructions in
    /// dead blocks are dropped (their results read as zero) rather than failing the
    /// function; the blocks and their branch sites stay, so site numbering still follows
    /// the text.
    fn live_blocks(&self) -> Vec<bool> {
        use term::Terminator as T;
        let bbs = &self.f.basic_blocks;
        let mut live = vec![false; bbs.len()];
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            if i >= bbs.len() || std::mem::replace(&mut live[i], true) {
                continue;
            }
            let succs: Vec<&Name> = match &bbs[i].term {
                T::Br(b) => vec![&b.dest],
                T::CondBr(b) => match b.condition.as_constant() {
                    Some(Constant::Int { value, .. }) if value & 1 == 1 => vec![&b.true_dest],
                    Some(Constant::Int { .. }) => vec![&b.false_dest],
                    _ => vec![&b.true_dest, &b.false_dest],
                },
                T::Switch(s) => match s.operand.as_constant() {
                    Some(k @ Constant::Int { .. }) => {
                        let hit = s.dests.iter().find(|(c, _)| c.as_ref() == k);
                        vec![hit.map_or(&s.default_dest, |(_, d)| d)]
                    }
                    _ => s
                        .dests
                        .iter()
                        .map(|(_, d)| d)
                        .chain([&s.default_dest])
                        .collect(),
                },
                T::IndirectBr(b) => b.possible_dests.iter().collect(),
                T::Invoke(inv) => vec![&inv.return_label, &inv.exception_label],
                _ => Vec::new(),
            };
            stack.extend(
                succs
                    .into_iter()
                    .filter_map(|n| self.blocks.get(n))
                    .map(|b| b.0 as usize),
            );
        }
        live
    }

    /// Defines every register left without a definition by dropped dead code as zero.
    fn define_dropped_values(&mut self, blocks: &EntityVec<fpir::Block, BlockData>) {
        let mut defined = vec![false; self.regs.len()];
        let mut mark = |r: Reg| {
            if let Some(d) = defined.get_mut(r.0 as usize) {
                *d = true;
            }
        };
        for (r, _) in &self.consts {
            mark(*r);
        }
        for b in blocks.values() {
            b.params.iter().copied().for_each(&mut mark);
            b.insts.iter().filter_map(|i| i.dest).for_each(&mut mark);
        }
        for (r, _) in self.regs.iter() {
            if !defined[r.0 as usize] {
                self.consts.push((r, Const::Bits(0)));
            }
        }
    }

    /// The register of a terminator operand of type `ty`; in dead code an operand that
    /// cannot be lowered reads as zero.
    fn term_operand(&mut self, op: &'m Operand, ty: Type) -> Result<Reg, LowerError> {
        match self.operand(op) {
            Ok(r) => Ok(r),
            Err(LowerError::Unsupported { .. }) if self.lenient => {
                Ok(self.const_reg(ty, Const::Bits(0)))
            }
            Err(e) => Err(e),
        }
    }

    // ---- errors ----

    fn location(&mut self) -> String {
        let loc = self.ctx.src_loc(self.dloc);
        self.ctx.out.describe_loc(loc)
    }

    fn unsupported(&mut self, what: impl std::fmt::Display) -> LowerError {
        LowerError::Unsupported {
            what: format!("{what} in function `{}`", self.f.name),
            location: self.location(),
        }
    }

    fn malformed(&mut self, what: impl std::fmt::Display) -> LowerError {
        LowerError::Malformed {
            what: format!("{what} in function `{}`", self.f.name),
            location: self.location(),
        }
    }

    // ---- values ----

    /// Records instructions whose result is another value under a new name.
    fn find_alias(&mut self, inst: &'m Instruction) {
        let types = &self.symbols.llvm.types;
        match inst {
            Instruction::Freeze(i) => {
                self.aliases.insert(&i.dest, &i.operand);
            }
            Instruction::AddrSpaceCast(i) => {
                self.aliases.insert(&i.dest, &i.operand);
            }
            Instruction::BitCast(i) => {
                let from = types.type_of(&i.operand);
                let both_ptr = matches!(from.as_ref(), llvm_ir::Type::PointerType { .. })
                    && matches!(i.to_type.as_ref(), llvm_ir::Type::PointerType { .. });
                let same_bytes = self.is_mem(&from)
                    && self.is_mem(&i.to_type)
                    && self.symbols.layout.size_align(&from).map(|sa| sa.size)
                        == self.symbols.layout.size_align(&i.to_type).map(|sa| sa.size);
                if both_ptr || same_bytes || from == i.to_type {
                    self.aliases.insert(&i.dest, &i.operand);
                }
            }
            Instruction::Call(call) => {
                if let (Some(dest), Some((_, target))) = (&call.dest, self.external_target(call)) {
                    if matches!(target, Target::Forward | Target::BuiltinReturningArg0(..)) {
                        if let Some((arg, _)) = call.arguments.first() {
                            self.aliases.insert(dest, arg);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A new register of type `ty`.
    fn new_reg(&mut self, ty: Type) -> Reg {
        self.regs.push(ty)
    }

    /// The register of the local value `name` of LLVM type `ty`.
    fn value(&mut self, name: &'m Name, ty: &TypeRef) -> Result<Reg, LowerError> {
        if let Some(&r) = self.values.get(name) {
            return Ok(r);
        }
        let t = match self.reg_ty(ty) {
            Some(t) => t,
            None => return Err(self.unsupported(format!("{} value", describe_unsupported(ty)))),
        };
        let r = self.new_reg(t);
        self.values.insert(name, r);
        Ok(r)
    }

    /// True for first-class aggregates and vectors, which live in memory: such a value
    /// is a `ptr` register pointing to a read-only copy of its bytes (a stack slot, or a
    /// constant global for constants). Nothing ever writes through it.
    fn is_mem(&self, ty: &llvm_ir::Type) -> bool {
        matches!(
            ty,
            llvm_ir::Type::StructType { .. }
                | llvm_ir::Type::NamedStructType { .. }
                | llvm_ir::Type::ArrayType { .. }
                | llvm_ir::Type::VectorType { .. }
        ) && self.symbols.layout.size_align(ty).is_ok()
    }

    /// The register type of an LLVM value type: its scalar type, or `ptr` for values
    /// held in memory.
    fn reg_ty(&self, ty: &llvm_ir::Type) -> Option<Type> {
        scalar(ty).or_else(|| self.is_mem(ty).then_some(Type::Ptr))
    }

    /// Size and alignment of a type held in memory.
    fn mem_layout(&mut self, ty: &llvm_ir::Type) -> Result<crate::layout::SizeAlign, LowerError> {
        self.symbols
            .layout
            .size_align(ty)
            .map_err(|e| self.unsupported(e))
    }

    /// Emits `memcpy(dst, src, size)`.
    fn memcpy(&mut self, dst: Reg, src: Reg, size: u64) {
        let len = self.const_reg(Type::I64, Const::Bits(size));
        self.push(
            None,
            InstKind::Call {
                callee: Callee::Builtin(Builtin::Memcpy),
                args: vec![dst, src, len],
            },
        );
    }

    /// Emits a fresh stack slot for a value of type `ty`.
    fn slot(&mut self, ty: &llvm_ir::Type) -> Result<Reg, LowerError> {
        let sa = self.mem_layout(ty)?;
        Ok(self.emit(
            Type::Ptr,
            InstKind::Alloca {
                size: sa.size,
                count: None,
                align: sa.align,
            },
        ))
    }

    /// The byte offset and type of the element at constant `indices` inside `ty`.
    fn element_at(&mut self, ty: &TypeRef, indices: &[u32]) -> Result<(u64, TypeRef), LowerError> {
        let mut offset = 0u64;
        let mut ty = ty.clone();
        for &i in indices {
            let next = match ty.as_ref() {
                llvm_ir::Type::ArrayType { element_type, .. }
                | llvm_ir::Type::VectorType { element_type, .. } => {
                    let size = self.mem_layout(element_type)?.size;
                    offset = offset.wrapping_add(size.wrapping_mul(u64::from(i)));
                    element_type.clone()
                }
                _ => {
                    let (off, field) = match self.symbols.layout.field(&ty, u64::from(i)) {
                        Ok((off, field)) => (off, field.clone()),
                        Err(e) => return Err(self.unsupported(e)),
                    };
                    offset = offset.wrapping_add(off);
                    field
                }
            };
            ty = next;
        }
        Ok((offset, ty))
    }

    /// Defines `dest` as a fresh stack slot for a value of type `ty`.
    fn slot_for(&mut self, dest: &'m Name, ty: &TypeRef) -> Result<Reg, LowerError> {
        let sa = self.mem_layout(ty)?;
        let r = self.value(dest, ty)?;
        self.push(
            Some(r),
            InstKind::Alloca {
                size: sa.size,
                count: None,
                align: sa.align,
            },
        );
        Ok(r)
    }

    /// A constant aggregate or vector: the address of a constant global holding it.
    fn const_global(&mut self, c: &Constant, ty: &TypeRef) -> Result<Reg, LowerError> {
        let sa = self.mem_layout(ty)?;
        let mut init = vec![0u8; usize::try_from(sa.size).unwrap_or(usize::MAX).min(1 << 32)];
        let mut relocs = Vec::new();
        if let Err(e) = self.symbols.write_init(c, 0, &mut init, &mut relocs) {
            return Err(self.unsupported(e));
        }
        let name = format!("{}.const{}", self.f.name, self.ctx.out.globals.len());
        let g = self.ctx.out.globals.push(fpir::GlobalData {
            name,
            init,
            align: sa.align,
            constant: true,
            relocs,
        });
        Ok(self.const_reg(Type::Ptr, Const::Addr(fpir::AddrBase::Global(g), 0)))
    }

    /// Writes `value` (of LLVM type `ty`) to `addr`.
    fn write_value(&mut self, ty: &TypeRef, addr: Reg, value: Reg) -> Result<(), LowerError> {
        match scalar(ty) {
            Some(t) => {
                self.push(None, InstKind::Store { ty: t, addr, value });
                Ok(())
            }
            None => {
                let size = self.mem_layout(ty)?.size;
                self.memcpy(addr, value, size);
                Ok(())
            }
        }
    }

    /// `base + offset` as a register (the base itself when the offset is 0).
    fn offset_addr(&mut self, base: Reg, offset: u64) -> Reg {
        if offset == 0 {
            return base;
        }
        self.emit(
            Type::Ptr,
            InstKind::PtrOffset {
                base,
                offset: offset as i64,
                terms: Vec::new(),
            },
        )
    }

    fn scalar_ty(&mut self, ty: &TypeRef) -> Result<Type, LowerError> {
        scalar(ty).ok_or_else(|| self.unsupported(format!("{} value", describe_unsupported(ty))))
    }

    fn type_of(&self, op: &Operand) -> TypeRef {
        self.symbols.llvm.types.type_of(op)
    }

    fn operand_ty(&mut self, op: &Operand) -> Result<Type, LowerError> {
        let ty = self.type_of(op);
        self.scalar_ty(&ty)
    }

    /// The register holding operand `op`.
    fn operand(&mut self, op: &'m Operand) -> Result<Reg, LowerError> {
        match op {
            Operand::LocalOperand { name, ty } => match self.aliases.get(name) {
                Some(&orig) => self.operand(orig),
                None => self.value(name, ty),
            },
            Operand::ConstantOperand(c) => self.constant(c),
            Operand::MetadataOperand => Err(self.unsupported("metadata operand")),
        }
    }

    /// The constant register of `value` at type `ty`.
    fn const_reg(&mut self, ty: Type, value: Const) -> Reg {
        if let Some(&r) = self.const_regs.get(&(ty, value)) {
            return r;
        }
        let r = self.new_reg(ty);
        self.consts.push((r, value));
        self.const_regs.insert((ty, value), r);
        r
    }

    /// A register holding constant `c`, materializing run-time constant expressions.
    fn constant(&mut self, c: &'m Constant) -> Result<Reg, LowerError> {
        let ty = self.symbols.llvm.types.type_of(c);
        if scalar(&ty).is_none() && self.is_mem(&ty) {
            return self.const_global(c, &ty);
        }
        let t = self.scalar_ty(&ty)?;
        match self.symbols.fold(c) {
            Ok(Some(folded)) => {
                let value = match (t, folded) {
                    (Type::Int(_), Folded::Addr(..)) | (Type::Float(_), Folded::Addr(..)) => {
                        return Err(self.unsupported(format!("constant expression `{c}`")))
                    }
                    (_, f) => f.to_const(),
                };
                Ok(self.const_reg(t, value))
            }
            Ok(None) => self.materialize(c, t),
            Err(what) => Err(self.unsupported(what)),
        }
    }

    /// Emits instructions computing a constant expression that does not fold.
    fn materialize(&mut self, c: &'m Constant, t: Type) -> Result<Reg, LowerError> {
        let cast = match c {
            Constant::PtrToInt(x) => Some((CastOp::Ptrtoint, &x.operand)),
            Constant::IntToPtr(x) => Some((CastOp::Inttoptr, &x.operand)),
            Constant::Trunc(x) => Some((CastOp::Trunc, &x.operand)),
            Constant::ZExt(x) => Some((CastOp::Zext, &x.operand)),
            Constant::SExt(x) => Some((CastOp::Sext, &x.operand)),
            Constant::BitCast(x) => Some((CastOp::Bitcast, &x.operand)),
            _ => None,
        };
        if let Some((op, operand)) = cast {
            let from = {
                let ty = self.symbols.llvm.types.type_of(&**operand);
                self.scalar_ty(&ty)?
            };
            let arg = self.constant(operand)?;
            if op == CastOp::Bitcast && from == t {
                return Ok(arg);
            }
            return Ok(self.emit(
                t,
                InstKind::Cast {
                    op,
                    from,
                    to: t,
                    arg,
                },
            ));
        }
        let bin = |op, a: &'m llvm_ir::ConstantRef, b: &'m llvm_ir::ConstantRef| Some((op, a, b));
        let found = match c {
            Constant::Add(x) => bin(IntBinOp::Add, &x.operand0, &x.operand1),
            Constant::Sub(x) => bin(IntBinOp::Sub, &x.operand0, &x.operand1),
            Constant::Mul(x) => bin(IntBinOp::Mul, &x.operand0, &x.operand1),
            Constant::UDiv(x) => bin(IntBinOp::Udiv, &x.operand0, &x.operand1),
            Constant::SDiv(x) => bin(IntBinOp::Sdiv, &x.operand0, &x.operand1),
            Constant::URem(x) => bin(IntBinOp::Urem, &x.operand0, &x.operand1),
            Constant::SRem(x) => bin(IntBinOp::Srem, &x.operand0, &x.operand1),
            Constant::And(x) => bin(IntBinOp::And, &x.operand0, &x.operand1),
            Constant::Or(x) => bin(IntBinOp::Or, &x.operand0, &x.operand1),
            Constant::Xor(x) => bin(IntBinOp::Xor, &x.operand0, &x.operand1),
            Constant::Shl(x) => bin(IntBinOp::Shl, &x.operand0, &x.operand1),
            Constant::LShr(x) => bin(IntBinOp::Lshr, &x.operand0, &x.operand1),
            Constant::AShr(x) => bin(IntBinOp::Ashr, &x.operand0, &x.operand1),
            _ => None,
        };
        if let Some((op, a, b)) = found {
            let lhs = self.constant(a)?;
            let rhs = self.constant(b)?;
            return Ok(self.emit(
                t,
                InstKind::IntBin {
                    op,
                    ty: t,
                    lhs,
                    rhs,
                },
            ));
        }
        match c {
            Constant::ICmp(i) => {
                let ty = {
                    let ty = self.symbols.llvm.types.type_of(&*i.operand0);
                    self.scalar_ty(&ty)?
                };
                let lhs = self.constant(&i.operand0)?;
                let rhs = self.constant(&i.operand1)?;
                let pred = int_pred(i.predicate);
                Ok(self.emit(t, InstKind::Icmp { pred, ty, lhs, rhs }))
            }
            Constant::Select(s) => {
                let cond = self.constant(&s.condition)?;
                let if_true = self.constant(&s.true_value)?;
                let if_false = self.constant(&s.false_value)?;
                Ok(self.emit(
                    t,
                    InstKind::Select {
                        ty: t,
                        cond,
                        if_true,
                        if_false,
                    },
                ))
            }
            Constant::GetElementPtr(_) => Err(self.unsupported(format!(
                "constant getelementptr on an integer address `{c}`"
            ))),
            _ => Err(self.unsupported(format!("constant expression `{c}`"))),
        }
    }

    // ---- emitting ----

    fn push(&mut self, dest: Option<Reg>, kind: InstKind) {
        self.insts.push(Inst { dest, kind });
        self.locs.push(self.loc);
    }

    /// Emits an instruction into a new register of type `ty`.
    fn emit(&mut self, ty: Type, kind: InstKind) -> Reg {
        let r = self.new_reg(ty);
        self.push(Some(r), kind);
        r
    }

    /// Emits an instruction defining the LLVM value `dest`.
    fn define(&mut self, dest: &'m Name, ty: &TypeRef, kind: InstKind) -> Result<(), LowerError> {
        let r = self.value(dest, ty)?;
        self.push(Some(r), kind);
        Ok(())
    }

    // ---- instructions ----

    fn int_bin(
        &mut self,
        op: IntBinOp,
        a: &'m Operand,
        b: &'m Operand,
        dest: &'m Name,
    ) -> Result<(), LowerError> {
        let ty = self.operand_ty(a)?;
        if !ty.is_int() {
            return Err(self.unsupported(format!("integer operation on {ty}")));
        }
        let lhs = self.operand(a)?;
        let rhs = self.operand(b)?;
        let llty = self.type_of(a);
        self.define(dest, &llty, InstKind::IntBin { op, ty, lhs, rhs })
    }

    fn float_bin(
        &mut self,
        op: FloatBinOp,
        a: &'m Operand,
        b: &'m Operand,
        dest: &'m Name,
    ) -> Result<(), LowerError> {
        let ty = self.operand_ty(a)?;
        let Some(ft) = ty.as_float() else {
            return Err(self.unsupported(format!("floating-point operation on {ty}")));
        };
        let lhs = self.operand(a)?;
        let rhs = self.operand(b)?;
        let site = self.ctx.next_op();
        let llty = self.type_of(a);
        self.define(
            dest,
            &llty,
            InstKind::FloatBin {
                op,
                ty: ft,
                lhs,
                rhs,
                site,
            },
        )
    }

    fn cast(
        &mut self,
        op: CastOp,
        arg: &'m Operand,
        to_type: &TypeRef,
        dest: &'m Name,
    ) -> Result<(), LowerError> {
        let from = self.operand_ty(arg)?;
        let to = self.scalar_ty(to_type)?;
        let arg = self.operand(arg)?;
        self.define(dest, to_type, InstKind::Cast { op, from, to, arg })
    }

    fn lower_inst(&mut self, inst: &'m Instruction) -> Result<(), LowerError> {
        use Instruction as I;
        match inst {
            I::Add(i) => self.int_bin(IntBinOp::Add, &i.operand0, &i.operand1, &i.dest),
            I::Sub(i) => self.int_bin(IntBinOp::Sub, &i.operand0, &i.operand1, &i.dest),
            I::Mul(i) => self.int_bin(IntBinOp::Mul, &i.operand0, &i.operand1, &i.dest),
            I::UDiv(i) => self.int_bin(IntBinOp::Udiv, &i.operand0, &i.operand1, &i.dest),
            I::SDiv(i) => self.int_bin(IntBinOp::Sdiv, &i.operand0, &i.operand1, &i.dest),
            I::URem(i) => self.int_bin(IntBinOp::Urem, &i.operand0, &i.operand1, &i.dest),
            I::SRem(i) => self.int_bin(IntBinOp::Srem, &i.operand0, &i.operand1, &i.dest),
            I::And(i) => self.int_bin(IntBinOp::And, &i.operand0, &i.operand1, &i.dest),
            I::Or(i) => self.int_bin(IntBinOp::Or, &i.operand0, &i.operand1, &i.dest),
            I::Xor(i) => self.int_bin(IntBinOp::Xor, &i.operand0, &i.operand1, &i.dest),
            I::Shl(i) => self.int_bin(IntBinOp::Shl, &i.operand0, &i.operand1, &i.dest),
            I::LShr(i) => self.int_bin(IntBinOp::Lshr, &i.operand0, &i.operand1, &i.dest),
            I::AShr(i) => self.int_bin(IntBinOp::Ashr, &i.operand0, &i.operand1, &i.dest),
            I::FAdd(i) => self.float_bin(FloatBinOp::Fadd, &i.operand0, &i.operand1, &i.dest),
            I::FSub(i) => self.float_bin(FloatBinOp::Fsub, &i.operand0, &i.operand1, &i.dest),
            I::FMul(i) => self.float_bin(FloatBinOp::Fmul, &i.operand0, &i.operand1, &i.dest),
            I::FDiv(i) => self.float_bin(FloatBinOp::Fdiv, &i.operand0, &i.operand1, &i.dest),
            I::FRem(i) => self.float_bin(FloatBinOp::Frem, &i.operand0, &i.operand1, &i.dest),
            I::FNeg(i) => {
                let ty = self.operand_ty(&i.operand)?;
                let Some(ft) = ty.as_float() else {
                    return Err(self.unsupported(format!("fneg on {ty}")));
                };
                let arg = self.operand(&i.operand)?;
                let llty = self.type_of(&i.operand);
                self.define(&i.dest, &llty, InstKind::Fneg { ty: ft, arg })
            }
            I::ExtractValue(e) => {
                let agg_ty = self.type_of(&e.aggregate);
                let base = self.operand(&e.aggregate)?;
                let (offset, elem_ty) = self.element_at(&agg_ty, &e.indices)?;
                self.read_at(&e.dest, &elem_ty, base, offset as i64, Vec::new())
            }
            I::InsertValue(iv) => {
                let agg_ty = self.type_of(&iv.aggregate);
                let slot = self.copy_for_insert(&iv.dest, &iv.aggregate, &agg_ty)?;
                let (offset, elem_ty) = self.element_at(&agg_ty, &iv.indices)?;
                let addr = self.offset_addr(slot, offset);
                let value = self.operand(&iv.element)?;
                self.write_value(&elem_ty, addr, value)
            }
            I::ExtractElement(e) => {
                let vec_ty = self.type_of(&e.vector);
                let base = self.operand(&e.vector)?;
                let (offset, terms, elem_ty) = self.vector_index(&vec_ty, &e.index)?;
                self.read_at(&e.dest, &elem_ty, base, offset, terms)
            }
            I::InsertElement(ie) => {
                let vec_ty = self.type_of(&ie.vector);
                let slot = self.copy_for_insert(&ie.dest, &ie.vector, &vec_ty)?;
                let (offset, terms, elem_ty) = self.vector_index(&vec_ty, &ie.index)?;
                let addr = if terms.is_empty() {
                    self.offset_addr(slot, offset as u64)
                } else {
                    self.emit(
                        Type::Ptr,
                        InstKind::PtrOffset {
                            base: slot,
                            offset,
                            terms,
                        },
                    )
                };
                let value = self.operand(&ie.element)?;
                self.write_value(&elem_ty, addr, value)
            }
            I::ShuffleVector(_) => Err(self.unsupported(format!("vector instruction `{inst}`"))),
            I::Alloca(a) => {
                let sa = self
                    .symbols
                    .layout
                    .size_align(&a.allocated_type)
                    .map_err(|e| self.unsupported(e))?;
                let count = match a.num_elements.as_constant() {
                    Some(Constant::Int { value: 1, .. }) => None,
                    _ => Some(self.operand(&a.num_elements)?),
                };
                let align = if a.alignment > 0 {
                    a.alignment
                } else {
                    sa.align
                };
                let ptr = self.symbols.llvm.types.pointer_to(a.allocated_type.clone());
                self.define(
                    &a.dest,
                    &ptr,
                    InstKind::Alloca {
                        size: sa.size,
                        count,
                        align,
                    },
                )
            }
            I::Load(l) => {
                if l.atomicity.is_some() {
                    return Err(self.unsupported("atomic load"));
                }
                let loaded = match self.type_of(&l.address).as_ref() {
                    llvm_ir::Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                    _ => return Err(self.unsupported("load through a vector of pointers")),
                };
                if scalar(&loaded).is_none() && self.is_mem(&loaded) {
                    // An aggregate value: a private copy of the bytes.
                    let addr = self.operand(&l.address)?;
                    let size = self.mem_layout(&loaded)?.size;
                    let slot = self.slot_for(&l.dest, &loaded)?;
                    self.memcpy(slot, addr, size);
                    return Ok(());
                }
                let ty = self.scalar_ty(&loaded)?;
                let addr = self.operand(&l.address)?;
                self.define(&l.dest, &loaded, InstKind::Load { ty, addr })
            }
            I::Store(s) => {
                if s.atomicity.is_some() {
                    return Err(self.unsupported("atomic store"));
                }
                let value_ty = self.type_of(&s.value);
                if scalar(&value_ty).is_none() && self.is_mem(&value_ty) {
                    let value = self.operand(&s.value)?;
                    let addr = self.operand(&s.address)?;
                    return self.write_value(&value_ty, addr, value);
                }
                let ty = self.operand_ty(&s.value)?;
                let value = self.operand(&s.value)?;
                let addr = self.operand(&s.address)?;
                self.push(None, InstKind::Store { ty, addr, value });
                Ok(())
            }
            I::Fence(_) | I::CmpXchg(_) | I::AtomicRMW(_) => {
                Err(self.unsupported(format!("atomic instruction `{inst}`")))
            }
            I::GetElementPtr(g) => {
                let addr_ty = self.operand_ty(&g.address)?;
                if addr_ty != Type::Ptr {
                    return Err(self.unsupported("getelementptr on a vector of pointers"));
                }
                let base = self.operand(&g.address)?;
                let mut indices = Vec::with_capacity(g.indices.len());
                for idx in &g.indices {
                    let width = int_width(&self.type_of(idx));
                    let folded = match idx.as_constant() {
                        Some(c) => self.symbols.fold(c).map_err(|e| self.unsupported(e))?,
                        None => None,
                    };
                    indices.push(match folded {
                        Some(Folded::Bits(b)) => GepIndex::Const(sext(b, width)),
                        _ => {
                            let r = self.operand(idx)?;
                            if !self.regs[r].is_int() {
                                return Err(self.unsupported("getelementptr with a vector index"));
                            }
                            GepIndex::Var(r)
                        }
                    });
                }
                let (offset, terms) =
                    gep_offsets(&self.symbols.layout, &g.source_element_type, &indices)
                        .map_err(|e| self.unsupported(e))?;
                if offset == 0 && terms.is_empty() && !self.values.contains_key(&g.dest) {
                    // `gep p, 0` is `p` under another name.
                    self.values.insert(&g.dest, base);
                    return Ok(());
                }
                let llty = self.type_of(&g.address);
                let ptr = match llty.as_ref() {
                    llvm_ir::Type::PointerType { .. } => llty.clone(),
                    _ => return Err(self.unsupported("getelementptr on a non-pointer")),
                };
                self.define(
                    &g.dest,
                    &ptr,
                    InstKind::PtrOffset {
                        base,
                        offset,
                        terms,
                    },
                )
            }
            I::Trunc(c) => self.cast(CastOp::Trunc, &c.operand, &c.to_type, &c.dest),
            I::ZExt(c) => self.cast(CastOp::Zext, &c.operand, &c.to_type, &c.dest),
            I::SExt(c) => self.cast(CastOp::Sext, &c.operand, &c.to_type, &c.dest),
            I::FPTrunc(c) => self.cast(CastOp::Fptrunc, &c.operand, &c.to_type, &c.dest),
            I::FPExt(c) => self.cast(CastOp::Fpext, &c.operand, &c.to_type, &c.dest),
            I::FPToUI(c) => self.cast(CastOp::Fptoui, &c.operand, &c.to_type, &c.dest),
            I::FPToSI(c) => self.cast(CastOp::Fptosi, &c.operand, &c.to_type, &c.dest),
            I::UIToFP(c) => self.cast(CastOp::Uitofp, &c.operand, &c.to_type, &c.dest),
            I::SIToFP(c) => self.cast(CastOp::Sitofp, &c.operand, &c.to_type, &c.dest),
            I::PtrToInt(c) => self.cast(CastOp::Ptrtoint, &c.operand, &c.to_type, &c.dest),
            I::IntToPtr(c) => self.cast(CastOp::Inttoptr, &c.operand, &c.to_type, &c.dest),
            I::BitCast(c) => {
                if self.aliases.contains_key(&c.dest) {
                    return Ok(());
                }
                let from_ty = self.type_of(&c.operand);
                if scalar(&from_ty).is_none() && self.is_mem(&from_ty) {
                    // Reinterpreting an in-memory value as a scalar: read its bytes.
                    let ty = self.scalar_ty(&c.to_type)?;
                    let addr = self.operand(&c.operand)?;
                    return self.define(&c.dest, &c.to_type, InstKind::Load { ty, addr });
                }
                if scalar(&c.to_type).is_none() && self.is_mem(&c.to_type) {
                    let ty = self.operand_ty(&c.operand)?;
                    let value = self.operand(&c.operand)?;
                    let slot = self.slot_for(&c.dest, &c.to_type)?;
                    self.push(
                        None,
                        InstKind::Store {
                            ty,
                            addr: slot,
                            value,
                        },
                    );
                    return Ok(());
                }
                let from = self.operand_ty(&c.operand)?;
                let to = self.scalar_ty(&c.to_type)?;
                if from.bits() != to.bits() || from == Type::Ptr || to == Type::Ptr {
                    return Err(self.unsupported(format!("bitcast from {from} to {to}")));
                }
                self.cast(CastOp::Bitcast, &c.operand, &c.to_type, &c.dest)
            }
            I::AddrSpaceCast(_) | I::Freeze(_) => Ok(()),
            I::ICmp(i) => {
                let ty = self.operand_ty(&i.operand0)?;
                let lhs = self.operand(&i.operand0)?;
                let rhs = self.operand(&i.operand1)?;
                let pred = int_pred(i.predicate);
                let b = self.symbols.llvm.types.bool();
                self.define(&i.dest, &b, InstKind::Icmp { pred, ty, lhs, rhs })
            }
            I::FCmp(i) => {
                let ty = self.operand_ty(&i.operand0)?;
                let Some(ft) = ty.as_float() else {
                    return Err(self.unsupported(format!("fcmp on {ty}")));
                };
                let lhs = self.operand(&i.operand0)?;
                let rhs = self.operand(&i.operand1)?;
                let pred = float_pred(i.predicate);
                let b = self.symbols.llvm.types.bool();
                self.define(
                    &i.dest,
                    &b,
                    InstKind::Fcmp {
                        pred,
                        ty: ft,
                        lhs,
                        rhs,
                    },
                )
            }
            I::Phi(_) => Ok(()),
            I::Select(s) => {
                let cond_ty = self.operand_ty(&s.condition)?;
                if cond_ty != Type::BOOL {
                    return Err(self.unsupported("select on a vector condition"));
                }
                let value_ty = self.type_of(&s.true_value);
                let Some(ty) = self.reg_ty(&value_ty) else {
                    return Err(
                        self.unsupported(format!("{} value", describe_unsupported(&value_ty)))
                    );
                };
                let cond = self.operand(&s.condition)?;
                let if_true = self.operand(&s.true_value)?;
                let if_false = self.operand(&s.false_value)?;
                let llty = self.type_of(&s.true_value);
                self.define(
                    &s.dest,
                    &llty,
                    InstKind::Select {
                        ty,
                        cond,
                        if_true,
                        if_false,
                    },
                )
            }
            I::Call(call) => self.call(call),
            I::VAArg(_) => Err(self.unsupported("variable arguments (`va_arg`)")),
            I::LandingPad(_) | I::CatchPad(_) | I::CleanupPad(_) => {
                Err(self.unsupported(format!("C++ exception handling (`{inst}`)")))
            }
        }
    }

    /// Defines `dest` as the element of type `ty` at `base + offset + terms`: a load for
    /// scalars, the address itself for values held in memory.
    fn read_at(
        &mut self,
        dest: &'m Name,
        ty: &TypeRef,
        base: Reg,
        offset: i64,
        terms: Vec<fpir::IndexTerm>,
    ) -> Result<(), LowerError> {
        let place = InstKind::PtrOffset {
            base,
            offset,
            terms,
        };
        match scalar(ty) {
            Some(t) => {
                let addr = match place {
                    InstKind::PtrOffset {
                        base,
                        offset: 0,
                        ref terms,
                    } if terms.is_empty() => base,
                    place => self.emit(Type::Ptr, place),
                };
                self.define(dest, ty, InstKind::Load { ty: t, addr })
            }
            None => self.define(dest, ty, place),
        }
    }

    /// Defines `dest` as a new slot holding a copy of `original` (for `insertvalue` and
    /// `insertelement`; an `undef` original is not copied).
    fn copy_for_insert(
        &mut self,
        dest: &'m Name,
        original: &'m Operand,
        ty: &TypeRef,
    ) -> Result<Reg, LowerError> {
        let slot = self.slot_for(dest, ty)?;
        if !matches!(
            original.as_constant(),
            Some(Constant::Undef(_) | Constant::Poison(_))
        ) {
            let size = self.mem_layout(ty)?.size;
            let src = self.operand(original)?;
            self.memcpy(slot, src, size);
        }
        Ok(slot)
    }

    /// The place of element `index` of a vector of type `ty`: constant offset, variable
    /// terms, and the element type.
    fn vector_index(
        &mut self,
        ty: &TypeRef,
        index: &'m Operand,
    ) -> Result<(i64, Vec<fpir::IndexTerm>, TypeRef), LowerError> {
        let llvm_ir::Type::VectorType { element_type, .. } = ty.as_ref() else {
            return Err(self.malformed(format!("vector operation on {ty}")));
        };
        let elem = element_type.clone();
        let size = self.mem_layout(&elem)?.size as i64;
        if let Some(Constant::Int { value, bits }) = index.as_constant() {
            return Ok((sext(*value, *bits).wrapping_mul(size), Vec::new(), elem));
        }
        let index = self.operand(index)?;
        Ok((0, vec![fpir::IndexTerm { index, scale: size }], elem))
    }

    // ---- calls ----

    /// The function type a call calls through.
    fn callee_type(&self, call: &'m Call) -> Option<TypeRef> {
        match self.type_of(call.function.as_ref().right()?).as_ref() {
            llvm_ir::Type::PointerType { pointee_type, .. } => Some(pointee_type.clone()),
            _ => None,
        }
    }

    /// For a call of a function the module does not define: its name and how to lower it.
    fn external_target(&self, call: &'m Call) -> Option<(&'m str, Target)> {
        let callee = call.function.as_ref().right()?.as_constant()?;
        let name = self.symbols.callee_name(callee)?;
        if self.symbols.func(name).is_some() {
            return None;
        }
        let fn_ty = self.callee_type(call)?;
        let llvm_ir::Type::FuncType { result_type, .. } = fn_ty.as_ref() else {
            return None;
        };
        // The arguments' types, which are the parameter types except for calls through
        // an unprototyped declaration (`double sqrt();`).
        let params: Vec<llvm_ir::Type> = call
            .arguments
            .iter()
            .map(|(a, _)| self.type_of(a).as_ref().clone())
            .collect();
        Some((name, classify(name, &params, result_type)))
    }

    fn call(&mut self, call: &'m Call) -> Result<(), LowerError> {
        let Some(function) = call.function.as_ref().right() else {
            return Err(self.unsupported("inline assembly"));
        };
        let fn_ty = self.callee_type(call);
        let Some(llvm_ir::Type::FuncType { result_type, .. }) = fn_ty.as_deref() else {
            return Err(self.malformed("call through a non-function type"));
        };
        let external = self.external_target(call);
        match external {
            Some((_, Target::Drop | Target::Forward)) => return Ok(()),
            Some((name, Target::Unsupported(what))) => {
                return Err(self.unsupported(format!("{what} (call of `{name}`)")))
            }
            _ => {}
        }
        let sret = if scalar(result_type).is_none() && self.is_mem(result_type) {
            Some(match &call.dest {
                Some(name) => self.slot_for(name, result_type)?,
                None => self.slot(result_type)?,
            })
        } else {
            None
        };
        let dest = match (&call.dest, result_type.as_ref()) {
            _ if sret.is_some() => None,
            (Some(name), ty) if !matches!(ty, llvm_ir::Type::VoidType) => {
                if self.aliases.contains_key(name) {
                    None
                } else {
                    Some(self.value(name, result_type)?)
                }
            }
            _ => None,
        };
        if let Some((name, target)) = external {
            let (callee, args) = match target {
                Target::Drop | Target::Forward | Target::Unsupported(_) => return Ok(()),
                Target::Math(m) => {
                    let args = self.args(call, false, usize::MAX)?;
                    (Callee::Math(m, self.ctx.next_op()), args)
                }
                Target::Constrained(op) => return self.constrained(call, op, dest),
                Target::Builtin(b, how) | Target::BuiltinReturningArg0(b, how) => {
                    (Callee::Builtin(b), self.builtin_args(call, how)?)
                }
                Target::External => {
                    let mut args = self.args(call, false, usize::MAX)?;
                    args.splice(0..0, sret);
                    (Callee::External(self.ctx.external(name)), args)
                }
            };
            self.push(dest, InstKind::Call { callee, args });
            return Ok(());
        }
        let callee = match function
            .as_constant()
            .and_then(|c| self.symbols.callee_name(c))
            .and_then(|n| self.symbols.func(n))
        {
            Some(f) => {
                let def = &self.symbols.llvm.functions[f.0 as usize];
                // Compare the arguments, not the call's function type: an unprototyped
                // (K&R) declaration calls through `double (...)*`.
                let def_params: Vec<&TypeRef> = def.parameters.iter().map(|p| &p.ty).collect();
                let arg_types: Vec<TypeRef> = call
                    .arguments
                    .iter()
                    .map(|(a, _)| self.type_of(a))
                    .collect();
                if def.is_var_arg {
                    return Err(self.unsupported(format!(
                        "call of variadic function `{}` (variable arguments)",
                        def.name
                    )));
                }
                if arg_types.iter().ne(def_params.iter().copied())
                    || def.return_type != *result_type
                {
                    return Err(self.unsupported(format!(
                        "call of `{}` with a signature different from its definition",
                        def.name
                    )));
                }
                Callee::Direct(f)
            }
            None => Callee::Indirect(self.operand(function)?),
        };
        let mut args = self.args(call, true, usize::MAX)?;
        args.splice(0..0, sret);
        self.push(dest, InstKind::Call { callee, args });
        Ok(())
    }

    /// Lowers a constrained intrinsic as its plain operation (the metadata arguments,
    /// rounding mode and exception behaviour, are dropped).
    fn constrained(
        &mut self,
        call: &'m Call,
        op: Constrained,
        dest: Option<Reg>,
    ) -> Result<(), LowerError> {
        let values: Vec<&'m Operand> = call
            .arguments
            .iter()
            .map(|(a, _)| a)
            .filter(|a| !matches!(a, Operand::MetadataOperand))
            .collect();
        let (Some(dest), Some(&first)) = (dest, values.first()) else {
            return Err(self.malformed("constrained intrinsic without operands or result"));
        };
        let from = self.operand_ty(first)?;
        let kind = match op {
            Constrained::Bin(op) => {
                let (Some(ty), Some(&second)) = (from.as_float(), values.get(1)) else {
                    return Err(self.malformed("constrained arithmetic on non-floats"));
                };
                let lhs = self.operand(first)?;
                let rhs = self.operand(second)?;
                InstKind::FloatBin {
                    op,
                    ty,
                    lhs,
                    rhs,
                    site: self.ctx.next_op(),
                }
            }
            Constrained::Cast(op) => InstKind::Cast {
                op,
                from,
                to: self.regs[dest],
                arg: self.operand(first)?,
            },
            Constrained::Fcmp => {
                let key = (self.f.name.clone(), self.position.0, self.position.1);
                let pred = self.ctx.fcmp_predicates.get(&key).copied();
                let (Some(pred), Some(ty), Some(&second)) = (pred, from.as_float(), values.get(1))
                else {
                    return Err(self.unsupported(
                        "floating-point comparison under `#pragma STDC FENV_ACCESS ON` whose predicate cannot be read",
                    ));
                };
                let lhs = self.operand(first)?;
                let rhs = self.operand(second)?;
                InstKind::Fcmp { pred, ty, lhs, rhs }
            }
        };
        self.push(Some(dest), kind);
        Ok(())
    }

    /// The registers of the first `limit` arguments of a call; with `copy_byval`, `byval`
    /// arguments are passed as a fresh copy (what the callee's frame receives).
    fn args(
        &mut self,
        call: &'m Call,
        copy_byval: bool,
        limit: usize,
    ) -> Result<Vec<Reg>, LowerError> {
        let mut regs = Vec::with_capacity(call.arguments.len());
        for (arg, attrs) in call.arguments.iter().take(limit) {
            let r = self.operand(arg)?;
            let byval = attrs.iter().find_map(|a| match a {
                ParameterAttribute::ByVal(ty) => Some(ty),
                _ => None,
            });
            match byval {
                Some(ty) if copy_byval => {
                    let sa = self
                        .symbols
                        .layout
                        .size_align(ty)
                        .map_err(|e| self.unsupported(e))?;
                    let copy = self.emit(
                        Type::Ptr,
                        InstKind::Alloca {
                            size: sa.size,
                            count: None,
                            align: sa.align,
                        },
                    );
                    let len = self.const_reg(Type::I64, Const::Bits(sa.size));
                    self.push(
                        None,
                        InstKind::Call {
                            callee: Callee::Builtin(Builtin::Memcpy),
                            args: vec![copy, r, len],
                        },
                    );
                    regs.push(copy);
                }
                _ => regs.push(r),
            }
        }
        Ok(regs)
    }

    fn builtin_args(&mut self, call: &'m Call, how: BuiltinArgs) -> Result<Vec<Reg>, LowerError> {
        let limit = match how {
            BuiltinArgs::First3 => 3,
            _ => usize::MAX,
        };
        let mut args = self.args(call, false, limit)?;
        match how {
            BuiltinArgs::All | BuiltinArgs::First3 => {}
            BuiltinArgs::MemsetTruncByte => {
                if let Some(byte) = args.get(1).copied() {
                    let from = self.regs[byte];
                    if from != Type::I8 {
                        args[1] = self.emit(
                            Type::I8,
                            InstKind::Cast {
                                op: CastOp::Trunc,
                                from,
                                to: Type::I8,
                                arg: byte,
                            },
                        );
                    }
                }
            }
        }
        Ok(args)
    }

    // ---- terminators ----

    /// The jump to `target` from the block being lowered, passing its phi values.
    fn block_call(&mut self, target: &'m Name) -> Result<BlockCall, LowerError> {
        let Some(&block) = self.blocks.get(target) else {
            return Err(self.malformed(format!("branch to unknown block {target}")));
        };
        let pred = self.block_name;
        let mut args = Vec::new();
        for phi in self.phis[block.0 as usize].clone() {
            let incoming = phi
                .incoming_values
                .iter()
                .find(|(_, from)| Some(from) == pred)
                .map(|(v, _)| v);
            match incoming {
                Some(v) => {
                    let Some(ty) = self.reg_ty(&phi.to_type) else {
                        return Err(self
                            .unsupported(format!("{} value", describe_unsupported(&phi.to_type))));
                    };
                    args.push(self.term_operand(v, ty)?);
                }
                None => {
                    return Err(self.malformed(format!(
                        "phi {} has no value for an edge into block {target}",
                        phi.dest
                    )))
                }
            }
        }
        Ok(BlockCall { block, args })
    }

    fn lower_term(&mut self, t: &'m term::Terminator) -> Result<Terminator, LowerError> {
        use term::Terminator as T;
        match t {
            T::Ret(r) => match (&r.return_operand, self.ret, self.sret) {
                (Some(op), None, Some(sret)) => {
                    let ty = self.type_of(op);
                    match self.operand(op) {
                        Ok(value) => self.write_value(&ty, sret, value)?,
                        Err(LowerError::Unsupported { .. }) if self.lenient => {}
                        Err(e) => return Err(e),
                    }
                    Ok(Terminator::Ret(None))
                }
                (Some(op), Some(ty), _) => Ok(Terminator::Ret(Some(self.term_operand(op, ty)?))),
                (None, Some(_), _) => {
                    Err(self.malformed("`ret void` in a function returning a value"))
                }
                (_, None, _) => Ok(Terminator::Ret(None)),
            },
            T::Br(b) => Ok(Terminator::Jump(self.block_call(&b.dest)?)),
            T::CondBr(b) => {
                let site = self.ctx.next_branch();
                let cond = self.term_operand(&b.condition, Type::BOOL)?;
                let then_to = self.block_call(&b.true_dest)?;
                let else_to = self.block_call(&b.false_dest)?;
                Ok(Terminator::Br {
                    cond,
                    then_to,
                    else_to,
                    site,
                })
            }
            T::Switch(s) => {
                let site = self.ctx.next_branch();
                let ty = self.operand_ty(&s.operand)?;
                let value = self.term_operand(&s.operand, ty)?;
                let mut cases = Vec::with_capacity(s.dests.len());
                for (c, dest) in &s.dests {
                    let v = match c.as_ref() {
                        Constant::Int { value, bits } if *bits <= 64 => mask(*value, *bits),
                        other => return Err(self.unsupported(format!("switch case value {other}"))),
                    };
                    cases.push(SwitchCase {
                        value: v,
                        target: self.block_call(dest)?,
                    });
                }
                let default = self.block_call(&s.default_dest)?;
                Ok(Terminator::Switch {
                    ty,
                    value,
                    cases,
                    default,
                    site,
                })
            }
            T::Unreachable(_) => Ok(Terminator::Unreachable),
            T::IndirectBr(_) => Err(self.unsupported("indirect branch (computed goto)")),
            T::Invoke(_) | T::Resume(_) | T::CleanupRet(_) | T::CatchRet(_) | T::CatchSwitch(_) => {
                Err(self.unsupported(format!("C++ exception handling (`{t}`)")))
            }
            T::CallBr(_) => Err(self.unsupported("inline assembly (`callbr`)")),
        }
    }
}

fn inst_debugloc(inst: &Instruction) -> &Option<DebugLoc> {
    use llvm_ir::HasDebugLoc;
    inst.get_debug_loc()
}

fn term_debugloc(t: &term::Terminator) -> &Option<DebugLoc> {
    use llvm_ir::HasDebugLoc;
    t.get_debug_loc()
}

fn int_pred(p: IntPredicate) -> IntPred {
    match p {
        IntPredicate::EQ => IntPred::Eq,
        IntPredicate::NE => IntPred::Ne,
        IntPredicate::UGT => IntPred::Ugt,
        IntPredicate::UGE => IntPred::Uge,
        IntPredicate::ULT => IntPred::Ult,
        IntPredicate::ULE => IntPred::Ule,
        IntPredicate::SGT => IntPred::Sgt,
        IntPredicate::SGE => IntPred::Sge,
        IntPredicate::SLT => IntPred::Slt,
        IntPredicate::SLE => IntPred::Sle,
    }
}

fn float_pred(p: FPPredicate) -> FloatPred {
    match p {
        FPPredicate::False => FloatPred::False,
        FPPredicate::OEQ => FloatPred::Oeq,
        FPPredicate::OGT => FloatPred::Ogt,
        FPPredicate::OGE => FloatPred::Oge,
        FPPredicate::OLT => FloatPred::Olt,
        FPPredicate::OLE => FloatPred::Ole,
        FPPredicate::ONE => FloatPred::One,
        FPPredicate::ORD => FloatPred::Ord,
        FPPredicate::UNO => FloatPred::Uno,
        FPPredicate::UEQ => FloatPred::Ueq,
        FPPredicate::UGT => FloatPred::Ugt,
        FPPredicate::UGE => FloatPred::Uge,
        FPPredicate::ULT => FloatPred::Ult,
        FPPredicate::ULE => FloatPred::Ule,
        FPPredicate::UNE => FloatPred::Une,
        FPPredicate::True => FloatPred::True,
    }
}
