//! Evaluation of floating-point operators on formats without host arithmetic
//! (everything but binary32 and binary64): every operation on bit patterns, by
//! the exact arithmetic of [`crate::ieee`], in every rounding mode.

use std::cmp::Ordering;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

use super::{bv_arg, sext, Value};
use crate::ieee::{self, Class};
use crate::sort::{FpFormat, SmtRounding};
use crate::term::{mask, Op};

/// Whether `op` on `args` involves a format without host arithmetic (an operand
/// of one, or a conversion to one).
pub(super) fn applies(op: Op, args: &[Value]) -> bool {
    let to_other = match op {
        Op::FpToFp(f) | Op::SbvToFp(f) | Op::UbvToFp(f) | Op::BitsToFp(f) => f.host().is_none(),
        _ => false,
    };
    to_other || args.iter().any(|v| matches!(v, Value::Float(..)))
}

/// The value of a floating-point operator on any formats; `None` when SMT-LIB
/// leaves it unspecified (or on ill-sorted arguments).
pub(super) fn apply(op: Op, a: &[Value]) -> Option<Value> {
    use Op::*;
    let float = |i: usize| a.get(i).and_then(Value::float_bits);
    let rm = || a.first().and_then(Value::as_rm);
    let result = Value::from_float_bits;
    Some(match op {
        FpAbs => {
            let (f, x) = float(0)?;
            result(f, ieee::abs(f, x))
        }
        FpNeg => {
            let (f, x) = float(0)?;
            result(f, ieee::neg(f, x))
        }
        FpAdd | FpSub | FpMul | FpDiv | FpFma | FpSqrt | FpRoundToIntegral => {
            rounded(op, rm()?, &a[1..])?
        }
        FpRem => {
            let ((f, x), (_, y)) = (float(0)?, float(1)?);
            result(f, ieee::rem(f, x, y))
        }
        FpMin | FpMax => {
            let ((f, x), (_, y)) = (float(0)?, float(1)?);
            result(f, min_max(f, x, y, op == FpMax)?)
        }
        FpLeq | FpLt | FpGeq | FpGt | FpEq => {
            let ((f, x), (_, y)) = (float(0)?, float(1)?);
            let order = ieee::compare(f, x, y);
            Value::Bool(match op {
                FpLeq => matches!(order, Some(Ordering::Less | Ordering::Equal)),
                FpLt => order == Some(Ordering::Less),
                FpGeq => matches!(order, Some(Ordering::Greater | Ordering::Equal)),
                FpGt => order == Some(Ordering::Greater),
                _ => order == Some(Ordering::Equal),
            })
        }
        FpIsNormal | FpIsSubnormal | FpIsZero | FpIsInfinite | FpIsNaN | FpIsNegative
        | FpIsPositive => {
            let (f, x) = float(0)?;
            let class = ieee::classify(f, x);
            let negative = ieee::sign_of(f, x);
            Value::Bool(match op {
                FpIsNormal => class == Class::Normal,
                FpIsSubnormal => class == Class::Subnormal,
                FpIsZero => class == Class::Zero,
                FpIsInfinite => class == Class::Infinite,
                FpIsNaN => class == Class::Nan,
                FpIsNegative => class != Class::Nan && negative,
                _ => class != Class::Nan && !negative,
            })
        }
        FpToSbv(w) | FpToUbv(w) => {
            let (f, x) = float(1)?;
            let (neg, mag) = ieee::to_integer(f, rm()?, x)?;
            Value::Bv(integer_in_range(neg, &mag, w, matches!(op, FpToSbv(_)))?, w)
        }
        FpToFp(to) => {
            let (from, x) = float(1)?;
            result(to, ieee::convert(from, to, rm()?, x))
        }
        SbvToFp(f) => {
            let (v, w) = bv_arg(a, 1);
            let i = sext(v, w);
            let bits = ieee::from_integer(f, rm()?, i < 0, u128::from(i.unsigned_abs()));
            result(f, bits)
        }
        UbvToFp(f) => {
            let bits = ieee::from_integer(f, rm()?, false, u128::from(bv_arg(a, 1).0));
            result(f, bits)
        }
        BitsToFp(f) => result(f, u128::from(bv_arg(a, 0).0)),
        FpToBits(f) => Value::Bv(u64::try_from(float(0)?.1).ok()?, f.width()),
        _ => return None,
    })
}

/// A rounded operation in mode `rm` on the floats `a` (operands of one format), by
/// the exact arithmetic of [`crate::ieee`]: on every format, and on the host's in
/// the modes its arithmetic does not offer.
pub(super) fn rounded(op: Op, rm: SmtRounding, a: &[Value]) -> Option<Value> {
    let (f, x) = a.first()?.float_bits()?;
    let arg = |i: usize| a.get(i).and_then(Value::float_bits).map(|(_, b)| b);
    let bits = match op {
        Op::FpAdd => ieee::add(f, rm, x, arg(1)?),
        Op::FpSub => ieee::sub(f, rm, x, arg(1)?),
        Op::FpMul => ieee::mul(f, rm, x, arg(1)?),
        Op::FpDiv => ieee::div(f, rm, x, arg(1)?),
        Op::FpFma => ieee::fma(f, rm, x, arg(1)?, arg(2)?),
        Op::FpSqrt => ieee::sqrt(f, rm, x),
        Op::FpRoundToIntegral => ieee::round_to_integral(f, rm, x),
        _ => return None,
    };
    Some(Value::from_float_bits(f, bits))
}

/// `fp.min`/`fp.max`: a NaN operand gives the other; zeros of two signs are
/// left open (`None`).
fn min_max(f: FpFormat, x: u128, y: u128, max: bool) -> Option<u128> {
    if f.is_nan(x) {
        return Some(y);
    }
    if f.is_nan(y) {
        return Some(x);
    }
    match ieee::compare(f, x, y)? {
        Ordering::Equal if x != y => None,
        Ordering::Less => Some(if max { y } else { x }),
        _ => Some(if max { x } else { y }),
    }
}

/// The `w`-bit two's complement (`signed`) or unsigned pattern of the integer
/// `(-1)^neg * mag`, if it is in range.
fn integer_in_range(neg: bool, mag: &BigUint, w: u32, signed: bool) -> Option<u64> {
    let mag = mag.to_u128()?;
    let limit = 1u128 << w;
    let fits = match (signed, neg) {
        (true, false) => mag < limit / 2,
        (true, true) => mag <= limit / 2,
        (false, false) => mag < limit,
        (false, true) => mag.is_zero(),
    };
    let pattern = if neg { mag.wrapping_neg() } else { mag };
    fits.then(|| pattern as u64 & mask(w))
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::sort::FpFormat;

    /// A binary32 or binary64 operand: a special value or random bits.
    fn operand(rng: &mut rand_chacha::ChaCha8Rng, wide: bool) -> Value {
        let specials = [0.0, -0.0, 1.0, -2.5, f64::INFINITY, f64::NAN, 1e-310, 3e38];
        let x = if rng.gen_bool(0.3) {
            specials[rng.gen_range(0..specials.len())]
        } else if rng.gen_bool(0.5) {
            rng.gen_range(-300.0..300.0)
        } else {
            f64::from_bits(rng.gen())
        };
        if wide {
            Value::F64(x)
        } else {
            Value::F32(x as f32)
        }
    }

    /// On binary32 and binary64 the bit-pattern evaluation of every operator in every
    /// mode gives what the host's arithmetic gives.
    #[test]
    fn bit_patterns_agree_with_the_host_formats() {
        use Op::*;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let ops = [
            FpAbs,
            FpNeg,
            FpAdd,
            FpSub,
            FpMul,
            FpDiv,
            FpFma,
            FpSqrt,
            FpRem,
            FpRoundToIntegral,
            FpMin,
            FpMax,
            FpLeq,
            FpLt,
            FpGeq,
            FpGt,
            FpEq,
            FpIsNormal,
            FpIsSubnormal,
            FpIsZero,
            FpIsInfinite,
            FpIsNaN,
            FpIsNegative,
            FpIsPositive,
            FpToSbv(16),
            FpToUbv(32),
            FpToFp(FpFormat::F32),
            FpToFp(FpFormat::F64),
        ];
        for _ in 0..20_000 {
            let wide = rng.gen_bool(0.5);
            let op = ops[rng.gen_range(0..ops.len())];
            let rm = Value::Rm(SmtRounding::ALL[rng.gen_range(0..5)]);
            let (x, y, z) = (
                operand(&mut rng, wide),
                operand(&mut rng, wide),
                operand(&mut rng, wide),
            );
            let args: Vec<Value> = match op {
                FpAdd | FpSub | FpMul | FpDiv => vec![rm, x, y],
                FpFma => vec![rm, x, y, z],
                FpSqrt | FpRoundToIntegral | FpToSbv(_) | FpToUbv(_) | FpToFp(_) => vec![rm, x],
                FpRem | FpMin | FpMax | FpLeq | FpLt | FpGeq | FpGt | FpEq => vec![x, y],
                _ => vec![x],
            };
            let host = super::super::apply(op, &args);
            let bits = apply(op, &args);
            let same = match (host, bits) {
                (Some(h), Some(b)) => h.same(&b),
                (h, b) => h.is_none() && b.is_none(),
            };
            assert!(same, "{op:?} {args:?}: host {host:?}, bits {bits:?}");
        }
        for (i, bits) in [(3i64, 8u32), (-7, 8), (1 << 40, 64)] {
            let v = Value::Bv(i as u64 & mask(bits), bits);
            for rm in SmtRounding::ALL {
                for op in [SbvToFp(FpFormat::F32), UbvToFp(FpFormat::F64)] {
                    let args = [Value::Rm(rm), v];
                    let host = super::super::apply(op, &args).unwrap();
                    assert!(host.same(&apply(op, &args).unwrap()), "{op:?} {args:?}");
                }
            }
        }
    }

    #[test]
    fn other_formats_round_in_their_own_precision() {
        let half = FpFormat::F16;
        let rtp = Value::Rm(SmtRounding::Rtp);
        let from = |x: f64| {
            apply(
                Op::FpToFp(half),
                &[Value::Rm(SmtRounding::Rne), Value::F64(x)],
            )
            .unwrap()
        };
        // 2049 is not a binary16 value: toward positive it is 2050.
        let sum = apply(Op::FpAdd, &[rtp, from(2048.0), from(1.0)]).unwrap();
        assert!(sum.same(&from(2050.0)), "{sum}");
        assert_eq!(from(65520.0).to_string(), "(fp #b0 #b11111 #b0000000000)");
        let tiny = FpFormat { eb: 3, sb: 5 };
        let x = Value::from_float_bits(tiny, 1 << 4); // exponent field 001: the least normal
        let test = |op| apply(op, &[x]).unwrap().as_bool();
        assert!(test(Op::FpIsNormal) && !test(Op::FpIsSubnormal));
        let quad = Value::from_float_bits(FpFormat::F128, FpFormat::F128.nan());
        assert_eq!(quad.to_string(), "(_ NaN 15 113)");
        let max = apply(
            Op::FpMax,
            &[quad, Value::from_float_bits(FpFormat::F128, 1)],
        );
        assert!(max
            .unwrap()
            .same(&Value::from_float_bits(FpFormat::F128, 1)));
    }
}
