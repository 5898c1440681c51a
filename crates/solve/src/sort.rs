//! Sorts of the constraint language and the floating-point formats they name.
//!
//! Only the two IEEE-754 binary formats that C programs use are supported
//! (`(_ FloatingPoint 8 24)` and `(_ FloatingPoint 11 53)`); bit-vectors are
//! limited to 64 bits so that every value fits in a `u64`.

use std::fmt;

/// The IEEE-754 binary formats the solver supports: binary32 is SMT-LIB's
/// `(_ FloatingPoint 8 24)`, binary64 `(_ FloatingPoint 11 53)`. The type is the
/// search crate's, which owns the float <-> ordinal mapping per format.
pub use fpforge_search::ordinal::FpFormat;

/// Rounds an `f64` to format `f` (RNE), returned widened.
pub fn round_to(f: FpFormat, x: f64) -> f64 {
    match f {
        FpFormat::F32 => f64::from(x as f32),
        FpFormat::F64 => x,
    }
}

/// The sort (type) of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sort {
    /// Booleans.
    Bool,
    /// IEEE floating-point numbers of one format.
    Fp(FpFormat),
    /// Bit-vectors of width 1..=64.
    BitVec(u32),
    /// The five IEEE rounding modes.
    RoundingMode,
}

impl Sort {
    /// binary32.
    pub const F32: Sort = Sort::Fp(FpFormat::F32);
    /// binary64.
    pub const F64: Sort = Sort::Fp(FpFormat::F64);
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => write!(f, "Bool"),
            Sort::Fp(ff) => write!(
                f,
                "(_ FloatingPoint {} {})",
                ff.exponent_bits(),
                ff.significand_bits()
            ),
            Sort::BitVec(w) => write!(f, "(_ BitVec {w})"),
            Sort::RoundingMode => write!(f, "RoundingMode"),
        }
    }
}

/// An IEEE-754 rounding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundingMode {
    /// Round to nearest, ties to even.
    Rne,
    /// Round to nearest, ties away from zero.
    Rna,
    /// Round toward positive.
    Rtp,
    /// Round toward negative.
    Rtn,
    /// Round toward zero.
    Rtz,
}

impl RoundingMode {
    /// The five modes, in the order of [`RoundingMode::index`].
    pub const ALL: [RoundingMode; 5] = [
        RoundingMode::Rne,
        RoundingMode::Rna,
        RoundingMode::Rtp,
        RoundingMode::Rtn,
        RoundingMode::Rtz,
    ];

    /// The position of the mode in [`RoundingMode::ALL`] (0..5).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Parses both the short and the long SMT-LIB names.
    pub fn from_name(name: &str) -> Option<RoundingMode> {
        Some(match name {
            "RNE" | "roundNearestTiesToEven" => RoundingMode::Rne,
            "RNA" | "roundNearestTiesToAway" => RoundingMode::Rna,
            "RTP" | "roundTowardPositive" => RoundingMode::Rtp,
            "RTN" | "roundTowardNegative" => RoundingMode::Rtn,
            "RTZ" | "roundTowardZero" => RoundingMode::Rtz,
            _ => return None,
        })
    }

    /// The short SMT-LIB name.
    pub fn name(self) -> &'static str {
        match self {
            RoundingMode::Rne => "RNE",
            RoundingMode::Rna => "RNA",
            RoundingMode::Rtp => "RTP",
            RoundingMode::Rtn => "RTN",
            RoundingMode::Rtz => "RTZ",
        }
    }
}
