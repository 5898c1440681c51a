//! The sides a coverage run includes, numbered densely, and saturation (CoverMe, Fu & Su,
//! PLDI'17, Sec. 3).
//!
//! The sides of the included sites ([`fpir::Side`]: then and else of a conditional
//! branch, each case and the default of a switch) get dense indices, site by site. A side
//! is *saturated* when it is covered and so is every side reachable from its target block
//! in the function's control-flow graph (transitively, loops included). Reachability is
//! intra-procedural and computed once; saturation is recomputed after new coverage.
//!
//! Some sides are provably never taken, without any search ([`SideTable::infeasible`],
//! from [`fpir::analysis::constants`]): the untaken sides of a branch on a constant
//! (musl's `isnan` macro tests `sizeof(x) == sizeof(float)`, which clang leaves as
//! `br i1 false` at `-O0`), switch values the scrutinee cannot have, and every side of a
//! branch in a block that no path from the function's entry reaches once such constant
//! branches are followed only the way they go.

use fpir::analysis::{infeasible_sides, Cfg};
use fpir::{Arm, BranchSite, Func, InfeasibleMethod, Module, Side};
use std::collections::HashMap;

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
    /// Numbers the sides of the sites a run of `entry` tracks ([`Module::tracked_sites`]:
    /// those of `funcs` and the trap guards of every function `entry` reaches), and
    /// computes reachability.
    pub fn new(module: &Module, entry: Func, funcs: &[Func]) -> SideTable {
        let mut sides = Vec::new();
        let mut first = vec![None; module.branch_sites.len()];
        for site in module.tracked_sites(entry, funcs) {
            first[site.0 as usize] = Some(sides.len() as u32);
            sides.extend(module.sides_of(site));
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
        module.sides_of(site).count() as u32
    }

    /// The index of an included side.
    pub fn index_of(&self, side: Side) -> Option<u32> {
        let first = self.first_side(side.site)?;
        let offset = match side.arm {
            Arm::True => 0,
            Arm::False => 1,
            Arm::Case(i) => i,
            Arm::Default => {
                let arity = (first..)
                    .take_while(|&t| {
                        self.sides
                            .get(t as usize)
                            .is_some_and(|s| s.site == side.site)
                    })
                    .count() as u32;
                arity.checked_sub(1)?
            }
        };
        let index = first + offset;
        (self.sides.get(index as usize) == Some(&side)).then_some(index)
    }

    /// The other sides of the branch side `side` belongs to.
    pub fn siblings(&self, side: u32) -> impl Iterator<Item = u32> + '_ {
        let site = self.sides[side as usize].site;
        let first = self.first_side(site).unwrap_or(side);
        (first..)
            .take_while(move |&t| self.sides.get(t as usize).is_some_and(|s| s.site == site))
            .filter(move |&t| t != side)
    }

    /// For each side, why it can never be taken, if constant conditions show it (see the
    /// module docs).
    pub fn infeasible(&self, module: &Module) -> Vec<Option<InfeasibleMethod>> {
        let mut funcs: Vec<Func> = self
            .sides
            .iter()
            .map(|s| module.branch_sites[s.site].func)
            .collect();
        funcs.sort_unstable();
        funcs.dedup();
        let dead: HashMap<Side, InfeasibleMethod> = funcs
            .into_iter()
            .flat_map(|f| infeasible_sides(module, f))
            .collect();
        self.sides.iter().map(|s| dead.get(s).copied()).collect()
    }

    /// Recomputes saturation from coverage: `saturated[s]` iff `s` and every side
    /// reachable from it are covered.
    pub fn saturate(&self, covered: &[bool], saturated: &mut [bool]) {
        for (s, sat) in saturated.iter_mut().enumerate() {
            *sat = covered[s] && self.reach[s].iter().all(|&t| covered[t as usize]);
        }
    }

    fn compute_reach(&self, module: &Module) -> Vec<Vec<u32>> {
        let mut cfgs: HashMap<Func, Cfg> = HashMap::new();
        let mut reach = vec![Vec::new(); self.sides.len()];
        for (s, &side) in self.sides.iter().enumerate() {
            let func = module.branch_sites[side.site].func;
            let Some(target) = module.side_target(side) else {
                continue;
            };
            let cfg = cfgs
                .entry(func)
                .or_insert_with(|| Cfg::new(&module.funcs[func]));
            let blocks = cfg.reachable_from(target);
            for (site, data) in module.branch_sites.iter() {
                let Some(first) = self.first_side(site) else {
                    continue;
                };
                if data.func == func && blocks[data.block.0 as usize] {
                    reach[s].extend(first..first + Self::arity(module, site));
                }
            }
        }
        reach
    }
}
