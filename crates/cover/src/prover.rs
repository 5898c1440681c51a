//! The hook through which a complete method settles the sides a search did not reach.
//!
//! A search never proves a side infeasible; concolic execution with an interval solver
//! can (`fpforge-explore`'s `reach_sides`). `cover` stays independent of that engine: the
//! caller plugs one in as a [`SideProver`], `cover` hands it the open sides after its
//! search, re-executes every witness it returns (only a re-run that takes the side
//! counts), and labels the sides it proves infeasible with the prover's method.

use fpforge_engine::Settings;
use fpforge_spec::InputSpec;
use fpir::{Func, InfeasibleMethod, Module, OpenReason, Side};
use std::fmt;
use std::time::Duration;

/// A prover's answer for one side.
#[derive(Clone, PartialEq, Debug)]
pub enum Settlement {
    /// Coordinate bits (in the [`InputSpec`]'s order) of an input said to take the side.
    Witness(Vec<u64>),
    /// No input takes the side, by this complete method.
    Infeasible(InfeasibleMethod),
    /// Neither within the time given; with what kept the prover from deciding, when it
    /// says.
    Unknown(Option<OpenReason>),
}

/// A complete method for the sides a search left open.
pub trait SideProver: Send + Sync {
    /// Which method this is (a `method` value) and every setting that changes its
    /// answers: part of the settings of the coverage run it serves
    /// ([`fpforge_engine::Engine::settings`]).
    fn settings(&self) -> Settings;

    /// Settles `sides` of `func` (inputs planned by `spec`) within `time_limit`: one
    /// answer per side, in order.
    fn settle(
        &self,
        module: &Module,
        func: Func,
        spec: &InputSpec,
        sides: &[Side],
        time_limit: Duration,
    ) -> Vec<Settlement>;
}

impl fmt::Debug for dyn SideProver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SideProver")
    }
}
