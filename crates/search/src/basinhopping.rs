//! Basinhopping: Monte-Carlo moves between local minima with Metropolis acceptance.
//!
//! D. J. Wales and J. P. K. Doye, J. Phys. Chem. A 101, 1997; the global minimizer of
//! CoverMe (Fu & Su, PLDI'17, Sec. 4: `n_iter` hops, Powell as local minimizer). Each
//! hop perturbs the current minimum uniformly within a step (relative to the point's
//! magnitude, so the same configuration works in real and ordered-bits coordinates;
//! integer coordinates relative to the integers' magnitude),
//! minimizes locally, and accepts the new minimum with probability
//! `min(1, exp(-(f_new - f_cur) / T))`.

use crate::evaluator::{Evaluator, Halt};
use crate::powell::{powell, PowellConfig};
use rand::Rng;

/// Parameters of basinhopping.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BasinhoppingConfig {
    /// Hops after the first local minimization (default 5, as in CoverMe).
    pub n_iter: u32,
    /// Metropolis temperature (default 1.0).
    pub temperature: f64,
    /// Perturbation half-width relative to the largest coordinate (default 0.5).
    pub rel_step: f64,
    /// Smallest perturbation half-width (default 1.0).
    pub abs_step: f64,
    /// The local minimizer's parameters.
    pub local: PowellConfig,
}

impl Default for BasinhoppingConfig {
    fn default() -> Self {
        BasinhoppingConfig {
            n_iter: 5,
            temperature: 1.0,
            rel_step: 0.5,
            abs_step: 1.0,
            local: PowellConfig::default(),
        }
    }
}

impl BasinhoppingConfig {
    /// Sets the number of hops.
    pub fn with_n_iter(mut self, n_iter: u32) -> Self {
        self.n_iter = n_iter;
        self
    }

    /// Sets the smallest perturbation and the local search's smallest step.
    pub fn with_abs_step(mut self, step: f64) -> Self {
        self.abs_step = step;
        self.local = self.local.with_abs_step(step);
        self
    }
}

/// Runs basinhopping from `start`. Ends with `Ok` after `n_iter` hops, or with the
/// evaluator's stop (target reached, budget spent).
pub fn basinhopping<F: FnMut(&[f64]) -> f64, R: Rng>(
    ev: &mut Evaluator<F>,
    start: &[f64],
    config: &BasinhoppingConfig,
    rng: &mut R,
) -> Result<(), Halt> {
    let (mut current, mut f_current) = powell(ev, start, &config.local)?;
    for _ in 0..config.n_iter {
        // Integer coordinates hop on their own scale (see `Evaluator::step_scale`); the
        // widths are capped so the uniform range stays finite when a coordinate is huge
        // or infinite.
        let width = |integer: bool, abs_step: f64| {
            abs_step
                .max(config.rel_step * ev.scale(&current, integer))
                .min(f64::MAX / 4.0)
        };
        let (real_width, integer_width) = (width(false, config.abs_step), width(true, 1.0));
        let hop: Vec<f64> = current
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let width = if ev.is_integer(i) {
                    integer_width
                } else {
                    real_width
                };
                c + rng.gen_range(-width..=width)
            })
            .collect();
        let (candidate, f_candidate) = powell(ev, &hop, &config.local)?;
        let accept = f_candidate < f_current
            || rng.gen::<f64>() < (-(f_candidate - f_current) / config.temperature).exp();
        if accept {
            current = candidate;
            f_current = f_candidate;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Limits;
    use crate::ordinal::to_ordinal;
    use crate::space::Space;
    use crate::stop::Stop;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn run(
        f: impl FnMut(&[f64]) -> f64,
        space: Space,
        start: f64,
        config: BasinhoppingConfig,
        seed: u64,
    ) -> crate::SearchOutcome {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let budget = Limits::default().with_eval_limit(200_000);
        let mut ev = Evaluator::new(f, space, budget);
        let result = basinhopping(&mut ev, &[space.encode(start)], &config, &mut rng);
        ev.finish(result)
    }

    #[test]
    fn escapes_local_minima_of_a_rippled_function() {
        let f = |x: &[f64]| {
            let d = x[0] - 7.25;
            if d.abs() < 1e-9 {
                0.0
            } else {
                d.abs() + 2.0 + (5.0 * x[0]).sin()
            }
        };
        let out = run(
            f,
            Space::Real,
            -20.0,
            BasinhoppingConfig::default().with_n_iter(50),
            1,
        );
        assert_eq!(out.reason, Stop::TargetsReached, "{out:?}");
    }

    #[test]
    fn ordered_bits_space_reaches_subnormal_targets() {
        // Taken only by subnormal inputs: 0 < |x| < DBL_MIN, as fdlibm's bit tests check.
        let f = |x: &[f64]| {
            let a = x[0].abs();
            if a > 0.0 && a < f64::MIN_POSITIVE {
                0.0
            } else if a == 0.0 {
                1.0
            } else {
                (to_ordinal(a) - to_ordinal(f64::MIN_POSITIVE)).abs() + 1.0
            }
        };
        let config = BasinhoppingConfig::default().with_abs_step(1024.0);
        let out = run(f, Space::OrderedBits, 1.0, config, 7);
        assert_eq!(out.reason, Stop::TargetsReached, "{out:?}");
        assert!(out.best_input[0].abs() < f64::MIN_POSITIVE && out.best_input[0] != 0.0);
    }

    #[test]
    fn same_seed_same_search() {
        let f = |x: &[f64]| (x[0] - 1e6).abs() + (x[0] * 3.0).cos();
        let config = BasinhoppingConfig::default().with_n_iter(10);
        let a = run(f, Space::Real, 0.0, config, 42);
        let b = run(f, Space::Real, 0.0, config, 42);
        assert_eq!(a.best_input[0].to_bits(), b.best_input[0].to_bits());
        assert_eq!(a.evals, b.evals);
    }
}
