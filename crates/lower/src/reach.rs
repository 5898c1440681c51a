//! Whether what the entry function reaches can run: lowering records its gaps (functions
//! it could not lower, globals it could not represent, globals nothing defines) and the
//! externals stand for functions nothing defines; only those the entry reaches
//! ([`fpir::analysis::Reach`]) matter, each named with the chain of references that
//! leads to it.
//!
//! - An unsupported construct the entry reaches is an error (the one closest to the
//!   entry), unless [`LoadOptions::skip_unsupported`]: then its function traps when
//!   called and counts as missing, and a global it cannot represent starts zero-filled.
//! - Missing functions and globals are an error listing every one, unless
//!   [`LoadOptions::allow_undefined`]: then they are returned for a warning, and each
//!   traps when reached.
//!
//! Without an entry function every function is an entry: unsupported constructs anywhere
//! are errors (as for a library), and missing symbols are left to trap, since no run
//! says which are used.

use crate::error::{LowerError, Missing, MissingKind, Searched};
use crate::lower::Lowered;
use crate::options::LoadOptions;
use fpir::analysis::calls::node_name;
use fpir::analysis::Reach;
use fpir::{AddrBase, Func, FuncLookup, Module};
use std::collections::HashMap;

/// Checks what `entry` (or, with `None`, every function) reaches in `lowered`; returns
/// what it may use and nothing defines, when `opts` tolerates that.
pub(crate) fn check(
    lowered: &Lowered,
    entry: Option<Func>,
    opts: &LoadOptions,
    searched: &Searched,
) -> Result<Vec<Missing>, LowerError> {
    let module = &lowered.module;
    let gaps = &lowered.gaps;
    let skeletons: HashMap<Func, &LowerError> =
        gaps.skeletons.iter().map(|(f, e)| (*f, e)).collect();
    let entries: Vec<Func> = match entry {
        Some(f) => vec![f],
        None => module.funcs.iter().map(|(f, _)| f).collect(),
    };
    let reach = Reach::entering(module, &entries, |f| !skeletons.contains_key(&f));
    if !opts.skip_unsupported {
        let unrepresentable: HashMap<AddrBase, &LowerError> = gaps
            .unrepresentable
            .iter()
            .map(|(g, e)| (AddrBase::Global(*g), e))
            .chain(skeletons.iter().map(|(f, e)| (AddrBase::Func(*f), *e)))
            .collect();
        let first = reach
            .funcs()
            .map(AddrBase::Func)
            .chain(reach.globals().map(AddrBase::Global));
        if let Some(node) = first.into_iter().find(|n| unrepresentable.contains_key(n)) {
            return Err(with_chain(
                unrepresentable[&node],
                chain_names(module, &reach, node),
            ));
        }
    }
    let Some(entry) = entry else {
        return Ok(Vec::new());
    };
    let missing = missing_symbols(lowered, &reach, &skeletons);
    if missing.is_empty() || opts.allow_undefined {
        return Ok(missing);
    }
    Err(LowerError::Undefined {
        entry: module.funcs[entry].name.clone(),
        missing,
        searched: searched.clone(),
    })
}

/// The names of the functions and globals that `entries` (or, with `None`, every
/// function) reach and nothing defines, and the entries nothing defines: what a library
/// search looks for.
pub(crate) fn wanted(lowered: &Lowered, entries: Option<&[String]>) -> Vec<String> {
    let module = &lowered.module;
    let mut undefined = Vec::new();
    let entries: Vec<Func> = match entries {
        Some(names) => names
            .iter()
            .filter_map(|name| match module.lookup_func(name) {
                FuncLookup::Found(f) => Some(f),
                FuncLookup::Ambiguous(_) => None,
                FuncLookup::Missing => {
                    undefined.push(name.clone());
                    None
                }
            })
            .collect(),
        None => module.funcs.iter().map(|(f, _)| f).collect(),
    };
    let skeletons: HashMap<Func, &LowerError> = lowered
        .gaps
        .skeletons
        .iter()
        .map(|(f, e)| (*f, e))
        .collect();
    let reach = Reach::entering(module, &entries, |f| !skeletons.contains_key(&f));
    undefined
        .into_iter()
        .chain(
            missing_symbols(lowered, &reach, &skeletons)
                .into_iter()
                .filter(|m| matches!(m.kind, MissingKind::Function | MissingKind::Global))
                .map(|m| m.name),
        )
        .collect()
}

/// The error `e` with the chain that reaches its construct.
fn with_chain(e: &LowerError, chain: Vec<String>) -> LowerError {
    match e {
        LowerError::Unsupported { what, location, .. } => LowerError::Unsupported {
            what: what.clone(),
            location: location.clone(),
            reached: chain,
        },
        LowerError::Malformed { what, location } => LowerError::Malformed {
            what: format!("{what} (reached: {})", chain.join(" → ")),
            location: location.clone(),
        },
        other => LowerError::Verify(other.to_string()),
    }
}

fn chain_names(module: &Module, reach: &Reach, node: AddrBase) -> Vec<String> {
    reach
        .chain(node)
        .into_iter()
        .map(|n| node_name(module, n).to_string())
        .collect()
}

/// Every function and global the reach uses that nothing defines, and every function
/// not lowered it reaches: functions first, each kind sorted by name.
fn missing_symbols(
    lowered: &Lowered,
    reach: &Reach,
    skeletons: &HashMap<Func, &LowerError>,
) -> Vec<Missing> {
    let module = &lowered.module;
    let mut missing: Vec<Missing> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for call in reach.external_calls() {
        let Some(name) = module.externals.get(call.external as usize) else {
            continue;
        };
        if !seen.insert(name.clone()) {
            continue;
        }
        let caller = AddrBase::Func(call.caller);
        // A stub of a declared function has no location of its own: the place that
        // takes its address says more.
        let loc = call
            .loc
            .or_else(|| reach.reference(caller).and_then(|r| r.loc));
        missing.push(Missing {
            kind: MissingKind::Function,
            name: name.clone(),
            used_at: module.describe_loc(loc),
            chain: chain_names(module, reach, caller),
        });
    }
    let undefined_globals = lowered
        .gaps
        .undefined
        .iter()
        .map(|&g| (AddrBase::Global(g), MissingKind::Global));
    let not_lowered = skeletons
        .iter()
        .map(|(&f, e)| (AddrBase::Func(f), MissingKind::NotLowered(e.to_string())));
    for (node, kind) in undefined_globals.chain(not_lowered) {
        if !reach.contains(node) {
            continue;
        }
        let used = reach.reference(node);
        missing.push(Missing {
            kind,
            name: node_name(module, node).to_string(),
            used_at: module.describe_loc(used.and_then(|r| r.loc)),
            chain: chain_names(module, reach, used.map_or(node, |r| r.from)),
        });
    }
    missing.sort_by(|a, b| {
        rank(&a.kind)
            .cmp(&rank(&b.kind))
            .then_with(|| a.name.cmp(&b.name))
    });
    missing
}

fn rank(kind: &MissingKind) -> u8 {
    match kind {
        MissingKind::Function => 0,
        MissingKind::Global => 1,
        MissingKind::NotLowered(_) => 2,
    }
}
