//! The smallest test set that keeps a run's coverage: engines keep a test whenever it
//! takes a side no earlier test took, so later tests often make earlier ones redundant.
//! When a `cover` or `explore` run ends, every test is run again with a branch trace, and
//! a greedy set cover (the test showing the most behaviours still unshown first, the
//! earlier test on a tie) picks the tests that show, between them, every covered side
//! every relation (`<`, `==`, `>`) of the operands of an ordered comparison that any
//! test shows, and every pair of consecutive sides any test takes: compilers split
//! comparisons differently (gcc's branches are not LLVM's, and gcc copies a comparison
//! into the arms of a `?:` before it), and `cover`'s boundary and pair tests exist for
//! those. Tests a report points at (the
//! closest test to a side not reached) are kept too. The kept tests stay in their order,
//! and each covered side is credited to the first kept test that takes it.

use fpforge_exec::{Concrete, ExecConfig, ExecError, FullTrace, Interpreter};
use fpforge_spec::InputSpec;
use fpir::{BranchSite, Func, Module, Side};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// Something a test's run shows that a smaller test set must still show.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Behaviour {
    /// It takes this branch side.
    Takes(Side),
    /// The operands of this site's ordered comparison relate this way.
    Relates(BranchSite, Ordering),
    /// It takes the second side right after the first, trap guards aside
    /// (`fpforge_cover::pairs`).
    Follows(Side, Side),
}

/// The indices of the tests to keep, ascending: every index in `required`, then, greedily,
/// the tests that take the most of `wanted` still untaken, until every side of `wanted`
/// any test takes is taken. `takes[i]` is the set of sides test `i` takes.
pub fn greedy_cover<T: Ord + Copy>(
    takes: &[BTreeSet<T>],
    wanted: &BTreeSet<T>,
    required: &BTreeSet<usize>,
) -> Vec<usize> {
    let mut kept: BTreeSet<usize> = required
        .iter()
        .copied()
        .filter(|&i| i < takes.len())
        .collect();
    let mut left: BTreeSet<T> = wanted
        .iter()
        .filter(|side| !kept.iter().any(|&i| takes[i].contains(side)))
        .copied()
        .collect();
    loop {
        let best = (0..takes.len())
            .filter(|i| !kept.contains(i))
            .map(|i| (takes[i].intersection(&left).count(), i))
            .filter(|&(gain, _)| gain > 0)
            // The most new sides; the earliest test among equals.
            .max_by_key(|&(gain, i)| (gain, std::cmp::Reverse(i)));
        let Some((_, i)) = best else {
            break;
        };
        kept.insert(i);
        left.retain(|side| !takes[i].contains(side));
    }
    kept.into_iter().collect()
}

/// What each test (coordinate bits of `spec`) shows when run again: the sides of
/// `tracked` it takes, the operand relations of their sites' ordered comparisons, and the
/// pairs of consecutive sides of `tracked` (trap guards skipped) it takes.
pub fn behaviours(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    tests: &[Vec<u64>],
    tracked: &[Side],
) -> Result<Vec<BTreeSet<Behaviour>>, ExecError> {
    let mut interp = Interpreter::new(
        module,
        Concrete,
        FullTrace::default(),
        ExecConfig::default(),
    )?;
    let tracked: BTreeSet<Side> = tracked.iter().copied().collect();
    let mut shown = Vec::with_capacity(tests.len());
    for coords in tests {
        interp.observer_mut().clear();
        interp.call(func, &spec.to_args(coords))?;
        let mut set = BTreeSet::new();
        let mut last = None;
        for event in &interp.observer().branches {
            if !tracked.contains(&event.side) {
                continue;
            }
            set.insert(Behaviour::Takes(event.side));
            let site = event.side.site;
            if module.trap_check(site).is_some() {
                continue;
            }
            let order = module.branch_sites[site]
                .cmp
                .zip(event.operands)
                .and_then(|(cmp, [a, b])| fpir::eval::operand_order(cmp.pred, cmp.ty, a, b));
            if let Some(order) = order {
                set.insert(Behaviour::Relates(site, order));
            }
            if let Some(previous) = last.replace(event.side) {
                set.insert(Behaviour::Follows(previous, event.side));
            }
        }
        shown.push(set);
    }
    Ok(shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpir::{Arm, BranchSite};

    fn side(site: u32, taken: bool) -> Side {
        Side {
            site: BranchSite(site),
            arm: Arm::cond(taken),
        }
    }

    fn sets(tests: &[&[(u32, bool)]]) -> Vec<BTreeSet<Side>> {
        tests
            .iter()
            .map(|t| t.iter().map(|&(s, a)| side(s, a)).collect())
            .collect()
    }

    #[test]
    fn a_later_test_that_takes_more_replaces_earlier_ones() {
        let takes = sets(&[
            &[(0, true)],
            &[(1, true)],
            &[(0, true), (1, true), (2, false)],
        ]);
        let wanted: BTreeSet<Side> = takes.iter().flatten().copied().collect();
        assert_eq!(greedy_cover(&takes, &wanted, &BTreeSet::new()), [2]);
    }

    #[test]
    fn ties_keep_the_earlier_test_and_required_tests_stay() {
        let takes = sets(&[&[(0, true)], &[(0, true)], &[(1, false)]]);
        let wanted: BTreeSet<Side> = takes.iter().flatten().copied().collect();
        assert_eq!(greedy_cover(&takes, &wanted, &BTreeSet::new()), [0, 2]);
        let required = BTreeSet::from([1]);
        assert_eq!(greedy_cover(&takes, &wanted, &required), [1, 2]);
    }

    proptest::proptest! {
        /// On random sets, the kept tests take every wanted side any test takes, in order.
        #[test]
        fn the_kept_tests_take_every_wanted_side(
            tests in proptest::collection::vec(
                proptest::collection::btree_set((0u32..8, proptest::bool::ANY), 0..6),
                0..12,
            )
        ) {
            let takes: Vec<BTreeSet<Side>> = tests
                .iter()
                .map(|t| t.iter().map(|&(s, a)| side(s, a)).collect())
                .collect();
            let wanted: BTreeSet<Side> = takes.iter().flatten().copied().collect();
            let kept = greedy_cover(&takes, &wanted, &BTreeSet::new());
            let covered: BTreeSet<Side> = kept.iter().flat_map(|&i| &takes[i]).copied().collect();
            proptest::prop_assert_eq!(covered, wanted);
            proptest::prop_assert!(kept.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
