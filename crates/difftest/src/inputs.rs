//! Deterministic input generators for differential runs.
//!
//! Each scalar is drawn from one of four families: special values (signed zeros,
//! infinities, NaNs, subnormal and normal extremes, ±1, integer boundaries that make
//! conversions overflow), random bit patterns, moderate normals (uniform in a small range
//! or log-uniform in magnitude) and small integers. The first inputs of a run walk the
//! special values in order so every one of them is tried on every parameter; then, for
//! functions of two or more scalars, every pair of the first [`PAIRED_SPECIALS`] special
//! values is tried on the first two (`fmin(+0, -0)`, `atan2(-0, -inf)`, ...). Pointer
//! parameters get arrays whose length is the value of the function's last `i32`
//! parameter, so the C code never reads past a buffer; without an `i32` parameter they
//! are out-parameters (`frexp(x, &e)`) and get 8 elements.

use crate::dispatch::AbiKind;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How many leading special values are tried in all pairs on the first two parameters.
pub const PAIRED_SPECIALS: usize = 16;

/// Special binary64 values, as bits.
pub const F64_SPECIALS: &[u64] = &[
    0x0000_0000_0000_0000, // +0
    0x8000_0000_0000_0000, // -0
    0x7ff0_0000_0000_0000, // +inf
    0xfff0_0000_0000_0000, // -inf
    0x7ff8_0000_0000_0000, // qNaN
    0xfff8_0000_0000_0000, // -qNaN
    0x7ff0_0000_0000_0001, // sNaN
    0x7ff8_dead_beef_0001, // qNaN with payload
    0x0000_0000_0000_0001, // min subnormal
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff, // max subnormal
    0x0008_0000_0000_0000,
    0x0010_0000_0000_0000, // min normal
    0x8010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff, // max finite
    0xffef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000, // 1
    0xbff0_0000_0000_0000, // -1
    0x3fef_ffff_ffff_ffff, // 1 - ulp
    0x3ff0_0000_0000_0001, // 1 + ulp
    0x3fe0_0000_0000_0000, // 0.5
    0xbfe0_0000_0000_0000, // -0.5
    0x4000_0000_0000_0000, // 2
    0x4008_0000_0000_0000, // 3
    0xc024_0000_0000_0000, // -10
    0x4059_0000_0000_0000, // 100
    0x400921fb54442d18,    // pi
    0x3ff921fb54442d18,    // pi/2
    0x4005bf0a8b145769,    // e
    0x3fe62e42fefa39ef,    // ln 2
    0x3fb999999999999a,    // 0.1
    0x41e0_0000_0000_0000, // 2^31
    0xc1e0_0000_0000_0000, // -2^31
    0xc1e0_0000_0020_0000, // -2^31 - 1
    0x41f0_0000_0000_0000, // 2^32
    0x43e0_0000_0000_0000, // 2^63
    0xc3e0_0000_0000_0000, // -2^63
    0x43f0_0000_0000_0000, // 2^64
    0x4330_0000_0000_0000, // 2^52
    0x4340_0000_0000_0000, // 2^53
    0x40862e42fefa39ef,    // 709.78 (exp overflow edge)
    0xc0874910d52d3051,    // -745.13 (exp underflow edge)
    0x7e37_e43c_8800_759c, // 1e300
    0x01a5_6e1f_c2f8_f359, // 1e-300
];

/// Special binary32 values, as bits.
pub const F32_SPECIALS: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x7fc0_beef,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0040_0000,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x3f7f_ffff,
    0x3f80_0001,
    0x3f00_0000,
    0xbf00_0000,
    0x4000_0000,
    0x4040_0000,
    0xc120_0000,
    0x42c8_0000,
    0x4049_0fdb, // pi
    0x3fc9_0fdb, // pi/2
    0x3dcc_cccd, // 0.1
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0x4f80_0000, // 2^32
    0x5f00_0000, // 2^63
    0xdf00_0000, // -2^63
    0x5f80_0000, // 2^64
    0x42b1_7218, // 88.72 (expf overflow edge)
    0xc2ce_8ed0, // -103.28
];

/// Special `i32` values.
pub const I32_SPECIALS: &[i32] = &[
    0,
    1,
    -1,
    2,
    -2,
    3,
    7,
    -7,
    31,
    32,
    33,
    63,
    64,
    100,
    -100,
    1023,
    -1074,
    i32::MAX,
    i32::MIN,
    i32::MAX - 1,
    i32::MIN + 1,
];

/// Special `i64` values.
pub const I64_SPECIALS: &[i64] = &[
    0,
    1,
    -1,
    2,
    -2,
    63,
    64,
    1 << 32,
    -(1 << 32),
    1 << 53,
    i64::MAX,
    i64::MIN,
    i64::MAX - 1,
    i64::MIN + 1,
    i32::MAX as i64,
    i32::MIN as i64,
];

/// Special `long double` significands (with [`F80_EXP_SPECIALS`], paired on the first
/// two scalars of `f(long double)`): zero, the integer bit alone (a power of two, or
/// infinity), the quiet bit, all ones, denormal and unnormal patterns, pi and ln 2.
pub const F80_SIG_SPECIALS: &[u64] = &[
    0x8000_0000_0000_0000,
    0,
    0xc000_0000_0000_0000,
    0x8000_0000_0000_0001,
    u64::MAX,
    1,
    0x4000_0000_0000_0000,
    0xc90f_daa2_2168_c235,
    0xb172_17f7_d1cf_79ac,
    0xffff_ffff_ffff_fffe,
    0x8000_0000_0000_0800,
];

/// Special `long double` signs and exponents: around 1, the zero and infinity/NaN
/// exponents of both signs, the extremes, and the edges where conversions overflow.
pub const F80_EXP_SPECIALS: &[u16] = &[
    0x3fff, 0xbfff, 0x0000, 0x8000, 0x7fff, 0xffff, 0x3ffe, 0x4000, 0x4005, 0xc002, 0x3fbf, 0x7ffe,
    0x0001, 0x401e, 0x403e, 0x400c, 0x43fe, 0x3c00, 0xbc01,
];

/// What to generate for one parameter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParamSpec {
    /// A scalar of this kind.
    Scalar(AbiKind),
    /// The length of every array argument: an `i32` in `0..=max_len`.
    Length,
    /// An array of this element kind, with the length of the `Length` parameter.
    Array(AbiKind),
}

/// A generated argument.
#[derive(Clone, PartialEq, Debug)]
pub enum ArgValue {
    /// Bits of a scalar (zero-extended).
    Scalar(u64),
    /// Element bits of an array.
    Array(Vec<u64>),
}

/// Chooses what to generate for each parameter of a function: arrays for pointers
/// (element kind from `pointees`, `f64` when unknown), and the last `i32` parameter as
/// their length when there are pointers.
pub fn plan(params: &[AbiKind], pointees: &[Option<AbiKind>]) -> Vec<ParamSpec> {
    let has_ptr = params.contains(&AbiKind::Ptr);
    let length = if has_ptr {
        params.iter().rposition(|&k| k == AbiKind::I32)
    } else {
        None
    };
    params
        .iter()
        .enumerate()
        .map(|(i, &k)| match k {
            AbiKind::Ptr => {
                ParamSpec::Array(pointees.get(i).copied().flatten().unwrap_or(AbiKind::F64))
            }
            _ if Some(i) == length => ParamSpec::Length,
            _ => ParamSpec::Scalar(k),
        })
        .collect()
}

/// A deterministic stream of argument lists for one function.
#[derive(Clone, Debug)]
pub struct InputGen {
    rng: ChaCha8Rng,
    specs: Vec<ParamSpec>,
    max_len: u32,
    fixed_len: u32,
    int_limit: Option<u64>,
    index: usize,
}

impl InputGen {
    /// A generator for `specs`, seeded from `seed` and the function's name so each
    /// function gets its own reproducible stream.
    pub fn new(specs: Vec<ParamSpec>, seed: u64, name: &str) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        InputGen {
            rng: ChaCha8Rng::seed_from_u64(seed ^ h),
            specs,
            max_len: 12,
            fixed_len: 8,
            int_limit: None,
            index: 0,
        }
    }

    /// Sets the largest array length generated (default 12).
    pub fn with_max_len(mut self, max_len: u32) -> Self {
        self.max_len = max_len;
        self
    }

    /// Folds every generated integer scalar into `[-limit, limit]` (by remainder), for
    /// functions whose running time grows with an integer argument (`jn(n, x)`).
    pub fn with_int_limit(mut self, limit: u64) -> Self {
        self.int_limit = Some(limit);
        self
    }

    /// The next argument list.
    pub fn next_args(&mut self) -> Vec<ArgValue> {
        let i = self.index;
        self.index += 1;
        let len = if self.specs.contains(&ParamSpec::Length) {
            self.rng.gen_range(0..=self.max_len)
        } else {
            self.fixed_len
        };
        let specs = self.specs.clone();
        let scalars: Vec<usize> = specs
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, ParamSpec::Scalar(_)))
            .map(|(j, _)| j)
            .collect();
        let walk = specs
            .iter()
            .map(|s| match s {
                ParamSpec::Scalar(k) => specials_len(*k),
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let pairs = if scalars.len() >= 2 {
            PAIRED_SPECIALS * PAIRED_SPECIALS
        } else {
            0
        };
        let mut args: Vec<ArgValue> = specs
            .iter()
            .enumerate()
            .map(|(j, spec)| match *spec {
                ParamSpec::Length => ArgValue::Scalar(u64::from(len)),
                ParamSpec::Scalar(kind) => {
                    let n = specials_len(kind);
                    let p = i.wrapping_sub(walk);
                    let bits = if n == 0 {
                        self.scalar(kind)
                    } else if i < walk {
                        // Walk the specials, staggered across parameters.
                        special(kind, (i + 5 * j) % n)
                    } else if p < pairs && j == scalars[0] {
                        special(kind, (p / PAIRED_SPECIALS) % n)
                    } else if p < pairs && j == scalars[1] {
                        special(kind, (p % PAIRED_SPECIALS) % n)
                    } else {
                        self.scalar(kind)
                    };
                    ArgValue::Scalar(self.fold_int(kind, bits))
                }
                ParamSpec::Array(kind) => {
                    ArgValue::Array((0..len).map(|_| self.scalar(kind)).collect())
                }
            })
            .collect();
        canonical_long_doubles(&specs, &mut args);
        args
    }

    fn fold_int(&self, kind: AbiKind, bits: u64) -> u64 {
        let Some(limit) = self.int_limit else {
            return bits;
        };
        let m = i128::from(limit) + 1;
        match kind {
            AbiKind::I32 => {
                let v = i128::from(bits as u32 as i32) % m;
                u64::from(v as i32 as u32)
            }
            AbiKind::I64 => (i128::from(bits as i64) % m) as i64 as u64,
            _ => bits,
        }
    }

    /// One random scalar of `kind`, as zero-extended bits.
    pub fn scalar(&mut self, kind: AbiKind) -> u64 {
        let family = self.rng.gen_range(0..100u32);
        match kind {
            AbiKind::F64 => match family {
                0..=29 => special(kind, self.rng.gen_range(0..F64_SPECIALS.len())),
                30..=54 => self.rng.gen(),
                55..=69 => self.rng.gen_range(-8.0f64..8.0).to_bits(),
                70..=84 => {
                    let e = self.rng.gen_range(-40.0f64..40.0);
                    let s = if self.rng.gen() { 1.0 } else { -1.0 };
                    (s * e.exp2()).to_bits()
                }
                _ => f64::from(self.rng.gen_range(-20i32..=20)).to_bits(),
            },
            AbiKind::F32 => match family {
                0..=29 => special(kind, self.rng.gen_range(0..F32_SPECIALS.len())),
                30..=54 => u64::from(self.rng.gen::<u32>()),
                55..=69 => u64::from(self.rng.gen_range(-8.0f32..8.0).to_bits()),
                70..=84 => {
                    let e = self.rng.gen_range(-30.0f32..30.0);
                    let s = if self.rng.gen() { 1.0 } else { -1.0 };
                    u64::from((s * e.exp2()).to_bits())
                }
                _ => u64::from((self.rng.gen_range(-20i32..=20) as f32).to_bits()),
            },
            AbiKind::I32 => {
                let v: i32 = match family {
                    0..=24 => I32_SPECIALS[self.rng.gen_range(0..I32_SPECIALS.len())],
                    25..=44 => self.rng.gen(),
                    45..=69 => self.rng.gen_range(-1100..=1100),
                    _ => self.rng.gen_range(-40..=40),
                };
                u64::from(v as u32)
            }
            AbiKind::I64 => {
                let v: i64 = match family {
                    0..=24 => I64_SPECIALS[self.rng.gen_range(0..I64_SPECIALS.len())],
                    25..=44 => self.rng.gen(),
                    45..=69 => self.rng.gen_range(-100_000..=100_000),
                    _ => self.rng.gen_range(-40..=40),
                };
                v as u64
            }
            AbiKind::F80 => match family {
                0..=9 => special(kind, self.rng.gen_range(0..F80_SIG_SPECIALS.len())),
                10..=89 => (1 << 63) | self.rng.gen::<u64>(),
                _ => self.rng.gen(),
            },
            AbiKind::F80Exp => {
                let sign = if self.rng.gen() { 0x8000 } else { 0 };
                let exponent: u16 = match family {
                    0..=19 => return special(kind, self.rng.gen_range(0..F80_EXP_SPECIALS.len())),
                    20..=79 => self.rng.gen_range(0x3fff - 64..=0x3fff + 64),
                    80..=94 => self.rng.gen_range(1..=0x7ffe),
                    _ => self.rng.gen_range(0..=0x7fff),
                };
                u64::from(sign | exponent)
            }
            AbiKind::Ptr | AbiKind::Void => 0,
        }
    }
}

/// Sets the integer bit of every `long double` argument as the x87 does for the values
/// it produces: set when the exponent is not zero, clear for zeros and denormals. The
/// significand and exponent are drawn apart, and the other encodings (unnormals,
/// pseudo-zeros) are no value a program computes: musl's `fmodl` loops forever on one.
fn canonical_long_doubles(specs: &[ParamSpec], args: &mut [ArgValue]) {
    for j in 1..specs.len().min(args.len()) {
        if specs[j - 1] != ParamSpec::Scalar(AbiKind::F80)
            || specs[j] != ParamSpec::Scalar(AbiKind::F80Exp)
        {
            continue;
        }
        let ArgValue::Scalar(se) = args[j] else {
            continue;
        };
        if let ArgValue::Scalar(sig) = &mut args[j - 1] {
            const INTEGER_BIT: u64 = 1 << 63;
            *sig = if se & 0x7fff == 0 {
                *sig & !INTEGER_BIT
            } else {
                *sig | INTEGER_BIT
            };
        }
    }
}

fn specials_len(kind: AbiKind) -> usize {
    match kind {
        AbiKind::F64 => F64_SPECIALS.len(),
        AbiKind::F32 => F32_SPECIALS.len(),
        AbiKind::I32 => I32_SPECIALS.len(),
        AbiKind::I64 => I64_SPECIALS.len(),
        AbiKind::F80 => F80_SIG_SPECIALS.len(),
        AbiKind::F80Exp => F80_EXP_SPECIALS.len(),
        AbiKind::Ptr | AbiKind::Void => 0,
    }
}

fn special(kind: AbiKind, i: usize) -> u64 {
    match kind {
        AbiKind::F64 => F64_SPECIALS[i],
        AbiKind::F32 => u64::from(F32_SPECIALS[i]),
        AbiKind::I32 => u64::from(I32_SPECIALS[i] as u32),
        AbiKind::I64 => I64_SPECIALS[i] as u64,
        AbiKind::F80 => F80_SIG_SPECIALS[i],
        AbiKind::F80Exp => u64::from(F80_EXP_SPECIALS[i]),
        AbiKind::Ptr | AbiKind::Void => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_arrays_with_the_last_int_as_length() {
        let specs = plan(
            &[AbiKind::Ptr, AbiKind::I32, AbiKind::Ptr, AbiKind::I32],
            &[Some(AbiKind::F32), None, None, None],
        );
        assert_eq!(
            specs,
            vec![
                ParamSpec::Array(AbiKind::F32),
                ParamSpec::Scalar(AbiKind::I32),
                ParamSpec::Array(AbiKind::F64),
                ParamSpec::Length,
            ]
        );
    }

    #[test]
    fn long_doubles_are_canonical_x87_encodings() {
        let specs = plan(
            &[AbiKind::F80, AbiKind::F80Exp, AbiKind::F80, AbiKind::F80Exp],
            &[],
        );
        let mut gen = InputGen::new(specs, 3, "fmodl");
        let mut denormals = 0;
        for _ in 0..2000 {
            let args = gen.next_args();
            for pair in args.chunks(2) {
                let [ArgValue::Scalar(sig), ArgValue::Scalar(se)] = pair else {
                    panic!("two scalars per long double: {pair:?}");
                };
                let integer_bit = sig >> 63 == 1;
                assert_eq!(integer_bit, se & 0x7fff != 0, "{sig:#x} {se:#x}");
                denormals += usize::from(se & 0x7fff == 0 && *sig != 0);
            }
        }
        assert!(denormals > 0, "denormals are generated too");
    }

    #[test]
    fn is_deterministic_and_walks_specials_first() {
        let specs = plan(&[AbiKind::F64, AbiKind::I32], &[]);
        let mut a = InputGen::new(specs.clone(), 7, "f");
        let mut b = InputGen::new(specs, 7, "f");
        let xs: Vec<_> = (0..200).map(|_| a.next_args()).collect();
        let ys: Vec<_> = (0..200).map(|_| b.next_args()).collect();
        assert_eq!(xs, ys);
        for (i, &s) in F64_SPECIALS.iter().enumerate() {
            assert_eq!(xs[i][0], ArgValue::Scalar(s));
        }
    }

    #[test]
    fn pairs_the_first_specials() {
        let specs = plan(&[AbiKind::F64, AbiKind::F64], &[]);
        let mut g = InputGen::new(specs, 3, "fmin");
        let all: Vec<_> = (0..F64_SPECIALS.len() + PAIRED_SPECIALS * PAIRED_SPECIALS)
            .map(|_| g.next_args())
            .collect();
        let pos_neg_zero = vec![ArgValue::Scalar(0), ArgValue::Scalar(1 << 63)];
        let neg_pos_zero = vec![ArgValue::Scalar(1 << 63), ArgValue::Scalar(0)];
        assert!(all.contains(&pos_neg_zero) && all.contains(&neg_pos_zero));
    }

    #[test]
    fn folds_integers_into_the_limit() {
        let specs = plan(&[AbiKind::I32, AbiKind::I64], &[]);
        let mut g = InputGen::new(specs, 9, "jn").with_int_limit(100);
        for _ in 0..500 {
            let args = g.next_args();
            let (ArgValue::Scalar(a), ArgValue::Scalar(b)) = (&args[0], &args[1]) else {
                panic!("bad shape {args:?}");
            };
            assert!((*a as u32 as i32).abs() <= 100);
            assert!((*b as i64).abs() <= 100);
        }
    }

    #[test]
    fn arrays_follow_the_length() {
        let specs = plan(&[AbiKind::Ptr, AbiKind::I32], &[Some(AbiKind::F64)]);
        let mut g = InputGen::new(specs, 1, "sum").with_max_len(5);
        for _ in 0..100 {
            let args = g.next_args();
            let (ArgValue::Array(a), ArgValue::Scalar(n)) = (&args[0], &args[1]) else {
                panic!("bad shape {args:?}");
            };
            assert_eq!(a.len() as u64, *n);
            assert!(*n <= 5);
        }
    }
}
