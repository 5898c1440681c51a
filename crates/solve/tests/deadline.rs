//! The bit-precise backend keeps to its deadline while it builds and encodes circuits
//! (a path of double divisions is millions of gates, seconds of work), and a later run
//! resumes the work instead of starting over.

use std::time::{Duration, Instant};

use fpforge_solve::bitblast::{self, Blast, GaveUp, Verdict};
use fpforge_solve::{Op, SmtRounding, Sort, TermId, TermStore};

/// `x = 1.5` and `nan` (or not) of `x` divided and multiplied by itself `depth` times:
/// decided by unit propagation once built, but with a large circuit.
fn division_chain(store: &mut TermStore, depth: usize, nan: bool) -> Vec<TermId> {
    let x = store.declare("x", Sort::F64);
    let rne = store.rm_const(SmtRounding::Rne);
    let mut y = x;
    for i in 0..depth {
        let op = if i % 2 == 0 { Op::FpDiv } else { Op::FpMul };
        y = store.mk(op, &[rne, y, x]).expect("well sorted");
    }
    let three_halves = store.f64_const(1.5);
    let fixed = store.mk(Op::FpEq, &[x, three_halves]).expect("well sorted");
    let is_nan = store.mk(Op::FpIsNaN, &[y]).expect("well sorted");
    let last = if nan {
        is_nan
    } else {
        store.mk(Op::Not, &[is_nan]).expect("well sorted")
    };
    vec![fixed, last]
}

/// Runs `blast` in slices of `slice` until it answers; the gate counts after each run.
fn run_in_slices(blast: &mut Blast<'_>, slice: Duration) -> (Verdict, Vec<usize>) {
    let mut gates = Vec::new();
    loop {
        let verdict = blast.run(u64::MAX, Instant::now() + slice);
        gates.push(blast.gates());
        if !matches!(verdict, Verdict::Unknown(GaveUp::Timeout)) {
            return (verdict, gates);
        }
    }
}

#[test]
fn a_run_past_its_deadline_builds_nothing_and_later_runs_resume() {
    for nan in [false, true] {
        let mut store = TermStore::new();
        let assertions = division_chain(&mut store, 8, nan);
        let mut blast = Blast::new(&store, &assertions);
        assert!(matches!(
            blast.run(u64::MAX, Instant::now()),
            Verdict::Unknown(GaveUp::Timeout)
        ));
        let before = blast.gates();
        let (verdict, gates) = run_in_slices(&mut blast, Duration::from_millis(1));
        let whole = *gates.last().expect("one run at least");
        assert!(
            before * 100 < whole,
            "a run past its deadline built {before} of {whole} gates"
        );
        assert!(gates.windows(2).all(|w| w[0] <= w[1]), "{gates:?}");
        let fresh = bitblast::check(
            &store,
            &assertions,
            Instant::now() + Duration::from_secs(60),
        );
        match (verdict, fresh) {
            (Verdict::Sat(_), Verdict::Sat(_)) => assert!(!nan),
            (Verdict::Unsat, Verdict::Unsat) => assert!(nan),
            (sliced, fresh) => panic!("sliced {sliced:?}, at once {fresh:?}"),
        }
    }
}
