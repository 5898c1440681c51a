//! Loading: compile and link the inputs (see [`crate::frontend`]), pull in library
//! files for what they lack (see [`crate::library`]), lower the result (see
//! [`crate::lower`]) and check what the entry function reaches (see [`crate::reach`]).

use crate::error::{LowerError, Missing, Searched};
use crate::frontend::Compiled;
use crate::library::Library;
use crate::lower::Lowered;
use crate::options::LoadOptions;
use std::path::{Path, PathBuf};

/// A loaded program: the module, its entry function, the library files it took, and
/// what the entry may use that nothing defines.
#[derive(Debug)]
pub struct Loaded {
    /// The lowered module.
    pub module: fpir::Module,
    /// The entry function, when [`LoadOptions::entry`] names one.
    pub entry: Option<fpir::Func>,
    /// The library files linked in for what the inputs lack, in the order they were
    /// pulled in (see [`LoadOptions::lib_dirs`]).
    pub library_files: Vec<PathBuf>,
    /// What the entry may use that nothing defines (or that was not lowered), when
    /// [`LoadOptions::allow_undefined`] lets it load: each traps when reached.
    pub missing: Vec<Missing>,
}

/// Compiles, links and lowers `inputs` (`.c`, `.cpp`/`.cc`/`.cxx`, `.ll`, `.bc` files,
/// or directories whose such files are taken in name order, not recursively).
pub fn load(inputs: &[PathBuf], opts: &LoadOptions) -> Result<fpir::Module, LowerError> {
    load_program(inputs, opts).map(|loaded| loaded.module)
}

/// [`load`], with the entry function, the library files pulled in and what the entry
/// may use that nothing defines. With a library search path, the files that define
/// what the entry reaches and the inputs lack are linked in, round after round, until
/// nothing more is found (see [`LoadOptions::lib_dirs`]).
pub fn load_program(inputs: &[PathBuf], opts: &LoadOptions) -> Result<Loaded, LowerError> {
    let compiled = Compiled::new(inputs, opts)?;
    let library = if opts.lib_dirs.is_empty() && opts.compile_commands.is_none() {
        None
    } else {
        Some(Library::index(opts, &compiled.inputs)?)
    };
    let mut pulled: Vec<PathBuf> = Vec::new();
    let mut round = 0;
    loop {
        let lowered = lower_file(&compiled.link(&pulled, round, opts)?)?;
        let more = match &library {
            Some(library) => {
                let wanted = crate::reach::wanted(&lowered, opts.entry.as_deref());
                library.files_for(&wanted, &pulled)?
            }
            None => Vec::new(),
        };
        if more.is_empty() {
            let sources = pulled
                .iter()
                .map(|bc| {
                    library
                        .as_ref()
                        .and_then(|l| l.source_of(bc))
                        .map_or_else(|| bc.clone(), Path::to_path_buf)
                })
                .collect();
            let searched = Searched {
                linked: sources,
                unindexed: library
                    .as_ref()
                    .map(Library::uncompiled)
                    .unwrap_or_default(),
            };
            return finish(lowered, opts, searched);
        }
        pulled.extend(more);
        round += 1;
    }
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
    finish(lower_file(path)?, opts, Searched::default()).map(|loaded| loaded.module)
}

/// Finds the entry function and checks what it reaches (see [`crate::reach`]).
fn finish(lowered: Lowered, opts: &LoadOptions, searched: Searched) -> Result<Loaded, LowerError> {
    let entry = match &opts.entry {
        None => None,
        Some(name) => Some(find_entry(&lowered.module, name)?),
    };
    let missing = crate::reach::check(&lowered, entry, opts, &searched)?;
    Ok(Loaded {
        module: lowered.module,
        entry,
        library_files: searched.linked,
        missing,
    })
}

/// The function `name` names (see [`fpir::Module::lookup_func`]).
fn find_entry(module: &fpir::Module, name: &str) -> Result<fpir::Func, LowerError> {
    match module.lookup_func(name) {
        fpir::FuncLookup::Found(func) => Ok(func),
        fpir::FuncLookup::Ambiguous(candidates) => Err(LowerError::AmbiguousEntry {
            name: name.to_string(),
            candidates,
        }),
        fpir::FuncLookup::Missing => {
            let mut defined: Vec<String> = module
                .funcs
                .values()
                .map(|f| f.display_name().to_string())
                .collect();
            defined.sort_unstable();
            Err(LowerError::NoEntry {
                name: name.to_string(),
                defined,
            })
        }
    }
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
    let want_text = crate::shapes::has_struct_params(&module);
    let beside = if crate::beside::needs_beside(&module) || want_text {
        crate::beside::read_beside(path, is_text, want_text).map_err(|message| {
            LowerError::Parse {
                path: path.to_path_buf(),
                message,
            }
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
