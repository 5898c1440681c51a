//! The branch decisions of one `fpforge run`, kept small enough to show: a [`DecisionLog`]
//! observer stores runs of equal decisions (a loop spinning on one branch is one entry)
//! up to a bound and counts every side past it, and [`fold`] turns the stored decisions
//! into nested `(...)xN` groups, the notation `--path` takes, so that a loop that ran a
//! million times prints as one group rather than a million words.

use fpforge_exec::{BranchEvent, Observer};
use fpir::{Arm, BranchSite, Side};
use std::collections::HashMap;
use std::fmt;

/// Runs of equal decisions a [`DecisionLog`] stores; decisions past them are only
/// counted. A million runs is some 24 MB, and more than anyone reads.
pub const KEPT_RUNS: usize = 1_000_000;

/// Longest cycle [`fold`] looks for at each level of nesting.
pub const MAX_PERIOD: usize = 8;

/// Records a run's branch decisions as runs of equal decisions, at most [`KEPT_RUNS`] of
/// them; past that it only counts decisions per side.
#[derive(Debug, Default)]
pub struct DecisionLog {
    /// Each decision and how many times in a row it was taken, in execution order.
    runs: Vec<(Side, u64)>,
    /// Decisions after the stored runs, per side.
    uncounted: HashMap<Side, u64>,
    /// Every decision of the run, stored or not.
    total: u64,
}

impl DecisionLog {
    fn record(&mut self, decision: Side) {
        self.total += 1;
        // Once a decision was only counted, every later one is too, so the stored runs
        // stay a prefix of the run.
        if self.uncounted.is_empty() {
            let kept = self.runs.len();
            match self.runs.last_mut() {
                Some((last, n)) if *last == decision => {
                    *n += 1;
                    return;
                }
                _ if kept < KEPT_RUNS => {
                    self.runs.push((decision, 1));
                    return;
                }
                _ => {}
            }
        }
        *self.uncounted.entry(decision).or_default() += 1;
    }

    /// Every decision of the run, stored or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Decisions that were counted but not stored (the last ones of a long run).
    pub fn omitted(&self) -> u64 {
        self.uncounted.values().sum()
    }

    /// The stored decisions in execution order, one by one.
    pub fn decisions(&self) -> impl Iterator<Item = Side> + '_ {
        self.runs
            .iter()
            .flat_map(|&(d, n)| std::iter::repeat_n(d, n as usize))
    }

    /// Every side taken and how often, in the order each was first taken (sides first
    /// taken after the stored runs by site and side).
    pub fn sides(&self) -> Vec<(Side, u64)> {
        let mut late: Vec<(Side, u64)> = self.uncounted.iter().map(|(&d, &n)| (d, n)).collect();
        late.sort_unstable_by_key(|&(side, _)| side);
        let mut order: Vec<Side> = Vec::new();
        let mut counts: HashMap<Side, u64> = HashMap::new();
        for (d, n) in self.runs.iter().copied().chain(late) {
            let count = counts.entry(d).or_default();
            if *count == 0 {
                order.push(d);
            }
            *count += n;
        }
        order.into_iter().map(|d| (d, counts[&d])).collect()
    }

    /// The stored decisions folded into nested groups (see [`fold`]).
    pub fn folded(&self) -> Vec<Item<Side>> {
        let items: Vec<Item<Side>> = self
            .runs
            .iter()
            .map(|&(d, n)| match n {
                1 => Item::One(d),
                _ => Item::Group(vec![Item::One(d)], n),
            })
            .collect();
        fold(items)
    }
}

impl Observer for DecisionLog {
    fn on_branch(&mut self, ev: &BranchEvent) {
        self.record(ev.side);
    }

    fn on_cond(&mut self, site: BranchSite, taken: bool, _operands: Option<[u64; 2]>) {
        self.record(Side {
            site,
            arm: Arm::cond(taken),
        });
    }
}

/// An element, or a sequence of items repeated a number of times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item<T> {
    /// One element.
    One(T),
    /// The items, repeated (at least twice).
    Group(Vec<Item<T>>, u64),
}

impl<T> Item<T> {
    /// Number of elements the item stands for.
    pub fn expanded_len(&self) -> u64 {
        match self {
            Item::One(_) => 1,
            Item::Group(items, n) => n * items.iter().map(Item::expanded_len).sum::<u64>(),
        }
    }

    /// Writes the item with `show` for each element: `a`, or `(a b)xN`.
    pub fn write(&self, out: &mut impl fmt::Write, show: &impl Fn(&T) -> String) -> fmt::Result {
        match self {
            Item::One(t) => out.write_str(&show(t)),
            Item::Group(items, n) => {
                out.write_char('(')?;
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        out.write_char(' ')?;
                    }
                    item.write(out, show)?;
                }
                write!(out, ")x{n}")
            }
        }
    }
}

/// Folds repeated cycles of up to [`MAX_PERIOD`] items into groups (whose bodies are
/// folded in turn), then does the same on the result until nothing changes, so loops
/// nested in loops become nested groups. Greedy from the left: at each position the
/// cycle covering the most items wins (the shortest among equals).
pub fn fold<T: Clone + PartialEq>(mut items: Vec<Item<T>>) -> Vec<Item<T>> {
    loop {
        let folded = fold_level(&items);
        if folded.len() == items.len() {
            return folded;
        }
        items = folded;
    }
}

fn fold_level<T: Clone + PartialEq>(items: &[Item<T>]) -> Vec<Item<T>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let (period, reps) = longest_cycle(&items[i..]);
        if reps < 2 {
            out.push(items[i].clone());
            i += 1;
            continue;
        }
        let body = &items[i..i + period];
        out.push(match body {
            // `(a)x2` repeated three times is `(a)x6`.
            [Item::Group(inner, n)] => Item::Group(inner.clone(), n * reps as u64),
            _ => Item::Group(fold(body.to_vec()), reps as u64),
        });
        i += period * reps;
    }
    out
}

/// The period and repetitions of the cycle at the start of `items` that covers the most
/// items (repetitions 1 when nothing repeats).
fn longest_cycle<T: PartialEq>(items: &[Item<T>]) -> (usize, usize) {
    let mut best = (1, 1);
    for period in 1..=MAX_PERIOD.min(items.len() / 2) {
        let body = &items[..period];
        let reps = 1 + items[period..]
            .chunks_exact(period)
            .take_while(|chunk| *chunk == body)
            .count();
        if reps >= 2 && period * reps > best.0 * best.1 {
            best = (period, reps);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpir::EntityId;
    use proptest::prelude::*;

    fn expand<T: Clone>(items: &[Item<T>], out: &mut Vec<T>) {
        for item in items {
            match item {
                Item::One(t) => out.push(t.clone()),
                Item::Group(body, n) => {
                    for _ in 0..*n {
                        expand(body, out);
                    }
                }
            }
        }
    }

    fn fold_str(s: &str) -> String {
        let folded = fold(s.chars().map(Item::One).collect());
        let mut text = String::new();
        for (k, item) in folded.iter().enumerate() {
            if k > 0 {
                text.push(' ');
            }
            item.write(&mut text, &|c| c.to_string()).unwrap();
        }
        text
    }

    #[test]
    fn loops_become_groups_and_nested_loops_nested_groups() {
        assert_eq!(fold_str(""), "");
        assert_eq!(fold_str("abc"), "a b c");
        assert_eq!(fold_str("aaaa"), "(a)x4");
        assert_eq!(fold_str("xababababy"), "x (a b)x4 y");
        assert_eq!(fold_str("abab"), "(a b)x2");
        assert_eq!(fold_str("aabaab"), "((a)x2 b)x2");
        // An inner loop of three iterations and its exit, four times, then the exit.
        assert_eq!(fold_str("aaabaaabaaabaaabc"), "((a)x3 b)x4 c");
    }

    #[test]
    fn decisions_past_the_bound_are_counted_per_side() {
        let mut log = DecisionLog::default();
        let (a, b) = (BranchSite::new(0), BranchSite::new(1));
        let over = KEPT_RUNS as u64 + 10;
        for k in 0..over {
            log.on_cond(a, k % 2 == 0, None);
        }
        log.on_cond(b, false, None);
        assert_eq!(log.total(), over + 1);
        assert_eq!(log.omitted(), 11);
        assert_eq!(log.decisions().count(), KEPT_RUNS);
        assert_eq!(
            log.sides(),
            vec![
                (
                    Side {
                        site: a,
                        arm: Arm::True
                    },
                    over / 2
                ),
                (
                    Side {
                        site: a,
                        arm: Arm::False
                    },
                    over / 2
                ),
                (
                    Side {
                        site: b,
                        arm: Arm::False
                    },
                    1
                ),
            ]
        );
    }

    proptest! {
        #[test]
        fn folding_keeps_the_sequence(seq in proptest::collection::vec(0u8..3, 0..200)) {
            let folded = fold(seq.iter().copied().map(Item::One).collect());
            let mut back = Vec::new();
            expand(&folded, &mut back);
            prop_assert_eq!(back, seq);
        }

        #[test]
        fn the_log_keeps_every_decision(
            seq in proptest::collection::vec((0usize..3, any::<bool>()), 0..200)
        ) {
            let mut log = DecisionLog::default();
            for &(site, taken) in &seq {
                log.on_cond(BranchSite::new(site), taken, None);
            }
            let want: Vec<Side> = seq
                .iter()
                .map(|&(s, t)| Side { site: BranchSite::new(s), arm: Arm::cond(t) })
                .collect();
            prop_assert_eq!(log.decisions().collect::<Vec<_>>(), want.clone());
            let mut back = Vec::new();
            expand(&log.folded(), &mut back);
            prop_assert_eq!(back, want);
            prop_assert_eq!(log.total(), seq.len() as u64);
            prop_assert_eq!(log.omitted(), 0);
        }
    }
}
