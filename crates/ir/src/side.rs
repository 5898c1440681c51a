//! The vocabulary of branch coverage that every engine, command and report speaks: a
//! [`Side`] of a branch site, what is known about it ([`SideStatus`]), and how a side was
//! proved never taken ([`InfeasibleMethod`]).
//!
//! A conditional branch has two sides (`T`, `F`); a switch has one side per case and its
//! default. Sides are named `br3:T`, `br3:F`, `br7:case5` (the case's value, as the
//! source writes it) and `br7:default` by [`Module::side_name`] (a trap guard's, from
//! [`crate::guard`], `br9:trap` and `br9:safe`), and read back by
//! [`Module::parse_side`], which also takes a source position for the site
//! (`file.c:41:13:T`). Every side name a command prints is one `reach --branch` accepts.
//!
//! The types are data and say nothing of policy or wording: what effort makes a side
//! likely infeasible is the coverage engine's (`fpforge_cover::effort`), and the words
//! reports print for each are the report layer's (`fpforge_report::labels`).

use crate::entities::{Block, BranchSite, Func};
use crate::inst::Terminator;
use crate::inst::TrapCheck;
use crate::module::{BranchKind, Module};
use std::time::Duration;

/// Which way a branch site goes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Arm {
    /// A conditional branch's condition held (its `then` edge).
    True,
    /// A conditional branch's condition did not hold (its `else` edge).
    False,
    /// A switch's case number `i`, in source order (not the case's value).
    Case(u32),
    /// A switch's default.
    Default,
}

impl Arm {
    /// The arm of a conditional branch whose condition was `taken`.
    #[inline]
    pub fn cond(taken: bool) -> Arm {
        if taken {
            Arm::True
        } else {
            Arm::False
        }
    }

    /// The arm of a switch that took case `Some(i)` or the default.
    #[inline]
    pub fn case(index: Option<u32>) -> Arm {
        index.map_or(Arm::Default, Arm::Case)
    }
}

/// One side of a branch site.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Side {
    /// The branch or switch.
    pub site: BranchSite,
    /// Which way it goes.
    pub arm: Arm,
}

/// How a side was proved never taken: always a complete argument, never a search's guess.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum InfeasibleMethod {
    /// The branch's condition (or switch scrutinee) is computed from constants only and
    /// selects another side ([`crate::analysis::constants`]).
    ConstantCondition,
    /// The branch lies in a block that no path from the function's entry reaches when
    /// branches on constants are followed only the way they go.
    DeadCode,
    /// A switch side whose value the scrutinee cannot have: its possible bits exclude the
    /// case, or every value they allow has a case so the default is never taken.
    ImpossibleValue,
    /// Interval labeling exhausted the path condition (complete search).
    IntervalLabeling,
    /// The decision does not depend on the inputs along the only prefix that leads to it.
    ConstantDecision,
    /// Every input taking the prefix returns before the next decision.
    PathEnds,
    /// Exhaustive exploration: every path was enumerated, each alternative decided.
    ExhaustiveExploration,
    /// Every path prefix that can lead to the site was explored and each alternative
    /// toward the side decided unsat (exploration need not be complete elsewhere).
    PrefixExploration,
    /// A proof by concolic execution (exploration as in
    /// [`InfeasibleMethod::ExhaustiveExploration`] or
    /// [`InfeasibleMethod::PrefixExploration`], or `reach`'s exact path condition) that
    /// needs an `unsat` only the solver's bit-precise backend (floating point
    /// bit-blasted to SAT) gave.
    BitPrecise,
}

impl InfeasibleMethod {
    /// Every method, for schemas and tests.
    pub const ALL: [InfeasibleMethod; 9] = [
        InfeasibleMethod::ConstantCondition,
        InfeasibleMethod::DeadCode,
        InfeasibleMethod::ImpossibleValue,
        InfeasibleMethod::IntervalLabeling,
        InfeasibleMethod::ConstantDecision,
        InfeasibleMethod::PathEnds,
        InfeasibleMethod::ExhaustiveExploration,
        InfeasibleMethod::PrefixExploration,
        InfeasibleMethod::BitPrecise,
    ];
}

/// The test that came closest to taking a side no test took.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Closest {
    /// Index of the test in its report.
    pub test: usize,
    /// Its smallest branch distance to the side (in the run's metric).
    pub distance: f64,
}

/// What an engine knows about a side it did not take. Nothing here is a proof: even a
/// side whose branch was reached many times is only *likely* infeasible (CoverMe's
/// heuristic, Fu & Su, PLDI'17, Sec. 5), and only after a real effort to take it (what
/// counts as one is the coverage engine's policy, `fpforge_cover::effort`).
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct MissReason {
    /// Some test reaches the side's branch (and takes another side there).
    pub branch_reached: bool,
    /// The test that came closest, when the engine measures distances.
    pub closest: Option<Closest>,
    /// What was tried to take it.
    pub effort: Effort,
    /// Why the complete method that tried it neither took it nor proved it infeasible;
    /// `None` when none tried, or it gave no single reason.
    pub open: Option<OpenReason>,
}

/// Why a complete method (concolic execution with the solver behind it) left a side
/// open: what kept its path conditions from being exact or decided.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum OpenReason {
    /// A path to the side is longer than the exploration follows (a loop runs more
    /// iterations than the runs' fuel or the flip depth allow), so some paths to it
    /// were never seen.
    LoopBound,
    /// A math call on the way is neither an exact operator nor one the solver can
    /// abstract, so its result was concretized and the path condition is not exact.
    LibmCall,
    /// A query toward the side came back `unknown` within its time.
    TimeOut,
    /// Something else on the way has no term (an operation concretized, a trap that
    /// is not a branch, a model whose run left the expected path).
    Unsupported,
}

impl OpenReason {
    /// Every reason, for schemas and tests.
    pub const ALL: [OpenReason; 4] = [
        OpenReason::LoopBound,
        OpenReason::LibmCall,
        OpenReason::TimeOut,
        OpenReason::Unsupported,
    ];
}

/// What an engine spent on one side it did not take.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Effort {
    /// Searches aimed at the side (`cover`'s targeted starts).
    pub aimed_searches: u32,
    /// Evaluations of those searches.
    pub aimed_evaluations: u64,
    /// Time a complete method (concolic `reach`, the solver of `explore`) spent on the
    /// side without an answer; `None` when none was asked.
    pub proof_time: Option<Duration>,
}

/// The input whose re-executed run takes a side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Witness {
    /// Test number `i` of the report (a line of `inputs.txt`), which runs to its end.
    Test(usize),
    /// Finding number `i` of the report: an input that takes the side and then crashes or
    /// hangs. Kept out of the tests; the side is covered all the same.
    Finding(usize),
}

/// What is known about one side.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum SideStatus {
    /// Taken by the re-executed run of `witness`.
    Covered {
        /// The input that takes it.
        witness: Witness,
    },
    /// Proved never taken.
    Infeasible {
        /// The proof.
        method: InfeasibleMethod,
    },
    /// Taken by no input, and not proved infeasible.
    NotReached {
        /// What the engine knows.
        reason: MissReason,
    },
}

impl SideStatus {
    /// True when a test takes the side.
    pub fn is_covered(&self) -> bool {
        matches!(self, SideStatus::Covered { .. })
    }

    /// True when the side is proved never taken.
    pub fn is_infeasible(&self) -> bool {
        matches!(self, SideStatus::Infeasible { .. })
    }
}

/// One side and its status: a row of every engine's report.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct SideReport {
    /// The side.
    pub side: Side,
    /// What is known about it.
    pub status: SideStatus,
}

impl Terminator {
    /// The block the arm `arm` of this branch or switch jumps to, if it has that arm.
    pub fn arm_target(&self, arm: Arm) -> Option<Block> {
        match (self, arm) {
            (Terminator::Br { then_to, .. }, Arm::True) => Some(then_to.block),
            (Terminator::Br { else_to, .. }, Arm::False) => Some(else_to.block),
            (Terminator::Switch { cases, .. }, Arm::Case(i)) => {
                cases.get(i as usize).map(|c| c.target.block)
            }
            (Terminator::Switch { default, .. }, Arm::Default) => Some(default.block),
            _ => None,
        }
    }
}

/// How many sides are covered, proved infeasible, and neither.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SideTally {
    /// Sides a test takes.
    pub covered: usize,
    /// Sides proved never taken.
    pub infeasible: usize,
    /// The rest.
    pub not_reached: usize,
}

impl SideTally {
    /// Counts the statuses of `sides`.
    pub fn of(sides: &[SideReport]) -> SideTally {
        let mut tally = SideTally::default();
        for s in sides {
            match s.status {
                SideStatus::Covered { .. } => tally.covered += 1,
                SideStatus::Infeasible { .. } => tally.infeasible += 1,
                SideStatus::NotReached { .. } => tally.not_reached += 1,
            }
        }
        tally
    }
}

/// A side name that does not name a side of the module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad branch side `{text}`: {reason}")]
pub struct SideParseError {
    /// The text given.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

impl Module {
    /// The fault a trap guard site tests for; `None` for branches and switches.
    pub fn trap_check(&self, site: BranchSite) -> Option<TrapCheck> {
        match self.branch_sites.get(site)?.kind {
            BranchKind::Trap(check) => Some(check),
            BranchKind::Cond | BranchKind::Switch { .. } => None,
        }
    }

    /// Whether `side` is a trap target: the `trap` side of a guard ([`crate::guard`]).
    pub fn is_trap_target(&self, side: Side) -> bool {
        side.arm == Arm::True && self.trap_check(side.site).is_some()
    }

    /// Splits side reports into the program's own branch sides and the trap targets: the
    /// `trap` sides of guards ([`crate::guard`]). Guards' `safe` sides are in neither:
    /// they are the program's normal path, not a side of its code.
    pub fn split_trap_targets(&self, sides: &[SideReport]) -> (Vec<SideReport>, Vec<SideReport>) {
        let mut branches = Vec::new();
        let mut traps = Vec::new();
        for report in sides {
            if self.is_trap_target(report.side) {
                traps.push(*report);
            } else if self.trap_check(report.side.site).is_none() {
                branches.push(*report);
            }
        }
        (branches, traps)
    }

    /// The branch sites a run of `entry` tracks: the sites of `funcs` (the entry alone,
    /// or every function it reaches), and the trap guards of every function the entry
    /// reaches, since a fault in a callee is a fault of the call. In site order.
    pub fn tracked_sites(&self, entry: Func, funcs: &[Func]) -> Vec<BranchSite> {
        let reached = self.reachable_funcs(entry);
        self.branch_sites
            .iter()
            .filter(|(site, data)| {
                funcs.contains(&data.func)
                    || (self.trap_check(*site).is_some() && reached.contains(&data.func))
            })
            .map(|(site, _)| site)
            .collect()
    }

    /// The sides of `site`: `T` then `F`, or each case in source order then the default.
    pub fn sides_of(&self, site: BranchSite) -> impl Iterator<Item = Side> {
        let arms: Vec<Arm> = match self.branch_sites[site].kind {
            BranchKind::Cond | BranchKind::Trap(_) => vec![Arm::True, Arm::False],
            BranchKind::Switch { cases } => (0..cases)
                .map(Arm::Case)
                .chain(std::iter::once(Arm::Default))
                .collect(),
        };
        arms.into_iter().map(move |arm| Side { site, arm })
    }

    /// The block a side jumps to, if the site has that side.
    pub fn side_target(&self, side: Side) -> Option<Block> {
        let data = self.branch_sites.get(side.site)?;
        let term = &self.funcs.get(data.func)?.blocks.get(data.block)?.term;
        term.arm_target(side.arm)
    }

    /// The name of an arm of `site` after the colon: `T`, `F`, `case<value>`, `default`,
    /// and for a trap guard `trap` (its true side) and `safe`.
    pub fn arm_name(&self, site: BranchSite, arm: Arm) -> String {
        let guard = matches!(self.branch_sites[site].kind, BranchKind::Trap(_));
        match arm {
            Arm::True if guard => "trap".to_string(),
            Arm::False if guard => "safe".to_string(),
            Arm::True => "T".to_string(),
            Arm::False => "F".to_string(),
            Arm::Default => "default".to_string(),
            Arm::Case(i) => match self.switch_case(site, i) {
                Some(value) => format!("case{value}"),
                None => format!("case#{i}"),
            },
        }
    }

    /// The name of a side: `br3:T`, `br3:F`, `br7:case5`, `br7:default`.
    pub fn side_name(&self, side: Side) -> String {
        format!("{}:{}", side.site, self.arm_name(side.site, side.arm))
    }

    /// The value of case number `index` of the switch at `site`, signed as its type.
    fn switch_case(&self, site: BranchSite, index: u32) -> Option<i64> {
        let data = self.branch_sites.get(site)?;
        match &self.funcs.get(data.func)?.blocks.get(data.block)?.term {
            Terminator::Switch { ty, cases, .. } => {
                cases.get(index as usize).map(|c| ty.sign_extend(c.value))
            }
            _ => None,
        }
    }

    /// Reads a side name: a site (`br3`, or `FILE:LINE[:COL]` naming one branch site,
    /// where FILE is the file's name or a suffix of its path), a colon, and an arm (`T`,
    /// `F`, `default`, or `case` followed by a case value, optionally after a space).
    pub fn parse_side(&self, text: &str) -> Result<Side, SideParseError> {
        let bad = |reason: String| SideParseError {
            text: text.to_string(),
            reason,
        };
        let (site_text, arm_text) = text
            .trim()
            .rsplit_once(':')
            .ok_or_else(|| bad("expected SITE:SIDE".to_string()))?;
        let site = self.parse_site(site_text).map_err(bad)?;
        let arm = self.parse_arm(site, arm_text.trim()).map_err(bad)?;
        Ok(Side { site, arm })
    }

    fn parse_arm(&self, site: BranchSite, text: &str) -> Result<Arm, String> {
        match (self.branch_sites[site].kind, text) {
            (BranchKind::Trap(_), "trap") => Ok(Arm::True),
            (BranchKind::Trap(_), "safe") => Ok(Arm::False),
            (BranchKind::Trap(check), other) => Err(format!(
                "{site} is a trap guard ({}): side `{other}` must be trap or safe",
                check.label()
            )),
            (BranchKind::Cond, "T") => Ok(Arm::True),
            (BranchKind::Cond, "F") => Ok(Arm::False),
            (BranchKind::Cond, other) => Err(format!(
                "{site} is a conditional branch: side `{other}` must be T or F"
            )),
            (BranchKind::Switch { .. }, "default") => Ok(Arm::Default),
            (BranchKind::Switch { cases }, other) => {
                let value = other
                    .strip_prefix("case")
                    .and_then(|v| v.trim().parse::<i64>().ok())
                    .ok_or_else(|| {
                        format!(
                            "{site} is a switch: side `{other}` must be `default` or `case<value>`"
                        )
                    })?;
                (0..cases)
                    .find(|&i| self.switch_case(site, i) == Some(value))
                    .map(Arm::Case)
                    .ok_or_else(|| {
                        let values: Vec<String> = (0..cases)
                            .filter_map(|i| self.switch_case(site, i))
                            .map(|v| v.to_string())
                            .collect();
                        format!(
                            "{site} has no case {value} (its cases: {})",
                            values.join(", ")
                        )
                    })
            }
        }
    }

    /// `brN`, or `FILE:LINE[:COL]` naming exactly one branch site.
    pub fn parse_site(&self, text: &str) -> Result<BranchSite, String> {
        let text = text.trim();
        if let Some(n) = text
            .strip_prefix(BranchSite::PREFIX)
            .and_then(|n| n.parse::<u32>().ok())
        {
            let site = BranchSite(n);
            return match self.branch_sites.get(site) {
                Some(_) => Ok(site),
                None => Err(format!(
                    "no branch site {text} (the module has {})",
                    self.branch_sites.len()
                )),
            };
        }
        let parts: Vec<&str> = text.split(':').collect();
        let (file, line, col) = match parts.as_slice() {
            [file, line] => (*file, line.parse::<u32>().ok(), None),
            [file, line, col] => (*file, line.parse::<u32>().ok(), col.parse::<u32>().ok()),
            _ => return Err(format!("`{text}` is neither brN nor FILE:LINE[:COL]")),
        };
        let line = line.ok_or_else(|| format!("`{text}`: bad line number"))?;
        let hits: Vec<BranchSite> = self
            .branch_sites
            .iter()
            .filter(|(_, d)| {
                d.loc.is_some_and(|l| {
                    let name = self.files.get(l.file).map_or("", String::as_str);
                    (name == file || name.ends_with(&format!("/{file}")))
                        && l.line == line
                        && col.is_none_or(|c| c == l.col)
                })
            })
            .map(|(s, _)| s)
            .collect();
        match hits.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!("no branch site at {text}")),
            many => Err(format!(
                "{text} has several branch sites ({}): add the column or use a site id",
                many.iter()
                    .map(|s| format!("{s} at {}", self.describe_loc(self.branch_sites[*s].loc)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}
