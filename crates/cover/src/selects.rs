//! `select` instructions as branch sites.
//!
//! clang turns a conditional expression whose arms are cheap (`u.i >> 63 ? -0.0 : 1`)
//! into a `select` even at `-O0`, while gcc at `-O0` (and so gcov) compiles it as a
//! branch. Left alone, a side of such a `?:` is a branch gcov counts and the search never
//! aims at. [`split_selects`] rewrites every `select` with a non-constant condition in
//! the given functions into a conditional branch to a new join block whose parameter is
//! the select's result: the program computes the same values, and the new branch is a
//! site like any other. The new sites are numbered after the module's existing ones, so
//! every existing site keeps its id.

use fpir::{BlockCall, BlockData, BranchSite, Func, InstKind, Module, SiteIndexError, Terminator};

/// Splits the `select`s of `funcs` into branches (see the module docs) and re-indexes the
/// sites. Returns the number of new branch sites; sites numbered at or above the
/// module's previous site count are selects.
pub fn split_selects(module: &mut Module, funcs: &[Func]) -> Result<usize, SiteIndexError> {
    let mut next_site = module.branch_sites.len() as u32;
    let first_site = next_site;
    for &fid in funcs {
        if module.funcs.get(fid).is_none() {
            continue;
        }
        let func = &mut module.funcs[fid];
        let constant: std::collections::HashSet<fpir::Reg> =
            func.consts.iter().map(|(r, _)| *r).collect();
        let mut todo: Vec<fpir::Block> = func.blocks.keys().collect();
        while let Some(b) = todo.pop() {
            let block = &func.blocks[b];
            let found = block.insts.iter().position(|inst| {
                matches!(&inst.kind, InstKind::Select { cond, .. } if !constant.contains(cond))
                    && inst.dest.is_some()
            });
            let Some(i) = found else { continue };
            let block = &mut func.blocks[b];
            let mut rest = block.insts.split_off(i);
            let mut rest_locs = if block.locs.len() > i {
                block.locs.split_off(i)
            } else {
                Vec::new()
            };
            let select = rest.remove(0);
            let loc = if rest_locs.is_empty() {
                None
            } else {
                rest_locs.remove(0)
            };
            let (
                InstKind::Select {
                    cond,
                    if_true,
                    if_false,
                    ..
                },
                Some(dest),
            ) = (select.kind, select.dest)
            else {
                continue;
            };
            let join = BlockData {
                params: vec![dest],
                insts: rest,
                locs: rest_locs,
                term: std::mem::replace(&mut block.term, Terminator::Unreachable),
                term_loc: block.term_loc,
            };
            let join = func.blocks.push(join);
            let block = &mut func.blocks[b];
            block.term = Terminator::Br {
                cond,
                then_to: BlockCall {
                    block: join,
                    args: vec![if_true],
                },
                else_to: BlockCall {
                    block: join,
                    args: vec![if_false],
                },
                site: BranchSite(next_site),
            };
            block.term_loc = loc;
            next_site += 1;
            todo.push(join);
        }
    }
    module.index_sites()?;
    Ok((next_site - first_site) as usize)
}
