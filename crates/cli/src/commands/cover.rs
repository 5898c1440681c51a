//! `fpforge cover`: generate inputs that take every branch side of a function (the
//! `fpforge-cover` engine), stream them to an output directory, and summarize what was
//! covered and what was not reached.
//!
//! The output directory holds `inputs.txt` (one test per line, exact arguments that
//! `fpforge run FILE -f FUNC -- <line>` reads back; appended and flushed as tests are
//! found), `coverage.json` (per site: id, location, each side's status and witness test,
//! its 0-based line in `inputs.txt`), `coverage.lcov` (`BRDA` records) and `regression.c`
//! (a C99 program calling FUNC on every test and printing the results, see
//! [`fpforge_cover::emit_c()`]); these three are rewritten atomically when the search
//! starts and after every new test, so an interrupted run leaves a valid directory.

use crate::inputs::{split_items, ProgramArgs};
use crate::values::compact;
use anyhow::{bail, Context, Result};
use clap::Args;
use fpforge_cover::report::lcov;
use fpforge_cover::{
    cover_with, emit_c, Arm, CoverConfig, CoverEvent, CoverReport, Side, SideReport, SideStatus,
    Test,
};
use fpir::{Func, Module, Terminator};
use serde::Serialize;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Flags of `fpforge cover`.
#[derive(Args, Debug)]
pub struct CoverArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// Wall-clock budget in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    time_limit: f64,
    /// Seed of the search; the same seed and `--evals` give the same inputs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Number of starting points of the search.
    #[arg(long, value_name = "N", default_value_t = 500)]
    starts: u32,
    /// Evaluation budget; a run that ends by it rather than by the time limit is
    /// reproducible.
    #[arg(long, value_name = "N")]
    evals: Option<u64>,
    /// Also cover the branches of the functions FUNC calls.
    #[arg(long)]
    deep: bool,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "fpforge-out")]
    out: PathBuf,
}

#[derive(Serialize)]
struct SideRow {
    side: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<usize>,
}

#[derive(Serialize)]
struct SiteRow {
    id: String,
    location: String,
    sides: Vec<SideRow>,
}

#[derive(Serialize)]
struct CoverageJson<'a> {
    function: &'a str,
    finished: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<String>,
    covered: usize,
    total: usize,
    tests: usize,
    evals: u64,
    sites: Vec<SiteRow>,
}

/// The output directory, kept current while the search runs.
struct OutDir<'m> {
    module: &'m Module,
    func: Func,
    dir: PathBuf,
    inputs: File,
    sides: Vec<Side>,
    witness: Vec<Option<usize>>,
    tests: Vec<Test>,
    evals: u64,
    /// The first write error; later writes are skipped and it is reported at the end.
    error: Option<anyhow::Error>,
    progress: bool,
}

impl OutDir<'_> {
    fn on_event(&mut self, event: &CoverEvent<'_>) {
        if self.error.is_some() {
            return;
        }
        let result = match event {
            CoverEvent::Started { sides } => {
                self.sides = sides.to_vec();
                self.witness = vec![None; sides.len()];
                self.write_files(None)
            }
            CoverEvent::Test {
                index,
                test,
                new_sides,
            } => {
                for side in *new_sides {
                    if let Some(i) = self.sides.iter().position(|s| s == side) {
                        self.witness[i] = Some(*index);
                    }
                }
                self.tests.truncate(*index);
                self.tests.push((*test).clone());
                writeln!(self.inputs, "{}", test.line())
                    .and_then(|()| self.inputs.flush())
                    .context("cannot write inputs.txt")
                    .and_then(|()| self.write_files(None))
            }
            CoverEvent::Progress {
                covered,
                total,
                evals,
                elapsed,
            } => {
                self.evals = *evals;
                if self.progress {
                    eprint!(
                        "\r\x1b[Kcover: {covered}/{total} sides, {evals} evals, {:.1} s",
                        elapsed.as_secs_f64()
                    );
                }
                Ok(())
            }
        };
        if let Err(err) = result {
            self.error = Some(err);
        }
    }

    /// Rewrites `coverage.json` and `coverage.lcov` from the state so far (`report` once
    /// the search has ended).
    fn write_files(&self, report: Option<&CoverReport>) -> Result<()> {
        if let Ok(c) = emit_c(self.module, self.func, &self.tests) {
            write_atomic(&self.dir.join("regression.c"), &c)?;
        }
        let sides: Vec<SideReport> = self
            .sides
            .iter()
            .zip(&self.witness)
            .map(|(&side, witness)| SideReport {
                side,
                loc: self.module.branch_sites[side.site].loc,
                status: witness.map_or(SideStatus::NotReached, |test| SideStatus::Covered { test }),
            })
            .collect();
        write_atomic(
            &self.dir.join("coverage.lcov"),
            &lcov(self.module, self.func, &sides),
        )?;
        let mut sites: Vec<SiteRow> = Vec::new();
        for (side, witness) in self.sides.iter().zip(&self.witness) {
            if sites.last().is_none_or(|s| s.id != side.site.to_string()) {
                sites.push(SiteRow {
                    id: side.site.to_string(),
                    location: self
                        .module
                        .describe_loc(self.module.branch_sites[side.site].loc),
                    sides: Vec::new(),
                });
            }
            let row = match witness {
                Some(test) => SideRow {
                    side: arm_text(self.module, *side),
                    status: "covered",
                    test: Some(*test),
                },
                None => SideRow {
                    side: arm_text(self.module, *side),
                    status: "not reached",
                    test: None,
                },
            };
            if let Some(site) = sites.last_mut() {
                site.sides.push(row);
            }
        }
        let json = CoverageJson {
            function: &self.module.funcs[self.func].name,
            finished: report.is_some(),
            stop: report.map(|r| r.stop.to_string()),
            covered: self.witness.iter().filter(|w| w.is_some()).count(),
            total: self.sides.len(),
            tests: self.tests.len(),
            evals: report.map_or(self.evals, |r| r.evals),
            sites,
        };
        write_atomic(
            &self.dir.join("coverage.json"),
            &(serde_json::to_string_pretty(&json)? + "\n"),
        )
    }
}

/// Writes `text` to a temporary file beside `path` and renames it over `path`.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text)
        .and_then(|()| fs::rename(&tmp, path))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `T`/`F` for conditional branches; `case V` or `default` for switches.
fn arm_text(module: &Module, side: Side) -> String {
    match side.arm {
        Arm::Then => "T".to_string(),
        Arm::Else => "F".to_string(),
        Arm::Default => "default".to_string(),
        Arm::Case(i) => {
            let data = &module.branch_sites[side.site];
            match &module.funcs[data.func].blocks[data.block].term {
                Terminator::Switch { ty, cases, .. } => cases
                    .get(i as usize)
                    .map(|c| format!("case {}", compact(*ty, c.value)))
                    .unwrap_or_else(|| format!("case #{i}")),
                _ => format!("case #{i}"),
            }
        }
    }
}

/// Runs `fpforge cover`.
pub fn run(args: CoverArgs) -> Result<ExitCode> {
    let (paths, rest) = split_items(&args.items)?;
    if let Some(extra) = rest.first() {
        bail!("unexpected argument `{extra}`: `cover` takes input files only");
    }
    let time_limit = Duration::try_from_secs_f64(args.time_limit)
        .ok()
        .filter(|t| !t.is_zero())
        .with_context(|| {
            format!(
                "--time-limit must be a positive number of seconds, not {:?}",
                args.time_limit
            )
        })?;
    let loaded = args.program.load(&paths)?;
    let config = CoverConfig::default()
        .with_seed(args.seed)
        .with_time_limit(Some(time_limit))
        .with_n_start(args.starts)
        .with_max_evals(args.evals)
        .with_deep(args.deep);
    fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let inputs_path = args.out.join("inputs.txt");
    let inputs = File::create(&inputs_path)
        .with_context(|| format!("cannot create {}", inputs_path.display()))?;
    let mut out = OutDir {
        module: &loaded.module,
        func: loaded.func,
        dir: args.out.clone(),
        inputs,
        sides: Vec::new(),
        witness: Vec::new(),
        tests: Vec::new(),
        evals: 0,
        error: None,
        progress: std::io::stderr().is_terminal(),
    };
    let report = cover_with(&loaded.module, loaded.func, &config, |event| {
        out.on_event(event)
    })?;
    if out.progress {
        eprint!("\r\x1b[K");
    }
    if let Some(err) = out.error.take() {
        return Err(err);
    }
    out.write_files(Some(&report))?;
    let mut text = summary(&loaded.module, &report, &args.out);
    if let Err(err) = emit_c(&loaded.module, loaded.func, &report.tests) {
        let _ = writeln!(text, "no regression.c: {err}");
    }
    crate::output::emit(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn summary(module: &Module, report: &CoverReport, out: &Path) -> String {
    let mut text = String::new();
    let total = report.sides.len();
    let covered = report.covered();
    let percent = if total == 0 {
        100.0
    } else {
        100.0 * covered as f64 / total as f64
    };
    let name = &module.funcs[report.func].name;
    let _ = writeln!(
        text,
        "{name}: covered {covered}/{total} branch sides ({percent:.1}%) with {} tests",
        report.tests.len()
    );
    let _ = writeln!(
        text,
        "{} evaluations, {} starts, {:.2} s; stopped: {}",
        report.evals,
        report.starts,
        report.elapsed.as_secs_f64(),
        report.stop
    );
    let missing: Vec<_> = report
        .sides
        .iter()
        .filter(|s| s.status == SideStatus::NotReached)
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(text, "uncovered:");
        let _ = writeln!(
            text,
            "  {:<8} {:<10} {:<40} status",
            "site", "side", "location"
        );
        for s in missing {
            let _ = writeln!(
                text,
                "  {:<8} {:<10} {:<40} not reached",
                s.side.site.to_string(),
                arm_text(module, s.side),
                module.describe_loc(s.loc)
            );
        }
    }
    let _ = writeln!(
        text,
        "wrote {}/inputs.txt, coverage.json, coverage.lcov, regression.c",
        out.display()
    );
    text
}
