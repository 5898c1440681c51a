//! Value types of the IR: integers of 1 to 64 bits, binary32, binary64 and pointers.
//!
//! Registers hold scalars only. Aggregates live in memory and are reached through
//! pointers; lowering turns LLVM aggregate types into byte offsets.

use std::fmt;

/// A floating-point format.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum FloatTy {
    /// IEEE 754 binary32 (`float`).
    F32,
    /// IEEE 754 binary64 (`double`).
    F64,
}

impl FloatTy {
    /// Size in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            FloatTy::F32 => 4,
            FloatTy::F64 => 8,
        }
    }

    /// The sign bit of a value's raw bits (`f32` in the low 32 bits).
    #[inline]
    pub fn sign_bit(self) -> u64 {
        match self {
            FloatTy::F32 => 0x8000_0000,
            FloatTy::F64 => 1 << 63,
        }
    }
}

/// The type of a register or of a memory access.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// An integer of the given width in bits (1..=64).
    Int(u8),
    /// A floating-point value.
    Float(FloatTy),
    /// A 64-bit address.
    Ptr,
}

impl Type {
    /// `i1`, the type of conditions.
    pub const BOOL: Type = Type::Int(1);
    /// `i8`.
    pub const I8: Type = Type::Int(8);
    /// `i32`.
    pub const I32: Type = Type::Int(32);
    /// `i64`.
    pub const I64: Type = Type::Int(64);
    /// `f32`.
    pub const F32: Type = Type::Float(FloatTy::F32);
    /// `f64`.
    pub const F64: Type = Type::Float(FloatTy::F64);

    /// Size in memory, in bytes (`i1` occupies one byte, as in LLVM).
    pub fn bytes(self) -> u32 {
        match self {
            Type::Int(bits) => u32::from(bits).div_ceil(8),
            Type::Float(f) => f.bytes(),
            Type::Ptr => 8,
        }
    }

    /// Width of the value in bits.
    pub fn bits(self) -> u32 {
        match self {
            Type::Int(bits) => u32::from(bits),
            Type::Float(f) => f.bytes() * 8,
            Type::Ptr => 64,
        }
    }

    /// The mask of the value's width: the bits a register of this type may have set
    /// (values are zero-extended to 64 bits).
    #[inline]
    pub fn mask(self) -> u64 {
        match self.bits() {
            bits @ 0..=63 => (1u64 << bits) - 1,
            _ => u64::MAX,
        }
    }

    /// The value of the low `self.bits()` bits of `bits` read as a two's complement
    /// signed integer.
    #[inline]
    pub fn sign_extend(self, bits: u64) -> i64 {
        let shift = 64 - self.bits().clamp(1, 64);
        ((bits << shift) as i64) >> shift
    }

    /// The float format, if this is a float type.
    pub fn as_float(self) -> Option<FloatTy> {
        match self {
            Type::Float(f) => Some(f),
            _ => None,
        }
    }

    /// True for integer types.
    pub fn is_int(self) -> bool {
        matches!(self, Type::Int(_))
    }
}

impl fmt::Display for FloatTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FloatTy::F32 => "f32",
            FloatTy::F64 => "f64",
        })
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int(bits) => write!(f, "i{bits}"),
            Type::Float(ft) => write!(f, "{ft}"),
            Type::Ptr => f.write_str("ptr"),
        }
    }
}

/// The result type of a function: a scalar or nothing.
pub type RetType = Option<Type>;
