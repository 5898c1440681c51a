//! The answer of `fpforge reach`: `reached` with the input (an `inputs.txt` line),
//! `infeasible (METHOD...)`, or `unknown` with what was tried; as text or JSON
//! (`function`, `status` — the answer's first word —, `answer`, `input`, `crash`,
//! `detail`). An input whose run crashes or hangs after taking the target says so
//! (`crash`: the trap, its place and call stack), and the command exits 3.

use fpforge_explore::{ReachAnswer, ReachReport, ReachVerdict, Reached, SideAnswer};
use serde::Serialize;

/// What `reach` found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReachOutcome {
    /// The function.
    pub function: String,
    /// `reached`, `infeasible` or `unknown`.
    pub status: String,
    /// The answer in words: `reached`, `infeasible (interval labeling; ...)`, `unknown`.
    pub answer: String,
    /// The input that takes the path or side, as `fpforge run` reads it.
    pub input: Option<String>,
    /// What the input's run then does when it crashes or hangs: `integer division by
    /// zero in f at f.c:3:5 (called from g at g.c:9:2)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash: Option<String>,
    /// Runs, queries and time, or what was tried.
    pub detail: String,
}

impl ReachOutcome {
    /// The outcome of `function` with `answer` (its first word is the status).
    pub fn new(function: &str, answer: String, input: Option<String>, detail: String) -> Self {
        ReachOutcome {
            function: function.to_string(),
            status: answer.split(' ').next().unwrap_or("unknown").to_string(),
            answer,
            input,
            crash: None,
            detail,
        }
    }

    /// The outcome of a reach run on `function` whose input, when it found one, reads as
    /// `input`.
    pub fn of(function: &str, reached: &Reached, input: Option<String>) -> Self {
        let (answer, detail) = match &reached.verdict {
            ReachVerdict::Path(report) => path_words(report),
            ReachVerdict::Side(answer) => side_words(answer, reached.elapsed.as_secs_f64()),
        };
        ReachOutcome::new(function, answer, input, detail)
    }

    /// The same outcome, whose input then crashes or hangs as `crash` says.
    pub fn with_crash(self, crash: Option<String>) -> Self {
        ReachOutcome { crash, ..self }
    }

    /// As text: the answer, the input, the detail, a line each.
    pub fn to_text(&self) -> String {
        let mut text = format!("{}\n", self.answer);
        if let Some(line) = &self.input {
            text.push_str(&format!("input: {line}\n"));
        }
        if let Some(crash) = &self.crash {
            text.push_str(&format!("then crashes: {crash}\n"));
        }
        text.push_str(&format!("{}\n", self.detail));
        text
    }

    /// As JSON.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }
}

/// A path's answer in words, and the detail line.
fn path_words(report: &ReachReport) -> (String, String) {
    let q = report.queries;
    let detail = format!(
        "{} runs, {} queries ({} sat, {} unsat, {} unknown), {:.3} s",
        report.runs,
        q.queries,
        q.sat,
        q.unsat,
        q.unknown,
        report.elapsed.as_secs_f64()
    );
    match &report.answer {
        ReachAnswer::Reached(_) => ("reached".to_string(), detail),
        ReachAnswer::Infeasible { method, prefix } => (
            format!(
                "infeasible ({}; the first {prefix} decisions can be taken)",
                crate::labels::method(*method)
            ),
            detail,
        ),
        ReachAnswer::Unknown(tried) => ("unknown".to_string(), tried.clone()),
    }
}

/// A side's answer in words, and the detail line (the seconds it took).
fn side_words(answer: &SideAnswer, seconds: f64) -> (String, String) {
    let detail = format!("{seconds:.3} s");
    match answer {
        SideAnswer::Covered(_) => ("reached".to_string(), detail),
        SideAnswer::Infeasible { method } => (
            format!("infeasible ({})", crate::labels::method(*method)),
            detail,
        ),
        SideAnswer::Unknown(_) => ("unknown".to_string(), detail),
    }
}
