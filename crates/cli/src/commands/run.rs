//! `fpforge run`: execute a function on given arguments with the concrete interpreter and
//! print its report (`fpforge_report::run`): the result, the output arrays, the branch
//! sides taken, any trap, and what the program printed. A function named `main` is called
//! as C calls it, `main(argc, argv)` with the arguments after `--` (or `main()`).

use crate::options::RunOptions;
use crate::EXIT_TRAPPED;
use anyhow::Result;
use fpforge_exec::{Compilation, Concrete, ExecConfig, Interpreter};
use fpforge_report::run::RunReport;
use fpforge_report::trace::DecisionLog;
use fpforge_spec::call::call_args;
use std::process::ExitCode;

/// Runs `fpforge run`.
pub fn run(options: RunOptions) -> Result<ExitCode> {
    let loaded = super::load(&options.program)?;
    let arg_texts = &options.arguments;
    let is_main = loaded.module.funcs[loaded.func].name == "main";
    let call_args = if is_main {
        Vec::new()
    } else {
        call_args(&loaded.module, loaded.func, arg_texts)?
    };
    // One call: compiling it to native code would cost more than it saves.
    let mut config = ExecConfig::default()
        .with_compile(Compilation::Off)
        .with_rounding(options.rounding);
    if let Some(fuel) = options.fuel {
        config = config.with_fuel(fuel);
    }
    let mut interp = Interpreter::new(&loaded.module, Concrete, DecisionLog::default(), config)?;
    let run = if is_main {
        // argv[0] is the program as the user named it, as a shell passes it.
        let program = options
            .program
            .paths
            .first()
            .map_or_else(String::new, |p| p.display().to_string());
        let argv: Vec<String> = std::iter::once(program)
            .chain(arg_texts.iter().cloned())
            .collect();
        interp.call_main(loaded.func, &argv)?
    } else {
        interp.call(loaded.func, &call_args)?
    };
    let report = RunReport::new(
        &loaded.module,
        loaded.func,
        arg_texts,
        &call_args,
        &run,
        interp.observer(),
        &interp.output(),
    )
    .with_float_env(interp.float_env());
    if options.json {
        crate::output::emit(&report.to_json()?)?;
    } else {
        crate::output::emit(&report.to_text())?;
    }
    Ok(if report.trapped() {
        ExitCode::from(EXIT_TRAPPED)
    } else {
        ExitCode::SUCCESS
    })
}
