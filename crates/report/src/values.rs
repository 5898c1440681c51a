//! Values as reports print them: the exact text (hex float, `raw:` NaN bits, or the
//! integer's bits) beside the shortest round-trip decimal.

use fpir::float_text::{format_decimal, format_exact};
use fpir::Type;
use serde::Serialize;

/// A value printed for people and machines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShownValue {
    /// IR type name.
    #[serde(rename = "type")]
    pub ty: String,
    /// Exact text: hex float, `raw:` NaN, or integer bits.
    pub exact: String,
    /// Shortest round-trip decimal (floats) or signed decimal (ints).
    pub decimal: String,
}

/// Shows `bits` of type `ty`.
pub fn show(ty: Type, bits: u64) -> ShownValue {
    let (exact, decimal) = match ty {
        Type::Float(ft) => (format_exact(ft, bits), format_decimal(ft, bits)),
        Type::Int(_) => (format!("{bits:#x}"), ty.sign_extend(bits).to_string()),
        Type::Ptr => (format!("{bits:#x}"), format!("{bits:#x}")),
    };
    ShownValue {
        ty: ty.to_string(),
        exact,
        decimal,
    }
}

/// Shows a `long double` (type `f80`): exact as [`fpir::f80::format_exact`], and in
/// decimal.
pub fn show_long_double(x: fpir::f80::F80) -> ShownValue {
    ShownValue {
        ty: "f80".to_string(),
        exact: fpir::f80::format_exact(x),
        decimal: fpir::f80::format_decimal(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_signed_integers_and_exact_floats() {
        let v = show(Type::I32, 0xffff_fffe);
        assert_eq!((v.exact.as_str(), v.decimal.as_str()), ("0xfffffffe", "-2"));
        let v = show(Type::F64, 3f64.to_bits());
        assert_eq!((v.exact.as_str(), v.decimal.as_str()), ("0x1.8p+1", "3.0"));
    }
}
