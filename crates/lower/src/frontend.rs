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
//! must. The differential test harness compiles the very same bitcode natively, so
//! [`compile_to_bitcode`] hands it out.

use crate::error::LowerError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to compile and load the inputs.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Flags passed to clang for every C/C++ file, after fpforge's own (`-I`, `-D`,
    /// `-std=...`). Default: none.
    pub compiler_flags: Vec<String>,
    /// The C/C++ compiler. Default: `clang-14`. C++ files (`.cpp`, `.cc`, `.cxx`) go to
    /// the same driver, which picks the language from the extension.
    pub clang: PathBuf,
    /// The bitcode linker. Default: `llvm-link-14`.
    pub llvm_link: PathBuf,
    /// The LLVM optimizer that runs mem2reg. Default: `opt-14`.
    pub opt: PathBuf,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            compiler_flags: Vec::new(),
            clang: PathBuf::from("clang-14"),
            llvm_link: PathBuf::from("llvm-link-14"),
            opt: PathBuf::from("opt-14"),
        }
    }
}

impl LoadOptions {
    /// Sets the flags passed to clang.
    pub fn with_compiler_flags(
        mut self,
        flags: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.compiler_flags = flags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the C/C++ compiler.
    pub fn with_clang(mut self, clang: impl Into<PathBuf>) -> Self {
        self.clang = clang.into();
        self
    }

    /// Sets the bitcode linker.
    pub fn with_llvm_link(mut self, llvm_link: impl Into<PathBuf>) -> Self {
        self.llvm_link = llvm_link.into();
        self
    }

    /// Sets the optimizer that runs mem2reg.
    pub fn with_opt(mut self, opt: impl Into<PathBuf>) -> Self {
        self.opt = opt.into();
        self
    }
}

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

/// Compiles, links and lowers `inputs` (`.c`, `.cpp`/`.cc`/`.cxx`, `.ll`, `.bc` files,
/// or directories whose such files are taken in name order, not recursively).
pub fn load(inputs: &[PathBuf], opts: &LoadOptions) -> Result<fpir::Module, LowerError> {
    let bitcode = compile_to_bitcode(inputs, opts)?;
    lower_bitcode(bitcode.path())
}

/// Reads a bitcode (or LLVM IR text) file and lowers it as it is (no mem2reg).
pub fn lower_bitcode(path: &Path) -> Result<fpir::Module, LowerError> {
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
    crate::lower::lower_module(&module)
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
            match kind_of(input) {
                Some(kind) => files.push((input.clone(), kind)),
                None => {
                    return Err(LowerError::UnknownInput {
                        path: input.clone(),
                    })
                }
            }
        }
    }
    if files.is_empty() {
        return Err(LowerError::NoInputs);
    }
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
    let mut to_link = Vec::with_capacity(files.len());
    for (i, (path, kind)) in files.iter().enumerate() {
        match kind {
            Kind::Llvm => to_link.push(path.clone()),
            Kind::Source => {
                let stem = path
                    .file_stem()
                    .map_or_else(|| "input".into(), |s| s.to_string_lossy());
                let out = dir.path().join(format!("{i}-{stem}.bc"));
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
                .arg(path)
                .arg("-o")
                .arg(&out);
                run(&mut cmd, &opts.clang, |stderr| LowerError::Compile {
                    file: path.clone(),
                    stderr,
                })?;
                to_link.push(out);
            }
        }
    }
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
