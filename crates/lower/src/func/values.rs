//! Values: the register of each LLVM value, operand and constant (constant registers, and
//! instructions for constant expressions that need a run-time address), and the
//! renamings that are no instruction.

use super::FnLower;
use crate::beside::WideInits;
use crate::calls::Target;
use crate::consts::Folded;
use crate::consts::{float_pred, int_pred};
use crate::error::LowerError;
use crate::layout::{describe_unsupported, scalar, SizeAlign};
use fpir::{CastOp, Const, InstKind, IntBinOp, Reg, Type};
use llvm_ir::{Constant, Instruction, Name, Operand, TypeRef};

impl<'c, 'm> FnLower<'c, 'm> {
    /// Records instructions whose result is another value under a new name.
    pub(super) fn find_alias(&mut self, inst: &'m Instruction) {
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
                let view = super::call::CallView::from(call);
                if let (Some(dest), Some((_, target))) = (&call.dest, self.external_target(view)) {
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
    pub(super) fn new_reg(&mut self, ty: Type) -> Reg {
        self.regs.push(ty)
    }

    /// The register of the local value `name` of LLVM type `ty`.
    pub(super) fn value(&mut self, name: &'m Name, ty: &TypeRef) -> Result<Reg, LowerError> {
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
    pub(super) fn is_mem(&self, ty: &llvm_ir::Type) -> bool {
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
    pub(super) fn reg_ty(&self, ty: &llvm_ir::Type) -> Option<Type> {
        scalar(ty).or_else(|| self.is_mem(ty).then_some(Type::Ptr))
    }

    /// Size and alignment of a type held in memory.
    pub(super) fn mem_layout(&mut self, ty: &llvm_ir::Type) -> Result<SizeAlign, LowerError> {
        self.symbols
            .layout
            .size_align(ty)
            .map_err(|e| self.unsupported(e))
    }

    pub(super) fn scalar_ty(&mut self, ty: &TypeRef) -> Result<Type, LowerError> {
        scalar(ty).ok_or_else(|| self.unsupported(format!("{} value", describe_unsupported(ty))))
    }

    pub(super) fn type_of(&self, op: &Operand) -> TypeRef {
        self.symbols.llvm.types.type_of(op)
    }

    pub(super) fn operand_ty(&mut self, op: &Operand) -> Result<Type, LowerError> {
        let ty = self.type_of(op);
        self.scalar_ty(&ty)
    }

    /// The register holding operand `op`.
    pub(super) fn operand(&mut self, op: &'m Operand) -> Result<Reg, LowerError> {
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
    pub(super) fn const_reg(&mut self, ty: Type, value: Const) -> Reg {
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
            Constant::UIToFP(x) => Some((CastOp::Uitofp, &x.operand)),
            Constant::SIToFP(x) => Some((CastOp::Sitofp, &x.operand)),
            Constant::FPToUI(x) => Some((CastOp::Fptoui, &x.operand)),
            Constant::FPToSI(x) => Some((CastOp::Fptosi, &x.operand)),
            Constant::FPTrunc(x) => Some((CastOp::Fptrunc, &x.operand)),
            Constant::FPExt(x) => Some((CastOp::Fpext, &x.operand)),
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
            Constant::FCmp(i) => {
                let ty = {
                    let ty = self.symbols.llvm.types.type_of(&*i.operand0);
                    self.scalar_ty(&ty)?
                };
                let Some(ty) = ty.as_float() else {
                    return Err(self.malformed(format!("fcmp on {ty} in `{c}`")));
                };
                let lhs = self.constant(&i.operand0)?;
                let rhs = self.constant(&i.operand1)?;
                let pred = float_pred(i.predicate);
                Ok(self.emit(t, InstKind::Fcmp { pred, ty, lhs, rhs }))
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

    /// A constant aggregate or vector: the address of a constant global holding it.
    fn const_global(&mut self, c: &Constant, ty: &TypeRef) -> Result<Reg, LowerError> {
        let sa = self.mem_layout(ty)?;
        let mut init = vec![0u8; usize::try_from(sa.size).unwrap_or(usize::MAX).min(1 << 32)];
        let mut relocs = Vec::new();
        let at = (self.f.name.clone(), self.position.0, self.position.1);
        let wide = self
            .ctx
            .beside
            .wide_ints
            .get(&at)
            .map_or(&[][..], Vec::as_slice);
        let mut wide = WideInits::Among(wide);
        if let Err(e) = self
            .symbols
            .write_init(c, 0, &mut init, &mut relocs, &mut wide)
        {
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
}
