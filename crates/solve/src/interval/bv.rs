//! Projections of bit-vector operators over [`BDom`], the reduced product of
//! an unsigned range and known bits (with the signed view derived from both).
//!
//! Each operator combines a range rule and a known-bits rule ([`Tnum`]);
//! [`BDom::new`] intersects and reduces them, so the range learns from the
//! bits and the bits from the range after every projection. *Direct*
//! projections ([`fwd`]) bound the result; *indirect* ones ([`bwd`]) bound
//! one argument from the result and the others. Every projection only
//! removes values that cannot take part in a solution; the tests check this
//! by brute force over all values of small widths.
//!
//! Widths: `w` is the width of the (first) argument; for `concat` the
//! second argument's width is passed as `wy`.

use super::known::{back, Tnum};
use super::BDom;
use crate::term::{mask, Op};

/// All ones up to the highest set bit of `v`.
fn fill_down(v: u64) -> u64 {
    if v == 0 {
        0
    } else {
        u64::MAX >> v.leading_zeros()
    }
}

/// The `w`-bit values of the integers `lo..=hi` reduced modulo `2^w`: a
/// range when they lie in one window `[k 2^w, (k+1) 2^w)`, else everything.
fn modular(lo: i128, hi: i128, w: u32) -> BDom {
    let win = |v: i128| v >> w;
    if win(lo) == win(hi) {
        let m = i128::from(mask(w));
        BDom::range((lo & m) as u64, (hi & m) as u64)
    } else {
        BDom::full(w)
    }
}

/// The shift amounts of `y` to consider: its members below `w`, and whether
/// it holds an amount `>= w` (all of which act alike).
fn shift_amounts(y: &BDom, w: u32) -> (Vec<u32>, bool) {
    let mut ks = Vec::new();
    let mut k = y.lo;
    while k < u64::from(w) && k <= y.hi {
        match y.bits.next_ge(k) {
            Some(v) if v < u64::from(w) && v <= y.hi => {
                ks.push(v as u32);
                k = v + 1;
            }
            _ => break,
        }
    }
    let big = y.hi >= u64::from(w) && y.bits.next_ge(u64::from(w)).is_some_and(|v| v <= y.hi);
    (ks, big)
}

/// `x` shifted by the constant `k < w`.
fn shift_by(op: Op, x: &BDom, k: u32, w: u32) -> BDom {
    let m = mask(w);
    match op {
        Op::BvShl => {
            let r = if x.hi <= m >> k {
                BDom::range(x.lo << k, x.hi << k)
            } else {
                BDom::full(w)
            };
            r.meet(&BDom::of_bits(x.bits.shl(k, w), w))
        }
        Op::BvLshr => BDom::range(x.lo >> k, x.hi >> k).meet(&BDom::of_bits(x.bits.lshr(k), w)),
        _ => {
            let (lo, hi) = x.signed(w);
            BDom::full(w)
                .meet_signed((lo >> k, hi >> k), w)
                .meet(&BDom::of_bits(x.bits.ashr(k, w), w))
        }
    }
}

/// `x` shifted by an amount `>= w`.
fn shift_out(op: Op, x: &BDom, w: u32) -> BDom {
    if op != Op::BvAshr {
        return BDom::single(0);
    }
    let (lo, hi) = x.signed(w);
    let mut r = BDom::EMPTY;
    if lo < 0 {
        r = r.join(&BDom::single(mask(w)));
    }
    if hi >= 0 {
        r = r.join(&BDom::single(0));
    }
    r
}

/// Direct projection: a domain holding `op(args)` for all argument values.
/// `w` is the width of the first argument, `wy` that of the second (used by
/// `concat`); `None` when the operator has no rule here.
pub fn fwd(op: Op, w: u32, wy: u32, a: &[BDom]) -> Option<BDom> {
    if a.iter().any(BDom::is_empty) {
        return Some(BDom::EMPTY);
    }
    let m = mask(w);
    let x = a[0];
    let y = a.get(1).copied().unwrap_or(x);
    let bits = |t: Tnum| BDom::of_bits(t, w);
    let (xl, xh, yl, yh) = (
        i128::from(x.lo),
        i128::from(x.hi),
        i128::from(y.lo),
        i128::from(y.hi),
    );
    Some(match op {
        // !x = m - x, decreasing.
        Op::BvNot => BDom::range(m - x.hi, m - x.lo).meet(&bits(x.bits.not(w))),
        Op::BvNeg => {
            let r = if x.lo > 0 {
                modular(-xh, -xl, w)
            } else {
                BDom::full(w)
            };
            r.meet(&bits(Tnum::constant(0).sub(x.bits, w)))
        }
        // x & y <= min(x, y); x | y >= max(x, y) and stays below the next
        // power of two; so does x ^ y.
        Op::BvAnd => BDom::range(0, x.hi.min(y.hi)).meet(&bits(x.bits.and(y.bits))),
        Op::BvOr => {
            BDom::range(x.lo.max(y.lo), fill_down(x.hi.max(y.hi))).meet(&bits(x.bits.or(y.bits)))
        }
        Op::BvXor => BDom::range(0, fill_down(x.hi.max(y.hi))).meet(&bits(x.bits.xor(y.bits))),
        Op::BvAdd => modular(xl + yl, xh + yh, w).meet(&bits(x.bits.add(y.bits, w))),
        Op::BvSub => modular(xl - yh, xh - yl, w).meet(&bits(x.bits.sub(y.bits, w))),
        Op::BvMul => {
            let hi = u128::from(x.hi) * u128::from(y.hi);
            let r = if hi <= u128::from(m) {
                BDom::range(x.lo * y.lo, hi as u64)
            } else {
                BDom::full(w)
            };
            r.meet(&bits(x.bits.mul(y.bits, w)))
        }
        // Division by zero gives all ones; otherwise x / y is increasing in
        // x and decreasing in y.
        Op::BvUdiv if y.lo > 0 => BDom::range(x.lo / y.hi, x.hi / y.lo),
        Op::BvUrem => match y.value() {
            Some(c) if c > 0 && x.lo / c == x.hi / c => BDom::range(x.lo % c, x.hi % c),
            Some(c) if c > 0 => BDom::range(0, (c - 1).min(x.hi)),
            _ => return None,
        },
        Op::BvShl | Op::BvLshr | Op::BvAshr => {
            let (ks, big) = shift_amounts(&y, w);
            let mut r = if big {
                shift_out(op, &x, w)
            } else {
                BDom::EMPTY
            };
            for k in ks {
                r = r.join(&shift_by(op, &x, k, w));
            }
            r
        }
        // Bits hi..lo of values that agree above bit hi are monotone.
        Op::Extract(hi, lo) => {
            let zw = hi - lo + 1;
            let above = |v: u64| if hi >= 63 { 0 } else { v >> (hi + 1) };
            let r = if above(x.lo) == above(x.hi) {
                BDom::range((x.lo >> lo) & mask(zw), (x.hi >> lo) & mask(zw))
            } else {
                BDom::full(zw)
            };
            r.meet(&BDom::of_bits(x.bits.extract(hi, lo), zw))
        }
        Op::Concat => {
            let t = Tnum {
                val: x.bits.val << wy,
                unk: x.bits.unk << wy,
            }
            .or(y.bits.trunc(wy));
            BDom::new((x.lo << wy) | y.lo, (x.hi << wy) | y.hi, t)
        }
        Op::ZeroExtend(_) => x,
        Op::SignExtend(n) => BDom::full(w + n)
            .meet_signed(x.signed(w), w + n)
            .meet(&BDom::of_bits(x.bits.sign_extend(w, n), w + n)),
        _ => return None,
    })
}

/// Indirect projection: a domain holding every value of argument `i` that,
/// with some values of the other arguments in `a`, gives a result in `z`
/// (`None` when the operator has no rule for that argument). Widths as in
/// [`fwd`].
pub fn bwd(op: Op, w: u32, wy: u32, z: &BDom, a: &[BDom], i: usize) -> Option<BDom> {
    if z.is_empty() || a.iter().any(BDom::is_empty) {
        return Some(BDom::EMPTY);
    }
    let m = mask(w);
    let x = a[i];
    let o = a.get(1 - i.min(1)).copied().unwrap_or(x);
    let bits = |t: Tnum| BDom::of_bits(t, w);
    Some(match op {
        Op::BvNot | Op::BvNeg => fwd(op, w, wy, &[*z])?,
        // z = x & y: x >= z; z = x | y: x <= z.
        Op::BvAnd => BDom::range(z.lo, m).meet(&bits(back::and(z.bits, o.bits))),
        Op::BvOr => BDom::range(0, z.hi).meet(&bits(back::or(z.bits, o.bits))),
        Op::BvXor => bits(z.bits.xor(o.bits)),
        // x = z - y (and y = z - x), exactly.
        Op::BvAdd => fwd(Op::BvSub, w, w, &[*z, o])?,
        // z = x - y: x = z + y, y = x - z.
        Op::BvSub if i == 0 => fwd(Op::BvAdd, w, w, &[*z, o])?,
        Op::BvSub => fwd(Op::BvSub, w, w, &[o, *z])?,
        Op::BvMul => {
            let mut r = BDom::full(w);
            if let Some(c) = o.value() {
                if let Some(t) = back::mul_const(z.bits, c, w) {
                    r = r.meet(&bits(t));
                }
            }
            // Without overflow, x = z / y lies in [z.lo / y.hi, z.hi / y.lo].
            if u128::from(x.hi) * u128::from(o.hi) <= u128::from(m) && o.lo > 0 {
                r = r.meet(&BDom::range(z.lo.div_ceil(o.hi), z.hi / o.lo));
            }
            r
        }
        // Shifts: try every amount `k` of `y` (those `>= w` act alike); an
        // amount is feasible when `x` shifted by it meets `z`. `x` is the join
        // of its preimages under the feasible amounts, `y` the range of them.
        Op::BvShl | Op::BvLshr | Op::BvAshr => {
            let (x, y) = (a[0], a[1]);
            let (ks, big) = shift_amounts(&y, w);
            let mut xs = BDom::EMPTY;
            let mut kmin = None;
            let mut kmax = None;
            for k in ks {
                if shift_by(op, &x, k, w).meet(z).is_empty() {
                    continue;
                }
                kmin.get_or_insert(u64::from(k));
                kmax = Some(u64::from(k));
                let pre = match op {
                    Op::BvShl => bits(back::shl(z.bits, k, w)),
                    Op::BvLshr => {
                        let hi = u128::from(z.hi) << k | u128::from(mask(k));
                        BDom::range(z.lo << k, hi.min(u128::from(m)) as u64)
                            .meet(&bits(back::shr(z.bits, k, w)))
                    }
                    _ => bits(back::shr(z.bits, k, w)),
                };
                xs = xs.join(&x.meet(&pre));
            }
            if big && !shift_out(op, &x, w).meet(z).is_empty() {
                kmin.get_or_insert(u64::from(w));
                kmax = Some(y.hi);
                xs = x;
            }
            match (i, kmin, kmax) {
                (_, None, _) | (_, _, None) => BDom::EMPTY,
                (0, _, _) => xs,
                (_, Some(l), Some(h)) => BDom::range(l, h),
            }
        }
        Op::Extract(hi, lo) => bits(back::extract(z.bits, hi, lo)),
        Op::Concat if i == 0 => BDom::new(
            z.lo >> wy,
            z.hi >> wy,
            Tnum {
                val: z.bits.val >> wy,
                unk: z.bits.unk >> wy,
            },
        ),
        Op::Concat => {
            let t = Tnum {
                val: z.bits.val & mask(wy),
                unk: z.bits.unk | !mask(wy),
            };
            // With the high part a single value c, y = z - (c << wy).
            let r = match a[0].value() {
                Some(c) => {
                    let base = c << wy;
                    let (lo, hi) = (z.lo.max(base), z.hi.min(base | mask(wy)));
                    if lo > hi {
                        BDom::EMPTY
                    } else {
                        BDom::range(lo - base, hi - base)
                    }
                }
                None => BDom::full(wy),
            };
            r.meet(&BDom::of_bits(t, wy))
        }
        Op::ZeroExtend(_) => z.meet(&BDom::full(w)),
        Op::SignExtend(n) => BDom::full(w)
            .meet_signed(z.signed(w + n), w)
            .meet(&bits(back::sign_extend(z.bits, w, n))),
        _ => return None,
    })
}

/// Whether `x op y` can be false and can be true, for the unsigned and
/// signed order comparisons (`w`-bit arguments).
pub fn cmp_fwd(op: Op, w: u32, x: &BDom, y: &BDom) -> (bool, bool) {
    if x.is_empty() || y.is_empty() {
        return (false, false);
    }
    let (x, y, strict, swap) = order_args(op, w, x, y);
    let (x, y) = if swap { (y, x) } else { (x, y) };
    if strict {
        (x.1 >= y.0, x.0 < y.1)
    } else {
        (x.1 > y.0, x.0 <= y.1)
    }
}

/// The two arguments as intervals in the comparison's order (unsigned or
/// signed), whether it is strict and whether it is `>`/`>=`.
fn order_args(op: Op, w: u32, x: &BDom, y: &BDom) -> ((i128, i128), (i128, i128), bool, bool) {
    let signed = matches!(op, Op::BvSlt | Op::BvSle | Op::BvSgt | Op::BvSge);
    let strict = matches!(op, Op::BvUlt | Op::BvUgt | Op::BvSlt | Op::BvSgt);
    let swap = matches!(op, Op::BvUgt | Op::BvUge | Op::BvSgt | Op::BvSge);
    let view = |d: &BDom| {
        if signed {
            d.signed(w)
        } else {
            (i128::from(d.lo), i128::from(d.hi))
        }
    };
    (view(x), view(y), strict, swap)
}

/// The arguments narrowed so that `x op y` has the truth value `truth`.
pub fn cmp_bwd(op: Op, w: u32, truth: bool, x: &BDom, y: &BDom) -> (BDom, BDom) {
    let (vx, vy, strict, swap) = order_args(op, w, x, y);
    // Write the constraint as u < v (or u <= v) on the order's intervals.
    let ((u, v), (du, dv)) = if swap {
        ((vy, vx), (y, x))
    } else {
        ((vx, vy), (x, y))
    };
    // not (u < v) is v <= u; not (u <= v) is v < u.
    let (u, v, du, dv, k, flip) = if truth {
        (u, v, du, dv, i128::from(strict), false)
    } else {
        (v, u, dv, du, i128::from(!strict), true)
    };
    let nu = (u.0, u.1.min(v.1 - k));
    let nv = (v.0.max(u.0 + k), v.1);
    let signed = matches!(op, Op::BvSlt | Op::BvSle | Op::BvSgt | Op::BvSge);
    let narrow = |d: &BDom, r: (i128, i128)| {
        if signed {
            d.meet_signed(r, w)
        } else if r.0 > r.1 || r.1 < 0 {
            BDom::EMPTY
        } else {
            d.meet(&BDom::range(r.0.max(0) as u64, r.1 as u64))
        }
    };
    let (nu, nv) = (narrow(du, nu), narrow(dv, nv));
    // Undo the flip, then the swap.
    let (nu, nv) = if flip { (nv, nu) } else { (nu, nv) };
    if swap {
        (nv, nu)
    } else {
        (nu, nv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{apply, Value};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A random domain of width `w`: a random range met with random known
    /// bits (often empty or small).
    fn random_dom(rng: &mut ChaCha8Rng, w: u32) -> BDom {
        loop {
            let m = mask(w);
            let a = rng.gen_range(0..=m);
            let b = rng.gen_range(a..=m);
            let unk = if rng.gen_bool(0.3) {
                m
            } else {
                rng.gen::<u64>() & m | rng.gen::<u64>() & m
            };
            let t = Tnum {
                val: rng.gen::<u64>() & !unk & m,
                unk,
            };
            let d = if rng.gen_bool(0.2) {
                let v = rng.gen_range(0..=m);
                BDom::single(v)
            } else {
                BDom::new(a, b, t)
            };
            if !d.is_empty() {
                return d;
            }
        }
    }

    fn members(d: &BDom) -> Vec<u64> {
        if d.is_empty() {
            return vec![];
        }
        (d.lo..=d.hi).filter(|&v| d.bits.contains(v)).collect()
    }

    fn contains(d: &BDom, v: u64) -> bool {
        d.lo <= v && v <= d.hi && d.bits.contains(v)
    }

    fn reduced(d: &BDom) {
        if d.is_empty() {
            assert_eq!(*d, BDom::EMPTY);
            return;
        }
        let ms = members(d);
        assert_eq!(ms.first(), Some(&d.lo), "{d:?}");
        assert_eq!(ms.last(), Some(&d.hi), "{d:?}");
        assert_eq!(d.count(), ms.len() as u128);
        assert_eq!(d.bits.meet(Tnum::prefix(d.lo, d.hi)), Some(d.bits));
    }

    #[test]
    fn the_product_is_reduced_and_signed_views_are_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        for _ in 0..3000 {
            let w = rng.gen_range(2..=8);
            let (a, b) = (random_dom(&mut rng, w), random_dom(&mut rng, w));
            for d in [a, b, a.meet(&b), a.join(&b)] {
                reduced(&d);
            }
            let mab: Vec<u64> = members(&a)
                .into_iter()
                .filter(|v| contains(&b, *v))
                .collect();
            assert_eq!(members(&a.meet(&b)), mab);
            for v in members(&a).into_iter().chain(members(&b)) {
                assert!(contains(&a.join(&b), v));
            }
            let s = |v: u64| ((v << (64 - w)) as i64 >> (64 - w)) as i128;
            let sv: Vec<i128> = members(&a).into_iter().map(s).collect();
            let (lo, hi) = a.signed(w);
            assert_eq!(lo, *sv.iter().min().unwrap());
            assert_eq!(hi, *sv.iter().max().unwrap());
            let r = (rng.gen_range(-200..200), rng.gen_range(-200..200));
            let ms = a.meet_signed(r, w);
            reduced(&ms);
            for v in members(&a) {
                if r.0 <= s(v) && s(v) <= r.1 {
                    assert!(contains(&ms, v), "{a:?} {r:?} {v}");
                }
            }
        }
    }

    const OPS: [Op; 19] = [
        Op::BvNot,
        Op::BvNeg,
        Op::BvAnd,
        Op::BvOr,
        Op::BvXor,
        Op::BvAdd,
        Op::BvSub,
        Op::BvMul,
        Op::BvUdiv,
        Op::BvUrem,
        Op::BvShl,
        Op::BvLshr,
        Op::BvAshr,
        Op::Concat,
        Op::Extract(3, 1),
        Op::ZeroExtend(2),
        Op::SignExtend(3),
        Op::BvUlt,
        Op::BvSle,
    ];

    #[test]
    fn projections_never_remove_a_solution() {
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        for round in 0..6000 {
            let op = OPS[round % OPS.len()];
            let w = rng.gen_range(if matches!(op, Op::Extract(..)) { 4 } else { 1 }..=6);
            let wy = if op == Op::Concat {
                rng.gen_range(1..=4)
            } else {
                w
            };
            let unary = matches!(
                op,
                Op::BvNot | Op::BvNeg | Op::Extract(..) | Op::ZeroExtend(_) | Op::SignExtend(_)
            );
            let mut a = vec![random_dom(&mut rng, w)];
            if !unary {
                a.push(random_dom(&mut rng, wy));
            }
            if matches!(op, Op::BvShl | Op::BvLshr | Op::BvAshr) && rng.gen_bool(0.5) {
                a[1] = BDom::range(0, rng.gen_range(0..=mask(w)));
            }
            let eval = |xs: &[u64]| {
                let args: Vec<Value> = xs
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| Value::Bv(v, if i == 0 { w } else { wy }))
                    .collect();
                match apply(op, &args) {
                    Some(Value::Bv(v, _)) => v,
                    Some(Value::Bool(b)) => u64::from(b),
                    other => panic!("{op:?}: {other:?}"),
                }
            };
            let tuples: Vec<Vec<u64>> = if unary {
                members(&a[0]).into_iter().map(|v| vec![v]).collect()
            } else {
                let ys = members(&a[1]);
                members(&a[0])
                    .into_iter()
                    .flat_map(|x| ys.iter().map(move |&y| vec![x, y]))
                    .collect()
            };
            if matches!(op, Op::BvUlt | Op::BvSle) {
                let (cf, ct) = cmp_fwd(op, w, &a[0], &a[1]);
                for truth in [false, true] {
                    let (nx, ny) = cmp_bwd(op, w, truth, &a[0], &a[1]);
                    reduced(&nx);
                    reduced(&ny);
                    for t in &tuples {
                        if eval(t) == u64::from(truth) {
                            assert!(if truth { ct } else { cf }, "{op:?} {a:?} {t:?}");
                            assert!(
                                contains(&nx, t[0]) && contains(&ny, t[1]),
                                "{op:?} {truth} {a:?} {t:?} -> {nx:?} {ny:?}"
                            );
                        }
                    }
                }
                continue;
            }
            let z_all: Vec<u64> = tuples.iter().map(|t| eval(t)).collect();
            if let Some(z) = fwd(op, w, wy, &a) {
                reduced(&z);
                for (t, v) in tuples.iter().zip(&z_all) {
                    assert!(
                        contains(&z, *v),
                        "{op:?} w{w} {a:?} {t:?} = {v} not in {z:?}"
                    );
                }
            }
            // A random result domain holding some results (or none).
            let zw = match op {
                Op::Extract(h, l) => h - l + 1,
                Op::Concat => w + wy,
                Op::ZeroExtend(n) | Op::SignExtend(n) => w + n,
                _ => w,
            };
            let z = random_dom(&mut rng, zw);
            for i in 0..a.len() {
                let Some(n) = bwd(op, w, wy, &z, &a, i) else {
                    continue;
                };
                reduced(&n);
                for (t, v) in tuples.iter().zip(&z_all) {
                    if contains(&z, *v) {
                        assert!(
                            contains(&n, t[i]),
                            "{op:?} w{w} arg {i}: {a:?} {t:?} = {v} in {z:?}, back {n:?}"
                        );
                    }
                }
            }
        }
    }
}
