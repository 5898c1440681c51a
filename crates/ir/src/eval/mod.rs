//! What each IR operation computes on raw bits: the one definition that the concrete
//! interpreter executes and that analyses fold constants with, so the two can never
//! disagree about a value.
//!
//! A value is its raw bits in a `u64`: integers zero-extended and masked to their width,
//! `f32` in the low 32 bits, `f64` and pointers in all 64. Float arithmetic is Rust's
//! `f32`/`f64` (round to nearest even, as SSE computes it). Where LLVM leaves a result
//! undefined, the value is what x86-64 code compiled by clang-14 at `-O0` computes:
//!
//! - shift counts are masked (mod 32 for types up to 32 bits, mod 64 above), as
//!   `shl`/`sar` do; narrow types shift inside a 32-bit register, so `i8 << 9` is 0;
//! - `fptosi` to `i32` and narrower goes through `cvttsd2si` 32-bit (out of range and NaN
//!   give `0x80000000`, then truncation); to `i64` through the 64-bit form (`0x8000...`);
//! - `fptoui` to `i64` is clang's branch-free sequence
//!   `a = cvtt(x); b = cvtt(x - 2^63); a | (b & (a >> 63))` (NaN and `>= 2^64` give
//!   `0x8000...`, `-1.0` gives all ones); to `i32` the 64-bit conversion truncated; to
//!   narrower types the 32-bit signed conversion truncated;
//! - `sdiv`/`srem` fault on zero divisors and on `MIN / -1` (x86 `idiv` faults), and
//!   `udiv`/`urem` on zero divisors: [`IntFault`].
//!
//! `frem` is C's `fmod`, which the interpreter takes from the host C library; it is not
//! defined here.
//!
//! The functions here round to nearest and raise nothing; [`rounded`] has the rounding
//! operations under any [`RoundingMode`], with the exceptions each raises.

pub mod rounded;

pub use rounded::{Exceptions, Rounded, RoundingMode};

use crate::inst::{CastOp, FloatBinOp, FloatPred, IntBinOp, IntPred};
use crate::module::CmpPred;
use crate::types::{FloatTy, Type};

/// Why an integer division has no result: the x86 instruction faults.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntFault {
    /// The divisor is zero.
    DivByZero,
    /// `MIN / -1` (the quotient does not fit).
    DivOverflow,
}

/// Width in bits of a value of type `ty`, clamped to 1..=64.
#[inline]
fn width(ty: Type) -> u32 {
    ty.bits().clamp(1, 64)
}

#[inline]
fn shift_count(ty: Type, b: u64) -> u32 {
    (if width(ty) <= 32 { b & 31 } else { b & 63 }) as u32
}

/// `add`.
#[inline]
pub fn iadd(ty: Type, a: u64, b: u64) -> u64 {
    a.wrapping_add(b) & ty.mask()
}

/// `sub`.
#[inline]
pub fn isub(ty: Type, a: u64, b: u64) -> u64 {
    a.wrapping_sub(b) & ty.mask()
}

/// `mul`.
#[inline]
pub fn imul(ty: Type, a: u64, b: u64) -> u64 {
    a.wrapping_mul(b) & ty.mask()
}

/// `udiv`.
#[inline]
pub fn udiv(a: u64, b: u64) -> Result<u64, IntFault> {
    a.checked_div(b).ok_or(IntFault::DivByZero)
}

/// `urem`.
#[inline]
pub fn urem(a: u64, b: u64) -> Result<u64, IntFault> {
    a.checked_rem(b).ok_or(IntFault::DivByZero)
}

/// The signed operands of `sdiv`/`srem`, or the fault the division raises.
#[inline]
fn signed_operands(ty: Type, a: u64, b: u64) -> Result<(i64, i64), IntFault> {
    if b == 0 {
        return Err(IntFault::DivByZero);
    }
    let (x, y) = (ty.sign_extend(a), ty.sign_extend(b));
    let min = i64::MIN >> (64 - width(ty));
    if x == min && y == -1 {
        return Err(IntFault::DivOverflow);
    }
    Ok((x, y))
}

/// `sdiv`.
#[inline]
pub fn sdiv(ty: Type, a: u64, b: u64) -> Result<u64, IntFault> {
    let (x, y) = signed_operands(ty, a, b)?;
    Ok((x / y) as u64 & ty.mask())
}

/// `srem`.
#[inline]
pub fn srem(ty: Type, a: u64, b: u64) -> Result<u64, IntFault> {
    let (x, y) = signed_operands(ty, a, b)?;
    Ok((x % y) as u64 & ty.mask())
}

/// `shl` (count masked as x86 does).
#[inline]
pub fn shl(ty: Type, a: u64, b: u64) -> u64 {
    (a << shift_count(ty, b)) & ty.mask()
}

/// `lshr` (count masked as x86 does).
#[inline]
pub fn lshr(ty: Type, a: u64, b: u64) -> u64 {
    a >> shift_count(ty, b)
}

/// `ashr` (count masked as x86 does).
#[inline]
pub fn ashr(ty: Type, a: u64, b: u64) -> u64 {
    (ty.sign_extend(a) >> shift_count(ty, b)) as u64 & ty.mask()
}

/// Any integer binary operation.
#[inline]
pub fn int_bin(op: IntBinOp, ty: Type, a: u64, b: u64) -> Result<u64, IntFault> {
    Ok(match op {
        IntBinOp::Add => iadd(ty, a, b),
        IntBinOp::Sub => isub(ty, a, b),
        IntBinOp::Mul => imul(ty, a, b),
        IntBinOp::Udiv => udiv(a, b)?,
        IntBinOp::Sdiv => sdiv(ty, a, b)?,
        IntBinOp::Urem => urem(a, b)?,
        IntBinOp::Srem => srem(ty, a, b)?,
        IntBinOp::Shl => shl(ty, a, b),
        IntBinOp::Lshr => lshr(ty, a, b),
        IntBinOp::Ashr => ashr(ty, a, b),
        IntBinOp::And => a & b,
        IntBinOp::Or => a | b,
        IntBinOp::Xor => a ^ b,
    })
}

/// `icmp` on zero-extended bits of type `ty`: one comparison per predicate (the signed
/// ones on the sign-extended bits).
#[inline]
pub fn icmp(pred: IntPred, ty: Type, a: u64, b: u64) -> bool {
    match pred {
        IntPred::Eq => a == b,
        IntPred::Ne => a != b,
        IntPred::Ult => a < b,
        IntPred::Ule => a <= b,
        IntPred::Ugt => a > b,
        IntPred::Uge => a >= b,
        IntPred::Slt => ty.sign_extend(a) < ty.sign_extend(b),
        IntPred::Sle => ty.sign_extend(a) <= ty.sign_extend(b),
        IntPred::Sgt => ty.sign_extend(a) > ty.sign_extend(b),
        IntPred::Sge => ty.sign_extend(a) >= ty.sign_extend(b),
    }
}

/// The outcomes each `fcmp` predicate accepts, as a mask over the relation of the operands
/// (bit 0: equal, 1: greater, 2: less, 3: unordered), LLVM's own encoding of predicates.
#[inline]
fn fcmp_accepts(pred: FloatPred) -> u8 {
    match pred {
        FloatPred::False => 0b0000,
        FloatPred::Oeq => 0b0001,
        FloatPred::Ogt => 0b0010,
        FloatPred::Oge => 0b0011,
        FloatPred::Olt => 0b0100,
        FloatPred::Ole => 0b0101,
        FloatPred::One => 0b0110,
        FloatPred::Ord => 0b0111,
        FloatPred::Uno => 0b1000,
        FloatPred::Ueq => 0b1001,
        FloatPred::Ugt => 0b1010,
        FloatPred::Uge => 0b1011,
        FloatPred::Ult => 0b1100,
        FloatPred::Ule => 0b1101,
        FloatPred::Une => 0b1110,
        FloatPred::True => 0b1111,
    }
}

/// `fcmp` on two values promoted to `f64` (promotion from `f32` preserves order and NaN).
/// Branch-free: the relation of the operands selects a bit of the predicate's mask.
#[inline]
pub fn fcmp_f64(pred: FloatPred, x: f64, y: f64) -> bool {
    let relation = u8::from(x == y)
        | u8::from(x > y) << 1
        | u8::from(x < y) << 2
        | u8::from(x.is_nan() || y.is_nan()) << 3;
    fcmp_accepts(pred) & relation != 0
}

/// `fcmp` on the bits of two values of format `ty`.
#[inline]
pub fn fcmp(pred: FloatPred, ty: FloatTy, a: u64, b: u64) -> bool {
    fcmp_f64(pred, to_f64(ty, a), to_f64(ty, b))
}

/// How the operands of an ordered comparison relate (`<`, `==`, `>`), in the order the
/// predicate `pred` compares them (signed or unsigned integers, floats); `None` for an
/// equality test (its two sides are its only partition) and for unordered floats.
/// Compilers split an ordered comparison differently (gcc compiles `x < y ? y : x` as a
/// branch on `x > y`), so tests showing each relation cover every such split.
pub fn operand_order(pred: CmpPred, ty: Type, a: u64, b: u64) -> Option<std::cmp::Ordering> {
    use FloatPred as F;
    use IntPred as I;
    match pred {
        CmpPred::Int(I::Eq | I::Ne) => None,
        CmpPred::Int(I::Ult | I::Ule | I::Ugt | I::Uge) => Some(a.cmp(&b)),
        CmpPred::Int(I::Slt | I::Sle | I::Sgt | I::Sge) => {
            Some(ty.sign_extend(a).cmp(&ty.sign_extend(b)))
        }
        CmpPred::Float(F::Olt | F::Ole | F::Ogt | F::Oge | F::Ult | F::Ule | F::Ugt | F::Uge) => {
            let ft = ty.as_float()?;
            to_f64(ft, a).partial_cmp(&to_f64(ft, b))
        }
        CmpPred::Float(_) => None,
    }
}

/// The value of float bits of format `ty`, widened exactly to `f64`.
#[inline]
pub fn to_f64(ty: FloatTy, bits: u64) -> f64 {
    match ty {
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
        FloatTy::F64 => f64::from_bits(bits),
    }
}

/// The bits of `x` rounded (to nearest even) to format `ty`.
#[inline]
pub fn from_f64(ty: FloatTy, x: f64) -> u64 {
    match ty {
        FloatTy::F32 => u64::from((x as f32).to_bits()),
        FloatTy::F64 => x.to_bits(),
    }
}

macro_rules! float_op {
    ($ty:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match $ty {
            FloatTy::F32 => {
                let $x = f32::from_bits($a as u32);
                let $y = f32::from_bits($b as u32);
                u64::from(($body).to_bits())
            }
            FloatTy::F64 => {
                let $x = f64::from_bits($a);
                let $y = f64::from_bits($b);
                ($body).to_bits()
            }
        }
    };
}

/// `fadd`.
#[inline]
pub fn fadd(ty: FloatTy, a: u64, b: u64) -> u64 {
    float_op!(ty, a, b, |x, y| x + y)
}

/// `fsub`.
#[inline]
pub fn fsub(ty: FloatTy, a: u64, b: u64) -> u64 {
    float_op!(ty, a, b, |x, y| x - y)
}

/// `fmul`.
#[inline]
pub fn fmul(ty: FloatTy, a: u64, b: u64) -> u64 {
    float_op!(ty, a, b, |x, y| x * y)
}

/// `fdiv`.
#[inline]
pub fn fdiv(ty: FloatTy, a: u64, b: u64) -> u64 {
    float_op!(ty, a, b, |x, y| x / y)
}

/// `fneg`: flips the sign bit, NaNs included.
#[inline]
pub fn fneg(ty: FloatTy, a: u64) -> u64 {
    a ^ ty.sign_bit()
}

/// A float binary operation other than `frem` (`None` for `frem`: see the module docs).
#[inline]
pub fn float_bin(op: FloatBinOp, ty: FloatTy, a: u64, b: u64) -> Option<u64> {
    match op {
        FloatBinOp::Fadd => Some(fadd(ty, a, b)),
        FloatBinOp::Fsub => Some(fsub(ty, a, b)),
        FloatBinOp::Fmul => Some(fmul(ty, a, b)),
        FloatBinOp::Fdiv => Some(fdiv(ty, a, b)),
        FloatBinOp::Frem => None,
    }
}

const TWO63: f64 = 9_223_372_036_854_775_808.0;

/// x86 `cvttsd2si` with a 64-bit destination.
#[inline]
fn cvtt64(x: f64) -> u64 {
    if (-TWO63..TWO63).contains(&x) {
        x as i64 as u64
    } else {
        1 << 63
    }
}

/// x86 `cvttsd2si` with a 32-bit destination, zero-extended.
#[inline]
fn cvtt32(x: f64) -> u64 {
    if x > -2_147_483_649.0 && x < 2_147_483_648.0 {
        u64::from(x as i32 as u32)
    } else {
        0x8000_0000
    }
}

/// The value of float bits of type `ty` (a float type), widened exactly to `f64`.
#[inline]
fn float_value(ty: Type, bits: u64) -> f64 {
    to_f64(ty.as_float().unwrap_or(FloatTy::F64), bits)
}

/// The bits of `x` rounded to the float type `ty`.
#[inline]
fn float_bits(ty: Type, x: f64) -> u64 {
    from_f64(ty.as_float().unwrap_or(FloatTy::F64), x)
}

/// `trunc`.
#[inline]
pub fn trunc(to: Type, a: u64) -> u64 {
    a & to.mask()
}

/// `sext`.
#[inline]
pub fn sext(from: Type, to: Type, a: u64) -> u64 {
    from.sign_extend(a) as u64 & to.mask()
}

/// `fptrunc` and `fpext`: the value rounded to the other format.
#[inline]
pub fn fconvert(from: Type, to: Type, a: u64) -> u64 {
    float_bits(to, float_value(from, a))
}

/// `fptoui` (see the module docs for out-of-range values).
#[inline]
pub fn fptoui(from: Type, to: Type, a: u64) -> u64 {
    let x = float_value(from, a);
    let bits = match width(to) {
        64 => {
            let lo = cvtt64(x);
            let hi = cvtt64(x - TWO63);
            lo | (hi & ((lo as i64 >> 63) as u64))
        }
        w if w >= 32 => cvtt64(x),
        _ => cvtt32(x),
    };
    bits & to.mask()
}

/// `fptosi` (see the module docs for out-of-range values).
#[inline]
pub fn fptosi(from: Type, to: Type, a: u64) -> u64 {
    let x = float_value(from, a);
    let bits = if width(to) > 32 { cvtt64(x) } else { cvtt32(x) };
    bits & to.mask()
}

/// `uitofp`.
#[inline]
pub fn uitofp(to: Type, a: u64) -> u64 {
    match to {
        Type::Float(FloatTy::F32) => u64::from((a as f32).to_bits()),
        _ => (a as f64).to_bits(),
    }
}

/// `sitofp`.
#[inline]
pub fn sitofp(from: Type, to: Type, a: u64) -> u64 {
    let v = from.sign_extend(a);
    match to {
        Type::Float(FloatTy::F32) => u64::from((v as f32).to_bits()),
        _ => (v as f64).to_bits(),
    }
}

/// Any cast.
#[inline]
pub fn cast(op: CastOp, from: Type, to: Type, a: u64) -> u64 {
    match op {
        CastOp::Trunc | CastOp::Ptrtoint | CastOp::Bitcast => trunc(to, a),
        CastOp::Zext | CastOp::Inttoptr => a,
        CastOp::Sext => sext(from, to, a),
        CastOp::Fptrunc | CastOp::Fpext => fconvert(from, to, a),
        CastOp::Fptoui => fptoui(from, to, a),
        CastOp::Fptosi => fptosi(from, to, a),
        CastOp::Uitofp => uitofp(to, a),
        CastOp::Sitofp => sitofp(from, to, a),
    }
}

/// `select`: the condition's low bit chooses.
#[inline]
pub fn select(cond: u64, if_true: u64, if_false: u64) -> u64 {
    if cond & 1 != 0 {
        if_true
    } else {
        if_false
    }
}

/// `llvm.ctpop`.
#[inline]
pub fn ctpop(ty: Type, a: u64) -> u64 {
    u64::from((a & ty.mask()).count_ones())
}

/// `llvm.ctlz`.
#[inline]
pub fn ctlz(ty: Type, a: u64) -> u64 {
    u64::from(
        (a & ty.mask())
            .leading_zeros()
            .saturating_sub(64 - width(ty)),
    )
}

/// `llvm.cttz`.
#[inline]
pub fn cttz(ty: Type, a: u64) -> u64 {
    u64::from((a & ty.mask()).trailing_zeros().min(width(ty)))
}

/// `llvm.bswap`.
#[inline]
pub fn bswap(ty: Type, a: u64) -> u64 {
    (a.swap_bytes() >> (64 - width(ty))) & ty.mask()
}

/// `llvm.abs`.
#[inline]
pub fn abs(ty: Type, a: u64) -> u64 {
    ty.sign_extend(a).wrapping_abs() as u64 & ty.mask()
}

/// `llvm.smax`.
#[inline]
pub fn smax(ty: Type, a: u64, b: u64) -> u64 {
    if ty.sign_extend(a) >= ty.sign_extend(b) {
        a
    } else {
        b
    }
}

/// `llvm.smin`.
#[inline]
pub fn smin(ty: Type, a: u64, b: u64) -> u64 {
    if ty.sign_extend(a) <= ty.sign_extend(b) {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fptoui_matches_native_table() {
        // Values printed by clang-14 -O0 on x86-64 (see the module docs).
        let cases: [(f64, u64, u64, u64); 6] = [
            (-1.0, u64::MAX, 0xffff_ffff, 0xffff),
            (1.8e19, 0xf9cc_d8a1_c508_0000, 0, 0),
            (2e19, 1 << 63, 0, 0),
            (f64::NAN, 1 << 63, 0, 0),
            (3e9, 0xb2d0_5e00, 0xb2d0_5e00, 0),
            (-70000.0, 0xffff_ffff_fffe_ee90, 0xfffe_ee90, 0xee90),
        ];
        for (x, u64v, u32v, u16v) in cases {
            let b = x.to_bits();
            assert_eq!(fptoui(Type::F64, Type::I64, b), u64v, "{x} u64");
            assert_eq!(fptoui(Type::F64, Type::I32, b), u32v, "{x} u32");
            assert_eq!(fptoui(Type::F64, Type::Int(16), b), u16v, "{x} u16");
        }
        assert_eq!(fptosi(Type::F64, Type::I32, 3e9f64.to_bits()), 0x8000_0000);
        assert_eq!(fptosi(Type::F64, Type::Int(16), 1e19f64.to_bits()), 0);
    }

    #[test]
    fn shifts_mask_like_x86() {
        assert_eq!(shl(Type::I32, 1, 33), 2);
        assert_eq!(shl(Type::I8, 1, 9), 0);
        assert_eq!(ashr(Type::I8, 0x80, 9), 0xff);
        assert_eq!(lshr(Type::I64, 1 << 63, 64), 1 << 63);
    }

    #[test]
    fn division_faults() {
        assert_eq!(sdiv(Type::I32, 5, 0), Err(IntFault::DivByZero));
        assert_eq!(
            srem(Type::I32, 0x8000_0000, 0xffff_ffff),
            Err(IntFault::DivOverflow)
        );
        assert_eq!(sdiv(Type::I32, 0xffff_fff9, 2), Ok(0xffff_fffd));
        assert_eq!(urem(7, 0), Err(IntFault::DivByZero));
    }

    #[test]
    fn fcmp_predicates_follow_the_relation() {
        let nan = f64::NAN.to_bits();
        let one = 1f64.to_bits();
        assert!(fcmp(FloatPred::Une, FloatTy::F64, nan, nan));
        assert!(!fcmp(FloatPred::Oeq, FloatTy::F64, nan, nan));
        assert!(fcmp(FloatPred::Oeq, FloatTy::F64, 0, (-0f64).to_bits()));
        assert!(fcmp(FloatPred::Olt, FloatTy::F64, 0, one));
        assert!(fcmp(
            FloatPred::Ult,
            FloatTy::F32,
            u64::from(f32::NAN.to_bits()),
            0
        ));
    }

    #[test]
    fn operand_order_follows_the_predicate_signedness_and_nan() {
        use std::cmp::Ordering::*;
        let minus_one = u64::from(u32::MAX);
        let i32t = Type::I32;
        let int = |p| CmpPred::Int(p);
        assert_eq!(
            operand_order(int(IntPred::Slt), i32t, minus_one, 1),
            Some(Less)
        );
        assert_eq!(
            operand_order(int(IntPred::Ult), i32t, minus_one, 1),
            Some(Greater)
        );
        assert_eq!(operand_order(int(IntPred::Eq), i32t, 1, 1), None);
        let f = |x: f64| x.to_bits();
        let olt = CmpPred::Float(FloatPred::Olt);
        assert_eq!(operand_order(olt, Type::F64, f(1.0), f(1.0)), Some(Equal));
        assert_eq!(operand_order(olt, Type::F64, f(-0.0), f(0.0)), Some(Equal));
        assert_eq!(operand_order(olt, Type::F64, f(f64::NAN), f(0.0)), None);
        assert_eq!(
            operand_order(CmpPred::Float(FloatPred::Une), Type::F64, f(1.0), f(2.0)),
            None
        );
    }
}
