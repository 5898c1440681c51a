//! [`Mpfr`] on extended values (`long double`, the [`F80Op`] builtins).
//!
//! An extended value is two registers, its significand (`i64`) and its sign and
//! exponent (`i16`); the high-precision value rides on the significand's register and
//! in memory on its 8 bytes, like a float's. Beside the arena entry the semantics keeps
//! the sign-and-exponent half of the concrete value it shadows, so an operand whose
//! halves no longer belong together (the exponent rewritten through a union, a stale
//! memory cell) reads as its exact value, and one whose sign bit alone changed
//! (`fneg`, `fabsl` and `copysignl` lower to bit operations on that half) reads as the
//! negated shadow.
//!
//! In [`crate::HighPrecision`] the bits of an extended result are its high-precision
//! value rounded as the x87 rounds ([`x87::round`], in the run's rounding mode);
//! comparisons and conversions to integers follow the high-precision values. In
//! [`crate::Shadow`] the bits are the concrete ones and a comparison that decides
//! differently on the shadows is marked, as for floats. The `*l` math functions are
//! MPFR's ([`math::eval`]); those with no real-valued counterpart (`frexpl`, `modfl`,
//! `lroundl`, ...) give the concrete result.

use super::{holds, int_of, Mode, MpValue, Mpfr, DIVERGED, EXACT};
use crate::math::{self, Counterpart};
use crate::metrics::HighValue;
use crate::x87;
use fpforge_exec::memory::Memory;
use fpforge_exec::trap::TrapKind;
use fpforge_exec::{f80_concrete, RunEnv, F80_MAX_ARGS};
use fpir::f80::{F80Arith, F80};
use fpir::{F80Op, FloatPred, FloatTy, MathFn, MathShape, Type};
use rug::Float;

/// The type of the sign-and-exponent half.
const SE: Type = Type::Int(16);
const SIGN_BIT: u16 = 0x8000;

impl<M: Mode> Mpfr<M> {
    /// The builtin `op` of result type `ty` on `args`.
    pub(super) fn extended_op(
        &mut self,
        mem: &mut Memory,
        env: &mut RunEnv,
        op: F80Op,
        ty: Type,
        args: &[MpValue],
    ) -> Result<MpValue, TrapKind> {
        let mut bits = [0u64; F80_MAX_ARGS];
        for (b, a) in bits.iter_mut().zip(args) {
            *b = a.bits;
        }
        let operand = |k: usize| self.extended_hp(args, k);
        // The shadow rides on the significand: the other half of an extended result
        // needs no high-precision value in a Shadow run.
        let extended_half = matches!(op, F80Op::Arith(_) | F80Op::Sqrt) && ty == SE;
        if M::SHADOW && extended_half {
            return constant(mem, env, op, ty, &bits);
        }
        match op {
            F80Op::Arith(arith) => {
                let (x, y) = (operand(0), operand(2));
                let r = match arith {
                    F80Arith::Add => x + &y,
                    F80Arith::Sub => x - &y,
                    F80Arith::Mul => x * &y,
                    F80Arith::Div => x / &y,
                    F80Arith::Rem => x % &y,
                };
                self.extended_result(mem, env, op, ty, &bits, r)
            }
            F80Op::Sqrt => {
                let r = operand(0).sqrt();
                self.extended_result(mem, env, op, ty, &bits, r)
            }
            F80Op::FromDouble if live(args[0].hp) => {
                let r = self.hp(FloatTy::F64, &args[0]);
                self.extended_result(mem, env, op, ty, &bits, r)
            }
            F80Op::Cmp => {
                let pred = FloatPred::ALL[bits[4] as usize % FloatPred::ALL.len()];
                let high = holds(pred, &operand(0), &operand(2));
                let concrete = M::SHADOW && f80_concrete(mem, env, op, ty, &bits)? != 0;
                Ok(self.comparison(concrete, high))
            }
            F80Op::ToFloat => {
                let Type::Float(to) = ty else {
                    return constant(mem, env, op, ty, &bits);
                };
                let x = operand(0);
                let concrete = f80_concrete(mem, env, op, ty, &bits)?;
                Ok(self.float_result(to, || concrete, x))
            }
            F80Op::ToSigned | F80Op::ToUnsigned if !M::SHADOW && live(args[0].hp) => {
                match int_of(operand(0), ty, op == F80Op::ToSigned) {
                    Some(v) => Ok(MpValue::exact(v)),
                    None => constant(mem, env, op, ty, &bits),
                }
            }
            F80Op::Libm(f) => match extended_operands(f) {
                Some(count) => {
                    let hps: Vec<Float> = (0..count).map(|i| operand(2 * i)).collect();
                    let int_arg = bits[2] as u32 as i32;
                    match math::eval(f, self.prec, &hps, int_arg) {
                        Counterpart::Value(r) => self.extended_result(mem, env, op, ty, &bits, r),
                        _ => constant(mem, env, op, ty, &bits),
                    }
                }
                None => constant(mem, env, op, ty, &bits),
            },
            F80Op::FromDouble
            | F80Op::FromSigned
            | F80Op::FromUnsigned
            | F80Op::ToSigned
            | F80Op::ToUnsigned => constant(mem, env, op, ty, &bits),
        }
    }

    /// The high-precision value of the extended operand whose halves are `args[k]` and
    /// `args[k + 1]`.
    fn extended_hp(&self, args: &[MpValue], k: usize) -> Float {
        let half = |i: usize| args.get(i).map_or(0, |a| a.bits);
        let concrete = F80 {
            sig: half(k),
            se: half(k + 1) as u16,
        };
        let sig = args.get(k).copied().unwrap_or(MpValue::exact(0));
        self.extended_value(sig, concrete)
    }

    /// The high-precision value of the extended value `concrete` whose significand
    /// register (or memory cell) is `sig`.
    fn extended_value(&self, sig: MpValue, concrete: F80) -> Float {
        if live(sig.hp) {
            if let (Some(x), Some(&se)) =
                (self.arena.get(sig.hp as usize), self.extended.get(&sig.hp))
            {
                if se == concrete.se {
                    return x.clone();
                }
                if se ^ concrete.se == SIGN_BIT {
                    return -x.clone();
                }
            }
        }
        x87::value(concrete, self.prec)
    }

    /// The high-precision value of the extended value in memory at `addr` after a run
    /// (significand, then sign and exponent): the shadow of its significand when that
    /// is current, else its exact value; `None` outside valid memory.
    pub fn memory_extended_value(&self, mem: &Memory, addr: u64) -> Option<HighValue> {
        let sig = mem.peek(Type::I64, addr)?;
        let se = mem.peek(SE, addr.checked_add(8)?)? as u16;
        let register = self.cell_value(Type::I64, addr, sig);
        Some(HighValue(self.extended_value(register, F80 { sig, se })))
    }

    /// The half `ty` of an extended result whose high-precision value is `x`.
    fn extended_result(
        &mut self,
        mem: &mut Memory,
        env: &mut RunEnv,
        op: F80Op,
        ty: Type,
        bits: &[u64],
        x: Float,
    ) -> Result<MpValue, TrapKind> {
        let whole = if M::SHADOW {
            if ty == SE {
                return constant(mem, env, op, ty, bits);
            }
            F80 {
                sig: f80_concrete(mem, env, op, Type::I64, bits)?,
                se: f80_concrete(mem, env, op, SE, bits)? as u16,
            }
        } else {
            x87::round(&x, env.float_env().mode().apfloat())
        };
        if ty == SE {
            return Ok(MpValue::exact(u64::from(whole.se)));
        }
        let mut r = Float::new(self.prec);
        rug::Assign::assign(&mut r, x);
        let v = self.push(whole.sig, r);
        if live(v.hp) {
            self.extended.insert(v.hp, whole.se);
        }
        Ok(v)
    }
}

/// True for an arena index (a value with a shadow of its own).
fn live(hp: u32) -> bool {
    hp != EXACT && hp != DIVERGED
}

/// The concrete result, with no shadow.
fn constant(
    mem: &mut Memory,
    env: &mut RunEnv,
    op: F80Op,
    ty: Type,
    bits: &[u64],
) -> Result<MpValue, TrapKind> {
    f80_concrete(mem, env, op, ty, bits).map(MpValue::exact)
}

/// How many extended operands MPFR computes the `long double` version of `f` on;
/// `None` for the functions whose result is no extended value of those operands.
fn extended_operands(f: MathFn) -> Option<usize> {
    match f.shape() {
        MathShape::Unary | MathShape::FloatInt => Some(1),
        MathShape::Binary => Some(2),
        MathShape::Ternary => Some(3),
        MathShape::ToInt | MathShape::FloatPtrInt | MathShape::FloatPtrFloat => None,
    }
}
