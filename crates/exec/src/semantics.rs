//! The [`Semantics`] trait: what a value is and what each opcode does to values.
//!
//! The interpreter is generic over it and monomorphized, so the concrete path pays
//! nothing for the abstraction. Methods are named after IR opcodes (`iadd` and `band`
//! rather than `add`/`and`, which collide with std traits). The interpreter decides
//! control flow, addresses and call targets from [`Semantics::concrete_bits`]; a semantics
//! only chooses what rides along with those bits (an MPFR shadow, a symbolic term).
//!
//! Memory goes through [`Semantics::load`], [`Semantics::store`], [`Semantics::copy`] and
//! [`Semantics::fill`], whose default implementations move concrete bytes in [`Memory`].
//! A semantics with richer values overrides them to keep a shadow map keyed by address
//! (see the crate docs, section *Plugging in a semantics*).

use crate::env::RunEnv;
use crate::memory::Memory;
use crate::trap::TrapKind;
use fpir::{BranchSite, F80Op, FloatPred, FloatTy, IntPred, MathCall, OpSite, Type};

/// The position of an input in the argument list of [`crate::Interpreter::call`]: scalar
/// parameters and array elements, numbered in order (`f(double x, double *a /* 3 */, int n)`
/// numbers `x` 0, `a[0..3]` 1..=3 and `n` 4).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct InputSlot(pub u32);

/// What a value is, and the meaning of every value-level opcode.
///
/// Integer values are interpreted with LLVM's two's-complement semantics at the type's
/// width; floats are IEEE binary32/binary64. Every method receives the operand types, so
/// a value need not carry its own.
pub trait Semantics {
    /// A register value.
    type Value: Clone;

    /// Whether memory holds nothing but concrete bits: [`Semantics::load`] returns
    /// `constant(ty, bits)` of the bytes it reads and [`Semantics::store`] writes
    /// [`Semantics::concrete_bits`] (as the default methods do), so a value stored and
    /// loaded back is `constant(ty, bits)` of its bits. Preparation then keeps stack slots
    /// whose address never escapes (the unions of type punning) in registers instead of
    /// memory. Default false.
    const CONCRETE_MEMORY: bool = false;

    /// Whether the semantics is exactly [`crate::Concrete`]'s, hooks included, so that
    /// [`crate::Interpreter::call`] may run native code compiled from the program instead
    /// of interpreting it (see [`ExecConfig::compile`](crate::ExecConfig::compile)); the
    /// results, branch events and step counts are the same. Default false.
    const COMPILABLE: bool = false;

    /// Called at the start of every [`crate::Interpreter::call`], after memory is reset.
    /// Values made by [`Semantics::constant`] earlier must stay valid: the interpreter
    /// builds its constant templates once, in [`crate::Interpreter::new`].
    fn begin_run(&mut self) {}

    /// A constant of type `ty` with raw bits `bits` (zero-extended).
    fn constant(&mut self, ty: Type, bits: u64) -> Self::Value;

    /// An input of the run (a scalar argument or an array element) with initial bits.
    #[inline]
    fn input(&mut self, slot: InputSlot, ty: Type, bits: u64) -> Self::Value {
        let _ = slot;
        self.constant(ty, bits)
    }

    /// An address computed by the interpreter (`alloca`, `malloc`, pointer arithmetic):
    /// addresses are always concrete.
    #[inline]
    fn address(&mut self, addr: u64) -> Self::Value {
        self.constant(Type::Ptr, addr)
    }

    /// An integer used as an index of address arithmetic (`ptroffset`): the address is
    /// computed from its concrete bits. Concolic semantics record that a symbolic index
    /// was concretized here; the default does nothing.
    #[inline]
    fn address_index(&mut self, index: &Self::Value) {
        let _ = index;
    }

    /// The run goes on from `value`'s concrete bits where they decide more than an
    /// address: an operand of the modelled floating-point environment in a directed
    /// rounding mode (the result is computed outside the semantics), an operand of a
    /// `long double` operation (see [`Semantics::f80`]) or an argument of a C library
    /// function. Concolic semantics
    /// record the concretization (their path condition stops being exact there); the
    /// default does nothing.
    #[inline]
    fn concretized(&mut self, value: &Self::Value) {
        let _ = value;
    }

    /// An operation of the modelled floating-point environment ran on `operand` in
    /// round-to-nearest: its value is the semantics' own, but the exception flags it
    /// raised depend on the operand. Concolic semantics remember whether the flags depend
    /// on the inputs; the default does nothing.
    #[inline]
    fn flags_depend_on(&mut self, operand: &Self::Value) {
        let _ = operand;
    }

    /// A C library function is about to read the exception flags (`fetestexcept`,
    /// `fegetexceptflag`, or a copy of the whole environment). Concolic semantics record
    /// a concretization when the flags depend on the inputs; the default does nothing.
    #[inline]
    fn libc_reads_flags(&mut self) {}

    /// A C library function is about to read memory (a string, a buffer, the saved
    /// floating-point environment): what it returns may depend on every byte it reads.
    /// Concolic semantics that track memory symbolically record a concretization when
    /// any byte is symbolic; the default does nothing.
    #[inline]
    fn libc_reads_memory(&mut self) {}

    /// The concrete bits of a value (zero-extended), used for branch decisions, switch
    /// values, addresses, call targets and observer events.
    fn concrete_bits(&self, value: &Self::Value) -> u64;

    /// Called just before the floating-point operation or math call at `site` (so a
    /// semantics can attribute errors to op sites).
    fn op_site(&mut self, site: OpSite) {
        let _ = site;
    }

    /// A conditional branch at `site` on `cond` goes the way `taken` says (decided from
    /// its concrete bits). Concolic semantics record the path condition here.
    #[inline]
    fn br(&mut self, site: BranchSite, cond: &Self::Value, taken: bool) {
        let _ = (site, cond, taken);
    }

    /// A switch at `site` on `value` (of type `ty`) takes case `case` (source order) or
    /// the default (`None`).
    #[inline]
    fn switch(&mut self, site: BranchSite, ty: Type, value: &Self::Value, case: Option<u32>) {
        let _ = (site, ty, value, case);
    }

    /// `add`.
    fn iadd(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `sub`.
    fn isub(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `mul`.
    fn imul(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `udiv`; traps on division by zero.
    fn udiv(&mut self, ty: Type, a: &Self::Value, b: &Self::Value)
        -> Result<Self::Value, TrapKind>;
    /// `sdiv`; traps on division by zero and on `MIN / -1`.
    fn sdiv(&mut self, ty: Type, a: &Self::Value, b: &Self::Value)
        -> Result<Self::Value, TrapKind>;
    /// `urem`; traps on division by zero.
    fn urem(&mut self, ty: Type, a: &Self::Value, b: &Self::Value)
        -> Result<Self::Value, TrapKind>;
    /// `srem`; traps on division by zero and on `MIN % -1`.
    fn srem(&mut self, ty: Type, a: &Self::Value, b: &Self::Value)
        -> Result<Self::Value, TrapKind>;
    /// `shl` (the count is masked as x86 does: mod 32 up to 32 bits, mod 64 above).
    fn shl(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `lshr` (count masked like [`Semantics::shl`]).
    fn lshr(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `ashr` (count masked like [`Semantics::shl`]).
    fn ashr(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `and`.
    fn band(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `or`.
    fn bor(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `xor`.
    fn bxor(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;

    /// `fadd`.
    fn fadd(&mut self, ty: FloatTy, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `fsub`.
    fn fsub(&mut self, ty: FloatTy, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `fmul`.
    fn fmul(&mut self, ty: FloatTy, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `fdiv`.
    fn fdiv(&mut self, ty: FloatTy, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `frem` (C `fmod`).
    fn frem(&mut self, ty: FloatTy, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `fneg` (sign flip).
    fn fneg(&mut self, ty: FloatTy, a: &Self::Value) -> Self::Value;

    /// `icmp`, producing an `i1`.
    fn icmp(&mut self, pred: IntPred, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `fcmp`, producing an `i1`.
    fn fcmp(
        &mut self,
        pred: FloatPred,
        ty: FloatTy,
        a: &Self::Value,
        b: &Self::Value,
    ) -> Self::Value;

    /// `trunc`.
    fn trunc(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `zext`.
    fn zext(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `sext`.
    fn sext(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `fptrunc`.
    fn fptrunc(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `fpext`.
    fn fpext(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `fptoui` (out-of-range values behave as x86-64 code from clang -O0).
    fn fptoui(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `fptosi` (out-of-range values behave as x86-64 `cvttsd2si`).
    fn fptosi(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `uitofp`.
    fn uitofp(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `sitofp`.
    fn sitofp(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `ptrtoint`.
    fn ptrtoint(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `inttoptr`.
    fn inttoptr(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;
    /// `bitcast` (same bits, new type).
    fn bitcast(&mut self, from: Type, to: Type, a: &Self::Value) -> Self::Value;

    /// `select cond, if_true, if_false`.
    fn select(
        &mut self,
        ty: Type,
        cond: &Self::Value,
        if_true: &Self::Value,
        if_false: &Self::Value,
    ) -> Self::Value;

    /// A math function. `ret` is the destination type (the integer width for
    /// `lround`-like functions). Returns the result and, for `frexp`/`modf`, the second
    /// result that the interpreter stores through the pointer argument (an `i32` exponent
    /// for `frexp`, a float of the call's format for `modf`).
    fn math(
        &mut self,
        call: MathCall,
        args: &[Self::Value],
        ret: Type,
    ) -> (Self::Value, Option<Self::Value>);

    /// An operation on extended values (`long double`, see [`F80Op`]) of result type
    /// `ty` on the argument values `args`, in the run's environment `env` (its rounding
    /// mode, where its exceptions go). The default computes it on their concrete bits
    /// ([`crate::f80_concrete`]), reporting each through [`Semantics::concretized`], and
    /// makes the result a constant; a semantics with a
    /// shadow of extended values overrides it (it may call [`crate::f80_concrete`] for
    /// either half of the concrete result).
    #[inline]
    fn f80(
        &mut self,
        mem: &mut Memory,
        env: &mut RunEnv,
        op: F80Op,
        ty: Type,
        args: &[Self::Value],
    ) -> Result<Self::Value, TrapKind> {
        let mut bits = [0u64; crate::F80_MAX_ARGS];
        for (b, a) in bits.iter_mut().zip(args) {
            self.concretized(a);
            *b = self.concrete_bits(a);
        }
        let result = crate::f80_concrete(mem, env, op, ty, &bits)?;
        Ok(self.constant(ty, result))
    }

    /// `llvm.ctpop`.
    fn ctpop(&mut self, ty: Type, a: &Self::Value) -> Self::Value;
    /// `llvm.ctlz` (zero gives the width).
    fn ctlz(&mut self, ty: Type, a: &Self::Value) -> Self::Value;
    /// `llvm.cttz` (zero gives the width).
    fn cttz(&mut self, ty: Type, a: &Self::Value) -> Self::Value;
    /// `llvm.bswap`.
    fn bswap(&mut self, ty: Type, a: &Self::Value) -> Self::Value;
    /// `llvm.abs` (`abs(MIN) = MIN`).
    fn abs(&mut self, ty: Type, a: &Self::Value) -> Self::Value;
    /// `llvm.smax`.
    fn smax(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `llvm.smin`.
    fn smin(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `llvm.umax`.
    fn umax(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// `llvm.umin`.
    fn umin(&mut self, ty: Type, a: &Self::Value, b: &Self::Value) -> Self::Value;

    /// Loads a `ty` from `addr`. The default reads concrete bytes.
    #[inline]
    fn load(&mut self, mem: &Memory, ty: Type, addr: u64) -> Result<Self::Value, TrapKind> {
        let bits = mem.load(ty, addr)?;
        Ok(self.constant(ty, bits))
    }

    /// Stores `value` as a `ty` at `addr`. The default writes concrete bytes.
    #[inline]
    fn store(
        &mut self,
        mem: &mut Memory,
        ty: Type,
        addr: u64,
        value: &Self::Value,
    ) -> Result<(), TrapKind> {
        mem.store(ty, addr, self.concrete_bits(value))
    }

    /// `memmove(dst, src, len)` (also used for `memcpy` and `realloc`).
    fn copy(&mut self, mem: &mut Memory, dst: u64, src: u64, len: u64) -> Result<(), TrapKind> {
        mem.copy(dst, src, len)
    }

    /// `memset(dst, byte, len)`.
    fn fill(&mut self, mem: &mut Memory, dst: u64, byte: u8, len: u64) -> Result<(), TrapKind> {
        mem.fill(dst, byte, len)
    }
}
