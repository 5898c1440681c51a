//! `coverage.json` (schema 1) and the coverage summary: what `cover` and `explore` both
//! write, in one layout, for one function.
//!
//! ```json
//! {
//!   "schema": 1, "engine": "cover", "function": "classify",
//!   "finished": true, "stop": "all sides covered", "seconds": 0.12,
//!   "sides": 14, "covered": 12, "infeasible": 1, "not_reached": 1,
//!   "tests": 9, "test_seconds": [0.001, 0.002, ...],
//!   "stats": { "evaluations": 60000, "starts": 9 },
//!   "sites": [
//!     { "id": "br3", "location": "f.c:12:7", "kind": "cond",
//!       "sides": [
//!         { "side": "br3:T", "arm": "T", "status": "covered", "test": 0 },
//!         { "side": "br3:F", "arm": "F", "status": "infeasible",
//!           "method": "constant condition", "reason": "..." } ] } ]
//! }
//! ```
//!
//! `side` is the side's name, which `fpforge reach --branch` and `--path` accept; `test`
//! is the 0-based line of `inputs.txt` (found `test_seconds[test]` after the start, the
//! only figures that vary between runs with the same seed besides `seconds`); `status` is `covered`, `infeasible` (with the
//! `method` that proved it) or `not reached` (with `branch_reached` and, from `cover`,
//! the `closest` test). `stats` holds what the engine counts: `evaluations` and `starts`
//! for `cover`; `complete`, `paths`, `runs` and `queries` for `explore`. The full schema
//! is `docs/schema/coverage.schema.json`, documented in `docs/REPORTS.md`.
//!
//! The driver (`fpforge-driver`) keeps these files current while an engine runs.

use crate::error::ReportError;
use crate::findings::{count_kind, findings_summary, is_zero, CrashRow};
use crate::labels;
use crate::stop::stop_words;
use crate::SCHEMA_VERSION;
use fpforge_cover::{effort, CoverReport};
use fpforge_engine::EngineKind;
use fpforge_exec::FindingKind;
use fpforge_explore::ExploreReport;
use fpir::{
    BranchKind, Func, InfeasibleMethod, MissReason, Module, OpenReason, SideReport, SideStatus,
    SideTally, TrapCheck, Witness,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// Which engine produced a coverage report, with what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EngineStats {
    /// `fpforge cover`.
    Cover {
        /// Evaluations of the representing function.
        evaluations: u64,
        /// Starting points searched.
        starts: u32,
    },
    /// `fpforge explore`.
    Explore {
        /// Whether every feasible path was enumerated.
        complete: bool,
        /// Distinct paths run.
        paths: u64,
        /// Concolic runs.
        runs: u64,
        /// Solver queries.
        queries: QueryCounts,
    },
}

impl EngineStats {
    fn engine(&self) -> &'static str {
        match self {
            EngineStats::Cover { .. } => "cover",
            EngineStats::Explore { .. } => "explore",
        }
    }
}

/// Solver queries by answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct QueryCounts {
    /// Queries sent.
    pub total: u64,
    /// Answered sat.
    pub sat: u64,
    /// Answered unsat.
    pub unsat: u64,
    /// Answered unknown.
    pub unknown: u64,
}

/// How a run ended, once it has.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    /// Why it stopped, in words.
    pub stop: String,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// What the engine counted.
    pub stats: EngineStats,
}

impl Ending {
    /// The ending of a `cover` run.
    pub fn of_cover(report: &CoverReport) -> Ending {
        Ending {
            stop: stop_words(EngineKind::Cover, report.stop).to_string(),
            elapsed: report.elapsed,
            stats: EngineStats::Cover {
                evaluations: report.evals,
                starts: report.starts,
            },
        }
    }

    /// The ending of an `explore` run.
    pub fn of_explore(report: &ExploreReport) -> Ending {
        Ending {
            stop: stop_words(EngineKind::Explore, report.stop).to_string(),
            elapsed: report.elapsed,
            stats: EngineStats::Explore {
                complete: report.complete,
                paths: report.paths,
                runs: report.runs,
                queries: QueryCounts {
                    total: report.queries.queries,
                    sat: report.queries.sat,
                    unsat: report.queries.unsat,
                    unknown: report.queries.unknown,
                },
            },
        }
    }
}

/// One function's coverage: the sides with their status, the tests' times, and how the
/// run ended (`None` while it runs).
#[derive(Clone, Debug)]
pub struct Coverage<'a> {
    /// The program.
    pub module: &'a Module,
    /// The function whose sides these are.
    pub func: Func,
    /// Every included side and its status.
    pub sides: &'a [SideReport],
    /// The tests, as the lines of `inputs.txt`.
    pub inputs: &'a [String],
    /// When each test was found, from the start of the run.
    pub found_at: &'a [Duration],
    /// The crashes and hangs found.
    pub findings: &'a [CrashRow],
    /// The line saying that (nearly) every probe run traps at one place, when it does
    /// ([`crate::findings::every_run_traps`]).
    pub diagnostic: Option<&'a str>,
    /// How the run ended; `None` while it runs.
    pub ending: Option<&'a Ending>,
    /// The engine, while the run has not ended (then `ending` says it).
    pub engine: &'static str,
}

#[derive(Serialize)]
struct Closest {
    test: usize,
    distance: f64,
}

#[derive(Serialize)]
struct SideRow {
    side: String,
    arm: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    finding: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    branch_reached: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    likely_infeasible: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    closest: Option<Closest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    open_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct SiteRow {
    id: String,
    location: String,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<&'static str>,
    sides: Vec<SideRow>,
}

/// How the trap targets ended: reached (by a finding), proved unreachable, or neither.
#[derive(Serialize)]
pub(crate) struct TrapCounts {
    pub(crate) targets: usize,
    pub(crate) reached: usize,
    pub(crate) infeasible: usize,
    pub(crate) not_reached: usize,
}

impl TrapCounts {
    pub(crate) fn of(traps: &[SideReport]) -> TrapCounts {
        let tally = SideTally::of(traps);
        TrapCounts {
            targets: traps.len(),
            reached: tally.covered,
            infeasible: tally.infeasible,
            not_reached: tally.not_reached,
        }
    }
}

#[derive(Serialize)]
struct CoverageJson<'a> {
    schema: u32,
    engine: &'static str,
    function: &'a str,
    finished: bool,
    stop: Option<&'a str>,
    seconds: Option<f64>,
    sides: usize,
    covered: usize,
    infeasible: usize,
    not_reached: usize,
    tests: usize,
    test_seconds: Vec<f64>,
    traps: TrapCounts,
    crashes: usize,
    hangs: usize,
    #[serde(skip_serializing_if = "is_zero")]
    undefined: usize,
    findings: &'a [CrashRow],
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostic: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stats: Option<EngineStats>,
    sites: Vec<SiteRow>,
}

/// The status word of `coverage.json`.
pub(crate) fn status_word(status: &SideStatus) -> &'static str {
    match status {
        SideStatus::Covered { .. } => "covered",
        SideStatus::Infeasible { .. } => "infeasible",
        SideStatus::NotReached { .. } => "not reached",
    }
}

/// Why a side was proved never taken, in words.
pub fn infeasible_reason(method: InfeasibleMethod) -> &'static str {
    match method {
        InfeasibleMethod::ConstantCondition => {
            "the branch condition is a constant that selects another side"
        }
        InfeasibleMethod::DeadCode => {
            "no path from the function's entry reaches this branch (constant branches cut it off)"
        }
        InfeasibleMethod::ImpossibleValue => "the switch value's possible bits rule this side out",
        InfeasibleMethod::IntervalLabeling => {
            "concolic execution: interval labeling exhausted the path condition"
        }
        InfeasibleMethod::ConstantDecision => {
            "concolic execution: the decision does not depend on the inputs on the only prefix to it"
        }
        InfeasibleMethod::PathEnds => {
            "concolic execution: every input on the prefix returns before this decision"
        }
        InfeasibleMethod::ExhaustiveExploration => {
            "concolic execution enumerated every feasible path and none takes it"
        }
        InfeasibleMethod::PrefixExploration => {
            "concolic execution decided every path prefix that can lead to this branch"
        }
        InfeasibleMethod::BitPrecise => {
            "concolic execution decided the path conditions that lead to this side, some only by the bit-precise backend (floating point bit-blasted to SAT)"
        }
    }
}

/// Why concolic execution left a side open, in words.
pub fn open_reason(open: OpenReason) -> &'static str {
    match open {
        OpenReason::LoopBound => {
            "loop bound (a path to it runs longer than the exploration follows)"
        }
        OpenReason::LibmCall => {
            "libm call (a math function's result was concretized on the way)"
        }
        OpenReason::TimeOut => "time-out (a query toward it came back unknown)",
        OpenReason::Unsupported => {
            "unsupported operation (a value on the way has no solver term, or a model's run left the path)"
        }
    }
}

/// Why a side was not taken, in words.
pub fn miss_reason(miss: &MissReason, finished: bool) -> String {
    if !finished {
        return "the run is still going".to_string();
    }
    if !miss.branch_reached {
        return "no test reaches this branch".to_string();
    }
    let mut text = "tests reach this branch but none takes this side".to_string();
    if let Some(c) = miss.closest {
        text += &format!(
            "; the closest is test {} (branch distance {:e})",
            c.test, c.distance
        );
    }
    let tried = labels::effort(&miss.effort);
    text += &match (tried.is_empty(), effort::is_real(&miss.effort)) {
        (true, _) => "; nothing was aimed at it before the run ended".to_string(),
        (false, true) => format!("; {tried} found no input"),
        (false, false) => format!("; only {tried} before the run ended"),
    };
    if let Some(open) = miss.open {
        text += &format!("; concolic execution left it open: {}", open_reason(open));
    }
    text + "; a search cannot prove it infeasible"
}

/// The share of the sides that can be taken which some input takes, in percent:
/// `100 × covered / (sides − infeasible)`, and 100 when no side can be taken. Over the
/// program's own branch sides ([`Coverage::feasible_percent`]), what `--fail-under`
/// compares and the headline of `report.html`.
pub fn feasible_percent(tally: SideTally) -> f64 {
    let feasible = tally.covered + tally.not_reached;
    if feasible == 0 {
        100.0
    } else {
        100.0 * tally.covered as f64 / feasible as f64
    }
}

impl Coverage<'_> {
    /// The program's own branch sides and the trap targets (the `trap` sides of guards;
    /// their `safe` sides are in neither), as `coverage.json` counts them.
    pub fn split_sides(&self) -> (Vec<SideReport>, Vec<SideReport>) {
        self.module.split_trap_targets(self.sides)
    }

    /// The feasible coverage of the program's own branch sides, in percent
    /// ([`feasible_percent`]).
    pub fn feasible_percent(&self) -> f64 {
        feasible_percent(SideTally::of(&self.split_sides().0))
    }

    /// `cover` or `explore`.
    pub(crate) fn engine_name(&self) -> &'static str {
        self.ending.map_or(self.engine, |e| e.stats.engine())
    }

    /// A side's status as the summary prints it; a trap target names its fault.
    /// The status column of the text summary: the status, after a trap guard's check,
    /// and for a side concolic execution left open, why.
    fn status_text(&self, report: &SideReport) -> String {
        let status = match report.status {
            SideStatus::NotReached {
                reason: MissReason {
                    open: Some(open), ..
                },
            } if self.ending.is_some() => format!(
                "{}, open: {}",
                labels::status(&report.status),
                labels::open(open)
            ),
            _ => labels::status(&report.status),
        };
        match self.module.trap_check(report.side.site) {
            Some(check) => format!("{}: {status}", check.label()),
            None => status,
        }
    }

    pub(crate) fn count_findings(&self, kind: &str) -> usize {
        self.findings.iter().filter(|f| f.kind == kind).count()
    }

    fn side_row(&self, report: &SideReport) -> SideRow {
        let module = self.module;
        let side = report.side;
        let finished = self.ending.is_some();
        let mut row = SideRow {
            side: module.side_name(side),
            arm: module.arm_name(side.site, side.arm),
            status: status_word(&report.status),
            test: None,
            finding: None,
            method: None,
            branch_reached: None,
            likely_infeasible: None,
            closest: None,
            open_reason: None,
            reason: None,
        };
        match report.status {
            SideStatus::Covered {
                witness: Witness::Test(test),
            } => row.test = Some(test),
            SideStatus::Covered {
                witness: Witness::Finding(k),
            } => row.finding = Some(k),
            SideStatus::Infeasible { method } => {
                row.method = Some(labels::method(method));
                row.reason = Some(infeasible_reason(method).to_string());
            }
            SideStatus::NotReached { reason } => {
                row.branch_reached = finished.then_some(reason.branch_reached);
                row.likely_infeasible = finished.then_some(effort::likely_infeasible(&reason));
                row.closest = reason.closest.map(|c| Closest {
                    test: c.test,
                    distance: c.distance,
                });
                row.open_reason = finished.then_some(reason.open.map(labels::open)).flatten();
                row.reason = Some(miss_reason(&reason, finished));
            }
        }
        row
    }

    fn site_rows(&self) -> Vec<SiteRow> {
        let mut sites: Vec<SiteRow> = Vec::new();
        for report in self.sides {
            let site = report.side.site;
            let id = site.to_string();
            if sites.last().is_none_or(|s| s.id != id) {
                let data = &self.module.branch_sites[site];
                sites.push(SiteRow {
                    id,
                    location: self.module.describe_loc(data.loc),
                    kind: match data.kind {
                        BranchKind::Cond => "cond",
                        BranchKind::Switch { .. } => "switch",
                        BranchKind::Trap(_) => "trap",
                    },
                    check: self.module.trap_check(site).map(TrapCheck::name),
                    sides: Vec::new(),
                });
            }
            if let Some(row) = sites.last_mut() {
                row.sides.push(self.side_row(report));
            }
        }
        sites
    }

    /// `coverage.json` (schema 1, see the module docs).
    pub fn to_json(&self) -> Result<String, ReportError> {
        let (branches, traps) = self.split_sides();
        let tally = SideTally::of(&branches);
        let json = CoverageJson {
            schema: SCHEMA_VERSION,
            engine: self.engine_name(),
            function: self.module.funcs[self.func].display_name(),
            finished: self.ending.is_some(),
            stop: self.ending.map(|e| e.stop.as_str()),
            seconds: self.ending.map(|e| e.elapsed.as_secs_f64()),
            sides: branches.len(),
            covered: tally.covered,
            infeasible: tally.infeasible,
            not_reached: tally.not_reached,
            traps: TrapCounts::of(&traps),
            tests: self.inputs.len(),
            test_seconds: self.found_at.iter().map(Duration::as_secs_f64).collect(),
            crashes: count_kind(self.findings, FindingKind::Crash),
            hangs: count_kind(self.findings, FindingKind::Hang),
            undefined: count_kind(self.findings, FindingKind::Undefined),
            findings: self.findings,
            diagnostic: self.diagnostic,
            stats: self.ending.map(|e| e.stats),
            sites: self.site_rows(),
        };
        Ok(serde_json::to_string_pretty(&json)? + "\n")
    }

    /// The summary a command prints: the counts, how the run ended, and one line per
    /// side not covered.
    pub fn summary(&self) -> String {
        let mut text = String::new();
        let (branches, traps) = self.split_sides();
        let total = branches.len();
        let SideTally {
            covered,
            infeasible,
            ..
        } = SideTally::of(&branches);
        let percent = if total == 0 {
            100.0
        } else {
            100.0 * covered as f64 / total as f64
        };
        let name = self.module.funcs[self.func].display_name();
        let proved = if infeasible == 0 {
            String::new()
        } else {
            format!("; {infeasible} proved infeasible")
        };
        let _ = writeln!(
            text,
            "{name}: covered {covered}/{total} branch sides ({percent:.1}%) with {} tests{proved}",
            self.inputs.len()
        );
        if !traps.is_empty() {
            let counts = TrapCounts::of(&traps);
            let _ = writeln!(
                text,
                "trap targets: {} reached, {} proved unreachable, {} not reached, of {}",
                counts.reached, counts.infeasible, counts.not_reached, counts.targets
            );
        }
        if let Some(ending) = self.ending {
            let _ = writeln!(text, "{}", stats_line(ending));
        }
        let open: Vec<&SideReport> = branches
            .iter()
            .filter(|s| !s.status.is_covered())
            .chain(
                traps
                    .iter()
                    .filter(|s| matches!(s.status, SideStatus::NotReached { .. })),
            )
            .collect();
        if !open.is_empty() {
            let _ = writeln!(text, "uncovered:");
            let _ = writeln!(
                text,
                "  {:<8} {:<10} {:<40} status",
                "site", "side", "location"
            );
            for s in open {
                let site = s.side.site;
                let _ = writeln!(
                    text,
                    "  {:<8} {:<10} {:<40} {}",
                    site.to_string(),
                    self.module.arm_name(site, s.side.arm),
                    self.module.describe_loc(self.module.branch_sites[site].loc),
                    self.status_text(s)
                );
            }
        }
        text += &findings_summary(
            self.findings,
            (
                "inputs.txt and the regression file",
                "; their inputs are unchecked tests of the regression file",
            ),
        );
        text
    }
}

/// `60000 evaluations, 9 starts, 0.12 s; stopped: all sides covered`, or the explore
/// counterpart.
fn stats_line(ending: &Ending) -> String {
    let secs = ending.elapsed.as_secs_f64();
    match ending.stats {
        EngineStats::Cover {
            evaluations,
            starts,
        } => format!(
            "{evaluations} evaluations, {starts} starts, {secs:.2} s; stopped: {}",
            ending.stop
        ),
        EngineStats::Explore {
            paths,
            runs,
            queries,
            ..
        } => format!(
            "{paths} paths, {runs} runs, {} queries ({} sat, {} unsat, {} unknown), {secs:.2} s; stopped: {}",
            queries.total, queries.sat, queries.unsat, queries.unknown, ending.stop
        ),
    }
}
