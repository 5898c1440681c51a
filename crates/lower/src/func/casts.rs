//! Casts: the conversion instructions, and `bitcast` in its three guises.

use super::FnLower;
use crate::error::LowerError;
use crate::layout::scalar;
use fpir::{CastOp, InstKind, Type};
use llvm_ir::instruction;
use llvm_ir::{Name, Operand, TypeRef};

impl<'c, 'm> FnLower<'c, 'm> {
    pub(super) fn cast(
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

    /// `bitcast`: a renaming (see `find_alias`), a reinterpretation through memory when
    /// either side is an aggregate or vector, or a bit cast between scalars of one width.
    pub(super) fn bitcast(&mut self, c: &'m instruction::BitCast) -> Result<(), LowerError> {
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
}
