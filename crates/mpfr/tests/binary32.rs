//! The fast path of exhaustive binary32 checking (`fpforge_mpfr::binary32`) against MPFR:
//! whenever it decides an input, its verdict is MPFR's (the same class, the same
//! "correctly rounded", MPFR's ulp error inside its bounds), on random inputs of every
//! binade and sign and results at and around the correctly rounded one; and it decides
//! nearly every input.

use fpforge_mpfr::binary32::{exact, FastPath, MAX_PRECISION};
use fpforge_mpfr::{Operand, TrueFunction};
use fpir::FloatTy;
use proptest::prelude::*;

/// The functions with a fast path that musl's float functions compute.
const FUNCTIONS: &[&str] = &[
    "expf", "exp2f", "exp10f", "expm1f", "logf", "log2f", "log10f", "log1pf", "sinf", "cosf",
    "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf", "asinhf", "acoshf", "atanhf",
    "cbrtf", "erff", "erfcf",
];

fn truth(name: &str) -> TrueFunction {
    TrueFunction::for_entry(name).unwrap()
}

/// The correctly rounded result at `x`, from MPFR at 256 bits.
fn correctly_rounded(f: TrueFunction, x: u32) -> u32 {
    let t = f
        .eval(256, &[Operand::Float(FloatTy::F32, u64::from(x))])
        .unwrap();
    t.round_bits(FloatTy::F32) as u32
}

/// `c` moved by `k` ulps within its sign (bits plus `k`, kept a valid pattern).
fn nudged(c: u32, k: i32) -> u32 {
    c.wrapping_add_signed(k)
}

fn agree(name: &str, x: u32, c: u32) -> Result<bool, TestCaseError> {
    let f = truth(name);
    let fast = FastPath::new(f).unwrap();
    let Some(v) = fast.decide(x, c) else {
        return Ok(false);
    };
    let (m, _) = exact(f, x, c, MAX_PRECISION).unwrap();
    prop_assert_eq!(v.class, m.class, "{} {:#x} {:#x}", name, x, c);
    prop_assert_eq!(
        v.correctly_rounded,
        m.correctly_rounded,
        "{} {:#x} {:#x}",
        name,
        x,
        c
    );
    let e = m.ulps.0;
    prop_assert!(
        v.ulps.0 <= e && e <= v.ulps.1,
        "{} {:#x} {:#x}: {:?} not around {}",
        name,
        x,
        c,
        v.ulps,
        e
    );
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn the_fast_path_decides_as_mpfr_does(
        which in 0..FUNCTIONS.len(),
        x in prop_oneof![any::<u32>(), 0x3000_0000u32..0x4300_0000, 0xb000_0000u32..0xc300_0000],
        k in prop_oneof![Just(0i32), -3i32..=3, Just(1 << 20)],
        special in 0u8..8,
    ) {
        let name = FUNCTIONS[which];
        let cr = correctly_rounded(truth(name), x);
        let c = match special {
            0 => f32::NAN.to_bits(),
            1 => f32::INFINITY.to_bits(),
            _ => nudged(cr, k),
        };
        agree(name, x, c)?;
    }
}

#[test]
fn nearly_every_input_is_decided_fast() {
    for name in ["expf", "sinf", "erfcf"] {
        let f = truth(name);
        let fast = FastPath::new(f).unwrap();
        let mut decided = 0;
        let n = 20_000u32;
        for i in 0..n {
            let x = 0x3c00_0000 + i.wrapping_mul(2_654_435_761) % 0x0700_0000;
            let c = correctly_rounded(f, x);
            decided += u32::from(fast.decide(x, c).is_some());
        }
        assert!(decided >= n - 2, "{name}: {decided} of {n} decided");
    }
}
