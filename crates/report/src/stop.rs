//! How reports word why a run stopped: the engines share one [`Stop`]; the words depend
//! on which engine ran (`cover` covers sides, `explore` explores paths). These are the
//! strings `coverage.json`, `report.json`, the summaries and `index.json` carry.

use fpforge_engine::{EngineKind, Stop};

/// Why a run of `engine` stopped, in the words its reports use.
pub fn stop_words(engine: EngineKind, stop: Stop) -> &'static str {
    match (engine, stop) {
        (EngineKind::Explore, Stop::TargetsReached) => "targets reached",
        (_, Stop::TargetsReached) => "all sides covered",
        (_, Stop::TrapSearchSpent) => "all branch sides settled, trap target search spent",
        (EngineKind::Explore, Stop::Exhausted) => "every path explored",
        (_, Stop::Exhausted) => "all starting points searched",
        (_, Stop::EvalLimit) => "evaluation limit",
        (_, Stop::TimeLimit) => "time limit",
        (_, Stop::Interrupted) => "interrupted",
        (_, Stop::GaveUp) => "gave up",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_of_saved_reports_stay_as_they_were() {
        // `--resume` reads these back from earlier runs' files: they never change.
        let cover = |stop| stop_words(EngineKind::Cover, stop);
        let explore = |stop| stop_words(EngineKind::Explore, stop);
        assert_eq!(cover(Stop::TargetsReached), "all sides covered");
        assert_eq!(cover(Stop::Exhausted), "all starting points searched");
        assert_eq!(
            cover(Stop::TrapSearchSpent),
            "all branch sides settled, trap target search spent"
        );
        assert_eq!(explore(Stop::TargetsReached), "targets reached");
        assert_eq!(explore(Stop::Exhausted), "every path explored");
        for kind in [EngineKind::Cover, EngineKind::Explore, EngineKind::Accuracy] {
            assert_eq!(stop_words(kind, Stop::EvalLimit), "evaluation limit");
            assert_eq!(stop_words(kind, Stop::TimeLimit), "time limit");
            assert_eq!(stop_words(kind, Stop::Interrupted), "interrupted");
        }
    }
}
