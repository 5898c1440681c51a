//! Analyses of a function's code that every crate shares, so that lowering, the
//! interpreter and the engines never disagree about which block is reachable, which
//! block dominates which, where loops start, or which branch side is dead.
//!
//! - [`calls`]: what a run from entry functions may call, read and write, with the
//!   chain of references that leads to each function and global;
//! - [`mod@cfg`]: successors, predecessors, reverse postorder and reachability;
//! - [`dominators`]: immediate dominators (Cooper, Harvey and Kennedy's iterative
//!   algorithm) and the dominance relation;
//! - [`loops`]: loop headers (targets of back edges);
//! - [`constants`]: constant folding of branch conditions with [`crate::eval`] (the same
//!   bits the interpreter computes), the blocks live when branches on constants go only
//!   their way, and the sides no input can take.

pub mod calls;
pub mod cfg;
pub mod constants;
pub mod dominators;
pub mod loops;

pub use calls::{ExternalCall, Reach, ReachedVia};
pub use cfg::Cfg;
pub use constants::{infeasible_sides, ConstantFacts};
pub use dominators::Dominators;
pub use loops::loop_headers;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side::{Arm, InfeasibleMethod, Side};
    use crate::{parse_module, Block, BranchSite, Func, Module};

    /// `f`: a diamond, then a loop whose header is bb4; `g`: branches on constants, a
    /// block only a dead side leads to, and switches on masked values.
    const TEXT: &str = r#"file file0 "a.c"
func f0 "f"(v0: i32 #n) -> i32 !0:1:0 {
  const v1: i32 = 0
  const v2: i32 = 1
bb0:
  v3: i1 = icmp slt i32 v0, v1 !0:2:9
  br v3, bb1(), bb2() @br0 !0:2:7
bb1():
  jump bb3(v1)
bb2():
  jump bb3(v2)
bb3(v4: i32):
  jump bb4(v4)
bb4(v5: i32):
  v6: i1 = icmp slt i32 v5, v0 !0:5:11
  br v6, bb5(), bb6() @br1 !0:5:5
bb5():
  v7: i32 = add i32 v5, v2
  jump bb4(v7)
bb6():
  ret v5
}
func f1 "g"(v0: i32 #x) -> i32 !0:10:0 {
  const v1: i32 = 4
  const v2: i32 = 8
  const v3: i32 = 3
  const v4: i1 = -1
bb0:
  v5: i32 = add i32 v1, v1 !0:11:3
  v6: i1 = icmp eq i32 v5, v2 !0:11:7
  br v6, bb1(), bb2() @br2 !0:11:7
bb1():
  v7: i32 = and i32 v0, v3 !0:12:3
  switch i32 v7, [0: bb3(), 1: bb3(), 2: bb3(), 3: bb3(), 8: bb3()], default bb4() @br3 !0:12:3
bb2():
  br v4, bb3(), bb4() @br4 !0:14:3
bb3():
  ret v1
bb4():
  switch i32 v0, [-2: bb3(), 7: bb3()], default bb3() @br5 !0:16:3
}
"#;

    fn module() -> Module {
        parse_module(TEXT).unwrap()
    }

    /// `main` calls `helper` and, behind `br false`, `dead`; `helper` reads `table`,
    /// whose relocation points to `callback`, and calls the external `missing`.
    const CALLS: &str = r#"file file0 "c.c"
extern "missing"
global g0 "table" align 8 const = x"0000000000000000" reloc(0, f3, 0)
global g1 "unused" align 8 = x"0000000000000000"
func f0 "main"(v0: f64) -> f64 !0:1:0 {
  const v1: i1 = 0
bb0:
  v2: f64 = call f1(v0) !0:2:10
  br v1, bb1(), bb2() @br0 !0:3:3
bb1():
  v3: f64 = call f2(v0) !0:4:5
  ret v3 !0:4:5
bb2():
  ret v2 !0:5:3
}
func f1 "helper"(v0: f64) -> f64 !0:7:0 {
  const v1: ptr = g0+0
bb0:
  v2: ptr = load ptr v1 !0:8:7
  v3: f64 = call extern 0(v0) !0:9:7
  ret v3 !0:9:3
}
func f2 "dead"(v0: f64) -> f64 !0:11:0 {
bb0:
  ret v0 !0:11:30
}
func f3 "callback"(v0: f64) -> f64 !0:12:0 {
bb0:
  ret v0 !0:12:30
}
"#;

    #[test]
    fn reach_follows_calls_addresses_and_relocations_but_not_dead_code() {
        use crate::{AddrBase, Global};
        let m = parse_module(CALLS).unwrap();
        let reach = Reach::new(&m, &[Func(0)]);
        assert_eq!(
            reach.funcs().collect::<Vec<_>>(),
            [Func(0), Func(1), Func(3)]
        );
        assert_eq!(reach.globals().collect::<Vec<_>>(), [Global(0)]);
        assert_eq!(
            reach.describe_chain(&m, AddrBase::Func(Func(3))),
            "main → helper → table → callback"
        );
        let read = reach.reference(AddrBase::Global(Global(0))).unwrap();
        assert_eq!(m.describe_loc(read.loc), "c.c:8:7");
        assert_eq!(read.from, AddrBase::Func(Func(1)));
        let calls = reach.external_calls();
        assert_eq!(calls.len(), 1);
        assert_eq!(
            (calls[0].caller, m.describe_loc(calls[0].loc)),
            (Func(1), "c.c:9:7".into())
        );
        assert_eq!(m.unresolved_from(Func(0)), ["missing"]);
        assert!(m.unresolved_from(Func(2)).is_empty());
        let stopped = Reach::entering(&m, &[Func(0)], |f| f != Func(1));
        assert_eq!(stopped.funcs().collect::<Vec<_>>(), [Func(0), Func(1)]);
        assert!(stopped.external_calls().is_empty());
        assert!(reach.chain(AddrBase::Global(Global(1))).is_empty());
    }

    #[test]
    fn cfg_lists_edges_orders_and_reaches() {
        let m = module();
        let cfg = Cfg::new(&m.funcs[Func(0)]);
        assert_eq!(cfg.succs(Block(0)), [Block(1), Block(2)]);
        assert_eq!(cfg.preds(Block(4)), [Block(3), Block(5)]);
        let rpo = cfg.reverse_postorder();
        assert_eq!(rpo.first(), Some(&Block(0)));
        assert_eq!(rpo.len(), 7);
        let pos = |b: u32| rpo.iter().position(|&x| x == Block(b)).unwrap();
        assert!(pos(3) > pos(1) && pos(3) > pos(2) && pos(4) > pos(3) && pos(6) > pos(4));
        let from_loop = cfg.reachable_from(Block(5));
        assert_eq!(from_loop, [false, false, false, false, true, true, true]);
    }

    #[test]
    fn dominators_and_loop_headers() {
        let m = module();
        let cfg = Cfg::new(&m.funcs[Func(0)]);
        let doms = Dominators::new(&cfg);
        assert!(doms.dominates(Block(0), Block(6)));
        assert!(!doms.dominates(Block(1), Block(3)));
        assert_eq!(doms.idom(Block(3)), Some(Block(0)));
        assert_eq!(doms.idom(Block(5)), Some(Block(4)));
        assert_eq!(doms.idom(Block(0)), None);
        assert_eq!(loop_headers(&cfg, &doms), [Block(4)]);
        let g = Cfg::new(&m.funcs[Func(1)]);
        assert!(loop_headers(&g, &Dominators::new(&g)).is_empty());
    }

    #[test]
    fn constants_fold_through_operations_and_kill_sides() {
        let m = module();
        let facts = ConstantFacts::new(&m.funcs[Func(1)]);
        assert_eq!(facts.value(crate::Reg(5)), Some(8));
        assert_eq!(facts.value(crate::Reg(6)), Some(1));
        assert_eq!(facts.possible_bits(crate::Reg(7)), 3);
        assert!(facts.is_live(Block(1)) && !facts.is_live(Block(2)));
        let side = |site: u32, arm| Side {
            site: BranchSite(site),
            arm,
        };
        let dead: Vec<(Side, InfeasibleMethod)> = infeasible_sides(&m, Func(1));
        use InfeasibleMethod::*;
        assert_eq!(
            dead,
            [
                (side(2, Arm::False), ConstantCondition),
                (side(3, Arm::Case(4)), ImpossibleValue),
                (side(3, Arm::Default), ImpossibleValue),
                (side(4, Arm::True), DeadCode),
                (side(4, Arm::False), DeadCode),
            ]
        );
        assert!(infeasible_sides(&m, Func(0)).is_empty());
    }

    #[test]
    fn every_side_name_reads_back_as_its_side() {
        let m = module();
        for (site, _) in m.branch_sites.iter() {
            for side in m.sides_of(site) {
                let name = m.side_name(side);
                assert_eq!(m.parse_side(&name), Ok(side), "{name}");
            }
        }
        let names: Vec<String> = m.sides_of(BranchSite(5)).map(|s| m.side_name(s)).collect();
        assert_eq!(names, ["br5:case-2", "br5:case7", "br5:default"]);
        assert_eq!(
            m.parse_side("a.c:16:3:case 7").map(|s| s.arm),
            Ok(Arm::Case(1))
        );
        assert_eq!(m.parse_side("a.c:5:T").map(|s| s.site), Ok(BranchSite(1)));
        for bad in [
            "br5:case3",
            "br0:case1",
            "br5:T",
            "br9:T",
            "a.c:99:T",
            "br0",
        ] {
            assert!(m.parse_side(bad).is_err(), "{bad}");
        }
    }
}
