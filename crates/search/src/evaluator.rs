//! The one executor every minimizer runs through: counts evaluations, keeps the best
//! point, enforces the budget and the target, and says why a search stopped.
//!
//! Minimizers call [`Evaluator::eval`] and propagate its `Err(Stop)` with `?`, so a
//! search unwinds the moment the target is reached or the budget is spent.

use crate::space::Space;
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
        }
    }

    /// The search space.
    pub fn space(&self) -> Space {
        self.space
    }

    /// Evaluates the objective at coordinates `y`. NaN objective values count as
    /// `+inf` so comparisons stay total.
    pub fn eval(&mut self, y: &[f64]) -> Result<f64, Stop> {
        if self.budget.max_evals.is_some_and(|m| self.evals >= m) {
            return Err(Stop(StopReason::EvalLimit));
        }
        if self.evals.is_multiple_of(64)
            && self.budget.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return Err(Stop(StopReason::TimeLimit));
        }
        self.scratch.clear();
        let space = self.space;
        self.scratch.extend(y.iter().map(|&c| space.decode(c)));
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
