//! Branch sides, the sites a run includes, and saturation (CoverMe, Fu & Su, PLDI'17,
//! Sec. 3).
//!
//! A conditional branch has two sides (then, else); a switch has one side per case plus
//! the default. Sides are numbered densely over the included sites. A side is *saturated*
//! when it is covered and so is every side reachable from its target block in the
//! function's control-flow graph (transitively, loops included). Reachability is
//! intra-procedural and computed once; saturation is recomputed after new coverage.
//!
//! Some sides are provably never taken, without any search ([`SideTable::infeasible`]):
//! the untaken sides of a branch on a constant (musl's `isnan` macro tests
//! `sizeof(x) == sizeof(float)`, which clang leaves as `br i1 false` at `-O0`), and every
//! side of a branch in a block that no path from the function's entry reaches once such
//! constant branches are followed only the way they go.

use fpforge_exec::BranchOutcome;
use fpir::{Block, BranchKind, BranchSite, Func, Module, Terminator};
use std::fmt;

/// Which way a branch goes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Arm {
    /// The condition held.
    Then,
    /// The condition did not hold.
    Else,
    /// Switch case number `i` (source order).
    Case(u32),
    /// The switch's default.
    Default,
}

impl fmt::Display for Arm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arm::Then => f.write_str("T"),
            Arm::Else => f.write_str("F"),
            Arm::Case(i) => write!(f, "case#{i}"),
            Arm::Default => f.write_str("default"),
        }
    }
}

/// Why a side can never be taken (a complete argument, not a search's guess).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Infeasible {
    /// The branch's condition (or switch scrutinee) is a constant that selects another
    /// side.
    ConstantCondition,
    /// The branch is in a block that no path from the function's entry reaches when
    /// constant branches are followed only the way they go.
    DeadCode,
    /// A switch side whose value the scrutinee cannot have: its possible bits (from
    /// `and` with constants, `or`, shifts by constants, `zext`, `trunc`) exclude the
    /// case, or every value they allow has a case so the default is never taken
    /// (`switch (n & 3)` with cases 0 to 3).
    ImpossibleValue,
    /// A [`crate::SideProver`]'s complete method (named) showed that no input takes it.
    Proved(&'static str),
}

impl Infeasible {
    /// The label of the side's status in reports.
    pub fn label(self) -> &'static str {
        match self {
            Infeasible::ConstantCondition => "infeasible (constant condition)",
            Infeasible::DeadCode => "infeasible (dead code)",
            Infeasible::ImpossibleValue => "infeasible (impossible switch value)",
            Infeasible::Proved(_) => "infeasible (proved)",
        }
    }
}

/// One side of a branch site.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Side {
    /// The site.
    pub site: BranchSite,
    /// The side.
    pub arm: Arm,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.site, self.arm)
    }
}

/// The included sites, their sides and the sides reachable from each side.
#[derive(Clone, Debug)]
pub struct SideTable {
    /// Every included side, site by site (then/else, or cases then default).
    pub sides: Vec<Side>,
    /// For each branch site of the module: index of its first side, if included.
    first: Vec<Option<u32>>,
    /// For each side: the sides reachable from its target block (itself included when
    /// it lies on a cycle).
    reach: Vec<Vec<u32>>,
}

impl SideTable {
    /// Numbers the sides of the sites in `funcs` and computes reachability.
    pub fn new(module: &Module, funcs: &[Func]) -> SideTable {
        let mut sides = Vec::new();
        let mut first = vec![None; module.branch_sites.len()];
        for (site, data) in module.branch_sites.iter() {
            if !funcs.contains(&data.func) {
                continue;
            }
            first[site.0 as usize] = Some(sides.len() as u32);
            match data.kind {
                BranchKind::Cond => {
                    sides.push(Side {
                        site,
                        arm: Arm::Then,
                    });
                    sides.push(Side {
                        site,
                        arm: Arm::Else,
                    });
                }
                BranchKind::Switch { cases } => {
                    sides.extend((0..cases).map(|i| Side {
                        site,
                        arm: Arm::Case(i),
                    }));
                    sides.push(Side {
                        site,
                        arm: Arm::Default,
                    });
                }
            }
        }
        let mut table = SideTable {
            sides,
            first,
            reach: Vec::new(),
        };
        table.reach = table.compute_reach(module);
        table
    }

    /// Number of included sides.
    pub fn len(&self) -> usize {
        self.sides.len()
    }

    /// True when no site is included.
    pub fn is_empty(&self) -> bool {
        self.sides.is_empty()
    }

    /// Index of the first side of `site`, if it is included.
    pub fn first_side(&self, site: BranchSite) -> Option<u32> {
        self.first.get(site.0 as usize).copied().flatten()
    }

    /// Number of sides of `site` (whether included or not).
    pub fn arity(module: &Module, site: BranchSite) -> u32 {
        match module.branch_sites[site].kind {
            BranchKind::Cond => 2,
            BranchKind::Switch { cases } => cases + 1,
        }
    }

    /// The side index an outcome of an included site stands for.
    pub fn side_of(
        &self,
        module: &Module,
        site: BranchSite,
        outcome: BranchOutcome,
    ) -> Option<u32> {
        let first = self.first_side(site)?;
        let arity = Self::arity(module, site);
        let offset = match outcome {
            BranchOutcome::Cond(true) => 0,
            BranchOutcome::Cond(false) => 1,
            BranchOutcome::Case(Some(i)) => i,
            BranchOutcome::Case(None) => arity - 1,
        };
        (offset < arity).then_some(first + offset)
    }

    /// The other sides of the branch side `side` belongs to.
    pub fn siblings(&self, side: u32) -> impl Iterator<Item = u32> + '_ {
        let site = self.sides[side as usize].site;
        let first = self.first_side(site).unwrap_or(side);
        (first..)
            .take_while(move |&t| self.sides.get(t as usize).is_some_and(|s| s.site == site))
            .filter(move |&t| t != side)
    }

    /// For each side, why it can never be taken, if that follows from constant branch
    /// conditions (see the module docs).
    pub fn infeasible(&self, module: &Module) -> Vec<Option<Infeasible>> {
        let mut live: std::collections::HashMap<Func, Vec<bool>> = std::collections::HashMap::new();
        let mut out = vec![None; self.sides.len()];
        for (s, side) in self.sides.iter().enumerate() {
            let data = &module.branch_sites[side.site];
            let func = &module.funcs[data.func];
            let reached = live.entry(data.func).or_insert_with(|| live_blocks(func));
            if !reached[data.block.0 as usize] {
                out[s] = Some(Infeasible::DeadCode);
                continue;
            }
            let term = &func.blocks[data.block].term;
            if constant_arm(func, term).is_some_and(|arm| arm != side.arm) {
                out[s] = Some(Infeasible::ConstantCondition);
            } else if impossible_switch_side(func, term, side.arm) {
                out[s] = Some(Infeasible::ImpossibleValue);
            }
        }
        out
    }

    /// Recomputes saturation from coverage: `saturated[s]` iff `s` and every side
    /// reachable from it are covered.
    pub fn saturate(&self, covered: &[bool], saturated: &mut [bool]) {
        for (s, sat) in saturated.iter_mut().enumerate() {
            *sat = covered[s] && self.reach[s].iter().all(|&t| covered[t as usize]);
        }
    }

    fn compute_reach(&self, module: &Module) -> Vec<Vec<u32>> {
        let mut reach = vec![Vec::new(); self.sides.len()];
        let mut site_at_block: Vec<(Func, Block, BranchSite)> = Vec::new();
        for (site, data) in module.branch_sites.iter() {
            if self.first_side(site).is_some() {
                site_at_block.push((data.func, data.block, site));
            }
        }
        for (s, side) in self.sides.iter().enumerate() {
            let data = &module.branch_sites[side.site];
            let func = &module.funcs[data.func];
            let target = side_target(&func.blocks[data.block].term, side.arm);
            let Some(target) = target else { continue };
            let blocks = reachable_blocks(func, target);
            for &(f, b, site) in &site_at_block {
                if f == data.func && blocks[b.0 as usize] {
                    let first = self.first_side(site).unwrap_or(0);
                    reach[s].extend(first..first + Self::arity(module, site));
                }
            }
        }
        reach
    }
}

/// The block a side jumps to.
fn side_target(term: &Terminator, arm: Arm) -> Option<Block> {
    match (term, arm) {
        (Terminator::Br { then_to, .. }, Arm::Then) => Some(then_to.block),
        (Terminator::Br { else_to, .. }, Arm::Else) => Some(else_to.block),
        (Terminator::Switch { cases, .. }, Arm::Case(i)) => {
            cases.get(i as usize).map(|c| c.target.block)
        }
        (Terminator::Switch { default, .. }, Arm::Default) => Some(default.block),
        _ => None,
    }
}

/// Whether a switch can never take `arm` because of the scrutinee's possible bits.
fn impossible_switch_side(func: &fpir::Function, term: &Terminator, arm: Arm) -> bool {
    let Terminator::Switch { value, cases, .. } = term else {
        return false;
    };
    let mask = possible_bits(func, *value, 0);
    match arm {
        Arm::Case(i) => cases.get(i as usize).is_some_and(|c| c.value & !mask != 0),
        Arm::Default => {
            // Every value whose bits lie within `mask` (few enough to list) has a case.
            mask.count_ones() <= 8 && {
                let mut v = 0u64;
                loop {
                    if !cases.iter().any(|c| c.value == v) {
                        break false;
                    }
                    if v == mask {
                        break true;
                    }
                    v = (v.wrapping_sub(mask)) & mask;
                }
            }
        }
        Arm::Then | Arm::Else => false,
    }
}

/// The bits `reg` may have set: a sound over-approximation through `and`, `or`, `xor`,
/// shifts by constants, `zext` and `trunc`; every bit of its type otherwise.
fn possible_bits(func: &fpir::Function, reg: fpir::Reg, depth: u32) -> u64 {
    use fpir::{CastOp, InstKind, IntBinOp, Type};
    let width = match func.regs.get(reg) {
        Some(Type::Int(w)) => u32::from(*w).clamp(1, 64),
        _ => 64,
    };
    let all = u64::MAX >> (64 - width);
    if let Some(bits) = constant(func, reg) {
        return bits & all;
    }
    if depth > 16 {
        return all;
    }
    let def = func
        .blocks
        .values()
        .flat_map(|b| &b.insts)
        .find(|inst| inst.dest == Some(reg));
    let Some(def) = def else { return all };
    let bits = |r| possible_bits(func, r, depth + 1);
    let shift = |r| constant(func, r).filter(|&k| k < u64::from(width));
    let result = match &def.kind {
        InstKind::IntBin {
            op: IntBinOp::And,
            lhs,
            rhs,
            ..
        } => bits(*lhs) & bits(*rhs),
        InstKind::IntBin {
            op: IntBinOp::Or | IntBinOp::Xor,
            lhs,
            rhs,
            ..
        } => bits(*lhs) | bits(*rhs),
        InstKind::IntBin {
            op: IntBinOp::Lshr,
            lhs,
            rhs,
            ..
        } => match shift(*rhs) {
            Some(k) => bits(*lhs) >> k,
            None => all,
        },
        InstKind::IntBin {
            op: IntBinOp::Shl,
            lhs,
            rhs,
            ..
        } => match shift(*rhs) {
            Some(k) => bits(*lhs) << k,
            None => all,
        },
        InstKind::Cast {
            op: CastOp::Zext | CastOp::Trunc,
            arg,
            ..
        } => bits(*arg),
        _ => all,
    };
    result & all
}

/// The constant bits of `reg` in `func`, if it is a constant register.
fn constant(func: &fpir::Function, reg: fpir::Reg) -> Option<u64> {
    func.consts.iter().find_map(|(r, c)| match c {
        fpir::Const::Bits(b) if *r == reg => Some(*b),
        _ => None,
    })
}

/// The side a branch on a constant always takes.
fn constant_arm(func: &fpir::Function, term: &Terminator) -> Option<Arm> {
    match term {
        Terminator::Br { cond, .. } => {
            constant(func, *cond).map(|b| if b & 1 == 1 { Arm::Then } else { Arm::Else })
        }
        Terminator::Switch { value, cases, .. } => {
            let v = constant(func, *value)?;
            Some(
                cases
                    .iter()
                    .position(|c| c.value == v)
                    .map_or(Arm::Default, |i| Arm::Case(i as u32)),
            )
        }
        _ => None,
    }
}

/// The block a branch on a constant always goes to.
fn constant_target(func: &fpir::Function, term: &Terminator) -> Option<Block> {
    side_target(term, constant_arm(func, term)?)
}

/// Blocks reachable from the entry when branches on constants go only their way.
fn live_blocks(func: &fpir::Function) -> Vec<bool> {
    let mut seen = vec![false; func.blocks.len()];
    let mut stack = vec![fpir::Function::ENTRY];
    while let Some(b) = stack.pop() {
        let Some(data) = func.blocks.get(b) else {
            continue;
        };
        if std::mem::replace(&mut seen[b.0 as usize], true) {
            continue;
        }
        match constant_target(func, &data.term) {
            Some(only) => stack.push(only),
            None => stack.extend(data.term.targets().iter().map(|t| t.block)),
        }
    }
    seen
}

/// Blocks reachable from `from` (inclusive).
fn reachable_blocks(func: &fpir::Function, from: Block) -> Vec<bool> {
    let mut seen = vec![false; func.blocks.len()];
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        let Some(data) = func.blocks.get(b) else {
            continue;
        };
        if std::mem::replace(&mut seen[b.0 as usize], true) {
            continue;
        }
        stack.extend(data.term.targets().iter().map(|t| t.block));
    }
    seen
}
