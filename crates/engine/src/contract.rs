//! The trait every searching engine implements, and what its result must say.

use crate::event::Event;
use crate::settings::Settings;
use fpforge_search::{Budget, Stop};
use fpir::{Func, Module};
use std::time::Duration;

/// Which engine ran, as reports and output directories name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// Branch coverage by search (`fpforge-cover`).
    Cover,
    /// Generational concolic exploration (`fpforge-explore`).
    Explore,
    /// Error-inducing inputs (`fpforge-accuracy`).
    Accuracy,
    /// One path or side, reached or proved infeasible (`fpforge-explore`'s reach).
    Reach,
}

impl EngineKind {
    /// `cover`, `explore`, `accuracy` or `reach`.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Cover => "cover",
            EngineKind::Explore => "explore",
            EngineKind::Accuracy => "accuracy",
            EngineKind::Reach => "reach",
        }
    }
}

/// What every engine's final result says beside its own findings.
pub trait Ended {
    /// Why the run ended.
    fn stop(&self) -> Stop;
    /// How long it ran.
    fn elapsed(&self) -> Duration;
}

/// Implements [`Ended`] for a report with the fields `stop: Stop` and
/// `elapsed: Duration`, as every engine's report has them.
#[macro_export]
macro_rules! ended_by_fields {
    ($report:ty) => {
        impl $crate::Ended for $report {
            fn stop(&self) -> $crate::Stop {
                self.stop
            }

            fn elapsed(&self) -> ::std::time::Duration {
                self.elapsed
            }
        }
    };
}

/// A searching engine: its validated configuration is the value, [`Engine::run`] runs it
/// on one function within a [`Budget`], telling `events` what happens as it happens.
/// A configuration owns its settings (`'static`), so its news may borrow from the run
/// for as long as each event lasts.
pub trait Engine: 'static {
    /// Which engine this is.
    const KIND: EngineKind;
    /// The engine's own news beside the shared events ([`crate::NoDetail`] for none).
    type Detail<'a>;
    /// What a finished run returns.
    type Report: Ended;
    /// Why a run could not be made at all (what was found before an error is not lost:
    /// it reached the listener as events).
    type Error: std::error::Error + Send + Sync + 'static;

    /// Every setting of this configuration that changes what a run finds, by name
    /// ([`crate::settings`]): what the key of a saved run hashes. Each engine writes it
    /// by destructuring its configuration without `..`, so a field added later does not
    /// compile until its author decides how it enters the key; a field that changes
    /// nothing the run finds (how fast it runs) is left out by name, with the reason.
    fn settings(&self) -> Settings;

    /// Runs the engine on `func` of `module` within `budget`.
    fn run(
        &self,
        module: &Module,
        func: Func,
        budget: &Budget,
        events: &mut dyn for<'e> FnMut(&Event<'e, Self::Detail<'e>>),
    ) -> Result<Self::Report, Self::Error>;
}
