//! Turning the command line's program inputs into a loaded module and an entry function.
//!
//! Positional items are input files (`.c`, `.cpp`, `.ll`, `.bc`, or directories) up to
//! the first item that is not one; the rest are the function's arguments.

use anyhow::{bail, Context, Result};
use clap::Args;
use fpforge_lower::LoadOptions;
use fpir::{Func, Module};
use std::path::{Path, PathBuf};

/// Program inputs shared by every command.
#[derive(Args, Debug, Clone)]
pub struct ProgramArgs {
    /// Function to run or analyse.
    #[arg(short = 'f', long = "function", value_name = "FUNC")]
    pub function: String,
    /// Add a directory to the C include path (passed to clang).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<String>,
    /// Define a preprocessor macro, `NAME` or `NAME=VALUE` (passed to clang).
    #[arg(short = 'D', value_name = "MACRO")]
    pub define: Vec<String>,
    /// Language standard, e.g. `c99`, `c11`, `c++17` (passed to clang as -std=).
    #[arg(long = "std", value_name = "STD")]
    pub std: Option<String>,
    /// Any other compiler flag, passed to clang as is (repeatable).
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Load the inputs even if some functions use unsupported constructs (long double,
    /// inline asm, ...); such a function traps when called, and calling it from FUNC is
    /// reported before the run.
    #[arg(long)]
    pub skip_unsupported: bool,
    /// Load the program even if FUNC may call functions that are neither defined in the
    /// inputs nor known math functions (e.g. `fprintf` on a library's error path): they
    /// are listed in a warning and trap if a run reaches them. Without this flag they are
    /// an error.
    #[arg(long)]
    pub allow_undefined: bool,
}

/// A module loaded from the inputs, with the entry function resolved.
pub struct Loaded {
    /// The lowered program.
    pub module: Module,
    /// The function the user named.
    pub func: Func,
}

const SOURCE_EXTENSIONS: &[&str] = &["c", "cc", "cpp", "cxx", "ll", "bc"];

/// True when `item` names an input file or directory rather than an argument value.
pub fn is_input_path(item: &str) -> bool {
    let path = Path::new(item);
    let has_source_ext = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e));
    has_source_ext || path.is_dir()
}

/// Splits positional items into input paths and argument texts.
pub fn split_items(items: &[String]) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let count = items.iter().take_while(|i| is_input_path(i)).count();
    if count == 0 {
        bail!(
            "no input file: give a .c, .cpp, .ll or .bc file or a directory before the arguments"
        );
    }
    let paths: Vec<PathBuf> = items[..count].iter().map(PathBuf::from).collect();
    for p in &paths {
        if !p.exists() {
            bail!("{}: no such file or directory", p.display());
        }
    }
    Ok((paths, items[count..].to_vec()))
}

impl ProgramArgs {
    fn load_options(&self) -> LoadOptions {
        let mut flags: Vec<String> = Vec::new();
        flags.extend(self.include.iter().map(|d| format!("-I{d}")));
        flags.extend(self.define.iter().map(|d| format!("-D{d}")));
        flags.extend(self.std.iter().map(|s| format!("-std={s}")));
        flags.extend(self.cflags.iter().cloned());
        LoadOptions::default()
            .with_compiler_flags(flags)
            .with_skip_unsupported(self.skip_unsupported)
    }

    /// Compiles, links and lowers `paths`, and finds the entry function.
    pub fn load(&self, paths: &[PathBuf]) -> Result<Loaded> {
        let module = fpforge_lower::load(paths, &self.load_options())?;
        let func = find_function(&module, &self.function)?;
        let missing = module.unresolved_from(func);
        if !missing.is_empty() && self.allow_undefined {
            eprintln!(
                "warning: `{}` may call undefined functions, which trap if reached: {}",
                self.function,
                missing.join(", ")
            );
        } else if !missing.is_empty() {
            bail!(
                "`{}` calls functions that are neither defined in the inputs nor known math functions: {} (add the files that define them, or pass --allow-undefined to trap when one is reached)",
                self.function,
                missing.join(", ")
            );
        }
        Ok(Loaded { module, func })
    }
}

fn find_function(module: &Module, name: &str) -> Result<Func> {
    if let Some(func) = module.func_by_name(name) {
        return Ok(func);
    }
    let mut names: Vec<&str> = module.funcs.values().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    let shown = names
        .iter()
        .take(20)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = if names.len() > 20 { ", ..." } else { "" };
    let available = if names.is_empty() {
        "the inputs define no functions".to_string()
    } else {
        format!("defined functions: {shown}{more}")
    };
    Err(anyhow::anyhow!("no function named `{name}` ({available})"))
        .context("cannot find the entry function")
}
