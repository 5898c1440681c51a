//! Stack slots kept in registers: which `alloca`s preparation may turn into register cells
//! under a semantics whose memory holds nothing but concrete bits
//! ([`crate::Semantics::CONCRETE_MEMORY`]).
//!
//! After mem2reg, the allocas clang -O0 code keeps are address-taken locals, mostly the
//! unions of type punning (`union {double f; uint64_t i;} u = {x}; return u.i;`). Such a
//! slot behaves like a register when its address is used only as the address of loads and
//! stores that cover the whole slot: the last store's bytes are what every load reads,
//! masked to the load's type. It is promoted when
//!
//! - it allocates one element of 1 to 8 bytes, aligned to a power of two;
//! - its address register is used only as the address operand of loads and stores whose
//!   type takes exactly the slot's bytes (never stored, compared, offset, passed or
//!   returned, so no other code can reach its bytes);
//! - on every path from the alloca to a load of it, a store to it comes first (a forward
//!   must-analysis over the blocks), so no load reads bytes the slot did not get from a
//!   store since its alloca last ran.
//!
//! The alloca itself still reserves its stack bytes (see `Memory::reserve`), so every other
//! address, and the stack budget, stay what they were.
//!
//! The same walk over register reads also counts them (`read_counts`): preparation
//! leaves out the write of a fused comparison that only its branch reads.

use fpir::analysis::Cfg;
use fpir::{Callee, EntityId, Function, InstKind, Reg, Terminator};

/// How an instruction uses a register.
enum Use {
    /// As the address of a load or store of this many bytes.
    Access { bytes: usize, store: bool },
    /// Any other way.
    Other,
}

/// Calls `f` with every register `kind` reads and how.
fn inst_uses(kind: &InstKind, mut f: impl FnMut(Reg, Use)) {
    match kind {
        InstKind::IntBin { lhs, rhs, .. }
        | InstKind::FloatBin { lhs, rhs, .. }
        | InstKind::Icmp { lhs, rhs, .. }
        | InstKind::Fcmp { lhs, rhs, .. } => {
            f(*lhs, Use::Other);
            f(*rhs, Use::Other);
        }
        InstKind::Fneg { arg, .. } | InstKind::Cast { arg, .. } => f(*arg, Use::Other),
        InstKind::Select {
            cond,
            if_true,
            if_false,
            ..
        } => {
            for r in [cond, if_true, if_false] {
                f(*r, Use::Other);
            }
        }
        InstKind::Load { ty, addr } => f(
            *addr,
            Use::Access {
                bytes: ty.bytes() as usize,
                store: false,
            },
        ),
        InstKind::Store { ty, addr, value } => {
            f(*value, Use::Other);
            f(
                *addr,
                Use::Access {
                    bytes: ty.bytes() as usize,
                    store: true,
                },
            );
        }
        InstKind::Alloca { count, .. } => count.iter().for_each(|&c| f(c, Use::Other)),
        InstKind::PtrOffset { base, terms, .. } => {
            f(*base, Use::Other);
            terms.iter().for_each(|t| f(t.index, Use::Other));
        }
        InstKind::Call { callee, args } => {
            if let Callee::Indirect(r) = callee {
                f(*r, Use::Other);
            }
            args.iter().for_each(|&a| f(a, Use::Other));
        }
    }
}

/// Calls `f` with every register `term` reads.
fn term_uses(term: &Terminator, mut f: impl FnMut(Reg)) {
    match term {
        Terminator::Br { cond, .. } => f(*cond),
        Terminator::Switch { value, .. } => f(*value),
        Terminator::Ret(Some(v)) => f(*v),
        Terminator::Invoke { landing, .. } => landing.typeinfos().for_each(&mut f),
        Terminator::Ret(None) | Terminator::Unreachable | Terminator::Jump(_) => {}
    }
    for call in term.targets() {
        call.args.iter().for_each(|&a| f(a));
    }
}

/// For each register of `func`, how many times instructions and terminators read it
/// (each operand position once).
pub(crate) fn read_counts(func: &Function) -> Vec<u32> {
    let mut n = vec![0u32; func.regs.len()];
    let mut count = |r: Reg| {
        if let Some(c) = n.get_mut(r.index()) {
            *c += 1;
        }
    };
    for block in func.blocks.values() {
        for inst in &block.insts {
            inst_uses(&inst.kind, |r, _| count(r));
        }
        term_uses(&block.term, &mut count);
    }
    n
}

/// For each register of `func`, whether it is the address of an alloca that can be kept
/// in a register (see the module docs).
pub(crate) fn promotable(func: &Function) -> Vec<bool> {
    let mut size = vec![None; func.regs.len()];
    for block in func.blocks.values() {
        for inst in &block.insts {
            let (
                Some(d),
                InstKind::Alloca {
                    size: n,
                    count,
                    align,
                },
            ) = (inst.dest, &inst.kind)
            else {
                continue;
            };
            if let Some(s) = size.get_mut(d.index()) {
                let fits = count.is_none() && (1..=8).contains(n) && align.is_power_of_two();
                *s = fits.then_some(*n as usize);
            }
        }
    }
    let mut ok: Vec<bool> = size.iter().map(Option::is_some).collect();
    for block in func.blocks.values() {
        for inst in &block.insts {
            inst_uses(&inst.kind, |r, how| {
                let fits = matches!(how, Use::Access { bytes, .. } if size.get(r.index()) == Some(&Some(bytes)));
                if !fits {
                    if let Some(o) = ok.get_mut(r.index()) {
                        *o = false;
                    }
                }
            });
        }
        term_uses(&block.term, |r| {
            if let Some(o) = ok.get_mut(r.index()) {
                *o = false;
            }
        });
    }
    reject_uninitialized_loads(func, &mut ok);
    ok
}

/// Clears `ok` for every slot some load may read before a store wrote it since its alloca
/// last ran: a forward must-analysis of "stored since the alloca" over the blocks, on the
/// slots `ok` still accepts (numbered densely, so the cost follows their count rather than
/// the function's registers).
fn reject_uninitialized_loads(func: &Function, ok: &mut [bool]) {
    let slots: Vec<usize> = (0..ok.len()).filter(|&r| ok[r]).collect();
    if slots.is_empty() {
        return;
    }
    let mut dense = vec![usize::MAX; ok.len()];
    for (i, &r) in slots.iter().enumerate() {
        dense[r] = i;
    }
    let slot_of = |r: Reg| dense.get(r.index()).copied().filter(|&i| i != usize::MAX);
    let nblocks = func.blocks.len();
    let cfg = Cfg::new(func);
    // `out[b]`: slots stored on every path to the end of `b`; all slots until `b` is reached.
    let mut out = vec![vec![true; slots.len()]; nblocks];
    let mut rejected = vec![false; slots.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for (b, block) in func.blocks.iter() {
            let mut stored = vec![b != Function::ENTRY; slots.len()];
            if b != Function::ENTRY {
                for &p in cfg.preds(b) {
                    stored
                        .iter_mut()
                        .zip(&out[p.index()])
                        .for_each(|(x, &y)| *x &= y);
                }
            }
            for inst in &block.insts {
                if let (Some(i), InstKind::Alloca { .. }) =
                    (inst.dest.and_then(slot_of), &inst.kind)
                {
                    stored[i] = false;
                }
                inst_uses(&inst.kind, |r, how| match (slot_of(r), how) {
                    (Some(i), Use::Access { store: true, .. }) => stored[i] = true,
                    (Some(i), Use::Access { store: false, .. }) if !stored[i] => rejected[i] = true,
                    _ => {}
                });
            }
            if out[b.index()] != stored {
                out[b.index()] = stored;
                changed = true;
            }
        }
    }
    for (i, &r) in slots.iter().enumerate() {
        ok[r] &= !rejected[i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The promotable registers of the only function of `text`.
    fn cells(text: &str) -> Vec<u32> {
        let m = fpir::parse_module(text).expect("valid IR");
        let f = m.funcs.values().next().expect("one function");
        promotable(f)
            .iter()
            .enumerate()
            .filter_map(|(r, &p)| p.then_some(r as u32))
            .collect()
    }

    #[test]
    fn whole_slot_puns_are_promoted() {
        let text = r#"
func f0 "pun"(v0: f64, v5: i1) -> i64 {
bb0:
  v1: ptr = alloca 8 align 8
  v2: ptr = alloca 8 align 8
  store f64 v0, v1
  br v5, bb1(), bb2() @br0
bb1():
  v3: i64 = load i64 v1
  ret v3
bb2():
  store f64 v0, v2
  v4: i64 = load i64 v2
  ret v4
}
"#;
        assert_eq!(cells(text), [1, 2]);
    }

    #[test]
    fn escaping_partial_and_uninitialized_slots_stay_in_memory() {
        let text = r#"
func f0 "keep"(v0: f64, v7: i1) -> i64 {
  const v8: i32 = 7
bb0:
  v1: ptr = alloca 8 align 8
  v2: ptr = alloca 8 align 8
  v3: ptr = alloca 8 align 8
  v4: ptr = alloca 8 align 8
  store ptr v1, v2
  store i32 v8, v3
  br v7, bb1(), bb2() @br0
bb1():
  store f64 v0, v4
  jump bb2()
bb2():
  v5: i64 = load i64 v4
  v6: i64 = load i64 v2
  ret v5
}
"#;
        // v1 escapes (its address is stored), v3 takes a partial store, v4 is not stored
        // on the else path; v2 holds a pointer but is itself only a whole-slot cell.
        assert_eq!(cells(text), [2]);
    }
}
