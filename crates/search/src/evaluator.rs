//! The one executor every minimizer runs through: counts evaluations, keeps the best
//! point, enforces the budget and the target, and says why a search stopped.
//!
//! Minimizers call [`Evaluator::eval`] and propagate its `Err(Halt)` with `?`, so a
//! search unwinds the moment the target is reached or its [`Limits`] are spent.
//! One-step engines (a move, a generation at a time) run through [`run_steps`], which
//! checks the same limits between steps.
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
//! [`Stop::GaveUp`] after that evaluation.

use crate::budget::Limits;
use crate::space::Space;
use crate::stop::Stop;
use std::cell::Cell;
use std::rc::Rc;

/// Signal that the search must end now, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Halt(pub Stop);

/// The result of a search.
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    /// Best input found (decoded from the search space).
    pub best_input: Vec<f64>,
    /// Objective value at `best_input` (`f64::INFINITY` if nothing was evaluated).
    pub best_value: f64,
    /// Evaluations made.
    pub evals: u64,
    /// Why it ended.
    pub reason: Stop,
}

/// Wraps an objective over inputs with the budget and the search space.
pub struct Evaluator<F> {
    objective: F,
    space: Space,
    limits: Limits,
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
    pub fn new(objective: F, space: Space, limits: Limits) -> Self {
        Evaluator {
            objective,
            space,
            limits,
            evals: 0,
            best_input: Vec::new(),
            best_value: f64::INFINITY,
            scratch: Vec::new(),
            integer: Vec::new(),
            give_up: None,
        }
    }

    /// Ends the search with [`Stop::GaveUp`] after any evaluation that leaves
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
    pub fn eval(&mut self, y: &[f64]) -> Result<f64, Halt> {
        if let Some(stop) = self.limits.exceeded(self.evals) {
            return Err(Halt(stop));
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
        if value <= self.limits.target {
            return Err(Halt(Stop::TargetsReached));
        }
        if self.give_up.as_ref().is_some_and(|signal| signal.get()) {
            return Err(Halt(Stop::GaveUp));
        }
        Ok(value)
    }

    /// Ends the search, reporting `reason` unless a stop already said otherwise.
    pub fn finish(self, result: Result<(), Halt>) -> SearchOutcome {
        let reason = match result {
            Ok(()) => Stop::Exhausted,
            Err(Halt(reason)) => reason,
        };
        SearchOutcome {
            best_input: self.best_input,
            best_value: self.best_value,
            evals: self.evals,
            reason,
        }
    }
}

/// What one step of a one-step engine ([`run_steps`]) says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stepped {
    /// Keep going.
    Continue,
    /// The engine can make no further progress.
    Exhausted,
}

/// An engine that works in bounded units (a move, a generation, a batch), run by
/// [`run_steps`].
pub trait OneStep {
    /// Performs one unit of work.
    fn step(&mut self) -> Stepped;
    /// Evaluations made so far.
    fn evals(&self) -> u64;
    /// Whether the target was reached (a model found).
    fn reached(&self) -> bool;
}

/// Runs `engine` step by step until it reaches its target, is exhausted, or `limits`
/// (evaluations counted from `engine`'s own count, a deadline) are spent; returns why.
pub fn run_steps(engine: &mut dyn OneStep, limits: Limits) -> Stop {
    loop {
        if engine.reached() {
            return Stop::TargetsReached;
        }
        if let Some(stop) = limits.exceeded(engine.evals()) {
            return stop;
        }
        if engine.step() == Stepped::Exhausted {
            return if engine.reached() {
                Stop::TargetsReached
            } else {
                Stop::Exhausted
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn stops_on_target_and_keeps_the_witness() {
        let mut ev = Evaluator::new(
            |x: &[f64]| (x[0] - 3.0).abs(),
            Space::Real,
            Limits::default(),
        );
        assert_eq!(ev.eval(&[1.0]), Ok(2.0));
        assert_eq!(ev.eval(&[3.0]), Err(Halt(Stop::TargetsReached)));
        let out = ev.finish(Err(Halt(Stop::TargetsReached)));
        assert_eq!(out.best_input, vec![3.0]);
        assert_eq!(out.evals, 2);
    }

    #[test]
    fn stops_on_eval_limit() {
        let budget = Limits::default().with_eval_limit(2);
        let mut ev = Evaluator::new(|_: &[f64]| 1.0, Space::Real, budget);
        assert!(ev.eval(&[0.0]).is_ok());
        assert!(ev.eval(&[0.0]).is_ok());
        assert_eq!(ev.eval(&[0.0]), Err(Halt(Stop::EvalLimit)));
    }

    #[test]
    fn gives_up_after_the_evaluation_that_raises_the_signal_keeping_the_best() {
        let signal = Rc::new(Cell::new(false));
        let raised = Rc::clone(&signal);
        let objective = move |x: &[f64]| {
            raised.set(x[0] > 5.0);
            x[0]
        };
        let mut ev = Evaluator::new(objective, Space::Real, Limits::default()).with_give_up(signal);
        assert_eq!(ev.eval(&[2.0]), Ok(2.0));
        assert_eq!(ev.eval(&[4.0]), Ok(4.0));
        assert_eq!(ev.eval(&[6.0]), Err(Halt(Stop::GaveUp)));
        let out = ev.finish(Err(Halt(Stop::GaveUp)));
        assert_eq!(out.reason, Stop::GaveUp);
        assert_eq!(out.best_input, vec![2.0]);
        assert_eq!(out.evals, 3);
    }

    #[test]
    fn slow_evaluations_stop_at_the_first_one_past_the_deadline() {
        let deadline = Instant::now() + std::time::Duration::from_millis(30);
        let budget = Limits::default().with_deadline(deadline);
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
            Limits::default(),
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
        let ev = Evaluator::new(|_: &[f64]| 0.0, Space::Real, Limits::default());
        assert_eq!(ev.step_scale(&[3.0, -9.0], &[1.0, 0.0]), (9.0, false));
    }

    #[test]
    fn nan_values_rank_last() {
        let mut ev = Evaluator::new(
            |x: &[f64]| if x[0] > 0.0 { f64::NAN } else { 5.0 },
            Space::Real,
            Limits::default(),
        );
        assert_eq!(ev.eval(&[1.0]), Ok(f64::INFINITY));
        assert_eq!(ev.eval(&[-1.0]), Ok(5.0));
        assert_eq!(ev.finish(Ok(())).best_input, vec![-1.0]);
    }

    /// Counts to `goal` one evaluation per step, exhausted at `last`.
    struct Counter {
        evals: u64,
        goal: u64,
        last: u64,
    }

    impl OneStep for Counter {
        fn step(&mut self) -> Stepped {
            self.evals += 1;
            if self.evals >= self.last {
                Stepped::Exhausted
            } else {
                Stepped::Continue
            }
        }

        fn evals(&self) -> u64 {
            self.evals
        }

        fn reached(&self) -> bool {
            self.evals >= self.goal
        }
    }

    #[test]
    fn one_step_engines_stop_on_their_target_their_limits_or_exhaustion() {
        let counter = |goal, last| Counter {
            evals: 0,
            goal,
            last,
        };
        let mut reaching = counter(5, 100);
        assert_eq!(
            run_steps(&mut reaching, Limits::default()),
            Stop::TargetsReached
        );
        assert_eq!(reaching.evals, 5);
        let capped = Limits::default().with_eval_limit(3);
        let mut short = counter(5, 100);
        assert_eq!(run_steps(&mut short, capped), Stop::EvalLimit);
        assert_eq!(short.evals, 3);
        let mut exhausted = counter(50, 7);
        assert_eq!(
            run_steps(&mut exhausted, Limits::default()),
            Stop::Exhausted
        );
        let past = Limits::default().with_deadline(Instant::now());
        let mut late = counter(5, 100);
        assert_eq!(run_steps(&mut late, past), Stop::TimeLimit);
        assert_eq!(late.evals, 0);
    }
}
