//! Integration tests of `fpir`: the text form round-trips, the verifier accepts
//! well-formed modules and names each broken invariant, and the parser reports
//! positions and never panics.

use fpir::*;
use proptest::prelude::*;

/// Every instruction, terminator, constant and global form, printed.
const FULL: &str = r#"file file0 "full.c"
file file1 "inc/q\"uote\\d.h"
extern "printf"
extern "puts"
global g0 "table" align 8 const = x"000000000000f03f0000000000000000" reloc(8, g1, -4)
global g1 "counter" align 4 = x"00000000"
global g2 "fptr" align 8 = x"0000000000000000" reloc(0, f1, 0)
global g3 "empty" align 1 = x""
func f0 "kernel"(v0: f64 #x, v1: ptr<f64> #out, v2: i32, v3: ptr) -> f64 !0:3:1 {
  const v4: f64 = 0x1.8p+1
  const v5: f64 = -0x0p+0
  const v6: f64 = -inf
  const v7: f64 = raw:7ff8000000000002
  const v8: f32 = 0x1.99999ap-4
  const v9: i32 = -7
  const v10: i1 = -1
  const v11: i64 = -9223372036854775808
  const v12: ptr = 0x0
  const v13: ptr = 0x1000
  const v14: ptr = g0+8
  const v15: ptr = f1-4
  const v16: i32 = 3
bb0:
  v17: f64 = fadd f64 v0, v4 @op0 !0:4:9
  v18: f64 = fneg f64 v17
  v19: i32 = add i32 v2, v9 !1:2:3
  v20: i1 = icmp slt i32 v19, v16
  v21: i1 = fcmp uno f64 v18, v7
  v22: i1 = xor i1 v21, v10
  v23: f32 = fptrunc f64 v18 to f32
  v24: i64 = sext i32 v19 to i64
  v25: f64 = select f64 v20, v5, v6
  v26: f64 = load f64 v1
  store f64 v26, v1
  v27: ptr = alloca 8 align 8
  v28: ptr = alloca 4 x v2 align 16
  v29: ptr = ptroffset v1, 8, []
  v30: ptr = ptroffset v14, -16, [v24*8, v19*-4]
  v31: i32 = call f1(v2, v14)
  call f1(v2, v15)
  v32: f64 = call indirect v3(v0)
  v33: f64 = call math sin.f64(v0) @op1 !0:7:5
  v34: f32 = call math pow.f32(v23, v8) @op2
  v35: f64 = call math fma.f64(v0, v4, v26) @op3
  v36: f64 = call math ldexp.f64(v0, v16) @op4
  v37: i64 = call math lround.f64(v0) @op5
  v38: f64 = call math frexp.f64(v0, v27) @op6
  call builtin memcpy(v27, v1, v24)
  v39: ptr = call builtin malloc(v24)
  call extern 1(v13)
  br v22, bb1(v35), bb2() @br0 !0:9:3
bb1(v40: f64):
  switch i32 v19, [-1: bb2(), 0: bb3(v40), 7: bb3(v33)], default bb4() @br1 !0:10:5
bb2():
  jump bb4() !0:11:1
bb3(v41: f64):
  ret v41 !0:12:1
bb4():
  unreachable
}
func f1 "helper"(v0: i32, v1: ptr) -> i32 {
bb0:
  ret v0
}
func f2 "noop"() {
bb0:
  ret
}
"#;

fn r(n: u32) -> Reg {
    Reg(n)
}

fn to(block: u32, args: &[u32]) -> BlockCall {
    BlockCall {
        block: Block(block),
        args: args.iter().map(|&a| Reg(a)).collect(),
    }
}

fn at(file: u32, line: u32, col: u32) -> Option<SrcLoc> {
    Some(SrcLoc {
        file: FileId(file),
        line,
        col,
    })
}

fn inst(dest: Option<u32>, kind: InstKind) -> Inst {
    Inst {
        dest: dest.map(Reg),
        kind,
    }
}

fn block(params: &[u32], insts: Vec<(Inst, Option<SrcLoc>)>, term: Terminator) -> BlockData {
    let (insts, locs) = insts.into_iter().unzip();
    BlockData {
        params: params.iter().map(|&p| Reg(p)).collect(),
        insts,
        locs,
        term,
        term_loc: None,
    }
}

fn math(func: MathFn, ty: FloatTy, site: u32) -> Callee {
    Callee::Math(MathCall { func, ty }, OpSite(site))
}

/// The module `FULL` prints, built by hand.
fn full_module() -> Module {
    use InstKind::*;
    use Type as T;
    let mut m = Module::default();
    m.files.push("full.c".into());
    m.files.push("inc/q\"uote\\d.h".into());
    m.externals = vec!["printf".into(), "puts".into()];
    let mut table = vec![0u8; 16];
    table[6] = 0xf0;
    table[7] = 0x3f;
    m.globals.push(GlobalData {
        name: "table".into(),
        init: table,
        align: 8,
        constant: true,
        relocs: vec![Reloc {
            at: 8,
            target: AddrBase::Global(Global(1)),
            addend: -4,
        }],
    });
    m.globals.push(GlobalData {
        name: "counter".into(),
        init: vec![0; 4],
        align: 4,
        constant: false,
        relocs: vec![],
    });
    m.globals.push(GlobalData {
        name: "fptr".into(),
        init: vec![0; 8],
        align: 8,
        constant: false,
        relocs: vec![Reloc {
            at: 0,
            target: AddrBase::Func(Func(1)),
            addend: 0,
        }],
    });
    m.globals.push(GlobalData {
        name: "empty".into(),
        init: vec![],
        align: 1,
        constant: false,
        relocs: vec![],
    });

    let types = [
        T::F64,
        T::Ptr,
        T::I32,
        T::Ptr,
        T::F64,
        T::F64,
        T::F64,
        T::F64,
        T::F32,
        T::I32,
        T::BOOL,
        T::I64,
        T::Ptr,
        T::Ptr,
        T::Ptr,
        T::Ptr,
        T::I32,
        T::F64,
        T::F64,
        T::I32,
        T::BOOL,
        T::BOOL,
        T::BOOL,
        T::F32,
        T::I64,
        T::F64,
        T::F64,
        T::Ptr,
        T::Ptr,
        T::Ptr,
        T::Ptr,
        T::I32,
        T::F64,
        T::F64,
        T::F32,
        T::F64,
        T::F64,
        T::I64,
        T::F64,
        T::Ptr,
        T::F64,
        T::F64,
    ];
    let consts = vec![
        (r(4), Const::Bits(3f64.to_bits())),
        (r(5), Const::Bits((-0f64).to_bits())),
        (r(6), Const::Bits(f64::NEG_INFINITY.to_bits())),
        (r(7), Const::Bits(0x7ff8_0000_0000_0002)),
        (r(8), Const::Bits(u64::from(0.1f32.to_bits()))),
        (r(9), Const::Bits(u64::from(-7i32 as u32))),
        (r(10), Const::Bits(1)),
        (r(11), Const::Bits(1 << 63)),
        (r(12), Const::Bits(0)),
        (r(13), Const::Bits(0x1000)),
        (r(14), Const::Addr(AddrBase::Global(Global(0)), 8)),
        (r(15), Const::Addr(AddrBase::Func(Func(1)), -4)),
        (r(16), Const::Bits(3)),
    ];
    let entry = block(
        &[0, 1, 2, 3],
        vec![
            (
                inst(
                    Some(17),
                    FloatBin {
                        op: FloatBinOp::Fadd,
                        ty: FloatTy::F64,
                        lhs: r(0),
                        rhs: r(4),
                        site: OpSite(0),
                    },
                ),
                at(0, 4, 9),
            ),
            (
                inst(
                    Some(18),
                    Fneg {
                        ty: FloatTy::F64,
                        arg: r(17),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(19),
                    IntBin {
                        op: IntBinOp::Add,
                        ty: T::I32,
                        lhs: r(2),
                        rhs: r(9),
                    },
                ),
                at(1, 2, 3),
            ),
            (
                inst(
                    Some(20),
                    Icmp {
                        pred: IntPred::Slt,
                        ty: T::I32,
                        lhs: r(19),
                        rhs: r(16),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(21),
                    Fcmp {
                        pred: FloatPred::Uno,
                        ty: FloatTy::F64,
                        lhs: r(18),
                        rhs: r(7),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(22),
                    IntBin {
                        op: IntBinOp::Xor,
                        ty: T::BOOL,
                        lhs: r(21),
                        rhs: r(10),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(23),
                    Cast {
                        op: CastOp::Fptrunc,
                        from: T::F64,
                        to: T::F32,
                        arg: r(18),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(24),
                    Cast {
                        op: CastOp::Sext,
                        from: T::I32,
                        to: T::I64,
                        arg: r(19),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(25),
                    Select {
                        ty: T::F64,
                        cond: r(20),
                        if_true: r(5),
                        if_false: r(6),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(26),
                    Load {
                        ty: T::F64,
                        addr: r(1),
                    },
                ),
                None,
            ),
            (
                inst(
                    None,
                    Store {
                        ty: T::F64,
                        addr: r(1),
                        value: r(26),
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(27),
                    Alloca {
                        size: 8,
                        count: None,
                        align: 8,
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(28),
                    Alloca {
                        size: 4,
                        count: Some(r(2)),
                        align: 16,
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(29),
                    PtrOffset {
                        base: r(1),
                        offset: 8,
                        terms: vec![],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(30),
                    PtrOffset {
                        base: r(14),
                        offset: -16,
                        terms: vec![
                            IndexTerm {
                                index: r(24),
                                scale: 8,
                            },
                            IndexTerm {
                                index: r(19),
                                scale: -4,
                            },
                        ],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(31),
                    Call {
                        callee: Callee::Direct(Func(1)),
                        args: vec![r(2), r(14)],
                    },
                ),
                None,
            ),
            (
                inst(
                    None,
                    Call {
                        callee: Callee::Direct(Func(1)),
                        args: vec![r(2), r(15)],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(32),
                    Call {
                        callee: Callee::Indirect(r(3)),
                        args: vec![r(0)],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(33),
                    Call {
                        callee: math(MathFn::Sin, FloatTy::F64, 1),
                        args: vec![r(0)],
                    },
                ),
                at(0, 7, 5),
            ),
            (
                inst(
                    Some(34),
                    Call {
                        callee: math(MathFn::Pow, FloatTy::F32, 2),
                        args: vec![r(23), r(8)],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(35),
                    Call {
                        callee: math(MathFn::Fma, FloatTy::F64, 3),
                        args: vec![r(0), r(4), r(26)],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(36),
                    Call {
                        callee: math(MathFn::Ldexp, FloatTy::F64, 4),
                        args: vec![r(0), r(16)],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(37),
                    Call {
                        callee: math(MathFn::Lround, FloatTy::F64, 5),
                        args: vec![r(0)],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(38),
                    Call {
                        callee: math(MathFn::Frexp, FloatTy::F64, 6),
                        args: vec![r(0), r(27)],
                    },
                ),
                None,
            ),
            (
                inst(
                    None,
                    Call {
                        callee: Callee::Builtin(Builtin::Memcpy),
                        args: vec![r(27), r(1), r(24)],
                    },
                ),
                None,
            ),
            (
                inst(
                    Some(39),
                    Call {
                        callee: Callee::Builtin(Builtin::Malloc),
                        args: vec![r(24)],
                    },
                ),
                None,
            ),
            (
                inst(
                    None,
                    Call {
                        callee: Callee::External(1),
                        args: vec![r(13)],
                    },
                ),
                None,
            ),
        ],
        Terminator::Br {
            cond: r(22),
            then_to: to(1, &[35]),
            else_to: to(2, &[]),
            site: BranchSite(0),
            check: None,
        },
    );
    let mut blocks: EntityVec<Block, BlockData> = EntityVec::new();
    blocks.push(BlockData {
        term_loc: at(0, 9, 3),
        ..entry
    });
    blocks.push(BlockData {
        term_loc: at(0, 10, 5),
        ..block(
            &[40],
            vec![],
            Terminator::Switch {
                ty: T::I32,
                value: r(19),
                cases: vec![
                    SwitchCase {
                        value: 0xffff_ffff,
                        target: to(2, &[]),
                    },
                    SwitchCase {
                        value: 0,
                        target: to(3, &[40]),
                    },
                    SwitchCase {
                        value: 7,
                        target: to(3, &[33]),
                    },
                ],
                default: to(4, &[]),
                site: BranchSite(1),
            },
        )
    });
    blocks.push(BlockData {
        term_loc: at(0, 11, 1),
        ..block(&[], vec![], Terminator::Jump(to(4, &[])))
    });
    blocks.push(BlockData {
        term_loc: at(0, 12, 1),
        ..block(&[41], vec![], Terminator::Ret(Some(r(41))))
    });
    blocks.push(block(&[], vec![], Terminator::Unreachable));
    m.funcs.push(Function {
        name: "kernel".into(),
        demangled: None,
        ret: Some(T::F64),
        param_pointees: vec![None, Some(T::F64), None, None],
        param_names: vec![Some("x".into()), Some("out".into()), None, None],
        regs: types.into_iter().collect(),
        consts,
        blocks,
        loc: at(0, 3, 1),
    });
    m.funcs.push(Function {
        name: "helper".into(),
        demangled: None,
        ret: Some(T::I32),
        param_pointees: vec![None, None],
        param_names: vec![None, None],
        regs: [T::I32, T::Ptr].into_iter().collect(),
        consts: vec![],
        blocks: [block(&[0, 1], vec![], Terminator::Ret(Some(r(0))))]
            .into_iter()
            .collect(),
        loc: None,
    });
    m.funcs.push(Function {
        name: "noop".into(),
        demangled: None,
        ret: None,
        param_pointees: vec![],
        param_names: vec![],
        regs: EntityVec::new(),
        consts: vec![],
        blocks: [block(&[], vec![], Terminator::Ret(None))]
            .into_iter()
            .collect(),
        loc: None,
    });
    m.index_sites().expect("sites are dense");
    m
}

#[test]
fn hand_built_module_prints_as_the_fixture() {
    assert_eq!(write_module(&full_module()), FULL);
}

#[test]
fn fixture_parses_to_the_hand_built_module() {
    let parsed = parse_module(FULL).unwrap();
    assert_eq!(parsed, full_module());
    assert_eq!(write_module(&parsed), FULL);
}

#[test]
fn fixture_verifies_clean_and_sites_are_indexed() {
    let m = parse_module(FULL).unwrap();
    assert_eq!(verify_module(&m), Ok(()));
    assert_eq!(m.op_sites.len(), 7);
    assert_eq!(m.branch_sites.len(), 2);
    let br0 = &m.branch_sites[BranchSite(0)];
    assert_eq!(br0.loc, at(0, 9, 3));
    let cmp = br0.cmp.expect("br0 is decided by a negated fcmp");
    assert!(cmp.negated);
    assert_eq!(cmp.pred, CmpPred::Float(FloatPred::Uno));
    assert_eq!(
        m.branch_sites[BranchSite(1)].kind,
        BranchKind::Switch { cases: 3 }
    );
    assert_eq!(m.op_sites[OpSite(1)].inst, 18);
    assert_eq!(m.op_sites[OpSite(1)].loc, at(0, 7, 5));
}

#[test]
fn reached_text_is_what_a_run_from_the_entry_touches_in_the_module_text() {
    let m = parse_module(FULL).unwrap();
    let kernel = write_reached(&m, Func(0));
    assert!(
        kernel.lines().all(|line| FULL.lines().any(|l| l == line)),
        "lines of the module's text, ids kept: {kernel}"
    );
    let heads: Vec<&str> = kernel
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("bb") && *l != "}")
        .map(|l| l.split(" = ").next().unwrap().split('(').next().unwrap())
        .collect();
    assert_eq!(
        heads,
        [
            "file file0 \"full.c\"",
            "file file1 \"inc/q\\\"uote\\\\d.h\"",
            "extern \"printf\"",
            "extern \"puts\"",
            "global g0 \"table\" align 8 const",
            "global g1 \"counter\" align 4",
            "func f0 \"kernel\"",
            "func f1 \"helper\"",
        ],
        "g2, g3 and f2 are not reached"
    );
    assert_eq!(
        write_reached(&m, Func(2)),
        "extern \"printf\"\nextern \"puts\"\nfunc f2 \"noop\"() {\nbb0:\n  ret\n}\n",
        "no location: no file"
    );
}

/// A small valid module that the verifier tests break one invariant at a time.
const BASE: &str = r#"file file0 "t.c"
extern "ext"
global g0 "g" align 8 = x"00000000000000000000000000000000" reloc(0, g0, 8)
func f0 "callee"(v0: f64, v1: i32) -> f64 {
bb0:
  ret v0
}
func f1 "main"(v0: f64, v1: ptr<f64> #out) -> f64 !0:1:1 {
  const v2: f64 = 0x1p+0
  const v3: i32 = 4
  const v4: ptr = g0+0
bb0:
  v5: f64 = fadd f64 v0, v2 @op0 !0:2:3
  v6: i1 = fcmp olt f64 v5, v2
  br v6, bb1(v5), bb2() @br0
bb1(v7: f64):
  v8: f64 = call f0(v7, v3)
  store f64 v8, v1
  jump bb2()
bb2():
  v9: f64 = load f64 v1
  ret v9
}
"#;

fn base() -> Module {
    parse_module(BASE).unwrap()
}

/// Replaces the one occurrence of `from` in `BASE`.
fn broken(from: &str, to: &str) -> Module {
    assert_eq!(BASE.matches(from).count(), 1, "{from}");
    parse_module(&BASE.replacen(from, to, 1)).unwrap()
}

fn errors(m: &Module) -> Vec<String> {
    match verify_module(m) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn base_module_verifies_clean() {
    assert_eq!(errors(&base()), Vec::<String>::new());
    assert_eq!(write_module(&base()), BASE);
}

#[test]
fn verifier_names_operand_type_mismatch() {
    let m = broken("fadd f64 v0, v2", "fadd f64 v0, v3");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 inst0: rhs v3 has type i32, expected f64"]
    );
}

#[test]
fn verifier_names_result_type_mismatch() {
    let m = broken("v9: f64 = load", "v9: i32 = load");
    assert_eq!(
        errors(&m),
        [
            "f1 \"main\" bb2 inst0: result v9 has type i32, expected f64",
            "f1 \"main\" bb2 term: returned value v9 has type i32, expected f64",
        ]
    );
}

#[test]
fn verifier_names_comparison_result_type() {
    let mut m = base();
    m.funcs[Func(1)].regs[Reg(6)] = Type::I8;
    assert_eq!(
        errors(&m),
        [
            "f1 \"main\" bb0 inst1: result v6 has type i8, expected i1",
            "f1 \"main\" bb0 term: condition v6 has type i8, expected i1",
        ]
    );
}

#[test]
fn verifier_names_use_not_dominated() {
    let m = broken("  ret v9", "  ret v8");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 term: v8 is defined in bb1, which does not dominate this use"]
    );
}

#[test]
fn verifier_names_block_call_argument_not_dominated() {
    let m = broken("  ret v9", "  jump bb3(v8)\nbb3(v10: f64):\n  ret v9");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 term: v8 is defined in bb1, which does not dominate this use"]
    );
}

#[test]
fn verifier_names_use_before_definition_in_a_block() {
    let m = broken("fadd f64 v0, v2", "fadd f64 v0, v5");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 inst0: v5 is used before its definition (inst0)"]
    );
}

#[test]
fn verifier_skips_dominance_in_unreachable_blocks() {
    let m = broken("  ret v9", "  ret v9\nbb3():\n  ret v8");
    assert_eq!(errors(&m), Vec::<String>::new());
}

#[test]
fn verifier_names_block_call_arity_and_types() {
    let m = broken("bb1(v5), bb2()", "bb1(), bb2()");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 term: passes 0 arguments to bb1, which takes 1"]
    );
    let m = broken("bb1(v5), bb2()", "bb1(v3), bb2()");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 term: argument 0 to bb1 v3 has type i32, expected f64"]
    );
}

#[test]
fn verifier_names_missing_jump_target_and_jump_to_entry() {
    let m = broken("jump bb2()", "jump bb7()");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb1 term: jumps to bb7, which does not exist"]
    );
    let m = broken("jump bb2()", "jump bb0(v0, v1)");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb1 term: jumps to the entry block bb0"]
    );
}

#[test]
fn verifier_names_return_type_mismatch() {
    let m = broken("  ret v9", "  ret v3");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 term: returned value v3 has type i32, expected f64"]
    );
    let m = broken("  ret v0", "  ret");
    assert_eq!(
        errors(&m),
        ["f0 \"callee\" bb0 term: returns nothing from a function returning f64"]
    );
}

#[test]
fn verifier_names_branch_condition_type() {
    let m = broken("br v6,", "br v5,");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 term: condition v5 has type f64, expected i1"]
    );
}

#[test]
fn verifier_names_switch_problems() {
    let m = broken(
        "br v6, bb1(v5), bb2() @br0",
        "switch i32 v3, [1: bb2(), 1: bb2()], default bb1(v5) @br0",
    );
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 term: case value 0x1 appears twice"]
    );
    let m = broken(
        "br v6, bb1(v5), bb2() @br0",
        "switch i64 v3, [1: bb2()], default bb1(v5) @br0",
    );
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 term: scrutinee v3 has type i32, expected i64"]
    );
}

#[test]
fn verifier_names_illegal_casts() {
    let cases = [
        (
            "fpext f64 v9 to f32",
            "f32",
            "fpext f64 to f32: fpext must go from f32 to f64",
        ),
        (
            "trunc i32 v3 to i64",
            "i64",
            "trunc i32 to i64: trunc must narrow an integer",
        ),
        (
            "zext i32 v3 to i32",
            "i32",
            "zext i32 to i32: zext and sext must widen an integer",
        ),
        (
            "bitcast i32 v3 to f64",
            "f64",
            "bitcast i32 to f64: bitcast must keep the width",
        ),
        (
            "inttoptr f64 v9 to ptr",
            "ptr",
            "inttoptr f64 to ptr: inttoptr goes from an integer to ptr",
        ),
    ];
    for (cast, ty, message) in cases {
        let m = broken("  ret v9", &format!("  v10: {ty} = {cast}\n  ret v9"));
        assert_eq!(errors(&m), [format!("f1 \"main\" bb2 inst1: {message}")]);
    }
}

#[test]
fn verifier_names_direct_call_problems() {
    let m = broken("call f0(v7, v3)", "call f0(v7)");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb1 inst0: f0 \"callee\" takes 2 arguments but gets 1"]
    );
    let m = broken("call f0(v7, v3)", "call f0(v7, v7)");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb1 inst0: argument 1 v7 has type f64, expected i32"]
    );
    let m = broken("call f0(v7, v3)", "call f9(v7, v3)");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb1 inst0: calls f9, which does not exist"]
    );
    let m = broken("v8: f64 = call f0", "v8: f32 = call f0");
    assert_eq!(
        errors(&m),
        [
            "f1 \"main\" bb1 inst0: result v8 has type f32, expected f64",
            "f1 \"main\" bb1 inst1: stored value v8 has type f32, expected f64",
        ]
    );
}

#[test]
fn verifier_names_external_index_out_of_range() {
    let m = broken("  ret v9", "  call extern 3(v9)\n  ret v9");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 inst1: calls extern 3, but the module has 1 externals"]
    );
}

#[test]
fn verifier_names_math_call_shape_mismatch() {
    let m = broken(
        "  ret v9",
        "  v10: f64 = call math pow.f64(v9) @op1\n  ret v9",
    );
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 inst1: math pow.f64 takes 2 arguments but gets 1"]
    );
    let m = broken(
        "  ret v9",
        "  v10: f64 = call math ldexp.f64(v9, v9) @op1\n  ret v9",
    );
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 inst1: argument 1 v9 has type f64, expected i32"]
    );
    let m = broken(
        "  ret v9",
        "  v10: f64 = call math ilogb.f64(v9) @op1\n  ret v9",
    );
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 inst1: result v10 has type f64, expected an integer"]
    );
}

#[test]
fn verifier_names_missing_address_targets() {
    let m = broken("g0+0", "g5+0");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" const v4: the address of g5, which does not exist"]
    );
    let m = broken("reloc(0, g0, 8)", "reloc(0, f7, 8)");
    assert_eq!(
        errors(&m),
        ["g0 \"g\": reloc at byte 0 points to f7, which does not exist"]
    );
}

#[test]
fn verifier_names_relocs_outside_the_global() {
    let m = broken("reloc(0, g0, 8)", "reloc(12, g0, 8)");
    assert_eq!(
        errors(&m),
        ["g0 \"g\": reloc at byte 12 needs 8 bytes but the global has 16"]
    );
}

#[test]
fn verifier_names_bad_alignments() {
    let m = broken("align 8", "align 6");
    assert_eq!(errors(&m), ["g0 \"g\": alignment 6 is not a power of two"]);
    let m = broken("  ret v9", "  v10: ptr = alloca 8 align 0\n  ret v9");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 inst1: alignment 0 is not a power of two"]
    );
}

#[test]
fn verifier_names_locations_of_missing_files() {
    let m = broken("!0:2:3", "!3:2:3");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb0 inst0: the location names file3, but the module has 1 files"]
    );
}

#[test]
fn verifier_names_missing_entry_block() {
    let mut m = base();
    m.funcs[Func(0)].blocks = EntityVec::new();
    assert_eq!(errors(&m), ["f0 \"callee\": there is no entry block bb0"]);
}

#[test]
fn verifier_names_parameter_table_problems() {
    let mut m = base();
    m.funcs[Func(1)].param_pointees.push(None);
    m.funcs[Func(1)].param_names.clear();
    assert_eq!(
        errors(&m),
        [
            "f1 \"main\": param_pointees has 3 entries for 2 parameters",
            "f1 \"main\": param_names has 0 entries for 2 parameters",
        ]
    );
    let mut m = base();
    m.funcs[Func(1)].param_pointees[0] = Some(Type::F64);
    assert_eq!(
        errors(&m),
        ["f1 \"main\": parameter v0 is not a pointer but has a pointee type"]
    );
}

#[test]
fn verifier_names_registers_defined_twice_or_never() {
    let mut m = base();
    m.funcs[Func(1)].blocks[Block(2)].insts[0].dest = Some(Reg(8));
    assert_eq!(
        errors(&m),
        [
            "f1 \"main\" bb2 inst0: v8 is defined twice (first by bb1 inst0)",
            "f1 \"main\": v9 is never defined",
        ]
    );
}

#[test]
fn verifier_names_registers_outside_the_table() {
    let mut m = base();
    m.funcs[Func(1)].blocks[Block(2)].term = Terminator::Ret(Some(Reg(99)));
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 term: v99 is used but the register table has only 10 registers"]
    );
}

#[test]
fn verifier_names_value_instructions_without_result_and_stores_with_one() {
    let mut m = base();
    let insts = &mut m.funcs[Func(1)].blocks[Block(1)].insts;
    insts[1].dest = Some(Reg(8));
    assert_eq!(
        errors(&m),
        [
            "f1 \"main\" bb1 inst1: v8 is defined twice (first by bb1 inst0)",
            "f1 \"main\" bb1 inst1: store has a result register v8",
        ]
    );
    let m = broken("  ret v9", "  fneg f64 v9\n  ret v9");
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb2 inst1: fneg produces a value but has no result register"]
    );
}

#[test]
fn verifier_names_constants_that_do_not_fit() {
    let mut m = base();
    m.funcs[Func(1)].consts[1].1 = Const::Bits(1 << 40);
    assert_eq!(
        errors(&m),
        ["f1 \"main\" const v3: bits 0x10000000000 do not fit in i32"]
    );
}

#[test]
fn verifier_names_location_table_length() {
    let mut m = base();
    m.funcs[Func(1)].blocks[Block(1)].locs.pop();
    assert_eq!(
        errors(&m),
        ["f1 \"main\" bb1: 2 instructions but 1 locations"]
    );
}

#[test]
fn verifier_names_stale_and_malformed_site_tables() {
    let mut m = base();
    m.op_sites = EntityVec::new();
    assert_eq!(
        errors(&m),
        ["module: the op site table has 0 entries but the instructions define 1"]
    );
    let mut m = base();
    m.branch_sites[BranchSite(0)].loc = at(0, 9, 9);
    assert_eq!(
        errors(&m),
        ["module: the branch site table entry for br0 does not match the instructions"]
    );
    let mut m = base();
    let fadd = m.funcs[Func(1)].blocks[Block(0)].insts[0].clone();
    m.funcs[Func(1)].blocks[Block(2)].insts.push(Inst {
        dest: Some(Reg(10)),
        ..fadd
    });
    m.funcs[Func(1)].blocks[Block(2)].locs.push(None);
    m.funcs[Func(1)].regs.push(Type::F64);
    assert_eq!(
        errors(&m),
        ["module: site ids in the instructions are malformed: op0 is used twice"]
    );
}

#[test]
fn verifier_reports_every_violation() {
    let m = broken("fadd f64 v0, v2", "fadd f64 v0, v3");
    let text = BASE
        .replacen("fadd f64 v0, v2", "fadd f64 v0, v3", 1)
        .replacen("  ret v9", "  ret v3", 1)
        .replacen("align 8", "align 3", 1);
    assert_eq!(errors(&m).len(), 1);
    assert_eq!(errors(&parse_module(&text).unwrap()).len(), 3);
}

fn parse_error(text: &str) -> String {
    match parse_module(text) {
        Ok(_) => panic!("parsed: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parse_errors_name_line_column_and_what_was_expected() {
    let cases: &[(&str, &str)] = &[
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  v1: f64 = fadd2 f64 v0, v0\n  ret\n}\n",
            "3:13: unknown instruction `fadd2`",
        ),
        (
            "func f0 \"f\"(v0: f64) -> f64 {\nbb0:\n  ret v3\n}\n",
            "3:7: v3 is used but never defined",
        ),
        (
            "func f0 \"f\"(v0: i65) {\nbb0:\n  ret\n}\n",
            "1:17: expected a type (`i1`..`i64`, `f32`, `f64` or `ptr`), found `i65`",
        ),
        (
            "func f0 \"f\"() {\nbb0:\n}\n",
            "3:1: expected an instruction or terminator, found `}`",
        ),
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  v1: f64 = fadd f64 v0, v0 @op0\n  v2: f64 = fadd f64 v0, v0 @op0\n  ret\n}\n",
            "4:30: op0 is already used at 3:30: each site is used once",
        ),
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  v1: f64 = fadd f64 v0, v0 @op1\n  ret\n}\n",
            "3:30: op1 is used but op0 is not: site ids must be dense",
        ),
        (
            "func f0 \"f\"() {\nbb0:\n  jump bb2()\nbb2():\n  ret\n}\n",
            "4:1: expected block `bb1`, found `bb2`: blocks are numbered in order",
        ),
        ("file file0 \"abc\n", "1:12: unterminated string"),
        (
            "func f0 \"f\"() {\n  const v0: i8 = 300\nbb0:\n  ret\n}\n",
            "2:18: 300 does not fit in i8",
        ),
        ("file file0 \"a\" $\n", "1:16: unexpected character '$'"),
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  v0: f64 = fneg f64 v0\n  ret\n}\n",
            "3:3: v0 is already defined at 1:13",
        ),
        (
            "func f0 \"f\"(v0: f64, v2: f64) {\nbb0:\n  ret\n}\n",
            "1:1: v1 is never defined: register ids must be dense (v0..v1)",
        ),
        (
            "func f0 \"f\"() {\nbb0(v0: f64):\n  ret\n}\n",
            "2:4: the entry block takes the function's parameters: write them after the function name",
        ),
        (
            "func f0 \"f\"() {\nbb0:\n  ret",
            "3:6: expected `}` or block `bb1`, found end of input",
        ),
        (
            "func f0 \"f\"() {\n}\n",
            "2:1: expected block `bb0`, found `}`",
        ),
        (
            "global g0 \"g\" align 1 = x\"abc\"\n",
            "1:25: expected pairs of hex digits in the byte string",
        ),
        (
            "file file1 \"a\"\n",
            "1:6: expected file `file0`, found `file1`: files are numbered in order",
        ),
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  v1: f64 = call math sine.f64(v0) @op0\n  ret\n}\n",
            "3:23: unknown math function `sine.f64` (expected `name.f32` or `name.f64`)",
        ),
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  v1: f64 = fadd f64 v0 v0 @op0\n  ret\n}\n",
            "3:25: expected `,`, found `v0`",
        ),
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  ret v0 v0\n}\n",
            "3:10: expected end of line, found `v0`",
        ),
        (
            "func f0 \"f\"(v0: f64) {\nbb0:\n  v1: f64 = fadd f64 v0, v0\n  ret\n}\n",
            "3:28: expected `@`, found end of line",
        ),
        (
            "func f0 \"f\"(v0: ptr) {\n  const v1: ptr = 12\nbb0:\n  ret\n}\n",
            "2:19: expected a pointer constant (`0x..`, `gN+off` or `fN+off`), found `12`",
        ),
        (
            "func f0 \"f\"() {\n  const v0: f32 = 0x1.8p+1.5\nbb0:\n  ret\n}\n",
            "2:19: invalid f32 literal `0x1.8p+1.5`: malformed hex float",
        ),
        (
            "glob g0\n",
            "1:1: expected `file`, `extern`, `global`, `func` or `shape`, found `glob`",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_error(text), *expected, "{text}");
    }
}

#[test]
fn parser_reads_integer_constants_signed_or_unsigned_masked_to_width() {
    let text = "func f0 \"f\"() {\n  const v0: i8 = 255\n  const v1: i8 = -128\n  const v2: i1 = 1\n  const v3: i64 = 18446744073709551615\nbb0:\n  ret\n}\n";
    let m = parse_module(text).unwrap();
    let bits: Vec<Const> = m.funcs[Func(0)].consts.iter().map(|c| c.1).collect();
    assert_eq!(
        bits,
        [
            Const::Bits(0xff),
            Const::Bits(0x80),
            Const::Bits(1),
            Const::Bits(u64::MAX)
        ]
    );
    assert_eq!(
        write_module(&m),
        "func f0 \"f\"() {\n  const v0: i8 = -1\n  const v1: i8 = -128\n  const v2: i1 = -1\n  const v3: i64 = -1\nbb0:\n  ret\n}\n"
    );
}

/// A `long double` math call is saved by the function's name in the math table, never by
/// its place there: the text names it, reads back to the same function whatever the
/// table's order, and its arguments are the function's operands alone (no constant
/// register holds an index into the table).
#[test]
fn long_double_math_calls_are_saved_by_name() {
    for f in MathFn::ALL.into_iter().filter(|f| f.origin().is_c()) {
        let builtin = Builtin::F80(F80Op::Libm(f));
        assert_eq!(builtin.name(), format!("f80_libm.{}", f.name()));
        assert_eq!(Builtin::from_name(builtin.name()), Some(builtin));
    }
    // `minnum` is an LLVM intrinsic only: no `long double` C function to call.
    assert_eq!(Builtin::from_name("f80_libm.minnum"), None);
    assert_eq!(Builtin::from_name("f80_libm.13"), None);
    assert_eq!(Builtin::from_name("f80_libm"), None);
    let text = "func f0 \"f\"(v0: i64, v1: i16, v2: ptr) -> i64 {\nbb0:\n  \
                v3: i64 = call builtin f80_libm.cbrt(v0, v1)\n  \
                v4: i16 = call builtin f80_libm.frexp(v0, v1, v2)\n  ret v3\n}\n";
    let m = parse_module(text).unwrap();
    assert_eq!(write_module(&m), text);
    verify_module(&m).unwrap();
    let func = &m.funcs[Func(0)];
    assert!(func.consts.is_empty());
    let calls: Vec<(Callee, usize)> = func.blocks[Block(0)]
        .insts
        .iter()
        .map(|inst| match &inst.kind {
            InstKind::Call { callee, args } => (callee.clone(), args.len()),
            other => panic!("{other:?}"),
        })
        .collect();
    let libm = |f| Callee::Builtin(Builtin::F80(F80Op::Libm(f)));
    assert_eq!(calls, [(libm(MathFn::Cbrt), 2), (libm(MathFn::Frexp), 3)]);
    assert_eq!(F80Op::Libm(MathFn::Cbrt).arity(), 2);
    assert_eq!(F80Op::Libm(MathFn::Frexp).arity(), 3);
    let unknown = "func f0 \"f\"(v0: i64, v1: i16) -> i64 {\nbb0:\n  \
                   v2: i64 = call builtin f80_libm.sine(v0, v1)\n  ret v2\n}\n";
    assert_eq!(
        parse_error(unknown),
        "3:26: unknown builtin `f80_libm.sine`"
    );
}

/// splitmix64: a tiny deterministic generator driven by a proptest seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Legal casts, one per line of the verifier's rules.
const CASTS: [(CastOp, Type, Type); 16] = [
    (CastOp::Trunc, Type::I64, Type::I32),
    (CastOp::Trunc, Type::I32, Type::BOOL),
    (CastOp::Zext, Type::I8, Type::I32),
    (CastOp::Sext, Type::I32, Type::I64),
    (CastOp::Fptrunc, Type::F64, Type::F32),
    (CastOp::Fpext, Type::F32, Type::F64),
    (CastOp::Fptoui, Type::F64, Type::I32),
    (CastOp::Fptosi, Type::F32, Type::I64),
    (CastOp::Uitofp, Type::I64, Type::F64),
    (CastOp::Sitofp, Type::I8, Type::F32),
    (CastOp::Ptrtoint, Type::Ptr, Type::I64),
    (CastOp::Inttoptr, Type::I64, Type::Ptr),
    (CastOp::Bitcast, Type::I64, Type::F64),
    (CastOp::Bitcast, Type::F32, Type::I32),
    (CastOp::Bitcast, Type::Ptr, Type::Ptr),
    (CastOp::Bitcast, Type::I8, Type::I8),
];
const TYPES: [Type; 7] = [
    Type::BOOL,
    Type::I8,
    Type::I32,
    Type::I64,
    Type::F32,
    Type::F64,
    Type::Ptr,
];

/// Builds one random well-formed function: constants of every type, then straight-line
/// code and diamonds (a `br` or `switch` to two arms that join with a block parameter).
struct FuncGen<'a> {
    rng: &'a mut Rng,
    module: &'a Module,
    n_funcs: usize,
    next_op: &'a mut u32,
    next_br: &'a mut u32,
    regs: EntityVec<Reg, Type>,
    blocks: Vec<BlockData>,
}

impl FuncGen<'_> {
    fn new_reg(&mut self, ty: Type) -> Reg {
        self.regs.push(ty)
    }

    fn loc(&mut self) -> Option<SrcLoc> {
        let files = self.module.files.len();
        (files > 0 && self.rng.chance(50)).then(|| SrcLoc {
            file: FileId(self.rng.below(files) as u32),
            line: self.rng.below(1000) as u32 + 1,
            col: self.rng.below(80) as u32,
        })
    }

    fn reg_of(&mut self, scope: &[Reg], ty: Type) -> Reg {
        let candidates: Vec<Reg> = scope
            .iter()
            .copied()
            .filter(|&r| self.regs[r] == ty)
            .collect();
        self.rng.pick(&candidates)
    }

    fn any_regs(&mut self, scope: &[Reg]) -> Vec<Reg> {
        (0..self.rng.below(4))
            .map(|_| self.rng.pick(scope))
            .collect()
    }

    fn site(&mut self) -> OpSite {
        *self.next_op += 1;
        OpSite(*self.next_op - 1)
    }

    fn empty_block(&mut self, params: Vec<Reg>) -> usize {
        self.blocks.push(BlockData {
            params,
            insts: Vec::new(),
            locs: Vec::new(),
            term: Terminator::Unreachable,
            term_loc: None,
        });
        self.blocks.len() - 1
    }

    fn emit(&mut self, block: usize, scope: &mut Vec<Reg>, dest: Option<Type>, kind: InstKind) {
        let dest = dest.map(|ty| self.new_reg(ty));
        let loc = self.loc();
        let b = &mut self.blocks[block];
        b.insts.push(Inst { dest, kind });
        b.locs.push(loc);
        scope.extend(dest);
    }

    fn random_inst(&mut self, block: usize, scope: &mut Vec<Reg>) {
        use InstKind::*;
        let rng_ty = |g: &mut Self, tys: &[Type]| g.rng.pick(tys);
        let (dest, kind) = match self.rng.below(16) {
            0 => {
                let ty = rng_ty(self, &[Type::BOOL, Type::I8, Type::I32, Type::I64]);
                let op = self.rng.pick(&IntBinOp::ALL);
                let (lhs, rhs) = (self.reg_of(scope, ty), self.reg_of(scope, ty));
                (Some(ty), IntBin { op, ty, lhs, rhs })
            }
            1 => {
                let ty = self.rng.pick(&[FloatTy::F32, FloatTy::F64]);
                let t = Type::Float(ty);
                let op = self.rng.pick(&FloatBinOp::ALL);
                let (lhs, rhs) = (self.reg_of(scope, t), self.reg_of(scope, t));
                let site = self.site();
                (
                    Some(t),
                    FloatBin {
                        op,
                        ty,
                        lhs,
                        rhs,
                        site,
                    },
                )
            }
            2 => {
                let ty = self.rng.pick(&[FloatTy::F32, FloatTy::F64]);
                let arg = self.reg_of(scope, Type::Float(ty));
                (Some(Type::Float(ty)), Fneg { ty, arg })
            }
            3 => {
                let ty = rng_ty(self, &[Type::I8, Type::I32, Type::I64, Type::Ptr]);
                let pred = self.rng.pick(&IntPred::ALL);
                let (lhs, rhs) = (self.reg_of(scope, ty), self.reg_of(scope, ty));
                (Some(Type::BOOL), Icmp { pred, ty, lhs, rhs })
            }
            4 => {
                let ty = self.rng.pick(&[FloatTy::F32, FloatTy::F64]);
                let pred = self.rng.pick(&FloatPred::ALL);
                let t = Type::Float(ty);
                let (lhs, rhs) = (self.reg_of(scope, t), self.reg_of(scope, t));
                (Some(Type::BOOL), Fcmp { pred, ty, lhs, rhs })
            }
            5 => {
                let (op, from, to) = self.rng.pick(&CASTS);
                let arg = self.reg_of(scope, from);
                (Some(to), Cast { op, from, to, arg })
            }
            6 => {
                let ty = rng_ty(self, &TYPES);
                let cond = self.reg_of(scope, Type::BOOL);
                let (if_true, if_false) = (self.reg_of(scope, ty), self.reg_of(scope, ty));
                (
                    Some(ty),
                    Select {
                        ty,
                        cond,
                        if_true,
                        if_false,
                    },
                )
            }
            7 => {
                let ty = rng_ty(self, &TYPES);
                let addr = self.reg_of(scope, Type::Ptr);
                (Some(ty), Load { ty, addr })
            }
            8 => {
                let ty = rng_ty(self, &TYPES);
                let addr = self.reg_of(scope, Type::Ptr);
                let value = self.reg_of(scope, ty);
                (None, Store { ty, addr, value })
            }
            9 => {
                let count = if self.rng.chance(50) {
                    let ty = rng_ty(self, &[Type::I32, Type::I64]);
                    Some(self.reg_of(scope, ty))
                } else {
                    None
                };
                let kind = Alloca {
                    size: self.rng.below(64) as u64,
                    count,
                    align: self.rng.pick(&[1, 2, 4, 8, 16]),
                };
                (Some(Type::Ptr), kind)
            }
            10 => {
                let base = self.reg_of(scope, Type::Ptr);
                let terms = (0..self.rng.below(3))
                    .map(|_| {
                        let ty = self.rng.pick(&[Type::I32, Type::I64]);
                        IndexTerm {
                            index: self.reg_of(scope, ty),
                            scale: self.rng.below(33) as i64 - 16,
                        }
                    })
                    .collect();
                let offset = self.rng.next() as i64 >> self.rng.below(64);
                (
                    Some(Type::Ptr),
                    PtrOffset {
                        base,
                        offset,
                        terms,
                    },
                )
            }
            11 => {
                let func = self.rng.pick(&MathFn::ALL);
                let ty = self.rng.pick(&[FloatTy::F32, FloatTy::F64]);
                let f = Type::Float(ty);
                let params: Vec<Type> = match func.shape() {
                    MathShape::Unary | MathShape::ToInt => vec![f],
                    MathShape::Binary => vec![f, f],
                    MathShape::Ternary => vec![f, f, f],
                    MathShape::FloatInt => vec![f, Type::I32],
                    MathShape::FloatPtrInt | MathShape::FloatPtrFloat => vec![f, Type::Ptr],
                };
                let args = params.iter().map(|&t| self.reg_of(scope, t)).collect();
                let result = match func.shape() {
                    MathShape::ToInt => rng_ty(self, &[Type::I32, Type::I64]),
                    _ => f,
                };
                let site = self.site();
                let dest = self.rng.chance(85).then_some(result);
                let callee = Callee::Math(MathCall { func, ty }, site);
                (dest, Call { callee, args })
            }
            12 => {
                let callee = Callee::Builtin(self.rng.pick(Builtin::ALL));
                let args = self.any_regs(scope);
                let dest = self.rng.chance(50).then(|| self.rng.pick(&TYPES));
                (dest, Call { callee, args })
            }
            13 if !self.module.externals.is_empty() => {
                let callee = Callee::External(self.rng.below(self.module.externals.len()) as u32);
                let args = self.any_regs(scope);
                let dest = self.rng.chance(50).then(|| self.rng.pick(&TYPES));
                (dest, Call { callee, args })
            }
            14 => {
                let callee = Callee::Indirect(self.reg_of(scope, Type::Ptr));
                let args = self.any_regs(scope);
                let dest = self.rng.chance(50).then(|| self.rng.pick(&TYPES));
                (dest, Call { callee, args })
            }
            15 if !self.module.funcs.is_empty() => {
                let target = Func(self.rng.below(self.module.funcs.len()) as u32);
                let callee_fn = &self.module.funcs[target];
                let (params, ret) = (callee_fn.param_types(), callee_fn.ret);
                let args = params.iter().map(|&t| self.reg_of(scope, t)).collect();
                let dest = ret.filter(|_| self.rng.chance(80));
                let callee = Callee::Direct(target);
                (dest, Call { callee, args })
            }
            _ => {
                let value = self.reg_of(scope, Type::I32);
                let addr = self.reg_of(scope, Type::Ptr);
                let ty = Type::I32;
                (None, Store { ty, addr, value })
            }
        };
        self.emit(block, scope, dest, kind);
    }

    fn straight(&mut self, block: usize, scope: &mut Vec<Reg>) {
        for _ in 0..self.rng.below(5) {
            self.random_inst(block, scope);
        }
    }

    /// Ends `block` with a branch to two arms that join; returns the join block.
    fn diamond(&mut self, block: usize, scope: &mut Vec<Reg>) -> usize {
        let join_ty = self.rng.pick(&TYPES);
        let join_param = self.new_reg(join_ty);
        let then_b = self.empty_block(Vec::new());
        let else_b = self.empty_block(Vec::new());
        let join = self.empty_block(vec![join_param]);
        for arm in [then_b, else_b] {
            let mut local = scope.clone();
            self.straight(arm, &mut local);
            let value = self.reg_of(&local, join_ty);
            self.blocks[arm].term = Terminator::Jump(BlockCall {
                block: Block(join as u32),
                args: vec![value],
            });
            self.blocks[arm].term_loc = self.loc();
        }
        let arm = |b: usize| BlockCall {
            block: Block(b as u32),
            args: Vec::new(),
        };
        let term = if self.rng.chance(70) {
            if self.rng.chance(50) {
                self.random_cmp(block, scope);
            }
            let cond = *scope
                .iter()
                .rev()
                .find(|&&r| self.regs[r] == Type::BOOL)
                .expect("an i1 constant exists");
            *self.next_br += 1;
            Terminator::Br {
                cond,
                then_to: arm(then_b),
                else_to: arm(else_b),
                site: BranchSite(*self.next_br - 1),
                check: self.rng.pick(&[
                    None,
                    Some(fpir::TrapCheck::DivByZero),
                    Some(fpir::TrapCheck::OutOfBounds),
                ]),
            }
        } else {
            let ty = self.rng.pick(&[Type::I8, Type::I32, Type::I64]);
            let value = self.reg_of(scope, ty);
            let mask = u64::MAX >> (64 - ty.bits());
            let mut cases: Vec<SwitchCase> = Vec::new();
            for _ in 0..self.rng.below(4) {
                let value = self.rng.next() & mask;
                if cases.iter().all(|c| c.value != value) {
                    let to = self.rng.pick(&[then_b, else_b]);
                    cases.push(SwitchCase {
                        value,
                        target: arm(to),
                    });
                }
            }
            *self.next_br += 1;
            Terminator::Switch {
                ty,
                value,
                cases,
                default: arm(else_b),
                site: BranchSite(*self.next_br - 1),
            }
        };
        self.blocks[block].term = term;
        self.blocks[block].term_loc = self.loc();
        scope.push(join_param);
        join
    }

    fn random_cmp(&mut self, block: usize, scope: &mut Vec<Reg>) {
        let ty = self.rng.pick(&[FloatTy::F32, FloatTy::F64]);
        let t = Type::Float(ty);
        let (lhs, rhs) = (self.reg_of(scope, t), self.reg_of(scope, t));
        let pred = self.rng.pick(&FloatPred::ALL);
        self.emit(
            block,
            scope,
            Some(Type::BOOL),
            InstKind::Fcmp { pred, ty, lhs, rhs },
        );
    }

    fn random_const(&mut self, ty: Type) -> Const {
        let bits = self.rng.next();
        match ty {
            Type::Ptr if self.rng.chance(60) => {
                let offset = self.rng.below(64) as i64 - 32;
                let globals = self.module.globals.len();
                if globals > 0 && self.rng.chance(70) {
                    Const::Addr(
                        AddrBase::Global(Global(self.rng.below(globals) as u32)),
                        offset,
                    )
                } else {
                    Const::Addr(
                        AddrBase::Func(Func(self.rng.below(self.n_funcs) as u32)),
                        offset,
                    )
                }
            }
            _ if ty.bits() < 64 => Const::Bits(bits & ((1 << ty.bits()) - 1)),
            _ => Const::Bits(bits),
        }
    }

    fn function(mut self, index: usize) -> Function {
        let n_params = self.rng.below(4);
        let param_types: Vec<Type> = (0..n_params).map(|_| self.rng.pick(&TYPES)).collect();
        let params: Vec<Reg> = param_types.iter().map(|&t| self.new_reg(t)).collect();
        let param_pointees = param_types
            .iter()
            .map(|&t| (t == Type::Ptr && self.rng.chance(50)).then(|| self.rng.pick(&TYPES)))
            .collect();
        let param_names = (0..n_params)
            .map(|i| {
                self.rng
                    .chance(50)
                    .then(|| format!("p{i}_{}", self.rng.below(9)))
            })
            .collect();
        let mut scope = params.clone();
        let mut consts = Vec::new();
        let extra: Vec<Type> = (0..self.rng.below(4))
            .map(|_| self.rng.pick(&TYPES))
            .collect();
        for ty in TYPES.into_iter().chain(extra) {
            let reg = self.new_reg(ty);
            consts.push((reg, self.random_const(ty)));
            scope.push(reg);
        }
        let mut block = self.empty_block(params);
        for _ in 0..self.rng.below(4) {
            self.straight(block, &mut scope);
            if self.rng.chance(50) {
                block = self.diamond(block, &mut scope);
            }
        }
        self.straight(block, &mut scope);
        let ret = self.rng.chance(80).then(|| self.rng.pick(&TYPES));
        let value = ret.map(|t| self.reg_of(&scope, t));
        self.blocks[block].term = Terminator::Ret(value);
        self.blocks[block].term_loc = self.loc();
        let names = ["main", "with space", "q\"uote", "back\\slash", "ünï"];
        Function {
            name: format!("{}{index}", self.rng.pick(&names)),
            demangled: None,
            ret,
            param_pointees,
            param_names,
            regs: self.regs,
            consts,
            blocks: self.blocks.into_iter().collect(),
            loc: None,
        }
    }
}

/// A random well-formed module with files, externals, globals with relocs and functions
/// calling earlier ones.
fn random_module(seed: u64) -> Module {
    let mut rng = Rng(seed);
    let mut m = Module::default();
    for i in 0..rng.below(3) {
        m.files.push(format!("dir {i}/\"file\"\\{i}.c"));
    }
    for i in 0..rng.below(3) {
        m.externals.push(format!("ext{i}"));
    }
    let n_globals = rng.below(4);
    let n_funcs = 1 + rng.below(3);
    for i in 0..n_globals {
        let size = rng.below(25);
        let init: Vec<u8> = (0..size).map(|_| rng.next() as u8).collect();
        let mut relocs = Vec::new();
        if size >= 8 {
            for _ in 0..rng.below(3) {
                let target = if rng.chance(50) {
                    AddrBase::Global(Global(rng.below(n_globals) as u32))
                } else {
                    AddrBase::Func(Func(rng.below(n_funcs) as u32))
                };
                relocs.push(Reloc {
                    at: rng.below(size - 7) as u64,
                    target,
                    addend: rng.below(64) as i64 - 32,
                });
            }
        }
        m.globals.push(GlobalData {
            name: format!("g{i}"),
            init,
            align: rng.pick(&[1, 2, 4, 8, 16]),
            constant: rng.chance(50),
            relocs,
        });
    }
    let (mut next_op, mut next_br) = (0, 0);
    for index in 0..n_funcs {
        let func = FuncGen {
            rng: &mut rng,
            module: &m,
            n_funcs,
            next_op: &mut next_op,
            next_br: &mut next_br,
            regs: EntityVec::new(),
            blocks: Vec::new(),
        }
        .function(index);
        let loc_file = (!m.files.is_empty()).then_some(FileId(0));
        m.funcs.push(Function {
            loc: loc_file.map(|file| SrcLoc {
                file,
                line: index as u32 + 1,
                col: 1,
            }),
            ..func
        });
    }
    m.index_sites()
        .expect("the generator numbers sites densely");
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_modules_verify_and_round_trip(seed in any::<u64>()) {
        let m = random_module(seed);
        let text = write_module(&m);
        prop_assert_eq!(verify_module(&m), Ok(()), "{}", text);
        let parsed = parse_module(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&parsed, &m);
        prop_assert_eq!(write_module(&parsed), text);
    }
}

/// Parses `text`, which must give a module or an error, never a panic; a module must
/// verify without panicking and print to text that parses back to it.
fn parse_without_panic(text: &str) {
    match parse_module(text) {
        Ok(m) => {
            let _ = verify_module(&m);
            let printed = write_module(&m);
            assert_eq!(parse_module(&printed).as_ref(), Ok(&m), "{text}");
        }
        Err(e) => assert!(e.line >= 1 && e.col >= 1, "{e}"),
    }
}

#[test]
fn every_truncation_parses_or_fails_cleanly() {
    for source in [FULL, BASE] {
        let chars: Vec<char> = source.chars().collect();
        for end in 0..chars.len() {
            parse_without_panic(&chars[..end].iter().collect::<String>());
        }
    }
}

/// Fragments that are likely to confuse the lexer and parser.
const JUNK: &[&str] = &[
    "v99",
    "v0",
    "bb",
    "bb9",
    "@op9",
    "@br",
    "!",
    "!0:",
    "\"",
    "x\"",
    "x\"0",
    "-",
    "+",
    "0x",
    "raw:",
    "raw:zz",
    ",",
    "(",
    ")",
    "[",
    "]",
    "\n",
    " ",
    "i0",
    "i64",
    "i99",
    "f32",
    "ptr",
    "g0+",
    "f1-",
    "g9+1",
    "#",
    "#n",
    "<",
    ">",
    "}",
    "{",
    ":",
    "=",
    "->",
    "*",
    "9999999999999999999999",
    "-1",
    "é",
    "\\",
    "const",
    "func",
    "ret",
    "jump",
    "call",
    "math",
    "sin.f32",
    "x",
    "align",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn mutated_text_parses_or_fails_cleanly(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let generated = write_module(&random_module(rng.next()));
        let source = match rng.below(3) {
            0 => FULL,
            1 => BASE,
            _ => generated.as_str(),
        };
        let mut chars: Vec<char> = source.chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(chars.len() + 1);
            match rng.below(4) {
                0 => {
                    let end = (at + 1 + rng.below(12)).min(chars.len());
                    chars.drain(at.min(end)..end);
                }
                1 => {
                    let junk = rng.pick(JUNK);
                    chars.splice(at..at, junk.chars());
                }
                2 => {
                    let from = rng.below(chars.len() + 1);
                    let end = (from + 1 + rng.below(20)).min(chars.len());
                    let copy: Vec<char> = chars[from.min(end)..end].to_vec();
                    chars.splice(at..at, copy);
                }
                _ => chars.truncate(at),
            }
        }
        parse_without_panic(&chars.iter().collect::<String>());
    }
}

/// Breaks one structural invariant of `m` at random, possibly leaving ids out of range.
fn damage(m: &mut Module, rng: &mut Rng) {
    let f = Func(rng.below(m.funcs.len()) as u32);
    let func = &mut m.funcs[f];
    let n_regs = func.regs.len() + 2;
    let n_blocks = func.blocks.len() + 1;
    let b = Block(rng.below(func.blocks.len()) as u32);
    let random_reg = |rng: &mut Rng| Reg(rng.below(n_regs) as u32);
    match rng.below(10) {
        0 => {
            let keep = rng.below(n_blocks);
            func.blocks = func.blocks.values().take(keep).cloned().collect();
        }
        1 => {
            let keep = rng.below(n_regs);
            func.regs = func.regs.values().take(keep).copied().collect();
        }
        2 if !func.blocks.is_empty() => {
            let args = (0..rng.below(3)).map(|_| random_reg(rng)).collect();
            func.blocks[b].term = Terminator::Jump(BlockCall {
                block: Block(rng.below(n_blocks + 1) as u32),
                args,
            });
        }
        3 if !func.blocks.is_empty() && !func.blocks[b].insts.is_empty() => {
            let i = rng.below(func.blocks[b].insts.len());
            func.blocks[b].insts[i].dest = rng.chance(80).then(|| random_reg(rng));
        }
        4 => {
            let target = AddrBase::Global(Global(rng.below(5) as u32));
            func.consts.push((random_reg(rng), Const::Addr(target, 0)));
        }
        5 if !func.blocks.is_empty() => {
            let insts = &mut func.blocks[b].insts;
            if insts.len() >= 2 {
                let (i, j) = (rng.below(insts.len()), rng.below(insts.len()));
                insts.swap(i, j);
            }
        }
        6 if !func.blocks.is_empty() => {
            let reg = random_reg(rng);
            func.blocks[b].params.push(reg);
        }
        7 if !func.regs.is_empty() => {
            let r = Reg(rng.below(func.regs.len()) as u32);
            func.regs[r] = Type::Int(rng.below(70) as u8);
        }
        8 if !func.blocks.is_empty() => {
            func.blocks[b].locs.pop();
            func.blocks[b].term = Terminator::Ret(Some(random_reg(rng)));
        }
        _ => {
            m.op_sites = EntityVec::new();
            m.externals.clear();
            m.globals = EntityVec::new();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn verifier_never_panics_on_damaged_modules(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let mut m = random_module(rng.next());
        for _ in 0..1 + rng.below(4) {
            damage(&mut m, &mut rng);
        }
        let _ = verify_module(&m);
    }
}

/// The lowering golden files (`tests/fixtures/**/*.ir`) are IR text as `write_module`
/// prints it: each must parse, print back identically and verify clean.
#[test]
fn golden_ir_files_round_trip_and_verify() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut dirs = vec![root];
    let mut checked = 0;
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "ir") {
                let text = std::fs::read_to_string(&path).unwrap();
                let m = parse_module(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
                assert_eq!(write_module(&m), text, "{}", path.display());
                if let Err(errors) = verify_module(&m) {
                    panic!("{}: {errors:#?}", path.display());
                }
                checked += 1;
            }
        }
    }
    println!("checked {checked} golden files");
}

#[test]
fn verifier_follows_dominance_around_loops() {
    let text = "func f0 \"loop\"(v0: i32) -> i32 {
  const v1: i32 = 1
bb0:
  jump bb1(v0)
bb1(v2: i32):
  v3: i1 = icmp slt i32 v2, v1
  br v3, bb2(), bb3() @br0
bb2():
  v4: i32 = add i32 v2, v1
  jump bb1(v4)
bb3():
  ret v2
}
";
    assert_eq!(errors(&parse_module(text).unwrap()), Vec::<String>::new());
    let exit_uses_body = parse_module(&text.replace("ret v2", "ret v4")).unwrap();
    assert_eq!(
        errors(&exit_uses_body),
        ["f0 \"loop\" bb3 term: v4 is defined in bb2, which does not dominate this use"]
    );
}
