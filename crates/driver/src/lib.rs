//! `fpforge-driver`: everything between the engines and a front end (the `fpforge`
//! binary, an editor, a notebook, a CI bot), so that each front end only parses, calls
//! and renders.
//!
//! - [`program`]: the inputs and the functions to test, loaded (and guarded for trap
//!   targets) once;
//! - [`plan`]: each function's inputs, from the user's specs and probes that fit pointer
//!   lengths; seeds read back from files;
//! - [`run`]: one engine ([`fpforge_engine::Engine`]) on one function into one output
//!   directory, its events streamed to the directory's writer ([`out`]);
//! - [`exhaustive`]: `accuracy --exhaustive`, every `float` input of a function in
//!   chunks on threads, resumable, sharded, merged;
//! - [`library`]: many functions (jobs, shards, `--resume`, total time), each into its
//!   own directory, with an index;
//! - [`confirm`]: what is reported is run again (reach's answers, regression results),
//!   and [`minimize`] keeps the fewest tests that keep a run's coverage;
//! - [`findings`]: a run's findings read back from its output directory, split by a
//!   baseline, written as SARIF;
//! - [`native`]: findings replayed by a native build, with a reproducer and a bug
//!   report each; [`record`]: how an output directory was made (`program.json`), so
//!   that [`later`] can confirm its findings after the fact (`fpforge confirm`);
//! - [`gcov`]: gcc's branch figure of a run's tests; [`project`]: `fpforge.toml`.
//!
//! The driver never prints: what a user should hear beside the results comes to the
//! caller as [`Note`]s, and results as typed values the front end renders.

#![deny(missing_docs)]

pub mod check;
pub mod confirm;
pub mod error;
pub mod exhaustive;
pub mod findings;
pub mod gcov;
pub mod later;
pub mod library;
pub mod minimize;
pub mod native;
pub mod note;
pub mod out;
pub mod plan;
pub mod program;
pub mod project;
pub mod prover;
pub mod record;
pub mod run;

pub use error::{DriverError, Result};
pub use note::{Note, Notes};
pub use program::{Functions, LoadedFunction, NativeBuild, Program, Selection, TrapTargets};
