//! Calls: direct, indirect, math (op sites), builtins, externals and constrained
//! intrinsics, with `byval` copies and hidden result slots.

use super::f80::{is_f80, F80Math};
use super::wide::wide_width;
use super::FnLower;
use crate::asm::{self, AsmKind, InlineAsm, Value};
use crate::calls::{classify, BuiltinArgs, Constrained, Target};
use crate::error::LowerError;
use crate::layout::scalar;
use either::Either;
use fpir::{
    Builtin, Callee, CastOp, Const, InstKind, IntBinOp, IntPred, LibcFn, MathCall, Reg, Type,
};
use llvm_ir::function::ParameterAttribute;
use llvm_ir::instruction::{Call, InlineAssembly};
use llvm_ir::terminator::Invoke;
use llvm_ir::{Name, Operand, TypeRef};

/// The parts of a `call` or an `invoke` that lowering reads.
#[derive(Clone, Copy)]
pub(super) struct CallView<'m> {
    /// The callee: inline assembly or a function operand.
    pub function: &'m Either<InlineAssembly, Operand>,
    /// The arguments with their attributes.
    pub arguments: &'m [(Operand, Vec<ParameterAttribute>)],
    /// The result's name.
    pub dest: Option<&'m Name>,
}

impl<'m> From<&'m Call> for CallView<'m> {
    fn from(call: &'m Call) -> Self {
        CallView {
            function: &call.function,
            arguments: &call.arguments,
            dest: call.dest.as_ref(),
        }
    }
}

impl<'m> From<&'m Invoke> for CallView<'m> {
    fn from(invoke: &'m Invoke) -> Self {
        CallView {
            function: &invoke.function,
            arguments: &invoke.arguments,
            dest: Some(&invoke.result),
        }
    }
}

/// Whether a value of type `a` passes as one of type `b`: the same type, or two pointers
/// (typed pointers differ by pointee: a C++ `std::invalid_argument*` reaches the C
/// runtime's `struct std_exception*`).
fn same_abi(a: &TypeRef, b: &TypeRef) -> bool {
    a == b
        || matches!(
            (a.as_ref(), b.as_ref()),
            (
                llvm_ir::Type::PointerType { .. },
                llvm_ir::Type::PointerType { .. }
            )
        )
}

fn int_bin(op: IntBinOp, ty: Type, lhs: Reg, rhs: Reg) -> InstKind {
    InstKind::IntBin { op, ty, lhs, rhs }
}

fn icmp(pred: IntPred, ty: Type, lhs: Reg, rhs: Reg) -> InstKind {
    InstKind::Icmp { pred, ty, lhs, rhs }
}

impl<'c, 'm> FnLower<'c, 'm> {
    /// The function type a call calls through.
    fn callee_type(&self, call: CallView<'m>) -> Option<TypeRef> {
        match self.type_of(call.function.as_ref().right()?).as_ref() {
            llvm_ir::Type::PointerType { pointee_type, .. } => Some(pointee_type.clone()),
            _ => None,
        }
    }

    /// For a call of a function the module does not define: its name and how to lower it.
    pub(super) fn external_target(&self, call: CallView<'m>) -> Option<(&'m str, Target)> {
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

    pub(super) fn call(&mut self, call: CallView<'m>) -> Result<(), LowerError> {
        match self.external_target(call) {
            Some((_, Target::TypeidFor)) => return self.typeid_for(call),
            Some((_, Target::UmulWithOverflow)) => return self.umul_with_overflow(call),
            _ => {}
        }
        let Some(function) = call.function.as_ref().right() else {
            return self.inline_asm(call);
        };
        let fn_ty = self.callee_type(call);
        let Some(llvm_ir::Type::FuncType { result_type, .. }) = fn_ty.as_deref() else {
            return Err(self.malformed("call through a non-function type"));
        };
        let external = self.external_target(call);
        // `printf` and its kin take a `long double` as its two registers (significand,
        // then sign and exponent), which the C library model's `%L` conversions read; the
        // model has no stack to find it in, where x86-64 code would pass it.
        let formats = matches!(
            external,
            Some((_, Target::Builtin(Builtin::Libc(f), _)))
                if matches!(f, LibcFn::Printf | LibcFn::Fprintf | LibcFn::Sprintf | LibcFn::Snprintf)
        );
        let f80_involved = !formats
            && (is_f80(result_type)
                || call.arguments.iter().any(|(a, _)| is_f80(&self.type_of(a))));
        match external {
            Some((_, Target::Drop | Target::Forward)) => return Ok(()),
            Some((name, _)) if f80_involved => {
                if let Some(rest) = name.strip_prefix("llvm.experimental.constrained.") {
                    return self.f80_constrained(rest, call.arguments, result_type, call.dest);
                }
                return match F80Math::from_name(name) {
                    Some(math) => self.f80_math(math, call.arguments, call.dest),
                    None => self.f80_libm(name, call.arguments, result_type, call.dest),
                };
            }
            Some((name, Target::Unsupported(what))) => {
                return Err(self.unsupported(format!("{what} (call of `{name}`)")))
            }
            _ => {}
        }
        let wide_result = wide_width(result_type);
        let wide_args = call.arguments.iter().any(|(a, _)| {
            let ty = self.type_of(a);
            wide_width(&ty).is_some() && !(formats && is_f80(&ty))
        });
        if let Some((name, _)) = external.filter(|_| wide_result.is_some() || wide_args) {
            // Only calls between defined functions pass limbs; an intrinsic or library
            // function on a wide integer (`llvm.ctpop.i128`) has no limb form here.
            return Err(
                self.unsupported(format!("call of `{name}` on an integer wider than 64 bits"))
            );
        }
        let sret = if wide_result.is_some() {
            Some(self.slot(result_type)?)
        } else if scalar(result_type).is_none() && self.is_mem(result_type) {
            Some(match call.dest {
                Some(name) => self.slot_for(name, result_type)?,
                None => self.slot(result_type)?,
            })
        } else {
            None
        };
        let dest = match (call.dest, result_type.as_ref()) {
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
                Target::Drop
                | Target::Forward
                | Target::Unsupported(_)
                | Target::TypeidFor
                | Target::UmulWithOverflow => return Ok(()),
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
                // A call passing only the fixed parameters (`sf_error(name, code, NULL)`)
                // is an ordinary call; a callee that reads variable arguments is itself
                // unsupported (`va_start`).
                if def.is_var_arg && arg_types.len() > def_params.len() {
                    return Err(self.unsupported(format!(
                        "call of variadic function `{}` with variable arguments",
                        def.name
                    )));
                }
                let passes = arg_types.len() == def_params.len()
                    && arg_types
                        .iter()
                        .zip(&def_params)
                        .all(|(a, p)| same_abi(a, p));
                if !passes || !same_abi(&def.return_type, result_type) {
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
        if let (Some(bits), Some(slot), Some(name)) = (wide_result, sret, &call.dest) {
            let limbs = self.load_wide(slot, bits);
            self.define_wide(name, bits, limbs);
        }
        Ok(())
    }

    /// Lowers a call of inline assembly that [`crate::asm`] recognizes.
    fn inline_asm(&mut self, call: CallView<'m>) -> Result<(), LowerError> {
        let key = (self.f.name.clone(), self.position.0, self.position.1);
        let asm = self
            .ctx
            .beside
            .asm_calls
            .get(&key)
            .and_then(|text| InlineAsm::from_call_text(text));
        let Some(asm) = asm else {
            return Err(self.unsupported("inline assembly whose text cannot be read"));
        };
        let unsupported = |this: &mut Self, why: String| {
            this.unsupported(format!(
                "inline assembly `{}` with constraints `{}` ({why})",
                asm.template, asm.constraints
            ))
        };
        let asm_ty = call.function.as_ref().left().map(|a| a.ty.clone());
        let fn_ty = match asm_ty.as_deref() {
            Some(llvm_ir::Type::PointerType { pointee_type, .. }) => Some(pointee_type.clone()),
            _ => asm_ty,
        };
        let result_type = match fn_ty.as_deref() {
            Some(llvm_ir::Type::FuncType { result_type, .. }) => result_type.clone(),
            _ => return Err(self.malformed("inline assembly of a non-function type")),
        };
        let Some(dest) = call.dest else {
            return Err(unsupported(self, "it has no result".into()));
        };
        let ret = scalar(&result_type);
        let mut inputs = Vec::with_capacity(call.arguments.len());
        let mut types = Vec::with_capacity(call.arguments.len());
        for (arg, _) in call.arguments {
            types.push(self.operand_ty(arg)?);
            inputs.push(self.operand(arg)?);
        }
        let Some(ret) = ret else {
            return Err(unsupported(self, "its result is not a scalar".into()));
        };
        let (steps, result) = match asm::recognize(&asm, &types, ret) {
            Ok(found) => found,
            Err(why) => return Err(unsupported(self, why)),
        };
        if result != Value::Step(steps.len().wrapping_sub(1)) {
            return Err(unsupported(self, "it computes nothing".into()));
        }
        let mut regs: Vec<Reg> = Vec::with_capacity(steps.len());
        for (i, step) in steps.iter().enumerate() {
            let reg = |v: Value| match v {
                Value::Input(i) => inputs[i],
                Value::Step(i) => regs[i],
            };
            let kind = match step.kind {
                AsmKind::Builtin(b, x) => InstKind::Call {
                    callee: Callee::Builtin(b),
                    args: vec![reg(x)],
                },
                AsmKind::XorConst(x, k) => {
                    let lhs = reg(x);
                    let rhs = self.const_reg(step.ty, Const::Bits(k & step.ty.mask()));
                    InstKind::IntBin {
                        op: IntBinOp::Xor,
                        ty: step.ty,
                        lhs,
                        rhs,
                    }
                }
                AsmKind::Math(func, ty, x) => InstKind::Call {
                    callee: Callee::Math(MathCall { func, ty }, self.ctx.next_op()),
                    args: vec![reg(x)],
                },
                AsmKind::FloatToInt(x) => InstKind::Cast {
                    op: CastOp::Fptosi,
                    from: self.regs[reg(x)],
                    to: step.ty,
                    arg: reg(x),
                },
            };
            let out = if i + 1 == steps.len() {
                let out = self.value(dest, &result_type)?;
                self.push(Some(out), kind);
                out
            } else {
                self.emit(step.ty, kind)
            };
            regs.push(out);
        }
        Ok(())
    }

    /// `llvm.umul.with.overflow.iN(a, b)`: `{ a * b, overflowed }` in memory, the flag
    /// being `a != 0 && b > MAX / a` (the divisor made 1 where `a` is 0), so the
    /// overflow check adds no branch site.
    fn umul_with_overflow(&mut self, call: CallView<'m>) -> Result<(), LowerError> {
        let (Some(dest), [(a, _), (b, _)]) = (call.dest, call.arguments) else {
            return Err(self.malformed("llvm.umul.with.overflow without two operands and a result"));
        };
        let ty = self.operand_ty(a)?;
        let (a, b) = (self.operand(a)?, self.operand(b)?);
        let product = self.emit(ty, int_bin(IntBinOp::Mul, ty, a, b));
        let zero = self.const_reg(ty, Const::Bits(0));
        let max = self.const_reg(ty, Const::Bits(ty.mask()));
        let a_is_zero = self.emit(Type::BOOL, icmp(IntPred::Eq, ty, a, zero));
        let one_if_zero = self.emit(
            ty,
            InstKind::Cast {
                op: CastOp::Zext,
                from: Type::BOOL,
                to: ty,
                arg: a_is_zero,
            },
        );
        let divisor = self.emit(ty, int_bin(IntBinOp::Or, ty, a, one_if_zero));
        let limit = self.emit(ty, int_bin(IntBinOp::Udiv, ty, max, divisor));
        let too_big = self.emit(Type::BOOL, icmp(IntPred::Ugt, ty, b, limit));
        let a_nonzero = self.emit(Type::BOOL, icmp(IntPred::Ne, ty, a, zero));
        let wrapped = self.emit(
            Type::BOOL,
            int_bin(IntBinOp::And, Type::BOOL, too_big, a_nonzero),
        );
        let fn_ty = self.callee_type(call);
        let Some(llvm_ir::Type::FuncType { result_type, .. }) = fn_ty.as_deref() else {
            return Err(self.malformed("llvm.umul.with.overflow of a non-function type"));
        };
        let result_type = result_type.clone();
        let slot = self.slot_for(dest, &result_type)?;
        let flag_at = self.element_at(&result_type, &[1])?.0;
        self.push(
            None,
            InstKind::Store {
                ty,
                addr: slot,
                value: product,
            },
        );
        let flag = self.offset_addr(slot, flag_at);
        self.push(
            None,
            InstKind::Store {
                ty: Type::BOOL,
                addr: flag,
                value: wrapped,
            },
        );
        Ok(())
    }

    /// Lowers a constrained intrinsic as its plain operation (the metadata arguments,
    /// rounding mode and exception behaviour, are dropped).
    fn constrained(
        &mut self,
        call: CallView<'m>,
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
                let pred = self.ctx.beside.fcmp_predicates.get(&key).copied();
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
        call: CallView<'m>,
        copy_byval: bool,
        limit: usize,
    ) -> Result<Vec<Reg>, LowerError> {
        let mut regs = Vec::with_capacity(call.arguments.len());
        for (arg, attrs) in call.arguments.iter().take(limit) {
            if wide_width(&self.type_of(arg)).is_some() {
                regs.extend(self.wide_operand(arg)?);
                continue;
            }
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

    fn builtin_args(
        &mut self,
        call: CallView<'m>,
        how: BuiltinArgs,
    ) -> Result<Vec<Reg>, LowerError> {
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
}
