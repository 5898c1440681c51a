//! `fpir::eval::rounded` against the machine: each operation run as its SSE instruction
//! (`addsd`, `mulss`, `sqrtsd`, `vfmadd213sd`, `cvtsd2ss`, `cvtsi2sd`, `cvttsd2si`, ...)
//! with MXCSR set to the rounding mode and its flags cleared, then read back. Results
//! and raised exceptions must be identical, NaNs included, on special values and random
//! operands near the ends of the exponent range.

#![deny(clippy::undocumented_unsafe_blocks)]
#![cfg(target_arch = "x86_64")]

use fpir::eval::rounded::{self, Exceptions, Rounded};
use fpir::eval::RoundingMode;
use fpir::{FloatTy, Type};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::arch::asm;

/// MXCSR with every exception masked, the flags clear and `mode`'s rounding field.
fn control(mode: RoundingMode) -> u32 {
    0x1f80 | ((mode.fe_value() as u32) << 3)
}

macro_rules! sse {
    ($name:ident, $insn:literal) => {
        /// The instruction on `a` (destination) and `b` under `mode`: result bits and flags.
        fn $name(mode: RoundingMode, a: u64, b: u64) -> Rounded {
            let mut csr = control(mode);
            let mut saved = 0u32;
            let mut x = a;
            // SAFETY: only MXCSR and the named registers change; MXCSR is restored.
            unsafe {
                asm!(
                    "stmxcsr [{saved}]",
                    "ldmxcsr [{csr}]",
                    "movq {xa}, {x}",
                    "movq {xb}, {y}",
                    $insn,
                    "movq {x}, {xa}",
                    "stmxcsr [{csr}]",
                    "ldmxcsr [{saved}]",
                    saved = in(reg) &mut saved,
                    csr = in(reg) &mut csr,
                    x = inout(reg) x,
                    y = in(reg) b,
                    xa = out(xmm_reg) _,
                    xb = out(xmm_reg) _,
                );
            }
            Rounded {
                bits: x,
                raised: Exceptions::from_fe_bits(u64::from(csr & 0x3f)),
            }
        }
    };
}

sse!(addsd, "addsd {xa}, {xb}");
sse!(subsd, "subsd {xa}, {xb}");
sse!(mulsd, "mulsd {xa}, {xb}");
sse!(divsd, "divsd {xa}, {xb}");
sse!(sqrtsd, "sqrtsd {xa}, {xb}");
sse!(addss, "addss {xa}, {xb}");
sse!(subss, "subss {xa}, {xb}");
sse!(mulss, "mulss {xa}, {xb}");
sse!(divss, "divss {xa}, {xb}");
sse!(sqrtss, "sqrtss {xa}, {xb}");
sse!(cvtsd2ss, "xorps {xa}, {xa}\ncvtsd2ss {xa}, {xb}");
sse!(cvtsi2sd, "cvtsi2sd {xa}, {y}");
sse!(cvtsi2ss, "xorps {xa}, {xa}\ncvtsi2ss {xa}, {y}");

/// `cvttsd2si` to 64 or 32 bits: only the flags are compared (the results are fpir's
/// `fptosi`, tested elsewhere).
fn cvttsd2si_flags(mode: RoundingMode, a: u64, wide: bool) -> Exceptions {
    let mut csr = control(mode);
    let mut saved = 0u32;
    // SAFETY: as in `sse!`.
    unsafe {
        if wide {
            asm!(
                "stmxcsr [{saved}]", "ldmxcsr [{csr}]", "movq {xa}, {x}",
                "cvttsd2si {r}, {xa}", "stmxcsr [{csr}]", "ldmxcsr [{saved}]",
                saved = in(reg) &mut saved, csr = in(reg) &mut csr, x = in(reg) a,
                r = out(reg) _, xa = out(xmm_reg) _,
            );
        } else {
            asm!(
                "stmxcsr [{saved}]", "ldmxcsr [{csr}]", "movq {xa}, {x}",
                "cvttsd2si {r:e}, {xa}", "stmxcsr [{csr}]", "ldmxcsr [{saved}]",
                saved = in(reg) &mut saved, csr = in(reg) &mut csr, x = in(reg) a,
                r = out(reg) _, xa = out(xmm_reg) _,
            );
        }
    }
    Exceptions::from_fe_bits(u64::from(csr & 0x3f))
}

/// `vfmadd213sd`/`ss`: `a * b + c`, the form glibc's `fma` uses (which NaN operand
/// propagates depends on the form).
fn fma_sse(ty: FloatTy, mode: RoundingMode, a: u64, b: u64, c: u64) -> Rounded {
    let mut csr = control(mode);
    let mut saved = 0u32;
    let mut acc = c;
    // SAFETY: as in `sse!`; the caller checked for FMA.
    unsafe {
        match ty {
            FloatTy::F64 => asm!(
                "stmxcsr [{saved}]", "ldmxcsr [{csr}]", "movq {xa}, {a}", "movq {xb}, {b}",
                "movq {xc}, {c}", "vfmadd213sd {xa}, {xb}, {xc}", "movq {c}, {xa}",
                "stmxcsr [{csr}]", "ldmxcsr [{saved}]",
                saved = in(reg) &mut saved, csr = in(reg) &mut csr, a = in(reg) a,
                b = in(reg) b, c = inout(reg) acc, xa = out(xmm_reg) _, xb = out(xmm_reg) _,
                xc = out(xmm_reg) _,
            ),
            FloatTy::F32 => asm!(
                "stmxcsr [{saved}]", "ldmxcsr [{csr}]", "movq {xa}, {a}", "movq {xb}, {b}",
                "movq {xc}, {c}", "vfmadd213ss {xa}, {xb}, {xc}", "movq {c}, {xa}",
                "stmxcsr [{csr}]", "ldmxcsr [{saved}]",
                saved = in(reg) &mut saved, csr = in(reg) &mut csr, a = in(reg) a,
                b = in(reg) b, c = inout(reg) acc, xa = out(xmm_reg) _, xb = out(xmm_reg) _,
                xc = out(xmm_reg) _,
            ),
        }
    }
    let bits = match ty {
        FloatTy::F32 => acc & 0xffff_ffff,
        FloatTy::F64 => acc,
    };
    Rounded {
        bits,
        raised: Exceptions::from_fe_bits(u64::from(csr & 0x3f)),
    }
}

/// `uitofp i64 to double` as clang-14 emits it for x86-64 (`punpckldq`, `subpd`,
/// `addsd`): each 32-bit half made exact by subtracting the magic constant it was put
/// in (`2^52 + lo`, `2^84 + hi * 2^32`), then the two added, hi first.
fn u64_to_f64_sequence(mode: RoundingMode, u: u64) -> Rounded {
    const LO_MAGIC: u64 = 0x4330_0000_0000_0000;
    const HI_MAGIC: u64 = 0x4530_0000_0000_0000;
    let lo = subsd(mode, LO_MAGIC | (u & 0xffff_ffff), LO_MAGIC);
    let hi = subsd(mode, HI_MAGIC | (u >> 32), HI_MAGIC);
    let sum = addsd(mode, hi.bits, lo.bits);
    Rounded {
        bits: sum.bits,
        raised: lo.raised | hi.raised | sum.raised,
    }
}

/// A double with a random sign and fraction and a biased exponent from a range that
/// favours both ends of the format and the middle, or (1 in 29) a special value.
fn random_f64(rng: &mut ChaCha8Rng) -> u64 {
    let r: u64 = rng.gen();
    let e = match r % 6 {
        0 => r >> 8 & 0x7ff,
        1 => r >> 8 & 0x3f,
        2 => 0x7ff - 1 - (r >> 8 & 0x3f),
        3 => 0x3ff - 0x200 + (r >> 8 & 0x3f),
        4 => 0x3ff + 0x1c0 + (r >> 8 & 0x3f),
        _ => 0x3ff - 40 + (r >> 8 & 0x3f),
    };
    let special = [
        0,
        1,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff4_0000_0000_0000,
    ];
    if r.is_multiple_of(29) {
        return special[(r >> 20) as usize % special.len()] | (r & (1 << 63));
    }
    (r & (1 << 63)) | (e.min(0x7fe) << 52) | (rng.gen::<u64>() >> 12)
}

/// A float (in the low 32 bits) likewise.
fn random_f32(rng: &mut ChaCha8Rng) -> u64 {
    let r: u64 = rng.gen();
    let e = match r % 6 {
        0 => r >> 8 & 0xff,
        1 => r >> 8 & 0x1f,
        2 => 0xff - 1 - (r >> 8 & 0x1f),
        3 => 0x7f - 0x40 + (r >> 8 & 0x1f),
        4 => 0x7f + 0x30 + (r >> 8 & 0x1f),
        _ => 0x7f - 12 + (r >> 8 & 0x1f),
    };
    let special = [0, 1, 0x7f80_0000, 0x7fc0_0000, 0x7fa0_0000];
    if r.is_multiple_of(29) {
        return special[(r >> 20) as usize % special.len()] | (r & 0x8000_0000);
    }
    (r & 0x8000_0000) | (e.min(0xfe) << 23) | (rng.gen::<u64>() >> 41)
}

const CASES: usize = 200_000;

fn same(what: &str, mode: RoundingMode, args: &[u64], ours: Rounded, machine: Rounded) {
    assert_eq!(
        (ours.bits, ours.raised),
        (machine.bits, machine.raised),
        "{what} {mode:?} {args:x?}: ours {:#x} {:?}, machine {:#x} {:?}",
        ours.bits,
        ours.raised,
        machine.bits,
        machine.raised
    );
}

#[test]
fn binary_operations_match_sse() {
    type Op = fn(FloatTy, RoundingMode, u64, u64) -> Rounded;
    type Insn = fn(RoundingMode, u64, u64) -> Rounded;
    let ops: [(&str, FloatTy, Op, Insn); 8] = [
        ("fadd", FloatTy::F64, rounded::fadd_in, addsd),
        ("fsub", FloatTy::F64, rounded::fsub_in, subsd),
        ("fmul", FloatTy::F64, rounded::fmul_in, mulsd),
        ("fdiv", FloatTy::F64, rounded::fdiv_in, divsd),
        ("fadd", FloatTy::F32, rounded::fadd_in, addss),
        ("fsub", FloatTy::F32, rounded::fsub_in, subss),
        ("fmul", FloatTy::F32, rounded::fmul_in, mulss),
        ("fdiv", FloatTy::F32, rounded::fdiv_in, divss),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for (name, ty, op, insn) in ops {
        for mode in RoundingMode::ALL {
            for _ in 0..CASES {
                let (a, b) = match ty {
                    FloatTy::F32 => (random_f32(&mut rng), random_f32(&mut rng)),
                    FloatTy::F64 => (random_f64(&mut rng), random_f64(&mut rng)),
                };
                same(name, mode, &[a, b], op(ty, mode, a, b), insn(mode, a, b));
            }
        }
    }
}

#[test]
fn sqrt_fma_and_conversions_match_sse() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let fma = std::arch::is_x86_feature_detected!("fma");
    for mode in RoundingMode::ALL {
        for _ in 0..CASES {
            let (a, b, c) = (
                random_f64(&mut rng),
                random_f64(&mut rng),
                random_f64(&mut rng),
            );
            same(
                "sqrt",
                mode,
                &[a],
                rounded::sqrt_in(FloatTy::F64, mode, a),
                sqrtsd(mode, 0, a),
            );
            let s = random_f32(&mut rng);
            let sse = sqrtss(mode, 0, s);
            same(
                "sqrtf",
                mode,
                &[s],
                rounded::sqrt_in(FloatTy::F32, mode, s),
                sse,
            );
            let narrowed = Rounded {
                bits: cvtsd2ss(mode, 0, a).bits & 0xffff_ffff,
                ..cvtsd2ss(mode, 0, a)
            };
            let ours = rounded::fconvert_in(FloatTy::F64, FloatTy::F32, mode, a);
            same("fptrunc", mode, &[a], ours, narrowed);
            let i = rng.gen::<u64>() >> rng.gen_range(0..64);
            let i = if rng.gen() { i } else { i.wrapping_neg() };
            let ours = rounded::sitofp_in(Type::I64, FloatTy::F64, mode, i);
            same("sitofp", mode, &[i], ours, cvtsi2sd(mode, 0, i));
            let sse = cvtsi2ss(mode, 0, i);
            let sse = Rounded {
                bits: sse.bits & 0xffff_ffff,
                ..sse
            };
            let ours = rounded::sitofp_in(Type::I64, FloatTy::F32, mode, i);
            same("sitofp f32", mode, &[i], ours, sse);
            let u = if rng.gen_ratio(1, 50) { 0 } else { i };
            let ours = rounded::uitofp_in(Type::I64, FloatTy::F64, mode, u);
            same("uitofp", mode, &[u], ours, u64_to_f64_sequence(mode, u));
            for (to, wide) in [(Type::I64, true), (Type::I32, false)] {
                let ours = rounded::fptosi_in(Type::F64, to, a).raised;
                assert_eq!(ours, cvttsd2si_flags(mode, a, wide), "fptosi {to:?} {a:#x}");
            }
            if fma {
                let ours = rounded::fma_in(FloatTy::F64, mode, a, b, c);
                same(
                    "fma",
                    mode,
                    &[a, b, c],
                    ours,
                    fma_sse(FloatTy::F64, mode, a, b, c),
                );
                let (x, y, z) = (
                    random_f32(&mut rng),
                    random_f32(&mut rng),
                    random_f32(&mut rng),
                );
                let ours = rounded::fma_in(FloatTy::F32, mode, x, y, z);
                same(
                    "fmaf",
                    mode,
                    &[x, y, z],
                    ours,
                    fma_sse(FloatTy::F32, mode, x, y, z),
                );
            }
        }
    }
}
