//! Constants: folding LLVM constants and constant expressions to fpir [`Const`] values,
//! resolving global names (through aliases) to addresses, and writing global
//! initializers as little-endian bytes plus relocations.
//!
//! Folding covers what clang emits at `-O0`: integers, floats, null/undef/poison (as
//! zero), addresses of globals and functions, and `getelementptr`, `bitcast`,
//! `addrspacecast`, `inttoptr`, `ptrtoint`, integer arithmetic, `icmp`, `select`, and the
//! floating-point conversions, arithmetic and `fcmp` over them, computed as
//! [`fpir::eval`] computes them at run time. Two addresses inside one object compare as
//! their offsets (Csmith's `uitofp (icmp eq (getelementptr @g, 6), (getelementptr @g, 5))`).
//! A constant expression that needs an address at run time (`ptrtoint @g` used as an
//! integer, a comparison of addresses of two objects) does not fold; function lowering
//! then materializes it as instructions. Integers wider than 64 bits in initializers
//! take their high bits from [`crate::beside`].

use crate::beside::WideInits;
use crate::layout::{gep_offsets, scalar, GepIndex};
use crate::symbols::{name_text, Symbol, Symbols};
use fpir::eval;
use fpir::{AddrBase, CastOp, Const, FloatBinOp, FloatPred, IntPred, Reloc};
use llvm_ir::constant::Float;
use llvm_ir::{Constant, FPPredicate, IntPredicate, Name, Type};

/// A folded constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Folded {
    /// Raw bits (integers zero-extended, floats as IEEE bits, null as 0).
    Bits(u64),
    /// An address inside a global or of a function.
    Addr(AddrBase, i64),
}

impl Folded {
    /// As an fpir constant.
    pub fn to_const(self) -> Const {
        match self {
            Folded::Bits(b) => Const::Bits(b),
            Folded::Addr(base, off) => Const::Addr(base, off),
        }
    }
}

/// The fpir integer type of width `bits`, in which constant folding computes (masking
/// results with [`fpir::Type::mask`], reading signed operands with
/// [`fpir::Type::sign_extend`]). Integers wider than 64 bits compute in their low 64
/// bits, all that a folded value holds.
pub(crate) fn int_type(bits: u32) -> fpir::Type {
    fpir::Type::Int(bits.min(64) as u8)
}

/// Bit width of an integer or pointer type (0 for anything else).
pub(crate) fn int_width(ty: &Type) -> u32 {
    match ty {
        Type::IntegerType { bits } => *bits,
        Type::PointerType { .. } => 64,
        _ => 0,
    }
}

impl<'m> Symbols<'m> {
    /// What a global name refers to as an address: a defined function, a global
    /// variable, (through an alias) an offset into one, or the stub standing for a
    /// function the module only declares. `None` for unknown names.
    pub fn resolve(&self, name: &Name) -> Result<Option<(AddrBase, i64)>, String> {
        match self.lookup(name) {
            None => Ok(None),
            Some(Symbol::Addr(base)) => Ok(Some((base, 0))),
            Some(Symbol::Alias(aliasee)) => match self.fold(aliasee)? {
                Some(Folded::Addr(base, off)) => Ok(Some((base, off))),
                _ => Err(format!("alias @{} of a non-address", name_text(name))),
            },
        }
    }

    /// Width in bits of the integer (or pointer) type of `c`.
    fn width_of(&self, c: &Constant) -> u32 {
        int_width(&self.llvm.types.type_of(c))
    }

    /// The integer type folding computes in for `c` (see [`int_type`]).
    fn int_type_of(&self, c: &Constant) -> fpir::Type {
        int_type(self.width_of(c))
    }

    /// Folds `c`. `Ok(None)` means it is a valid constant expression whose value is only
    /// known at run time (it involves `ptrtoint` of an address); `Err` names what is
    /// unsupported.
    pub fn fold(&self, c: &Constant) -> Result<Option<Folded>, String> {
        use Folded::Bits;
        Ok(Some(match c {
            Constant::Int { bits, value } if *bits <= 64 => Bits(value & int_type(*bits).mask()),
            Constant::Int { bits, .. } => {
                return Err(format!("{bits}-bit integer constant (wider than 64 bits)"))
            }
            Constant::Float(Float::Single(f)) => Bits(u64::from(f.to_bits())),
            Constant::Float(Float::Double(d)) => Bits(d.to_bits()),
            Constant::Float(Float::X86_FP80) => {
                return Err("x86_fp80 (long double) constant".to_string())
            }
            Constant::Float(other) => return Err(format!("{other:?} floating-point constant")),
            Constant::Null(_)
            | Constant::AggregateZero(_)
            | Constant::Undef(_)
            | Constant::Poison(_) => Bits(0),
            Constant::GlobalReference { name, .. } => match self.resolve(name)? {
                Some((base, off)) => Folded::Addr(base, off),
                None => {
                    return Err(format!(
                        "address of `{}`, which is declared but not defined in the inputs",
                        name_text(name)
                    ))
                }
            },
            Constant::BitCast(b) => return self.fold(&b.operand),
            Constant::AddrSpaceCast(a) => return self.fold(&a.operand),
            Constant::IntToPtr(i) => {
                if let Constant::PtrToInt(p) = i.operand.as_ref() {
                    if self.width_of(&i.operand) == 64 {
                        return self.fold(&p.operand);
                    }
                }
                match self.fold(&i.operand)? {
                    Some(Bits(b)) => Bits(b),
                    other => return Ok(other),
                }
            }
            Constant::PtrToInt(p) => match self.fold(&p.operand)? {
                Some(Bits(b)) => Bits(b & int_type(int_width(&p.to_type)).mask()),
                _ => return Ok(None),
            },
            Constant::GetElementPtr(g) => {
                let base = match self.fold(&g.address)? {
                    Some(f) => f,
                    None => return Ok(None),
                };
                let source = match self.llvm.types.type_of(&*g.address).as_ref() {
                    Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                    other => return Err(format!("getelementptr on {other}")),
                };
                let mut indices = Vec::with_capacity(g.indices.len());
                for idx in &g.indices {
                    match self.fold(idx)? {
                        Some(Bits(b)) => {
                            indices.push(GepIndex::Const(self.int_type_of(idx).sign_extend(b)))
                        }
                        _ => return Err("getelementptr with a non-constant index".to_string()),
                    }
                }
                let (off, _) = gep_offsets(&self.layout, &source, &indices)?;
                match base {
                    Bits(b) => Bits(b.wrapping_add(off as u64)),
                    Folded::Addr(base, o) => Folded::Addr(base, o.wrapping_add(off)),
                }
            }
            Constant::Trunc(t) => match self.fold(&t.operand)? {
                Some(Bits(b)) => Bits(b & int_type(int_width(&t.to_type)).mask()),
                _ => return Ok(None),
            },
            Constant::ZExt(z) => match self.fold(&z.operand)? {
                Some(Bits(b)) => Bits(b),
                _ => return Ok(None),
            },
            Constant::SExt(s) => match self.fold(&s.operand)? {
                Some(Bits(b)) => Bits(
                    self.int_type_of(&s.operand).sign_extend(b) as u64
                        & int_type(int_width(&s.to_type)).mask(),
                ),
                _ => return Ok(None),
            },
            Constant::Add(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::Sub(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::Mul(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::UDiv(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::SDiv(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::URem(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::SRem(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::And(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::Or(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::Xor(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::Shl(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::LShr(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::AShr(x) => return self.fold_bin(c, &x.operand0, &x.operand1),
            Constant::ICmp(i) => {
                let pred = int_pred(i.predicate);
                match (self.fold(&i.operand0)?, self.fold(&i.operand1)?) {
                    (Some(Bits(a)), Some(Bits(b))) => Bits(u64::from(eval::icmp(
                        pred,
                        self.int_type_of(&i.operand0),
                        a,
                        b,
                    ))),
                    // Two addresses inside one object compare as their offsets.
                    (Some(Folded::Addr(x, a)), Some(Folded::Addr(y, b))) if x == y => Bits(
                        u64::from(eval::icmp(pred, fpir::Type::I64, a as u64, b as u64)),
                    ),
                    _ => return Ok(None),
                }
            }
            Constant::Select(s) => match self.fold(&s.condition)? {
                Some(Bits(0)) => return self.fold(&s.false_value),
                Some(Bits(_)) => return self.fold(&s.true_value),
                _ => return Ok(None),
            },
            Constant::FAdd(_)
            | Constant::FSub(_)
            | Constant::FMul(_)
            | Constant::FDiv(_)
            | Constant::FRem(_)
            | Constant::FPTrunc(_)
            | Constant::FPExt(_)
            | Constant::FPToUI(_)
            | Constant::FPToSI(_)
            | Constant::UIToFP(_)
            | Constant::SIToFP(_)
            | Constant::FCmp(_) => return self.fold_float_expr(c),
            Constant::Struct { .. } | Constant::Array { .. } => {
                return Err(format!("aggregate constant `{c}` in a register"))
            }
            Constant::Vector(_)
            | Constant::ExtractElement(_)
            | Constant::InsertElement(_)
            | Constant::ShuffleVector(_) => return Err(format!("vector constant `{c}`")),
            Constant::ExtractValue(_) | Constant::InsertValue(_) => {
                return Err(format!("aggregate constant expression `{c}`"))
            }
            Constant::BlockAddress => return Err("block address (computed goto)".to_string()),
            Constant::TokenNone => return Err("token constant".to_string()),
        }))
    }

    /// Folds a floating-point constant expression (conversions, arithmetic, `fcmp`) as
    /// [`fpir::eval`] computes it at run time.
    fn fold_float_expr(&self, c: &Constant) -> Result<Option<Folded>, String> {
        use Folded::Bits;
        match c {
            Constant::FAdd(x) => self.fold_float_bin(FloatBinOp::Fadd, c, &x.operand0, &x.operand1),
            Constant::FSub(x) => self.fold_float_bin(FloatBinOp::Fsub, c, &x.operand0, &x.operand1),
            Constant::FMul(x) => self.fold_float_bin(FloatBinOp::Fmul, c, &x.operand0, &x.operand1),
            Constant::FDiv(x) => self.fold_float_bin(FloatBinOp::Fdiv, c, &x.operand0, &x.operand1),
            Constant::FRem(x) => self.fold_float_bin(FloatBinOp::Frem, c, &x.operand0, &x.operand1),
            Constant::FPTrunc(x) => self.fold_cast(CastOp::Fptrunc, c, &x.operand, &x.to_type),
            Constant::FPExt(x) => self.fold_cast(CastOp::Fpext, c, &x.operand, &x.to_type),
            Constant::FPToUI(x) => self.fold_cast(CastOp::Fptoui, c, &x.operand, &x.to_type),
            Constant::FPToSI(x) => self.fold_cast(CastOp::Fptosi, c, &x.operand, &x.to_type),
            Constant::UIToFP(x) => self.fold_cast(CastOp::Uitofp, c, &x.operand, &x.to_type),
            Constant::SIToFP(x) => self.fold_cast(CastOp::Sitofp, c, &x.operand, &x.to_type),
            Constant::FCmp(x) => {
                let ty = self.float_type_of(c, &x.operand0)?;
                match (self.fold(&x.operand0)?, self.fold(&x.operand1)?) {
                    (Some(Bits(a)), Some(Bits(b))) => Ok(Some(Bits(u64::from(eval::fcmp(
                        float_pred(x.predicate),
                        ty,
                        a,
                        b,
                    ))))),
                    _ => Ok(None),
                }
            }
            _ => Err(format!("constant expression `{c}`")),
        }
    }

    /// The float format of constant `operand` of the expression `c`.
    fn float_type_of(&self, c: &Constant, operand: &Constant) -> Result<fpir::FloatTy, String> {
        scalar(&self.llvm.types.type_of(operand))
            .and_then(fpir::Type::as_float)
            .ok_or_else(|| format!("floating-point constant expression `{c}`"))
    }

    /// Folds a conversion `c` of `operand` to `to_type` as [`eval::cast`] computes it;
    /// `Ok(None)` when the operand is only known at run time.
    fn fold_cast(
        &self,
        op: CastOp,
        c: &Constant,
        operand: &Constant,
        to_type: &Type,
    ) -> Result<Option<Folded>, String> {
        let types = (scalar(&self.llvm.types.type_of(operand)), scalar(to_type));
        let (Some(from), Some(to)) = types else {
            return Err(format!("constant expression `{c}`"));
        };
        Ok(match self.fold(operand)? {
            Some(Folded::Bits(b)) => Some(Folded::Bits(eval::cast(op, from, to, b))),
            _ => None,
        })
    }

    /// Folds a floating-point binary constant expression as [`eval::float_bin`] computes
    /// it.
    fn fold_float_bin(
        &self,
        op: FloatBinOp,
        c: &Constant,
        lhs: &Constant,
        rhs: &Constant,
    ) -> Result<Option<Folded>, String> {
        let ty = self.float_type_of(c, lhs)?;
        match (self.fold(lhs)?, self.fold(rhs)?) {
            (Some(Folded::Bits(a)), Some(Folded::Bits(b))) => match eval::float_bin(op, ty, a, b) {
                Some(v) => Ok(Some(Folded::Bits(v))),
                None => Err(format!("floating-point constant expression `{c}`")),
            },
            _ => Err(format!(
                "floating-point constant expression on an address `{c}`"
            )),
        }
    }

    /// Folds an integer binary constant expression over two folded integers.
    fn fold_bin(
        &self,
        c: &Constant,
        lhs: &Constant,
        rhs: &Constant,
    ) -> Result<Option<Folded>, String> {
        let (Some(Folded::Bits(a)), Some(Folded::Bits(b))) = (self.fold(lhs)?, self.fold(rhs)?)
        else {
            return Ok(None);
        };
        let ty = self.int_type_of(lhs);
        let w = ty.bits();
        let (sa, sb) = (ty.sign_extend(a), ty.sign_extend(b));
        let shift = u32::try_from(b).unwrap_or(u32::MAX);
        let value = match c {
            Constant::Add(_) => a.wrapping_add(b),
            Constant::Sub(_) => a.wrapping_sub(b),
            Constant::Mul(_) => a.wrapping_mul(b),
            Constant::UDiv(_) if b != 0 => a / b,
            Constant::SDiv(_) if b != 0 => sa.wrapping_div(sb) as u64,
            Constant::URem(_) if b != 0 => a % b,
            Constant::SRem(_) if b != 0 => sa.wrapping_rem(sb) as u64,
            Constant::And(_) => a & b,
            Constant::Or(_) => a | b,
            Constant::Xor(_) => a ^ b,
            Constant::Shl(_) if shift < w => a << shift,
            Constant::LShr(_) if shift < w => a >> shift,
            Constant::AShr(_) if shift < w => (sa >> shift) as u64,
            // Division by zero and over-wide shifts are poison: any value will do.
            _ => 0,
        };
        Ok(Some(Folded::Bits(value & ty.mask())))
    }

    /// Writes the initializer `c` at byte `at` of `bytes`, recording pointers in `relocs`;
    /// the high bits of its integers wider than 64 bits come from `wide` (see
    /// [`crate::beside`]).
    pub fn write_init(
        &self,
        c: &Constant,
        at: u64,
        bytes: &mut [u8],
        relocs: &mut Vec<Reloc>,
        wide: &mut WideInits<'_>,
    ) -> Result<(), String> {
        match c {
            Constant::Null(_)
            | Constant::AggregateZero(_)
            | Constant::Undef(_)
            | Constant::Poison(_) => Ok(()),
            Constant::Struct {
                values, is_packed, ..
            } => {
                let types: Vec<_> = values.iter().map(|v| self.llvm.types.type_of(v)).collect();
                let (offsets, _) = self.layout.struct_layout(&types, *is_packed)?;
                for (v, off) in values.iter().zip(offsets) {
                    self.write_init(v, at + off, bytes, relocs, wide)?;
                }
                Ok(())
            }
            Constant::Array {
                element_type,
                elements,
            } => {
                let stride = self.layout.size_align(element_type)?.size;
                for (i, e) in elements.iter().enumerate() {
                    self.write_init(e, at + stride * i as u64, bytes, relocs, wide)?;
                }
                Ok(())
            }
            Constant::Vector(elements) => {
                let mut off = at;
                for e in elements {
                    self.write_init(e, off, bytes, relocs, wide)?;
                    off += self.layout.size_align(&self.llvm.types.type_of(e))?.size;
                }
                Ok(())
            }
            Constant::Int { bits, value } if *bits > 64 => {
                let found = wide.next(*bits, *value)?;
                let mut left = u64::from(*bits).div_ceil(8);
                for (i, &limb) in found.limbs.iter().enumerate() {
                    write_le(bytes, at + 8 * i as u64, limb, left.min(8))?;
                    left = left.saturating_sub(8);
                }
                Ok(())
            }
            Constant::Int { bits, value } => {
                let len = u64::from(*bits).div_ceil(8);
                write_le(bytes, at, *value, len)
            }
            Constant::Float(Float::Single(f)) => write_le(bytes, at, u64::from(f.to_bits()), 4),
            Constant::Float(Float::Double(d)) => write_le(bytes, at, d.to_bits(), 8),
            Constant::Float(Float::X86_FP80) => {
                let found = wide.next_f80()?;
                write_le(bytes, at, found.limbs[0], 8)?;
                write_le(bytes, at + 8, found.limbs[1], 2)
            }
            _ => match self.fold(c)? {
                Some(Folded::Bits(b)) => {
                    let len = u64::from(self.width_of(c).div_ceil(8)).clamp(1, 8);
                    write_le(bytes, at, b, len)
                }
                Some(Folded::Addr(target, addend)) => self.reloc(bytes, at, target, addend, relocs),
                None => match self.fold_int_addr(c)? {
                    Some((target, addend)) if self.width_of(c) == 64 => {
                        self.reloc(bytes, at, target, addend, relocs)
                    }
                    _ => Err(format!(
                        "initializer `{c}` (needs an address as an integer)"
                    )),
                },
            },
        }
    }

    /// An integer constant expression that is an address plus a constant:
    /// `ptrtoint @g`, and `add`/`sub` of such with folded integers.
    fn fold_int_addr(&self, c: &Constant) -> Result<Option<(AddrBase, i64)>, String> {
        let addr_and_bits = |a: &Constant, b: &Constant| -> Result<Option<_>, String> {
            match (self.fold_int_addr(a)?, self.fold(b)?) {
                (Some(addr), Some(Folded::Bits(k))) => Ok(Some((addr, k as i64))),
                _ => Ok(None),
            }
        };
        Ok(match c {
            Constant::PtrToInt(p) => match self.fold(&p.operand)? {
                Some(Folded::Addr(base, off)) => Some((base, off)),
                _ => None,
            },
            Constant::Add(x) => match addr_and_bits(&x.operand0, &x.operand1)? {
                Some(((base, off), k)) => Some((base, off.wrapping_add(k))),
                None => addr_and_bits(&x.operand1, &x.operand0)?
                    .map(|((base, off), k)| (base, off.wrapping_add(k))),
            },
            Constant::Sub(x) => addr_and_bits(&x.operand0, &x.operand1)?
                .map(|((base, off), k)| (base, off.wrapping_sub(k))),
            _ => None,
        })
    }

    fn reloc(
        &self,
        bytes: &[u8],
        at: u64,
        target: AddrBase,
        addend: i64,
        relocs: &mut Vec<Reloc>,
    ) -> Result<(), String> {
        if at.checked_add(8).is_none_or(|end| end > bytes.len() as u64) {
            return Err("pointer outside its global".to_string());
        }
        relocs.push(Reloc { at, target, addend });
        Ok(())
    }
}

/// Writes the low `len` bytes of `value` little-endian at `at`.
fn write_le(bytes: &mut [u8], at: u64, value: u64, len: u64) -> Result<(), String> {
    let start = usize::try_from(at).map_err(|e| e.to_string())?;
    let len = usize::try_from(len).map_err(|e| e.to_string())?;
    let dst = start
        .checked_add(len)
        .and_then(|end| bytes.get_mut(start..end))
        .ok_or_else(|| "initializer value outside its global".to_string())?;
    dst.copy_from_slice(&value.to_le_bytes()[..len]);
    Ok(())
}

/// The fpir predicate of an LLVM integer predicate.
pub(crate) fn int_pred(p: IntPredicate) -> IntPred {
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

/// The fpir predicate of an LLVM floating-point predicate.
pub(crate) fn float_pred(p: FPPredicate) -> FloatPred {
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
