//! Random search: the baseline of FloPSy's evaluation (§5). Each step draws a
//! batch of candidates from [`super::sample`]'s mixture of special values,
//! small numbers and uniform bit patterns.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{sample, Objective, SearchEngine};
use fpforge_search::Stepped;

/// Candidates drawn per step.
const BATCH: usize = 100;

/// Random search state.
pub struct RandomSearch {
    rng: ChaCha8Rng,
}

impl RandomSearch {
    /// A random search seeded with `seed`.
    pub fn new(seed: u64) -> RandomSearch {
        RandomSearch {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl SearchEngine for RandomSearch {
    fn step(&mut self, obj: &mut Objective<'_>) -> Stepped {
        for _ in 0..BATCH {
            let cand: Vec<_> = (0..obj.vars.len())
                .map(|i| sample(&mut self.rng, obj.vars[i].sort, obj.bounds[i]))
                .collect();
            if obj.fitness(&cand) == 0.0 && obj.solution.is_some() {
                break;
            }
        }
        Stepped::Continue
    }
}
