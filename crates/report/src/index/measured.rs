//! The rows of an `accuracy` run over several functions: what each function's
//! `report.json` says of its worst input, and the run's worst.
//!
//! ```json
//! { "function": "f", "status": "finished", "directory": "f", "evals": 5000,
//!   "crashes": 0, "hangs": 0, "seconds": 0.9, "stop": "evaluation limit",
//!   "worst": { "input": "1e-8", "rel_error": 0.5, "ulp_error": 4.5e15,
//!              "bits_lost": 52.0 } }
//! ```
//!
//! `worst` is `null` when the search measured no input; an error field is `null` when it
//! is infinite, as in `report.json`.

use super::Index;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// What one function's `report.json` says, as the index repeats it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct AccuracyCounts {
    /// Whether the run ended (not stopped while being written).
    pub finished: bool,
    /// Why it stopped.
    pub stop: Option<String>,
    /// Wall-clock seconds of the search.
    #[serde(rename = "elapsed_s")]
    pub seconds: f64,
    /// Inputs evaluated.
    pub evals: u64,
    /// Crashes found.
    pub crashes: usize,
    /// Hangs found.
    pub hangs: usize,
    /// The least accurate input.
    pub worst: Option<WorstInput>,
    /// Its findings' identities.
    #[serde(default)]
    pub findings: Vec<super::FindingId>,
}

/// The least accurate input of a function and its errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorstInput {
    /// The input as `fpforge run` reads it.
    pub input: String,
    /// Relative error (`None`: infinite).
    pub rel_error: Option<f64>,
    /// Error in ulps (`None`: infinite).
    pub ulp_error: Option<f64>,
    /// Bits lost (`None`: infinite).
    pub bits_lost: Option<f64>,
}

impl WorstInput {
    /// The relative error as a number to compare, infinite when `null`.
    pub fn rel(&self) -> f64 {
        self.rel_error.unwrap_or(f64::INFINITY)
    }
}

/// An accuracy row's figures in `index.json`.
#[derive(Serialize)]
pub(super) struct MeasuredJson<'a> {
    evals: u64,
    crashes: usize,
    hangs: usize,
    seconds: f64,
    stop: Option<&'a str>,
    worst: Option<&'a WorstInput>,
}

impl<'a> MeasuredJson<'a> {
    pub(super) fn of(counts: &'a AccuracyCounts) -> Self {
        MeasuredJson {
            evals: counts.evals,
            crashes: counts.crashes,
            hangs: counts.hangs,
            seconds: counts.seconds,
            stop: counts.stop.as_deref(),
            worst: counts.worst.as_ref(),
        }
    }
}

/// The least accurate input of the whole run, and its function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorstOf {
    /// The function.
    pub function: String,
    /// Its worst input.
    #[serde(flatten)]
    pub input: WorstInput,
}

/// The `totals` of an accuracy run's `index.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AccuracyTotals {
    /// Functions in the index.
    pub functions: usize,
    /// Functions whose run ended.
    pub finished: usize,
    /// Functions that could not be tested.
    pub errors: usize,
    /// Functions not started.
    pub not_run: usize,
    /// Inputs evaluated.
    pub evals: u64,
    /// Crashes.
    pub crashes: usize,
    /// Hangs.
    pub hangs: usize,
    /// Distinct crashes and hangs (by fingerprint) over every function.
    pub distinct_findings: usize,
    /// The least accurate input of any function (the first in name order on a tie).
    pub worst: Option<WorstOf>,
}

/// An error as the summary prints it (`inf` for `null`).
fn shown(error: Option<f64>) -> String {
    error.map_or_else(|| "inf".to_string(), |e| format!("{e:.3e}"))
}

/// The summary of an accuracy run: one line per function, then the totals.
pub(super) fn summary(index: &Index) -> String {
    let width = index.name_width();
    let mut text = format!(
        "{:<width$}  {:>10} {:>10} {:>9} {:>7} {:>5} {:>9} {:>8}  {:<16}  worst input\n",
        "function",
        "rel error",
        "ulps",
        "bits lost",
        "crashes",
        "hangs",
        "evals",
        "seconds",
        "stop"
    );
    for row in &index.rows {
        let _ = match row.measured() {
            Some(c) => {
                let worst = c.worst.as_ref();
                writeln!(
                    text,
                    "{:<width$}  {:>10} {:>10} {:>9} {:>7} {:>5} {:>9} {:>8.2}  {:<16}  {}",
                    row.function,
                    worst.map_or("-".to_string(), |w| shown(w.rel_error)),
                    worst.map_or("-".to_string(), |w| shown(w.ulp_error)),
                    worst.map_or("-".to_string(), |w| w
                        .bits_lost
                        .map_or("inf".to_string(), |b| format!("{b:.1}"))),
                    c.crashes,
                    c.hangs,
                    c.evals,
                    c.seconds,
                    c.stop.as_deref().unwrap_or_default(),
                    worst.map_or("", |w| w.input.as_str())
                )
            }
            None => writeln!(text, "{}", row.unmeasured_line(width)),
        };
    }
    let t = index.accuracy_totals();
    let worst = t
        .worst
        .as_ref()
        .map_or("no input measured".to_string(), |w| {
            format!(
                "worst relative error {} in `{}` at {}",
                shown(w.input.rel_error),
                w.function,
                w.input.input
            )
        });
    let _ = writeln!(
        text,
        "total: {} functions ({} not testable, {} not run): {worst}, {} crashes, {} hangs{}, {} inputs, {:.1} s",
        t.functions, t.errors, t.not_run, t.crashes, t.hangs,
        super::distinct_words(t.crashes + t.hangs, t.distinct_findings), t.evals, index.seconds
    );
    text
}
