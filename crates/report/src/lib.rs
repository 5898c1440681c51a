//! `fpforge-report`: every file and text fpforge writes for its users, defined once and
//! versioned, so every command and engine writes the same layout.
//!
//! - [`bugreport`]: a finding as a bug report ready to file (`report.md`);
//! - [`coverage`]: `coverage.json` (schema [`SCHEMA_VERSION`]) and the coverage summary,
//!   for `cover` and `explore` alike;
//! - [`html`]: `report.html`, the page of a coverage or accuracy run;
//! - [`index`]: `index.json` and the merged `coverage.lcov` of a run over several
//!   functions;
//! - [`junit`]: the JUnit XML file of a coverage run (`--junit`);
//! - [`labels`]: the words every report prints for a side's status, a proof method, an
//!   open side's reason and the effort spent on a side;
//! - [`findings`]: crashes and hangs, one replayable file each in `OUT/crashes/` and
//!   `OUT/hangs/`;
//! - [`lcov`](mod@lcov): `coverage.lcov`;
//! - [`regression`]: `regression.c`, a C99 program calling the function on every test;
//! - [`reach`]: the answer of `fpforge reach`;
//! - [`replay`]: the commands that run a finding again and where the sources are, as
//!   seen from the run's directory;
//! - [`accuracy`]: `report.json`, `inputs.txt` and the summary of `fpforge accuracy`;
//! - [`exhaustive`]: `exhaustive.json`, its chunk files and the one-line summary of
//!   `fpforge accuracy --exhaustive`;
//! - [`errors_svg`](mod@errors_svg): `errors.svg`, the error of `fpforge accuracy`'s
//!   evaluated inputs against the input;
//! - [`outdir`]: output directories that stay valid when a run is interrupted
//!   (`inputs.txt` appended line by line, every other file replaced atomically);
//! - [`sarif`]: the SARIF 2.1.0 log of a run's findings (`--sarif`);
//! - [`run`](mod@run): the report of `fpforge run`, with [`trace`]'s folded decisions;
//! - [`sites`]: the branch and op sites `fpforge sites` lists;
//! - [`values`]: values as reports print them;
//! - [`escape`]: text from the user's files made safe inside HTML and XML.
//!
//! `docs/REPORTS.md` documents each format; `docs/schema/coverage.schema.json` is the
//! JSON schema of `coverage.json`, which the tests check both engines' files against.
//! A new format is a module here, called by the driver (`fpforge-driver`), which keeps
//! the output directories current while engines run; this crate formats and never runs
//! a program.

#![deny(missing_docs)]

pub mod accuracy;
pub mod arg_text;
pub mod bugreport;
pub mod coverage;
pub mod error;
pub mod errors_svg;
pub mod escape;
pub mod exhaustive;
pub mod findings;
pub mod html;
pub mod index;
pub mod junit;
pub mod labels;
pub mod lcov;
pub mod outdir;
pub mod reach;
pub mod regression;
pub mod replay;
pub mod run;
pub mod sarif;
pub mod sites;
pub mod stop;
pub mod trace;
pub mod values;

pub use coverage::{Coverage, Ending, EngineStats};
pub use error::ReportError;
pub use outdir::{write_atomic, OutDir};

/// The version of the JSON layouts (`"schema": 1` in `coverage.json` and `report.json`).
/// It changes when a field is removed or changes meaning; new fields keep it.
pub const SCHEMA_VERSION: u32 = 1;
