//! How to compile and load the inputs: compiler and tools, the entry function, and what
//! may be missing from what it reaches.

use crate::paths::SourcePaths;
use std::path::PathBuf;

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
    /// The Fortran 77 to C translator that Fortran sources (`.f`, `.F`, `.for`) go
    /// through (see `crate::fortran`). Default: `f2c`.
    pub f2c: PathBuf,
    /// The function runs start from: only what it reaches must lower and be defined
    /// (see the crate docs), and [`load_program`](crate::load_program) fails with
    /// [`LowerError::NoEntry`](crate::LowerError::NoEntry) when no input defines it. Default: none, so every
    /// function is an entry and missing symbols are not checked.
    pub entry: Option<String>,
    /// Load even when the entry reaches functions using something fpir cannot represent
    /// (`long double`, vectors, struct values in registers, ...): such a function traps
    /// when called and counts as missing (see [`LoadOptions::allow_undefined`]). Its
    /// branch sites remain, so site numbering still follows the text. The trap is a call
    /// of an external named `"<function> (not lowered: <reason>)"`. Globals whose initial
    /// value cannot be represented (`long double` constants) start zero-filled. Default:
    /// `false` (the unsupported construct closest to the entry is an error).
    pub skip_unsupported: bool,
    /// Load even when the entry may call functions or use globals that no input defines
    /// (or functions not lowered): each traps when reached, and [`Loaded::missing`](crate::Loaded::missing) lists
    /// them. Default: `false` (they are one [`LowerError::Undefined`](crate::LowerError::Undefined) listing all).
    pub allow_undefined: bool,
    /// Directories whose C/C++ files (not recursively) are a library, compiled with
    /// [`LoadOptions::compiler_flags`]: the files defining what the entry reaches and
    /// the inputs lack are pulled in, transitively. Default: none.
    pub lib_dirs: Vec<PathBuf>,
    /// A `compile_commands.json` whose files are a library too, each compiled with its
    /// own preprocessor and language flags. Default: none.
    pub compile_commands: Option<PathBuf>,
    /// Where the library index and the library's bitcode are cached. Default:
    /// `$FPFORGE_CACHE_DIR/libindex`, else `$XDG_CACHE_HOME/fpforge/libindex`, else
    /// `~/.cache/fpforge/libindex`.
    pub cache_dir: PathBuf,
    /// How the module names its source files (see [`SourcePaths`]). Default: as seen
    /// from the working directory.
    pub source_paths: SourcePaths,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            compiler_flags: Vec::new(),
            clang: PathBuf::from("clang-14"),
            llvm_link: PathBuf::from("llvm-link-14"),
            opt: PathBuf::from("opt-14"),
            f2c: PathBuf::from("f2c"),
            entry: None,
            skip_unsupported: false,
            allow_undefined: false,
            lib_dirs: Vec::new(),
            compile_commands: None,
            cache_dir: default_cache_dir(),
            source_paths: SourcePaths::default(),
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

    /// Sets whether functions using unsupported constructs become trapping skeletons.
    pub fn with_skip_unsupported(mut self, skip: bool) -> Self {
        self.skip_unsupported = skip;
        self
    }

    /// Sets the entry function.
    pub fn with_entry(mut self, entry: impl Into<String>) -> Self {
        self.entry = Some(entry.into());
        self
    }

    /// Sets whether missing functions and globals may load (and trap when reached).
    pub fn with_allow_undefined(mut self, allow: bool) -> Self {
        self.allow_undefined = allow;
        self
    }

    /// Adds library directories.
    pub fn with_lib_dirs(mut self, dirs: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        self.lib_dirs.extend(dirs.into_iter().map(Into::into));
        self
    }

    /// Sets the `compile_commands.json` of a library.
    pub fn with_compile_commands(mut self, path: impl Into<PathBuf>) -> Self {
        self.compile_commands = Some(path.into());
        self
    }

    /// Sets where the library index is cached.
    pub fn with_cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = dir.into();
        self
    }

    /// Sets how the module names its source files.
    pub fn with_source_paths(mut self, paths: SourcePaths) -> Self {
        self.source_paths = paths;
        self
    }

    /// Sets the optimizer that runs mem2reg.
    pub fn with_opt(mut self, opt: impl Into<PathBuf>) -> Self {
        self.opt = opt.into();
        self
    }
}

/// The library index's default place (see [`LoadOptions::cache_dir`]).
fn default_cache_dir() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = var("FPFORGE_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("fpforge")))
        .or_else(|| var("HOME").map(|h| h.join(".cache/fpforge")))
        .unwrap_or_else(|| std::env::temp_dir().join("fpforge-cache"));
    base.join("libindex")
}
