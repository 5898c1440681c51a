//! Branch sides no input can take, found without running: conditions computed from
//! constants only, switch values the scrutinee cannot have, and sites in blocks that only
//! such branches lead to.
//!
//! C code compiled at `-O0` keeps branches on constants: musl's `isfinite(x)` is
//! `sizeof(x) == sizeof(float) ? ... : sizeof(x) == sizeof(double) ? ...`, which becomes
//! `br true/false` and comparisons of constants. Folding visits the blocks in reverse
//! postorder (definitions before uses) and computes every integer and float operation,
//! comparison, select and cast whose operands are all constants with [`crate::eval`], so
//! folding agrees with execution; block parameters and loads are never constant, nor is
//! anything that involves an address. Reachability then follows only the edges a constant
//! condition allows. A side is infeasible when its site is live and its condition is a
//! constant that selects another side, when its switch value is impossible, or when its
//! site is not live: no call of the function, from any caller and on any input, takes it.

use crate::analysis::cfg::Cfg;
use crate::entities::{Block, EntityId, Func, Reg};
use crate::eval;
use crate::inst::{CastOp, InstKind, IntBinOp, Terminator};
use crate::module::{Const, Function, Module};
use crate::side::{Arm, InfeasibleMethod, Side};
use crate::types::Type;
use std::collections::HashMap;

/// Depth of the definition chains [`ConstantFacts::possible_bits`] follows.
const MAX_BITS_DEPTH: u32 = 16;

/// What is constant in one function: folded register values and the blocks live when
/// branches on constants go only their way.
#[derive(Clone, Debug)]
pub struct ConstantFacts<'f> {
    func: &'f Function,
    values: HashMap<Reg, u64>,
    defs: HashMap<Reg, &'f InstKind>,
    live: Vec<bool>,
}

impl<'f> ConstantFacts<'f> {
    /// Folds `func`'s constants and computes its live blocks.
    pub fn new(func: &'f Function) -> Self {
        let cfg = Cfg::new(func);
        let mut facts = ConstantFacts {
            func,
            values: func
                .consts
                .iter()
                .filter_map(|(r, c)| match c {
                    Const::Bits(b) => Some((*r, *b)),
                    Const::Addr(..) => None,
                })
                .collect(),
            defs: HashMap::new(),
            live: Vec::new(),
        };
        for b in cfg.reverse_postorder() {
            for inst in &func.blocks[b].insts {
                let Some(dest) = inst.dest else { continue };
                facts.defs.insert(dest, &inst.kind);
                if let Some(v) = facts.fold(&inst.kind) {
                    facts.values.insert(dest, v);
                }
            }
        }
        facts.live = cfg.reachable_with(&[Function::ENTRY], |b| {
            let term = &func.blocks[b].term;
            match facts
                .constant_arm(term)
                .and_then(|arm| term.arm_target(arm))
            {
                Some(only) => vec![only],
                None => cfg.succs(b).to_vec(),
            }
        });
        facts
    }

    /// The constant value of `reg`, if it has one.
    pub fn value(&self, reg: Reg) -> Option<u64> {
        self.values.get(&reg).copied()
    }

    /// True when some path from the entry reaches `block` with branches on constants
    /// going only their way.
    pub fn is_live(&self, block: Block) -> bool {
        self.live.get(block.index()).copied().unwrap_or(false)
    }

    /// The arm a branch or switch on a constant always takes.
    pub fn constant_arm(&self, term: &Terminator) -> Option<Arm> {
        match term {
            Terminator::Br { cond, .. } => self.value(*cond).map(|c| Arm::cond(c & 1 != 0)),
            Terminator::Switch { value, cases, .. } => {
                let v = self.value(*value)?;
                let hit = cases.iter().position(|c| c.value == v);
                Some(Arm::case(hit.map(|i| i as u32)))
            }
            _ => None,
        }
    }

    fn fold(&self, kind: &InstKind) -> Option<u64> {
        let get = |r: &Reg| self.value(*r);
        match kind {
            InstKind::IntBin { op, ty, lhs, rhs } => {
                eval::int_bin(*op, *ty, get(lhs)?, get(rhs)?).ok()
            }
            InstKind::FloatBin {
                op, ty, lhs, rhs, ..
            } => eval::float_bin(*op, *ty, get(lhs)?, get(rhs)?),
            InstKind::Icmp { pred, ty, lhs, rhs } if *ty != Type::Ptr => {
                Some(u64::from(eval::icmp(*pred, *ty, get(lhs)?, get(rhs)?)))
            }
            InstKind::Fcmp { pred, ty, lhs, rhs } => {
                Some(u64::from(eval::fcmp(*pred, *ty, get(lhs)?, get(rhs)?)))
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => get(if get(cond)? & 1 != 0 {
                if_true
            } else {
                if_false
            }),
            InstKind::Cast { op, from, to, arg }
                if !matches!(op, CastOp::Ptrtoint | CastOp::Inttoptr) =>
            {
                Some(eval::cast(*op, *from, *to, get(arg)?))
            }
            _ => None,
        }
    }

    /// The bits `reg` may have set: a sound over-approximation through `and`, `or`,
    /// `xor`, shifts by constants, `zext` and `trunc`; every bit of its type otherwise.
    pub fn possible_bits(&self, reg: Reg) -> u64 {
        self.possible_bits_at(reg, 0)
    }

    fn possible_bits_at(&self, reg: Reg, depth: u32) -> u64 {
        let all = match self.func.regs.get(reg) {
            Some(ty @ Type::Int(_)) => ty.mask(),
            _ => u64::MAX,
        };
        if let Some(v) = self.value(reg) {
            return v & all;
        }
        let Some(def) = self.defs.get(&reg).filter(|_| depth <= MAX_BITS_DEPTH) else {
            return all;
        };
        let bits = |r: &Reg| self.possible_bits_at(*r, depth + 1);
        let width = u64::from(all.count_ones());
        let shift = |r: &Reg| self.value(*r).filter(|&k| k < width);
        let result = match def {
            InstKind::IntBin {
                op: IntBinOp::And,
                lhs,
                rhs,
                ..
            } => bits(lhs) & bits(rhs),
            InstKind::IntBin {
                op: IntBinOp::Or | IntBinOp::Xor,
                lhs,
                rhs,
                ..
            } => bits(lhs) | bits(rhs),
            InstKind::IntBin {
                op: IntBinOp::Lshr,
                lhs,
                rhs,
                ..
            } => shift(rhs).map_or(all, |k| bits(lhs) >> k),
            InstKind::IntBin {
                op: IntBinOp::Shl,
                lhs,
                rhs,
                ..
            } => shift(rhs).map_or(all, |k| bits(lhs) << k),
            InstKind::Cast {
                op: CastOp::Zext | CastOp::Trunc,
                arg,
                ..
            } => bits(arg),
            _ => all,
        };
        result & all
    }

    /// Whether a switch can never take `arm` because of the scrutinee's possible bits.
    fn impossible_switch_arm(&self, term: &Terminator, arm: Arm) -> bool {
        let Terminator::Switch { value, cases, .. } = term else {
            return false;
        };
        let mask = self.possible_bits(*value);
        match arm {
            Arm::Case(i) => cases.get(i as usize).is_some_and(|c| c.value & !mask != 0),
            // Every value whose bits lie within `mask` (few enough to list) has a case.
            Arm::Default => mask.count_ones() <= 8 && every_submask_is_a_case(mask, cases),
            Arm::True | Arm::False => false,
        }
    }
}

/// Whether every value whose set bits lie within `mask` is one of the cases.
fn every_submask_is_a_case(mask: u64, cases: &[crate::inst::SwitchCase]) -> bool {
    let mut v = 0u64;
    loop {
        if !cases.iter().any(|c| c.value == v) {
            return false;
        }
        if v == mask {
            return true;
        }
        v = v.wrapping_sub(mask) & mask;
    }
}

/// The sides of `func`'s branch sites that no call of `func` takes (see the module
/// docs), in site order and each site's side order.
pub fn infeasible_sides(module: &Module, func: Func) -> Vec<(Side, InfeasibleMethod)> {
    let Some(f) = module.funcs.get(func) else {
        return Vec::new();
    };
    let facts = ConstantFacts::new(f);
    let mut out = Vec::new();
    for (site, data) in module.branch_sites.iter().filter(|(_, d)| d.func == func) {
        let term = &f.blocks[data.block].term;
        let constant = facts.constant_arm(term);
        for side in module.sides_of(site) {
            let method = if !facts.is_live(data.block) {
                Some(InfeasibleMethod::DeadCode)
            } else if constant.is_some_and(|arm| arm != side.arm) {
                Some(InfeasibleMethod::ConstantCondition)
            } else if facts.impossible_switch_arm(term, side.arm) {
                Some(InfeasibleMethod::ImpossibleValue)
            } else {
                None
            };
            out.extend(method.map(|m| (side, m)));
        }
    }
    out
}
