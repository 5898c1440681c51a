//! `reach` as `cover`'s prover: the sides a coverage search leaves open go to one concolic
//! exploration aimed at all of them, which returns witnesses (re-executed by `cover`) or
//! proofs of infeasibility. The engines stay independent of each other; this adapter
//! joins them.

use fpforge_cover::{Settlement, SideProver};
use fpforge_engine::{Budget, Settings};
use fpforge_explore::reach::{reach_sides, SideAnswer};
use fpforge_explore::session::EngineConfig;
use fpforge_spec::InputSpec;
use fpir::{Func, Module, Side};
use std::time::Duration;

/// Concolic execution with the solver portfolio, seeded as the coverage run is.
pub struct ConcolicProver {
    /// The seed of the solver and of random restarts.
    pub seed: u64,
}

impl ConcolicProver {
    /// The concolic engine's settings: every field of the prover goes into them, so
    /// they are its settings too.
    fn config(&self) -> EngineConfig {
        EngineConfig::default().with_seed(self.seed)
    }
}

impl SideProver for ConcolicProver {
    fn settings(&self) -> Settings {
        Settings::new()
            .with("method", "concolic")
            .with_group("engine", self.config().settings())
    }

    fn settle(
        &self,
        module: &Module,
        func: Func,
        spec: &InputSpec,
        sides: &[Side],
        time_limit: Duration,
    ) -> Vec<Settlement> {
        let config = self.config();
        let budget = Budget::default().with_time_limit(Some(time_limit));
        match reach_sides(module, func, spec.clone(), sides, config, &budget) {
            Ok(answers) => answers
                .into_iter()
                .map(|answer| match answer {
                    SideAnswer::Covered(bits) => Settlement::Witness(bits),
                    SideAnswer::Infeasible { method } => Settlement::Infeasible(method),
                    SideAnswer::Unknown(why) => Settlement::Unknown(why),
                })
                .collect(),
            Err(_) => vec![Settlement::Unknown(None); sides.len()],
        }
    }
}
