//! `fpforge cover`: generate inputs that take every branch side of a function (the
//! `fpforge-cover` engine, with concolic execution as its prover), stream them to an
//! output directory (`fpforge_report::CoverageOut`: `inputs.txt`, `coverage.json`,
//! `coverage.lcov`, `regression.c`), and print the summary. Ctrl-C (SIGINT) asks the
//! search to stop: the files are then completed as for a finished run, with stop reason
//! `interrupted`.

use crate::interrupt::interrupt_flag;
use crate::options::CoverOptions;
use crate::prover::ConcolicProver;
use crate::EXIT_FINDINGS;
use anyhow::Result;
use fpforge_cover::{cover_with, CoverEvent, SideProver};
use fpforge_report::{CoverageOut, Ending};
use fpforge_spec::InputSpec;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `fpforge cover`.
pub fn run(options: CoverOptions) -> Result<ExitCode> {
    let loaded = options.program.load()?;
    let prover = options.reach.then(|| {
        Arc::new(ConcolicProver {
            seed: options.config.seed,
        }) as Arc<dyn SideProver>
    });
    let config = options
        .config
        .with_prover(prover)
        .with_interrupt(Some(interrupt_flag()));
    let (module, func) = (&loaded.module, loaded.func);
    let spec = InputSpec::for_function(module, func, &config.args, &config.out_args)?;
    let mut out = CoverageOut::create(&options.out, "cover", module, func, spec)?;
    let progress = std::io::stderr().is_terminal();
    let report = cover_with(module, func, &config, |event| {
        out.cover_event(event);
        if let (
            true,
            CoverEvent::Progress {
                covered,
                total,
                evals,
                elapsed,
            },
        ) = (progress, event)
        {
            eprint!(
                "\r\x1b[Kcover: {covered}/{total} sides, {evals} evals, {:.1} s",
                elapsed.as_secs_f64()
            );
        }
    })?;
    if progress {
        eprint!("\r\x1b[K");
    }
    let finished = out.finish(&report.sides, &Ending::of_cover(&report))?;
    crate::output::emit(&finished.text)?;
    Ok(if finished.findings > 0 {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}
