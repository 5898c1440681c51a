//! Max-ULP filtering: bounds on an operand of `z = x op y` (round to
//! nearest-even) from the result alone, whatever the other operand is.
//!
//! After Marre and Michel, "Improving the floating point addition and
//! subtraction constraints", CP 2010, as generalized by Bagnara, Carlier,
//! Gori and Gotlieb, "Exploiting binary floating-point representations for
//! constraint propagation", INFORMS J. Computing 28(1), 2016 (§4–§5, and
//! Carlier and Gotlieb, ICTAI 2011, for `*` and `/`). The statements below
//! are derived and proved here in our notation, for ranges of `z` with one
//! sign, no zero, no infinity and no NaN; the functions return `None` (no
//! bound) otherwise.
//!
//! Notation: `p` is the precision (with the hidden bit), floats of the
//! format are `M 2^s` with `M < 2^p` and `s >= emin - p + 1`; for a float
//! `z != 0`, `nu(z)` is the exponent of its last set bit (`z` is an odd
//! multiple of `2^nu(z)`), so `|z| <= (2^p - 1) 2^nu(z)`.
//!
//! **Addition** (`z = x + y`, `z > 0`; `z < 0` by symmetry). For every float
//! pair with `x (+) y = z`:
//!
//! ```text
//!     -(2^(nu+p) - 2^nu)  <=  x  <=  2^(nu+p) + z - 2^nu        (nu = nu(z))
//! ```
//!
//! and both ends are reached (when `nu + p <= emax`). Proof sketch.
//! (1) If `x + y` is computed exactly, `z = x + y` with `x, y` floats. Let
//! `a` be the one of `x, y` opposite in sign to `z` (if any), `|a| = b` in
//! binade `e`, so `b` is a multiple of `2^(e-p+1)` (or of the subnormal
//! quantum). `b + z = |other operand|` is a float in binade `>= e`, also a
//! multiple of `2^(e-p+1)`, hence so is `z`: `e - p + 1 <= nu`, and
//! `b < 2^(nu+p)`; the largest float below `2^(nu+p)` is `2^(nu+p) - 2^nu`.
//! So the operand opposite to `z` has magnitude `<= 2^(nu+p) - 2^nu` and the
//! other is `z + b <= 2^(nu+p) + z - 2^nu`; same-sign operands are `<= z`.
//! (2) If `x + y` is inexact, Sterbenz's lemma fails, so the operands do not
//! cancel (`|a| < |other| / 2`): then `x + y > |other| / 2`, and rounding
//! (monotone, `|other|/2` a float or the sum exact) gives `z >= |other| / 2`
//! and `|a| < z`; both are inside the bounds because `2z <= 2^(nu+p+1) -
//! 2^(nu+1)`, i.e. `2z - z <= 2^(nu+p) - 2^nu`. Attained: `x = 2^(nu+p) + z -
//! 2^nu`, `y = -(2^(nu+p) - 2^nu)` (`p` ones, a float) sum exactly to `z`.
//! For a range `[lo, hi]` the bounds grow with `nu` and `z`; the largest `nu`
//! over the range is the most trailing zeros of a multiple of a power of two
//! in `[lo, hi]`, reached at `z* = floor(hi / 2^nu) 2^nu`, and every other
//! `z` (with `nu(z) < nu`) has an upper bound `<= 2^(nu+p-1) + hi`, which is
//! below `2^(nu+p) + z* - 2^nu` because `hi - z* < 2^nu` and `p >= 2`.
//!
//! **Multiplication** (`z = x * y`). The exact product `P = |x y|` rounds to
//! `|z|` in `[zl, zh]`, so `pred(zl) <= P <= succ(zh)` (the neighbours bound
//! the rounding intervals; `succ(max)` is `2^(emax+1)`, the overflow
//! threshold rounded up). With `fmin <= |y| <= fmax` (zero or infinite `y`
//! cannot give a finite non-zero `z`): `pred(zl) / fmax <= |x| <= succ(zh) /
//! fmin`. **Division** `z = x / y`: `P = |x| / |y|`, so `pred(zl) fmin <= |x|
//! <= succ(zh) fmax` for the dividend and `fmin / succ(zh) <= |y| <= fmax /
//! pred(zl)` for the divisor. These are Bagnara et al.'s bounds up to using
//! the neighbours instead of the rounding midpoints (a factor `1 - 2^-p`).
//! Each real bound is computed in `f64` one ulp outward and rounded to the
//! format inward-safe (lower bounds up, upper bounds down, to the floats
//! that can still satisfy them).

use fpforge_search::ordinal::ord;

use super::FDom;
use crate::sort::HostFormat;

/// A binary floating-point format by its parameters; values are `f64`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Precision, hidden bit included.
    pub p: i32,
    /// Least normal exponent.
    pub emin: i32,
    /// Greatest exponent.
    pub emax: i32,
}

/// `2^k` as an `f64` (0 or infinity outside its range).
fn pow2(k: i32) -> f64 {
    if k > 1023 {
        f64::INFINITY
    } else if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else if k >= -1074 {
        f64::from_bits(1u64 << (k + 1074))
    } else {
        0.0
    }
}

/// `floor(log2(v))` of a positive finite `f64`.
fn log2_floor(v: f64) -> i32 {
    let b = v.to_bits();
    let e = ((b >> 52) & 0x7ff) as i32;
    if e == 0 {
        (63 - (b & ((1 << 52) - 1)).leading_zeros() as i32) - 1074
    } else {
        e - 1023
    }
}

/// The neighbour of a finite `f64` towards `-oo` (`down`) or `+oo`.
fn step(v: f64, down: bool) -> f64 {
    if v == 0.0 {
        return if down { -pow2(-1074) } else { pow2(-1074) };
    }
    let b = v.to_bits();
    let away = (v > 0.0) != down;
    f64::from_bits(if away { b + 1 } else { b - 1 })
}

impl Params {
    /// The parameters of a solver format.
    pub fn of(f: HostFormat) -> Params {
        match f {
            HostFormat::F32 => Params {
                p: 24,
                emin: -126,
                emax: 127,
            },
            HostFormat::F64 => Params {
                p: 53,
                emin: -1022,
                emax: 1023,
            },
        }
    }

    /// Largest finite value.
    pub fn fmax(self) -> f64 {
        (2.0 - pow2(1 - self.p)) * pow2(self.emax)
    }

    /// Least positive (subnormal) value.
    pub fn fmin(self) -> f64 {
        pow2(self.emin - self.p + 1)
    }

    /// The spacing of the format's values at a positive `v`.
    fn quantum(self, v: f64) -> f64 {
        pow2(log2_floor(v).max(self.emin) - self.p + 1)
    }

    /// The largest value `<= v` (`v >= 0`; at most `fmax`).
    pub fn floor(self, v: f64) -> f64 {
        if v >= self.fmax() {
            return self.fmax();
        }
        if v <= 0.0 {
            return 0.0;
        }
        let q = self.quantum(v);
        (v / q).floor() * q
    }

    /// The least value `>= v` (`v >= 0`; infinity above `fmax`).
    pub fn ceil(self, v: f64) -> f64 {
        if v > self.fmax() {
            return f64::INFINITY;
        }
        if v <= 0.0 {
            return 0.0;
        }
        let q = self.quantum(v);
        (v / q).ceil() * q
    }

    /// The predecessor of a positive value (0 below the least one).
    pub fn pred(self, v: f64) -> f64 {
        let e = log2_floor(v);
        if v == pow2(e) && e > self.emin {
            v - pow2(e - self.p)
        } else {
            v - self.quantum(v)
        }
    }

    /// The successor of a positive finite value (`2^(emax+1)` after `fmax`).
    pub fn succ(self, v: f64) -> f64 {
        v + self.quantum(v)
    }
}

/// Max-ULP bounds for an operand of `z = x + y` when `lo <= z <= hi`,
/// `0 < lo`: `(m, u)` with `-m <= x <= u` (see the module doc), `None`
/// when they exceed the format.
pub fn add_bounds(fp: Params, lo: f64, hi: f64) -> Option<(f64, f64)> {
    // nu: the most trailing zeros over [lo, hi]; z*: where it is reached.
    let (el, eh) = (log2_floor(lo), log2_floor(hi));
    let (nu, z_star) = if el < eh {
        (eh, pow2(eh))
    } else {
        // One binade: integers M * q with q the f64 spacing there.
        let q = pow2(eh.max(-1022) - 52);
        let (ml, mh) = ((lo / q) as u64, (hi / q) as u64);
        let b = 63 - ((ml - 1) ^ mh).leading_zeros() as i32;
        let z = ((mh >> b) << b) as f64 * q;
        (log2_floor(q) + b, z)
    };
    if nu + fp.p > fp.emax {
        return None;
    }
    let m = pow2(nu + fp.p) - pow2(nu);
    let u = pow2(nu + fp.p) + (z_star - pow2(nu));
    Some((m, u))
}

/// Which operand of which operation a magnitude bound is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundOperand {
    /// Either factor of `z = x * y`.
    Factor,
    /// `x` in `z = x / y`.
    Dividend,
    /// `y` in `z = x / y`.
    Divisor,
}

/// Bounds `(l, u)` on `|t|` for an operand `t` of `*` or `/` when
/// `zl <= |z| <= zh`, `0 < zl` (see the module doc); `u` may be infinite.
pub fn mul_div_bounds(fp: Params, which: BoundOperand, zl: f64, zh: f64) -> (f64, f64) {
    let (below, above) = (fp.pred(zl), fp.succ(zh));
    let (l, u) = match which {
        BoundOperand::Factor => (below / fp.fmax(), above / fp.fmin()),
        BoundOperand::Dividend => (below * fp.fmin(), above * fp.fmax()),
        BoundOperand::Divisor => (
            fp.fmin() / above,
            if below > 0.0 {
                fp.fmax() / below
            } else {
                f64::INFINITY
            },
        ),
    };
    // One f64 ulp outward covers the rounding of the quotient or product.
    let l = if l > 0.0 { step(l, true).max(0.0) } else { 0.0 };
    let u = if u.is_finite() { step(u, false) } else { u };
    (fp.ceil(l), if u.is_finite() { fp.floor(u) } else { u })
}

/// The max-ULP filter for an operand `t` of `z = t + o` (or `o + t`): the
/// hull of the bounds of `z`'s sign parts, as ordinals of format `f`.
pub fn add_filter(f: HostFormat, z: &FDom) -> Option<FDom> {
    let z = &z.meet(&FDom::full(f));
    if z.nan || z.range_empty() || z.has_zero() || z.has_inf(f) {
        return None;
    }
    let fp = Params::of(f);
    let mut out = FDom::empty();
    let (p, n) = (z.pos_part(), z.neg_part());
    if !p.range_empty() {
        let (m, u) = add_bounds(fp, p.lo_v(f), p.hi_v(f))?;
        out = out.join(&FDom::range(ord(f, -m), ord(f, u)));
    }
    if !n.range_empty() {
        let (m, u) = add_bounds(fp, -n.hi_v(f), -n.lo_v(f))?;
        out = out.join(&FDom::range(ord(f, -u), ord(f, m)));
    }
    Some(out)
}

/// The max-ULP filter for an operand `t` of `*` or `/`: `t`'s range cut to
/// `l <= |t| <= u` on each sign (as ordinals), `None` without a bound.
pub fn mul_div_filter(f: HostFormat, which: BoundOperand, z: &FDom, t: &FDom) -> Option<FDom> {
    let z = &z.meet(&FDom::full(f));
    if z.nan || z.range_empty() || z.has_zero() || z.has_inf(f) {
        return None;
    }
    let (p, n) = (z.pos_part(), z.neg_part());
    let mut zl = f64::INFINITY;
    let mut zh: f64 = 0.0;
    if !p.range_empty() {
        zl = zl.min(p.lo_v(f));
        zh = zh.max(p.hi_v(f));
    }
    if !n.range_empty() {
        zl = zl.min(-n.hi_v(f));
        zh = zh.max(-n.lo_v(f));
    }
    let (l, u) = mul_div_bounds(Params::of(f), which, zl, zh);
    if !l.is_finite() {
        return Some(FDom::empty());
    }
    let u = u.min(Params::of(f).fmax());
    let pos = FDom::range(ord(f, l), ord(f, u));
    let t = FDom { nan: false, ..*t };
    Some(t.meet(&pos).join(&t.meet(&pos.neg())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A tiny format: 4-bit significands, exponents -2..=3.
    const TINY: Params = Params {
        p: 4,
        emin: -2,
        emax: 3,
    };

    /// Every finite value of the tiny format, both signs and zeros.
    fn tiny_values() -> Vec<f64> {
        let mut v = vec![0.0];
        let mut x = TINY.fmin();
        while x <= TINY.fmax() {
            v.push(x);
            v.push(-x);
            x = TINY.succ(x);
        }
        v.sort_by(f64::total_cmp);
        v
    }

    /// Round-to-nearest-even of an `f64` into the tiny format.
    fn round_tiny(v: f64) -> f64 {
        if v == 0.0 || v.is_nan() {
            return v;
        }
        let a = v.abs();
        let q = TINY.quantum(a);
        let m = a / q;
        let r = m.floor();
        let r = if m - r > 0.5 || (m - r == 0.5 && r % 2.0 == 1.0) {
            r + 1.0
        } else {
            r
        };
        let a = r * q;
        // Rounding with unbounded exponent past fmax overflows.
        let a = if a > TINY.fmax() { f64::INFINITY } else { a };
        a.copysign(v)
    }

    #[test]
    fn tiny_format_helpers_agree() {
        let vs = tiny_values();
        let pos: Vec<f64> = vs.iter().copied().filter(|&v| v > 0.0).collect();
        for w in pos.windows(2) {
            assert_eq!(TINY.succ(w[0]), w[1]);
            assert_eq!(TINY.pred(w[1]), w[0]);
            let mid = (w[0] + w[1]) / 2.0;
            assert_eq!(TINY.floor(mid), w[0]);
            assert_eq!(TINY.ceil(mid), w[1]);
            assert_eq!(round_tiny(w[0]), w[0]);
        }
        assert_eq!(
            round_tiny(TINY.fmax() + TINY.quantum(TINY.fmax()) / 2.0),
            f64::INFINITY
        );
        let f = Params::of(HostFormat::F32);
        assert_eq!(f.fmax(), f64::from(f32::MAX));
        assert_eq!(f.fmin(), f64::from(f32::from_bits(1)));
        assert_eq!(Params::of(HostFormat::F64).fmin(), f64::from_bits(1));
        assert_eq!(Params::of(HostFormat::F64).fmax(), f64::MAX);
    }

    /// Every pair of tiny values: each operand lies within the bounds of
    /// every result range holding its result, and the addition bounds are
    /// reached for single results.
    #[test]
    fn bounds_hold_for_every_pair_of_a_tiny_format() {
        let vs = tiny_values();
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let finite_nonzero = |z: f64| z.is_finite() && z != 0.0;
        // Exact per-result extremes for addition, to check tightness.
        let mut reach: Vec<(f64, f64, f64)> = Vec::new();
        for &x in &vs {
            for &y in &vs {
                let s = round_tiny(x + y);
                let pr = round_tiny(x * y);
                let q = if y == 0.0 {
                    f64::NAN
                } else {
                    round_tiny(x / y)
                };
                // Random result ranges around each result (same sign).
                for _ in 0..3 {
                    let widen = |z: f64, rng: &mut ChaCha8Rng| {
                        let (mut lo, mut hi) = (z.abs(), z.abs());
                        for _ in 0..rng.gen_range(0..4) {
                            if TINY.pred(lo) > 0.0 {
                                lo = TINY.pred(lo);
                            }
                        }
                        for _ in 0..rng.gen_range(0..4) {
                            if TINY.succ(hi) <= TINY.fmax() {
                                hi = TINY.succ(hi);
                            }
                        }
                        (lo, hi)
                    };
                    if finite_nonzero(s) {
                        let (lo, hi) = widen(s, &mut rng);
                        if let Some((m, u)) = add_bounds(TINY, lo, hi) {
                            let (m, u) = if s > 0.0 { (m, u) } else { (u, m) };
                            for t in [x, y] {
                                assert!(
                                    -m <= t && t <= u,
                                    "{x} + {y} = {s} in [{lo}, {hi}]: {t} outside [-{m}, {u}]"
                                );
                            }
                        }
                    }
                    if finite_nonzero(pr) {
                        let (lo, hi) = widen(pr, &mut rng);
                        let (l, u) = mul_div_bounds(TINY, BoundOperand::Factor, lo, hi);
                        for t in [x, y] {
                            assert!(
                                l <= t.abs() && t.abs() <= u,
                                "{x} * {y} = {pr}: {t} outside [{l}, {u}]"
                            );
                        }
                    }
                    if finite_nonzero(q) {
                        let (lo, hi) = widen(q, &mut rng);
                        let (l, u) = mul_div_bounds(TINY, BoundOperand::Dividend, lo, hi);
                        assert!(
                            l <= x.abs() && x.abs() <= u,
                            "{x} / {y} = {q}: x outside [{l}, {u}]"
                        );
                        let (l, u) = mul_div_bounds(TINY, BoundOperand::Divisor, lo, hi);
                        assert!(
                            l <= y.abs() && y.abs() <= u,
                            "{x} / {y} = {q}: y outside [{l}, {u}]"
                        );
                    }
                }
                if s > 0.0 && s.is_finite() {
                    match reach.iter_mut().find(|r| r.0 == s) {
                        Some(r) => {
                            r.1 = r.1.min(x);
                            r.2 = r.2.max(x);
                        }
                        None => reach.push((s, x, x)),
                    }
                }
            }
        }
        // Tightness: where the bounds fit the format they are reached.
        let mut tight = 0;
        for (z, xmin, xmax) in reach {
            if let Some((m, u)) = add_bounds(TINY, z, z) {
                assert_eq!((xmin, xmax), (-m, u), "z = {z}");
                tight += 1;
            }
        }
        assert!(tight > 10);
    }

    /// Sampled f32 and f64 results: the addition bounds are reached, and the
    /// next float beyond each bound has no partner (the candidates for `y`
    /// are the floats around `z - x`).
    #[test]
    fn addition_bounds_are_tight_on_real_formats() {
        let mut rng = ChaCha8Rng::seed_from_u64(32);
        for i in 0..20000 {
            let z = match i % 4 {
                0 => f64::from(f32::from_bits(rng.gen_range(1..0x7f80_0000u32))),
                1 => f64::from(rng.gen_range(1..1000u32)) * 2f64.powi(rng.gen_range(-20..20)),
                2 => f64::from(f32::from_bits(rng.gen_range(1..0x0100_0000u32))),
                _ => f64::from_bits(rng.gen_range(1..0x7ff0_0000_0000_0000u64)),
            };
            let f = if i % 4 == 3 {
                HostFormat::F64
            } else {
                HostFormat::F32
            };
            let fp = Params::of(f);
            let Some((m, u)) = add_bounds(fp, z, z) else {
                continue;
            };
            let add = |x: f64, y: f64| match f {
                HostFormat::F32 => f64::from(x as f32 + y as f32),
                HostFormat::F64 => x + y,
            };
            let is_float = |v: f64| match f {
                HostFormat::F32 => f64::from(v as f32) == v,
                HostFormat::F64 => true,
            };
            assert!(is_float(u) && is_float(m) && is_float(z - u) && is_float(z + m));
            assert_eq!(add(u, z - u), z, "z = {z}");
            assert_eq!(add(-m, z + m), z, "z = {z}");
            for x in [fp.succ(u), -fp.succ(m)] {
                if x.abs() > fp.fmax() {
                    continue;
                }
                let c = z - x; // rounded in f64: the candidates are around it
                let mut y = fp.floor(c.abs()).copysign(c);
                for _ in 0..2 {
                    y = fp.pred(y.abs()).copysign(y);
                }
                for _ in 0..5 {
                    assert_ne!(add(x, y), z, "z = {z}: x = {x} has partner {y}");
                    y = fp.succ(y.abs()).copysign(y);
                }
            }
        }
    }

    #[test]
    fn filters_on_real_formats() {
        let f = HostFormat::F32;
        let single = |v: f64| FDom::range(ord(f, v), ord(f, v));
        // x + y = 1.5 (nu = -1): |x| <= 2^23 + ...; 2^24 is out.
        let b = add_filter(f, &single(1.5)).unwrap();
        let u = 2f64.powi(23) + 1.5 - 0.5;
        assert_eq!((b.lo, b.hi), (ord(f, -(2f64.powi(23) - 0.5)), ord(f, u)));
        let big = u as f32;
        assert_eq!(f64::from(big + (1.5 - u) as f32), 1.5);
        // x * y = 1e30 needs |x| >= 1e30 / f32::MAX.
        let z = single(1e30);
        let positive = FDom::range(0, fpforge_search::ordinal::max_ord(f));
        let t = mul_div_filter(f, BoundOperand::Factor, &z, &positive).unwrap();
        let l = from(f, t.lo);
        let r = 1e30 / f64::from(f32::MAX);
        assert!(l > r * 0.999 && l <= r * 1.001, "{l} vs {r}");
        fn from(f: HostFormat, o: i64) -> f64 {
            fpforge_search::ordinal::from_ord(f, o)
        }
    }
}
