//! The pre-decoded form the driver executes: one flat op array per function.
//!
//! Preparation runs once per interpreter. It lays each function's blocks out back to back
//! (a block is its instructions followed by its terminator; a jump that moves nothing to a
//! block not yet placed is dropped and the target placed right behind, so control falls
//! through), threads jumps through blocks that only jump on, fuses a comparison with the
//! branch on its result into one op, turns block ids into program
//! counters, registers into frame-relative `u32` slots, jump arguments into move lists
//! (marked when they need a parallel copy; an unconditional jump moving one to three
//! registers carries its moves itself, `Op::JumpMove1..3`), switch cases into sorted tables, resolves
//! constant addresses against the memory layout, and inlines calls of small branch-free
//! leaves (`FuncBuilder::inline_target`). When memory holds only concrete bits, it also
//! keeps the stack slots `promote` picks in registers (`AllocaCell`, `LoadCell`, stores
//! as `Move`s) and turns loads from read-only globals at constant addresses into copies
//! of constant registers (`FuncBuilder::folded_load`). It also checks every invariant the
//! driver relies on to index without panicking (register, block, function and external
//! ids in range, argument counts, code ending in a terminator, edges and moves in range),
//! so a malformed module fails in
//! [`crate::Interpreter::new`] with [`ExecError::InvalidModule`] instead of at run time.

use crate::memory::{func_addr, Memory};
use crate::promote::{promotable, read_counts};
use crate::trap::ExecError;
use fpir::{
    AddrBase, Block, BlockCall, BranchSite, Builtin, Callee, CastOp, Const, EntityId, FloatBinOp,
    FloatPred, FloatTy, Func, Function, InstKind, IntBinOp, IntPred, MathCall, MathShape, Module,
    OpSite, SrcLoc, Terminator, Type,
};

/// A frame-relative register slot.
pub(crate) type Slot = u32;

/// "No register" in optional slot positions.
pub(crate) const NONE: Slot = u32::MAX;

/// One executable operation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Iadd {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Isub {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Imul {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Udiv {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Sdiv {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Urem {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Srem {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Shl {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Lshr {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Ashr {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Band {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Bor {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Bxor {
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Fadd {
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Fsub {
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Fmul {
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Fdiv {
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Frem {
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    // Specializations of the ops above at their most common types, so the semantics
    // sees a constant type (see `specialize`).
    Iadd32 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Iadd64 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Isub32 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Isub64 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Imul32 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Imul64 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Fadd64 {
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Fsub64 {
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Fmul64 {
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Fdiv64 {
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    },
    Sext32To64 {
        d: Slot,
        a: Slot,
    },
    Trunc64To32 {
        d: Slot,
        a: Slot,
    },
    Zext32To64 {
        d: Slot,
        a: Slot,
    },
    Shl64 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Lshr64 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Lshr32 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Band64 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Bor64 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Band32 {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    LoadF64 {
        d: Slot,
        addr: Slot,
    },
    LoadI64 {
        d: Slot,
        addr: Slot,
    },
    StoreF64 {
        addr: Slot,
        val: Slot,
    },
    StoreI64 {
        addr: Slot,
        val: Slot,
    },
    Sitofp32To64 {
        d: Slot,
        a: Slot,
    },
    /// `PtrOffset` with exactly one index term.
    PtrOffset1 {
        d: Slot,
        base: Slot,
        index: Slot,
        index_ty: Type,
        offset: i64,
        scale: i64,
    },
    // A fused comparison and branch (`IcmpBr`/`FcmpBr`) at one of the most common types
    // and predicates, so that neither the semantics nor the dispatch looks at either,
    // whose result no other op reads (see `CmpBr`).
    IcmpBrEq64(CmpBr),
    IcmpBrNe64(CmpBr),
    IcmpBrUlt64(CmpBr),
    IcmpBrUle64(CmpBr),
    IcmpBrUgt64(CmpBr),
    IcmpBrUge64(CmpBr),
    IcmpBrSlt64(CmpBr),
    IcmpBrSle64(CmpBr),
    IcmpBrSgt64(CmpBr),
    IcmpBrSge64(CmpBr),
    IcmpBrEq32(CmpBr),
    IcmpBrNe32(CmpBr),
    IcmpBrUlt32(CmpBr),
    IcmpBrUle32(CmpBr),
    IcmpBrUgt32(CmpBr),
    IcmpBrUge32(CmpBr),
    IcmpBrSlt32(CmpBr),
    IcmpBrSle32(CmpBr),
    IcmpBrSgt32(CmpBr),
    IcmpBrSge32(CmpBr),
    FcmpBrOeq64(CmpBr),
    FcmpBrUne64(CmpBr),
    FcmpBrOlt64(CmpBr),
    FcmpBrOle64(CmpBr),
    FcmpBrOgt64(CmpBr),
    FcmpBrOge64(CmpBr),
    /// `FcmpBr` at `f64` with the other predicates or a result read elsewhere.
    FcmpBr64 {
        pred: FloatPred,
        d: Slot,
        a: Slot,
        b: Slot,
        then_edge: u32,
        else_edge: u32,
        site: BranchSite,
    },
    Fneg {
        ty: FloatTy,
        d: Slot,
        a: Slot,
    },
    Icmp {
        pred: IntPred,
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Fcmp {
        pred: FloatPred,
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Trunc {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Zext {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Sext {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Fptrunc {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Fpext {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Fptoui {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Fptosi {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Uitofp {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Sitofp {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Ptrtoint {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Inttoptr {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Bitcast {
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    },
    Select {
        ty: Type,
        d: Slot,
        c: Slot,
        t: Slot,
        f: Slot,
    },
    Load {
        ty: Type,
        d: Slot,
        addr: Slot,
    },
    Store {
        ty: Type,
        addr: Slot,
        val: Slot,
    },
    /// `count` is `NONE` for a single element.
    Alloca {
        d: Slot,
        size: u64,
        count: Slot,
        count_ty: Type,
        align: u32,
    },
    /// Terms are `terms[start..start + len]`.
    PtrOffset {
        d: Slot,
        base: Slot,
        offset: i64,
        start: u32,
        len: u32,
    },
    /// Arguments are `args[start..start + len]`.
    Call {
        func: u32,
        d: Slot,
        start: u32,
        len: u32,
    },
    CallIndirect {
        target: Slot,
        d: Slot,
        start: u32,
        len: u32,
    },
    Math {
        call: MathCall,
        site: OpSite,
        ret: Type,
        d: Slot,
        start: u32,
        len: u32,
    },
    /// `ty` is the type of the first argument (or of the result when there is none).
    Builtin {
        b: Builtin,
        ty: Type,
        d: Slot,
        start: u32,
        len: u32,
    },
    External {
        index: u32,
    },
    Jump {
        edge: u32,
    },
    /// A jump that copies one to three registers into the target block's parameters:
    /// target pc and moves in the op itself, so the driver skips the edge table. All
    /// sources are read before any destination is written (a parallel copy).
    JumpMove1 {
        pc: u32,
        d: Slot,
        a: Slot,
    },
    JumpMove2 {
        pc: u32,
        d: [Slot; 2],
        a: [Slot; 2],
    },
    JumpMove3 {
        pc: u32,
        d: [Slot; 3],
        a: [Slot; 3],
    },
    /// `lhs`/`rhs` are the deciding comparison's operands (`NONE` when unknown).
    Br {
        cond: Slot,
        then_edge: u32,
        else_edge: u32,
        site: BranchSite,
        lhs: Slot,
        rhs: Slot,
    },
    /// An `icmp` immediately followed by the `br` on its result (writes `d` too).
    IcmpBr {
        pred: IntPred,
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
        then_edge: u32,
        else_edge: u32,
        site: BranchSite,
    },
    /// An `fcmp` immediately followed by the `br` on its result (writes `d` too).
    FcmpBr {
        pred: FloatPred,
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
        then_edge: u32,
        else_edge: u32,
        site: BranchSite,
    },
    Switch {
        ty: Type,
        value: Slot,
        table: u32,
        site: BranchSite,
    },
    Ret {
        value: Slot,
    },
    Unreachable,
    /// Copies a register (the result of an inlined call that returns a parameter or a
    /// constant, a store to a register cell, a folded load).
    Move {
        d: Slot,
        a: Slot,
    },
    /// Does nothing: the return of an inlined call whose parameter or constant result is
    /// not used, kept so that it costs the step it did.
    Nop,
    /// `llvm.stacksave` (around inlined bodies with allocas).
    StackSave {
        d: Slot,
    },
    /// `llvm.stackrestore` (around inlined bodies with allocas).
    StackRestore {
        a: Slot,
    },
    /// An `alloca` kept in a register (see `promote`): reserves its stack bytes only.
    /// Stores to it become `Move`s into its register.
    AllocaCell {
        size: u64,
        align: u32,
    },
    /// A load from an `alloca` kept in register `cell`.
    LoadCell {
        ty: Type,
        d: Slot,
        cell: Slot,
    },
    /// `LoadCell` at `i64` and `f64`, whose loads mask nothing (the type punning of
    /// `double`s through their bits).
    LoadCellI64 {
        d: Slot,
        cell: Slot,
    },
    LoadCellF64 {
        d: Slot,
        cell: Slot,
    },
}

/// The operands of a fused comparison and branch specialized to its type and predicate:
/// the comparison `a PRED b` decides between the two edges. Only a comparison that
/// nothing but its branch reads is specialized, so the result is not written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CmpBr {
    pub a: Slot,
    pub b: Slot,
    pub then_edge: u32,
    pub else_edge: u32,
    pub site: BranchSite,
}

/// Marks an edge operand that is a target pc itself (an edge without moves) rather than
/// an index into [`FuncCode::edges`].
pub(crate) const DIRECT: u32 = 1 << 31;

/// A control-flow edge: target pc and the block-parameter moves `(dst, src)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub pc: u32,
    pub moves_start: u32,
    pub moves_len: u32,
    /// True when a destination is read by a later move, so the copy needs a temporary.
    pub parallel: bool,
}

/// A switch: cases sorted by value (first in source order wins), default edge.
#[derive(Clone, Debug)]
pub(crate) struct SwitchTable {
    /// `(value, case index in source order, edge)`.
    pub cases: Vec<(u64, u32, u32)>,
    pub default: u32,
}

/// A constant register's resolved value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConstSlot {
    pub slot: Slot,
    pub ty: Type,
    pub bits: u64,
}

/// One function, ready to run.
#[derive(Clone, Debug)]
pub(crate) struct FuncCode {
    pub code: Vec<Op>,
    pub locs: Vec<Option<SrcLoc>>,
    /// The function each op comes from: this one, or an inlined callee (for traps).
    pub owners: Vec<Func>,
    /// For an op of an inlined callee, where this function calls it (a trap's stack
    /// shows the call as if it were a frame).
    pub inlined_at: Vec<Option<SrcLoc>>,
    pub nregs: u32,
    pub reg_types: Vec<Type>,
    pub params: Vec<Slot>,
    pub consts: Vec<ConstSlot>,
    pub args: Vec<Slot>,
    /// `(index slot, index type, scale)`.
    pub terms: Vec<(Slot, Type, i64)>,
    pub edges: Vec<Edge>,
    pub moves: Vec<(Slot, Slot)>,
    pub switches: Vec<SwitchTable>,
    /// The landing pads of the calls that end a block before a [`Terminator::Invoke`],
    /// by the pc of the call op, in pc order; calls that cannot raise (see [`may_raise`])
    /// have none, so that a function whose pads only guard constructors and guards of
    /// statics stays compilable (calls inlined are leaves and raise nothing either).
    pub landings: Vec<(u32, LandingCode)>,
}

/// Where an exception raised by a call goes (see [`fpir::Landing`]).
#[derive(Clone, Debug)]
pub(crate) struct LandingCode {
    /// The edge to the landing pad.
    pub edge: u32,
    /// Slot of the exception object's address.
    pub exception: Slot,
    /// Slot of the selector.
    pub selector: Slot,
    /// `(typeinfo slot or NONE for a catch-all, selector)`, in order.
    pub clauses: Vec<(Slot, u32)>,
    /// Whether the pad runs for exceptions no clause catches.
    pub cleanup: bool,
}

impl FuncCode {
    /// The landing of the call op at `pc`, if it has one.
    pub fn landing_at(&self, pc: usize) -> Option<&LandingCode> {
        let i = self
            .landings
            .binary_search_by_key(&pc, |&(at, _)| at as usize)
            .ok()?;
        Some(&self.landings[i].1)
    }
}

/// The whole module, ready to run.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub funcs: Vec<FuncCode>,
}

/// Per function, whether a call of it may raise a C++ exception: it raises one
/// ([`Builtin::Unwind`]), calls through a pointer, or calls a function that may (a
/// fixed point over the call graph; a pad that catches everything is not credited).
fn may_raise(module: &Module) -> Vec<bool> {
    let calls = |f: &Function| -> Vec<Option<Func>> {
        f.blocks
            .values()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match &i.kind {
                InstKind::Call {
                    callee: Callee::Direct(g),
                    ..
                } => Some(Some(*g)),
                InstKind::Call {
                    callee: Callee::Indirect(_) | Callee::Builtin(Builtin::Unwind),
                    ..
                } => Some(None),
                _ => None,
            })
            .collect()
    };
    let callees: Vec<Vec<Option<Func>>> = module.funcs.values().map(calls).collect();
    let mut raises = vec![false; callees.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for (f, called) in callees.iter().enumerate() {
            if !raises[f]
                && called
                    .iter()
                    .any(|c| c.is_none_or(|g| raises.get(g.index()).copied().unwrap_or(true)))
            {
                raises[f] = true;
                changed = true;
            }
        }
    }
    raises
}

/// Prepares every function of `module` against the memory layout `mem`. When `promote`
/// is set (memory holds concrete bits only), the stack slots that allow it are kept in
/// registers (see `promote`) and loads from read-only globals at constant addresses
/// become copies of constant registers.
pub(crate) fn prepare(module: &Module, mem: &Memory, promote: bool) -> Result<Program, ExecError> {
    let cells: Vec<Vec<bool>> = module
        .funcs
        .values()
        .map(|f| if promote { promotable(f) } else { Vec::new() })
        .collect();
    let raises = may_raise(module);
    let funcs = module
        .funcs
        .iter()
        .map(|(id, f)| FuncBuilder::new(module, mem, &cells, &raises, promote, id, f).build())
        .collect::<Result<_, _>>()?;
    Ok(Program { funcs })
}

struct FuncBuilder<'a> {
    module: &'a Module,
    mem: &'a Memory,
    /// Per function, per register: an alloca kept in a register (empty: none).
    cells: &'a [Vec<bool>],
    /// Per function, whether a call of it may raise a C++ exception ([`may_raise`]).
    raises: &'a [bool],
    /// Memory holds concrete bits only (`Semantics::CONCRETE_MEMORY`): loads from
    /// read-only globals at constant addresses are folded.
    concrete_memory: bool,
    id: Func,
    func: &'a Function,
    block_pcs: Vec<u32>,
    /// While an inlined body is emitted: the slot of each of the callee's registers.
    rename: Option<Vec<Slot>>,
    /// Callees inlined so far and the first slot of their registers in this frame.
    inlined: Vec<(Func, Slot)>,
    /// While an inlined body is emitted: the location of its call.
    inline_site: Option<SrcLoc>,
    out: FuncCode,
}

/// Largest body (instructions) inlined at a call site.
const INLINE_MAX_INSTS: usize = 12;

impl<'a> FuncBuilder<'a> {
    fn new(
        module: &'a Module,
        mem: &'a Memory,
        cells: &'a [Vec<bool>],
        raises: &'a [bool],
        concrete_memory: bool,
        id: Func,
        func: &'a Function,
    ) -> Self {
        FuncBuilder {
            module,
            mem,
            cells,
            raises,
            concrete_memory,
            id,
            func,
            block_pcs: Vec::new(),
            rename: None,
            inlined: Vec::new(),
            inline_site: None,
            out: FuncCode {
                code: Vec::new(),
                locs: Vec::new(),
                owners: Vec::new(),
                inlined_at: Vec::new(),
                nregs: 0,
                reg_types: func.regs.values().copied().collect(),
                params: Vec::new(),
                consts: Vec::new(),
                args: Vec::new(),
                terms: Vec::new(),
                edges: Vec::new(),
                moves: Vec::new(),
                switches: Vec::new(),
                landings: Vec::new(),
            },
        }
    }

    fn invalid(&self, message: impl std::fmt::Display) -> ExecError {
        ExecError::InvalidModule(format!("{} `{}`: {message}", self.id, self.func.name))
    }

    fn slot(&self, r: fpir::Reg) -> Result<Slot, ExecError> {
        if let Some(map) = &self.rename {
            return map
                .get(r.index())
                .copied()
                .ok_or_else(|| self.invalid(format!("register {r} is not declared")));
        }
        if r.index() < self.func.regs.len() {
            Ok(r.0)
        } else {
            Err(self.invalid(format!("register {r} is not declared")))
        }
    }

    /// Whether `r` of the function being emitted is an alloca kept in a register.
    fn is_cell(&self, r: fpir::Reg) -> bool {
        self.cells
            .get(self.id.index())
            .and_then(|c| c.get(r.index()))
            .copied()
            .unwrap_or(false)
    }

    /// The bits every load of `ty` from `addr` reads, when memory holds concrete bits only
    /// and `addr` is a constant register pointing inside a read-only global (whose bytes
    /// no run can change).
    fn folded_load(&self, ty: Type, addr: fpir::Reg) -> Option<u64> {
        if !self.concrete_memory {
            return None;
        }
        let &(_, Const::Addr(AddrBase::Global(g), off)) =
            self.func.consts.iter().find(|&&(r, _)| r == addr)?
        else {
            return None;
        };
        let data = self.module.globals.get(g)?;
        let end = off.checked_add(i64::from(ty.bytes()))?;
        if !data.constant || off < 0 || end > data.init.len() as i64 {
            return None;
        }
        let at = self.mem.global_addr(g.index())?.wrapping_add(off as u64);
        self.mem.load(ty, at).ok()
    }

    /// A new register of type `ty` in this frame.
    fn fresh_slot(&mut self, ty: Type) -> Result<Slot, ExecError> {
        let s = self.out.nregs;
        if s.checked_add(1).is_none_or(|n| n == NONE) {
            return Err(self.invalid("too many registers"));
        }
        self.out.nregs += 1;
        self.out.reg_types.push(ty);
        Ok(s)
    }

    fn reg_type(&self, r: fpir::Reg) -> Type {
        self.func.regs.get(r).copied().unwrap_or(Type::I64)
    }

    fn dest(&self, d: Option<fpir::Reg>) -> Result<Slot, ExecError> {
        d.map_or(Ok(NONE), |r| self.slot(r))
    }

    fn need_dest(&self, d: Option<fpir::Reg>) -> Result<Slot, ExecError> {
        match d {
            Some(r) => self.slot(r),
            None => Err(self.invalid("instruction without a destination register")),
        }
    }

    /// The bits of a constant, addresses resolved against the memory layout.
    fn const_bits(&self, c: Const) -> Result<u64, ExecError> {
        Ok(match c {
            Const::Bits(b) => b,
            Const::Addr(AddrBase::Global(g), off) => self
                .mem
                .global_addr(g.index())
                .ok_or_else(|| self.invalid(format!("unknown global {g}")))?
                .wrapping_add(off as u64),
            Const::Addr(AddrBase::Func(f), off) => {
                if f.index() >= self.module.funcs.len() {
                    return Err(self.invalid(format!("unknown function {f}")));
                }
                func_addr(f.0).wrapping_add(off as u64)
            }
        })
    }

    /// The callee a call instruction is replaced by, when it is inlined: a defined
    /// function other than this one whose body is one block of at most
    /// [`INLINE_MAX_INSTS`] instructions without calls (math calls aside) or
    /// builtins, ending in a return, called with as many arguments as it takes. Such a
    /// body has no branch, so observers see the same events; its allocas are released
    /// where the call would return (a `stacksave`/`stackrestore` pair around it).
    fn inline_target(&self, inst: &fpir::Inst) -> Option<(Func, &'a Function)> {
        let InstKind::Call {
            callee: Callee::Direct(f),
            ref args,
        } = inst.kind
        else {
            return None;
        };
        let callee = self.module.funcs.get(f)?;
        if f == self.id || callee.blocks.len() != 1 {
            return None;
        }
        let block = callee.blocks.values().next()?;
        let ok = block.params.len() == args.len()
            && block.insts.len() <= INLINE_MAX_INSTS
            && matches!(block.term, Terminator::Ret(_))
            && block.insts.iter().all(|i| match &i.kind {
                InstKind::Call { callee, .. } => matches!(callee, Callee::Math(..)),
                _ => true,
            });
        ok.then_some((f, callee))
    }

    /// Ops an instruction becomes.
    fn op_count(&self, inst: &fpir::Inst) -> usize {
        let Some((_, callee)) = self.inline_target(inst) else {
            return 1;
        };
        let block = &callee.blocks[Function::ENTRY];
        let allocas = block
            .insts
            .iter()
            .any(|i| matches!(i.kind, InstKind::Alloca { .. }));
        let needs_move = match block.term {
            Terminator::Ret(Some(v)) => !block.insts.iter().any(|i| i.dest == Some(v)),
            _ => false,
        };
        block.insts.len() + usize::from(needs_move) + 2 * usize::from(allocas)
    }

    /// Pushes one op with its location and owner.
    fn emit(&mut self, op: Op, loc: Option<SrcLoc>, owner: Func) {
        self.out.code.push(op);
        self.out.locs.push(loc);
        self.out.owners.push(owner);
        self.out.inlined_at.push(self.inline_site);
    }

    /// Emits the body of `callee` (see [`FuncBuilder::inline_target`]) in place of the
    /// call `inst`; exactly [`FuncBuilder::op_count`] ops.
    fn inline_call(
        &mut self,
        inst: &fpir::Inst,
        f: Func,
        callee: &'a Function,
        loc: Option<SrcLoc>,
    ) -> Result<(), ExecError> {
        let InstKind::Call { ref args, .. } = inst.kind else {
            return Err(self.invalid("inlining a non-call"));
        };
        let d = self.dest(inst.dest)?;
        let arg_slots = args
            .iter()
            .map(|&a| self.slot(a))
            .collect::<Result<Vec<_>, _>>()?;
        // The callee's registers get one block of slots in this frame per callee, shared
        // by its call sites: each inlined body writes a register before reading it.
        let base = match self.inlined.iter().find(|&&(g, _)| g == f) {
            Some(&(_, base)) => base,
            None => {
                let base = self.out.nregs;
                let n = u32::try_from(callee.regs.len())
                    .ok()
                    .and_then(|n| base.checked_add(n))
                    .filter(|&n| n < NONE)
                    .ok_or_else(|| self.invalid("too many registers"))?;
                self.out.nregs = n;
                self.out.reg_types.extend(callee.regs.values().copied());
                for &(r, c) in &callee.consts {
                    if r.index() >= callee.regs.len() {
                        return Err(self.invalid(format!("register {r} of {f} is not declared")));
                    }
                    let ty = callee.regs[r];
                    let bits = self.const_bits(c)?;
                    self.out.consts.push(ConstSlot {
                        slot: base + r.0,
                        ty,
                        bits,
                    });
                }
                self.inlined.push((f, base));
                base
            }
        };
        let block = &callee.blocks[Function::ENTRY];
        let mut map: Vec<Slot> = (0..callee.regs.len() as u32).map(|r| base + r).collect();
        for (&p, &a) in block.params.iter().zip(&arg_slots) {
            if let Some(m) = map.get_mut(p.index()) {
                *m = a;
            }
        }
        let ret = match block.term {
            Terminator::Ret(v) => v,
            _ => None,
        };
        let defined = ret.filter(|&v| block.insts.iter().any(|i| i.dest == Some(v)));
        if let (Some(v), true) = (defined, d != NONE) {
            if let Some(m) = map.get_mut(v.index()) {
                *m = d;
            }
        }
        let allocas = block
            .insts
            .iter()
            .any(|i| matches!(i.kind, InstKind::Alloca { .. }));
        // The stack pointer is saved in a fresh slot of this frame.
        let saved = if allocas {
            let s = self.fresh_slot(Type::Ptr)?;
            self.emit(Op::StackSave { d: s }, loc, self.id);
            Some(s)
        } else {
            None
        };
        let (outer_func, outer_id) = (self.func, self.id);
        self.func = callee;
        self.id = f;
        self.rename = Some(map);
        self.inline_site = loc;
        let body = (|| {
            for (i, inst) in block.insts.iter().enumerate() {
                let op = specialize(self.inst(inst.dest, &inst.kind)?);
                self.emit(op, block.locs.get(i).copied().flatten(), f);
            }
            if let (Some(v), None, true) = (ret, defined, d != NONE) {
                let a = self.slot(v)?;
                self.emit(Op::Move { d, a }, block.term_loc, f);
            } else if ret.is_some() && defined.is_none() {
                // A void use of a parameter or constant result: keep the op count.
                self.emit(Op::Nop, block.term_loc, f);
            }
            Ok(())
        })();
        self.rename = None;
        self.inline_site = None;
        self.func = outer_func;
        self.id = outer_id;
        body?;
        if let Some(s) = saved {
            self.emit(Op::StackRestore { a: s }, loc, self.id);
        }
        Ok(())
    }

    fn push_args(&mut self, args: &[fpir::Reg]) -> Result<(u32, u32), ExecError> {
        let start = self.out.args.len() as u32;
        for &a in args {
            let s = self.slot(a)?;
            self.out.args.push(s);
        }
        Ok((start, args.len() as u32))
    }

    fn build(mut self) -> Result<FuncCode, ExecError> {
        let nregs = u32::try_from(self.func.regs.len())
            .ok()
            .filter(|&n| n < NONE)
            .ok_or_else(|| self.invalid("too many registers"))?;
        self.out.nregs = nregs;
        if self.func.blocks.is_empty() {
            return Err(self.invalid("function has no blocks"));
        }
        self.out.params = self
            .func
            .params()
            .iter()
            .map(|&r| self.slot(r))
            .collect::<Result<_, _>>()?;
        // The driver keeps a function's frame between runs and relies on constant
        // registers never being written (`Interpreter::call`).
        let mut is_const = vec![false; self.func.regs.len()];
        for &(r, _) in &self.func.consts {
            if let Some(c) = is_const.get_mut(r.index()) {
                *c = true;
            }
        }
        let defines_const = |r: fpir::Reg| is_const.get(r.index()).copied().unwrap_or(false);
        for (b, block) in self.func.blocks.iter() {
            if let Some(&r) = block
                .params
                .iter()
                .chain(block.insts.iter().filter_map(|i| i.dest.as_ref()))
                .find(|&&r| defines_const(r))
            {
                return Err(self.invalid(format!("constant register {r} is redefined in {b}")));
            }
        }
        for &(r, c) in &self.func.consts {
            let slot = self.slot(r)?;
            let ty = self.reg_type(r);
            let bits = self.const_bits(c)?;
            self.out.consts.push(ConstSlot { slot, ty, bits });
        }
        let order = self.layout();
        // A fused comparison whose result only its branch reads need not write it.
        let reads = read_counts(self.func);
        self.block_pcs = vec![0; self.func.blocks.len()];
        let mut pc = 0u32;
        for &(b, with_term) in &order {
            self.block_pcs[b.index()] = pc;
            let insts = &self.func.blocks[b].insts;
            let len =
                insts.iter().map(|i| self.op_count(i)).sum::<usize>() + usize::from(with_term);
            pc = u32::try_from(len)
                .ok()
                .and_then(|n| pc.checked_add(n))
                .ok_or_else(|| self.invalid("function too large"))?;
        }
        for (b, with_term) in order {
            let block = &self.func.blocks[b];
            for (i, inst) in block.insts.iter().enumerate() {
                let loc = block.locs.get(i).copied().flatten();
                if let Some((f, callee)) = self.inline_target(inst) {
                    self.inline_call(inst, f, callee, loc)?;
                    continue;
                }
                let op = specialize(self.inst(inst.dest, &inst.kind)?);
                self.emit(op, loc, self.id);
                if let (true, Terminator::Invoke { landing, .. }) =
                    (i + 1 == block.insts.len(), &block.term)
                {
                    if !self.call_may_raise(&inst.kind) {
                        continue;
                    }
                    let pc = self.out.code.len() as u32 - 1;
                    let code = self.landing(landing)?;
                    self.out.landings.push((pc, code));
                }
            }
            if with_term {
                let op = self.term(&block.term)?;
                if let (Some(last), Op::Br { cond, .. }) = (self.out.code.last_mut(), op) {
                    fuse(last, op, reads.get(cond as usize) == Some(&1));
                }
                self.emit(op, block.term_loc, self.id);
            }
        }
        check_code(&self.out).map_err(|e| self.invalid(e))?;
        Ok(self.out)
    }

    /// The order blocks are laid out in, entry first. A block ending in a jump that moves
    /// nothing is followed by its target when that is not placed yet, and the jump is
    /// dropped (`false`: the block falls through).
    fn layout(&self) -> Vec<(Block, bool)> {
        let blocks = &self.func.blocks;
        let mut placed = vec![false; blocks.len()];
        let mut order = Vec::with_capacity(blocks.len());
        for start in blocks.keys() {
            let mut b = start;
            while !placed[b.index()] {
                placed[b.index()] = true;
                let next = match &blocks[b].term {
                    Terminator::Jump(to) => blocks
                        .get(to.block)
                        .filter(|t| t.params == to.args && !placed[to.block.index()])
                        .map(|_| to.block),
                    _ => None,
                };
                order.push((b, next.is_none()));
                match next {
                    Some(t) => b = t,
                    None => break,
                }
            }
        }
        order
    }

    fn inst(&mut self, dest: Option<fpir::Reg>, kind: &InstKind) -> Result<Op, ExecError> {
        if let InstKind::Load { ty, addr } = *kind {
            if let Some(bits) = self.folded_load(ty, addr) {
                let d = self.need_dest(dest)?;
                let a = self.fresh_slot(ty)?;
                self.out.consts.push(ConstSlot { slot: a, ty, bits });
                return Ok(Op::Move { d, a });
            }
        }
        Ok(match *kind {
            InstKind::IntBin { op, ty, lhs, rhs } => {
                let (d, a, b) = (self.need_dest(dest)?, self.slot(lhs)?, self.slot(rhs)?);
                int_bin_op(op, ty, d, a, b)
            }
            InstKind::FloatBin {
                op,
                ty,
                lhs,
                rhs,
                site,
            } => {
                let (d, a, b) = (self.need_dest(dest)?, self.slot(lhs)?, self.slot(rhs)?);
                float_bin_op(op, ty, d, a, b, site)
            }
            InstKind::Fneg { ty, arg } => Op::Fneg {
                ty,
                d: self.need_dest(dest)?,
                a: self.slot(arg)?,
            },
            InstKind::Icmp { pred, ty, lhs, rhs } => Op::Icmp {
                pred,
                ty,
                d: self.need_dest(dest)?,
                a: self.slot(lhs)?,
                b: self.slot(rhs)?,
            },
            InstKind::Fcmp { pred, ty, lhs, rhs } => Op::Fcmp {
                pred,
                ty,
                d: self.need_dest(dest)?,
                a: self.slot(lhs)?,
                b: self.slot(rhs)?,
            },
            InstKind::Cast { op, from, to, arg } => {
                cast_op(op, from, to, self.need_dest(dest)?, self.slot(arg)?)
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => Op::Select {
                ty,
                d: self.need_dest(dest)?,
                c: self.slot(cond)?,
                t: self.slot(if_true)?,
                f: self.slot(if_false)?,
            },
            InstKind::Load { ty, addr } if self.is_cell(addr) => Op::LoadCell {
                ty,
                d: self.need_dest(dest)?,
                cell: self.slot(addr)?,
            },
            InstKind::Load { ty, addr } => Op::Load {
                ty,
                d: self.need_dest(dest)?,
                addr: self.slot(addr)?,
            },
            InstKind::Store { addr, value, .. } if self.is_cell(addr) => Op::Move {
                d: self.slot(addr)?,
                a: self.slot(value)?,
            },
            InstKind::Store { ty, addr, value } => Op::Store {
                ty,
                addr: self.slot(addr)?,
                val: self.slot(value)?,
            },
            InstKind::Alloca { size, align, .. } if dest.is_some_and(|d| self.is_cell(d)) => {
                Op::AllocaCell { size, align }
            }
            InstKind::Alloca { size, count, align } => Op::Alloca {
                d: self.need_dest(dest)?,
                size,
                count: count.map_or(Ok(NONE), |c| self.slot(c))?,
                count_ty: count.map_or(Type::I64, |c| self.reg_type(c)),
                align,
            },
            InstKind::PtrOffset {
                base,
                offset,
                ref terms,
            } => self.ptr_offset(dest, base, offset, terms)?,
            InstKind::Call {
                ref callee,
                ref args,
            } => self.call(dest, callee, args)?,
        })
    }

    /// `base + offset + sum(index * scale)`: `PtrOffset1` for one index, else
    /// `PtrOffset` with its terms in `FuncCode::terms`.
    fn ptr_offset(
        &mut self,
        dest: Option<fpir::Reg>,
        base: fpir::Reg,
        offset: i64,
        terms: &[fpir::IndexTerm],
    ) -> Result<Op, ExecError> {
        let start = self.out.terms.len() as u32;
        for t in terms {
            let s = self.slot(t.index)?;
            self.out.terms.push((s, self.reg_type(t.index), t.scale));
        }
        Ok(match terms {
            [t] => Op::PtrOffset1 {
                d: self.need_dest(dest)?,
                base: self.slot(base)?,
                index: self.slot(t.index)?,
                index_ty: self.reg_type(t.index),
                offset,
                scale: t.scale,
            },
            _ => Op::PtrOffset {
                d: self.need_dest(dest)?,
                base: self.slot(base)?,
                offset,
                start,
                len: terms.len() as u32,
            },
        })
    }

    fn call(
        &mut self,
        dest: Option<fpir::Reg>,
        callee: &Callee,
        args: &[fpir::Reg],
    ) -> Result<Op, ExecError> {
        let d = self.dest(dest)?;
        Ok(match *callee {
            Callee::Direct(f) => {
                let Some(target) = self.module.funcs.get(f) else {
                    return Err(self.invalid(format!("call of unknown function {f}")));
                };
                let nparams = target.blocks.values().next().map_or(0, |b| b.params.len());
                if nparams != args.len() {
                    return Err(self.invalid(format!(
                        "call of {f} with {} arguments, it takes {nparams}",
                        args.len()
                    )));
                }
                let (start, len) = self.push_args(args)?;
                Op::Call {
                    func: f.0,
                    d,
                    start,
                    len,
                }
            }
            Callee::Indirect(r) => {
                let target = self.slot(r)?;
                let (start, len) = self.push_args(args)?;
                Op::CallIndirect {
                    target,
                    d,
                    start,
                    len,
                }
            }
            Callee::Math(call, site) => {
                let need = match call.func.shape() {
                    MathShape::Unary | MathShape::ToInt => 1,
                    MathShape::Binary
                    | MathShape::FloatInt
                    | MathShape::FloatPtrInt
                    | MathShape::FloatPtrFloat => 2,
                    MathShape::Ternary => 3,
                };
                if args.len() != need {
                    return Err(self.invalid(format!(
                        "{} takes {need} arguments, {} given",
                        call.func.name(),
                        args.len()
                    )));
                }
                let ret = dest.map_or(Type::Float(call.ty), |r| self.reg_type(r));
                let (start, len) = self.push_args(args)?;
                Op::Math {
                    call,
                    site,
                    ret,
                    d,
                    start,
                    len,
                }
            }
            Callee::Builtin(b) => {
                let need = match b {
                    Builtin::Abort
                    | Builtin::StackSave
                    | Builtin::AssertFail
                    | Builtin::Terminate => 0,
                    Builtin::Unwind
                    | Builtin::Malloc
                    | Builtin::Free
                    | Builtin::Exit
                    | Builtin::Ctpop
                    | Builtin::Ctlz
                    | Builtin::Cttz
                    | Builtin::Bswap
                    | Builtin::Abs
                    | Builtin::StackRestore => 1,
                    Builtin::Calloc
                    | Builtin::Realloc
                    | Builtin::Smax
                    | Builtin::Smin
                    | Builtin::Umax
                    | Builtin::Umin
                    | Builtin::AccessSlack => 2,
                    Builtin::Memcpy | Builtin::Memmove | Builtin::Memset | Builtin::BoundsFault => {
                        3
                    }
                    Builtin::Libc(f) => f.min_args(),
                    Builtin::F80(op) => op.arity(),
                };
                if args.len() < need {
                    return Err(self.invalid(format!(
                        "{} takes {need} arguments, {} given",
                        b.name(),
                        args.len()
                    )));
                }
                // An operation on extended values is typed by its result (which half,
                // which float or integer), the others by their first argument.
                let typed_by = match b {
                    Builtin::F80(_) => dest.as_ref().or(args.first()),
                    _ => args.first().or(dest.as_ref()),
                };
                let ty = typed_by.map_or(Type::I64, |&r| self.reg_type(r));
                let (start, len) = self.push_args(args)?;
                Op::Builtin {
                    b,
                    ty,
                    d,
                    start,
                    len,
                }
            }
            Callee::External(index) => {
                if index as usize >= self.module.externals.len() {
                    return Err(self.invalid(format!("unknown external #{index}")));
                }
                Op::External { index }
            }
        })
    }

    /// The parallel moves of a jump, checked.
    fn moves(&self, call: &BlockCall) -> Result<Vec<(Slot, Slot)>, ExecError> {
        let Some(target) = self.func.blocks.get(call.block) else {
            return Err(self.invalid(format!("jump to unknown block {}", call.block)));
        };
        if target.params.len() != call.args.len() {
            return Err(self.invalid(format!(
                "jump to {} with {} arguments, it takes {}",
                call.block,
                call.args.len(),
                target.params.len()
            )));
        }
        let mut moves = Vec::with_capacity(call.args.len());
        for (&p, &a) in target.params.iter().zip(&call.args) {
            let (dst, src) = (self.slot(p)?, self.slot(a)?);
            if dst != src {
                moves.push((dst, src));
            }
        }
        Ok(moves)
    }

    /// The target pc and parallel moves of a jump. Jumps into blocks that only jump on are
    /// threaded through them when one of the two jumps moves nothing (so the moves stay
    /// one parallel copy); the skipped jumps are not executed and cost no fuel.
    fn target(&self, call: &BlockCall) -> Result<(u32, Vec<(Slot, Slot)>), ExecError> {
        let mut moves = self.moves(call)?;
        let mut block = call.block;
        for _ in 0..self.func.blocks.len() {
            let data = &self.func.blocks[block];
            let Terminator::Jump(next) = &data.term else {
                break;
            };
            if !data.insts.is_empty() {
                break;
            }
            let next_moves = self.moves(next)?;
            if !moves.is_empty() && !next_moves.is_empty() {
                break;
            }
            if moves.is_empty() {
                moves = next_moves;
            }
            block = next.block;
        }
        Ok((self.block_pcs[block.index()], moves))
    }

    /// Makes the edge of a jump (see [`FuncBuilder::target`]).
    fn edge(&mut self, call: &BlockCall) -> Result<u32, ExecError> {
        let (pc, moves) = self.target(call)?;
        if moves.is_empty() && pc < DIRECT {
            return Ok(DIRECT | pc);
        }
        let parallel = moves
            .iter()
            .enumerate()
            .any(|(i, &(dst, _))| moves[i + 1..].iter().any(|&(_, src)| src == dst));
        let edge = Edge {
            pc,
            moves_start: self.out.moves.len() as u32,
            moves_len: moves.len() as u32,
            parallel,
        };
        self.out.moves.extend(moves);
        self.out.edges.push(edge);
        Ok(self.out.edges.len() as u32 - 1)
    }

    /// Whether the call `kind` may raise: an indirect call, or a direct call of a
    /// function that may.
    fn call_may_raise(&self, kind: &InstKind) -> bool {
        match kind {
            InstKind::Call {
                callee: Callee::Direct(f),
                ..
            } => self.raises.get(f.index()).copied().unwrap_or(true),
            InstKind::Call {
                callee: Callee::Indirect(_) | Callee::Builtin(Builtin::Unwind),
                ..
            } => true,
            _ => false,
        }
    }

    fn landing(&mut self, landing: &fpir::Landing) -> Result<LandingCode, ExecError> {
        let clauses = landing
            .clauses
            .iter()
            .map(|clause| match *clause {
                fpir::Clause::Catch { typeinfo, id } => {
                    Ok((typeinfo.map_or(Ok(NONE), |t| self.slot(t))?, id))
                }
            })
            .collect::<Result<_, ExecError>>()?;
        Ok(LandingCode {
            edge: self.edge(&landing.to)?,
            exception: self.slot(landing.exception)?,
            selector: self.slot(landing.selector)?,
            clauses,
            cleanup: landing.cleanup,
        })
    }

    fn term(&mut self, term: &Terminator) -> Result<Op, ExecError> {
        Ok(match term {
            Terminator::Jump(to) => match self.target(to)? {
                (pc, moves) if pc < DIRECT => match moves[..] {
                    [(d, a)] => Op::JumpMove1 { pc, d, a },
                    [(d0, a0), (d1, a1)] => Op::JumpMove2 {
                        pc,
                        d: [d0, d1],
                        a: [a0, a1],
                    },
                    [(d0, a0), (d1, a1), (d2, a2)] => Op::JumpMove3 {
                        pc,
                        d: [d0, d1, d2],
                        a: [a0, a1, a2],
                    },
                    _ => Op::Jump {
                        edge: self.edge(to)?,
                    },
                },
                _ => Op::Jump {
                    edge: self.edge(to)?,
                },
            },
            Terminator::Br {
                cond,
                then_to,
                else_to,
                site,
                check: _,
            } => {
                let cmp = self
                    .module
                    .branch_sites
                    .get(*site)
                    .filter(|s| s.func == self.id)
                    .and_then(|s| s.cmp);
                let (lhs, rhs) = match cmp {
                    Some(c) => (self.slot(c.lhs)?, self.slot(c.rhs)?),
                    None => (NONE, NONE),
                };
                Op::Br {
                    cond: self.slot(*cond)?,
                    then_edge: self.edge(then_to)?,
                    else_edge: self.edge(else_to)?,
                    site: *site,
                    lhs,
                    rhs,
                }
            }
            Terminator::Switch {
                ty,
                value,
                cases,
                default,
                site,
            } => {
                let mask = (*ty).mask();
                let mut table = Vec::with_capacity(cases.len());
                for (i, c) in cases.iter().enumerate() {
                    table.push((c.value & mask, i as u32, self.edge(&c.target)?));
                }
                table.sort_by_key(|&(v, i, _)| (v, i));
                table.dedup_by_key(|&mut (v, _, _)| v);
                let default = self.edge(default)?;
                self.out.switches.push(SwitchTable {
                    cases: table,
                    default,
                });
                Op::Switch {
                    ty: *ty,
                    value: self.slot(*value)?,
                    table: self.out.switches.len() as u32 - 1,
                    site: *site,
                }
            }
            Terminator::Ret(value) => Op::Ret {
                value: self.dest(*value)?,
            },
            Terminator::Unreachable => Op::Unreachable,
            // The landing is the call's (see `FuncCode::landings`).
            Terminator::Invoke { normal, .. } => self.term(&Terminator::Jump(normal.clone()))?,
        })
    }
}

/// The op of an integer binary instruction.
fn int_bin_op(op: IntBinOp, ty: Type, d: Slot, a: Slot, b: Slot) -> Op {
    match op {
        IntBinOp::Add => Op::Iadd { ty, d, a, b },
        IntBinOp::Sub => Op::Isub { ty, d, a, b },
        IntBinOp::Mul => Op::Imul { ty, d, a, b },
        IntBinOp::Udiv => Op::Udiv { ty, d, a, b },
        IntBinOp::Sdiv => Op::Sdiv { ty, d, a, b },
        IntBinOp::Urem => Op::Urem { ty, d, a, b },
        IntBinOp::Srem => Op::Srem { ty, d, a, b },
        IntBinOp::Shl => Op::Shl { ty, d, a, b },
        IntBinOp::Lshr => Op::Lshr { ty, d, a, b },
        IntBinOp::Ashr => Op::Ashr { ty, d, a, b },
        IntBinOp::And => Op::Band { ty, d, a, b },
        IntBinOp::Or => Op::Bor { ty, d, a, b },
        IntBinOp::Xor => Op::Bxor { ty, d, a, b },
    }
}

/// The op of a float binary instruction.
fn float_bin_op(op: FloatBinOp, ty: FloatTy, d: Slot, a: Slot, b: Slot, site: OpSite) -> Op {
    match op {
        FloatBinOp::Fadd => Op::Fadd { ty, d, a, b, site },
        FloatBinOp::Fsub => Op::Fsub { ty, d, a, b, site },
        FloatBinOp::Fmul => Op::Fmul { ty, d, a, b, site },
        FloatBinOp::Fdiv => Op::Fdiv { ty, d, a, b, site },
        FloatBinOp::Frem => Op::Frem { ty, d, a, b, site },
    }
}

/// The op of a conversion.
fn cast_op(op: CastOp, from: Type, to: Type, d: Slot, a: Slot) -> Op {
    match op {
        CastOp::Trunc => Op::Trunc { from, to, d, a },
        CastOp::Zext => Op::Zext { from, to, d, a },
        CastOp::Sext => Op::Sext { from, to, d, a },
        CastOp::Fptrunc => Op::Fptrunc { from, to, d, a },
        CastOp::Fpext => Op::Fpext { from, to, d, a },
        CastOp::Fptoui => Op::Fptoui { from, to, d, a },
        CastOp::Fptosi => Op::Fptosi { from, to, d, a },
        CastOp::Uitofp => Op::Uitofp { from, to, d, a },
        CastOp::Sitofp => Op::Sitofp { from, to, d, a },
        CastOp::Ptrtoint => Op::Ptrtoint { from, to, d, a },
        CastOp::Inttoptr => Op::Inttoptr { from, to, d, a },
        CastOp::Bitcast => Op::Bitcast { from, to, d, a },
    }
}

/// The op never continues at `pc + 1`: control always moves along an edge, returns or traps.
fn is_terminator(op: &Op) -> bool {
    cmp_br(op).is_some()
        || matches!(
            op,
            Op::Jump { .. }
                | Op::JumpMove1 { .. }
                | Op::JumpMove2 { .. }
                | Op::JumpMove3 { .. }
                | Op::Br { .. }
                | Op::IcmpBr { .. }
                | Op::FcmpBr { .. }
                | Op::FcmpBr64 { .. }
                | Op::Switch { .. }
                | Op::Ret { .. }
                | Op::Unreachable
        )
}

/// The operands of a specialized fused comparison and branch.
fn cmp_br(op: &Op) -> Option<&CmpBr> {
    match op {
        Op::IcmpBrEq64(c)
        | Op::IcmpBrNe64(c)
        | Op::IcmpBrUlt64(c)
        | Op::IcmpBrUle64(c)
        | Op::IcmpBrUgt64(c)
        | Op::IcmpBrUge64(c)
        | Op::IcmpBrSlt64(c)
        | Op::IcmpBrSle64(c)
        | Op::IcmpBrSgt64(c)
        | Op::IcmpBrSge64(c)
        | Op::IcmpBrEq32(c)
        | Op::IcmpBrNe32(c)
        | Op::IcmpBrUlt32(c)
        | Op::IcmpBrUle32(c)
        | Op::IcmpBrUgt32(c)
        | Op::IcmpBrUge32(c)
        | Op::IcmpBrSlt32(c)
        | Op::IcmpBrSle32(c)
        | Op::IcmpBrSgt32(c)
        | Op::IcmpBrSge32(c)
        | Op::FcmpBrOeq64(c)
        | Op::FcmpBrUne64(c)
        | Op::FcmpBrOlt64(c)
        | Op::FcmpBrOle64(c)
        | Op::FcmpBrOgt64(c)
        | Op::FcmpBrOge64(c) => Some(c),
        _ => None,
    }
}

/// The edges an op may take.
fn op_edges(op: &Op) -> [Option<u32>; 2] {
    if let Some(c) = cmp_br(op) {
        return [Some(c.then_edge), Some(c.else_edge)];
    }
    match *op {
        Op::Jump { edge } => [Some(edge), None],
        Op::JumpMove1 { pc, .. } | Op::JumpMove2 { pc, .. } | Op::JumpMove3 { pc, .. } => {
            [Some(DIRECT | pc), None]
        }
        Op::Br {
            then_edge,
            else_edge,
            ..
        }
        | Op::IcmpBr {
            then_edge,
            else_edge,
            ..
        }
        | Op::FcmpBr {
            then_edge,
            else_edge,
            ..
        }
        | Op::FcmpBr64 {
            then_edge,
            else_edge,
            ..
        } => [Some(then_edge), Some(else_edge)],
        _ => [None, None],
    }
}

/// Checks what the driver fetches without bounds checks: the code is non-empty and ends
/// in a terminator (so `pc + 1` after any other op, and the return address after a call,
/// is inside the code), every edge an op or switch table names exists (or, marked
/// [`DIRECT`], is a pc inside the code), every edge target
/// is inside the code and every edge's moves are inside the move list.
fn check_code(fc: &FuncCode) -> Result<(), String> {
    if !fc.code.last().is_some_and(is_terminator) {
        return Err("prepared code does not end in a terminator".into());
    }
    let len = fc.code.len();
    let edge_ok = |e: u32| {
        if e & DIRECT != 0 {
            ((e & !DIRECT) as usize) < len
        } else {
            fc.edges.get(e as usize).is_some()
        }
    };
    for op in &fc.code {
        if op_edges(op).into_iter().flatten().any(|e| !edge_ok(e)) {
            return Err("op names an unknown edge".into());
        }
        if let Op::Switch { table, .. } = *op {
            let Some(t) = fc.switches.get(table as usize) else {
                return Err("switch names an unknown table".into());
            };
            if !edge_ok(t.default) || t.cases.iter().any(|c| !edge_ok(c.2)) {
                return Err("switch names an unknown edge".into());
            }
        }
    }
    for e in &fc.edges {
        let end = e.moves_start as usize + e.moves_len as usize;
        if e.pc as usize >= len || end > fc.moves.len() {
            return Err("edge outside the code or the move list".into());
        }
    }
    Ok(())
}

/// Turns a comparison followed by the branch on its result into one fused op (the branch
/// stays in place behind it, unreachable, so program counters do not move), specialized
/// when `dead` (nothing else reads the comparison's result) and the type and predicate
/// have a twin.
fn fuse(last: &mut Op, br: Op, dead: bool) {
    let Op::Br {
        cond,
        then_edge,
        else_edge,
        site,
        ..
    } = br
    else {
        return;
    };
    *last = match *last {
        Op::Icmp { pred, ty, d, a, b } if d == cond => match fused_icmp(pred, ty) {
            Some(make) if dead => make(CmpBr {
                a,
                b,
                then_edge,
                else_edge,
                site,
            }),
            _ => Op::IcmpBr {
                pred,
                ty,
                d,
                a,
                b,
                then_edge,
                else_edge,
                site,
            },
        },
        Op::Fcmp {
            pred,
            ty: FloatTy::F64,
            d,
            a,
            b,
        } if d == cond => match fused_fcmp64(pred) {
            Some(make) if dead => make(CmpBr {
                a,
                b,
                then_edge,
                else_edge,
                site,
            }),
            _ => Op::FcmpBr64 {
                pred,
                d,
                a,
                b,
                then_edge,
                else_edge,
                site,
            },
        },
        Op::Fcmp { pred, ty, d, a, b } if d == cond => Op::FcmpBr {
            pred,
            ty,
            d,
            a,
            b,
            then_edge,
            else_edge,
            site,
        },
        other => other,
    };
}

/// Rewrites an op at one of the most common types into its specialized twin.
fn specialize(op: Op) -> Op {
    const I32: Type = Type::I32;
    const I64: Type = Type::I64;
    const F64: Type = Type::F64;
    match op {
        Op::Iadd { ty: I32, d, a, b } => Op::Iadd32 { d, a, b },
        Op::Iadd { ty: I64, d, a, b } => Op::Iadd64 { d, a, b },
        Op::Isub { ty: I32, d, a, b } => Op::Isub32 { d, a, b },
        Op::Isub { ty: I64, d, a, b } => Op::Isub64 { d, a, b },
        Op::Imul { ty: I32, d, a, b } => Op::Imul32 { d, a, b },
        Op::Imul { ty: I64, d, a, b } => Op::Imul64 { d, a, b },
        Op::Fadd {
            ty: FloatTy::F64,
            d,
            a,
            b,
            site,
        } => Op::Fadd64 { d, a, b, site },
        Op::Fsub {
            ty: FloatTy::F64,
            d,
            a,
            b,
            site,
        } => Op::Fsub64 { d, a, b, site },
        Op::Fmul {
            ty: FloatTy::F64,
            d,
            a,
            b,
            site,
        } => Op::Fmul64 { d, a, b, site },
        Op::Fdiv {
            ty: FloatTy::F64,
            d,
            a,
            b,
            site,
        } => Op::Fdiv64 { d, a, b, site },
        Op::Sext {
            from: I32,
            to: I64,
            d,
            a,
        } => Op::Sext32To64 { d, a },
        Op::Zext {
            from: I32,
            to: I64,
            d,
            a,
        } => Op::Zext32To64 { d, a },
        Op::Trunc {
            from: I64,
            to: I32,
            d,
            a,
        } => Op::Trunc64To32 { d, a },
        Op::Shl { ty: I64, d, a, b } => Op::Shl64 { d, a, b },
        Op::Lshr { ty: I64, d, a, b } => Op::Lshr64 { d, a, b },
        Op::Lshr { ty: I32, d, a, b } => Op::Lshr32 { d, a, b },
        Op::Band { ty: I64, d, a, b } => Op::Band64 { d, a, b },
        Op::Bor { ty: I64, d, a, b } => Op::Bor64 { d, a, b },
        Op::Band { ty: I32, d, a, b } => Op::Band32 { d, a, b },
        Op::Load { ty: F64, d, addr } => Op::LoadF64 { d, addr },
        Op::Load { ty: I64, d, addr } => Op::LoadI64 { d, addr },
        Op::Store { ty: F64, addr, val } => Op::StoreF64 { addr, val },
        Op::Store { ty: I64, addr, val } => Op::StoreI64 { addr, val },
        Op::LoadCell { ty: I64, d, cell } => Op::LoadCellI64 { d, cell },
        Op::LoadCell { ty: F64, d, cell } => Op::LoadCellF64 { d, cell },
        Op::Sitofp {
            from: I32,
            to: Type::F64,
            d,
            a,
        } => Op::Sitofp32To64 { d, a },
        other => other,
    }
}

/// The specialized twin of a fused `icmp` and branch, if any.
fn fused_icmp(pred: IntPred, ty: Type) -> Option<fn(CmpBr) -> Op> {
    const I32: Type = Type::I32;
    const I64: Type = Type::I64;
    Some(match (pred, ty) {
        (IntPred::Eq, I64) => Op::IcmpBrEq64,
        (IntPred::Ne, I64) => Op::IcmpBrNe64,
        (IntPred::Ult, I64) => Op::IcmpBrUlt64,
        (IntPred::Ule, I64) => Op::IcmpBrUle64,
        (IntPred::Ugt, I64) => Op::IcmpBrUgt64,
        (IntPred::Uge, I64) => Op::IcmpBrUge64,
        (IntPred::Slt, I64) => Op::IcmpBrSlt64,
        (IntPred::Sle, I64) => Op::IcmpBrSle64,
        (IntPred::Sgt, I64) => Op::IcmpBrSgt64,
        (IntPred::Sge, I64) => Op::IcmpBrSge64,
        (IntPred::Eq, I32) => Op::IcmpBrEq32,
        (IntPred::Ne, I32) => Op::IcmpBrNe32,
        (IntPred::Ult, I32) => Op::IcmpBrUlt32,
        (IntPred::Ule, I32) => Op::IcmpBrUle32,
        (IntPred::Ugt, I32) => Op::IcmpBrUgt32,
        (IntPred::Uge, I32) => Op::IcmpBrUge32,
        (IntPred::Slt, I32) => Op::IcmpBrSlt32,
        (IntPred::Sle, I32) => Op::IcmpBrSle32,
        (IntPred::Sgt, I32) => Op::IcmpBrSgt32,
        (IntPred::Sge, I32) => Op::IcmpBrSge32,
        _ => return None,
    })
}

/// The specialized twin of a fused `fcmp` at `f64` and branch, if any.
fn fused_fcmp64(pred: FloatPred) -> Option<fn(CmpBr) -> Op> {
    Some(match pred {
        FloatPred::Oeq => Op::FcmpBrOeq64,
        FloatPred::Une => Op::FcmpBrUne64,
        FloatPred::Olt => Op::FcmpBrOlt64,
        FloatPred::Ole => Op::FcmpBrOle64,
        FloatPred::Ogt => Op::FcmpBrOgt64,
        FloatPred::Oge => Op::FcmpBrOge64,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_stay_small() {
        // The dispatch loop streams through ops; keep them at half a cache line.
        assert!(std::mem::size_of::<Op>() <= 32);
    }
}
