//! `accuracy` on one function: the worst inputs streamed to an [`AccuracyOut`], and
//! `--check-input`, the worst input of an earlier report measured again.

use super::{value_defects, Job, JobBase, RunStatus, Task};
use crate::error::{DriverError, Result};
use crate::note::Notes;
use crate::out::{AccuracyOut, Measured};
use crate::plan::{planned_inputs, probe, Specs};
use fpforge_accuracy::{accuracy_with, check_input, implied_out_args, AccuracyConfig, Checked};
use fpforge_engine::{Engine, EngineKind, Event, Settings};
use fpforge_exec::ExecConfig;
use fpforge_report::accuracy::{read_worst, strategy_name, ErrorRow, RunInfo};
use fpforge_report::OutDir;
use fpir::{Func, Module};
use std::path::Path;

/// `accuracy` as the driver runs it.
#[derive(Debug, Clone)]
pub struct AccuracyJob {
    /// The engine's settings.
    pub config: AccuracyConfig,
    /// Each function's budget and the run-wide specs.
    pub base: JobBase,
}

/// The settings a report on `func` states, before any finding.
pub fn run_info<'a>(module: &'a Module, func: Func, config: &AccuracyConfig) -> RunInfo<'a> {
    RunInfo {
        function: module.funcs[func].display_name(),
        strategy: strategy_name(config.strategy),
        precision: config.precision,
        verify_precision: config.verify_precision,
        oracle: None,
        metric: None,
        findings: &[],
        diagnostic: None,
    }
}

impl AccuracyJob {
    /// The engine's settings for `func` with `specs`: pointer lengths fitted (a GSL `_e`
    /// function's result is an output, as the engine plans it).
    fn planned(
        &self,
        (module, func): (&Module, Func),
        specs: &Specs,
        notes: Notes<'_>,
    ) -> Result<(AccuracyConfig, fpforge_spec::InputSpec)> {
        let exec = ExecConfig::default().with_fuel(self.config.fuel);
        let outs = implied_out_args(module, func, &specs.out_args);
        let both = (specs.args.as_slice(), outs.as_slice());
        let planned = planned_inputs(module, func, both, &exec, notes)?;
        let config = self
            .config
            .clone()
            .with_args(planned.args)
            .with_out_args(specs.out_args.clone());
        Ok((config, planned.spec))
    }

    /// `--check-input`: the worst input of the report at `source`, measured again at the
    /// configured precision on `func`; that input as the report had it.
    pub fn check(
        &self,
        (module, func): (&Module, Func),
        source: &Path,
        notes: Notes<'_>,
    ) -> Result<(Checked, ErrorRow)> {
        let (config, _) = self.planned((module, func), &self.base.specs, notes)?;
        let text =
            std::fs::read_to_string(source).map_err(|e| DriverError::io("read", source, e))?;
        let invalid = |what: String| DriverError::Invalid(format!("{} {what}", source.display()));
        let worst = read_worst(&text)
            .map_err(|_| invalid("is not an fpforge accuracy report".to_string()))?
            .ok_or_else(|| invalid("reports no input".to_string()))?;
        let coords = worst
            .coord_bits()
            .map_err(|e| DriverError::Invalid(format!("{e} in {}", source.display())))?;
        let checked = check_input(module, func, &config, coords)?.ok_or_else(|| {
            DriverError::Invalid("the input traps or produces no result when run again".to_string())
        })?;
        Ok((checked, worst))
    }
}

impl Job for AccuracyJob {
    fn exec(&self) -> ExecConfig {
        ExecConfig::default().with_fuel(self.config.fuel)
    }

    const KIND: EngineKind = EngineKind::Accuracy;
    type Outcome = Measured;

    fn settings(&self) -> Settings {
        let AccuracyJob { config, base } = self;
        base.settings("accuracy", config.settings())
    }

    fn base(&self) -> &JobBase {
        &self.base
    }

    fn run(&self, task: Task<'_>) -> Result<Measured> {
        let (module, func) = (task.module, task.func);
        let (config, spec) = self.planned((module, func), &task.specs, task.notes)?;
        let exec = ExecConfig::default().with_fuel(config.fuel);
        let diagnostic = probe(module, func, &spec, exec, task.notes);
        let info = RunInfo {
            diagnostic: diagnostic.as_deref(),
            ..run_info(module, func, &config)
        };
        let out = task.out.map(OutDir::create).transpose()?;
        let mut writer =
            AccuracyOut::new(out, (module, func, &spec), &task.replay, info, config.top_k);
        let report = accuracy_with(module, func, &config, &task.budget, |event| {
            writer.event(event);
            if let Event::Progress(progress) = event {
                task.show(&RunStatus::from(progress));
            }
        })?;
        let values = value_defects::value_defects((module, func), &spec, &report);
        let rows = value_defects::saved_findings(&task, &spec, &values);
        let mut measured = writer.finish(report, &rows)?;
        measured.native = value_defects::confirm_values(
            &task,
            &spec,
            (&measured.report, &measured.findings),
            &values,
        )?;
        Ok(measured)
    }
}
