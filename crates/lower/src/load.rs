//! Loading: compile and link the inputs (see [`crate::frontend`]), pull in library
//! files for what they lack (see [`crate::library`]), lower the result (see
//! [`crate::lower`]) and check what the entry function reaches (see [`crate::reach`]).

use crate::error::{LowerError, Missing, Searched};
use crate::frontend::Compiled;
use crate::library::Library;
use crate::lower::Lowered;
use crate::options::LoadOptions;
use crate::paths::SourcePaths;
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
    /// The C and C++ translation units the program was compiled from: the inputs' and
    /// the library files', canonical: not every file the debug info names (a `.c` file
    /// another includes is no unit).
    pub sources: Vec<PathBuf>,
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
    let library = index_library(&compiled, opts)?;
    let first = lower_linked(&compiled, &compiled.link(&[], 0, opts)?, opts)?;
    let entry = opts.entry.as_ref().map(std::slice::from_ref);
    let (lowered, searched) = pull_library(&compiled, library.as_ref(), first, opts, entry)?;
    let sources = translation_units(&compiled, &searched.linked);
    finish(lowered, opts, searched).map(|loaded| Loaded { sources, ..loaded })
}

/// The C and C++ files compiled into a program: the inputs' and the `linked` library
/// files', canonical. These, not every file the debug info names, are what a native
/// build compiles: a `.c` file another includes (GSL's `cheb_eval.c`) is no unit.
fn translation_units(compiled: &Compiled, linked: &[PathBuf]) -> Vec<PathBuf> {
    compiled
        .inputs
        .iter()
        .chain(linked)
        .filter(|path| crate::frontend::is_source(path))
        .map(|path| path.canonicalize().unwrap_or_else(|_| path.clone()))
        .collect()
}

/// A program loaded for several entry functions: a run over a library's functions.
#[derive(Debug)]
pub struct LoadedEntries {
    /// The lowered module.
    pub module: fpir::Module,
    /// The entry functions, in the order they were selected.
    pub entries: Vec<Entry>,
    /// The library files linked in for what the entries lack, in the order they were
    /// pulled in.
    pub library_files: Vec<PathBuf>,
    /// The C and C++ translation units the program was compiled from, canonical.
    pub sources: Vec<PathBuf>,
}

/// One entry function of [`LoadedEntries`] and whether what it reaches can run.
#[derive(Debug)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// The function.
    pub func: fpir::Func,
    /// What it may use that nothing defines (tolerated by
    /// [`LoadOptions::allow_undefined`]), or why it cannot run: the error
    /// [`load_program`] gives with it as the entry.
    pub checked: Result<Vec<Missing>, LowerError>,
}

/// [`load_program`] for several entry functions, which `select` names from the module of
/// the inputs alone (it gets the module and the path of its bitcode). Library files are
/// pulled in for what any entry reaches, and each entry is checked on its own, so one
/// that reaches an unsupported construct or a missing symbol does not stop the others.
/// [`LoadOptions::entry`] is not used.
pub fn load_entries<E: From<LowerError>>(
    inputs: &[PathBuf],
    opts: &LoadOptions,
    select: impl FnOnce(&fpir::Module, &Path) -> Result<Vec<String>, E>,
) -> Result<LoadedEntries, E> {
    let compiled = Compiled::new(inputs, opts)?;
    let library = index_library(&compiled, opts)?;
    let first_path = compiled.link(&[], 0, opts)?;
    let first = lower_linked(&compiled, &first_path, opts)?;
    let names = select(&first.module, &first_path)?;
    let (lowered, searched) = pull_library(&compiled, library.as_ref(), first, opts, Some(&names))?;
    let mut entries = Vec::with_capacity(names.len());
    for name in names {
        let func = find_entry(&lowered.module, &name)?;
        let checked = crate::reach::check(&lowered, Some(func), opts, &searched);
        entries.push(Entry {
            name,
            func,
            checked,
        });
    }
    Ok(LoadedEntries {
        module: lowered.module,
        entries,
        sources: translation_units(&compiled, &searched.linked),
        library_files: searched.linked,
    })
}

/// The library of `opts`' search path, when it has one.
fn index_library(compiled: &Compiled, opts: &LoadOptions) -> Result<Option<Library>, LowerError> {
    if opts.lib_dirs.is_empty() && opts.compile_commands.is_none() {
        return Ok(None);
    }
    Library::index(opts, &compiled.inputs).map(Some)
}

/// Links in the library files that define what `entries` (every function, with `None`)
/// reach and the inputs lack, round after round from the inputs' module `lowered`, until
/// nothing more is found; returns the last module and what was searched.
fn pull_library(
    compiled: &Compiled,
    library: Option<&Library>,
    mut lowered: Lowered,
    opts: &LoadOptions,
    entries: Option<&[String]>,
) -> Result<(Lowered, Searched), LowerError> {
    let Some(library) = library else {
        return Ok((lowered, Searched::default()));
    };
    let mut pulled: Vec<PathBuf> = Vec::new();
    let mut round = 0;
    loop {
        let wanted = crate::reach::wanted(&lowered, entries);
        let more = library.files_for(&wanted, &pulled)?;
        if more.is_empty() {
            let searched = Searched {
                linked: pulled
                    .iter()
                    .map(|bc| {
                        library
                            .source_of(bc)
                            .map_or_else(|| bc.clone(), Path::to_path_buf)
                    })
                    .collect(),
                unindexed: library.uncompiled(),
            };
            return Ok((lowered, searched));
        }
        pulled.extend(more);
        round += 1;
        lowered = lower_linked(compiled, &compiled.link(&pulled, round, opts)?, opts)?;
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
    finish(
        lower_file(path, &opts.source_paths)?,
        opts,
        Searched::default(),
    )
    .map(|loaded| loaded.module)
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
        sources: Vec::new(),
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

/// Lowers the linked module of `compiled` at `path`, its Fortran routines named and
/// shaped as Fortran declares them.
fn lower_linked(
    compiled: &Compiled,
    path: &Path,
    opts: &LoadOptions,
) -> Result<Lowered, LowerError> {
    let mut lowered = lower_file(path, &opts.source_paths)?;
    crate::fortran::annotate(&mut lowered.module, &compiled.fortran);
    Ok(lowered)
}

/// Reads and lowers one bitcode or LLVM IR text file, gaps and all.
fn lower_file(path: &Path, paths: &SourcePaths) -> Result<Lowered, LowerError> {
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
                message: crate::quote::quote(message.as_bytes()),
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
                message: crate::quote::quote(message.as_bytes()),
            }
        })?
    } else {
        Default::default()
    };
    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::lower::lower_module(&module, beside, paths)
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
