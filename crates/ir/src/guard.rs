//! Trap guards: every instruction that traps on some inputs gets a branch that says when.
//!
//! A search that stops once every branch side is taken finds crashes only by luck.
//! [`add_trap_guards`] puts an explicit conditional branch before each instruction that may
//! trap, whose true side (`brN:trap`) holds exactly when the instruction is about to trap,
//! decided by a comparison that branch distances measure (as FPGen injects its
//! precision-loss checks as branches). Searches then aim at faults as they aim at sides:
//!
//! - `udiv`/`sdiv`/`urem`/`srem` whose divisor is not a nonzero constant:
//!   `divisor == 0` ([`TrapCheck::DivByZero`]); the signed ones also
//!   `(lhs ^ MIN) | (rhs ^ -1) == 0` ([`TrapCheck::DivOverflow`]).
//! - Loads and stores ([`TrapCheck::OutOfBounds`]). When the address is a global or a
//!   fixed-size `alloca` plus constant and variable offsets, the guard computes the byte
//!   offset from the index registers and compares it, unsigned, with the last offset an
//!   access of its size may start at: a comparison on the program's own integers, which a
//!   solver decides exactly. It sits before the address arithmetic when the indices allow,
//!   because the concolic semantics concretizes symbolic address indices. Any other address
//!   (a pointer parameter, a loaded or allocated pointer) is measured at run time:
//!   `access_slack(addr, size) < 0` ([`Builtin::AccessSlack`]). Accesses at constant
//!   offsets inside a global or an `alloca` (the locals of `-O0` code) cannot trap and get
//!   no guard. The bulk builtins (`memcpy`, `memmove`, `memset`) get a run-time guard
//!   per range they touch, over their length.
//!
//! A guard's safe side jumps to a new block holding the rest of the original block, and
//! so does its trap side, except for a static bounds check, whose trap side goes to a
//! block that traps with [`Builtin::BoundsFault`] (the access itself might land in
//! another object and not trap). Every run that does not trap computes what it computed
//! before, and a run takes a guard's trap side exactly when it then traps. Guard sites
//! are numbered after every other branch site, so the names of the existing sides do not
//! change.

use crate::entities::{Block, BranchSite, Func, Reg};
use crate::inst::{
    BlockCall, Builtin, Callee, CastOp, IndexTerm, Inst, InstKind, IntBinOp, IntPred, Terminator,
    TrapCheck,
};
use crate::module::{AddrBase, BlockData, Const, Function, Module, SiteIndexError, SrcLoc};
use crate::types::Type;
use std::collections::{HashMap, HashSet};

/// Guards every instruction of `funcs` that may trap (see the module docs) and re-indexes
/// the module's sites; returns how many guard sites were added.
pub fn add_trap_guards(module: &mut Module, funcs: &[Func]) -> Result<usize, SiteIndexError> {
    let global_bytes: Vec<u64> = module
        .globals
        .values()
        .map(|g| g.init.len() as u64)
        .collect();
    let first_site = module.branch_sites.len() as u32;
    let mut next_site = first_site;
    for &func in funcs {
        if let Some(function) = module.funcs.get(func) {
            let guarded = Guarder::new(function, &global_bytes, &mut next_site).run();
            module.funcs[func] = guarded;
        }
    }
    module.index_sites()?;
    Ok((next_site - first_site) as usize)
}

/// What one guard tests, before it becomes instructions.
#[derive(Clone, Debug)]
enum Check {
    /// `rhs == 0` at type `ty`.
    DivByZero { ty: Type, rhs: Reg },
    /// `lhs == MIN && rhs == -1` at type `ty`.
    DivOverflow { ty: Type, lhs: Reg, rhs: Reg },
    /// `offset + sum(index * scale) >u object_bytes - size`.
    StaticBounds {
        offset: i64,
        terms: Vec<IndexTerm>,
        object_bytes: u64,
        size: u64,
    },
    /// `access_slack(addr, size) < 0`.
    DynamicBounds { addr: Reg, size: Extent },
}

/// How many bytes an access touches.
#[derive(Clone, Copy, Debug)]
enum Extent {
    /// A load or store of a scalar.
    Bytes(u64),
    /// A bulk builtin's length operand.
    Length(Reg),
}

impl Check {
    fn trap(&self) -> TrapCheck {
        match self {
            Check::DivByZero { .. } => TrapCheck::DivByZero,
            Check::DivOverflow { .. } => TrapCheck::DivOverflow,
            Check::StaticBounds { .. } | Check::DynamicBounds { .. } => TrapCheck::OutOfBounds,
        }
    }
}

/// A guard to place before instruction `before` of a block.
#[derive(Clone, Debug)]
struct Planned {
    before: usize,
    check: Check,
    loc: Option<SrcLoc>,
}

/// An address known as an object's start plus offsets.
struct StaticAddr {
    object_bytes: u64,
    offset: i64,
    terms: Vec<IndexTerm>,
    /// The address arithmetic from the object to the address, last step first.
    steps: Vec<Reg>,
}

/// How an address register is defined, as far as the guards care.
#[derive(Clone)]
enum AddrDef {
    Alloca {
        bytes: Option<u64>,
    },
    Offset {
        base: Reg,
        offset: i64,
        terms: Vec<IndexTerm>,
    },
}

/// Rewrites one function with its guards.
struct Guarder<'a> {
    func: Function,
    global_bytes: &'a [u64],
    next_site: &'a mut u32,
    consts: HashMap<Reg, Const>,
    addr_defs: HashMap<Reg, AddrDef>,
    /// Block and instruction index of every register an instruction defines.
    def_at: HashMap<Reg, (Block, usize)>,
}

impl<'a> Guarder<'a> {
    fn new(func: &Function, global_bytes: &'a [u64], next_site: &'a mut u32) -> Guarder<'a> {
        let consts: HashMap<Reg, Const> = func.consts.iter().copied().collect();
        let mut addr_defs = HashMap::new();
        let mut def_at = HashMap::new();
        for (b, block) in func.blocks.iter() {
            for (i, inst) in block.insts.iter().enumerate() {
                let Some(dest) = inst.dest else { continue };
                def_at.insert(dest, (b, i));
                let def = match &inst.kind {
                    InstKind::Alloca { size, count, .. } => AddrDef::Alloca {
                        bytes: match count {
                            None => Some(*size),
                            Some(r) => match consts.get(r) {
                                Some(Const::Bits(n)) => size.checked_mul(*n),
                                _ => None,
                            },
                        },
                    },
                    InstKind::PtrOffset {
                        base,
                        offset,
                        terms,
                    } => AddrDef::Offset {
                        base: *base,
                        offset: *offset,
                        terms: terms.clone(),
                    },
                    _ => continue,
                };
                addr_defs.insert(dest, def);
            }
        }
        Guarder {
            func: func.clone(),
            global_bytes,
            next_site,
            consts,
            addr_defs,
            def_at,
        }
    }

    fn run(mut self) -> Function {
        for b in self.func.blocks.keys().collect::<Vec<_>>() {
            let plans = self.plan_block(b);
            if !plans.is_empty() {
                self.split_block(b, plans);
            }
        }
        self.func
    }

    /// The guards block `b` needs, in the order they go.
    fn plan_block(&self, b: Block) -> Vec<Planned> {
        let block = &self.func.blocks[b];
        let mut plans = Vec::new();
        let mut seen_accesses = HashSet::new();
        for (i, inst) in block.insts.iter().enumerate() {
            let loc = block.locs.get(i).copied().flatten();
            let access = match inst.kind {
                InstKind::Load { ty, addr } | InstKind::Store { ty, addr, .. } => Some((ty, addr)),
                _ => None,
            };
            if let Some((ty, addr)) = access {
                let size = u64::from(ty.bytes().clamp(1, 8));
                if seen_accesses.insert((addr, size)) {
                    plans.extend(self.plan_access(b, i, addr, size, loc));
                }
            }
            for (addr, len) in bulk_accesses(&inst.kind) {
                plans.push(Planned {
                    before: i,
                    check: Check::DynamicBounds {
                        addr,
                        size: Extent::Length(len),
                    },
                    loc,
                });
            }
            if let InstKind::IntBin { op, ty, lhs, rhs } = inst.kind {
                for check in self.division_checks(op, ty, lhs, rhs) {
                    plans.push(Planned {
                        before: i,
                        check,
                        loc,
                    });
                }
            }
        }
        plans.sort_by_key(|p| p.before);
        plans
    }

    /// The checks an integer division or remainder needs.
    fn division_checks(&self, op: IntBinOp, ty: Type, lhs: Reg, rhs: Reg) -> Vec<Check> {
        let signed = match op {
            IntBinOp::Sdiv | IntBinOp::Srem => true,
            IntBinOp::Udiv | IntBinOp::Urem => false,
            _ => return Vec::new(),
        };
        let constant = |r: Reg| match self.consts.get(&r) {
            Some(Const::Bits(bits)) => Some(bits & ty.mask()),
            _ => None,
        };
        let mut checks = Vec::new();
        if constant(rhs).is_none_or(|d| d == 0) {
            checks.push(Check::DivByZero { ty, rhs });
        }
        let min = 1u64 << (ty.bits() - 1);
        let may_overflow =
            constant(lhs).is_none_or(|l| l == min) && constant(rhs).is_none_or(|d| d == ty.mask());
        if signed && may_overflow {
            checks.push(Check::DivOverflow { ty, lhs, rhs });
        }
        checks
    }

    /// The bounds guard of an access of `size` bytes at `addr` by instruction `i` of `b`.
    fn plan_access(
        &self,
        b: Block,
        i: usize,
        addr: Reg,
        size: u64,
        loc: Option<SrcLoc>,
    ) -> Option<Planned> {
        let Some(known) = self.static_addr(addr) else {
            return Some(Planned {
                before: i,
                check: Check::DynamicBounds {
                    addr,
                    size: Extent::Bytes(size),
                },
                loc,
            });
        };
        if known.object_bytes < size || known.terms.is_empty() {
            // A constant offset: in bounds (nothing can trap), or out of bounds whatever
            // the inputs (reaching it is a branch question, and it traps as a finding);
            // likewise an object smaller than the access.
            return None;
        }
        Some(Planned {
            before: self.static_guard_position(b, i, &known),
            check: Check::StaticBounds {
                offset: known.offset,
                terms: known.terms,
                object_bytes: known.object_bytes,
                size,
            },
            loc,
        })
    }

    /// Where a static bounds guard goes: before the first address step in the block when
    /// every index is defined before it, else just before the access.
    fn static_guard_position(&self, b: Block, access: usize, known: &StaticAddr) -> usize {
        let in_block = |r: &Reg| match self.def_at.get(r) {
            Some(&(block, i)) if block == b => Some(i),
            _ => None,
        };
        let Some(first_step) = known.steps.iter().filter_map(in_block).min() else {
            return access;
        };
        let indices_ready = known
            .terms
            .iter()
            .all(|t| in_block(&t.index).is_none_or(|i| i < first_step));
        if indices_ready {
            first_step
        } else {
            access
        }
    }

    /// `addr` as a global or fixed-size `alloca` plus offsets, when it is one.
    fn static_addr(&self, addr: Reg) -> Option<StaticAddr> {
        let mut offset = 0i64;
        let mut terms = Vec::new();
        let mut steps = Vec::new();
        let mut at = addr;
        loop {
            if let Some(Const::Addr(AddrBase::Global(g), off)) = self.consts.get(&at) {
                return Some(StaticAddr {
                    object_bytes: *self.global_bytes.get(g.0 as usize)?,
                    offset: offset.checked_add(*off)?,
                    terms,
                    steps,
                });
            }
            match self.addr_defs.get(&at)? {
                AddrDef::Alloca { bytes } => {
                    return Some(StaticAddr {
                        object_bytes: (*bytes)?,
                        offset,
                        terms,
                        steps,
                    })
                }
                AddrDef::Offset {
                    base,
                    offset: step_offset,
                    terms: step_terms,
                } => {
                    offset = offset.checked_add(*step_offset)?;
                    terms.extend_from_slice(step_terms);
                    steps.push(at);
                    at = *base;
                }
            }
        }
    }

    /// Splits block `b` before each planned guard: the block ends in the first guard's
    /// branch, whose sides both go to a new block holding the rest, and so on.
    fn split_block(&mut self, b: Block, plans: Vec<Planned>) {
        let original = std::mem::replace(&mut self.func.blocks[b], empty_block());
        let mut current = b;
        let mut segment = BlockData {
            params: original.params,
            ..empty_block()
        };
        let mut plans = plans.into_iter().peekable();
        for (i, (inst, loc)) in original.insts.into_iter().zip(original.locs).enumerate() {
            while let Some(plan) = plans.next_if(|p| p.before == i) {
                let (cond, fault) = self.emit_condition(&mut segment, &plan);
                let next = self.func.blocks.push(empty_block());
                let trap_to = match fault {
                    Some(args) => self.fault_block(args, plan.loc),
                    None => next,
                };
                segment.term = Terminator::Br {
                    cond,
                    then_to: jump_to(trap_to),
                    else_to: jump_to(next),
                    site: BranchSite(*self.next_site),
                    check: Some(plan.check.trap()),
                };
                segment.term_loc = plan.loc;
                *self.next_site += 1;
                self.func.blocks[current] = std::mem::replace(&mut segment, empty_block());
                current = next;
            }
            segment.insts.push(inst);
            segment.locs.push(loc);
        }
        segment.term = original.term;
        segment.term_loc = original.term_loc;
        self.func.blocks[current] = segment;
    }

    /// A block that traps with [`Builtin::BoundsFault`] on `args`.
    fn fault_block(&mut self, args: [Reg; 3], loc: Option<SrcLoc>) -> Block {
        self.func.blocks.push(BlockData {
            params: Vec::new(),
            insts: vec![Inst {
                dest: None,
                kind: InstKind::Call {
                    callee: Callee::Builtin(Builtin::BoundsFault),
                    args: args.to_vec(),
                },
            }],
            locs: vec![loc],
            term: Terminator::Unreachable,
            term_loc: loc,
        })
    }

    /// Appends the instructions computing `plan`'s condition to `block`; returns it and,
    /// for a static bounds check, the arguments of the fault its trap side raises (the
    /// access itself might land in another object and not trap).
    fn emit_condition(&mut self, block: &mut BlockData, plan: &Planned) -> (Reg, Option<[Reg; 3]>) {
        let mut emit = Emitter {
            func: &mut self.func,
            block,
            loc: plan.loc,
        };
        match &plan.check {
            Check::DivByZero { ty, rhs } => {
                let zero = emit.constant(*ty, 0);
                (emit.icmp(IntPred::Eq, *ty, *rhs, zero), None)
            }
            Check::DivOverflow { ty, lhs, rhs } => {
                let min = emit.constant(*ty, 1u64 << (ty.bits() - 1));
                let minus_one = emit.constant(*ty, ty.mask());
                let zero = emit.constant(*ty, 0);
                let lhs_off = emit.int_bin(IntBinOp::Xor, *ty, *lhs, min);
                let rhs_off = emit.int_bin(IntBinOp::Xor, *ty, *rhs, minus_one);
                let both = emit.int_bin(IntBinOp::Or, *ty, lhs_off, rhs_off);
                (emit.icmp(IntPred::Eq, *ty, both, zero), None)
            }
            Check::StaticBounds {
                offset,
                terms,
                object_bytes,
                size,
            } => {
                let mut sum = emit.constant(Type::I64, *offset as u64);
                for term in terms {
                    let index = emit.widen(CastOp::Sext, term.index);
                    let scale = emit.constant(Type::I64, term.scale as u64);
                    let scaled = emit.int_bin(IntBinOp::Mul, Type::I64, index, scale);
                    sum = emit.int_bin(IntBinOp::Add, Type::I64, sum, scaled);
                }
                let limit = emit.constant(Type::I64, object_bytes - size);
                let object = emit.constant(Type::I64, *object_bytes);
                let size = emit.constant(Type::I64, *size);
                let cond = emit.icmp(IntPred::Ugt, Type::I64, sum, limit);
                (cond, Some([sum, object, size]))
            }
            Check::DynamicBounds { addr, size } => {
                let size = match size {
                    Extent::Bytes(bytes) => emit.constant(Type::I64, *bytes),
                    Extent::Length(len) => emit.widen(CastOp::Zext, *len),
                };
                let slack = emit.inst(
                    Type::I64,
                    InstKind::Call {
                        callee: Callee::Builtin(Builtin::AccessSlack),
                        args: vec![*addr, size],
                    },
                );
                let zero = emit.constant(Type::I64, 0);
                (emit.icmp(IntPred::Slt, Type::I64, slack, zero), None)
            }
        }
    }
}

/// The ranges a bulk builtin reads or writes, `(address, length)`, in the order it
/// checks them: `memcpy`/`memmove` the source then the destination, `memset` the
/// destination.
fn bulk_accesses(kind: &InstKind) -> Vec<(Reg, Reg)> {
    match kind {
        InstKind::Call {
            callee: Callee::Builtin(Builtin::Memcpy | Builtin::Memmove),
            args,
        } if args.len() == 3 => vec![(args[1], args[2]), (args[0], args[2])],
        InstKind::Call {
            callee: Callee::Builtin(Builtin::Memset),
            args,
        } if args.len() == 3 => vec![(args[0], args[2])],
        _ => Vec::new(),
    }
}

fn empty_block() -> BlockData {
    BlockData {
        params: Vec::new(),
        insts: Vec::new(),
        locs: Vec::new(),
        term: Terminator::Unreachable,
        term_loc: None,
    }
}

fn jump_to(block: Block) -> BlockCall {
    BlockCall {
        block,
        args: Vec::new(),
    }
}

/// Appends instructions and constants for one guard.
struct Emitter<'f> {
    func: &'f mut Function,
    block: &'f mut BlockData,
    loc: Option<SrcLoc>,
}

impl Emitter<'_> {
    fn constant(&mut self, ty: Type, bits: u64) -> Reg {
        let reg = self.func.regs.push(ty);
        self.func.consts.push((reg, Const::Bits(bits & ty.mask())));
        reg
    }

    fn inst(&mut self, ty: Type, kind: InstKind) -> Reg {
        let dest = self.func.regs.push(ty);
        self.block.insts.push(Inst {
            dest: Some(dest),
            kind,
        });
        self.block.locs.push(self.loc);
        dest
    }

    fn int_bin(&mut self, op: IntBinOp, ty: Type, lhs: Reg, rhs: Reg) -> Reg {
        self.inst(ty, InstKind::IntBin { op, ty, lhs, rhs })
    }

    fn icmp(&mut self, pred: IntPred, ty: Type, lhs: Reg, rhs: Reg) -> Reg {
        self.inst(Type::BOOL, InstKind::Icmp { pred, ty, lhs, rhs })
    }

    /// `reg` extended to 64 bits by `op`: indices sign-extended, as address arithmetic
    /// reads them; lengths zero-extended.
    fn widen(&mut self, op: CastOp, reg: Reg) -> Reg {
        let from = self.func.regs[reg];
        if from == Type::I64 {
            return reg;
        }
        self.inst(
            Type::I64,
            InstKind::Cast {
                op,
                from,
                to: Type::I64,
                arg: reg,
            },
        )
    }
}
