//! Search coordinates: real values, or the ordered bits of binary64 values.
//!
//! In ordered-bits coordinates a double maps to an integer that is monotone in its value
//! (`-0.0` and `+0.0` are the two zeros, each ulp is one step), stored in an `f64` so the
//! same minimizers work in both spaces ([`to_ordinal`] owns the mapping).
//! Binary64 ordinals need 64 bits and an `f64` holds 53, so near the extremes a
//! coordinate step is 2^11 ulps; real-space refinement covers the last bits.

use crate::ordinal::{from_ordinal, to_ordinal};

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

#[cfg(test)]
mod tests {
    use super::*;

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
