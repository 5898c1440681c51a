//! The commands outputs print to run a finding again, and where they find the sources
//! they show: both as seen from the directory the run started in.
//!
//! A replay command loads the program exactly as the run did — the same inputs, include
//! paths, macros, library directories and compile_commands.json, each path written by
//! [`SourcePaths`] (relative to the run's directory when under it, absolute otherwise,
//! or as a `--path-prefix-map` says) — so it works when pasted where the run started,
//! whatever directory the sources live in.

use fpforge_lower::{LoadOptions, SourcePaths};
use fpir::{Func, Module};
use std::path::{Path, PathBuf};

/// How a run's outputs replay its findings and locate its sources.
#[derive(Clone, Debug)]
pub struct Replay {
    /// `fpforge run` with the inputs and loading flags, without `-f`.
    program: String,
    sources: SourcePaths,
}

impl Replay {
    /// The replay of a program made of `inputs` loaded with `load`.
    pub fn new(inputs: &[PathBuf], load: &LoadOptions) -> Replay {
        let sources = &load.source_paths;
        let path = |p: &Path| shell_word(&sources.written_path(p));
        let mut words = vec!["fpforge run".to_string()];
        words.extend(inputs.iter().map(|p| path(p)));
        for flag in &load.compiler_flags {
            words.push(compiler_flag(flag, sources));
        }
        if load.skip_unsupported {
            words.push("--skip-unsupported".into());
        }
        if load.allow_undefined {
            words.push("--allow-undefined".into());
        }
        for dir in &load.lib_dirs {
            words.push(format!("--lib-dir {}", path(dir)));
        }
        if let Some(db) = &load.compile_commands {
            words.push(format!("--compile-commands {}", path(db)));
        }
        Replay {
            program: words.join(" "),
            sources: sources.clone(),
        }
    }

    /// Where the program's source files are.
    pub fn sources(&self) -> &SourcePaths {
        &self.sources
    }

    /// The command that runs `func` on `input` (a line of `inputs.txt`).
    pub fn command(&self, module: &Module, func: Func, input: &str) -> String {
        format!("{} {input}", self.start(module, func))
    }

    /// The command that runs `func` on the input a finding's `file` holds (its lines not
    /// starting with `#`), `file` as seen from the run's directory and written as the
    /// sources are (so a command written relative to a source root runs from there).
    pub fn command_from_file(&self, module: &Module, func: Func, file: &Path) -> String {
        let file = shell_word(&self.sources.written_path(file));
        format!("{} $(grep -v '^#' {file})", self.start(module, func))
    }

    fn start(&self, module: &Module, func: Func) -> String {
        format!("{} -f {} --", self.program, entry_name(module, func))
    }
}

/// A compiler flag as `fpforge run` takes it: `-I` paths written like every other path.
fn compiler_flag(flag: &str, sources: &SourcePaths) -> String {
    if let Some(dir) = flag.strip_prefix("-I") {
        format!("-I {}", shell_word(&sources.written_path(Path::new(dir))))
    } else if let Some(define) = flag.strip_prefix("-D") {
        format!("-D {}", shell_word(define))
    } else if let Some(std) = flag.strip_prefix("-std=") {
        format!("--std {}", shell_word(std))
    } else {
        format!("--cflag={}", shell_word(flag))
    }
}

/// The shortest name `-f` takes for `func`: its plain name when no other function shares
/// it, its symbol otherwise; quoted for the shell when it needs to be.
pub fn entry_name(module: &Module, func: Func) -> String {
    let entry = &module.funcs[func];
    let plain = entry.plain_name();
    let name = if module.lookup_func(plain) == fpir::FuncLookup::Found(func) {
        plain
    } else {
        &entry.name
    };
    shell_word(name)
}

/// `word` as one shell word: as is when it holds only characters no shell treats
/// specially, else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_:.-/=+,@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_the_shell_would_split_are_quoted() {
        assert_eq!(shell_word("a/b-c.c"), "a/b-c.c");
        assert_eq!(shell_word("my dir/x.c"), "'my dir/x.c'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("f<int>"), "'f<int>'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn the_program_is_loaded_as_the_run_loaded_it() {
        let run = SourcePaths::from_dir("/r/build");
        let load = LoadOptions::default()
            .with_source_paths(run)
            .with_compiler_flags(["-I../inc", "-DN=2", "-std=c99", "-O1"])
            .with_allow_undefined(true)
            .with_lib_dirs(["/r/lib"]);
        let replay = Replay::new(&["../src/f.c".into(), "g.c".into()], &load);
        assert_eq!(
            replay.program,
            "fpforge run /r/src/f.c g.c -I /r/inc -D N=2 --std c99 --cflag=-O1 \
             --allow-undefined --lib-dir /r/lib"
        );
    }
}
