//! Native confirmation (`--confirm`): each crash or hang a run found, replayed by the
//! library built natively with the system compiler and the run's flags, marked
//! "confirmed natively" or "not reproduced natively" with why, and written up in
//! `OUT/findings/<kind>-<n>/`: `repro.c` (or `repro.cpp`), a standalone program calling
//! the function once on the exact input that exits non-zero while the fault is there,
//! and `report.md`, a bug report ready to file.
//!
//! The native build is gcc at `-O0` with AddressSanitizer and UndefinedBehaviorSanitizer
//! (every undefined behaviour fatal): fpforge's execution traps on every out-of-bounds
//! access, which a plain native build may read without faulting; the sanitizers catch
//! what fpforge caught. A crash is confirmed when the native run dies (a signal or a
//! sanitizer's report), a hang when its reproducer (built with `-O2` and no sanitizers,
//! as users run the library) has spent [`HANG_LIMIT`] of CPU time without ending. gcc's
//! verdict is the finding's; a crash or wrong value is replayed by a clang-14 build too,
//! whose verdict the report gives beside it.

use crate::error::{DriverError, Result};
use crate::program::NativeBuild;
use fpforge_exec::{Finding, FindingKind};
use fpforge_report::bugreport::{BugReport, ValueFacts};
use fpforge_report::findings::CrashRow;
use fpforge_report::regression::{regression_file, reproducer_c, Expect};
use fpforge_spec::InputSpec;
use fpir::{Func, Module, SrcLoc};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a reproducer of a crash may run before it counts as not reproducing.
const CRASH_LIMIT: Duration = Duration::from_secs(30);

/// How much CPU time a reproducer of a hang must spend to confirm it. CPU time, not
/// wall-clock: on a loaded machine a slow call would otherwise pass for a hang.
pub const HANG_LIMIT: Duration = Duration::from_secs(20);

/// How long, wall-clock, a reproducer of a hang may take to spend [`HANG_LIMIT`].
const HANG_WAIT: Duration = Duration::from_secs(120);

/// The sanitizer flags of the native build.
const SANITIZERS: [&str; 3] = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
];

/// Leaves out the functions the reproducer never reaches: a library file defines more
/// than the function calls, and what only those others use (GSL's `gsl_error`, defined
/// elsewhere in the library) need not be linked.
const UNREACHED_CODE: [&str; 3] = [
    "-ffunction-sections",
    "-fdata-sections",
    "-Wl,--gc-sections",
];

/// Whether a run confirms its findings natively.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Confirm {
    /// It does not.
    #[default]
    Off,
    /// Each finding is replayed by a native build (gcc with sanitizers).
    Native,
}

/// What the native build said of one finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeVerdict {
    /// The native run failed the same way: how.
    Confirmed(String),
    /// The native run did not: what it did instead.
    NotReproduced(String),
    /// The reproducer could not be built or run: why.
    NotBuilt(String),
}

impl NativeVerdict {
    /// `confirmed natively: ...`, `not reproduced natively: ...`, `not checked natively: ...`.
    pub fn words(&self) -> String {
        match self {
            NativeVerdict::Confirmed(how) => format!("confirmed natively: {how}"),
            NativeVerdict::NotReproduced(why) => format!("not reproduced natively: {why}"),
            NativeVerdict::NotBuilt(why) => format!("not checked natively: {why}"),
        }
    }
}

/// One finding's native check.
#[derive(Clone, Debug)]
pub struct NativeCheck {
    /// `crash 1`, `hang 2`.
    pub finding: String,
    /// Its directory with `repro.c` and `report.md`.
    pub dir: PathBuf,
    /// What the native build said (gcc's).
    pub verdict: NativeVerdict,
    /// What the clang build said, when it was replayed with clang too.
    pub clang: Option<NativeVerdict>,
}

impl NativeCheck {
    /// gcc's verdict in words, then clang's.
    pub fn words(&self) -> String {
        match &self.clang {
            Some(clang) => format!("{}; clang: {}", self.verdict.words(), clang.words()),
            None => self.verdict.words(),
        }
    }
}

/// The function whose findings are checked, its inputs and how to build it.
pub struct Target<'a> {
    /// The program.
    pub module: &'a Module,
    /// The entry function.
    pub func: Func,
    /// Its inputs.
    pub spec: &'a InputSpec,
    /// How the program builds natively.
    pub build: &'a NativeBuild,
}

/// One defect to check natively: what it is and what the reproducer expects.
pub struct Defect<'a> {
    /// Its directory under `findings/` and its name in verdict lines: `crash-1`,
    /// `wrong-special-value-1`.
    pub name: String,
    /// Its class in reports: `crash`, `hang`, `wrong special value`, `error`.
    pub class: &'a str,
    /// What went wrong, in words.
    pub what: String,
    /// The input's coordinates.
    pub coords: &'a [u64],
    /// What the reproducer checks.
    pub expect: Expect,
    /// Whether it is a hang (the reproducer must then run on).
    pub hang: bool,
    /// The function where it shows, its location and the calls that led there.
    pub place: (&'a str, &'a str, &'a [String]),
    /// The source location, for the line the report quotes.
    pub loc: Option<SrcLoc>,
    /// Its fingerprint, when it has one.
    pub fingerprint: &'a str,
    /// For a wrong value: the observed and the true value.
    pub values: Option<&'a ValueFacts>,
}

impl<'a> Defect<'a> {
    /// The defect of a crash or hang `finding`, as its `row` lists it.
    pub fn of_finding(finding: &'a Finding, row: &'a CrashRow) -> Defect<'a> {
        Defect {
            name: format!("{}-{}", row.kind, row.number),
            class: row.kind,
            what: row.trap.clone(),
            coords: &finding.coords,
            expect: Expect::Fault,
            hang: finding.kind == FindingKind::Hang,
            place: (&row.function, &row.location, &row.stack),
            loc: row.loc,
            fingerprint: &row.fingerprint,
            values: None,
        }
    }
}

/// Checks each of `defects` natively and writes its directory under `out/findings`.
pub fn confirm_natively(
    target: &Target<'_>,
    defects: &[Defect<'_>],
    out: &Path,
) -> Result<Vec<NativeCheck>> {
    let platform = platform();
    defects
        .iter()
        .map(|defect| check_one(target, defect, out, &platform))
        .collect()
}

fn check_one(
    target: &Target<'_>,
    defect: &Defect<'_>,
    out: &Path,
    platform: &str,
) -> Result<NativeCheck> {
    let dir = out.join("findings").join(&defect.name);
    std::fs::create_dir_all(&dir).map_err(|e| DriverError::io("create", &dir, e))?;
    let cxx = regression_file(target.module, target.func).ends_with(".cpp");
    let file = if cxx { "repro.cpp" } else { "repro.c" };
    let (function, location, stack) = defect.place;
    let about = format!(
        "fpforge reproducer of {}: {} in {function} at {location}. Build and run: see report.md.",
        defect.name, defect.what
    );
    let program = reproducer_c(
        target.module,
        target.func,
        target.spec,
        (defect.coords, defect.expect),
        &about,
    )?;
    let repro = dir.join(file);
    std::fs::write(&repro, program).map_err(|e| DriverError::io("write", &repro, e))?;
    let replay = |native| -> Result<(String, NativeVerdict, String)> {
        let (command, built) = build(target, &dir, (file, cxx), (defect, native));
        let (verdict, output) = match built {
            Err(why) => (NativeVerdict::NotBuilt(why), String::new()),
            Ok(()) => run(&dir, defect, native)?,
        };
        Ok((command, verdict, output))
    };
    let (command, verdict, output) = replay(Compiler::Gcc)?;
    // A hang is run once: a second opinion would take the hang limit again.
    let second = if defect.hang {
        None
    } else {
        Some(replay(Compiler::Clang)?)
    };

    let (clang_command, clang) = second.map_or((None, None), |(c, v, _)| (Some(c), Some(v)));
    let native = match &clang {
        Some(clang) => format!("{}; clang: {}", verdict.words(), clang.words()),
        None => verdict.words(),
    };
    let line = source_line(target.module, defect.loc);
    let input = target.spec.line(defect.coords);
    let decimal = target.spec.decimal_line(defect.coords);
    let report = BugReport {
        class: defect.class,
        what: &defect.what,
        entry: &target.module.funcs[target.func].name,
        function,
        location,
        source_line: line.as_deref(),
        stack,
        input: &input,
        input_decimal: &decimal,
        native: &native,
        native_output: &output,
        platform,
        command: &command,
        clang_command: clang_command.as_deref(),
        fingerprint: defect.fingerprint,
        values: defect.values,
    };
    let md = dir.join("report.md");
    std::fs::write(&md, report.markdown()).map_err(|e| DriverError::io("write", &md, e))?;
    Ok(NativeCheck {
        finding: defect.name.replace('-', " "),
        dir,
        verdict,
        clang,
    })
}

/// The source line at `loc`, when the file can be read.
fn source_line(module: &Module, loc: Option<SrcLoc>) -> Option<String> {
    let loc = loc?;
    let text = std::fs::read_to_string(module.files.get(loc.file)?).ok()?;
    let line = text.lines().nth(loc.line.checked_sub(1)? as usize)?;
    Some(line.to_string())
}

/// Builds `dir/repro` from `file` and the program's sources: the command that does it
/// (and runs the program) from `dir`, and whether it built (why not).
fn build(
    target: &Target<'_>,
    dir: &Path,
    (file, cxx): (&str, bool),
    (defect, native): (&Defect<'_>, Compiler),
) -> (String, std::result::Result<(), String>) {
    let compiler = native.program(cxx);
    let sources = target.build.sources(target.module, cxx);
    if sources.is_empty() {
        let why = "the program's debug info names no C or C++ source to build";
        return (String::new(), Err(why.to_string()));
    }
    // A hang is built as a user runs the library, optimized and without sanitizers: it
    // must not end however fast the call runs.
    let optimization = if defect.hang { "-O2" } else { "-O0" };
    let mut args: Vec<String> = [optimization, "-g", "-w"]
        .iter()
        .chain(&UNREACHED_CODE)
        .map(|s| s.to_string())
        .collect();
    if defect.expect == Expect::Fault && !defect.hang {
        args.extend(SANITIZERS.iter().map(|s| s.to_string()));
    }
    args.extend(target.build.flags.iter().cloned());
    args.push(file.to_string());
    args.extend(sources.iter().map(|p| p.display().to_string()));
    args.extend(
        ["-lm", "-o", native.executable()]
            .iter()
            .map(|s| s.to_string()),
    );
    let mut built = compile(compiler, dir, &args);
    if let Err(stderr) = &built {
        if let Some(shims) = runtime_shims(stderr) {
            let runtime = dir.join(RUNTIME_FILE);
            if let Err(e) = std::fs::write(&runtime, shims) {
                return (
                    String::new(),
                    Err(format!("cannot write {}: {e}", runtime.display())),
                );
            }
            let at = args
                .iter()
                .position(|a| a == file)
                .map_or(args.len(), |i| i + 1);
            args.insert(at, RUNTIME_FILE.to_string());
            built = compile(compiler, dir, &args);
        }
    }
    let words: Vec<String> = args
        .iter()
        .map(|a| fpforge_report::replay::shell_word(a))
        .collect();
    let command = format!(
        "{compiler} {}\nASAN_OPTIONS=detect_leaks=0 ./{}",
        words.join(" "),
        native.executable()
    );
    let built = built.map_err(|stderr| {
        format!(
            "{compiler} could not build {file}: {}",
            first_error(&stderr)
        )
    });
    (command, built)
}

/// Runs `compiler args` in `dir`: its errors when it fails.
fn compile(compiler: &str, dir: &Path, args: &[String]) -> std::result::Result<(), String> {
    match Command::new(compiler).current_dir(dir).args(args).output() {
        Err(e) => Err(format!("error: {compiler} does not run: {e}")),
        Ok(built) if built.status.success() => Ok(()),
        Ok(built) => Err(String::from_utf8_lossy(&built.stderr).into_owned()),
    }
}

/// The file of [`RUNTIME_SHIMS`] a reproducer links when it needs them.
const RUNTIME_FILE: &str = "runtime.c";

/// What a C library other than the host's provides and fpforge's C library model knows,
/// defined for a reproducer linked against glibc: newlib's `__errno` (glibc's
/// `__errno_location`) and `_impure_ptr`, its per-thread state, zeroed as fpforge runs it.
const RUNTIME_SHIMS: [(&str, &str); 2] = [
    (
        "__errno",
        "int *__errno(void) { return __errno_location(); }\n",
    ),
    (
        "_impure_ptr",
        "static unsigned char fpforge_reent[4096] __attribute__((aligned(16)));\n\
         struct _reent *_impure_ptr = (struct _reent *)fpforge_reent;\n",
    ),
];

/// `runtime.c` defining what a failed link of a reproducer lacked: each of
/// [`RUNTIME_SHIMS`], and for any other symbol a function that stops the program saying
/// so. Those are what the library files reference in code fpforge's load found
/// unreachable from the function (a branch on a constant, another function of the
/// file), so it linked no file for them; a stub reached natively ends the reproducer
/// with its message rather than with a wrong verdict. `None` when the link failed for
/// another reason.
fn runtime_shims(stderr: &str) -> Option<String> {
    let missing: std::collections::BTreeSet<&str> = stderr
        .lines()
        .filter_map(|l| l.split("undefined reference to `").nth(1))
        .filter_map(|rest| rest.split('\'').next())
        .collect();
    if missing.is_empty() {
        return None;
    }
    let definitions: String = missing
        .iter()
        .map(|name| match RUNTIME_SHIMS.iter().find(|(n, _)| n == name) {
            Some((_, shim)) => shim.to_string(),
            None => {
                let message = format!(
                    "fpforge reproducer: {name} was reached, which fpforge found unreachable and did not link\\n"
                );
                format!(
                    "void {name}(void) {{\n    static const char message[] = \"{message}\";\n    \
                     write(2, message, sizeof message - 1);\n    abort();\n}}\n"
                )
            }
        })
        .collect();
    Some(format!(
        "/* What the reproducer's link lacked: what the C library the sources were written\n \
         * for provides and glibc lacks (newlib's), as fpforge modelled it, and stubs of what\n \
         * the library files call in code fpforge found unreachable.\n \
         * It includes no header: the sources' own (newlib's) would take the place of glibc's. */\n\
         struct _reent;\nextern int *__errno_location(void);\n\
         extern long write(int, const void *, unsigned long);\nextern void abort(void);\n\n{definitions}"
    ))
}

/// The first line of a compiler's errors that says what is wrong: an undefined
/// reference before the linker's summary.
fn first_error(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.contains("undefined reference") || l.contains("error:"))
        .unwrap_or("")
}

/// Runs `dir/repro`: the verdict on `defect`, and the first lines it wrote.
fn run(dir: &Path, defect: &Defect<'_>, native: Compiler) -> Result<(NativeVerdict, String)> {
    let executable = dir.join(native.executable());
    let program =
        std::fs::canonicalize(&executable).map_err(|e| DriverError::io("read", &executable, e))?;
    let mut child = Command::new(&program)
        .current_dir(dir)
        .env("ASAN_OPTIONS", "detect_leaks=0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| DriverError::io("run", &program, e))?;
    let started = Instant::now();
    let mut spent = Duration::ZERO;
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| DriverError::io("run", &program, e))?
        {
            break Some(status);
        }
        spent = cpu_time(child.id()).unwrap_or(spent);
        let enough = if defect.hang {
            spent >= HANG_LIMIT || started.elapsed() > HANG_WAIT
        } else {
            started.elapsed() > CRASH_LIMIT
        };
        if enough {
            child
                .kill()
                .map_err(|e| DriverError::io("stop", &program, e))?;
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    if let Some(mut pipe) = child.stdout.take() {
        let _ = std::io::Read::read_to_string(&mut pipe, &mut stdout);
    }
    if let Some(mut pipe) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
    }
    let output: String = stdout
        .lines()
        .chain(stderr.lines())
        .take(12)
        .collect::<Vec<_>>()
        .join("\n");
    let running = if defect.hang {
        format!(
            "still running after {:.0} s of CPU time ({} build, -O2)",
            spent.as_secs_f64(),
            native.name()
        )
    } else {
        format!("still running after {} s", CRASH_LIMIT.as_secs())
    };
    let verdict = match (defect.expect, defect.hang, status) {
        (_, true, None) => NativeVerdict::Confirmed(running),
        (_, false, None) => NativeVerdict::NotReproduced(running),
        (Expect::Value { .. }, _, Some(status)) => match status.code() {
            Some(0) => NativeVerdict::NotReproduced(checked_line(&stdout)),
            Some(1) => NativeVerdict::Confirmed(format!(
                "{} build: {}",
                native.name(),
                checked_line(&stdout)
            )),
            _ => NativeVerdict::NotReproduced(failure(native, status, &stderr)),
        },
        (Expect::Fault, _, Some(status)) if status.success() => {
            NativeVerdict::NotReproduced("the call returned".to_string())
        }
        (Expect::Fault, true, Some(_)) => {
            NativeVerdict::NotReproduced("the native run ended, with a fault".to_string())
        }
        (Expect::Fault, false, Some(status)) => {
            NativeVerdict::Confirmed(failure(native, status, &stderr))
        }
    };
    Ok((verdict, output))
}

/// The CPU time process `pid` has spent (user and system), from `/proc/PID/stat`, whose
/// times are in the kernel's fixed user-visible tick of 1/100 s.
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: fields are counted after it.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    let (user, system) = (ticks(11)?, ticks(12)?);
    Some(Duration::from_millis((user + system) * 10))
}

/// The line a value reproducer ends with: the checked result, observed and expected.
fn checked_line(stdout: &str) -> String {
    stdout.trim().lines().last().unwrap_or("").to_string()
}

/// How a native run failed: the sanitizer's summary, or the signal.
fn failure(native: Compiler, status: std::process::ExitStatus, stderr: &str) -> String {
    let summary = stderr
        .lines()
        .find(|l| l.starts_with("SUMMARY:") || l.contains("runtime error:"));
    let name = native.name();
    match (summary, status.signal()) {
        (Some(line), _) => format!("{name} build with sanitizers: {}", line.trim()),
        (None, Some(signal)) => format!("{name} build killed by signal {signal}"),
        (None, None) => format!("{name} build exited with {status}"),
    }
}

/// A native compiler a finding is replayed with: gcc, whose verdict is the finding's,
/// and clang, a second opinion (a compiler that folds or contracts differently may not
/// reproduce a wrong value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compiler {
    Gcc,
    Clang,
}

impl Compiler {
    /// The driver of C (C++ when `cxx`) sources.
    fn program(self, cxx: bool) -> &'static str {
        match (self, cxx) {
            (Compiler::Gcc, false) => "gcc",
            (Compiler::Gcc, true) => "g++",
            (Compiler::Clang, false) => "clang-14",
            (Compiler::Clang, true) => "clang++-14",
        }
    }

    /// Its build of the reproducer.
    fn executable(self) -> &'static str {
        match self {
            Compiler::Gcc => "repro",
            Compiler::Clang => "repro-clang",
        }
    }

    /// `gcc` or `clang`.
    fn name(self) -> &'static str {
        match self {
            Compiler::Gcc => "gcc",
            Compiler::Clang => "clang",
        }
    }
}

/// The compiler and system, for reports.
fn platform() -> String {
    let first_line = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .output()
            .ok()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    };
    format!(
        "{}; {}; {}",
        first_line("gcc", &["--version"]),
        first_line("clang-14", &["--version"]),
        first_line("uname", &["-srm"])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_that_lacks_newlib_runtime_and_unreached_code_gets_shims_and_stubs() {
        let stderr = "/usr/bin/ld: /tmp/w_j0.o: in function `j0':\n\
                      w_j0.c:111: undefined reference to `__errno'\n\
                      w_j0.c:120: undefined reference to `__ieee754_log'\n\
                      w_j0.c:121: undefined reference to `__errno'\n\
                      collect2: error: ld returned 1 exit status\n";
        let runtime = runtime_shims(stderr).expect("shims");
        assert!(runtime.contains("int *__errno(void) { return __errno_location(); }"));
        assert!(runtime.contains("void __ieee754_log(void) {"));
        assert_eq!(runtime.matches("__errno(void)").count(), 1);
        assert!(!runtime.contains("#include"), "{runtime}");
        assert_eq!(
            runtime_shims("collect2: error: ld returned 1 exit status\n"),
            None
        );
    }

    #[test]
    fn cpu_time_counts_what_a_process_spends() {
        let me = std::process::id();
        let before = cpu_time(me).expect("/proc is readable");
        let started = Instant::now();
        let mut spins = 0u64;
        while cpu_time(me).unwrap_or(before) < before + Duration::from_millis(100)
            && started.elapsed() < Duration::from_secs(20)
        {
            spins = std::hint::black_box(spins.wrapping_add(1));
        }
        assert!(cpu_time(me).unwrap() >= before + Duration::from_millis(100));
    }
}
