//! [`Concrete`]: the bit-exact semantics, agreeing with the same C compiled natively by
//! clang-14 -O0 on x86-64.
//!
//! A value is its raw bits in a `u64`. What each operation computes on bits, including
//! the x86-64 results where LLVM leaves one undefined, is [`fpir::eval`]'s: this module
//! adds memory, the host C library's math functions and the traps of integer division.

use crate::libm;
use crate::memory::Memory;
use crate::semantics::Semantics;
use crate::trap::TrapKind;
use fpir::eval::{self, IntFault};
use fpir::{FloatPred, FloatTy, IntPred, MathCall, MathFn, Type};

/// The concrete semantics: values are raw bits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Concrete;

impl From<IntFault> for TrapKind {
    fn from(fault: IntFault) -> Self {
        match fault {
            IntFault::DivByZero => TrapKind::IntDivByZero,
            IntFault::DivOverflow => TrapKind::IntDivOverflow,
        }
    }
}

impl Semantics for Concrete {
    type Value = u64;
    const CONCRETE_MEMORY: bool = true;
    const COMPILABLE: bool = true;

    #[inline]
    fn constant(&mut self, ty: Type, bits: u64) -> u64 {
        bits & ty.mask()
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
        eval::iadd(ty, *a, *b)
    }
    #[inline]
    fn isub(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        eval::isub(ty, *a, *b)
    }
    #[inline]
    fn imul(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        eval::imul(ty, *a, *b)
    }
    #[inline]
    fn udiv(&mut self, _ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        Ok(eval::udiv(*a, *b)?)
    }
    #[inline]
    fn sdiv(&mut self, ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        Ok(eval::sdiv(ty, *a, *b)?)
    }
    #[inline]
    fn urem(&mut self, _ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        Ok(eval::urem(*a, *b)?)
    }
    #[inline]
    fn srem(&mut self, ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
        Ok(eval::srem(ty, *a, *b)?)
    }
    #[inline]
    fn shl(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        eval::shl(ty, *a, *b)
    }
    #[inline]
    fn lshr(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        eval::lshr(ty, *a, *b)
    }
    #[inline]
    fn ashr(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        eval::ashr(ty, *a, *b)
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
        eval::fadd(ty, *a, *b)
    }
    #[inline]
    fn fsub(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        eval::fsub(ty, *a, *b)
    }
    #[inline]
    fn fmul(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        eval::fmul(ty, *a, *b)
    }
    #[inline]
    fn fdiv(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        eval::fdiv(ty, *a, *b)
    }
    fn frem(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        let call = MathCall {
            func: MathFn::Fmod,
            ty,
        };
        libm::eval(call, &[*a, *b], Type::Float(ty)).0
    }
    #[inline]
    fn fneg(&mut self, ty: FloatTy, a: &u64) -> u64 {
        eval::fneg(ty, *a)
    }

    #[inline]
    fn icmp(&mut self, pred: IntPred, ty: Type, a: &u64, b: &u64) -> u64 {
        u64::from(eval::icmp(pred, ty, *a, *b))
    }
    #[inline]
    fn fcmp(&mut self, pred: FloatPred, ty: FloatTy, a: &u64, b: &u64) -> u64 {
        u64::from(eval::fcmp(pred, ty, *a, *b))
    }

    #[inline]
    fn trunc(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        eval::trunc(to, *a)
    }
    #[inline]
    fn zext(&mut self, _from: Type, _to: Type, a: &u64) -> u64 {
        *a
    }
    #[inline]
    fn sext(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        eval::sext(from, to, *a)
    }
    #[inline]
    fn fptrunc(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        eval::fconvert(from, to, *a)
    }
    #[inline]
    fn fpext(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        eval::fconvert(from, to, *a)
    }
    #[inline]
    fn fptoui(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        eval::fptoui(from, to, *a)
    }
    #[inline]
    fn fptosi(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        eval::fptosi(from, to, *a)
    }
    #[inline]
    fn uitofp(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        eval::uitofp(to, *a)
    }
    #[inline]
    fn sitofp(&mut self, from: Type, to: Type, a: &u64) -> u64 {
        eval::sitofp(from, to, *a)
    }
    #[inline]
    fn ptrtoint(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        eval::trunc(to, *a)
    }
    #[inline]
    fn inttoptr(&mut self, _from: Type, _to: Type, a: &u64) -> u64 {
        *a
    }
    #[inline]
    fn bitcast(&mut self, _from: Type, to: Type, a: &u64) -> u64 {
        eval::trunc(to, *a)
    }

    #[inline]
    fn select(&mut self, _ty: Type, cond: &u64, if_true: &u64, if_false: &u64) -> u64 {
        eval::select(*cond, *if_true, *if_false)
    }

    fn math(&mut self, call: MathCall, args: &[u64], ret: Type) -> (u64, Option<u64>) {
        // Sign-bit functions are computed here (what the C library does too) rather than
        // through a call into it; the compiled tier inlines the same rows.
        match (call.func.sign_bit_op(), args) {
            (Some(op), &[x]) => (op.eval(call.ty, x, 0), None),
            (Some(op), &[x, y]) => (op.eval(call.ty, x, y), None),
            _ => libm::eval(call, args, ret),
        }
    }

    fn ctpop(&mut self, ty: Type, a: &u64) -> u64 {
        eval::ctpop(ty, *a)
    }
    fn ctlz(&mut self, ty: Type, a: &u64) -> u64 {
        eval::ctlz(ty, *a)
    }
    fn cttz(&mut self, ty: Type, a: &u64) -> u64 {
        eval::cttz(ty, *a)
    }
    fn bswap(&mut self, ty: Type, a: &u64) -> u64 {
        eval::bswap(ty, *a)
    }
    fn abs(&mut self, ty: Type, a: &u64) -> u64 {
        eval::abs(ty, *a)
    }
    fn smax(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        eval::smax(ty, *a, *b)
    }
    fn smin(&mut self, ty: Type, a: &u64, b: &u64) -> u64 {
        eval::smin(ty, *a, *b)
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
    fn division_faults_are_traps() {
        let mut s = Concrete;
        assert_eq!(s.sdiv(Type::I32, &5, &0), Err(TrapKind::IntDivByZero));
        assert_eq!(
            s.srem(Type::I32, &0x8000_0000, &0xffff_ffff),
            Err(TrapKind::IntDivOverflow)
        );
        assert_eq!(s.sdiv(Type::I32, &0xffff_fff9, &2), Ok(0xffff_fffd));
    }
}
