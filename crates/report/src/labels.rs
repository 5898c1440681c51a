//! The words reports print for fpir's coverage vocabulary ([`fpir::side`]): a proof
//! method, why concolic execution left a side open, what was spent on a side, and a
//! side's status. Every engine speaks the vocabulary as data; how it reads is this
//! crate's, defined once so that the summary, `coverage.json`, the JUnit file and
//! `report.html` say the same. The longer explanations beside them are
//! [`crate::coverage`]'s.

use fpforge_cover::effort;
use fpir::{Effort, InfeasibleMethod, MissReason, OpenReason, SideStatus};

/// A proof method, as reports print it inside `infeasible (...)` and as
/// `coverage.json`'s `method`.
pub fn method(method: InfeasibleMethod) -> &'static str {
    match method {
        InfeasibleMethod::ConstantCondition => "constant condition",
        InfeasibleMethod::DeadCode => "dead code",
        InfeasibleMethod::ImpossibleValue => "impossible switch value",
        InfeasibleMethod::IntervalLabeling => "interval labeling",
        InfeasibleMethod::ConstantDecision => "input-independent decision",
        InfeasibleMethod::PathEnds => "path ends first",
        InfeasibleMethod::ExhaustiveExploration => "exhaustive path exploration",
        InfeasibleMethod::PrefixExploration => "every prefix to the site explored",
        InfeasibleMethod::BitPrecise => "bit-precise",
    }
}

/// Why concolic execution left a side open, as reports print it and as
/// `coverage.json`'s `open_reason`: `loop bound`, `libm call`, `time-out`,
/// `unsupported operation`.
pub fn open(reason: OpenReason) -> &'static str {
    match reason {
        OpenReason::LoopBound => "loop bound",
        OpenReason::LibmCall => "libm call",
        OpenReason::TimeOut => "time-out",
        OpenReason::Unsupported => "unsupported operation",
    }
}

/// What was tried on a side, in words (`2 searches aimed at it (12000 evaluations) and
/// concolic execution (1.02 s)`); empty when nothing was.
pub fn effort(effort: &Effort) -> String {
    let mut parts = Vec::new();
    if effort.aimed_searches > 0 {
        parts.push(format!(
            "{} search{} aimed at it ({} evaluations)",
            effort.aimed_searches,
            if effort.aimed_searches == 1 { "" } else { "es" },
            effort.aimed_evaluations
        ));
    }
    if let Some(time) = effort.proof_time {
        parts.push(format!("concolic execution ({:.2} s)", time.as_secs_f64()));
    }
    parts.join(" and ")
}

/// The status of a side no test took: `not reached (likely infeasible)` when the branch
/// was reached but never went this way despite a real effort ([`effort::is_real`]),
/// `not reached (not tried enough)` when the branch was reached but the run ended before
/// such an effort, `not reached (branch not executed)` otherwise.
pub fn miss(miss: &MissReason) -> &'static str {
    match (miss.branch_reached, effort::is_real(&miss.effort)) {
        (true, true) => "not reached (likely infeasible)",
        (true, false) => "not reached (not tried enough)",
        (false, _) => "not reached (branch not executed)",
    }
}

/// A side's status as the summary prints it: `covered`, `infeasible (METHOD)` or
/// [`miss`]'s words.
pub fn status(status: &SideStatus) -> String {
    match status {
        SideStatus::Covered { .. } => "covered".to_string(),
        SideStatus::Infeasible { method: m } => format!("infeasible ({})", method(*m)),
        SideStatus::NotReached { reason } => miss(reason).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpir::Witness;
    use std::time::Duration;

    #[test]
    fn effort_names_searches_evaluations_and_proof_time() {
        assert_eq!(effort(&Effort::default()), "");
        let one = Effort {
            aimed_searches: 1,
            aimed_evaluations: 400,
            proof_time: None,
        };
        assert_eq!(effort(&one), "1 search aimed at it (400 evaluations)");
        let both = Effort {
            aimed_searches: 2,
            aimed_evaluations: 12_000,
            proof_time: Some(Duration::from_millis(1020)),
        };
        assert_eq!(
            effort(&both),
            "2 searches aimed at it (12000 evaluations) and concolic execution (1.02 s)"
        );
    }

    #[test]
    fn statuses_read_as_the_summary_prints_them() {
        let covered = SideStatus::Covered {
            witness: Witness::Test(0),
        };
        assert_eq!(status(&covered), "covered");
        let proved = |method| SideStatus::Infeasible { method };
        assert_eq!(
            status(&proved(InfeasibleMethod::DeadCode)),
            "infeasible (dead code)"
        );
        assert_eq!(
            status(&proved(InfeasibleMethod::BitPrecise)),
            "infeasible (bit-precise)"
        );
        let reached = |searches| SideStatus::NotReached {
            reason: MissReason {
                branch_reached: true,
                effort: Effort {
                    aimed_searches: searches,
                    ..Effort::default()
                },
                ..MissReason::default()
            },
        };
        assert_eq!(status(&reached(3)), "not reached (likely infeasible)");
        assert_eq!(status(&reached(2)), "not reached (not tried enough)");
        let unreached = SideStatus::NotReached {
            reason: MissReason::default(),
        };
        assert_eq!(status(&unreached), "not reached (branch not executed)");
    }
}
