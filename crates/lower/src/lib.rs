//! `fpforge-lower`: turns C, C++ and LLVM-14 IR into an [`fpir::Module`].
//!
//! [`frontend`] drives the LLVM 14 toolchain (clang, llvm-link, opt's mem2reg) and
//! [`lower`] translates the resulting bitcode, read through the `llvm-ir` crate, into
//! fpir. This is the only crate that sees `llvm-ir`; nothing of it leaks past this API.
//!
//! ```no_run
//! use fpforge_lower::{load, LoadOptions};
//! let module = load(&["fdlibm.c".into()], &LoadOptions::default())?;
//! print!("{}", fpir::write_module(&module));
//! # Ok::<(), fpforge_lower::LowerError>(())
//! ```

#![deny(missing_docs)]

mod calls;
mod consts;
mod error;
pub mod frontend;
mod func;
mod layout;
mod lower;
mod stubs;

pub use error::LowerError;
pub use frontend::{compile_to_bitcode, load, lower_bitcode, Bitcode, LoadOptions};
