//! Projection functions over float domains, for each rounding mode.
//!
//! *Direct* projections bound a result from its operands; *indirect* ones
//! bound an operand from the result and the other operand (FPSE, Botella et
//! al. 2006, §4). Rounding is monotone, so inside a sub-box where `z = x op y`
//! is monotone in each argument (fixed signs, no `0 * oo`, `oo - oo`, `0/0`,
//! `oo/oo`) the exact indirect bounds are the smallest and largest `x` whose
//! rounded image can still reach `[z.lo, z.hi]`. FPSE computes them in closed
//! form through the half-way points between neighbouring floats; we find the
//! same floats by bisection over ordinals, evaluating the rounded operation
//! itself at each probe, which makes the bounds exact by construction (at most
//! 64 probes per bound) in every rounding mode: rounding is monotone in all five.
//! Sub-boxes are split by sign and their hulls joined. The caller joins the
//! projections over the modes a rounding-mode operand may still take.
//!
//! Max-ULP filtering ([`super::max_ulp`]: Marre and Michel, 2010; Bagnara,
//! Carlier, Gori, Gotlieb, "Exploiting binary floating-point representations
//! for constraint propagation", INFORMS J. Computing 28(1), 2016) bounds
//! operands of `z = x + y`, `x * y` and `x / y` even when the other operand
//! is unbounded: for `+`, from the trailing zeros of the `z` in `z`'s range
//! that has the most (`-(2^(nu+p) - 2^nu) <= x <= 2^(nu+p) + z - 2^nu` for
//! `z > 0`, exact per value); for `*` and `/`, from `z`'s range and the
//! extreme magnitudes of the format (`|x| >= pred(min|z|) / MAX`, ...). It
//! replaces an older Sterbenz-derived bound for `+` (`|x|, |y| < 2^(e + p +
//! 1)` where `2^e <= max|z|`), which it implies (`nu <= e`, and the new
//! upper end is below `2^(nu+p+1)`); a test checks the inclusion. These bounds
//! are derived for round-to-nearest-even and applied only in that mode. A finite
//! non-NaN result also excludes infinite operands
//! (and a non-zero result zero factors), for the target and for the other
//! operand, so the box rules then apply with the other operand's extremes.

use fpforge_search::ordinal::{from_ord, max_ord, min_ord, ord};

use super::{max_ulp, FDom};
use crate::eval::Value;
use crate::ieee;
use crate::sort::{round_to, FpFormat, HostFormat, SmtRounding};
use crate::term::{ExtFn, EXT_ULP_BOUND};

/// The smallest `i` in `lo..=hi` with `p(i)`, for `p` monotone false..true.
pub fn first_true(lo: i64, hi: i64, p: impl Fn(i64) -> bool) -> Option<i64> {
    if lo > hi || !p(hi) {
        return None;
    }
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let m = a + ((i128::from(b) - i128::from(a)) / 2) as i64;
        if p(m) {
            b = m;
        } else {
            a = m + 1;
        }
    }
    Some(a)
}

/// The largest `i` in `lo..=hi` with `p(i)`, for `p` monotone true..false.
pub fn last_true(lo: i64, hi: i64, p: impl Fn(i64) -> bool) -> Option<i64> {
    if lo > hi || !p(lo) {
        return None;
    }
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let m = a + ((i128::from(b) - i128::from(a) + 1) / 2) as i64;
        if p(m) {
            a = m;
        } else {
            b = m - 1;
        }
    }
    Some(a)
}

/// A binary RNE operation of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `x + y`.
    Add,
    /// `x * y`.
    Mul,
    /// `x / y`.
    Div,
}

/// `x op y` rounded to nearest-even in format `f` (operands in `f`).
pub fn arith_rne(f: HostFormat, op: Arith, x: f64, y: f64) -> f64 {
    match f {
        HostFormat::F32 => {
            let (a, b) = (x as f32, y as f32);
            f64::from(match op {
                Arith::Add => a + b,
                Arith::Mul => a * b,
                Arith::Div => a / b,
            })
        }
        HostFormat::F64 => match op {
            Arith::Add => x + y,
            Arith::Mul => x * y,
            Arith::Div => x / y,
        },
    }
}

/// The bits of `x` (a value of format `f`) in that format.
fn bits_in(f: HostFormat, x: f64) -> u128 {
    match f {
        HostFormat::F32 => u128::from((x as f32).to_bits()),
        HostFormat::F64 => u128::from(x.to_bits()),
    }
}

/// The value of bits of format `f`, widened.
fn value_of(f: HostFormat, bits: u128) -> f64 {
    Value::from_float_bits(f.into(), bits)
        .as_f64()
        .unwrap_or(f64::NAN)
}

/// `x op y` rounded in mode `rm` in format `f` (operands in `f`).
pub fn arith_r(f: HostFormat, op: Arith, rm: SmtRounding, x: f64, y: f64) -> f64 {
    if rm == SmtRounding::Rne {
        return arith_rne(f, op, x, y);
    }
    let (g, a, b) = (FpFormat::from(f), bits_in(f, x), bits_in(f, y));
    value_of(
        f,
        match op {
            Arith::Add => ieee::add(g, rm, a, b),
            Arith::Mul => ieee::mul(g, rm, a, b),
            Arith::Div => ieee::div(g, rm, a, b),
        },
    )
}

fn sqrt_r(f: HostFormat, rm: SmtRounding, x: f64) -> f64 {
    match (f, rm) {
        (HostFormat::F32, SmtRounding::Rne) => f64::from((x as f32).sqrt()),
        (HostFormat::F64, SmtRounding::Rne) => x.sqrt(),
        _ => value_of(f, ieee::sqrt(FpFormat::from(f), rm, bits_in(f, x))),
    }
}

fn fma_r(f: HostFormat, rm: SmtRounding, a: f64, b: f64, c: f64) -> f64 {
    match (f, rm) {
        (HostFormat::F32, SmtRounding::Rne) => f64::from((a as f32).mul_add(b as f32, c as f32)),
        (HostFormat::F64, SmtRounding::Rne) => a.mul_add(b, c),
        _ => value_of(
            f,
            ieee::fma(
                FpFormat::from(f),
                rm,
                bits_in(f, a),
                bits_in(f, b),
                bits_in(f, c),
            ),
        ),
    }
}

/// `x` (of format `from`) rounded to format `to` in mode `rm`.
fn convert_r(from: HostFormat, to: HostFormat, rm: SmtRounding, x: f64) -> f64 {
    if rm == SmtRounding::Rne || from <= to {
        return round_to(to, x);
    }
    value_of(
        to,
        ieee::convert(
            FpFormat::from(from),
            FpFormat::from(to),
            rm,
            bits_in(from, x),
        ),
    )
}

/// The range of ordinals of the values `v` (none NaN) in format `f`.
fn hull_of(f: HostFormat, vs: &[f64]) -> FDom {
    let mut d = FDom::empty();
    for &v in vs {
        let o = ord(f, v);
        d = d.join(&FDom::range(o, o));
    }
    d
}

/// Widens bounds that are zeros to cover both zeros (sound for `*` and `/`,
/// where the sign of a zero result depends on interior points).
fn widen_zeros(mut d: FDom) -> FDom {
    if d.range_empty() {
        return d;
    }
    if d.lo == 0 || d.lo == -1 {
        d.lo = -1;
    }
    if d.hi == 0 || d.hi == -1 {
        d.hi = 0;
    }
    d
}

/// Direct projection of `z = x op y` in mode `rm` (FPSE §4.1): the rounded
/// corners bound the result; NaN if an operand may be NaN or an invalid pair may
/// occur.
pub fn arith_fwd(f: HostFormat, op: Arith, rm: SmtRounding, x: &FDom, y: &FDom) -> FDom {
    let mut nan = x.nan || y.nan;
    if x.range_empty() || y.range_empty() {
        return FDom {
            nan,
            ..FDom::empty()
        };
    }
    nan |= match op {
        Arith::Add => {
            (x.lo == min_ord(f) && y.hi == max_ord(f)) || (x.hi == max_ord(f) && y.lo == min_ord(f))
        }
        Arith::Mul => (x.has_zero() && y.has_inf(f)) || (x.has_inf(f) && y.has_zero()),
        Arith::Div => (x.has_zero() && y.has_zero()) || (x.has_inf(f) && y.has_inf(f)),
    };
    let full = FDom::full(f);
    let range = match op {
        // Addition is monotone in the total order (-0 < +0) in both arguments.
        Arith::Add => {
            let lo = arith_r(f, op, rm, x.lo_v(f), y.lo_v(f));
            let hi = arith_r(f, op, rm, x.hi_v(f), y.hi_v(f));
            if lo.is_nan() || hi.is_nan() {
                FDom::range(full.lo, full.hi)
            } else {
                FDom::range(ord(f, lo), ord(f, hi))
            }
        }
        // Real products/quotients on a box take their extremes at corners
        // (bilinear, or monotone per argument when 0 is not in y for `/`).
        Arith::Mul | Arith::Div => {
            if op == Arith::Div && y.has_zero() {
                FDom::range(full.lo, full.hi)
            } else {
                let c = [
                    arith_r(f, op, rm, x.lo_v(f), y.lo_v(f)),
                    arith_r(f, op, rm, x.lo_v(f), y.hi_v(f)),
                    arith_r(f, op, rm, x.hi_v(f), y.lo_v(f)),
                    arith_r(f, op, rm, x.hi_v(f), y.hi_v(f)),
                ];
                if c.iter().any(|v| v.is_nan()) {
                    FDom::range(full.lo, full.hi)
                } else {
                    widen_zeros(hull_of(f, &c))
                }
            }
        }
    };
    FDom { nan, ..range }
}

/// Direct projection of `fma(x, y, z) = round(x*y + z)`: the exact value is
/// bilinear in `(x, y)` and increasing in `z`, so its extremes over the box
/// are at the eight vertices, and rounding is monotone. Vertices that are
/// NaN (`0 * oo`, `oo - oo`) give up on the range.
pub fn fma_fwd(f: HostFormat, rm: SmtRounding, x: &FDom, y: &FDom, z: &FDom) -> FDom {
    let nan = x.nan
        || y.nan
        || z.nan
        || (x.has_zero() && y.has_inf(f))
        || (x.has_inf(f) && y.has_zero())
        || ((x.has_inf(f) || y.has_inf(f)) && z.has_inf(f));
    if x.range_empty() || y.range_empty() || z.range_empty() {
        return FDom {
            nan,
            ..FDom::empty()
        };
    }
    let fma = |a: f64, b: f64, c: f64| fma_r(f, rm, a, b, c);
    let mut vs = Vec::with_capacity(8);
    for a in [x.lo_v(f), x.hi_v(f)] {
        for b in [y.lo_v(f), y.hi_v(f)] {
            for c in [z.lo_v(f), z.hi_v(f)] {
                vs.push(fma(a, b, c));
            }
        }
    }
    let range = if vs.iter().any(|v| v.is_nan()) {
        let full = FDom::full(f);
        FDom::range(full.lo, full.hi)
    } else {
        widen_zeros(hull_of(f, &vs))
    };
    FDom { nan, ..range }
}

/// Direct projection of `fp.min` / `fp.max` (IEEE minNum/maxNum: a NaN
/// operand yields the other one). Both are monotone in each argument in the
/// total order; the result of `-0` vs `+0` is unspecified (either zero), so
/// zero bounds are widened when the operands may be zeros of different signs.
pub fn min_max_fwd(max: bool, x: &FDom, y: &FDom) -> FDom {
    let (xr, yr) = (FDom { nan: false, ..*x }, FDom { nan: false, ..*y });
    let holds = |d: &FDom, o: i64| !d.range_empty() && d.lo <= o && o <= d.hi;
    let mixed_zeros = (holds(&xr, -1) && holds(&yr, 0)) || (holds(&xr, 0) && holds(&yr, -1));
    let widen = |d: FDom| if mixed_zeros { widen_zeros(d) } else { d };
    let mut out = if xr.range_empty() || yr.range_empty() {
        FDom::empty()
    } else if max {
        widen(FDom::range(xr.lo.max(yr.lo), xr.hi.max(yr.hi)))
    } else {
        widen(FDom::range(xr.lo.min(yr.lo), xr.hi.min(yr.hi)))
    };
    if x.nan {
        out = out.join(&yr);
    }
    if y.nan {
        out = out.join(&xr);
    }
    FDom {
        nan: x.nan && y.nan,
        ..out
    }
}

/// Indirect projection of `z = fp.max(t, o)` (`fp.min` when `!max`) onto `t`: a
/// number `t` is at most the maximum (at least the minimum), and a maximum of `-0`
/// may come from `t = +0` (the unspecified case), so a zero bound admits both
/// zeros; a NaN `t` leaves the result to `o`. A NaN result needs NaN operands.
pub fn min_max_bwd(max: bool, z: &FDom, t: &FDom) -> FDom {
    if z.range_empty() {
        return FDom {
            nan: t.nan,
            ..FDom::empty()
        };
    }
    let bound = if max {
        FDom::range(i64::MIN, if z.hi == -1 { 0 } else { z.hi })
    } else {
        FDom::range(if z.lo == 0 { -1 } else { z.lo }, i64::MAX)
    };
    FDom {
        nan: t.nan,
        ..bound
    }
    .meet(t)
}

/// Within a sub-box where `z = op(t, o)` is monotone in `t` (increasing when
/// `inc_t`) and in `o` (increasing when `inc_o`) and never NaN, the hull of
/// the `t` whose images can reach `z`'s range.
fn narrow_box(
    f: HostFormat,
    t: FDom,
    o: FDom,
    z: &FDom,
    op: &dyn Fn(f64, f64) -> f64,
    inc_t: bool,
    inc_o: bool,
) -> FDom {
    if t.range_empty() || o.range_empty() || z.range_empty() {
        return FDom::empty();
    }
    let (o_for_min, o_for_max) = if inc_o {
        (o.lo_v(f), o.hi_v(f))
    } else {
        (o.hi_v(f), o.lo_v(f))
    };
    let zmin = |ti: i64| ord(f, op(from_ord(f, ti), o_for_min));
    let zmax = |ti: i64| ord(f, op(from_ord(f, ti), o_for_max));
    let (lo, hi) = if inc_t {
        (
            first_true(t.lo, t.hi, |ti| zmax(ti) >= z.lo),
            last_true(t.lo, t.hi, |ti| zmin(ti) <= z.hi),
        )
    } else {
        (
            first_true(t.lo, t.hi, |ti| zmin(ti) <= z.hi),
            last_true(t.lo, t.hi, |ti| zmax(ti) >= z.lo),
        )
    };
    match (lo, hi) {
        (Some(lo), Some(hi)) => FDom::range(lo, hi).meet(&FDom::range(t.lo, t.hi)),
        _ => FDom::empty(),
    }
}

/// Removes infinities at the ends of a range.
fn shave_inf(f: HostFormat, mut d: FDom) -> FDom {
    if d.range_empty() {
        return d;
    }
    if d.lo == min_ord(f) {
        d.lo += 1;
    }
    if d.hi == max_ord(f) {
        d.hi -= 1;
    }
    d.meet(&d)
}

/// Removes zeros at the ends of a range.
fn shave_zero(mut d: FDom) -> FDom {
    if d.range_empty() {
        return d;
    }
    if d.lo >= -1 {
        d.lo = d.lo.max(1);
    }
    if d.hi <= 0 {
        d.hi = d.hi.min(-2);
    }
    d.meet(&d)
}

/// Indirect projection of `z = t op o` (or `z = o op t` when `t_is_rhs`) in mode
/// `rm` onto the target `t`.
pub fn arith_bwd(
    f: HostFormat,
    op: Arith,
    rm: SmtRounding,
    z: &FDom,
    t: &FDom,
    o: &FDom,
    t_is_rhs: bool,
) -> FDom {
    let z = &z.meet(&FDom::full(f));
    // A NaN operand gives a NaN result.
    let nan = t.nan && z.nan;
    let mut t_range = FDom { nan: false, ..*t };
    let z_range = FDom { nan: false, ..*z };
    // Finite / non-zero results exclude some operand values (max-ULP step).
    let denominator = op == Arith::Div && t_is_rhs;
    if !z.nan && !z_range.has_inf(f) && !denominator {
        t_range = shave_inf(f, t_range);
    }
    if !z.nan && !z_range.has_zero() && (op == Arith::Mul || (op == Arith::Div && !t_is_rhs)) {
        t_range = shave_zero(t_range);
    }
    if rm != SmtRounding::Rne {
        // The max-ULP bounds are derived for round-to-nearest-even only.
    } else if op == Arith::Add {
        if let Some(b) = max_ulp::add_filter(f, z) {
            t_range = t_range.meet(&b);
        }
    } else {
        let which = match (op, t_is_rhs) {
            (Arith::Mul, _) => max_ulp::BoundOperand::Factor,
            (_, false) => max_ulp::BoundOperand::Dividend,
            _ => max_ulp::BoundOperand::Divisor,
        };
        if let Some(b) = max_ulp::mul_div_filter(f, which, z, &t_range) {
            t_range = b;
        }
    }
    // If z may be NaN and the op may produce NaN from t's range, z's range
    // says nothing about t.
    let nan_from_ranges = match op {
        Arith::Add => t_range.has_inf(f) || o.has_inf(f),
        Arith::Mul => (t_range.has_zero() && o.has_inf(f)) || (t_range.has_inf(f) && o.has_zero()),
        Arith::Div => (t_range.has_zero() && o.has_zero()) || (t_range.has_inf(f) && o.has_inf(f)),
    };
    if z.nan && (o.nan || nan_from_ranges) {
        return FDom { nan, ..t_range };
    }
    let mut o_range = FDom { nan: false, ..*o };
    // The other operand cannot be a value that forces a NaN, infinite or
    // zero result either; dropping it lets the box rules below apply.
    let (no_inf, no_zero) = (!z.nan && !z_range.has_inf(f), !z.nan && !z_range.has_zero());
    let (o_inf_gives_inf, o_zero_gives_zero) = match (op, t_is_rhs) {
        (Arith::Add, _) => (true, false),
        (Arith::Mul, _) => (true, true),
        // z = t / o: o = oo gives 0, o = 0 gives oo (or NaN).
        (Arith::Div, false) => (false, false),
        // z = o / t: o = oo gives oo, o = 0 gives 0 (or NaN).
        (Arith::Div, true) => (true, true),
    };
    if (o_inf_gives_inf && no_inf) || (op == Arith::Div && !t_is_rhs && no_zero) {
        o_range = shave_inf(f, o_range);
    }
    if (o_zero_gives_zero && no_zero) || (op == Arith::Div && !t_is_rhs && no_inf) {
        o_range = shave_zero(o_range);
    }
    let apply = |a: f64, b: f64| {
        if t_is_rhs {
            arith_r(f, op, rm, b, a)
        } else {
            arith_r(f, op, rm, a, b)
        }
    };
    let mut out = FDom::empty();
    match op {
        Arith::Add => {
            if o_range.has_inf(f) {
                out = t_range;
            } else {
                out = narrow_box(f, t_range, o_range, &z_range, &apply, true, true);
            }
        }
        Arith::Mul | Arith::Div => {
            for tp in [t_range.neg_part(), t_range.pos_part()] {
                for op_ in [o_range.neg_part(), o_range.pos_part()] {
                    if tp.range_empty() || op_.range_empty() {
                        continue;
                    }
                    let t_pos = tp.lo >= 0;
                    let o_pos = op_.lo >= 0;
                    let part = match (op, t_is_rhs) {
                        (Arith::Mul, _) => {
                            if (tp.has_inf(f) && op_.has_zero())
                                || (tp.has_zero() && op_.has_inf(f))
                            {
                                tp
                            } else {
                                narrow_box(f, tp, op_, &z_range, &apply, o_pos, t_pos)
                            }
                        }
                        // z = t / o
                        (Arith::Div, false) => {
                            if op_.has_zero() || (tp.has_inf(f) && op_.has_inf(f)) {
                                tp
                            } else {
                                narrow_box(f, tp, op_, &z_range, &apply, o_pos, !t_pos)
                            }
                        }
                        // z = o / t
                        _ => {
                            if tp.has_zero() || (tp.has_inf(f) && op_.has_inf(f)) {
                                tp
                            } else {
                                narrow_box(f, tp, op_, &z_range, &apply, !o_pos, t_pos)
                            }
                        }
                    };
                    out = out.join(&part);
                }
            }
        }
    }
    FDom { nan, ..out }
}

/// Direct projection of `z = x * x`: a square is never negative, so the
/// corner rule (which forgets that both factors are the same) is replaced by
/// the image of `|x|`, on which squaring is monotone.
pub fn square_fwd(f: HostFormat, rm: SmtRounding, x: &FDom) -> FDom {
    let a = x.pos_part().join(&x.neg_part().neg());
    if a.range_empty() {
        return FDom {
            nan: x.nan,
            ..FDom::empty()
        };
    }
    let lo = arith_r(f, Arith::Mul, rm, a.lo_v(f), a.lo_v(f));
    let hi = arith_r(f, Arith::Mul, rm, a.hi_v(f), a.hi_v(f));
    FDom {
        nan: x.nan,
        ..FDom::range(ord(f, lo), ord(f, hi))
    }
}

/// Indirect projection of `z = x * x` onto `x`: bisection on each sign part
/// (increasing on `x >= +0`, decreasing on `x <= -0`).
pub fn square_bwd(f: HostFormat, rm: SmtRounding, z: &FDom, x: &FDom) -> FDom {
    let sq = |o: i64| {
        let v = from_ord(f, o);
        ord(f, arith_r(f, Arith::Mul, rm, v, v))
    };
    let mut out = FDom::empty();
    if !z.range_empty() {
        let p = x.pos_part();
        if let (Some(lo), Some(hi)) = (
            first_true(p.lo, p.hi, |o| sq(o) >= z.lo),
            last_true(p.lo, p.hi, |o| sq(o) <= z.hi),
        ) {
            out = out.join(&FDom::range(lo, hi));
        }
        let n = x.neg_part();
        if let (Some(lo), Some(hi)) = (
            first_true(n.lo, n.hi, |o| sq(o) <= z.hi),
            last_true(n.lo, n.hi, |o| sq(o) >= z.lo),
        ) {
            out = out.join(&FDom::range(lo, hi));
        }
    }
    FDom {
        nan: x.nan && z.nan,
        ..out
    }
}

/// Direct projection of an extension function (host libm), widened by
/// [`EXT_ULP_BOUND`] ulps: monotone functions map the bounds; `sin`/`cos`
/// of finite ranges lie in `[-1, 1]`. `None` when no enclosure is known.
pub fn ext_fwd(g: ExtFn, f: HostFormat, x: &FDom) -> Option<FDom> {
    let apply = |v: f64| match f {
        HostFormat::F32 => f64::from(g.apply32(v as f32)),
        HostFormat::F64 => g.apply64(v),
    };
    let widen = |d: FDom| FDom {
        lo: (d.lo - EXT_ULP_BOUND).max(min_ord(f)),
        hi: (d.hi + EXT_ULP_BOUND).min(max_ord(f)),
        nan: d.nan,
    };
    if x.range_empty() {
        return Some(FDom {
            nan: x.nan,
            ..FDom::empty()
        });
    }
    match g {
        ExtFn::Exp | ExtFn::Atan => {
            let (lo, hi) = (apply(x.lo_v(f)), apply(x.hi_v(f)));
            Some(widen(FDom {
                nan: x.nan,
                ..FDom::range(ord(f, lo), ord(f, hi))
            }))
        }
        ExtFn::Log => {
            // NaN below -0; log(+-0) = -oo.
            let def = FDom::range(x.lo.max(-1), x.hi).meet(&FDom::range(x.lo, x.hi));
            let nan = x.nan || x.lo < -1;
            if def.range_empty() {
                return Some(FDom {
                    nan,
                    ..FDom::empty()
                });
            }
            let (lo, hi) = (apply(def.lo_v(f)), apply(def.hi_v(f)));
            Some(widen(FDom {
                nan,
                ..FDom::range(ord(f, lo), ord(f, hi))
            }))
        }
        ExtFn::Sin | ExtFn::Cos => Some(FDom {
            nan: x.nan || x.has_inf(f),
            ..FDom::range(ord(f, -1.0), ord(f, 1.0))
        }),
        ExtFn::Tan => None,
    }
}

/// A unary operation that is monotone nondecreasing in the total order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Monotone {
    /// `fp.sqrt` in a given mode (defined on `[-0, +oo]`, NaN below).
    Sqrt(SmtRounding),
    /// `fp.roundToIntegral` in a given mode.
    RoundIntegral(SmtRounding),
    /// Float-to-float conversion into the given format, in a given mode.
    Convert(HostFormat, SmtRounding),
}

impl Monotone {
    fn apply(self, f: HostFormat, x: f64) -> f64 {
        match self {
            Monotone::Sqrt(rm) => sqrt_r(f, rm, x),
            Monotone::RoundIntegral(rm) => round_to(f, crate::eval::round_integral(x, rm)),
            Monotone::Convert(to, rm) => convert_r(f, to, rm, x),
        }
    }

    /// The part of `x`'s range where the operation is not NaN.
    fn defined(self, x: &FDom) -> FDom {
        match self {
            Monotone::Sqrt(_) => FDom::range(x.lo.max(-1), x.hi).meet(&FDom::range(x.lo, x.hi)),
            _ => FDom { nan: false, ..*x },
        }
    }
}

/// Direct projection of `z = g(x)` for monotone `g` (`fz` is z's format).
pub fn monotone_fwd(g: Monotone, f: HostFormat, fz: HostFormat, x: &FDom) -> FDom {
    let def = g.defined(x);
    let nan = x.nan || (!x.range_empty() && def.count() < FDom { nan: false, ..*x }.count());
    if def.range_empty() {
        return FDom {
            nan,
            ..FDom::empty()
        };
    }
    let lo = g.apply(f, def.lo_v(f));
    let hi = g.apply(f, def.hi_v(f));
    FDom {
        nan,
        ..FDom::range(ord(fz, lo), ord(fz, hi))
    }
}

/// Indirect projection of `z = g(x)` onto `x`.
pub fn monotone_bwd(g: Monotone, f: HostFormat, fz: HostFormat, z: &FDom, x: &FDom) -> FDom {
    let nan = x.nan && z.nan;
    let def = g.defined(x);
    let zo = |xi: i64| ord(fz, g.apply(f, from_ord(f, xi)));
    let mut out = match (
        first_true(def.lo, def.hi, |xi| zo(xi) >= z.lo),
        last_true(def.lo, def.hi, |xi| zo(xi) <= z.hi),
    ) {
        (Some(lo), Some(hi)) if !z.range_empty() => FDom::range(lo, hi),
        _ => FDom::empty(),
    };
    if z.nan && matches!(g, Monotone::Sqrt(_)) {
        // Negative inputs give NaN.
        out = out.join(&FDom::range(x.lo, x.hi.min(-2)).meet(&FDom::range(x.lo, x.hi)));
    }
    FDom { nan, ..out }
}

/// The largest ordinal of a value `< v`-bound (value order: `-0 == +0`).
fn below(o: i64) -> i64 {
    if o == 0 || o == -1 {
        -2
    } else {
        o - 1
    }
}

/// The smallest ordinal of a value `> v`-bound.
fn above(o: i64) -> i64 {
    if o == 0 || o == -1 {
        1
    } else {
        o + 1
    }
}

/// A float comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `fp.lt`
    Lt,
    /// `fp.leq`
    Leq,
    /// `fp.eq`
    Eq,
}

/// Which truth values `x cmp y` can take: (can be false, can be true).
pub fn cmp_fwd(f: HostFormat, c: Cmp, x: &FDom, y: &FDom) -> (bool, bool) {
    let ranges = !x.range_empty() && !y.range_empty();
    let (xl, xh, yl, yh) = (x.lo_v(f), x.hi_v(f), y.lo_v(f), y.hi_v(f));
    let can_true = ranges
        && match c {
            Cmp::Lt => xl < yh,
            Cmp::Leq => xl <= yh,
            Cmp::Eq => xl <= yh && yl <= xh,
        };
    let can_false = x.nan
        || y.nan
        || (ranges
            && match c {
                Cmp::Lt => xh >= yl,
                Cmp::Leq => xh > yl,
                Cmp::Eq => !(x.lo == x.hi && y.lo == y.hi && xl == yl),
            });
    (can_false, can_true)
}

/// Narrows `(x, y)` given that `x cmp y` is `truth`.
pub fn cmp_bwd(c: Cmp, truth: bool, x: &FDom, y: &FDom) -> (FDom, FDom) {
    if !truth {
        return match c {
            // not (x < y) with no NaN: y <= x.
            Cmp::Lt if !x.nan && !y.nan => {
                let (ny, nx) = cmp_bwd(Cmp::Leq, true, y, x);
                (nx, ny)
            }
            Cmp::Leq if !x.nan && !y.nan => {
                let (ny, nx) = cmp_bwd(Cmp::Lt, true, y, x);
                (nx, ny)
            }
            _ => (*x, *y),
        };
    }
    let (mut x, mut y) = (FDom { nan: false, ..*x }, FDom { nan: false, ..*y });
    if x.range_empty() || y.range_empty() {
        return (FDom::empty(), FDom::empty());
    }
    match c {
        Cmp::Lt => {
            x.hi = x.hi.min(below(y.hi));
            y.lo = y.lo.max(above(x.lo));
        }
        Cmp::Leq => {
            x.hi = x.hi.min(if y.hi == -1 { 0 } else { y.hi });
            y.lo = y.lo.max(if x.lo == 0 { -1 } else { x.lo });
        }
        Cmp::Eq => {
            let widen = |d: FDom| {
                FDom::range(
                    if d.lo == 0 { -1 } else { d.lo },
                    if d.hi == -1 { 0 } else { d.hi },
                )
            };
            let (wx, wy) = (widen(x), widen(y));
            x = x.meet(&wy);
            y = y.meet(&wx);
        }
    }
    (x.meet(&x), y.meet(&y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const F: HostFormat = HostFormat::F32;

    /// A small random f32 domain around interesting magnitudes.
    fn random_dom(rng: &mut ChaCha8Rng) -> FDom {
        let centre: f32 = match rng.gen_range(0..4) {
            0 => rng.gen_range(-4.0..4.0),
            1 => rng.gen_range(-1e-38..1e-38),
            2 => 0.0,
            _ => rng.gen_range(-1e30..1e30),
        };
        let c = ord(F, f64::from(centre));
        let w = rng.gen_range(0..40);
        FDom {
            lo: (c - rng.gen_range(0..=w)).max(min_ord(F)),
            hi: (c + rng.gen_range(0..=w)).min(max_ord(F)),
            nan: rng.gen_bool(0.2),
        }
    }

    fn values(d: &FDom) -> Vec<f64> {
        let mut v: Vec<f64> = (d.lo..=d.hi).map(|o| from_ord(F, o)).collect();
        if d.nan {
            v.push(f64::NAN);
        }
        v
    }

    fn contains(d: &FDom, v: f64) -> bool {
        if v.is_nan() {
            d.nan
        } else {
            let o = ord(F, v);
            d.lo <= o && o <= d.hi
        }
    }

    /// Brute force over every pair of small sampled f32 domains: the direct
    /// projection contains every result; the indirect projections keep every
    /// operand value that has a support, and are exact (tight) on ranges.
    #[test]
    fn arithmetic_projections_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for round in 0..800 {
            let op = [Arith::Add, Arith::Mul, Arith::Div][rng.gen_range(0..3)];
            let rm = SmtRounding::ALL[round % 5];
            let (x, y) = (random_dom(&mut rng), random_dom(&mut rng));
            let z = arith_fwd(F, op, rm, &x, &y);
            let mut results = Vec::new();
            for &a in &values(&x) {
                for &b in &values(&y) {
                    let r = arith_r(F, op, rm, a, b);
                    assert!(contains(&z, r), "{op:?} {rm:?} {a} {b} = {r} not in {z:?}");
                    results.push((a, b, r));
                }
            }
            // Pick a result sub-range and check the indirect projections.
            let zt = if results.is_empty() {
                z
            } else {
                let (_, _, r) = results[rng.gen_range(0..results.len())];
                if r.is_nan() {
                    FDom::nan_only()
                } else {
                    let o = ord(F, r);
                    FDom {
                        lo: o - rng.gen_range(0..3),
                        hi: o + rng.gen_range(0..3),
                        nan: rng.gen_bool(0.3),
                    }
                }
            };
            let nx = arith_bwd(F, op, rm, &zt, &x, &y, false);
            let ny = arith_bwd(F, op, rm, &zt, &y, &x, true);
            let mut hull_x = FDom::empty();
            let mut hull_y = FDom::empty();
            for &(a, b, r) in &results {
                if contains(&zt, r) {
                    assert!(
                        contains(&nx, a),
                        "{op:?} {rm:?}: x={a} lost, y={b}, z={r}, {x:?} {y:?} {zt:?} -> {nx:?}"
                    );
                    assert!(
                        contains(&ny, b),
                        "{op:?} {rm:?}: y={b} lost, x={a}, z={r}, {x:?} {y:?} {zt:?} -> {ny:?}"
                    );
                    if !a.is_nan() {
                        hull_x = hull_x.join(&FDom::range(ord(F, a), ord(F, a)));
                    }
                    if !b.is_nan() {
                        hull_y = hull_y.join(&FDom::range(ord(F, b), ord(F, b)));
                    }
                }
            }
            // Exactness: with the other operand fixed, the preimage of a range
            // under a monotone rounded operation is a range, and the projection
            // must be exactly its hull.
            if !y.range_empty() && !y.has_zero() && !y.has_inf(F) && !zt.nan {
                let y1 = FDom::range(y.lo, y.lo);
                let b = y.lo_v(F);
                let n1 = arith_bwd(F, op, rm, &zt, &x, &y1, false);
                let mut hull = FDom::empty();
                for &a in &values(&x) {
                    let r = arith_r(F, op, rm, a, b);
                    if !a.is_nan() && contains(&zt, r) {
                        hull = hull.join(&FDom::range(ord(F, a), ord(F, a)));
                    }
                }
                let x_plain = !x.has_inf(F) && (op == Arith::Add || !x.has_zero());
                if x_plain {
                    if hull.range_empty() {
                        assert!(
                            n1.range_empty(),
                            "{op:?} {rm:?} not exact: {x:?} y={b} {zt:?} -> {n1:?}"
                        );
                    } else {
                        assert_eq!(
                            (n1.lo, n1.hi),
                            (hull.lo, hull.hi),
                            "{op:?} {rm:?} not exact: {x:?} y={b} {zt:?}"
                        );
                    }
                }
            }
        }
    }

    /// The Sterbenz-derived bound this module used before max-ULP filtering:
    /// `|x|, |y| < 2^(e + p + 1)` where `2^e <= max|z|`.
    fn add_magnitude_bound(f: HostFormat, z: &FDom) -> Option<FDom> {
        if z.nan || z.range_empty() || z.has_zero() || z.has_inf(f) {
            return None;
        }
        let m = z.lo_v(f).abs().max(z.hi_v(f).abs());
        let e = m.log2().floor() as i32;
        let p = f.significand_bits() as i32;
        let alpha = 2f64.powi(e + p + 1);
        let a = round_to(f, alpha);
        if !a.is_finite() {
            return None;
        }
        Some(FDom::range(ord(f, -a), ord(f, a)))
    }

    #[test]
    fn max_ulp_filter_implies_the_sterbenz_bound() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for i in 0..5000 {
            let z = if i % 2 == 0 {
                random_dom(&mut rng)
            } else {
                let a = rng.gen_range(min_ord(F)..=max_ord(F));
                let b = rng.gen_range(min_ord(F)..=max_ord(F));
                FDom::range(a.min(b), a.max(b))
            };
            if let Some(old) = add_magnitude_bound(F, &z) {
                let new = max_ulp::add_filter(F, &z).expect("a bound");
                assert!(
                    old.lo <= new.lo && new.hi <= old.hi,
                    "{z:?}: {new:?} vs {old:?}"
                );
            }
        }
    }

    #[test]
    fn max_ulp_bound_is_sound_for_exact_cancellation() {
        // x + y = 1 with y unbounded: x can be as large as 2^24 (f32) but not 2^26.
        let z = FDom::range(ord(F, 1.0), ord(F, 1.0));
        let t = arith_bwd(
            F,
            Arith::Add,
            SmtRounding::Rne,
            &z,
            &FDom::full(F),
            &FDom::full(F),
            false,
        );
        let big = f64::from(2f32.powi(24)) - 1.0;
        assert_eq!(arith_rne(F, Arith::Add, big, -(big - 1.0)), 1.0);
        assert!(contains(&t, big) && contains(&t, -(big - 1.0)));
        assert!(!contains(&t, f64::from(2f32.powi(26))));
        assert!(!t.nan);
    }

    #[test]
    fn monotone_projections_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for round in 0..600 {
            let rm = SmtRounding::ALL[round % 5];
            let (g, to) = [
                (Monotone::Sqrt(rm), F),
                (Monotone::RoundIntegral(rm), F),
                (Monotone::Convert(F, rm), F),
            ][rng.gen_range(0..3)];
            let x = random_dom(&mut rng);
            let z = monotone_fwd(g, F, to, &x);
            for &a in &values(&x) {
                let r = if a.is_nan() { f64::NAN } else { g.apply(F, a) };
                assert!(contains(&z, r), "{g:?}({a}) = {r} not in {z:?}");
                let nx = monotone_bwd(g, F, to, &z, &x);
                assert!(contains(&nx, a), "{g:?} lost {a}");
            }
        }
        // Narrowing binary64 -> binary32 in each mode: the preimage of a few floats.
        let d = HostFormat::F64;
        for round in 0..200 {
            let rm = SmtRounding::ALL[round % 5];
            let g = Monotone::Convert(F, rm);
            let c = ord(d, rng.gen_range(-4.0..4.0));
            let x = FDom::range(c - 3, c + (1 << 30));
            let z = monotone_fwd(g, d, F, &x);
            let zt = FDom::range(z.lo, z.lo + 1);
            let nx = monotone_bwd(g, d, F, &zt, &x);
            for o in (x.lo..x.hi).step_by(1 << 22).chain([x.lo, x.hi]) {
                let r = ord(F, g.apply(d, from_ord(d, o)));
                assert!(z.lo <= r && r <= z.hi, "{rm:?}");
                if zt.lo <= r && r <= zt.hi {
                    assert!(nx.lo <= o && o <= nx.hi, "{rm:?} lost {o}");
                }
            }
        }
    }

    #[test]
    fn square_projections_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for round in 0..500 {
            let rm = SmtRounding::ALL[round % 5];
            let x = random_dom(&mut rng);
            let z = square_fwd(F, rm, &x);
            let vals = values(&x);
            let pick = vals[rng.gen_range(0..vals.len())];
            let r0 = arith_r(F, Arith::Mul, rm, pick, pick);
            let zt = if r0.is_nan() {
                FDom::nan_only()
            } else {
                FDom::range(ord(F, r0) - 1, ord(F, r0) + 1)
            };
            let nx = square_bwd(F, rm, &zt, &x);
            for &a in &vals {
                let r = arith_r(F, Arith::Mul, rm, a, a);
                assert!(contains(&z, r), "{a}^2 = {r} not in {z:?}");
                if contains(&zt, r) {
                    assert!(contains(&nx, a), "lost {a} for {zt:?}");
                }
            }
        }
    }

    #[test]
    fn extension_enclosures_contain_host_results() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        for _ in 0..300 {
            let g =
                [ExtFn::Exp, ExtFn::Log, ExtFn::Atan, ExtFn::Sin, ExtFn::Cos][rng.gen_range(0..5)];
            let x = random_dom(&mut rng);
            let z = ext_fwd(g, F, &x).expect("an enclosure");
            for &a in &values(&x) {
                let r = f64::from(g.apply32(a as f32));
                assert!(contains(&z, r), "{g:?}({a}) = {r} not in {z:?}");
            }
        }
    }

    #[test]
    fn fma_min_max_enclosures_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        for round in 0..250 {
            let rm = SmtRounding::ALL[round % 5];
            let (x, y, z) = (
                random_dom(&mut rng),
                random_dom(&mut rng),
                random_dom(&mut rng),
            );
            let (x, y) = (
                FDom {
                    hi: x.lo + (x.hi - x.lo).min(6),
                    ..x
                },
                FDom {
                    hi: y.lo + (y.hi - y.lo).min(6),
                    ..y
                },
            );
            let e = fma_fwd(F, rm, &x, &y, &z);
            let (mn, mx) = (min_max_fwd(false, &x, &y), min_max_fwd(true, &x, &y));
            for &a in &values(&x) {
                for &b in &values(&y) {
                    for &c in &values(&z) {
                        let r = fma_r(F, rm, a, b, c);
                        assert!(contains(&e, r), "fma({a}, {b}, {c}) = {r} not in {e:?}");
                    }
                    for (m, d) in [(false, &mn), (true, &mx)] {
                        let op = if m {
                            crate::term::Op::FpMax
                        } else {
                            crate::term::Op::FpMin
                        };
                        let args = [
                            crate::eval::Value::F32(a as f32),
                            crate::eval::Value::F32(b as f32),
                        ];
                        // An unspecified result (zeros of two signs) may be either operand.
                        let results = match crate::eval::apply(op, &args) {
                            Some(v) => vec![v.as_f64().unwrap()],
                            None => vec![a, b],
                        };
                        for v in results {
                            assert!(contains(d, v), "min/max {m} {a} {b} = {v} not in {d:?}");
                            let zt = if v.is_nan() {
                                FDom::nan_only()
                            } else {
                                FDom::range(ord(F, v), ord(F, v))
                            };
                            assert!(contains(&min_max_bwd(m, &zt, &x), a), "{m} lost x={a}");
                            assert!(contains(&min_max_bwd(m, &zt, &y), b), "{m} lost y={b}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn comparisons_narrow_by_value_order() {
        let x = FDom::range(ord(F, -5.0), ord(F, 5.0));
        let y = FDom::range(ord(F, 0.0), ord(F, 0.0));
        let (nx, _) = cmp_bwd(Cmp::Lt, true, &x, &y);
        assert_eq!(nx.hi, ord(F, -f64::from(f32::from_bits(1))));
        let (nx, _) = cmp_bwd(Cmp::Leq, true, &x, &y);
        assert_eq!(nx.hi, 0);
        let (nx, ny) = cmp_bwd(Cmp::Eq, true, &x, &y);
        assert_eq!((nx.lo, nx.hi), (-1, 0));
        assert_eq!((ny.lo, ny.hi), (0, 0));
        assert_eq!(cmp_fwd(F, Cmp::Lt, &y, &FDom::range(-1, -1)), (true, false));
    }
}
