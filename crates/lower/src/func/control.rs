//! Control flow: terminators, the jumps that pass phi values to block parameters, branch
//! sites, and `select`.

use super::wide::{limb_types, wide_width};
use super::FnLower;
use crate::consts::int_type;
use crate::error::LowerError;
use crate::layout::describe_unsupported;
use fpir::{BlockCall, Const, InstKind, Reg, SrcLoc, SwitchCase, Terminator, Type};
use llvm_ir::instruction;
use llvm_ir::terminator as term;
use llvm_ir::{Constant, HasDebugLoc, Instruction, Name, Operand};

impl<'c, 'm> FnLower<'c, 'm> {
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

    /// The limbs of a wide terminator operand of type `ty`; in dead code an operand
    /// that cannot be lowered reads as zero.
    fn term_wide_operand(
        &mut self,
        op: &'m Operand,
        ty: &llvm_ir::TypeRef,
    ) -> Result<Vec<Reg>, LowerError> {
        match self.wide_operand(op) {
            Ok(limbs) => Ok(limbs),
            Err(LowerError::Unsupported { .. }) if self.lenient => {
                let bits = wide_width(ty).unwrap_or(64);
                Ok(limb_types(bits)
                    .into_iter()
                    .map(|t| self.const_reg(t, Const::Bits(0)))
                    .collect())
            }
            Err(e) => Err(e),
        }
    }

    /// The jump to `target` from the block being lowered, passing its phi values.
    pub(super) fn block_call(&mut self, target: &'m Name) -> Result<BlockCall, LowerError> {
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
                Some(v) if wide_width(&phi.to_type).is_some() => {
                    // A constant's high bits are found by the position of its phi.
                    let at = self.f.basic_blocks[block.0 as usize]
                        .instrs
                        .iter()
                        .position(|i| matches!(i, Instruction::Phi(p) if std::ptr::eq(p, phi)));
                    let here = self.position;
                    self.position = (block.0 as usize, at.unwrap_or(usize::MAX));
                    let limbs = self.term_wide_operand(v, &phi.to_type);
                    self.position = here;
                    args.extend(limbs?);
                }
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

    pub(super) fn lower_term(&mut self, t: &'m term::Terminator) -> Result<Terminator, LowerError> {
        use term::Terminator as T;
        match t {
            T::Ret(r) => match (&r.return_operand, self.ret, self.sret) {
                (Some(op), None, Some(sret)) if wide_width(&self.type_of(op)).is_some() => {
                    let ty = self.type_of(op);
                    let bits = self.wide_bits(op)?;
                    let limbs = self.term_wide_operand(op, &ty)?;
                    self.store_wide(sret, &limbs, bits);
                    Ok(Terminator::Ret(None))
                }
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
            T::Br(b) => {
                let operand = self.short_circuit_operand(&b.dest);
                let site = operand.map(|_| self.ctx.next_select());
                let to = self.block_call(&b.dest)?;
                match (operand, site) {
                    (Some(operand), Some(site)) => Ok(Terminator::Br {
                        cond: self.term_operand(operand, Type::BOOL)?,
                        then_to: to.clone(),
                        else_to: to,
                        site,
                        check: None,
                    }),
                    _ => Ok(Terminator::Jump(to)),
                }
            }
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
                    check: None,
                })
            }
            T::Switch(s) => {
                let site = self.ctx.next_branch();
                if let Some(bits) = wide_width(&self.type_of(&s.operand)) {
                    return Err(self.unsupported(format!("switch on a {bits}-bit integer")));
                }
                let ty = self.operand_ty(&s.operand)?;
                let value = self.term_operand(&s.operand, ty)?;
                let mut cases = Vec::with_capacity(s.dests.len());
                for (c, dest) in &s.dests {
                    let v = match c.as_ref() {
                        Constant::Int { value, bits } if *bits <= 64 => {
                            value & int_type(*bits).mask()
                        }
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
            T::Invoke(invoke) => self.invoke(invoke),
            T::Resume(resume) => self.resume(resume),
            T::CleanupRet(_) | T::CatchRet(_) | T::CatchSwitch(_) => {
                Err(self.unsupported(format!("C++ exception handling (`{t}`)")))
            }
            T::CallBr(_) => Err(self.unsupported("inline assembly (`callbr`)")),
        }
    }

    /// The last operand of a short-circuit `&&` or `||` that the jump from the block
    /// being lowered to `target` carries, if it is one. clang computes that operand in
    /// a block of its own, which jumps to the join whose `i1` phi merges it with the
    /// constants the earlier operands decided; gcc, and so gcov, branches on it. Such a
    /// jump is a branch site on the operand (both sides go to the join), so that its
    /// false side is a side to cover as gcov counts it. The pattern: not the entry
    /// block; the join has an `i1` phi whose value from this block is a register this
    /// block defines, and another of whose values is a constant. Numbered with the
    /// `select`s, in textual order; the native instrumenter recognizes the same pattern.
    fn short_circuit_operand(&self, target: &'m Name) -> Option<&'m Operand> {
        let (block, _) = self.position;
        let here = self.block_name?;
        let join = self.blocks.get(target)?;
        if block == 0 {
            return None;
        }
        let defined_here = |name: &Name| {
            self.f.basic_blocks[block]
                .instrs
                .iter()
                .any(|inst| inst.try_get_result() == Some(name))
        };
        self.phis[join.0 as usize]
            .iter()
            .filter(|phi| phi.to_type.as_ref() == &llvm_ir::Type::IntegerType { bits: 1 })
            .filter(|phi| {
                phi.incoming_values
                    .iter()
                    .any(|(v, from)| from != here && v.as_constant().is_some())
            })
            .find_map(|phi| {
                let (value, _) = phi.incoming_values.iter().find(|(_, from)| from == here)?;
                match value {
                    Operand::LocalOperand { name, .. } if defined_here(name) => Some(value),
                    _ => None,
                }
            })
    }

    /// Where a short-circuit jump's operand is computed, for a jump clang left without
    /// a location: its site is reported at the comparison.
    pub(super) fn short_circuit_loc(&mut self, bb: &'m llvm_ir::BasicBlock) -> Option<SrcLoc> {
        let term::Terminator::Br(jump) = &bb.term else {
            return None;
        };
        let Operand::LocalOperand { name, .. } = self.short_circuit_operand(&jump.dest)? else {
            return None;
        };
        let defining = bb
            .instrs
            .iter()
            .find(|inst| inst.try_get_result() == Some(name))?;
        self.ctx.src_loc(defining.get_debug_loc())
    }

    /// `select`. On a condition that is not a constant it is a branch site like any
    /// other: the block ends in a conditional branch to a new join block whose parameter
    /// is the select's result. That is how gcc, and so gcov, compiles a `?:` with cheap
    /// arms, which clang makes a `select` even at `-O0`; as a branch, each side is a
    /// side to cover, reach and trace. Its site is numbered after every `br`/`switch`
    /// of the module (see [`crate::ctx`]). In dead code it stays a branch even when its
    /// arms cannot be lowered (the join then has no parameter and the result reads as
    /// zero), so the numbering still follows the text.
    pub(super) fn select(&mut self, s: &'m instruction::Select) -> Result<(), LowerError> {
        if self.operand_ty(&s.condition)? != Type::BOOL {
            return Err(self.unsupported("select on a vector condition"));
        }
        if s.condition.as_constant().is_some() {
            let cond = self.operand(&s.condition)?;
            let arms = self.select_arms(s)?;
            for (((ty, dest), if_true), if_false) in arms
                .types
                .into_iter()
                .zip(arms.dest)
                .zip(arms.if_true)
                .zip(arms.if_false)
            {
                let select = InstKind::Select {
                    ty,
                    cond,
                    if_true,
                    if_false,
                };
                self.push(Some(dest), select);
            }
            return Ok(());
        }
        let site = self.ctx.next_select();
        let cond = self.term_operand(&s.condition, Type::BOOL)?;
        let emitted = self.insts.len();
        let (params, then_args, else_args) = match self.select_arms(s) {
            Ok(arms) => (arms.dest, arms.if_true, arms.if_false),
            Err(LowerError::Unsupported { .. }) if self.lenient => {
                self.insts.truncate(emitted);
                self.locs.truncate(emitted);
                self.dropped_code = true;
                (Vec::new(), Vec::new(), Vec::new())
            }
            Err(e) => return Err(e),
        };
        let join = self.new_join();
        let branch = Terminator::Br {
            cond,
            then_to: BlockCall {
                block: join,
                args: then_args,
            },
            else_to: BlockCall {
                block: join,
                args: else_args,
            },
            site,
            check: None,
        };
        self.finish_block(branch, self.loc);
        self.open_block = (join, params);
        Ok(())
    }

    /// The registers of a `select`'s result and arms: one each, or one per limb of a
    /// wide integer.
    fn select_arms(&mut self, s: &'m instruction::Select) -> Result<SelectArms, LowerError> {
        let value_ty = self.type_of(&s.true_value);
        if let Some(bits) = wide_width(&value_ty) {
            let if_true = self.wide_operand(&s.true_value)?;
            let if_false = self.wide_operand(&s.false_value)?;
            let dest = self.wide_value(&s.dest, bits);
            return Ok(SelectArms {
                types: limb_types(bits),
                dest,
                if_true,
                if_false,
            });
        }
        let Some(ty) = self.reg_ty(&value_ty) else {
            return Err(self.unsupported(format!("{} value", describe_unsupported(&value_ty))));
        };
        let if_true = self.operand(&s.true_value)?;
        let if_false = self.operand(&s.false_value)?;
        let dest = self.value(&s.dest, &value_ty)?;
        Ok(SelectArms {
            types: vec![ty],
            dest: vec![dest],
            if_true: vec![if_true],
            if_false: vec![if_false],
        })
    }
}

/// The registers of a `select`: its result and arms, with their types.
struct SelectArms {
    types: Vec<Type>,
    dest: Vec<Reg>,
    if_true: Vec<Reg>,
    if_false: Vec<Reg>,
}
