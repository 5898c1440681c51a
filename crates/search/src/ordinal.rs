//! The one mapping between IEEE binary floats and the integers that number them in
//! increasing order (ordinals), for binary32 and binary64.
//!
//! A float's bits, read as sign and magnitude, already order the values: the magnitude
//! bits grow with `|x|` through subnormals, normals and up to infinity. Every engine that
//! steps, bisects or measures floats by counting them takes one of three forms of that
//! order from here; they differ only in the zeros:
//!
//! | form | `-0`, `+0` | for |
//! |---|---|---|
//! | [`ord`], [`from_ord`] | `-1`, `0` | FPSE's total order `-0 < +0`: every value has its own ordinal, so a domain is an ordinal range and the float halving the count is the ordinal midpoint |
//! | [`signed_ulps`], [`from_signed_ulps`], [`ulp_distance`] | `0`, `0` | comparisons see `-0 == +0`, so a branch distance or an ulp step counts the two zeros as one point |
//! | [`to_ordinal`], [`from_ordinal`] | `-0.0`, `+0.0` | the coordinates of [`Space::OrderedBits`](crate::Space::OrderedBits): signed ulps of binary64 held in an `f64` |
//!
//! **NaN** has no ordinal of its own. Its bits place it beyond the infinity of its sign:
//! [`signed_ulps`] and [`to_ordinal`] give positive NaNs numbers above `+oo` and negative
//! ones below `-oo`, and [`from_signed_ulps`]/[`from_ordinal`] map numbers beyond the
//! infinities back to NaN patterns, so a walk in ordered bits can reach NaN. [`ord`]
//! must not be given a NaN (FPSE domains keep NaN apart) and [`from_ord`] clamps to the
//! infinities.
//!
//! Values of both formats travel as `f64` (binary32 widens exactly); a value said to be
//! of binary32 must be representable in it.

/// An IEEE 754 binary interchange format: the two that C's `float` and `double` use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HostFormat {
    /// binary32 (8 exponent bits, 24-bit significand).
    F32,
    /// binary64 (11 exponent bits, 53-bit significand).
    F64,
}

impl HostFormat {
    /// Exponent width in bits (IEEE `w`, SMT-LIB `eb`).
    pub fn exponent_bits(self) -> u32 {
        match self {
            HostFormat::F32 => 8,
            HostFormat::F64 => 11,
        }
    }

    /// Significand precision including the hidden bit (IEEE `p`, SMT-LIB `sb`).
    pub fn significand_bits(self) -> u32 {
        match self {
            HostFormat::F32 => 24,
            HostFormat::F64 => 53,
        }
    }

    /// Total width of the bit pattern.
    pub fn width(self) -> u32 {
        self.exponent_bits() + self.significand_bits()
    }

    /// The format with exponent width `eb` and precision `sb`, if it is one of these.
    pub fn from_eb_sb(eb: u64, sb: u64) -> Option<HostFormat> {
        match (eb, sb) {
            (8, 24) => Some(HostFormat::F32),
            (11, 53) => Some(HostFormat::F64),
            _ => None,
        }
    }

    /// The sign bit of a pattern.
    fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }

    /// All bits but the sign: the largest magnitude pattern, a NaN.
    fn max_magnitude(self) -> u64 {
        self.sign_bit() - 1
    }
}

/// The magnitude bits of `x` in `format`.
fn magnitude(format: HostFormat, x: f64) -> u64 {
    let bits = match format {
        HostFormat::F32 => u64::from((x as f32).to_bits()),
        HostFormat::F64 => x.to_bits(),
    };
    bits & format.max_magnitude()
}

/// The value with magnitude bits `magnitude` and the given sign, widened to `f64`.
fn from_magnitude(format: HostFormat, magnitude: u64, negative: bool) -> f64 {
    let bits = if negative {
        magnitude | format.sign_bit()
    } else {
        magnitude
    };
    match format {
        HostFormat::F32 => f64::from(f32::from_bits(bits as u32)),
        HostFormat::F64 => f64::from_bits(bits),
    }
}

/// The total-order ordinal of a non-NaN `x` of `format`: `-0` is `-1`, `+0` is `0`,
/// consecutive values differ by one.
pub fn ord(format: HostFormat, x: f64) -> i64 {
    let m = magnitude(format, x) as i64;
    if x.is_sign_negative() {
        -m - 1
    } else {
        m
    }
}

/// The ordinal of `-oo` in `format`.
pub fn min_ord(format: HostFormat) -> i64 {
    ord(format, f64::NEG_INFINITY)
}

/// The ordinal of `+oo` in `format`.
pub fn max_ord(format: HostFormat) -> i64 {
    ord(format, f64::INFINITY)
}

/// The value of `format` with total-order ordinal `o`, clamped to the infinities.
pub fn from_ord(format: HostFormat, o: i64) -> f64 {
    let o = o.clamp(min_ord(format), max_ord(format));
    if o < 0 {
        from_magnitude(format, (-o - 1) as u64, true)
    } else {
        from_magnitude(format, o as u64, false)
    }
}

/// The number of values of `format` from zero to `x`, negative below zero: both zeros
/// are 0, NaNs lie beyond the infinities (by their bits).
pub fn signed_ulps(format: HostFormat, x: f64) -> i64 {
    let m = magnitude(format, x) as i64;
    if x.is_sign_negative() {
        -m
    } else {
        m
    }
}

/// The value of `format` `n` values away from zero (`+0` for 0; NaN patterns beyond the
/// infinities, up to the largest).
pub fn from_signed_ulps(format: HostFormat, n: i64) -> f64 {
    from_magnitude(format, n.unsigned_abs().min(format.max_magnitude()), n < 0)
}

/// How many values of `format` separate non-NaN `a` and `b`, with `-0` and `+0` the
/// same point.
pub fn ulp_distance(format: HostFormat, a: f64, b: f64) -> u64 {
    signed_ulps(format, a).abs_diff(signed_ulps(format, b))
}

/// The largest coordinate [`from_ordinal`] decodes: the `f64` below 2^63, where binary64
/// magnitudes (63 bits) end.
const MAX_COORDINATE: f64 = (1u64 << 63) as f64 - 1024.0;

/// The coordinate of binary64 `x` in ordered bits: its signed ulps as an `f64`, with the
/// sign of `x` (so `-0.0` maps to `-0.0`). An `f64` holds 53 bits, so beyond 2^53 a
/// coordinate rounds to a multiple of 2^(k-53) ulps.
pub fn to_ordinal(x: f64) -> f64 {
    (magnitude(HostFormat::F64, x) as f64).copysign(x)
}

/// The binary64 value whose ordered-bits coordinate is nearest to `coordinate`, with its
/// sign (`0.0` for a NaN coordinate).
pub fn from_ordinal(coordinate: f64) -> f64 {
    if coordinate.is_nan() {
        return 0.0;
    }
    let m = coordinate.abs().round().min(MAX_COORDINATE) as u64;
    from_magnitude(HostFormat::F64, m, false).copysign(coordinate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FORMATS: [HostFormat; 2] = [HostFormat::F32, HostFormat::F64];

    /// Rounds `x` to `format`, widened.
    fn round_to(format: HostFormat, x: f64) -> f64 {
        match format {
            HostFormat::F32 => f64::from(x as f32),
            HostFormat::F64 => x,
        }
    }

    /// The next value of `format` above `x`.
    fn next_up(format: HostFormat, x: f64) -> f64 {
        match format {
            HostFormat::F32 => f64::from((x as f32).next_up()),
            HostFormat::F64 => x.next_up(),
        }
    }

    /// Any value of `format`, NaNs included, from its bits.
    fn any_value(format: HostFormat) -> BoxedStrategy<f64> {
        match format {
            HostFormat::F32 => any::<u32>()
                .prop_map(|b| f64::from(f32::from_bits(b)))
                .boxed(),
            HostFormat::F64 => any::<u64>().prop_map(f64::from_bits).boxed(),
        }
    }

    fn any_number(format: HostFormat) -> BoxedStrategy<f64> {
        any_value(format)
            .prop_filter("not NaN", |x| !x.is_nan())
            .boxed()
    }

    fn format_and_two_numbers() -> impl Strategy<Value = (HostFormat, f64, f64)> {
        prop_oneof![Just(HostFormat::F32), Just(HostFormat::F64)]
            .prop_flat_map(|f| (Just(f), any_number(f), any_number(f)))
    }

    proptest! {
        #[test]
        fn ord_is_strictly_monotone_and_invertible((f, a, b) in format_and_two_numbers()) {
            // The total order: the value order, with -0 below +0.
            let total = |x: f64| (x, x.is_sign_positive());
            prop_assert_eq!(ord(f, a).cmp(&ord(f, b)), total(a).partial_cmp(&total(b)).unwrap());
            prop_assert_eq!(from_ord(f, ord(f, a)).to_bits(), a.to_bits());
            prop_assert!((min_ord(f)..=max_ord(f)).contains(&ord(f, a)));
        }

        #[test]
        fn consecutive_ordinals_are_neighbours((f, a, _) in format_and_two_numbers()) {
            prop_assume!(a != f64::INFINITY);
            let next = from_ord(f, ord(f, a) + 1);
            if a.to_bits() == (-0.0f64).to_bits() {
                prop_assert_eq!(next.to_bits(), 0.0f64.to_bits());
            } else {
                prop_assert_eq!(next.to_bits(), next_up(f, a).to_bits());
            }
        }

        #[test]
        fn signed_ulps_follow_the_value_order((f, a, b) in format_and_two_numbers()) {
            prop_assert_eq!(
                signed_ulps(f, a).cmp(&signed_ulps(f, b)),
                a.partial_cmp(&b).unwrap()
            );
            prop_assert_eq!(ulp_distance(f, a, b) == 0, a == b);
            prop_assert_eq!(ulp_distance(f, a, b), ulp_distance(f, b, a));
            let back = from_signed_ulps(f, signed_ulps(f, a));
            // Both zeros come back as +0; everything else as itself.
            prop_assert_eq!(back.to_bits(), if a == 0.0 { 0 } else { a.to_bits() });
        }

        #[test]
        fn neighbours_are_one_ulp_apart((f, a, _) in format_and_two_numbers()) {
            prop_assume!(a != f64::INFINITY);
            prop_assert_eq!(ulp_distance(f, a, next_up(f, a)), 1);
        }

        #[test]
        fn nans_lie_beyond_the_infinities(f in prop_oneof![Just(HostFormat::F32), Just(HostFormat::F64)],
                                          x in any::<u64>()) {
            let nan = round_to(f, f64::from_bits((x | 0x7ff0_0000_0000_0001) & !(1 << 63)));
            prop_assume!(nan.is_nan());
            prop_assert!(signed_ulps(f, nan) > signed_ulps(f, f64::INFINITY));
            prop_assert!(signed_ulps(f, -nan) < signed_ulps(f, f64::NEG_INFINITY));
            prop_assert!(from_signed_ulps(f, signed_ulps(f, nan)).is_nan());
            prop_assert!(to_ordinal(nan) > to_ordinal(f64::INFINITY));
        }

        #[test]
        fn coordinates_are_monotone_and_exact_below_2_pow_53(a in any_number(HostFormat::F64),
                                                             b in any_number(HostFormat::F64)) {
            if a < b {
                prop_assert!(to_ordinal(a) <= to_ordinal(b));
            }
            if to_ordinal(a).abs() < 2f64.powi(53) {
                prop_assert_eq!(from_ordinal(to_ordinal(a)).to_bits(), a.to_bits());
            }
            prop_assert_eq!(to_ordinal(a), signed_ulps(HostFormat::F64, a) as f64);
        }
    }

    #[test]
    fn zeros_follow_the_documented_conventions() {
        for f in FORMATS {
            assert_eq!(ord(f, -0.0), -1);
            assert_eq!(ord(f, 0.0), 0);
            assert_eq!(signed_ulps(f, -0.0), 0);
            assert_eq!(signed_ulps(f, 0.0), 0);
            assert_eq!(ulp_distance(f, -0.0, 0.0), 0);
            assert_eq!(from_signed_ulps(f, 0).to_bits(), 0.0f64.to_bits());
        }
        assert_eq!(to_ordinal(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(from_ordinal(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(from_ordinal(f64::NAN), 0.0);
    }

    #[test]
    fn subnormals_and_infinities_sit_where_the_bits_say() {
        let tiny32 = f64::from(f32::from_bits(1));
        assert_eq!(ord(HostFormat::F32, tiny32), 1);
        assert_eq!(ord(HostFormat::F64, 5e-324), 1);
        assert_eq!(ord(HostFormat::F32, f64::from(f32::MIN_POSITIVE)), 1 << 23);
        assert_eq!(ord(HostFormat::F64, f64::MIN_POSITIVE), 1 << 52);
        assert_eq!(max_ord(HostFormat::F32), 0x7f80_0000);
        assert_eq!(max_ord(HostFormat::F64), 0x7ff0_0000_0000_0000);
        assert_eq!(min_ord(HostFormat::F32), -0x7f80_0000 - 1);
        for f in FORMATS {
            assert_eq!(from_ord(f, i64::MAX), f64::INFINITY);
            assert_eq!(from_ord(f, i64::MIN), f64::NEG_INFINITY);
            assert!(from_signed_ulps(f, signed_ulps(f, f64::INFINITY) + 1).is_nan());
            assert!(from_signed_ulps(f, i64::MAX).is_nan());
            assert!(from_signed_ulps(f, i64::MIN).is_nan());
            assert_eq!(
                ulp_distance(f, f64::NEG_INFINITY, f64::INFINITY),
                2 * max_ord(f) as u64
            );
        }
        assert_eq!(
            from_signed_ulps(HostFormat::F64, signed_ulps(HostFormat::F64, f64::MAX) + 1),
            f64::INFINITY
        );
    }

    #[test]
    fn ordinals_are_monotone_and_invertible() {
        for f in FORMATS {
            let xs = [
                f64::NEG_INFINITY,
                -1.5,
                -1e-40,
                -0.0,
                0.0,
                1e-45,
                1.0,
                3.0e38,
                f64::INFINITY,
            ];
            let xs: Vec<f64> = xs.iter().map(|&x| round_to(f, x)).collect();
            for w in xs.windows(2) {
                assert!(ord(f, w[0]) < ord(f, w[1]), "{:?} {w:?}", f);
            }
            for &x in &xs {
                assert_eq!(from_ord(f, ord(f, x)).to_bits(), x.to_bits());
            }
            assert_eq!(
                from_ord(f, ord(f, 1.0) + 1),
                round_to(
                    f,
                    if f == HostFormat::F32 {
                        1.0 + f64::from(f32::EPSILON)
                    } else {
                        1.0 + f64::EPSILON
                    }
                )
            );
        }
    }

    #[test]
    fn coordinates_are_monotone_around_zero_and_subnormals() {
        let values = [
            f64::NEG_INFINITY,
            -1.0,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.0,
            f64::INFINITY,
        ];
        let ordinals: Vec<f64> = values.iter().map(|&v| to_ordinal(v)).collect();
        let strictly_increasing_but_zeros = ordinals
            .windows(2)
            .all(|w| w[0] < w[1] || (w[0] == 0.0 && w[1] == 0.0));
        assert!(strictly_increasing_but_zeros, "{ordinals:?}");
        assert_eq!(to_ordinal(5e-324) - to_ordinal(0.0), 1.0);
        assert!(to_ordinal(-0.0).is_sign_negative());
    }

    #[test]
    fn signed_ulps_are_exact_across_zero_and_binades() {
        let f = HostFormat::F64;
        assert_eq!(
            from_signed_ulps(f, signed_ulps(f, 1.0) + 1),
            1.0f64.next_up()
        );
        assert_eq!(from_signed_ulps(f, 1), 5e-324);
        assert_eq!(from_signed_ulps(f, -1), -5e-324);
        assert_eq!(
            from_signed_ulps(f, signed_ulps(f, f64::MIN_POSITIVE) - 1),
            f64::MIN_POSITIVE.next_down()
        );
        assert_eq!(
            from_signed_ulps(f, signed_ulps(f, f64::MAX) + 1),
            f64::INFINITY
        );
        assert!(from_signed_ulps(f, i64::MAX).is_nan());
    }
}
