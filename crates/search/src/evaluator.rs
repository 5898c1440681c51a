//! The one executor every minimizer runs through: counts evaluations, keeps the best
//! point, enforces the budget and the target, and says why a search stopped.
//!
//! Minimizers call [`Evaluator::eval`] and propagate its `Err(Stop)` with `?`, so a
//! search unwinds the moment the target is reached or the budget is spent.
//!
//! Coordinates marked integer ([`Evaluator::with_integer_coordinates`]) stand for an
//! integer parameter: they are the value itself in every space (an integer's ordered bits
//! as a double would make one step of the search a change of magnitude), and the
//! minimizers size their steps on them apart from the real coordinates
//! ([`Evaluator::step_scale`]), so a large double does not throw a small order across
//! its whole range.
//!
//! The objective may also end a search that is not worth its budget by raising the
//! signal given to [`Evaluator::with_give_up`]: the search then stops with
//! [`StopReason::GaveUp`] after that evaluation.

use crate::space::Space;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Instant;

/// Limits of one search.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Budget {
    /// Maximum number of objective evaluations (default: unlimited).
    pub max_evals: Option<u64>,
    /// Wall-clock deadline (default: none).
    pub deadline: Option<Instant>,
    /// The search stops as soon as a value at or below this is found (default 0.0).
    pub target: f64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_evals: None,
            deadline: None,
            target: 0.0,
        }
    }
}

impl Budget {
    /// Caps the number of evaluations.
    pub fn with_eval_limit(mut self, evals: u64) -> Self {
        self.max_evals = Some(evals);
        self
    }

    /// Stops at `deadline`.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Stops when a value `<= target` is found.
    pub fn with_target(mut self, target: f64) -> Self {
        self.target = target;
        self
    }
}

/// Why a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// A value at or below the target was found.
    TargetReached,
    /// The evaluation budget is spent.
    EvalLimit,
    /// The deadline passed.
    TimeLimit,
    /// The minimizer ran to completion without reaching the target.
    Converged,
    /// The objective raised the give-up signal ([`Evaluator::with_give_up`]).
    GaveUp,
}

/// Signal that the search must end now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop(pub StopReason);

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Best input found (decoded from the search space).
    pub best_input: Vec<f64>,
    /// Objective value at `best_input` (`f64::INFINITY` if nothing was evaluated).
    pub best_value: f64,
    /// Evaluations made.
    pub evals: u64,
    /// Why it ended.
    pub reason: StopReason,
}

/// Wraps an objective over inputs with the budget and the search space.
pub struct Evaluator<F> {
    objective: F,
    space: Space,
    budget: Budget,
    evals: u64,
    best_input: Vec<f64>,
    best_value: f64,
    scratch: Vec<f64>,
    /// Which coordinates are integers (empty: none).
    integer: Vec<bool>,
    /// Raised by the objective to end the search ([`Evaluator::with_give_up`]).
    give_up: Option<Rc<Cell<bool>>>,
}

impl<F: FnMut(&[f64]) -> f64> Evaluator<F> {
    /// An evaluator of `objective` over coordinates in `space`.
    pub fn new(objective: F, space: Space, budget: Budget) -> Self {
        Evaluator {
            objective,
            space,
            budget,
            evals: 0,
            best_input: Vec::new(),
            best_value: f64::INFINITY,
            scratch: Vec::new(),
            integer: Vec::new(),
            give_up: None,
        }
    }

    /// Ends the search with [`StopReason::GaveUp`] after any evaluation that leaves
    /// `signal` raised (the objective holds a clone and raises it).
    pub fn with_give_up(mut self, signal: Rc<Cell<bool>>) -> Self {
        self.give_up = Some(signal);
        self
    }

    /// Marks the coordinates whose `integer` entry is true as integers (see the module
    /// docs).
    pub fn with_integer_coordinates(mut self, integer: Vec<bool>) -> Self {
        self.integer = integer;
        self
    }

    /// The search space.
    pub fn space(&self) -> Space {
        self.space
    }

    /// Whether coordinate `index` is an integer.
    pub fn is_integer(&self, index: usize) -> bool {
        self.integer.get(index).copied().unwrap_or(false)
    }

    /// How coordinate `index` maps to its input value.
    fn space_of(&self, index: usize) -> Space {
        if self.is_integer(index) {
            Space::Real
        } else {
            self.space
        }
    }

    /// The coordinates of input values.
    pub fn encode(&self, values: &[f64]) -> Vec<f64> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| self.space_of(i).encode(v))
            .collect()
    }

    /// The magnitude steps along `dir` from `x` are sized on, and whether `dir` moves
    /// integer coordinates only: then [`Evaluator::scale`] of the integers, else of the
    /// real coordinates.
    pub fn step_scale(&self, x: &[f64], dir: &[f64]) -> (f64, bool) {
        let integer = dir
            .iter()
            .enumerate()
            .all(|(i, &d)| d == 0.0 || self.is_integer(i));
        (self.scale(x, integer), integer)
    }

    /// The largest magnitude among the coordinates of `x` that are integers (`integer`)
    /// or real (without integer coordinates, the largest coordinate).
    pub fn scale(&self, x: &[f64], integer: bool) -> f64 {
        x.iter()
            .enumerate()
            .filter(|&(i, _)| self.is_integer(i) == integer)
            .fold(0.0f64, |m, (_, v)| m.max(v.abs()))
    }

    /// Evaluates the objective at coordinates `y`. NaN objective values count as
    /// `+inf` so comparisons stay total.
    pub fn eval(&mut self, y: &[f64]) -> Result<f64, Stop> {
        if self.budget.max_evals.is_some_and(|m| self.evals >= m) {
            return Err(Stop(StopReason::EvalLimit));
        }
        // The clock is read at every evaluation (~30 ns): one evaluation can take a
        // tenth of a second (a long loop confirmed with more fuel), so a stride of
        // evaluations between readings overshot the deadline by seconds.
        if self.budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Stop(StopReason::TimeLimit));
        }
        self.scratch.clear();
        for (i, &c) in y.iter().enumerate() {
            let value = self.space_of(i).decode(c);
            self.scratch.push(value);
        }
        let raw = (self.objective)(&self.scratch);
        let value = if raw.is_nan() { f64::INFINITY } else { raw };
        self.evals += 1;
        if value < self.best_value || self.best_input.is_empty() {
            self.best_value = value;
            self.best_input.clone_from(&self.scratch);
        }
        if value <= self.budget.target {
            return Err(Stop(StopReason::TargetReached));
        }
        if self.give_up.as_ref().is_some_and(|signal| signal.get()) {
            return Err(Stop(StopReason::GaveUp));
        }
        Ok(value)
    }

    /// Ends the search, reporting `reason` unless a stop already said otherwise.
    pub fn finish(self, result: Result<(), Stop>) -> Outcome {
        let reason = match result {
            Ok(()) => StopReason::Converged,
            Err(Stop(reason)) => reason,
        };
        Outcome {
            best_input: self.best_input,
            best_value: self.best_value,
            evals: self.evals,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_on_target_and_keeps_the_witness() {
        let mut ev = Evaluator::new(
            |x: &[f64]| (x[0] - 3.0).abs(),
            Space::Real,
            Budget::default(),
        );
        assert_eq!(ev.eval(&[1.0]), Ok(2.0));
        assert_eq!(ev.eval(&[3.0]), Err(Stop(StopReason::TargetReached)));
        let out = ev.finish(Err(Stop(StopReason::TargetReached)));
        assert_eq!(out.best_input, vec![3.0]);
        assert_eq!(out.evals, 2);
    }

    #[test]
    fn stops_on_eval_limit() {
        let budget = Budget::default().with_eval_limit(2);
        let mut ev = Evaluator::new(|_: &[f64]| 1.0, Space::Real, budget);
        assert!(ev.eval(&[0.0]).is_ok());
        assert!(ev.eval(&[0.0]).is_ok());
        assert_eq!(ev.eval(&[0.0]), Err(Stop(StopReason::EvalLimit)));
    }

    #[test]
    fn gives_up_after_the_evaluation_that_raises_the_signal_keeping_the_best() {
        let signal = Rc::new(Cell::new(false));
        let raised = Rc::clone(&signal);
        let objective = move |x: &[f64]| {
            raised.set(x[0] > 5.0);
            x[0]
        };
        let mut ev = Evaluator::new(objective, Space::Real, Budget::default()).with_give_up(signal);
        assert_eq!(ev.eval(&[2.0]), Ok(2.0));
        assert_eq!(ev.eval(&[4.0]), Ok(4.0));
        assert_eq!(ev.eval(&[6.0]), Err(Stop(StopReason::GaveUp)));
        let out = ev.finish(Err(Stop(StopReason::GaveUp)));
        assert_eq!(out.reason, StopReason::GaveUp);
        assert_eq!(out.best_input, vec![2.0]);
        assert_eq!(out.evals, 3);
    }

    #[test]
    fn slow_evaluations_stop_at_the_first_one_past_the_deadline() {
        let deadline = Instant::now() + std::time::Duration::from_millis(30);
        let budget = Budget::default().with_deadline(deadline);
        let slow = |_: &[f64]| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            1.0
        };
        let mut ev = Evaluator::new(slow, Space::Real, budget);
        let mut evals = 0;
        while ev.eval(&[0.0]).is_ok() {
            evals += 1;
            assert!(evals < 64, "still evaluating far past the deadline");
        }
        assert!(Instant::now() >= deadline);
        // Each evaluation takes at least 10 ms: three fit before the deadline.
        assert!(evals <= 3, "{evals} evaluations");
    }

    #[test]
    fn integer_coordinates_are_their_values_in_ordered_bits() {
        let mut ev = Evaluator::new(
            |x: &[f64]| x[0] + x[1],
            Space::OrderedBits,
            Budget::default(),
        )
        .with_integer_coordinates(vec![true, false]);
        let y = ev.encode(&[7.0, 1.5]);
        assert_eq!(y[0], 7.0);
        assert_eq!(y[1], Space::OrderedBits.encode(1.5));
        assert_eq!(ev.eval(&y), Ok(8.5));
        assert_eq!(ev.step_scale(&[7.0, 1e18], &[1.0, 0.0]), (7.0, true));
        assert_eq!(ev.step_scale(&[7.0, 1e18], &[1.0, 1.0]), (1e18, false));
        assert_eq!(ev.step_scale(&[7.0, -2.0], &[0.0, 1.0]), (2.0, false));
    }

    #[test]
    fn without_integers_steps_scale_on_the_largest_coordinate() {
        let ev = Evaluator::new(|_: &[f64]| 0.0, Space::Real, Budget::default());
        assert_eq!(ev.step_scale(&[3.0, -9.0], &[1.0, 0.0]), (9.0, false));
    }

    #[test]
    fn nan_values_rank_last() {
        let mut ev = Evaluator::new(
            |x: &[f64]| if x[0] > 0.0 { f64::NAN } else { 5.0 },
            Space::Real,
            Budget::default(),
        );
        assert_eq!(ev.eval(&[1.0]), Ok(f64::INFINITY));
        assert_eq!(ev.eval(&[-1.0]), Ok(5.0));
        assert_eq!(ev.finish(Ok(())).best_input, vec![-1.0]);
    }
}
