//! `index.json` (schema 1): the table of a run over several functions, one row per
//! function, as `cover`, `explore` and `accuracy` write it beside the functions' own
//! directories (`OUT/<function>/coverage.json` ..., or `report.json` for `accuracy`,
//! whose rows and totals are [`measured`]'s).
//!
//! ```json
//! {
//!   "schema": 1, "engine": "cover", "seconds": 12.5,
//!   "functions": [
//!     { "function": "f", "status": "finished", "directory": "f",
//!       "sides": 14, "covered": 12, "infeasible": 1, "not_reached": 1,
//!       "feasible_percent": 92.3,
//!       "traps": { "targets": 2, "reached": 1, "infeasible": 1, "not_reached": 0 },
//!       "crashes": 1, "hangs": 0, "tests": 9, "seconds": 0.8, "stop": "time limit" },
//!     { "function": "g", "status": "error", "error": "..." },
//!     { "function": "h", "status": "not run", "error": "total time" } ],
//!   "totals": { "functions": 3, "finished": 1, "errors": 1, "not_run": 1, ... }
//! }
//! ```
//!
//! A function's counts are read back from the `coverage.json` its run wrote, so the
//! index says exactly what each function's own files say. Rows come in name order.
//! [`merged_lcov`] joins the functions' `coverage.lcov` files into the run's one.
//!
//! The index of one shard of a run (`--shard K/N`) also has a `"shard"` object
//! ([`ShardOf`]: `K`, `N`, the run's key and every function of the whole selection), which
//! `fpforge merge` reads back with [`SavedIndex::from_json`] to join the shards into the
//! index a single run writes (which has no `"shard"`).

use crate::error::ReportError;
use crate::SCHEMA_VERSION;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

pub mod measured;

use measured::MeasuredJson;
pub use measured::{AccuracyCounts, AccuracyTotals, WorstInput, WorstOf};

/// What the rows of an index measure, by engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// `cover` and `explore`: branch coverage, from `coverage.json`.
    Coverage,
    /// `accuracy`: the worst inputs, from `report.json`.
    Accuracy,
}

impl Measure {
    /// What `engine`'s runs measure.
    pub fn of(engine: &str) -> Measure {
        if engine == "accuracy" {
            Measure::Accuracy
        } else {
            Measure::Coverage
        }
    }

    /// The file of a function's directory its row repeats.
    pub fn report_file(self) -> &'static str {
        match self {
            Measure::Coverage => "coverage.json",
            Measure::Accuracy => "report.json",
        }
    }

    /// The row of the function whose run wrote `dir`.
    pub fn read(self, dir: &Path) -> Result<RowOutcome, ReportError> {
        let path = dir.join(self.report_file());
        let text = std::fs::read_to_string(&path).map_err(|source| ReportError::Read {
            path: path.clone(),
            source,
        })?;
        Ok(match self {
            Measure::Coverage => RowOutcome::Ran(RunCounts::from_coverage_json(&text)?),
            Measure::Accuracy => RowOutcome::Measured(serde_json::from_str(&text)?),
        })
    }
}

/// How the run of one function went.
#[derive(Clone, Debug, PartialEq)]
pub enum RowOutcome {
    /// The engine ran; its `coverage.json` gave these counts.
    Ran(RunCounts),
    /// `accuracy` ran; its `report.json` gave these.
    Measured(AccuracyCounts),
    /// The function could not be tested (no spec fits, unsupported, ...).
    Error(String),
    /// The run ended before this function started (total time, Ctrl-C).
    NotRun(String),
}

/// What one function's `coverage.json` counts, as the index repeats it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunCounts {
    /// Whether the run ended (not stopped while being written).
    pub finished: bool,
    /// Why it stopped.
    pub stop: Option<String>,
    /// Wall-clock seconds of the search.
    pub seconds: Option<f64>,
    /// Branch sides of the program.
    pub sides: usize,
    /// Sides some input takes.
    pub covered: usize,
    /// Sides proved never taken.
    pub infeasible: usize,
    /// Sides neither covered nor proved infeasible.
    pub not_reached: usize,
    /// The trap targets and how they ended.
    pub traps: TrapTotals,
    /// Crashes found.
    pub crashes: usize,
    /// Hangs found.
    pub hangs: usize,
    /// Tests kept.
    pub tests: usize,
    /// Its findings' identities, for the distinct count of a run over several functions.
    #[serde(default, skip_serializing)]
    pub findings: Vec<FindingId>,
}

/// A finding as the index counts it: its fingerprint and kind (`findings[]` of
/// `coverage.json` and `report.json`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct FindingId {
    /// Its identity across functions and runs.
    pub fingerprint: String,
    /// `crash`, `hang` or `undefined`.
    pub kind: String,
}

/// The number of distinct defects (crashes and hangs, by fingerprint) among `findings`:
/// a fault several functions reach through a shared callee is one.
pub fn distinct_defects<'a>(findings: impl IntoIterator<Item = &'a FindingId>) -> usize {
    findings
        .into_iter()
        .filter(|f| f.kind != "undefined")
        .map(|f| f.fingerprint.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len()
}

/// Trap targets: reached by a finding, proved unreachable, or neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrapTotals {
    /// Trap targets.
    pub targets: usize,
    /// Reached.
    pub reached: usize,
    /// Proved unreachable.
    pub infeasible: usize,
    /// Neither.
    pub not_reached: usize,
}

impl RunCounts {
    /// The counts of a `coverage.json` text.
    pub fn from_coverage_json(text: &str) -> Result<RunCounts, ReportError> {
        Ok(serde_json::from_str(text)?)
    }

    /// `100 × covered / (sides − infeasible)`, 100 when no side can be taken.
    pub fn feasible_percent(&self) -> f64 {
        crate::coverage::feasible_percent(fpir::SideTally {
            covered: self.covered,
            infeasible: self.infeasible,
            not_reached: self.not_reached,
        })
    }
}

/// One function's row.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexRow {
    /// The function's display name (the demangled signature of a C++ function).
    pub function: String,
    /// Its directory under the output directory: its symbol, which is unique in a
    /// linked program and filesystem-safe (C++ symbols are mangled).
    pub directory: String,
    /// How its run went.
    pub outcome: RowOutcome,
}

/// A whole run over several functions.
#[derive(Clone, Debug, PartialEq)]
pub struct Index {
    /// `cover` or `explore`.
    pub engine: &'static str,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// One row per function, in name order.
    pub rows: Vec<IndexRow>,
    /// Which shard of a run this is, when the run was split (`--shard K/N`).
    pub shard: Option<ShardOf>,
}

/// The `"shard"` object of a shard's `index.json`: enough for `fpforge merge` to check
/// that the shards it is given are all of one run, each once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardOf {
    /// `K`, from 1.
    pub index: usize,
    /// `N`.
    pub count: usize,
    /// The run's key: a hash of every setting that changes its results, the same in
    /// every shard of one run.
    pub run: String,
    /// Every function of the whole selection (all shards), in name order.
    pub selected: Vec<String>,
}

/// An `index.json` read back: the rows' statuses and errors (a ran function's counts
/// are in its own `coverage.json`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SavedIndex {
    /// `cover` or `explore`.
    pub engine: String,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// The rows.
    pub functions: Vec<SavedRow>,
    /// The shard, when the run was split.
    #[serde(default)]
    pub shard: Option<ShardOf>,
}

/// One row of an `index.json` read back.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SavedRow {
    /// The function.
    pub function: String,
    /// `finished`, `interrupted`, `error` or `not run`.
    pub status: String,
    /// Why it has no counts (`error` and `not run`).
    #[serde(default)]
    pub error: Option<String>,
    /// Its directory, when it ran.
    #[serde(default)]
    pub directory: Option<String>,
}

impl SavedIndex {
    /// Reads an `index.json` text.
    pub fn from_json(text: &str) -> Result<SavedIndex, ReportError> {
        Ok(serde_json::from_str(text)?)
    }
}

#[derive(Serialize)]
struct RowJson<'a> {
    function: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    directory: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    counts: Option<CountsJson<'a>>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    measured: Option<MeasuredJson<'a>>,
}

#[derive(Serialize)]
struct CountsJson<'a> {
    sides: usize,
    covered: usize,
    infeasible: usize,
    not_reached: usize,
    feasible_percent: f64,
    traps: TrapTotals,
    crashes: usize,
    hangs: usize,
    tests: usize,
    seconds: Option<f64>,
    stop: Option<&'a str>,
}

/// The sums over every function that ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Functions in the index.
    pub functions: usize,
    /// Functions whose run ended.
    pub finished: usize,
    /// Functions that could not be tested.
    pub errors: usize,
    /// Functions not started.
    pub not_run: usize,
    /// Branch sides.
    pub sides: usize,
    /// Covered sides.
    pub covered: usize,
    /// Sides proved infeasible.
    pub infeasible: usize,
    /// Sides not reached.
    pub not_reached: usize,
    /// Feasible coverage over all sides ([`RunCounts::feasible_percent`]).
    pub feasible_percent: f64,
    /// Trap targets.
    pub traps: TrapTotals,
    /// Crashes.
    pub crashes: usize,
    /// Hangs.
    pub hangs: usize,
    /// Distinct crashes and hangs (by fingerprint) over every function.
    pub distinct_findings: usize,
    /// Tests.
    pub tests: usize,
}

#[derive(Serialize)]
struct IndexJson<'a> {
    schema: u32,
    engine: &'static str,
    seconds: f64,
    functions: Vec<RowJson<'a>>,
    totals: TotalsJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<&'a ShardOf>,
}

/// The totals of a coverage or an accuracy index.
/// ` (3 distinct)` when fewer distinct findings than crashes and hangs: functions that
/// reach one fault through a shared callee each list it.
fn distinct_words(found: usize, distinct: usize) -> String {
    if distinct < found {
        format!(" ({distinct} distinct)")
    } else {
        String::new()
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum TotalsJson {
    Coverage(Totals),
    Accuracy(AccuracyTotals),
}

impl RowOutcome {
    /// Whether the function's search ended by itself: it ran, its files were
    /// completed, and Ctrl-C did not stop it.
    pub fn completed(&self) -> bool {
        let (finished, stop) = match self {
            RowOutcome::Ran(c) => (c.finished, c.stop.as_deref()),
            RowOutcome::Measured(c) => (c.finished, c.stop.as_deref()),
            RowOutcome::Error(_) | RowOutcome::NotRun(_) => return false,
        };
        finished && stop != Some("interrupted")
    }
}

impl IndexRow {
    /// The status word of `index.json`.
    pub fn status(&self) -> &'static str {
        let stop = match &self.outcome {
            RowOutcome::Ran(counts) => counts.stop.as_deref(),
            RowOutcome::Measured(counts) => counts.stop.as_deref(),
            RowOutcome::Error(_) => return "error",
            RowOutcome::NotRun(_) => return "not run",
        };
        if stop == Some("interrupted") {
            "interrupted"
        } else {
            "finished"
        }
    }

    /// Whether the function has its directory (it ran).
    pub fn has_directory(&self) -> bool {
        matches!(self.outcome, RowOutcome::Ran(_) | RowOutcome::Measured(_))
    }

    /// The summary's line of a function without figures: its name (padded to `width`),
    /// status and why.
    fn unmeasured_line(&self, width: usize) -> String {
        format!(
            "{:<width$}  {}: {}",
            self.function,
            self.status(),
            self.error().unwrap_or_default()
        )
    }

    /// The accuracy figures, when `accuracy` ran the function.
    pub fn measured(&self) -> Option<&AccuracyCounts> {
        match &self.outcome {
            RowOutcome::Measured(counts) => Some(counts),
            _ => None,
        }
    }

    /// The coverage counts, when `cover` or `explore` ran the function.
    pub fn counts(&self) -> Option<&RunCounts> {
        match &self.outcome {
            RowOutcome::Ran(counts) => Some(counts),
            _ => None,
        }
    }

    /// Why the function has no counts, when it has none.
    pub fn error(&self) -> Option<&str> {
        match &self.outcome {
            RowOutcome::Ran(_) | RowOutcome::Measured(_) => None,
            RowOutcome::Error(why) | RowOutcome::NotRun(why) => Some(why),
        }
    }

    fn to_json(&self) -> RowJson<'_> {
        let counts = self.counts();
        RowJson {
            function: &self.function,
            status: self.status(),
            directory: self.has_directory().then_some(self.directory.as_str()),
            error: self.error(),
            counts: counts.map(|c| CountsJson {
                sides: c.sides,
                covered: c.covered,
                infeasible: c.infeasible,
                not_reached: c.not_reached,
                feasible_percent: c.feasible_percent(),
                traps: c.traps,
                crashes: c.crashes,
                hangs: c.hangs,
                tests: c.tests,
                seconds: c.seconds,
                stop: c.stop.as_deref(),
            }),
            measured: self.measured().map(MeasuredJson::of),
        }
    }
}

impl Index {
    /// The sums over the rows.
    pub fn totals(&self) -> Totals {
        let mut totals = Totals {
            functions: self.rows.len(),
            ..Totals::default()
        };
        for row in &self.rows {
            match &row.outcome {
                RowOutcome::Ran(c) => {
                    totals.finished += usize::from(c.finished);
                    totals.sides += c.sides;
                    totals.covered += c.covered;
                    totals.infeasible += c.infeasible;
                    totals.not_reached += c.not_reached;
                    totals.traps.targets += c.traps.targets;
                    totals.traps.reached += c.traps.reached;
                    totals.traps.infeasible += c.traps.infeasible;
                    totals.traps.not_reached += c.traps.not_reached;
                    totals.crashes += c.crashes;
                    totals.hangs += c.hangs;
                    totals.tests += c.tests;
                }
                RowOutcome::Measured(c) => {
                    totals.finished += usize::from(c.finished);
                    totals.crashes += c.crashes;
                    totals.hangs += c.hangs;
                }
                RowOutcome::Error(_) => totals.errors += 1,
                RowOutcome::NotRun(_) => totals.not_run += 1,
            }
        }
        totals.distinct_findings =
            distinct_defects(self.rows.iter().flat_map(|row| match &row.outcome {
                RowOutcome::Ran(c) => c.findings.as_slice(),
                RowOutcome::Measured(c) => c.findings.as_slice(),
                RowOutcome::Error(_) | RowOutcome::NotRun(_) => &[],
            }));
        totals.feasible_percent = crate::coverage::feasible_percent(fpir::SideTally {
            covered: totals.covered,
            infeasible: totals.infeasible,
            not_reached: totals.not_reached,
        });
        totals
    }

    /// What the rows measure.
    pub fn measure(&self) -> Measure {
        Measure::of(self.engine)
    }

    /// The totals of an accuracy run: [`Index::totals`]' shared counts, the inputs
    /// evaluated and the least accurate input of any function.
    pub fn accuracy_totals(&self) -> AccuracyTotals {
        let totals = self.totals();
        let measured = || self.rows.iter().filter_map(|r| Some((r, r.measured()?)));
        let mut worst: Option<WorstOf> = None;
        for (row, counts) in measured() {
            let Some(input) = &counts.worst else { continue };
            if worst.as_ref().is_none_or(|w| input.rel() > w.input.rel()) {
                worst = Some(WorstOf {
                    function: row.function.clone(),
                    input: input.clone(),
                });
            }
        }
        AccuracyTotals {
            functions: totals.functions,
            finished: totals.finished,
            errors: totals.errors,
            not_run: totals.not_run,
            evals: measured().map(|(_, c)| c.evals).sum(),
            crashes: totals.crashes,
            hangs: totals.hangs,
            distinct_findings: totals.distinct_findings,
            worst,
        }
    }

    /// `index.json` (schema 1, see the module docs).
    pub fn to_json(&self) -> Result<String, ReportError> {
        let totals = match self.measure() {
            Measure::Coverage => TotalsJson::Coverage(self.totals()),
            Measure::Accuracy => TotalsJson::Accuracy(self.accuracy_totals()),
        };
        let json = IndexJson {
            schema: SCHEMA_VERSION,
            engine: self.engine,
            seconds: self.seconds,
            functions: self.rows.iter().map(IndexRow::to_json).collect(),
            totals,
            shard: self.shard.as_ref(),
        };
        Ok(serde_json::to_string_pretty(&json)? + "\n")
    }
}

impl Index {
    /// The summary a command prints: one line per function, then the totals.
    pub fn summary(&self) -> String {
        match self.measure() {
            Measure::Coverage => self.coverage_summary(),
            Measure::Accuracy => measured::summary(self),
        }
    }

    /// The width of the function column of a summary.
    fn name_width(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.function.len())
            .max()
            .unwrap_or(0)
            .max("function".len())
    }

    fn coverage_summary(&self) -> String {
        let width = self.name_width();
        let mut text = format!(
            "{:<width$}  {:>6} {:>7} {:>8} {:>10} {:>7} {:>5} {:>5} {:>8}  stop\n",
            "function",
            "sides",
            "covered",
            "feasible",
            "infeasible",
            "crashes",
            "hangs",
            "tests",
            "seconds"
        );
        for row in &self.rows {
            let _ = match row.counts() {
                Some(c) => writeln!(
                    text,
                    "{:<width$}  {:>6} {:>7} {:>7.1}% {:>10} {:>7} {:>5} {:>5} {:>8.2}  {}",
                    row.function,
                    c.sides,
                    c.covered,
                    c.feasible_percent(),
                    c.infeasible,
                    c.crashes,
                    c.hangs,
                    c.tests,
                    c.seconds.unwrap_or_default(),
                    c.stop.as_deref().unwrap_or_default()
                ),
                None => writeln!(text, "{}", row.unmeasured_line(width)),
            };
        }
        let t = self.totals();
        let _ = writeln!(
            text,
            "total: {} functions ({} not testable, {} not run): covered {}/{} branch sides ({:.1}% feasible), {} proved infeasible, {} crashes, {} hangs{}, {} tests, {:.1} s",
            t.functions, t.errors, t.not_run, t.covered, t.sides, t.feasible_percent,
            t.infeasible, t.crashes, t.hangs, distinct_words(t.crashes + t.hangs, t.distinct_findings), t.tests, self.seconds
        );
        text
    }
}

/// The run's `coverage.lcov`: the functions' tracefiles one after the other, in the
/// index's order. A source file several functions share gets several records, which
/// `genhtml` and `lcov` merge as they read them.
pub fn merged_lcov<'a>(tracefiles: impl IntoIterator<Item = &'a str>) -> String {
    tracefiles.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const COVERAGE: &str = r#"{ "schema": 1, "engine": "cover", "function": "f",
        "finished": true, "stop": "time limit", "seconds": 1.5, "sides": 10,
        "covered": 6, "infeasible": 2, "not_reached": 2, "tests": 4,
        "test_seconds": [0.1], "traps": { "targets": 3, "reached": 1, "infeasible": 1,
        "not_reached": 1 }, "crashes": 1, "hangs": 0, "findings": [{ "kind": "crash",
        "fingerprint": "00000000000000aa", "trap": "integer division by zero" }],
        "sites": [] }"#;

    fn index() -> Index {
        let counts = RunCounts::from_coverage_json(COVERAGE).unwrap();
        Index {
            engine: "cover",
            seconds: 2.0,
            rows: vec![
                IndexRow {
                    function: "f".into(),
                    directory: "f".into(),
                    outcome: RowOutcome::Ran(counts.clone()),
                },
                IndexRow {
                    function: "g".into(),
                    directory: "g".into(),
                    outcome: RowOutcome::Ran(counts),
                },
                IndexRow {
                    function: "h".into(),
                    directory: "h".into(),
                    outcome: RowOutcome::Error("no spec fits".into()),
                },
                IndexRow {
                    function: "k".into(),
                    directory: "k".into(),
                    outcome: RowOutcome::NotRun("total time".into()),
                },
            ],
            shard: None,
        }
    }

    #[test]
    fn rows_repeat_coverage_json_and_totals_sum_them() {
        let json: serde_json::Value = serde_json::from_str(&index().to_json().unwrap()).unwrap();
        let f = &json["functions"][0];
        assert_eq!(f["status"], "finished");
        assert_eq!(f["directory"], "f");
        assert_eq!(f["covered"], 6);
        assert_eq!(f["feasible_percent"], 75.0);
        assert_eq!(f["traps"]["targets"], 3);
        assert_eq!(f["stop"], "time limit");
        let h = &json["functions"][2];
        assert_eq!(h["status"], "error");
        assert_eq!(h["error"], "no spec fits");
        assert!(h.get("directory").is_none() && h.get("sides").is_none());
        assert_eq!(json["functions"][3]["status"], "not run");
        let totals = &json["totals"];
        assert_eq!(totals["functions"], 4);
        assert_eq!(totals["finished"], 2);
        assert_eq!(totals["errors"], 1);
        assert_eq!(totals["not_run"], 1);
        assert_eq!(totals["sides"], 20);
        assert_eq!(totals["covered"], 12);
        assert_eq!(totals["crashes"], 2);
        // f and g reach the same fault: one distinct finding.
        assert_eq!(totals["distinct_findings"], 1);
        assert!(index()
            .summary()
            .contains("2 crashes, 0 hangs (1 distinct)"));
        assert_eq!(totals["traps"]["reached"], 2);
        assert_eq!(totals["feasible_percent"], 75.0);
    }

    #[test]
    fn a_shard_index_reads_back_with_its_rows_and_shard() {
        let shard = ShardOf {
            index: 2,
            count: 3,
            run: "00ff".into(),
            selected: vec!["f".into(), "g".into(), "h".into(), "k".into()],
        };
        let written = Index {
            shard: Some(shard.clone()),
            ..index()
        }
        .to_json()
        .unwrap();
        let saved = SavedIndex::from_json(&written).unwrap();
        assert_eq!(saved.engine, "cover");
        assert_eq!(saved.shard, Some(shard));
        let rows: Vec<(&str, &str, Option<&str>)> = saved
            .functions
            .iter()
            .map(|r| (r.function.as_str(), r.status.as_str(), r.error.as_deref()))
            .collect();
        assert_eq!(
            rows,
            [
                ("f", "finished", None),
                ("g", "finished", None),
                ("h", "error", Some("no spec fits")),
                ("k", "not run", Some("total time")),
            ]
        );
        let unsplit: serde_json::Value = serde_json::from_str(&index().to_json().unwrap()).unwrap();
        assert!(unsplit.get("shard").is_none());
    }

    const REPORT: &str = r#"{ "schema": 1, "function": "f", "finished": true,
        "strategy": "search", "precision": 128, "evals": 500, "elapsed_s": 0.25,
        "worst_found_s": 0.1, "worst_found_evals": 10, "stop": "evaluation limit",
        "crashes": 1, "hangs": 0, "findings": [], "top": [], "targets_total": 0,
        "targets_covered": 0, "blame": [], "divergences": [],
        "worst": { "input": "1e-8", "coords": ["0x1"], "output": "return",
                   "computed": "0", "computed_decimal": "0", "reference": "1",
                   "rel_error": 0.125, "ulp_error": 3.0, "bits_lost": 2.0 } }"#;

    #[test]
    fn accuracy_rows_repeat_report_json_and_the_totals_name_the_worst() {
        let measured = |rel: &str| -> AccuracyCounts {
            serde_json::from_str(&REPORT.replace("0.125", rel)).unwrap()
        };
        let row = |name: &str, outcome| IndexRow {
            function: name.into(),
            directory: name.into(),
            outcome,
        };
        let index = Index {
            engine: "accuracy",
            seconds: 1.0,
            rows: vec![
                row("f", RowOutcome::Measured(measured("0.125"))),
                row("g", RowOutcome::Measured(measured("null"))),
                row("h", RowOutcome::Error("no spec fits".into())),
            ],
            shard: None,
        };
        let json: serde_json::Value = serde_json::from_str(&index.to_json().unwrap()).unwrap();
        let f = &json["functions"][0];
        assert_eq!(f["status"], "finished");
        assert_eq!(f["directory"], "f");
        assert_eq!(f["evals"], 500);
        assert_eq!(f["seconds"], 0.25);
        assert_eq!(f["worst"]["rel_error"], 0.125);
        assert!(f.get("sides").is_none(), "{f}");
        let totals = &json["totals"];
        assert_eq!(totals["evals"], 1000);
        assert_eq!(totals["crashes"], 2);
        assert_eq!(totals["errors"], 1);
        assert_eq!(
            totals["worst"]["function"], "g",
            "an infinite error is the worst"
        );
        assert!(totals["worst"]["rel_error"].is_null());
        assert!(totals.get("sides").is_none(), "{totals}");
        assert!(index
            .summary()
            .contains("worst relative error inf in `g` at 1e-8"));
        assert!(RowOutcome::Measured(measured("0.125")).completed());
    }

    #[test]
    fn merged_lcov_keeps_every_record_in_order() {
        let a = "SF:/a.c\nDA:1,1\nend_of_record\n";
        let b = "SF:/a.c\nDA:2,0\nend_of_record\nSF:/b.c\nDA:1,1\nend_of_record\n";
        assert_eq!(merged_lcov([a, b]), format!("{a}{b}"));
    }
}
