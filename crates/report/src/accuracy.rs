//! The accuracy report (schema 1): `report.json` and `inputs.txt` of `fpforge accuracy`,
//! its `--json` output and the text summary, and reading a report back for
//! `--check-input`.
//!
//! `report.json` holds the run's settings (`strategy`, `precision`, `verify_precision`,
//! the `oracle` every error was measured against and its kind, the `metric` errors are
//! ranked in: `ulps` or `relative`), its counts (`evals`,
//! `elapsed_s`, when the last new worst input was found), the special values first
//! (`special_values`: wrong special values and poles), the worst inputs (`worst`, `top`;
//! each with the input line, its coordinate bits, the output, computed and reference
//! values, the relative, ulp and bits-lost errors, whether the result is correctly
//! rounded, and the precision at which Ziv's strategy found them stable; `folded`:
//! near-duplicates folded into them), the worst
//! input on the reference's own path when there is one, the FPGen checks covered, and
//! the blame table of the worst input's op sites.
//! `finished` says whether the search has ended; while it runs the file is rewritten with
//! what was found so far. See `docs/REPORTS.md`.

use crate::error::ReportError;
use crate::findings::{count_kind, findings_summary};
use crate::stop::stop_words;
use crate::values::{show, show_long_double};
use crate::SCHEMA_VERSION;
use fpforge_accuracy::zeros::{Singularity, SingularityKind};
use fpforge_accuracy::{
    AccuracyReport, Blame, CandidateStrategy, ErrorFinding, FloatBits, Oracle, OutputLoc,
    PoleAnswer, SpecialValue,
};
use fpforge_engine::{EngineKind, ErrorMetric};
use fpforge_exec::FindingKind;
use fpir::{Func, Module, OpSite, Type};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::time::Duration;

/// One measured input, as reports list it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorRow {
    /// The input as `fpforge run` reads it.
    pub input: String,
    /// Raw bits of each input coordinate (hex), what `--check-input` reads.
    pub coords: Vec<String>,
    /// `return` or `PARAM[INDEX]`.
    pub output: String,
    /// The computed result, exact.
    pub computed: String,
    /// The computed result, shortest decimal.
    pub computed_decimal: String,
    /// The reference value.
    pub reference: String,
    /// Relative error (`null` when infinite).
    pub rel_error: Option<f64>,
    /// Error in ulps (`null` when infinite).
    pub ulp_error: Option<f64>,
    /// Bits lost (`null` when infinite).
    pub bits_lost: Option<f64>,
    /// Whether the computed result is the reference rounded to nearest in its format:
    /// under a true function, the correctly rounded result.
    #[serde(default)]
    pub correctly_rounded: bool,
    /// Whether the relative error reaches [`SIGNIFICANT_REL_ERROR`].
    #[serde(default)]
    pub significance: Significance,
    /// Whether the reference run took other branches than the computed run.
    #[serde(default)]
    pub diverged: bool,
    /// The function's status (a GSL `_e` function's integer return), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i64>,
    /// The precision in bits of the reference behind the error, once Ziv's strategy
    /// recomputed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle_precision: Option<u32>,
    /// Whether the last two precisions of Ziv's strategy agreed to 2 digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stable: Option<bool>,
    /// The operation with the largest atomic condition number in the run (`op at
    /// file:line:col`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition_op: Option<String>,
    /// Its condition number (`null` when infinite: the operation cancelled to zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<f64>,
}

/// The relative error from which an error counts as significant: ATOMU's and FPCC's
/// threshold, so that their shares of significant inputs compare with ours.
pub const SIGNIFICANT_REL_ERROR: f64 = 1e-3;

/// Whether a reported input's error is significant, so that a report never presents a
/// rounding-level error as a finding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Significance {
    /// Relative error at least [`SIGNIFICANT_REL_ERROR`] (or infinite).
    #[default]
    Significant,
    /// Relative error below [`SIGNIFICANT_REL_ERROR`]: the best the search found.
    BelowThreshold,
}

impl Significance {
    /// The significance of relative error `rel` (infinite and NaN are significant).
    pub fn of(rel: f64) -> Significance {
        if rel < SIGNIFICANT_REL_ERROR {
            Significance::BelowThreshold
        } else {
            Significance::Significant
        }
    }

    /// As reports print it.
    pub fn label(self) -> &'static str {
        match self {
            Significance::Significant => "significant",
            Significance::BelowThreshold => "below threshold",
        }
    }
}

/// A wrong special value or a pole, as reports list it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SpecialRow {
    /// `wrong special value` or `pole`.
    pub(crate) kind: &'static str,
    /// For a pole, whether the code says so ([`fpforge_accuracy::PoleAnswer`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) code_answer: Option<&'static str>,
    #[serde(flatten)]
    pub(crate) row: ErrorRow,
}

impl SpecialRow {
    fn new(module: &Module, func: Func, special: &SpecialValue) -> SpecialRow {
        SpecialRow {
            kind: special.kind.label(),
            code_answer: special.pole_answer().map(PoleAnswer::label),
            row: ErrorRow::new(module, func, &special.finding),
        }
    }
}

/// What op site `site` computes, and where.
fn site_text(module: &Module, site: OpSite) -> String {
    match module.op_sites.get(site) {
        Some(data) => format!(
            "{} at {}",
            fpforge_accuracy::blame::op_name(&data.kind),
            module.describe_loc(data.loc)
        ),
        None => format!("op site {}", site.0),
    }
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl ErrorRow {
    /// The row of `finding`, an input of `func`.
    pub fn new(module: &Module, func: Func, finding: &ErrorFinding) -> ErrorRow {
        let shown = match finding.computed {
            FloatBits::Ieee(ty, bits) => show(Type::Float(ty), bits),
            FloatBits::Extended(x) => show_long_double(x),
        };
        ErrorRow {
            input: finding.test.line().to_string(),
            coords: finding
                .test
                .coords
                .iter()
                .map(|b| format!("{b:#x}"))
                .collect(),
            output: output_name(module, func, finding.output),
            computed: shown.exact,
            computed_decimal: shown.decimal,
            reference: finding.reference.to_string(),
            rel_error: finite(finding.error.rel),
            ulp_error: finite(finding.error.ulps),
            bits_lost: finite(finding.error.bits_lost),
            correctly_rounded: finding.correctly_rounded(),
            significance: Significance::of(finding.error.rel),
            diverged: finding.diverged,
            status: finding.status,
            oracle_precision: finding.ziv.map(|z| z.precision),
            stable: finding.ziv.map(|z| z.agreed),
            condition_op: finding.condition.map(|(site, _)| site_text(module, site)),
            condition: finding.condition.and_then(|(_, c)| finite(c)),
        }
    }

    /// The coordinate bits of the input.
    pub fn coord_bits(&self) -> Result<Vec<u64>, String> {
        self.coords
            .iter()
            .map(|c| {
                u64::from_str_radix(c.trim_start_matches("0x"), 16)
                    .map_err(|_| format!("bad coordinate `{c}`"))
            })
            .collect()
    }
}

/// `return` or `PARAM[INDEX]` (the parameter's source name, or its 1-based position).
pub fn output_name(module: &Module, func: Func, loc: OutputLoc) -> String {
    match loc {
        OutputLoc::Return => "return".to_string(),
        OutputLoc::Element { param, index } => {
            let name = module.funcs[func]
                .param_names
                .get(param)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("{}", param + 1));
            format!("{name}[{index}]")
        }
    }
}

/// A row of the blame table: an op site of the worst input and the error it introduced.
#[derive(Serialize)]
pub(crate) struct BlameRowJson {
    #[serde(serialize_with = "as_text")]
    pub(crate) site: OpSite,
    pub(crate) location: String,
    pub(crate) op: String,
    pub(crate) execs: u64,
    pub(crate) introduced_bits: f64,
    pub(crate) result_bits: f64,
    pub(crate) cancellations: u64,
    pub(crate) precision_losses: u64,
}

/// A branch site where the exact run went the other way.
#[derive(Serialize)]
pub(crate) struct DivergenceJson {
    pub(crate) site: String,
    pub(crate) location: String,
}

/// Serializes an id as its text (`op3`).
fn as_text<T: std::fmt::Display, S: serde::Serializer>(id: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(id)
}

fn blame_rows(blame: &Blame) -> (Vec<BlameRowJson>, Vec<DivergenceJson>) {
    let rows = blame
        .rows
        .iter()
        .map(|r| BlameRowJson {
            site: r.site,
            location: r.location.clone(),
            op: r.op.clone(),
            execs: r.execs,
            introduced_bits: r.introduced_bits,
            result_bits: r.result_bits,
            cancellations: r.cancellations,
            precision_losses: r.precision_losses,
        })
        .collect();
    let divergences = blame
        .divergences
        .iter()
        .map(|(site, location)| DivergenceJson {
            site: site.to_string(),
            location: location.clone(),
        })
        .collect();
    (rows, divergences)
}

/// The settings a report states.
#[derive(Clone, Copy, Debug)]
pub struct RunInfo<'a> {
    /// The function.
    pub function: &'a str,
    /// `search`, `random`, or `check` for a re-check.
    pub strategy: &'static str,
    /// MPFR precision of the reference, in bits.
    pub precision: u32,
    /// Precision at which kept inputs are verified, if they are.
    pub verify_precision: Option<u32>,
    /// What errors are measured against, once the engine has said it.
    pub oracle: Option<&'a Oracle>,
    /// What errors are ranked in, once the engine has said it.
    pub metric: Option<ErrorMetric>,
    /// Inputs on which the function crashed or hung, in the order found (their files in
    /// `OUT/crashes/` and `OUT/hangs/`).
    pub findings: &'a [crate::findings::CrashRow],
    /// The line saying that (nearly) every probe run traps at one place, when it does
    /// ([`crate::findings::every_run_traps`]).
    pub diagnostic: Option<&'a str>,
}

/// The name of a strategy in reports.
pub fn strategy_name(strategy: CandidateStrategy) -> &'static str {
    match strategy {
        CandidateStrategy::Search => "search",
        CandidateStrategy::Random => "random",
    }
}

/// How far a run got: inputs tried, time, and when the last new worst input came.
#[derive(Clone, Copy, Debug, Default)]
pub struct AccuracyProgress {
    /// Inputs evaluated.
    pub evals: u64,
    /// Time since the start.
    pub elapsed: Duration,
    /// Seconds from the start until the last new worst input.
    pub worst_found_s: f64,
    /// Inputs evaluated until the last new worst input.
    pub worst_found_evals: u64,
}

/// What `report.json` holds, and `report.html` shows.
#[derive(Serialize)]
pub(crate) struct ReportJson<'a> {
    pub(crate) schema: u32,
    pub(crate) function: &'a str,
    pub(crate) finished: bool,
    pub(crate) strategy: &'static str,
    pub(crate) precision: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) verify_precision: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) oracle: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) oracle_kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) metric: Option<&'static str>,
    pub(crate) evals: u64,
    pub(crate) elapsed_s: f64,
    pub(crate) worst_found_s: f64,
    pub(crate) worst_found_evals: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stop: Option<String>,
    pub(crate) crashes: usize,
    pub(crate) hangs: usize,
    #[serde(skip_serializing_if = "crate::findings::is_zero")]
    pub(crate) undefined: usize,
    pub(crate) findings: &'a [crate::findings::CrashRow],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub(crate) defects: &'a [crate::findings::SavedFinding],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) diagnostic: Option<&'a str>,
    pub(crate) special_values: Vec<SpecialRow>,
    pub(crate) worst: Option<&'a ErrorRow>,
    pub(crate) top: &'a [ErrorRow],
    pub(crate) folded: u64,
    pub(crate) zeros_found: usize,
    pub(crate) poles_found: usize,
    pub(crate) zero_evals: u64,
    pub(crate) singularities: Vec<SingularityJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) non_finite: Option<SpecialRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) worst_same_path: Option<ErrorRow>,
    pub(crate) targets_total: usize,
    pub(crate) targets_covered: usize,
    pub(crate) blame: Vec<BlameRowJson>,
    pub(crate) divergences: Vec<DivergenceJson>,
}

impl<'a> ReportJson<'a> {
    /// The report while the search runs: the worst inputs so far, worst first.
    pub(crate) fn new(info: RunInfo<'a>, progress: AccuracyProgress, top: &'a [ErrorRow]) -> Self {
        ReportJson {
            schema: SCHEMA_VERSION,
            function: info.function,
            finished: false,
            strategy: info.strategy,
            precision: info.precision,
            verify_precision: info.verify_precision,
            oracle: info.oracle.map(|o| o.to_string()),
            oracle_kind: info.oracle.map(|o| o.kind().name()),
            metric: info.metric.map(ErrorMetric::name),
            evals: progress.evals,
            elapsed_s: progress.elapsed.as_secs_f64(),
            worst_found_s: progress.worst_found_s,
            worst_found_evals: progress.worst_found_evals,
            stop: None,
            crashes: count_kind(info.findings, FindingKind::Crash),
            hangs: count_kind(info.findings, FindingKind::Hang),
            undefined: count_kind(info.findings, FindingKind::Undefined),
            findings: info.findings,
            defects: &[],
            diagnostic: info.diagnostic,
            special_values: Vec::new(),
            worst: top.first(),
            top,
            folded: 0,
            zeros_found: 0,
            poles_found: 0,
            zero_evals: 0,
            singularities: Vec::new(),
            non_finite: None,
            worst_same_path: None,
            targets_total: 0,
            targets_covered: 0,
            blame: Vec::new(),
            divergences: Vec::new(),
        }
    }

    /// The report of a finished run whose worst inputs are `top` (its [`top_rows`]).
    pub(crate) fn finished(
        info: RunInfo<'a>,
        progress: AccuracyProgress,
        module: &Module,
        report: &AccuracyReport,
        top: &'a [ErrorRow],
    ) -> Self {
        let mut json = ReportJson::new(info, progress, top);
        let (blame, divergences) = blame_rows(&report.blame);
        let row = |f: &ErrorFinding| ErrorRow::new(module, report.func, f);
        json.finished = true;
        json.stop = Some(stop_words(EngineKind::Accuracy, report.stop).to_string());
        json.oracle = Some(report.oracle.to_string());
        json.oracle_kind = Some(report.oracle.kind().name());
        json.metric = Some(report.metric.name());
        json.special_values = report
            .special_values
            .iter()
            .map(|s| SpecialRow::new(module, report.func, s))
            .collect();
        // The first special value, under the name readers of schema 1 know.
        json.non_finite = json.special_values.first().cloned();
        json.folded = report.folded;
        json.zeros_found = report.count(SingularityKind::Zero);
        json.poles_found = report.count(SingularityKind::Pole);
        json.zero_evals = report.zero_evals;
        json.singularities = report
            .singularities
            .iter()
            .map(SingularityJson::new)
            .collect();
        json.worst_same_path = report.worst_same_path.as_ref().map(row);
        json.targets_total = report.targets.len();
        json.targets_covered = report.targets.iter().filter(|t| t.covered()).count();
        json.blame = blame;
        json.divergences = divergences;
        json
    }

    fn text(&self) -> Result<String, ReportError> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }
}

/// How many of `findings` are of `kind` (`crash` or `hang`).
/// `report.json` while the search runs: the worst inputs so far, worst first.
pub fn partial_json(
    info: RunInfo<'_>,
    progress: AccuracyProgress,
    found: &[ErrorRow],
) -> Result<String, ReportError> {
    ReportJson::new(info, progress, found).text()
}

/// `report.json` of a finished run (`progress` says when the last worst input came).
pub fn final_json(
    (info, progress): (RunInfo<'_>, AccuracyProgress),
    module: &Module,
    report: &AccuracyReport,
    defects: &[crate::findings::SavedFinding],
) -> Result<String, ReportError> {
    let top = top_rows(module, report);
    let mut json = ReportJson::finished(info, progress, module, report, &top);
    json.defects = defects;
    json.text()
}

/// The rows of the report's worst inputs, worst first.
pub fn top_rows(module: &Module, report: &AccuracyReport) -> Vec<ErrorRow> {
    report
        .top
        .iter()
        .map(|f| ErrorRow::new(module, report.func, f))
        .collect()
}

/// The report of a re-check of one input (`--check-input`), with its blame.
pub fn check_json(info: RunInfo<'_>, now: &ErrorRow, blame: &Blame) -> Result<String, ReportError> {
    let progress = AccuracyProgress {
        evals: 1,
        worst_found_evals: 1,
        ..AccuracyProgress::default()
    };
    let top = std::slice::from_ref(now);
    let mut json = ReportJson::new(info, progress, top);
    let (rows, divergences) = blame_rows(blame);
    json.finished = true;
    json.blame = rows;
    json.divergences = divergences;
    json.text()
}

/// `inputs.txt`: the inputs of `found`, one per line.
pub fn inputs_text(found: &[ErrorRow]) -> String {
    found.iter().map(|f| format!("{}\n", f.input)).collect()
}

/// Only the part of a report `--check-input` needs.
#[derive(Deserialize)]
struct CheckSource {
    worst: Option<ErrorRow>,
}

/// The worst input of an earlier `report.json` (`None` when it lists none).
pub fn read_worst(text: &str) -> Result<Option<ErrorRow>, ReportError> {
    Ok(serde_json::from_str::<CheckSource>(text)?.worst)
}

fn show_err(x: Option<f64>) -> String {
    x.map_or_else(|| "inf".to_string(), |v| format!("{v:.6e}"))
}

/// An error in ulps as libm authors write it: three decimals below 10,000 ulps
/// (`0.504`, `1.421`), scientific above (`9.007e15`).
pub fn ulps_text(ulps: f64) -> String {
    if ulps < 1e4 {
        format!("{ulps:.3}")
    } else {
        format!("{ulps:.3e}")
    }
}

/// [`ulps_text`] of a figure that may be infinite (`null`).
fn show_ulps(x: Option<f64>) -> String {
    x.map_or_else(|| "inf".to_string(), ulps_text)
}

/// Whether a result is correctly rounded, in words.
fn rounding_words(correctly_rounded: bool) -> &'static str {
    if correctly_rounded {
        "correctly rounded"
    } else {
        "not correctly rounded"
    }
}

/// What `--check-input` prints: the input measured again beside the report's figures
/// (under the ulps metric, the error in ulps and whether the result is correctly
/// rounded first).
pub fn check_text(
    source: &str,
    (precision, metric): (u32, ErrorMetric),
    now: &ErrorRow,
    before: &ErrorRow,
) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "re-check of {source} at {precision} bits");
    let _ = writeln!(t, "input: {}", now.input);
    let _ = writeln!(t, "computed {} ({})", now.computed, now.computed_decimal);
    let _ = writeln!(
        t,
        "reference {} (report: {})",
        now.reference, before.reference
    );
    if metric == ErrorMetric::Ulps {
        let _ = writeln!(
            t,
            "{} ulps, {} (report: {} ulps, {})",
            show_ulps(now.ulp_error),
            rounding_words(now.correctly_rounded),
            show_ulps(before.ulp_error),
            rounding_words(before.correctly_rounded)
        );
    }
    let _ = writeln!(
        t,
        "relative error {} (report: {})",
        show_err(now.rel_error),
        show_err(before.rel_error)
    );
    t
}

/// A located zero or pole, as `report.json` lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SingularityJson {
    /// `zero` or `pole`.
    pub(crate) kind: &'static str,
    /// Whose sign changed: `computed` or `oracle`.
    pub(crate) signal: &'static str,
    /// The input coordinate (0-based).
    pub(crate) coord: usize,
    /// The adjacent doubles around it.
    pub(crate) below: f64,
    pub(crate) above: f64,
}

impl SingularityJson {
    fn new(s: &Singularity) -> SingularityJson {
        SingularityJson {
            kind: s.kind.label(),
            signal: s.signal.label(),
            coord: s.coord,
            below: s.below,
            above: s.above,
        }
    }
}

/// The text summary of a finished run.
pub fn text_report(info: RunInfo<'_>, module: &Module, report: &AccuracyReport) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "accuracy of {}: {} inputs in {:.1} s ({}), strategy {}",
        info.function,
        report.evals,
        report.elapsed.as_secs_f64(),
        stop_words(EngineKind::Accuracy, report.stop),
        strategy_name(report.strategy),
    );
    let _ = writeln!(t, "oracle: {}", oracle_text(info, &report.oracle));
    let _ = writeln!(
        t,
        "zeros found: {}, poles found: {} ({} evaluations aimed at them)",
        report.count(SingularityKind::Zero),
        report.count(SingularityKind::Pole),
        report.zero_evals
    );
    // Wrong special values are the most serious findings of a run: they come first.
    for s in &report.special_values {
        special_text(&mut t, &SpecialRow::new(module, report.func, s));
    }
    let Some(w) = report.worst() else {
        let _ = writeln!(t, "no input ran to completion with a measurable error");
        findings_text(&mut t, info.findings);
        return t;
    };
    worst_text(&mut t, module, report, w);
    match report.metric {
        ErrorMetric::Ulps => top_text(&mut t, module, report),
        ErrorMetric::Relative => {
            let significant = report
                .top
                .iter()
                .filter(|f| Significance::of(f.error.rel) == Significance::Significant)
                .count();
            let _ = writeln!(
                t,
                "{} input(s) reported, one per region ({} near-duplicate(s) folded); {significant} \
                 significant (relative error >= {SIGNIFICANT_REL_ERROR:e}), {} below that threshold",
                report.top.len(),
                report.folded,
                report.top.len() - significant
            );
        }
    }
    let covered = report.targets.iter().filter(|t| t.covered()).count();
    let _ = writeln!(
        t,
        "FPGen checks covered: {covered}/{} (precision loss and cancellation at {} add/sub sites)",
        report.targets.len(),
        report.targets.len() / 2
    );
    blame_text(&mut t, &report.blame);
    findings_text(&mut t, info.findings);
    t
}

/// The oracle and its precisions, as the summary says them.
fn oracle_text(info: RunInfo<'_>, oracle: &Oracle) -> String {
    match oracle {
        Oracle::ReExecution => {
            let verify = info.verify_precision.map_or(String::new(), |p| {
                format!(", kept inputs verified at {p} bits")
            });
            format!("{oracle}, MPFR at {} bits{verify}", info.precision)
        }
        Oracle::TrueFunction(_) => format!("{oracle} at {} bits", info.precision),
        Oracle::CReference(_) => oracle.to_string(),
    }
}

/// One special value: what was computed, what the oracle says, and the status.
fn special_text(t: &mut String, s: &SpecialRow) {
    let n = &s.row;
    let status = n
        .status
        .map_or(String::new(), |st| format!(" (status {st})"));
    let answer = s
        .code_answer
        .map_or(String::new(), |a| format!("; the code {a}"));
    let _ = writeln!(
        t,
        "{}: {} computed {} where the reference is {}, on input {}{status}{answer}",
        s.kind, n.output, n.computed_decimal, n.reference, n.input
    );
}

/// The crashes and hangs, one line each.
fn findings_text(t: &mut String, findings: &[crate::findings::CrashRow]) {
    t.push_str(&findings_summary(findings, ("the worst inputs", "")));
}

/// The worst input, its error, and the worst input on the reference's path when the
/// worst one changed path.
fn worst_text(t: &mut String, module: &Module, report: &AccuracyReport, worst: &ErrorFinding) {
    let f = ErrorRow::new(module, report.func, worst);
    let _ = writeln!(t, "worst input: {}", f.input);
    let _ = writeln!(
        t,
        "  result {}: computed  {} ({})",
        f.output, f.computed, f.computed_decimal
    );
    let _ = writeln!(
        t,
        "  {:width$}  reference {}",
        "",
        f.reference,
        width = f.output.len() + 7
    );
    let stable = match (f.oracle_precision, f.stable) {
        (Some(p), Some(true)) => format!(" (stable at {p} bits)"),
        (Some(p), _) => format!(" (not yet stable at {p} bits)"),
        _ => String::new(),
    };
    let status = f
        .status
        .map_or(String::new(), |st| format!(", status {st}"));
    let bits_lost = f.bits_lost.map_or("inf".to_string(), |b| format!("{b:.1}"));
    let _ = match report.metric {
        ErrorMetric::Ulps => writeln!(
            t,
            "  {} ulps, {}; relative error {}, {bits_lost} bits lost{stable}{status}",
            show_ulps(f.ulp_error),
            rounding_words(f.correctly_rounded),
            show_err(f.rel_error),
        ),
        ErrorMetric::Relative => writeln!(
            t,
            "  relative error {}, {} ulps, {bits_lost} bits lost{stable}{status}",
            show_err(f.rel_error),
            f.ulp_error
                .map_or("inf".to_string(), |u| format!("{u:.3e}")),
        ),
    };
    if let Some(op) = &f.condition_op {
        let _ = writeln!(
            t,
            "  largest atomic condition number {} at {op}",
            f.condition
                .map_or("inf".to_string(), |c| format!("{c:.3e}"))
        );
    }
    if !worst.diverged {
        return;
    }
    let _ = writeln!(
        t,
        "  (the reference run took other branches: the error includes a change of path)"
    );
    match &report.worst_same_path {
        Some(s) => {
            let s = ErrorRow::new(module, report.func, s);
            let error = match report.metric {
                ErrorMetric::Ulps => format!("{} ulps", show_ulps(s.ulp_error)),
                ErrorMetric::Relative => format!("relative error {}", show_err(s.rel_error)),
            };
            let _ = writeln!(
                t,
                "worst input on the reference's path: {error} at {}, input {}",
                s.output, s.input
            );
        }
        None => {
            let _ = writeln!(t, "no input with an error kept the reference's path");
        }
    }
}

/// Under the ulps metric: how many inputs are reported and how many are correctly
/// rounded, then each with its error, worst first.
fn top_text(t: &mut String, module: &Module, report: &AccuracyReport) {
    let rows: Vec<ErrorRow> = top_rows(module, report);
    let rounded = rows.iter().filter(|r| r.correctly_rounded).count();
    let _ = writeln!(
        t,
        "{} input(s) reported, one per region, zero or pole ({} near-duplicate(s) folded); \
         {rounded} correctly rounded, {} not:",
        rows.len(),
        report.folded,
        rows.len() - rounded
    );
    for row in &rows {
        let _ = writeln!(
            t,
            "  {:>10} ulps  {:<21}  {}",
            show_ulps(row.ulp_error),
            rounding_words(row.correctly_rounded),
            row.input
        );
    }
}

/// The ten op sites that introduced the most error, and where control flow diverged.
fn blame_text(t: &mut String, blame: &Blame) {
    if blame.rows.is_empty() {
        let _ = writeln!(t, "blame: no operation introduced error");
    } else {
        let _ = writeln!(
            t,
            "blame (op sites of the worst input, by error introduced):"
        );
        let _ = writeln!(
            t,
            "  {:<6} {:<8} {:>7} {:>11} {:>11} {:>7} {:>7}  location",
            "site", "op", "execs", "introduced", "result err", "cancel", "ploss"
        );
        for r in blame.rows.iter().take(10) {
            let _ = writeln!(
                t,
                "  {:<6} {:<8} {:>7} {:>9.1} b {:>9.1} b {:>7} {:>7}  {}",
                r.site.to_string(),
                r.op,
                r.execs,
                r.introduced_bits,
                r.result_bits,
                r.cancellations,
                r.precision_losses,
                r.location,
            );
        }
    }
    if !blame.divergences.is_empty() {
        let list: Vec<String> = blame
            .divergences
            .iter()
            .map(|(s, l)| format!("{s} at {l}"))
            .collect();
        let _ = writeln!(
            t,
            "control flow diverges from the exact run at: {}",
            list.join(", ")
        );
    }
}
