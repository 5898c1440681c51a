//! Integers wider than 64 bits, legalized as LLVM's type legalizer expands them: an
//! `iN` value (N > 64) is `ceil(N/64)` registers, its limbs, least significant first;
//! every limb is an `i64` but the top one, an `i(N - 64·(limbs-1))`, so the bits above
//! N are zero by fpir's typing. Operations become limb operations: add and subtract
//! with carries, schoolbook multiplication over 32-bit halves, shifts by constant and
//! by variable amounts (a `select` over the limb offset), comparisons limb by limb from
//! the top, division as an unrolled restoring loop, conversions to and from floats
//! through the leading-zero count, and loads and stores of the exact store size (an
//! `i72` is an `i64` and an `i8`: 9 bytes). Phis and function parameters are one block
//! parameter per limb; a wide result returns through a hidden slot as aggregates do.
//!
//! So the interpreter, the compiled tier, the concolic semantics and the solver see
//! only the integers of at most 64 bits they already compute exactly, and wide integers
//! are correct by construction. Operations work on "full" limbs (all `i64`, the top
//! one zero- or sign-extended, see [`FnLower::full_limbs`]) and cut the top limb back
//! to its width at the end ([`FnLower::cut_full`]), since an N-bit result only depends
//! on the low N bits of its operands.

use super::FnLower;
use crate::error::LowerError;
use fpir::{Builtin, Callee, CastOp, Const, FloatTy, InstKind, IntBinOp, IntPred, Reg, Type};
use llvm_ir::{Constant, Name, Operand};

/// The width of `ty` if it is an integer wider than 64 bits, or 80 for `long double`
/// (`x86_fp80`), whose two registers are the limbs of an `i80` (see [`super::f80`]).
pub(crate) fn wide_width(ty: &llvm_ir::Type) -> Option<u32> {
    match ty {
        llvm_ir::Type::IntegerType { bits } if *bits > 64 => Some(*bits),
        llvm_ir::Type::FPType(llvm_ir::types::FPType::X86_FP80) => Some(80),
        _ => None,
    }
}

/// The types of the limbs of an integer of `bits` bits (more than 64).
pub(crate) fn limb_types(bits: u32) -> Vec<Type> {
    let count = bits.div_ceil(64) as usize;
    let top = bits - 64 * (count as u32 - 1);
    let mut types = vec![Type::I64; count];
    types[count - 1] = Type::Int(top as u8);
    types
}

/// How the bits above the top limb's width are filled when it is made an `i64`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Extend {
    Zero,
    Sign,
}

/// The direction of a shift.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Shift {
    Left,
    Right(Extend),
}

impl<'c, 'm> FnLower<'c, 'm> {
    // ---- values ----

    /// The limbs of the local value `name` of width `bits`, allocated on first mention.
    pub(super) fn wide_value(&mut self, name: &'m Name, bits: u32) -> Vec<Reg> {
        if let Some(limbs) = self.wide.get(name) {
            return limbs.clone();
        }
        let limbs: Vec<Reg> = limb_types(bits)
            .into_iter()
            .map(|t| self.new_reg(t))
            .collect();
        self.wide.insert(name, limbs.clone());
        limbs
    }

    /// The limbs of a wide operand.
    pub(super) fn wide_operand(&mut self, op: &'m Operand) -> Result<Vec<Reg>, LowerError> {
        let ty = self.type_of(op);
        let Some(bits) = wide_width(&ty) else {
            return Err(self.malformed(format!("{ty} operand where a wide integer is expected")));
        };
        match op {
            Operand::LocalOperand { name, .. } => match self.aliases.get(name) {
                Some(&orig) => self.wide_operand(orig),
                None => Ok(self.wide_value(name, bits)),
            },
            Operand::ConstantOperand(c) if matches!(c.as_ref(), Constant::Float(_)) => {
                self.f80_constant(op)
            }
            Operand::ConstantOperand(c) => self.wide_constant(c, bits),
            Operand::MetadataOperand => Err(self.unsupported("metadata operand")),
        }
    }

    /// Constant limbs of a wide constant: its high bits come from [`crate::beside`].
    fn wide_constant(&mut self, c: &Constant, bits: u32) -> Result<Vec<Reg>, LowerError> {
        let types = limb_types(bits);
        let values = match c {
            Constant::Int { value, .. } => {
                let at = (self.f.name.clone(), self.position.0, self.position.1);
                let found = self.ctx.beside.wide_int(&at, bits, *value);
                match found {
                    Ok(Some(wide)) => wide.limbs.clone(),
                    Ok(None) => {
                        return Err(self.malformed(format!(
                            "{bits}-bit constant {value:#x} whose high bits were not read"
                        )))
                    }
                    Err(e) => return Err(self.unsupported(e)),
                }
            }
            Constant::Undef(_) | Constant::Poison(_) | Constant::Null(_) => vec![0; types.len()],
            other => {
                return Err(self.unsupported(format!("{bits}-bit constant expression `{other}`")))
            }
        };
        Ok(types
            .into_iter()
            .zip(values)
            .map(|(t, v)| self.const_reg(t, Const::Bits(v & t.mask())))
            .collect())
    }

    /// Makes `limbs` the limbs of `dest`.
    pub(super) fn define_wide(&mut self, dest: &'m Name, bits: u32, limbs: Vec<Reg>) {
        if self.wide.contains_key(dest) {
            let regs = self.wide_value(dest, bits);
            for ((&r, v), t) in regs.iter().zip(limbs).zip(limb_types(bits)) {
                let copy = self.copy_of(t, v);
                self.push(Some(r), copy);
            }
        } else {
            self.wide.insert(dest, limbs);
        }
    }

    /// Makes `r` (of type `ty`) the register of the scalar value `dest`.
    pub(super) fn bind(&mut self, dest: &'m Name, ty: Type, r: Reg) {
        match self.values.get(dest) {
            Some(&existing) => {
                let copy = self.copy_of(ty, r);
                self.push(Some(existing), copy);
            }
            None => {
                self.values.insert(dest, r);
            }
        }
    }

    /// An instruction copying `v` (of type `ty`) into another register: a value a
    /// block mentioned before its definition (a phi's incoming value on a back edge)
    /// already has its register.
    fn copy_of(&mut self, ty: Type, v: Reg) -> InstKind {
        let yes = self.const_reg(Type::BOOL, Const::Bits(1));
        InstKind::Select {
            ty,
            cond: yes,
            if_true: v,
            if_false: v,
        }
    }

    // ---- single instructions ----

    fn k64(&mut self, v: u64) -> Reg {
        self.const_reg(Type::I64, Const::Bits(v))
    }

    fn bin(&mut self, op: IntBinOp, ty: Type, lhs: Reg, rhs: Reg) -> Reg {
        self.emit(ty, InstKind::IntBin { op, ty, lhs, rhs })
    }

    fn bin64(&mut self, op: IntBinOp, lhs: Reg, rhs: Reg) -> Reg {
        self.bin(op, Type::I64, lhs, rhs)
    }

    fn cmp(&mut self, pred: IntPred, ty: Type, lhs: Reg, rhs: Reg) -> Reg {
        self.emit(Type::BOOL, InstKind::Icmp { pred, ty, lhs, rhs })
    }

    fn choose(&mut self, ty: Type, cond: Reg, if_true: Reg, if_false: Reg) -> Reg {
        self.emit(
            ty,
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            },
        )
    }

    pub(super) fn convert(&mut self, op: CastOp, from: Type, to: Type, arg: Reg) -> Reg {
        if from == to && matches!(op, CastOp::Zext | CastOp::Sext | CastOp::Trunc) {
            return arg;
        }
        self.emit(to, InstKind::Cast { op, from, to, arg })
    }

    /// `v` (a bool) as an `i64` 0 or 1.
    fn bool64(&mut self, v: Reg) -> Reg {
        self.convert(CastOp::Zext, Type::BOOL, Type::I64, v)
    }

    // ---- full limbs ----

    /// The limbs as `i64`s, the top one extended as `extend` says.
    pub(super) fn full_limbs(&mut self, limbs: &[Reg], bits: u32, extend: Extend) -> Vec<Reg> {
        let types = limb_types(bits);
        let op = match extend {
            Extend::Zero => CastOp::Zext,
            Extend::Sign => CastOp::Sext,
        };
        limbs
            .iter()
            .zip(types)
            .map(|(&r, t)| self.convert(op, t, Type::I64, r))
            .collect()
    }

    /// Full limbs cut back to the limbs of a `bits`-bit value.
    pub(super) fn cut_full(&mut self, full: &[Reg], bits: u32) -> Vec<Reg> {
        let types = limb_types(bits);
        full.iter()
            .zip(types)
            .map(|(&r, t)| self.convert(CastOp::Trunc, Type::I64, t, r))
            .collect()
    }

    /// The full limbs of operand `op`.
    pub(super) fn full_operand(
        &mut self,
        op: &'m Operand,
        extend: Extend,
    ) -> Result<Vec<Reg>, LowerError> {
        let limbs = self.wide_operand(op)?;
        let bits = self.wide_bits(op)?;
        Ok(self.full_limbs(&limbs, bits, extend))
    }

    /// The width of a wide operand.
    pub(super) fn wide_bits(&mut self, op: &Operand) -> Result<u32, LowerError> {
        let ty = self.type_of(op);
        wide_width(&ty).ok_or_else(|| self.malformed(format!("{ty} is not a wide integer")))
    }

    // ---- arithmetic on full limbs ----

    /// `a + b` over full limbs, carries propagated.
    pub(super) fn add_full(&mut self, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        self.carry_chain(IntBinOp::Add, a, b)
    }

    /// `a - b` over full limbs, borrows propagated.
    pub(super) fn sub_full(&mut self, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        self.carry_chain(IntBinOp::Sub, a, b)
    }

    /// `a op b` for `op` add or subtract, limb by limb from the lowest, each limb taking
    /// the carry (or borrow) out of the one below.
    fn carry_chain(&mut self, op: IntBinOp, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        let mut out = Vec::with_capacity(a.len());
        let mut carry: Option<Reg> = None;
        for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
            let partial = self.bin64(op, x, y);
            let last = i + 1 == a.len();
            // The carry out of `x op y`: the sum wrapped below `x`, or `y` exceeded `x`.
            let first_out = |this: &mut Self| match op {
                IntBinOp::Add => this.cmp(IntPred::Ult, Type::I64, partial, x),
                _ => this.cmp(IntPred::Ult, Type::I64, x, y),
            };
            let (limb, next) = match carry {
                None if last => (partial, None),
                None => (partial, Some(first_out(self))),
                Some(c) => {
                    let c64 = self.bool64(c);
                    let total = self.bin64(op, partial, c64);
                    if last {
                        (total, None)
                    } else {
                        let first = first_out(self);
                        let second = match op {
                            IntBinOp::Add => self.cmp(IntPred::Ult, Type::I64, total, partial),
                            _ => self.cmp(IntPred::Ult, Type::I64, partial, c64),
                        };
                        (
                            total,
                            Some(self.bin(IntBinOp::Or, Type::BOOL, first, second)),
                        )
                    }
                }
            };
            out.push(limb);
            carry = next;
        }
        out
    }

    /// `-a` over full limbs.
    fn neg_full(&mut self, a: &[Reg]) -> Vec<Reg> {
        let zero = vec![self.k64(0); a.len()];
        self.sub_full(&zero, a)
    }

    /// The 128-bit product of two `i64`s as (low, high), from 32-bit halves.
    fn mul_wide(&mut self, a: Reg, b: Reg) -> (Reg, Reg) {
        let (mask, half) = (self.k64(0xffff_ffff), self.k64(32));
        let a0 = self.bin64(IntBinOp::And, a, mask);
        let a1 = self.bin64(IntBinOp::Lshr, a, half);
        let b0 = self.bin64(IntBinOp::And, b, mask);
        let b1 = self.bin64(IntBinOp::Lshr, b, half);
        let p00 = self.bin64(IntBinOp::Mul, a0, b0);
        let p01 = self.bin64(IntBinOp::Mul, a0, b1);
        let p10 = self.bin64(IntBinOp::Mul, a1, b0);
        let p11 = self.bin64(IntBinOp::Mul, a1, b1);
        // The middle column: at most 3·(2^32 - 1), no overflow.
        let p00_hi = self.bin64(IntBinOp::Lshr, p00, half);
        let p01_lo = self.bin64(IntBinOp::And, p01, mask);
        let p10_lo = self.bin64(IntBinOp::And, p10, mask);
        let mid = self.bin64(IntBinOp::Add, p00_hi, p01_lo);
        let mid = self.bin64(IntBinOp::Add, mid, p10_lo);
        let p01_hi = self.bin64(IntBinOp::Lshr, p01, half);
        let p10_hi = self.bin64(IntBinOp::Lshr, p10, half);
        let mid_hi = self.bin64(IntBinOp::Lshr, mid, half);
        let high = self.bin64(IntBinOp::Add, p11, p01_hi);
        let high = self.bin64(IntBinOp::Add, high, p10_hi);
        let high = self.bin64(IntBinOp::Add, high, mid_hi);
        let low = self.bin64(IntBinOp::Mul, a, b);
        (low, high)
    }

    /// Adds `v` into `acc` at limb `at`, carrying up to the top limb.
    fn add_into(&mut self, acc: &mut [Reg], at: usize, v: Reg) {
        let mut carry = v;
        for limb in acc.iter_mut().skip(at) {
            let sum = self.bin64(IntBinOp::Add, *limb, carry);
            let overflow = self.cmp(IntPred::Ult, Type::I64, sum, carry);
            *limb = sum;
            carry = self.bool64(overflow);
        }
    }

    /// `a * b` over full limbs (the low limbs of the product), schoolbook.
    pub(super) fn mul_full(&mut self, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        let n = a.len();
        let mut acc = vec![self.k64(0); n];
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().take(n - i).enumerate() {
                if i + j + 1 < n {
                    let (low, high) = self.mul_wide(x, y);
                    self.add_into(&mut acc, i + j, low);
                    self.add_into(&mut acc, i + j + 1, high);
                } else {
                    let low = self.bin64(IntBinOp::Mul, x, y);
                    self.add_into(&mut acc, i + j, low);
                }
            }
        }
        acc
    }

    /// Limb `j` of `a` read as an infinitely extended value: `fill` above the top.
    fn limb_or(a: &[Reg], j: usize, fill: Reg) -> Reg {
        a.get(j).copied().unwrap_or(fill)
    }

    /// The fill of a right shift: zero, or the sign of the top limb.
    fn shift_fill(&mut self, a: &[Reg], shift: Shift) -> Reg {
        match shift {
            Shift::Right(Extend::Sign) => {
                let sixty_three = self.k64(63);
                let top = a[a.len() - 1];
                self.bin64(IntBinOp::Ashr, top, sixty_three)
            }
            _ => self.k64(0),
        }
    }

    /// `a` shifted by the constant `amount` (< 64·limbs) over full limbs.
    pub(super) fn shift_const(&mut self, a: &[Reg], shift: Shift, amount: u64) -> Vec<Reg> {
        let n = a.len();
        let (q, r) = ((amount / 64) as usize, amount % 64);
        let zero = self.k64(0);
        let fill = self.shift_fill(a, shift);
        let (rk, back) = (self.k64(r), self.k64(64 - r));
        (0..n)
            .map(|i| match shift {
                Shift::Left => {
                    let near = if i >= q { a[i - q] } else { zero };
                    let far = if i > q { a[i - q - 1] } else { zero };
                    if r == 0 {
                        near
                    } else {
                        let near = self.bin64(IntBinOp::Shl, near, rk);
                        let far = self.bin64(IntBinOp::Lshr, far, back);
                        self.bin64(IntBinOp::Or, near, far)
                    }
                }
                Shift::Right(_) => {
                    let near = Self::limb_or(a, i + q, fill);
                    let far = Self::limb_or(a, i + q + 1, fill);
                    if r == 0 {
                        near
                    } else {
                        let near = self.bin64(IntBinOp::Lshr, near, rk);
                        let far = self.bin64(IntBinOp::Shl, far, back);
                        self.bin64(IntBinOp::Or, near, far)
                    }
                }
            })
            .collect()
    }

    /// `a` shifted by the variable `amount` (an `i64`; amounts of 64·limbs or more are
    /// poison): for each limb offset the shifted value, chosen by a `select` chain.
    pub(super) fn shift_var(&mut self, a: &[Reg], shift: Shift, amount: Reg) -> Vec<Reg> {
        let n = a.len();
        let (six, sixty_three, one) = (self.k64(6), self.k64(63), self.k64(1));
        let r = self.bin64(IntBinOp::And, amount, sixty_three);
        let q = self.bin64(IntBinOp::Lshr, amount, six);
        // `x >> (64 - r)` as `(x >> 1) >> (63 - r)`, which is 0 for r = 0.
        let back = self.bin64(IntBinOp::Sub, sixty_three, r);
        let zero = self.k64(0);
        let fill = self.shift_fill(a, shift);
        let mut by_offset: Vec<Vec<Reg>> = Vec::with_capacity(n);
        for offset in 0..n {
            let limbs = (0..n)
                .map(|i| match shift {
                    Shift::Left => {
                        let near = if i >= offset { a[i - offset] } else { zero };
                        let far = if i > offset { a[i - offset - 1] } else { zero };
                        let near = self.bin64(IntBinOp::Shl, near, r);
                        let far = self.bin64(IntBinOp::Lshr, far, one);
                        let far = self.bin64(IntBinOp::Lshr, far, back);
                        self.bin64(IntBinOp::Or, near, far)
                    }
                    Shift::Right(_) => {
                        let near = Self::limb_or(a, i + offset, fill);
                        let far = Self::limb_or(a, i + offset + 1, fill);
                        let near = self.bin64(IntBinOp::Lshr, near, r);
                        let far = self.bin64(IntBinOp::Shl, far, one);
                        let far = self.bin64(IntBinOp::Shl, far, back);
                        self.bin64(IntBinOp::Or, near, far)
                    }
                })
                .collect();
            by_offset.push(limbs);
        }
        let mut out = by_offset.pop().unwrap_or_default();
        for (offset, limbs) in by_offset.into_iter().enumerate().rev() {
            let k = self.k64(offset as u64);
            let here = self.cmp(IntPred::Eq, Type::I64, q, k);
            out = limbs
                .into_iter()
                .zip(out)
                .map(|(t, f)| self.choose(Type::I64, here, t, f))
                .collect();
        }
        out
    }

    /// `a PRED b` over full limbs (extended by sign for signed predicates).
    pub(super) fn compare_full(&mut self, pred: IntPred, a: &[Reg], b: &[Reg]) -> Reg {
        use IntPred::*;
        if matches!(pred, Eq | Ne) {
            let zero = self.k64(0);
            let mut diff = zero;
            for (&x, &y) in a.iter().zip(b) {
                let d = self.bin64(IntBinOp::Xor, x, y);
                diff = self.bin64(IntBinOp::Or, diff, d);
            }
            return self.cmp(pred, Type::I64, diff, zero);
        }
        let (low, strict, top) = match pred {
            Ult => (Ult, Ult, Ult),
            Ule => (Ule, Ult, Ult),
            Ugt => (Ugt, Ugt, Ugt),
            Uge => (Uge, Ugt, Ugt),
            Slt => (Ult, Ult, Slt),
            Sle => (Ule, Ult, Slt),
            Sgt => (Ugt, Ugt, Sgt),
            Sge => (Uge, Ugt, Sgt),
            Eq | Ne => unreachable!("handled above"),
        };
        let mut result = self.cmp(low, Type::I64, a[0], b[0]);
        for i in 1..a.len() {
            let p = if i + 1 == a.len() { top } else { strict };
            let differ = self.cmp(Ne, Type::I64, a[i], b[i]);
            let here = self.cmp(p, Type::I64, a[i], b[i]);
            result = self.choose(Type::BOOL, differ, here, result);
        }
        result
    }

    /// Unsigned `(a / d, a % d)` of `bits`-bit values over full limbs: a restoring
    /// division unrolled over the bits (no loop: a loop would need branch sites).
    pub(super) fn divide_full(&mut self, a: &[Reg], d: &[Reg], bits: u32) -> (Vec<Reg>, Vec<Reg>) {
        let n = a.len();
        let (one, sixty_three) = (self.k64(1), self.k64(63));
        let top_bit = self.k64(u64::from((bits - 1) % 64));
        let zero = self.k64(0);
        let mut rem = vec![zero; n];
        let mut quot = a.to_vec();
        for _ in 0..bits {
            // The bit shifted out of `rem` (it may exceed N bits only when N = 64·n).
            let out = self.bin64(IntBinOp::Lshr, rem[n - 1], sixty_three);
            let carried = self.cmp(IntPred::Ne, Type::I64, out, zero);
            let next = self.bin64(IntBinOp::Lshr, quot[n - 1], top_bit);
            let next = self.bin64(IntBinOp::And, next, one);
            rem = self.shift_const(&rem, Shift::Left, 1);
            rem[0] = self.bin64(IntBinOp::Or, rem[0], next);
            quot = self.shift_const(&quot, Shift::Left, 1);
            let above = self.compare_full(IntPred::Uge, &rem, d);
            let fits = self.bin(IntBinOp::Or, Type::BOOL, above, carried);
            let less = self.sub_full(&rem, d);
            rem = less
                .into_iter()
                .zip(rem)
                .map(|(t, f)| self.choose(Type::I64, fits, t, f))
                .collect();
            let bit = self.bool64(fits);
            quot[0] = self.bin64(IntBinOp::Or, quot[0], bit);
        }
        (quot, rem)
    }

    /// Signed `(a / d, a % d)` over full limbs extended by sign: the unsigned division of
    /// the magnitudes, the quotient negated when the signs differ, the remainder taking
    /// the dividend's sign (C's truncating division).
    pub(super) fn signed_divide_full(
        &mut self,
        a: &[Reg],
        d: &[Reg],
        bits: u32,
    ) -> (Vec<Reg>, Vec<Reg>) {
        let zero = self.k64(0);
        let a_neg = self.cmp(IntPred::Slt, Type::I64, a[a.len() - 1], zero);
        let d_neg = self.cmp(IntPred::Slt, Type::I64, d[d.len() - 1], zero);
        let a_mag = self.negate_if(a_neg, a);
        let d_mag = self.negate_if(d_neg, d);
        let (q, r) = self.divide_full(&a_mag, &d_mag, bits);
        let q_neg = self.bin(IntBinOp::Xor, Type::BOOL, a_neg, d_neg);
        (self.negate_if(q_neg, &q), self.negate_if(a_neg, &r))
    }

    /// `cond ? -a : a` over full limbs.
    fn negate_if(&mut self, cond: Reg, a: &[Reg]) -> Vec<Reg> {
        let neg = self.neg_full(a);
        neg.into_iter()
            .zip(a)
            .map(|(t, &f)| self.choose(Type::I64, cond, t, f))
            .collect()
    }

    // ---- conversions with floats ----

    /// The number of leading zeros of the full-limb value `a` (64·limbs for zero).
    fn leading_zeros(&mut self, a: &[Reg]) -> Reg {
        let n = a.len();
        let zero = self.k64(0);
        let mut count = self.ctlz(a[n - 1]);
        let mut all_zero = self.cmp(IntPred::Eq, Type::I64, a[n - 1], zero);
        for j in (0..n - 1).rev() {
            let below = self.ctlz(a[j]);
            let skipped = self.k64(64 * (n - 1 - j) as u64);
            let below = self.bin64(IntBinOp::Add, below, skipped);
            count = self.choose(Type::I64, all_zero, below, count);
            let zero_here = self.cmp(IntPred::Eq, Type::I64, a[j], zero);
            all_zero = self.bin(IntBinOp::And, Type::BOOL, all_zero, zero_here);
        }
        count
    }

    fn ctlz(&mut self, v: Reg) -> Reg {
        let r = self.new_reg(Type::I64);
        self.push(
            Some(r),
            InstKind::Call {
                callee: Callee::Builtin(Builtin::Ctlz),
                args: vec![v],
            },
        );
        r
    }

    /// The unsigned full-limb value `a` rounded to `to` as the hardware rounds (to
    /// nearest, ties to even): normalized so its top bit is set, its top 64 bits
    /// converted with a sticky bit for everything below, then scaled by adding to the
    /// exponent field of the `f64` (exact: the scale is a power of two and no `f64` of
    /// at most 64·4 bits overflows), and narrowed to `f32` when asked (exact or
    /// overflowing, as the correctly rounded result does).
    pub(super) fn unsigned_to_float(&mut self, a: &[Reg], to: FloatTy) -> Reg {
        let n = a.len();
        let zero = self.k64(0);
        let lz = self.leading_zeros(a);
        let normal = self.shift_var(a, Shift::Left, lz);
        let mut sticky = zero;
        for &limb in &normal[..n - 1] {
            sticky = self.bin64(IntBinOp::Or, sticky, limb);
        }
        let sticky = self.cmp(IntPred::Ne, Type::I64, sticky, zero);
        let sticky = self.bool64(sticky);
        let top = self.bin64(IntBinOp::Or, normal[n - 1], sticky);
        let rounded = self.convert(CastOp::Uitofp, Type::I64, Type::Float(to), top);
        let wide = match to {
            FloatTy::F32 => self.convert(CastOp::Fpext, Type::F32, Type::F64, rounded),
            FloatTy::F64 => rounded,
        };
        let bits = self.convert(CastOp::Bitcast, Type::F64, Type::I64, wide);
        let span = self.k64(64 * (n as u64 - 1));
        let exponent = self.bin64(IntBinOp::Sub, span, lz);
        let fifty_two = self.k64(52);
        let scale = self.bin64(IntBinOp::Shl, exponent, fifty_two);
        let scaled = self.bin64(IntBinOp::Add, bits, scale);
        let is_zero = self.compare_full(IntPred::Eq, a, &vec![zero; n]);
        let bits = self.choose(Type::I64, is_zero, zero, scaled);
        let value = self.convert(CastOp::Bitcast, Type::I64, Type::F64, bits);
        match to {
            FloatTy::F32 => self.convert(CastOp::Fptrunc, Type::F64, Type::F32, value),
            FloatTy::F64 => value,
        }
    }

    /// The signed full-limb value `a` rounded to `to`: the magnitude's, with the sign.
    pub(super) fn signed_to_float(&mut self, a: &[Reg], to: FloatTy) -> Reg {
        let zero = self.k64(0);
        let negative = self.cmp(IntPred::Slt, Type::I64, a[a.len() - 1], zero);
        let magnitude = self.negate_if(negative, a);
        let value = self.unsigned_to_float(&magnitude, to);
        let ty = Type::Float(to);
        let negated = self.emit(ty, InstKind::Fneg { ty: to, arg: value });
        self.choose(ty, negative, negated, value)
    }

    /// The float `v` truncated toward zero to `limbs` full limbs (`signed`: negative
    /// values negate the magnitude's limbs). Values out of range are poison in LLVM;
    /// these give some value.
    pub(super) fn float_to_full(
        &mut self,
        v: Reg,
        from: FloatTy,
        limbs: usize,
        signed: bool,
    ) -> Vec<Reg> {
        let d = match from {
            FloatTy::F32 => self.convert(CastOp::Fpext, Type::F32, Type::F64, v),
            FloatTy::F64 => v,
        };
        let bits = self.convert(CastOp::Bitcast, Type::F64, Type::I64, d);
        let zero = self.k64(0);
        let (fifty_two, exp_mask) = (self.k64(52), self.k64(0x7ff));
        let exp = self.bin64(IntBinOp::Lshr, bits, fifty_two);
        let exp = self.bin64(IntBinOp::And, exp, exp_mask);
        // Below 2^63 one conversion is exact; above, the significand shifted left.
        let limit = self.k64(1023 + 63);
        let small = self.cmp(IntPred::Ult, Type::I64, exp, limit);
        let abs_mask = self.k64(u64::MAX >> 1);
        let abs_bits = self.bin64(IntBinOp::And, bits, abs_mask);
        let abs = self.convert(CastOp::Bitcast, Type::I64, Type::F64, abs_bits);
        let low = self.convert(CastOp::Fptoui, Type::F64, Type::I64, abs);
        let frac_mask = self.k64((1 << 52) - 1);
        let implicit = self.k64(1 << 52);
        let frac = self.bin64(IntBinOp::And, bits, frac_mask);
        let significand = self.bin64(IntBinOp::Or, frac, implicit);
        let bias = self.k64(1075);
        let amount = self.bin64(IntBinOp::Sub, exp, bias);
        let mut spread = vec![zero; limbs];
        spread[0] = significand;
        let big = self.shift_var(&spread, Shift::Left, amount);
        let mut magnitude = vec![zero; limbs];
        magnitude[0] = low;
        let magnitude: Vec<Reg> = magnitude
            .into_iter()
            .zip(big)
            .map(|(s, b)| self.choose(Type::I64, small, s, b))
            .collect();
        if !signed {
            return magnitude;
        }
        let negative = self.cmp(IntPred::Slt, Type::I64, bits, zero);
        self.negate_if(negative, &magnitude)
    }

    // ---- memory ----

    /// Loads a `bits`-bit value from `addr`: its store size, limb by limb.
    pub(super) fn load_wide(&mut self, addr: Reg, bits: u32) -> Vec<Reg> {
        limb_types(bits)
            .into_iter()
            .enumerate()
            .map(|(i, ty)| {
                let at = self.offset_addr(addr, 8 * i as u64);
                self.emit(ty, InstKind::Load { ty, addr: at })
            })
            .collect()
    }

    /// Stores the limbs of a `bits`-bit value at `addr`: its store size, no more.
    pub(super) fn store_wide(&mut self, addr: Reg, limbs: &[Reg], bits: u32) {
        for (i, (ty, &value)) in limb_types(bits).into_iter().zip(limbs).enumerate() {
            let at = self.offset_addr(addr, 8 * i as u64);
            self.push(
                None,
                InstKind::Store {
                    ty,
                    addr: at,
                    value,
                },
            );
        }
    }
}
