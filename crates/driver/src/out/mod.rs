//! The output directories the driver keeps current while an engine runs: one writer
//! per kind of engine, which hears the engine's events and has `fpforge-report` format
//! every file ([`coverage`] for `cover` and `explore`, [`accuracy`] for `accuracy`).

pub mod accuracy;
pub mod coverage;

pub use accuracy::{AccuracyOut, Measured};
pub use coverage::{CoverageOut, Finished, TestSet};
