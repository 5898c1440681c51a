//! `fpforge-difftest`: bit-exact differential testing of the interpreter against native
//! builds of the same bitcode.
//!
//! A module is compiled once by `fpforge-lower` into linked, mem2reg'd bitcode. The
//! interpreter runs the lowered module; [`native`] instruments the same bitcode with
//! branch hooks ([`instrument`]), compiles it with clang-14 at `-O0` into a shared object
//! and loads it. [`inputs`] generates deterministic arguments, [`dispatch`] calls native
//! functions of the supported signatures, and [`diff`] runs both sides and compares
//! result bits, output arrays and branch traces.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod diff;
pub mod dispatch;
pub mod inputs;
pub mod instrument;
pub mod musl;
pub mod native;
