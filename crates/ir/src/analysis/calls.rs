//! What a run from entry functions may touch: the functions it may call and the globals
//! it may read or write, each with the shortest chain of references from an entry that
//! leads to it, for messages such as `tanh → __ieee754_tanh → finitel`.
//!
//! A function refers to the functions it calls directly and to every function and global
//! whose address it uses; a global refers to what its relocations point to (tables of
//! function pointers, pointers to other data). Only the blocks [`ConstantFacts`] finds
//! live count: code behind a branch on a constant never runs. Where an address flows is
//! not followed, so a function whose address reached code or data takes counts as called
//! (indirectly, it may be). Calls of externals are listed with their location; math
//! calls and builtins refer to nothing in the module.
//!
//! The walk is breadth-first, so the chain of each node is a shortest one.

use crate::analysis::constants::ConstantFacts;
use crate::entities::{Func, Global};
use crate::inst::{Callee, InstKind};
use crate::module::{AddrBase, Const, Function, Module, SrcLoc};
use std::collections::{HashMap, VecDeque};

/// How a function or global was first reached.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ReachedVia {
    /// The function or global that refers to it.
    pub from: AddrBase,
    /// The call, or the first instruction that uses the address; `None` for references
    /// from global data.
    pub loc: Option<SrcLoc>,
}

/// A call of an external function (one of [`Module::externals`]) from reached code.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ExternalCall {
    /// Index into [`Module::externals`].
    pub external: u32,
    /// The calling function.
    pub caller: Func,
    /// Where the call is.
    pub loc: Option<SrcLoc>,
}

/// The functions and globals reachable from some entry functions.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    /// How each reached node was first reached (`None` for the entries).
    via: HashMap<AddrBase, Option<ReachedVia>>,
    /// Reached nodes in breadth-first order.
    order: Vec<AddrBase>,
    external_calls: Vec<ExternalCall>,
}

impl Reach {
    /// Everything `entries` may touch.
    pub fn new(module: &Module, entries: &[Func]) -> Reach {
        Reach::entering(module, entries, |_| true)
    }

    /// Everything `entries` may touch when the references of a function are followed
    /// only if `enter` accepts it: a function that traps as soon as it is called refers
    /// to nothing (it is still reached).
    pub fn entering(module: &Module, entries: &[Func], enter: impl Fn(Func) -> bool) -> Reach {
        let mut reach = Reach::default();
        let mut queue = VecDeque::new();
        for &entry in entries {
            if module.funcs.get(entry).is_some() && reach.visit(AddrBase::Func(entry), None) {
                queue.push_back(AddrBase::Func(entry));
            }
        }
        while let Some(node) = queue.pop_front() {
            let refs = match node {
                AddrBase::Func(f) if enter(f) => {
                    let (refs, calls) = function_references(&module.funcs[f], f);
                    reach.external_calls.extend(calls);
                    refs
                }
                AddrBase::Func(_) => Vec::new(),
                AddrBase::Global(g) => global_references(module, g),
            };
            for (to, loc) in refs {
                if reach.visit(to, Some(ReachedVia { from: node, loc })) {
                    queue.push_back(to);
                }
            }
        }
        reach
    }

    /// Records the first way `node` is reached; false if it was reached before.
    fn visit(&mut self, node: AddrBase, via: Option<ReachedVia>) -> bool {
        if self.via.contains_key(&node) {
            return false;
        }
        self.via.insert(node, via);
        self.order.push(node);
        true
    }

    /// The reached functions, entries first, in breadth-first order.
    pub fn funcs(&self) -> impl Iterator<Item = Func> + '_ {
        self.order.iter().filter_map(|n| match n {
            AddrBase::Func(f) => Some(*f),
            AddrBase::Global(_) => None,
        })
    }

    /// The reached globals, in breadth-first order.
    pub fn globals(&self) -> impl Iterator<Item = Global> + '_ {
        self.order.iter().filter_map(|n| match n {
            AddrBase::Global(g) => Some(*g),
            AddrBase::Func(_) => None,
        })
    }

    /// True when `node` is reached.
    pub fn contains(&self, node: AddrBase) -> bool {
        self.via.contains_key(&node)
    }

    /// How `node` was first reached; `None` for an entry or a node not reached.
    pub fn reference(&self, node: AddrBase) -> Option<ReachedVia> {
        self.via.get(&node).copied().flatten()
    }

    /// The shortest chain of references from an entry to `node`, entry first; empty
    /// when `node` is not reached.
    pub fn chain(&self, node: AddrBase) -> Vec<AddrBase> {
        if !self.contains(node) {
            return Vec::new();
        }
        let mut chain = vec![node];
        let mut at = node;
        while let Some(r) = self.reference(at) {
            chain.push(r.from);
            at = r.from;
        }
        chain.reverse();
        chain
    }

    /// [`Reach::chain`] as names: `tanh → __ieee754_tanh → finitel`.
    pub fn describe_chain(&self, module: &Module, node: AddrBase) -> String {
        self.chain(node)
            .into_iter()
            .map(|n| node_name(module, n))
            .collect::<Vec<_>>()
            .join(" → ")
    }

    /// The calls of externals in reached code, in the order the walk met them.
    pub fn external_calls(&self) -> &[ExternalCall] {
        &self.external_calls
    }
}

/// The symbol name of a function or global.
pub fn node_name(module: &Module, node: AddrBase) -> &str {
    match node {
        AddrBase::Func(f) => module.funcs.get(f).map_or("?", |f| f.name.as_str()),
        AddrBase::Global(g) => module.globals.get(g).map_or("?", |g| g.name.as_str()),
    }
}

/// What the live code of `func` (function `id`) refers to, in code order with the
/// location of the first reference to each, and the externals it calls.
fn function_references(
    func: &Function,
    id: Func,
) -> (Vec<(AddrBase, Option<SrcLoc>)>, Vec<ExternalCall>) {
    let addresses: HashMap<_, _> = func
        .consts
        .iter()
        .filter_map(|(r, c)| match c {
            Const::Addr(base, _) => Some((*r, *base)),
            Const::Bits(_) => None,
        })
        .collect();
    let facts = ConstantFacts::new(func);
    let mut refs: Vec<(AddrBase, Option<SrcLoc>)> = Vec::new();
    let mut calls = Vec::new();
    let mut refer = |to: AddrBase, loc: Option<SrcLoc>| {
        if !refs.iter().any(|(seen, _)| *seen == to) {
            refs.push((to, loc));
        }
    };
    for (b, block) in func.blocks.iter() {
        if !facts.is_live(b) {
            continue;
        }
        for (inst, loc) in block.insts.iter().zip(&block.locs) {
            let loc = loc.or(func.loc);
            match &inst.kind {
                InstKind::Call {
                    callee: Callee::Direct(g),
                    ..
                } => refer(AddrBase::Func(*g), loc),
                InstKind::Call {
                    callee: Callee::External(e),
                    ..
                } => calls.push(ExternalCall {
                    external: *e,
                    caller: id,
                    loc,
                }),
                _ => {}
            }
            for r in inst.kind.operands() {
                if let Some(&to) = addresses.get(&r) {
                    refer(to, loc);
                }
            }
        }
        for r in block.term.operands() {
            if let Some(&to) = addresses.get(&r) {
                refer(to, block.term_loc.or(func.loc));
            }
        }
    }
    (refs, calls)
}

/// What the relocations of global `g` point to.
fn global_references(module: &Module, g: Global) -> Vec<(AddrBase, Option<SrcLoc>)> {
    module.globals.get(g).map_or(Vec::new(), |data| {
        data.relocs.iter().map(|r| (r.target, None)).collect()
    })
}

impl Module {
    /// Functions reachable from `entry` (see [`Reach`]), `entry` first.
    pub fn reachable_funcs(&self, entry: Func) -> Vec<Func> {
        Reach::new(self, &[entry]).funcs().collect()
    }

    /// Names of unresolved external functions that `entry` may call, sorted.
    pub fn unresolved_from(&self, entry: Func) -> Vec<String> {
        let mut names: Vec<String> = Reach::new(self, &[entry])
            .external_calls()
            .iter()
            .filter_map(|c| self.externals.get(c.external as usize).cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}
