//! [`Concrete`]: the bit-exact semantics, agreeing with the same C compiled natively by
//! clang-14 -O0 on x86-64.
//!
//! A value is its raw bits in a `u64`: integers zero-extended and masked to their width,
//! `f32` in the low 32 bits, `f64` and pointers in all 64. Float arithmetic uses Rust's
//! `f32`/`f64` (round to nearest even, as the SSE hardware does); `frem` is C's `fmod`.
//! Where LLVM leaves a result undefined, the value is what x86-64 code computes:
//!
//! - shift counts are masked (mod 32 for types up to 32 bits, mod 64 above), as `shl`/`sar`
//!   do; narrow types shift inside a 32-bit register, so `i8 << 9` is 0;
//! - `fptosi` to `i32` and narrower goes through `cvttsd2si` 32-bit (out of range and NaN
//!   give `0x80000000`, then truncation); to `i64` through the 64-bit form (`0x8000...`);
//! - `fptoui` to `i64` is clang's branch-free sequence
//!   `a = cvtt(x); b = cvtt(x - 2^63); a | (b & (a >> 63))` (NaN and `>= 2^64` give
//!   `0x8000...`, `-1.0` gives all ones); to `i32` the 64-bit conversion truncated; to
//!   narrower types the 32-bit signed conversion truncated;
//! - `sdiv`/`srem` trap on zero divisors and on `MIN / -1` (x86 `idiv` faults).

use crate::libm;
use crate::memory::Memory;
use crate::semantics::Semantics;
use crate::trap::TrapKind;
use fpir::{FloatPred, FloatTy, IntPred, MathCall, MathFn, Type};

/// The concrete semantics: values are raw bits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Concrete;

/// The mask of a type's width.
#[inline]
pub fn mask(ty: Type) -> u64 {
    match ty {
        Type::Int(w) if w < 64 => (1u64 << w) - 1,
        Type::Float(FloatTy::F32) => 0xffff_ffff,
        _ => u64::MAX,
    }
}

/// Width in bits of an integer type, clamped to 1..=64.
#[inline]
fn width(ty: Type) -> u32 {
    match ty {
        Type::Int(w) => u32::from(w).clamp(1, 64),
        Type::Float(FloatTy::F32) => 32,
        _ => 64,
    }
}

/// Sign-extends the low `ty`-width bits of `v`.
#[inline]
pub fn sext(ty: Type, v: u64) -> i64 {
    let shift = 64 - width(ty);
    ((v << shift) as i64) >> shift
}

#[inline]
fn shift_count(ty: Type, b: u64) -> u32 {
    (if width(ty) <= 32 { b & 31 } else { b & 63 }) as u32
}

#[inline]
fn to_f64(ty: Type, v: u64) -> f64 {
    match ty {
        Type::Float(FloatTy::F32) => f64::from(f32::from_bits(v as u32)),
        _ => f64::from_bits(v),
    }
}

#[inline]
fn from_f64(ty: Type, x: f64) -> u64 {
    match ty {
        Type::Float(FloatTy::F32) => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
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

/// `icmp` on zero-extended bits of type `ty`: one comparison per predicate (the signed
/// ones on the sign-extended bits).
#[inline]
pub fn icmp_bits(pred: IntPred, ty: Type, a: u64, b: u64) -> bool {
    match pred {
        IntPred::Eq => a == b,
        IntPred::Ne => a != b,
        IntPred::Ult => a < b,
        IntPred::Ule => a <= b,
        IntPred::Ugt => a > b,
        IntPred::Uge => a >= b,
        IntPred::Slt => sext(ty, a) < sext(ty, b),
        IntPred::Sle => sext(ty, a) <= sext(ty, b),
        IntPred::Sgt => sext(ty, a) > sext(ty, b),
        IntPred::Sge => sext(ty, a) >= sext(ty, b),
    }
}

macro_rules! float_op {
    ($ty:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match $ty {
            FloatTy::F32 => {
                let $x = f32::from_bits(*$a as u32);
                let $y = f32::from_bits(*$b as u32);
                u64::from(($body).to_bits())
            }
            FloatTy::F64 => {
                let $x = f64::from_bits(*$a);
                let $y = f64::from_bits(*$b);
                ($body).to_bits()
            }
        }
    };
}

/// Signed division checks shared by `sdiv` and `srem`.
#[inline]
fn signed_operands(ty: Type, a: u64, b: u64) -> Result<(i64, i64), TrapKind> {
    if b == 0 {
        return Err(TrapKind::IntDivByZero);
    }
    let (x, y) = (sext(ty, a), sext(ty, b));
    let min = i64::MIN >> (64 - width(ty));
    if x == min && y == -1 {
        return Err(TrapKind::IntDivOverflow);
    }
    Ok((x, y))
}

impl Semantics for Concrete {
    type Value = u64;
    const CONCRETE_MEMORY: bool = true;
    const COMPILABLE: bool = true;

    #[inline]
    fn constant(&mut self, ty: Type, bits: u64) -> u64 {
        bits & mask(ty)
    }

    #[inline]
    fn concrete_bits(&self, value: &u64) -> u64 {
        *value
    }

    #[inline]
    fn load(&mut self, mem: &Memory, ty: Type, addr: u64) -> Result<u64, TrapKind> {
        mem.load(ty, addr)
    }

    #[inline]
    fn iadd(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        a.wrapping_add(*b) & mask(ty)
    }
    #[inline]
    fn isub(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        a.wrapping_sub(*b) & mask(ty)
    }
    #[inline]
    fn imul(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        a.wrapping_mul(*b) & mask(ty)
    }
    #[inline]
    fn udiv(&mut self, _ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        a.checked_div(*b).ok_or(TrapKind::IntDivByZero)
    }
    #[inline]
    fn sdiv(&mut self, ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        let (x, y) = signed_operands(ty, *a, *b)?;
        Ok((x / y) as u64 & mask(ty))
    }
    #[inline]
    fn urem(&mut self, _ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        a.checked_rem(*b).ok_or(TrapKind::IntDivByZero)
    }
    #[inline]
    fn srem(&mut self, ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        let (x, y) = signed_operands(ty, *a, *b)?;
        Ok((x % y) as u64 & mask(ty))
    }
    #[inline]
    fn shl(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        (a << shift_count(ty, *b)) & mask(ty)
    }
    #[inline]
    fn lshr(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        a >> shift_count(ty, *b)
    }
    #[inline]
    fn ashr(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        (sext(ty, *a) >> shift_count(ty, *b)) as u64 & mask(ty)
    }
    #[inline]
    fn band(&mut self, _ty: Type, a: &u64, b: &u64) -> u64 {
        a & b
    }
    #[inline]
    fn bor(&mut self, _ty: Type, a: &u64, b: &u64) -> u64 {
        a | b
    }
    #[inline]
    fn bxor(&mut self, _ty: Type, a: &u64, b: &u64) -> u64 {
        a ^ b
    }

    #[inline]
    fn fadd(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        float_op!(ty, a, b, |x, y| x + y)
    }
    #[inline]
    fn fsub(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        float_op!(ty, a, b, |x, y| x - y)
    }
    #[inline]
    fn fmul(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        float_op!(ty, a, b, |x, y| x * y)
    }
    #[inline]
    fn fdiv(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        float_op!(ty, a, b, |x, y| x / y)
    }
    fn frem(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        let call = MathCall {
            func: fpir::MathFn::Fmod,
            ty,
        };
        libm::eval(call, &[*a, *b], Type::Float(ty)).0
    }
    #[inline]
    fn fneg(&mut self, ty: FloatTy, a: &u64) -> u64 {
        match ty {
            FloatTy::F32 => a ^ 0x8000_0000,
            FloatTy::F64 => a ^ (1 << 63),
        }
    }

    #[inline]
    fn icmp(&mut self, pred: IntPred, ty: Type, a: &u64, b: &u64) -> u64 {
        u64::from(icmp_bits(pred, ty, *a, *b))
    }
    #[inline]
    fn fcmp(&mut self, pred: FloatPred, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        let t = Type::Float(ty);
        u64::from(fcmp_f64(pred, to_f64(t, *a), to_f64(t, *b)))
    }

    #[inline]
    fn trunc(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        a & mask(to)
    }
    #[inline]
    fn zext(&mut self, _from: Type, _to: Type, a: &u64) -> u64 {
        *a
    }
    #[inline]
    fn sext(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        sext(from, *a) as u64 & mask(to)
    }
    #[inline]
    fn fptrunc(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        from_f64(to, to_f64(from, *a))
    }
    #[inline]
    fn fpext(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        from_f64(to, to_f64(from, *a))
    }
    #[inline]
    fn fptoui(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        let x = to_f64(from, *a);
        let bits = match width(to) {
            64 => {
                let lo = cvtt64(x);
                let hi = cvtt64(x - TWO63);
                lo | (hi & ((lo as i64 >> 63) as u64))
            }
            w if w >= 32 => cvtt64(x),
            _ => cvtt32(x),
        };
        bits & mask(to)
    }
    #[inline]
    fn fptosi(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        let x = to_f64(from, *a);
        let bits = if width(to) > 32 { cvtt64(x) } else { cvtt32(x) };
        bits & mask(to)
    }
    #[inline]
    fn uitofp(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        match to {
            Type::Float(FloatTy::F32) => u64::from((*a as f32).to_bits()),
            _ => (*a as f64).to_bits(),
        }
    }
    #[inline]
    fn sitofp(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        let v = sext(from, *a);
        match to {
            Type::Float(FloatTy::F32) => u64::from((v as f32).to_bits()),
            _ => (v as f64).to_bits(),
        }
    }
    #[inline]
    fn ptrtoint(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        a & mask(to)
    }
    #[inline]
    fn inttoptr(&mut self, _from: Type, _to: Type, a: &u64) -> u64 {
        *a
    }
    #[inline]
    fn bitcast(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        a & mask(to)
    }

    #[inline]
    fn select(&mut self, _ty: Type, cond: &u64, if_true: &u64, if_false: &u64) -> u64 {
        if cond & 1 != 0 {
            *if_true
        } else {
            *if_false
        }
    }

    fn math(&mut self, call: MathCall, args: &[u64], ret: Type) -> (u64, Option<u64>) {
        // Sign-bit functions are computed here (what the C library does too) rather than
        // through a call into it.
        match (call.func, call.ty, args) {
            (MathFn::Fabs, FloatTy::F64, &[x]) => (x & !(1 << 63), None),
            (MathFn::Fabs, FloatTy::F32, &[x]) => (x & 0x7fff_ffff, None),
            (MathFn::Copysign, FloatTy::F64, &[x, y]) => ((x & !(1 << 63)) | (y & (1 << 63)), None),
            _ => libm::eval(call, args, ret),
        }
    }

    fn ctpop(&mut self, ty: Type, a: &u64) -> u64 {
        u64::from((a & mask(ty)).count_ones())
    }
    fn ctlz(&mut self, ty: Type, a: &u64) -> u64 {
        u64::from(
            (a & mask(ty))
                .leading_zeros()
                .saturating_sub(64 - width(ty)),
        )
    }
    fn cttz(&mut self, ty: Type, a: &u64) -> u64 {
        u64::from((a & mask(ty)).trailing_zeros().min(width(ty)))
    }
    fn bswap(&mut self, ty: Type, a: &u64) -> u64 {
        (a.swap_bytes() >> (64 - width(ty))) & mask(ty)
    }
    fn abs(&mut self, ty: Type, a: &u64) -> u64 {
        sext(ty, *a).wrapping_abs() as u64 & mask(ty)
    }
    fn smax(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        if sext(ty, *a) >= sext(ty, *b) {
            *a
        } else {
            *b
        }
    }
    fn smin(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        if sext(ty, *a) <= sext(ty, *b) {
            *a
        } else {
            *b
        }
    }
    fn umax(&mut self, _ty: Type, a: &u64, b: &u64) -> u64 {
        *a.max(b)
    }
    fn umin(&mut self, _ty: Type, a: &u64, b: &u64) -> u64 {
        *a.min(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fptoui_matches_native_table() {
        // Values printed by clang-14 -O0 on x86-64 (see the module docs).
        let mut s = Concrete;
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
            assert_eq!(s.fptoui(Type::F64, Type::I64, &b), u64v, "{x} u64");
            assert_eq!(s.fptoui(Type::F64, Type::I32, &b), u32v, "{x} u32");
            assert_eq!(s.fptoui(Type::F64, Type::Int(16), &b), u16v, "{x} u16");
        }
        assert_eq!(
            s.fptosi(Type::F64, Type::I32, &3e9f64.to_bits()),
            0x8000_0000
        );
        assert_eq!(s.fptosi(Type::F64, Type::Int(16), &1e19f64.to_bits()), 0);
    }

    #[test]
    fn shifts_mask_like_x86() {
        let mut s = Concrete;
        assert_eq!(s.shl(Type::I32, &1, &33), 2);
        assert_eq!(s.shl(Type::I8, &1, &9), 0);
        assert_eq!(s.ashr(Type::I8, &0x80, &9), 0xff);
        assert_eq!(s.lshr(Type::I64, &(1 << 63), &64), 1 << 63);
    }

    #[test]
    fn division_traps() {
        let mut s = Concrete;
        assert_eq!(s.sdiv(Type::I32, &5, &0), Err(TrapKind::IntDivByZero));
        assert_eq!(
            s.srem(Type::I32, &0x8000_0000, &0xffff_ffff),
            Err(TrapKind::IntDivOverflow)
        );
        assert_eq!(s.sdiv(Type::I32, &0xffff_fff9, &2), Ok(0xffff_fffd));
    }
}
