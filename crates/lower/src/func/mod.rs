//! Function bodies: LLVM instructions and terminators to fpir, one handler per opcode.
//! This module walks the blocks and dispatches; the handlers live by instruction family
//! in [`arith`] (arithmetic and comparisons), [`memory`] (memory, addresses, aggregate
//! values), [`casts`], [`call`] and [`control`] (terminators, `select`), over the value
//! bookkeeping of [`values`]. An instruction on a `long double` goes to [`f80`] first,
//! one on an integer wider than 64 bits to [`wide_ops`], which lowers it to the limb
//! operations of [`wide`].
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
//! returning one takes a hidden first parameter ([`fpir::Function::SRET_PARAM`]) to copy it into.
//!
//! A `select` on a condition that is not a constant ends its fpir block in a branch to
//! a join block, which continues the LLVM block; join blocks take the ids after the LLVM
//! blocks', in textual order (see [`control`]).
//!
//! Blocks only reachable through a branch on a constant are dead code; an unsupported
//! instruction there is dropped (its result, if fpir can type it, reads as zero) instead
//! of failing the function, and a terminator operand that cannot be lowered becomes
//! zero, so every block and branch site survives. A function that cannot be lowered is
//! lowered as a skeleton: as if all of it were dead code, behind a trapping call at its
//! entry (whether that is an error is decided later, by what the entry function reaches).

mod arith;
mod call;
mod casts;
mod control;
mod eh;
mod f80;
mod memory;
mod values;
mod wide;
mod wide_ops;

use crate::ctx::Ctx;
use crate::error::LowerError;
use crate::layout::{describe_unsupported, scalar, uniform_element};
use crate::symbols::Symbols;
use f80::is_f80;
use fpir::{
    BlockData, Callee, CastOp, Const, EntityId, EntityVec, FloatBinOp, Function, Inst, InstKind,
    IntBinOp, Reg, SrcLoc, Terminator, Type,
};
use llvm_ir::debugloc::DebugLoc;
use llvm_ir::instruction::Phi;
use llvm_ir::terminator as term;
use llvm_ir::BasicBlock;
use llvm_ir::{Constant, Instruction, Name, Operand, TypeRef};
use std::collections::HashMap;
use wide::wide_width;

/// Lowers one defined function. A function using something fpir cannot represent (or
/// malformed in a way lowering notices) is lowered as a skeleton instead (see
/// [`FnLower::skipped`]) and comes with the error that stopped it: whether that error
/// matters depends on whether the entry function can reach this one.
pub(crate) fn lower_function<'m>(
    symbols: &Symbols<'m>,
    ctx: &mut Ctx,
    f: &'m llvm_ir::Function,
) -> Result<(Function, Option<LowerError>), LowerError> {
    let sites = ctx.site_numbers();
    match FnLower::new(symbols, ctx, f, None).run() {
        Err(e @ (LowerError::Unsupported { .. } | LowerError::Malformed { .. })) => {
            ctx.rewind_sites(sites);
            let skeleton = FnLower::new(symbols, ctx, f, Some(e.to_string())).run()?;
            Ok((skeleton, Some(e)))
        }
        result => result.map(|func| (func, None)),
    }
}

/// A function's parameters and result, as [`FnLower::signature`] lowers them.
#[derive(Default)]
struct Signature {
    params: Vec<Reg>,
    param_pointees: Vec<Option<Type>>,
    param_names: Vec<Option<String>>,
    ret: Option<Type>,
}

struct FnLower<'c, 'm> {
    symbols: &'c Symbols<'m>,
    ctx: &'c mut Ctx,
    f: &'m llvm_ir::Function,
    regs: EntityVec<Reg, Type>,
    consts: Vec<(Reg, Const)>,
    const_regs: HashMap<(Type, Const), Reg>,
    values: HashMap<&'m Name, Reg>,
    /// The limbs of integer values wider than 64 bits (see [`wide`]).
    wide: HashMap<&'m Name, Vec<Reg>>,
    aliases: HashMap<&'m Name, &'m Operand>,
    blocks: HashMap<&'m Name, fpir::Block>,
    phis: Vec<Vec<&'m Phi>>,
    /// The LLVM block being lowered (the predecessor of the edges its terminator makes).
    block_name: Option<&'m Name>,
    /// The fpir block being built: its id and parameters; its code is `insts`, `locs`.
    open_block: (fpir::Block, Vec<Reg>),
    insts: Vec<Inst>,
    locs: Vec<Option<SrcLoc>>,
    /// The blocks built so far, in the order they were finished.
    finished: Vec<(fpir::Block, BlockData)>,
    /// The number of join blocks made for `select`s so far (their ids follow the LLVM
    /// blocks').
    joins: usize,
    /// True once an unsupported instruction of dead code has been dropped.
    dropped_code: bool,
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
    /// The exception and selector parameters of each landing pad block, by LLVM block
    /// index (see [`eh`]).
    pads: HashMap<usize, (Reg, Reg)>,
}

impl<'c, 'm> FnLower<'c, 'm> {
    pub(super) fn new(
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
            wide: HashMap::new(),
            aliases: HashMap::new(),
            blocks: HashMap::new(),
            phis: Vec::new(),
            block_name: None,
            open_block: (fpir::Block(0), Vec::new()),
            insts: Vec::new(),
            locs: Vec::new(),
            finished: Vec::new(),
            joins: 0,
            dropped_code: false,
            dloc: &None,
            loc: None,
            lenient: false,
            skipped,
            ret: None,
            sret: None,
            position: (0, 0),
            pads: HashMap::new(),
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
        let signature = self.signature()?;
        self.ret = signature.ret;
        for (i, bb) in f.basic_blocks.iter().enumerate() {
            self.blocks.insert(&bb.name, fpir::Block::new(i));
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
            phis.retain(|phi| {
                live || self.reg_ty(&phi.to_type).is_some() || wide_width(&phi.to_type).is_some()
            });
        }
        self.phis = phis;
        for (i, bb) in f.basic_blocks.iter().enumerate() {
            self.lenient = !live[i];
            let params = if i == 0 {
                signature.params.clone()
            } else {
                let mut ps = Vec::new();
                for phi in self.phis[i].clone() {
                    self.dloc = &phi.debugloc;
                    match wide_width(&phi.to_type) {
                        Some(bits) => ps.extend(self.wide_value(&phi.dest, bits)),
                        None => ps.push(self.value(&phi.dest, &phi.to_type)?),
                    }
                }
                ps.extend(self.landing_params(i).into_iter().flat_map(|(e, s)| [e, s]));
                ps
            };
            self.lower_block(i, bb, params)?;
        }
        let mut finished = std::mem::take(&mut self.finished);
        finished.sort_by_key(|(id, _)| id.0);
        let blocks: EntityVec<fpir::Block, BlockData> =
            finished.into_iter().map(|(_, data)| data).collect();
        if self.dropped_code {
            self.define_dropped_values(&blocks);
        }
        let loc = self.ctx.src_loc(&f.debugloc).or_else(|| {
            blocks
                .values()
                .find_map(|b: &BlockData| b.locs.iter().flatten().next().copied())
        });
        Ok(Function {
            name: f.name.clone(),
            demangled: fpir::names::demangle(&f.name),
            ret: signature.ret,
            param_pointees: signature.param_pointees,
            param_names: signature.param_names,
            regs: std::mem::take(&mut self.regs),
            consts: std::mem::take(&mut self.consts),
            blocks,
            loc,
        })
    }

    /// The function's parameters (with the hidden result slot first, when it has one)
    /// and result type.
    fn signature(&mut self) -> Result<Signature, LowerError> {
        let f = self.f;
        let mut sig = Signature::default();
        let func = fpir::Func::new(self.ctx.out.funcs.len());
        if self.is_mem(&f.return_type) || wide_width(&f.return_type).is_some() {
            let sret = self.new_reg(Type::Ptr);
            self.sret = Some(sret);
            sig.params.push(sret);
            let pointee = match is_f80(&f.return_type) {
                true => {
                    self.ctx.long_doubles.insert((func, 0));
                    Some(Type::I64)
                }
                false => uniform_element(&f.return_type),
            };
            sig.param_pointees.push(pointee);
            sig.param_names.push(Some(Function::SRET_PARAM.to_string()));
        }
        for p in &f.parameters {
            if let Some(bits) = wide_width(&p.ty) {
                let f80 = is_f80(&p.ty);
                if f80 {
                    self.ctx.long_doubles.insert((func, sig.params.len()));
                }
                let limbs = self.wide_value(&p.name, bits);
                sig.param_pointees.extend(limbs.iter().map(|_| None));
                sig.param_names
                    .extend((0..limbs.len()).map(|i| match (&p.name, f80, i) {
                        (Name::Name(s), true, 0) => Some(s.to_string()),
                        (Name::Name(s), true, _) => Some(format!("{s}.exponent")),
                        (Name::Name(s), false, _) => Some(format!("{s}.limb{i}")),
                        (Name::Number(_), ..) => None,
                    }));
                sig.params.extend(limbs);
                continue;
            }
            if self.skipped.is_some() && self.reg_ty(&p.ty).is_none() {
                continue;
            }
            sig.params.push(self.value(&p.name, &p.ty)?);
            sig.param_pointees.push(match p.ty.as_ref() {
                llvm_ir::Type::PointerType { pointee_type, .. } => scalar(pointee_type),
                llvm_ir::Type::VectorType { element_type, .. }
                | llvm_ir::Type::ArrayType { element_type, .. } => scalar(element_type),
                _ => None,
            });
            sig.param_names.push(match &p.name {
                Name::Name(s) => Some(s.to_string()),
                Name::Number(_) => None,
            });
        }
        sig.ret = match f.return_type.as_ref() {
            llvm_ir::Type::VoidType => None,
            _ if self.sret.is_some() => None,
            other if self.skipped.is_some() => scalar(other),
            other => Some(scalar(other).ok_or_else(|| {
                self.unsupported(format!("{} result", describe_unsupported(other)))
            })?),
        };
        Ok(sig)
    }

    /// Lowers the `i`-th LLVM block, whose fpir block has parameters `params`, into
    /// that block and the join blocks its `select`s split off.
    fn lower_block(
        &mut self,
        i: usize,
        bb: &'m BasicBlock,
        params: Vec<Reg>,
    ) -> Result<(), LowerError> {
        self.block_name = Some(&bb.name);
        self.open_block = (fpir::Block::new(i), params);
        if let (0, Some(reason)) = (i, &self.skipped) {
            let name = format!("{} (not lowered: {reason})", self.f.name);
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
            let lowered = match self.f80_inst(inst) {
                Some(lowered) => lowered,
                None => match self.wide_inst(inst) {
                    Some(lowered) => lowered,
                    None => self.lower_inst(inst),
                },
            };
            match lowered {
                Ok(()) => {}
                Err(LowerError::Unsupported { .. }) if self.lenient => {
                    self.insts.truncate(emitted);
                    self.locs.truncate(emitted);
                    self.dropped_code = true;
                }
                Err(e) => return Err(e),
            }
        }
        self.position = (i, bb.instrs.len());
        self.dloc = term_debugloc(&bb.term);
        self.loc = self
            .ctx
            .src_loc(self.dloc)
            .or_else(|| self.short_circuit_loc(bb));
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
        self.finish_block(term, term_loc);
        Ok(())
    }

    /// Ends the block being built with `term`.
    fn finish_block(&mut self, term: Terminator, term_loc: Option<SrcLoc>) {
        let (id, params) = std::mem::replace(&mut self.open_block, (fpir::Block(0), Vec::new()));
        let data = BlockData {
            params,
            insts: std::mem::take(&mut self.insts),
            locs: std::mem::take(&mut self.locs),
            term,
            term_loc,
        };
        self.finished.push((id, data));
    }

    /// A new join block, numbered after the LLVM blocks and the joins made before.
    fn new_join(&mut self) -> fpir::Block {
        self.joins += 1;
        fpir::Block::new(self.f.basic_blocks.len() + self.joins - 1)
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

    // ---- errors ----

    fn location(&mut self) -> String {
        let loc = self.ctx.src_loc(self.dloc);
        self.ctx.out.describe_loc(loc)
    }

    pub(super) fn unsupported(&mut self, what: impl std::fmt::Display) -> LowerError {
        LowerError::Unsupported {
            what: format!("{what} in function `{}`", self.f.name),
            location: self.location(),
            reached: Vec::new(),
        }
    }

    pub(super) fn malformed(&mut self, what: impl std::fmt::Display) -> LowerError {
        LowerError::Malformed {
            what: format!("{what} in function `{}`", self.f.name),
            location: self.location(),
        }
    }

    // ---- emitting ----

    pub(super) fn push(&mut self, dest: Option<Reg>, kind: InstKind) {
        self.insts.push(Inst { dest, kind });
        self.locs.push(self.loc);
    }

    /// Emits an instruction into a new register of type `ty`.
    pub(super) fn emit(&mut self, ty: Type, kind: InstKind) -> Reg {
        let r = self.new_reg(ty);
        self.push(Some(r), kind);
        r
    }

    /// Emits an instruction defining the LLVM value `dest`.
    pub(super) fn define(
        &mut self,
        dest: &'m Name,
        ty: &TypeRef,
        kind: InstKind,
    ) -> Result<(), LowerError> {
        let r = self.value(dest, ty)?;
        self.push(Some(r), kind);
        Ok(())
    }

    /// Lowers one instruction (not a phi: phis are block parameters).
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
            I::FNeg(i) => self.fneg(i),
            I::ICmp(i) => self.icmp(i),
            I::FCmp(i) => self.fcmp(i),
            I::ExtractValue(e) => self.extract_value(e),
            I::InsertValue(iv) => self.insert_value(iv),
            I::ExtractElement(e) => self.extract_element(e),
            I::InsertElement(ie) => self.insert_element(ie),
            I::ShuffleVector(_) => Err(self.unsupported(format!("vector instruction `{inst}`"))),
            I::Alloca(a) => self.alloca(a),
            I::Load(l) => self.load(l),
            I::Store(s) => self.store(s),
            I::Fence(_) | I::CmpXchg(_) | I::AtomicRMW(_) => {
                Err(self.unsupported(format!("atomic instruction `{inst}`")))
            }
            I::GetElementPtr(g) => self.gep(g),
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
            I::BitCast(c) => self.bitcast(c),
            // Renamings: their uses read the operand (see `find_alias`).
            I::AddrSpaceCast(_) | I::Freeze(_) => Ok(()),
            I::Phi(_) => Ok(()),
            I::Select(s) => self.select(s),
            I::Call(call) => self.call(call.into()),
            I::VAArg(_) => Err(self.unsupported("variable arguments (`va_arg`)")),
            I::LandingPad(pad) => self.landing_pad(pad),
            I::CatchPad(_) | I::CleanupPad(_) => {
                Err(self.unsupported(format!("C++ exception handling (`{inst}`)")))
            }
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
