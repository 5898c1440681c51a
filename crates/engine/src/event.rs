//! What an engine tells its listener while it runs.

use fpforge_exec::Finding;
use fpir::Side;
use std::time::Duration;

/// Something a running engine reports, as it happens. `D` is the engine's own news
/// beside the shared events ([`NoDetail`] for an engine that has none).
#[derive(Clone, Debug)]
pub enum Event<'a, D> {
    /// The run starts; these are the sides it tracks, in report order (none for an
    /// engine that does not measure coverage).
    Started {
        /// Every tracked side.
        sides: &'a [Side],
    },
    /// A test that takes sides no earlier test took, confirmed by re-execution.
    Test {
        /// Its index among the run's tests.
        index: usize,
        /// Its coordinate bits (as the run's input spec reads them).
        coords: &'a [u64],
        /// The sides it took first.
        new_sides: &'a [Side],
    },
    /// An input on which the function crashes or hangs, new by its kind and place,
    /// confirmed by re-execution.
    Finding {
        /// Its index among the run's findings.
        index: usize,
        /// The finding.
        finding: &'a Finding,
        /// The sides its run took first (none for an engine that does not measure
        /// coverage).
        new_sides: &'a [Side],
    },
    /// Periodic progress.
    Progress(Progress),
    /// The engine's own news.
    Detail(D),
}

/// How far a run has come.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Evaluations of the program so far.
    pub evals: u64,
    /// Time since the run started.
    pub elapsed: Duration,
    /// Targets settled so far (sides covered, checks covered).
    pub settled: usize,
    /// Targets in all.
    pub total: usize,
    /// The largest error found so far, for an engine that measures one.
    pub worst_error: Option<ErrorFigure>,
}

/// What an error is counted in: the unit of an engine's error figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorMetric {
    /// Ulps of the reference in the result's format.
    Ulps,
    /// The relative error `|computed - reference| / |reference|`.
    Relative,
}

impl ErrorMetric {
    /// Its name on the command line, in settings and in `report.json`: `ulps` or
    /// `relative`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorMetric::Ulps => "ulps",
            ErrorMetric::Relative => "relative",
        }
    }
}

impl std::fmt::Display for ErrorMetric {
    /// [`ErrorMetric::name`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An error and the metric it is counted in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorFigure {
    /// The error (infinite when a result is not finite where its reference is).
    pub value: f64,
    /// What it counts.
    pub metric: ErrorMetric,
}

/// The news of an engine that has none beyond the shared events: no value exists, so
/// a listener's `Event::Detail(none) => match none {}` arm is never taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoDetail {}
