//! The clang-14 driver: compiles C and C++ to bitcode, links it with LLVM IR and bitcode
//! inputs, promotes locals to SSA, and reads the result. Fortran 77 sources are
//! translated to C by f2c first (the `fortran` module) and compiled as C.
//!
//! Pipeline, in a temporary directory: each C/C++ file goes through
//! `clang-14 -O0 -Xclang -disable-O0-optnone -g -fno-discard-value-names -ffp-contract=off
//! -emit-llvm -c` (plus the user's flags, which come later and so can turn contraction
//! back on; separate `fmul`/`fadd` keep one op site per source operation and match what
//! gcc and x86-64 without FMA compute); everything is linked with `llvm-link-14`; `opt-14
//! -passes=mem2reg` turns the scalar locals into SSA values (without
//! `-disable-O0-optnone`, `-O0` marks every function `optnone` and mem2reg skips it).
//! Address-taken locals (type punning through `*(1+(int*)&x)`) stay in memory, as they
//! must. Source files compile in parallel (one clang per core). The differential test
//! harness compiles the very same bitcode natively, so [`compile_to_bitcode`] hands it
//! out.

use crate::error::LowerError;
use crate::options::LoadOptions;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Linked, mem2reg'd bitcode in a temporary directory that lives as long as this value.
#[derive(Debug)]
pub struct Bitcode {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Bitcode {
    /// The bitcode file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary directory holding it (deleted when this value drops); other tools
    /// may write their own files here.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// What kind of input a file is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    /// C or C++ source for clang.
    Source,
    /// Fortran 77 source for f2c, then clang.
    Fortran,
    /// LLVM IR text or bitcode for llvm-link.
    Llvm,
}

/// The C++ runtime linked into programs with C++ sources (see its header comment).
const CXX_RUNTIME: Runtime = Runtime {
    source: include_str!("../runtime/cxxrt.c"),
    name: "fpforge-cxxrt",
};

/// The C library functions linked into every program that uses them (see its header
/// comment).
const C_RUNTIME: Runtime = Runtime {
    source: include_str!("../runtime/crt.c"),
    name: "fpforge-crt",
};

/// The Fortran runtime linked into programs with Fortran sources (see its header
/// comment).
const FORTRAN_RUNTIME: Runtime = Runtime {
    source: include_str!("../runtime/f2crt.c"),
    name: "fpforge-f2crt",
};

/// A runtime written in C that programs are linked with, only what they use.
struct Runtime {
    source: &'static str,
    /// The stem of its files in the temporary directory.
    name: &'static str,
}

impl Runtime {
    /// Writes the source into `dir` and returns the job that compiles it.
    fn compile_job(&self, dir: &Path) -> Result<CompileJob, LowerError> {
        let source = dir.join(format!("{}.c", self.name));
        std::fs::write(&source, self.source).map_err(|e| LowerError::Io {
            path: source.clone(),
            source: e,
        })?;
        Ok(CompileJob {
            source,
            out: dir.join(format!("{}.bc", self.name)),
            flags: vec!["-g0".to_string()],
            cwd: None,
        })
    }
}

/// Whether `path` is C++ source.
fn is_cxx(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "cpp" | "cc" | "cxx" | "C" | "c++"))
}

/// Whether `path` is C or C++ source (by its extension).
pub(crate) fn is_source(path: &Path) -> bool {
    kind_of(path) == Some(Kind::Source)
}

fn kind_of(path: &Path) -> Option<Kind> {
    if crate::fortran::is_fortran(path) {
        return Some(Kind::Fortran);
    }
    match path.extension()?.to_str()? {
        "c" | "cpp" | "cc" | "cxx" | "C" | "c++" => Some(Kind::Source),
        "ll" | "bc" => Some(Kind::Llvm),
        _ => None,
    }
}

/// Expands directories and checks every file's kind.
fn collect_inputs(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, Kind)>, LowerError> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let entries = std::fs::read_dir(input).map_err(|source| LowerError::Io {
                path: input.clone(),
                source,
            })?;
            let mut found = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|source| LowerError::Io {
                    path: input.clone(),
                    source,
                })?;
                let path = entry.path();
                if path.is_file() {
                    if let Some(kind) = kind_of(&path) {
                        found.push((path, kind));
                    }
                }
            }
            found.sort();
            files.extend(found);
        } else {
            let Some(kind) = kind_of(input) else {
                return Err(LowerError::UnknownInput {
                    path: input.clone(),
                });
            };
            if !input.exists() {
                return Err(LowerError::Io {
                    path: input.clone(),
                    source: std::io::Error::from(std::io::ErrorKind::NotFound),
                });
            }
            files.push((input.clone(), kind));
        }
    }
    if files.is_empty() {
        return Err(LowerError::NoInputs);
    }
    // The same file named twice (`f.c` and `./f.c`, or a file and its directory) would
    // define every symbol twice.
    let mut seen = std::collections::HashSet::new();
    files.retain(|(path, _)| seen.insert(path.canonicalize().unwrap_or_else(|_| path.clone())));
    Ok(files)
}

/// Runs `cmd`; a missing program becomes [`LowerError::ToolNotFound`], a failure the
/// error `on_failure` builds from its stderr, escaped and cut for a terminal
/// ([`crate::quote`]).
fn run(
    cmd: &mut Command,
    tool: &Path,
    on_failure: impl FnOnce(String) -> LowerError,
) -> Result<(), LowerError> {
    let output = cmd.output().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            LowerError::ToolNotFound {
                tool: tool.display().to_string(),
            }
        } else {
            LowerError::Io {
                path: tool.to_path_buf(),
                source,
            }
        }
    })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(on_failure(crate::quote::quote(&output.stderr)))
    }
}

/// One C/C++ file to compile to bitcode, with its flags and working directory.
#[derive(Clone, Debug)]
pub(crate) struct CompileJob {
    /// The source file.
    pub source: PathBuf,
    /// The bitcode file to write.
    pub out: PathBuf,
    /// Flags after fpforge's own.
    pub flags: Vec<String>,
    /// Where clang runs (relative paths in the flags are relative to it); `None`: here.
    pub cwd: Option<PathBuf>,
}

/// Compiles one C/C++ file to bitcode.
fn compile_one(job: &CompileJob, opts: &LoadOptions) -> Result<(), LowerError> {
    let mut cmd = Command::new(&opts.clang);
    cmd.args([
        "-O0",
        "-Xclang",
        "-disable-O0-optnone",
        "-g",
        "-fno-discard-value-names",
        "-ffp-contract=off",
        "-emit-llvm",
        "-c",
    ])
    .args(&job.flags)
    .arg(&job.source)
    .arg("-o")
    .arg(&job.out);
    if let Some(dir) = &job.cwd {
        cmd.current_dir(dir);
    }
    run(&mut cmd, &opts.clang, |stderr| LowerError::Compile {
        file: job.source.clone(),
        stderr,
    })
}

/// Runs `jobs` on as many threads as the machine has cores; the results are in job
/// order.
pub(crate) fn compile_all(jobs: &[CompileJob], opts: &LoadOptions) -> Vec<Result<(), LowerError>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len());
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<(), LowerError>>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else {
                    break;
                };
                let result = compile_one(job, opts);
                if let Ok(mut slot) = results[i].lock() {
                    *slot = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| match slot.into_inner() {
            Ok(Some(result)) => result,
            _ => Err(LowerError::Tool {
                tool: opts.clang.display().to_string(),
                stderr: "a compile thread failed".to_string(),
            }),
        })
        .collect()
}

/// The inputs compiled to bitcode, in a temporary directory that lives as long as this
/// value; linked (with library files, see [`crate::library`]) as often as needed.
#[derive(Debug)]
pub(crate) struct Compiled {
    dir: tempfile::TempDir,
    /// The bitcode of every input, in input order.
    bitcode: Vec<PathBuf>,
    /// The runtimes' bitcode: the C runtime's, and the C++ runtime's when an input is
    /// C++ source.
    runtimes: Vec<PathBuf>,
    /// The C/C++ and bitcode files given, canonical where they exist.
    pub inputs: Vec<PathBuf>,
    /// The routines of the Fortran inputs, which lowered modules are annotated with
    /// ([`crate::fortran::annotate`]).
    pub fortran: Vec<crate::fortran::decl::Routine>,
}

impl Compiled {
    /// Compiles the C/C++ files of `inputs` (the first compile error, in input order,
    /// is the error).
    pub fn new(inputs: &[PathBuf], opts: &LoadOptions) -> Result<Compiled, LowerError> {
        let files = collect_inputs(inputs)?;
        let dir = tempfile::Builder::new()
            .prefix("fpforge-")
            .tempdir()
            .map_err(|source| LowerError::Io {
                path: std::env::temp_dir(),
                source,
            })?;
        let bitcode: Vec<PathBuf> = files
            .iter()
            .enumerate()
            .map(|(i, (path, kind))| match kind {
                Kind::Llvm => path.clone(),
                Kind::Source | Kind::Fortran => {
                    let stem = path
                        .file_stem()
                        .map_or_else(|| "input".into(), |s| s.to_string_lossy());
                    dir.path().join(format!("{i}-{stem}.bc"))
                }
            })
            .collect();
        let mut jobs: Vec<CompileJob> = Vec::new();
        let mut fortran = Vec::new();
        for (i, ((path, kind), out)) in files.iter().zip(&bitcode).enumerate() {
            match kind {
                Kind::Llvm => {}
                Kind::Source => jobs.push(CompileJob {
                    source: path.clone(),
                    out: out.clone(),
                    flags: opts.compiler_flags.clone(),
                    cwd: None,
                }),
                Kind::Fortran => {
                    let unit = dir.path().join(format!("fortran-{i}"));
                    let translated = crate::fortran::translate(path, &unit, opts)?;
                    fortran.extend(translated.routines);
                    jobs.push(CompileJob {
                        source: translated.c_file,
                        out: out.clone(),
                        flags: vec![format!("-I{}", unit.display()), "-w".to_string()],
                        cwd: None,
                    });
                }
            }
        }
        let mut runtime_jobs = vec![C_RUNTIME.compile_job(dir.path())?];
        if files.iter().any(|(path, _)| is_cxx(path)) {
            runtime_jobs.push(CXX_RUNTIME.compile_job(dir.path())?);
        }
        if files.iter().any(|(_, kind)| *kind == Kind::Fortran) {
            runtime_jobs.push(FORTRAN_RUNTIME.compile_job(dir.path())?);
        }
        let runtimes = runtime_jobs.iter().map(|job| job.out.clone()).collect();
        jobs.extend(runtime_jobs);
        compile_all(&jobs, opts)
            .into_iter()
            .collect::<Result<(), _>>()?;
        let inputs = files
            .iter()
            .map(|(p, _)| p.canonicalize().unwrap_or_else(|_| p.clone()))
            .collect();
        Ok(Compiled {
            dir,
            bitcode,
            runtimes,
            inputs,
            fortran,
        })
    }

    /// Links the inputs with the bitcode files `more` and applies mem2reg; the result
    /// is `module-ROUND.bc` in the temporary directory.
    pub fn link(
        &self,
        more: &[PathBuf],
        round: usize,
        opts: &LoadOptions,
    ) -> Result<PathBuf, LowerError> {
        let linked = self.dir.path().join(format!("linked-{round}.bc"));
        let mut link = Command::new(&opts.llvm_link);
        link.args(&self.bitcode).args(more).arg("-o").arg(&linked);
        run(&mut link, &opts.llvm_link, |stderr| LowerError::Tool {
            tool: opts.llvm_link.display().to_string(),
            stderr,
        })?;
        // Only what the program uses of the runtimes: the first file links whole,
        // `--only-needed` applies to the ones after it.
        let program = self.dir.path().join(format!("program-{round}.bc"));
        std::fs::rename(&linked, &program).map_err(|source| LowerError::Io {
            path: linked.clone(),
            source,
        })?;
        let mut link = Command::new(&opts.llvm_link);
        link.arg(&program)
            .arg("--only-needed")
            .args(&self.runtimes)
            .arg("-o")
            .arg(&linked);
        run(&mut link, &opts.llvm_link, |stderr| LowerError::Tool {
            tool: opts.llvm_link.display().to_string(),
            stderr,
        })?;
        let path = self.dir.path().join(format!("module-{round}.bc"));
        let mut opt = Command::new(&opts.opt);
        opt.arg("-passes=mem2reg").arg(&linked).arg("-o").arg(&path);
        run(&mut opt, &opts.opt, |stderr| LowerError::Tool {
            tool: opts.opt.display().to_string(),
            stderr,
        })?;
        Ok(path)
    }

    /// The linked module of round `round` as a [`Bitcode`] that keeps the directory.
    pub fn into_bitcode(self, path: PathBuf) -> Bitcode {
        Bitcode {
            dir: self.dir,
            path,
        }
    }
}

/// Compiles and links `inputs` to one bitcode file with mem2reg applied.
pub fn compile_to_bitcode(inputs: &[PathBuf], opts: &LoadOptions) -> Result<Bitcode, LowerError> {
    let compiled = Compiled::new(inputs, opts)?;
    let path = compiled.link(&[], 0, opts)?;
    Ok(compiled.into_bitcode(path))
}
