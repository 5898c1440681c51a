//! Branch instrumentation of LLVM-14 textual IR.
//!
//! The native side of a differential test must report the same branch trace as the
//! interpreter's `BranchTrace` observer. fpforge numbers branch sites in the textual order
//! of the linked bitcode (defined functions in order, blocks in order, one site per
//! conditional `br i1` and per `switch`), so instrumenting the `llvm-dis` text in one pass
//! reproduces the numbering exactly:
//!
//! - before `br i1 C, label ...` goes `call void @__fpforge_br(i32 N, i32 zext(C))`;
//! - before `switch iW V, label ...` goes `call void @__fpforge_sw(i32 N, i64 zext(V))`.
//!
//! Both hooks take full-width integers (no `i1` or `zeroext` in the hook ABI) and are
//! declared at the end of the module; the C runtime in `runtime.c` defines them.

use std::fmt::Write as _;

/// Name of the hook called before every conditional branch.
pub const BR_HOOK: &str = "__fpforge_br";
/// Name of the hook called before every switch.
pub const SW_HOOK: &str = "__fpforge_sw";

/// A function defined in the instrumented module.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DefinedFunc {
    /// Symbol name.
    pub name: String,
    /// False for `internal`, `private` and `hidden` functions, which `dlsym` cannot find.
    pub exported: bool,
}

/// The instrumented text and what was found in it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Instrumented {
    /// The module text with hook calls and declarations added.
    pub text: String,
    /// Number of branch sites (conditional branches plus switches).
    pub sites: u32,
    /// Defined functions in textual order.
    pub funcs: Vec<DefinedFunc>,
}

/// Text that could not be instrumented.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum InstrumentError {
    /// A branch or switch line did not have the expected shape.
    #[error("line {line}: cannot parse `{text}`")]
    Malformed {
        /// 1-based line number.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// A switch on an integer wider than 64 bits.
    #[error("line {line}: switch on {ty} is wider than 64 bits")]
    WideSwitch {
        /// 1-based line number.
        line: usize,
        /// The scrutinee type.
        ty: String,
    },
    /// The module already uses a hook name.
    #[error("the module already defines or declares @{0}")]
    HookClash(String),
}

/// Adds branch hooks to LLVM-14 textual IR, numbering sites in textual order.
pub fn instrument(ll: &str) -> Result<Instrumented, InstrumentError> {
    for hook in [BR_HOOK, SW_HOOK] {
        if ll.contains(&format!("@{hook}(")) {
            return Err(InstrumentError::HookClash(hook.to_string()));
        }
    }
    let mut out = String::with_capacity(ll.len() + ll.len() / 4);
    let mut funcs = Vec::new();
    let mut site: u32 = 0;
    let mut in_body = false;
    for (i, line) in ll.lines().enumerate() {
        let lineno = i + 1;
        if !in_body {
            if let Some(func) = parse_define(line) {
                funcs.push(func);
                in_body = !line.trim_end().ends_with('}');
            }
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if line.starts_with('}') {
            in_body = false;
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let malformed = || InstrumentError::Malformed {
            line: lineno,
            text: line.to_string(),
        };
        if let Some(rest) = trimmed.strip_prefix("br i1 ") {
            let cond = rest.split(", label ").next().ok_or_else(malformed)?;
            if cond == rest {
                return Err(malformed());
            }
            // Writing to a String cannot fail.
            let _ = writeln!(out, "{indent}%__fpforge.c{site} = zext i1 {cond} to i32");
            let _ = writeln!(
                out,
                "{indent}call void @{BR_HOOK}(i32 {site}, i32 %__fpforge.c{site})"
            );
            site += 1;
        } else if let Some(rest) = trimmed.strip_prefix("switch ") {
            let (ty, rest) = rest.split_once(' ').ok_or_else(malformed)?;
            let value = rest.split(", label ").next().ok_or_else(malformed)?;
            if value == rest {
                return Err(malformed());
            }
            let width: u32 = ty
                .strip_prefix('i')
                .and_then(|w| w.parse().ok())
                .ok_or_else(malformed)?;
            let arg = match width.cmp(&64) {
                std::cmp::Ordering::Less => {
                    let _ = writeln!(out, "{indent}%__fpforge.s{site} = zext {ty} {value} to i64");
                    format!("%__fpforge.s{site}")
                }
                std::cmp::Ordering::Equal => value.to_string(),
                std::cmp::Ordering::Greater => {
                    return Err(InstrumentError::WideSwitch {
                        line: lineno,
                        ty: ty.to_string(),
                    })
                }
            };
            let _ = writeln!(out, "{indent}call void @{SW_HOOK}(i32 {site}, i64 {arg})");
            site += 1;
        }
        out.push_str(line);
        out.push('\n');
    }
    let _ = writeln!(out, "\ndeclare void @{BR_HOOK}(i32, i32)");
    let _ = writeln!(out, "declare void @{SW_HOOK}(i32, i64)");
    Ok(Instrumented {
        text: out,
        sites: site,
        funcs,
    })
}

/// Recognizes `define ... @name(...` and returns the function's name and linkage.
fn parse_define(line: &str) -> Option<DefinedFunc> {
    let rest = line.strip_prefix("define ")?;
    let at = rest.find('@')?;
    let head = &rest[..at];
    let after = &rest[at + 1..];
    let name = if let Some(quoted) = after.strip_prefix('"') {
        quoted.split('"').next()?.to_string()
    } else {
        after.split('(').next()?.to_string()
    };
    let exported = !head
        .split_whitespace()
        .any(|w| matches!(w, "internal" | "private" | "hidden"));
    Some(DefinedFunc { name, exported })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNIPPET: &str = r#"; ModuleID = 'x.bc'
@tab = internal constant [2 x double] [double 1.0, double 2.0], align 16

define dso_local double @f(double %x, i32 %k) #0 !dbg !7 {
entry:
  %cmp = fcmp olt double %x, 0.0, !dbg !10
  br i1 %cmp, label %neg, label %pos, !dbg !11

neg:                                              ; preds = %entry
  br label %pos

pos:                                              ; preds = %neg, %entry
  switch i32 %k, label %sw.default [
    i32 1, label %one
    i32 7, label %one
  ], !dbg !12

one:
  br i1 true, label %sw.default, label %sw.default

sw.default:
  ret double %x
}

define internal i64 @g(i64 %v, i8 %c) {
entry:
  switch i64 %v, label %d [
    i64 3, label %d
  ]
d:
  switch i8 %c, label %e [
    i8 -1, label %e
  ]
e:
  ret i64 %v
}
"#;

    #[test]
    fn numbers_sites_in_textual_order() {
        let out = instrument(SNIPPET).unwrap();
        assert_eq!(out.sites, 5);
        assert_eq!(
            out.funcs,
            vec![
                DefinedFunc {
                    name: "f".into(),
                    exported: true
                },
                DefinedFunc {
                    name: "g".into(),
                    exported: false
                }
            ]
        );
        let expected = [
            "  %__fpforge.c0 = zext i1 %cmp to i32",
            "  call void @__fpforge_br(i32 0, i32 %__fpforge.c0)",
            "  br i1 %cmp, label %neg, label %pos, !dbg !11",
            "  %__fpforge.s1 = zext i32 %k to i64",
            "  call void @__fpforge_sw(i32 1, i64 %__fpforge.s1)",
            "  %__fpforge.c2 = zext i1 true to i32",
            "  call void @__fpforge_sw(i32 3, i64 %v)",
            "  %__fpforge.s4 = zext i8 %c to i64",
            "declare void @__fpforge_br(i32, i32)",
            "declare void @__fpforge_sw(i32, i64)",
        ];
        let mut pos = 0;
        for want in expected {
            let found = out.text[pos..]
                .find(want)
                .unwrap_or_else(|| panic!("missing or out of order: {want}\n{}", out.text));
            pos += found + want.len();
        }
    }

    #[test]
    fn rejects_hook_clash_and_wide_switch() {
        let clash = "declare void @__fpforge_br(i32, i32)\n";
        assert!(matches!(
            instrument(clash),
            Err(InstrumentError::HookClash(_))
        ));
        let wide = "define i32 @w(i128 %v) {\nentry:\n  switch i128 %v, label %e [\n  ]\ne:\n  ret i32 0\n}\n";
        assert!(matches!(
            instrument(wide),
            Err(InstrumentError::WideSwitch { line: 3, .. })
        ));
    }
}
