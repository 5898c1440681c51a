//! `fpforge-engine`: the contract every searching engine implements (`cover`, `explore`,
//! `accuracy`, `reach`), so that whoever runs one (the driver, a test, another front end)
//! runs them all the same way.
//!
//! - **In**: the engine's validated configuration (the value implementing [`Engine`])
//!   and a [`Budget`]: evaluations, time and an [`Interrupt`], the same for every
//!   engine (they live in `fpforge-search`, the executor every engine's searches run
//!   through, and are re-exported here).
//! - **Out while it runs**: [`Event`]s — the sides the run tracks, each test that takes
//!   new sides, each crash or hang, progress, and the engine's own news ([`Event::Detail`]:
//!   `accuracy`'s worst inputs) — handed to a listener as they happen.
//! - **At the end**: the engine's typed report, which says why it ended with the one
//!   [`Stop`] every engine shares ([`Ended`]).
//! - **Its identity**: the configuration's [`Settings`], every value that changes what
//!   it finds, by name and in a fixed order, which keys saved runs ([`settings`]).
//!
//! The pattern is argmin's executor and egg's runner: budgets and stopping are the
//! contract's, the algorithms are the engines'.

#![deny(missing_docs)]

pub mod contract;
pub mod event;
pub mod settings;

pub use contract::{Ended, Engine, EngineKind};
pub use event::{ErrorFigure, ErrorMetric, Event, NoDetail, Progress};
pub use fpforge_search::{Budget, Clock, Interrupt, Stop};
pub use settings::Settings;
