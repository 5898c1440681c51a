//! `fpforge run`: execute a function on given arguments with the concrete interpreter and
//! print its report (`fpforge_report::run`): the result, the output arrays, the branch
//! sides taken and any trap.

use crate::inputs::{split_items, Loaded, ProgramArgs};
use crate::values::parse_arg;
use crate::EXIT_TRAPPED;
use anyhow::{bail, Context, Result};
use clap::Args;
use fpforge_exec::{Arg, Compilation, Concrete, ExecConfig, Interpreter};
use fpforge_report::run::RunReport;
use fpforge_report::trace::DecisionLog;
use fpir::{Function, Module};
use std::process::ExitCode;

/// Flags of `fpforge run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories, then the function's arguments:
    /// floats (`1.5`, `0x1.8p+1`, `-inf`, `nan`, `raw:7ff8000000000001`), integers,
    /// arrays for pointer parameters (`[1.5, 0x1p-3]`). Negative decimal numbers work
    /// as they are; put `--` before other arguments that start with `-` (`-inf`, `-0x1p-3`).
    #[arg(required = true, allow_negative_numbers = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// Instruction budget; running out is reported as a trap.
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `fpforge run`.
pub fn run(args: RunArgs) -> Result<ExitCode> {
    let (paths, arg_texts) = split_items(&args.items)?;
    let loaded = args.program.load(&paths)?;
    let call_args = parse_call_args(&loaded, &arg_texts)?;
    // One call: compiling it to native code would cost more than it saves.
    let mut config = ExecConfig::default().with_compile(Compilation::Off);
    if let Some(fuel) = args.fuel {
        config = config.with_fuel(fuel);
    }
    let mut interp = Interpreter::new(&loaded.module, Concrete, DecisionLog::default(), config)?;
    let run = interp.call(loaded.func, &call_args)?;
    let report = RunReport::new(
        &loaded.module,
        loaded.func,
        &arg_texts,
        &call_args,
        &run,
        interp.observer(),
    );
    if args.json {
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

fn parse_call_args(loaded: &Loaded, texts: &[String]) -> Result<Vec<Arg>> {
    let func = &loaded.module.funcs[loaded.func];
    let types = func.param_types();
    let hidden = func.sret_elem();
    let first_visible = usize::from(hidden.is_some());
    if texts.len() != types.len() - first_visible {
        bail!(
            "`{}` takes {} argument(s) ({}), {} given",
            func.name,
            types.len() - first_visible,
            signature(&loaded.module, loaded.func),
            texts.len()
        );
    }
    let result_buffer = hidden.map(|elem| Arg::Array {
        elem,
        values: vec![0; (Function::SRET_BYTES / elem.bytes()) as usize],
    });
    let given = texts
        .iter()
        .zip(&types[first_visible..])
        .enumerate()
        .map(|(i, (text, &ty))| {
            let pointee = func
                .param_pointees
                .get(i + first_visible)
                .copied()
                .flatten();
            parse_arg(text, ty, pointee)
                .with_context(|| format!("argument {} of `{}`", i + 1, func.name))
        });
    result_buffer.into_iter().map(Ok).chain(given).collect()
}

/// `x: f64, a: ptr<f64>` for error messages.
fn signature(module: &Module, func: fpir::Func) -> String {
    let f = &module.funcs[func];
    let first_visible = usize::from(f.sret_elem().is_some());
    f.param_types()
        .iter()
        .enumerate()
        .skip(first_visible)
        .map(|(i, ty)| {
            let name = f
                .param_names
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("arg{}", i + 1));
            match f.param_pointees.get(i).copied().flatten() {
                Some(p) => format!("{name}: {p}*"),
                None => format!("{name}: {ty}"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
