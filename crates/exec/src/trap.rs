//! Traps (what a program under test did wrong, a run outcome) and [`ExecError`] (what the
//! caller of the interpreter did wrong).
//!
//! A broken program never panics the tool: every fault becomes a [`Trap`] carrying the
//! function and source location of the faulting instruction. [`ExecError`] is reserved for
//! misuse of the API (unknown function, wrong arguments, a module the interpreter cannot
//! lay out).

use fpir::{Func, SrcLoc};

/// Why a run stopped before returning normally.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum TrapKind {
    /// An access touched bytes outside any live object (redzone, unmapped, past the end).
    #[error("out-of-bounds access of {size} bytes at {addr:#x}")]
    OutOfBounds {
        /// First byte accessed.
        addr: u64,
        /// Bytes accessed.
        size: u64,
    },
    /// An access at an offset outside the object its address was computed from (found by
    /// a trap guard before the access, even when the bytes there belong to another
    /// object).
    #[error("out-of-bounds access of {size} bytes at offset {offset} of a {object}-byte object")]
    ObjectOverrun {
        /// Byte offset from the object's start.
        offset: i64,
        /// Bytes accessed.
        size: u64,
        /// The object's size in bytes.
        object: u64,
    },
    /// An access inside the null guard page (addresses below 4096).
    #[error("null pointer dereference at {addr:#x}")]
    NullDeref {
        /// Address accessed.
        addr: u64,
    },
    /// An access to a heap block that was freed.
    #[error("use after free at {addr:#x}")]
    UseAfterFree {
        /// Address accessed.
        addr: u64,
    },
    /// `free`/`realloc` of a pointer that is not the start of a live heap block
    /// (double free included).
    #[error("invalid free of {addr:#x}")]
    InvalidFree {
        /// The pointer passed.
        addr: u64,
    },
    /// A store into a `constant` global.
    #[error("store to read-only memory at {addr:#x}")]
    ReadOnlyWrite {
        /// Address written.
        addr: u64,
    },
    /// Integer division or remainder by zero.
    #[error("integer division by zero")]
    IntDivByZero,
    /// Signed division or remainder of the minimum value by -1 (x86 `idiv` faults).
    #[error("integer division overflow (MIN / -1)")]
    IntDivOverflow,
    /// A call of a function that is neither defined nor known.
    #[error("call of unknown external function `{0}`")]
    UnknownExternal(String),
    /// A call of a modelled C library function the model cannot carry out (a `printf`
    /// conversion it does not know, a stream other than `stdout` and `stderr`).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The instruction budget ([`crate::ExecConfig::fuel`]) ran out.
    #[error("fuel exhausted")]
    FuelExhausted,
    /// The run's deadline ([`crate::ExecConfig::deadline`]) passed: the engine's time
    /// is up, which says nothing about the program. Not a fault.
    #[error("deadline passed")]
    DeadlinePassed,
    /// Call depth or stack bytes exceeded their limits.
    #[error("stack overflow")]
    StackOverflow,
    /// An `unreachable` terminator was reached.
    #[error("unreachable code reached")]
    Unreachable,
    /// `abort()` was called.
    #[error("abort called")]
    Abort,
    /// `__assert_fail` was called (a failed `assert`).
    #[error("assertion failed")]
    AssertFail,
    /// `exit(code)` was called. Not a fault: see [`TrapKind::is_fault`].
    #[error("exit({0})")]
    Exit(i32),
    /// The heap budget ([`crate::ExecConfig::heap_bytes`]) is used up by live and freed
    /// blocks (requests larger than the whole budget return NULL instead, as libc does).
    #[error("out of memory")]
    OutOfMemory,
    /// An indirect call through a value that is not a function address, or with the wrong
    /// number of arguments.
    #[error("bad indirect call through {addr:#x}")]
    BadIndirectCall {
        /// The called address.
        addr: u64,
    },
    /// `std::terminate()` was called: an exception thrown through `noexcept` or during
    /// unwinding, or nothing left to rethrow.
    #[error("std::terminate called")]
    Terminate,
    /// A C++ exception is being raised (the object's address): the interpreter unwinds
    /// to a landing pad, or the run ends with [`crate::Outcome::Threw`]. No run ends with
    /// this trap.
    #[error("C++ exception raised")]
    Raised {
        /// The exception object.
        exception: u64,
    },
}

impl TrapKind {
    /// False for `exit(0)`, which ends a run normally, and for a passed deadline; true
    /// for every other trap.
    pub fn is_fault(&self) -> bool {
        !matches!(self, TrapKind::Exit(0) | TrapKind::DeadlinePassed)
    }

    /// The kind's stable identifier (`null-dereference`, `division-by-zero`, ...): one
    /// per variant, never reworded, so that finding fingerprints and rule ids built from
    /// it stay the same across releases.
    pub fn class(&self) -> &'static str {
        match self {
            TrapKind::OutOfBounds { .. } => "out-of-bounds",
            TrapKind::ObjectOverrun { .. } => "object-overrun",
            TrapKind::NullDeref { .. } => "null-dereference",
            TrapKind::UseAfterFree { .. } => "use-after-free",
            TrapKind::InvalidFree { .. } => "invalid-free",
            TrapKind::ReadOnlyWrite { .. } => "read-only-write",
            TrapKind::IntDivByZero => "division-by-zero",
            TrapKind::IntDivOverflow => "division-overflow",
            TrapKind::UnknownExternal(_) => "undefined-function",
            TrapKind::Unsupported(_) => "unsupported",
            TrapKind::FuelExhausted => "fuel-exhausted",
            TrapKind::DeadlinePassed => "deadline",
            TrapKind::StackOverflow => "stack-overflow",
            TrapKind::Unreachable => "unreachable",
            TrapKind::Abort => "abort",
            TrapKind::AssertFail => "assertion-failure",
            TrapKind::Exit(_) => "exit",
            TrapKind::OutOfMemory => "out-of-memory",
            TrapKind::BadIndirectCall { .. } => "bad-indirect-call",
            TrapKind::Terminate => "terminate",
            TrapKind::Raised { .. } => "exception",
        }
    }
}

/// A trap with where it happened.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{kind} in {func}")]
pub struct Trap {
    /// What went wrong.
    pub kind: TrapKind,
    /// The function executing the faulting instruction.
    pub func: Func,
    /// Source location of the faulting instruction, when debug info gives it.
    pub loc: Option<SrcLoc>,
    /// The calls that led there, innermost first: each caller and the location of its
    /// call (at most [`MAX_STACK`] entries; calls of small leaves the interpreter
    /// inlines are not frames and do not appear).
    pub stack: Vec<CallSite>,
}

/// One call on the stack of a trap.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CallSite {
    /// The calling function.
    pub func: Func,
    /// Where it calls, when debug info says.
    pub loc: Option<SrcLoc>,
}

/// The most calls a trap's stack keeps (a stack overflow's is as deep as the limit).
pub const MAX_STACK: usize = 32;

/// Misuse of the interpreter API (never caused by the behavior of the program under test).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The function id is not in the module.
    #[error("unknown function {0}")]
    UnknownFunc(Func),
    /// The number of arguments differs from the number of parameters.
    #[error("{func} takes {expected} arguments, {got} given")]
    ArgCount {
        /// The function called.
        func: Func,
        /// Its parameter count.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
    /// An argument does not fit its parameter (an array for a non-pointer parameter).
    #[error("argument {index} of {func}: {message}")]
    ArgType {
        /// The function called.
        func: Func,
        /// 0-based argument position.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// The array arguments do not fit in the heap budget.
    #[error("array arguments do not fit in the heap")]
    ArgsTooLarge,
    /// The module breaks an invariant the interpreter relies on.
    #[error("invalid module: {0}")]
    InvalidModule(String),
}
