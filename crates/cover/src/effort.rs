//! When the effort spent on a side no test took earns it the label "likely infeasible"
//! (CoverMe's heuristic, Fu & Su, PLDI'17, Sec. 5). The engines record what they spent
//! on each side ([`Effort`]: searches aimed at it and their evaluations, a complete
//! method's time); this is the policy that judges it, the same for every engine's
//! report. Nothing it says is a proof: a search cannot show a side infeasible.

use fpir::{Effort, MissReason};

/// Searches aimed at a side (each a whole local search from the test closest to it)
/// that count as a real effort.
pub const REAL_SEARCHES: u32 = 3;

/// Evaluations aimed at a side that count as a real effort however few searches spent
/// them.
pub const REAL_SEARCH_EVALUATIONS: u64 = 10_000;

/// Whether `effort` is a real effort to take a side: a complete method tried it, or
/// [`REAL_SEARCHES`] searches or [`REAL_SEARCH_EVALUATIONS`] evaluations were aimed at
/// it.
pub fn is_real(effort: &Effort) -> bool {
    effort.proof_time.is_some()
        || effort.aimed_searches >= REAL_SEARCHES
        || effort.aimed_evaluations >= REAL_SEARCH_EVALUATIONS
}

/// Whether a side no test took is likely infeasible: tests reach its branch, and a real
/// effort ([`is_real`]) did not take it.
pub fn likely_infeasible(miss: &MissReason) -> bool {
    miss.branch_reached && is_real(&miss.effort)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn aimed(searches: u32, evaluations: u64) -> Effort {
        Effort {
            aimed_searches: searches,
            aimed_evaluations: evaluations,
            proof_time: None,
        }
    }

    #[test]
    fn enough_searches_evaluations_or_any_proof_attempt_is_real() {
        assert!(!is_real(&Effort::default()));
        assert!(!is_real(&aimed(
            REAL_SEARCHES - 1,
            REAL_SEARCH_EVALUATIONS - 1
        )));
        assert!(is_real(&aimed(REAL_SEARCHES, 0)));
        assert!(is_real(&aimed(1, REAL_SEARCH_EVALUATIONS)));
        let tried = Effort {
            proof_time: Some(Duration::ZERO),
            ..Effort::default()
        };
        assert!(is_real(&tried));
    }

    #[test]
    fn only_a_reached_branch_makes_a_side_likely_infeasible() {
        let miss = |branch_reached, effort| MissReason {
            branch_reached,
            effort,
            ..MissReason::default()
        };
        assert!(likely_infeasible(&miss(true, aimed(REAL_SEARCHES, 0))));
        assert!(!likely_infeasible(&miss(false, aimed(REAL_SEARCHES, 0))));
        assert!(!likely_infeasible(&miss(true, aimed(1, 10))));
    }
}
