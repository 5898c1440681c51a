//! `--shard K/N`: one of N deterministic parts of a run over several functions, so the
//! parts can run on different machines (a CI matrix, a Slurm job array, a Kubernetes
//! Indexed Job) and `fpforge merge` can join their outputs. The functions are dealt by
//! size (instruction count), largest first, each onto the shard with the fewest
//! instructions so far (the lowest-numbered on a tie), so every shard gets about the same
//! work and every machine computes the same split.
//!
//! `K` counts from 1 (`--shard 1/3` .. `--shard 3/3`); a 0-based index such as
//! Kubernetes' `JOB_COMPLETION_INDEX` is passed as `$((INDEX + 1))/N`. The 0-based form
//! is refused rather than guessed: `0/3` would be read the same by both conventions, but
//! `2/3` would not.

use crate::error::{DriverError, Result, Setting};
use std::cmp::Reverse;

/// Shard `index` of `count`, `index` from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// `K`, from 1 to `count`.
    pub index: usize,
    /// `N`, at least 1.
    pub count: usize,
}

/// Most shards `--shard` takes.
const MAX_SHARDS: usize = 100_000;

impl Shard {
    /// Reads `K/N`.
    pub fn parse(text: &str) -> Result<Shard> {
        let invalid = |problem: String| DriverError::setting(Setting::Shard, problem);
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| invalid(format!("must be K/N (e.g. 2/3), not `{text}`")))?;
        let number = |part: &str| -> Result<usize> {
            part.trim()
                .parse()
                .map_err(|_| invalid(format!("{text}: `{part}` is not a whole number")))
        };
        let (index, count) = (number(k)?, number(n)?);
        if !(1..=MAX_SHARDS).contains(&count) {
            return Err(invalid(format!(
                "{text}: N must be between 1 and {MAX_SHARDS}"
            )));
        }
        if index == 0 {
            return Err(invalid(format!("{text}: K counts from 1 to N; pass a 0-based index (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID of --array=0-...) as $((INDEX + 1))/{count}")));
        }
        if index > count {
            return Err(invalid(format!("{text}: K must be between 1 and {count}")));
        }
        Ok(Shard { index, count })
    }

    /// Which of the `sizes` (one per function, in name order) this shard takes.
    pub fn takes(&self, sizes: &[usize]) -> Vec<bool> {
        deal(sizes, self.count)
            .into_iter()
            .map(|shard| shard + 1 == self.index)
            .collect()
    }
}

/// The 0-based shard of each of `sizes` among `count`: largest first (the earlier on equal
/// sizes), each onto the shard with the least total so far (the lowest on a tie).
fn deal(sizes: &[usize], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (Reverse(sizes[i]), i));
    let mut loads = vec![0usize; count];
    let mut shard_of = vec![0; sizes.len()];
    for i in order {
        let lightest = (0..count)
            .min_by_key(|&s| (loads[s], s))
            .expect("at least one shard");
        // A function of no instructions still weighs one, so many of them spread out.
        loads[lightest] += sizes[i].max(1);
        shard_of[i] = lightest;
    }
    shard_of
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn k_counts_from_one() {
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
        assert_eq!(Shard::parse("1/1").unwrap(), Shard { index: 1, count: 1 });
        let zero = Shard::parse("0/3").unwrap_err().to_string();
        assert!(
            zero.contains("K counts from 1") && zero.contains("$((INDEX + 1))/3"),
            "{zero}"
        );
        for bad in ["4/3", "1/0", "3", "a/3", "1/-2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn largest_first_onto_the_lightest_shard() {
        // 9 → 0, 7 → 1, 5 → 2, 4 → 2 (5), 3 → 1 (7), 1 → 0 (9).
        assert_eq!(deal(&[1, 9, 3, 7, 4, 5], 3), [0, 0, 1, 1, 2, 2]);
        assert_eq!(deal(&[0, 0, 0, 0], 2), [0, 1, 0, 1]);
    }

    proptest! {
        #[test]
        fn the_shards_partition_the_functions_evenly(
            sizes in proptest::collection::vec(0usize..500, 0..40),
            count in 1usize..6,
        ) {
            let taken: Vec<Vec<bool>> = (1..=count)
                .map(|index| Shard { index, count }.takes(&sizes))
                .collect();
            for i in 0..sizes.len() {
                prop_assert_eq!(taken.iter().filter(|t| t[i]).count(), 1);
            }
            // Greedy list scheduling: no shard exceeds the lightest by more than the
            // largest function.
            let loads: Vec<usize> = taken
                .iter()
                .map(|t| (0..sizes.len()).filter(|&i| t[i]).map(|i| sizes[i].max(1)).sum())
                .collect();
            let largest = sizes.iter().map(|&s| s.max(1)).max().unwrap_or(0);
            let (min, max) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
            prop_assert!(max - min <= largest, "{:?} {:?}", sizes, loads);
        }
    }
}
