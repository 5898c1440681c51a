//! What a coverage run found: per included side its location and status, the tests, and
//! the run's statistics; and the lcov tracefile of a report.
//!
//! A side is [`SideStatus::Covered`] only when the re-execution of its witness test took
//! it. A side never covered is [`SideStatus::NotReached`] (search proves nothing about
//! feasibility; [`fpir::MissReason`] says what it knows), unless a complete method (constant
//! conditions, switch values, or the prover's) shows it [`SideStatus::Infeasible`].

use fpforge_exec::plan::{InputPlan, Test};
use fpir::{Func, Module, Side, SideReport, SideStatus};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

/// Why a coverage run ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CoverStop {
    /// Every included side is covered.
    AllCovered,
    /// Every starting point was searched.
    StartsExhausted,
    /// The evaluation budget is spent.
    EvalLimit,
    /// The time limit passed.
    TimeLimit,
    /// The caller asked the run to stop ([`crate::CoverConfig::interrupt`]).
    Interrupted,
}

impl std::fmt::Display for CoverStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CoverStop::AllCovered => "all sides covered",
            CoverStop::StartsExhausted => "all starting points searched",
            CoverStop::EvalLimit => "evaluation limit",
            CoverStop::TimeLimit => "time limit",
            CoverStop::Interrupted => "interrupted",
        })
    }
}

/// The result of [`crate::cover`].
#[derive(Clone, Debug)]
pub struct CoverReport {
    /// The entry function.
    pub func: Func,
    /// Every included side, site by site.
    pub sides: Vec<SideReport>,
    /// The tests, in the order they were found.
    pub tests: Vec<Test>,
    /// Evaluations of the representing function.
    pub evals: u64,
    /// Starting points searched.
    pub starts: u32,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Why the run ended.
    pub stop: CoverStop,
    /// The inputs' plan: how the tests' coordinates become arguments and text.
    pub plan: InputPlan,
}

impl CoverReport {
    /// Number of covered sides.
    pub fn covered(&self) -> usize {
        self.sides.iter().filter(|s| s.status.is_covered()).count()
    }

    /// Number of sides proved infeasible.
    pub fn infeasible(&self) -> usize {
        self.sides
            .iter()
            .filter(|s| s.status.is_infeasible())
            .count()
    }

    /// The status of `side`, if it is included.
    pub fn status(&self, side: Side) -> Option<SideStatus> {
        self.sides.iter().find(|s| s.side == side).map(|s| s.status)
    }

    /// The report as an lcov tracefile (see [`lcov`]).
    pub fn lcov(&self, module: &Module) -> String {
        lcov(module, self.func, &self.sides)
    }
}

/// An lcov tracefile of `sides` of `func`: one record per source file with a `BRDA` line
/// per side (block = site id, branch = side number within the site, taken = 1 when
/// covered, 0 when another side of the site is, `-` when the site was never reached).
pub fn lcov(module: &Module, func: Func, sides: &[SideReport]) -> String {
    let mut files: BTreeMap<String, Vec<(u32, u32, u32, &str)>> = BTreeMap::new();
    let mut site_reached: BTreeMap<u32, bool> = BTreeMap::new();
    for s in sides {
        *site_reached.entry(s.side.site.0).or_default() |= s.status.is_covered();
    }
    let mut arm_index: BTreeMap<u32, u32> = BTreeMap::new();
    for s in sides {
        let site = s.side.site.0;
        let arm = arm_index.entry(site).or_default();
        let taken = match s.status {
            SideStatus::Covered { .. } => "1",
            SideStatus::NotReached { .. } | SideStatus::Infeasible { .. }
                if site_reached[&site] =>
            {
                "0"
            }
            SideStatus::NotReached { .. } | SideStatus::Infeasible { .. } => "-",
        };
        if let Some(loc) = module.branch_sites[s.side.site].loc {
            let file = module.files.get(loc.file).cloned().unwrap_or_default();
            files
                .entry(file)
                .or_default()
                .push((loc.line, site, *arm, taken));
        }
        *arm += 1;
    }
    let mut out = String::new();
    let name = module.funcs.get(func).map_or("", |f| f.name.as_str());
    let func_loc = module.funcs.get(func).and_then(|f| f.loc);
    for (file, rows) in &files {
        let _ = writeln!(out, "TN:\nSF:{file}");
        if let Some(loc) = func_loc.filter(|l| module.files.get(l.file) == Some(file)) {
            let _ = writeln!(out, "FN:{},{name}\nFNDA:1,{name}\nFNF:1\nFNH:1", loc.line);
        }
        for (line, site, arm, taken) in rows {
            let _ = writeln!(out, "BRDA:{line},{site},{arm},{taken}");
        }
        let hit = rows.iter().filter(|r| r.3 == "1").count();
        let _ = writeln!(out, "BRF:{}\nBRH:{hit}\nend_of_record", rows.len());
    }
    out
}
