//! The SMT-LIB 2.6 front end: elaborates s-expressions into terms and runs
//! script commands (declarations, assertions, `check-sat`, models, scopes).
//!
//! Supported logics are QF_FP, QF_BVFP and QF_BV over the sorts of
//! [`crate::sort`], every rounding mode (literals in both spellings, mode
//! constants and terms), real literals as `to_fp` arguments, `define-sort`,
//! `define-const`, `define-fun` (with parameters: expanded where applied),
//! `push`/`pop`, `check-sat-assuming`, `get-model` and `get-value`, uninterpreted
//! functions and arrays (QF_ABVFP: `select`, `store`, `ite` over arrays, constant
//! arrays) by the reductions of module `functions`. Everything the solver cannot
//! represent (`Real`/`Int` arithmetic, array equality, arrays of arrays) is
//! rejected with an `unsupported: NAME` error naming the line and column; `set-info`/`set-option`
//! are ignored with a note. Beyond SMT-LIB, the unary extension operators
//! `fpext.exp`, `fpext.log`, `fpext.atan`, `fpext.sin`, `fpext.cos` and
//! `fpext.tan` stand for the C math functions (see [`crate::term::ExtFn`]);
//! the first use writes a note saying so.

mod functions;

use std::collections::HashMap;
use std::io::Write;

use num_bigint::BigUint;
use num_traits::Zero;

use crate::eval::{eval_term, Model, Value};
use crate::ieee;
use crate::sexpr::{Atom, Pos, Reader, SExpr};
use crate::solver::{Answer, Solver, Stats};
use crate::sort::{FpFormat, SmtRounding, Sort};
use crate::term::{ExtFn, Op, TermError, TermId, TermStore};
use crate::{ScriptSummary, SolveConfig, SolveError, Status};
use functions::{ArrayTerm, Functions, Kind};

type PResult<T> = Result<T, SolveError>;

fn perr(pos: Pos, msg: impl Into<String>) -> SolveError {
    SolveError::Parse {
        line: pos.line,
        col: pos.col,
        msg: msg.into(),
    }
}

fn term_err(pos: Pos, e: TermError) -> SolveError {
    perr(pos, e.to_string())
}

/// A `define-fun` with parameters, expanded at each application.
#[derive(Clone, Debug)]
struct Macro {
    params: Vec<(String, Sort)>,
    body: SExpr,
}

#[derive(Clone, Debug)]
enum Binding {
    Term(TermId),
    Macro(Macro),
    /// A declared function or array: its index in [`Functions`].
    Function(usize),
}

/// One `push` level: what to undo on `pop`.
#[derive(Clone, Debug)]
struct Frame {
    assertions: usize,
    declared: usize,
    names: Vec<String>,
}

/// The state of a running script.
struct Script<'c> {
    store: TermStore,
    globals: HashMap<String, Binding>,
    /// Declared variables in declaration order (name, term), for `get-model`.
    declared: Vec<(String, TermId)>,
    locals: Vec<(String, TermId)>,
    /// `let`-bound array terms.
    array_locals: Vec<(String, ArrayTerm)>,
    functions: Functions,
    assertions: Vec<TermId>,
    frames: Vec<Frame>,
    model: Option<Model>,
    config: &'c SolveConfig,
    summary: ScriptSummary,
    /// Whether the extension-operator note was written.
    ext_noted: bool,
    /// A note raised while elaborating, written after the command.
    pending_note: Option<String>,
    /// `define-sort`s: parameters and body.
    sort_aliases: HashMap<String, (Vec<String>, SExpr)>,
}

/// Runs `text` as an SMT-LIB script; see [`crate::run_script`].
pub fn run(
    text: &str,
    config: &SolveConfig,
    out: &mut dyn Write,
) -> Result<ScriptSummary, SolveError> {
    let mut script = Script {
        store: TermStore::new(),
        globals: HashMap::new(),
        declared: Vec::new(),
        locals: Vec::new(),
        array_locals: Vec::new(),
        functions: Functions::default(),
        assertions: Vec::new(),
        frames: Vec::new(),
        model: None,
        config,
        summary: ScriptSummary::default(),
        ext_noted: false,
        pending_note: None,
        sort_aliases: HashMap::new(),
    };
    let mut reader = Reader::new(text);
    loop {
        let cmd = reader.next_sexpr().map_err(|e| perr(e.pos, e.msg))?;
        let Some(cmd) = cmd else { break };
        let go_on = script.command(&cmd, out)?;
        if let Some(n) = script.pending_note.take() {
            script.note(out, &n)?;
        }
        if !go_on {
            break;
        }
    }
    Ok(script.summary)
}

/// The operators whose first argument is a rounding mode.
fn rounded_op(name: &str) -> Option<Op> {
    Some(match name {
        "fp.add" => Op::FpAdd,
        "fp.sub" => Op::FpSub,
        "fp.mul" => Op::FpMul,
        "fp.div" => Op::FpDiv,
        "fp.fma" => Op::FpFma,
        "fp.sqrt" => Op::FpSqrt,
        "fp.roundToIntegral" => Op::FpRoundToIntegral,
        _ => return None,
    })
}

/// The operators that are one term of their arguments.
fn simple_op(name: &str) -> Option<Op> {
    Some(match name {
        "not" => Op::Not,
        "ite" => Op::Ite,
        "fp.abs" => Op::FpAbs,
        "fp.neg" => Op::FpNeg,
        "fp.rem" => Op::FpRem,
        "fp.min" => Op::FpMin,
        "fp.max" => Op::FpMax,
        "fp.isNormal" => Op::FpIsNormal,
        "fp.isSubnormal" => Op::FpIsSubnormal,
        "fp.isZero" => Op::FpIsZero,
        "fp.isInfinite" => Op::FpIsInfinite,
        "fp.isNaN" => Op::FpIsNaN,
        "fp.isNegative" => Op::FpIsNegative,
        "fp.isPositive" => Op::FpIsPositive,
        "bvnot" => Op::BvNot,
        "bvneg" => Op::BvNeg,
        "bvsub" => Op::BvSub,
        "bvudiv" => Op::BvUdiv,
        "bvurem" => Op::BvUrem,
        "bvsdiv" => Op::BvSdiv,
        "bvsrem" => Op::BvSrem,
        "bvsmod" => Op::BvSmod,
        "bvshl" => Op::BvShl,
        "bvlshr" => Op::BvLshr,
        "bvashr" => Op::BvAshr,
        "bvult" => Op::BvUlt,
        "bvule" => Op::BvUle,
        "bvugt" => Op::BvUgt,
        "bvuge" => Op::BvUge,
        "bvslt" => Op::BvSlt,
        "bvsle" => Op::BvSle,
        "bvsgt" => Op::BvSgt,
        "bvsge" => Op::BvSge,
        _ => return None,
    })
}

/// The binary operators SMT-LIB applies to any number of arguments, folded
/// from the left.
fn left_assoc_op(name: &str) -> Option<Op> {
    Some(match name {
        "and" => Op::And,
        "or" => Op::Or,
        "xor" => Op::Xor,
        "bvand" => Op::BvAnd,
        "bvor" => Op::BvOr,
        "bvxor" => Op::BvXor,
        "bvadd" => Op::BvAdd,
        "bvmul" => Op::BvMul,
        "concat" => Op::Concat,
        _ => return None,
    })
}

/// The relations SMT-LIB chains: `(< a b c)` is `(and (< a b) (< b c))`.
fn chainable_op(name: &str) -> Option<Op> {
    Some(match name {
        "=" => Op::Eq,
        "fp.eq" => Op::FpEq,
        "fp.lt" => Op::FpLt,
        "fp.leq" => Op::FpLeq,
        "fp.gt" => Op::FpGt,
        "fp.geq" => Op::FpGeq,
        _ => return None,
    })
}

fn list(e: &SExpr) -> Option<&[SExpr]> {
    match e {
        SExpr::List(items, _) => Some(items),
        SExpr::Atom(..) => None,
    }
}

/// Reads a list of `(name X)` pairs (parameters, `let` bindings); `shape` names the
/// expected pair in errors, e.g. `"(name sort)"`.
fn named_pairs<'e>(items: &'e [SExpr], shape: &str) -> PResult<Vec<(String, &'e SExpr)>> {
    items
        .iter()
        .map(|item| match list(item) {
            Some([name, value]) => {
                let name = name
                    .symbol()
                    .ok_or_else(|| perr(name.pos(), format!("expected a name in {shape}")))?;
                Ok((name.to_string(), value))
            }
            _ => Err(perr(item.pos(), format!("expected {shape}"))),
        })
        .collect()
}

/// The symbol `e` names a declaration with.
fn symbol_name(e: &SExpr) -> PResult<String> {
    e.symbol()
        .map(str::to_string)
        .ok_or_else(|| perr(e.pos(), "expected a symbol"))
}

/// The format `(_ FloatingPoint eb sb)`, or why it is not supported.
fn format_of(pos: Pos, eb: u64, sb: u64) -> PResult<FpFormat> {
    FpFormat::new(eb, sb).ok_or_else(|| {
        perr(
            pos,
            format!(
                "unsupported: (_ FloatingPoint {eb} {sb}) (eb 2..=60, sb >= 2, eb + sb <= 128)"
            ),
        )
    })
}

/// A bit-vector literal `#b...`/`#x...` of any width: value and width.
fn bits_literal(e: &SExpr) -> Option<(u128, u32)> {
    let (digits, radix, bits_per_digit) = match e {
        SExpr::Atom(Atom::Binary(d), _) => (d, 2, 1),
        SExpr::Atom(Atom::Hex(d), _) => (d, 16, 4),
        _ => return None,
    };
    let width = u32::try_from(digits.len()).ok()? * bits_per_digit;
    if width > FpFormat::MAX_WIDTH {
        return None;
    }
    Some((u128::from_str_radix(digits, radix).ok()?, width))
}

/// `(fp s e m)` of three literals: its format and pattern (read here, not as
/// bit-vector terms, so that significands wider than 64 bits are literals too).
fn fp_literal(pos: Pos, s: &SExpr, e: &SExpr, m: &SExpr) -> PResult<Option<(FpFormat, u128)>> {
    let (Some((sign, 1)), Some((exp, ew)), Some((frac, mw))) =
        (bits_literal(s), bits_literal(e), bits_literal(m))
    else {
        return Ok(None);
    };
    let f = format_of(pos, u64::from(ew), u64::from(mw) + 1)?;
    Ok(Some((f, (sign << (ew + mw)) | (exp << mw) | frac)))
}

fn numeral(e: &SExpr) -> PResult<u64> {
    match e {
        SExpr::Atom(Atom::Numeral(s), p) => s
            .parse()
            .map_err(|_| perr(*p, format!("numeral {s} too large"))),
        _ => Err(perr(e.pos(), format!("expected a numeral, got {e}"))),
    }
}

fn index_u32(e: &SExpr) -> PResult<u32> {
    let n = numeral(e)?;
    u32::try_from(n).map_err(|_| perr(e.pos(), format!("index {n} too large")))
}

impl Script<'_> {
    /// Runs one command; false on `(exit)`.
    fn command(&mut self, cmd: &SExpr, out: &mut dyn Write) -> PResult<bool> {
        let pos = cmd.pos();
        let items = list(cmd).ok_or_else(|| perr(pos, "expected a command in parentheses"))?;
        let name = items
            .first()
            .and_then(SExpr::symbol)
            .ok_or_else(|| perr(pos, "expected a command name"))?;
        let args = &items[1..];
        match name {
            "set-logic" => {
                let logic = args.first().and_then(SExpr::symbol).unwrap_or("");
                if !matches!(logic, "QF_FP" | "QF_BVFP" | "QF_FPBV" | "QF_BV" | "ALL") {
                    self.note(
                        out,
                        &format!("logic {logic} is not one of QF_FP, QF_BVFP, QF_BV; continuing"),
                    )?;
                }
            }
            "set-info" | "set-option" => {
                let what = args.first().map(|a| a.to_string()).unwrap_or_default();
                self.note(out, &format!("{name} {what} ignored"))?;
            }
            "declare-const" => {
                let [n, s] = args else {
                    return Err(perr(pos, "declare-const expects a name and a sort"));
                };
                if let Some((index, element)) = self.array_sort(s)? {
                    self.declare_function(n, Kind::Array, vec![index], element)?;
                } else {
                    let sort = self.sort(s)?;
                    self.declare(n, sort)?;
                }
            }
            "declare-fun" => {
                let [n, params, s] = args else {
                    return Err(perr(
                        pos,
                        "declare-fun expects a name, parameter sorts and a sort",
                    ));
                };
                let params = list(params)
                    .ok_or_else(|| perr(params.pos(), "expected a list of parameter sorts"))?;
                if params.is_empty() {
                    if let Some((index, element)) = self.array_sort(s)? {
                        self.declare_function(n, Kind::Array, vec![index], element)?;
                        return Ok(true);
                    }
                    let sort = self.sort(s)?;
                    self.declare(n, sort)?;
                } else {
                    let sorts = params
                        .iter()
                        .map(|p| self.sort(p))
                        .collect::<PResult<Vec<_>>>()?;
                    let result = self.sort(s)?;
                    self.declare_function(n, Kind::Function, sorts, result)?;
                }
            }
            "define-fun" => self.define_fun(pos, args)?,
            "define-const" => {
                let [n, s, body] = args else {
                    return Err(perr(pos, "define-const expects a name, a sort and a term"));
                };
                let params = SExpr::List(Vec::new(), pos);
                self.define_fun(pos, &[n.clone(), params, s.clone(), body.clone()])?;
            }
            "define-sort" => self.define_sort(pos, args)?,
            "assert" => {
                let [t] = args else {
                    return Err(perr(pos, "assert expects one term"));
                };
                let id = self.term(t)?;
                if self.store.sort(id) != Sort::Bool {
                    return Err(perr(t.pos(), "assert expects a Bool term"));
                }
                self.assertions.push(id);
                self.model = None;
            }
            "check-sat" => self.check_sat(out, &[])?,
            "check-sat-assuming" => {
                let [lits] = args else {
                    return Err(perr(pos, "check-sat-assuming expects a list of literals"));
                };
                let lits = list(lits).ok_or_else(|| perr(lits.pos(), "expected a list"))?;
                let mut assumed = Vec::new();
                for l in lits {
                    let t = self.term(l)?;
                    if self.store.sort(t) != Sort::Bool {
                        return Err(perr(l.pos(), "check-sat-assuming expects Bool literals"));
                    }
                    assumed.push(t);
                }
                self.check_sat(out, &assumed)?;
            }
            "get-model" => self.get_model(out)?,
            "get-value" => self.get_value(pos, args, out)?,
            "push" => {
                let n = args.first().map(numeral).transpose()?.unwrap_or(1);
                for _ in 0..n {
                    self.frames.push(Frame {
                        assertions: self.assertions.len(),
                        declared: self.declared.len(),
                        names: Vec::new(),
                    });
                }
            }
            "pop" => {
                let n = args.first().map(numeral).transpose()?.unwrap_or(1);
                if n > self.frames.len() as u64 {
                    return Err(perr(
                        pos,
                        format!("pop {n} with only {} pushed scopes", self.frames.len()),
                    ));
                }
                for _ in 0..n {
                    let frame = self.frames.pop().expect("checked depth");
                    self.assertions.truncate(frame.assertions);
                    self.declared.truncate(frame.declared);
                    for name in frame.names {
                        self.globals.remove(&name);
                    }
                }
                self.model = None;
            }
            "reset-assertions" => {
                self.assertions.clear();
                self.model = None;
            }
            "echo" => {
                if let Some(SExpr::Atom(Atom::Str(s), _)) = args.first() {
                    writeln!(out, "{s}")?;
                }
            }
            "exit" => return Ok(false),
            "get-info" | "get-option" => writeln!(out, "unsupported")?,
            other => return Err(perr(pos, format!("unsupported: command {other}"))),
        }
        Ok(true)
    }

    fn note(&mut self, out: &mut dyn Write, msg: &str) -> PResult<()> {
        self.summary.notes += 1;
        writeln!(out, "; note: {msg}")?;
        Ok(())
    }

    /// Binds a new global name (callers have checked it is fresh).
    fn bind_global(&mut self, name: &str, b: Binding) {
        self.globals.insert(name.to_string(), b);
        if let Some(frame) = self.frames.last_mut() {
            frame.names.push(name.to_string());
        }
    }

    fn declare(&mut self, n: &SExpr, sort: Sort) -> PResult<()> {
        let name = symbol_name(n)?;
        if self.globals.contains_key(&name) {
            return Err(perr(n.pos(), format!("'{name}' is already declared")));
        }
        let t = self.store.declare(&name, sort);
        self.declared.push((name.clone(), t));
        self.bind_global(&name, Binding::Term(t));
        Ok(())
    }

    fn declare_function(
        &mut self,
        n: &SExpr,
        kind: Kind,
        params: Vec<Sort>,
        result: Sort,
    ) -> PResult<()> {
        let name = symbol_name(n)?;
        if self.globals.contains_key(&name) {
            return Err(perr(n.pos(), format!("'{name}' is already declared")));
        }
        let f = self.functions.declare(&name, kind, params, result);
        self.bind_global(&name, Binding::Function(f));
        Ok(())
    }

    /// `Some((index, element))` when `e` is an array sort `(Array I E)` of scalar
    /// sorts (after `define-sort` abbreviations).
    fn array_sort(&self, e: &SExpr) -> PResult<Option<(Sort, Sort)>> {
        if let Some((params, body)) = self.alias_of(e) {
            if params.is_empty() {
                return self.array_sort(&body);
            }
        }
        match list(e) {
            Some([head, index, element]) if head.symbol() == Some("Array") => {
                if self.array_sort(index)?.is_some() || self.array_sort(element)?.is_some() {
                    return Err(perr(e.pos(), "unsupported: arrays of arrays"));
                }
                Ok(Some((self.sort(index)?, self.sort(element)?)))
            }
            _ => Ok(None),
        }
    }

    /// `Some` array term when `e` is one: a declared or `let`-bound array, a
    /// `store`, an `ite` of arrays or a constant array.
    fn array(&mut self, e: &SExpr) -> PResult<Option<ArrayTerm>> {
        let pos = e.pos();
        if let Some(name) = e.symbol() {
            if let Some((_, a)) = self.array_locals.iter().rev().find(|(n, _)| n == name) {
                return Ok(Some(a.clone()));
            }
            return Ok(match self.lookup(name) {
                Some(Binding::Function(f)) if self.functions.get(f).is_array() => {
                    Some(ArrayTerm::Base(f))
                }
                _ => None,
            });
        }
        let Some([head, rest @ ..]) = list(e) else {
            return Ok(None);
        };
        match (head.symbol(), rest) {
            (Some("store"), [a, i, v]) => {
                let Some(a) = self.array(a)? else {
                    return Err(perr(pos, "store expects an array"));
                };
                let (i, v) = (self.term(i)?, self.term(v)?);
                Ok(Some(ArrayTerm::Store(Box::new(a), i, v)))
            }
            (Some("ite"), [c, a, b]) => {
                let Some(a) = self.array(a)? else {
                    return Ok(None);
                };
                let Some(b) = self.array(b)? else {
                    return Err(perr(pos, "ite of an array and a value"));
                };
                let c = self.term(c)?;
                Ok(Some(ArrayTerm::Ite(c, Box::new(a), Box::new(b))))
            }
            (None, [v]) => match list(head) {
                Some([as_, konst, s])
                    if as_.symbol() == Some("as") && konst.symbol() == Some("const") =>
                {
                    let Some((index, element)) = self.array_sort(s)? else {
                        return Err(perr(pos, "as const expects an array sort"));
                    };
                    let v = self.term(v)?;
                    if self.store.sort(v) != element {
                        return Err(perr(
                            pos,
                            format!("constant array of {element} given a value of another sort"),
                        ));
                    }
                    Ok(Some(ArrayTerm::Const(index, v)))
                }
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// `(select a i)`, or an array-valued term where a value is expected.
    fn array_app(&mut self, pos: Pos, name: &str, rest: &[SExpr]) -> PResult<Option<TermId>> {
        match (name, rest) {
            ("select", [a, i]) => {
                let Some(a) = self.array(a)? else {
                    return Err(perr(pos, "select expects an array"));
                };
                let i = self.term(i)?;
                let t = self
                    .functions
                    .select(&mut self.store, &a, i)
                    .map_err(|e| term_err(pos, e))?;
                Ok(Some(t))
            }
            ("store", _) => Err(perr(pos, "store gives an array where a value is expected")),
            ("=" | "distinct", [a, ..]) if self.array(a)?.is_some() => {
                Err(perr(pos, "unsupported: array equality (extensionality)"))
            }
            _ => Ok(None),
        }
    }

    fn define_fun(&mut self, pos: Pos, args: &[SExpr]) -> PResult<()> {
        let [n, params, s, body] = args else {
            return Err(perr(
                pos,
                "define-fun expects a name, parameters, a sort and a body",
            ));
        };
        let name = symbol_name(n)?;
        if self.globals.contains_key(&name) {
            return Err(perr(n.pos(), format!("'{name}' is already declared")));
        }
        let sort = self.sort(s)?;
        let plist = list(params).ok_or_else(|| perr(params.pos(), "expected a parameter list"))?;
        let ps = named_pairs(plist, "(name sort)")?
            .into_iter()
            .map(|(pname, sort)| Ok((pname, self.sort(sort)?)))
            .collect::<PResult<Vec<_>>>()?;
        let binding = if ps.is_empty() {
            let t = self.term(body)?;
            if self.store.sort(t) != sort {
                return Err(perr(
                    body.pos(),
                    format!("body of {name} does not have sort {sort}"),
                ));
            }
            Binding::Term(t)
        } else {
            // Type-check the body once with placeholder variables.
            let saved = self.locals.len();
            let mut probe = self.store.clone();
            for (pn, psort) in &ps {
                let t = probe.declare(pn, *psort);
                self.locals.push((pn.clone(), t));
            }
            std::mem::swap(&mut probe, &mut self.store);
            let checked = self.term(body);
            std::mem::swap(&mut probe, &mut self.store);
            self.locals.truncate(saved);
            if probe.sort(checked?) != sort {
                return Err(perr(
                    body.pos(),
                    format!("body of {name} does not have sort {sort}"),
                ));
            }
            Binding::Macro(Macro {
                params: ps,
                body: body.clone(),
            })
        };
        self.bind_global(&name, binding);
        Ok(())
    }

    /// `(define-sort Name (params) sort)`: a sort abbreviation, expanded where used.
    fn define_sort(&mut self, pos: Pos, args: &[SExpr]) -> PResult<()> {
        let [n, params, body] = args else {
            return Err(perr(
                pos,
                "define-sort expects a name, parameters and a sort",
            ));
        };
        let name = symbol_name(n)?;
        let params = list(params)
            .ok_or_else(|| perr(params.pos(), "expected a parameter list"))?
            .iter()
            .map(|p| {
                p.symbol()
                    .map(str::to_string)
                    .ok_or_else(|| perr(p.pos(), "expected a sort parameter"))
            })
            .collect::<PResult<Vec<_>>>()?;
        if params.is_empty() {
            self.sort(body)?;
        }
        self.sort_aliases.insert(name, (params, body.clone()));
        Ok(())
    }

    fn sort(&self, e: &SExpr) -> PResult<Sort> {
        let pos = e.pos();
        if let Some((params, body)) = self.alias_of(e) {
            if let SExpr::List(items, _) = e {
                if items.len() != params.len() + 1 {
                    return Err(perr(
                        pos,
                        format!("sort {e} expects {} arguments", params.len()),
                    ));
                }
                let bound: HashMap<&str, &SExpr> =
                    params.iter().map(String::as_str).zip(&items[1..]).collect();
                return self.sort(&substitute(&body, &bound));
            }
            if params.is_empty() {
                return self.sort(&body);
            }
            return Err(perr(pos, format!("sort {e} expects arguments")));
        }
        if let Some(s) = e.symbol() {
            return match s {
                "Bool" => Ok(Sort::Bool),
                "Float16" => Ok(Sort::Fp(FpFormat::F16)),
                "Float32" => Ok(Sort::F32),
                "Float64" => Ok(Sort::F64),
                "Float128" => Ok(Sort::Fp(FpFormat::F128)),
                "RoundingMode" | "RM" => Ok(Sort::RoundingMode),
                _ => Err(perr(pos, format!("unsupported: sort {s}"))),
            };
        }
        match list(e) {
            Some([u, kind, rest @ ..]) if u.symbol() == Some("_") => match (kind.symbol(), rest) {
                (Some("BitVec"), [w]) => {
                    let w = numeral(w)?;
                    if (1..=64).contains(&w) {
                        Ok(Sort::BitVec(w as u32))
                    } else {
                        Err(perr(
                            pos,
                            format!("unsupported: (_ BitVec {w}) (widths 1..=64)"),
                        ))
                    }
                }
                (Some("FloatingPoint"), [eb, sb]) => {
                    let (eb, sb) = (numeral(eb)?, numeral(sb)?);
                    format_of(pos, eb, sb).map(Sort::Fp)
                }
                _ => Err(perr(pos, format!("unsupported: sort {e}"))),
            },
            Some([head, ..]) if head.symbol() == Some("Array") => {
                Err(perr(pos, format!("unsupported: Array (the sort {e})")))
            }
            _ => Err(perr(pos, format!("unsupported: sort {e}"))),
        }
    }

    /// The `define-sort` that `e` (a symbol, or a list headed by one) names.
    fn alias_of(&self, e: &SExpr) -> Option<(Vec<String>, SExpr)> {
        let head = match e {
            SExpr::Atom(..) => e.symbol()?,
            SExpr::List(items, _) => items.first()?.symbol()?,
        };
        self.sort_aliases.get(head).cloned()
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        if let Some((_, t)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return Some(Binding::Term(*t));
        }
        self.globals.get(name).cloned()
    }

    fn mk(&mut self, pos: Pos, op: Op, args: &[TermId]) -> PResult<TermId> {
        self.store.mk(op, args).map_err(|e| term_err(pos, e))
    }

    /// Folds an n-ary left-associative operator.
    fn fold(&mut self, pos: Pos, op: Op, args: &[TermId]) -> PResult<TermId> {
        let Some((&first, rest)) = args.split_first() else {
            return Err(perr(pos, format!("{op:?} expects arguments")));
        };
        if rest.is_empty() {
            return Err(perr(pos, format!("{op:?} expects at least two arguments")));
        }
        if matches!(op, Op::And | Op::Or) {
            // Associative: a balanced tree keeps later recursive passes shallow.
            let mut layer = args.to_vec();
            while layer.len() > 1 {
                let mut next = Vec::with_capacity(layer.len().div_ceil(2));
                for pair in layer.chunks(2) {
                    next.push(match pair {
                        [a, b] => self.mk(pos, op, &[*a, *b])?,
                        [a] => *a,
                        _ => unreachable!("chunks(2) yields one or two items"),
                    });
                }
                layer = next;
            }
            return Ok(layer[0]);
        }
        let mut acc = first;
        for &a in rest {
            acc = self.mk(pos, op, &[acc, a])?;
        }
        Ok(acc)
    }

    /// A chainable relation `(r a b c)` = `(and (r a b) (r b c))`.
    fn chain(&mut self, pos: Pos, op: Op, args: &[TermId]) -> PResult<TermId> {
        if args.len() < 2 {
            return Err(perr(pos, format!("{op:?} expects at least two arguments")));
        }
        let mut parts = Vec::new();
        for w in args.windows(2) {
            parts.push(self.mk(pos, op, w)?);
        }
        self.conj(pos, &parts)
    }

    fn conj(&mut self, pos: Pos, parts: &[TermId]) -> PResult<TermId> {
        match parts {
            [] => Ok(self.store.bool_const(true)),
            [one] => Ok(*one),
            _ => self.fold(pos, Op::And, parts),
        }
    }

    fn term(&mut self, e: &SExpr) -> PResult<TermId> {
        let pos = e.pos();
        match e {
            SExpr::Atom(a, _) => self.atom(a, pos),
            SExpr::List(items, _) => {
                let Some((head, rest)) = items.split_first() else {
                    return Err(perr(pos, "empty application"));
                };
                if head.symbol() == Some("_") {
                    return self.indexed_constant(pos, rest);
                }
                if let Some(h) = list(head) {
                    return self.indexed_app(pos, h, rest);
                }
                let name = head
                    .symbol()
                    .ok_or_else(|| perr(head.pos(), format!("expected an operator, got {head}")))?;
                self.app(pos, name, rest)
            }
        }
    }

    fn atom(&mut self, a: &Atom, pos: Pos) -> PResult<TermId> {
        match a {
            Atom::Symbol(s) => {
                match s.as_str() {
                    "true" => return Ok(self.store.bool_const(true)),
                    "false" => return Ok(self.store.bool_const(false)),
                    _ => {}
                }
                if let Some(b) = self.lookup(s) {
                    return match b {
                        Binding::Term(t) => Ok(t),
                        Binding::Macro(_) => Err(perr(pos, format!("'{s}' expects arguments"))),
                        Binding::Function(f) if self.functions.get(f).is_array() => {
                            Err(perr(pos, format!("array '{s}' where a value is expected")))
                        }
                        Binding::Function(_) => Err(perr(pos, format!("'{s}' expects arguments"))),
                    };
                }
                if let Some(r) = SmtRounding::from_name(s) {
                    return self.mk(pos, Op::RmConst(r), &[]);
                }
                Err(perr(pos, format!("unknown symbol '{s}'")))
            }
            Atom::Binary(bits) => {
                if bits.len() > 64 {
                    return Err(perr(
                        pos,
                        "unsupported: bit-vector literals wider than 64 bits",
                    ));
                }
                let v = u64::from_str_radix(bits, 2).map_err(|e| perr(pos, e.to_string()))?;
                self.store
                    .bv_const(v, bits.len() as u32)
                    .map_err(|e| term_err(pos, e))
            }
            Atom::Hex(h) => {
                if h.len() > 16 {
                    return Err(perr(
                        pos,
                        "unsupported: bit-vector literals wider than 64 bits",
                    ));
                }
                let v = u64::from_str_radix(h, 16).map_err(|e| perr(pos, e.to_string()))?;
                self.store
                    .bv_const(v, 4 * h.len() as u32)
                    .map_err(|e| term_err(pos, e))
            }
            Atom::Numeral(_) | Atom::Decimal(_) => Err(perr(
                pos,
                "Int/Real literals are only supported as the argument of to_fp",
            )),
            Atom::Keyword(_) | Atom::Str(_) => Err(perr(pos, "expected a term")),
        }
    }

    /// `(_ +zero 8 24)`, `(_ NaN 11 53)`, `(_ bv5 8)`, ...
    fn indexed_constant(&mut self, pos: Pos, rest: &[SExpr]) -> PResult<TermId> {
        let name = rest
            .first()
            .and_then(SExpr::symbol)
            .ok_or_else(|| perr(pos, "expected an indexed identifier"))?;
        if let Some(digits) = name.strip_prefix("bv") {
            let [_, w] = rest else {
                return Err(perr(pos, "(_ bvN w) expects a width"));
            };
            let v: u64 = digits
                .parse()
                .map_err(|_| perr(pos, format!("bad or too large literal {name}")))?;
            let w = index_u32(w)?;
            if w < 64 && v >> w != 0 {
                return Err(perr(pos, format!("{v} does not fit in {w} bits")));
            }
            return self.store.bv_const(v, w).map_err(|e| term_err(pos, e));
        }
        let [_, eb, sb] = rest else {
            return Err(perr(pos, format!("unsupported: indexed identifier {name}")));
        };
        let (eb, sb) = (numeral(eb)?, numeral(sb)?);
        let f = format_of(pos, eb, sb)?;
        let bits = match name {
            "+zero" => f.zero(false),
            "-zero" => f.zero(true),
            "+oo" => f.inf(false),
            "-oo" => f.inf(true),
            "NaN" => f.nan(),
            _ => return Err(perr(pos, format!("unsupported: indexed identifier {name}"))),
        };
        Ok(self.store.fp_const(f, bits))
    }

    /// `((_ extract 7 0) x)`, `((_ to_fp 8 24) RNE x)`, ...
    fn indexed_app(&mut self, pos: Pos, head: &[SExpr], rest: &[SExpr]) -> PResult<TermId> {
        let (Some(u), Some(name)) = (head.first(), head.get(1).and_then(SExpr::symbol)) else {
            return Err(perr(pos, "expected an indexed operator"));
        };
        if u.symbol() != Some("_") {
            return Err(perr(pos, "expected an indexed operator"));
        }
        let idx = &head[2..];
        match (name, idx) {
            ("extract", [hi, lo]) => {
                let (hi, lo) = (index_u32(hi)?, index_u32(lo)?);
                let [x] = rest else {
                    return Err(perr(pos, "extract expects one argument"));
                };
                let x = self.term(x)?;
                self.mk(pos, Op::Extract(hi, lo), &[x])
            }
            ("zero_extend" | "sign_extend", [n]) => {
                let n = index_u32(n)?;
                let [x] = rest else {
                    return Err(perr(pos, format!("{name} expects one argument")));
                };
                let x = self.term(x)?;
                if n == 0 {
                    return Ok(x);
                }
                let op = if name == "zero_extend" {
                    Op::ZeroExtend(n)
                } else {
                    Op::SignExtend(n)
                };
                self.mk(pos, op, &[x])
            }
            ("fp.to_sbv" | "fp.to_ubv", [w]) => {
                let w = index_u32(w)?;
                let [rm, x] = rest else {
                    return Err(perr(
                        pos,
                        format!("{name} expects a rounding mode and a float"),
                    ));
                };
                let (rm, x) = (self.term(rm)?, self.term(x)?);
                let op = if name == "fp.to_sbv" {
                    Op::FpToSbv(w)
                } else {
                    Op::FpToUbv(w)
                };
                self.mk(pos, op, &[rm, x])
            }
            ("to_fp" | "to_fp_unsigned", [eb, sb]) => {
                let (eb, sb) = (numeral(eb)?, numeral(sb)?);
                let f = format_of(pos, eb, sb)?;
                self.convert_to_fp(pos, f, name == "to_fp_unsigned", rest)
            }
            _ => Err(perr(
                pos,
                format!("unsupported: indexed operator (_ {name} ...)"),
            )),
        }
    }

    fn convert_to_fp(
        &mut self,
        pos: Pos,
        f: FpFormat,
        unsigned: bool,
        rest: &[SExpr],
    ) -> PResult<TermId> {
        match rest {
            [bits] if !unsigned => {
                let b = self.term(bits)?;
                self.mk(pos, Op::BitsToFp(f), &[b])
            }
            [rm, arg] => {
                let rm = self.term(rm)?;
                if let Some(real) = real_literal(arg)? {
                    return self.real_to_fp(pos, f, rm, &real);
                }
                let a = self.term(arg)?;
                let op = match self.store.sort(a) {
                    Sort::Fp(from) if !unsigned => {
                        if from == f && self.store.sort(rm) == Sort::RoundingMode {
                            return Ok(a);
                        }
                        Op::FpToFp(f)
                    }
                    Sort::BitVec(_) if unsigned => Op::UbvToFp(f),
                    Sort::BitVec(_) => Op::SbvToFp(f),
                    s => return Err(perr(arg.pos(), format!("unsupported: to_fp of sort {s}"))),
                };
                self.mk(pos, op, &[rm, a])
            }
            _ => Err(perr(pos, "unsupported: this form of to_fp")),
        }
    }

    /// A real literal rounded to format `f` by the mode term `rm`: a constant when
    /// the mode is a literal, else an `ite` over the five modes.
    fn real_to_fp(&mut self, pos: Pos, f: FpFormat, rm: TermId, real: &Real) -> PResult<TermId> {
        let (neg, num, den) = real;
        let constant =
            |s: &mut TermStore, r| s.fp_const(f, ieee::from_rational(f, r, *neg, num, den));
        match self.store.get(rm).op {
            Op::RmConst(r) => Ok(constant(&mut self.store, r)),
            _ => {
                let mut acc = constant(&mut self.store, SmtRounding::Rtz);
                for r in SmtRounding::ALL.into_iter().rev().skip(1) {
                    let lit = self.store.rm_const(r);
                    let is = self.mk(pos, Op::Eq, &[rm, lit])?;
                    let c = constant(&mut self.store, r);
                    acc = self.mk(pos, Op::Ite, &[is, c, acc])?;
                }
                Ok(acc)
            }
        }
    }

    /// The application `(name rest...)`. `let`, `!` and `fp` come first; then a
    /// macro of that name; then the operators with a rounding-mode argument and
    /// the extension operators; then everything that takes terms only.
    fn app(&mut self, pos: Pos, name: &str, rest: &[SExpr]) -> PResult<TermId> {
        match name {
            "let" => return self.let_(pos, rest),
            "!" => {
                return match rest.first() {
                    Some(t) => self.term(t),
                    None => Err(perr(pos, "empty annotation")),
                }
            }
            "fp" => return self.fp_triple(pos, rest),
            _ => {}
        }
        match self.lookup(name) {
            Some(Binding::Macro(m)) => return self.expand_macro(pos, name, &m, rest),
            Some(Binding::Function(f)) if !self.functions.get(f).is_array() => {
                let args = self.terms(rest)?;
                return self
                    .functions
                    .apply(&mut self.store, f, &args)
                    .map_err(|e| term_err(pos, e));
            }
            _ => {}
        }
        if let Some(t) = self.array_app(pos, name, rest)? {
            return Ok(t);
        }
        if let Some(op) = rounded_op(name) {
            if rest.is_empty() {
                return Err(perr(pos, format!("{name} expects a rounding mode")));
            }
            let args = self.terms(rest)?;
            return self.mk(pos, op, &args);
        }
        if let Some(g) = ExtFn::from_name(name) {
            if !self.ext_noted {
                self.ext_noted = true;
                self.pending_note = Some(format!(
                    "{name} is an fpforge extension evaluated with the host libm; models are checked against it"
                ));
            }
            let args = self.terms(rest)?;
            return self.mk(pos, Op::Ext(g), &args);
        }
        let args = self.terms(rest)?;
        self.term_app(pos, name, &args)
    }

    /// `(fp sign exponent significand)`: a literal when all three are
    /// constants, else the float of the concatenated bits.
    fn fp_triple(&mut self, pos: Pos, rest: &[SExpr]) -> PResult<TermId> {
        let [s, e, m] = rest else {
            return Err(perr(pos, "fp expects sign, exponent and significand"));
        };
        if let Some(literal) = fp_literal(pos, s, e, m)? {
            return Ok(self.store.fp_const(literal.0, literal.1));
        }
        let (s, e, m) = (self.term(s)?, self.term(e)?, self.term(m)?);
        let (Sort::BitVec(ew), Sort::BitVec(mw)) = (self.store.sort(e), self.store.sort(m)) else {
            return Err(perr(pos, "fp expects bit-vector arguments"));
        };
        let f = format_of(pos, u64::from(ew), u64::from(mw) + 1)?;
        if self.store.sort(s) != Sort::BitVec(1) {
            return Err(perr(pos, "fp expects a 1-bit sign"));
        }
        let se = self.mk(pos, Op::Concat, &[s, e])?;
        let bits = self.mk(pos, Op::Concat, &[se, m])?;
        if let Op::BvConst(v, _) = self.store.get(bits).op {
            return Ok(self.store.fp_const(f, u128::from(v)));
        }
        self.mk(pos, Op::BitsToFp(f), &[bits])
    }

    /// A `define-fun` with parameters applied to `rest`.
    fn expand_macro(&mut self, pos: Pos, name: &str, m: &Macro, rest: &[SExpr]) -> PResult<TermId> {
        if rest.len() != m.params.len() {
            return Err(perr(
                pos,
                format!("{name} expects {} arguments", m.params.len()),
            ));
        }
        let mut vals = Vec::new();
        for (a, (_, psort)) in rest.iter().zip(&m.params) {
            let t = self.term(a)?;
            if self.store.sort(t) != *psort {
                return Err(perr(
                    a.pos(),
                    format!("argument of {name} must have sort {psort}"),
                ));
            }
            vals.push(t);
        }
        // Macro bodies see only their parameters and globals.
        let saved = std::mem::take(&mut self.locals);
        self.locals = m.params.iter().map(|p| p.0.clone()).zip(vals).collect();
        let r = self.term(&m.body);
        self.locals = saved;
        r
    }

    /// An operator applied to elaborated terms: one term per operator, or the
    /// n-ary forms (left-assoc, right-assoc `=>`, chainable relations,
    /// pairwise `distinct`).
    fn term_app(&mut self, pos: Pos, name: &str, args: &[TermId]) -> PResult<TermId> {
        if let Some(op) = simple_op(name) {
            return self.mk(pos, op, args);
        }
        if let Some(op) = left_assoc_op(name) {
            return match (op, args.len()) {
                (Op::And, 0) => Ok(self.store.bool_const(true)),
                (Op::Or, 0) => Ok(self.store.bool_const(false)),
                (Op::And | Op::Or, 1) => {
                    if self.store.sort(args[0]) != Sort::Bool {
                        return Err(perr(pos, format!("{name} expects Bool arguments")));
                    }
                    Ok(args[0])
                }
                _ => self.fold(pos, op, args),
            };
        }
        if let Some(op) = chainable_op(name) {
            return self.chain(pos, op, args);
        }
        match name {
            "=>" => self.implies_chain(pos, args),
            "distinct" => {
                let mut parts = Vec::new();
                for i in 0..args.len() {
                    for j in i + 1..args.len() {
                        parts.push(self.mk(pos, Op::Distinct, &[args[i], args[j]])?);
                    }
                }
                if args.len() < 2 {
                    return Err(perr(pos, "distinct expects at least two arguments"));
                }
                self.conj(pos, &parts)
            }
            "bvredand" | "bvredor" | "bvcomp" | "bvnand" | "bvnor" | "bvxnor" => {
                self.derived_bv_op(pos, name, args)
            }
            "fp.to_real" | "to_real" | "to_int" | "+" | "-" | "*" | "/" => Err(perr(
                pos,
                format!("unsupported: {name} (Int/Real arithmetic)"),
            )),
            _ => Err(perr(pos, format!("unsupported: operator {name} (unknown)"))),
        }
    }

    /// The QF_BV operators defined from others: reductions to one bit
    /// (`bvredand`, `bvredor`), `bvcomp`, and the negated logic operators.
    fn derived_bv_op(&mut self, pos: Pos, name: &str, args: &[TermId]) -> PResult<TermId> {
        let bit = |s: &mut Self, b: bool| s.store.bv_const(u64::from(b), 1);
        let (one, zero) = (bit(self, true), bit(self, false));
        let (one, zero) = (
            one.map_err(|e| term_err(pos, e))?,
            zero.map_err(|e| term_err(pos, e))?,
        );
        let width = |s: &Self, t: TermId| match s.store.sort(t) {
            Sort::BitVec(w) => Ok(w),
            other => Err(perr(
                pos,
                format!("{name} expects bit-vectors, got {other}"),
            )),
        };
        match (name, args) {
            ("bvredand" | "bvredor", [x]) => {
                let w = width(self, *x)?;
                let all = if name == "bvredand" { u64::MAX } else { 0 };
                let c = self.store.bv_const(all, w).map_err(|e| term_err(pos, e))?;
                let eq = self.mk(pos, Op::Eq, &[*x, c])?;
                let (hit, miss) = if name == "bvredand" {
                    (one, zero)
                } else {
                    (zero, one)
                };
                self.mk(pos, Op::Ite, &[eq, hit, miss])
            }
            ("bvcomp", [x, y]) => {
                let eq = self.mk(pos, Op::Eq, &[*x, *y])?;
                self.mk(pos, Op::Ite, &[eq, one, zero])
            }
            ("bvnand" | "bvnor" | "bvxnor", [x, y]) => {
                let op = match name {
                    "bvnand" => Op::BvAnd,
                    "bvnor" => Op::BvOr,
                    _ => Op::BvXor,
                };
                let t = self.mk(pos, op, &[*x, *y])?;
                self.mk(pos, Op::BvNot, &[t])
            }
            _ => Err(perr(pos, format!("{name}: wrong number of arguments"))),
        }
    }

    /// `(=> a b ... z)`, right associative: `a => (b => ... z)`.
    fn implies_chain(&mut self, pos: Pos, args: &[TermId]) -> PResult<TermId> {
        let Some((&last, init)) = args.split_last() else {
            return Err(perr(pos, "=> expects arguments"));
        };
        if init.is_empty() {
            return Err(perr(pos, "=> expects at least two arguments"));
        }
        let mut acc = last;
        for &a in init.iter().rev() {
            acc = self.mk(pos, Op::Implies, &[a, acc])?;
        }
        Ok(acc)
    }

    fn terms(&mut self, xs: &[SExpr]) -> PResult<Vec<TermId>> {
        xs.iter().map(|x| self.term(x)).collect()
    }

    fn let_(&mut self, pos: Pos, rest: &[SExpr]) -> PResult<TermId> {
        let [bindings, body] = rest else {
            return Err(perr(pos, "let expects bindings and a body"));
        };
        let bl = list(bindings).ok_or_else(|| perr(bindings.pos(), "expected let bindings"))?;
        let mut new = Vec::new();
        let mut new_arrays = Vec::new();
        for (name, t) in named_pairs(bl, "(name term)")? {
            match self.array(t)? {
                Some(a) => new_arrays.push((name, a)),
                None => new.push((name, self.term(t)?)),
            }
        }
        let (saved, saved_arrays) = (self.locals.len(), self.array_locals.len());
        self.locals.extend(new);
        self.array_locals.extend(new_arrays);
        let r = self.term(body);
        self.locals.truncate(saved);
        self.array_locals.truncate(saved_arrays);
        r
    }

    /// Decides the assertions plus the `assumed` literals.
    fn check_sat(&mut self, out: &mut dyn Write, assumed: &[TermId]) -> PResult<()> {
        let mut solver = Solver::new(&self.store, self.config.clone());
        let goals: Vec<TermId> = self
            .assertions
            .iter()
            .chain(assumed)
            .chain(self.functions.constraints())
            .copied()
            .collect();
        let answer = solver.check(&goals);
        let stats: Stats = solver.stats().clone();
        let status = match answer {
            Answer::Sat(m) => {
                self.model = Some(m);
                Status::Sat
            }
            Answer::Unsat => {
                self.model = None;
                Status::Unsat
            }
            Answer::Unknown => {
                self.model = None;
                Status::Unknown
            }
        };
        writeln!(out, "{status}")?;
        if let (true, Some(method), Status::Sat | Status::Unsat) =
            (self.config.method, stats.method(), status)
        {
            writeln!(out, "; {status} ({method})")?;
        }
        if self.config.stats {
            for line in stats.to_string().lines() {
                writeln!(out, "; {line}")?;
            }
        }
        self.summary.answers.push(status);
        self.summary.stats.absorb(&stats);
        Ok(())
    }

    fn current_model(&self) -> Option<Model> {
        let mut m = self.model.clone()?;
        let zeros = Model::zeros(&self.store);
        m.values
            .extend_from_slice(&zeros.values[m.values.len().min(zeros.values.len())..]);
        Some(m)
    }

    fn get_model(&mut self, out: &mut dyn Write) -> PResult<()> {
        let Some(m) = self.current_model() else {
            writeln!(
                out,
                "(error \"no model available: the last check-sat did not answer sat\")"
            )?;
            return Ok(());
        };
        writeln!(out, "(")?;
        for (name, t) in &self.declared {
            let Op::Var(v) = self.store.get(*t).op else {
                continue;
            };
            let value = m.values[v.index()];
            writeln!(
                out,
                "  (define-fun {} () {} {})",
                print_symbol(name),
                self.store.sort(*t),
                value
            )?;
        }
        self.functions.write_model(&self.store, &m, out)?;
        writeln!(out, ")")?;
        Ok(())
    }

    fn get_value(&mut self, pos: Pos, args: &[SExpr], out: &mut dyn Write) -> PResult<()> {
        let [ts] = args else {
            return Err(perr(pos, "get-value expects a list of terms"));
        };
        let ts = list(ts).ok_or_else(|| perr(ts.pos(), "get-value expects a list of terms"))?;
        let Some(m) = self.current_model() else {
            writeln!(
                out,
                "(error \"no model available: the last check-sat did not answer sat\")"
            )?;
            return Ok(());
        };
        let mut parts = Vec::new();
        for e in ts {
            let t = self.term(e)?;
            let v = eval_term(&self.store, t, &m).unwrap_or(Value::zero(self.store.sort(t)));
            parts.push(format!("({e} {v})"));
        }
        writeln!(out, "({})", parts.join(" "))?;
        Ok(())
    }
}

/// A real literal: negative, numerator, denominator.
type Real = (bool, BigUint, BigUint);

/// `Some(real)` when `e` is a real literal: a numeral, a decimal, `(- lit)` or
/// `(/ lit lit)`.
fn real_literal(e: &SExpr) -> PResult<Option<Real>> {
    match e {
        SExpr::Atom(Atom::Numeral(s) | Atom::Decimal(s), p) => ieee::parse_real(s)
            .map(Some)
            .ok_or_else(|| perr(*p, format!("bad real literal {s}"))),
        SExpr::List(items, p) => match items.as_slice() {
            [m, x] if m.symbol() == Some("-") => match real_literal(x)? {
                Some((neg, n, d)) => Ok(Some((!neg, n, d))),
                None => Err(perr(*p, "expected a real literal after '-'")),
            },
            [d, x, y] if d.symbol() == Some("/") => match (real_literal(x)?, real_literal(y)?) {
                (Some((nx, a, b)), Some((ny, c, d))) if !c.is_zero() => {
                    Ok(Some((nx != ny, a * d, b * c)))
                }
                _ => Err(perr(*p, "expected a quotient of non-zero real literals")),
            },
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// `e` with the symbols of `bound` replaced (a `define-sort` body applied).
fn substitute(e: &SExpr, bound: &HashMap<&str, &SExpr>) -> SExpr {
    match e {
        SExpr::List(items, p) => {
            SExpr::List(items.iter().map(|i| substitute(i, bound)).collect(), *p)
        }
        _ => match e.symbol().and_then(|s| bound.get(s)) {
            Some(arg) => (*arg).clone(),
            None => e.clone(),
        },
    }
}

fn print_symbol(name: &str) -> String {
    let simple = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c));
    if simple {
        name.to_string()
    } else {
        format!("|{name}|")
    }
}
