//! What bounds a run, and the one place that says when it must stop.
//!
//! A [`Budget`] is what the caller grants a whole engine run: evaluations, time, and an
//! [`Interrupt`] (Ctrl-C) it may raise at any moment. [`Budget::start`] turns it into a
//! [`Clock`], which every engine consults between units of work ([`Clock::stop_now`]) and
//! hands to each of its searches as [`Limits`]: what is left of the evaluations, the
//! deadline, and the value that ends a search early. The evaluator of a minimizer
//! ([`crate::Evaluator`]) and the loop of a one-step engine ([`crate::run_steps`]) check
//! the same [`Limits`], so budgets mean the same in every engine.

use crate::stop::Stop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A request to stop that the caller may raise at any moment (a Ctrl-C handler, another
/// thread). Clones share the flag.
#[derive(Clone, Debug)]
pub struct Interrupt(Flag);

/// Where an [`Interrupt`]'s flag lives.
#[derive(Clone, Debug)]
enum Flag {
    /// Made for the run.
    Shared(Arc<AtomicBool>),
    /// A process-wide flag, such as the one a signal handler sets (a handler may only
    /// touch a static atomic).
    Static(&'static AtomicBool),
}

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt(Flag::Shared(Arc::default()))
    }
}

impl Interrupt {
    /// A flag nobody raised yet.
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// The interrupt `flag` raises: a run sees the flag the moment it is set.
    pub fn watching(flag: &'static AtomicBool) -> Interrupt {
        Interrupt(Flag::Static(flag))
    }

    fn flag(&self) -> &AtomicBool {
        match &self.0 {
            Flag::Shared(flag) => flag,
            Flag::Static(flag) => flag,
        }
    }

    /// Asks every run holding a clone to stop.
    pub fn raise(&self) {
        self.flag().store(true, Ordering::Relaxed);
    }

    /// Whether the stop was asked for.
    pub fn raised(&self) -> bool {
        self.flag().load(Ordering::Relaxed)
    }
}

/// What a caller grants one engine run: at most `evals` evaluations, at most
/// `time_limit`, and it ends early when `interrupt` is raised. The default grants
/// everything: no evaluation cap, no time limit, no interrupt.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Budget {
    /// Most evaluations of the program (default: unlimited). Runs bounded by evaluations
    /// only are reproducible: same inputs and seed, same results.
    pub evals: Option<u64>,
    /// Longest wall-clock time of the run (default: none).
    pub time_limit: Option<Duration>,
    /// Raised to end the run early with what it found (default: none).
    pub interrupt: Option<Interrupt>,
}

impl Budget {
    /// Caps the evaluations (`None`: no cap).
    pub fn with_evals(mut self, evals: Option<u64>) -> Self {
        self.evals = evals;
        self
    }

    /// Bounds the run's time (`None`: no limit).
    pub fn with_time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }

    /// Ends the run when `interrupt` is raised.
    pub fn with_interrupt(mut self, interrupt: Option<Interrupt>) -> Self {
        self.interrupt = interrupt;
        self
    }

    /// The same budget with its time limit shortened to `left` (what is left of a larger
    /// run's time), when that is shorter or the budget had none.
    pub fn within(mut self, left: Option<Duration>) -> Self {
        self.time_limit = match (self.time_limit, left) {
            (Some(limit), Some(left)) => Some(limit.min(left)),
            (limit, left) => limit.or(left),
        };
        self
    }

    /// The clock of a run that starts now under this budget.
    pub fn start(&self) -> Clock {
        self.start_at(Instant::now())
    }

    /// The clock of a run that started at `started`.
    pub fn start_at(&self, started: Instant) -> Clock {
        Clock {
            started,
            deadline: self.time_limit.map(|t| started + t),
            evals: self.evals,
            interrupt: self.interrupt.clone(),
        }
    }
}

/// A [`Budget`] being spent: when the run started, when it must end, and what may stop
/// it.
#[derive(Clone, Debug)]
pub struct Clock {
    started: Instant,
    deadline: Option<Instant>,
    evals: Option<u64>,
    interrupt: Option<Interrupt>,
}

impl Clock {
    /// When the run started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// When the time limit ends, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The whole time limit, if there is one.
    pub fn time_limit(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(self.started))
    }

    /// Whether the time limit has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The evaluation cap, if there is one.
    pub fn eval_cap(&self) -> Option<u64> {
        self.evals
    }

    /// What is left of the time limit, if there is one.
    pub fn time_left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether the caller asked the run to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt.as_ref().is_some_and(Interrupt::raised)
    }

    /// Why a run that made `evals` evaluations must stop now, if it must: interrupted,
    /// out of evaluations, or out of time, in that order.
    pub fn stop_now(&self, evals: u64) -> Option<Stop> {
        if self.interrupted() {
            Some(Stop::Interrupted)
        } else if self.evals.is_some_and(|cap| evals >= cap) {
            Some(Stop::EvalLimit)
        } else if self.out_of_time() {
            Some(Stop::TimeLimit)
        } else {
            None
        }
    }
}

/// Limits of one search within a run: evaluations, a deadline, and the value that ends
/// it early.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Limits {
    /// Maximum number of objective evaluations (default: unlimited).
    pub max_evals: Option<u64>,
    /// Wall-clock deadline (default: none).
    pub deadline: Option<Instant>,
    /// The search stops as soon as a value at or below this is found (default 0.0).
    pub target: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_evals: None,
            deadline: None,
            target: 0.0,
        }
    }
}

impl Limits {
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

    /// Why a search that made `evals` evaluations must stop before the next one, if it
    /// must: out of evaluations, then out of time.
    pub fn exceeded(&self, evals: u64) -> Option<Stop> {
        if self.max_evals.is_some_and(|m| evals >= m) {
            Some(Stop::EvalLimit)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            // The clock is read at every evaluation (~30 ns): one evaluation can take a
            // tenth of a second (a long loop confirmed with more fuel), so a stride of
            // evaluations between readings overshot the deadline by seconds.
            Some(Stop::TimeLimit)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_comes_first_then_evaluations_then_time() {
        let interrupt = Interrupt::new();
        let budget = Budget::default()
            .with_evals(Some(10))
            .with_time_limit(Some(Duration::ZERO))
            .with_interrupt(Some(interrupt.clone()));
        let clock = budget.start();
        assert_eq!(clock.stop_now(0), Some(Stop::TimeLimit));
        assert_eq!(clock.stop_now(10), Some(Stop::EvalLimit));
        interrupt.raise();
        assert_eq!(clock.stop_now(10), Some(Stop::Interrupted));
        static FLAG: AtomicBool = AtomicBool::new(false);
        let watched = Interrupt::watching(&FLAG);
        assert!(!watched.raised());
        FLAG.store(true, Ordering::Relaxed);
        assert!(watched.clone().raised());
        let open = Budget::default().start();
        assert_eq!(open.stop_now(u64::MAX), None);
        assert_eq!(open.time_left(), None);
    }

    #[test]
    fn a_budget_within_a_larger_run_takes_the_shorter_time() {
        let s = Duration::from_secs;
        let limit = |own: Option<u64>, left: Option<u64>| {
            Budget::default()
                .with_time_limit(own.map(s))
                .within(left.map(s))
                .time_limit
        };
        assert_eq!(limit(Some(10), Some(3)), Some(s(3)));
        assert_eq!(limit(Some(2), Some(3)), Some(s(2)));
        assert_eq!(limit(Some(2), None), Some(s(2)));
        assert_eq!(limit(None, Some(3)), Some(s(3)));
        assert_eq!(limit(None, None), None);
    }

    #[test]
    fn limits_stop_on_evaluations_before_time() {
        let past = Instant::now();
        let limits = Limits::default().with_eval_limit(3).with_deadline(past);
        assert_eq!(limits.exceeded(3), Some(Stop::EvalLimit));
        assert_eq!(limits.exceeded(2), Some(Stop::TimeLimit));
        assert_eq!(Limits::default().exceeded(u64::MAX), None);
    }
}
