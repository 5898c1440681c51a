//! What a run keeps beside its memory: the C library model's streams and `errno`
//! ([`Streams`]), the floating-point environment ([`FloatEnv`]) and the half of the last
//! extended result a call did not return (an [`OtherHalf`], for the call of the other
//! half: [`crate::f80_concrete`]).
//!
//! The interpreter owns one [`RunEnv`] beside its [`Memory`] and resets both before every
//! run, so no run sees another's output, flags or extended results. Each builtin takes
//! the part it works on: the C library model the streams (and the rounding mode
//! `printf` rounds in), the `<fenv.h>` functions and every rounding operation the
//! floating-point environment, the operations on extended values the floating-point
//! environment and the other half.

use crate::fenv::FloatEnv;
use crate::memory::Memory;
use crate::streams::{ProgramOutput, Streams};
use fpir::f80::OtherHalf;
use fpir::{Module, Type};

/// A run's state outside its memory.
#[derive(Clone, Debug)]
pub struct RunEnv {
    /// The run's output and `errno` (the C library model's state).
    pub(crate) streams: Streams,
    /// The run's rounding mode and exception flags.
    pub(crate) float: FloatEnv,
    /// The half of the last extended result that its call did not return, for the call
    /// of the other half (`builtin::f80_concrete`).
    pub(crate) f80_half: Option<OtherHalf>,
}

impl RunEnv {
    /// The environment of runs of `module`, whose globals `mem` has laid out (and no run
    /// has written yet), in the floating-point environment `float`.
    pub(crate) fn new(module: &Module, mem: &Memory, float: FloatEnv) -> RunEnv {
        // The value a `FILE *` global holds (lowering points each at itself).
        let file_of = |name: &str| {
            let index = module.globals.values().position(|g| g.name == name)?;
            mem.peek(Type::Ptr, mem.global_addr(index)?)
        };
        RunEnv {
            streams: Streams::for_files(file_of("stdout"), file_of("stderr")),
            float,
            f80_half: None,
        }
    }

    /// Back to the start of a run: no output, no `errno`, the starting rounding mode
    /// with no flag raised, no extended result kept.
    pub(crate) fn reset(&mut self) {
        self.streams.clear();
        self.float.reset();
        self.f80_half = None;
    }

    /// The run's floating-point environment (its rounding mode and raised exceptions).
    pub fn float_env(&self) -> &FloatEnv {
        &self.float
    }

    /// What the run wrote to `stdout` and `stderr`, and the `errno` it left in `mem`.
    pub fn output(&self, mem: &Memory) -> ProgramOutput {
        let errno = self
            .streams
            .errno_addr
            .and_then(|a| mem.peek(Type::I32, a))
            .map_or(0, |bits| bits as u32 as i32);
        self.streams.output(errno)
    }
}
