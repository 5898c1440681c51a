//! One reported input per problem: the worst inputs a report lists are one per region,
//! and under the ulps metric one per hill of the error: one per zero, pole or region.
//!
//! - **Neighbours** ([`neighbours`]): two inputs within [`NEIGHBOUR_ULPS`] of each other
//!   in every coordinate are the same problem seen twice, and only the worse is kept,
//!   while the search runs and again at the end ([`one_per_region`]).
//! - **Hills** ([`Hills`], under the ulps metric): next to a zero the error of any
//!   approximation grows like the inverse of the distance (its absolute error stays
//!   while the value, and its ulp, vanish), next to a pole where the code's own pole
//!   is off, and toward the end of a range where a series truncates; so a search that
//!   found one such place fills its top-k with inputs ever farther from it, each more
//!   than [`NEIGHBOUR_ULPS`] from the others: nine inputs of one zero of a J0 series
//!   where two zeros were found. Two inputs are on one hill when the error does not
//!   dip below the smaller of their two errors between them: the inputs at 1/2, 1/4
//!   and 3/4 of the way (in ulps, every coordinate) all have at least 7/8 of it
//!   ([`HILL_PROBES`], [`HILL_SHARE`]: the slack is the result's own rounding, an ulp
//!   or two, on a hill of [`HILL_LEAST_ULPS`] or more), and then only the worse is
//!   kept. The shape is judged on the relative error: an error in ulps of the true
//!   value jumps by a factor of two wherever the true value crosses a power of two (a
//!   result of zero is 2^52 to 2^53 ulps off), where the relative error is smooth.
//!   Where the absolute error is rounding noise (a libm's `j0` next to its zero), the
//!   error near a zero is as ragged as that noise and the probes fall short, so two
//!   inputs of [`HILL_LEAST_ULPS`] or more whose nearest located zero or pole along
//!   one coordinate (the others equal) is the same, within [`SINGULARITY_ULPS`] of
//!   both, are one problem too; so are singularities within [`NEIGHBOUR_ULPS`] of each
//!   other (the code's zero a few hundred ulps from the true function's). Inputs on both sides of a zero are on its hill; inputs next to two zeros are
//!   not (the error falls between them). Errors below [`HILL_LEAST_ULPS`] are rounding
//!   noise scattered at random (a good libm's half ulps), no hill: those inputs are
//!   only ever folded as neighbours. Larger errors scattered at random almost never
//!   pass the test either: it takes three inputs between, each with nearly the error
//!   of a kept one, so among the largest; the first probe, the midpoint, usually
//!   settles it.
//!
//! The probes are evaluations beside the run's budget, like the re-measurements of the
//! kept inputs: at most three per pair of kept inputs compared.

use crate::measure::ErrorFinding;
use crate::zeros::Singularity;
use fpforge_mpfr::ErrorMeasure;
use fpforge_search::ordinal::{from_ordinal, ord, signed_ulps, to_ordinal, HostFormat};
use fpforge_spec::plan::Test;
use fpforge_spec::InputSpec;
use fpir::{FloatTy, Type};

/// How close two reported inputs may be in every coordinate and still be one problem:
/// 2^20 ulps of a float (a relative distance of about 1e-10 in `double`), or 2^20 apart
/// as integers.
pub const NEIGHBOUR_ULPS: u64 = 1 << 20;

/// Whether inputs `a` and `b` of `spec` are within [`NEIGHBOUR_ULPS`] of each other in
/// every coordinate: the same problem seen twice, reported once.
pub fn neighbours(spec: &InputSpec, a: &Test, b: &Test) -> bool {
    spec.coords()
        .iter()
        .zip(a.coords.iter().zip(&b.coords))
        .all(|(coord, (&x, &y))| {
            position(coord.ty, x).abs_diff(position(coord.ty, y)) <= NEIGHBOUR_ULPS
        })
}

/// Where raw bits of `ty` lie on a line whose steps are ulps (floats) or units (integers).
fn position(ty: Type, bits: u64) -> i64 {
    match ty {
        Type::Float(FloatTy::F64) => signed_ulps(HostFormat::F64, f64::from_bits(bits)),
        Type::Float(FloatTy::F32) => {
            signed_ulps(HostFormat::F32, f64::from(f32::from_bits(bits as u32)))
        }
        Type::Int(_) => ty.sign_extend(bits),
        Type::Ptr => 0,
    }
}

/// Where between two inputs the error is probed, as fractions of the way: the
/// midpoint first.
pub const HILL_PROBES: [f64; 3] = [0.5, 0.25, 0.75];

/// The share of the smaller error of two inputs that every probe between them must
/// reach for the two to be on one hill.
pub const HILL_SHARE: f64 = 0.875;

/// The least error in ulps of a hill: below it, errors are a result's rounding, up and
/// down from one input to the next.
pub const HILL_LEAST_ULPS: f64 = 4.0;

/// How far from a located zero or pole, in ulps of its coordinate, an input is still
/// next to it: 2^40, a relative distance of about 2^-12 in `double`.
pub const SINGULARITY_ULPS: u64 = 1 << 40;

/// The located zeros and poles of a run and a way to measure inputs, to tell whether
/// two lie on one hill of the error.
pub struct Hills<'s, F: FnMut(&[f64]) -> Option<ErrorMeasure>> {
    singularities: &'s [Singularity],
    /// Per singularity, the first of those within [`NEIGHBOUR_ULPS`] of it on its line
    /// (transitively): one zero or pole.
    group: Vec<usize>,
    /// The error of an input (its point as the plan encodes it), measured anew; `None`
    /// when the input gives no result.
    error_at: F,
}

impl<'s, F: FnMut(&[f64]) -> Option<ErrorMeasure>> Hills<'s, F> {
    /// Hills of the errors `error_at` measures, next to `singularities`.
    pub fn new(singularities: &'s [Singularity], error_at: F) -> Hills<'s, F> {
        let mut group: Vec<usize> = Vec::with_capacity(singularities.len());
        for (i, s) in singularities.iter().enumerate() {
            let close = (0..i).find(|&j| {
                let t = &singularities[j];
                t.coord == s.coord && distance_to(t, &s.point).is_some_and(|d| d <= NEIGHBOUR_ULPS)
            });
            group.push(close.map_or(i, |j| group[j]));
        }
        Hills {
            singularities,
            group,
            error_at,
        }
    }

    /// The zero or pole `point` lies next to: the group of the nearest located one on
    /// its line, when within [`SINGULARITY_ULPS`].
    fn next_to(&self, point: &[f64]) -> Option<usize> {
        let (i, d) = self
            .singularities
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, distance_to(s, point)?)))
            .min_by_key(|&(_, d)| d)?;
        (d <= SINGULARITY_ULPS).then(|| self.group[i])
    }

    /// Whether the inputs at points `a` and `b` (as the plan encodes them), whose errors
    /// are `ea` and `eb`, lie on one hill: both are [`HILL_LEAST_ULPS`] or more, and at
    /// every probe between them the relative error is at least [`HILL_SHARE`] of the
    /// smaller of theirs.
    pub fn same(
        &mut self,
        (a, ea): (&[f64], &ErrorMeasure),
        (b, eb): (&[f64], &ErrorMeasure),
    ) -> bool {
        let finite = a.iter().chain(b).all(|x| x.is_finite());
        let least = ea.ulps.min(eb.ulps) >= HILL_LEAST_ULPS;
        if a.len() != b.len() || !finite || !least {
            return false;
        }
        if self.next_to(a).is_some_and(|z| self.next_to(b) == Some(z)) {
            return true;
        }
        let floor = HILL_SHARE * ea.rel.min(eb.rel);
        HILL_PROBES.iter().all(|&t| {
            let p: Vec<f64> = a
                .iter()
                .zip(b)
                .map(|(&x, &y)| {
                    let (ox, oy) = (to_ordinal(x), to_ordinal(y));
                    from_ordinal(ox + (oy - ox) * t)
                })
                .collect();
            (self.error_at)(&p).is_some_and(|e| e.rel >= floor)
        })
    }
}

/// The distance in ulps from `point` to singularity `s` along its coordinate; `None`
/// when `point` is not on the singularity's line.
fn distance_to(s: &Singularity, point: &[f64]) -> Option<u64> {
    let x = *point.get(s.coord)?;
    let same_line = point.len() == s.point.len()
        && point
            .iter()
            .zip(&s.point)
            .enumerate()
            .all(|(i, (a, b))| i == s.coord || a.to_bits() == b.to_bits());
    if !same_line || !x.is_finite() {
        return None;
    }
    let o = ord(HostFormat::F64, x);
    let (a, b) = (ord(HostFormat::F64, s.below), ord(HostFormat::F64, s.above));
    Some(if o < a {
        o.abs_diff(a)
    } else {
        o.saturating_sub(b).unsigned_abs()
    })
}

/// `sorted` (worst first, each with its point as the plan encodes it) reduced to at most `k` inputs, none a neighbour of a worse one
/// kept before it nor, with `hills`, on the hill of one; and how many were folded on
/// the way.
pub fn one_per_region<F: FnMut(&[f64]) -> Option<ErrorMeasure>>(
    spec: &InputSpec,
    sorted: Vec<(ErrorFinding, Vec<f64>)>,
    k: usize,
    mut hills: Option<Hills<F>>,
) -> (Vec<ErrorFinding>, u64) {
    let mut kept: Vec<(ErrorFinding, Vec<f64>)> = Vec::with_capacity(k.min(sorted.len()));
    let mut folded = 0;
    for (f, point) in sorted {
        if kept.len() >= k {
            break;
        }
        let same = kept.iter().any(|(g, q)| {
            neighbours(spec, &g.test, &f.test)
                || hills
                    .as_mut()
                    .is_some_and(|h| h.same((&point, &f.error), (q, &g.error)))
        });
        if same {
            folded += 1;
        } else {
            kept.push((f, point));
        }
    }
    (kept.into_iter().map(|(f, _)| f).collect(), folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of a function with zeros at 1 and 2.5 whose absolute error is `1e-13`,
    /// with its ulps counted as a double's near 1.
    fn near_zeros(x: f64) -> ErrorMeasure {
        let t = (x - 1.0).abs().min((x - 2.5).abs()).max(f64::MIN_POSITIVE);
        let rel = 1e-13 / t;
        ErrorMeasure {
            rel,
            ulps: rel / f64::EPSILON,
            bits_lost: 0.0,
        }
    }

    /// The error of a function whose relative error `rel(x)` is the same at every input.
    fn flat(rel: f64, ulps: f64) -> ErrorMeasure {
        ErrorMeasure {
            rel,
            ulps,
            bits_lost: 0.0,
        }
    }

    #[test]
    fn inputs_on_one_hill_of_the_error_are_one_region() {
        let mut probes = 0;
        let mut hills = Hills::new(&[], |p: &[f64]| {
            probes += 1;
            Some(near_zeros(p[0]))
        });
        let at = |x: f64| (vec![x], near_zeros(x));
        let same = |h: &mut Hills<_>, (a, ea): (Vec<f64>, _), (b, eb): (Vec<f64>, _)| {
            h.same((&a, &ea), (&b, &eb))
        };
        // Both sides of one zero, and one side at two distances: one hill.
        assert!(same(&mut hills, at(0.9), at(1.1)));
        assert!(same(&mut hills, at(1.3), at(1.0001)));
        // Next to two zeros: the error falls between them, at the midpoint already.
        assert!(!same(&mut hills, at(1.0001), at(2.4999)));
        drop(hills);
        assert_eq!(probes, 2 * HILL_PROBES.len() + 1);
    }

    #[test]
    fn rounding_noise_is_no_hill_and_a_plateau_is_one() {
        let half = flat(1e-16, 0.5);
        let mut noise = Hills::new(&[], |_: &[f64]| Some(half));
        assert!(!noise.same((&[1.5], &half), (&[7.25], &half)));
        // Larger errors at random: the midpoint already falls short.
        let mut scattered = Hills::new(&[], |p: &[f64]| {
            let e = (p[0] * 1e6).sin().abs();
            Some(flat(e * 1e-13, e * 1e3))
        });
        let big = flat(0.99e-13, 990.0);
        assert!(!scattered.same((&[1.5], &big), (&[7.25], &big)));
        // A result of zero: 100 % off, 2^52 to 2^53 ulps as the true value crosses
        // powers of two, one plateau.
        let zero = |x: f64| flat(1.0, 2f64.powi(52) * (1.0 + x.fract()));
        let mut plateau = Hills::new(&[], |p: &[f64]| Some(zero(p[0] * 1e6)));
        let (a, b) = (zero(0.75), zero(0.25));
        assert!(plateau.same((&[1.0, -3.0], &a), (&[2.0, 5.0], &b)));
        assert!(!plateau.same((&[1.0], &a), (&[f64::NAN], &b)));
    }

    fn zero_at(x: f64) -> Singularity {
        Singularity {
            kind: crate::zeros::SingularityKind::Zero,
            signal: crate::zeros::Signal::Oracle,
            point: vec![x],
            coord: 0,
            below: x,
            above: x.next_up(),
        }
    }

    #[test]
    fn inputs_next_to_one_zero_are_one_problem_however_ragged_the_error() {
        // The code's zero 300 ulps from the true one, and another zero far away.
        let truth = f64::from_bits(2.5f64.to_bits() + 300);
        let zeros = [zero_at(2.5), zero_at(5.5), zero_at(truth)];
        let big = flat(1e-10, 1e6);
        let mut hills = Hills::new(&zeros, |_: &[f64]| Some(flat(0.0, 0.0)));
        let ulps_off = |x: f64, n: i64| f64::from_bits((x.to_bits() as i64 + n) as u64);
        let (left, right) = (ulps_off(2.5, -(1 << 30)), ulps_off(truth, 1 << 35));
        assert!(hills.same((&[left], &big), (&[right], &big)));
        assert!(!hills.same((&[left], &big), (&[5.5], &big)));
        // Rounding noise next to a zero is still no problem of it.
        let half = flat(1e-16, 0.5);
        assert!(!hills.same((&[left], &half), (&[right], &half)));
        // Farther than SINGULARITY_ULPS: the ragged error decides.
        assert!(!hills.same((&[ulps_off(2.5, -(1 << 42))], &big), (&[right], &big)));
    }
}
