//! `fpforge-lower`: turns C, C++, Fortran 77 (through f2c, see `fortran`) and LLVM-14
//! IR into an [`fpir::Module`].
//!
//! [`frontend`] drives the LLVM 14 toolchain (clang, llvm-link, opt's mem2reg) and the
//! private lowering modules translate the resulting bitcode, read through the `llvm-ir`
//! crate, into fpir. This is the only crate that sees `llvm-ir`; nothing of it leaks
//! past this API.
//!
//! ```no_run
//! use fpforge_lower::{load, LoadOptions};
//! let opts = LoadOptions::default().with_compiler_flags(["-DUSE_TABLES"]);
//! let module = load(&["fdlibm.c".into()], &opts)?;
//! print!("{}", fpir::write_module(&module));
//! # Ok::<(), fpforge_lower::LowerError>(())
//! ```
//!
//! # What lowers
//!
//! - Integers of 1 to 64 bits, `float`, `double` and pointers in registers; integers
//!   wider than 64 bits (`__int128`, `_BitInt(N)`, the i72..i200 of bitfield runs) as
//!   several 64-bit limb registers, every operation on them as limb operations; structs,
//!   arrays, unions and vectors in memory, laid out as on x86-64 (packed structs
//!   honoured); `getelementptr` as byte offsets plus sign-extended index terms.
//! - Phis as block parameters; a `select` on a condition that is not a constant as a
//!   conditional branch (a branch site, numbered after every `br` and `switch`) to a
//!   join block whose parameter is its result, as gcc compiles a `?:`; constants (including `undef`/`poison` as zero, addresses
//!   of globals and functions, and constant expressions) as constant registers; global
//!   initializers as little-endian bytes with relocations for the pointers inside.
//! - Calls: defined functions directly; C math functions and LLVM math intrinsics
//!   (`double` and `float` versions) as math calls when the module does not define them;
//!   `memcpy`/`memset`/`memmove`/`malloc`/`calloc`/`realloc`/`free`/`abort`/`exit`/
//!   `__assert_fail` and the bit intrinsics as builtins; everything else as externals
//!   that trap when called (`fpir::Module::unresolved_from` lists them). Debug info,
//!   lifetime and hint intrinsics are dropped; `byval` arguments are copied.
//! - Addresses of functions the inputs only declare (`integrate(sin, 0, 1)`) point to
//!   stubs that make the call.
//! - Aggregate and vector values in registers (small structs returned by value as
//!   `{ double, double }` or `<2 x float>`, `insertvalue`, `extractelement`) as pointers
//!   to read-only copies in memory; a function returning one gets a hidden first
//!   parameter `.sret` that receives the result.
//! - Constrained floating-point intrinsics (`#pragma STDC FENV_ACCESS ON`) as the plain
//!   operations, except comparisons.
//!
//! # What does not
//!
//! `long double` (x86_fp80), `__float128` and `_Float16` as values; arithmetic on
//! vectors; a `switch` on an integer wider than 64 bits; atomics, inline assembly other than the idioms of
//! libm sources (`bsr`/`bsf`, `sqrtsd`, `cvtsd2si`, ...), variable arguments (`va_start`,
//! and calls passing more than a variadic function's fixed parameters), exceptions,
//! computed goto. In dead code (behind a branch on a constant, as musl's
//! type-generic macros produce) such a construct is dropped. Elsewhere its function is
//! lowered as a skeleton that traps when called, and the construct is an error — a
//! [`LowerError::Unsupported`] naming it, its function, `file:line:col` and the chain
//! of calls from the entry — only if the entry function can reach it (see
//! [`LoadOptions::entry`] and [`LoadOptions::skip_unsupported`]).
//!
//! # What is missing
//!
//! Functions and globals the inputs declare but do not define, when the entry can reach
//! them, are one [`LowerError::Undefined`] listing every one with its use and chain
//! (see [`LoadOptions::allow_undefined`]). A global nothing defines has no bytes, so a
//! run that reads it traps; it never reads as zero.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod asm;
mod beside;
mod calls;
mod consts;
mod ctx;
mod error;
mod fortran;
pub mod frontend;
mod func;
mod layout;
mod library;
mod load;
mod lower;
mod options;
mod paths;
mod quote;
mod reach;
mod shapes;
mod stubs;
mod symbols;

pub use error::{LowerError, Missing, MissingKind, Searched};
pub use frontend::{compile_to_bitcode, Bitcode};
pub use load::{
    load, load_entries, load_program, lower_bitcode, lower_bitcode_with, Entry, Loaded,
    LoadedEntries,
};
pub use options::LoadOptions;
pub use paths::{PrefixMapping, SourcePaths};
