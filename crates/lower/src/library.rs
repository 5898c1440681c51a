//! The library search path, as a linker has one: C/C++ files in `--lib-dir`
//! directories (not recursive, compiled with the inputs' flags) and the files a
//! `compile_commands.json` lists (each with its own flags, in its own directory). When
//! the entry function reaches a function or global that no input defines,
//! [`crate::frontend`] asks [`Library::files_for`] for the files that define it, links
//! them in and looks again, until nothing more is found: only the files a run may need
//! are pulled in, transitively.
//!
//! The index says which symbols each file defines (externally visible functions,
//! variables with a value, aliases; `weak` and `linkonce` ones as weak). It is built by
//! compiling each file to bitcode with fpforge's own clang flags, and cached under
//! [`LoadOptions::cache_dir`] (outside the repository): one entry per file, keyed by its
//! path and its flags and valid while the file keeps its size and modification time,
//! with the bitcode beside it, which is what gets linked. Headers are not part of the
//! key: after changing one, delete the cache. A file that does not compile is recorded
//! as such and defines nothing.
//!
//! A symbol two files define (both strongly, or both weakly when none does strongly) is
//! a [`LowerError::Conflict`], never a guess; a strong definition wins over weak ones.

use crate::error::LowerError;
use crate::frontend::{compile_all, CompileJob};
use crate::options::LoadOptions;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// The version of the cache entries' format.
const FORMAT: &str = "fpforge-libindex 1";

/// How a file defines a symbol.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Strength {
    /// An ordinary external definition.
    Strong,
    /// `weak`, `linkonce` or common: another definition may take its place.
    Weak,
}

/// One library file and what it defines.
#[derive(Clone, Debug)]
struct LibFile {
    /// The source, canonical.
    source: PathBuf,
    /// Its cached bitcode, or why it did not compile.
    bitcode: Result<PathBuf, String>,
    /// What it defines.
    defines: Vec<(String, Strength)>,
}

/// The indexed library files.
#[derive(Debug, Default)]
pub(crate) struct Library {
    files: Vec<LibFile>,
    by_symbol: HashMap<String, Vec<(usize, Strength)>>,
}

impl Library {
    /// Indexes the files of `opts.lib_dirs` and `opts.compile_commands`, leaving out
    /// `inputs` (the files given by name are linked anyway).
    pub fn index(opts: &LoadOptions, inputs: &[PathBuf]) -> Result<Library, LowerError> {
        let skip: Vec<PathBuf> = inputs
            .iter()
            .filter_map(|p| p.canonicalize().ok())
            .collect();
        let mut wanted: Vec<Wanted> = Vec::new();
        for dir in &opts.lib_dirs {
            for source in sources_in(dir)? {
                wanted.push(Wanted {
                    source,
                    flags: opts.compiler_flags.clone(),
                    cwd: None,
                });
            }
        }
        if let Some(db) = &opts.compile_commands {
            wanted.extend(read_compile_commands(db)?);
        }
        wanted.retain(|w| !skip.contains(&w.source));
        let mut seen = std::collections::HashSet::new();
        wanted.retain(|w| seen.insert(w.source.clone()));
        let files = index_files(&wanted, opts)?;
        let mut by_symbol: HashMap<String, Vec<(usize, Strength)>> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            for (name, strength) in &f.defines {
                by_symbol
                    .entry(name.clone())
                    .or_default()
                    .push((i, *strength));
            }
        }
        Ok(Library { files, by_symbol })
    }

    /// The bitcode of the files that define `names`, leaving out those in `linked`;
    /// a name no file defines is skipped (it stays missing).
    pub fn files_for(
        &self,
        names: &[String],
        linked: &[PathBuf],
    ) -> Result<Vec<PathBuf>, LowerError> {
        let mut found = Vec::new();
        for name in names {
            let Some(defs) = self.by_symbol.get(name) else {
                continue;
            };
            let strong: Vec<usize> = defs
                .iter()
                .filter(|(_, s)| *s == Strength::Strong)
                .map(|(i, _)| *i)
                .collect();
            let chosen = match strong.len() {
                0 => defs.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
                _ => strong,
            };
            if chosen.len() > 1 {
                return Err(LowerError::Conflict {
                    symbol: name.clone(),
                    files: chosen
                        .iter()
                        .map(|&i| self.files[i].source.clone())
                        .collect(),
                });
            }
            if let Ok(bc) = &self.files[chosen[0]].bitcode {
                if !linked.contains(bc) && !found.contains(bc) {
                    found.push(bc.clone());
                }
            }
        }
        Ok(found)
    }

    /// The source of the library file whose bitcode is `bitcode`.
    pub fn source_of(&self, bitcode: &Path) -> Option<&Path> {
        self.files
            .iter()
            .find(|f| f.bitcode.as_deref().ok() == Some(bitcode))
            .map(|f| f.source.as_path())
    }

    /// The library files that did not compile, with clang's first error line.
    pub fn uncompiled(&self) -> Vec<(PathBuf, String)> {
        self.files
            .iter()
            .filter_map(|f| match &f.bitcode {
                Err(why) => Some((f.source.clone(), why.clone())),
                Ok(_) => None,
            })
            .collect()
    }
}

/// A library file to index: its canonical path, flags and working directory.
#[derive(Clone, Debug)]
struct Wanted {
    source: PathBuf,
    flags: Vec<String>,
    cwd: Option<PathBuf>,
}

/// The C/C++ files directly in `dir`, canonical, in name order.
fn sources_in(dir: &Path) -> Result<Vec<PathBuf>, LowerError> {
    let io = |source| LowerError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let is_source = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "c" | "cc" | "cpp" | "cxx"));
        if is_source && path.is_file() {
            found.push(path.canonicalize().map_err(io)?);
        }
    }
    found.sort();
    Ok(found)
}

/// The entries of a `compile_commands.json`: each file with the flags of its command
/// that choose what the preprocessor and the language see (`-I`, `-D`, `-U`, `-std=`,
/// `-include`, `-isystem`, `-iquote`, `-idirafter`, `-nostdinc`, `-ffreestanding`,
/// `-fno-builtin`), in its directory. Optimization, warning and output flags are left
/// out: fpforge compiles at `-O0` with its own flags.
fn read_compile_commands(db: &Path) -> Result<Vec<Wanted>, LowerError> {
    let bad = |message: String| LowerError::CompileCommands {
        path: db.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(db).map_err(|source| LowerError::Io {
        path: db.to_path_buf(),
        source,
    })?;
    let entries: Vec<serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let mut wanted = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = |name: &str| entry.get(name).and_then(|v| v.as_str());
        let (Some(dir), Some(file)) = (field("directory"), field("file")) else {
            return Err(bad(format!("entry {i} has no `directory` or `file`")));
        };
        let words = match (entry.get("arguments"), field("command")) {
            (Some(serde_json::Value::Array(args)), _) => args
                .iter()
                .filter_map(|a| a.as_str().map(str::to_string))
                .collect(),
            (_, Some(command)) => shell_words(command),
            _ => return Err(bad(format!("entry {i} has no `arguments` or `command`"))),
        };
        let dir = PathBuf::from(dir);
        let source = dir.join(file);
        let is_source = source
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "c" | "cc" | "cpp" | "cxx"));
        let Ok(source) = source.canonicalize() else {
            continue;
        };
        if is_source {
            wanted.push(Wanted {
                source,
                flags: language_flags(&words),
                cwd: Some(dir),
            });
        }
    }
    Ok(wanted)
}

/// The preprocessor and language flags of a compiler command line (see
/// [`read_compile_commands`]).
fn language_flags(words: &[String]) -> Vec<String> {
    const WITH_VALUE: [&str; 8] = [
        "-I",
        "-D",
        "-U",
        "-include",
        "-isystem",
        "-iquote",
        "-idirafter",
        "-imacros",
    ];
    const ALONE: [&str; 3] = ["-nostdinc", "-ffreestanding", "-fno-builtin"];
    let mut flags = Vec::new();
    let mut it = words.iter().skip(1);
    while let Some(w) = it.next() {
        if WITH_VALUE.contains(&w.as_str()) {
            if let Some(value) = it.next() {
                flags.push(w.clone());
                flags.push(value.clone());
            }
        } else if ["-I", "-D", "-U"].iter().any(|p| w.starts_with(p))
            || w.starts_with("-std=")
            || ALONE.contains(&w.as_str())
        {
            flags.push(w.clone());
        }
    }
    flags
}

/// Splits a command line as a POSIX shell would (quotes and backslashes; no expansion).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_with(String::new).push(next);
                }
            }
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// Indexes `wanted` through the cache: entries still valid are read, the others
/// compiled (in parallel) and written.
fn index_files(wanted: &[Wanted], opts: &LoadOptions) -> Result<Vec<LibFile>, LowerError> {
    let dir = &opts.cache_dir;
    std::fs::create_dir_all(dir).map_err(|source| LowerError::Io {
        path: dir.clone(),
        source,
    })?;
    let keys: Vec<CacheKey> = wanted.iter().map(|w| CacheKey::new(w, opts)).collect();
    let mut files: Vec<Option<LibFile>> = keys.iter().map(|k| k.read(dir)).collect();
    let stale: Vec<usize> = (0..wanted.len()).filter(|&i| files[i].is_none()).collect();
    let jobs: Vec<CompileJob> = stale
        .iter()
        .map(|&i| CompileJob {
            source: wanted[i].source.clone(),
            out: keys[i].bitcode(dir),
            flags: wanted[i].flags.clone(),
            cwd: wanted[i].cwd.clone(),
        })
        .collect();
    let results = compile_all(&jobs, opts);
    for (&i, result) in stale.iter().zip(results) {
        let bitcode = keys[i].bitcode(dir);
        let file = match result {
            Ok(()) => match defined_symbols(&bitcode) {
                Ok(defines) => LibFile {
                    source: wanted[i].source.clone(),
                    bitcode: Ok(bitcode),
                    defines,
                },
                Err(why) => failed(&wanted[i], why),
            },
            Err(e) => failed(&wanted[i], first_error_line(&e.to_string())),
        };
        keys[i].write(dir, &file)?;
        files[i] = Some(file);
    }
    Ok(files.into_iter().flatten().collect())
}

fn failed(wanted: &Wanted, why: String) -> LibFile {
    LibFile {
        source: wanted.source.clone(),
        bitcode: Err(why),
        defines: Vec::new(),
    }
}

/// The first line of a compiler's diagnostics that says `error`, or the first line.
fn first_error_line(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("error"))
        .or_else(|| text.lines().next())
        .unwrap_or("")
        .to_string()
}

/// What identifies a cache entry: the file, its flags, the compiler, and the size and
/// modification time the entry is valid for.
struct CacheKey {
    /// The entry's header lines, compared in full when it is read.
    header: String,
    /// Its file name stem, a hash of the header.
    stem: String,
}

impl CacheKey {
    fn new(wanted: &Wanted, opts: &LoadOptions) -> CacheKey {
        let (size, mtime) = std::fs::metadata(&wanted.source)
            .ok()
            .map(|m| {
                let mtime = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                (m.len(), mtime)
            })
            .unwrap_or((0, 0));
        let identity = format!(
            "{FORMAT}\nsource {}\nflags {}\ncwd {}\nclang {}\n",
            wanted.source.display(),
            wanted.flags.join("\u{1f}"),
            wanted
                .cwd
                .as_deref()
                .map_or(String::new(), |d| d.display().to_string()),
            opts.clang.display()
        );
        let stem = format!("{:016x}", fnv1a(identity.as_bytes()));
        CacheKey {
            header: format!("{identity}size {size}\nmtime {mtime}\n"),
            stem,
        }
    }

    fn bitcode(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.bc", self.stem))
    }

    fn entry(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.idx", self.stem))
    }

    /// The cached entry, if it exists and is still valid.
    fn read(&self, dir: &Path) -> Option<LibFile> {
        let text = std::fs::read_to_string(self.entry(dir)).ok()?;
        let body = text.strip_prefix(&self.header)?;
        let source = self
            .header
            .lines()
            .find_map(|l| l.strip_prefix("source "))
            .map(PathBuf::from)?;
        let mut lines = body.lines();
        let bitcode = match lines.next()? {
            "ok" if self.bitcode(dir).is_file() => Ok(self.bitcode(dir)),
            status => Err(status.strip_prefix("error ")?.to_string()),
        };
        let defines = lines
            .map(|l| match l.split_once(' ') {
                Some(("strong", name)) => Some((name.to_string(), Strength::Strong)),
                Some(("weak", name)) => Some((name.to_string(), Strength::Weak)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(LibFile {
            source,
            bitcode,
            defines,
        })
    }

    fn write(&self, dir: &Path, file: &LibFile) -> Result<(), LowerError> {
        let mut text = self.header.clone();
        match &file.bitcode {
            Ok(_) => text.push_str("ok\n"),
            Err(why) => text.push_str(&format!("error {}\n", why.replace('\n', " "))),
        }
        for (name, strength) in &file.defines {
            let kind = match strength {
                Strength::Strong => "strong",
                Strength::Weak => "weak",
            };
            text.push_str(&format!("{kind} {name}\n"));
        }
        let path = self.entry(dir);
        std::fs::write(&path, text).map_err(|source| LowerError::Io { path, source })
    }
}

/// 64-bit FNV-1a: a hash that stays the same across runs and toolchains.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The symbols a bitcode file defines for other files, with their strength.
fn defined_symbols(bitcode: &Path) -> Result<Vec<(String, Strength)>, String> {
    use llvm_ir::module::Linkage;
    let parsed = std::panic::catch_unwind(|| llvm_ir::Module::from_bc_path(bitcode));
    let module = match parsed {
        Ok(Ok(m)) => m,
        Ok(Err(e)) => return Err(e),
        Err(_) => return Err("the llvm-ir reader cannot read its bitcode".to_string()),
    };
    let strength = |linkage: Linkage| match linkage {
        Linkage::External => Some(Strength::Strong),
        Linkage::WeakAny
        | Linkage::WeakODR
        | Linkage::LinkOnceAny
        | Linkage::LinkOnceODR
        | Linkage::Common => Some(Strength::Weak),
        _ => None,
    };
    let functions = module
        .functions
        .iter()
        .filter_map(|f| Some((f.name.clone(), strength(f.linkage)?)));
    let globals = module
        .global_vars
        .iter()
        .filter(|g| g.initializer.is_some())
        .filter_map(|g| Some((crate::symbols::name_text(&g.name), strength(g.linkage)?)));
    let aliases = module
        .global_aliases
        .iter()
        .filter_map(|a| Some((crate::symbols::name_text(&a.name), strength(a.linkage)?)));
    Ok(functions.chain(globals).chain(aliases).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_as_a_shell_does() {
        assert_eq!(
            shell_words(r#"cc -DNAME="a b" -I 'x y' -c\ d.c"#),
            ["cc", "-DNAME=a b", "-I", "x y", "-c d.c"]
        );
    }

    #[test]
    fn only_language_flags_are_kept() {
        let words: Vec<String> = shell_words(
            "gcc -O2 -g -Wall -I../inc -I include -DHAVE_X=1 -std=c99 -fPIC -o x.o -c x.c -nostdinc",
        );
        assert_eq!(
            language_flags(&words),
            [
                "-I../inc",
                "-I",
                "include",
                "-DHAVE_X=1",
                "-std=c99",
                "-nostdinc"
            ]
        );
    }
}
