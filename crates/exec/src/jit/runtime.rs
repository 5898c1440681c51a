//! What compiled code calls at run time: the context block it reads and writes, and the
//! helpers for memory, math calls, builtins, conversions with x86 edge cases and branch
//! events. Each helper does what the interpreter's `step` does for the same op under
//! [`Concrete`], on the same [`Memory`] and [`FloatEnv`]; where `step` would trap, the helper sets
//! [`Ctx::bail`] instead and the run is replayed in the interpreter, which reports the
//! trap with its location. The helpers that read the context are `unsafe extern "C"`:
//! their contract is that compiled code passes its run's live [`Ctx`].

use crate::builtin;
use crate::concrete::Concrete;
use crate::fenv::FloatEnv;
use crate::memory::Memory;
use crate::observer::BranchEvent;
use crate::semantics::Semantics;
use crate::trap::TrapKind;
use fpir::f80::Evaluated;
use fpir::f80::MAX_ARGS;
use fpir::{Arm, BranchSite, Builtin, FloatTy, MathCall, Side, Type};

/// The state compiled code shares with its helpers. Compiled code addresses the first
/// fields by their offsets.
///
/// A context is *live* from the moment `Jit::run` builds it on its stack until the run
/// returns, and compiled code passes only its run's live context to the helpers (the
/// `# Safety` contract of every helper that reads it). While it is live, `mem` points at
/// the interpreter's memory, `float_env` at the run's floating-point environment and
/// `buffer` at the `Jit`'s record buffer, all borrowed mutably by `Jit::run` for the
/// run; `tables` points at the `Jit`'s tables; `sp` and
/// `live_top` point into `*mem`; and the records from the buffer's start up to
/// `records_next` are written, within its capacity (`records_end`). Compiled code runs on
/// the thread that called `Jit::run` and touches the context only between helper calls.
#[repr(C)]
pub(crate) struct Ctx {
    /// Non-zero once the run must be replayed in the interpreter.
    pub bail: u64,
    /// Ops executed so far, counted as the interpreter counts them.
    pub steps: u64,
    /// The fuel of the run.
    pub fuel: u64,
    /// Current call depth (0 in the entry function).
    pub depth: u64,
    /// Depth at which a call bails.
    pub max_depth: u64,
    /// Native stack address below which a call bails: compiled frames live on the
    /// caller's thread stack, so they get a budget of their own.
    pub stack_floor: u64,
    /// Where the next branch record goes (see [`Record`]); compiled code writes records
    /// inline while this is below `records_end`.
    pub records_next: *mut Record,
    pub records_end: *mut Record,
    /// `Memory`'s stack pointer (an offset), for the inline register-cell reservations.
    pub sp: *mut u64,
    /// `Memory`'s end of the highest live `alloca`.
    pub live_top: *const u64,
    pub stack_limit: u64,
    pub mem: *mut Memory,
    /// The buffer behind `records`, grown by [`grow_records`].
    pub buffer: *mut Vec<Record>,
    pub tables: *const Tables,
    /// The half of the last extended result of [`f80`] that it did not return.
    pub f80_other: u64,
    /// The run's floating-point environment, which [`f80`] rounds in.
    pub float_env: *mut FloatEnv,
}

/// One branch event as compiled code writes it: `site | kind << 32`, then the operands.
/// A kind with [`Record::SWITCH`] set is a switch whose low 31 bits are the case index
/// ([`Record::DEFAULT`] for the default); otherwise bit 0 is the direction and bit 1
/// says whether the operands are present.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record {
    pub head: u64,
    pub a: u64,
    pub b: u64,
}

impl Record {
    pub const SWITCH: u64 = 1 << 31;
    pub const DEFAULT: u64 = (1 << 31) - 1;
    pub const WITH_OPERANDS: u64 = 2;

    /// The event the interpreter reports for this record.
    #[inline]
    pub fn event(&self) -> BranchEvent {
        let site = BranchSite(self.head as u32);
        let kind = self.head >> 32;
        if kind & Self::SWITCH != 0 {
            let case = kind & Self::DEFAULT;
            BranchEvent {
                side: Side {
                    site,
                    arm: Arm::case((case != Self::DEFAULT).then_some(case as u32)),
                },
                operands: Some([self.a, 0]),
            }
        } else {
            BranchEvent {
                side: Side {
                    site,
                    arm: Arm::cond(kind & 1 != 0),
                },
                operands: (kind & Self::WITH_OPERANDS != 0).then_some([self.a, self.b]),
            }
        }
    }
}

impl Ctx {
    pub const BAIL_OFFSET: i32 = std::mem::offset_of!(Ctx, bail) as i32;
    pub const STEPS_OFFSET: i32 = std::mem::offset_of!(Ctx, steps) as i32;
    pub const FUEL_OFFSET: i32 = std::mem::offset_of!(Ctx, fuel) as i32;
    pub const DEPTH_OFFSET: i32 = std::mem::offset_of!(Ctx, depth) as i32;
    pub const MAX_DEPTH_OFFSET: i32 = std::mem::offset_of!(Ctx, max_depth) as i32;
    pub const STACK_FLOOR_OFFSET: i32 = std::mem::offset_of!(Ctx, stack_floor) as i32;
    pub const RECORDS_NEXT_OFFSET: i32 = std::mem::offset_of!(Ctx, records_next) as i32;
    pub const RECORDS_END_OFFSET: i32 = std::mem::offset_of!(Ctx, records_end) as i32;
    pub const SP_OFFSET: i32 = std::mem::offset_of!(Ctx, sp) as i32;
    pub const LIVE_TOP_OFFSET: i32 = std::mem::offset_of!(Ctx, live_top) as i32;
    pub const STACK_LIMIT_OFFSET: i32 = std::mem::offset_of!(Ctx, stack_limit) as i32;
    pub const F80_OTHER_OFFSET: i32 = std::mem::offset_of!(Ctx, f80_other) as i32;

    /// Records written so far.
    pub fn records_len(&self) -> usize {
        // SAFETY: in a live context (see the type's docs) `records_next` points into, or
        // one past, the buffer `buffer` points at, at or after its start.
        unsafe { self.records_next.offset_from((*self.buffer).as_ptr()) as usize }
    }
}

/// Math calls and builtins named by index in compiled code.
#[derive(Default)]
pub(crate) struct Tables {
    math: Vec<(MathCall, Type)>,
    builtins: Vec<(Builtin, Type)>,
}

impl Tables {
    pub fn math_index(&mut self, call: MathCall, ret: Type) -> usize {
        index_of(&mut self.math, (call, ret))
    }

    pub fn builtin_index(&mut self, b: Builtin, ty: Type) -> usize {
        index_of(&mut self.builtins, (b, ty))
    }
}

fn index_of<T: PartialEq>(table: &mut Vec<T>, item: T) -> usize {
    match table.iter().position(|t| *t == item) {
        Some(i) => i,
        None => {
            table.push(item);
            table.len() - 1
        }
    }
}

/// A type as an immediate operand of a helper.
pub(crate) fn type_code(ty: Type) -> u64 {
    match ty {
        Type::Int(w) => u64::from(w),
        Type::Float(FloatTy::F32) => 65,
        Type::Float(FloatTy::F64) => 66,
        Type::Ptr => 67,
    }
}

fn code_type(code: u64) -> Type {
    match code & 0xff {
        65 => Type::F32,
        66 => Type::F64,
        67 => Type::Ptr,
        w => Type::Int(w as u8),
    }
}

/// The helpers by index, with their arity after the context pointer.
pub(crate) const HELPERS: [(*const u8, usize); 15] = [
    (load as *const u8, 2),
    (store as *const u8, 3),
    (alloca as *const u8, 3),
    (reserve_cell as *const u8, 2),
    (stack_pointer as *const u8, 0),
    (stack_release as *const u8, 1),
    (stack_restore as *const u8, 2),
    (grow_records as *const u8, 0),
    (math as *const u8, 5),
    (builtin as *const u8, 5),
    (frem as *const u8, 3),
    (fptosi as *const u8, 2),
    (fptoui as *const u8, 2),
    (stack_invalidate as *const u8, 1),
    (f80 as *const u8, 2),
];
pub(crate) const HELPER_LOAD: usize = 0;
pub(crate) const HELPER_STORE: usize = 1;
pub(crate) const HELPER_ALLOCA: usize = 2;
pub(crate) const HELPER_RESERVE_CELL: usize = 3;
pub(crate) const HELPER_STACK_POINTER: usize = 4;
pub(crate) const HELPER_STACK_RELEASE: usize = 5;
pub(crate) const HELPER_STACK_RESTORE: usize = 6;
pub(crate) const HELPER_GROW_RECORDS: usize = 7;
pub(crate) const HELPER_MATH: usize = 8;
pub(crate) const HELPER_BUILTIN: usize = 9;
pub(crate) const HELPER_FREM: usize = 10;
pub(crate) const HELPER_FPTOSI: usize = 11;
pub(crate) const HELPER_FPTOUI: usize = 12;
pub(crate) const HELPER_STACK_INVALIDATE: usize = 13;
pub(crate) const HELPER_F80: usize = 14;

/// The context behind `ctx` and the memory it runs on, for a helper.
///
/// # Safety
/// `ctx` is a live context (see [`Ctx`]): compiled code passes the one its run was
/// started with.
unsafe fn parts<'a>(ctx: *mut Ctx) -> (&'a mut Ctx, &'a mut Memory) {
    // SAFETY: `ctx` points at the context on `Jit::run`'s stack, which compiled code does
    // not touch while a helper runs; its `mem` at the interpreter's memory, borrowed
    // mutably by `Jit::run` for the whole run.
    unsafe { (&mut *ctx, &mut *(*ctx).mem) }
}

/// The context's tables.
fn tables(ctx: &Ctx) -> &Tables {
    // SAFETY: a live context's `tables` points at the tables of the `Jit` running the
    // code, which outlive the run and are not changed during it.
    unsafe { &*ctx.tables }
}

/// Sets the bail flag when `r` is a trap; returns the value or 0.
fn settle(ctx: &mut Ctx, r: Result<u64, TrapKind>) -> u64 {
    r.unwrap_or_else(|_| {
        ctx.bail = 1;
        0
    })
}

/// `Memory::load` of the type whose [`type_code`] is `ty`.
///
/// # Safety
/// `ctx` is the live context of the run (see [`Ctx`]); the same holds for every helper
/// below that dereferences it.
unsafe extern "C" fn load(ctx: *mut Ctx, addr: u64, ty: u64) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, mem) = unsafe { parts(ctx) };
    settle(ctx, mem.load(code_type(ty), addr))
}

/// `Memory::store`.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn store(ctx: *mut Ctx, addr: u64, bits: u64, ty: u64) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, mem) = unsafe { parts(ctx) };
    let r = mem.store(code_type(ty), addr, bits).map(|()| 0);
    settle(ctx, r)
}

/// `alloca` of `n` elements of `size` bytes.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn alloca(ctx: *mut Ctx, size: u64, n: u64, align: u64) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, mem) = unsafe { parts(ctx) };
    let r = size
        .checked_mul(n)
        .ok_or(TrapKind::StackOverflow)
        .and_then(|total| mem.alloca(total, align));
    settle(ctx, r)
}

/// `Memory::reserve_cell`, where the inline path cannot.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn reserve_cell(ctx: *mut Ctx, size: u64, align: u64) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, mem) = unsafe { parts(ctx) };
    let r = mem.reserve_cell(size, align).map(|()| 0);
    settle(ctx, r)
}

/// `Memory::stack_pointer`.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn stack_pointer(ctx: *mut Ctx) -> u64 {
    // SAFETY: the function's contract.
    let (_, mem) = unsafe { parts(ctx) };
    mem.stack_pointer()
}

/// `Memory::stack_release`, when a function returns.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn stack_release(ctx: *mut Ctx, mark: u64) -> u64 {
    // SAFETY: the function's contract.
    let (_, mem) = unsafe { parts(ctx) };
    mem.stack_release(mark);
    0
}

/// `llvm.stackrestore(at)` in a frame whose mark is `mark`.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn stack_restore(ctx: *mut Ctx, at: u64, mark: u64) -> u64 {
    // SAFETY: the function's contract.
    let (_, mem) = unsafe { parts(ctx) };
    // A restore below the frame's own mark would free the caller's allocas.
    if at >= mark {
        mem.stack_release(at);
    }
    0
}

/// Makes room for more records: doubles the buffer, keeping the records written.
///
/// # Safety
/// As for [`load`], and compiled code has written a record at every place from the
/// buffer's start up to `records_next` (which is at most `records_end`, the end of its
/// capacity).
unsafe extern "C" fn grow_records(ctx: *mut Ctx) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, _) = unsafe { parts(ctx) };
    let len = ctx.records_len();
    // SAFETY: a live context's `buffer` points at the record buffer of the `Jit` running
    // the code, which nothing else borrows during the run.
    let buffer = unsafe { &mut *ctx.buffer };
    // SAFETY: the first `len` records are initialized (the contract) and within the
    // capacity.
    unsafe { buffer.set_len(len) };
    buffer.reserve(len.max(16));
    let spare = buffer.spare_capacity_mut().as_mut_ptr_range();
    ctx.records_next = spare.start.cast();
    ctx.records_end = spare.end.cast();
    0
}

/// Releases the stack down to `mark` when that invalidates live bytes (the inline path
/// handles the rest).
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn stack_invalidate(ctx: *mut Ctx, mark: u64) -> u64 {
    // SAFETY: the function's contract.
    let (_, mem) = unsafe { parts(ctx) };
    mem.stack_release(mark);
    0
}

/// Math call `index` of the tables on the first `len` of `a`, `b`, `c`; `frexp` and
/// `modf` store their second result through the pointer argument.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn math(ctx: *mut Ctx, index: u64, len: u64, a: u64, b: u64, c: u64) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, mem) = unsafe { parts(ctx) };
    let Some(&(call, ret)) = tables(ctx).math.get(index as usize) else {
        return settle(ctx, Err(TrapKind::Unreachable));
    };
    let args = [a, b, c];
    let args = &args[..(len as usize).min(3)];
    let (v, second) = Concrete.math(call, args, ret);
    if let Some(second) = second {
        if let (Some(&ptr), Some(ty)) = (args.get(1), call.second_result()) {
            let r = mem.store(ty, ptr, second).map(|()| v);
            return settle(ctx, r);
        }
    }
    v
}

/// Builtin `index` of the tables on `a`, `b`, `c` in a frame whose stack mark is `mark`.
///
/// # Safety
/// As for [`load`].
unsafe extern "C" fn builtin(ctx: *mut Ctx, index: u64, mark: u64, a: u64, b: u64, c: u64) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, mem) = unsafe { parts(ctx) };
    let Some(&(op, ty)) = tables(ctx).builtins.get(index as usize) else {
        return settle(ctx, Err(TrapKind::Unreachable));
    };
    let args = [a, b, c];
    let r = builtin::run(&mut Concrete, mem, op, ty, args, |k| &args[k], mark);
    settle(ctx, r.map(|v| v.unwrap_or(0)))
}

/// Operation on extended values `index` of the tables (a [`Builtin::F80`]) on the
/// [`MAX_ARGS`] argument words at `args`: returns what the call returns, and leaves the
/// other half of an extended result in [`Ctx::f80_other`], so that the call computing
/// that half need not run (see `Translator::f80`).
///
/// # Safety
/// As for [`load`], and `args` points at [`MAX_ARGS`] words.
unsafe extern "C" fn f80(ctx: *mut Ctx, index: u64, args: *const u64) -> u64 {
    // SAFETY: the function's contract.
    let (ctx, mem) = unsafe { parts(ctx) };
    // SAFETY: the function's contract.
    let args = unsafe { std::slice::from_raw_parts(args, MAX_ARGS) };
    let Some(&(Builtin::F80(op), ty)) = tables(ctx).builtins.get(index as usize) else {
        return settle(ctx, Err(TrapKind::Unreachable));
    };
    // SAFETY: a live context's `float_env` points at the run's environment, borrowed
    // mutably by `Jit::run` for the whole run, and no other reference to it is alive.
    let float_env = unsafe { &mut *ctx.float_env };
    match builtin::f80_evaluated(mem, float_env, op, ty, args) {
        Ok(Evaluated::Extended(x)) => {
            let (returned, other) = if ty == Type::Int(16) {
                (u64::from(x.se), x.sig)
            } else {
                (x.sig, u64::from(x.se))
            };
            ctx.f80_other = other;
            returned & ty.mask()
        }
        Ok(Evaluated::Bits(bits)) => bits & ty.mask(),
        Err(trap) => settle(ctx, Err(trap)),
    }
}

// The conversions below read nothing through the context (they take it for the one
// helper signature), so they are safe to call.

/// `frem` at the float type whose [`type_code`] is `ty`.
extern "C" fn frem(_ctx: *mut Ctx, a: u64, b: u64, ty: u64) -> u64 {
    let ty = match code_type(ty) {
        Type::Float(ty) => ty,
        _ => FloatTy::F64,
    };
    Concrete.frem(ty, &a, &b)
}

/// `fptosi` from and to the types whose codes are the low two bytes of `types`.
extern "C" fn fptosi(_ctx: *mut Ctx, a: u64, types: u64) -> u64 {
    Concrete.fptosi(code_type(types), code_type(types >> 8), &a)
}

/// `fptoui`, as [`fptosi`].
extern "C" fn fptoui(_ctx: *mut Ctx, a: u64, types: u64) -> u64 {
    Concrete.fptoui(code_type(types), code_type(types >> 8), &a)
}
