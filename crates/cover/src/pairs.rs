//! Pairs of consecutive branch outcomes: AFL's edge coverage at the level of branch
//! sides, a secondary criterion for keeping tests ([`crate::CoverConfig::pairs`]).
//!
//! A side of clang's code can be several branches of another build. gcc at `-O0` copies
//! a comparison into both arms of a conditional expression before it
//! (`if (MIN(x, y) < 0)` becomes `x < y ? x < 0 : y < 0`), where clang joins the arms
//! and compares once; gcov then counts a branch per arm and outcome, and which of them a
//! test takes depends on the side taken before. So a run's *pairs* are the consecutive
//! sides it takes, `(A:s, B:t)`, over the program's included sides (trap guards are
//! fpforge's own branches, absent from every other build: they are skipped, not
//! counted as a break). An input whose run shows a pair no test shows is kept as a test,
//! up to a bound, without changing the sides it is credited with.

use crate::sides::SideTable;
use fpir::Module;
use std::collections::HashSet;

/// A pair of included side indices, the first in the high half.
pub type Pair = u64;

fn pair(from: u32, to: u32) -> Pair {
    (u64::from(from) << 32) | u64::from(to)
}

/// The pairs a run shows, as it runs, against the pairs the kept tests show.
#[derive(Clone, Debug)]
pub struct PairTracker {
    /// Per side index: whether it is a branch of the program (not a trap guard).
    program: Vec<bool>,
    /// The pairs the kept tests show.
    known: HashSet<Pair>,
    /// The pairs of the current run that no kept test shows, each once.
    pub fresh: Vec<Pair>,
    /// The last program side the current run took.
    last: Option<u32>,
    /// Whether pairs are tracked at all (off when the criterion is, or its bound is
    /// reached: tracking costs a lookup per branch).
    pub enabled: bool,
}

impl PairTracker {
    /// A tracker over the sides of `table`, knowing no pair yet.
    pub fn new(module: &Module, table: &SideTable, enabled: bool) -> PairTracker {
        let program = table
            .sides
            .iter()
            .map(|side| module.trap_check(side.site).is_none())
            .collect();
        PairTracker {
            program,
            known: HashSet::new(),
            fresh: Vec::new(),
            last: None,
            enabled,
        }
    }

    /// How many sides are branches of the program (not trap guards).
    pub fn program_sides(&self) -> usize {
        self.program.iter().filter(|&&p| p).count()
    }

    /// Forgets the current run, before the next one.
    pub fn begin(&mut self) {
        self.last = None;
        self.fresh.clear();
    }

    /// Notes that the current run took side `side`.
    pub fn step(&mut self, side: u32) {
        if !self.enabled || !self.program[side as usize] {
            return;
        }
        if let Some(last) = self.last.replace(side) {
            let p = pair(last, side);
            if !self.known.contains(&p) && !self.fresh.contains(&p) {
                self.fresh.push(p);
            }
        }
    }

    /// The pairs of a run that took `sides` (in order) that no kept test shows, sorted.
    pub fn fresh_in(&self, sides: impl IntoIterator<Item = u32>) -> Vec<Pair> {
        let mut fresh: Vec<Pair> = sides
            .into_iter()
            .filter(|&s| self.program[s as usize])
            .collect::<Vec<u32>>()
            .windows(2)
            .map(|w| pair(w[0], w[1]))
            .filter(|p| !self.known.contains(p))
            .collect();
        fresh.sort_unstable();
        fresh.dedup();
        fresh
    }

    /// Records pairs a kept test shows.
    pub fn learn(&mut self, pairs: impl IntoIterator<Item = Pair>) {
        self.known.extend(pairs);
    }

    /// The pairs the kept tests show (for a worker's snapshot).
    pub fn known(&self) -> &HashSet<Pair> {
        &self.known
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracker(program: Vec<bool>) -> PairTracker {
        PairTracker {
            program,
            known: HashSet::new(),
            fresh: Vec::new(),
            last: None,
            enabled: true,
        }
    }

    #[test]
    fn a_run_shows_each_new_consecutive_pair_once_and_skips_guards() {
        let mut t = tracker(vec![true, true, false, true]);
        t.learn([pair(0, 3)]);
        t.begin();
        for side in [0, 2, 3, 1, 0, 2, 3, 1] {
            t.step(side);
        }
        assert_eq!(t.fresh, vec![pair(3, 1), pair(1, 0)]);
        assert_eq!(t.fresh_in([0, 2, 3, 1, 0, 2, 3, 1]), {
            let mut want = t.fresh.clone();
            want.sort_unstable();
            want
        });
        t.begin();
        t.step(1);
        assert!(t.fresh.is_empty(), "one side is no pair");
        t.enabled = false;
        t.step(0);
        assert!(t.fresh.is_empty());
    }
}
