//! The alternating variable method (AVM): the one implementation of its moves, and the
//! method itself over an [`Evaluator`] in ulp steps, an exact local search for branch
//! distances.
//!
//! B. Korel, "Automated software test data generation", IEEE TSE 16(8), 1990; FloPSy
//! (Lakhotia et al., ICTSS 2010, Sec. 3.1) applies it to floating-point inputs. One
//! variable at a time: *exploratory moves* of a small step each way and, after an
//! improvement, *pattern moves* whose step doubles while the objective keeps improving.
//! [`explore_and_pattern`] makes these moves along any [`Axis`] (a variable, how its
//! values step, and what the objective is there); solve's FloPSy search moves its floats,
//! bit-vectors and Booleans with it, and [`avm()`] moves the coordinates of an
//! [`Evaluator`].
//!
//! [`avm()`] tries exploratory steps of one, then coarser ones (2^4, 2^8, ... until one
//! improves), repeats the moves on a variable while they improve, and ends at a local
//! minimum when a sweep over all variables improves nothing. In [`Space::Real`] a step
//! is one ulp of the coordinate (computed on its bits, so it is exact everywhere,
//! subnormals and binade boundaries included, and 63 doublings cross the whole range);
//! in [`Space::OrderedBits`], and on integer coordinates, a step is one coordinate unit. Line searches over real
//! coordinates stop a few ulps short of an equality; this method lands on it, so
//! engines use it to finish what Powell's method started.

use crate::evaluator::{Evaluator, Halt};
use crate::ordinal::{from_signed_ulps, signed_ulps, HostFormat};
use crate::space::Space;

/// One variable of an objective as the alternating variable method moves it: how its
/// values step, and what the objective is with the variable at a value (the other
/// variables held where they are).
pub trait Axis {
    /// A value of the variable.
    type Point: Copy;
    /// Why the search must end at once (e.g. [`Halt`]).
    type Halt;

    /// The value `steps` steps from `from` (down when negative), or `None` when that is
    /// no move (`from` itself, or nothing there).
    fn moved(&self, from: Self::Point, steps: i64) -> Option<Self::Point>;

    /// The objective with the variable at `at`.
    fn eval(&mut self, at: Self::Point) -> Result<f64, Self::Halt>;

    /// Whether an accepted objective value ends the moves at once, because nothing can
    /// be lower (default: never).
    fn is_final(&self, _value: f64) -> bool {
        false
    }
}

/// Korel's moves on one variable from `at`, whose objective is `value`: the signed
/// `exploratory` steps are tried in order until one improves, then pattern moves double
/// that step while the objective keeps improving. Returns the improved point and its
/// value, or `None` when no exploratory step improves.
pub fn explore_and_pattern<A: Axis>(
    axis: &mut A,
    at: A::Point,
    value: f64,
    exploratory: &[i64],
) -> Result<Option<(A::Point, f64)>, A::Halt> {
    for &steps in exploratory {
        let Some(probe) = axis.moved(at, steps) else {
            continue;
        };
        let probe_value = axis.eval(probe)?;
        if probe_value < value {
            return pattern_moves(axis, probe, probe_value, steps).map(Some);
        }
    }
    Ok(None)
}

/// Pattern moves after the improving step `first`: the step doubles after every
/// improvement. They end at a move that does not improve or is no move, and once the step
/// cannot double: a saturated step, repeated, would creep across the range.
fn pattern_moves<A: Axis>(
    axis: &mut A,
    mut at: A::Point,
    mut value: f64,
    first: i64,
) -> Result<(A::Point, f64), A::Halt> {
    let direction = first.signum();
    let mut magnitude = first.saturating_abs();
    while !axis.is_final(value) && magnitude < i64::MAX {
        magnitude = magnitude.saturating_mul(2);
        let Some(probe) = axis.moved(at, direction * magnitude) else {
            break;
        };
        let probe_value = axis.eval(probe)?;
        if probe_value >= value {
            break;
        }
        at = probe;
        value = probe_value;
    }
    Ok((at, value))
}

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

/// Exploratory steps of [`avm()`], tried in order until one improves: one step each way
/// first, then coarser ones (2^4, 2^8, ..., 2^60), because an objective measured in ulps
/// as an `f64` does not resolve a one-ulp change when it is above 2^53.
const EXPLORATORY_STEPS: [i64; 32] = {
    let mut steps = [0; 32];
    let mut i = 0;
    while i < 16 {
        steps[2 * i] = 1 << (4 * i);
        steps[2 * i + 1] = -(1 << (4 * i));
        i += 1;
    }
    steps
};

/// Coordinate `index` of an evaluator's objective, the others held at `probe`.
struct Coordinate<'e, 'p, F> {
    ev: &'e mut Evaluator<F>,
    probe: &'p mut [f64],
    index: usize,
}

impl<F: FnMut(&[f64]) -> f64> Axis for Coordinate<'_, '_, F> {
    type Point = f64;
    type Halt = Halt;

    fn moved(&self, from: f64, steps: i64) -> Option<f64> {
        let to = match self.ev.space() {
            _ if self.ev.is_integer(self.index) => from + steps as f64,
            Space::Real => from_signed_ulps(
                HostFormat::F64,
                signed_ulps(HostFormat::F64, from).saturating_add(steps),
            ),
            Space::OrderedBits => from + steps as f64,
        };
        (to.to_bits() != from.to_bits()).then_some(to)
    }

    fn eval(&mut self, at: f64) -> Result<f64, Halt> {
        self.probe[self.index] = at;
        self.ev.eval(self.probe)
    }
}

/// Minimizes from `start` by exploratory and pattern moves; returns the local minimum's
/// coordinates and value.
pub fn avm<F: FnMut(&[f64]) -> f64>(
    ev: &mut Evaluator<F>,
    start: &[f64],
    config: &AvmConfig,
) -> Result<(Vec<f64>, f64), Halt> {
    let mut x = start.to_vec();
    let mut fx = ev.eval(&x)?;
    let mut probe = x.clone();
    for _ in 0..config.max_sweeps {
        let mut improved = false;
        for (index, xi) in x.iter_mut().enumerate() {
            let mut axis = Coordinate {
                ev: &mut *ev,
                probe: &mut probe,
                index,
            };
            while let Some((to, value)) =
                explore_and_pattern(&mut axis, *xi, fx, &EXPLORATORY_STEPS)?
            {
                *xi = to;
                fx = value;
                improved = true;
            }
            probe[index] = *xi;
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
    use crate::budget::Limits;
    use crate::ordinal::ulp_distance;
    use crate::stop::Stop;

    /// Integers as an axis, recording every evaluated point.
    struct Integers<G> {
        objective: G,
        evaluated: Vec<i64>,
        floor: Option<f64>,
    }

    impl<G: Fn(i64) -> f64> Axis for Integers<G> {
        type Point = i64;
        type Halt = std::convert::Infallible;

        fn moved(&self, from: i64, steps: i64) -> Option<i64> {
            from.checked_add(steps)
        }

        fn eval(&mut self, at: i64) -> Result<f64, Self::Halt> {
            self.evaluated.push(at);
            Ok((self.objective)(at))
        }

        fn is_final(&self, value: f64) -> bool {
            self.floor == Some(value)
        }
    }

    fn integers<G: Fn(i64) -> f64>(objective: G) -> Integers<G> {
        Integers {
            objective,
            evaluated: Vec::new(),
            floor: None,
        }
    }

    #[test]
    fn pattern_moves_double_the_improving_step_until_it_overshoots() {
        let mut axis = integers(|x| (x - 100).abs() as f64);
        let Ok(found) = explore_and_pattern(&mut axis, 0, 100.0, &[-1, 1]);
        // -1 is worse, +1 improves; then +2, +4, ... from each new point until 127 + 128.
        assert_eq!(found, Some((127, 27.0)));
        assert_eq!(axis.evaluated, [-1, 1, 3, 7, 15, 31, 63, 127, 255]);
    }

    #[test]
    fn no_improving_exploratory_step_means_no_move() {
        let mut axis = integers(|x| x.abs() as f64);
        let Ok(found) = explore_and_pattern(&mut axis, 0, 0.0, &[-1, 1, -16, 16]);
        assert_eq!(found, None);
        assert_eq!(axis.evaluated, [-1, 1, -16, 16]);
    }

    #[test]
    fn moves_end_at_a_final_value_and_when_the_step_saturates() {
        let mut axis = integers(|x| (x - 3).abs() as f64);
        axis.floor = Some(0.0);
        let Ok(found) = explore_and_pattern(&mut axis, 0, 3.0, &[3]);
        assert_eq!(found, Some((3, 0.0)));
        assert_eq!(axis.evaluated, [3]);

        // Always improving upwards: the step doubles up to i64::MAX and stops there.
        let mut axis = integers(|x| -(x as f64));
        let Ok(found) = explore_and_pattern(&mut axis, i64::MIN, 2f64.powi(63), &[1 << 40]);
        // 2^40 + 2^41 + ... + 2^62 = 2^63 - 2^40, then one step of i64::MAX.
        let top = i64::MAX - (1 << 40);
        assert_eq!(found, Some((top, -(top as f64))));
        assert_eq!(axis.evaluated.len(), 1 + 22 + 1);
    }

    #[test]
    fn lands_exactly_on_an_equality_with_a_product() {
        // `x == 1e300 * y` with y in range: a line search stops ulps away; AVM hits it.
        let f = |v: &[f64]| {
            let y_gap = (v[1] - 1.5).abs() - 0.5;
            if y_gap >= 0.0 {
                return 1e30 + y_gap;
            }
            ulp_distance(HostFormat::F64, v[0], 1e300 * v[1]) as f64
        };
        let budget = Limits::default().with_eval_limit(100_000);
        let mut ev = Evaluator::new(f, Space::Real, budget);
        let result = avm(&mut ev, &[3.0, 1.234_567], &AvmConfig::default());
        assert_eq!(result.unwrap_err(), Halt(Stop::TargetsReached));
        let out = ev.finish(Err(Halt(Stop::TargetsReached)));
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
                ulp_distance(HostFormat::F64, a, 1e-310) as f64 + 1.0
            }
        };
        let mut ev = Evaluator::new(f, Space::Real, Limits::default());
        let result = avm(&mut ev, &[12.5], &AvmConfig::default());
        assert_eq!(result.unwrap_err(), Halt(Stop::TargetsReached));
    }
}
