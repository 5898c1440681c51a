//! The output directory of `accuracy`, kept current while it runs: `inputs.txt` (the
//! worst inputs so far, worst first), `report.json` (`finished: false` until the end)
//! and `report.html`, rewritten at most twice a second as new worst inputs
//! come, each crash or hang in its own file as found, and at the end the final report
//! and `errors.svg`, `report.json` last (its `finished` tells a resumed run that the
//! directory is complete). A run without a directory writes nothing and returns the
//! same.

use crate::error::Result;
use crate::native::NativeCheck;
use fpforge_accuracy::{AccuracyEvent, AccuracyNews, AccuracyReport, Oracle};
use fpforge_engine::{ErrorMetric, Event};
use fpforge_report::accuracy::{
    final_json, inputs_text, partial_json, top_rows, AccuracyProgress, ErrorRow, RunInfo,
};
use fpforge_report::errors_svg::errors_svg;
use fpforge_report::findings::{dir_name, CrashRow, SavedFinding};
use fpforge_report::html::{final_accuracy_page, partial_accuracy_page, REPORT_HTML};
use fpforge_report::outdir::INPUTS;
use fpforge_report::replay::Replay;
use fpforge_report::OutDir;
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::path::Path;
use std::time::{Duration, Instant};

/// The plot of the errors in the output directory.
const ERRORS_SVG: &str = "errors.svg";

/// The file of the JSON report in the output directory.
pub const REPORT: &str = "report.json";

/// Least time between two rewrites of the output files while the search runs.
const WRITE_INTERVAL: Duration = Duration::from_millis(500);

/// What the writer has heard of a running search.
pub struct AccuracyOut<'a> {
    out: Option<OutDir>,
    module: &'a Module,
    func: Func,
    spec: &'a InputSpec,
    replay: &'a Replay,
    info: RunInfo<'a>,
    top_k: usize,
    started: Instant,
    progress: AccuracyProgress,
    found: Vec<ErrorRow>,
    oracle: Option<Oracle>,
    metric: Option<ErrorMetric>,
    findings: Vec<CrashRow>,
    dirty: bool,
    last_write: Instant,
}

/// A finished search: the engine's report, when its last new worst input came, the
/// crashes and hangs (their files written as found), and `report.json`'s text.
pub struct Measured {
    /// The engine's report.
    pub report: AccuracyReport,
    /// Evaluations, time, and when the last new worst input came.
    pub progress: AccuracyProgress,
    /// The crashes and hangs, as `OUT/crashes/` and `OUT/hangs/` hold them.
    pub findings: Vec<CrashRow>,
    /// The final `report.json`.
    pub json: String,
    /// The line saying that (nearly) every probe run traps at one place, when it does.
    pub diagnostic: Option<String>,
    /// With `--confirm`, each wrong value's native check.
    pub native: Vec<NativeCheck>,
}

impl<'a> AccuracyOut<'a> {
    /// A writer of the run of `func` (inputs `spec`) into `out`, when there is one,
    /// keeping the `top_k` worst inputs; `replay` words the crashes' replay commands.
    pub fn new(
        out: Option<OutDir>,
        (module, func, spec): (&'a Module, Func, &'a InputSpec),
        replay: &'a Replay,
        info: RunInfo<'a>,
        top_k: usize,
    ) -> AccuracyOut<'a> {
        let started = Instant::now();
        AccuracyOut {
            out,
            module,
            func,
            spec,
            replay,
            info,
            top_k,
            started,
            progress: AccuracyProgress::default(),
            found: Vec::new(),
            oracle: None,
            metric: None,
            findings: Vec::new(),
            dirty: false,
            last_write: started,
        }
    }

    /// Records what the engine reports as it goes.
    pub fn event(&mut self, event: &AccuracyEvent<'_>) {
        match event {
            Event::Detail(AccuracyNews::Started { oracle, metric, .. }) => {
                self.oracle = Some((*oracle).clone());
                self.metric = Some(*metric);
            }
            Event::Finding { finding, .. } => self.crash(finding),
            Event::Detail(AccuracyNews::NewWorst { finding, evals }) => {
                self.progress.worst_found_s = self.started.elapsed().as_secs_f64();
                self.progress.worst_found_evals = *evals;
                self.found
                    .insert(0, ErrorRow::new(self.module, self.func, finding));
                self.found.truncate(self.top_k);
                self.dirty = true;
                self.write_if_due(*evals, self.started.elapsed());
            }
            Event::Progress(now) => self.write_if_due(now.evals, now.elapsed),
            Event::Started { .. } | Event::Test { .. } => {}
        }
    }

    /// Writes the crash's file as it is found.
    fn crash(&mut self, finding: &fpforge_exec::Finding) {
        let number = 1 + self
            .findings
            .iter()
            .filter(|f| f.kind == finding.kind.name())
            .count();
        let out_dir = self.out.as_ref().map_or(Path::new(""), OutDir::path);
        let row = CrashRow::new(
            (self.module, self.func),
            self.spec,
            finding,
            number,
            (self.replay, out_dir),
        );
        if let Some(out) = self.out.as_mut() {
            out.make_dir(dir_name(finding.kind));
            out.write(&row.file, &row.file_text());
        }
        self.findings.push(row);
    }

    /// Rewrites the files when new worst inputs came since the last rewrite, at most
    /// every [`WRITE_INTERVAL`].
    fn write_if_due(&mut self, evals: u64, elapsed: Duration) {
        if !self.dirty || self.last_write.elapsed() < WRITE_INTERVAL {
            return;
        }
        (self.last_write, self.dirty) = (Instant::now(), false);
        self.progress.evals = evals;
        self.progress.elapsed = elapsed;
        let info = RunInfo {
            oracle: self.oracle.as_ref(),
            metric: self.metric,
            ..self.info
        };
        if let Some(out) = self.out.as_mut() {
            out.write(INPUTS, &inputs_text(&self.found));
            match partial_json(info, self.progress, &self.found) {
                Ok(json) => out.write(REPORT, &json),
                Err(e) => out.fail(e),
            }
            out.write(
                REPORT_HTML,
                &partial_accuracy_page(info, self.progress, &self.found),
            );
        }
    }

    /// The search ended with `report` and its value `defects`: writes the final files and
    /// returns what it measured.
    pub fn finish(self, report: AccuracyReport, defects: &[SavedFinding]) -> Result<Measured> {
        let mut progress = self.progress;
        progress.evals = report.evals;
        progress.elapsed = report.elapsed;
        let info = RunInfo {
            findings: &self.findings,
            ..self.info
        };
        let json = final_json((info, progress), self.module, &report, defects)?;
        if let Some(mut out) = self.out {
            out.write(INPUTS, &inputs_text(&top_rows(self.module, &report)));
            let page = final_accuracy_page(
                info,
                progress,
                (self.module, self.replay.sources()),
                &report,
            );
            out.write(REPORT_HTML, &page);
            out.write(ERRORS_SVG, &errors_svg(&report));
            // Last: once it says `finished`, a resumed run keeps the directory as it is.
            out.write(REPORT, &json);
            out.finish()?;
        }
        Ok(Measured {
            report,
            progress,
            findings: self.findings,
            json,
            diagnostic: self.info.diagnostic.map(str::to_string),
            native: Vec::new(),
        })
    }
}
