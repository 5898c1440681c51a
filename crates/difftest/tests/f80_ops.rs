//! Property test of `fpir::f80`, the soft-float behind `long double`, against the
//! host's x87: `tests/f80/oracle.c`, built with clang-14 at `-O0`, computes every
//! operation natively on the same random operands (special values, subnormals, values
//! close to each other, random encodings with the integer bit set, NaNs with payloads),
//! each case in one of the four rounding modes (the oracle sets it with `fesetround`),
//! and every result must be bit-identical. [`PAIRS`] operand pairs per operation.

use fpir::f80::{self, F80Arith, Round, F80};
use fpir::{F80Op, FloatPred, FloatTy, Type};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Operand pairs per operation.
const PAIRS: usize = 100_000;

/// The rounding modes in the oracle's numbering (its `MODE` column).
const MODES: [Round; 4] = [
    Round::NearestTiesToEven,
    Round::TowardNegative,
    Round::TowardPositive,
    Round::TowardZero,
];

/// Builds the oracle in `dir`.
fn oracle(dir: &Path) -> std::path::PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/f80/oracle.c");
    let exe = dir.join("oracle");
    let status = Command::new("clang-14")
        .args(["-O0", "-ffp-contract=off", "-o"])
        .arg(&exe)
        .arg(&source)
        .arg("-lm")
        .status()
        .expect("clang-14 runs");
    assert!(status.success(), "the oracle compiles");
    exe
}

/// One extended operand: mostly values an x87 program meets, sometimes raw encodings.
fn operand(rng: &mut ChaCha8Rng, near: Option<F80>) -> F80 {
    let sign = if rng.gen_bool(0.5) { 0x8000 } else { 0 };
    let special: [(u16, u64); 9] = [
        (0, 0),
        (0x7fff, 1 << 63),
        (0x7fff, 0xc000_0000_0000_0000),
        (0x7fff, 0x8000_0000_0000_0001),
        (0x7fff, 0xc000_0000_dead_beef),
        (0x3fff, 1 << 63),
        (0x7ffe, u64::MAX),
        (0x0001, 1 << 63),
        (0, 1),
    ];
    match rng.gen_range(0..10) {
        0 => {
            let (se, sig) = special[rng.gen_range(0..special.len())];
            F80 { sig, se: se | sign }
        }
        1 => F80 {
            sig: rng.gen::<u64>() >> rng.gen_range(1..64),
            se: sign,
        },
        2 if near.is_some() => {
            let base = near.unwrap_or(F80::ZERO);
            F80 {
                sig: base.sig ^ (rng.gen::<u64>() >> rng.gen_range(8..64)) | 1 << 63,
                se: (base.se & 0x7fff)
                    .saturating_add_signed(rng.gen_range(-2..=2))
                    .min(0x7ffe)
                    | sign,
            }
        }
        3 => F80 {
            sig: rng.gen::<u64>() | 1 << 63,
            se: rng.gen_range(1..0x7fff) | sign,
        },
        4 => F80::from_float(FloatTy::F64, rng.gen::<u64>()),
        _ => F80 {
            sig: rng.gen::<u64>() | 1 << 63,
            se: rng.gen_range(0x3fff - 80..0x3fff + 80) | sign,
        },
    }
}

/// What `fpir::f80` computes for a line of the oracle's input, rounding by `round`.
fn expected(op: &str, round: Round, a: F80, b: F80) -> String {
    let ext = |x: F80| format!("{:x} {:x}", x.se, x.sig);
    let arith = |o| ext(f80::arith(o, a, b, round));
    let builtin = |op, ty: Type, args: &[u64]| {
        f80::eval_builtin(op, ty, args, round).expect("computed in fpir")
    };
    let args = [a.sig, u64::from(a.se)];
    match op {
        "add" => arith(F80Arith::Add),
        "sub" => arith(F80Arith::Sub),
        "mul" => arith(F80Arith::Mul),
        "div" => arith(F80Arith::Div),
        "rem" => arith(F80Arith::Rem),
        "sqrt" => ext(f80::sqrt(a, round)),
        "cmp" => {
            let preds = [
                FloatPred::Olt,
                FloatPred::Ole,
                FloatPred::Oeq,
                FloatPred::Ogt,
                FloatPred::Oge,
                FloatPred::Une,
                FloatPred::Uno,
            ];
            let bits = preds
                .iter()
                .enumerate()
                .map(|(k, &p)| u32::from(f80::compare(p, a, b)) << k)
                .sum::<u32>();
            format!("{bits:x}")
        }
        "from_f64" => ext(F80::from_float(FloatTy::F64, b.sig)),
        "from_f32" => ext(F80::from_float(FloatTy::F32, b.sig & 0xffff_ffff)),
        "from_i64" => ext(F80::from_i64(b.sig as i64)),
        "from_u64" => ext(F80::from_u64(b.sig)),
        "to_f64" => format!("{:x}", builtin(F80Op::ToFloat, Type::F64, &args)),
        "to_f32" => format!("{:x}", builtin(F80Op::ToFloat, Type::F32, &args)),
        "to_i64" => format!("{:x}", builtin(F80Op::ToSigned, Type::I64, &args)),
        "to_i32" => format!("{:x}", builtin(F80Op::ToSigned, Type::I32, &args)),
        "to_i16" => format!("{:x}", builtin(F80Op::ToSigned, Type::Int(16), &args)),
        "to_u64" => format!("{:x}", builtin(F80Op::ToUnsigned, Type::I64, &args)),
        "to_u32" => format!("{:x}", builtin(F80Op::ToUnsigned, Type::I32, &args)),
        other => panic!("no operation {other}"),
    }
}

const OPS: [&str; 18] = [
    "add", "sub", "mul", "div", "rem", "sqrt", "cmp", "from_f64", "from_f32", "from_i64",
    "from_u64", "to_f64", "to_f32", "to_i64", "to_i32", "to_i16", "to_u64", "to_u32",
];

#[test]
fn soft_float_matches_the_host_x87_bit_for_bit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = oracle(dir.path());
    let mut rng = ChaCha8Rng::seed_from_u64(0x80);
    let mut input = String::new();
    let mut cases = Vec::new();
    for op in &OPS {
        for _ in 0..PAIRS {
            let a = operand(&mut rng, None);
            let mut b = operand(&mut rng, Some(a));
            if op.starts_with("from_") {
                b.sig = rng.gen();
            }
            let mode = rng.gen_range(0..MODES.len());
            input += &format!(
                "{op} {mode} {:x} {:x} {:x} {:x}\n",
                a.se, a.sig, b.se, b.sig
            );
            cases.push((*op, mode, a, b));
        }
    }
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("oracle runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("oracle output");
    writer.join().expect("writer").expect("input written");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), cases.len(), "one result per case");
    let mut mismatches = Vec::new();
    let mut per_op = std::collections::HashMap::new();
    for ((op, mode, a, b), native) in cases.iter().zip(&lines) {
        let ours = expected(op, MODES[*mode], *a, *b);
        if ours != *native {
            let shown = per_op.entry(*op).or_insert(0);
            *shown += 1;
            if *shown > 3 {
                mismatches.push(String::new());
                continue;
            }
            mismatches.push(format!(
                "{op} mode {mode} {:04x}:{:016x} {:04x}:{:016x}: native {native}, fpir {ours}",
                a.se, a.sig, b.se, b.sig
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} differ ({per_op:?}), the first of each operation: {:#?}",
        mismatches.len(),
        cases.len(),
        mismatches
            .iter()
            .filter(|m| !m.is_empty())
            .collect::<Vec<_>>()
    );
}
