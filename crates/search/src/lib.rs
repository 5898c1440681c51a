//! `fpforge-search`: derivative-free minimization for test-input generation.
//!
//! Engines minimize functions such as CoverMe's representing function, whose zeros are
//! the inputs they want. Each minimizer is a small algorithm module driven through one
//! [`Evaluator`] that keeps a search's [`Limits`] (evaluations, wall-clock deadline, the
//! target value that ends it early), the best point so far, and the reason it stopped.
//!
//! The crate also holds what every searching engine shares about its budget: the run's
//! [`Budget`] (evaluations, time, an [`Interrupt`]), the [`Clock`] that spends it, and the
//! one stop reason, [`Stop`]; one-step engines run under the same limits through
//! [`run_steps`].
//!
//! Searches run either in real coordinates or in the ordered-bits space of binary64
//! ([`Space::OrderedBits`]), where a unit step is one ulp and large steps cross binades,
//! so subnormals, huge values and signed zeros are as reachable as 1.0. The alternating
//! variable method ([`mod@avm`]) moves real coordinates by exact ulps, to land on equalities;
//! its exploratory and pattern moves ([`avm::explore_and_pattern`]) are the ones solve's
//! FloPSy search makes too.
//!
//! [`ordinal`] is the one mapping between floats and the integers that number them in
//! order, for binary32 and binary64, with its conventions for `-0`/`+0` and NaN: cover's
//! branch distances, solve's interval domains and the ordered-bits space all use it.

#![deny(missing_docs)]

pub mod avm;
pub mod basinhopping;
pub mod budget;
pub mod evaluator;
pub mod ordinal;
pub mod powell;
pub mod space;
pub mod stop;

pub use avm::{avm, AvmConfig};
pub use basinhopping::{basinhopping, BasinhoppingConfig};
pub use budget::{Budget, Clock, Interrupt, Limits};
pub use evaluator::{run_steps, Evaluator, Halt, OneStep, SearchOutcome, Stepped};
pub use powell::{powell, PowellConfig};
pub use space::Space;
pub use stop::Stop;
