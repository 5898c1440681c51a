//! The alternating variable method in ulp steps: an exact local search for branch
//! distances.
//!
//! B. Korel, "Automated software test data generation", IEEE TSE 16(8), 1990; FloPSy
//! (Lakhotia et al., ICTSS 2010, Sec. 3.1) applies it to floating-point inputs. One
//! variable at a time: *exploratory moves* of one step each way (then of coarser steps,
//! 2^4, 2^8, ... until one improves) and, after an improvement, *pattern moves* whose
//! step doubles while the objective keeps improving; a sweep over all variables without
//! improvement ends the search at a local minimum.
//!
//! In [`Space::Real`] a step is one ulp of the coordinate (computed on its bits, so it is
//! exact everywhere, subnormals and binade boundaries included, and 63 doublings cross
//! the whole range); in [`Space::OrderedBits`] a step is one coordinate unit. Line
//! searches over real coordinates stop a few ulps short of an equality; this method
//! lands on it, so engines use it to finish what Powell's method started.

use crate::evaluator::{Evaluator, Stop};
use crate::space::Space;

/// Parameters of the alternating variable method.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct AvmConfig {
    /// Sweeps over all variables at most (default 50).
    pub max_sweeps: u32,
}

impl Default for AvmConfig {
    fn default() -> Self {
        AvmConfig { max_sweeps: 50 }
    }
}

impl AvmConfig {
    /// Sets the number of sweeps.
    pub fn with_max_sweeps(mut self, sweeps: u32) -> Self {
        self.max_sweeps = sweeps;
        self
    }
}

/// The position of `x` among binary64 values as a signed integer (both zeros are 0;
/// NaNs sit beyond the infinities, by their bits).
fn ulp_index(x: f64) -> i64 {
    let magnitude = (x.to_bits() & !(1u64 << 63)) as i64;
    if x.is_sign_negative() {
        -magnitude
    } else {
        magnitude
    }
}

/// The binary64 value at position `index` (positions past the infinities are NaNs).
fn from_ulp_index(index: i64) -> f64 {
    let magnitude = index.unsigned_abs().min(!(1u64 << 63));
    let x = f64::from_bits(magnitude);
    if index < 0 {
        -x
    } else {
        x
    }
}

/// Exploratory step sizes, tried in order until one improves: one step first, then
/// coarser ones, because an objective measured in ulps as an `f64` does not resolve a
/// one-ulp change when it is above 2^53.
const EXPLORE_SCALES: [i64; 16] = [
    1,
    1 << 4,
    1 << 8,
    1 << 12,
    1 << 16,
    1 << 20,
    1 << 24,
    1 << 28,
    1 << 32,
    1 << 36,
    1 << 40,
    1 << 44,
    1 << 48,
    1 << 52,
    1 << 56,
    1 << 60,
];

/// Coordinate `c` moved by `steps` steps of `space`.
fn moved(space: Space, c: f64, steps: i64) -> f64 {
    match space {
        Space::Real => from_ulp_index(ulp_index(c).saturating_add(steps)),
        Space::OrderedBits => c + steps as f64,
    }
}

/// Minimizes from `start` by exploratory and pattern moves; returns the local minimum's
/// coordinates and value.
pub fn avm<F: FnMut(&[f64]) -> f64>(
    ev: &mut Evaluator<F>,
    start: &[f64],
    config: &AvmConfig,
) -> Result<(Vec<f64>, f64), Stop> {
    let space = ev.space();
    let mut x = start.to_vec();
    let mut fx = ev.eval(&x)?;
    let mut probe = x.clone();
    for _ in 0..config.max_sweeps {
        let mut improved = false;
        for i in 0..x.len() {
            loop {
                let mut direction = 0;
                'explore: for scale in EXPLORE_SCALES {
                    for d in [scale, -scale] {
                        probe[i] = moved(space, x[i], d);
                        if probe[i].to_bits() == x[i].to_bits() {
                            continue;
                        }
                        let f = ev.eval(&probe)?;
                        if f < fx {
                            x[i] = probe[i];
                            fx = f;
                            direction = d;
                            break 'explore;
                        }
                    }
                }
                probe[i] = x[i];
                if direction == 0 {
                    break;
                }
                improved = true;
                let mut step = direction.saturating_mul(2);
                loop {
                    probe[i] = moved(space, x[i], step);
                    if probe[i].to_bits() == x[i].to_bits() {
                        break;
                    }
                    let f = ev.eval(&probe)?;
                    if f >= fx {
                        break;
                    }
                    x[i] = probe[i];
                    fx = f;
                    step = step.saturating_mul(2);
                }
                probe[i] = x[i];
            }
        }
        if !improved {
            break;
        }
    }
    Ok((x, fx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::{Budget, StopReason};

    #[test]
    fn ulp_positions_are_exact_across_zero_and_binades() {
        assert_eq!(from_ulp_index(ulp_index(1.0) + 1), 1.0f64.next_up());
        assert_eq!(from_ulp_index(1), 5e-324);
        assert_eq!(from_ulp_index(-1), -5e-324);
        assert_eq!(
            from_ulp_index(ulp_index(f64::MIN_POSITIVE) - 1),
            f64::MIN_POSITIVE.next_down()
        );
        assert_eq!(from_ulp_index(ulp_index(f64::MAX) + 1), f64::INFINITY);
        assert!(from_ulp_index(i64::MAX).is_nan());
    }

    #[test]
    fn lands_exactly_on_an_equality_with_a_product() {
        // `x == 1e300 * y` with y in range: a line search stops ulps away; AVM hits it.
        let f = |v: &[f64]| {
            let y_gap = (v[1] - 1.5).abs() - 0.5;
            if y_gap >= 0.0 {
                return 1e30 + y_gap;
            }
            (ulp_index(v[0]) - ulp_index(1e300 * v[1])).unsigned_abs() as f64
        };
        let budget = Budget::default().with_eval_limit(100_000);
        let mut ev = Evaluator::new(f, Space::Real, budget);
        let result = avm(&mut ev, &[3.0, 1.234_567], &AvmConfig::default());
        assert_eq!(result.unwrap_err(), Stop(StopReason::TargetReached));
        let out = ev.finish(Err(Stop(StopReason::TargetReached)));
        assert_eq!(out.best_input[0], 1e300 * out.best_input[1]);
        assert!(out.evals < 5_000, "{}", out.evals);
    }

    #[test]
    fn walks_into_the_subnormals() {
        let f = |v: &[f64]| {
            let a = v[0].abs();
            if a > 0.0 && a < 1e-310 {
                0.0
            } else {
                (ulp_index(a) - ulp_index(1e-310)).unsigned_abs() as f64 + 1.0
            }
        };
        let mut ev = Evaluator::new(f, Space::Real, Budget::default());
        let result = avm(&mut ev, &[12.5], &AvmConfig::default());
        assert_eq!(result.unwrap_err(), Stop(StopReason::TargetReached));
    }
}
