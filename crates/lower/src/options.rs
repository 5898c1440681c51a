//! How to compile and load the inputs: compiler and tools, the entry function, and what
//! may be missing from what it reaches.

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
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            compiler_flags: Vec::new(),
            clang: PathBuf::from("clang-14"),
            llvm_link: PathBuf::from("llvm-link-14"),
            opt: PathBuf::from("opt-14"),
            entry: None,
            skip_unsupported: false,
            allow_undefined: false,
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

    /// Sets the optimizer that runs mem2reg.
    pub fn with_opt(mut self, opt: impl Into<PathBuf>) -> Self {
        self.opt = opt.into();
        self
    }
}
