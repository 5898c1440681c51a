//! Why a run ended: the one stop reason of every searching engine (`cover`, `explore`,
//! `accuracy`, `reach`), of the solver's one-step engines and of each minimizer's search.
//!
//! Engines report it in their results; how it reads in a report (`all sides covered`,
//! `every path explored`) is the report layer's, which knows which engine ran.

/// Why a run or a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// Every target was reached: every side covered, every target side taken, a model
    /// found, or a value at or below the minimizer's target.
    TargetsReached,
    /// Every branch side is covered or proved, and the search for the trap targets left
    /// open spent its share.
    TrapSearchSpent,
    /// Nothing was left to try: every starting point searched, the work list empty, the
    /// minimizer converged, or the one-step engine exhausted.
    Exhausted,
    /// The evaluation budget is spent.
    EvalLimit,
    /// The time limit passed.
    TimeLimit,
    /// The caller asked the run to stop ([`crate::Interrupt`]).
    Interrupted,
    /// The objective raised the give-up signal ([`crate::Evaluator::with_give_up`]).
    GaveUp,
}

impl Stop {
    /// Whether the run ended on its own budget or work rather than being cut short by
    /// the caller: everything but [`Stop::Interrupted`].
    pub fn completed(self) -> bool {
        self != Stop::Interrupted
    }
}
