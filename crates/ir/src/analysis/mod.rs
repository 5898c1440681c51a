//! Analyses of a function's code that every crate shares, so that lowering, the
//! interpreter and the engines never disagree about which block is reachable, which
//! block dominates which, where loops start, or which branch side is dead.
//!
//! - [`mod@cfg`]: successors, predecessors, reverse postorder and reachability;
//! - [`dominators`]: immediate dominators (Cooper, Harvey and Kennedy's iterative
//!   algorithm) and the dominance relation;
//! - [`loops`]: loop headers (targets of back edges);
//! - [`constants`]: constant folding of branch conditions with [`crate::eval`] (the same
//!   bits the interpreter computes), the blocks live when branches on constants go only
//!   their way, and the sides no input can take.

pub mod cfg;
pub mod constants;
pub mod dominators;
pub mod loops;

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
