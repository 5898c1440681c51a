//! The representing function's observer (CoverMe, Fu & Su, PLDI'17, Sec. 3,
//! and its instrumentation in Sec. 4: `r = pen(...)` before each branch).
//!
//! [`Penalty`] keeps `r`, starting at 1. At each branch of an included site it looks at
//! the saturation of the site's sides, fixed for the duration of a run:
//!
//! - no side saturated: `r = 0` (the run reaches a branch with work left on both sides);
//! - some side unsaturated: `r` is the smallest branch distance to an unsaturated side
//!   (0 if the run takes one); for a two-way branch with one unsaturated side this is
//!   CoverMe's distance to that side;
//! - every side saturated: `r` is unchanged.
//!
//! The branch distance comes from the concrete operands of the comparison feeding the
//! branch ([`crate::distance`]); a branch without a known comparison is 1 away from a
//! side it does not take. It also records which sides the run took, and, when given a
//! target side, the smallest distance to taking it over all executions of its branch
//! (the objective of targeted searches, [`crate::engine`]), and whether that distance was
//! still shrinking at the branch's last execution (a loop counting towards an iteration
//! cap, which a run out of fuel may reach given more); given a [`Goal`] (an operand
//! relation at one comparison), the smallest distance to that relation holding. Every
//! side taken also goes to its [`PairTracker`], which notes the run's new pairs of
//! consecutive sides ([`crate::pairs`]).

use crate::config::Metric;
use crate::distance::{distance, int_gap};
use crate::pairs::PairTracker;
use crate::sides::SideTable;
use fpforge_exec::{BranchEvent, Observer};
use fpir::{Arm, BranchKind, BranchSite, CmpPred, Comparison, Module, Terminator, Type};

/// An operand relation to reach at one branch: `lhs pred rhs` must hold at some
/// execution of the site's comparison (the boundary goals of [`crate::engine`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Goal {
    /// The branch site.
    pub site: BranchSite,
    /// The relation, as a predicate over the comparison's operands.
    pub pred: CmpPred,
}

/// What the observer needs to know about one included site.
#[derive(Clone, Debug)]
enum SiteShape {
    Cond {
        first: u32,
        cmp: Option<Comparison>,
    },
    Switch {
        first: u32,
        ty: Type,
        cases: Vec<u64>,
    },
}

/// Per-site shapes, built once per module and entry function.
#[derive(Clone, Debug)]
pub struct SiteShapes {
    shapes: Vec<Option<SiteShape>>,
}

impl SiteShapes {
    /// The shapes of the sites `table` includes.
    pub fn new(module: &Module, table: &SideTable) -> SiteShapes {
        let shapes = module
            .branch_sites
            .iter()
            .map(|(site, data)| {
                let first = table.first_side(site)?;
                Some(match data.kind {
                    BranchKind::Cond | BranchKind::Trap(_) => SiteShape::Cond {
                        first,
                        cmp: data.cmp,
                    },
                    BranchKind::Switch { .. } => {
                        let term = &module.funcs[data.func].blocks[data.block].term;
                        let (ty, cases) = match term {
                            Terminator::Switch { ty, cases, .. } => {
                                (*ty, cases.iter().map(|c| c.value).collect())
                            }
                            _ => (Type::I64, Vec::new()),
                        };
                        SiteShape::Switch { first, ty, cases }
                    }
                })
            })
            .collect();
        SiteShapes { shapes }
    }
}

/// The observer computing `FOO_R`: the penalty `r` and the sides a run took.
#[derive(Clone, Debug)]
pub struct Penalty<'a> {
    shapes: &'a SiteShapes,
    metric: Metric,
    /// Saturation of every side, as of the start of the run.
    pub saturated: Vec<bool>,
    /// The penalty.
    pub r: f64,
    /// Sides taken in this run, each once, in first-taken order.
    pub hits: Vec<u32>,
    /// How many of them were unsaturated (the run's depth into unfinished code).
    pub open_hits: u32,
    /// A side to aim at, besides computing `r`.
    pub target: Option<u32>,
    /// An operand relation to aim at (instead of a side), besides computing `r`.
    pub goal: Option<Goal>,
    /// The smallest distance to the target side over the run's events (infinite when
    /// its branch was not reached).
    pub target_distance: f64,
    /// Whether the distance to the target side at the last execution of its branch was
    /// below the one at the execution before it: the run was closing in on the target.
    pub target_closing: bool,
    /// The distance to the target side at the last execution of its branch so far.
    target_last: Option<f64>,
    /// When set, the smallest distance to every side over the run's events, as
    /// `target_distance` is to the target (one run measures them all).
    pub survey: Option<Vec<f64>>,
    /// The run's pairs of consecutive sides.
    pub pairs: PairTracker,
    stamp: Vec<u32>,
    generation: u32,
}

impl<'a> Penalty<'a> {
    /// An observer over `sides` sides, none saturated, noting pairs in `pairs`.
    pub fn new(
        shapes: &'a SiteShapes,
        sides: usize,
        metric: Metric,
        pairs: PairTracker,
    ) -> Penalty<'a> {
        Penalty {
            shapes,
            metric,
            saturated: vec![false; sides],
            r: 1.0,
            hits: Vec::new(),
            open_hits: 0,
            target: None,
            goal: None,
            target_distance: f64::INFINITY,
            target_closing: false,
            target_last: None,
            survey: None,
            pairs,
            stamp: vec![0; sides],
            generation: 1,
        }
    }

    /// Resets `r` to 1 and forgets the sides taken, before a run.
    pub fn begin(&mut self) {
        self.r = 1.0;
        self.hits.clear();
        self.open_hits = 0;
        self.target_distance = f64::INFINITY;
        self.target_closing = false;
        self.target_last = None;
        if let Some(survey) = &mut self.survey {
            survey.fill(f64::INFINITY);
        }
        self.pairs.begin();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
    }

    fn hit(&mut self, side: u32) {
        self.pairs.step(side);
        let stamp = &mut self.stamp[side as usize];
        if *stamp != self.generation {
            *stamp = self.generation;
            self.hits.push(side);
            self.open_hits += u32::from(!self.saturated[side as usize]);
        }
    }

    fn cond(&mut self, first: u32, cmp: Option<Comparison>, ev: &BranchEvent, taken: bool) {
        let want_then = !self.saturated[first as usize];
        let want_else = !self.saturated[first as usize + 1];
        match (want_then, want_else) {
            (true, true) => self.r = 0.0,
            (false, false) => {}
            (then, _) => self.r = cond_distance(cmp, ev, taken, then, self.metric),
        }
    }

    fn switch(&mut self, first: u32, ty: Type, cases: &[u64], ev: &BranchEvent, taken: u32) {
        let n = cases.len() as u32 + 1;
        let best = (0..n)
            .filter(|&k| !self.saturated[(first + k) as usize])
            .map(|k| case_distance(ty, cases, ev, taken, k))
            .min_by(f64::total_cmp);
        if let Some(d) = best {
            self.r = d;
        }
    }

    /// Lowers [`Penalty::target_distance`] by this event's distance to the target side
    /// (noting whether it shrank since the branch's last execution), and the survey's
    /// distances (if any) to the site's `sides` sides from `first`.
    fn aim(&mut self, first: u32, sides: u32, distance: impl Fn(u32) -> f64) {
        if let Some(k) = self
            .target
            .and_then(|target| target.checked_sub(first))
            .filter(|&k| k < sides)
        {
            let d = distance(k);
            self.target_closing = self.target_last.is_some_and(|last| d < last);
            self.target_last = Some(d);
            self.target_distance = self.target_distance.min(d);
        }
        if let Some(survey) = &mut self.survey {
            for k in 0..sides {
                let slot = &mut survey[(first + k) as usize];
                *slot = slot.min(distance(k));
            }
        }
    }
}

/// Distance from a conditional branch's event to taking its then side (`then`) or its
/// else side: 0 when taken, the comparison's branch distance otherwise (1 without one).
fn cond_distance(
    cmp: Option<Comparison>,
    ev: &BranchEvent,
    taken: bool,
    then: bool,
    metric: Metric,
) -> f64 {
    if then == taken {
        return 0.0;
    }
    match (cmp, ev.operands) {
        (Some(c), Some([a, b])) => distance(c.pred, c.ty, a, b, then != c.negated, metric),
        _ => 1.0,
    }
}

/// Distance from a switch event (which took side `taken`) to taking side `k`: the gap
/// between scrutinee and case value, or 1 for the default.
fn case_distance(ty: Type, cases: &[u64], ev: &BranchEvent, taken: u32, k: u32) -> f64 {
    if k == taken {
        return 0.0;
    }
    match (cases.get(k as usize), ev.operands) {
        (Some(case), Some([v, _])) => int_gap(ty, v, *case),
        _ => 1.0,
    }
}

impl Observer for Penalty<'_> {
    fn on_branch(&mut self, ev: &BranchEvent) {
        let shapes = self.shapes;
        let site = ev.side.site;
        let Some(Some(shape)) = shapes.shapes.get(site.0 as usize) else {
            return;
        };
        match (shape, ev.side.arm) {
            (SiteShape::Cond { first, cmp }, arm @ (Arm::True | Arm::False)) => {
                let taken = arm == Arm::True;
                if let (Some(goal), Some(c), Some([a, b])) = (self.goal, cmp, ev.operands) {
                    if goal.site == site {
                        let d = distance(goal.pred, c.ty, a, b, true, self.metric);
                        self.target_distance = self.target_distance.min(d);
                    }
                }
                self.hit(first + u32::from(!taken));
                self.cond(*first, *cmp, ev, taken);
                let metric = self.metric;
                self.aim(*first, 2, |k| {
                    cond_distance(*cmp, ev, taken, k == 0, metric)
                });
            }
            (SiteShape::Switch { first, ty, cases }, arm @ (Arm::Case(_) | Arm::Default)) => {
                let taken = match arm {
                    Arm::Case(i) => i,
                    _ => cases.len() as u32,
                };
                if taken as usize <= cases.len() {
                    self.hit(first + taken);
                    self.switch(*first, *ty, cases, ev, taken);
                    self.aim(*first, cases.len() as u32 + 1, |k| {
                        case_distance(*ty, cases, ev, taken, k)
                    });
                }
            }
            _ => {}
        }
    }
}
