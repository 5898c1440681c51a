//! `fpir::eval::rounded` (the interpreter's arithmetic in every rounding mode) against
//! [`fpforge_solve::ieee`], the exact big-integer evaluator, as the oracle: for each
//! operation, format and mode, 10^5 operand tuples (special values, random bit patterns,
//! and operands drawn near one another, near the subnormals and near overflow, where the
//! fast paths hand over to the exact one) must give bit-identical results (any NaN for a
//! NaN: the oracle's NaN is canonical).

use fpforge_solve::ieee;
use fpforge_solve::FpFormat as Format;
use fpforge_solve::SmtRounding as Rm;
use fpir::eval::rounded::{self, Rounded};
use fpir::eval::RoundingMode;
use fpir::{FloatTy, Type};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const CASES: usize = 100_000;

fn oracle_mode(mode: RoundingMode) -> Rm {
    match mode {
        RoundingMode::Nearest => Rm::Rne,
        RoundingMode::Downward => Rm::Rtn,
        RoundingMode::Upward => Rm::Rtp,
        RoundingMode::TowardZero => Rm::Rtz,
    }
}

fn format(ty: FloatTy) -> Format {
    match ty {
        FloatTy::F32 => Format { eb: 8, sb: 24 },
        FloatTy::F64 => Format { eb: 11, sb: 53 },
    }
}

/// Operands of format `ty`: specials, random bits, and values with exponents chosen so
/// that sums cancel and products and quotients land near either end of the range.
struct Operands {
    rng: ChaCha8Rng,
    ty: FloatTy,
}

impl Operands {
    fn specials(ty: FloatTy) -> Vec<u64> {
        let list: &[u64] = match ty {
            FloatTy::F32 => &[
                0,
                0x8000_0000,
                1,
                0x8000_0001,
                0x007f_ffff,
                0x0080_0000,
                0x0080_0001,
                0x3f80_0000,
                0xbf80_0000,
                0x3f80_0001,
                0x3fff_ffff,
                0x7f7f_ffff,
                0xff7f_ffff,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0x7fa0_0000,
                0x4040_0000,
                0x3eaa_aaab,
            ],
            FloatTy::F64 => &[
                0,
                1 << 63,
                1,
                (1 << 63) | 1,
                0x000f_ffff_ffff_ffff,
                0x0010_0000_0000_0000,
                0x0010_0000_0000_0001,
                0x3ff0_0000_0000_0000,
                0xbff0_0000_0000_0000,
                0x3ff0_0000_0000_0001,
                0x3fff_ffff_ffff_ffff,
                0x7fef_ffff_ffff_ffff,
                0xffef_ffff_ffff_ffff,
                0x7ff0_0000_0000_0000,
                0xfff0_0000_0000_0000,
                0x7ff8_0000_0000_0000,
                0x7ff4_0000_0000_0000,
                0x4008_0000_0000_0000,
                0x3fd5_5555_5555_5555,
            ],
        };
        list.to_vec()
    }

    fn width(&self) -> u32 {
        match self.ty {
            FloatTy::F32 => 32,
            FloatTy::F64 => 64,
        }
    }

    fn exponent_bits(&self) -> u32 {
        match self.ty {
            FloatTy::F32 => 8,
            FloatTy::F64 => 11,
        }
    }

    /// A finite value with biased exponent `e` and a random sign and fraction.
    fn with_exponent(&mut self, e: i64) -> u64 {
        let frac_bits = self.width() - 1 - self.exponent_bits();
        let max = (1i64 << self.exponent_bits()) - 2;
        let e = e.clamp(0, max) as u64;
        let frac = self.rng.gen::<u64>() & ((1 << frac_bits) - 1);
        let sign = u64::from(self.rng.gen::<bool>()) << (self.width() - 1);
        sign | e << frac_bits | frac
    }

    fn exponent_of(&self, bits: u64) -> i64 {
        let frac_bits = self.width() - 1 - self.exponent_bits();
        ((bits >> frac_bits) & ((1 << self.exponent_bits()) - 1)) as i64
    }

    /// One value, possibly related to `other`.
    fn next(&mut self, other: u64) -> u64 {
        let bias = (1i64 << (self.exponent_bits() - 1)) - 1;
        let max = 2 * bias;
        match self.rng.gen_range(0..8) {
            0 => {
                let s = Self::specials(self.ty);
                s[self.rng.gen_range(0..s.len())]
            }
            1 | 2 => self.rng.gen::<u64>() >> (64 - self.width()),
            3 => {
                // Close to `other` (sums cancel).
                let e = self.exponent_of(other) + self.rng.gen_range(-3..=3);
                self.with_exponent(e)
            }
            4 => {
                // Products and quotients with `other` near the subnormals.
                let target = self.rng.gen_range(-70..=3);
                let e = target - self.exponent_of(other) + 2 * bias;
                let chosen = if self.rng.gen() { e } else { target + bias };
                self.with_exponent(chosen)
            }
            5 => {
                // ... and near overflow.
                let e = max + bias - self.exponent_of(other) + self.rng.gen_range(-2..=2);
                self.with_exponent(e)
            }
            6 => {
                let e = self.rng.gen_range(0..=3);
                self.with_exponent(e)
            }
            _ => {
                let e = self.rng.gen_range(bias - 30..=bias + 30);
                self.with_exponent(e)
            }
        }
    }
}

fn agrees(ty: FloatTy, ours: Rounded, expected: u128) -> bool {
    let f = format(ty);
    if f.is_nan(expected) {
        f.is_nan(u128::from(ours.bits))
    } else {
        u128::from(ours.bits) == expected
    }
}

type Ours = fn(FloatTy, RoundingMode, &[u64]) -> Rounded;
type Oracle = fn(Format, Rm, &[u128]) -> u128;

fn check(name: &str, arity: usize, ours: Ours, oracle: Oracle) {
    for ty in [FloatTy::F32, FloatTy::F64] {
        for mode in RoundingMode::ALL {
            let mut gen = Operands {
                rng: ChaCha8Rng::seed_from_u64(0x5eed ^ (arity as u64) << 8),
                ty,
            };
            let specials = Operands::specials(ty);
            let mut tuples: Vec<Vec<u64>> = Vec::with_capacity(CASES);
            for &a in &specials {
                for &b in &specials {
                    tuples.push(vec![a, b, specials[(a ^ b) as usize % specials.len()]]);
                }
            }
            while tuples.len() < CASES {
                let a = gen.next(0x3ff0_0000_0000_0000 >> (64 - gen.width()));
                let b = gen.next(a);
                let near = if gen.rng.gen() { a } else { b };
                let c = gen.next(near);
                tuples.push(vec![a, b, c]);
            }
            for t in &tuples {
                let args = &t[..arity];
                let got = ours(ty, mode, args);
                let wide: Vec<u128> = args.iter().copied().map(u128::from).collect();
                let want = oracle(format(ty), oracle_mode(mode), &wide);
                assert!(
                    agrees(ty, got, want),
                    "{name} {ty:?} {mode:?} {args:x?}: got {:#x}, oracle {want:#x}",
                    got.bits
                );
            }
        }
    }
}

#[test]
fn add_sub_agree_with_the_exact_evaluator() {
    check(
        "fadd",
        2,
        |t, m, a| rounded::fadd_in(t, m, a[0], a[1]),
        |f, r, a| ieee::add(f, r, a[0], a[1]),
    );
    check(
        "fsub",
        2,
        |t, m, a| rounded::fsub_in(t, m, a[0], a[1]),
        |f, r, a| ieee::sub(f, r, a[0], a[1]),
    );
}

#[test]
fn mul_div_agree_with_the_exact_evaluator() {
    check(
        "fmul",
        2,
        |t, m, a| rounded::fmul_in(t, m, a[0], a[1]),
        |f, r, a| ieee::mul(f, r, a[0], a[1]),
    );
    check(
        "fdiv",
        2,
        |t, m, a| rounded::fdiv_in(t, m, a[0], a[1]),
        |f, r, a| ieee::div(f, r, a[0], a[1]),
    );
}

#[test]
fn sqrt_fma_agree_with_the_exact_evaluator() {
    check(
        "sqrt",
        1,
        |t, m, a| rounded::sqrt_in(t, m, a[0]),
        |f, r, a| ieee::sqrt(f, r, a[0]),
    );
    check(
        "fma",
        3,
        |t, m, a| rounded::fma_in(t, m, a[0], a[1], a[2]),
        |f, r, a| ieee::fma(f, r, a[0], a[1], a[2]),
    );
}

#[test]
fn conversions_agree_with_the_exact_evaluator() {
    let f64_to_f32 = |_: FloatTy, m: RoundingMode, a: &[u64]| {
        rounded::fconvert_in(FloatTy::F64, FloatTy::F32, m, a[0])
    };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for mode in RoundingMode::ALL {
        let mut gen = Operands {
            rng: ChaCha8Rng::seed_from_u64(11),
            ty: FloatTy::F64,
        };
        for k in 0..CASES {
            // Doubles around the float range's ends (biased exponents 1023 +- 150).
            let a = if k % 2 == 0 {
                let e = 1023 + gen.rng.gen_range(-160..=130);
                gen.with_exponent(e)
            } else {
                gen.next(0x3ff0_0000_0000_0000)
            };
            let got = f64_to_f32(FloatTy::F32, mode, &[a]);
            let want = ieee::convert(
                format(FloatTy::F64),
                format(FloatTy::F32),
                oracle_mode(mode),
                u128::from(a),
            );
            assert!(agrees(FloatTy::F32, got, want), "fptrunc {mode:?} {a:#x}");
            let i: i64 = rng.gen::<i64>() >> rng.gen_range(0..63);
            for to in [FloatTy::F32, FloatTy::F64] {
                let got = rounded::sitofp_in(Type::I64, to, mode, i as u64);
                let want = ieee::from_integer(
                    format(to),
                    oracle_mode(mode),
                    i < 0,
                    u128::from(i.unsigned_abs()),
                );
                assert!(agrees(to, got, want), "sitofp {to:?} {mode:?} {i}");
                // Not 0, which clang's sequence converts to -0 downward (tests/rounded_sse.rs).
                let u = (i as u64).max(1);
                let got = rounded::uitofp_in(Type::I64, to, mode, u);
                let want = ieee::from_integer(format(to), oracle_mode(mode), false, u128::from(u));
                assert!(agrees(to, got, want), "uitofp {to:?} {mode:?} {u}");
            }
        }
    }
}
