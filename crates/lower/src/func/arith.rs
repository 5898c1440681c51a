//! Arithmetic and comparisons: integer and floating-point binary operations (each
//! floating-point one an op site), `fneg`, `icmp` and `fcmp`.

use super::FnLower;
use crate::error::LowerError;
use fpir::{FloatBinOp, FloatPred, InstKind, IntBinOp, IntPred};
use llvm_ir::instruction;
use llvm_ir::{FPPredicate, IntPredicate, Name, Operand};

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

pub(super) fn int_pred(p: IntPredicate) -> IntPred {
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
