//! The LLVM instructions on integers wider than 64 bits, each lowered to the limb
//! operations of [`super::wide`]: arithmetic, shifts, comparisons, casts between
//! widths and with floats, loads, stores and bit casts through memory. Phis, `select`
//! and calls pass limbs where they pass registers ([`super::control`], [`super::call`]).

use super::wide::{wide_width, Extend, Shift};
use super::FnLower;
use crate::consts::int_pred;
use crate::error::LowerError;
use crate::layout::scalar;
use fpir::{CastOp, InstKind, IntBinOp, IntPred, Reg, Type};
use llvm_ir::instruction;
use llvm_ir::{Constant, Instruction, Name, Operand, TypeRef};

impl<'c, 'm> FnLower<'c, 'm> {
    /// Lowers `inst` when an integer wider than 64 bits is its result or an operand;
    /// `None` when none is.
    pub(super) fn wide_inst(&mut self, inst: &'m Instruction) -> Option<Result<(), LowerError>> {
        use Instruction as I;
        let bin = |op, i: &'m Operand, j: &'m Operand, d: &'m Name| Some((op, i, j, d));
        let binary = match inst {
            I::Add(i) => bin(IntBinOp::Add, &i.operand0, &i.operand1, &i.dest),
            I::Sub(i) => bin(IntBinOp::Sub, &i.operand0, &i.operand1, &i.dest),
            I::Mul(i) => bin(IntBinOp::Mul, &i.operand0, &i.operand1, &i.dest),
            I::UDiv(i) => bin(IntBinOp::Udiv, &i.operand0, &i.operand1, &i.dest),
            I::SDiv(i) => bin(IntBinOp::Sdiv, &i.operand0, &i.operand1, &i.dest),
            I::URem(i) => bin(IntBinOp::Urem, &i.operand0, &i.operand1, &i.dest),
            I::SRem(i) => bin(IntBinOp::Srem, &i.operand0, &i.operand1, &i.dest),
            I::And(i) => bin(IntBinOp::And, &i.operand0, &i.operand1, &i.dest),
            I::Or(i) => bin(IntBinOp::Or, &i.operand0, &i.operand1, &i.dest),
            I::Xor(i) => bin(IntBinOp::Xor, &i.operand0, &i.operand1, &i.dest),
            I::Shl(i) => bin(IntBinOp::Shl, &i.operand0, &i.operand1, &i.dest),
            I::LShr(i) => bin(IntBinOp::Lshr, &i.operand0, &i.operand1, &i.dest),
            I::AShr(i) => bin(IntBinOp::Ashr, &i.operand0, &i.operand1, &i.dest),
            _ => None,
        };
        if let Some((op, a, b, dest)) = binary {
            let bits = wide_width(&self.type_of(a))?;
            return Some(self.wide_binary(op, a, b, dest, bits));
        }
        let wide_op = |this: &Self, op: &Operand| wide_width(&this.type_of(op));
        match inst {
            I::ICmp(i) => {
                wide_op(self, &i.operand0)?;
                Some(self.wide_icmp(i))
            }
            I::Trunc(_) | I::ZExt(_) | I::SExt(_) => {
                let (op, operand, to_type, dest) = match inst {
                    I::Trunc(c) => (CastOp::Trunc, &c.operand, &c.to_type, &c.dest),
                    I::ZExt(c) => (CastOp::Zext, &c.operand, &c.to_type, &c.dest),
                    I::SExt(c) => (CastOp::Sext, &c.operand, &c.to_type, &c.dest),
                    _ => unreachable!("matched above"),
                };
                if wide_op(self, operand).is_none() && wide_width(to_type).is_none() {
                    return None;
                }
                Some(self.wide_resize(op, operand, to_type, dest))
            }
            I::UIToFP(c) => {
                wide_op(self, &c.operand)?;
                Some(self.wide_to_float(&c.operand, &c.to_type, &c.dest, Extend::Zero))
            }
            I::SIToFP(c) => {
                wide_op(self, &c.operand)?;
                Some(self.wide_to_float(&c.operand, &c.to_type, &c.dest, Extend::Sign))
            }
            I::FPToUI(c) => {
                let bits = wide_width(&c.to_type)?;
                Some(self.float_to_wide(&c.operand, bits, &c.dest, false))
            }
            I::FPToSI(c) => {
                let bits = wide_width(&c.to_type)?;
                Some(self.float_to_wide(&c.operand, bits, &c.dest, true))
            }
            I::Load(l) => {
                let loaded = match self.type_of(&l.address).as_ref() {
                    llvm_ir::Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                    _ => return None,
                };
                let bits = wide_width(&loaded)?;
                Some(self.wide_load(l, bits))
            }
            I::Store(s) => {
                let bits = wide_op(self, &s.value)?;
                Some(self.wide_store(s, bits))
            }
            I::BitCast(c) => {
                let from = self.type_of(&c.operand);
                if wide_width(&from).is_none() && wide_width(&c.to_type).is_none() {
                    return None;
                }
                Some(self.wide_bitcast(c))
            }
            I::PtrToInt(c) if wide_width(&c.to_type).is_some() => Some(Err(
                self.unsupported(format!("`{inst}` (pointer to a wide integer)"))
            )),
            I::IntToPtr(c) if wide_op(self, &c.operand).is_some() => Some(Err(
                self.unsupported(format!("`{inst}` (wide integer to a pointer)"))
            )),
            _ => None,
        }
    }

    fn wide_binary(
        &mut self,
        op: IntBinOp,
        a: &'m Operand,
        b: &'m Operand,
        dest: &'m Name,
        bits: u32,
    ) -> Result<(), LowerError> {
        let signed = matches!(op, IntBinOp::Ashr | IntBinOp::Sdiv | IntBinOp::Srem);
        let extend = if signed { Extend::Sign } else { Extend::Zero };
        let x = self.full_operand(a, extend)?;
        let full = match op {
            IntBinOp::Shl | IntBinOp::Lshr | IntBinOp::Ashr => {
                let shift = match op {
                    IntBinOp::Shl => Shift::Left,
                    _ => Shift::Right(extend),
                };
                self.wide_shift(&x, shift, b, bits)?
            }
            _ => {
                let y = self.full_operand(b, extend)?;
                match op {
                    IntBinOp::Add => self.add_full(&x, &y),
                    IntBinOp::Sub => self.sub_full(&x, &y),
                    IntBinOp::Mul => self.mul_full(&x, &y),
                    IntBinOp::Udiv => self.divide_full(&x, &y, bits).0,
                    IntBinOp::Urem => self.divide_full(&x, &y, bits).1,
                    IntBinOp::Sdiv => self.signed_divide_full(&x, &y, bits).0,
                    IntBinOp::Srem => self.signed_divide_full(&x, &y, bits).1,
                    IntBinOp::And | IntBinOp::Or | IntBinOp::Xor => x
                        .iter()
                        .zip(&y)
                        .map(|(&l, &r)| {
                            self.emit(
                                Type::I64,
                                InstKind::IntBin {
                                    op,
                                    ty: Type::I64,
                                    lhs: l,
                                    rhs: r,
                                },
                            )
                        })
                        .collect(),
                    IntBinOp::Shl | IntBinOp::Lshr | IntBinOp::Ashr => {
                        unreachable!("shifts are handled above")
                    }
                }
            }
        };
        let limbs = self.cut_full(&full, bits);
        self.define_wide(dest, bits, limbs);
        Ok(())
    }

    /// `x` shifted by operand `amount`: by a constant when it is one (amounts of `bits`
    /// or more are poison, here zero), else by its low limb.
    fn wide_shift(
        &mut self,
        x: &[Reg],
        shift: Shift,
        amount: &'m Operand,
        bits: u32,
    ) -> Result<Vec<Reg>, LowerError> {
        if let Some(Constant::Int { value, .. }) = amount.as_constant() {
            if *value >= u64::from(bits) {
                let zero = self.const_reg(Type::I64, fpir::Const::Bits(0));
                return Ok(vec![zero; x.len()]);
            }
            return Ok(self.shift_const(x, shift, *value));
        }
        let limbs = self.wide_operand(amount)?;
        let amount_bits = self.wide_bits(amount)?;
        let low = self.full_limbs(&limbs, amount_bits, Extend::Zero)[0];
        Ok(self.shift_var(x, shift, low))
    }

    fn wide_icmp(&mut self, i: &'m instruction::ICmp) -> Result<(), LowerError> {
        let pred = int_pred(i.predicate);
        let signed = matches!(
            pred,
            IntPred::Slt | IntPred::Sle | IntPred::Sgt | IntPred::Sge
        );
        let extend = if signed { Extend::Sign } else { Extend::Zero };
        let a = self.full_operand(&i.operand0, extend)?;
        let b = self.full_operand(&i.operand1, extend)?;
        let result = self.compare_full(pred, &a, &b);
        self.bind(&i.dest, Type::BOOL, result);
        Ok(())
    }

    /// `trunc`, `zext` and `sext` where either side is wide.
    fn wide_resize(
        &mut self,
        op: CastOp,
        operand: &'m Operand,
        to_type: &TypeRef,
        dest: &'m Name,
    ) -> Result<(), LowerError> {
        let extend = if op == CastOp::Sext {
            Extend::Sign
        } else {
            Extend::Zero
        };
        let from_ty = self.type_of(operand);
        let full = match wide_width(&from_ty) {
            Some(_) => self.full_operand(operand, extend)?,
            None => {
                let from = self.operand_ty(operand)?;
                let r = self.operand(operand)?;
                let cast = if extend == Extend::Sign {
                    CastOp::Sext
                } else {
                    CastOp::Zext
                };
                vec![self.convert(cast, from, Type::I64, r)]
            }
        };
        match wide_width(to_type) {
            Some(bits) => {
                let count = bits.div_ceil(64) as usize;
                let zero = self.const_reg(Type::I64, fpir::Const::Bits(0));
                let fill = if extend == Extend::Sign {
                    let sixty_three = self.const_reg(Type::I64, fpir::Const::Bits(63));
                    let top = full[full.len() - 1];
                    self.emit(
                        Type::I64,
                        InstKind::IntBin {
                            op: IntBinOp::Ashr,
                            ty: Type::I64,
                            lhs: top,
                            rhs: sixty_three,
                        },
                    )
                } else {
                    zero
                };
                let mut limbs = full;
                limbs.resize(count, fill);
                limbs.truncate(count);
                let limbs = self.cut_full(&limbs, bits);
                self.define_wide(dest, bits, limbs);
                Ok(())
            }
            None => {
                let to = self.scalar_ty(to_type)?;
                let r = self.convert(CastOp::Trunc, Type::I64, to, full[0]);
                self.bind(dest, to, r);
                Ok(())
            }
        }
    }

    fn wide_to_float(
        &mut self,
        operand: &'m Operand,
        to_type: &TypeRef,
        dest: &'m Name,
        extend: Extend,
    ) -> Result<(), LowerError> {
        let to = self.scalar_ty(to_type)?;
        let Some(ft) = to.as_float() else {
            return Err(self.unsupported(format!("conversion of a wide integer to {to}")));
        };
        let full = self.full_operand(operand, extend)?;
        let r = match extend {
            Extend::Zero => self.unsigned_to_float(&full, ft),
            Extend::Sign => self.signed_to_float(&full, ft),
        };
        self.bind(dest, to, r);
        Ok(())
    }

    fn float_to_wide(
        &mut self,
        operand: &'m Operand,
        bits: u32,
        dest: &'m Name,
        signed: bool,
    ) -> Result<(), LowerError> {
        let from = self.operand_ty(operand)?;
        let Some(ft) = from.as_float() else {
            return Err(self.unsupported(format!("conversion of {from} to a wide integer")));
        };
        let v = self.operand(operand)?;
        let full = self.float_to_full(v, ft, bits.div_ceil(64) as usize, signed);
        let limbs = self.cut_full(&full, bits);
        self.define_wide(dest, bits, limbs);
        Ok(())
    }

    fn wide_load(&mut self, l: &'m instruction::Load, bits: u32) -> Result<(), LowerError> {
        if l.atomicity.is_some() {
            return Err(self.unsupported("atomic load"));
        }
        let addr = self.operand(&l.address)?;
        let limbs = self.load_wide(addr, bits);
        self.define_wide(&l.dest, bits, limbs);
        Ok(())
    }

    fn wide_store(&mut self, s: &'m instruction::Store, bits: u32) -> Result<(), LowerError> {
        if s.atomicity.is_some() {
            return Err(self.unsupported("atomic store"));
        }
        let limbs = self.wide_operand(&s.value)?;
        let addr = self.operand(&s.address)?;
        self.store_wide(addr, &limbs, bits);
        Ok(())
    }

    /// `bitcast` to or from a wide integer: through memory when the other side is an
    /// aggregate or vector; a renaming between equal types.
    fn wide_bitcast(&mut self, c: &'m instruction::BitCast) -> Result<(), LowerError> {
        if self.aliases.contains_key(&c.dest) {
            return Ok(());
        }
        let from = self.type_of(&c.operand);
        match (wide_width(&from), wide_width(&c.to_type)) {
            (None, Some(bits)) if scalar(&from).is_none() && self.is_mem(&from) => {
                let addr = self.operand(&c.operand)?;
                let limbs = self.load_wide(addr, bits);
                self.define_wide(&c.dest, bits, limbs);
                Ok(())
            }
            (Some(bits), None) if scalar(&c.to_type).is_none() && self.is_mem(&c.to_type) => {
                let limbs = self.wide_operand(&c.operand)?;
                let slot = self.slot_for(&c.dest, &c.to_type)?;
                self.store_wide(slot, &limbs, bits);
                Ok(())
            }
            _ => Err(self.unsupported(format!("bitcast from {from} to {}", c.to_type))),
        }
    }
}
