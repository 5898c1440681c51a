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
//! [`CoverageOut`] keeps an output directory current while an engine runs: each new test
//! appends its line to `inputs.txt` and rewrites `coverage.json`, `coverage.lcov` and
//! `regression.c`.

use crate::error::ReportError;
use crate::findings::{dir_name, FindingRow};
use crate::lcov::lcov;
use crate::outdir::OutDir;
use crate::regression::{expected_results, regression_c, results_interpreter, RegressionTest};
use crate::SCHEMA_VERSION;
use fpforge_cover::{CoverEvent, CoverReport};
use fpforge_exec::{Concrete, Finding, FindingKind, Interpreter, NoObserver};
use fpforge_explore::{ExploreEvent, ExploreReport};
use fpforge_spec::InputSpec;
use fpir::{
    BranchKind, Func, InfeasibleMethod, MissReason, Module, Side, SideReport, SideStatus,
    SideTally, Witness,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

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
            stop: report.stop.to_string(),
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
            stop: report.stop.to_string(),
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
    /// Number of tests (lines of `inputs.txt`).
    pub tests: usize,
    /// When each test was found, from the start of the run.
    pub found_at: &'a [Duration],
    /// The crashes and hangs found.
    pub findings: &'a [FindingRow],
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
    closest: Option<Closest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct SiteRow {
    id: String,
    location: String,
    kind: &'static str,
    sides: Vec<SideRow>,
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
    crashes: usize,
    hangs: usize,
    findings: &'a [FindingRow],
    #[serde(skip_serializing_if = "Option::is_none")]
    stats: Option<EngineStats>,
    sites: Vec<SiteRow>,
}

/// The status word of `coverage.json`.
fn status_word(status: &SideStatus) -> &'static str {
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
    }
}

/// Why a side was not taken, in words.
pub fn miss_reason(miss: &MissReason, finished: bool) -> String {
    if !finished {
        return "the run is still going".to_string();
    }
    match (miss.branch_reached, miss.closest) {
        (true, Some(c)) => format!(
            "tests reach this branch but none takes this side; the closest is test {} \
             (branch distance {:e}); a search cannot prove it infeasible",
            c.test, c.distance
        ),
        (true, None) => "tests reach this branch but none takes this side; \
                         a search cannot prove it infeasible"
            .to_string(),
        (false, _) => "no test reaches this branch".to_string(),
    }
}

impl Coverage<'_> {
    fn count_findings(&self, kind: &str) -> usize {
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
            closest: None,
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
                row.method = Some(method.label());
                row.reason = Some(infeasible_reason(method).to_string());
            }
            SideStatus::NotReached { reason } => {
                row.branch_reached = finished.then_some(reason.branch_reached);
                row.closest = reason.closest.map(|c| Closest {
                    test: c.test,
                    distance: c.distance,
                });
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
                    },
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
        let tally = SideTally::of(self.sides);
        let json = CoverageJson {
            schema: SCHEMA_VERSION,
            engine: self.ending.map_or(self.engine, |e| e.stats.engine()),
            function: &self.module.funcs[self.func].name,
            finished: self.ending.is_some(),
            stop: self.ending.map(|e| e.stop.as_str()),
            seconds: self.ending.map(|e| e.elapsed.as_secs_f64()),
            sides: self.sides.len(),
            covered: tally.covered,
            infeasible: tally.infeasible,
            not_reached: tally.not_reached,
            tests: self.tests,
            test_seconds: self.found_at.iter().map(Duration::as_secs_f64).collect(),
            crashes: self.count_findings("crash"),
            hangs: self.count_findings("hang"),
            findings: self.findings,
            stats: self.ending.map(|e| e.stats),
            sites: self.site_rows(),
        };
        Ok(serde_json::to_string_pretty(&json)? + "\n")
    }

    /// The summary a command prints: the counts, how the run ended, and one line per
    /// side not covered.
    pub fn summary(&self) -> String {
        let mut text = String::new();
        let total = self.sides.len();
        let SideTally {
            covered,
            infeasible,
            ..
        } = SideTally::of(self.sides);
        let percent = if total == 0 {
            100.0
        } else {
            100.0 * covered as f64 / total as f64
        };
        let name = &self.module.funcs[self.func].name;
        let proved = if infeasible == 0 {
            String::new()
        } else {
            format!("; {infeasible} proved infeasible")
        };
        let _ = writeln!(
            text,
            "{name}: covered {covered}/{total} branch sides ({percent:.1}%) with {} tests{proved}",
            self.tests
        );
        if let Some(ending) = self.ending {
            let _ = writeln!(text, "{}", stats_line(ending));
        }
        let open: Vec<&SideReport> = self
            .sides
            .iter()
            .filter(|s| !s.status.is_covered())
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
                    s.status
                );
            }
        }
        if !self.findings.is_empty() {
            let _ = writeln!(
                text,
                "found {} crash(es) and {} hang(s) (kept out of inputs.txt and regression.c):",
                self.count_findings("crash"),
                self.count_findings("hang")
            );
            for f in self.findings {
                let _ = writeln!(text, "  {}", f.summary_line());
            }
        }
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

/// What a finished coverage run prints, and how many crashes and hangs it found (a
/// command exits with code 3 when there are any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The summary.
    pub text: String,
    /// Crashes and hangs found.
    pub findings: usize,
}

/// An output directory kept current while `cover` or `explore` runs (see the module
/// docs): `inputs.txt`, `coverage.json`, `coverage.lcov` and `regression.c`.
pub struct CoverageOut<'m> {
    out: OutDir,
    module: &'m Module,
    func: Func,
    spec: InputSpec,
    engine: &'static str,
    started: Instant,
    sides: Vec<Side>,
    witness: Vec<Option<Witness>>,
    tests: Vec<RegressionTest>,
    found_at: Vec<Duration>,
    /// Computes each test's expected results for `regression.c`.
    results: Interpreter<'m, Concrete, NoObserver>,
    findings: Vec<FindingRow>,
    /// Why `regression.c` cannot be written, if it cannot.
    no_regression: Option<String>,
}

impl<'m> CoverageOut<'m> {
    /// Creates the directory for `engine`'s run on `func`, whose inputs `spec` describes.
    pub fn create(
        dir: &Path,
        engine: &'static str,
        module: &'m Module,
        func: Func,
        spec: InputSpec,
    ) -> Result<CoverageOut<'m>, ReportError> {
        let results = results_interpreter(module)?;
        Ok(CoverageOut {
            out: OutDir::create(dir)?,
            results,
            module,
            func,
            spec,
            engine,
            started: Instant::now(),
            sides: Vec::new(),
            witness: Vec::new(),
            tests: Vec::new(),
            found_at: Vec::new(),
            findings: Vec::new(),
            no_regression: None,
        })
    }

    /// Records what a `cover` run reports as it goes (progress events write nothing).
    pub fn cover_event(&mut self, event: &CoverEvent<'_>) {
        match event {
            CoverEvent::Started { sides, .. } => self.started(sides),
            CoverEvent::Test {
                index,
                test,
                new_sides,
            } => self.test(*index, &test.coords, new_sides),
            CoverEvent::Finding {
                index,
                finding,
                new_sides,
            } => self.finding(*index, finding, new_sides),
            CoverEvent::Progress { .. } => {}
        }
    }

    /// Records what an `explore` run reports as it goes.
    pub fn explore_event(&mut self, event: &ExploreEvent<'_>) {
        match event {
            ExploreEvent::Started { sides } => self.started(sides),
            ExploreEvent::Test {
                index,
                input,
                new_sides,
            } => self.test(*index, input, new_sides),
            ExploreEvent::Finding {
                index,
                finding,
                new_sides,
            } => self.finding(*index, finding, new_sides),
        }
    }

    /// The run starts on these sides: writes the files with none covered.
    pub fn started(&mut self, sides: &[Side]) {
        self.sides = sides.to_vec();
        self.witness = vec![None; sides.len()];
        self.rewrite(None);
    }

    /// Test `index` (coordinate bits `coords`) took `new_sides` first.
    pub fn test(&mut self, index: usize, coords: &[u64], new_sides: &[Side]) {
        self.credit(new_sides, Witness::Test(index));
        let expected = expected_results(&mut self.results, self.func, &self.spec, coords);
        self.tests.truncate(index);
        self.tests.push(RegressionTest {
            coords: coords.to_vec(),
            expected: expected.unwrap_or_default(),
        });
        self.found_at.truncate(index);
        self.found_at.push(self.started.elapsed());
        self.out.append_input(&self.spec.line(coords));
        self.rewrite(None);
    }

    /// Finding `index` took `new_sides` first: writes its file and the coverage files.
    pub fn finding(&mut self, index: usize, finding: &Finding, new_sides: &[Side]) {
        self.credit(new_sides, Witness::Finding(index));
        let number = 1 + self
            .findings
            .iter()
            .filter(|f| f.kind == finding.kind.name())
            .count();
        let row = FindingRow::new(self.module, &self.spec, finding, number);
        self.out.make_dir(dir_name(finding.kind));
        self.out
            .write(&row.file, &row.file_text(self.module, self.func));
        self.findings.truncate(index);
        self.findings.push(row);
        self.rewrite(None);
    }

    fn credit(&mut self, new_sides: &[Side], witness: Witness) {
        for side in new_sides {
            if let Some(i) = self.sides.iter().position(|s| s == side) {
                self.witness[i] = Some(witness);
            }
        }
    }

    /// The run ended: rewrites every file with the final statuses, and returns the
    /// summary to print (with a note when `regression.c` could not be written) and the
    /// number of findings, or the first write error.
    pub fn finish(
        mut self,
        sides: &[SideReport],
        ending: &Ending,
    ) -> Result<Finished, ReportError> {
        self.rewrite(Some((sides, ending)));
        let mut text = self.coverage(sides, Some(ending)).summary();
        let mut files = vec!["inputs.txt", "coverage.json", "coverage.lcov"];
        if self.no_regression.is_none() {
            files.push("regression.c");
        }
        for kind in [FindingKind::Crash, FindingKind::Hang] {
            if self.findings.iter().any(|f| f.kind == kind.name()) {
                files.push(dir_name(kind));
            }
        }
        let _ = write!(
            text,
            "wrote {}/{}",
            self.out.path().display(),
            files.join(", ")
        );
        let _ = match &self.no_regression {
            Some(why) => writeln!(text, " (no regression.c: {why})"),
            None => writeln!(text),
        };
        self.out.finish()?;
        Ok(Finished {
            text,
            findings: self.findings.len(),
        })
    }

    fn coverage<'a>(&'a self, sides: &'a [SideReport], ending: Option<&'a Ending>) -> Coverage<'a> {
        Coverage {
            module: self.module,
            func: self.func,
            sides,
            tests: self.tests.len(),
            found_at: &self.found_at,
            findings: &self.findings,
            ending,
            engine: self.engine,
        }
    }

    /// The statuses while the run goes on: covered by a witness, or not reached yet.
    fn running_sides(&self) -> Vec<SideReport> {
        self.sides
            .iter()
            .zip(&self.witness)
            .map(|(&side, witness)| SideReport {
                side,
                status: witness.map_or(
                    SideStatus::NotReached {
                        reason: MissReason::default(),
                    },
                    |witness| SideStatus::Covered { witness },
                ),
            })
            .collect()
    }

    fn rewrite(&mut self, finished: Option<(&[SideReport], &Ending)>) {
        let running;
        let (sides, ending) = match finished {
            Some((sides, ending)) => (sides, Some(ending)),
            None => {
                running = self.running_sides();
                (running.as_slice(), None)
            }
        };
        match regression_c(self.module, self.func, &self.spec, &self.tests) {
            Ok(c) => self.out.write("regression.c", &c),
            Err(e) => self.no_regression = Some(e.to_string()),
        }
        let ran = !self.tests.is_empty() || !self.findings.is_empty();
        let lcov_text = lcov(self.module, self.func, sides, ran);
        let json = self.coverage(sides, ending).to_json();
        self.out.write("coverage.lcov", &lcov_text);
        match json {
            Ok(json) => self.out.write("coverage.json", &json),
            Err(e) => self.out.fail(e),
        }
    }
}
