//! A first `fpforge.toml` (`fpforge init DIR`) for the C and C++ files under `DIR`: the sources (one `*.EXT` glob per directory and
//! extension), the compiler flags given to `init`, `[select] all = true`, the default
//! budget, and one commented `[function.NAME]` section per function `--all` selects,
//! with its signature. A function whose parameters no default input fits (a pointer to
//! a pointer, ...) is marked `NEEDS A SPEC` with the reason; a pointer parameter, which
//! gets a one-element array by default, is marked for a length.

use crate::library::Library;
use crate::program::Program;
use fpforge_spec::InputSpec;
use fpir::{Func, Module, Type};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The text of the `fpforge.toml` of the library in `dir`: `program`'s sources and
/// flags, and a section per function of `library` (every function `--all` selects).
pub fn project_text(dir: &Path, program: &Program, library: &Library) -> String {
    let load = &program.load;
    let flags = |prefix: &str| -> Vec<String> {
        load.compiler_flags
            .iter()
            .filter_map(|f| f.strip_prefix(prefix).map(str::to_string))
            .collect()
    };
    let includes: Vec<String> = flags("-I").iter().map(|d| relative(dir, d)).collect();
    let std = flags("-std=");
    let others: Vec<String> = load
        .compiler_flags
        .iter()
        .filter(|f| !["-I", "-D", "-std="].iter().any(|p| f.starts_with(p)))
        .cloned()
        .collect();
    let mut text = String::from(
        "# fpforge.toml, first written by `fpforge init`. Run `fpforge cover` (or explore,\n\
         # accuracy) in this directory to test the library; a flag given on the command line\n\
         # overrides this file. Reference: docs/LIBRARY.md in fpforge.\n\n[sources]\n",
    );
    let _ = writeln!(text, "files = {}", list(&source_globs(dir, &program.paths)));
    let _ = writeln!(text, "include = {}", list(&includes));
    let _ = writeln!(text, "define = {}", list(&flags("-D")));
    match std.first() {
        Some(std) => {
            let _ = writeln!(text, "std = {}", quoted(std));
        }
        None => text.push_str("# std = \"c99\"\n"),
    }
    let _ = writeln!(text, "cflags = {}", list(&others));
    let _ = writeln!(text, "allow_undefined = {}", load.allow_undefined);
    let _ = writeln!(text, "skip_unsupported = {}", load.skip_unsupported);
    text.push_str(
        "\n[select]\nall = true\n# functions = [\"exp*\"]\nskip = []\n\n[budget]\n\
         time_limit = 10.0\n# total_time = 600.0\njobs = 1\n# evals = 100000\nseed = 0\n\n\
         # One section per function `--all` selects: uncomment one to give its parameters\n\
         # specs (`x in [0, 10]`, `a: f64[8]`, `n = 4`; out_args: `out: f64[8]`).\n",
    );
    for candidate in &library.candidates {
        function_section(
            &mut text,
            &library.module,
            candidate.func,
            &candidate.problem,
        );
    }
    text
}

/// A function's commented section: its signature, and what it needs.
fn function_section(text: &mut String, module: &Module, func: Func, problem: &Option<String>) {
    let function = &module.funcs[func];
    let name = &function.name;
    let types = function.param_types();
    let params: Vec<(String, &Type)> = types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            let param = function.param_names.get(i).cloned().flatten();
            (param.unwrap_or_else(|| format!("{}", i + 1)), ty)
        })
        .collect();
    let signature: Vec<String> = params
        .iter()
        .enumerate()
        .map(
            |(i, (param, ty))| match function.param_pointees.get(i).cloned().flatten() {
                Some(pointee) => format!("{param}: ptr to {pointee}"),
                None => format!("{param}: {ty}"),
            },
        )
        .collect();
    let ret = function
        .ret
        .as_ref()
        .map_or(String::new(), |t| format!(" -> {t}"));
    text.push('\n');
    if let Some(problem) = problem {
        let _ = writeln!(text, "# not testable as it is: {}", one_line(problem));
    }
    let needs = InputSpec::for_function(module, func, &[], &[]).err();
    if let Some(why) = &needs {
        let _ = writeln!(text, "# NEEDS A SPEC: {}", one_line(&why.to_string()));
    }
    let _ = writeln!(
        text,
        "# [function.{}]  # ({}){ret}",
        key(name),
        signature.join(", ")
    );
    let placeholders: Vec<String> = params
        .iter()
        .enumerate()
        .filter(|(_, (_, ty))| matches!(ty, Type::Ptr))
        .map(
            |(i, (param, _))| match function.param_pointees.get(i).cloned().flatten() {
                Some(pointee @ (Type::Float(_) | Type::Int(_))) => {
                    format!("{param}: {pointee}[LENGTH]")
                }
                _ => format!("{param}: ..."),
            },
        )
        .collect();
    if placeholders.is_empty() && needs.is_none() {
        text.push_str("# args = []\n");
    } else {
        let _ = writeln!(
            text,
            "# args = {}  # a pointer is one element unless given a length",
            list(&placeholders)
        );
    }
}

/// One `*.EXT` glob per directory and extension of `paths`, relative to `dir`.
fn source_globs(dir: &Path, paths: &[std::path::PathBuf]) -> Vec<String> {
    let globs: BTreeSet<String> = paths
        .iter()
        .map(|p| {
            let ext = p
                .extension()
                .map_or(String::new(), |e| e.to_string_lossy().into_owned());
            let parent = p.parent().map(|d| relative(dir, &d.display().to_string()));
            match parent.as_deref() {
                None | Some("") | Some(".") => format!("*.{ext}"),
                Some(parent) => format!("{parent}/*.{ext}"),
            }
        })
        .collect();
    globs.into_iter().collect()
}

/// `path` relative to `dir` when it is under it, else as given.
fn relative(dir: &Path, path: &str) -> String {
    Path::new(path)
        .strip_prefix(dir)
        .map_or(path.to_string(), |p| p.display().to_string())
}

/// A TOML string.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A TOML array of strings.
fn list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|i| quoted(i)).collect();
    format!("[{}]", items.join(", "))
}

/// A TOML key: bare when it can be.
fn key(name: &str) -> String {
    let bare = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        name.to_string()
    } else {
        quoted(name)
    }
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
