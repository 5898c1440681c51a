//! The clang-14 driver: compiles C and C++ to bitcode, links it with LLVM IR and bitcode
//! inputs, promotes locals to SSA, and reads the result.
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

use crate::error::{LowerError, Missing};
use crate::lower::Lowered;
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

/// A loaded program: the module, its entry function, and what the entry may use that
/// nothing defines.
#[derive(Debug)]
pub struct Loaded {
    /// The lowered module.
    pub module: fpir::Module,
    /// The entry function, when [`LoadOptions::entry`] names one.
    pub entry: Option<fpir::Func>,
    /// What the entry may use that nothing defines (or that was not lowered), when
    /// [`LoadOptions::allow_undefined`] lets it load: each traps when reached.
    pub missing: Vec<Missing>,
}

/// Compiles, links and lowers `inputs` (`.c`, `.cpp`/`.cc`/`.cxx`, `.ll`, `.bc` files,
/// or directories whose such files are taken in name order, not recursively).
pub fn load(inputs: &[PathBuf], opts: &LoadOptions) -> Result<fpir::Module, LowerError> {
    load_program(inputs, opts).map(|loaded| loaded.module)
}

/// [`load`], with the entry function and what it may use that nothing defines.
pub fn load_program(inputs: &[PathBuf], opts: &LoadOptions) -> Result<Loaded, LowerError> {
    let bitcode = compile_to_bitcode(inputs, opts)?;
    let lowered = lower_file(bitcode.path())?;
    finish(lowered, opts)
}

/// Reads a bitcode (or LLVM IR text) file and lowers it as it is (no mem2reg); any
/// unsupported construct is an error. A panic in the LLVM reader or in lowering
/// becomes [`LowerError::Parse`] or [`LowerError::Internal`].
pub fn lower_bitcode(path: &Path) -> Result<fpir::Module, LowerError> {
    lower_bitcode_with(path, &LoadOptions::default())
}

/// [`lower_bitcode`] honouring [`LoadOptions::entry`], [`LoadOptions::skip_unsupported`]
/// and [`LoadOptions::allow_undefined`] (the other options are about compiling and do
/// not apply).
pub fn lower_bitcode_with(path: &Path, opts: &LoadOptions) -> Result<fpir::Module, LowerError> {
    finish(lower_file(path)?, opts).map(|loaded| loaded.module)
}

/// Finds the entry function and checks what it reaches (see [`crate::reach`]).
fn finish(lowered: Lowered, opts: &LoadOptions) -> Result<Loaded, LowerError> {
    let entry = match &opts.entry {
        None => None,
        Some(name) => Some(lowered.module.func_by_name(name).ok_or_else(|| {
            let mut defined: Vec<String> = lowered
                .module
                .funcs
                .values()
                .map(|f| f.name.clone())
                .collect();
            defined.sort_unstable();
            LowerError::NoEntry {
                name: name.clone(),
                defined,
            }
        })?),
    };
    let missing = crate::reach::check(&lowered, entry, opts)?;
    Ok(Loaded {
        module: lowered.module,
        entry,
        missing,
    })
}

/// Reads and lowers one bitcode or LLVM IR text file, gaps and all.
fn lower_file(path: &Path) -> Result<Lowered, LowerError> {
    let is_text = path.extension().is_some_and(|e| e == "ll");
    let parsed = std::panic::catch_unwind(|| {
        if is_text {
            llvm_ir::Module::from_ir_path(path)
        } else {
            llvm_ir::Module::from_bc_path(path)
        }
    });
    let module = match parsed {
        Ok(Ok(m)) => m,
        Ok(Err(message)) => {
            return Err(LowerError::Parse {
                path: path.to_path_buf(),
                message,
            })
        }
        Err(_) => {
            return Err(LowerError::Parse {
                path: path.to_path_buf(),
                message: "the llvm-ir reader does not support a construct in this module"
                    .to_string(),
            })
        }
    };
    let beside = if crate::beside::needs_beside(&module) {
        crate::beside::read_beside(path, is_text).map_err(|message| LowerError::Parse {
            path: path.to_path_buf(),
            message,
        })?
    } else {
        Default::default()
    };
    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::lower::lower_module(&module, beside)
    }));
    lowered.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(LowerError::Internal {
            path: path.to_path_buf(),
            message,
        })
    })
}

/// What kind of input a file is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    /// C or C++ source for clang.
    Source,
    /// LLVM IR text or bitcode for llvm-link.
    Llvm,
}

fn kind_of(path: &Path) -> Option<Kind> {
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
/// error `on_failure` builds from its stderr.
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
        Err(on_failure(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ))
    }
}

/// Compiles one C/C++ file to bitcode.
fn compile_one(source: &Path, out: &Path, opts: &LoadOptions) -> Result<(), LowerError> {
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
    .args(&opts.compiler_flags)
    .arg(source)
    .arg("-o")
    .arg(out);
    run(&mut cmd, &opts.clang, |stderr| LowerError::Compile {
        file: source.to_path_buf(),
        stderr,
    })
}

/// Compiles `(source, output)` pairs on as many threads as the machine has cores; the
/// error reported is that of the first failing file in input order.
fn compile_all(jobs: &[(&PathBuf, &PathBuf)], opts: &LoadOptions) -> Result<(), LowerError> {
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
                let Some((source, out)) = jobs.get(i) else {
                    break;
                };
                let result = compile_one(source, out, opts);
                if let Ok(mut slot) = results[i].lock() {
                    *slot = Some(result);
                }
            });
        }
    });
    for slot in results {
        if let Ok(Some(Err(e))) = slot.into_inner() {
            return Err(e);
        }
    }
    Ok(())
}

/// Compiles and links `inputs` to one bitcode file with mem2reg applied.
pub fn compile_to_bitcode(inputs: &[PathBuf], opts: &LoadOptions) -> Result<Bitcode, LowerError> {
    let files = collect_inputs(inputs)?;
    let dir = tempfile::Builder::new()
        .prefix("fpforge-")
        .tempdir()
        .map_err(|source| LowerError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let to_link: Vec<PathBuf> = files
        .iter()
        .enumerate()
        .map(|(i, (path, kind))| match kind {
            Kind::Llvm => path.clone(),
            Kind::Source => {
                let stem = path
                    .file_stem()
                    .map_or_else(|| "input".into(), |s| s.to_string_lossy());
                dir.path().join(format!("{i}-{stem}.bc"))
            }
        })
        .collect();
    let jobs: Vec<(&PathBuf, &PathBuf)> = files
        .iter()
        .zip(&to_link)
        .filter(|((_, kind), _)| *kind == Kind::Source)
        .map(|((path, _), out)| (path, out))
        .collect();
    compile_all(&jobs, opts)?;
    let linked = dir.path().join("linked.bc");
    let mut link = Command::new(&opts.llvm_link);
    link.args(&to_link).arg("-o").arg(&linked);
    run(&mut link, &opts.llvm_link, |stderr| LowerError::Tool {
        tool: opts.llvm_link.display().to_string(),
        stderr,
    })?;
    let path = dir.path().join("module.bc");
    let mut opt = Command::new(&opts.opt);
    opt.arg("-passes=mem2reg").arg(&linked).arg("-o").arg(&path);
    run(&mut opt, &opts.opt, |stderr| LowerError::Tool {
        tool: opts.opt.display().to_string(),
        stderr,
    })?;
    Ok(Bitcode { dir, path })
}
