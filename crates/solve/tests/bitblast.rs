//! The bit-precise backend's floating-point circuits against the exact arithmetic
//! of `fpforge_solve::ieee`.
//!
//! * A tiny format, (3, 5): every operand pair (every operand for `sqrt`, a sample of
//!   triples for `fma`) under every rounding mode, by 64-way simulation of the graph.
//!   The reference is `ieee`, itself checked exhaustively against a big-rational
//!   rounding on small formats by its unit tests.
//! * binary32 and binary64: special and random operand tuples per operation and mode,
//!   the inputs fixed as SAT assumptions and the output bits read from CaDiCaL's
//!   model. The default run takes `FPFORGE_BLAST_COUNT` tuples (default 60) per
//!   operation and mode (binary64 `fp.rem`, a circuit of some 10^6 gates, a hundredth
//!   of that); `circuits_match_ieee_10k_through_the_sat_solver` (ignored by default:
//!   hours) takes 10,000. The same circuits see 10,000 tuples per operation, mode and
//!   format by 64-way simulation in the default run.

use std::time::{Duration, Instant};

use fpforge_solve::bitblast::aig::{Aig, Lit};
use fpforge_solve::bitblast::bv::{self, Word};
use fpforge_solve::bitblast::cnf::SatSession;
use fpforge_solve::bitblast::fp;
use fpforge_solve::ieee;
use fpforge_solve::FpFormat as Format;
use fpforge_solve::SmtRounding;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The operations under test: the result is a float or, for predicates, one bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operation {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
    Rem,
    RoundToIntegral,
    Lt,
    Leq,
    Eq,
    Min,
    Max,
    IsSubnormal,
    IsNormal,
    ConvertUp,
    ConvertDown,
    ToSbv(u32),
    ToUbv(u32),
    FromSbv(u32),
    FromUbv(u32),
}

use Operation::*;

impl Operation {
    fn arity(self) -> usize {
        match self {
            Fma => 3,
            Add | Sub | Mul | Div | Rem | Lt | Leq | Eq | Min | Max => 2,
            _ => 1,
        }
    }

    /// The width of each operand (floats of `f` unless the operation reads integers).
    fn operand_width(self, f: Format) -> usize {
        match self {
            FromSbv(w) | FromUbv(w) => w as usize,
            ConvertDown => 64,
            _ => (f.eb + f.sb) as usize,
        }
    }

    fn source(self, f: Format) -> Format {
        match self {
            ConvertDown => Format { eb: 11, sb: 53 },
            _ => f,
        }
    }

    fn target(self, f: Format) -> Format {
        match self {
            ConvertUp => Format { eb: 11, sb: 53 },
            _ => f,
        }
    }

    fn build(self, g: &mut Aig, f: Format, mode: &[Lit], a: &[Word]) -> Word {
        let bit = |l: Lit| vec![l];
        match self {
            Add => fp::add(g, f, mode, &a[0], &a[1]),
            Sub => fp::sub(g, f, mode, &a[0], &a[1]),
            Mul => fp::mul(g, f, mode, &a[0], &a[1]),
            Div => fp::div(g, f, mode, &a[0], &a[1]),
            Fma => fp::fma(g, f, mode, &a[0], &a[1], &a[2]),
            Sqrt => fp::sqrt(g, f, mode, &a[0]),
            Rem => fp::rem(g, f, &a[0], &a[1]),
            RoundToIntegral => fp::round_to_integral(g, f, mode, &a[0]),
            Lt => bit(fp::Compare::new(g, f, &a[0], &a[1]).lt()),
            Leq => {
                let c = fp::Compare::new(g, f, &a[0], &a[1]);
                bit(c.leq(g))
            }
            Eq => bit(fp::Compare::new(g, f, &a[0], &a[1]).eq()),
            // Zeros of two signs are compared with either choice accepted below.
            Min => fp::min_max(g, f, &a[0], &a[1], false, Lit::FALSE),
            Max => fp::min_max(g, f, &a[0], &a[1], true, Lit::FALSE),
            IsSubnormal => bit(fp::classify(g, f, &a[0]).subnormal),
            IsNormal => {
                let u = fp::classify(g, f, &a[0]);
                bit(u.normal(g))
            }
            ConvertUp | ConvertDown => fp::convert(g, self.source(f), self.target(f), mode, &a[0]),
            ToSbv(w) | ToUbv(w) => {
                // Out of range is unspecified: the sentinel word marks it.
                let unspecified = bv::constant(u128::from(UNSPECIFIED), w as usize);
                fp::to_integer(g, f, mode, &a[0], matches!(self, ToSbv(_)), &unspecified).0
            }
            FromSbv(_) => fp::from_integer(g, f, mode, &a[0], true),
            FromUbv(_) => fp::from_integer(g, f, mode, &a[0], false),
        }
    }

    /// The reference result; `None` when SMT-LIB leaves it open.
    fn reference(self, f: Format, rm: SmtRounding, a: &[u64]) -> Option<u64> {
        let a: Vec<u128> = a.iter().copied().map(u128::from).collect();
        self.reference_wide(f, rm, &a).map(|v| v as u64)
    }

    fn reference_wide(self, f: Format, rm: SmtRounding, a: &[u128]) -> Option<u128> {
        let is_zero = |x: u128| x & !(1u128 << (f.eb + f.sb - 1)) == 0;
        let cmp = |x: u128, y: u128| {
            let (nx, ny) = (f.is_nan(x), f.is_nan(y));
            if nx || ny {
                return None;
            }
            Some(ordinal(f, x as u64).cmp(&ordinal(f, y as u64)))
        };
        Some(match self {
            Add => ieee::add(f, rm, a[0], a[1]),
            Sub => ieee::sub(f, rm, a[0], a[1]),
            Mul => ieee::mul(f, rm, a[0], a[1]),
            Div => ieee::div(f, rm, a[0], a[1]),
            Fma => ieee::fma(f, rm, a[0], a[1], a[2]),
            Sqrt => ieee::sqrt(f, rm, a[0]),
            Rem => ieee::rem(f, a[0], a[1]),
            RoundToIntegral => ieee::round_to_integral(f, rm, a[0]),
            Lt => u128::from(cmp(a[0], a[1]) == Some(std::cmp::Ordering::Less)),
            Leq => u128::from(matches!(
                cmp(a[0], a[1]),
                Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
            )),
            Eq => u128::from(cmp(a[0], a[1]) == Some(std::cmp::Ordering::Equal)),
            Min | Max => {
                if f.is_nan(a[0]) {
                    return Some(if f.is_nan(a[1]) { f.nan() } else { a[1] });
                }
                if f.is_nan(a[1]) {
                    return Some(a[0]);
                }
                if is_zero(a[0]) && is_zero(a[1]) && a[0] != a[1] {
                    return None;
                }
                let first_less = cmp(a[0], a[1]) == Some(std::cmp::Ordering::Less);
                if first_less == (self == Min) {
                    a[0]
                } else {
                    a[1]
                }
            }
            IsSubnormal => {
                let exp = (a[0] >> (f.sb - 1)) & ((1 << f.eb) - 1);
                u128::from(exp == 0 && !is_zero(a[0]))
            }
            IsNormal => {
                let exp = (a[0] >> (f.sb - 1)) & ((1 << f.eb) - 1);
                u128::from(exp != 0 && exp != (1 << f.eb) - 1)
            }
            ConvertUp | ConvertDown => ieee::convert(self.source(f), self.target(f), rm, a[0]),
            ToSbv(w) | ToUbv(w) => {
                let (neg, mag) = ieee::to_integer(f, rm, a[0])?;
                let mag: u128 = mag.try_into().ok()?;
                let signed = matches!(self, ToSbv(_));
                let value: i128 = if neg { -(mag as i128) } else { mag as i128 };
                let (lo, hi) = if signed {
                    (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                } else {
                    (0, (1i128 << w) - 1)
                };
                if value < lo || value > hi {
                    return None;
                }
                u128::from((value as u64) & mask(w))
            }
            FromSbv(w) => {
                let v = sign_extend(a[0] as u64, w);
                ieee::from_integer(f, rm, v < 0, u128::from(v.unsigned_abs()))
            }
            FromUbv(_) => ieee::from_integer(f, rm, false, a[0]),
        })
    }

    fn result_is_float(self) -> bool {
        !matches!(
            self,
            Lt | Leq | Eq | IsSubnormal | IsNormal | ToSbv(_) | ToUbv(_)
        )
    }
}

const UNSPECIFIED: u64 = 0x5a5a_5a5a_5a5a_5a5a;

fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn sign_extend(v: u64, w: u32) -> i64 {
    ((v << (64 - w)) as i64) >> (64 - w)
}

/// A total order on non-NaN patterns in which -0 and +0 tie.
fn ordinal(f: Format, x: u64) -> i128 {
    let sign = 1u64 << (f.eb + f.sb - 1);
    let mag = i128::from(x & !sign);
    if x & sign != 0 {
        -mag
    } else {
        mag
    }
}

/// Whether the circuit's output `got` agrees with the reference (NaNs alike; an
/// unspecified reference accepts the sentinel, or either zero for min/max).
fn agrees(op: Operation, f: Format, args: &[u64], got: u64, want: Option<u64>) -> bool {
    match want {
        None => match op {
            ToSbv(w) | ToUbv(w) => got == UNSPECIFIED & mask(w),
            _ => got == args[0] || got == args[1],
        },
        Some(w) if op.result_is_float() => {
            let t = op.target(f);
            (t.is_nan(w.into()) && t.is_nan(got.into())) || w == got
        }
        Some(w) => w == got,
    }
}

const MODES: [SmtRounding; 5] = SmtRounding::ALL;

/// The circuit of `op` over fresh operand and mode inputs.
struct Harness {
    g: Aig,
    mode: Word,
    operands: Vec<Word>,
    out: Word,
}

impl Harness {
    fn new(op: Operation, f: Format) -> Harness {
        let mut g = Aig::new();
        let mode = bv::inputs(&mut g, fp::MODE_BITS);
        let operands: Vec<Word> = (0..op.arity())
            .map(|_| bv::inputs(&mut g, op.operand_width(f)))
            .collect();
        let out = op.build(&mut g, f, &mode, &operands);
        Harness {
            g,
            mode,
            operands,
            out,
        }
    }
}

/// Exhaustive check of `op` on format `f` (operands from `tuples`), 64 tuples per
/// simulation of the graph.
fn simulate_all(op: Operation, f: Format, tuples: &[Vec<u64>]) {
    let h = Harness::new(op, f);
    let mut input_of = vec![None; h.g.len()];
    for (k, l) in h.mode.iter().enumerate() {
        input_of[l.node()] = Some((usize::MAX, k));
    }
    for (i, w) in h.operands.iter().enumerate() {
        for (k, l) in w.iter().enumerate() {
            input_of[l.node()] = Some((i, k));
        }
    }
    let mut failures = Vec::new();
    for rm in MODES {
        for chunk in tuples.chunks(64) {
            let values = h.g.simulate(&|n| {
                let (i, k) = input_of[n].expect("every input is an operand or mode bit");
                chunk.iter().enumerate().fold(0u64, |acc, (lane, t)| {
                    let v = if i == usize::MAX {
                        rm.index() as u64
                    } else {
                        t[i]
                    };
                    acc | (((v >> k) & 1) << lane)
                })
            });
            for (lane, t) in chunk.iter().enumerate() {
                let got = h
                    .out
                    .iter()
                    .enumerate()
                    .map(|(k, &l)| ((Aig::read(&values, l) >> lane) & 1) << k)
                    .sum::<u64>();
                let want = op.reference(f, rm, t);
                if !agrees(op, f, t, got, want) {
                    failures.push(format!("{op:?} {rm:?} {t:x?}: got {got:x}, want {want:x?}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures, first: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
}

const TINY: Format = Format { eb: 3, sb: 5 };

fn all_patterns(f: Format) -> Vec<u64> {
    (0..1u64 << (f.eb + f.sb)).collect()
}

#[test]
fn tiny_format_binary_operations_are_exact_on_every_pair() {
    let p = all_patterns(TINY);
    let pairs: Vec<Vec<u64>> = p
        .iter()
        .flat_map(|&x| p.iter().map(move |&y| vec![x, y]))
        .collect();
    for op in [Add, Sub, Mul, Div, Rem, Lt, Leq, Eq, Min, Max] {
        simulate_all(op, TINY, &pairs);
    }
}

#[test]
fn tiny_format_unary_operations_are_exact_on_every_operand() {
    let singles: Vec<Vec<u64>> = all_patterns(TINY).into_iter().map(|x| vec![x]).collect();
    for op in [
        Sqrt,
        RoundToIntegral,
        IsNormal,
        IsSubnormal,
        ToSbv(4),
        ToUbv(4),
        ToSbv(8),
        ToUbv(3),
    ] {
        simulate_all(op, TINY, &singles);
    }
    let ints: Vec<Vec<u64>> = (0..256u64).map(|x| vec![x]).collect();
    simulate_all(FromSbv(8), TINY, &ints);
    simulate_all(FromUbv(8), TINY, &ints);
}

#[test]
fn tiny_format_fma_is_exact_on_a_sample_of_triples() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let p = all_patterns(TINY);
    let triples: Vec<Vec<u64>> = (0..64 * 1024)
        .map(|_| (0..3).map(|_| p[rng.gen_range(0..p.len())]).collect())
        .collect();
    simulate_all(Fma, TINY, &triples);
}

/// Special operands of a format: zeros, infinities, NaN, subnormal and normal
/// extremes, one, and their negations.
fn specials(f: Format) -> Vec<u64> {
    let sign = 1u64 << (f.eb + f.sb - 1);
    let frac = f.sb - 1;
    let one = ((1u64 << (f.eb - 1)) - 1) << frac;
    let inf = f.inf(false) as u64;
    let positive = [
        0,
        1,
        (1 << frac) - 1,
        1 << frac,
        one,
        one | 1,
        inf - 1,
        inf,
        f.nan() as u64,
        inf | 1,
    ];
    positive.iter().flat_map(|&x| [x, x | sign]).collect()
}

/// A random operand: a special one, a pattern with an exponent near an extreme or
/// near one, or uniform bits.
fn random_operand(rng: &mut ChaCha8Rng, f: Format, specials: &[u64]) -> u64 {
    let width = f.eb + f.sb;
    let frac_bits = f.sb - 1;
    let max_exp = (1u64 << f.eb) - 1;
    match rng.gen_range(0..4) {
        0 => specials[rng.gen_range(0..specials.len())],
        1 => {
            let bias = max_exp / 2;
            let exp = match rng.gen_range(0..3) {
                0 => rng.gen_range(0..4),
                1 => max_exp - rng.gen_range(1..4),
                _ => bias + rng.gen_range(0..8) - 4,
            };
            let frac = rng.gen::<u64>() & mask(frac_bits);
            let sign = u64::from(rng.gen::<bool>()) << (width - 1);
            sign | (exp << frac_bits) | frac
        }
        _ => rng.gen::<u64>() & mask(width),
    }
}

/// `count` operand tuples of `op` on `f`: every pair of specials first for binary
/// operations (as many as fit), then random operands.
fn random_tuples(op: Operation, f: Format, count: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<u64>> {
    let src = op.source(f);
    let sp = specials(src);
    let special_pairs: Vec<Vec<u64>> = if op.arity() == 2 {
        sp.iter()
            .flat_map(|&x| sp.iter().map(move |&y| vec![x, y]))
            .collect()
    } else {
        Vec::new()
    };
    let mut tuples: Vec<Vec<u64>> = special_pairs.into_iter().take(count / 2).collect();
    while tuples.len() < count {
        let args = (0..op.arity())
            .map(|_| match op {
                FromSbv(w) | FromUbv(w) => rng.gen::<u64>() & mask(w),
                _ => random_operand(rng, src, &sp),
            })
            .collect();
        tuples.push(args);
    }
    tuples
}

/// Checks `count` tuples per mode of `op` on `f` through CaDiCaL.
fn sat_check(op: Operation, f: Format, count: usize, seed: u64) {
    let h = Harness::new(op, f);
    let mut sat = SatSession::new();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let deadline = Instant::now() + Duration::from_secs(3600);
    // Encode the output cone once: every later solve only adds assumptions.
    let out_lits: Vec<i32> = h.out.iter().map(|&l| sat.literal(&h.g, l)).collect();
    assert_eq!(out_lits.len(), h.out.len());
    for rm in MODES {
        for args in random_tuples(op, f, count, &mut rng) {
            let mut assumptions = Vec::new();
            let bit_facts = |word: &[Lit], v: u64, acc: &mut Vec<Lit>| {
                for (k, &l) in word.iter().enumerate() {
                    acc.push(if (v >> k) & 1 == 1 { l } else { !l });
                }
            };
            bit_facts(&h.mode, rm.index() as u64, &mut assumptions);
            for (w, &v) in h.operands.iter().zip(&args) {
                bit_facts(w, v, &mut assumptions);
            }
            assert_eq!(sat.solve(&h.g, &assumptions, deadline), Some(true));
            let got: u64 = h
                .out
                .iter()
                .enumerate()
                .map(|(k, &l)| u64::from(sat.value(l)) << k)
                .sum();
            let want = op.reference(f, rm, &args);
            assert!(
                agrees(op, f, &args, got, want),
                "{op:?} {rm:?} {args:x?}: got {got:x}, want {want:x?}"
            );
        }
    }
}

const BINARY32: Format = Format { eb: 8, sb: 24 };
const BINARY64: Format = Format { eb: 11, sb: 53 };

const SAT_OPS: [Operation; 21] = [
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
    Rem,
    RoundToIntegral,
    Lt,
    Leq,
    Eq,
    Min,
    Max,
    IsSubnormal,
    IsNormal,
    ConvertUp,
    ConvertDown,
    ToSbv(32),
    ToUbv(64),
    FromSbv(64),
    FromUbv(32),
];

/// binary64 `fp.rem` unrolls about 2,100 division steps (some 10^6 gates): it gets
/// a hundredth of the tuples.
fn binary64_count(op: Operation, count: usize) -> usize {
    if op == Rem {
        (count / 100).max(1)
    } else {
        count
    }
}

fn count_from_env(default: usize) -> usize {
    std::env::var("FPFORGE_BLAST_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[test]
fn circuits_match_ieee_through_the_sat_solver() {
    let count = count_from_env(60);
    for (i, op) in SAT_OPS.into_iter().enumerate() {
        sat_check(op, BINARY32, count, i as u64);
        if op != ConvertUp {
            sat_check(op, BINARY64, binary64_count(op, count / 2), 100 + i as u64);
        }
    }
}

/// 10,000 special and random tuples per operation, mode and format, by 64-way
/// simulation of the same circuits (the SAT path costs ~4 ms a tuple on binary64).
#[test]
fn circuits_match_ieee_on_10k_tuples_by_simulation() {
    for (i, op) in SAT_OPS.into_iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(1000 + i as u64);
        simulate_all(op, BINARY32, &random_tuples(op, BINARY32, 10_000, &mut rng));
        if op != ConvertUp {
            let count = binary64_count(op, 10_000);
            simulate_all(op, BINARY64, &random_tuples(op, BINARY64, count, &mut rng));
        }
    }
}

#[test]
#[ignore = "10,000 tuples per operation, mode and format through CaDiCaL: hours"]
fn circuits_match_ieee_10k_through_the_sat_solver() {
    let count = count_from_env(10_000);
    for (i, op) in SAT_OPS.into_iter().enumerate() {
        let t = Instant::now();
        sat_check(op, BINARY32, count, 1000 + i as u64);
        if op != ConvertUp {
            sat_check(op, BINARY64, binary64_count(op, count), 2000 + i as u64);
        }
        eprintln!("{op:?}: {:.1}s", t.elapsed().as_secs_f64());
    }
}
