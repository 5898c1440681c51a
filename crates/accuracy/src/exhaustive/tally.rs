//! [`Tally`]: what exhaustive checking found over a set of inputs (a chunk, a shard, the
//! whole space), and [`Tally::join`], which makes the tally of a union from the tallies
//! of its disjoint parts, the same whichever the order: counts add, the largest error
//! keeps every input that reaches it, examples are the smallest inputs.

use crate::special::SpecialKind;

/// Inputs listed at most, per kind of finding and for the largest error (the counts go
/// on).
pub const LISTED: usize = 8;

/// One checked input: its bits and the bits of the computed result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Case {
    /// The input's raw bits.
    pub input: u32,
    /// The computed result's raw bits.
    pub computed: u32,
}

/// Inputs of one kind: how many, and the smallest [`LISTED`] by bits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cases {
    /// How many inputs.
    pub count: u64,
    /// The first [`LISTED`] of them by input bits, in order.
    pub listed: Vec<Case>,
}

impl Cases {
    /// Adds `case`.
    pub fn add(&mut self, case: Case) {
        self.count += 1;
        self.insert(case);
    }

    fn insert(&mut self, case: Case) {
        if self.listed.len() == LISTED && self.listed.last().is_some_and(|l| *l <= case) {
            return;
        }
        let at = self.listed.partition_point(|l| *l < case);
        if self.listed.get(at) != Some(&case) {
            self.listed.insert(at, case);
            self.listed.truncate(LISTED);
        }
    }

    /// Both sets of inputs (disjoint).
    pub fn join(&mut self, other: &Cases) {
        self.count += other.count;
        for &case in &other.listed {
            self.insert(case);
        }
    }
}

/// The largest ulp error and the inputs that reach it.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxError {
    /// The error in ulps, from MPFR.
    pub ulps: f64,
    /// The inputs whose error is exactly this.
    pub cases: Cases,
}

/// What checking found over a set of inputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Inputs checked.
    pub inputs: u64,
    /// Of them, decided by the fast path (the others by MPFR).
    pub fast: u64,
    /// Results that are not the correctly rounded one (wrong special values and poles
    /// included).
    pub incorrectly_rounded: u64,
    /// The largest error of a finite result against a finite true value, when it is at
    /// least `below` (see there).
    pub max: Option<MaxError>,
    /// A bound known to be below the largest error of the whole run (witnessed by an
    /// input of the run): the inputs of this set whose errors are below it were not
    /// resolved, and `max` is `None` when every error of the set is below it. 0 when
    /// everything was resolved.
    pub below: f64,
    /// Wrong special values: NaN or an infinity where the true value is finite.
    pub wrong_special: Cases,
    /// Finite (or other) results where the true value is infinite or undefined.
    pub poles: Cases,
    /// Inputs on which the function trapped instead of returning.
    pub traps: Cases,
    /// Inputs MPFR judged again to find the largest error.
    pub resolved: u64,
}

impl Tally {
    /// The cases of `kind`.
    pub fn special_mut(&mut self, kind: SpecialKind) -> &mut Cases {
        match kind {
            SpecialKind::WrongSpecialValue => &mut self.wrong_special,
            SpecialKind::Pole => &mut self.poles,
        }
    }

    /// The tally of the union of the inputs of `self` and `other` (disjoint).
    pub fn join(&mut self, other: &Tally) {
        self.inputs += other.inputs;
        self.fast += other.fast;
        self.incorrectly_rounded += other.incorrectly_rounded;
        self.resolved += other.resolved;
        self.below = self.below.max(other.below);
        self.wrong_special.join(&other.wrong_special);
        self.poles.join(&other.poles);
        self.traps.join(&other.traps);
        self.max = match (self.max.take(), &other.max) {
            (None, m) => m.clone(),
            (Some(a), None) => Some(a),
            (Some(mut a), Some(b)) => {
                if b.ulps > a.ulps {
                    Some(b.clone())
                } else {
                    if b.ulps == a.ulps {
                        a.cases.join(&b.cases);
                    }
                    Some(a)
                }
            }
        };
    }

    /// Whether the largest error is exact: every input left unresolved is below it.
    pub fn exact(&self) -> bool {
        match &self.max {
            Some(m) => m.ulps >= self.below,
            None => self.below == 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(input: u32) -> Case {
        Case { input, computed: 0 }
    }

    #[test]
    fn joins_do_not_depend_on_the_order() {
        let part = |inputs: &[u32], ulps: f64| {
            let mut t = Tally {
                inputs: inputs.len() as u64,
                ..Tally::default()
            };
            let mut cases = Cases::default();
            for &i in inputs {
                cases.add(case(i));
                t.poles.add(case(i + 1000));
            }
            t.max = Some(MaxError { ulps, cases });
            t
        };
        let parts = [
            part(&[5, 3], 1.5),
            part(&[9, 1, 2, 4, 6, 7, 8, 10, 11], 1.5),
            part(&[0], 0.5),
        ];
        let mut a = Tally::default();
        for p in &parts {
            a.join(p);
        }
        let mut b = Tally::default();
        for p in parts.iter().rev() {
            b.join(p);
        }
        assert_eq!(a, b);
        let max = a.max.unwrap();
        assert_eq!(max.cases.count, 11);
        let listed: Vec<u32> = max.cases.listed.iter().map(|c| c.input).collect();
        assert_eq!(listed, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(a.poles.count, 12);
    }
}
