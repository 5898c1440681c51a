//! Arithmetic and comparisons: integer and floating-point binary operations (each
//! floating-point one an op site), `fneg`, `icmp` and `fcmp`.

use super::FnLower;
use crate::consts::{float_pred, int_pred};
use crate::error::LowerError;
use fpir::{FloatBinOp, InstKind, IntBinOp};
use llvm_ir::instruction;
use llvm_ir::{Name, Operand};

impl<'c, 'm> FnLower<'c, 'm> {
    pub(super) fn int_bin(
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

    pub(super) fn float_bin(
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

    pub(super) fn fneg(&mut self, i: &'m instruction::FNeg) -> Result<(), LowerError> {
        let ty = self.operand_ty(&i.operand)?;
        let Some(ft) = ty.as_float() else {
            return Err(self.unsupported(format!("fneg on {ty}")));
        };
        let arg = self.operand(&i.operand)?;
        let llty = self.type_of(&i.operand);
        self.define(&i.dest, &llty, InstKind::Fneg { ty: ft, arg })
    }

    pub(super) fn icmp(&mut self, i: &'m instruction::ICmp) -> Result<(), LowerError> {
        let ty = self.operand_ty(&i.operand0)?;
        let lhs = self.operand(&i.operand0)?;
        let rhs = self.operand(&i.operand1)?;
        let pred = int_pred(i.predicate);
        let b = self.symbols.llvm.types.bool();
        self.define(&i.dest, &b, InstKind::Icmp { pred, ty, lhs, rhs })
    }

    pub(super) fn fcmp(&mut self, i: &'m instruction::FCmp) -> Result<(), LowerError> {
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
}
