//! `fpforge confirm OUT`: a run's crashes and hangs confirmed natively after the fact.
//! Each function directory under `OUT` (`OUT` itself, or one per function of a library
//! run) that has a [`ProgramRecord`] gets its program loaded again as the record says,
//! its inputs planned as the run planned them, each finding its `findings[]` list
//! re-executed in fpforge (a finding that no longer traps is said so and not built) and
//! the rest replayed natively as `--confirm` does, into `OUT/.../findings/`.
//!
//! Wrong values of an accuracy run are not confirmed here: they need the run's oracle,
//! so `accuracy --confirm` checks them while it runs.

use crate::error::{DriverError, Result};
use crate::native::{confirm_natively, Defect, NativeCheck, Target};
use crate::note::Notes;
use crate::plan::planned_inputs;
use crate::record::ProgramRecord;
use fpforge_exec::{Concrete, ExecConfig, Finding, Interpreter, NoObserver, Outcome};
use fpforge_report::findings::{CrashRow, SavedFinding};
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::path::{Path, PathBuf};

/// What `fpforge confirm` found for one function directory.
#[derive(Debug)]
pub struct Reconfirmed {
    /// The function.
    pub function: String,
    /// Its directory.
    pub dir: PathBuf,
    /// The native check of each finding fpforge still sees.
    pub checks: Vec<NativeCheck>,
    /// The findings fpforge no longer sees: `crash 2: the input now returns`.
    pub gone: Vec<String>,
}

/// Confirms natively the crashes and hangs of the run in `out` (see the module docs).
pub fn confirm_saved(out: &Path, notes: Notes<'_>) -> Result<Vec<Reconfirmed>> {
    let dirs = function_dirs(out)?;
    if dirs.is_empty() {
        return Err(DriverError::Invalid(format!(
            "{} holds no run fpforge can confirm (no program.json: made by an fpforge before \
             `confirm` existed, or not an output directory)",
            out.display()
        )));
    }
    dirs.iter()
        .map(|(dir, record)| confirm_dir(dir, record, notes))
        .collect()
}

/// `out` when it is a function's directory, else its subdirectories that are, in name
/// order, each with its record.
fn function_dirs(out: &Path) -> Result<Vec<(PathBuf, ProgramRecord)>> {
    if let Some(record) = ProgramRecord::read(out)? {
        return Ok(vec![(out.to_path_buf(), record)]);
    }
    let listing = std::fs::read_dir(out).map_err(|e| DriverError::io("read", out, e))?;
    let mut dirs: Vec<PathBuf> = listing
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    let mut found = Vec::new();
    for dir in dirs {
        if let Some(record) = ProgramRecord::read(&dir)? {
            found.push((dir, record));
        }
    }
    Ok(found)
}

/// Confirms the findings of one function's directory.
fn confirm_dir(dir: &Path, record: &ProgramRecord, notes: Notes<'_>) -> Result<Reconfirmed> {
    let saved = crate::findings::collect(dir)?
        .into_iter()
        .flat_map(|entry| entry.findings)
        .filter(SavedFinding::is_fault)
        .collect::<Vec<SavedFinding>>();
    let mut reconfirmed = Reconfirmed {
        function: record.function.clone(),
        dir: dir.to_path_buf(),
        checks: Vec::new(),
        gone: Vec::new(),
    };
    if saved.is_empty() {
        return Ok(reconfirmed);
    }
    let program = record.program();
    let loaded = program.load(notes)?;
    let (module, func) = (&loaded.module, loaded.func);
    let specs = record.specs()?;
    let exec = ExecConfig::default().with_fuel(record.fuel);
    let spec = planned_inputs(module, func, (&specs.args, &specs.out_args), &exec, notes)?.spec;
    let replay = program.replay();
    let mut seen = Vec::new();
    for finding in &saved {
        match rerun(module, func, &spec, finding, &exec)? {
            Some(again) => seen.push(again),
            None => reconfirmed
                .gone
                .push(format!("{}: the input no longer traps", finding.file)),
        }
    }
    let rows: Vec<CrashRow> = seen
        .iter()
        .map(|(finding, number)| {
            CrashRow::new((module, func), &spec, finding, *number, (&replay, dir))
        })
        .collect();
    let defects: Vec<Defect<'_>> = seen
        .iter()
        .zip(&rows)
        .map(|((finding, _), row)| Defect::of_finding(finding, row))
        .collect();
    let target = Target {
        module,
        func,
        spec: &spec,
        build: &loaded.build,
    };
    reconfirmed.checks = confirm_natively(&target, &defects, dir)?;
    Ok(reconfirmed)
}

/// Runs `saved`'s input again: the finding it still is, with its number in the run
/// (from its file, `crashes/2.txt`), or `None` when it no longer traps.
fn rerun(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    saved: &SavedFinding,
    exec: &ExecConfig,
) -> Result<Option<(Finding, usize)>> {
    let coords = spec.parse_line(&saved.input).map_err(|e| {
        DriverError::Invalid(format!("{}: input `{}`: {e}", saved.file, saved.input))
    })?;
    let number = Path::new(&saved.file)
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut interp = Interpreter::new(module, Concrete, NoObserver, exec.clone())?;
    let run = interp.call(func, &spec.to_args(&coords))?;
    let Outcome::Trapped(trap) = run.outcome else {
        return Ok(None);
    };
    Ok(Finding::of(&trap, coords).map(|finding| (finding, number)))
}
