//! What a coverage run found: per included side its status, the tests, and the run's
//! statistics (the files written from it are `fpforge-report`'s).
//!
//! A side is [`SideStatus::Covered`] only when the re-execution of its witness test took
//! it. A side never covered is [`SideStatus::NotReached`] (search proves nothing about
//! feasibility; [`fpir::MissReason`] says what it knows), unless a complete method (constant
//! conditions, switch values, or the prover's) shows it [`SideStatus::Infeasible`].

use fpforge_engine::Stop;
use fpforge_exec::Finding;
use fpforge_spec::plan::{InputPlan, Test};
use fpir::{Func, Side, SideReport, SideStatus, SideTally};
use std::time::Duration;

/// The result of [`crate::cover`].
#[derive(Clone, Debug)]
pub struct CoverReport {
    /// The entry function.
    pub func: Func,
    /// Every included side, site by site.
    pub sides: Vec<SideReport>,
    /// The tests, in the order they were found.
    pub tests: Vec<Test>,
    /// The inputs on which the function crashes or hangs, one per fault, in the order
    /// they were found.
    pub findings: Vec<Finding>,
    /// Evaluations of the representing function.
    pub evals: u64,
    /// Starting points searched.
    pub starts: u32,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Why the run ended.
    pub stop: Stop,
    /// The inputs' plan: how the tests' coordinates become arguments and text.
    pub plan: InputPlan,
}

impl CoverReport {
    /// How many sides are covered, proved infeasible, and neither.
    pub fn tally(&self) -> SideTally {
        SideTally::of(&self.sides)
    }

    /// The status of `side`, if it is included.
    pub fn status(&self, side: Side) -> Option<SideStatus> {
        self.sides.iter().find(|s| s.side == side).map(|s| s.status)
    }
}

fpforge_engine::ended_by_fields!(CoverReport);
