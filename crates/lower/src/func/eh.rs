//! C++ exceptions: `invoke` (the call, then [`Terminator::Invoke`]), `landingpad` (the
//! landing block's two trailing parameters, the exception object and the selector,
//! stored into the pad's `{ i8*, i32 }` value), `resume` (raise again:
//! [`Builtin::Unwind`]) and `llvm.eh.typeid.for` (the catch clause's selector id, one
//! per typeinfo of the module).
//!
//! `llvm-ir` does not show a landing pad's clauses; [`crate::beside`] reads them.

use super::call::CallView;
use super::FnLower;
use crate::beside::ClauseText;
use crate::error::LowerError;
use crate::symbols::Symbol;
use fpir::{Builtin, Callee, Clause, Const, InstKind, Landing, Reg, Terminator, Type};
use llvm_ir::instruction::LandingPad;
use llvm_ir::terminator::{Invoke, Resume};
use llvm_ir::{Constant, Instruction, Name, Operand};

impl<'c, 'm> FnLower<'c, 'm> {
    /// The exception and selector parameters of LLVM block `i` when it is a landing pad
    /// (its first instruction after the phis is a `landingpad`).
    pub(super) fn landing_params(&mut self, i: usize) -> Option<(Reg, Reg)> {
        let pad = self.f.basic_blocks[i]
            .instrs
            .iter()
            .find(|inst| !matches!(inst, Instruction::Phi(_)))?;
        if !matches!(pad, Instruction::LandingPad(_)) {
            return None;
        }
        let params = (self.new_reg(Type::Ptr), self.new_reg(Type::I32));
        self.pads.insert(i, params);
        Some(params)
    }

    /// `landingpad`: the pair the unwinder passed in, as the aggregate value it is.
    pub(super) fn landing_pad(&mut self, pad: &'m LandingPad) -> Result<(), LowerError> {
        let Some(&(exception, selector)) = self.pads.get(&self.position.0) else {
            return Err(self.unsupported("a `landingpad` that does not start its block"));
        };
        let slot = self.slot_for(&pad.dest, &pad.result_type)?;
        self.push(
            None,
            InstKind::Store {
                ty: Type::Ptr,
                addr: slot,
                value: exception,
            },
        );
        let at = self.offset_addr(slot, 8);
        self.push(
            None,
            InstKind::Store {
                ty: Type::I32,
                addr: at,
                value: selector,
            },
        );
        Ok(())
    }

    /// `invoke`: the call, then a jump to the normal label with the landing pad beside
    /// it (a plain jump when the call lowers to no call instruction, which cannot raise).
    pub(super) fn invoke(&mut self, invoke: &'m Invoke) -> Result<Terminator, LowerError> {
        let emitted = self.insts.len();
        self.call(invoke.into())?;
        let normal = self.block_call(&invoke.return_label)?;
        let calls = self.insts.len() > emitted
            && self
                .insts
                .last()
                .is_some_and(|i| matches!(i.kind, InstKind::Call { .. }));
        if !calls {
            return Ok(Terminator::Jump(normal));
        }
        let mut to = self.block_call(&invoke.exception_label)?;
        let exception = self.new_reg(Type::Ptr);
        let selector = self.new_reg(Type::I32);
        to.args.extend([exception, selector]);
        let (clauses, cleanup) = self.clauses(&invoke.exception_label)?;
        Ok(Terminator::Invoke {
            normal,
            landing: Landing {
                to,
                exception,
                selector,
                clauses,
                cleanup,
            },
        })
    }

    /// The catch clauses and the cleanup flag of the landing pad starting block `label`.
    fn clauses(&mut self, label: &'m Name) -> Result<(Vec<Clause>, bool), LowerError> {
        let Some(block) = self.blocks.get(label).map(|b| b.0 as usize) else {
            return Err(self.malformed(format!("invoke unwinds to unknown block {label}")));
        };
        let instrs = &self.f.basic_blocks[block].instrs;
        let Some((index, Instruction::LandingPad(pad))) = instrs
            .iter()
            .enumerate()
            .find(|(_, inst)| !matches!(inst, Instruction::Phi(_)))
        else {
            return Err(self.malformed(format!("invoke unwinds to {label}, not a landing pad")));
        };
        let key = (self.f.name.clone(), block, index);
        let texts = self.ctx.beside.landing_clauses.get(&key).cloned();
        let mut clauses = Vec::new();
        for text in texts.unwrap_or_default() {
            let ClauseText::Catch(typeinfo) = text else {
                return Err(
                    self.unsupported("a `filter` clause (a dynamic exception specification)")
                );
            };
            let id = self.ctx.typeid(typeinfo.as_deref());
            let typeinfo = match typeinfo {
                Some(name) => Some(self.global_address(&name)?),
                None => None,
            };
            clauses.push(Clause::Catch { typeinfo, id });
        }
        Ok((clauses, pad.cleanup))
    }

    /// The address register of the global `name`.
    fn global_address(&mut self, name: &str) -> Result<Reg, LowerError> {
        let symbol = Name::Name(Box::new(name.to_string()));
        match self.symbols.lookup(&symbol) {
            Some(Symbol::Addr(base)) => Ok(self.const_reg(Type::Ptr, Const::Addr(base, 0))),
            _ => Err(self.malformed(format!("catch of unknown typeinfo `{name}`"))),
        }
    }

    /// `resume`: raise the pad's exception again.
    pub(super) fn resume(&mut self, resume: &'m Resume) -> Result<Terminator, LowerError> {
        let pair = self.operand(&resume.operand)?;
        let exception = self.emit(
            Type::Ptr,
            InstKind::Load {
                ty: Type::Ptr,
                addr: pair,
            },
        );
        self.push(
            None,
            InstKind::Call {
                callee: Callee::Builtin(Builtin::Unwind),
                args: vec![exception],
            },
        );
        Ok(Terminator::Unreachable)
    }

    /// `llvm.eh.typeid.for(typeinfo)`: the selector id of that typeinfo, a constant.
    pub(super) fn typeid_for(&mut self, call: CallView<'m>) -> Result<(), LowerError> {
        let name = call
            .arguments
            .first()
            .and_then(|(arg, _)| typeinfo_name(arg));
        let Some(dest) = call.dest else {
            return Ok(());
        };
        let id = self.ctx.typeid(name.as_deref());
        let constant = self.const_reg(Type::I32, Const::Bits(u64::from(id)));
        self.values.insert(dest, constant);
        Ok(())
    }
}

/// The global a typeinfo operand names (`bitcast (i8** @_ZTI... to i8*)`), or `None` for
/// `null`.
fn typeinfo_name(op: &Operand) -> Option<String> {
    let mut constant = op.as_constant()?;
    loop {
        match constant {
            Constant::BitCast(cast) => constant = &cast.operand,
            Constant::GlobalReference {
                name: Name::Name(name),
                ..
            } => return Some(name.to_string()),
            _ => return None,
        }
    }
}
