//! Integration tests of the interpreter on hand-built IR: semantics against Rust's own
//! operations, memory, traps, calls, switches and observer events.

mod common;

use common::{module, single, FnBuilder};
use fpforge_exec::{
    BranchTrace, Compilation, Concrete, ExecConfig, FullTrace, Interpreter, NoObserver, Observer,
    OpTrace, Outcome, Run, TrapKind, DEADLINE_CHECK_STEPS,
};
use fpforge_spec::Arg;
use fpir::{
    AddrBase, BranchSite, Builtin, Callee, CastOp, FloatBinOp, FloatPred, FloatTy, Func,
    GlobalData, InstKind, IntBinOp, IntPred, MathCall, MathFn, Module, SwitchCase, Terminator,
    Type,
};
use proptest::prelude::*;
use std::time::{Duration, Instant};

fn interp<O: Observer>(m: &Module, obs: O) -> Interpreter<'_, Concrete, O> {
    Interpreter::new(m, Concrete, obs, ExecConfig::default()).expect("valid module")
}

fn run(m: &Module, args: &[Arg]) -> Run<u64> {
    interp(m, NoObserver)
        .call(Func(0), args)
        .expect("valid call")
}

fn returned(r: &Run<u64>) -> u64 {
    match &r.outcome {
        Outcome::Returned(Some(v)) => *v,
        other => panic!("expected a value, got {other:?}"),
    }
}

fn trapped(r: &Run<u64>) -> TrapKind {
    match &r.outcome {
        Outcome::Trapped(t) => t.kind.clone(),
        other => panic!("expected a trap, got {other:?}"),
    }
}

fn scalars(xs: &[u64]) -> Vec<Arg> {
    xs.iter().map(|&x| Arg::Scalar(x)).collect()
}

/// `f(a, b) = a op b` at type `ty`.
fn int_bin_module(op: IntBinOp, ty: Type) -> Module {
    let (mut b, p) = FnBuilder::new("f", &[ty, ty], Some(ty));
    let r = b.ibin(op, ty, p[0], p[1]);
    b.ret(Some(r));
    single(b.finish())
}

macro_rules! int_ref {
    ($u:ty, $i:ty, $op:expr, $a:expr, $b:expr) => {{
        let (a, b) = ($a as $u, $b as $u);
        let (sa, sb) = (a as $i, b as $i);
        let bits = <$u>::BITS;
        let count = if bits <= 32 { $b & 31 } else { $b & 63 } as u32;
        let r: Option<$u> = match $op {
            IntBinOp::Add => Some(a.wrapping_add(b)),
            IntBinOp::Sub => Some(a.wrapping_sub(b)),
            IntBinOp::Mul => Some(a.wrapping_mul(b)),
            IntBinOp::Udiv => a.checked_div(b),
            IntBinOp::Sdiv => sa.checked_div(sb).map(|v| v as $u),
            IntBinOp::Urem => a.checked_rem(b),
            IntBinOp::Srem => sa.checked_rem(sb).map(|v| v as $u),
            IntBinOp::Shl => Some(((a as u64) << count) as $u),
            IntBinOp::Lshr => Some(((a as u64) >> count) as $u),
            IntBinOp::Ashr => Some(((sa as i64) >> count) as $u),
            IntBinOp::And => Some(a & b),
            IntBinOp::Or => Some(a | b),
            IntBinOp::Xor => Some(a ^ b),
        };
        r.map(|v| v as u64)
    }};
}

fn int_reference(op: IntBinOp, width: u8, a: u64, b: u64) -> Option<u64> {
    match width {
        8 => int_ref!(u8, i8, op, a, b),
        16 => int_ref!(u16, i16, op, a, b),
        32 => int_ref!(u32, i32, op, a, b),
        _ => int_ref!(u64, i64, op, a, b),
    }
}

fn small_or_any() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        (0u64..70),
        Just(u64::MAX),
        Just(1 << 63),
        Just(0x8000_0000),
        Just(0xffff_ffff)
    ]
}

fn float_bits() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        (-1e3f64..1e3).prop_map(f64::to_bits),
        prop::sample::select(vec![
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            1e19,
            -1e19,
            2147483648.0,
            4294967296.0,
            9.3e18,
            1.8446744073709552e19
        ])
        .prop_map(f64::to_bits),
    ]
}

fn f32_bits() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u32>().prop_map(u64::from),
        float_bits().prop_map(|b| u64::from((f64::from_bits(b) as f32).to_bits())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn int_ops_match_rust(a in small_or_any(), b in small_or_any()) {
        for width in [8u8, 16, 32, 64] {
            let ty = Type::Int(width);
            for op in IntBinOp::ALL {
                let m = int_bin_module(op, ty);
                let r = run(&m, &scalars(&[a, b]));
                match int_reference(op, width, a, b) {
                    Some(v) => prop_assert_eq!(returned(&r), v, "{:?} i{} {:#x} {:#x}", op, width, a, b),
                    None => prop_assert!(matches!(
                        trapped(&r),
                        TrapKind::IntDivByZero | TrapKind::IntDivOverflow
                    )),
                }
            }
        }
    }

    #[test]
    fn f64_ops_match_rust(a in float_bits(), b in float_bits()) {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let expect = [x + y, x - y, x * y, x / y, x % y];
        let ops = [FloatBinOp::Fadd, FloatBinOp::Fsub, FloatBinOp::Fmul, FloatBinOp::Fdiv, FloatBinOp::Frem];
        for (op, e) in ops.into_iter().zip(expect) {
            let (mut bld, p) = FnBuilder::new("f", &[Type::F64, Type::F64], Some(Type::F64));
            let r = bld.fbin(op, FloatTy::F64, p[0], p[1]);
            bld.ret(Some(r));
            let got = returned(&run(&single(bld.finish()), &scalars(&[a, b])));
            prop_assert_eq!(got, e.to_bits(), "{:?} {} {}", op, x, y);
        }
    }

    #[test]
    fn f32_ops_match_rust(a in f32_bits(), b in f32_bits()) {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let expect = [x + y, x - y, x * y, x / y, x % y];
        let ops = [FloatBinOp::Fadd, FloatBinOp::Fsub, FloatBinOp::Fmul, FloatBinOp::Fdiv, FloatBinOp::Frem];
        for (op, e) in ops.into_iter().zip(expect) {
            let (mut bld, p) = FnBuilder::new("f", &[Type::F32, Type::F32], Some(Type::F32));
            let r = bld.fbin(op, FloatTy::F32, p[0], p[1]);
            bld.ret(Some(r));
            let got = returned(&run(&single(bld.finish()), &scalars(&[a, b])));
            prop_assert_eq!(got, u64::from(e.to_bits()), "{:?} {} {}", op, x, y);
        }
    }

    #[test]
    fn fcmp_matches_partial_cmp(a in float_bits(), b in float_bits()) {
        use std::cmp::Ordering::*;
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let o = x.partial_cmp(&y);
        let table = [
            (FloatPred::False, false),
            (FloatPred::Oeq, o == Some(Equal)),
            (FloatPred::Ogt, o == Some(Greater)),
            (FloatPred::Oge, matches!(o, Some(Greater | Equal))),
            (FloatPred::Olt, o == Some(Less)),
            (FloatPred::Ole, matches!(o, Some(Less | Equal))),
            (FloatPred::One, matches!(o, Some(Less | Greater))),
            (FloatPred::Ord, o.is_some()),
            (FloatPred::Ueq, matches!(o, None | Some(Equal))),
            (FloatPred::Ugt, matches!(o, None | Some(Greater))),
            (FloatPred::Uge, o != Some(Less)),
            (FloatPred::Ult, matches!(o, None | Some(Less))),
            (FloatPred::Ule, o != Some(Greater)),
            (FloatPred::Une, o != Some(Equal)),
            (FloatPred::Uno, o.is_none()),
            (FloatPred::True, true),
        ];
        for (pred, e) in table {
            let (mut bld, p) = FnBuilder::new("f", &[Type::F64, Type::F64], Some(Type::BOOL));
            let r = bld.op(Type::BOOL, InstKind::Fcmp { pred, ty: FloatTy::F64, lhs: p[0], rhs: p[1] });
            bld.ret(Some(r));
            let got = returned(&run(&single(bld.finish()), &scalars(&[a, b])));
            prop_assert_eq!(got, u64::from(e), "{:?} {} {}", pred, x, y);
        }
    }

    #[test]
    fn fused_compare_and_branch_agrees_with_the_compare(
        a in small_or_any(), b in small_or_any(), x in float_bits(), y in float_bits()
    ) {
        for ty in [Type::I32, Type::I64] {
            for pred in IntPred::ALL {
                let kind = |lhs, rhs| InstKind::Icmp { pred, ty, lhs, rhs };
                fused_branch_agrees(ty, kind, [a, b])?;
            }
        }
        for pred in FloatPred::ALL {
            let kind = |lhs, rhs| InstKind::Fcmp { pred, ty: FloatTy::F64, lhs, rhs };
            fused_branch_agrees(Type::F64, kind, [x, y])?;
        }
    }

    #[test]
    fn icmp_matches_rust(a in small_or_any(), b in small_or_any()) {
        let (x, y) = (a as u32, b as u32);
        let (sx, sy) = (x as i32, y as i32);
        let table = [
            (IntPred::Eq, x == y), (IntPred::Ne, x != y),
            (IntPred::Ugt, x > y), (IntPred::Uge, x >= y), (IntPred::Ult, x < y), (IntPred::Ule, x <= y),
            (IntPred::Sgt, sx > sy), (IntPred::Sge, sx >= sy), (IntPred::Slt, sx < sy), (IntPred::Sle, sx <= sy),
        ];
        for (pred, e) in table {
            let (mut bld, p) = FnBuilder::new("f", &[Type::I32, Type::I32], Some(Type::BOOL));
            let r = bld.op(Type::BOOL, InstKind::Icmp { pred, ty: Type::I32, lhs: p[0], rhs: p[1] });
            bld.ret(Some(r));
            let got = returned(&run(&single(bld.finish()), &scalars(&[a, b])));
            prop_assert_eq!(got, u64::from(e), "{:?}", pred);
        }
    }

    #[test]
    fn casts_match_rust(a in float_bits(), i in small_or_any()) {
        let x = f64::from_bits(a);
        let mut cases: Vec<(CastOp, Type, Type, u64, u64)> = vec![
            (CastOp::Sitofp, Type::I32, Type::F64, i, f64::from(i as u32 as i32).to_bits()),
            (CastOp::Sitofp, Type::I64, Type::F32, i, u64::from((i as i64 as f32).to_bits())),
            (CastOp::Uitofp, Type::I64, Type::F64, i, (i as f64).to_bits()),
            (CastOp::Uitofp, Type::I64, Type::F32, i, u64::from((i as f32).to_bits())),
            (CastOp::Uitofp, Type::I32, Type::F32, i, u64::from((i as u32 as f32).to_bits())),
            (CastOp::Sext, Type::I8, Type::I32, i, u64::from(i as u8 as i8 as i32 as u32)),
            (CastOp::Zext, Type::I8, Type::I64, i, u64::from(i as u8)),
            (CastOp::Trunc, Type::I64, Type::Int(16), i, u64::from(i as u16)),
            (CastOp::Fptrunc, Type::F64, Type::F32, a, u64::from((x as f32).to_bits())),
            (CastOp::Bitcast, Type::F64, Type::I64, a, a),
        ];
        if x.is_finite() && x.abs() < 2147483648.0 {
            cases.push((CastOp::Fptosi, Type::F64, Type::I32, a, u64::from(x as i32 as u32)));
        }
        if x.is_finite() && x.abs() < 9.2e18 {
            cases.push((CastOp::Fptosi, Type::F64, Type::I64, a, x as i64 as u64));
        }
        if x.is_finite() && x > -1.0 && x < 1.8e19 {
            cases.push((CastOp::Fptoui, Type::F64, Type::I64, a, x as u64));
        }
        let xf = x as f32;
        cases.push((CastOp::Fpext, Type::F32, Type::F64, u64::from(xf.to_bits()), f64::from(xf).to_bits()));
        for (op, from, to, arg, e) in cases {
            let (mut bld, p) = FnBuilder::new("f", &[from], Some(to));
            let r = bld.op(to, InstKind::Cast { op, from, to, arg: p[0] });
            bld.ret(Some(r));
            let got = returned(&run(&single(bld.finish()), &scalars(&[arg])));
            prop_assert_eq!(got, e, "{:?} {} -> {}", op, from, to);
        }
    }
}

/// Runs `cmp(p0, p1)` on `args` alone, then followed by a branch on it that returns 11 or
/// 0, with the comparison read only by the branch and read after it too (which prepare
/// fuses differently): the branch must agree with the comparison.
fn fused_branch_agrees(
    ty: Type,
    cmp: impl Fn(fpir::Reg, fpir::Reg) -> InstKind,
    args: [u64; 2],
) -> Result<(), TestCaseError> {
    let (mut bld, p) = FnBuilder::new("f", &[ty, ty], Some(Type::BOOL));
    let r = bld.op(Type::BOOL, cmp(p[0], p[1]));
    bld.ret(Some(r));
    let expected = returned(&run(&single(bld.finish()), &scalars(&args)));
    for live in [false, true] {
        let (mut bld, p) = FnBuilder::new("f", &[ty, ty], Some(Type::I32));
        let c = bld.op(Type::BOOL, cmp(p[0], p[1]));
        let (then, _) = bld.block(&[]);
        let (other, _) = bld.block(&[]);
        bld.br(c, then, other);
        let (one, ten, eleven, zero) = (bld.i32c(1), bld.i32c(10), bld.i32c(11), bld.i32c(0));
        for (block, value) in [(then, eleven), (other, zero)] {
            bld.switch_to(block);
            // Live: 10 * c + 1 on the then side and c on the else side, so a wrong
            // direction and a wrong value both show.
            let r = if live {
                let z = bld.op(
                    Type::I32,
                    InstKind::Cast {
                        op: CastOp::Zext,
                        from: Type::BOOL,
                        to: Type::I32,
                        arg: c,
                    },
                );
                if block == then {
                    let t = bld.ibin(IntBinOp::Mul, Type::I32, z, ten);
                    bld.ibin(IntBinOp::Add, Type::I32, t, one)
                } else {
                    z
                }
            } else {
                value
            };
            bld.ret(Some(r));
        }
        let got = returned(&run(&single(bld.finish()), &scalars(&args)));
        prop_assert_eq!(got, 11 * expected, "live {} {:?}", live, args);
    }
    Ok(())
}

#[test]
fn store_f64_load_high_word() {
    // int hi(double x) { return *(1 + (int *)&x); }
    let (mut b, p) = FnBuilder::new("hi", &[Type::F64], Some(Type::I32));
    let slot = b.alloca(8, 8);
    b.effect(InstKind::Store {
        ty: Type::F64,
        addr: slot,
        value: p[0],
    });
    let hi = b.op(
        Type::Ptr,
        InstKind::PtrOffset {
            base: slot,
            offset: 4,
            terms: vec![],
        },
    );
    let v = b.op(
        Type::I32,
        InstKind::Load {
            ty: Type::I32,
            addr: hi,
        },
    );
    b.ret(Some(v));
    let m = single(b.finish());
    for x in [1.0f64, -2.5, f64::NAN, 1e-310] {
        let r = run(&m, &[Arg::Scalar(x.to_bits())]);
        assert_eq!(returned(&r), x.to_bits() >> 32);
    }
}

/// `fact(n) = n <= 1 ? 1 : n * fact(n - 1)` on i64.
fn factorial() -> Module {
    let (mut b, p) = FnBuilder::new("fact", &[Type::I64], Some(Type::I64));
    let one = b.i64c(1);
    let c = b.op(
        Type::BOOL,
        InstKind::Icmp {
            pred: IntPred::Sle,
            ty: Type::I64,
            lhs: p[0],
            rhs: one,
        },
    );
    let (base, _) = b.block(&[]);
    let (rec, _) = b.block(&[]);
    b.br(c, base, rec);
    b.switch_to(base);
    b.ret(Some(one));
    b.switch_to(rec);
    let n1 = b.ibin(IntBinOp::Sub, Type::I64, p[0], one);
    let f = b
        .call(Some(Type::I64), Callee::Direct(Func(0)), vec![n1])
        .unwrap();
    let r = b.ibin(IntBinOp::Mul, Type::I64, p[0], f);
    b.ret(Some(r));
    single(b.finish())
}

#[test]
fn recursion_factorial() {
    let m = factorial();
    let mut it = interp(&m, BranchTrace::default());
    for (n, e) in [(0u64, 1u64), (1, 1), (5, 120), (20, 2432902008176640000)] {
        let r = it.call(Func(0), &[Arg::Scalar(n)]).unwrap();
        assert_eq!(returned(&r), e);
    }
    it.observer_mut().clear();
    it.call(Func(0), &[Arg::Scalar(3)]).unwrap();
    let outs: Vec<_> = it.observer().events.iter().map(|e| e.arm).collect();
    assert_eq!(outs, [false, false, true].map(fpir::Arm::cond).to_vec());
}

#[test]
fn recursion_depth_traps() {
    let m = factorial();
    let cfg = ExecConfig::default().with_max_depth(100);
    let mut it = Interpreter::new(&m, Concrete, NoObserver, cfg).unwrap();
    let fact50 = (1..=50u64).fold(1u64, u64::wrapping_mul);
    assert_eq!(
        returned(&it.call(Func(0), &[Arg::Scalar(50)]).unwrap()),
        fact50
    );
    let r = it.call(Func(0), &[Arg::Scalar(1000)]).unwrap();
    assert_eq!(trapped(&r), TrapKind::StackOverflow);
}

/// `fib(n) = n < 2 ? n : fib(n-1) + fib(n-2)` on i32.
fn fib() -> Module {
    let (mut b, p) = FnBuilder::new("fib", &[Type::I32], Some(Type::I32));
    let two = b.i32c(2);
    let one = b.i32c(1);
    let c = b.op(
        Type::BOOL,
        InstKind::Icmp {
            pred: IntPred::Slt,
            ty: Type::I32,
            lhs: p[0],
            rhs: two,
        },
    );
    let (base, _) = b.block(&[]);
    let (rec, _) = b.block(&[]);
    b.br(c, base, rec);
    b.switch_to(base);
    b.ret(Some(p[0]));
    b.switch_to(rec);
    let n1 = b.ibin(IntBinOp::Sub, Type::I32, p[0], one);
    let n2 = b.ibin(IntBinOp::Sub, Type::I32, p[0], two);
    let f1 = b
        .call(Some(Type::I32), Callee::Direct(Func(0)), vec![n1])
        .unwrap();
    let f2 = b
        .call(Some(Type::I32), Callee::Direct(Func(0)), vec![n2])
        .unwrap();
    let r = b.ibin(IntBinOp::Add, Type::I32, f1, f2);
    b.ret(Some(r));
    single(b.finish())
}

#[test]
fn recursion_fib() {
    let m = fib();
    let r = run(&m, &[Arg::Scalar(20)]);
    assert_eq!(returned(&r), 6765);
}

/// `f0(x) = a(b(a(x)))` with `f1 = a(x) = x + 10` and `f2 = b(x) = x * 3 + 7`: frames
/// of different sizes and constants laid out at the same depth and place in turn.
fn alternating_calls() -> Module {
    let i64t = Type::I64;
    let (mut a, p) = FnBuilder::new("a", &[i64t], Some(i64t));
    let ten = a.i64c(10);
    let r = a.ibin(IntBinOp::Add, i64t, p[0], ten);
    a.ret(Some(r));
    let (mut b, p) = FnBuilder::new("b", &[i64t], Some(i64t));
    let three = b.i64c(3);
    let seven = b.i64c(7);
    let t = b.ibin(IntBinOp::Mul, i64t, p[0], three);
    let r = b.ibin(IntBinOp::Add, i64t, t, seven);
    b.ret(Some(r));
    let (mut f, p) = FnBuilder::new("f", &[i64t], Some(i64t));
    let mut x = p[0];
    for callee in [1, 2, 1] {
        x = f
            .call(Some(i64t), Callee::Direct(Func(callee)), vec![x])
            .expect("a result");
    }
    f.ret(Some(x));
    module(vec![f.finish(), a.finish(), b.finish()], vec![], vec![])
}

#[test]
fn reused_frames_keep_their_constants() {
    let m = alternating_calls();
    let mut it = interp(&m, NoObserver);
    for x in [0u64, 5, 100] {
        let r = it.call(Func(0), &[Arg::Scalar(x)]).unwrap();
        assert_eq!(returned(&r), (x + 10) * 3 + 7 + 10);
        let r = it.call(Func(2), &[Arg::Scalar(x)]).unwrap();
        assert_eq!(returned(&r), x * 3 + 7);
        let r = it.call(Func(1), &[Arg::Scalar(x)]).unwrap();
        assert_eq!(returned(&r), x + 10);
    }
}

/// `loop(n)`: `i = 0; while (1) i++;` when `n != 0`, counting with block parameters.
fn infinite_loop() -> Module {
    let (mut b, _) = FnBuilder::new("spin", &[Type::I32], Some(Type::I32));
    let zero = b.i32c(0);
    let one = b.i32c(1);
    let (head, hp) = b.block(&[Type::I32]);
    b.jump(head, vec![zero]);
    b.switch_to(head);
    let next = b.ibin(IntBinOp::Add, Type::I32, hp[0], one);
    b.jump(head, vec![next]);
    single(b.finish())
}

#[test]
fn fuel_exhaustion() {
    let m = infinite_loop();
    let cfg = ExecConfig::default().with_fuel(10_000);
    let mut it = Interpreter::new(&m, Concrete, NoObserver, cfg).unwrap();
    let r = it.call(Func(0), &[Arg::Scalar(1)]).unwrap();
    assert_eq!(trapped(&r), TrapKind::FuelExhausted);
    assert_eq!(r.steps, 10_000);
}

#[test]
fn a_deadline_ends_a_long_interpreted_run_as_no_fault() {
    let m = infinite_loop();
    // 2^31 steps: seconds of interpretation, far past the deadline.
    let cfg = ExecConfig::default()
        .with_fuel(1 << 31)
        .with_compile(Compilation::Off)
        .with_deadline(Some(Instant::now() + Duration::from_millis(20)));
    let mut it = Interpreter::new(&m, Concrete, NoObserver, cfg).unwrap();
    let r = it.call(Func(0), &[Arg::Scalar(1)]).unwrap();
    let kind = trapped(&r);
    assert_eq!(kind, TrapKind::DeadlinePassed);
    assert!(!kind.is_fault());
    assert!(r.steps < 1 << 31);
}

#[test]
fn a_far_deadline_changes_no_result_and_no_step_count() {
    let m = fib();
    let args = [Arg::Scalar(24)];
    let full = run(&m, &args);
    assert!(
        full.steps > 4 * DEADLINE_CHECK_STEPS,
        "{} steps",
        full.steps
    );
    let far = Some(Instant::now() + Duration::from_secs(3600));
    let with_deadline = |fuel: u64| {
        let cfg = ExecConfig::default()
            .with_fuel(fuel)
            .with_compile(Compilation::Off)
            .with_deadline(far);
        let mut it = Interpreter::new(&m, Concrete, NoObserver, cfg).unwrap();
        it.call(Func(0), &args).unwrap()
    };
    assert_eq!(with_deadline(full.steps), full);
    for fuel in [
        DEADLINE_CHECK_STEPS - 1,
        DEADLINE_CHECK_STEPS,
        3 * DEADLINE_CHECK_STEPS + 7,
    ] {
        let r = with_deadline(fuel);
        assert_eq!(trapped(&r), TrapKind::FuelExhausted, "fuel {fuel}");
        assert_eq!(r.steps, fuel);
    }
}

/// `bits(x)`: the word of `x` through a stack slot (a leaf that preparation inlines).
fn bits_leaf() -> fpir::Function {
    let (mut b, p) = FnBuilder::new("bits", &[Type::F64], Some(Type::I64));
    let slot = b.alloca(8, 8);
    b.effect(InstKind::Store {
        ty: Type::F64,
        addr: slot,
        value: p[0],
    });
    let v = b.op(
        Type::I64,
        InstKind::Load {
            ty: Type::I64,
            addr: slot,
        },
    );
    b.ret(Some(v));
    b.finish()
}

#[test]
fn inlined_leaves_release_their_stack_and_report_their_traps() {
    // f0(n, x): s = 0; for i in 0..n { s ^= bits(id(x)) ^ i } return s / div(n)
    let (mut b, p) = FnBuilder::new("f", &[Type::I64, Type::F64], Some(Type::I64));
    let zero = b.i64c(0);
    let one = b.i64c(1);
    let (head, hp) = b.block(&[Type::I64, Type::I64]);
    let (body, _) = b.block(&[]);
    let (done, _) = b.block(&[]);
    b.jump(head, vec![zero, zero]);
    b.switch_to(head);
    let more = b.op(
        Type::BOOL,
        InstKind::Icmp {
            pred: IntPred::Slt,
            ty: Type::I64,
            lhs: hp[0],
            rhs: p[0],
        },
    );
    b.br(more, body, done);
    b.switch_to(body);
    let x = b
        .call(Some(Type::F64), Callee::Direct(Func(2)), vec![p[1]])
        .unwrap();
    let w = b
        .call(Some(Type::I64), Callee::Direct(Func(1)), vec![x])
        .unwrap();
    let s = b.ibin(IntBinOp::Xor, Type::I64, hp[1], w);
    let s = b.ibin(IntBinOp::Xor, Type::I64, s, hp[0]);
    let i = b.ibin(IntBinOp::Add, Type::I64, hp[0], one);
    b.jump(head, vec![i, s]);
    b.switch_to(done);
    let q = b
        .call(Some(Type::I64), Callee::Direct(Func(3)), vec![hp[1], p[0]])
        .unwrap();
    b.ret(Some(q));
    let f = b.finish();
    let (mut id, ip) = FnBuilder::new("id", &[Type::F64], Some(Type::F64));
    id.ret(Some(ip[0]));
    let (mut div, dp) = FnBuilder::new("div", &[Type::I64, Type::I64], Some(Type::I64));
    let r = div.ibin(IntBinOp::Udiv, Type::I64, dp[0], dp[1]);
    div.ret(Some(r));
    let m = module(
        vec![f, bits_leaf(), id.finish(), div.finish()],
        vec![],
        vec![],
    );
    let cfg = ExecConfig::default().with_stack_bytes(256);
    let mut it = Interpreter::new(&m, Concrete, NoObserver, cfg).unwrap();
    let x = 1.5f64;
    let n = 10_000u64;
    let expect = (0..n).fold(0, |s, i| s ^ x.to_bits() ^ i) / n;
    let r = it
        .call(Func(0), &[Arg::Scalar(n), Arg::Scalar(x.to_bits())])
        .unwrap();
    assert_eq!(returned(&r), expect);
    let r = it
        .call(Func(0), &[Arg::Scalar(0), Arg::Scalar(x.to_bits())])
        .unwrap();
    match r.outcome {
        Outcome::Trapped(t) => {
            assert_eq!(t.kind, TrapKind::IntDivByZero);
            assert_eq!(t.func, Func(3));
        }
        other => panic!("expected a trap, got {other:?}"),
    }
    // Runs stay independent when the interpreter keeps the bottom frame between runs of
    // the same function, after a trap and after running another function.
    let again = it
        .call(Func(0), &[Arg::Scalar(n), Arg::Scalar(x.to_bits())])
        .unwrap();
    assert_eq!(returned(&again), expect);
    let q = it.call(Func(3), &[Arg::Scalar(7), Arg::Scalar(2)]).unwrap();
    assert_eq!(returned(&q), 3);
    let third = it
        .call(Func(0), &[Arg::Scalar(n), Arg::Scalar(x.to_bits())])
        .unwrap();
    assert_eq!(third, again);
}

#[test]
fn redefined_constant_registers_are_rejected() {
    let (mut b, p) = FnBuilder::new("f", &[Type::I32], Some(Type::I32));
    b.ret(Some(p[0]));
    let mut f = b.finish();
    // Make the parameter a constant too: preparation must refuse it.
    f.consts.push((p[0], fpir::Const::Bits(5)));
    let m = single(f);
    assert!(Interpreter::new(&m, Concrete, NoObserver, ExecConfig::default()).is_err());
}

#[test]
fn fuel_runs_out_exactly_at_the_budget() {
    // Steps are counted per segment and fuel is checked at control transfers (with a
    // careful per-op mode near the end): the trap still comes after exactly `fuel` ops.
    let m = fib();
    let full = run(&m, &[Arg::Scalar(6)]);
    for fuel in 0..=full.steps + 2 {
        let cfg = ExecConfig::default().with_fuel(fuel);
        let mut it = Interpreter::new(&m, Concrete, NoObserver, cfg).unwrap();
        let r = it.call(Func(0), &[Arg::Scalar(6)]).unwrap();
        if fuel < full.steps {
            assert_eq!(trapped(&r), TrapKind::FuelExhausted, "fuel {fuel}");
            assert_eq!(r.steps, fuel);
        } else {
            assert_eq!(r, full, "fuel {fuel}");
        }
    }
}

#[test]
fn parallel_block_arguments() {
    // (a, b) = (b, a) three times, through block parameters.
    let (mut b, p) = FnBuilder::new("swap", &[Type::I32, Type::I32], Some(Type::I32));
    let zero = b.i32c(0);
    let one = b.i32c(1);
    let three = b.i32c(3);
    let ten = b.i32c(10);
    let (head, hp) = b.block(&[Type::I32, Type::I32, Type::I32]);
    let (done, _) = b.block(&[]);
    let (body, _) = b.block(&[]);
    b.jump(head, vec![p[0], p[1], zero]);
    b.switch_to(head);
    let c = b.op(
        Type::BOOL,
        InstKind::Icmp {
            pred: IntPred::Slt,
            ty: Type::I32,
            lhs: hp[2],
            rhs: three,
        },
    );
    b.br(c, body, done);
    b.switch_to(body);
    let i1 = b.ibin(IntBinOp::Add, Type::I32, hp[2], one);
    b.jump(head, vec![hp[1], hp[0], i1]);
    b.switch_to(done);
    let t = b.ibin(IntBinOp::Mul, Type::I32, hp[0], ten);
    let r = b.ibin(IntBinOp::Add, Type::I32, t, hp[1]);
    b.ret(Some(r));
    let m = single(b.finish());
    assert_eq!(returned(&run(&m, &scalars(&[1, 2]))), 21);
}

/// `sw(x)`: `switch (x) { case 1: return 10; case 5: return 50; case 3: return 30; default: return -1; }`
fn switch_module() -> Module {
    let (mut b, p) = FnBuilder::new("sw", &[Type::I32], Some(Type::I32));
    let mut cases = Vec::new();
    for v in [1u64, 5, 3] {
        let (blk, _) = b.block(&[]);
        let c = b.i32c(v as i32 * 10);
        b.switch_to(blk);
        b.ret(Some(c));
        cases.push(SwitchCase {
            value: v,
            target: fpir::module::block_call(blk),
        });
    }
    let (dflt, _) = b.block(&[]);
    let m1 = b.i32c(-1);
    b.switch_to(dflt);
    b.ret(Some(m1));
    b.switch_to(fpir::Block(0));
    b.term(Terminator::Switch {
        ty: Type::I32,
        value: p[0],
        cases,
        default: fpir::module::block_call(dflt),
        site: BranchSite(0),
    });
    single(b.finish())
}

#[test]
fn switch_cases_and_default() {
    let m = switch_module();
    let mut it = interp(&m, FullTrace::default());
    for (x, e, case) in [
        (1u64, 10u64, Some(0)),
        (3, 30, Some(2)),
        (5, 50, Some(1)),
        (4, u64::from(-1i32 as u32), None),
        (u64::from(-1i32 as u32), u64::from(-1i32 as u32), None),
    ] {
        it.observer_mut().clear();
        let r = it.call(Func(0), &[Arg::Scalar(x)]).unwrap();
        assert_eq!(returned(&r), e);
        let ev = it.observer().branches[0];
        assert_eq!(ev.side.arm, fpir::Arm::case(case));
        assert_eq!(ev.operands, Some([x, 0]));
    }
}

#[test]
fn branch_operands_come_from_the_comparison() {
    // if (x < 1.5) return x + 1.0; else return x;
    let (mut b, p) = FnBuilder::new("g", &[Type::F64], Some(Type::F64));
    let k = b.f64c(1.5);
    let one = b.f64c(1.0);
    let c = b.op(
        Type::BOOL,
        InstKind::Fcmp {
            pred: FloatPred::Olt,
            ty: FloatTy::F64,
            lhs: p[0],
            rhs: k,
        },
    );
    let (t, _) = b.block(&[]);
    let (e, _) = b.block(&[]);
    b.br(c, t, e);
    b.switch_to(t);
    let s = b.fbin(FloatBinOp::Fadd, FloatTy::F64, p[0], one);
    b.ret(Some(s));
    b.switch_to(e);
    b.ret(Some(p[0]));
    let m = single(b.finish());
    let mut it = interp(&m, FullTrace::default());
    let r = it.call(Func(0), &[Arg::Scalar(0.25f64.to_bits())]).unwrap();
    assert_eq!(returned(&r), 1.25f64.to_bits());
    let tr = it.observer();
    assert_eq!(tr.branches.len(), 1);
    assert_eq!(tr.branches[0].side.arm, fpir::Arm::True);
    assert_eq!(
        tr.branches[0].operands,
        Some([0.25f64.to_bits(), 1.5f64.to_bits()])
    );
    assert_eq!(tr.ops.len(), 1);
    assert_eq!(tr.ops[0].args(), &[0.25f64.to_bits(), 1.0f64.to_bits()]);
    assert_eq!(tr.ops[0].result, 1.25f64.to_bits());

    let mut it = interp(&m, OpTrace::default());
    it.call(Func(0), &[Arg::Scalar(2.0f64.to_bits())]).unwrap();
    assert!(it.observer().events.is_empty());
}

fn load_at(off: i64, size: u64, ty: Type) -> Module {
    let (mut b, _) = FnBuilder::new("oob", &[], Some(ty));
    let slot = b.op(
        Type::Ptr,
        InstKind::Alloca {
            size,
            count: None,
            align: 8,
        },
    );
    let at = b.op(
        Type::Ptr,
        InstKind::PtrOffset {
            base: slot,
            offset: off,
            terms: vec![],
        },
    );
    let v = b.op(ty, InstKind::Load { ty, addr: at });
    b.ret(Some(v));
    single(b.finish())
}

#[test]
fn traps_out_of_bounds_and_null() {
    assert!(matches!(
        trapped(&run(&load_at(8, 8, Type::I64), &[])),
        TrapKind::OutOfBounds { size: 8, .. }
    ));
    assert!(matches!(
        trapped(&run(&load_at(4, 8, Type::I64), &[])),
        TrapKind::OutOfBounds { .. }
    ));
    assert!(matches!(
        trapped(&run(&load_at(-1, 8, Type::I8), &[])),
        TrapKind::OutOfBounds { .. }
    ));
    assert_eq!(returned(&run(&load_at(4, 8, Type::I32), &[])), 0);

    let (mut b, _) = FnBuilder::new("null", &[], Some(Type::F64));
    let null = b.konst(Type::Ptr, 0);
    let v = b.op(
        Type::F64,
        InstKind::Load {
            ty: Type::F64,
            addr: null,
        },
    );
    b.ret(Some(v));
    let r = run(&single(b.finish()), &[]);
    assert_eq!(trapped(&r), TrapKind::NullDeref { addr: 0 });
}

#[test]
fn traps_unreachable_external_and_abort() {
    let (mut b, _) = FnBuilder::new("u", &[], None);
    b.term(Terminator::Unreachable);
    assert_eq!(
        trapped(&run(&single(b.finish()), &[])),
        TrapKind::Unreachable
    );

    let (mut b, _) = FnBuilder::new("e", &[], None);
    b.call(None, Callee::External(0), vec![]);
    b.ret(None);
    let m = module(vec![b.finish()], vec![], vec!["printf".into()]);
    assert_eq!(
        trapped(&run(&m, &[])),
        TrapKind::UnknownExternal("printf".into())
    );

    let (mut b, _) = FnBuilder::new("a", &[], None);
    b.call(None, Callee::Builtin(Builtin::Abort), vec![]);
    b.ret(None);
    assert_eq!(trapped(&run(&single(b.finish()), &[])), TrapKind::Abort);

    let (mut b, _) = FnBuilder::new("x", &[], None);
    let code = b.i32c(3);
    b.call(None, Callee::Builtin(Builtin::Exit), vec![code]);
    b.ret(None);
    assert_eq!(trapped(&run(&single(b.finish()), &[])), TrapKind::Exit(3));
}

#[test]
fn heap_use_after_free_and_double_free() {
    // p = malloc(16); p[1] = 7; free(p); [free(p) | return p[1]]
    for double in [false, true] {
        let (mut b, _) = FnBuilder::new("h", &[], Some(Type::I64));
        let n = b.i64c(16);
        let v7 = b.i64c(7);
        let p = b
            .call(Some(Type::Ptr), Callee::Builtin(Builtin::Malloc), vec![n])
            .unwrap();
        let q = b.op(
            Type::Ptr,
            InstKind::PtrOffset {
                base: p,
                offset: 8,
                terms: vec![],
            },
        );
        b.effect(InstKind::Store {
            ty: Type::I64,
            addr: q,
            value: v7,
        });
        b.call(None, Callee::Builtin(Builtin::Free), vec![p]);
        if double {
            b.call(None, Callee::Builtin(Builtin::Free), vec![p]);
            b.ret(Some(v7));
        } else {
            let v = b.op(
                Type::I64,
                InstKind::Load {
                    ty: Type::I64,
                    addr: q,
                },
            );
            b.ret(Some(v));
        }
        let r = run(&single(b.finish()), &[]);
        let kind = trapped(&r);
        if double {
            assert!(matches!(kind, TrapKind::InvalidFree { .. }), "{kind:?}");
        } else {
            assert!(matches!(kind, TrapKind::UseAfterFree { .. }), "{kind:?}");
        }
    }
}

#[test]
fn realloc_keeps_contents() {
    // p = malloc(8); *p = 42; p = realloc(p, 64); return *p;
    let (mut b, _) = FnBuilder::new("r", &[], Some(Type::I64));
    let n8 = b.i64c(8);
    let n64 = b.i64c(64);
    let v = b.i64c(42);
    let p = b
        .call(Some(Type::Ptr), Callee::Builtin(Builtin::Malloc), vec![n8])
        .unwrap();
    b.effect(InstKind::Store {
        ty: Type::I64,
        addr: p,
        value: v,
    });
    let q = b
        .call(
            Some(Type::Ptr),
            Callee::Builtin(Builtin::Realloc),
            vec![p, n64],
        )
        .unwrap();
    let x = b.op(
        Type::I64,
        InstKind::Load {
            ty: Type::I64,
            addr: q,
        },
    );
    b.ret(Some(x));
    assert_eq!(returned(&run(&single(b.finish()), &[])), 42);
}

#[test]
fn globals_are_reset_between_runs_and_constants_are_read_only() {
    // counter++ ; return counter;   and a store into a const global.
    let globals = vec![
        GlobalData {
            name: "counter".into(),
            init: 5i32.to_le_bytes().to_vec(),
            align: 4,
            constant: false,
            relocs: vec![],
        },
        GlobalData {
            name: "table".into(),
            init: vec![0; 8],
            align: 8,
            constant: true,
            relocs: vec![],
        },
    ];
    let (mut b, p) = FnBuilder::new("inc", &[Type::I32], Some(Type::I32));
    let g = b.addr_const(AddrBase::Global(fpir::Global(0)), 0);
    let t = b.addr_const(AddrBase::Global(fpir::Global(1)), 0);
    let one = b.i32c(1);
    let v = b.op(
        Type::I32,
        InstKind::Load {
            ty: Type::I32,
            addr: g,
        },
    );
    let w = b.ibin(IntBinOp::Add, Type::I32, v, one);
    b.effect(InstKind::Store {
        ty: Type::I32,
        addr: g,
        value: w,
    });
    let zero = b.i32c(0);
    let c = b.op(
        Type::BOOL,
        InstKind::Icmp {
            pred: IntPred::Ne,
            ty: Type::I32,
            lhs: p[0],
            rhs: zero,
        },
    );
    let (bad, _) = b.block(&[]);
    let (ok, _) = b.block(&[]);
    b.br(c, bad, ok);
    b.switch_to(bad);
    b.effect(InstKind::Store {
        ty: Type::I32,
        addr: t,
        value: w,
    });
    b.ret(Some(w));
    b.switch_to(ok);
    let x = b.op(
        Type::I32,
        InstKind::Load {
            ty: Type::I32,
            addr: g,
        },
    );
    b.ret(Some(x));
    let m = module(vec![b.finish()], globals, vec![]);
    let mut it = interp(&m, NoObserver);
    for _ in 0..3 {
        assert_eq!(returned(&it.call(Func(0), &[Arg::Scalar(0)]).unwrap()), 6);
    }
    let r = it.call(Func(0), &[Arg::Scalar(1)]).unwrap();
    assert!(matches!(trapped(&r), TrapKind::ReadOnlyWrite { .. }));
}

#[test]
fn array_arguments_are_read_and_written() {
    // void scale(double *a, int n) { for (i = 0; i < n; i++) a[i] *= 2; } ; returns sum
    let (mut b, p) = FnBuilder::new("scale", &[Type::Ptr, Type::I32], Some(Type::F64));
    let zero = b.i32c(0);
    let one = b.i32c(1);
    let two = b.f64c(2.0);
    let fz = b.f64c(0.0);
    let (head, hp) = b.block(&[Type::I32, Type::F64]);
    let (body, _) = b.block(&[]);
    let (done, _) = b.block(&[]);
    b.jump(head, vec![zero, fz]);
    b.switch_to(head);
    let c = b.op(
        Type::BOOL,
        InstKind::Icmp {
            pred: IntPred::Slt,
            ty: Type::I32,
            lhs: hp[0],
            rhs: p[1],
        },
    );
    b.br(c, body, done);
    b.switch_to(body);
    let at = b.op(
        Type::Ptr,
        InstKind::PtrOffset {
            base: p[0],
            offset: 0,
            terms: vec![fpir::IndexTerm {
                index: hp[0],
                scale: 8,
            }],
        },
    );
    let x = b.op(
        Type::F64,
        InstKind::Load {
            ty: Type::F64,
            addr: at,
        },
    );
    let y = b.fbin(FloatBinOp::Fmul, FloatTy::F64, x, two);
    b.effect(InstKind::Store {
        ty: Type::F64,
        addr: at,
        value: y,
    });
    let s = b.fbin(FloatBinOp::Fadd, FloatTy::F64, hp[1], y);
    let i1 = b.ibin(IntBinOp::Add, Type::I32, hp[0], one);
    b.jump(head, vec![i1, s]);
    b.switch_to(done);
    b.ret(Some(hp[1]));
    let m = single(b.finish());
    let arr = Arg::Array {
        elem: Type::F64,
        values: [1.0f64, 2.5, -3.0].iter().map(|x| x.to_bits()).collect(),
    };
    let r = run(&m, &[arr.clone(), Arg::Scalar(3)]);
    assert_eq!(f64::from_bits(returned(&r)), 1.0);
    let expect: Vec<u64> = [2.0f64, 5.0, -6.0].iter().map(|x| x.to_bits()).collect();
    assert_eq!(r.arrays, vec![expect]);
    // One element too many: reading a[3] hits the redzone.
    let r = run(&m, &[arr, Arg::Scalar(4)]);
    assert!(matches!(trapped(&r), TrapKind::OutOfBounds { .. }));
}

#[test]
fn indirect_calls_through_memory() {
    // double twice(double x) { return x + x; }
    let (mut t, tp) = FnBuilder::new("twice", &[Type::F64], Some(Type::F64));
    let s = t.fbin(FloatBinOp::Fadd, FloatTy::F64, tp[0], tp[0]);
    t.ret(Some(s));
    // double apply(double x) { double (*f)(double) = twice; store f; load f; f(x) }
    let (mut b, p) = FnBuilder::new("apply", &[Type::F64], Some(Type::F64));
    let fp = b.addr_const(AddrBase::Func(Func(1)), 0);
    let slot = b.alloca(8, 8);
    b.effect(InstKind::Store {
        ty: Type::Ptr,
        addr: slot,
        value: fp,
    });
    let f = b.op(
        Type::Ptr,
        InstKind::Load {
            ty: Type::Ptr,
            addr: slot,
        },
    );
    let r = b
        .call(Some(Type::F64), Callee::Indirect(f), vec![p[0]])
        .unwrap();
    b.ret(Some(r));
    let m = module(vec![b.finish(), t.finish()], vec![], vec![]);
    assert_eq!(
        returned(&run(&m, &[Arg::Scalar(1.5f64.to_bits())])),
        3.0f64.to_bits()
    );

    let (mut b, _) = FnBuilder::new("bad", &[], None);
    let junk = b.konst(Type::Ptr, 0x1234_5678);
    b.call(None, Callee::Indirect(junk), vec![]);
    b.ret(None);
    assert_eq!(
        trapped(&run(&single(b.finish()), &[])),
        TrapKind::BadIndirectCall { addr: 0x1234_5678 }
    );
}

#[test]
fn math_calls_and_frexp_store() {
    // double f(double x) { int e; double m = frexp(x, &e); return sin(m) + (double)e; }
    let (mut b, p) = FnBuilder::new("f", &[Type::F64], Some(Type::F64));
    let slot = b.alloca(4, 4);
    let math = |func| {
        Callee::Math(
            MathCall {
                func,
                ty: FloatTy::F64,
            },
            fpir::OpSite(0),
        )
    };
    let m = b
        .call(Some(Type::F64), math(MathFn::Frexp), vec![p[0], slot])
        .unwrap();
    let s = b.call(Some(Type::F64), math(MathFn::Sin), vec![m]).unwrap();
    let e = b.op(
        Type::I32,
        InstKind::Load {
            ty: Type::I32,
            addr: slot,
        },
    );
    let ef = b.op(
        Type::F64,
        InstKind::Cast {
            op: CastOp::Sitofp,
            from: Type::I32,
            to: Type::F64,
            arg: e,
        },
    );
    let r = b.fbin(FloatBinOp::Fadd, FloatTy::F64, s, ef);
    b.ret(Some(r));
    let module = single(b.finish());
    let mut it = interp(&module, OpTrace::default());
    let run = it.call(Func(0), &[Arg::Scalar(12.0f64.to_bits())]).unwrap();
    assert_eq!(returned(&run), (0.75f64.sin() + 4.0).to_bits());
    assert_eq!(it.observer().events.len(), 3);
    assert_eq!(it.observer().events[1].args(), &[0.75f64.to_bits()]);
}

#[test]
fn bit_builtins() {
    let cases: [(Builtin, Type, u64, u64); 6] = [
        (Builtin::Ctpop, Type::I32, 0xf0f0, 8),
        (Builtin::Ctlz, Type::I32, 1, 31),
        (Builtin::Cttz, Type::I64, 0, 64),
        (Builtin::Bswap, Type::I32, 0x1122_3344, 0x4433_2211),
        (Builtin::Abs, Type::I32, 0xffff_fffb, 5),
        (Builtin::Abs, Type::I32, 0x8000_0000, 0x8000_0000),
    ];
    for (bi, ty, x, e) in cases {
        let (mut b, p) = FnBuilder::new("f", &[ty], Some(ty));
        let r = b.call(Some(ty), Callee::Builtin(bi), vec![p[0]]).unwrap();
        b.ret(Some(r));
        assert_eq!(
            returned(&run(&single(b.finish()), &[Arg::Scalar(x)])),
            e,
            "{bi:?}"
        );
    }
    let (mut b, p) = FnBuilder::new("f", &[Type::I32, Type::I32], Some(Type::I32));
    let r = b
        .call(
            Some(Type::I32),
            Callee::Builtin(Builtin::Smax),
            vec![p[0], p[1]],
        )
        .unwrap();
    b.ret(Some(r));
    let m = single(b.finish());
    assert_eq!(returned(&run(&m, &scalars(&[0xffff_ffff, 3]))), 3);
}

#[test]
fn misuse_is_an_error_not_a_trap() {
    let m = factorial();
    let mut it = interp(&m, NoObserver);
    assert!(it.call(Func(7), &[]).is_err());
    assert!(it.call(Func(0), &[]).is_err());
    let arr = Arg::Array {
        elem: Type::I64,
        values: vec![1],
    };
    assert!(it.call(Func(0), &[arr]).is_err());

    let (mut b, _) = FnBuilder::new("broken", &[], None);
    b.jump(fpir::Block(9), vec![]);
    assert!(Interpreter::new(
        &single(b.finish()),
        Concrete,
        NoObserver,
        ExecConfig::default()
    )
    .is_err());
}

/// End-to-end: C fixtures lowered by `fpforge-lower`, expectations from a native
/// clang-14 -O0 build (`make -C tests/fixtures/exec native` prints them).
mod end_to_end {
    use super::*;
    use std::path::PathBuf;
    use std::sync::OnceLock;

    fn basic() -> &'static Module {
        static MODULE: OnceLock<Module> = OnceLock::new();
        MODULE.get_or_init(|| {
            let path =
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/exec/basic.c");
            fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default())
                .expect("basic.c lowers")
        })
    }

    fn call(name: &str, args: &[Arg]) -> Run<u64> {
        let m = basic();
        let f = m
            .func_by_name(name)
            .unwrap_or_else(|| panic!("no function {name}"));
        interp(m, NoObserver).call(f, args).expect("valid call")
    }

    fn ret(name: &str, args: &[Arg]) -> u64 {
        returned(&call(name, args))
    }

    fn d(x: f64) -> Arg {
        Arg::Scalar(x.to_bits())
    }

    fn i(x: i64) -> Arg {
        Arg::Scalar(x as u64)
    }

    #[test]
    fn branches_punning_and_unions() {
        assert_eq!(ret("sign", &[d(2.0)]), 1);
        assert_eq!(ret("sign", &[d(-0.5)]), 0xffff_ffff);
        assert_eq!(ret("sign", &[d(0.0)]), 0);
        assert_eq!(
            ret("high_word", &[d(-2.5)]),
            u64::from(-1073479680i32 as u32)
        );
        assert_eq!(ret("bits_of", &[d(0.1)]), 0x3fb9_9999_9999_999a);
    }

    #[test]
    fn loops_globals_switch_recursion() {
        assert_eq!(ret("poly", &[d(1.1)]), 0x3ff2_b020_c49b_a5e4);
        assert_eq!(ret("classify", &[i(7)]), 700);
        assert_eq!(ret("classify", &[i(42)]), 4200);
        assert_eq!(ret("classify", &[i(3)]), 0xffff_ffff);
        assert_eq!(ret("fact", &[i(15)]), 1_307_674_368_000);
        assert_eq!(ret("bump", &[]), 11);
        assert_eq!(ret("bump", &[]), 11, "globals are reset between runs");
    }

    #[test]
    fn arrays_structs_heap_and_function_pointers() {
        let a = Arg::Array {
            elem: Type::F64,
            values: vec![0.1f64.to_bits(), 0.2f64.to_bits(), 0.3f64.to_bits()],
        };
        let r = call("sum", &[a, i(3)]);
        assert_eq!(returned(&r), 0x3fe3_3333_3333_3334);
        assert_eq!(
            r.arrays,
            vec![vec![
                0x3fb9_9999_9999_999a,
                0x3fd3_3333_3333_3334,
                0x3fe3_3333_3333_3334
            ]]
        );
        assert_eq!(ret("norm", &[d(3e-200), d(4e-200)]), 0);
        assert_eq!(ret("heap", &[i(10)]), 0x4036_8000_0000_0000);
        assert_eq!(ret("apply", &[i(0), d(1.25)]), 0x4004_0000_0000_0000);
        assert_eq!(ret("apply", &[i(1), d(1.25)]), 0x3ff9_0000_0000_0000);
    }

    #[test]
    fn math_and_conversions() {
        assert_eq!(ret("mathmix", &[d(2.75)]), 0x402c_048d_c20e_7101);
        let fmix = ret(
            "fmix",
            &[
                Arg::Scalar(u64::from(0.3f32.to_bits())),
                Arg::Scalar(u64::from((-1.7f32).to_bits())),
            ],
        );
        assert_eq!(fmix, 0x3f00_5f6e);
        assert_eq!(ret("to_u64", &[d(-1.0)]), u64::MAX);
        assert_eq!(ret("to_u64", &[d(1.5e19)]), 0xd02a_b486_cedc_0000);
        assert_eq!(ret("to_u64", &[d(1e300)]), 0x8000_0000_0000_0000);
        assert_eq!(ret("to_u32", &[d(-1.0)]), 0xffff_ffff);
        assert_eq!(ret("to_u32", &[d(5e9)]), 0x2a05_f200);
        assert_eq!(ret("to_i32", &[d(-3e9)]), 0x8000_0000);
        assert_eq!(ret("shifts", &[i(-12345), i(3)]), 0x1ffe_7e38);
        assert_eq!(ret("fma_like", &[d(0.1), d(10.0), d(-1.0)]), 0);
    }

    #[test]
    fn heap_and_narrow_conversions() {
        assert_eq!(ret("zeroed", &[i(5)]), 0x4018_0000_0000_0000);
        let f = |x: f32| Arg::Scalar(u64::from(x.to_bits()));
        assert_eq!(ret("f2u", &[f(-1.0)]), u64::MAX);
        assert_eq!(ret("f2u", &[f(1.5e19)]), 0xd02a_b500_0000_0000);
        assert_eq!(ret("narrow", &[d(0.1)]), 0x3dcc_cccd);
    }

    #[test]
    fn libm_is_glibc_not_compiler_builtins() {
        // compiler-builtins' cbrt(-2) is 1 ulp away from glibc's.
        assert_eq!(ret("cube_root", &[d(-2.0)]), 0xbff4_28a2_f98d_728c);
        assert_eq!(ret("cube_root", &[d(3.0)]), 0x3ff7_1374_4912_3ef6);
        assert_eq!(ret("lo", &[d(0.0), d(-0.0)]), 0);
        assert_eq!(ret("lo", &[d(-0.0), d(0.0)]), 0x8000_0000_0000_0000);
    }

    #[test]
    fn libc_terminations_and_fuel() {
        assert_eq!(ret("checked", &[i(3)]), 3);
        assert_eq!(trapped(&call("checked", &[i(0)])), TrapKind::AssertFail);
        assert_eq!(trapped(&call("quit", &[i(2)])), TrapKind::Exit(2));
        assert!(matches!(
            trapped(&call("uaf", &[])),
            TrapKind::UseAfterFree { .. }
        ));
        let m = basic();
        let cfg = ExecConfig::default().with_fuel(100_000);
        let mut it = Interpreter::new(m, Concrete, NoObserver, cfg).unwrap();
        let spin = m.func_by_name("spin").unwrap();
        let r = it.call(spin, &[i(1)]).unwrap();
        assert_eq!(trapped(&r), TrapKind::FuelExhausted);
        assert_eq!(returned(&it.call(spin, &[i(0)]).unwrap()), 0);
    }

    /// The interpreter reports what a run wrote, its `errno` and the floating-point
    /// environment it left, and the next run starts from none of it.
    #[test]
    fn output_errno_and_float_env_are_per_run() {
        use fpir::eval::{Exceptions, RoundingMode};
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/exec/run_env.c");
        let m = fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default())
            .expect("run_env.c lowers");
        let leave = m.func_by_name("leave").unwrap();
        let mut it = interp(&m, NoObserver);

        assert_eq!(returned(&it.call(leave, &[i(1), d(1.0)]).unwrap()), 1);
        let out = it.output();
        assert_eq!(out.stdout, b"x=0x1p+0\n");
        assert_eq!(out.stderr, b"upward\n");
        assert_eq!(out.errno, 34, "ERANGE");
        assert_eq!(it.float_env().mode(), RoundingMode::Upward);
        assert_eq!(it.float_env().raised(), Exceptions::INEXACT);

        assert_eq!(returned(&it.call(leave, &[i(0), d(2.0)]).unwrap()), 0);
        let out = it.output();
        assert_eq!(out.stdout, b"x=0x1p+1\n");
        assert!(out.stderr.is_empty());
        assert_eq!(out.errno, 0);
        assert_eq!(it.float_env().mode(), RoundingMode::Nearest);
        assert_eq!(it.float_env().raised(), Exceptions::NONE);
    }

    /// A trap's stack names the calls that led to it, so the same fault reached
    /// through two calls is two findings; a hang is one finding wherever the fuel ran
    /// out (in the loop or in the helper it calls).
    #[test]
    fn traps_carry_their_call_stack_and_findings_key_on_it() {
        use fpforge_exec::finding::Finding;
        let m = basic();
        let split = m.func_by_name("split").unwrap();
        let share = m.func_by_name("share").unwrap();
        let trap = |args: &[Arg]| match call("split", args).outcome {
            Outcome::Trapped(trap) => trap,
            other => panic!("split{args:?}: {other:?}"),
        };
        let once = trap(&[i(10), i(0), i(0)]);
        let twice = trap(&[i(10), i(0), i(1)]);
        for t in [&once, &twice] {
            assert_eq!(t.kind, TrapKind::IntDivByZero);
            assert_eq!(t.func, share);
            assert_eq!(t.stack.len(), 1, "{t:?}");
            assert_eq!(t.stack[0].func, split);
        }
        let line = |t: &fpforge_exec::Trap| t.stack[0].loc.unwrap().line;
        assert_eq!(
            line(&twice) + 1,
            line(&once),
            "the call in each return statement"
        );
        let key = |t: &fpforge_exec::Trap| Finding::of(t, vec![]).unwrap().key();
        assert_ne!(key(&once), key(&twice));

        let spin = m.func_by_name("spin_calls").unwrap();
        let hang = |fuel: u64| {
            let cfg = ExecConfig::default().with_fuel(fuel);
            let mut it = Interpreter::new(m, Concrete, NoObserver, cfg).unwrap();
            match it.call(spin, &[i(1)]).unwrap().outcome {
                Outcome::Trapped(trap) => trap,
                other => panic!("{other:?}"),
            }
        };
        let traps: Vec<_> = (1000..1012).map(hang).collect();
        let keys: std::collections::HashSet<_> = traps
            .iter()
            .filter(|t| t.func == spin)
            .map(|t| Finding::of(t, vec![]).unwrap().key())
            .collect();
        assert_eq!(keys.len(), 1, "{traps:?}");
    }

    #[test]
    fn branch_events_from_c() {
        let m = basic();
        let mut it = interp(m, FullTrace::default());
        let sign = m.func_by_name("sign").unwrap();
        it.call(sign, &[d(-0.5)]).unwrap();
        let events = &it.observer().branches;
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].side.arm, fpir::Arm::False);
        assert_eq!(events[0].operands, Some([(-0.5f64).to_bits(), 0]));
        assert_eq!(events[1].side.arm, fpir::Arm::True);
        for ev in events {
            let data = &m.branch_sites[ev.side.site];
            assert_eq!(data.func, sign);
            assert!(data.loc.is_some());
        }
    }

    #[test]
    fn traps_carry_source_locations() {
        let r = call("divide", &[i(1), i(0)]);
        let Outcome::Trapped(t) = &r.outcome else {
            panic!("{:?}", r.outcome)
        };
        assert_eq!(t.kind, TrapKind::IntDivByZero);
        assert_eq!(basic().funcs[t.func].name, "divide");
        assert!(t.loc.is_some_and(|l| l.line > 0));
        assert!(matches!(
            trapped(&call("oob", &[i(4)])),
            TrapKind::OutOfBounds { .. }
        ));
        assert_eq!(ret("oob", &[i(3)]), 4.0f64.to_bits());
        assert!(matches!(
            trapped(&call("deref", &[Arg::Scalar(0)])),
            TrapKind::NullDeref { .. }
        ));
    }
}

/// Every function of the shared corpus, called with random arguments, returns or traps:
/// the interpreter never panics and never reports misuse for well-formed calls.
#[test]
fn corpus_smoke_never_panics() {
    use rand::{Rng, SeedableRng};
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    let mut outcomes = [0usize; 2];
    let mut loaded = 0;
    for path in files {
        let Ok(m) = fpforge_lower::load(
            std::slice::from_ref(&path),
            &fpforge_lower::LoadOptions::default(),
        ) else {
            continue;
        };
        loaded += 1;
        let cfg = ExecConfig::default().with_fuel(1_000_000);
        let mut it = Interpreter::new(&m, Concrete, FullTrace::default(), cfg)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (id, f) in m.funcs.iter() {
            for _ in 0..20 {
                let args: Vec<Arg> = f
                    .params()
                    .iter()
                    .zip(&f.param_pointees)
                    .map(|(&r, pointee)| match f.regs[r] {
                        Type::Ptr => {
                            let elem = pointee.unwrap_or(Type::F64);
                            let values = (0..16).map(|_| random_bits(&mut rng, elem)).collect();
                            Arg::Array { elem, values }
                        }
                        ty => Arg::Scalar(random_bits(&mut rng, ty)),
                    })
                    .collect();
                let run = it
                    .call(id, &args)
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), f.name));
                outcomes[usize::from(matches!(run.outcome, Outcome::Trapped(_)))] += 1;
            }
        }
    }
    assert!(loaded > 0, "no corpus module lowers");
    assert!(outcomes[0] > 0, "some calls return: {outcomes:?}");

    fn random_bits(rng: &mut impl Rng, ty: Type) -> u64 {
        match ty {
            Type::Float(FloatTy::F64) => rng.gen_range(-100.0f64..100.0).to_bits(),
            Type::Float(FloatTy::F32) => u64::from(rng.gen_range(-100.0f32..100.0).to_bits()),
            Type::Int(_) => rng.gen_range(0..8),
            Type::Ptr => 0,
        }
    }
}

/// A semantics defined outside the crate: Concrete plus a record of branch decisions and
/// stores, as Concolic and Shadow semantics hook in.
mod custom_semantics {
    use super::*;
    use fpforge_exec::{Memory, Semantics};

    #[derive(Default)]
    struct Recording {
        inner: Concrete,
        branches: Vec<(BranchSite, u64, bool)>,
        switches: Vec<(BranchSite, u64, Option<u32>)>,
        stores: Vec<(u64, u64)>,
    }

    macro_rules! delegate {
        (int: $($m:ident)*) => {$(
            fn $m(&mut self, ty: Type, a: &u64, b: &u64) -> u64 { self.inner.$m(ty, a, b) }
        )*};
        (div: $($m:ident)*) => {$(
            fn $m(&mut self, ty: Type, a: &u64, b: &u64) -> Result<u64, TrapKind> {
                self.inner.$m(ty, a, b)
            }
        )*};
        (float: $($m:ident)*) => {$(
            fn $m(&mut self, ty: FloatTy, a: &u64, b: &u64) -> u64 { self.inner.$m(ty, a, b) }
        )*};
        (cast: $($m:ident)*) => {$(
            fn $m(&mut self, from: Type, to: Type, a: &u64) -> u64 { self.inner.$m(from, to, a) }
        )*};
        (unary: $($m:ident)*) => {$(
            fn $m(&mut self, ty: Type, a: &u64) -> u64 { self.inner.$m(ty, a) }
        )*};
    }

    impl Semantics for Recording {
        type Value = u64;
        fn constant(&mut self, ty: Type, bits: u64) -> u64 {
            self.inner.constant(ty, bits)
        }
        fn concrete_bits(&self, v: &u64) -> u64 {
            *v
        }
        fn br(&mut self, site: BranchSite, cond: &u64, taken: bool) {
            self.branches.push((site, *cond, taken));
        }
        fn switch(&mut self, site: BranchSite, _ty: Type, value: &u64, case: Option<u32>) {
            self.switches.push((site, *value, case));
        }
        fn store(
            &mut self,
            mem: &mut Memory,
            ty: Type,
            addr: u64,
            v: &u64,
        ) -> Result<(), TrapKind> {
            self.stores.push((addr, *v));
            mem.store(ty, addr, *v)
        }
        delegate!(int: iadd isub imul shl lshr ashr band bor bxor smax smin umax umin);
        delegate!(div: udiv sdiv urem srem);
        delegate!(float: fadd fsub fmul fdiv frem);
        delegate!(cast: trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr bitcast);
        delegate!(unary: ctpop ctlz cttz bswap abs);
        fn fneg(&mut self, ty: FloatTy, a: &u64) -> u64 {
            self.inner.fneg(ty, a)
        }
        fn icmp(&mut self, pred: IntPred, ty: Type, a: &u64, b: &u64) -> u64 {
            self.inner.icmp(pred, ty, a, b)
        }
        fn fcmp(&mut self, pred: FloatPred, ty: FloatTy, a: &u64, b: &u64) -> u64 {
            self.inner.fcmp(pred, ty, a, b)
        }
        fn select(&mut self, ty: Type, c: &u64, t: &u64, f: &u64) -> u64 {
            self.inner.select(ty, c, t, f)
        }
        fn math(&mut self, call: MathCall, args: &[u64], ret: Type) -> (u64, Option<u64>) {
            self.inner.math(call, args, ret)
        }
    }

    /// `f(v)`: stores `v` as `store_ty` into a stack slot of exactly its size and loads it
    /// back as `load_ty` (the union pun that preparation keeps in a register under
    /// `Concrete`).
    fn whole_slot_pun(store_ty: Type, load_ty: Type) -> Module {
        let (mut b, p) = FnBuilder::new("pun", &[store_ty], Some(load_ty));
        let slot = b.op(
            Type::Ptr,
            InstKind::Alloca {
                size: u64::from(store_ty.bytes()),
                count: None,
                align: 8,
            },
        );
        b.effect(InstKind::Store {
            ty: store_ty,
            addr: slot,
            value: p[0],
        });
        let v = b.op(
            load_ty,
            InstKind::Load {
                ty: load_ty,
                addr: slot,
            },
        );
        b.ret(Some(v));
        single(b.finish())
    }

    #[test]
    fn slots_kept_in_registers_agree_with_memory() {
        let types = [
            Type::BOOL,
            Type::I8,
            Type::Int(16),
            Type::I32,
            Type::F32,
            Type::I64,
            Type::F64,
            Type::Ptr,
        ];
        let values = [0, 1, 0xff, 0x8000_0001, 0x7ff8_0000_0000_0001, u64::MAX];
        for st in types {
            for lt in types.into_iter().filter(|t| t.bytes() == st.bytes()) {
                let m = whole_slot_pun(st, lt);
                let mut memory =
                    Interpreter::new(&m, Recording::default(), NoObserver, ExecConfig::default())
                        .unwrap();
                for v in values {
                    let args = [Arg::Scalar(v)];
                    let in_memory = memory.call(Func(0), &args).unwrap();
                    let in_register = run(&m, &args);
                    assert_eq!(
                        in_register, in_memory,
                        "{st} stored, {lt} loaded, bits {v:#x}"
                    );
                }
                assert!(!memory.semantics().stores.is_empty());
            }
        }
    }

    /// `f(k)`: loads from constant addresses in a read-only table (a relocated pointer,
    /// an `f64`, an `i32` inside it), sums their bits, and for `k != 0` also loads an
    /// `i64` that runs past the table's end.
    fn constant_table_loads() -> Module {
        let mut table = vec![0u8; 8];
        table.extend(1.5f64.to_bits().to_le_bytes());
        table.extend(7u32.to_le_bytes());
        let globals = vec![
            GlobalData {
                name: "target".into(),
                init: vec![1; 8],
                align: 8,
                constant: false,
                relocs: vec![],
            },
            GlobalData {
                name: "table".into(),
                init: table,
                align: 16,
                constant: true,
                relocs: vec![fpir::Reloc {
                    at: 0,
                    target: AddrBase::Global(fpir::Global(0)),
                    addend: 4,
                }],
            },
        ];
        let (mut b, p) = FnBuilder::new("tab", &[Type::I32], Some(Type::I64));
        let mut sum = b.i64c(0);
        for (off, ty) in [(0, Type::Ptr), (8, Type::F64), (16, Type::I32)] {
            let at = b.addr_const(AddrBase::Global(fpir::Global(1)), off);
            let v = b.op(ty, InstKind::Load { ty, addr: at });
            let bits = if ty == Type::I32 {
                b.op(
                    Type::I64,
                    InstKind::Cast {
                        op: CastOp::Zext,
                        from: ty,
                        to: Type::I64,
                        arg: v,
                    },
                )
            } else {
                b.op(
                    Type::I64,
                    InstKind::Cast {
                        op: CastOp::Bitcast,
                        from: ty,
                        to: Type::I64,
                        arg: v,
                    },
                )
            };
            sum = b.ibin(IntBinOp::Add, Type::I64, sum, bits);
        }
        let zero = b.i32c(0);
        let c = b.op(
            Type::BOOL,
            InstKind::Icmp {
                pred: IntPred::Ne,
                ty: Type::I32,
                lhs: p[0],
                rhs: zero,
            },
        );
        let (past, _) = b.block(&[]);
        let (done, _) = b.block(&[]);
        b.br(c, past, done);
        b.switch_to(past);
        let end = b.addr_const(AddrBase::Global(fpir::Global(1)), 16);
        let v = b.op(
            Type::I64,
            InstKind::Load {
                ty: Type::I64,
                addr: end,
            },
        );
        b.ret(Some(v));
        b.switch_to(done);
        b.ret(Some(sum));
        module(vec![b.finish()], globals, vec![])
    }

    #[test]
    fn folded_constant_loads_agree_with_memory() {
        let m = constant_table_loads();
        let mut memory =
            Interpreter::new(&m, Recording::default(), NoObserver, ExecConfig::default()).unwrap();
        for k in [0, 1] {
            let args = [Arg::Scalar(k)];
            assert_eq!(run(&m, &args), memory.call(Func(0), &args).unwrap());
        }
        assert!(matches!(
            trapped(&run(&m, &[Arg::Scalar(1)])),
            TrapKind::OutOfBounds { .. }
        ));
    }

    #[test]
    fn hooks_see_branches_switches_and_stores() {
        let m = factorial();
        let mut it =
            Interpreter::new(&m, Recording::default(), NoObserver, ExecConfig::default()).unwrap();
        assert_eq!(returned(&it.call(Func(0), &[Arg::Scalar(3)]).unwrap()), 6);
        let taken: Vec<bool> = it.semantics().branches.iter().map(|b| b.2).collect();
        assert_eq!(taken, [false, false, true]);

        let m = switch_module();
        let mut it =
            Interpreter::new(&m, Recording::default(), NoObserver, ExecConfig::default()).unwrap();
        it.call(Func(0), &[Arg::Scalar(5)]).unwrap();
        let (sem, _) = it.into_parts();
        assert_eq!(sem.switches, [(BranchSite(0), 5, Some(1))]);

        let (mut b, p) = FnBuilder::new("st", &[Type::I64], None);
        let slot = b.alloca(8, 8);
        b.effect(InstKind::Store {
            ty: Type::I64,
            addr: slot,
            value: p[0],
        });
        b.ret(None);
        let m = single(b.finish());
        let mut it =
            Interpreter::new(&m, Recording::default(), NoObserver, ExecConfig::default()).unwrap();
        let run = it.call(Func(0), &[Arg::Scalar(9)]).unwrap();
        assert_eq!(run.outcome, Outcome::Returned(None));
        assert_eq!(it.semantics().stores.len(), 1);
        assert_eq!(it.semantics().stores[0].1, 9);
    }
}

/// `f(x0..x3, k)`: `k` times, `(x0, x1, x2, x3) = (x[perm[0]], ..)` through block
/// parameters; returns `x0 + 10 x1 + 100 x2 + 1000 x3`.
fn permute_module(perm: [usize; 4]) -> Module {
    let i64t = Type::I64;
    let (mut b, p) = FnBuilder::new("perm", &[i64t, i64t, i64t, i64t, i64t], Some(i64t));
    let zero = b.i64c(0);
    let one = b.i64c(1);
    let (head, hp) = b.block(&[i64t, i64t, i64t, i64t, i64t]);
    let (body, _) = b.block(&[]);
    let (done, _) = b.block(&[]);
    b.jump(head, vec![p[0], p[1], p[2], p[3], zero]);
    b.switch_to(head);
    let c = b.op(
        Type::BOOL,
        InstKind::Icmp {
            pred: IntPred::Slt,
            ty: i64t,
            lhs: hp[4],
            rhs: p[4],
        },
    );
    b.br(c, body, done);
    b.switch_to(body);
    let i1 = b.ibin(IntBinOp::Add, i64t, hp[4], one);
    b.jump(
        head,
        vec![hp[perm[0]], hp[perm[1]], hp[perm[2]], hp[perm[3]], i1],
    );
    b.switch_to(done);
    let mut acc = hp[0];
    for (k, &r) in hp[1..4].iter().enumerate() {
        let w = b.i64c(10i64.pow(k as u32 + 1));
        let t = b.ibin(IntBinOp::Mul, i64t, r, w);
        acc = b.ibin(IntBinOp::Add, i64t, acc, t);
    }
    b.ret(Some(acc));
    single(b.finish())
}

/// `f(v, off_store, off_load)`: stores `v` as `store_ty` into a zeroed 16-byte stack
/// buffer at `off_store` and loads a `load_ty` at `off_load`.
fn pun_module(store_ty: Type, load_ty: Type) -> Module {
    let (mut b, p) = FnBuilder::new("pun", &[store_ty, Type::I64, Type::I64], Some(load_ty));
    let buf = b.alloca(16, 8);
    let zbyte = b.konst(Type::I8, 0);
    let len = b.i64c(16);
    b.call(
        None,
        Callee::Builtin(Builtin::Memset),
        vec![buf, zbyte, len],
    );
    let at = |b: &mut FnBuilder, off| {
        b.op(
            Type::Ptr,
            InstKind::PtrOffset {
                base: buf,
                offset: 0,
                terms: vec![fpir::IndexTerm {
                    index: off,
                    scale: 1,
                }],
            },
        )
    };
    let sa = at(&mut b, p[1]);
    b.effect(InstKind::Store {
        ty: store_ty,
        addr: sa,
        value: p[0],
    });
    let la = at(&mut b, p[2]);
    let v = b.op(
        load_ty,
        InstKind::Load {
            ty: load_ty,
            addr: la,
        },
    );
    b.ret(Some(v));
    single(b.finish())
}

fn scalar_types() -> impl Strategy<Value = Type> {
    prop::sample::select(vec![
        Type::I8,
        Type::Int(16),
        Type::I32,
        Type::I64,
        Type::F32,
        Type::F64,
        Type::Ptr,
        Type::BOOL,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn block_arguments_move_in_parallel(
        perm in Just([0usize, 1, 2, 3]).prop_shuffle(),
        k in 0u64..6,
    ) {
        let m = permute_module(perm);
        let mut x = [1u64, 2, 3, 4];
        for _ in 0..k {
            x = [x[perm[0]], x[perm[1]], x[perm[2]], x[perm[3]]];
        }
        let expect = x[0] + 10 * x[1] + 100 * x[2] + 1000 * x[3];
        prop_assert_eq!(returned(&run(&m, &scalars(&[1, 2, 3, 4, k]))), expect);
    }

    #[test]
    fn memory_punning_matches_a_byte_model(
        st in scalar_types(),
        lt in scalar_types(),
        v in any::<u64>(),
        so in 0u64..16,
        lo in 0u64..16,
    ) {
        let m = pun_module(st, lt);
        let r = run(&m, &scalars(&[v, so, lo]));
        let (sn, ln) = (u64::from(st.bytes()), u64::from(lt.bytes()));
        if so + sn > 16 || lo + ln > 16 {
            let out_of_bounds = matches!(trapped(&r), TrapKind::OutOfBounds { .. });
            prop_assert!(out_of_bounds);
        } else {
            let mut bytes = [0u8; 16];
            let mask = if st.bits() >= 64 { u64::MAX } else { (1u64 << st.bits()) - 1 };
            bytes[so as usize..(so + sn) as usize]
                .copy_from_slice(&(v & mask).to_le_bytes()[..sn as usize]);
            let mut out = [0u8; 8];
            out[..ln as usize].copy_from_slice(&bytes[lo as usize..(lo + ln) as usize]);
            let lmask = if lt.bits() >= 64 { u64::MAX } else { (1u64 << lt.bits()) - 1 };
            prop_assert_eq!(returned(&r), u64::from_le_bytes(out) & lmask);
        }
    }
}
