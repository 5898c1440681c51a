//! `fpforge reach`: an input that takes a given path (`--path`) or branch side
//! (`--branch`) of a function, or a proof that none exists (the `fpforge-explore` engine),
//! printed as `fpforge_report::reach` shows it. `--emit-smt2 FILE` writes the deciding
//! path condition as SMT-LIB for other solvers. The input found is run again: when it
//! then crashes or hangs, the answer says how (`then crashes: ...`) and the exit code is
//! 3. Otherwise exit code 0 for every answer (reached, infeasible and unknown are
//! answers), 1 on errors, 130 when Ctrl-C stopped the search (the answer so far,
//! `unknown`, is printed first).

use crate::interrupt::interrupt_flag;
use crate::options::{ReachOptions, ReachTarget};
use crate::progress::Progress;
use crate::search_exit;
use anyhow::{Context, Result};
use fpforge_exec::{Concrete, Finding, Interpreter, NoObserver, Outcome};
use fpforge_explore::session::EngineConfig;
use fpforge_explore::{reach_path, reach_side, PathSpec, ReachAnswer, SideAnswer};
use fpforge_report::findings::FindingRow as CrashRow;
use fpforge_report::reach::ReachOutcome;
use fpforge_spec::InputSpec;
use fpir::{Func, Module};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// An answer in words, the input that takes the target, and the detail line.
type Answer = (String, Option<Vec<u64>>, String);

/// Runs `fpforge reach`.
pub fn run(mut options: ReachOptions) -> Result<ExitCode> {
    let interrupt = interrupt_flag();
    options.engine.config = options
        .engine
        .config
        .with_interrupt(Some(Arc::clone(&interrupt)));
    let loaded = options.program.load()?;
    let (module, func) = (&loaded.module, loaded.func);
    let engine = &options.engine;
    let spec = InputSpec::for_function(module, func, &engine.args, &engine.out_args)?;
    let mut notes = String::new();
    let spinner = Progress::new("reach", options.output.verbosity);
    spinner.say("searching".to_string());
    let answer = match &options.target {
        ReachTarget::Path(text) => path_answer(&options, module, func, &spec, text, &mut notes),
        ReachTarget::Branch(text) => side_answer(&options, module, func, &spec, text),
    };
    spinner.finish();
    let (answer, input, detail) = answer?;
    let crash = match &input {
        Some(bits) => crash_of(module, func, &spec, bits, &options.engine.config)?,
        None => None,
    };
    let outcome = ReachOutcome::new(
        module.funcs[func].display_name(),
        answer,
        input.map(|bits| spec.line(&bits)),
        detail,
    )
    .with_crash(crash.clone());
    if options.output.json {
        eprint!("{notes}");
        crate::output::emit(&outcome.to_json()?)?;
    } else {
        crate::output::emit(&(notes + &outcome.to_text()))?;
    }
    let findings = usize::from(crash.is_some());
    Ok(search_exit(interrupt.load(Ordering::Relaxed), findings))
}

/// Runs the input `bits` again: how it crashes or hangs, when it does (a fault, with
/// its place and call stack).
fn crash_of(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    bits: &[u64],
    config: &EngineConfig,
) -> Result<Option<String>> {
    let mut interp = Interpreter::new(module, Concrete, NoObserver, config.exec.clone())?;
    let run = interp.call(func, &spec.to_args(bits))?;
    let Outcome::Trapped(trap) = run.outcome else {
        return Ok(None);
    };
    let Some(finding) = Finding::of(&trap, bits.to_vec()) else {
        return Ok(None);
    };
    let row = CrashRow::new(module, spec, &finding, 1);
    let mut text = format!("{} in {} at {}", row.trap, row.function, row.location);
    if !row.stack.is_empty() {
        text += &format!(" (called from {})", row.stack.join(", called from "));
    }
    Ok(Some(text))
}

/// Reaches the path `text`, writing its condition as SMT-LIB when asked (a note in
/// `notes` when it cannot be written).
fn path_answer(
    options: &ReachOptions,
    module: &Module,
    func: Func,
    spec: &InputSpec,
    text: &str,
    notes: &mut String,
) -> Result<Answer> {
    let path = PathSpec::parse(text, module)?;
    let config = options.engine.config.clone();
    let emit = options.emit_smt2.is_some();
    let report = reach_path(module, func, spec.clone(), &path, config, emit)?;
    if let Some(file) = &options.emit_smt2 {
        match &report.smt2 {
            Some(smt) => std::fs::write(file, smt)
                .with_context(|| format!("cannot write {}", file.display()))?,
            None => notes.push_str(
                "no SMT-LIB written: the path condition uses math functions SMT-LIB lacks\n",
            ),
        }
    }
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
    Ok(match report.answer {
        ReachAnswer::Reached(input) => ("reached".to_string(), Some(input), detail),
        ReachAnswer::Infeasible { method, prefix } => (
            format!(
                "infeasible ({}; the first {prefix} decisions can be taken)",
                fpforge_report::labels::method(method)
            ),
            None,
            detail,
        ),
        ReachAnswer::Unknown(tried) => ("unknown".to_string(), None, tried),
    })
}

/// Reaches the branch side `text`.
fn side_answer(
    options: &ReachOptions,
    module: &Module,
    func: Func,
    spec: &InputSpec,
    text: &str,
) -> Result<Answer> {
    let side = module.parse_side(text)?;
    let start = std::time::Instant::now();
    let answer = reach_side(
        module,
        func,
        spec.clone(),
        side,
        options.engine.config.clone(),
    )?;
    let detail = format!("{:.3} s", start.elapsed().as_secs_f64());
    Ok(match answer {
        SideAnswer::Covered(input) => ("reached".to_string(), Some(input), detail),
        SideAnswer::Infeasible { method } => (
            format!("infeasible ({})", fpforge_report::labels::method(method)),
            None,
            detail,
        ),
        SideAnswer::Unknown(_) => ("unknown".to_string(), None, detail),
    })
}
