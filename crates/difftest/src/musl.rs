//! musl's `src/math` as a differential-test corpus.
//!
//! [`MuslTree::prepare`] generates the one header musl's build would (`alltypes.h`, by
//! musl's own sed script) into a build directory and derives musl's compiler flags. Then
//! [`MuslTree::scan`] compiles every generic `src/math/*.c` (and `src/fenv/fenv.c`, see
//! below) to bitcode once, with `fpforge-lower`'s pipeline, to learn which functions each file defines, with which
//! signature, and which symbols it needs from other files. [`closure`] gives the files a
//! function must be linked with (`cos` needs `__cos`, `__sin`, `__rem_pio2`, ...).
//!
//! Choices, each one deliberate:
//! - The x86_64 overrides (`src/math/x86_64/*.s`, and `.c` files with inline asm) are not
//!   used; the generic C file of the same name is.
//! - Files that define a `long double` (`x86_fp80`) function are in the pool like the
//!   others (the generic C of `expl`, `powl`, ... with `LDBL_MANT_DIG == 64`); their
//!   functions are called natively through the runtime's trampoline
//!   ([`crate::dispatch::call_extended`]).
//! - `src/fenv/fenv.c`, musl's C fallback for targets without floating-point exceptions,
//!   is in the pool: the native build links the same bitcode, so both sides agree on
//!   `fetestexcept` & co (which report nothing), also when both run in another rounding
//!   mode (`musl-diff --rounding`).
//! - `-frounding-math` is not passed (clang would emit constrained intrinsics everywhere);
//!   files with `#pragma STDC FENV_ACCESS ON` still get them.

use crate::dispatch::{AbiKind, Signature};
use fpforge_lower::{compile_to_bitcode, LoadOptions};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why the musl tree could not be prepared or scanned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MuslError {
    /// The directory does not look like a musl source tree.
    #[error("{0} is not a musl source tree (no src/math)")]
    NotMusl(PathBuf),
    /// A file operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A tool failed.
    #[error("{tool} failed on {path}:\n{stderr}")]
    Tool {
        /// The program.
        tool: String,
        /// The input.
        path: PathBuf,
        /// What it printed.
        stderr: String,
    },
}

/// A function defined in a scanned file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FuncDecl {
    /// Symbol name.
    pub name: String,
    /// True when `dlsym` can find it (not internal, private or hidden).
    pub exported: bool,
    /// The signature when every parameter and the result are `double`, `float`, `i32` or
    /// `i64` (and the result possibly void), or a parameter is a pointer to one of those
    /// (an out-parameter: `frexp`, `modf`, `remquo`, `sincos`); `None` otherwise.
    pub signature: Option<Signature>,
    /// The LLVM signature text, for reports.
    pub llvm_signature: String,
}

/// What one source file defines and needs.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FileScan {
    /// The C file.
    pub path: PathBuf,
    /// Its mem2reg'd bitcode (empty until [`MuslTree::scan`] compiles it).
    pub bitcode: PathBuf,
    /// Functions defined, in order.
    pub funcs: Vec<FuncDecl>,
    /// Symbols (functions, globals, aliases) other files can link to.
    pub defines: Vec<String>,
    /// Symbols used but not defined here.
    pub needs: Vec<String>,
    /// True when the file defines a function with an `x86_fp80` parameter or result.
    pub long_double: bool,
}

/// A musl source tree and a build directory for generated headers.
#[derive(Clone, Debug)]
pub struct MuslTree {
    /// The unpacked source package.
    pub root: PathBuf,
    /// Where generated files go.
    pub build: PathBuf,
    /// clang flags musl's Makefile would use (include paths, `-ffreestanding`, ...).
    pub flags: Vec<String>,
}

impl MuslTree {
    /// Checks the tree, generates `obj/include/bits/alltypes.h` under `build` with musl's
    /// `tools/mkalltypes.sed`, and computes the compiler flags.
    pub fn prepare(root: &Path, build: &Path) -> Result<Self, MuslError> {
        if !root.join("src/math").is_dir() {
            return Err(MuslError::NotMusl(root.to_path_buf()));
        }
        let bits = build.join("obj/include/bits");
        std::fs::create_dir_all(&bits).map_err(|source| MuslError::Io {
            path: bits.clone(),
            source,
        })?;
        let alltypes = bits.join("alltypes.h");
        let out = Command::new("sed")
            .arg("-f")
            .arg(root.join("tools/mkalltypes.sed"))
            .arg(root.join("arch/x86_64/bits/alltypes.h.in"))
            .arg(root.join("include/alltypes.h.in"))
            .output()
            .map_err(|source| MuslError::Io {
                path: root.join("tools/mkalltypes.sed"),
                source,
            })?;
        if !out.status.success() {
            return Err(MuslError::Tool {
                tool: "sed".into(),
                path: alltypes,
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        std::fs::write(&alltypes, &out.stdout).map_err(|source| MuslError::Io {
            path: alltypes.clone(),
            source,
        })?;
        let inc = |p: &Path| format!("-I{}", p.display());
        let flags = vec![
            "-std=c99".to_string(),
            "-ffreestanding".to_string(),
            "-nostdinc".to_string(),
            "-fno-strict-aliasing".to_string(),
            "-w".to_string(),
            "-D_XOPEN_SOURCE=700".to_string(),
            inc(&root.join("arch/x86_64")),
            inc(&root.join("arch/generic")),
            inc(&build.join("obj/src/internal")),
            inc(&root.join("src/include")),
            inc(&root.join("src/internal")),
            inc(&build.join("obj/include")),
            inc(&root.join("include")),
        ];
        Ok(MuslTree {
            root: root.to_path_buf(),
            build: build.to_path_buf(),
            flags,
        })
    }

    /// The source files of the pool: generic `src/math/*.c` in name order, then
    /// `src/fenv/fenv.c`.
    pub fn sources(&self) -> Result<Vec<PathBuf>, MuslError> {
        let dir = self.root.join("src/math");
        let entries = std::fs::read_dir(&dir).map_err(|source| MuslError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        files.sort();
        files.push(self.root.join("src/fenv/fenv.c"));
        Ok(files)
    }

    /// Compiles every source once with `fpforge-lower`'s own pipeline (clang-14, mem2reg)
    /// to `build/scan/NAME.bc`, disassembles it, and records what it defines and needs.
    /// Units are then linked from these bitcode files, so no C file is compiled twice.
    pub fn scan(&self) -> Result<Vec<FileScan>, MuslError> {
        let dir = self.build.join("scan");
        std::fs::create_dir_all(&dir).map_err(|source| MuslError::Io {
            path: dir.clone(),
            source,
        })?;
        let opts = LoadOptions::default().with_compiler_flags(self.flags.clone());
        let mut scans = Vec::new();
        for src in self.sources()? {
            let stem = src
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let compiled = compile_to_bitcode(std::slice::from_ref(&src), &opts).map_err(|e| {
                MuslError::Tool {
                    tool: "fpforge-lower".into(),
                    path: src.clone(),
                    stderr: e.to_string(),
                }
            })?;
            let bc = dir.join(format!("{stem}.bc"));
            std::fs::copy(compiled.path(), &bc).map_err(|source| MuslError::Io {
                path: bc.clone(),
                source,
            })?;
            let ll = dir.join(format!("{stem}.ll"));
            let out = Command::new("llvm-dis-14")
                .arg(&bc)
                .arg("-o")
                .arg(&ll)
                .output()
                .map_err(|source| MuslError::Io {
                    path: bc.clone(),
                    source,
                })?;
            if !out.status.success() {
                return Err(MuslError::Tool {
                    tool: "llvm-dis-14".into(),
                    path: bc,
                    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                });
            }
            let text = std::fs::read_to_string(&ll).map_err(|source| MuslError::Io {
                path: ll.clone(),
                source,
            })?;
            let mut scan = scan_text(src, &text);
            scan.bitcode = bc;
            scans.push(scan);
        }
        Ok(scans)
    }
}

/// Reads definitions and needs out of one file's LLVM text.
pub fn scan_text(path: PathBuf, text: &str) -> FileScan {
    let mut funcs = Vec::new();
    let mut defines = Vec::new();
    let mut needs = Vec::new();
    let mut long_double = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            let Some((head, name, params)) = split_signature(rest) else {
                continue;
            };
            let words: Vec<&str> = head.split_whitespace().collect();
            let local = words.iter().any(|w| matches!(*w, "internal" | "private"));
            let hidden = words.contains(&"hidden");
            let ret = words.last().copied().unwrap_or("");
            let param_types: Vec<&str> = params
                .split(',')
                .filter_map(|p| p.split_whitespace().next())
                .collect();
            if !local && (ret == "x86_fp80" || param_types.contains(&"x86_fp80")) {
                long_double = true;
            }
            let signature = signature_from(ret, &param_types);
            if !local {
                defines.push(name.to_string());
            }
            funcs.push(FuncDecl {
                name: name.to_string(),
                exported: !local && !hidden,
                signature,
                llvm_signature: format!("{ret} ({})", param_types.join(", ")),
            });
        } else if let Some(rest) = line.strip_prefix("declare ") {
            if let Some((_, name, _)) = split_signature(rest) {
                if !name.starts_with("llvm.") {
                    needs.push(name.to_string());
                }
            }
        } else if let Some(rest) = line.strip_prefix('@') {
            let Some((name, def)) = rest.split_once(" = ") else {
                continue;
            };
            let name = name.trim_matches('"').to_string();
            let words: Vec<&str> = def.split_whitespace().collect();
            if words.contains(&"external") {
                needs.push(name);
            } else if !words.iter().any(|w| matches!(*w, "internal" | "private")) {
                defines.push(name);
            }
        }
    }
    FileScan {
        path,
        bitcode: PathBuf::new(),
        funcs,
        defines,
        needs,
        long_double,
    }
}

/// Splits `... ret @name(params) ...` into the head before `@`, the name and the
/// parameter text.
fn split_signature(rest: &str) -> Option<(&str, &str, &str)> {
    let at = rest.find('@')?;
    let head = &rest[..at];
    let after = &rest[at + 1..];
    let open = after.find('(')?;
    let name = after[..open].trim_matches('"');
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in after[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    Some((head, name, &after[open + 1..close?]))
}

fn signature_from(ret: &str, params: &[&str]) -> Option<Signature> {
    let kind = |t: &str| match t {
        "double" => Some(AbiKind::F64),
        "float" => Some(AbiKind::F32),
        "i32" => Some(AbiKind::I32),
        "i64" => Some(AbiKind::I64),
        "double*" | "float*" | "i32*" | "x86_fp80*" | "i8*" => Some(AbiKind::Ptr),
        "x86_fp80" => Some(AbiKind::F80),
        _ => None,
    };
    let ret = if ret == "void" {
        AbiKind::Void
    } else {
        kind(ret)?
    };
    // A `long double` parameter is two words, as in the lowered module.
    let mut kinds = Vec::with_capacity(params.len());
    for p in params {
        match kind(p)? {
            AbiKind::F80 => kinds.extend([AbiKind::F80, AbiKind::F80Exp]),
            k => kinds.push(k),
        }
    }
    let params = kinds;
    Some(Signature { params, ret })
}

/// Indices of the files `start` must be linked with: itself and, transitively, the
/// files of the pool defining what it needs.
/// Symbols no pool file defines stay unresolved.
pub fn closure(files: &[FileScan], start: usize) -> Vec<usize> {
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        for d in &f.defines {
            owner.entry(d.as_str()).or_insert(i);
        }
    }
    let mut seen = HashSet::from([start]);
    let mut order = vec![start];
    let mut next = 0;
    while next < order.len() {
        let i = order[next];
        next += 1;
        for need in &files[i].needs {
            if let Some(&j) = owner.get(need.as_str()) {
                if seen.insert(j) {
                    order.push(j);
                }
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    const COS: &str = r#"
define dso_local double @cos(double noundef %0) #0 !dbg !9 {
  ret double 0.0
}
define internal i32 @helper(double noundef %0) {
  ret i32 0
}
declare hidden double @__cos(double noundef, double noundef) #1
declare hidden i32 @__rem_pio2(double noundef, double* noundef) #1
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2
@__tab = external hidden constant [4 x double], align 8
"#;

    const KERNEL: &str = r#"
define hidden double @__cos(double noundef %0, double noundef %1) {
  ret double 0.0
}
@__tab = hidden constant [4 x double] zeroinitializer, align 8
@alias_cos = weak dso_local alias double (double, double), double (double, double)* @__cos
"#;

    const LONG: &str = r#"
define dso_local x86_fp80 @cosl(x86_fp80 noundef %0) {
  ret x86_fp80 0xK00000000000000000000
}
define hidden i32 @__rem_pio2(double noundef %0, double* noundef %1) {
  ret i32 0
}
"#;

    #[test]
    fn scans_definitions_and_needs() {
        let s = scan_text("cos.c".into(), COS);
        assert_eq!(s.defines, vec!["cos"]);
        assert_eq!(s.needs, vec!["__cos", "__rem_pio2", "__tab"]);
        assert!(!s.long_double);
        assert_eq!(
            s.funcs[0].signature,
            Some(Signature {
                params: vec![AbiKind::F64],
                ret: AbiKind::F64
            })
        );
        assert!(s.funcs[0].exported && !s.funcs[1].exported);
        let k = scan_text("__cos.c".into(), KERNEL);
        assert_eq!(k.defines, vec!["__cos", "__tab", "alias_cos"]);
        assert!(!k.funcs[0].exported);
        let l = scan_text("cosl.c".into(), LONG);
        assert!(l.long_double);
        assert_eq!(
            l.funcs[0].signature,
            Some(Signature {
                params: vec![AbiKind::F80, AbiKind::F80Exp],
                ret: AbiKind::F80
            })
        );
        assert_eq!(
            l.funcs[1].signature,
            Some(Signature {
                params: vec![AbiKind::F64, AbiKind::Ptr],
                ret: AbiKind::I32
            })
        );
    }

    #[test]
    fn closure_links_long_double_files() {
        let files = vec![
            scan_text("cos.c".into(), COS),
            scan_text("__cos.c".into(), KERNEL),
            scan_text("cosl.c".into(), LONG),
        ];
        // `__rem_pio2`, which cos needs, is defined only by the long double file.
        assert_eq!(closure(&files, 0), vec![0, 1, 2]);
        assert_eq!(closure(&files, 2), vec![2]);
    }
}
