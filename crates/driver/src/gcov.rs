//! gcc's own branch figure (`--gcov`) for the tests a run wrote. fpforge counts the sides
//! of LLVM's branches; gcc compiles `&&`, `||` and `?:` differently, so the two counts
//! differ (cephes' `igam`: 42 sides, 30 gcov branches) and users judge by gcov. The
//! run's `regression.c` is compiled with `gcc --coverage` together with the program's C
//! translation units, or its `regression.cpp` with `g++ --coverage`
//! and the C++ sources, run once, and `gcov --json-format` counts the conditional
//! branches of the entry function (and of the functions `--deep` includes) taken at
//! least once. A C++ call that may throw ends its block with two edges, the return
//! (listed first) and the exception edge (`"throw": true`): neither is a conditional
//! branch of the source, so both are left out. The build and gcov's files stay in
//! `OUT/gcov/`.

use crate::error::{DriverError, Result, Setting};
use crate::program::NativeBuild;
use fpir::Module;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the regression program may run.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// gcov's count for some functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcovFigure {
    /// Branches taken at least once.
    pub taken: usize,
    /// Branches gcc made.
    pub total: usize,
    /// Whether the regression program reported mismatches (non-zero exit).
    pub mismatches: bool,
    /// `regression.c built with gcc` or `regression.cpp built with g++`.
    pub built: &'static str,
}

impl GcovFigure {
    /// The summary line: `gcov: 12 of 16 branches of f taken (75.0%) ...`.
    pub fn line(&self, functions: &[String]) -> String {
        let percent = if self.total == 0 {
            100.0
        } else {
            100.0 * self.taken as f64 / self.total as f64
        };
        let mut line = format!(
            "gcov: {} of {} branches of {} taken ({percent:.1}%) by {} --coverage (gcov/)",
            self.taken,
            self.total,
            functions.join(", "),
            self.built
        );
        if self.mismatches {
            line += "; the regression program reported mismatches natively (gcov/regression.log)";
        }
        line
    }
}

/// The JSON `gcov --json-format --stdout` prints (the fields used here).
#[derive(Deserialize)]
struct GcovJson {
    files: Vec<GcovFile>,
}

#[derive(Deserialize)]
struct GcovFile {
    lines: Vec<GcovLine>,
}

#[derive(Deserialize)]
struct GcovLine {
    #[serde(default)]
    function_name: Option<String>,
    branches: Vec<GcovBranch>,
}

#[derive(Deserialize)]
struct GcovBranch {
    count: u64,
    /// An exception edge of a call.
    #[serde(default)]
    throw: bool,
}

/// Builds `out/REGRESSION` (`regression.c` or `regression.cpp`) with the sources of
/// `build` in its language and its flags, runs it, and counts the gcov branches of
/// `functions`.
pub fn measure(
    module: &Module,
    functions: &[String],
    build: &NativeBuild,
    out: &Path,
    regression: &str,
) -> Result<GcovFigure> {
    let dir = out.join("gcov");
    std::fs::create_dir_all(&dir).map_err(|e| DriverError::io("create", &dir, e))?;
    // The regression program runs in `dir`: a relative `dir` would be resolved twice.
    let dir = std::fs::canonicalize(&dir).map_err(|e| DriverError::io("read", &dir, e))?;
    remove_counts(&dir)?;
    let cxx = regression.ends_with(".cpp");
    let sources = build.sources(module, cxx);
    if sources.is_empty() {
        return Err(DriverError::setting(
            Setting::Gcov,
            "needs the program's sources (its debug info names none)",
        ));
    }
    let regression = std::fs::canonicalize(out.join(regression)).map_err(|_| {
        DriverError::setting(Setting::Gcov, format!("the run wrote no {regression}"))
    })?;
    let built = Command::new(if cxx { "g++" } else { "gcc" })
        .current_dir(&dir)
        .args(["-O0", "-w", "--coverage", "-o", "regression"])
        .args(&build.flags)
        .arg(&regression)
        .args(&sources)
        .arg("-lm")
        .output()
        .map_err(|_| {
            DriverError::setting(Setting::Gcov, "needs gcc (scripts/setup.sh installs it)")
        })?;
    if !built.status.success() {
        return Err(DriverError::setting(
            Setting::Gcov,
            format!(
                "gcc could not build regression.c: {}",
                String::from_utf8_lossy(&built.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ),
        ));
    }
    let mismatches = !run_regression(&dir)?;
    let mut figure = GcovFigure {
        taken: 0,
        total: 0,
        mismatches,
        built: if cxx {
            "regression.cpp built with g++"
        } else {
            "regression.c built with gcc"
        },
    };
    for counts in count_files(&dir)? {
        let (taken, total) = branches_of(&dir, &counts, functions)?;
        figure.taken += taken;
        figure.total += total;
    }
    Ok(figure)
}

/// Deletes the counts of an earlier `--gcov` in `dir`.
fn remove_counts(dir: &Path) -> Result<()> {
    for path in count_files(dir)? {
        std::fs::remove_file(dir.join(&path)).map_err(|e| DriverError::io("remove", &path, e))?;
    }
    Ok(())
}

/// The `.gcda` files in `dir` (names relative to it), sorted.
fn count_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| DriverError::io("read", dir, e))?
        .filter_map(|e| e.ok().map(|e| PathBuf::from(e.file_name())))
        .filter(|p| p.extension().is_some_and(|e| e == "gcda"))
        .collect();
    files.sort();
    Ok(files)
}

/// Runs `dir/regression`, its output in `dir/regression.log`; false when it reported
/// mismatches.
fn run_regression(dir: &Path) -> Result<bool> {
    let log_path = dir.join("regression.log");
    let log =
        std::fs::File::create(&log_path).map_err(|e| DriverError::io("create", &log_path, e))?;
    let program = dir.join("regression");
    let mut child = Command::new(&program)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| DriverError::io("run", &program, e))?;
    let started = Instant::now();
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| DriverError::io("run", &program, e))?
        {
            return Ok(status.success());
        }
        if started.elapsed() > RUN_LIMIT {
            child
                .kill()
                .map_err(|e| DriverError::io("stop", &program, e))?;
            return Err(DriverError::setting(
                Setting::Gcov,
                format!("the regression program ran longer than {RUN_LIMIT:?}"),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Branches taken and branches in all of `functions`, from one `.gcda` file.
fn branches_of(dir: &Path, counts: &Path, functions: &[String]) -> Result<(usize, usize)> {
    let out = Command::new("gcov")
        .current_dir(dir)
        .args(["--json-format", "--stdout", "--branch-probabilities"])
        .arg(counts)
        .output()
        .map_err(|_| DriverError::setting(Setting::Gcov, "needs gcov (it comes with gcc)"))?;
    if !out.status.success() {
        return Err(DriverError::Tool(format!(
            "gcov failed on {}",
            counts.display()
        )));
    }
    let json: GcovJson = serde_json::from_slice(&out.stdout)
        .map_err(|e| DriverError::Tool(format!("gcov's JSON for {}: {e}", counts.display())))?;
    let lines = json.files.iter().flat_map(|f| &f.lines).filter(|l| {
        l.function_name
            .as_ref()
            .is_some_and(|name| functions.contains(name))
    });
    let (mut taken, mut total) = (0, 0);
    for line in lines {
        for branch in conditional_branches(&line.branches) {
            total += 1;
            taken += usize::from(branch.count > 0);
        }
    }
    Ok((taken, total))
}

/// The branches of one line without the edges of calls that may throw: each exception
/// edge and the return edge listed just before it.
fn conditional_branches(branches: &[GcovBranch]) -> Vec<&GcovBranch> {
    let mut kept: Vec<&GcovBranch> = Vec::with_capacity(branches.len());
    for branch in branches {
        if branch.throw {
            kept.pop();
        } else {
            kept.push(branch);
        }
    }
    kept
}

/// Measures the run in `out` (see [`measure`]) for `func`, or every function it reaches
/// with `deep`; writes the line to `out/gcov/summary.txt` and returns it.
pub fn figure(
    module: &Module,
    func: fpir::Func,
    deep: bool,
    build: &NativeBuild,
    out: &Path,
) -> Result<String> {
    let funcs = if deep {
        module.reachable_funcs(func)
    } else {
        vec![func]
    };
    let names: Vec<String> = funcs
        .iter()
        .map(|&f| module.funcs[f].name.clone())
        .collect();
    let regression = fpforge_report::regression::regression_file(module, func);
    let figure = measure(module, &names, build, out, regression)?;
    let line = format!("{}\n", figure.line(&names));
    let summary = out.join("gcov").join("summary.txt");
    std::fs::write(&summary, &line).map_err(|e| DriverError::io("write", &summary, e))?;
    Ok(line)
}
