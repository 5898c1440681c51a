//! Zeros and poles of the function under test: where its relative error lives, and how
//! the search gets there.
//!
//! Next to a zero of a function the relative error of any approximation explodes (its
//! absolute error stays while the value vanishes), and next to a pole the value blows
//! up; random inputs almost never land within a few ulps of either. After ATOMU (Zou et
//! al., POPL'20) the engine aims at both:
//!
//! - **Brackets** ([`Bracket`]): two evaluated inputs that differ in one coordinate and
//!   whose result (or the oracle's value, when the oracle is the true function or a C
//!   reference: [`Signal`]) has opposite signs enclose a zero or a pole. The engine
//!   records them from consecutive evaluations of its own search and of a coarse
//!   signed-log sweep of every float coordinate ([`sweep`]), so zeros far from any
//!   random sample are bracketed too.
//! - **Bisection** in ulp space ([`bisect`]): the ordered-integer view of the double
//!   halves the bracket down to two adjacent doubles in at most 64 steps, whatever the
//!   magnitudes at its ends.
//! - **Classification** ([`SingularityKind`]): at the adjacent doubles the value is
//!   smaller than at the bracket's ends for a zero, larger by orders of magnitude for a
//!   pole; a jump that is neither is not recorded.

use fpforge_search::ordinal::{from_ord, ord, HostFormat};
use fpforge_spec::ValueRange;

/// The sign of a value; `None` for NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sign {
    /// Below zero.
    Negative,
    /// Either zero.
    Zero,
    /// Above zero.
    Positive,
}

impl Sign {
    /// The sign of `x` (`None` for NaN).
    pub fn of(x: f64) -> Option<Sign> {
        if x.is_nan() {
            None
        } else if x == 0.0 {
            Some(Sign::Zero)
        } else if x < 0.0 {
            Some(Sign::Negative)
        } else {
            Some(Sign::Positive)
        }
    }

    /// Whether `a` and `b` are of strictly opposite signs.
    fn opposite(a: Sign, b: Sign) -> bool {
        matches!(
            (a, b),
            (Sign::Negative, Sign::Positive) | (Sign::Positive, Sign::Negative)
        )
    }
}

/// Whose value's sign change locates a zero or a pole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// The computed result: where the code changes sign.
    Computed,
    /// The oracle's value: where the true function changes sign.
    Oracle,
}

impl Signal {
    /// The label in reports.
    pub fn label(self) -> &'static str {
        match self {
            Signal::Computed => "computed",
            Signal::Oracle => "oracle",
        }
    }
}

/// The values of one evaluated input, as far as zeros and poles are concerned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The computed result.
    pub computed: f64,
    /// The oracle's value rounded to a double, when the oracle is the function itself
    /// (not the re-execution of the same code).
    pub oracle: Option<f64>,
}

impl Sample {
    /// The value `signal` looks at.
    pub fn value(&self, signal: Signal) -> Option<f64> {
        match signal {
            Signal::Computed => Some(self.computed),
            Signal::Oracle => self.oracle,
        }
    }

    fn sign(&self, signal: Signal) -> Option<Sign> {
        self.value(signal).and_then(Sign::of)
    }
}

/// Two inputs that differ in one coordinate, with values of opposite signs.
#[derive(Clone, Debug, PartialEq)]
pub struct Bracket {
    /// The full input at the lower end.
    pub point: Vec<f64>,
    /// The coordinate that differs.
    pub coord: usize,
    /// The lower end of the coordinate, and its sample.
    pub lo: (f64, Sample),
    /// The upper end, and its sample.
    pub hi: (f64, Sample),
    /// Whose sign changes.
    pub signal: Signal,
}

impl Bracket {
    /// The brackets between two evaluated inputs: one per signal that changes sign,
    /// when the inputs differ in exactly one float coordinate.
    pub fn between(a: (&[f64], Sample), b: (&[f64], Sample)) -> Vec<Bracket> {
        let Some(coord) = single_difference(a.0, b.0) else {
            return Vec::new();
        };
        let (lo, hi) = if a.0[coord] < b.0[coord] {
            (a, b)
        } else {
            (b, a)
        };
        [Signal::Computed, Signal::Oracle]
            .into_iter()
            .filter(|&s| match (lo.1.sign(s), hi.1.sign(s)) {
                (Some(x), Some(y)) => Sign::opposite(x, y),
                _ => false,
            })
            .map(|signal| Bracket {
                point: lo.0.to_vec(),
                coord,
                lo: (lo.0[coord], lo.1),
                hi: (hi.0[coord], hi.1),
                signal,
            })
            .collect()
    }

    /// Whether `x` in coordinate `coord` of `point` lies inside this bracket (the other
    /// coordinates equal).
    pub fn contains(&self, point: &[f64], coord: usize, x: f64) -> bool {
        coord == self.coord && self.lo.0 <= x && x <= self.hi.0 && same_elsewhere(self, point)
    }

    /// Whether `other` overlaps this bracket on the same line and signal.
    pub fn overlaps(&self, other: &Bracket) -> bool {
        other.signal == self.signal
            && other.coord == self.coord
            && other.lo.0 <= self.hi.0
            && self.lo.0 <= other.hi.0
            && same_elsewhere(self, &other.point)
    }
}

/// Whether `point` equals the bracket's point outside the bracket's coordinate.
fn same_elsewhere(b: &Bracket, point: &[f64]) -> bool {
    point.len() == b.point.len()
        && point
            .iter()
            .zip(&b.point)
            .enumerate()
            .all(|(i, (x, y))| i == b.coord || x.to_bits() == y.to_bits())
}

/// The one coordinate in which `a` and `b` differ, if exactly one does (both finite).
fn single_difference(a: &[f64], b: &[f64]) -> Option<usize> {
    if a.len() != b.len() {
        return None;
    }
    let mut diff = a
        .iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (x, y))| x.to_bits() != y.to_bits());
    let (i, (x, y)) = diff.next()?;
    (diff.next().is_none() && x.is_finite() && y.is_finite() && x != y).then_some(i)
}

/// What a narrowed bracket turned out to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SingularityKind {
    /// The value vanishes between (or at) the adjacent doubles.
    Zero,
    /// The value blows up between the adjacent doubles.
    Pole,
}

impl SingularityKind {
    /// The label in reports.
    pub fn label(self) -> &'static str {
        match self {
            SingularityKind::Zero => "zero",
            SingularityKind::Pole => "pole",
        }
    }
}

/// A zero or a pole, located to adjacent doubles of one coordinate.
#[derive(Clone, Debug, PartialEq)]
pub struct Singularity {
    /// Zero or pole.
    pub kind: SingularityKind,
    /// Whose sign changed.
    pub signal: Signal,
    /// The full input at `below`.
    pub point: Vec<f64>,
    /// The coordinate.
    pub coord: usize,
    /// The double at or below the zero or pole.
    pub below: f64,
    /// The double above it (equal to `below` when the value is exactly zero there).
    pub above: f64,
}

impl Singularity {
    /// The doubles within `ulps` of the singularity's two neighbours, in order,
    /// without the neighbours themselves (already evaluated by the bisection).
    pub fn surroundings(&self, ulps: i64) -> Vec<f64> {
        let (a, b) = (
            ord(HostFormat::F64, self.below),
            ord(HostFormat::F64, self.above),
        );
        (a - ulps..=b + ulps)
            .filter(|&o| o != a && o != b)
            .map(|o| from_ord(HostFormat::F64, o))
            .filter(|x| x.is_finite())
            .collect()
    }

    /// Whether `point` lies within `ulps` of this singularity along its coordinate
    /// (the other coordinates equal).
    pub fn near(&self, point: &[f64], ulps: u64) -> bool {
        let x = point.get(self.coord).copied().unwrap_or(f64::NAN);
        if x.is_nan() || point.len() != self.point.len() {
            return false;
        }
        let o = ord(HostFormat::F64, x);
        let (a, b) = (
            ord(HostFormat::F64, self.below),
            ord(HostFormat::F64, self.above),
        );
        o.abs_diff(a).min(o.abs_diff(b)) <= ulps
            && point
                .iter()
                .zip(&self.point)
                .enumerate()
                .all(|(i, (x, y))| i == self.coord || x.to_bits() == y.to_bits())
    }
}

/// How much larger than at the bracket's ends the value must be at the adjacent
/// doubles for a pole: three orders of magnitude.
const POLE_GROWTH: f64 = 1e3;

/// Narrows `bracket` to adjacent doubles by bisection in ulp space, each midpoint
/// evaluated by `sample` (`None`: the budget ended or the input gave no value, and the
/// bisection stops). The located zero or pole, or `None` when the bracket held a jump
/// that is neither, or the bisection stopped.
pub fn bisect(
    bracket: &Bracket,
    mut sample: impl FnMut(f64) -> Option<Sample>,
) -> Option<Singularity> {
    let signal = bracket.signal;
    let lo_sign = bracket.lo.1.sign(signal)?;
    let (mut a, mut b) = (bracket.lo, bracket.hi);
    let (mut oa, mut ob) = (ord(HostFormat::F64, a.0), ord(HostFormat::F64, b.0));
    let singularity = |kind, below: f64, above: f64| Singularity {
        kind,
        signal,
        point: {
            let mut p = bracket.point.clone();
            p[bracket.coord] = below;
            p
        },
        coord: bracket.coord,
        below,
        above,
    };
    // In i128: the ordinals of doubles of both signs are up to 2^63 apart.
    while i128::from(ob) - i128::from(oa) > 1 {
        let om = ((i128::from(oa) + i128::from(ob)) / 2) as i64;
        let x = from_ord(HostFormat::F64, om);
        let s = sample(x)?;
        match s.sign(signal)? {
            Sign::Zero => return Some(singularity(SingularityKind::Zero, x, x)),
            sign if sign == lo_sign => (oa, a) = (om, (x, s)),
            _ => (ob, b) = (om, (x, s)),
        }
    }
    let magnitude = |s: &Sample| s.value(signal).map_or(f64::NAN, f64::abs);
    let ends = magnitude(&bracket.lo.1).max(magnitude(&bracket.hi.1));
    let ends_min = magnitude(&bracket.lo.1).min(magnitude(&bracket.hi.1));
    let near = magnitude(&a.1).min(magnitude(&b.1));
    let kind = if near > POLE_GROWTH * ends {
        SingularityKind::Pole
    } else if near < ends_min {
        SingularityKind::Zero
    } else {
        return None;
    };
    Some(singularity(kind, a.0, b.0))
}

/// Smallest and largest magnitude a sweep of an unbounded coordinate covers: 2^-8 to
/// 2^12, where the first zeros and poles of the usual special functions lie.
const UNBOUNDED_SWEEP: (f64, f64) = (1.0 / 256.0, 4096.0);

/// Binades below the largest magnitude a sweep of a range that holds zero reaches down.
const SWEEP_BINADES: i32 = 20;

/// A coarse sweep of a coordinate in `range` (whole line when `None` or unbounded):
/// `n` values, ascending, geometrically spaced in magnitude on each side of zero that
/// the range holds (the signed-log scale), so that sign changes between consecutive
/// values bracket the zeros and poles of every scale.
pub fn sweep(range: Option<ValueRange>, n: usize) -> Vec<f64> {
    let (lo, hi) = match range {
        Some(r) if r.lo.is_finite() && r.hi.is_finite() => (r.lo, r.hi),
        _ => (-UNBOUNDED_SWEEP.1, UNBOUNDED_SWEEP.1),
    };
    if n < 2 || lo >= hi {
        return Vec::new();
    }
    let top = lo.abs().max(hi.abs());
    let bottom = if lo > 0.0 || hi < 0.0 {
        lo.abs().min(hi.abs())
    } else if range.is_some_and(|r| r.lo.is_finite() && r.hi.is_finite()) {
        top * 2f64.powi(-SWEEP_BINADES)
    } else {
        UNBOUNDED_SWEEP.0
    };
    let sides = usize::from(lo < 0.0) + usize::from(hi > 0.0);
    let per_side = n / sides.max(1);
    let magnitudes = geometric(bottom.max(f64::MIN_POSITIVE), top, per_side);
    let mut values: Vec<f64> = Vec::with_capacity(n);
    if lo < 0.0 {
        values.extend(magnitudes.iter().rev().map(|m| -m).filter(|&x| x >= lo));
    }
    if hi > 0.0 {
        values.extend(magnitudes.iter().copied().filter(|&x| x <= hi && x >= lo));
    }
    values.dedup();
    values
}

/// `n` values from `a` to `b` (`0 < a <= b`), ascending, each a constant factor above
/// the last.
fn geometric(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n < 2 {
        return vec![b];
    }
    let (la, lb) = (a.ln(), b.ln());
    (0..n)
        .map(|i| match i {
            0 => a,
            i if i == n - 1 => b,
            i => (la + (lb - la) * i as f64 / (n - 1) as f64).exp(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn computed(x: f64) -> Sample {
        Sample {
            computed: x,
            oracle: None,
        }
    }

    fn bracket_of(f: fn(f64) -> f64, lo: f64, hi: f64) -> Bracket {
        let mut b = Bracket::between((&[lo], computed(f(lo))), (&[hi], computed(f(hi))));
        assert_eq!(b.len(), 1);
        b.remove(0)
    }

    #[test]
    fn bisection_reaches_adjacent_doubles_around_a_zero() {
        let f = |x: f64| x * x - 2.0;
        let mut evals = 0;
        let s = bisect(&bracket_of(f, 1.0, 3.0), |x| {
            evals += 1;
            Some(computed(f(x)))
        })
        .unwrap();
        assert_eq!(s.kind, SingularityKind::Zero);
        assert_eq!(s.above, s.below.next_up());
        assert!(s.below <= 2f64.sqrt() && 2f64.sqrt() <= s.above);
        assert!(evals <= 64, "{evals} evaluations");
    }

    #[test]
    fn bisection_tells_a_pole_from_a_zero_and_a_jump() {
        let pole = |x: f64| 1.0 / (x - 1.234_567_890_123);
        let s = bisect(&bracket_of(pole, 0.5, 3.0), |x| Some(computed(pole(x)))).unwrap();
        assert_eq!(s.kind, SingularityKind::Pole);
        assert!(s.below <= 1.234_567_890_123 && 1.234_567_890_123 <= s.above);
        assert_eq!(s.above, s.below.next_up());
        let step = |x: f64| if x < 1.5 { -1.0 } else { 1.0 };
        assert_eq!(
            bisect(&bracket_of(step, 0.0, 3.0), |x| Some(computed(step(x)))),
            None
        );
    }

    #[test]
    fn brackets_need_one_changed_coordinate_and_opposite_signs() {
        let s = |c, o| Sample {
            computed: c,
            oracle: Some(o),
        };
        let both = Bracket::between((&[1.0, 2.0], s(-1.0, 1.0)), (&[1.0, 3.0], s(1.0, -1.0)));
        assert_eq!(both.len(), 2);
        assert_eq!(both[0].coord, 1);
        let two_moved = Bracket::between((&[1.0, 2.0], s(-1.0, 1.0)), (&[2.0, 3.0], s(1.0, -1.0)));
        assert!(two_moved.is_empty());
        let same_sign = Bracket::between((&[1.0], s(1.0, 1.0)), (&[2.0], s(3.0, 0.5)));
        assert!(same_sign.is_empty());
    }

    #[test]
    fn sweep_is_signed_log_and_ascending() {
        let v = sweep(None, 64);
        assert!(v.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(v.first().copied(), Some(-4096.0));
        assert_eq!(v.last().copied(), Some(4096.0));
        let ratio = v[40] / v[39];
        assert!((ratio - v[50] / v[49]).abs() < 1e-9);
        let positive = sweep(Some(ValueRange { lo: 2.0, hi: 20.0 }), 10);
        assert_eq!(positive.len(), 10);
        assert!(positive.iter().all(|&x| (2.0..=20.0 + 1e-9).contains(&x)));
    }
}
