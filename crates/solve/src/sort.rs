//! Sorts of the constraint language and the floating-point formats they name.
//!
//! Every SMT-LIB format `(_ FloatingPoint eb sb)` whose bit pattern fits in 128
//! bits is a [`FpFormat`]; binary32 and binary64, the formats C programs use, are
//! also [`HostFormat`]s, the only ones the interval domain and local search work
//! in (queries over other formats go to the bit-precise backend). Bit-vectors
//! are limited to 64 bits so that every value fits in a `u64`.

use std::fmt;

/// The two formats the host's arithmetic, the interval domain and local search
/// support. The type is the search crate's, which owns the float <-> ordinal
/// mapping per format.
pub use fpforge_search::ordinal::HostFormat;

/// A binary interchange format: `eb` exponent bits and `sb` significand bits (the
/// hidden bit included), SMT-LIB's `(_ FloatingPoint eb sb)`. Any `eb >= 2`,
/// `sb >= 2` whose pattern fits in 128 bits and whose exponents fit in an `i64`
/// ([`FpFormat::new`] checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FpFormat {
    /// Exponent bits.
    pub eb: u32,
    /// Significand bits, the hidden bit included.
    pub sb: u32,
}

impl FpFormat {
    /// binary16, SMT-LIB's `Float16`.
    pub const F16: FpFormat = FpFormat { eb: 5, sb: 11 };
    /// binary32, SMT-LIB's `Float32`.
    pub const F32: FpFormat = FpFormat { eb: 8, sb: 24 };
    /// binary64, SMT-LIB's `Float64`.
    pub const F64: FpFormat = FpFormat { eb: 11, sb: 53 };
    /// binary128, SMT-LIB's `Float128`.
    pub const F128: FpFormat = FpFormat { eb: 15, sb: 113 };

    /// The widest pattern a format may have.
    pub const MAX_WIDTH: u32 = 128;

    /// The format `(_ FloatingPoint eb sb)`, if supported.
    pub fn new(eb: u64, sb: u64) -> Option<FpFormat> {
        let supported = (2..=60).contains(&eb) && sb >= 2 && eb + sb <= u64::from(Self::MAX_WIDTH);
        supported.then_some(FpFormat {
            eb: eb as u32,
            sb: sb as u32,
        })
    }

    /// Exponent width in bits (IEEE `w`, SMT-LIB `eb`).
    pub fn exponent_bits(self) -> u32 {
        self.eb
    }

    /// Significand precision including the hidden bit (IEEE `p`, SMT-LIB `sb`).
    pub fn significand_bits(self) -> u32 {
        self.sb
    }

    /// Total width of the bit pattern.
    pub fn width(self) -> u32 {
        self.eb + self.sb
    }

    /// The host format this is, in code that runs only on queries whose every
    /// sort [`Sort::is_host`] (the interval domain, local search).
    ///
    /// # Panics
    /// On any other format: the caller broke that contract.
    pub fn expect_host(self) -> HostFormat {
        self.host()
            .expect("the interval domain and search run on binary32/binary64 only")
    }

    /// The host format this is, if it is binary32 or binary64.
    pub fn host(self) -> Option<HostFormat> {
        match self {
            FpFormat::F32 => Some(HostFormat::F32),
            FpFormat::F64 => Some(HostFormat::F64),
            _ => None,
        }
    }
}

impl From<HostFormat> for FpFormat {
    fn from(f: HostFormat) -> FpFormat {
        FpFormat {
            eb: f.exponent_bits(),
            sb: f.significand_bits(),
        }
    }
}

/// Rounds an `f64` to format `f` (RNE), returned widened.
pub fn round_to(f: HostFormat, x: f64) -> f64 {
    match f {
        HostFormat::F32 => f64::from(x as f32),
        HostFormat::F64 => x,
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

    /// Whether every float of this sort is of a [`HostFormat`].
    pub fn is_host(self) -> bool {
        match self {
            Sort::Fp(f) => f.host().is_some(),
            _ => true,
        }
    }
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => write!(f, "Bool"),
            Sort::Fp(ff) => write!(f, "(_ FloatingPoint {} {})", ff.eb, ff.sb),
            Sort::BitVec(w) => write!(f, "(_ BitVec {w})"),
            Sort::RoundingMode => write!(f, "RoundingMode"),
        }
    }
}

/// An IEEE-754 rounding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmtRounding {
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

impl SmtRounding {
    /// The five modes, in the order of [`SmtRounding::index`].
    pub const ALL: [SmtRounding; 5] = [
        SmtRounding::Rne,
        SmtRounding::Rna,
        SmtRounding::Rtp,
        SmtRounding::Rtn,
        SmtRounding::Rtz,
    ];

    /// The position of the mode in [`SmtRounding::ALL`] (0..5).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Parses both the short and the long SMT-LIB names.
    pub fn from_name(name: &str) -> Option<SmtRounding> {
        Some(match name {
            "RNE" | "roundNearestTiesToEven" => SmtRounding::Rne,
            "RNA" | "roundNearestTiesToAway" => SmtRounding::Rna,
            "RTP" | "roundTowardPositive" => SmtRounding::Rtp,
            "RTN" | "roundTowardNegative" => SmtRounding::Rtn,
            "RTZ" | "roundTowardZero" => SmtRounding::Rtz,
            _ => return None,
        })
    }

    /// The short SMT-LIB name.
    pub fn name(self) -> &'static str {
        match self {
            SmtRounding::Rne => "RNE",
            SmtRounding::Rna => "RNA",
            SmtRounding::Rtp => "RTP",
            SmtRounding::Rtn => "RTN",
            SmtRounding::Rtz => "RTZ",
        }
    }
}
