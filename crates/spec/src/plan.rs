//! The search's view of a function's parameters (shared by `cover` and `accuracy`): the coordinates of its
//! [`InputSpec`] (one per scalar input, pointee or array element; fixed values and output
//! arrays have none), decoded into interpreter arguments, and the starting points of the
//! searches.
//!
//! Doubles are taken as they are, floats are rounded to binary32, integers are rounded
//! and clamped to their range, and every value is clamped into its coordinate's range
//! (`in [lo, hi]`). By default a pointer to a scalar gets a one-element array whose
//! element is the coordinate (CoverMe's `double*` parameters, Fu & Su, PLDI'17, Sec. 4).
//! Starting points mix special values, constants harvested from the program (each with
//! its neighbours one ulp away, and for 32-bit integer constants the doubles whose high
//! word they are, as fdlibm's bit tests compare), random normal variates and random bit
//! patterns.
//!
//! The special points are every combination of special values when there are few, else
//! each special value in every coordinate at once; then the axis points: one coordinate
//! at a time at a special value or at a large or small power of two (2^±16, 2^±64,
//! 2^±256, either sign), the others at 1. A parameter that must be huge while the others
//! stay ordinary (an order mu = 2^64 that underflows a Bessel function to 0) is then one
//! evaluation away, where a fuzzer's byte flips reach it and a search from the diagonal
//! need not.
//!
//! Integer coordinates are mostly orders, counts and lengths, whose large values make
//! loops run for long: their special values are small integers (and the type's minimum),
//! and their random values have a log-uniform magnitude, so an `int` is as often below
//! 16 as between 2^27 and 2^31, where bit patterns would almost always be huge.

use crate::spec::{value_of, Coord, InputSpec, SpecError};
use crate::Arg;
use fpir::{Const, FloatTy, Func, InstKind, Module, Terminator, Type};
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

/// A generated test: the raw bits of every coordinate, the interpreter arguments they
/// stand for, and its line of `inputs.txt`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Test {
    /// Raw bits of each coordinate of the [`InputSpec`], in order.
    pub coords: Vec<u64>,
    args: Vec<Arg>,
    line: String,
}

impl Test {
    /// The interpreter arguments.
    pub fn to_args(&self) -> Vec<Arg> {
        self.args.clone()
    }

    /// The interpreter arguments, borrowed.
    pub fn args(&self) -> &[Arg] {
        &self.args
    }

    /// One exact text per parameter separated by spaces, as `fpforge run` reads them
    /// (`inputs.txt`): scalars and pointees as values, arrays as `[v,v,...]`, fixed values
    /// as themselves and output arrays as their zeros.
    pub fn line(&self) -> &str {
        &self.line
    }
}

/// The input specification of the entry function and the constants harvested from the
/// program.
#[derive(Clone, Debug)]
pub struct InputPlan {
    spec: InputSpec,
    /// Harvested doubles, sorted by bits (deterministic).
    harvested: Vec<f64>,
}

/// Special values every search may start from.
const SPECIALS: [f64; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    f64::MAX,
    -f64::MAX,
    2.0,
];

/// The exponents `e` of the axis values `±2^e` and `±2^-e` beyond [`SPECIALS`] of a
/// floating-point coordinate: magnitudes a computation handles without overflowing, but
/// far from the ordinary.
const AXIS_EXPONENTS: [i32; 3] = [16, 64, 256];

/// At most this many axis points, so that functions of many coordinates (arrays) do not
/// spend their budget on them.
const AXIS_POINTS_MAX: usize = 128;

/// The special values of an integer coordinate, one for each of [`SPECIALS`] (so special
/// points have the same shape whatever the coordinates' types): small integers from 0
/// outward, a few larger orders, and the type's minimum in place of `-f64::MAX`.
const INT_SPECIALS: [f64; 14] = [
    0.0,
    3.0,
    1.0,
    -1.0,
    4.0,
    -2.0,
    5.0,
    6.0,
    10.0,
    20.0,
    100.0,
    1000.0,
    f64::NEG_INFINITY,
    2.0,
];

impl InputPlan {
    /// Plans the inputs of `func` from `spec`, harvesting constants from the functions in
    /// `funcs`.
    pub fn new(
        module: &Module,
        func: Func,
        funcs: &[Func],
        spec: InputSpec,
    ) -> Result<InputPlan, SpecError> {
        module.funcs.get(func).ok_or(SpecError::UnknownFunc(func))?;
        Ok(InputPlan {
            spec,
            harvested: harvest(module, funcs),
        })
    }

    /// The same plan without harvested constants (starts from special values, normal
    /// variates and random bits only).
    pub fn without_harvest(mut self) -> InputPlan {
        self.harvested.clear();
        self
    }

    /// The input specification.
    pub fn spec(&self) -> &InputSpec {
        &self.spec
    }

    /// Number of coordinates.
    pub fn dims(&self) -> usize {
        self.spec.dims()
    }

    /// The raw bits of each coordinate of a point.
    pub fn bits(&self, point: &[f64]) -> Vec<u64> {
        self.spec
            .coords()
            .iter()
            .zip(point)
            .map(|(c, &x)| value_bits(c.ty, clamp(c, x)))
            .collect()
    }

    /// The test a point stands for.
    pub fn decode(&self, point: &[f64]) -> Test {
        self.test(self.bits(point))
    }

    /// The test of the raw bits of every coordinate.
    pub fn test(&self, coords: Vec<u64>) -> Test {
        let args = self.spec.to_args(&coords);
        let line = self.spec.line(&coords);
        Test { coords, args, line }
    }

    /// The point a test stands for (the inverse of [`InputPlan::decode`]).
    pub fn encode(&self, test: &Test) -> Vec<f64> {
        self.spec
            .coords()
            .iter()
            .zip(&test.coords)
            .map(|(c, &b)| value_of(c.ty, b))
            .collect()
    }

    /// Which coordinates are integers.
    pub fn integer_coordinates(&self) -> Vec<bool> {
        self.spec
            .coords()
            .iter()
            .map(|c| matches!(c.ty, Type::Int(_)))
            .collect()
    }

    /// Sets every integer coordinate of `point` to the integer it stands for (an infinite
    /// or fractional value would otherwise stay where a search cannot step from it).
    pub fn snap_integers(&self, point: &mut [f64]) {
        for (c, x) in self.spec.coords().iter().zip(point.iter_mut()) {
            if matches!(c.ty, Type::Int(_)) {
                *x = value_of(c.ty, value_bits(c.ty, clamp(c, *x)));
            }
        }
    }

    /// Points evaluated before any search: the corner points, then the axis points not
    /// among them (see the module docs).
    pub fn special_points(&self) -> Vec<Vec<f64>> {
        let mut points = self.corner_points();
        let mut seen: BTreeSet<Vec<u64>> = points.iter().map(|p| self.bits(p)).collect();
        for point in self.axis_points() {
            if seen.insert(self.bits(&point)) {
                points.push(point);
            }
        }
        points
    }

    /// Points made of special values only: every combination when there are at most 256,
    /// otherwise each special value in every coordinate at once (small integers in integer
    /// coordinates: see the module docs).
    fn corner_points(&self) -> Vec<Vec<f64>> {
        let n = self.dims();
        let specials = |c: &Coord| {
            if matches!(c.ty, Type::Int(_)) {
                &INT_SPECIALS
            } else {
                &SPECIALS
            }
        };
        let grid = u32::try_from(n)
            .ok()
            .and_then(|n| SPECIALS.len().checked_pow(n))
            .filter(|&size| size <= 256);
        let coords = self.spec.coords();
        match grid {
            Some(size) => (0..size)
                .map(|mut index| {
                    coords
                        .iter()
                        .map(|c| {
                            let v = specials(c)[index % SPECIALS.len()];
                            index /= SPECIALS.len();
                            v
                        })
                        .collect()
                })
                .collect(),
            None => (0..SPECIALS.len())
                .map(|k| coords.iter().map(|c| specials(c)[k]).collect())
                .collect(),
        }
    }

    /// One coordinate at a time at each special value and (floating-point coordinates
    /// only) each power of two of [`AXIS_EXPONENTS`], the others at 1; value by value, so
    /// that the cap of [`AXIS_POINTS_MAX`] keeps the first values for every coordinate.
    fn axis_points(&self) -> Vec<Vec<f64>> {
        let coords = self.spec.coords();
        let values = |c: &Coord| -> Vec<f64> {
            if matches!(c.ty, Type::Int(_)) {
                INT_SPECIALS.to_vec()
            } else {
                let magnitudes = AXIS_EXPONENTS.iter().flat_map(|&e| {
                    let (big, small) = (2f64.powi(e), 2f64.powi(-e));
                    [big, -big, small, -small]
                });
                SPECIALS.iter().copied().chain(magnitudes).collect()
            }
        };
        let per_coord: Vec<Vec<f64>> = coords.iter().map(values).collect();
        let rounds = SPECIALS.len() + 4 * AXIS_EXPONENTS.len();
        let mut points = Vec::new();
        for k in 0..rounds {
            for (i, vs) in per_coord.iter().enumerate() {
                if let Some(&value) = vs.get(k) {
                    let mut point = vec![1.0; per_coord.len()];
                    point[i] = value;
                    points.push(point);
                }
            }
        }
        points.into_iter().take(AXIS_POINTS_MAX).collect()
    }

    /// Inputs to probe a function with before a search, as coordinate bits: the special
    /// points (at most half of `count`), then random starting points drawn from `seed`.
    pub fn probe_points(&self, seed: u64, count: usize) -> Vec<Vec<u64>> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let specials = self.special_points().into_iter().take(count / 2);
        let specials: Vec<Vec<f64>> = specials.collect();
        let random = count - specials.len();
        specials
            .into_iter()
            .chain((0..random).map(|_| self.start(&mut rng)))
            .map(|point| self.bits(&point))
            .collect()
    }

    /// A starting point: per coordinate, a special value, a harvested constant, a
    /// normal variate, a random bit pattern or (in a range) a uniform value of the range.
    pub fn start<R: Rng>(&self, rng: &mut R) -> Vec<f64> {
        self.spec
            .coords()
            .iter()
            .map(|c| {
                if let Some(r) = c.range.filter(|r| r.lo.is_finite() && r.hi.is_finite()) {
                    if rng.gen_range(0..2) == 0 {
                        return r.lo + (r.hi - r.lo) * rng.gen::<f64>();
                    }
                }
                let x = match rng.gen_range(0..4) {
                    0 if matches!(c.ty, Type::Int(_)) => {
                        INT_SPECIALS[rng.gen_range(0..INT_SPECIALS.len())]
                    }
                    0 => SPECIALS[rng.gen_range(0..SPECIALS.len())],
                    1 if !self.harvested.is_empty() => {
                        self.harvested[rng.gen_range(0..self.harvested.len())]
                    }
                    1 | 2 => normal(rng) * f64::from(rng.gen_range(-8i32..=8)).exp2(),
                    _ => match c.ty {
                        Type::Float(FloatTy::F32) => f64::from(f32::from_bits(rng.gen())),
                        Type::Int(_) => log_uniform_int(rng, c.ty),
                        _ => f64::from_bits(rng.gen()),
                    },
                };
                clamp(c, x)
            })
            .collect()
    }
}

/// `x` clamped into the coordinate's range (a NaN becomes the range's low end).
fn clamp(c: &Coord, x: f64) -> f64 {
    match c.range {
        Some(r) if x.is_nan() => r.lo,
        Some(r) => x.clamp(r.lo, r.hi),
        None => x,
    }
}

/// A random integer of type `ty` whose magnitude is log-uniform up to the type's width
/// (at most 2^63), either sign.
fn log_uniform_int<R: Rng>(rng: &mut R, ty: Type) -> f64 {
    let bits = f64::from(ty.bits().clamp(2, 64) - 1);
    let magnitude = (rng.gen::<f64>() * bits).exp2().floor();
    if rng.gen() {
        magnitude
    } else {
        -magnitude
    }
}

/// A standard normal variate (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u: f64 = 1.0 - rng.gen::<f64>();
    let v: f64 = rng.gen();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Raw bits of a coordinate as a value of type `ty`: integers narrower than 64 bits take
/// values from the signed minimum to the unsigned maximum of their width; 64-bit ones the
/// signed range.
fn value_bits(ty: Type, x: f64) -> u64 {
    match ty {
        Type::Float(FloatTy::F64) => x.to_bits(),
        Type::Float(FloatTy::F32) => u64::from((x as f32).to_bits()),
        Type::Int(_) => {
            let width = ty.bits();
            if x.is_nan() {
                return 0;
            }
            if width == 64 {
                // Signed, saturating: i64::MAX and i64::MIN are reachable although no
                // f64 coordinate equals them.
                return x.round() as i64 as u64;
            }
            let lo = -(2f64.powi(width as i32 - 1));
            let hi = 2f64.powi(width as i32) - 1.0;
            let r = x.round().clamp(lo, hi);
            let bits = if r < 0.0 { (r as i64) as u64 } else { r as u64 };
            bits & ty.mask()
        }
        Type::Ptr => 0,
    }
}

/// Constants of the program worth starting from: every float constant of the functions,
/// and the integer constants their comparisons and switches test, with neighbours.
fn harvest(module: &Module, funcs: &[Func]) -> Vec<f64> {
    let mut bits: BTreeSet<u64> = BTreeSet::new();
    let mut add = |x: f64| {
        bits.insert(x.to_bits());
    };
    for &fid in funcs {
        let func = &module.funcs[fid];
        let mut tested = BTreeSet::new();
        for block in func.blocks.values() {
            for inst in &block.insts {
                if let InstKind::Icmp { lhs, rhs, .. } = &inst.kind {
                    tested.insert(*lhs);
                    tested.insert(*rhs);
                }
            }
            if let Terminator::Switch { ty, cases, .. } = &block.term {
                for c in cases {
                    add_int(&mut add, *ty, c.value);
                }
            }
        }
        for (reg, c) in &func.consts {
            let Const::Bits(b) = *c else { continue };
            match func.regs[*reg] {
                Type::Float(FloatTy::F64) => add_float(&mut add, f64::from_bits(b)),
                Type::Float(FloatTy::F32) => {
                    add_float(&mut add, f64::from(f32::from_bits(b as u32)))
                }
                ty @ Type::Int(_) if tested.contains(reg) => add_int(&mut add, ty, b),
                _ => {}
            }
        }
    }
    bits.into_iter().map(f64::from_bits).collect()
}

fn add_float(add: &mut impl FnMut(f64), x: f64) {
    add(x);
    if x.is_finite() {
        add(x.next_up());
        add(x.next_down());
    }
}

fn add_int(add: &mut impl FnMut(f64), ty: Type, bits: u64) {
    let width = ty.bits();
    let value = ty.sign_extend(bits);
    for v in [value.saturating_sub(1), value, value.saturating_add(1)] {
        add(v as f64);
        if width == 32 {
            let high = (v as u64 & 0xffff_ffff) << 32;
            add(f64::from_bits(high));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_become_values_of_the_parameter_type() {
        assert_eq!(value_bits(Type::F32, 0.1), u64::from(0.1f32.to_bits()));
        assert_eq!(value_bits(Type::I32, -2.6), u64::from((-3i32) as u32));
        assert_eq!(value_bits(Type::I32, 1e300), u64::from(u32::MAX));
        assert_eq!(value_bits(Type::I32, f64::NEG_INFINITY), 0x8000_0000);
        assert_eq!(value_bits(Type::I8, f64::NAN), 0);
        assert_eq!(value_bits(Type::I64, -1.0), u64::MAX);
        assert_eq!(value_bits(Type::I64, 9.3e18), i64::MAX as u64);
        assert_eq!(value_bits(Type::I64, -1e300), i64::MIN as u64);
        assert_eq!(value_bits(Type::F64, -0.0), (-0.0f64).to_bits());
    }

    #[test]
    fn random_integers_are_small_as_often_as_huge() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let draws: Vec<f64> = (0..4000)
            .map(|_| log_uniform_int(&mut rng, Type::I32))
            .collect();
        let share = |keep: &dyn Fn(f64) -> bool| {
            draws.iter().filter(|&&n| keep(n)).count() as f64 / draws.len() as f64
        };
        assert!(share(&|n| n.abs() < 16.0) > 0.1);
        assert!(share(&|n| n.abs() >= 2f64.powi(27)) > 0.1);
        assert!(share(&|n| n < 0.0) > 0.4 && share(&|n| n > 0.0) > 0.4);
        assert!(draws
            .iter()
            .all(|&n| n == n.floor() && n.abs() <= 2f64.powi(31)));
    }

    #[test]
    fn values_print_exactly() {
        use crate::spec::value_text;
        assert_eq!(value_text(Type::F64, 1.5f64.to_bits()), "0x1.8p+0");
        assert_eq!(
            value_text(Type::F64, 0x7ff8_0000_0000_0001),
            "raw:7ff8000000000001"
        );
        assert_eq!(value_text(Type::I32, 0xffff_fffe), "-2");
        assert_eq!(value_text(Type::F32, u64::from(0.5f32.to_bits())), "0x1p-1");
    }
}
