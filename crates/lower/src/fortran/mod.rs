//! Fortran 77 sources: translated to C by `f2c`, then compiled like any C source, with
//! every site at its Fortran line.
//!
//! A `.f`/`.for`/`.f77` file is read as it is; a `.F`/`.fpp` file goes through the C
//! preprocessor first (`clang-14 -E -traditional-cpp`, with the `-D`/`-U`/`-I` flags of
//! the load), its line markers kept as a map back to the lines of the files it came
//! from. `RECURSIVE` (a Fortran 90 keyword that SciPy's QUADPACK and MINPACK put on F77
//! routines, which f2c rejects) is blanked out before f2c sees the text: f2c runs with
//! `-a` (locals automatic, as gfortran has them), so a translated routine may call itself
//! and each call has its own locals; SAVE and DATA variables are static in both, as
//! Fortran says. The text goes to `f2c -g -a -R -!bs` in the load's temporary directory
//! (never beside the user's file): `-g` writes `#line N "file"` before each statement,
//! which this module rewrites to name the user's file and line, so clang's debug info
//! (and every site, report and coverage line) points at the Fortran; `-R` keeps REAL
//! arithmetic in single precision; `-!bs` reads backslashes as gfortran does. An f2c
//! error is a [`LowerError::Fortran`] at the user's `file:line`.
//!
//! The C includes `f2c.h`, fpforge's own (`runtime/f2c.h`), written beside it, and calls
//! the Fortran runtime `runtime/f2crt.c`, linked like the C runtime (only what is used).
//! [`decl`] reads each routine's declarations; [`annotate`] names the lowered functions
//! as Fortran does and gives their parameters shapes: a dummy argument that is no array
//! is [`fpir::ParamShape::ByReference`], an array [`fpir::ParamShape::Array`] with its
//! extents.

pub(crate) mod decl;

use crate::error::LowerError;
use crate::options::LoadOptions;
use decl::Routine;
use fpir::{Extent, Module, ParamShape, Type};
use std::path::{Path, PathBuf};
use std::process::Command;

/// fpforge's `f2c.h`, which the translated C includes.
pub(crate) const F2C_HEADER: &str = include_str!("../../runtime/f2c.h");

/// Whether `path` is Fortran source by its extension.
pub(crate) fn is_fortran(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "f" | "F" | "for" | "FOR" | "f77" | "F77" | "fpp"))
}

/// Whether the C preprocessor runs first (`.F`, `.FOR`, `.F77`, `.fpp`).
fn needs_cpp(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "F" | "FOR" | "F77" | "fpp"))
}

/// A Fortran file translated to C.
#[derive(Debug)]
pub(crate) struct Translated {
    /// The C file, its `#line`s naming the Fortran file.
    pub c_file: PathBuf,
    /// Its routines.
    pub routines: Vec<Routine>,
}

/// Where each line of the text f2c reads comes from: a file and a line (1-based).
struct LineMap {
    files: Vec<PathBuf>,
    /// Per line of the text (index 0 is line 1): the file's index and its line.
    lines: Vec<(usize, usize)>,
}

impl LineMap {
    fn identity(file: PathBuf, text: &str) -> LineMap {
        LineMap {
            files: vec![file],
            lines: (1..=text.lines().count()).map(|n| (0, n)).collect(),
        }
    }

    /// The file and line of line `n` of the text (the last known one past the end).
    fn origin(&self, n: usize) -> (&Path, usize) {
        let at = n.clamp(1, self.lines.len().max(1)) - 1;
        match self.lines.get(at) {
            Some(&(file, line)) => (&self.files[file], line),
            None => (&self.files[0], n),
        }
    }
}

/// Translates the Fortran file `source` into C in `dir` (a directory of its own).
pub(crate) fn translate(
    source: &Path,
    dir: &Path,
    opts: &LoadOptions,
) -> Result<Translated, LowerError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LowerError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let original = source.canonicalize().map_err(io(source))?;
    let (text, map) = if needs_cpp(source) {
        preprocess(source, &original, opts)?
    } else {
        let bytes = std::fs::read(source).map_err(io(source))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let map = LineMap::identity(original.clone(), &text);
        (text, map)
    };
    let text = blank_recursive(&text);
    let stem = source.file_stem().map_or_else(
        || "input".to_string(),
        |s| s.to_string_lossy().to_lowercase(),
    );
    let stem: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let fortran = dir.join(format!("{stem}.f"));
    std::fs::write(&fortran, &text).map_err(io(&fortran))?;
    let header = dir.join("f2c.h");
    std::fs::write(&header, F2C_HEADER).map_err(io(&header))?;
    let mut f2c = Command::new(&opts.f2c);
    f2c.args(["-g", "-a", "-R", "-!bs"])
        .arg(format!("-d{}", dir.display()))
        .arg(&fortran);
    let output = f2c.output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            LowerError::ToolNotFound {
                tool: opts.f2c.display().to_string(),
            }
        } else {
            LowerError::Io {
                path: opts.f2c.clone(),
                source: e,
            }
        }
    })?;
    let c_file = dir.join(format!("{stem}.c"));
    if !output.status.success() || !c_file.is_file() {
        return Err(f2c_error(source, &output.stderr, &map));
    }
    let c_text = std::fs::read_to_string(&c_file).map_err(io(&c_file))?;
    let c_text = relocate_lines(&c_text, &map);
    std::fs::write(&c_file, c_text).map_err(io(&c_file))?;
    let mut routines = decl::routines(&text);
    for routine in &mut routines {
        routine.line = map.origin(routine.line).1;
    }
    Ok(Translated { c_file, routines })
}

/// Runs the C preprocessor over `source`; the text and where each of its lines is from.
fn preprocess(
    source: &Path,
    original: &Path,
    opts: &LoadOptions,
) -> Result<(String, LineMap), LowerError> {
    let flags = opts.compiler_flags.iter().filter(|f| {
        ["-D", "-U", "-I", "-include"]
            .iter()
            .any(|p| f.starts_with(p))
    });
    let output = Command::new(&opts.clang)
        .args(["-E", "-traditional-cpp", "-x", "c"])
        .args(flags)
        .arg(source)
        .output()
        .map_err(|e| LowerError::Io {
            path: opts.clang.clone(),
            source: e,
        })?;
    if !output.status.success() {
        return Err(LowerError::Compile {
            file: source.to_path_buf(),
            stderr: crate::quote::quote(&output.stderr),
        });
    }
    let out = String::from_utf8_lossy(&output.stdout);
    let mut map = LineMap {
        files: vec![original.to_path_buf()],
        lines: Vec::new(),
    };
    let mut text = String::new();
    let (mut file, mut line) = (0usize, 1usize);
    for row in out.lines() {
        if let Some((n, name)) = line_marker(row) {
            let path = if Path::new(name) == source {
                original.to_path_buf()
            } else {
                PathBuf::from(name)
            };
            file = match map.files.iter().position(|f| *f == path) {
                Some(i) => i,
                None => {
                    map.files.push(path);
                    map.files.len() - 1
                }
            };
            line = n;
            continue;
        }
        text.push_str(row);
        text.push('\n');
        map.lines.push((file, line));
        line += 1;
    }
    Ok((text, map))
}

/// `# 12 "file.F" 2` as its line and file.
fn line_marker(row: &str) -> Option<(usize, &str)> {
    let rest = row.strip_prefix("# ")?;
    let (n, rest) = rest.split_once(' ')?;
    let name = rest.strip_prefix('"')?;
    let name = &name[..name.rfind('"')?];
    Some((n.parse().ok()?, name))
}

/// `text` with the keyword RECURSIVE of routine headers replaced by blanks (columns and
/// lines unchanged).
fn blank_recursive(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut continues_header = false;
    for line in text.split_inclusive('\n') {
        let comment = line.starts_with(['C', 'c', '*', '!']);
        let lower = line.to_ascii_lowercase();
        if continues_header && !comment && line.len() > 6 && line.is_char_boundary(6) {
            // The header `recursive` stood alone before: its continuation starts it.
            out.push_str(&line[..5]);
            out.push(' ');
            out.push_str(&line[6..]);
            continues_header = false;
            continue;
        }
        if !comment && lower.trim() == "recursive" {
            // SciPy's MINPACK: `recursive` alone, the header on the next line as a
            // continuation. The line becomes a comment and the next one the header.
            out.push('C');
            out.push_str(&line[1..]);
            continues_header = true;
            continue;
        }
        let is_header = lower.contains("function") || lower.contains("subroutine");
        match lower.find("recursive").filter(|_| is_header && !comment) {
            Some(at) => {
                out.push_str(&line[..at]);
                out.push_str("         ");
                out.push_str(&line[at + "recursive".len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The C text with each `#line N "..."` naming the Fortran file and line it came from.
fn relocate_lines(c_text: &str, map: &LineMap) -> String {
    let mut out = String::with_capacity(c_text.len());
    for row in c_text.split_inclusive('\n') {
        let n = row
            .strip_prefix("#line ")
            .and_then(|rest| rest.split_once(' '))
            .and_then(|(n, _)| n.parse::<usize>().ok());
        match n {
            Some(n) => {
                let (file, line) = map.origin(n);
                let name = file
                    .display()
                    .to_string()
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"");
                out.push_str(&format!("#line {line} \"{name}\"\n"));
            }
            None => out.push_str(row),
        }
    }
    out
}

/// f2c's complaint as an error at the user's file and line (`Error on line 3 of x.f:
/// syntax error`), or its whole output when it names no line.
fn f2c_error(source: &Path, stderr: &[u8], map: &LineMap) -> LowerError {
    let text = String::from_utf8_lossy(stderr);
    let first = text.lines().find_map(|l| {
        let rest = l.strip_prefix("Error on line ")?;
        let (n, rest) = rest.split_once(" of ")?;
        let (_, message) = rest.split_once(": ")?;
        Some((n.parse::<usize>().ok()?, message.to_string()))
    });
    match first {
        Some((n, message)) => {
            let (file, line) = map.origin(n);
            let file = if file == map.files[0] {
                source.to_path_buf()
            } else {
                file.to_path_buf()
            };
            LowerError::Fortran {
                location: format!("{}:{line}", file.display()),
                message: format!("f2c: {message}"),
            }
        }
        None => LowerError::Fortran {
            location: source.display().to_string(),
            message: format!(
                "f2c failed: {}",
                crate::quote::quote(text.trim().as_bytes())
            ),
        },
    }
}

/// Names the lowered functions of `routines` as Fortran does (their signature becomes
/// the display name, their parameters the dummy arguments' names) and gives the
/// parameters of dummy arguments their shapes. A routine whose C parameters do not line
/// up with its dummy arguments keeps its C view.
pub(crate) fn annotate(module: &mut Module, routines: &[Routine]) {
    for routine in routines {
        let Some(fid) = module.func_by_name(&routine.symbol()) else {
            continue;
        };
        let func = &mut module.funcs[fid];
        func.demangled = Some(routine.signature());
        // The header's line (the C definition comes after f2c's comments).
        if let Some(loc) = func.loc.as_mut() {
            loc.line = routine.line as u32;
            loc.col = 0;
        }
        let types = func.param_types();
        let leading = routine.hidden_leading();
        let strings = routine
            .dummies
            .iter()
            .filter(|d| d.ty.starts_with("character") && !d.procedure)
            .count();
        if types.len() != leading + routine.dummies.len() + strings {
            continue;
        }
        let index_of = |name: &str| {
            routine
                .dummies
                .iter()
                .position(|d| d.name.eq_ignore_ascii_case(name))
                .map(|i| leading + i)
        };
        for (i, dummy) in routine.dummies.iter().enumerate() {
            let at = leading + i;
            if dummy.procedure || types[at] != Type::Ptr {
                continue;
            }
            module.funcs[fid].param_names[at] = Some(dummy.name.clone());
            if dummy.ty.starts_with("character") {
                continue;
            }
            let shape = match &dummy.dims {
                None => ParamShape::ByReference,
                Some(dims) => ParamShape::Array(
                    dims.iter()
                        .map(|d| extent(d, &dummy.constants, &index_of))
                        .collect(),
                ),
            };
            module.param_shapes.insert((fid, at), shape);
        }
    }
}

/// The extent a declared dimension (`N`, `3`, `0:4`, `*`, `NMAX`) gives.
fn extent(
    dim: &str,
    constants: &std::collections::HashMap<String, i64>,
    index_of: &impl Fn(&str) -> Option<usize>,
) -> Extent {
    let value = |text: &str| {
        text.parse::<i64>()
            .ok()
            .or_else(|| constants.get(text).copied())
    };
    let (lo, hi) = match dim.split_once(':') {
        Some((lo, hi)) => (value(lo), hi),
        None => (Some(1), dim),
    };
    match (lo, value(hi)) {
        (Some(lo), Some(hi)) if hi >= lo => Extent::Const((hi - lo + 1) as u64),
        (Some(1), None) => index_of(hi).map_or(Extent::Unknown, Extent::Param),
        _ => Extent::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursive_is_blanked_in_place() {
        let text = "      RECURSIVE SUBROUTINE DQK21(F)\nC     recursive subroutine\n      X = 1\n      recursive\n     *double precision function enorm(n,x)\n";
        let out = blank_recursive(text);
        assert_eq!(out.len(), text.len());
        assert!(out.starts_with("                SUBROUTINE DQK21(F)\n"));
        assert!(out.contains("C     recursive subroutine"));
        assert!(out.contains("\nC     recursive\n      double precision"));
    }

    #[test]
    fn line_directives_name_the_fortran_file() {
        let map = LineMap {
            files: vec![PathBuf::from("/src/a.F")],
            lines: vec![(0, 3), (0, 4), (0, 7)],
        };
        let c = "#line 1 \"/tmp/x/a.f\"\nx = 1;\n#line 3 \"/tmp/x/a.f\"\n";
        assert_eq!(
            relocate_lines(c, &map),
            "#line 3 \"/src/a.F\"\nx = 1;\n#line 7 \"/src/a.F\"\n"
        );
    }

    #[test]
    fn extents_from_declarations() {
        let constants = [("NMAX".to_string(), 10)].into_iter().collect();
        let index_of = |n: &str| (n == "N").then_some(2);
        assert_eq!(extent("N", &constants, &index_of), Extent::Param(2));
        assert_eq!(extent("0:4", &constants, &index_of), Extent::Const(5));
        assert_eq!(extent("NMAX", &constants, &index_of), Extent::Const(10));
        assert_eq!(extent("*", &constants, &index_of), Extent::Unknown);
        assert_eq!(extent("2*N", &constants, &index_of), Extent::Unknown);
    }
}
