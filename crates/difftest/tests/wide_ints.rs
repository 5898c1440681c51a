//! Property tests of the legalized wide integers (issue 14): LLVM IR on `iN` for N in
//! 65, 72, 96, 128, 200 and 256 bits (arithmetic, division, shifts, comparisons,
//! `select`, phis, casts between widths and with floats, exact-size stores), lowered to
//! 64-bit limbs and run by the interpreter and the compiled tier, against `num-bigint`
//! (and Rust's `u128`/`i128` conversions with floats) on random and edge-case limbs.
//! Each operation is a function `op(a0..a3, b0..b3, k)` returning limb `k` of its
//! result; the operands are built from the words with `zext`/`shl`/`or` in `i256` and
//! cut with `trunc`, and the result is read with a variable `lshr`, so calls with wide
//! parameters and results are exercised too.

use fpforge_exec::{Compilation, Concrete, ExecConfig, Interpreter, NoObserver, Outcome};
use fpforge_spec::Arg;
use num_bigint::{BigInt, BigUint, Sign};
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::OnceLock;

const WIDTHS: [u32; 6] = [65, 72, 96, 128, 200, 256];

const BINARY: [&str; 13] = [
    "add", "sub", "mul", "and", "or", "xor", "udiv", "urem", "sdiv", "srem", "shl", "lshr", "ashr",
];

const PREDICATES: [&str; 10] = [
    "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
];

/// The shared helpers of a module on `iW`: `@make` builds a value from four words,
/// `@limb` reads one word of a value.
fn helpers(w: u32) -> String {
    let cut = if w == 256 {
        "  %v = or i256 %m, 0\n".to_string()
    } else {
        format!("  %v = trunc i256 %m to i{w}\n")
    };
    let widen = if w == 256 {
        "  %z = or i256 %v, 0\n".to_string()
    } else {
        format!("  %z = zext i{w} %v to i256\n")
    };
    let mut text =
        String::from("define internal i{w} @make(i64 %x0, i64 %x1, i64 %x2, i64 %x3) {\nentry:\n");
    for i in 0..4 {
        text += &format!(
            "  %z{i} = zext i64 %x{i} to i256\n  %s{i} = shl i256 %z{i}, {}\n",
            64 * i
        );
    }
    text += "  %o1 = or i256 %s0, %s1\n  %o2 = or i256 %o1, %s2\n  %m = or i256 %o2, %s3\n";
    text += &cut;
    text += "  ret i{w} %v\n}\n\n";
    text += "define internal i64 @limb(i{w} %v, i64 %k) {\nentry:\n";
    text += &widen;
    text += "  %bits = mul i64 %k, 64\n  %amount = zext i64 %bits to i256\n";
    text +=
        "  %shifted = lshr i256 %z, %amount\n  %r = trunc i256 %shifted to i64\n  ret i64 %r\n}\n";
    text.replace("{w}", &w.to_string())
}

/// A function `name(a0..a3, b0..b3, k)` whose body computes `%r` of type `result`
/// from `%a` and `%b` (both `iW`).
fn op_fn(w: u32, name: &str, body: &str, result: &str) -> String {
    let read = match result {
        "wide" => format!("  %out = call i64 @limb(i{w} %r, i64 %k)\n"),
        "i1" => "  %out = zext i1 %r to i64\n".to_string(),
        "i64" => "  %out = or i64 %r, 0\n".to_string(),
        other => panic!("result {other}"),
    };
    format!(
        "define i64 @{name}(i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %b0, i64 %b1, i64 %b2, i64 %b3, i64 %k) {{\n\
         entry:\n\
         \x20 %a = call i{w} @make(i64 %a0, i64 %a1, i64 %a2, i64 %a3)\n\
         \x20 %b = call i{w} @make(i64 %b0, i64 %b1, i64 %b2, i64 %b3)\n\
         {body}{read}  ret i64 %out\n}}\n\n"
    )
}

/// The module of every operation on `iW`.
fn module_text(w: u32) -> String {
    let mut text = helpers(w);
    for op in BINARY {
        text += &op_fn(w, op, &format!("  %r = {op} i{w} %a, %b\n"), "wide");
    }
    for p in PREDICATES {
        text += &op_fn(
            w,
            &format!("icmp_{p}"),
            &format!("  %r = icmp {p} i{w} %a, %b\n"),
            "i1",
        );
    }
    // The smaller operand, through a select and through a phi.
    text += &op_fn(
        w,
        "select_min",
        &format!("  %c = icmp slt i{w} %a, %b\n  %r = select i1 %c, i{w} %a, i{w} %b\n"),
        "wide",
    );
    text += &op_fn(
        w,
        "phi_min",
        &format!(
            "  %c = icmp ult i{w} %a, %b\n  br i1 %c, label %left, label %join\n\
             left:\n  %twice = add i{w} %a, %a\n  br label %join\n\
             join:\n  %r = phi i{w} [ %twice, %left ], [ %b, %entry ]\n"
        ),
        "wide",
    );
    text += &op_fn(
        w,
        "sext_i33",
        &format!("  %t = trunc i64 %b0 to i33\n  %r = sext i33 %t to i{w}\n"),
        "wide",
    );
    text += &op_fn(
        w,
        "zext_i33",
        &format!("  %t = trunc i64 %b0 to i33\n  %r = zext i33 %t to i{w}\n"),
        "wide",
    );
    text += &op_fn(
        w,
        "trunc_i40",
        &format!("  %t = trunc i{w} %a to i40\n  %r = zext i40 %t to i64\n"),
        "i64",
    );
    if w < 256 {
        text += &op_fn(
            w,
            "sext_wide",
            &format!("  %s = sext i{w} %a to i256\n  %r = call i64 @limb_256(i256 %s, i64 %k)\n"),
            "i64",
        );
        text += "define internal i64 @limb_256(i256 %v, i64 %k) {\nentry:\n  %bits = mul i64 %k, 64\n  %amount = zext i64 %bits to i256\n  %shifted = lshr i256 %v, %amount\n  %r = trunc i256 %shifted to i64\n  ret i64 %r\n}\n\n";
    }
    // Exact store size: the bytes after the value keep their 0xaa.
    text += &op_fn(
        w,
        "store",
        &format!(
            "  %buf = alloca [5 x i64]\n  %words = bitcast [5 x i64]* %buf to i8*\n\
             \x20 call void @llvm.memset.p0i8.i64(i8* %words, i8 -86, i64 40, i1 false)\n\
             \x20 %slot = bitcast [5 x i64]* %buf to i{w}*\n  store i{w} %a, i{w}* %slot\n\
             \x20 %at = getelementptr [5 x i64], [5 x i64]* %buf, i64 0, i64 %k\n  %r = load i64, i64* %at\n"
        ),
        "i64",
    );
    if w <= 128 {
        for (name, op) in [("uitofp", "uitofp"), ("sitofp", "sitofp")] {
            text += &op_fn(
                w,
                &format!("{name}_f64"),
                &format!("  %f = {op} i{w} %a to double\n  %r = bitcast double %f to i64\n"),
                "i64",
            );
            text += &op_fn(w, &format!("{name}_f32"), &format!("  %f = {op} i{w} %a to float\n  %i = bitcast float %f to i32\n  %r = zext i32 %i to i64\n"), "i64");
        }
        for op in ["fptoui", "fptosi"] {
            text += &op_fn(
                w,
                op,
                &format!("  %f = bitcast i64 %b0 to double\n  %r = {op} double %f to i{w}\n"),
                "wide",
            );
        }
    }
    text += "declare void @llvm.memset.p0i8.i64(i8*, i8, i64, i1)\n";
    text
}

/// The lowered module of each width.
fn modules() -> &'static HashMap<u32, fpir::Module> {
    static MODULES: OnceLock<HashMap<u32, fpir::Module>> = OnceLock::new();
    MODULES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        WIDTHS
            .iter()
            .map(|&w| {
                let path = dir.path().join(format!("wide{w}.ll"));
                std::fs::write(&path, module_text(w)).unwrap();
                let module = fpforge_lower::lower_bitcode(&path)
                    .unwrap_or_else(|e| panic!("i{w} module does not lower: {e}"));
                (w, module)
            })
            .collect()
    })
}

/// Runs `name` on `iW` with operands `a`, `b` and returns every limb of its result
/// (or just its `i64` result), both with the interpreter alone and compiled.
fn run(w: u32, name: &str, a: [u64; 4], b: [u64; 4], limbs: usize) -> Vec<u64> {
    let module = &modules()[&w];
    let func = module
        .func_by_name(name)
        .unwrap_or_else(|| panic!("no {name}"));
    let mut results = Vec::new();
    for compile in [Compilation::Off, Compilation::Eager] {
        let config = ExecConfig::default().with_compile(compile);
        let mut interp = Interpreter::new(module, Concrete, NoObserver, config).unwrap();
        let got: Vec<u64> = (0..limbs as u64)
            .map(|k| {
                let args: Vec<Arg> = a
                    .iter()
                    .chain(&b)
                    .chain([&k])
                    .map(|&x| Arg::Scalar(x))
                    .collect();
                match interp.call(func, &args).unwrap().outcome {
                    Outcome::Returned(Some(v)) => v,
                    other => panic!("i{w} {name}: {other:?}"),
                }
            })
            .collect();
        results.push(got);
    }
    assert_eq!(
        results[0], results[1],
        "i{w} {name}: interpreter and compiled tier differ"
    );
    results.pop().unwrap()
}

fn modulus(w: u32) -> BigUint {
    BigUint::from(1u8) << w
}

fn unsigned(words: [u64; 4], w: u32) -> BigUint {
    let mut v = BigUint::from(0u8);
    for (i, &x) in words.iter().enumerate() {
        v |= BigUint::from(x) << (64 * i);
    }
    v % modulus(w)
}

fn signed(v: &BigUint, w: u32) -> BigInt {
    if v.bit(u64::from(w - 1)) {
        BigInt::from(v.clone()) - BigInt::from(modulus(w))
    } else {
        BigInt::from(v.clone())
    }
}

fn wrap(v: BigInt, w: u32) -> BigUint {
    let m = BigInt::from(modulus(w));
    let r = ((v % &m) + &m) % &m;
    r.to_biguint().unwrap()
}

/// The words of `v` (as many as `iW` has limbs).
fn words(v: &BigUint, w: u32) -> Vec<u64> {
    let mut digits = v.to_u64_digits();
    digits.resize(w.div_ceil(64) as usize, 0);
    digits
}

fn limb_count(w: u32) -> usize {
    w.div_ceil(64) as usize
}

/// Words that reach the edges: zero, all ones, the sign bit, small values.
fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        1 => Just(0u64),
        1 => Just(u64::MAX),
        1 => Just(1u64 << 63),
        1 => 0u64..4,
    ]
}

fn operand() -> impl Strategy<Value = [u64; 4]> {
    prop::array::uniform4(word())
}

fn width() -> impl Strategy<Value = u32> {
    prop::sample::select(WIDTHS.to_vec())
}

/// The result LLVM defines for `op` on `iW`; `None` where it is poison or undefined
/// (division by zero, signed overflow of `sdiv`, shifts of `W` or more).
fn expected_binary(op: &str, w: u32, a: &BigUint, b: &BigUint) -> Option<BigUint> {
    let (sa, sb) = (signed(a, w), signed(b, w));
    let zero = BigUint::from(0u8);
    let shift = || (b < &BigUint::from(w)).then(|| b.to_u64_digits().first().copied().unwrap_or(0));
    Some(match op {
        "add" => (a + b) % modulus(w),
        "sub" => wrap(BigInt::from(a.clone()) - BigInt::from(b.clone()), w),
        "mul" => (a * b) % modulus(w),
        "and" => a & b,
        "or" => a | b,
        "xor" => a ^ b,
        "udiv" if *b != zero => a / b,
        "urem" if *b != zero => a % b,
        "sdiv" | "srem"
            if *b == zero || (sb == BigInt::from(-1) && sa == -BigInt::from(modulus(w - 1))) =>
        {
            return None
        }
        "sdiv" => wrap(sa / sb, w),
        "srem" => wrap(sa % sb, w),
        "shl" => (a << shift()?) % modulus(w),
        "lshr" => a >> shift()?,
        "ashr" => wrap(sa >> shift()?, w),
        _ => return None,
    })
}

fn expected_icmp(p: &str, w: u32, a: &BigUint, b: &BigUint) -> bool {
    let (sa, sb) = (signed(a, w), signed(b, w));
    match p {
        "eq" => a == b,
        "ne" => a != b,
        "ult" => a < b,
        "ule" => a <= b,
        "ugt" => a > b,
        "uge" => a >= b,
        "slt" => sa < sb,
        "sle" => sa <= sb,
        "sgt" => sa > sb,
        "sge" => sa >= sb,
        _ => unreachable!(),
    }
}

/// A shift amount below `w` in the low word, half the time.
fn maybe_shift(b: [u64; 4], w: u32, op: &str) -> [u64; 4] {
    if matches!(op, "shl" | "lshr" | "ashr") && b[1] & 1 == 0 {
        [b[0] % u64::from(w), 0, 0, 0]
    } else {
        b
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn binary_operations_match_bigint(w in width(), a in operand(), b in operand(), op in prop::sample::select(BINARY.to_vec())) {
        let b = maybe_shift(b, w, op);
        let (x, y) = (unsigned(a, w), unsigned(b, w));
        if let Some(want) = expected_binary(op, w, &x, &y) {
            let got = run(w, op, a, b, limb_count(w));
            prop_assert_eq!(got, words(&want, w), "i{} {} {:x} {:x}", w, op, x, y);
        }
    }

    #[test]
    fn comparisons_match_bigint(w in width(), a in operand(), b in operand(), p in prop::sample::select(PREDICATES.to_vec()), same_top in any::<bool>()) {
        // Operands equal in their top words reach the comparison of the low ones.
        let b = if same_top { [b[0], a[1], a[2], a[3]] } else { b };
        let (x, y) = (unsigned(a, w), unsigned(b, w));
        let got = run(w, &format!("icmp_{p}"), a, b, 1);
        prop_assert_eq!(got[0] == 1, expected_icmp(p, w, &x, &y), "i{} icmp {} {:x} {:x}", w, p, x, y);
    }

    #[test]
    fn selects_phis_and_casts_match_bigint(w in width(), a in operand(), b in operand()) {
        let (x, y) = (unsigned(a, w), unsigned(b, w));
        let n = limb_count(w);
        let min = if signed(&x, w) < signed(&y, w) { x.clone() } else { y.clone() };
        prop_assert_eq!(run(w, "select_min", a, b, n), words(&min, w));
        let phi = if x < y { (&x + &x) % modulus(w) } else { y.clone() };
        prop_assert_eq!(run(w, "phi_min", a, b, n), words(&phi, w));
        let low33 = BigUint::from(b[0] & ((1 << 33) - 1));
        prop_assert_eq!(run(w, "zext_i33", a, b, n), words(&low33, w));
        let sext33 = wrap(signed(&low33, 33), w);
        prop_assert_eq!(run(w, "sext_i33", a, b, n), words(&sext33, w));
        prop_assert_eq!(run(w, "trunc_i40", a, b, 1)[0], a[0] & ((1 << 40) - 1));
        if w < 256 {
            let wide = wrap(signed(&x, w), 256);
            prop_assert_eq!(run(w, "sext_wide", a, b, 4), words(&wide, 256));
        }
    }

    #[test]
    fn stores_write_exactly_the_store_size(w in width(), a in operand()) {
        let x = unsigned(a, w);
        let mut bytes = [0xaau8; 40];
        let stored = x.to_bytes_le();
        let size = w.div_ceil(8) as usize;
        bytes[..size].fill(0);
        bytes[..stored.len()].copy_from_slice(&stored);
        let want: Vec<u64> = bytes.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        prop_assert_eq!(run(w, "store", a, [0; 4], 5), want);
    }

    #[test]
    fn conversions_with_floats_match_rust(w in prop::sample::select(vec![65u32, 72, 96, 128]), a in operand(), v in any::<f64>()) {
        let x = unsigned(a, w);
        let (digits, sx) = (words(&x, w), signed(&x, w));
        let as_u128 = u128::from(digits[0]) | (u128::from(digits[1]) << 64);
        let (sign, magnitude) = sx.to_u64_digits();
        let mag = u128::from(magnitude.first().copied().unwrap_or(0)) | (u128::from(magnitude.get(1).copied().unwrap_or(0)) << 64);
        let as_i128 = if sign == Sign::Minus { (mag as i128).wrapping_neg() } else { mag as i128 };
        prop_assert_eq!(run(w, "uitofp_f64", a, [0; 4], 1)[0], (as_u128 as f64).to_bits());
        prop_assert_eq!(run(w, "uitofp_f32", a, [0; 4], 1)[0], u64::from((as_u128 as f32).to_bits()));
        prop_assert_eq!(run(w, "sitofp_f64", a, [0; 4], 1)[0], (as_i128 as f64).to_bits());
        prop_assert_eq!(run(w, "sitofp_f32", a, [0; 4], 1)[0], u64::from((as_i128 as f32).to_bits()));
        // In range: |v| below 2^(w-1) (and not negative for fptoui, beyond -1).
        let v = if v.is_finite() { v % 2f64.powi(w as i32 - 1) } else { 0.5 };
        let b = [v.to_bits(), 0, 0, 0];
        let n = limb_count(w);
        let signed_want = wrap(BigInt::from(v as i128), w);
        prop_assert_eq!(run(w, "fptosi", a, b, n), words(&signed_want, w), "fptosi {}", v);
        let u = v.abs();
        let unsigned_want = BigUint::from(u as u128);
        prop_assert_eq!(run(w, "fptoui", a, [u.to_bits(), 0, 0, 0], n), words(&unsigned_want, w), "fptoui {}", u);
    }
}
