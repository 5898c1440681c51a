//! Branch sides no input can take, found without running: conditions computed from
//! constants only, and sites in blocks that only such branches lead to.
//!
//! C code compiled at `-O0` keeps branches on constants: musl's `isfinite(x)` is
//! `sizeof(x) == sizeof(float) ? ... : sizeof(x) == sizeof(double) ? ...`, which becomes
//! `br true/false` and comparisons of constants. Constant propagation folds every
//! integer, comparison, select and integer cast whose operands are all constants (with
//! the [`Concrete`] semantics, so folding agrees with execution); block parameters are
//! never taken as constant. Reachability then follows only the edges a constant
//! condition allows. A side is infeasible when its site is reachable and its condition
//! is a constant that selects another side, or when its site is unreachable: no call of
//! the function, from any caller and on any input, takes it.

use crate::path::Decision;
use fpforge_exec::{BranchOutcome, Concrete, Semantics};
use fpir::{CastOp, EntityId, Func, InstKind, IntBinOp, Module, Reg, Terminator};
use std::collections::HashMap;

/// Passes of constant folding over the blocks (SSA values defined later in layout
/// order than their uses need another pass).
const MAX_PASSES: usize = 8;

/// Sides of `func`'s branch sites that no call of `func` takes (see the module docs).
pub fn constant_infeasible(module: &Module, func: Func) -> Vec<Decision> {
    let Some(f) = module.funcs.get(func) else {
        return Vec::new();
    };
    let mut known: HashMap<Reg, u64> = f
        .consts
        .iter()
        .filter_map(|(r, c)| match c {
            fpir::Const::Bits(b) => Some((*r, *b)),
            fpir::Const::Addr(..) => None,
        })
        .collect();
    let mut sem = Concrete;
    for _ in 0..MAX_PASSES {
        let before = known.len();
        for (_, block) in f.blocks.iter() {
            for inst in &block.insts {
                let Some(d) = inst.dest else { continue };
                if known.contains_key(&d) {
                    continue;
                }
                let get = |r: &Reg| known.get(r).copied();
                let value = match &inst.kind {
                    InstKind::IntBin { op, ty, lhs, rhs } => match (get(lhs), get(rhs)) {
                        (Some(a), Some(b)) => match op {
                            IntBinOp::Add => Some(sem.iadd(*ty, &a, &b)),
                            IntBinOp::Sub => Some(sem.isub(*ty, &a, &b)),
                            IntBinOp::Mul => Some(sem.imul(*ty, &a, &b)),
                            IntBinOp::Udiv => sem.udiv(*ty, &a, &b).ok(),
                            IntBinOp::Sdiv => sem.sdiv(*ty, &a, &b).ok(),
                            IntBinOp::Urem => sem.urem(*ty, &a, &b).ok(),
                            IntBinOp::Srem => sem.srem(*ty, &a, &b).ok(),
                            IntBinOp::Shl => Some(sem.shl(*ty, &a, &b)),
                            IntBinOp::Lshr => Some(sem.lshr(*ty, &a, &b)),
                            IntBinOp::Ashr => Some(sem.ashr(*ty, &a, &b)),
                            IntBinOp::And => Some(sem.band(*ty, &a, &b)),
                            IntBinOp::Or => Some(sem.bor(*ty, &a, &b)),
                            IntBinOp::Xor => Some(sem.bxor(*ty, &a, &b)),
                        },
                        _ => None,
                    },
                    InstKind::Icmp { pred, ty, lhs, rhs } if *ty != fpir::Type::Ptr => {
                        match (get(lhs), get(rhs)) {
                            (Some(a), Some(b)) => Some(sem.icmp(*pred, *ty, &a, &b)),
                            _ => None,
                        }
                    }
                    InstKind::Fcmp { pred, ty, lhs, rhs } => match (get(lhs), get(rhs)) {
                        (Some(a), Some(b)) => Some(sem.fcmp(*pred, *ty, &a, &b)),
                        _ => None,
                    },
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                        ..
                    } => match get(cond) {
                        Some(c) if c & 1 != 0 => get(if_true),
                        Some(_) => get(if_false),
                        None => None,
                    },
                    InstKind::Cast { op, from, to, arg } => match (op, get(arg)) {
                        (CastOp::Trunc, Some(a)) => Some(sem.trunc(*from, *to, &a)),
                        (CastOp::Zext, Some(a)) => Some(sem.zext(*from, *to, &a)),
                        (CastOp::Sext, Some(a)) => Some(sem.sext(*from, *to, &a)),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(v) = value {
                    known.insert(d, v);
                }
            }
        }
        if known.len() == before {
            break;
        }
    }
    // Reachability along the edges constant conditions allow.
    let n = f.blocks.len();
    let mut reachable = vec![false; n];
    let mut stack = vec![fpir::Block::new(0)];
    let mut out = Vec::new();
    while let Some(b) = stack.pop() {
        if n == 0 || std::mem::replace(&mut reachable[b.index()], true) {
            continue;
        }
        match &f.blocks[b].term {
            Terminator::Br {
                cond,
                then_to,
                else_to,
                site,
            } => match known.get(cond) {
                Some(c) => {
                    let taken = c & 1 != 0;
                    out.push(Decision {
                        site: *site,
                        outcome: BranchOutcome::Cond(!taken),
                    });
                    stack.push(if taken { then_to.block } else { else_to.block });
                }
                None => {
                    stack.push(then_to.block);
                    stack.push(else_to.block);
                }
            },
            Terminator::Switch {
                value,
                cases,
                default,
                site,
                ..
            } => match known.get(value) {
                Some(v) => {
                    let hit = cases.iter().position(|c| c.value == *v);
                    for i in 0..cases.len() as u32 {
                        if hit != Some(i as usize) {
                            out.push(Decision {
                                site: *site,
                                outcome: BranchOutcome::Case(Some(i)),
                            });
                        }
                    }
                    if hit.is_some() {
                        out.push(Decision {
                            site: *site,
                            outcome: BranchOutcome::Case(None),
                        });
                    }
                    stack.push(hit.map_or(default.block, |i| cases[i].target.block));
                }
                None => stack.extend(f.blocks[b].term.targets().iter().map(|t| t.block)),
            },
            other => stack.extend(other.targets().iter().map(|t| t.block)),
        }
    }
    for (b, block) in f.blocks.iter() {
        if reachable[b.index()] {
            continue;
        }
        match &block.term {
            Terminator::Br { site, .. } => out.extend([true, false].map(|t| Decision {
                site: *site,
                outcome: BranchOutcome::Cond(t),
            })),
            Terminator::Switch { site, cases, .. } => {
                out.extend((0..cases.len() as u32).map(|i| Decision {
                    site: *site,
                    outcome: BranchOutcome::Case(Some(i)),
                }));
                out.push(Decision {
                    site: *site,
                    outcome: BranchOutcome::Case(None),
                });
            }
            _ => {}
        }
    }
    let key = |d: &Decision| {
        let rank = match d.outcome {
            BranchOutcome::Cond(b) => i64::from(b),
            BranchOutcome::Case(None) => -1,
            BranchOutcome::Case(Some(i)) => i64::from(i) + 2,
        };
        (d.site, rank)
    };
    out.sort_by_key(key);
    out.dedup();
    out
}
