//! The output directory of `cover` and `explore`, kept current while they run: each new
//! test rewrites `inputs.txt`, and each new test or finding rewrites `regression.c`,
//! `coverage.lcov`, `report.html` and `coverage.json` (so an interrupted run leaves every
//! file with what it found), plus the finding's own file; the end of the run rewrites
//! them with the final statuses, `coverage.json` last (its `finished` tells a resumed run
//! that the directory is complete), and writes the JUnit file when one was asked for.

use crate::confirm::regression_test;
use crate::error::Result;
use crate::minimize::{behaviours, greedy_cover, Behaviour};
use fpforge_engine::{Event, NoDetail};
use fpforge_exec::{Concrete, ExecConfig, Finding, FindingKind, Interpreter, NoObserver};
use fpforge_report::coverage::{Coverage, Ending};
use fpforge_report::findings::{dir_name, CrashRow};
use fpforge_report::html::{coverage_page, Sources, REPORT_HTML};
use fpforge_report::junit::junit_xml;
use fpforge_report::lcov::lcov;
use fpforge_report::outdir::{write_atomic, OutDir, INPUTS};
use fpforge_report::regression::{regression_c, regression_file, RegressionTest};
use fpforge_report::replay::Replay;
use fpforge_spec::InputSpec;
use fpir::{Func, MissReason, Module, Side, SideReport, SideStatus, Witness};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a finished coverage run prints, how many crashes and hangs it found (a command
/// exits with code 3 when there are any) and its feasible coverage (what `--fail-under`
/// compares).
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    /// The summary.
    pub text: String,
    /// The crashes and hangs, as `OUT/crashes/` and `OUT/hangs/` hold them.
    pub findings: Vec<CrashRow>,
    /// `100 × covered / (sides − infeasible)` over the program's own branch sides
    /// ([`Coverage::feasible_percent`]).
    pub feasible_percent: f64,
}

/// An output directory kept current while `cover` or `explore` runs (see the module
/// docs).
pub struct CoverageOut<'m> {
    out: OutDir,
    module: &'m Module,
    func: Func,
    spec: InputSpec,
    engine: &'static str,
    started: Instant,
    sides: Vec<Side>,
    witness: Vec<Option<Witness>>,
    tests: Vec<RegressionTest>,
    /// Per finding, its input when it calls a function the run left undefined: an
    /// unchecked test of the regression file.
    undefined_calls: Vec<Option<Vec<u64>>>,
    /// The tests' lines of `inputs.txt`.
    inputs: Vec<String>,
    found_at: Vec<Duration>,
    /// The source files `report.html` shows, read once.
    sources: Sources,
    replay: Replay,
    /// Where the JUnit file goes, if anywhere.
    junit: Option<PathBuf>,
    /// Computes each test's expected results for `regression.c`.
    results: Interpreter<'m, Concrete, NoObserver>,
    findings: Vec<CrashRow>,
    /// The line saying that nearly every run traps at one place, if a probe found so.
    diagnostic: Option<String>,
    /// Why `regression.c` cannot be written, if it cannot.
    no_regression: Option<String>,
    /// Whether the end of the run keeps only the tests coverage needs ([`crate::minimize`]).
    minimize: TestSet,
}

/// Which tests the end of a run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestSet {
    /// Every test the engine kept.
    All,
    /// The fewest tests that take every covered side ([`crate::minimize`]).
    Minimized,
}

impl TestSet {
    /// `all` or `minimized`.
    pub fn name(self) -> &'static str {
        match self {
            TestSet::All => "all",
            TestSet::Minimized => "minimized",
        }
    }
}

impl<'m> CoverageOut<'m> {
    /// Creates the directory for `engine`'s run on `func`, whose inputs `spec` describes;
    /// `replay` words the findings' replay commands and says where the sources are.
    pub fn create(
        dir: &Path,
        engine: &'static str,
        (module, func): (&'m Module, Func),
        spec: InputSpec,
        replay: Replay,
    ) -> Result<CoverageOut<'m>> {
        let results = Interpreter::new(module, Concrete, NoObserver, ExecConfig::default())?;
        Ok(CoverageOut {
            out: OutDir::create(dir)?,
            results,
            module,
            func,
            spec,
            engine,
            started: Instant::now(),
            sides: Vec::new(),
            witness: Vec::new(),
            tests: Vec::new(),
            undefined_calls: Vec::new(),
            inputs: Vec::new(),
            found_at: Vec::new(),
            sources: Sources::new(replay.sources().clone()),
            replay,
            junit: None,
            findings: Vec::new(),
            diagnostic: None,
            no_regression: None,
            minimize: TestSet::Minimized,
        })
    }

    /// Which tests the end of the run keeps (default: minimized).
    pub fn with_test_set(mut self, tests: TestSet) -> Self {
        self.minimize = tests;
        self
    }

    /// Records in `coverage.json` that (nearly) every run traps at one place
    /// ([`fpforge_report::findings::every_run_traps`]).
    pub fn with_diagnostic(mut self, diagnostic: Option<String>) -> Self {
        self.diagnostic = diagnostic;
        self
    }

    /// Also writes the JUnit XML file `path` (outside the directory, as CI jobs want it)
    /// when the run ends.
    pub fn with_junit(mut self, path: Option<PathBuf>) -> Self {
        self.junit = path;
        self
    }

    /// Records what a `cover` or `explore` run reports as it goes (progress writes
    /// nothing).
    pub fn event(&mut self, event: &Event<'_, NoDetail>) {
        match event {
            Event::Started { sides } => self.started(sides),
            Event::Test {
                index,
                coords,
                new_sides,
            } => self.test(*index, coords, new_sides),
            Event::Finding {
                index,
                finding,
                new_sides,
            } => self.finding(*index, finding, new_sides),
            Event::Progress(_) => {}
            Event::Detail(none) => match *none {},
        }
    }

    /// The run starts on these sides: writes the files with none covered.
    pub fn started(&mut self, sides: &[Side]) {
        self.sides = sides.to_vec();
        self.witness = vec![None; sides.len()];
        self.rewrite(None);
    }

    /// Test `index` (coordinate bits `coords`) took `new_sides` first.
    pub fn test(&mut self, index: usize, coords: &[u64], new_sides: &[Side]) {
        self.credit(new_sides, Witness::Test(index));
        let test = regression_test(&mut self.results, self.func, &self.spec, coords);
        self.tests.truncate(index);
        self.tests
            .push(test.unwrap_or_else(|| unchecked_test(coords)));
        self.found_at.truncate(index);
        self.found_at.push(self.started.elapsed());
        self.inputs.truncate(index);
        self.inputs.push(self.spec.line(coords));
        self.write_inputs();
        self.rewrite(None);
    }

    /// Finding `index` took `new_sides` first: writes its file and the coverage files.
    pub fn finding(&mut self, index: usize, finding: &Finding, new_sides: &[Side]) {
        self.credit(new_sides, Witness::Finding(index));
        let number = 1 + self
            .findings
            .iter()
            .filter(|f| f.kind == finding.kind.name())
            .count();
        let row = CrashRow::new(
            (self.module, self.func),
            &self.spec,
            finding,
            number,
            (&self.replay, self.out.path()),
        );
        self.out.make_dir(dir_name(finding.kind));
        self.out.write(&row.file, &row.file_text());
        self.findings.truncate(index);
        self.findings.push(row);
        self.undefined_calls.truncate(index);
        self.undefined_calls
            .push((finding.kind == FindingKind::Undefined).then(|| finding.coords.clone()));
        self.rewrite(None);
    }

    fn credit(&mut self, new_sides: &[Side], witness: Witness) {
        for side in new_sides {
            if let Some(i) = self.sides.iter().position(|s| s == side) {
                self.witness[i] = Some(witness);
            }
        }
    }

    /// The run ended: rewrites every file with the final statuses, and returns the
    /// summary to print (with a note when `regression.c` could not be written) and the
    /// number of findings, or the first write error.
    pub fn finish(mut self, sides: &[SideReport], ending: &Ending) -> Result<Finished> {
        let minimized;
        let sides = match self.minimize {
            TestSet::Minimized => {
                minimized = self.minimize_tests(sides)?;
                &minimized
            }
            TestSet::All => sides,
        };
        self.rewrite(Some((sides, ending)));
        let coverage = self.coverage(sides, Some(ending));
        let mut text = coverage.summary();
        let feasible_percent = coverage.feasible_percent();
        if let Some(path) = &self.junit {
            write_atomic(path, &junit_xml(&coverage))?;
        }
        let mut files = vec!["inputs.txt", "coverage.json", "coverage.lcov", REPORT_HTML];
        if self.no_regression.is_none() {
            files.push(regression_file(self.module, self.func));
        }
        for kind in FindingKind::ALL {
            if self.findings.iter().any(|f| f.kind == kind.name()) {
                files.push(dir_name(kind));
            }
        }
        let _ = write!(
            text,
            "wrote {}/{}",
            self.out.path().display(),
            files.join(", ")
        );
        if let Some(why) = &self.no_regression {
            let _ = write!(text, " (no regression.c: {why})");
        }
        if let Some(path) = &self.junit {
            let _ = write!(text, "; JUnit: {}", path.display());
        }
        text.push('\n');
        self.out.finish()?;
        Ok(Finished {
            text,
            findings: self.findings,
            feasible_percent,
        })
    }

    /// Keeps the fewest tests that take every side a test covers and show every operand
    /// relation and pair of consecutive sides a test shows (and the tests a side names as
    /// its closest, and the first test when no test takes a side); rewrites `inputs.txt`
    /// with them and returns `sides` with their witnesses renumbered.
    fn minimize_tests(&mut self, sides: &[SideReport]) -> Result<Vec<SideReport>> {
        let coords: Vec<Vec<u64>> = self.tests.iter().map(|t| t.coords.clone()).collect();
        let tracked: Vec<Side> = sides.iter().map(|r| r.side).collect();
        let takes = behaviours(self.module, self.func, &self.spec, &coords, &tracked)?;
        let mut wanted: BTreeSet<Behaviour> = takes
            .iter()
            .flatten()
            .filter(|b| matches!(b, Behaviour::Relates(..) | Behaviour::Follows(..)))
            .copied()
            .collect();
        let mut required = BTreeSet::new();
        for report in sides {
            match report.status {
                SideStatus::Covered {
                    witness: Witness::Test(_),
                } => {
                    wanted.insert(Behaviour::Takes(report.side));
                }
                SideStatus::NotReached { reason } => {
                    required.extend(reason.closest.map(|c| c.test))
                }
                _ => {}
            }
        }
        if wanted.is_empty() && !self.tests.is_empty() {
            // No test takes a side: the first one is kept, so the function still runs.
            required.insert(0);
        }
        let kept = greedy_cover(&takes, &wanted, &required);
        if kept.len() == self.tests.len() {
            return Ok(sides.to_vec());
        }
        let new_index = |old: usize| kept.iter().position(|&k| k == old);
        let renumbered = sides
            .iter()
            .map(|report| {
                let status = match report.status {
                    SideStatus::Covered {
                        witness: Witness::Test(_),
                    } => {
                        let taken = Behaviour::Takes(report.side);
                        let first = kept.iter().position(|&k| takes[k].contains(&taken));
                        first.map_or(report.status, |i| SideStatus::Covered {
                            witness: Witness::Test(i),
                        })
                    }
                    SideStatus::NotReached { mut reason } => {
                        if let Some(c) = &mut reason.closest {
                            c.test = new_index(c.test).unwrap_or(c.test);
                        }
                        SideStatus::NotReached { reason }
                    }
                    other => other,
                };
                SideReport {
                    side: report.side,
                    status,
                }
            })
            .collect();
        self.tests = kept.iter().map(|&k| self.tests[k].clone()).collect();
        self.inputs = kept.iter().map(|&k| self.inputs[k].clone()).collect();
        self.found_at = kept.iter().map(|&k| self.found_at[k]).collect();
        self.write_inputs();
        Ok(renumbered)
    }

    /// Replaces `inputs.txt` with the tests, one line each.
    fn write_inputs(&mut self) {
        let lines: String = self.inputs.iter().map(|l| format!("{l}\n")).collect();
        self.out.write(INPUTS, &lines);
    }

    fn coverage<'a>(&'a self, sides: &'a [SideReport], ending: Option<&'a Ending>) -> Coverage<'a> {
        Coverage {
            module: self.module,
            func: self.func,
            sides,
            inputs: &self.inputs,
            found_at: &self.found_at,
            findings: &self.findings,
            diagnostic: self.diagnostic.as_deref(),
            ending,
            engine: self.engine,
        }
    }

    /// The statuses while the run goes on: covered by a witness, or not reached yet.
    fn running_sides(&self) -> Vec<SideReport> {
        self.sides
            .iter()
            .zip(&self.witness)
            .map(|(&side, witness)| SideReport {
                side,
                status: witness.map_or(
                    SideStatus::NotReached {
                        reason: MissReason::default(),
                    },
                    |witness| SideStatus::Covered { witness },
                ),
            })
            .collect()
    }

    fn rewrite(&mut self, finished: Option<(&[SideReport], &Ending)>) {
        let running;
        let (sides, ending) = match finished {
            Some((sides, ending)) => (sides, Some(ending)),
            None => {
                running = self.running_sides();
                (running.as_slice(), None)
            }
        };
        let unchecked = self
            .undefined_calls
            .iter()
            .flatten()
            .map(|c| unchecked_test(c));
        let tests: Vec<RegressionTest> = self.tests.iter().cloned().chain(unchecked).collect();
        match regression_c(self.module, self.func, &self.spec, &tests) {
            Ok(c) => self.out.write(regression_file(self.module, self.func), &c),
            Err(e) => self.no_regression = Some(e.to_string()),
        }
        let ran = !self.tests.is_empty() || !self.findings.is_empty();
        let lcov_text = lcov((self.module, self.replay.sources()), self.func, sides, ran);
        let json = self.coverage(sides, ending).to_json();
        let mut sources = std::mem::take(&mut self.sources);
        let html = coverage_page(&self.coverage(sides, ending), &mut sources);
        self.sources = sources;
        self.out.write("coverage.lcov", &lcov_text);
        self.out.write(REPORT_HTML, &html);
        // Last: once it says `finished`, a resumed run keeps the directory as it is, so
        // every other file must be final by then (and is, unless a write failed, which
        // then skips this one too).
        match json {
            Ok(json) => self.out.write("coverage.json", &json),
            Err(e) => self.out.fail(e),
        }
    }
}

/// A test of input `coords` whose results the regression file does not check.
fn unchecked_test(coords: &[u64]) -> RegressionTest {
    RegressionTest {
        coords: coords.to_vec(),
        expected: Vec::new(),
        thrown: None,
        checked: false,
    }
}
