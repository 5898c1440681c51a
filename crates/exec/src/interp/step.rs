//! `step`: one prepared op as a transition on the registers of the current frame,
//! memory, the run's environment, the semantics and the observer. It returns what the driver does next
//! ([`Control`]: next op, jump, call, return or trap) and never touches control state
//! (function, pc, frames, fuel), which the driver in [`super`] owns.
//!
//! `step` is one match on the op that hands each op, with its operands, to a method of
//! [`Step`]; the methods are grouped by instruction family (arithmetic and conversions,
//! memory, calls, control), one `impl` block each. The match stays flat, one arm per op,
//! and everything is `#[inline(always)]`, so the driver loop dispatches once per op:
//! matching on an op's family first and on the op again inside each family cost a
//! second dispatch per op (measured with `bench/musl/instr.sh`, which counts the
//! instructions per call of five musl functions).

use crate::builtin;
use crate::env::RunEnv;
use crate::fenv::{self, FloatCast, FloatEnv};
use crate::memory::Memory;
use crate::observer::{BranchEvent, Observer, OpEvent};
use crate::prepare::{CmpBr, FuncCode, Op, Program, Slot, DIRECT, NONE};
use crate::semantics::Semantics;
use crate::trap::TrapKind;
use fpir::eval::{Rounded, RoundingMode};
use fpir::{
    Arm, BranchSite, Builtin, F80Op, FloatBinOp, FloatPred, FloatTy, IntPred, LibcFn, MathCall,
    Module, OpSite, Side, Type,
};

/// The mutable state `step` works on.
pub(super) struct Machine<S: Semantics, O> {
    pub(super) sem: S,
    pub(super) obs: O,
    pub(super) mem: Memory,
    /// What the run keeps beside memory (streams, floating-point environment).
    pub(super) env: RunEnv,
    pub(super) scratch: Vec<S::Value>,
    /// The trap a `Control::Trap` reports.
    pub(super) pending: Option<TrapKind>,
}

/// What the driver does after an op.
pub(super) enum Control {
    Next,
    Jump(u32),
    Call {
        func: u32,
        dest: Slot,
        start: u32,
        len: u32,
    },
    Ret(Slot),
    /// The kind is in `Machine::pending`.
    Trap,
}

/// An operation's result in the run's rounding mode, its exceptions recorded.
#[cold]
#[inline(never)]
fn in_env(env: &mut FloatEnv, op: impl FnOnce(RoundingMode) -> Rounded) -> u64 {
    let r = op(env.mode());
    env.record(r)
}

/// Reports an operand of an operation the modelled floating-point environment computed:
/// in round-to-nearest the semantics computes the value too and only the raised flags
/// depend on the operand; in another mode the value is a constant made from its bits.
fn env_operand<S: Semantics>(sem: &mut S, nearest: bool, operand: &S::Value) {
    if nearest {
        sem.flags_depend_on(operand);
    } else {
        sem.concretized(operand);
    }
}

/// The registers of the current frame, exactly `fc.nregs` long (`step`'s contract).
/// Preparation checks that every slot an op of `fc` names is below `fc.nregs`
/// (`prepare::check_code`), and [`Step`] only passes slots read from the op it runs
/// (after testing optional ones against `NONE`), so the accessors skip bounds checks.
struct Regs<'r, V>(&'r mut [V]);

impl<V> Regs<'_, V> {
    #[inline(always)]
    fn get(&self, slot: Slot) -> &V {
        let slot = slot as usize;
        debug_assert!(slot < self.0.len());
        // SAFETY: `slot` comes from an op of `fc`, so it is below `fc.nregs`, the length
        // of the frame (see the type's docs).
        unsafe { self.0.get_unchecked(slot) }
    }

    #[inline(always)]
    fn set(&mut self, slot: Slot, value: V) {
        let slot = slot as usize;
        debug_assert!(slot < self.0.len());
        // SAFETY: as for `get`.
        *unsafe { self.0.get_unchecked_mut(slot) } = value;
    }
}

/// What the ops of one activation work on: the machine's parts, the current frame's
/// registers and the code the ops belong to. `EXACT_ENV` is whether the run's
/// floating-point environment is modelled ([`crate::fenv::EnvModel::Exact`]).
pub(super) struct Step<'a, S: Semantics, O, const EXACT_ENV: bool> {
    sem: &'a mut S,
    obs: &'a mut O,
    mem: &'a mut Memory,
    env: &'a mut RunEnv,
    scratch: &'a mut Vec<S::Value>,
    /// Where a trap goes (see [`Control::Trap`]).
    pending: &'a mut Option<TrapKind>,
    regs: Regs<'a, S::Value>,
    prog: &'a Program,
    fc: &'a FuncCode,
    module: &'a Module,
    /// The stack pointer when the current function was entered.
    mark: u64,
}

/// The dispatch (one arm per op, each handing the op's operands to the method of its
/// family below) and the ways an op ends.
impl<'a, S: Semantics, O: Observer, const EXACT_ENV: bool> Step<'a, S, O, EXACT_ENV> {
    /// The step of an activation of `fc` whose registers are `frame` (exactly
    /// `fc.nregs` long) and whose stack mark is `mark`.
    #[inline(always)]
    pub(super) fn new(
        m: &'a mut Machine<S, O>,
        frame: &'a mut [S::Value],
        prog: &'a Program,
        fc: &'a FuncCode,
        module: &'a Module,
        mark: u64,
    ) -> Self {
        let Machine {
            sem,
            obs,
            mem,
            env,
            scratch,
            pending,
        } = m;
        debug_assert_eq!(frame.len(), fc.nregs as usize);
        Step {
            sem,
            obs,
            mem,
            env,
            scratch,
            pending,
            regs: Regs(frame),
            prog,
            fc,
            module,
            mark,
        }
    }

    /// Executes `op`, an op of the activation's function.
    #[inline(always)]
    pub(super) fn exec(&mut self, op: &Op) -> Control {
        use FloatBinOp::{Fadd, Fdiv, Fmul, Frem, Fsub};
        use FloatCast as C;
        use FloatPred::{Oeq, Oge, Ogt, Ole, Olt, Une};
        use IntPred::{Eq, Ne, Sge, Sgt, Sle, Slt, Uge, Ugt, Ule, Ult};
        const I32: Type = Type::I32;
        const I64: Type = Type::I64;
        const F64: FloatTy = FloatTy::F64;
        match *op {
            Op::Iadd { ty, d, a, b } => self.binary(S::iadd, ty, d, a, b),
            Op::Isub { ty, d, a, b } => self.binary(S::isub, ty, d, a, b),
            Op::Imul { ty, d, a, b } => self.binary(S::imul, ty, d, a, b),
            Op::Udiv { ty, d, a, b } => self.division(S::udiv, ty, d, a, b),
            Op::Sdiv { ty, d, a, b } => self.division(S::sdiv, ty, d, a, b),
            Op::Urem { ty, d, a, b } => self.division(S::urem, ty, d, a, b),
            Op::Srem { ty, d, a, b } => self.division(S::srem, ty, d, a, b),
            Op::Shl { ty, d, a, b } => self.binary(S::shl, ty, d, a, b),
            Op::Lshr { ty, d, a, b } => self.binary(S::lshr, ty, d, a, b),
            Op::Ashr { ty, d, a, b } => self.binary(S::ashr, ty, d, a, b),
            Op::Band { ty, d, a, b } => self.binary(S::band, ty, d, a, b),
            Op::Bor { ty, d, a, b } => self.binary(S::bor, ty, d, a, b),
            Op::Bxor { ty, d, a, b } => self.binary(S::bxor, ty, d, a, b),
            Op::Iadd32 { d, a, b } => self.binary(S::iadd, I32, d, a, b),
            Op::Iadd64 { d, a, b } => self.binary(S::iadd, I64, d, a, b),
            Op::Isub32 { d, a, b } => self.binary(S::isub, I32, d, a, b),
            Op::Isub64 { d, a, b } => self.binary(S::isub, I64, d, a, b),
            Op::Imul32 { d, a, b } => self.binary(S::imul, I32, d, a, b),
            Op::Imul64 { d, a, b } => self.binary(S::imul, I64, d, a, b),
            Op::Shl64 { d, a, b } => self.binary(S::shl, I64, d, a, b),
            Op::Lshr64 { d, a, b } => self.binary(S::lshr, I64, d, a, b),
            Op::Lshr32 { d, a, b } => self.binary(S::lshr, I32, d, a, b),
            Op::Band64 { d, a, b } => self.binary(S::band, I64, d, a, b),
            Op::Bor64 { d, a, b } => self.binary(S::bor, I64, d, a, b),
            Op::Band32 { d, a, b } => self.binary(S::band, I32, d, a, b),
            Op::Icmp { pred, ty, d, a, b } => self.icmp(pred, ty, d, a, b),
            Op::Select { ty, d, c, t, f } => self.select(ty, d, c, t, f),
            Op::Fadd { ty, d, a, b, site } => self.float_binary(Fadd, ty, d, a, b, site),
            Op::Fsub { ty, d, a, b, site } => self.float_binary(Fsub, ty, d, a, b, site),
            Op::Fmul { ty, d, a, b, site } => self.float_binary(Fmul, ty, d, a, b, site),
            Op::Fdiv { ty, d, a, b, site } => self.float_binary(Fdiv, ty, d, a, b, site),
            Op::Frem { ty, d, a, b, site } => self.float_binary(Frem, ty, d, a, b, site),
            Op::Fadd64 { d, a, b, site } => self.float_binary(Fadd, F64, d, a, b, site),
            Op::Fsub64 { d, a, b, site } => self.float_binary(Fsub, F64, d, a, b, site),
            Op::Fmul64 { d, a, b, site } => self.float_binary(Fmul, F64, d, a, b, site),
            Op::Fdiv64 { d, a, b, site } => self.float_binary(Fdiv, F64, d, a, b, site),
            Op::Fneg { ty, d, a } => self.fneg(ty, d, a),
            Op::Fcmp { pred, ty, d, a, b } => self.fcmp(pred, ty, d, a, b),
            Op::Trunc { from, to, d, a } => self.conversion(S::trunc, from, to, d, a),
            Op::Zext { from, to, d, a } => self.conversion(S::zext, from, to, d, a),
            Op::Sext { from, to, d, a } => self.conversion(S::sext, from, to, d, a),
            Op::Fptrunc { from, to, d, a } => self.float_conversion(C::Fptrunc, from, to, d, a),
            Op::Fpext { from, to, d, a } => self.float_conversion(C::Fpext, from, to, d, a),
            Op::Fptoui { from, to, d, a } => self.float_conversion(C::Fptoui, from, to, d, a),
            Op::Fptosi { from, to, d, a } => self.float_conversion(C::Fptosi, from, to, d, a),
            Op::Uitofp { from, to, d, a } => self.float_conversion(C::Uitofp, from, to, d, a),
            Op::Sitofp { from, to, d, a } => self.float_conversion(C::Sitofp, from, to, d, a),
            Op::Ptrtoint { from, to, d, a } => self.conversion(S::ptrtoint, from, to, d, a),
            Op::Inttoptr { from, to, d, a } => self.conversion(S::inttoptr, from, to, d, a),
            Op::Bitcast { from, to, d, a } => self.conversion(S::bitcast, from, to, d, a),
            Op::Sext32To64 { d, a } => self.conversion(S::sext, I32, I64, d, a),
            Op::Sitofp32To64 { d, a } => self.float_conversion(C::Sitofp, I32, Type::F64, d, a),
            Op::Zext32To64 { d, a } => self.conversion(S::zext, I32, I64, d, a),
            Op::Trunc64To32 { d, a } => self.conversion(S::trunc, I64, I32, d, a),
            Op::Load { ty, d, addr } => self.load(ty, d, addr),
            Op::LoadF64 { d, addr } => self.load(Type::F64, d, addr),
            Op::LoadI64 { d, addr } => self.load(I64, d, addr),
            Op::Store { ty, addr, val } => self.store(ty, addr, val),
            Op::StoreF64 { addr, val } => self.store(Type::F64, addr, val),
            Op::StoreI64 { addr, val } => self.store(I64, addr, val),
            Op::Alloca { .. } => self.alloca(op),
            Op::AllocaCell { size, align } => self.reserve_cell(size, align),
            Op::PtrOffset { .. } => self.ptr_offset(op),
            Op::PtrOffset1 { .. } => self.ptr_offset1(op),
            Op::LoadCell { ty, d, cell } => self.load_cell(ty, d, cell),
            Op::LoadCellI64 { d, cell } => self.load_cell(I64, d, cell),
            Op::LoadCellF64 { d, cell } => self.load_cell(Type::F64, d, cell),
            Op::Move { d, a } => self.copy(d, a),
            Op::StackSave { d } => self.stack_save(d),
            Op::StackRestore { a } => self.stack_restore(a),
            Op::Call { .. } => self.call(op),
            Op::CallIndirect { .. } => self.call_indirect(op),
            Op::Math { .. } => self.math(op),
            Op::Builtin { .. } => self.builtin(op),
            Op::External { index } => self.external(index),
            Op::Br { .. } => self.br(op),
            Op::IcmpBr { .. } => self.icmp_br(op),
            Op::FcmpBr { .. } | Op::FcmpBr64 { .. } => self.fcmp_br(op),
            // By reference: copying the operands out of the op made the compiler keep them
            // in registers (and spill) across the shared branch-reporting code (measured:
            // 1-2 % more instructions per musl call).
            Op::IcmpBrEq64(ref c) => self.icmp_branch(Eq, I64, c),
            Op::IcmpBrNe64(ref c) => self.icmp_branch(Ne, I64, c),
            Op::IcmpBrUlt64(ref c) => self.icmp_branch(Ult, I64, c),
            Op::IcmpBrUle64(ref c) => self.icmp_branch(Ule, I64, c),
            Op::IcmpBrUgt64(ref c) => self.icmp_branch(Ugt, I64, c),
            Op::IcmpBrUge64(ref c) => self.icmp_branch(Uge, I64, c),
            Op::IcmpBrSlt64(ref c) => self.icmp_branch(Slt, I64, c),
            Op::IcmpBrSle64(ref c) => self.icmp_branch(Sle, I64, c),
            Op::IcmpBrSgt64(ref c) => self.icmp_branch(Sgt, I64, c),
            Op::IcmpBrSge64(ref c) => self.icmp_branch(Sge, I64, c),
            Op::IcmpBrEq32(ref c) => self.icmp_branch(Eq, I32, c),
            Op::IcmpBrNe32(ref c) => self.icmp_branch(Ne, I32, c),
            Op::IcmpBrUlt32(ref c) => self.icmp_branch(Ult, I32, c),
            Op::IcmpBrUle32(ref c) => self.icmp_branch(Ule, I32, c),
            Op::IcmpBrUgt32(ref c) => self.icmp_branch(Ugt, I32, c),
            Op::IcmpBrUge32(ref c) => self.icmp_branch(Uge, I32, c),
            Op::IcmpBrSlt32(ref c) => self.icmp_branch(Slt, I32, c),
            Op::IcmpBrSle32(ref c) => self.icmp_branch(Sle, I32, c),
            Op::IcmpBrSgt32(ref c) => self.icmp_branch(Sgt, I32, c),
            Op::IcmpBrSge32(ref c) => self.icmp_branch(Sge, I32, c),
            Op::FcmpBrOeq64(ref c) => self.fcmp_branch(Oeq, c),
            Op::FcmpBrUne64(ref c) => self.fcmp_branch(Une, c),
            Op::FcmpBrOlt64(ref c) => self.fcmp_branch(Olt, c),
            Op::FcmpBrOle64(ref c) => self.fcmp_branch(Ole, c),
            Op::FcmpBrOgt64(ref c) => self.fcmp_branch(Ogt, c),
            Op::FcmpBrOge64(ref c) => self.fcmp_branch(Oge, c),
            Op::Switch { .. } => self.switch(op),
            Op::Jump { edge } => Control::Jump(edge),
            Op::JumpMove1 { pc, d, a } => self.jump_moving(pc, [d], [a]),
            Op::JumpMove2 { pc, d, a } => self.jump_moving(pc, d, a),
            Op::JumpMove3 { pc, d, a } => self.jump_moving(pc, d, a),
            Op::Ret { value } => Control::Ret(value),
            Op::Unreachable => self.trap(TrapKind::Unreachable),
            Op::Nop => Control::Next,
        }
    }

    /// The pc an edge of the activation's function leads to, its moves done.
    #[inline(always)]
    pub(super) fn take_edge(&mut self, edge: u32) -> usize {
        super::take_edge(self.scratch, self.regs.0, self.fc, edge)
    }

    /// Reports `kind` (in `Machine::pending`) and stops the run.
    #[inline(always)]
    pub(super) fn trap(&mut self, kind: TrapKind) -> Control {
        *self.pending = Some(kind);
        Control::Trap
    }

    /// Writes `v` to register `d`.
    #[inline(always)]
    fn set(&mut self, d: Slot, v: S::Value) -> Control {
        self.regs.set(d, v);
        Control::Next
    }

    #[inline(always)]
    fn set_or_trap(&mut self, d: Slot, r: Result<S::Value, TrapKind>) -> Control {
        match r {
            Ok(v) => self.set(d, v),
            Err(kind) => self.trap(kind),
        }
    }

    #[inline(always)]
    fn next_or_trap(&mut self, r: Result<(), TrapKind>) -> Control {
        match r {
            Ok(()) => Control::Next,
            Err(kind) => self.trap(kind),
        }
    }
}

/// Integer and float arithmetic, comparisons, `select` and conversions.
impl<S: Semantics, O: Observer, const EXACT_ENV: bool> Step<'_, S, O, EXACT_ENV> {
    #[inline(always)]
    fn binary(
        &mut self,
        f: impl FnOnce(&mut S, Type, &S::Value, &S::Value) -> S::Value,
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    ) -> Control {
        let v = f(self.sem, ty, self.regs.get(a), self.regs.get(b));
        self.set(d, v)
    }

    /// A division or remainder, which traps on a zero divisor (and signed overflow).
    #[inline(always)]
    fn division(
        &mut self,
        f: impl FnOnce(&mut S, Type, &S::Value, &S::Value) -> Result<S::Value, TrapKind>,
        ty: Type,
        d: Slot,
        a: Slot,
        b: Slot,
    ) -> Control {
        let r = f(self.sem, ty, self.regs.get(a), self.regs.get(b));
        self.set_or_trap(d, r)
    }

    #[inline(always)]
    fn icmp(&mut self, pred: IntPred, ty: Type, d: Slot, a: Slot, b: Slot) -> Control {
        let v = self.sem.icmp(pred, ty, self.regs.get(a), self.regs.get(b));
        self.set(d, v)
    }

    #[inline(always)]
    fn select(&mut self, ty: Type, d: Slot, c: Slot, t: Slot, f: Slot) -> Control {
        let (c, t, f) = (self.regs.get(c), self.regs.get(t), self.regs.get(f));
        let v = self.sem.select(ty, c, t, f);
        self.set(d, v)
    }

    /// A float operation, reported to observers that watch them. In a modelled
    /// floating-point environment ([`crate::fenv`]) the result is `op`'s in the run's
    /// mode, a constant to the semantics.
    #[inline(always)]
    fn float_binary(
        &mut self,
        op: FloatBinOp,
        ty: FloatTy,
        d: Slot,
        a: Slot,
        b: Slot,
        site: OpSite,
    ) -> Control {
        self.sem.op_site(site);
        let (x, y) = (self.regs.get(a), self.regs.get(b));
        let semantic = |sem: &mut S| match op {
            FloatBinOp::Fadd => sem.fadd(ty, x, y),
            FloatBinOp::Fsub => sem.fsub(ty, x, y),
            FloatBinOp::Fmul => sem.fmul(ty, x, y),
            FloatBinOp::Fdiv => sem.fdiv(ty, x, y),
            FloatBinOp::Frem => sem.frem(ty, x, y),
        };
        let v = if !EXACT_ENV {
            semantic(self.sem)
        } else {
            let nearest = self.env.float.mode() == RoundingMode::Nearest;
            let bits = [self.sem.concrete_bits(x), self.sem.concrete_bits(y)];
            let bits = in_env(&mut self.env.float, |mode| {
                fenv::float_bin(op, ty, mode, bits[0], bits[1])
            });
            // The semantics' own operation is round-to-nearest's: where the run is in
            // that mode, its value (a term, a high-precision shadow) is still right, and
            // only the flags come from outside it.
            env_operand(self.sem, nearest, x);
            env_operand(self.sem, nearest, y);
            if nearest {
                semantic(self.sem)
            } else {
                self.sem.constant(Type::Float(ty), bits)
            }
        };
        if O::OBSERVES_OPS {
            self.obs.on_op(&OpEvent {
                site,
                operands: [self.sem.concrete_bits(x), self.sem.concrete_bits(y), 0],
                arity: 2,
                result: self.sem.concrete_bits(&v),
            });
        }
        self.set(d, v)
    }

    #[inline(always)]
    fn fneg(&mut self, ty: FloatTy, d: Slot, a: Slot) -> Control {
        let v = self.sem.fneg(ty, self.regs.get(a));
        self.set(d, v)
    }

    #[inline(always)]
    fn fcmp(&mut self, pred: FloatPred, ty: FloatTy, d: Slot, a: Slot, b: Slot) -> Control {
        let v = self.sem.fcmp(pred, ty, self.regs.get(a), self.regs.get(b));
        self.set(d, v)
    }

    /// A conversion to or from a float; in a modelled floating-point environment, `cast`'s
    /// result in the run's mode, a constant to the semantics.
    #[inline(always)]
    fn float_conversion(
        &mut self,
        cast: FloatCast,
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    ) -> Control {
        let x = self.regs.get(a);
        let semantic = |sem: &mut S| match cast {
            FloatCast::Fptrunc => sem.fptrunc(from, to, x),
            FloatCast::Fpext => sem.fpext(from, to, x),
            FloatCast::Fptoui => sem.fptoui(from, to, x),
            FloatCast::Fptosi => sem.fptosi(from, to, x),
            FloatCast::Uitofp => sem.uitofp(from, to, x),
            FloatCast::Sitofp => sem.sitofp(from, to, x),
        };
        let v = if !EXACT_ENV {
            semantic(self.sem)
        } else {
            let nearest = self.env.float.mode() == RoundingMode::Nearest;
            let bits = self.sem.concrete_bits(x);
            let bits = in_env(&mut self.env.float, |mode| cast.eval(from, to, mode, bits));
            env_operand(self.sem, nearest, x);
            if nearest {
                semantic(self.sem)
            } else {
                self.sem.constant(to, bits)
            }
        };
        self.set(d, v)
    }

    #[inline(always)]
    fn conversion(
        &mut self,
        f: impl FnOnce(&mut S, Type, Type, &S::Value) -> S::Value,
        from: Type,
        to: Type,
        d: Slot,
        a: Slot,
    ) -> Control {
        let v = f(self.sem, from, to, self.regs.get(a));
        self.set(d, v)
    }
}

/// Memory: loads, stores, stack allocation, address arithmetic and register cells.
impl<S: Semantics, O: Observer, const EXACT_ENV: bool> Step<'_, S, O, EXACT_ENV> {
    /// The concrete bits of register `slot`.
    #[inline(always)]
    fn bits(&self, slot: Slot) -> u64 {
        self.sem.concrete_bits(self.regs.get(slot))
    }

    #[inline(always)]
    fn set_address(&mut self, d: Slot, at: u64) -> Control {
        let v = self.sem.address(at);
        self.set(d, v)
    }

    #[inline(always)]
    fn load(&mut self, ty: Type, d: Slot, addr: Slot) -> Control {
        let r = self.sem.load(self.mem, ty, self.bits(addr));
        self.set_or_trap(d, r)
    }

    #[inline(always)]
    fn store(&mut self, ty: Type, addr: Slot, val: Slot) -> Control {
        let at = self.bits(addr);
        let r = self.sem.store(self.mem, ty, at, self.regs.get(val));
        self.next_or_trap(r)
    }

    #[inline(always)]
    fn alloca(&mut self, op: &Op) -> Control {
        let Op::Alloca {
            d,
            size,
            count,
            count_ty,
            align,
        } = *op
        else {
            unreachable!("step passes only allocas")
        };
        let n = if count == NONE {
            1
        } else {
            self.bits(count) & count_ty.mask()
        };
        let at = size
            .checked_mul(n)
            .ok_or(TrapKind::StackOverflow)
            .and_then(|total| self.mem.alloca(total, u64::from(align)));
        match at {
            Ok(at) => self.set_address(d, at),
            Err(kind) => self.trap(kind),
        }
    }

    #[inline(always)]
    fn reserve_cell(&mut self, size: u64, align: u32) -> Control {
        let r = self.mem.reserve_cell(size, u64::from(align));
        self.next_or_trap(r)
    }

    #[inline(always)]
    fn ptr_offset(&mut self, op: &Op) -> Control {
        let Op::PtrOffset {
            d,
            base,
            offset,
            start,
            len,
        } = *op
        else {
            unreachable!("step passes only PtrOffset")
        };
        let mut at = self.bits(base).wrapping_add(offset as u64);
        for &(index, ty, scale) in &self.fc.terms[start as usize..(start + len) as usize] {
            self.sem.address_index(self.regs.get(index));
            at = at.wrapping_add(scaled_index(self.bits(index), ty, scale));
        }
        self.set_address(d, at)
    }

    #[inline(always)]
    fn ptr_offset1(&mut self, op: &Op) -> Control {
        let Op::PtrOffset1 {
            d,
            base,
            index,
            index_ty,
            offset,
            scale,
        } = *op
        else {
            unreachable!("step passes only PtrOffset1")
        };
        self.sem.address_index(self.regs.get(index));
        let at = self
            .bits(base)
            .wrapping_add(offset as u64)
            .wrapping_add(scaled_index(self.bits(index), index_ty, scale));
        self.set_address(d, at)
    }

    /// A load from a register cell (a stack slot kept in a register): the cell
    /// register's bits at type `ty`.
    #[inline(always)]
    fn load_cell(&mut self, ty: Type, d: Slot, cell: Slot) -> Control {
        let v = self.sem.constant(ty, self.bits(cell) & ty.mask());
        self.set(d, v)
    }

    /// A register copy (a store to a register cell).
    #[inline(always)]
    fn copy(&mut self, d: Slot, a: Slot) -> Control {
        let v = self.regs.get(a).clone();
        self.set(d, v)
    }

    #[inline(always)]
    fn stack_save(&mut self, d: Slot) -> Control {
        self.set_address(d, self.mem.stack_pointer())
    }

    #[inline(always)]
    fn stack_restore(&mut self, a: Slot) -> Control {
        let at = self.bits(a);
        // A restore below the frame's own mark would free the caller's allocas.
        if at >= self.mark {
            self.mem.stack_release(at);
        }
        Control::Next
    }
}

/// Calls: direct and indirect calls become [`Control::Call`] for the driver; math calls
/// and builtins run here.
impl<S: Semantics, O: Observer, const EXACT_ENV: bool> Step<'_, S, O, EXACT_ENV> {
    #[inline(always)]
    fn call(&mut self, op: &Op) -> Control {
        let Op::Call {
            func,
            d,
            start,
            len,
        } = *op
        else {
            unreachable!("step passes only calls")
        };
        Control::Call {
            func,
            dest: d,
            start,
            len,
        }
    }

    #[inline(always)]
    fn call_indirect(&mut self, op: &Op) -> Control {
        let Op::CallIndirect {
            target,
            d,
            start,
            len,
        } = *op
        else {
            unreachable!("step passes only indirect calls")
        };
        let at = self.bits(target);
        match self.mem.func_at(at) {
            Some(func) if self.prog.funcs[func as usize].params.len() == len as usize => {
                Control::Call {
                    func,
                    dest: d,
                    start,
                    len,
                }
            }
            _ => self.trap(TrapKind::BadIndirectCall { addr: at }),
        }
    }

    /// A math call; `frexp` and `modf` store their second result through the pointer
    /// argument.
    #[inline(always)]
    fn math(&mut self, op: &Op) -> Control {
        let Op::Math {
            call,
            site,
            ret,
            d,
            start,
            len,
        } = *op
        else {
            unreachable!("step passes only math calls")
        };
        self.sem.op_site(site);
        self.scratch.clear();
        for &a in &self.fc.args[start as usize..(start + len) as usize] {
            self.scratch.push(self.regs.get(a).clone());
        }
        let (v, second) = if !EXACT_ENV {
            self.sem.math(call, self.scratch, ret)
        } else {
            self.math_in_env(call, ret)
        };
        if let Some(second) = second {
            if let (Some(ptr), Some(ty)) = (self.scratch.get(1), call.second_result()) {
                let at = self.sem.concrete_bits(ptr);
                if let Err(kind) = self.sem.store(self.mem, ty, at, &second) {
                    return self.trap(kind);
                }
            }
        }
        if O::OBSERVES_OPS {
            let mut operands = [0u64; 3];
            for (o, a) in operands.iter_mut().zip(self.scratch.iter()) {
                *o = self.sem.concrete_bits(a);
            }
            self.obs.on_op(&OpEvent {
                site,
                operands,
                arity: self.scratch.len().min(3) as u8,
                result: self.sem.concrete_bits(&v),
            });
        }
        if d != NONE {
            self.regs.set(d, v);
        }
        Control::Next
    }

    /// A math call on the arguments in `scratch` in a modelled floating-point
    /// environment: in round-to-nearest the semantics' own results (the host's libm
    /// computes the same bits either way), else constants to the semantics.
    #[cold]
    fn math_in_env(&mut self, call: MathCall, ret: Type) -> (S::Value, Option<S::Value>) {
        let nearest = self.env.float.mode() == RoundingMode::Nearest;
        for v in self.scratch.iter() {
            env_operand(self.sem, nearest, v);
        }
        let bits: Vec<u64> = self
            .scratch
            .iter()
            .map(|v| self.sem.concrete_bits(v))
            .collect();
        let env = &mut self.env.float;
        let (result, second, raised) = fenv::math(call, &bits, ret, env.mode());
        env.record(Rounded {
            bits: result,
            raised,
        });
        if nearest {
            return self.sem.math(call, self.scratch, ret);
        }
        let second = second
            .zip(call.second_result())
            .map(|(bits, ty)| self.sem.constant(ty, bits));
        (self.sem.constant(ret, result), second)
    }

    #[inline(always)]
    fn builtin(&mut self, op: &Op) -> Control {
        let Op::Builtin {
            b,
            ty,
            d,
            start,
            len,
        } = *op
        else {
            unreachable!("step passes only builtins")
        };
        let args = &self.fc.args[start as usize..(start + len) as usize];
        match b {
            Builtin::Libc(f) => return self.libc(f, args, d),
            Builtin::F80(op) => return self.f80(op, ty, args, d),
            _ => {}
        }
        let mut bits = [0u64; 3];
        for (x, &s) in bits.iter_mut().zip(args) {
            *x = self.bits(s);
        }
        // The closure borrows the registers alone (not `self`), so `Step` can stay in
        // registers.
        let regs: &[S::Value] = self.regs.0;
        let value = |k: usize| &regs[args[k] as usize];
        match builtin::run(self.sem, self.mem, b, ty, bits, value, self.mark) {
            Ok(Some(v)) if d != NONE => self.set(d, v),
            Ok(_) => Control::Next,
            Err(kind) => self.trap(kind),
        }
    }

    /// A C library function, which may take any number of arguments (`printf`).
    #[cold]
    fn libc(&mut self, f: LibcFn, args: &[Slot], d: Slot) -> Control {
        if d != NONE || !f.only_writes_a_stream() {
            for &s in args {
                self.sem.concretized(self.regs.get(s));
            }
            if f.reads_memory() {
                self.sem.libc_reads_memory();
            }
            if f.reads_flags() {
                self.sem.libc_reads_flags();
            }
        }
        let bits: Vec<u64> = args.iter().map(|&s| self.bits(s)).collect();
        match crate::libc::call(self.sem, self.mem, self.env, f, &bits) {
            Ok(Some(v)) if d != NONE => self.set(d, v),
            Ok(_) => Control::Next,
            Err(kind) => self.trap(kind),
        }
    }

    /// An operation on extended values: up to [`builtin::F80_MAX_ARGS`] arguments.
    #[cold]
    fn f80(&mut self, op: F80Op, ty: Type, args: &[Slot], d: Slot) -> Control {
        // Every operation takes at least one argument; the first fills the unused places.
        let n = args.len().min(builtin::F80_MAX_ARGS);
        let values: [S::Value; builtin::F80_MAX_ARGS] =
            std::array::from_fn(|k| self.regs.get(args[if k < n { k } else { 0 }]).clone());
        match self.sem.f80(self.mem, self.env, op, ty, &values[..n]) {
            Ok(v) if d != NONE => self.set(d, v),
            Ok(_) => Control::Next,
            Err(kind) => self.trap(kind),
        }
    }

    #[inline(always)]
    fn external(&mut self, index: u32) -> Control {
        // Through `module` rather than a slice argument: the compiler would load the
        // slice's pointer and length at every dispatch.
        let name = self.module.externals.get(index as usize);
        self.trap(TrapKind::UnknownExternal(name.cloned().unwrap_or_default()))
    }
}

/// Control: `br`, fused compare-and-branch ops, `switch` and jumps that move registers.
impl<S: Semantics, O: Observer, const EXACT_ENV: bool> Step<'_, S, O, EXACT_ENV> {
    #[inline(always)]
    fn br(&mut self, op: &Op) -> Control {
        let Op::Br {
            cond,
            then_edge,
            else_edge,
            site,
            lhs,
            rhs,
        } = *op
        else {
            unreachable!("step passes only br")
        };
        let taken = self.bits(cond) & 1 != 0;
        self.sem.br(site, self.regs.get(cond), taken);
        if O::OBSERVES_BRANCHES {
            let operands = (lhs != NONE).then(|| [self.bits(lhs), self.bits(rhs)]);
            self.obs.on_cond(site, taken, operands);
        }
        Control::Jump(if taken { then_edge } else { else_edge })
    }

    /// A fused integer compare-and-branch whose comparison is written to its register.
    #[inline(always)]
    fn icmp_br(&mut self, op: &Op) -> Control {
        let Op::IcmpBr {
            pred,
            ty,
            d,
            a,
            b,
            then_edge,
            else_edge,
            site,
        } = *op
        else {
            unreachable!("step passes only IcmpBr")
        };
        let v = self.sem.icmp(pred, ty, self.regs.get(a), self.regs.get(b));
        self.compare_branch(v, d, &cmp_br(a, b, then_edge, else_edge, site))
    }

    /// A fused float compare-and-branch whose comparison is written to its register.
    #[inline(always)]
    fn fcmp_br(&mut self, op: &Op) -> Control {
        let (pred, ty, d, c) = match *op {
            Op::FcmpBr {
                pred,
                ty,
                d,
                a,
                b,
                then_edge,
                else_edge,
                site,
            } => (pred, ty, d, cmp_br(a, b, then_edge, else_edge, site)),
            Op::FcmpBr64 {
                pred,
                d,
                a,
                b,
                then_edge,
                else_edge,
                site,
            } => (
                pred,
                FloatTy::F64,
                d,
                cmp_br(a, b, then_edge, else_edge, site),
            ),
            _ => unreachable!("step passes only FcmpBr and FcmpBr64"),
        };
        let v = self
            .sem
            .fcmp(pred, ty, self.regs.get(c.a), self.regs.get(c.b));
        self.compare_branch(v, d, &c)
    }

    /// A specialized fused integer compare-and-branch (nothing else reads the comparison).
    #[inline(always)]
    fn icmp_branch(&mut self, pred: IntPred, ty: Type, c: &CmpBr) -> Control {
        let v = self
            .sem
            .icmp(pred, ty, self.regs.get(c.a), self.regs.get(c.b));
        Control::Jump(self.decide(&v, c))
    }

    /// As [`Step::icmp_branch`], for `f64` comparisons.
    #[inline(always)]
    fn fcmp_branch(&mut self, pred: FloatPred, c: &CmpBr) -> Control {
        let (a, b) = (self.regs.get(c.a), self.regs.get(c.b));
        let v = self.sem.fcmp(pred, FloatTy::F64, a, b);
        Control::Jump(self.decide(&v, c))
    }

    #[inline(always)]
    fn compare_branch(&mut self, v: S::Value, d: Slot, c: &CmpBr) -> Control {
        let edge = self.decide(&v, c);
        self.regs.set(d, v);
        Control::Jump(edge)
    }

    /// Reports the branch on the comparison `v` of `c.a` and `c.b` and returns the edge
    /// it takes.
    #[inline(always)]
    fn decide(&mut self, v: &S::Value, c: &CmpBr) -> u32 {
        let taken = self.sem.concrete_bits(v) & 1 != 0;
        self.sem.br(c.site, v, taken);
        if O::OBSERVES_BRANCHES {
            let operands = [self.bits(c.a), self.bits(c.b)];
            self.obs.on_cond(c.site, taken, Some(operands));
        }
        if taken {
            c.then_edge
        } else {
            c.else_edge
        }
    }

    #[inline(always)]
    fn switch(&mut self, op: &Op) -> Control {
        let Op::Switch {
            ty,
            value,
            table,
            site,
        } = *op
        else {
            unreachable!("step passes only switches")
        };
        let v = self.bits(value) & ty.mask();
        let table = &self.fc.switches[table as usize];
        let (case, edge) = match table.cases.binary_search_by_key(&v, |c| c.0) {
            Ok(i) => (Some(table.cases[i].1), table.cases[i].2),
            Err(_) => (None, table.default),
        };
        self.sem.switch(site, ty, self.regs.get(value), case);
        if O::OBSERVES_BRANCHES {
            self.obs.on_branch(&BranchEvent {
                side: Side {
                    site,
                    arm: Arm::case(case),
                },
                operands: Some([v, 0]),
            });
        }
        Control::Jump(edge)
    }

    /// A jump straight to `pc` that copies the registers `a` to `d` (a parallel copy).
    #[inline(always)]
    fn jump_moving<const N: usize>(&mut self, pc: u32, d: [Slot; N], a: [Slot; N]) -> Control {
        let values = a.map(|a| self.regs.get(a).clone());
        for (d, v) in d.into_iter().zip(values) {
            self.regs.set(d, v);
        }
        // `pc < DIRECT` (preparation), so `DIRECT | pc` is the edge straight to it.
        Control::Jump(DIRECT | pc)
    }
}

/// The operands of a general fused compare-and-branch, as the specialized ones hold them.
#[inline(always)]
fn cmp_br(a: Slot, b: Slot, then_edge: u32, else_edge: u32, site: BranchSite) -> CmpBr {
    CmpBr {
        a,
        b,
        then_edge,
        else_edge,
        site,
    }
}

/// `index * scale` with the index sign-extended from its type, wrapping.
#[inline(always)]
fn scaled_index(bits: u64, ty: Type, scale: i64) -> u64 {
    let i = if ty.is_int() {
        ty.sign_extend(bits)
    } else {
        bits as i64
    };
    i.wrapping_mul(scale) as u64
}
