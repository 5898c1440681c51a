//! MPFR at precision 64 in the x87 exponent range (`fpforge_mpfr::x87`) against fpir's
//! soft-float x87 arithmetic (`fpir::f80`): add, sub, mul, div and sqrt, and fma against
//! rustc_apfloat's fused multiply-add on the x87 format, bit for bit in all four
//! rounding modes, on special operands and random canonical bit patterns (subnormals
//! and results at both ends of the exponent range included). `FPFORGE_X87_PAIRS` sets
//! the number of random operand tuples per operation and mode (default 100,000).

use fpforge_mpfr::x87;
use fpir::f80::{self, F80Arith, Round, F80};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use rustc_apfloat::ieee::X87DoubleExtended;
use rustc_apfloat::Float as _;
use std::cmp::Ordering;

const MODES: [Round; 4] = [
    Round::NearestTiesToEven,
    Round::TowardPositive,
    Round::TowardNegative,
    Round::TowardZero,
];

const INTEGER_BIT: u64 = 1 << 63;

fn pairs() -> usize {
    std::env::var("FPFORGE_X87_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// Canonical special operands: zeros, the subnormal and normal extremes, infinities,
/// values around 1 and 2.
fn specials() -> Vec<F80> {
    let magnitudes = [
        F80 { sig: 0, se: 0 },
        F80 { sig: 1, se: 0 },
        F80 {
            sig: INTEGER_BIT - 1,
            se: 0,
        },
        F80 {
            sig: INTEGER_BIT,
            se: 1,
        },
        F80 {
            sig: u64::MAX,
            se: 1,
        },
        F80 {
            sig: INTEGER_BIT,
            se: 16383,
        },
        F80 {
            sig: INTEGER_BIT | 1,
            se: 16383,
        },
        F80 {
            sig: u64::MAX,
            se: 16382,
        },
        F80 {
            sig: INTEGER_BIT,
            se: 16384,
        },
        F80 {
            sig: u64::MAX,
            se: 0x7ffe,
        },
        F80 {
            sig: INTEGER_BIT,
            se: 0x7ffe,
        },
        F80 {
            sig: INTEGER_BIT,
            se: 0x7fff,
        },
        F80 {
            sig: 0xc000_0000_0000_0000,
            se: 16383 - 32,
        },
        F80 {
            sig: 0xaaaa_aaaa_aaaa_aaab,
            se: 16383 + 40,
        },
    ];
    magnitudes
        .iter()
        .flat_map(|&m| {
            [
                m,
                F80 {
                    sig: m.sig,
                    se: m.se | 0x8000,
                },
            ]
        })
        .collect()
}

/// A random canonical value: any exponent, or one near `near` (for cancellation and
/// results at the ends of the range); subnormals with the integer bit clear.
fn random(rng: &mut ChaCha8Rng, near: Option<u16>) -> F80 {
    let exponent = match (near, rng.gen_range(0..8)) {
        (Some(e), 0..=3) => {
            (i32::from(e & 0x7fff) + rng.gen_range(-70..=70)).clamp(0, 0x7ffe) as u16
        }
        (_, 4) => rng.gen_range(0..=64),
        (_, 5) => 0x7ffe - rng.gen_range(0..=64),
        _ => rng.gen_range(0..=0x7ffe),
    };
    let mut sig: u64 = rng.gen();
    if rng.gen_bool(0.25) {
        // Short significands make exact results and ties.
        sig &= !((1u64 << rng.gen_range(1..63)) - 1);
    }
    sig = if exponent == 0 {
        sig & !INTEGER_BIT
    } else {
        sig | INTEGER_BIT
    };
    let sign = if rng.gen() { 0x8000 } else { 0 };
    F80 {
        sig,
        se: sign | exponent,
    }
}

/// Operand tuples: every special combination, then `pairs()` random ones.
fn operands(arity: usize, seed: u64) -> Vec<Vec<F80>> {
    let s = specials();
    let mut out: Vec<Vec<F80>> = Vec::new();
    for (i, &a) in s.iter().enumerate() {
        if arity == 1 {
            out.push(vec![a]);
            continue;
        }
        for (j, &b) in s.iter().enumerate() {
            let mut tuple = vec![a, b];
            if arity == 3 {
                // Every special as the addend, spread over the products.
                tuple.push(s[(i + j) % s.len()]);
            }
            out.push(tuple);
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..pairs() {
        let a = random(&mut rng, None);
        let mut tuple = vec![a];
        for _ in 1..arity {
            let near = tuple.last().map(|x: &F80| x.se);
            tuple.push(random(&mut rng, near));
        }
        out.push(tuple);
    }
    out
}

/// MPFR at precision 64 in mode `round`, finished into the x87 range.
fn mpfr(op: &str, xs: &[F80], round: Round) -> F80 {
    let v: Vec<Float> = xs.iter().map(|&x| x87::value(x, 64)).collect();
    let mode = x87::mpfr_round(round);
    let (r, ternary): (Float, Ordering) = match op {
        "add" => Float::with_val_round(64, &v[0] + &v[1], mode),
        "sub" => Float::with_val_round(64, &v[0] - &v[1], mode),
        "mul" => Float::with_val_round(64, &v[0] * &v[1], mode),
        "div" => Float::with_val_round(64, &v[0] / &v[1], mode),
        "sqrt" => Float::with_val_round(64, v[0].sqrt_ref(), mode),
        "fma" => Float::with_val_round(64, v[0].mul_add_ref(&v[1], &v[2]), mode),
        _ => unreachable!("no such operation {op}"),
    };
    x87::finish(r, ternary, round)
}

/// fpir's soft-float result (rustc_apfloat's for fma, which fpir leaves to the host).
fn soft(op: &str, xs: &[F80], round: Round) -> F80 {
    let arith = |a| f80::arith(a, xs[0], xs[1], round);
    match op {
        "add" => arith(F80Arith::Add),
        "sub" => arith(F80Arith::Sub),
        "mul" => arith(F80Arith::Mul),
        "div" => arith(F80Arith::Div),
        "sqrt" => f80::sqrt(xs[0], round),
        "fma" => {
            let ap = |x: F80| X87DoubleExtended::from_bits(x.to_bits());
            let r = ap(xs[0]).mul_add_r(ap(xs[1]), ap(xs[2]), round).value;
            if r.is_nan() {
                F80::INDEFINITE
            } else {
                F80::from_bits(r.to_bits())
            }
        }
        _ => unreachable!("no such operation {op}"),
    }
}

fn check(op: &str, arity: usize, seed: u64) {
    let tuples = operands(arity, seed);
    for round in MODES {
        let mut mismatches = Vec::new();
        for xs in &tuples {
            let (want, got) = (soft(op, xs, round), mpfr(op, xs, round));
            if want != got {
                mismatches.push(format!(
                    "{op}({}) in {round:?}: fpir {}, MPFR {}",
                    xs.iter()
                        .map(|&x| f80::format_exact(x))
                        .collect::<Vec<_>>()
                        .join(", "),
                    f80::format_exact(want),
                    f80::format_exact(got)
                ));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{} of {} differ, first: {:?}",
            mismatches.len(),
            tuples.len(),
            &mismatches[..mismatches.len().min(5)]
        );
    }
}

#[test]
fn add_matches_fpir() {
    check("add", 2, 1);
}

#[test]
fn sub_matches_fpir() {
    check("sub", 2, 2);
}

#[test]
fn mul_matches_fpir() {
    check("mul", 2, 3);
}

#[test]
fn div_matches_fpir() {
    check("div", 2, 4);
}

#[test]
fn sqrt_matches_fpir() {
    check("sqrt", 1, 5);
}

#[test]
fn fma_matches_apfloat() {
    check("fma", 3, 6);
}

#[test]
fn rounding_to_extended_is_once_and_overflows_by_mode() {
    // 1 + 2^-64 is a tie between 1 and 1 + 2^-63 at 128 bits: nearest-even keeps 1.
    let tie = Float::with_val(128, 1) + Float::with_val(128, Float::u_exp(1, -64));
    assert_eq!(
        x87::round(&tie, Round::NearestTiesToEven),
        F80 {
            sig: INTEGER_BIT,
            se: 16383
        }
    );
    assert_eq!(
        x87::round(&tie, Round::TowardPositive),
        F80 {
            sig: INTEGER_BIT | 1,
            se: 16383
        }
    );
    // Three quarters of the smallest subnormal round up to it; 2^16384 overflows.
    let above_half = Float::with_val(128, Float::u_exp(3, -16447));
    assert_eq!(
        x87::round(&above_half, Round::NearestTiesToEven),
        F80 { sig: 1, se: 0 }
    );
    let huge = Float::with_val(128, Float::u_exp(1, 16384));
    assert_eq!(
        x87::round(&huge, Round::TowardZero),
        F80 {
            sig: u64::MAX,
            se: 0x7ffe
        }
    );
    assert_eq!(
        x87::round(&-huge, Round::NearestTiesToEven),
        F80 {
            sig: INTEGER_BIT,
            se: 0xffff
        }
    );
}
