//! `long double` (LLVM's `x86_fp80`), legalized like the wide integers of [`super::wide`]:
//! a value is two registers, its significand (`i64`) and its sign and exponent (`i16`),
//! exactly the limbs of an `i80`. So phis, `select`, parameters, calls between defined
//! functions, results (through the hidden slot), loads and stores of the 10 bytes go
//! through the wide-integer paths unchanged, and this module lowers what is particular
//! to floats: arithmetic, `sqrtl`, comparisons and conversions become calls of
//! [`Builtin::F80`] (one per half of an extended result, see [`fpir::F80Op`]), and
//! `fneg`, `fabs` and `copysign` are computed on the sign bit.
//!
//! Constants come from [`crate::beside`] (`llvm-ir` keeps none of their bits).

use super::wide::wide_width;
use super::FnLower;
use crate::consts::float_pred;
use crate::error::LowerError;
use fpir::f80::F80Arith;
use fpir::{
    Builtin, CastOp, Const, F80Op, FloatPred, InstKind, IntBinOp, MathFn, MathOrigin, MathShape,
    Reg, Type,
};
use llvm_ir::types::FPType;
use llvm_ir::{instruction, Instruction, Name, Operand};

/// The type of the sign-and-exponent half.
const SE: Type = Type::Int(16);
const SIGN: u64 = 0x8000;

/// True for `x86_fp80`.
pub(crate) fn is_f80(ty: &llvm_ir::Type) -> bool {
    matches!(ty, llvm_ir::Type::FPType(FPType::X86_FP80))
}

/// The floating-point types fpir has no registers for and `long double` is not:
/// `fp128` (`__float128`), `ppc_fp128`, `half` and `bfloat`.
pub(crate) fn unsupported_float(ty: &llvm_ir::Type) -> Option<&'static str> {
    match ty {
        llvm_ir::Type::FPType(FPType::FP128) => Some("fp128 (__float128)"),
        llvm_ir::Type::FPType(FPType::PPC_FP128) => Some("ppc_fp128"),
        llvm_ir::Type::FPType(FPType::Half) => Some("half (_Float16)"),
        llvm_ir::Type::FPType(FPType::BFloat) => Some("bfloat (__bf16)"),
        _ => None,
    }
}

/// How a math function of the C library or an LLVM intrinsic on `long double` lowers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum F80Math {
    /// `fabsl`, `llvm.fabs.f80`: clears the sign bit.
    Fabs,
    /// `copysignl`, `llvm.copysign.f80`: the sign bit of the second operand.
    Copysign,
    /// `sqrtl`, `llvm.sqrt.f80`: [`F80Op::Sqrt`].
    Sqrt,
    /// `llvm.fmuladd.f80` (what `a * b + c` becomes without `-ffp-contract=off`): a
    /// product, then a sum, each rounded, as the x87 (which has no fused operation)
    /// computes it.
    MulAdd,
}

impl F80Math {
    /// The function a call of the external `name` computes on `long double`s.
    pub(crate) fn from_name(name: &str) -> Option<F80Math> {
        Some(match name {
            "fabsl" | "llvm.fabs.f80" => F80Math::Fabs,
            "copysignl" | "llvm.copysign.f80" => F80Math::Copysign,
            "sqrtl" | "llvm.sqrt.f80" => F80Math::Sqrt,
            "llvm.fmuladd.f80" => F80Math::MulAdd,
            _ => return None,
        })
    }
}

/// The math function whose `long double` version `name` is: a C function (`sinl`) or
/// an LLVM intrinsic on `x86_fp80` that has one (`llvm.sin.f80`; `llvm.minnum.f80` and
/// `llvm.maxnum.f80`, which x86-64 code calls `fminl` and `fmaxl` for).
fn libm_function(name: &str) -> Option<MathFn> {
    let (stem, intrinsic) = match name.strip_prefix("llvm.") {
        Some("minnum.f80") => return Some(MathFn::Fmin),
        Some("maxnum.f80") => return Some(MathFn::Fmax),
        Some(rest) => (rest.strip_suffix(".f80")?, true),
        None => (name.strip_suffix('l')?, false),
    };
    let f = MathFn::from_name(stem)?;
    match (f.origin(), intrinsic) {
        (MathOrigin::Llvm, _) | (MathOrigin::C, true) => None,
        _ => Some(f),
    }
}

impl<'c, 'm> FnLower<'c, 'm> {
    /// Lowers `inst` when a `long double` is its result or an operand and it is not one
    /// the wide-integer paths carry (loads, stores, bit casts, phis, `select`, calls);
    /// an error for the other wide floats. `None` when neither is involved.
    pub(super) fn f80_inst(&mut self, inst: &'m Instruction) -> Option<Result<(), LowerError>> {
        use Instruction as I;
        let arith = |op, i: &'m Operand, j: &'m Operand, d: &'m Name| Some((op, i, j, d));
        let binary = match inst {
            I::FAdd(i) => arith(F80Arith::Add, &i.operand0, &i.operand1, &i.dest),
            I::FSub(i) => arith(F80Arith::Sub, &i.operand0, &i.operand1, &i.dest),
            I::FMul(i) => arith(F80Arith::Mul, &i.operand0, &i.operand1, &i.dest),
            I::FDiv(i) => arith(F80Arith::Div, &i.operand0, &i.operand1, &i.dest),
            I::FRem(i) => arith(F80Arith::Rem, &i.operand0, &i.operand1, &i.dest),
            _ => None,
        };
        if let Some((op, a, b, dest)) = binary {
            let ty = self.type_of(a);
            if let Some(what) = unsupported_float(&ty) {
                return Some(Err(self.unsupported(what)));
            }
            return is_f80(&ty).then(|| self.f80_arith(op, a, b, dest));
        }
        let operand_ty = match inst {
            I::FNeg(i) => self.type_of(&i.operand),
            I::FCmp(i) => self.type_of(&i.operand0),
            I::FPExt(c) => c.to_type.clone(),
            I::FPTrunc(c) => self.type_of(&c.operand),
            I::FPToSI(c) => self.type_of(&c.operand),
            I::FPToUI(c) => self.type_of(&c.operand),
            I::SIToFP(c) => c.to_type.clone(),
            I::UIToFP(c) => c.to_type.clone(),
            _ => return None,
        };
        if let Some(what) = unsupported_float(&operand_ty) {
            return Some(Err(self.unsupported(what)));
        }
        if let I::FPTrunc(c) = inst {
            if let Some(what) = unsupported_float(&c.to_type) {
                return Some(Err(self.unsupported(what)));
            }
        }
        if !is_f80(&operand_ty) {
            return None;
        }
        Some(match inst {
            I::FNeg(i) => self.f80_fneg(i),
            I::FCmp(i) => self.f80_fcmp(i),
            I::FPExt(c) => self.f80_from_float(&c.operand, &c.dest),
            I::FPTrunc(c) => self.f80_to_other(F80Op::ToFloat, &c.operand, &c.to_type, &c.dest),
            I::FPToSI(c) => self.f80_to_other(F80Op::ToSigned, &c.operand, &c.to_type, &c.dest),
            I::FPToUI(c) => self.f80_to_other(F80Op::ToUnsigned, &c.operand, &c.to_type, &c.dest),
            I::SIToFP(c) => self.f80_from_int(&c.operand, &c.dest, CastOp::Sext),
            I::UIToFP(c) => self.f80_from_int(&c.operand, &c.dest, CastOp::Zext),
            _ => unreachable!("matched above"),
        })
    }

    /// The two registers of a `long double` operand.
    pub(super) fn f80_operand(&mut self, op: &'m Operand) -> Result<[Reg; 2], LowerError> {
        let limbs = self.wide_operand(op)?;
        match limbs[..] {
            [sig, se] => Ok([sig, se]),
            _ => Err(self.malformed("a long double operand that is not two registers")),
        }
    }

    /// The registers of the `x86_fp80` constant operand `op` of the instruction being
    /// lowered.
    pub(super) fn f80_constant(&mut self, op: &'m Operand) -> Result<Vec<Reg>, LowerError> {
        let at = (self.f.name.clone(), self.position.0, self.position.1);
        let index = self.operand_index(op);
        let bits = match self.ctx.beside.f80_const(&at, index) {
            Ok(bits) => bits,
            Err(e) => return Err(self.unsupported(e)),
        };
        let sig = self.const_reg(Type::I64, Const::Bits(bits as u64));
        let se = self.const_reg(SE, Const::Bits((bits >> 64) as u64 & 0xffff));
        Ok(vec![sig, se])
    }

    /// The index of `op` among the operands of the instruction being lowered, as the C
    /// API counts them (a phi's: its incoming index), when lowering can tell.
    fn operand_index(&self, op: &Operand) -> Option<u32> {
        use Instruction as I;
        let (b, i) = self.position;
        let bb = self.f.basic_blocks.get(b)?;
        let same = |o: &Operand| std::ptr::eq(o, op);
        let Some(inst) = bb.instrs.get(i) else {
            return match &bb.term {
                llvm_ir::Terminator::Ret(r) => {
                    r.return_operand.as_ref().filter(|o| same(o)).map(|_| 0)
                }
                _ => None,
            };
        };
        let pair = |a: &Operand, b: &Operand| {
            if same(a) {
                Some(0)
            } else if same(b) {
                Some(1)
            } else {
                None
            }
        };
        match inst {
            I::FAdd(x) => pair(&x.operand0, &x.operand1),
            I::FSub(x) => pair(&x.operand0, &x.operand1),
            I::FMul(x) => pair(&x.operand0, &x.operand1),
            I::FDiv(x) => pair(&x.operand0, &x.operand1),
            I::FRem(x) => pair(&x.operand0, &x.operand1),
            I::FCmp(x) => pair(&x.operand0, &x.operand1),
            I::Store(x) => pair(&x.value, &x.address),
            I::Select(x) => match pair(&x.true_value, &x.false_value) {
                Some(k) => Some(k + 1),
                None => same(&x.condition).then_some(0),
            },
            I::Phi(x) => x
                .incoming_values
                .iter()
                .position(|(v, _)| same(v))
                .map(|k| k as u32),
            I::Call(x) => x
                .arguments
                .iter()
                .position(|(a, _)| same(a))
                .map(|k| k as u32),
            _ => None,
        }
    }

    /// Calls `op` for an extended result: one call per half.
    fn f80_result(&mut self, op: F80Op, args: Vec<Reg>) -> Vec<Reg> {
        [Type::I64, SE]
            .into_iter()
            .map(|half| {
                self.emit(
                    half,
                    InstKind::Call {
                        callee: fpir::Callee::Builtin(Builtin::F80(op)),
                        args: args.clone(),
                    },
                )
            })
            .collect()
    }

    /// The registers of two `long double` operands: `a`'s two, then `b`'s.
    fn f80_operand_pair(&mut self, a: &'m Operand, b: &'m Operand) -> Result<Vec<Reg>, LowerError> {
        let [a_sig, a_se] = self.f80_operand(a)?;
        let [b_sig, b_se] = self.f80_operand(b)?;
        Ok(vec![a_sig, a_se, b_sig, b_se])
    }

    fn f80_arith(
        &mut self,
        op: F80Arith,
        a: &'m Operand,
        b: &'m Operand,
        dest: &'m Name,
    ) -> Result<(), LowerError> {
        let operands = self.f80_operand_pair(a, b)?;
        let limbs = self.f80_result(F80Op::Arith(op), operands);
        self.define_wide(dest, 80, limbs);
        Ok(())
    }

    /// `fneg`: the sign bit flipped.
    fn f80_fneg(&mut self, i: &'m instruction::FNeg) -> Result<(), LowerError> {
        let [sig, se] = self.f80_operand(&i.operand)?;
        let sign = self.const_reg(SE, Const::Bits(SIGN));
        let flipped = self.sign_op(IntBinOp::Xor, se, sign);
        self.define_wide(&i.dest, 80, vec![sig, flipped]);
        Ok(())
    }

    fn sign_op(&mut self, op: IntBinOp, lhs: Reg, rhs: Reg) -> Reg {
        self.emit(
            SE,
            InstKind::IntBin {
                op,
                ty: SE,
                lhs,
                rhs,
            },
        )
    }

    fn f80_fcmp(&mut self, i: &'m instruction::FCmp) -> Result<(), LowerError> {
        let pred = float_pred(i.predicate);
        self.f80_compare(pred, &i.operand0, &i.operand1, &i.dest)
    }

    fn f80_compare(
        &mut self,
        pred: FloatPred,
        a: &'m Operand,
        b: &'m Operand,
        dest: &'m Name,
    ) -> Result<(), LowerError> {
        let mut args = self.f80_operand_pair(a, b)?;
        let index = FloatPred::ALL.iter().position(|&p| p == pred).unwrap_or(0);
        args.push(self.const_reg(Type::I8, Const::Bits(index as u64)));
        let b = self.symbols.llvm.types.bool();
        self.define(
            dest,
            &b,
            InstKind::Call {
                callee: fpir::Callee::Builtin(Builtin::F80(F80Op::Cmp)),
                args,
            },
        )
    }

    /// `fpext` of an `f32` or `f64` to `long double`: exact.
    fn f80_from_float(&mut self, op: &'m Operand, dest: &'m Name) -> Result<(), LowerError> {
        let from = self.operand_ty(op)?;
        let mut x = self.operand(op)?;
        if from == Type::F32 {
            x = self.convert(CastOp::Fpext, Type::F32, Type::F64, x);
        }
        let limbs = self.f80_result(F80Op::FromDouble, vec![x]);
        self.define_wide(dest, 80, limbs);
        Ok(())
    }

    /// `sitofp`/`uitofp` to `long double`: through an `i64`, exact.
    fn f80_from_int(
        &mut self,
        op: &'m Operand,
        dest: &'m Name,
        extend: CastOp,
    ) -> Result<(), LowerError> {
        if wide_width(&self.type_of(op)).is_some() {
            return Err(
                self.unsupported("conversion of an integer wider than 64 bits to long double")
            );
        }
        let from = self.operand_ty(op)?;
        let x = self.operand(op)?;
        let x = self.convert(extend, from, Type::I64, x);
        let f80_op = match extend {
            CastOp::Sext => F80Op::FromSigned,
            _ => F80Op::FromUnsigned,
        };
        let limbs = self.f80_result(f80_op, vec![x]);
        self.define_wide(dest, 80, limbs);
        Ok(())
    }

    /// A conversion from `long double` to a float or an integer of at most 64 bits.
    fn f80_to_other(
        &mut self,
        op: F80Op,
        operand: &'m Operand,
        to: &llvm_ir::TypeRef,
        dest: &'m Name,
    ) -> Result<(), LowerError> {
        if wide_width(to).is_some() {
            return Err(
                self.unsupported("conversion of long double to an integer wider than 64 bits")
            );
        }
        let [sig, se] = self.f80_operand(operand)?;
        self.define(
            dest,
            to,
            InstKind::Call {
                callee: fpir::Callee::Builtin(Builtin::F80(op)),
                args: vec![sig, se],
            },
        )
    }

    /// A constrained intrinsic on `long double` (`llvm.experimental.constrained.fmul.f80`
    /// under `#pragma STDC FENV_ACCESS ON`, `rest` the name after the prefix): the plain
    /// operation, which rounds in the run's mode; a comparison's predicate is read
    /// beside `llvm-ir`, as for the other formats.
    pub(super) fn f80_constrained(
        &mut self,
        rest: &str,
        args: &'m [(Operand, Vec<llvm_ir::function::ParameterAttribute>)],
        result_type: &llvm_ir::TypeRef,
        dest: Option<&'m Name>,
    ) -> Result<(), LowerError> {
        let stem = rest.split('.').next().unwrap_or(rest);
        let unsupported =
            |this: &mut Self| this.unsupported(format!("constrained `{stem}` on long double"));
        let (Some(dest), Some((a, _))) = (dest, args.first()) else {
            return Err(unsupported(self));
        };
        let second = || args.get(1).map(|(b, _)| b);
        let arith = |op| second().map(|b| (op, b));
        let binary = match stem {
            "fadd" => arith(F80Arith::Add),
            "fsub" => arith(F80Arith::Sub),
            "fmul" => arith(F80Arith::Mul),
            "fdiv" => arith(F80Arith::Div),
            "frem" => arith(F80Arith::Rem),
            _ => None,
        };
        if let Some((op, b)) = binary {
            return self.f80_arith(op, a, b, dest);
        }
        match stem {
            "fcmp" | "fcmps" => {
                let key = (self.f.name.clone(), self.position.0, self.position.1);
                let pred = self.ctx.beside.fcmp_predicates.get(&key).copied();
                match (pred, second()) {
                    (Some(pred), Some(b)) => self.f80_compare(pred, a, b, dest),
                    _ => Err(unsupported(self)),
                }
            }
            "fpext" => self.f80_from_float(a, dest),
            "fptrunc" => self.f80_to_other(F80Op::ToFloat, a, result_type, dest),
            "fptosi" => self.f80_to_other(F80Op::ToSigned, a, result_type, dest),
            "fptoui" => self.f80_to_other(F80Op::ToUnsigned, a, result_type, dest),
            "sitofp" => self.f80_from_int(a, dest, CastOp::Sext),
            "uitofp" => self.f80_from_int(a, dest, CastOp::Zext),
            _ => Err(unsupported(self)),
        }
    }

    /// A call of the C library's `long double` version of a math function (`sinl`,
    /// `powl`, `frexpl`, ...): [`F80Op::Libm`], computed by the host's.
    pub(super) fn f80_libm(
        &mut self,
        name: &str,
        args: &'m [(Operand, Vec<llvm_ir::function::ParameterAttribute>)],
        result_type: &llvm_ir::TypeRef,
        dest: Option<&'m Name>,
    ) -> Result<(), LowerError> {
        let Some(f) = libm_function(name) else {
            return Err(self.unsupported(format!("call of `{name}` on long double")));
        };
        let shape = f.shape();
        let (extended, extra) = match shape {
            MathShape::Unary | MathShape::ToInt => (1, 0),
            MathShape::Binary => (2, 0),
            MathShape::Ternary => (3, 0),
            MathShape::FloatInt | MathShape::FloatPtrInt | MathShape::FloatPtrFloat => (1, 1),
        };
        if args.len() != extended + extra {
            return Err(self.malformed(format!("call of `{name}` with {} arguments", args.len())));
        }
        let op = F80Op::Libm(f);
        let mut regs = Vec::with_capacity(op.arity());
        for (arg, _) in &args[..extended] {
            regs.extend(self.f80_operand(arg)?);
        }
        for (arg, _) in &args[extended..] {
            regs.push(self.operand(arg)?);
        }
        let Some(dest) = dest else {
            self.f80_result(op, regs);
            return Ok(());
        };
        if shape == MathShape::ToInt {
            return self.define(
                dest,
                result_type,
                InstKind::Call {
                    callee: fpir::Callee::Builtin(Builtin::F80(op)),
                    args: regs,
                },
            );
        }
        let limbs = self.f80_result(op, regs);
        self.define_wide(dest, 80, limbs);
        Ok(())
    }

    /// A call of a math function on `long double`s (see [`F80Math`]).
    pub(super) fn f80_math(
        &mut self,
        math: F80Math,
        args: &'m [(Operand, Vec<llvm_ir::function::ParameterAttribute>)],
        dest: Option<&'m Name>,
    ) -> Result<(), LowerError> {
        let arity = match math {
            F80Math::MulAdd => 3,
            F80Math::Copysign => 2,
            F80Math::Fabs | F80Math::Sqrt => 1,
        };
        if args.len() != arity {
            return Err(self.malformed(format!("{math:?} call with {} arguments", args.len())));
        }
        let [sig, se] = self.f80_operand(&args[0].0)?;
        let limbs = match math {
            F80Math::Fabs => {
                let magnitude = self.const_reg(SE, Const::Bits(SIGN - 1));
                vec![sig, self.sign_op(IntBinOp::And, se, magnitude)]
            }
            F80Math::Copysign => {
                let [_, sign_se] = self.f80_operand(&args[1].0)?;
                let magnitude_mask = self.const_reg(SE, Const::Bits(SIGN - 1));
                let sign_mask = self.const_reg(SE, Const::Bits(SIGN));
                let magnitude = self.sign_op(IntBinOp::And, se, magnitude_mask);
                let sign = self.sign_op(IntBinOp::And, sign_se, sign_mask);
                vec![sig, self.sign_op(IntBinOp::Or, magnitude, sign)]
            }
            F80Math::Sqrt => self.f80_result(F80Op::Sqrt, vec![sig, se]),
            F80Math::MulAdd => {
                let [b_sig, b_se] = self.f80_operand(&args[1].0)?;
                let [c_sig, c_se] = self.f80_operand(&args[2].0)?;
                let mul = F80Op::Arith(F80Arith::Mul);
                let mut sum = self.f80_result(mul, vec![sig, se, b_sig, b_se]);
                sum.extend([c_sig, c_se]);
                self.f80_result(F80Op::Arith(F80Arith::Add), sum)
            }
        };
        if let Some(dest) = dest {
            self.define_wide(dest, 80, limbs);
        }
        Ok(())
    }
}
