//! Integration tests of the SMT-LIB front end: scripts in, responses out.

use std::time::Duration;

use fpforge_solve::{run_script, SolveConfig, SolveError, Status, Strategy};

fn run(script: &str) -> (String, Result<Vec<Status>, SolveError>) {
    run_with(
        script,
        SolveConfig::default().with_timeout(Duration::from_secs(5)),
    )
}

fn run_with(script: &str, cfg: SolveConfig) -> (String, Result<Vec<Status>, SolveError>) {
    let mut out = Vec::new();
    let r = run_script(script, &cfg, &mut out).map(|s| s.answers);
    (String::from_utf8(out).expect("utf-8 output"), r)
}

fn parse_error(script: &str) -> (u32, u32, String) {
    match run(script).1 {
        Err(SolveError::Parse { line, col, msg }) => (line, col, msg),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn sat_with_model_and_values() {
    let (out, r) = run("(set-logic QF_FP)
         (set-option :produce-models true)
         (declare-const x Float32)
         (declare-fun y () (_ FloatingPoint 8 24))
         (define-fun two () Float32 ((_ to_fp 8 24) RNE 2.0))
         (assert (fp.eq (fp.add RNE x y) two))
         (assert (fp.gt x (_ +zero 8 24)))
         (assert (fp.gt y ((_ to_fp 8 24) RNE 0.5)))
         (check-sat)
         (get-model)
         (get-value (x (fp.add RNE x y)))");
    assert_eq!(r.unwrap(), vec![Status::Sat]);
    assert!(
        out.contains("; note: set-option :produce-models ignored"),
        "{out}"
    );
    assert!(
        out.contains("(define-fun x () (_ FloatingPoint 8 24) (fp #b"),
        "{out}"
    );
    assert!(
        out.contains("((fp.add RNE x y) (fp #b0 #b10000000 #b00000000000000000000000))"),
        "{out}"
    );
}

#[test]
fn unsat_needs_exhausted_labeling() {
    let (out, r) = run("(declare-const x Float64)
         (assert (fp.isNaN x))
         (assert (fp.eq x x))
         (check-sat)
         (get-model)");
    assert_eq!(r.unwrap(), vec![Status::Unsat]);
    assert!(out.starts_with("unsat\n(error"), "{out}");
}

#[test]
fn push_pop_let_and_define_fun_with_parameters() {
    let (out, r) = run("(set-logic QF_BVFP)
         (declare-const b (_ BitVec 32))
         (define-fun f ((v (_ BitVec 32))) Float32 ((_ to_fp 8 24) v))
         (push 1)
         (assert (let ((z (f b))) (and (fp.isInfinite z) (fp.isNegative z))))
         (check-sat)
         (get-value (b))
         (pop 1)
         (declare-const c (_ BitVec 8))
         (assert (= (bvadd c #x01) #x00))
         (check-sat)
         (get-value (c))");
    assert_eq!(r.unwrap(), vec![Status::Sat, Status::Sat]);
    assert!(
        out.contains("((b #b11111111100000000000000000000000))"),
        "{out}"
    );
    assert!(out.contains("((c #b11111111))"), "{out}");
}

#[test]
fn parse_errors_name_line_and_column() {
    assert_eq!(
        parse_error("(declare-const x Float32)\n(assert (fp.lt x))").0,
        2
    );
    let (line, col, msg) = parse_error("(declare-const x (_ FloatingPoint 64 80))");
    assert_eq!((line, col), (1, 18));
    assert!(
        msg.starts_with("unsupported: (_ FloatingPoint 64 80)"),
        "{msg}"
    );
    let (line, col, msg) = parse_error("(declare-const x Float32)\n  (assert (fp.lt x y))");
    assert_eq!((line, col), (2, 20));
    assert!(msg.contains("unknown symbol 'y'"), "{msg}");
    let (_, _, msg) = parse_error("(declare-const x Float32)(assert (fp.lt (fp.add x x x) x))");
    assert!(msg.contains("expected RoundingMode"), "{msg}");
    // An unbalanced list is reported where the innermost open list starts.
    let (line, col, _) = parse_error("(assert true)\n(assert (and true");
    assert_eq!((line, col), (2, 9));
    let (_, _, msg) = parse_error(
        "(declare-const m (Array (_ BitVec 64) (_ BitVec 8)))(assert (= m (store m #x0000000000000000 #x00)))",
    );
    assert!(msg.starts_with("unsupported: array equality"), "{msg}");
    let (_, _, msg) =
        parse_error("(declare-const m (Array (_ BitVec 8) (Array (_ BitVec 8) (_ BitVec 8))))");
    assert!(msg.starts_with("unsupported: arrays of arrays"), "{msg}");
}

#[test]
fn define_sort_define_const_and_check_sat_assuming() {
    let (out, r) = run("(define-sort FP () (_ FloatingPoint 11 53))
         (define-sort Vec (w) (_ BitVec w))
         (define-const two FP ((_ to_fp 11 53) RTZ 2.0))
         (declare-const x FP)
         (declare-const b (Vec 8))
         (define-const tiny Bool (fp.lt x two))
         (assert (fp.gt x (fp.div RTP two (_ +oo 11 53))))
         (check-sat-assuming (tiny (= b #x07)))
         (get-value (b))
         (check-sat-assuming ((fp.gt x two) tiny))
         (check-sat)");
    assert_eq!(
        r.unwrap(),
        vec![Status::Sat, Status::Unsat, Status::Sat],
        "{out}"
    );
    assert!(out.contains("((b #b00000111))"), "{out}");
}

#[test]
fn extension_functions_are_noted_and_solved() {
    let (out, r) = run("(declare-const x Float64)
         (assert (fp.gt (fpext.atan x) ((_ to_fp 11 53) RNE 1.5)))
         (assert (fp.lt x ((_ to_fp 11 53) RNE 1000.0)))
         (check-sat)");
    assert_eq!(r.unwrap(), vec![Status::Sat], "{out}");
    assert!(
        out.contains("; note: fpext.atan is an fpforge extension"),
        "{out}"
    );
}

#[test]
fn earlier_responses_survive_a_later_error() {
    let (out, r) = run("(check-sat)\n(frobnicate)");
    assert!(r.is_err());
    assert_eq!(out, "sat\n");
}

#[test]
fn strategies_parse_from_cli_names() {
    for s in ["interval", "avm", "es", "random", "portfolio"] {
        assert_eq!(s.parse::<Strategy>().unwrap().name(), s);
    }
    assert!("z3".parse::<Strategy>().is_err());
}

#[test]
fn each_solver_can_be_selected() {
    let script = "(declare-const x Float64)
                  (assert (fp.eq (fp.mul RNE x x) ((_ to_fp 11 53) RNE 6.25)))
                  (check-sat)";
    for s in [
        Strategy::Interval,
        Strategy::Avm,
        Strategy::Es,
        Strategy::Portfolio,
    ] {
        let cfg = SolveConfig::default()
            .with_strategy(s)
            .with_seed(3)
            .with_stats(true)
            .with_timeout(Duration::from_secs(5));
        let (out, r) = run_with(script, cfg);
        assert_eq!(r.unwrap(), vec![Status::Sat], "{s:?}: {out}");
        assert!(out.contains("; evaluations"), "{out}");
    }
}

#[test]
fn portfolio_answers_depend_on_the_seed_only() {
    // The portfolio's schedule is counted in evaluations and labeling nodes, so repeated
    // runs print the same model.
    let script = "(set-logic QF_FP)
        (set-option :produce-models true)
        (declare-const x (_ FloatingPoint 11 53))
        (declare-const y (_ FloatingPoint 11 53))
        (define-fun one () (_ FloatingPoint 11 53) ((_ to_fp 11 53) RNE 1.0))
        (define-fun d () (_ FloatingPoint 11 53) (fp.sub RNE y (fp.mul RNE x x)))
        (assert (fp.lt (fp.add RNE (fp.mul RNE ((_ to_fp 11 53) RNE 100.0) (fp.mul RNE d d))
                                   (fp.mul RNE (fp.sub RNE one x) (fp.sub RNE one x)))
                       ((_ to_fp 11 53) RNE 0.001)))
        (assert (fp.gt x ((_ to_fp 11 53) RNE 0.5)))
        (check-sat)
        (get-model)";
    let cfg = || {
        SolveConfig::default()
            .with_timeout(Duration::from_secs(20))
            .with_strategy(Strategy::Portfolio)
            .with_seed(11)
    };
    let (first, answers) = run_with(script, cfg());
    assert_eq!(answers.expect("script runs"), vec![Status::Sat], "{first}");
    for _ in 0..3 {
        assert_eq!(run_with(script, cfg()).0, first);
    }
}

/// Runs `script` with the interval solver alone and returns its answers.
fn interval(script: &str) -> Vec<Status> {
    let cfg = SolveConfig::default()
        .with_strategy(Strategy::Interval)
        .with_timeout(Duration::from_secs(5));
    let (out, r) = run_with(script, cfg);
    r.unwrap_or_else(|e| panic!("{e:?}: {out}"))
}

#[test]
fn known_bits_decide_bit_vector_queries() {
    // A masked value cannot have bits outside the mask.
    let q = |body: &str| {
        format!("(declare-const x (_ BitVec 8)) (declare-const s (_ BitVec 8)) {body} (check-sat)")
    };
    assert_eq!(
        interval(&q("(assert (= (bvand x #x0F) #x10))")),
        vec![Status::Unsat]
    );
    // Negative and even (sign bit 1, bit 0 clear) but above -2: the signed
    // view of the known bits is [-128, -2].
    assert_eq!(
        interval(&q(
            "(assert (= (bvand x #x81) #x80)) (assert (bvsgt x #xfe))"
        )),
        vec![Status::Unsat]
    );
    assert_eq!(
        interval(&q(
            "(assert (= (bvand x #x81) #x80)) (assert (bvsgt x #xfb))"
        )),
        vec![Status::Sat]
    );
    // Doubling clears bit 0; 3 is invertible modulo 2^8.
    assert_eq!(
        interval(&q("(assert (= (bvmul x #x02) #x01))")),
        vec![Status::Unsat]
    );
    assert_eq!(
        interval(&q("(assert (= (bvmul x #x03) #x01))")),
        vec![Status::Sat]
    );
    // A shift by a nonzero amount (a range) clears bit 0.
    assert_eq!(
        interval(&q("(assert (bvugt s #x00)) (assert (= (bvshl x s) #x01))")),
        vec![Status::Unsat]
    );
    // Bits through concat, extract and sign_extend.
    assert_eq!(
        interval(&q(
            "(assert (= ((_ extract 7 4) (concat x x)) ((_ extract 3 0) (bvnot x))))
             (assert (= ((_ extract 7 7) ((_ sign_extend 4) x)) #b1))
             (assert (bvuge (bvadd x #x01) #x01))"
        )),
        vec![Status::Sat]
    );
}

#[test]
fn float_bit_patterns_exchange_sign_and_exponent() {
    // fdlibm: `hx = high word of x; ix = hx & 0x7fffffff; if (ix >= 0x7ff00000)`
    // means x is infinite or NaN.
    let q = |body: &str| {
        format!(
            "(declare-const b (_ BitVec 64))
             (define-fun x () Float64 ((_ to_fp 11 53) b))
             (define-fun ix () (_ BitVec 32) (bvand ((_ extract 63 32) b) #x7fffffff))
             {body} (check-sat)"
        )
    };
    assert_eq!(
        interval(&q(
            "(assert (bvuge ix #x7ff00000))
                     (assert (not (fp.isNaN x))) (assert (not (fp.isInfinite x)))"
        )),
        vec![Status::Unsat]
    );
    assert_eq!(
        interval(&q("(assert (bvuge ix #x7ff00000)) (assert (fp.isNaN x))")),
        vec![Status::Sat]
    );
    // The other way: a finite x of magnitude below 1 has a high word below
    // 0x3ff00000 once the sign bit is masked off.
    assert_eq!(
        interval(&q("(assert (fp.lt (fp.abs x) ((_ to_fp 11 53) RNE 1.0)))
                     (assert (bvuge ix #x3ff00000))")),
        vec![Status::Unsat]
    );
    // A known sign bit fixes the float's sign.
    assert_eq!(
        interval(&q("(assert (= ((_ extract 63 63) b) #b1))
                     (assert (fp.gt x ((_ to_fp 11 53) RNE 0.0)))")),
        vec![Status::Unsat]
    );
}

#[test]
fn max_ulp_filters_bound_operands_of_unbounded_partners() {
    let q = |body: &str| {
        format!(
            "(declare-const x Float32) (declare-const y Float32)
             {body} (check-sat)"
        )
    };
    // x + y = 1.5: the last bit of 1.5 is 2^-1, so x <= 2^23 + 1 (reached
    // with y = 1.5 - x) and x >= -(2^23 - 0.5), whatever y is.
    let sum = "(assert (fp.eq (fp.add RNE x y) ((_ to_fp 8 24) RNE 1.5)))";
    for (bound, answer) in [
        (
            "(assert (fp.gt x ((_ to_fp 8 24) RNE 8388609.0)))",
            Status::Unsat,
        ),
        (
            "(assert (fp.geq x ((_ to_fp 8 24) RNE 8388609.0)))",
            Status::Sat,
        ),
        (
            "(assert (fp.lt x (fp.neg ((_ to_fp 8 24) RNE 8388607.5))))",
            Status::Unsat,
        ),
        (
            "(assert (fp.leq (fp.sub RNE y x) (fp.neg ((_ to_fp 8 24) RNE 16777216.0))))",
            Status::Sat,
        ),
    ] {
        assert_eq!(
            interval(&q(&format!("{sum} {bound}"))),
            vec![answer],
            "{bound}"
        );
    }
    // x * y = 1e30 needs |x| >= 1e30 / MAX (about 2.94e-9); x / y = 1e-30
    // needs |x| <= 1e-30 * MAX; x / y = 1e30 needs |y| <= MAX / 1e30.
    assert_eq!(
        interval(&q("(assert (fp.eq (fp.mul RNE x y) ((_ to_fp 8 24) RNE 1000000000000000000000000000000.0)))
                     (assert (fp.lt (fp.abs x) ((_ to_fp 8 24) RNE 0.000000001)))")),
        vec![Status::Unsat]
    );
    assert_eq!(
        interval(&q("(assert (fp.eq (fp.div RNE x y) ((_ to_fp 8 24) RNE 0.000000000000000000000000000001)))
                     (assert (fp.gt (fp.abs x) ((_ to_fp 8 24) RNE 10000000000.0)))")),
        vec![Status::Unsat]
    );
    assert_eq!(
        interval(&q("(assert (fp.eq (fp.div RNE x y) ((_ to_fp 8 24) RNE 1000000000000000000000000000000.0)))
                     (assert (fp.gt (fp.abs y) ((_ to_fp 8 24) RNE 10000000000.0)))")),
        vec![Status::Unsat]
    );
}

/// The AVM's search is a function of the seed: these evaluation counts and models were
/// recorded before its moves moved into `fpforge-search` (`explore_and_pattern`), and
/// any change to the order or shape of its moves changes them.
#[test]
fn avm_searches_are_pinned_by_the_seed() {
    let golden = [
        (
            include_str!("../../../bench/solve/queries/absorption.smt2"),
            38,
            "(fp #b0 #b01111101 #b11010110110001100000001)",
            "(fp #b1 #b01000111 #b01001010010011100010010)",
        ),
        (
            include_str!("../../../bench/solve/queries/dichotomic_04_alt.smt2"),
            3336,
            "(fp #b0 #b01111111 #b00000000000000000000000)",
            "(fp #b0 #b10000000 #b01100000000000000000001)",
        ),
        (
            include_str!("../../../bench/solve/queries/flopsy_rosenbrock.smt2"),
            6201,
            "(fp #b0 #b01111111111 #b0000000000000000000000000000000000000000000000000000)",
            "(fp #b0 #b01111111111 #b0000000000000000000000000000000000000000000000000000)",
        ),
    ];
    for (query, evals, first, second) in golden {
        let script = query.replace("(check-sat)", "(check-sat)\n(get-model)");
        let cfg = SolveConfig::default()
            .with_strategy(Strategy::Avm)
            .with_timeout(Duration::from_secs(60));
        let mut out = Vec::new();
        let summary = run_script(&script, &cfg, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(summary.answers, [Status::Sat], "{out}");
        assert_eq!(summary.stats.evals, evals, "{out}");
        let values: Vec<&str> = out
            .lines()
            .filter_map(|l| {
                let start = l.find("(fp ")?;
                let end = start + l[start..].find(')')?;
                Some(&l[start..=end])
            })
            .collect();
        assert_eq!(values, [first, second], "{out}");
    }
}

#[test]
fn method_comments_name_the_deciding_method() {
    // Absorption: every b in (0, 1e-9) vanishes next to a in [1, 2]; only the
    // bit-precise backend proves it. Then a query search satisfies at once.
    let script = "(declare-const a Float32)(declare-const b Float32)
        (assert (fp.leq ((_ to_fp 8 24) RNE 1.0) a))
        (assert (fp.leq a ((_ to_fp 8 24) RNE 2.0)))
        (assert (fp.lt (_ +zero 8 24) b))
        (assert (fp.lt b ((_ to_fp 8 24) RNE 0.000000001)))
        (push 1)
        (assert (not (= (fp.add RNE a b) a)))
        (check-sat)
        (pop 1)
        (check-sat)";
    let cfg = SolveConfig::default()
        .with_timeout(Duration::from_secs(10))
        .with_method(true);
    let (out, r) = run_with(script, cfg);
    assert_eq!(r.unwrap(), vec![Status::Unsat, Status::Sat]);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["unsat", "; unsat (bit-precise)", "sat", "; sat (search)"],
        "{out}"
    );
    let (plain, _) = run_with(script, SolveConfig::default());
    assert_eq!(plain, "unsat\nsat\n");
}

#[test]
fn every_format_is_read_solved_and_printed() {
    let (out, r) = run("(declare-const h Float16)
         (declare-const q Float128)
         (declare-const t (_ FloatingPoint 3 5))
         (assert (fp.eq h ((_ to_fp 5 11) RNE 0.1)))
         (assert (fp.eq q ((_ to_fp 15 113) RTZ h)))
         (assert (fp.isSubnormal t))
         (assert (fp.isNegative t))
         (assert (fp.lt (fp #b0 #b000000000000000 #x0000000000000000000000000001) q))
         (check-sat)
         (get-model)
         (assert (fp.isNormal t))
         (check-sat)");
    assert_eq!(r.unwrap(), vec![Status::Sat, Status::Unsat], "{out}");
    // 0.1 is 1.6 * 2^-4: biased exponent 11, fraction 0.6 * 2^10 rounded to 614.
    assert!(
        out.contains("(define-fun h () (_ FloatingPoint 5 11) (fp #b0 #b01011 #b1001100110))"),
        "{out}"
    );
    assert!(
        out.contains(
            "(define-fun q () (_ FloatingPoint 15 113) (fp #b0 #b011111111111011 #b1001100110"
        ),
        "{out}"
    );
    assert!(
        out.contains("(define-fun t () (_ FloatingPoint 3 5) (fp #b1 #b000 #b"),
        "{out}"
    );
}

#[test]
fn functions_and_arrays_are_reduced_and_printed() {
    let (out, r) = run("(declare-fun f ((_ BitVec 8)) Float32)
         (declare-const m (Array (_ BitVec 8) (_ BitVec 8)))
         (declare-const i (_ BitVec 8))
         (assert (= (select (store m i #x07) #x01) #x09))
         (assert (fp.isNaN (f (select m #x02))))
         (check-sat)
         (get-model)
         (assert (= i #x01))
         (check-sat)
         (assert (= (f #x00) (f (select (store m i #x00) #x01))))
         (check-sat)");
    assert_eq!(
        r.unwrap(),
        vec![Status::Sat, Status::Unsat, Status::Unsat],
        "{out}"
    );
    assert!(
        out.contains("(define-fun m () (Array (_ BitVec 8) (_ BitVec 8)) (store "),
        "{out}"
    );
    assert!(
        out.contains("((as const (Array (_ BitVec 8) (_ BitVec 8)))"),
        "{out}"
    );
    assert!(
        out.contains("(define-fun f ((x!0 (_ BitVec 8))) (_ FloatingPoint 8 24) (ite (= x!0 "),
        "{out}"
    );
}
