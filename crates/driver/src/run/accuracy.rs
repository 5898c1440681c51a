//! `accuracy` on one function: the worst inputs streamed to an [`AccuracyOut`], and
//! `--check-input`, the worst input of an earlier report measured again.

use super::{Job, JobBase, RunStatus, Task};
use crate::error::{DriverError, Result};
use crate::native::{confirm_natively, Confirm, Defect, NativeCheck, Target};
use crate::note::Notes;
use crate::out::{AccuracyOut, Measured};
use crate::plan::{planned_inputs, probe, Specs};
use fpforge_accuracy::measure::ErrorFinding;
use fpforge_accuracy::measure::OutputLoc;
use fpforge_accuracy::special::PoleAnswer;
use fpforge_accuracy::{
    accuracy_with, check_input, implied_out_args, AccuracyConfig, AccuracyReport, Checked,
    FloatBits, OracleKind,
};
use fpforge_engine::{Engine, EngineKind, Event, Settings};
use fpforge_exec::ExecConfig;
use fpforge_report::accuracy::{output_name, read_worst, strategy_name, ErrorRow, RunInfo};
use fpforge_report::findings::{value_fingerprint, CrashRow};
use fpforge_report::regression::Expect;
use fpforge_report::OutDir;
use fpforge_spec::InputSpec;
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
        let mut measured = writer.finish(report)?;
        measured.native = confirm_values(&task, &spec, (&measured.report, &measured.findings))?;
        Ok(measured)
    }
}

/// How far from the correctly rounded true value a reproducer accepts a result.
const VALUE_TOLERANCE_ULPS: u64 = 4;

/// With `--confirm`, the wrong special values of `report` (the inputs of `spec`) replayed
/// natively, each with its reproducer and report — a non-finite result where the true
/// value is finite, or a finite one, with success, where the function is undefined or
/// infinite — its worst input when that error is significant against the true function,
/// and its crashes and hangs (`rows` as the run wrote them).
fn confirm_values(
    task: &Task<'_>,
    spec: &InputSpec,
    (report, rows): (&AccuracyReport, &[CrashRow]),
) -> Result<Vec<NativeCheck>> {
    let (Confirm::Native, Some(out)) = (task.confirm, task.out) else {
        return Ok(Vec::new());
    };
    let (module, func) = (task.module, task.func);
    let entry = &module.funcs[func];
    let location = module.describe_loc(entry.loc);
    let values: Vec<ValueDefect> = report
        .special_values
        .iter()
        .filter(|s| {
            s.pole_answer()
                .is_none_or(|a| a == PoleAnswer::FiniteWithSuccess)
        })
        .filter_map(|special| ValueDefect::of(module, func, special.kind.label(), &special.finding))
        .chain(
            significant_error(report)
                .and_then(|worst| ValueDefect::of(module, func, "large error", worst)),
        )
        .fold(Vec::new(), |mut kept: Vec<ValueDefect>, value| {
            // One defect per function, result and kind: the first input shows it.
            if kept.iter().all(|k| k.fingerprint != value.fingerprint) {
                kept.push(value);
            }
            kept
        });
    let mut numbers = std::collections::BTreeMap::new();
    let faults = report.crashes.iter().zip(rows);
    let defects: Vec<Defect<'_>> = faults
        .map(|(finding, row)| Defect::of_finding(finding, row))
        .chain(values.iter().map(|value| {
            let number = numbers.entry(value.class).or_insert(0);
            *number += 1;
            Defect {
                name: format!("{}-{number}", value.class.replace(' ', "-")),
                class: value.class,
                what: value.what.clone(),
                coords: &value.coords,
                expect: value.expect,
                hang: false,
                place: (entry.display_name(), &location, &[]),
                loc: entry.loc,
                fingerprint: &value.fingerprint,
            }
        }))
        .collect();
    let target = Target {
        module,
        func,
        spec,
        flags: task.flags,
    };
    confirm_natively(&target, &defects, out)
}

/// The relative error from which the worst input's error is a defect to confirm: the
/// threshold ATOMU and FPCC call significant.
const SIGNIFICANT_ERROR: f64 = 1e-3;

/// The worst input of `report`, when its oracle is the true function and its error is
/// significant ([`SIGNIFICANT_ERROR`]) while its result is finite (a wrong special value
/// is confirmed as such).
fn significant_error(report: &AccuracyReport) -> Option<&ErrorFinding> {
    let worst = report.top.first()?;
    let true_function = report.oracle.kind() == OracleKind::TrueFunction;
    (true_function && worst.computed.is_finite() && worst.error.rel >= SIGNIFICANT_ERROR)
        .then_some(worst)
}

/// `x` in the shortest decimal that reads back as it.
fn decimal(x: f64) -> String {
    fpforge_spec::spec::decimal_text(fpir::Type::F64, x.to_bits())
}

/// A wrong value the accuracy run found, as a reproducer checks it.
struct ValueDefect {
    class: &'static str,
    what: String,
    coords: Vec<u64>,
    expect: Expect,
    fingerprint: String,
}

impl ValueDefect {
    fn of(
        module: &Module,
        func: Func,
        class: &'static str,
        finding: &ErrorFinding,
    ) -> Option<ValueDefect> {
        let FloatBits::Ieee(ty, _) = finding.computed else {
            return None;
        };
        let output = match finding.output {
            OutputLoc::Return => None,
            OutputLoc::Element { param, index } => Some((param, index)),
        };
        let name = output_name(module, func, finding.output);
        Some(ValueDefect {
            class,
            what: format!(
                "{name} is {} where the true value is {} ({:.3e} ulps, relative error {:.3e})",
                decimal(finding.computed.to_f64()),
                decimal(finding.reference.to_f64()),
                finding.error.ulps,
                finding.error.rel
            ),
            coords: finding.test.coords.clone(),
            expect: Expect::Value {
                output,
                expected: finding.reference.round_bits(ty),
                max_ulps: VALUE_TOLERANCE_ULPS,
            },
            fingerprint: value_fingerprint(&module.funcs[func].name, class, &name),
        })
    }
}
