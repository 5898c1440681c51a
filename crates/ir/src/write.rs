//! The IR text form: prints a module so that [`crate::parse`] reads it back equal.
//!
//! ```text
//! file file0 "sign.c"
//! extern "printf"
//! global g0 "table" align 8 const = x"000000000000f03f" reloc(8, g1, 0)
//! func f0 "sign"(v0: f64 #x) -> i32 !0:3:1 {
//!   const v1: f64 = 0x0p+0
//! bb0:
//!   v2: i1 = fcmp olt f64 v0, v1 !0:4:9
//!   br v2, bb1(), bb2() @br0 !0:4:7
//! bb1:
//!   ...
//! }
//! ```
//! A `shape fN P ...` line after the functions says what parameter `P` of `fN` points
//! to ([`crate::shape`]).
//! Registers are declared with their type where they are defined; `@opN`/`@brN` name a
//! site; `!F:L:C` is a source location (file index, line, column).

use crate::analysis::calls::Reach;
use crate::float_text::format_exact;
use crate::inst::{
    BlockCall, Builtin, Callee, CastOp, Clause, FloatBinOp, FloatPred, Inst, InstKind, IntBinOp,
    IntPred, Terminator,
};
use crate::module::{AddrBase, Const, Function, GlobalData, Module, SrcLoc};
use crate::shape::{Extent, ParamShape};
use crate::types::Type;
use crate::{Func, Global, Reg};
use std::collections::BTreeSet;
use std::fmt::{self, Write};

/// Prints `module` in the IR text form.
pub fn write_module(module: &Module) -> String {
    let mut out = String::new();
    write_to(&mut out, module).expect("writing to a String cannot fail");
    out
}

fn write_to(out: &mut String, module: &Module) -> fmt::Result {
    for (id, name) in module.files.iter() {
        writeln!(out, "file {id} {}", quote(name))?;
    }
    for name in &module.externals {
        writeln!(out, "extern {}", quote(name))?;
    }
    for (id, global) in module.globals.iter() {
        write_global(out, id, global)?;
    }
    for (id, func) in module.funcs.iter() {
        write_function(out, id, func)?;
    }
    for ((func, param), shape) in &module.param_shapes {
        write!(out, "shape {func} {param} ")?;
        write_shape(out, shape)?;
        out.push('\n');
    }
    Ok(())
}

/// Prints what a run of `entry` depends on, in the text form: the source files its code
/// names, the module's externals, the globals and functions a run from `entry` reaches
/// ([`Reach`], in the order found, `entry` first) and those functions' parameter shapes.
///
/// Ids stay the module's, because a run's reports name sites and files by them; so this
/// is not a module [`crate::parse`] reads back, but the identity of `entry` as lowered:
/// two modules that print the same text for it run it alike and report it alike,
/// whatever else they hold. (The externals are all printed: their ids are their
/// positions, which a part of the list would not show.)
pub fn write_reached(module: &Module, entry: Func) -> String {
    let mut out = String::new();
    write_reached_to(&mut out, module, entry).expect("writing to a String cannot fail");
    out
}

fn write_reached_to(out: &mut String, module: &Module, entry: Func) -> fmt::Result {
    let reach = Reach::new(module, &[entry]);
    let funcs: Vec<Func> = reach.funcs().collect();
    let mut files = BTreeSet::new();
    for &f in &funcs {
        let function = &module.funcs[f];
        let blocks = function.blocks.values();
        let locs = blocks.flat_map(|b| b.locs.iter().chain([&b.term_loc]));
        files.extend(locs.chain([&function.loc]).flatten().map(|loc| loc.file));
    }
    for file in files {
        let name = module.files.get(file).map_or("?", String::as_str);
        writeln!(out, "file {file} {}", quote(name))?;
    }
    for name in &module.externals {
        writeln!(out, "extern {}", quote(name))?;
    }
    for g in reach.globals() {
        write_global(out, g, &module.globals[g])?;
    }
    for &f in &funcs {
        write_function(out, f, &module.funcs[f])?;
    }
    for ((func, param), shape) in &module.param_shapes {
        if funcs.contains(func) {
            write!(out, "shape {func} {param} ")?;
            write_shape(out, shape)?;
            out.push('\n');
        }
    }
    Ok(())
}

/// `struct "struct particle" pointer 72 { "pos[0]" @0: f64, ... }`, `vector f64`,
/// `span f64`, `long_double`, `by_reference` or `array [3, param 0, *]`.
fn write_shape(out: &mut String, shape: &ParamShape) -> fmt::Result {
    match shape {
        ParamShape::Struct(s) => {
            let name = quote(&s.name);
            write!(out, "struct {name} {} {} {{", s.passing.name(), s.size)?;
            for (i, field) in s.fields.iter().enumerate() {
                let sep = if i == 0 { " " } else { ", " };
                let path = quote(&field.path);
                write!(out, "{sep}{path} @{}: {}", field.offset, field.ty)?;
            }
            out.push_str(" }");
            Ok(())
        }
        ParamShape::Vector(elem) => write!(out, "vector {elem}"),
        ParamShape::Span(elem) => write!(out, "span {elem}"),
        ParamShape::LongDouble => write!(out, "long_double"),
        ParamShape::ByReference => write!(out, "by_reference"),
        ParamShape::Array(extents) => {
            out.push_str("array [");
            for (i, extent) in extents.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match extent {
                    Extent::Const(n) => write!(out, "{n}")?,
                    Extent::Param(p) => write!(out, "param {p}")?,
                    Extent::Unknown => out.push('*'),
                }
            }
            out.push(']');
            Ok(())
        }
    }
}

fn write_global(out: &mut String, id: Global, g: &GlobalData) -> fmt::Result {
    write!(out, "global {id} {} align {}", quote(&g.name), g.align)?;
    if g.constant {
        out.push_str(" const");
    }
    out.push_str(" = x\"");
    for byte in &g.init {
        write!(out, "{byte:02x}")?;
    }
    out.push('"');
    for r in &g.relocs {
        write!(
            out,
            " reloc({}, {}, {})",
            r.at,
            addr_base(r.target),
            r.addend
        )?;
    }
    out.push('\n');
    Ok(())
}

fn addr_base(base: AddrBase) -> String {
    match base {
        AddrBase::Global(g) => g.to_string(),
        AddrBase::Func(f) => f.to_string(),
    }
}

fn write_loc(out: &mut String, loc: Option<SrcLoc>) -> fmt::Result {
    match loc {
        Some(l) => write!(out, " !{}:{}:{}", l.file.0, l.line, l.col),
        None => Ok(()),
    }
}

fn write_function(out: &mut String, id: Func, func: &Function) -> fmt::Result {
    write!(out, "func {id} {}", quote(&func.name))?;
    if let Some(demangled) = &func.demangled {
        write!(out, " {}", quote(demangled))?;
    }
    out.push('(');
    for (i, &p) in func.params().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write!(out, "{p}: {}", func.regs[p])?;
        if let Some(Some(pointee)) = func.param_pointees.get(i) {
            write!(out, "<{pointee}>")?;
        }
        if let Some(Some(name)) = func.param_names.get(i) {
            write!(out, " #{name}")?;
        }
    }
    out.push(')');
    if let Some(ret) = func.ret {
        write!(out, " -> {ret}")?;
    }
    write_loc(out, func.loc)?;
    out.push_str(" {\n");
    for (reg, value) in &func.consts {
        let ty = func.regs[*reg];
        writeln!(out, "  const {reg}: {ty} = {}", const_text(ty, *value))?;
    }
    for (bid, block) in func.blocks.iter() {
        write!(out, "{bid}")?;
        if bid != Function::ENTRY {
            out.push('(');
            write_typed_regs(out, func, &block.params)?;
            out.push(')');
        }
        out.push_str(":\n");
        for (inst, loc) in block.insts.iter().zip(&block.locs) {
            out.push_str("  ");
            write_inst(out, func, inst)?;
            write_loc(out, *loc)?;
            out.push('\n');
        }
        out.push_str("  ");
        write_terminator(out, &block.term)?;
        write_loc(out, block.term_loc)?;
        out.push('\n');
    }
    out.push_str("}\n");
    Ok(())
}

fn write_typed_regs(out: &mut String, func: &Function, regs: &[Reg]) -> fmt::Result {
    for (i, r) in regs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write!(out, "{r}: {}", func.regs[*r])?;
    }
    Ok(())
}

/// The text of a constant of type `ty`.
pub fn const_text(ty: Type, value: Const) -> String {
    match (ty, value) {
        (Type::Float(ft), Const::Bits(bits)) => format_exact(ft, bits),
        (Type::Int(width), Const::Bits(bits)) => {
            let shift = 64 - u32::from(width);
            (((bits << shift) as i64) >> shift).to_string()
        }
        (Type::Ptr, Const::Bits(bits)) => format!("{bits:#x}"),
        (_, Const::Addr(base, offset)) => format!("{}{offset:+}", addr_base(base)),
    }
}

fn write_regs(out: &mut String, regs: &[Reg]) -> fmt::Result {
    for (i, r) in regs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write!(out, "{r}")?;
    }
    Ok(())
}

fn write_inst(out: &mut String, func: &Function, inst: &Inst) -> fmt::Result {
    if let Some(dest) = inst.dest {
        write!(out, "{dest}: {} = ", func.regs[dest])?;
    }
    match &inst.kind {
        InstKind::IntBin { op, ty, lhs, rhs } => {
            write!(out, "{} {ty} {lhs}, {rhs}", int_bin_name(*op))
        }
        InstKind::FloatBin {
            op,
            ty,
            lhs,
            rhs,
            site,
        } => write!(out, "{} {ty} {lhs}, {rhs} @{site}", float_bin_name(*op)),
        InstKind::Fneg { ty, arg } => write!(out, "fneg {ty} {arg}"),
        InstKind::Icmp { pred, ty, lhs, rhs } => {
            write!(out, "icmp {} {ty} {lhs}, {rhs}", int_pred_name(*pred))
        }
        InstKind::Fcmp { pred, ty, lhs, rhs } => {
            write!(out, "fcmp {} {ty} {lhs}, {rhs}", float_pred_name(*pred))
        }
        InstKind::Cast { op, from, to, arg } => {
            write!(out, "{} {from} {arg} to {to}", cast_name(*op))
        }
        InstKind::Select {
            ty,
            cond,
            if_true,
            if_false,
        } => write!(out, "select {ty} {cond}, {if_true}, {if_false}"),
        InstKind::Load { ty, addr } => write!(out, "load {ty} {addr}"),
        InstKind::Store { ty, addr, value } => write!(out, "store {ty} {value}, {addr}"),
        InstKind::Alloca { size, count, align } => {
            write!(out, "alloca {size}")?;
            if let Some(c) = count {
                write!(out, " x {c}")?;
            }
            write!(out, " align {align}")
        }
        InstKind::PtrOffset {
            base,
            offset,
            terms,
        } => {
            write!(out, "ptroffset {base}, {offset}, [")?;
            for (i, t) in terms.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write!(out, "{}*{}", t.index, t.scale)?;
            }
            out.push(']');
            Ok(())
        }
        InstKind::Call { callee, args } => {
            out.push_str("call ");
            let site = match callee {
                Callee::Direct(f) => {
                    write!(out, "{f}")?;
                    None
                }
                Callee::Indirect(r) => {
                    write!(out, "indirect {r}")?;
                    None
                }
                Callee::Math(call, site) => {
                    write!(out, "math {}.{}", call.func.name(), call.ty)?;
                    Some(site)
                }
                Callee::Builtin(b) => {
                    write!(out, "builtin {}", builtin_name(*b))?;
                    None
                }
                Callee::External(e) => {
                    write!(out, "extern {e}")?;
                    None
                }
            };
            out.push('(');
            write_regs(out, args)?;
            out.push(')');
            if let Some(site) = site {
                write!(out, " @{site}")?;
            }
            Ok(())
        }
    }
}

fn write_block_call(out: &mut String, call: &BlockCall) -> fmt::Result {
    write!(out, "{}(", call.block)?;
    write_regs(out, &call.args)?;
    out.push(')');
    Ok(())
}

fn write_terminator(out: &mut String, term: &Terminator) -> fmt::Result {
    match term {
        Terminator::Jump(to) => {
            out.push_str("jump ");
            write_block_call(out, to)
        }
        Terminator::Br {
            cond,
            then_to,
            else_to,
            site,
            check,
        } => {
            write!(out, "br {cond}, ")?;
            write_block_call(out, then_to)?;
            out.push_str(", ");
            write_block_call(out, else_to)?;
            write!(out, " @{site}")?;
            match check {
                Some(check) => write!(out, " trap {}", check.name()),
                None => Ok(()),
            }
        }
        Terminator::Switch {
            ty,
            value,
            cases,
            default,
            site,
        } => {
            write!(out, "switch {ty} {value}, [")?;
            for (i, case) in cases.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write!(out, "{}: ", const_text(*ty, Const::Bits(case.value)))?;
                write_block_call(out, &case.target)?;
            }
            out.push_str("], default ");
            write_block_call(out, default)?;
            write!(out, " @{site}")
        }
        Terminator::Ret(Some(r)) => write!(out, "ret {r}"),
        Terminator::Ret(None) => out.write_str("ret"),
        Terminator::Unreachable => out.write_str("unreachable"),
        Terminator::Invoke { normal, landing } => {
            out.push_str("invoke ");
            write_block_call(out, normal)?;
            out.push_str(", unwind ");
            write_block_call(out, &landing.to)?;
            write!(
                out,
                " [{}: ptr, {}: i32]",
                landing.exception, landing.selector
            )?;
            if landing.cleanup {
                out.push_str(" cleanup");
            }
            for clause in &landing.clauses {
                match clause {
                    Clause::Catch {
                        typeinfo: Some(t),
                        id,
                    } => write!(out, " catch({t}, {id})")?,
                    Clause::Catch { typeinfo: None, id } => write!(out, " catch(null, {id})")?,
                }
            }
            Ok(())
        }
    }
}

/// Quotes a name with `"`, escaping `"` and `\`.
pub fn quote(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 2);
    s.push('"');
    for c in name.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// IR text name of an integer binary op.
pub fn int_bin_name(op: IntBinOp) -> &'static str {
    use IntBinOp::*;
    match op {
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        Udiv => "udiv",
        Sdiv => "sdiv",
        Urem => "urem",
        Srem => "srem",
        Shl => "shl",
        Lshr => "lshr",
        Ashr => "ashr",
        And => "and",
        Or => "or",
        Xor => "xor",
    }
}

/// IR text name of a float binary op.
pub fn float_bin_name(op: FloatBinOp) -> &'static str {
    match op {
        FloatBinOp::Fadd => "fadd",
        FloatBinOp::Fsub => "fsub",
        FloatBinOp::Fmul => "fmul",
        FloatBinOp::Fdiv => "fdiv",
        FloatBinOp::Frem => "frem",
    }
}

/// IR text name of an integer predicate.
pub fn int_pred_name(pred: IntPred) -> &'static str {
    use IntPred::*;
    match pred {
        Eq => "eq",
        Ne => "ne",
        Ugt => "ugt",
        Uge => "uge",
        Ult => "ult",
        Ule => "ule",
        Sgt => "sgt",
        Sge => "sge",
        Slt => "slt",
        Sle => "sle",
    }
}

/// IR text name of a float predicate.
pub fn float_pred_name(pred: FloatPred) -> &'static str {
    use FloatPred::*;
    match pred {
        False => "false",
        Oeq => "oeq",
        Ogt => "ogt",
        Oge => "oge",
        Olt => "olt",
        Ole => "ole",
        One => "one",
        Ord => "ord",
        Ueq => "ueq",
        Ugt => "ugt",
        Uge => "uge",
        Ult => "ult",
        Ule => "ule",
        Une => "une",
        Uno => "uno",
        True => "true",
    }
}

/// IR text name of a cast.
pub fn cast_name(op: CastOp) -> &'static str {
    use CastOp::*;
    match op {
        Trunc => "trunc",
        Zext => "zext",
        Sext => "sext",
        Fptrunc => "fptrunc",
        Fpext => "fpext",
        Fptoui => "fptoui",
        Fptosi => "fptosi",
        Uitofp => "uitofp",
        Sitofp => "sitofp",
        Ptrtoint => "ptrtoint",
        Inttoptr => "inttoptr",
        Bitcast => "bitcast",
    }
}

/// IR text name of a builtin.
pub fn builtin_name(b: Builtin) -> &'static str {
    b.name()
}
