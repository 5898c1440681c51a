//! x87 80-bit extended precision (`long double`, LLVM's `x86_fp80`): what each operation
//! computes on the bits, as an x86-64 build does.
//!
//! A value is two registers in fpir: the 64-bit significand (with its explicit integer
//! bit) and a 16-bit word holding the sign and the 15-bit biased exponent (see
//! [`F80`]). Lowering turns every operation on such a value into a call of
//! [`crate::Builtin::F80`], which computes through this module: the arithmetic is
//! IEEE-exact on a 64-bit significand (rustc_apfloat's `X87DoubleExtended`, every
//! rounding mode), and the rest is what the x87 unit (and glibc, for `fmodl`) does where
//! IEEE leaves a choice: which NaN a NaN operand propagates, the "indefinite" NaN of an
//! invalid operation, encodings the x87 rejects (unnormals, pseudo-NaNs and
//! pseudo-infinities are invalid operands), and the integer-indefinite value `fist`
//! stores for a float out of an integer's range.
//!
//! Every operation that rounds takes a [`Round`], so a rounding mode chosen at run
//! time (`fesetround`) can reach it; the interpreter passes round-to-nearest-even today.

pub use crate::inst::F80Arith;
use crate::inst::{F80Op, FloatPred};
use crate::types::{FloatTy, Type};
use rustc_apfloat::ieee::{Double, Single, X87DoubleExtended};
use rustc_apfloat::{Float, FloatConvert};
use std::cmp::Ordering;

pub use rustc_apfloat::Round;

/// The bits of one x87 extended value: `sig` with its explicit integer bit (bit 63) and
/// `se`, the sign (bit 15) and biased exponent (bits 0-14). In memory it is 10 bytes:
/// `sig` little-endian, then `se`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct F80 {
    /// The significand, integer bit included.
    pub sig: u64,
    /// Sign and biased exponent.
    pub se: u16,
}

const INTEGER_BIT: u64 = 1 << 63;
const QUIET_BIT: u64 = 1 << 62;
const EXP_MASK: u16 = 0x7fff;
const SIGN_BIT: u16 = 0x8000;

impl F80 {
    /// The x87 "real indefinite": the quiet NaN an invalid operation gives.
    pub const INDEFINITE: F80 = F80 {
        sig: INTEGER_BIT | QUIET_BIT,
        se: 0xffff,
    };

    /// `+0`.
    pub const ZERO: F80 = F80 { sig: 0, se: 0 };

    /// The value whose 80 bits are `bits` (the significand low).
    pub fn from_bits(bits: u128) -> F80 {
        F80 {
            sig: bits as u64,
            se: (bits >> 64) as u16,
        }
    }

    /// The 80 bits, the significand low.
    pub fn to_bits(self) -> u128 {
        u128::from(self.se) << 64 | u128::from(self.sig)
    }

    /// The 10 bytes of memory, little-endian.
    pub fn to_le_bytes(self) -> [u8; 10] {
        let mut out = [0u8; 10];
        out[..8].copy_from_slice(&self.sig.to_le_bytes());
        out[8..].copy_from_slice(&self.se.to_le_bytes());
        out
    }

    /// The value stored in the 10 bytes `bytes`.
    pub fn from_le_bytes(bytes: [u8; 10]) -> F80 {
        let mut sig = [0u8; 8];
        sig.copy_from_slice(&bytes[..8]);
        F80 {
            sig: u64::from_le_bytes(sig),
            se: u16::from_le_bytes([bytes[8], bytes[9]]),
        }
    }

    fn exponent(self) -> u16 {
        self.se & EXP_MASK
    }

    /// True when the sign bit is set.
    pub fn is_negative(self) -> bool {
        self.se & SIGN_BIT != 0
    }

    /// True for an encoding the x87 rejects as an operand: an unnormal (exponent neither
    /// 0 nor all ones, integer bit clear), a pseudo-infinity or a pseudo-NaN (exponent
    /// all ones, integer bit clear).
    pub fn is_unsupported_encoding(self) -> bool {
        self.exponent() != 0 && self.sig & INTEGER_BIT == 0
    }

    /// True for a NaN (a real one: exponent all ones, integer bit set, fraction not 0).
    pub fn is_nan(self) -> bool {
        self.exponent() == EXP_MASK && self.sig & INTEGER_BIT != 0 && self.sig << 1 != 0
    }

    /// True for a signaling NaN.
    pub fn is_signaling(self) -> bool {
        self.is_nan() && self.sig & QUIET_BIT == 0
    }

    fn quieted(self) -> F80 {
        F80 {
            sig: self.sig | QUIET_BIT,
            se: self.se,
        }
    }

    fn to_apfloat(self) -> X87DoubleExtended {
        X87DoubleExtended::from_bits(self.to_bits())
    }

    fn from_apfloat(x: X87DoubleExtended) -> F80 {
        F80::from_bits(x.to_bits())
    }

    /// The value of `bits` of format `ty`, exactly; a NaN keeps its payload and is
    /// quieted, as `fld` does.
    pub fn from_float(ty: FloatTy, bits: u64) -> F80 {
        let (sign, nan_fraction, value) = match ty {
            FloatTy::F32 => {
                let x = Single::from_bits(u128::from(bits as u32));
                (bits >> 31 & 1, (bits & 0x7f_ffff) << 40, convert(x))
            }
            FloatTy::F64 => {
                let x = Double::from_bits(u128::from(bits));
                (bits >> 63, bits << 12 >> 1, convert(x))
            }
        };
        if value.is_nan() {
            return F80 {
                sig: INTEGER_BIT | QUIET_BIT | nan_fraction,
                se: EXP_MASK | (sign as u16) << 15,
            };
        }
        F80::from_apfloat(value)
    }

    /// The value rounded to format `ty` (its bits); a NaN keeps the top of its payload
    /// and is quieted, as `fstp` does.
    pub fn to_float(self, ty: FloatTy, round: Round) -> u64 {
        if self.is_unsupported_encoding() {
            return F80::INDEFINITE.to_float(ty, round);
        }
        let sign = u64::from(self.is_negative());
        let fraction = self.sig & !INTEGER_BIT;
        match ty {
            FloatTy::F32 if self.is_nan() => {
                sign << 31 | 0x7fc0_0000 | (fraction >> 40) & 0x7f_ffff
            }
            FloatTy::F64 if self.is_nan() => {
                sign << 63 | 0x7ff8 << 48 | (fraction >> 11) & ((1 << 52) - 1)
            }
            FloatTy::F32 => {
                let x: Single = self.to_apfloat().convert_r(round, &mut false).value;
                x.to_bits() as u64
            }
            FloatTy::F64 => {
                let x: Double = self.to_apfloat().convert_r(round, &mut false).value;
                x.to_bits() as u64
            }
        }
    }

    /// `i64` to extended: exact.
    pub fn from_i64(v: i64) -> F80 {
        F80::from_apfloat(X87DoubleExtended::from_i128(i128::from(v)).value)
    }

    /// `u64` to extended: exact.
    pub fn from_u64(v: u64) -> F80 {
        F80::from_apfloat(X87DoubleExtended::from_u128(u128::from(v)).value)
    }

    /// What `fistp` of `width` bits (16, 32 or 64) stores after truncation toward zero:
    /// the integer, or the integer indefinite (`1 << (width - 1)`) for a NaN, an
    /// infinity or a value out of range.
    pub fn fist(self, width: u32) -> u64 {
        let indefinite = 1u64 << (width - 1);
        if self.is_nan() || self.is_unsupported_encoding() {
            return indefinite;
        }
        let converted = self
            .to_apfloat()
            .to_i128_r(128, Round::TowardZero, &mut true);
        let v = converted.value;
        let limit = 1i128 << (width - 1);
        if converted.status.contains(rustc_apfloat::Status::INVALID_OP) || v < -limit || v >= limit
        {
            return indefinite;
        }
        v as u64 & mask(width)
    }

    /// `fptosi` to an integer of `width` bits as x86-64 code computes it: `fistp` of 16,
    /// 32 or 64 bits (an `i8` through 16 bits), truncated to the width.
    pub fn to_signed(self, width: u32) -> u64 {
        let stored = match width {
            0..=16 => self.fist(16),
            17..=32 => self.fist(32),
            _ => self.fist(64),
        };
        stored & mask(width)
    }

    /// `fptoui` to an integer of `width` bits as x86-64 code computes it: through a
    /// wider signed `fistp` (an `i64` by subtracting 2^63 from large values first and
    /// setting the top bit back), truncated to the width.
    pub fn to_unsigned(self, width: u32) -> u64 {
        match width {
            0..=8 => self.fist(16) & mask(width),
            9..=16 => self.fist(32) & mask(width),
            17..=32 => self.fist(64) & mask(width),
            _ => {
                let two63 = F80 {
                    sig: INTEGER_BIT,
                    se: 16383 + 63,
                };
                // A NaN takes the large-value path, as the compiled code's `jb` does.
                if compare(FloatPred::Uge, self, two63) {
                    let reduced = arith(F80Arith::Sub, self, two63, Round::NearestTiesToEven);
                    reduced.fist(64) ^ INTEGER_BIT
                } else {
                    self.fist(64)
                }
            }
        }
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

fn convert<F: FloatConvert<X87DoubleExtended>>(x: F) -> X87DoubleExtended {
    x.convert(&mut false).value
}

/// The NaN an x87 arithmetic operation returns when an operand is a NaN or an encoding
/// it rejects; `None` when both operands are numbers.
fn propagated_nan(a: F80, b: F80) -> Option<F80> {
    if a.is_unsupported_encoding() || b.is_unsupported_encoding() {
        return Some(F80::INDEFINITE);
    }
    match (a.is_nan(), b.is_nan()) {
        // A quiet NaN wins over a signaling one, then the larger significand.
        (true, true) if a.is_signaling() != b.is_signaling() => {
            Some(if a.is_signaling() { b } else { a })
        }
        (true, true) => {
            let (qa, qb) = (a.quieted(), b.quieted());
            Some(match qa.sig.cmp(&qb.sig) {
                Ordering::Less => qb,
                Ordering::Greater => qa,
                Ordering::Equal if a.is_negative() => qb,
                Ordering::Equal => qa,
            })
        }
        (true, false) => Some(a.quieted()),
        (false, true) => Some(b.quieted()),
        (false, false) => None,
    }
}

/// `a op b`, rounded as `round` says.
pub fn arith(op: F80Arith, a: F80, b: F80, round: Round) -> F80 {
    if let Some(nan) = propagated_nan(a, b) {
        return nan;
    }
    let (x, y) = (a.to_apfloat(), b.to_apfloat());
    let r = match op {
        F80Arith::Add => x.add_r(y, round),
        F80Arith::Sub => x.sub_r(y, round),
        F80Arith::Mul => x.mul_r(y, round),
        F80Arith::Div => x.div_r(y, round),
        F80Arith::Rem => x.c_fmod(y),
    }
    .value;
    if r.is_nan() {
        return F80::INDEFINITE;
    }
    F80::from_apfloat(r)
}

/// The square root, correctly rounded as `fsqrt` does (`sqrtl`).
pub fn sqrt(a: F80, round: Round) -> F80 {
    if let Some(nan) = propagated_nan(a, a) {
        return nan;
    }
    let x = a.to_apfloat();
    if x.is_zero() || (x.is_infinite() && !x.is_negative()) {
        return a;
    }
    if x.is_negative() {
        return F80::INDEFINITE;
    }
    // x = m * 2^e with m an integer; scale m into [2^126, 2^128) with e even, so the
    // integer root r has exactly 64 bits, and round on the remainder: the root lies
    // above r + 1/2 exactly when m - r^2 > r (never on it: m is an integer).
    let (m, e) = integer_significand(a);
    let mut shift = m.leading_zeros() as i32;
    if (e - shift) % 2 != 0 {
        shift -= 1;
    }
    let (m, e) = (m << shift, e - shift);
    let r = isqrt(m);
    let remainder = m - r * r;
    let round_up = match round {
        Round::NearestTiesToEven | Round::NearestTiesToAway => remainder > r,
        Round::TowardPositive => remainder != 0,
        Round::TowardNegative | Round::TowardZero => false,
    };
    let value = X87DoubleExtended::from_u128(r).value;
    let value = if round_up {
        value.next_up().value
    } else {
        value
    };
    F80::from_apfloat(value.scalbn(e / 2))
}

/// `(m, e)` with `a = m * 2^e`, `m` the significand as an integer.
fn integer_significand(a: F80) -> (u128, i32) {
    let exponent = i32::from(a.exponent()).max(1);
    (u128::from(a.sig), exponent - 16383 - 63)
}

/// The integer square root (floor).
fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    let mut x = (n as f64).sqrt() as u128;
    while x.checked_mul(x).is_none_or(|s| s > n) {
        x -= 1;
    }
    while (x + 1).checked_mul(x + 1).is_some_and(|s| s <= n) {
        x += 1;
    }
    x
}

/// `fcmp pred a, b`: NaNs (and rejected encodings) compare unordered.
pub fn compare(pred: FloatPred, a: F80, b: F80) -> bool {
    let relation = a.to_apfloat().partial_cmp(&b.to_apfloat());
    let (eq, gt, lt, uno) = match relation {
        Some(Ordering::Equal) => (true, false, false, false),
        Some(Ordering::Greater) => (false, true, false, false),
        Some(Ordering::Less) => (false, false, true, false),
        None => (false, false, false, true),
    };
    use FloatPred as P;
    match pred {
        P::False => false,
        P::Oeq => eq,
        P::Ogt => gt,
        P::Oge => gt || eq,
        P::Olt => lt,
        P::Ole => lt || eq,
        P::One => lt || gt,
        P::Ord => !uno,
        P::Ueq => uno || eq,
        P::Ugt => uno || gt,
        P::Uge => uno || gt || eq,
        P::Ult => uno || lt,
        P::Ule => uno || lt || eq,
        P::Une => !eq,
        P::Uno => uno,
        P::True => true,
    }
}

/// Formats exactly: a C99 hex float (`0x1.8p+0`, `-0x0.0000000000000002p-16382`, `inf`)
/// for numbers, `raw:` and the 20 hex digits of the bits for NaNs and the encodings
/// the x87 rejects.
pub fn format_exact(a: F80) -> String {
    let sign = if a.is_negative() { "-" } else { "" };
    if a.is_nan() || a.is_unsupported_encoding() {
        return format!("raw:{:020x}", a.to_bits());
    }
    let exponent = a.exponent();
    if exponent == EXP_MASK {
        return format!("{sign}inf");
    }
    if a.sig == 0 {
        return format!("{sign}0x0p+0");
    }
    let lead = a.sig >> 63;
    let exp = i32::from(exponent.max(1)) - 16383;
    let mut digits = format!("{:016x}", a.sig << 1);
    while digits.ends_with('0') {
        digits.pop();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!("{sign}0x{lead}{dot}{digits}p{exp:+}")
}

/// A decimal that reads back ([`parse`]) to the same value; `nan` (with its sign) for
/// NaNs and the encodings the x87 rejects.
pub fn format_decimal(a: F80) -> String {
    let sign = if a.is_negative() { "-" } else { "" };
    if a.is_nan() || a.is_unsupported_encoding() {
        return format!("{sign}nan");
    }
    let x = a.to_apfloat();
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    format!("{x}")
}

/// Reads an extended literal: decimal or C99 hex float (correctly rounded, an `L`
/// suffix allowed), `inf`, `nan`, or `raw:` and the hex digits of the 80 bits.
pub fn parse(text: &str) -> Option<F80> {
    let t = text.trim();
    let t = t.strip_suffix(['L', 'l']).unwrap_or(t);
    if let Some(hex) = t.strip_prefix("raw:") {
        let bits = u128::from_str_radix(hex, 16).ok()?;
        return (bits >> 80 == 0).then(|| F80::from_bits(bits));
    }
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let magnitude = match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => F80 {
            sig: INTEGER_BIT,
            se: EXP_MASK,
        },
        "nan" => F80 {
            sig: INTEGER_BIT | QUIET_BIT,
            se: EXP_MASK,
        },
        "" => return None,
        _ if body.starts_with(['+', '-']) => return None,
        _ => {
            let x = X87DoubleExtended::from_str_r(body, Round::NearestTiesToEven).ok()?;
            F80::from_apfloat(x.value)
        }
    };
    Some(F80 {
        sig: magnitude.sig,
        se: magnitude.se | if negative { SIGN_BIT } else { 0 },
    })
}

/// The most argument words an [`F80Op`] call takes: a ternary math function's three
/// extended operands (`fmal`).
pub const MAX_ARGS: usize = 6;

/// The half of an extended result that the call computing it did not return, with
/// what identifies the call of the other half: the same operation on the same
/// arguments in the same rounding mode, at the other half's type. Every such call
/// computes the same value, so answering it with this half is exact.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OtherHalf {
    op: F80Op,
    ty: Type,
    args: [u64; MAX_ARGS],
    round: Round,
    bits: u64,
}

impl OtherHalf {
    /// The half of `x`, the result of `op` on `args` rounded as `round` says, that a
    /// call of type `ty` does not return.
    pub fn of(x: F80, op: F80Op, ty: Type, args: &[u64; MAX_ARGS], round: Round) -> Self {
        let (ty, bits) = if ty == Type::Int(16) {
            (Type::I64, x.sig)
        } else {
            (Type::Int(16), u64::from(x.se))
        };
        OtherHalf {
            op,
            ty,
            args: *args,
            round,
            bits,
        }
    }

    /// What the call `op` of type `ty` on `args` rounded as `round` says returns, if it
    /// is this half's call.
    pub fn answer(&self, op: F80Op, ty: Type, args: &[u64; MAX_ARGS], round: Round) -> Option<u64> {
        let same = self.op == op && self.ty == ty && self.args == *args && self.round == round;
        same.then_some(self.bits)
    }
}

/// What an [`F80Op`] computes: an extended value (both halves at once, though a call
/// returns one of them) or the bits of the call's float or integer result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Evaluated {
    /// The result of an operation whose result is extended.
    Extended(F80),
    /// The result of a comparison or a conversion out of extended.
    Bits(u64),
}

impl Evaluated {
    /// What a call whose result type is `result` returns: the half of an extended value
    /// the type names (`i16` the sign and exponent, any other the significand).
    pub fn for_result(self, result: Type) -> u64 {
        match self {
            Evaluated::Extended(x) if result == Type::Int(16) => u64::from(x.se),
            Evaluated::Extended(x) => x.sig,
            Evaluated::Bits(bits) => bits,
        }
    }
}

/// What the builtin [`F80Op`] computes on the bits `args` of its arguments, for a call
/// whose result type is `result` (the float or integer type of the results that are not
/// extended). Missing arguments read as zero. `None` for [`F80Op::Libm`], which the
/// host's C library computes (`fpforge_exec`).
pub fn evaluate(op: F80Op, result: Type, args: &[u64], round: Round) -> Option<Evaluated> {
    let arg = |k: usize| args.get(k).copied().unwrap_or(0);
    let operand = |k: usize| F80 {
        sig: arg(k),
        se: arg(k + 1) as u16,
    };
    Some(match op {
        F80Op::Libm(_) => return None,
        F80Op::Arith(a) => Evaluated::Extended(arith(a, operand(0), operand(2), round)),
        F80Op::Sqrt => Evaluated::Extended(sqrt(operand(0), round)),
        F80Op::Cmp => {
            let pred = FloatPred::ALL[arg(4) as usize % FloatPred::ALL.len()];
            Evaluated::Bits(u64::from(compare(pred, operand(0), operand(2))))
        }
        F80Op::FromDouble => Evaluated::Extended(F80::from_float(FloatTy::F64, arg(0))),
        F80Op::FromSigned => Evaluated::Extended(F80::from_i64(arg(0) as i64)),
        F80Op::FromUnsigned => Evaluated::Extended(F80::from_u64(arg(0))),
        F80Op::ToFloat => Evaluated::Bits(match result {
            Type::Float(ty) => operand(0).to_float(ty, round),
            _ => operand(0).to_float(FloatTy::F64, round),
        }),
        F80Op::ToSigned => Evaluated::Bits(operand(0).to_signed(result.bits())),
        F80Op::ToUnsigned => Evaluated::Bits(operand(0).to_unsigned(result.bits())),
    })
}

/// What the builtin [`F80Op`] computes on the bits `args` of its arguments, for a call
/// whose result type is `result` (which half of an extended result, or the float or
/// integer type of the others): [`evaluate`]'s value as [`Evaluated::for_result`] gives
/// it. `None` for [`F80Op::Libm`].
pub fn eval_builtin(op: F80Op, result: Type, args: &[u64], round: Round) -> Option<u64> {
    evaluate(op, result, args, round).map(|e| e.for_result(result))
}
