//! `fpforge reach`: an input that takes a given path (`--path`) or branch side
//! (`--branch`) of a function, or a proof that none exists (the `fpforge-explore`
//! engine's reach), printed as `fpforge_report::reach` shows it. `--emit-smt2 FILE`
//! writes the deciding path condition as SMT-LIB for other solvers. The input found is
//! run again: when it then crashes or hangs, the answer says how (`then crashes: ...`)
//! and the exit code is 3. Otherwise exit code 0 for every answer (reached, infeasible
//! and unknown are answers), 1 on errors, 130 when Ctrl-C stopped the search (the answer
//! so far, `unknown`, is printed first).

use crate::interrupt::interrupt_flag;
use crate::options::ReachOptions;
use crate::progress::Spinner;
use crate::search_exit;
use anyhow::{Context, Result};
use fpforge_driver::confirm::crash_of;
use fpforge_engine::{Engine, Stop};
use fpforge_explore::ReachVerdict;
use fpforge_report::reach::ReachOutcome;
use fpforge_spec::InputSpec;
use std::process::ExitCode;

/// Runs `fpforge reach`.
pub fn run(mut options: ReachOptions) -> Result<ExitCode> {
    options.budget = options.budget.with_interrupt(Some(interrupt_flag()));
    let loaded = super::load(&options.program)?;
    let (module, func) = (&loaded.module, loaded.func);
    let job = &options.job;
    let spec = InputSpec::for_function(module, func, &job.args, &job.out_args)?;
    let spinner = Spinner::new("reach", options.output.verbosity);
    spinner.say("searching".to_string());
    let reached = job.run(module, func, &options.budget, &mut |_| {});
    spinner.finish();
    let reached = reached?;
    let mut notes = String::new();
    if let (Some(file), ReachVerdict::Path(report)) = (&options.emit_smt2, &reached.verdict) {
        match &report.smt2 {
            Some(smt) => std::fs::write(file, smt)
                .with_context(|| format!("cannot write {}", file.display()))?,
            None => notes.push_str(
                "no SMT-LIB written: the path condition uses math functions SMT-LIB lacks\n",
            ),
        }
    }
    let exec = job.engine.exec.clone();
    let crash = match &reached.input {
        Some(bits) => crash_of(module, func, &spec, bits, exec)?,
        None => None,
    };
    let line = reached.input.as_ref().map(|bits| spec.line(bits));
    let name = module.funcs[func].display_name();
    let outcome = ReachOutcome::of(name, &reached, line).with_crash(crash.clone());
    if options.output.json {
        eprint!("{notes}");
        crate::output::emit(&outcome.to_json()?)?;
    } else {
        crate::output::emit(&(notes + &outcome.to_text()))?;
    }
    let interrupted = reached.stop == Stop::Interrupted;
    Ok(search_exit(interrupted, usize::from(crash.is_some())))
}
