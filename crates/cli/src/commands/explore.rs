//! `fpforge explore`: generational, coverage-first path exploration of a function (the
//! `fpforge-explore` engine). Writes `inputs.txt` (one test per line, exact texts that
//! `fpforge run FILE -f FUNC -- <line>` reads back, appended as tests are found) and
//! `coverage.json` (per site: each side covered with its test, infeasible with the
//! proof, or not reached), and prints a summary.

use super::reach::EngineArgs;
use crate::inputs::{split_items, ProgramArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use fpforge_explore::output::coverage_json;
use fpforge_explore::{explore, ExploreConfig, ExploreEvent};
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Flags of `fpforge explore`.
#[derive(Args, Debug)]
pub struct ExploreArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "fpforge-out")]
    out: PathBuf,
}

/// Runs `fpforge explore`.
pub fn run(args: ExploreArgs) -> Result<ExitCode> {
    let (paths, rest) = split_items(&args.items)?;
    if let Some(extra) = rest.first() {
        bail!("unexpected argument `{extra}`: `explore` takes input files only");
    }
    let loaded = args.program.load(&paths)?;
    let (module, func) = (&loaded.module, loaded.func);
    let spec = args.engine.spec(module, func)?;
    let config = ExploreConfig::default().with_engine(args.engine.config()?);
    fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let inputs_path = args.out.join("inputs.txt");
    let mut inputs = File::create(&inputs_path)
        .with_context(|| format!("cannot create {}", inputs_path.display()))?;
    let mut write_error: Option<std::io::Error> = None;
    let report = explore(module, func, spec.clone(), &config, |event| {
        if let ExploreEvent::Test { input, .. } = event {
            if write_error.is_none() {
                if let Err(e) =
                    writeln!(inputs, "{}", spec.line(input)).and_then(|()| inputs.flush())
                {
                    write_error = Some(e);
                }
            }
        }
    })?;
    if let Some(e) = write_error {
        return Err(e).context("cannot write inputs.txt");
    }
    let json_path = args.out.join("coverage.json");
    fs::write(&json_path, coverage_json(module, &report))
        .with_context(|| format!("cannot write {}", json_path.display()))?;
    let mut text = String::new();
    let name = &module.funcs[func].name;
    let _ = writeln!(
        text,
        "{name}: covered {}/{} branch sides, {} proved infeasible, with {} tests",
        report.covered(),
        report.sides.len(),
        report.infeasible(),
        report.tests.len()
    );
    let _ = writeln!(
        text,
        "{} paths, {} runs, {} queries ({} sat, {} unsat, {} unknown), {:.2} s; stopped: {}",
        report.paths,
        report.runs,
        report.queries.queries,
        report.queries.sat,
        report.queries.unsat,
        report.queries.unknown,
        report.elapsed.as_secs_f64(),
        report.stop
    );
    let open: Vec<_> = report
        .sides
        .iter()
        .filter(|s| !s.status.is_covered())
        .collect();
    if !open.is_empty() {
        let _ = writeln!(text, "uncovered:");
        let _ = writeln!(
            text,
            "  {:<8} {:<10} {:<40} status",
            "site", "side", "location"
        );
        for s in open {
            let _ = writeln!(
                text,
                "  {:<8} {:<10} {:<40} {}",
                s.side.site.to_string(),
                module.arm_name(s.side.site, s.side.arm),
                module.describe_loc(module.branch_sites[s.side.site].loc),
                s.status
            );
        }
    }
    let _ = writeln!(
        text,
        "wrote {}/inputs.txt, coverage.json",
        args.out.display()
    );
    crate::output::emit(&text)?;
    Ok(ExitCode::SUCCESS)
}
