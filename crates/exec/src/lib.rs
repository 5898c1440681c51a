//! `fpforge-exec`: the one interpreter every engine runs programs through.
//!
//! An [`Interpreter`] runs functions of an [`fpir::Module`] under a [`Semantics`] (what a
//! value is) and reports to an [`Observer`] (what is recorded). Both are type parameters
//! and the interpreter is monomorphized, so the concrete run with a branch observer costs
//! what a plain interpreter costs.
//!
//! ```
//! use fpforge_exec::{BranchTrace, Concrete, ExecConfig, Interpreter, Outcome};
//! use fpforge_spec::Arg;
//! # fn demo(module: &fpir::Module, f: fpir::Func) -> Result<(), fpforge_exec::ExecError> {
//! let mut interp = Interpreter::new(module, Concrete, BranchTrace::default(), ExecConfig::default())?;
//! let run = interp.call(f, &[Arg::Scalar(2.5f64.to_bits())])?;
//! if let Outcome::Returned(Some(bits)) = run.outcome {
//!     println!("{} after {} steps", f64::from_bits(bits), run.steps);
//! }
//! println!("{:?}", interp.observer().events);
//! # Ok(()) }
//! ```
//!
//! - [`semantics`]: the [`Semantics`] trait; [`concrete`]: the bit-exact [`Concrete`] semantics.
//! - [`interp`]: [`Interpreter`], its pure `step` and the driver loop (frames, fuel, traps).
//! - `prepare` (private): code is pre-decoded once into flat per-function op arrays, with
//!   blocks laid out to fall through, empty jump blocks threaded, each comparison fused
//!   with the branch on it, common ops specialized to their type, and calls of small
//!   branch-free leaves (musl's `asuint64`/`top12`/`eval_as_double` helpers) inlined.
//!   Under a semantics whose memory holds only concrete bits
//!   ([`Semantics::CONCRETE_MEMORY`]), loads from read-only globals at constant addresses
//!   become constants and `promote` (private) picks the stack slots (the unions of type
//!   punning) kept in registers instead of memory.
//! - `jit` (private): the compiled tier. Under [`Concrete`] and an observer that does
//!   not watch float operations (branch traces, coverage penalties), a function's
//!   prepared code is translated with Cranelift to native code once the interpreter has
//!   run it long enough ([`Compilation::WhenHot`]) and runs in place of the driver
//!   loop, computing the same bits op for op on the same memory, with the same branch
//!   events and step counts. A run that would trap, exhaust the fuel or recurse deeply
//!   stops and is replayed in the interpreter, which reports the trap; functions with
//!   indirect calls stay interpreted. [`ExecConfig::compile`] chooses the policy;
//!   `tests/compiled.rs` of `fpforge-difftest` compares the two on the whole corpus.
//! - `builtin` (private): what each C library builtin and bit intrinsic does, the one
//!   definition both tiers call; [`libc`]: the C library model (`printf` and friends with
//!   the output captured per run, strings, `strtod`, `errno`), which only the interpreter
//!   runs (functions that call it stay interpreted).
//! - [`env`](mod@env): [`RunEnv`], what a run keeps beside its [`Memory`] (the C library
//!   model's streams and `errno`, the floating-point environment, the other half of the
//!   last extended result), reset with it before every run.
//! - [`fenv`]: the run's floating-point environment (rounding mode and exception flags,
//!   kept in [`RunEnv`]), the `<fenv.h>` builtins, and the rounding operations of a run
//!   started in another mode or of a program using `<fenv.h>` (interpreted only).
//! - [`unwind`]: C++ exceptions: which landing pad takes one (typeinfos compared with
//!   their base classes), and what escaped the entry ([`Outcome::Threw`]); only the
//!   interpreter unwinds (functions with landing pads stay interpreted).
//! - [`memory`]: linear memory with redzones and a validity map; [`libm`]: math functions
//!   through the host C library; [`observer`]: branch and op events; [`trap`]: outcomes;
//!   [`finding`]: inputs that crash or hang, deduplicated and minimized for every engine.
//! - Arguments are [`fpforge_spec::Arg`]s: the input specifications and the mapping from
//!   search coordinates to arguments live in `fpforge-spec`, below this crate.
//!
//! See [`docs`] for how the other semantics plug in.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod builtin;
pub mod concrete;
pub mod env;
pub mod fenv;
pub mod finding;
pub mod interp;
mod jit;
pub mod libc;
pub mod libm;
mod libm_f80;
pub mod memory;
pub mod observer;
mod prepare;
mod promote;
pub mod semantics;
pub mod streams;
pub mod trap;
pub mod unwind;

pub use builtin::{f80_concrete, F80_MAX_ARGS};
pub use concrete::Concrete;
pub use env::RunEnv;
pub use fenv::{EnvModel, FloatEnv};
pub use finding::{Finding, FindingKey, FindingKind};
pub use interp::{Compilation, ExecConfig, Interpreter, Outcome, Run, DEADLINE_CHECK_STEPS};
pub use memory::Memory;
pub use observer::{BranchEvent, BranchTrace, FullTrace, NoObserver, Observer, OpEvent, OpTrace};
pub use semantics::{InputSlot, Semantics};
pub use streams::ProgramOutput;
pub use trap::{CallSite, ExecError, Trap, TrapKind};
pub use unwind::Thrown;

pub mod docs {
    //! Design notes: the execution model and how each semantics plugs in.
    //!
    //! # Execution model
    //!
    //! - **Values.** Registers hold `S::Value`. The interpreter reads
    //!   [`Semantics::concrete_bits`](crate::Semantics::concrete_bits) whenever it must
    //!   decide something: branch conditions, switch scrutinees, load/store addresses,
    //!   indirect call targets, `malloc` sizes, and the operands reported to observers.
    //!   Addresses are always concrete; results of `alloca`, `malloc` and pointer arithmetic
    //!   are made by [`Semantics::address`](crate::Semantics::address).
    //! - **Frames.** One register stack holds every live frame; a call lays the callee's
    //!   template (constants pre-made by the semantics at [`Interpreter::new`](crate::Interpreter::new))
    //!   out above the caller's frame, a return leaves it there. Block parameters are
    //!   copied in parallel on each edge. A frame laid out at the same call depth and
    //!   place by an earlier call of the same function, in this run or an earlier one, is
    //!   reused without copying: constant registers are never written (preparation
    //!   rejects a module that redefines one) and every other register is written before
    //!   it is read (SSA dominance, which the IR verifier checks), so a call never sees its
    //!   predecessor's values.
    //! - **Inlining.** A call of a defined one-block function of at most 12 instructions
    //!   without calls (math calls aside) runs its body in the caller's frame. It has no
    //!   branches, so observers and semantics see exactly the events of the call; its
    //!   allocas are released where the call would return and a trap in it names the
    //!   callee. Only the step count ([`Run::steps`](crate::Run::steps)) and the call
    //!   depth differ (an inlined call cannot overflow the depth limit).
    //! - **Limits.** Fuel counts executed ops ([`Run::steps`](crate::Run::steps);
    //!   [`TrapKind::FuelExhausted`](crate::TrapKind::FuelExhausted)); call depth and
    //!   stack bytes give [`TrapKind::StackOverflow`](crate::TrapKind::StackOverflow).
    //! - **Runs are independent.** Each [`Interpreter::call`](crate::Interpreter::call)
    //!   restores dirtied globals, empties stack and heap and resets the
    //!   [`RunEnv`](crate::RunEnv) (no output, starting rounding mode, no flag), then
    //!   calls [`Semantics::begin_run`](crate::Semantics::begin_run).
    //! - **Cost of values.** A call clones the callee's whole frame template (unless the
    //!   frame is reused, see above), and block
    //!   arguments are cloned on every jump, so a semantics with heavy values (MPFR) should
    //!   make `Value` cheap to clone: concrete bits plus an index into its own arena.
    //! - **Inputs.** Scalar parameters and array elements are numbered as
    //!   [`InputSlot`](crate::InputSlot)s in argument order and created by
    //!   [`Semantics::input`](crate::Semantics::input); array elements are then written to
    //!   memory with [`Semantics::store`](crate::Semantics::store).
    //!
    //! # Plugging in a semantics
    //!
    //! **Concrete** ([`Concrete`](crate::Concrete)): `Value = u64` raw bits; bit-exact
    //! against native x86-64 clang -O0 code (see [`concrete`](crate::concrete) for the
    //! choices where LLVM leaves results undefined). It is the one semantics that sets
    //! [`Semantics::CONCRETE_MEMORY`](crate::Semantics::CONCRETE_MEMORY), so its runs keep
    //! type-punning stack slots in registers and read constant tables as constants; the
    //! others see every load and store, which their shadow maps need.
    //!
    //! **Shadow** (crate `mpfr`): `Value = MpValue`, the concrete bits plus the index of an
    //! MPFR value in the semantics' arena (so values stay `Copy` and cheap to clone): the
    //! concrete bits drive everything exactly as in Concrete (each method calls
    //! `Concrete`'s on the bits) and the MPFR value at high precision is computed beside
    //! it. `concrete_bits` returns the bits.
    //! `op_site` tells which op site the next float op or math call belongs to, so the
    //! local and accumulated error can be attributed to it. Memory: override `store` to
    //! write the concrete bytes and record `addr -> Mpfr` in a shadow map (removing
    //! entries the store overlaps), `load` to read the concrete bytes and take the shadow
    //! only if the entry at `addr` has the same type and its recorded concrete bits still
    //! equal the loaded bits (otherwise the shadow is the loaded value itself: punning and
    //! stale stack slots then degrade gracefully), `copy` to move shadow entries with the
    //! bytes and `fill` to drop them. Clear the map in `begin_run`.
    //!
    //! **HighPrecision** (crate `mpfr`): the same `MpValue`, whose bits are the MPFR
    //! value rounded to the register's format (plain bits for integers and pointers): the
    //! MPFR value drives control flow, and `fcmp` compares MPFR values. Memory keeps a shadow map like Shadow, with the
    //! rounded bits in the concrete bytes.
    //!
    //! **Concolic** (crate `explore`): `Value = CVal { bits, term: Option<TermId> }`: `input` creates a
    //! symbolic variable per [`InputSlot`](crate::InputSlot); every operation computes the
    //! concrete bits as Concrete does and builds a term when an operand has one. Branch
    //! conditions stay concrete (the interpreter follows `concrete_bits`); the hooks
    //! [`Semantics::br`](crate::Semantics::br) and [`Semantics::switch`](crate::Semantics::switch)
    //! receive the deciding value with its term and the direction taken, which is the
    //! path condition.
    //! Memory: a map `addr -> (Type, TermId)` maintained by `store`/`load`/`copy`/`fill`
    //! as for Shadow; addresses are concretized.
}
