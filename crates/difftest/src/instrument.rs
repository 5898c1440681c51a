//! Branch instrumentation of LLVM-14 textual IR.
//!
//! The native side of a differential test must report the same branch trace as the
//! interpreter's `BranchTrace` observer. fpforge numbers branch sites in the textual order
//! of the linked bitcode (defined functions in order, blocks in order): first one site per
//! conditional `br i1` and per `switch`, then one per `select i1` on a register, which
//! lowering turns into a conditional branch. Instrumenting the `llvm-dis` text in two
//! passes (count the `br`/`switch` lines, then number and hook) reproduces the numbering
//! exactly:
//!
//! - before `br i1 C, label ...` goes `call void @__fpforge_br(i32 N, i32 zext(C))`;
//! - before `switch iW V, label ...` goes `call void @__fpforge_sw(i32 N, i64 zext(V))`;
//! - before `%r = select i1 %C, ...` goes `call void @__fpforge_br(i32 N, i32 zext(%C))`
//!   (a `select` on a constant stays a `select` in fpir and gets no hook);
//! - before `br label %J` that carries the last operand `%V` of a short-circuit `&&` or
//!   `||` into its join `J` goes `call void @__fpforge_br(i32 N, i32 zext(%V))`,
//!   numbered with the selects: lowering makes that jump a branch site on `%V` (see
//!   `fpforge_lower`'s control flow). The pattern, as lowering checks it: the jump does
//!   not end the entry block, and `J` has an `i1` phi whose value from this block is a
//!   register this block defines and another of whose values is a constant.
//!
//! Both hooks take full-width integers (no `i1` or `zeroext` in the hook ABI) and are
//! declared at the end of the module; the C runtime in `runtime.c` defines them.
//!
//! With [`FloatConstants::ReadAtRunTime`], a rounding float operation with a constant
//! operand (`fsub x86_fp80 2.0, y` once mem2reg has put a local's value in place,
//! `x - px * LN2LO`, `fptrunc` or `sitofp` of a constant) reads that operand from a
//! private global with a volatile load. LLVM's code generator assumes rounding to
//! nearest even at `-O0`: it folds operations on constants and rewrites `a - b * C` as
//! `a + b * -C`, which rounds otherwise in a directed mode, where the program (and the
//! interpreter) computes what it wrote in the current mode (`musl-diff --rounding`).

use std::fmt::Write as _;

/// Name of the hook called before every conditional branch.
pub const BR_HOOK: &str = "__fpforge_br";
/// Name of the hook called before every switch.
pub const SW_HOOK: &str = "__fpforge_sw";

/// What becomes of the constant operands of rounding float operations.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum FloatConstants {
    /// Left in place: the code generator may fold and rewrite them as if rounding were
    /// to nearest, which it is.
    #[default]
    AsCompiled,
    /// Read at run time from private globals, so that every operation rounds in the
    /// current mode as the program wrote it (see the module docs).
    ReadAtRunTime,
}

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
#[non_exhaustive]
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

/// What a line of the module text is, as far as instrumenting goes.
enum Line<'a> {
    /// The header of a function definition.
    Define(DefinedFunc),
    /// `br i1 C, ...` with its condition.
    CondBr(&'a str),
    /// `switch iW V, ...` with its scrutinee's type, width and value.
    Switch {
        ty: &'a str,
        width: u32,
        value: &'a str,
    },
    /// `%r = select i1 %C, ...` with its condition.
    Select(&'a str),
    /// Anything else.
    Other,
}

/// Adds branch hooks to LLVM-14 textual IR, numbering sites in textual order: the
/// conditional branches and switches first, then the selects (see the module docs).
pub fn instrument(
    ll: &str,
    float_constants: FloatConstants,
) -> Result<Instrumented, InstrumentError> {
    for hook in [BR_HOOK, SW_HOOK] {
        if ll.contains(&format!("@{hook}(")) {
            return Err(InstrumentError::HookClash(hook.to_string()));
        }
    }
    let mut lines = classify_lines(ll)?;
    for (i, operand) in short_circuit_jumps(&lines) {
        lines[i].1 = Line::Select(operand);
    }
    let branch_terminators = lines
        .iter()
        .filter(|(_, kind)| matches!(kind, Line::CondBr(_) | Line::Switch { .. }))
        .count() as u32;
    let mut out = String::with_capacity(ll.len() + ll.len() / 4);
    let mut funcs = Vec::new();
    let mut next_branch: u32 = 0;
    let mut next_select = branch_terminators;
    let mut constants = Vec::new();
    for (i, (line, kind)) in lines.into_iter().enumerate() {
        let indent = &line[..line.len() - line.trim_start().len()];
        match kind {
            Line::Define(func) => funcs.push(func),
            Line::CondBr(cond) => {
                hook_branch(&mut out, indent, next_branch, cond);
                next_branch += 1;
            }
            Line::Select(cond) => {
                hook_branch(&mut out, indent, next_select, cond);
                next_select += 1;
            }
            Line::Switch { ty, width, value } => {
                if width > 64 {
                    return Err(InstrumentError::WideSwitch {
                        line: i + 1,
                        ty: ty.to_string(),
                    });
                }
                hook_switch(&mut out, indent, next_branch, (ty, width), value);
                next_branch += 1;
            }
            Line::Other if float_constants == FloatConstants::ReadAtRunTime => {
                if let Some((loads, op, globals)) = runtime_operands(line, constants.len()) {
                    out.push_str(&loads);
                    out.push_str(&op);
                    constants.extend(globals);
                    continue;
                }
            }
            Line::Other => {}
        }
        out.push_str(line);
        out.push('\n');
    }
    for global in &constants {
        let _ = writeln!(out, "{global}");
    }
    let _ = writeln!(out, "\ndeclare void @{BR_HOOK}(i32, i32)");
    let _ = writeln!(out, "declare void @{SW_HOOK}(i32, i64)");
    Ok(Instrumented {
        text: out,
        sites: next_select,
        funcs,
    })
}

/// For a rounding float operation with a constant operand (see the module docs), the
/// loads of its constant operands from globals numbered from `next`, the operation
/// reading them, and the globals' definitions.
fn runtime_operands(line: &str, next: usize) -> Option<(String, String, Vec<String>)> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let (code, metadata) = match line.find(", !") {
        Some(at) => line.split_at(at),
        None => (line, ""),
    };
    let (dest, rest) = code.trim_start().split_once(" = ")?;
    let (opcode, rest) = rest.split_once(' ')?;
    let (ty, rest) = rest.split_once(' ')?;
    let (operands, separator, tail) = match opcode {
        "fadd" | "fsub" | "fmul" | "fdiv" | "frem" => {
            let (a, b) = rest.split_once(", ")?;
            (vec![a, b], ", ", String::new())
        }
        "fptrunc" | "sitofp" | "uitofp" => {
            let (a, to) = rest.split_once(" to ")?;
            (vec![a], "", format!(" to {to}"))
        }
        _ => return None,
    };
    let is_constant = |v: &str| !v.starts_with(['%', '@']) && v != "undef" && v != "poison";
    if ty.contains(['<', '{']) || operands.iter().any(|v| v.contains(' ')) {
        return None;
    }
    if !operands.iter().copied().any(is_constant) {
        return None;
    }
    let (mut loads, mut globals, mut read) = (String::new(), Vec::new(), Vec::new());
    for operand in operands {
        if !is_constant(operand) {
            read.push(operand.to_string());
            continue;
        }
        let name = format!("__fpforge_k{}", next + globals.len());
        let _ = writeln!(loads, "{indent}%{name} = load volatile {ty}, {ty}* @{name}");
        globals.push(format!("@{name} = private global {ty} {operand}"));
        read.push(format!("%{name}"));
    }
    let op = format!(
        "{indent}{dest} = {opcode} {ty} {}{tail}{metadata}\n",
        read.join(separator)
    );
    Some((loads, op, globals))
}

/// Classifies every line of `ll`; branches, switches and selects count only inside
/// function bodies.
fn classify_lines(ll: &str) -> Result<Vec<(&str, Line<'_>)>, InstrumentError> {
    let mut lines = Vec::new();
    let mut in_body = false;
    for (i, line) in ll.lines().enumerate() {
        let kind = if !in_body {
            match parse_define(line) {
                Some(func) => {
                    in_body = !line.trim_end().ends_with('}');
                    Line::Define(func)
                }
                None => Line::Other,
            }
        } else if line.starts_with('}') {
            in_body = false;
            Line::Other
        } else {
            classify_body_line(line.trim_start()).ok_or_else(|| InstrumentError::Malformed {
                line: i + 1,
                text: line.to_string(),
            })?
        };
        lines.push((line, kind));
    }
    Ok(lines)
}

/// What a line inside a function body is; `None` when a branch or switch line does not
/// have the expected shape.
fn classify_body_line(trimmed: &str) -> Option<Line<'_>> {
    if let Some(rest) = trimmed.strip_prefix("br i1 ") {
        let (cond, _) = rest.split_once(", label ")?;
        return Some(Line::CondBr(cond));
    }
    if let Some(rest) = trimmed.strip_prefix("switch ") {
        let (ty, rest) = rest.split_once(' ')?;
        let width = ty.strip_prefix('i')?.parse().ok()?;
        let (value, _) = rest.split_once(", label ")?;
        return Some(Line::Switch { ty, width, value });
    }
    let select_cond = trimmed
        .split_once(" = select i1 ")
        .and_then(|(_, rest)| rest.split_once(", "))
        .map(|(cond, _)| cond)
        .filter(|cond| cond.starts_with('%'));
    Some(select_cond.map_or(Line::Other, Line::Select))
}

/// One block of a function body: its label (`None` for an unnamed entry block), the
/// registers it defines, and its `i1` phis' incoming values and blocks.
#[derive(Default)]
struct BlockText<'a> {
    label: Option<String>,
    defined: Vec<&'a str>,
    bool_phis: Vec<Vec<(&'a str, String)>>,
    /// The line of its `br label %X` and `%X`, when it ends in one.
    jump: Option<(usize, String)>,
}

/// The `br label` lines that carry the last operand of a short-circuit `&&`/`||` (see
/// the module docs), with that operand.
fn short_circuit_jumps<'a>(lines: &[(&'a str, Line<'a>)]) -> Vec<(usize, &'a str)> {
    let mut found = Vec::new();
    let mut blocks: Vec<BlockText<'a>> = Vec::new();
    for (i, (line, kind)) in lines.iter().enumerate() {
        if matches!(kind, Line::Define(_)) {
            found.extend(jumps_of_function(&blocks));
            blocks = vec![BlockText::default()];
            continue;
        }
        let only_entry = blocks.len() == 1;
        let Some(block) = blocks.last_mut() else {
            continue;
        };
        if let Some(label) = block_label(line) {
            let label = Some(format!("%{label}"));
            // A labelled entry block (`entry:`) is the function's first block still.
            if only_entry && block.label.is_none() && block.defined.is_empty() {
                block.label = label;
            } else {
                blocks.push(BlockText {
                    label,
                    ..BlockText::default()
                });
            }
            continue;
        }
        let trimmed = line.trim_start();
        if let Some((dest, rest)) = trimmed.split_once(" = ") {
            if dest.starts_with('%') {
                block.defined.push(dest);
            }
            if let Some(incoming) = rest.strip_prefix("phi i1 ") {
                block.bool_phis.push(phi_incoming(incoming));
            }
        } else if let Some(target) = trimmed.strip_prefix("br label ") {
            let target = target.split([',', ' ']).next().unwrap_or("");
            block.jump = Some((i, target.to_string()));
        }
    }
    found.extend(jumps_of_function(&blocks));
    found
}

/// The short-circuit jumps among one function's `blocks`.
fn jumps_of_function<'a>(blocks: &[BlockText<'a>]) -> Vec<(usize, &'a str)> {
    let mut found = Vec::new();
    // The entry block is never one: no `&&` operand is computed there.
    for block in blocks.iter().skip(1) {
        let (Some(here), Some((line, target))) = (&block.label, &block.jump) else {
            continue;
        };
        let Some(join) = blocks.iter().find(|b| b.label.as_ref() == Some(target)) else {
            continue;
        };
        let operand = join
            .bool_phis
            .iter()
            .filter(|phi| {
                phi.iter()
                    .any(|(v, from)| from != here && !v.starts_with('%'))
            })
            .find_map(|phi| {
                let (value, _) = phi.iter().find(|(_, from)| from == here)?;
                (value.starts_with('%') && block.defined.contains(value)).then_some(*value)
            });
        if let Some(operand) = operand {
            found.push((*line, operand));
        }
    }
    found
}

/// The label of a block's first line (`land.rhs:`, `12:`, with or without a `; preds`
/// comment).
fn block_label(line: &str) -> Option<&str> {
    if line.starts_with([' ', '\t', ';', '}']) {
        return None;
    }
    let (label, rest) = line.split_once(':')?;
    (rest.trim().is_empty() || rest.trim_start().starts_with(';')).then_some(label)
}

/// The `(value, block)` pairs of a phi's `[ V, %B ], ...` list.
fn phi_incoming(text: &str) -> Vec<(&str, String)> {
    text.split('[')
        .skip(1)
        .filter_map(|group| {
            let (pair, _) = group.split_once(']')?;
            let (value, from) = pair.split_once(',')?;
            Some((value.trim(), from.trim().to_string()))
        })
        .collect()
}

/// Writes the hook call reporting branch site `site` on condition `cond` (an `i1`).
fn hook_branch(out: &mut String, indent: &str, site: u32, cond: &str) {
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{indent}%__fpforge.c{site} = zext i1 {cond} to i32");
    let _ = writeln!(
        out,
        "{indent}call void @{BR_HOOK}(i32 {site}, i32 %__fpforge.c{site})"
    );
}

/// Writes the hook call reporting switch site `site` on `value` of integer type `ty`
/// of at most 64 bits.
fn hook_switch(out: &mut String, indent: &str, site: u32, (ty, width): (&str, u32), value: &str) {
    let arg = if width < 64 {
        let _ = writeln!(out, "{indent}%__fpforge.s{site} = zext {ty} {value} to i64");
        format!("%__fpforge.s{site}")
    } else {
        value.to_string()
    };
    let _ = writeln!(out, "{indent}call void @{SW_HOOK}(i32 {site}, i64 {arg})");
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
  %s = select i1 %cmp, double %x, double 0.0, !dbg !13
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
  %b = icmp eq i8 %c, 0
  %k = select i1 true, i64 1, i64 2
  %q = select i1 %b, i64 %v, i64 %k
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

    /// Every line of `expected` is in `text`, in this order.
    fn assert_in_order(text: &str, expected: &[&str]) {
        let mut pos = 0;
        for want in expected {
            let found = text[pos..]
                .find(want)
                .unwrap_or_else(|| panic!("missing or out of order: {want}\n{text}"));
            pos += found + want.len();
        }
    }

    #[test]
    fn constant_operands_of_rounding_operations_can_be_read_at_run_time() {
        let text = "define x86_fp80 @h(double %d) {\n\
                    entry:\n  \
                    %0 = fsub x86_fp80 0xK40008000000000000000, 0xK00018000000000000001, !dbg !4\n  \
                    %1 = fptrunc x86_fp80 0xK3FFF8000000000000001 to double\n  \
                    %2 = fadd double %d, 1.0\n  \
                    %3 = sitofp i64 9007199254740993 to double\n  \
                    ret x86_fp80 %0\n}\n";
        let out = instrument(text, FloatConstants::ReadAtRunTime)
            .unwrap()
            .text;
        assert_in_order(
            &out,
            &[
                "  %__fpforge_k0 = load volatile x86_fp80, x86_fp80* @__fpforge_k0",
                "  %__fpforge_k1 = load volatile x86_fp80, x86_fp80* @__fpforge_k1",
                "  %0 = fsub x86_fp80 %__fpforge_k0, %__fpforge_k1, !dbg !4",
                "  %__fpforge_k2 = load volatile x86_fp80, x86_fp80* @__fpforge_k2",
                "  %1 = fptrunc x86_fp80 %__fpforge_k2 to double",
                "  %__fpforge_k3 = load volatile double, double* @__fpforge_k3",
                "  %2 = fadd double %d, %__fpforge_k3",
                "  %3 = sitofp i64 %__fpforge_k4 to double",
                "@__fpforge_k0 = private global x86_fp80 0xK40008000000000000000",
                "@__fpforge_k1 = private global x86_fp80 0xK00018000000000000001",
                "@__fpforge_k4 = private global i64 9007199254740993",
            ],
        );
        let kept = instrument(text, FloatConstants::AsCompiled).unwrap().text;
        assert!(!kept.contains("__fpforge_k"), "{kept}");
    }

    #[test]
    fn numbers_sites_in_textual_order() {
        let out = instrument(SNIPPET, FloatConstants::AsCompiled).unwrap();
        assert_eq!(out.sites, 7);
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
            "  %__fpforge.c5 = zext i1 %cmp to i32",
            "  call void @__fpforge_br(i32 5, i32 %__fpforge.c5)",
            "  %s = select i1 %cmp, double %x, double 0.0, !dbg !13",
            "  %__fpforge.s1 = zext i32 %k to i64",
            "  call void @__fpforge_sw(i32 1, i64 %__fpforge.s1)",
            "  %__fpforge.c2 = zext i1 true to i32",
            "  %k = select i1 true, i64 1, i64 2",
            "  %__fpforge.c6 = zext i1 %b to i32",
            "  call void @__fpforge_br(i32 6, i32 %__fpforge.c6)",
            "  %q = select i1 %b, i64 %v, i64 %k",
            "  call void @__fpforge_sw(i32 3, i64 %v)",
            "  %__fpforge.s4 = zext i8 %c to i64",
            "declare void @__fpforge_br(i32, i32)",
            "declare void @__fpforge_sw(i32, i64)",
        ];
        assert_in_order(&out.text, &expected);
        let hooked = out.text.matches("call void @__fpforge_br(").count();
        assert_eq!(
            hooked, 4,
            "two branches and two selects; not `select i1 true`"
        );
    }

    /// `a && b` as clang emits it, after a labelled entry block that jumps with a value
    /// of its own into a phi: only the jump carrying `b` from `land.rhs` is a site.
    const SHORT_CIRCUIT: &str = r#"define i32 @h(double %a, double %b) {
entry:
  %e = fcmp olt double %a, 0.0
  br label %loop

loop:                                             ; preds = %entry
  %flag = phi i1 [ %e, %entry ], [ false, %loop.x ]
  %cmp = fcmp ogt double %a, 0.0
  br i1 %cmp, label %land.rhs, label %land.end

land.rhs:                                         ; preds = %loop
  %cmp2 = fcmp ogt double %b, 0.0
  %s = select i1 %cmp2, i32 1, i32 2
  br label %land.end, !dbg !5

land.end:                                         ; preds = %land.rhs, %loop
  %j = phi i1 [ false, %loop ], [ %cmp2, %land.rhs ]
  ret i32 0

loop.x:
  br label %loop
}
"#;

    #[test]
    fn the_last_operand_of_a_short_circuit_is_a_site_after_the_selects_before_it() {
        let out = instrument(SHORT_CIRCUIT, FloatConstants::AsCompiled).unwrap();
        assert_eq!(out.sites, 3, "{}", out.text);
        let expected = [
            "  call void @__fpforge_br(i32 0, i32 %__fpforge.c0)",
            "  %__fpforge.c1 = zext i1 %cmp2 to i32",
            "  %s = select i1 %cmp2, i32 1, i32 2",
            "  %__fpforge.c2 = zext i1 %cmp2 to i32",
            "  call void @__fpforge_br(i32 2, i32 %__fpforge.c2)",
            "  br label %land.end, !dbg !5",
        ];
        assert_in_order(&out.text, &expected);
    }

    #[test]
    fn rejects_hook_clash_and_wide_switch() {
        let clash = "declare void @__fpforge_br(i32, i32)\n";
        assert!(matches!(
            instrument(clash, FloatConstants::AsCompiled),
            Err(InstrumentError::HookClash(_))
        ));
        let wide = "define i32 @w(i128 %v) {\nentry:\n  switch i128 %v, label %e [\n  ]\ne:\n  ret i32 0\n}\n";
        assert!(matches!(
            instrument(wide, FloatConstants::AsCompiled),
            Err(InstrumentError::WideSwitch { line: 3, .. })
        ));
    }
}
