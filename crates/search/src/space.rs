//! Search coordinates: real values, or the ordered bits of binary64 values.
//!
//! In ordered-bits coordinates a double maps to an integer that is monotone in its value
//! (`-0.0` and `+0.0` are the two zeros, each ulp is one step), stored in an `f64` so the
//! same minimizers work in both spaces. Binary64 ordinals need 64 bits and an `f64`
//! holds 53, so near the extremes a coordinate step is 2^11 ulps; real-space refinement
//! covers the last bits.

/// How a minimizer's coordinates map to the objective's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Coordinates are the input values themselves.
    Real,
    /// Coordinates are ordinals of binary64 bit patterns.
    OrderedBits,
}

impl Space {
    /// The input value a coordinate stands for.
    pub fn decode(self, coordinate: f64) -> f64 {
        match self {
            Space::Real => coordinate,
            Space::OrderedBits => from_ordinal(coordinate),
        }
    }

    /// The coordinate of an input value.
    pub fn encode(self, value: f64) -> f64 {
        match self {
            Space::Real => value,
            Space::OrderedBits => to_ordinal(value),
        }
    }
}

/// The ordinal of `x`: its magnitude bits as a number, with the sign of `x`, so it is
/// monotone in the value of `x` and `-0.0`/`+0.0` map to the zeros of the same sign.
/// NaNs sort beyond the infinities.
pub fn to_ordinal(x: f64) -> f64 {
    let magnitude = x.to_bits() & !(1u64 << 63);
    (magnitude as f64).copysign(x)
}

/// The double whose ordinal is nearest to `coordinate`.
pub fn from_ordinal(coordinate: f64) -> f64 {
    if coordinate.is_nan() {
        return 0.0;
    }
    let magnitude = coordinate.abs().round().min((1u64 << 63) as f64 - 1024.0) as u64;
    f64::from_bits(magnitude).copysign(coordinate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_monotone_around_zero_and_subnormals() {
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
    fn decode_inverts_encode_where_exact() {
        for v in [
            0.0,
            -0.0,
            5e-324,
            -3.5e-310,
            1.0,
            -2.5,
            f64::from_bits(0x7e70_0000_0000_0000),
            f64::INFINITY,
        ] {
            let back = Space::OrderedBits.decode(Space::OrderedBits.encode(v));
            assert_eq!(back.to_bits(), v.to_bits(), "{v}");
        }
    }
}
