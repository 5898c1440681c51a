//! Uninterpreted functions and arrays, reduced to the store's theory.
//!
//! A declared function `f` (or array `a`, a function of its index) never becomes a
//! term: each application `f(t1 .. tn)` with new argument terms is a fresh variable
//! of the result sort, and Ackermann's constraints make the fresh variables a
//! function of the arguments' values (`(=> (and (= s1 t1) ..) (= f(s) f(t)))` for
//! every earlier application), with SMT-LIB `=` (one NaN, `+0` distinct from `-0`).
//! Array terms (`store`, `ite` over arrays, `(as const ...)`) are [`ArrayTerm`]s:
//! `select` eliminates them by read-over-write down to applications of base arrays.
//! The constraints are asserted with every check, so a model of the reduced
//! assertions, which the evaluator checks, gives each function a table of values
//! printed as SMT-LIB does: an `ite` chain for a function, a `store` chain over a
//! constant array for an array.

use std::io::{self, Write};

use crate::eval::{eval_term, Model, Value};
use crate::sort::Sort;
use crate::term::{Op, TermError, TermId, TermStore};

/// Whether a declared symbol is a function or an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `(declare-fun f (S1 .. Sn) S)`.
    Function,
    /// `(declare-const a (Array I E))`.
    Array,
}

/// One application with new arguments: its argument terms and its fresh variable.
#[derive(Clone, Debug)]
struct Application {
    args: Vec<TermId>,
    value: TermId,
}

/// A declared function or array and its applications so far.
#[derive(Clone, Debug)]
pub(super) struct Function {
    name: String,
    kind: Kind,
    params: Vec<Sort>,
    result: Sort,
    apps: Vec<Application>,
}

impl Function {
    /// Whether this is an array.
    pub(super) fn is_array(&self) -> bool {
        self.kind == Kind::Array
    }
}

/// Every declared function and array, and the constraints their applications need.
#[derive(Clone, Debug, Default)]
pub(super) struct Functions {
    funs: Vec<Function>,
    constraints: Vec<TermId>,
}

/// An array-valued term, kept out of the store.
#[derive(Clone, Debug)]
pub(super) enum ArrayTerm {
    /// A declared array (an index of [`Functions`]).
    Base(usize),
    /// `(store a i v)`.
    Store(Box<ArrayTerm>, TermId, TermId),
    /// `(ite c a b)`.
    Ite(TermId, Box<ArrayTerm>, Box<ArrayTerm>),
    /// `((as const (Array I E)) v)`: index sort and value.
    Const(Sort, TermId),
}

impl Functions {
    /// Declares a function (or array) `name`; returns its index.
    pub(super) fn declare(
        &mut self,
        name: &str,
        kind: Kind,
        params: Vec<Sort>,
        result: Sort,
    ) -> usize {
        self.funs.push(Function {
            name: name.to_string(),
            kind,
            params,
            result,
            apps: Vec::new(),
        });
        self.funs.len() - 1
    }

    /// The function with index `f`.
    pub(super) fn get(&self, f: usize) -> &Function {
        &self.funs[f]
    }

    /// The constraints every check must assert.
    pub(super) fn constraints(&self) -> &[TermId] {
        &self.constraints
    }

    /// The term of `f(args)`: the fresh variable of an earlier application to the
    /// same terms, or a new one with Ackermann's constraints against the others.
    pub(super) fn apply(
        &mut self,
        store: &mut TermStore,
        f: usize,
        args: &[TermId],
    ) -> Result<TermId, TermError> {
        let fun = &self.funs[f];
        let sorts: Vec<Sort> = args.iter().map(|&a| store.sort(a)).collect();
        if sorts != fun.params {
            return Err(TermError::Width(format!(
                "{} expects arguments of sorts {:?}, got {sorts:?}",
                fun.name, fun.params
            )));
        }
        if let Some(app) = fun.apps.iter().find(|a| a.args == args) {
            return Ok(app.value);
        }
        let value = store.declare(&format!("{}!{}", fun.name, fun.apps.len()), fun.result);
        let earlier = fun.apps.clone();
        for app in earlier {
            let mut same_args = store.bool_const(true);
            for (&a, &b) in app.args.iter().zip(args) {
                let eq = store.mk(Op::Eq, &[a, b])?;
                same_args = store.mk(Op::And, &[same_args, eq])?;
            }
            let same_value = store.mk(Op::Eq, &[app.value, value])?;
            self.constraints
                .push(store.mk(Op::Implies, &[same_args, same_value])?);
        }
        self.funs[f].apps.push(Application {
            args: args.to_vec(),
            value,
        });
        Ok(value)
    }

    /// `(select a i)` by read-over-write: a store at `j` gives `(ite (= i j) v ..)`,
    /// an `ite` of arrays the `ite` of the selects, a constant array its value, a
    /// declared array its application to `i`.
    pub(super) fn select(
        &mut self,
        store: &mut TermStore,
        a: &ArrayTerm,
        i: TermId,
    ) -> Result<TermId, TermError> {
        match a {
            ArrayTerm::Base(f) => self.apply(store, *f, &[i]),
            ArrayTerm::Store(inner, j, v) => {
                let rest = self.select(store, inner, i)?;
                let hit = store.mk(Op::Eq, &[i, *j])?;
                store.mk(Op::Ite, &[hit, *v, rest])
            }
            ArrayTerm::Ite(c, x, y) => {
                let x = self.select(store, x, i)?;
                let y = self.select(store, y, i)?;
                store.mk(Op::Ite, &[*c, x, y])
            }
            ArrayTerm::Const(index, v) => {
                if store.sort(i) != *index {
                    return Err(TermError::Width(format!(
                        "select: index of sort {}, expected {index}",
                        store.sort(i)
                    )));
                }
                Ok(*v)
            }
        }
    }

    /// Writes the model's table of every function and array as `define-fun`s.
    pub(super) fn write_model(
        &self,
        store: &TermStore,
        model: &Model,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        for fun in &self.funs {
            let table = self.table(store, model, fun);
            let default = table.first().map_or(Value::zero(fun.result), |(_, v)| *v);
            match fun.kind {
                Kind::Array => {
                    let sort = format!("(Array {} {})", fun.params[0], fun.result);
                    let mut body = format!("((as const {sort}) {default})");
                    for (args, v) in table.iter().rev() {
                        body = format!("(store {body} {} {v})", args[0]);
                    }
                    writeln!(out, "  (define-fun {} () {sort} {body})", fun.name)?;
                }
                Kind::Function => {
                    let params: Vec<String> = fun
                        .params
                        .iter()
                        .enumerate()
                        .map(|(k, s)| format!("(x!{k} {s})"))
                        .collect();
                    let mut body = default.to_string();
                    for (args, v) in table.iter().rev() {
                        let tests: Vec<String> = args
                            .iter()
                            .enumerate()
                            .map(|(k, a)| format!("(= x!{k} {a})"))
                            .collect();
                        let test = match tests.as_slice() {
                            [one] => one.clone(),
                            _ => format!("(and {})", tests.join(" ")),
                        };
                        body = format!("(ite {test} {v} {body})");
                    }
                    writeln!(
                        out,
                        "  (define-fun {} ({}) {} {body})",
                        fun.name,
                        params.join(" "),
                        fun.result
                    )?;
                }
            }
        }
        Ok(())
    }

    /// The distinct argument values of `fun`'s applications under `model`, each with
    /// its result.
    fn table(&self, store: &TermStore, model: &Model, fun: &Function) -> Vec<(Vec<Value>, Value)> {
        let value = |t: TermId| eval_term(store, t, model).unwrap_or(Value::zero(store.sort(t)));
        let mut table: Vec<(Vec<Value>, Value)> = Vec::new();
        for app in &fun.apps {
            let args: Vec<Value> = app.args.iter().map(|&a| value(a)).collect();
            let seen = table
                .iter()
                .any(|(b, _)| b.iter().zip(&args).all(|(x, y)| x.same(y)));
            if !seen {
                table.push((args, value(app.value)));
            }
        }
        table
    }
}
