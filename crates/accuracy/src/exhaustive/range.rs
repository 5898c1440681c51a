//! [`InputRange`]: the `float` inputs an exhaustive run checks (`--range LO..HI`), as
//! intervals of bit patterns in increasing order; the `i`-th input of the range is the
//! unit the driver splits into chunks and shards.
//!
//! `LO..HI` is read two ways:
//!
//! - **bit patterns**: both ends `0x` and exactly 8 hex digits (`0x3f800000..0x3f8fffff`):
//!   every pattern from LO to HI, NaNs included when the patterns are NaNs;
//! - **values**: both ends decimal or C hex floats (`1.5`, `-0x1p-3`, `inf`): every
//!   `float` x with LO <= x <= HI (-0 counted below +0; no NaN), in bit order.

use std::fmt;

/// A set of `float` inputs: intervals of bit patterns, inclusive, disjoint, increasing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputRange {
    intervals: Vec<(u32, u32)>,
}

impl Default for InputRange {
    /// Every bit pattern.
    fn default() -> Self {
        InputRange::all()
    }
}

impl InputRange {
    /// All 2^32 bit patterns.
    pub fn all() -> InputRange {
        InputRange {
            intervals: vec![(0, u32::MAX)],
        }
    }

    /// The patterns from `lo` to `hi` inclusive (`lo <= hi`).
    pub fn bits(lo: u32, hi: u32) -> InputRange {
        InputRange {
            intervals: vec![(lo.min(hi), hi.max(lo))],
        }
    }

    /// How many inputs.
    pub fn len(&self) -> u64 {
        self.intervals
            .iter()
            .map(|&(lo, hi)| u64::from(hi - lo) + 1)
            .sum()
    }

    /// Whether it has no input (never: a range holds at least one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th input's bits (`i < len()`).
    pub fn nth(&self, mut i: u64) -> u32 {
        for &(lo, hi) in &self.intervals {
            let n = u64::from(hi - lo) + 1;
            if i < n {
                return lo + i as u32;
            }
            i -= n;
        }
        self.intervals.last().map_or(0, |&(_, hi)| hi)
    }

    /// Reads `LO..HI` (see the module docs).
    pub fn parse(text: &str) -> Result<InputRange, String> {
        let (lo, hi) = text
            .split_once("..")
            .ok_or_else(|| format!("`{text}` is not LO..HI"))?;
        let (lo, hi) = (lo.trim(), hi.trim());
        match (pattern(lo), pattern(hi)) {
            (Some(a), Some(b)) if a <= b => return Ok(InputRange::bits(a, b)),
            (Some(_), Some(_)) => return Err(format!("{text}: LO is above HI")),
            (None, None) => {}
            _ => {
                return Err(format!(
                    "{text}: give both ends as bit patterns (0x and 8 hex digits) or both as values"
                ))
            }
        }
        let (a, b) = (value(lo)?, value(hi)?);
        if a > b {
            return Err(format!("{text}: LO is above HI"));
        }
        let bits = |x: f32| x.to_bits();
        let mut intervals = Vec::new();
        if a < 0.0 || (a == 0.0 && a.is_sign_negative()) || b < 0.0 {
            // Negative values: from -0 (or HI) up to LO in bits.
            let top = if b < 0.0 { bits(b) } else { bits(-0.0) };
            intervals.push((top, bits(a.min(-0.0))));
        }
        if b >= 0.0 {
            let start = if a > 0.0 { bits(a) } else { 0 };
            intervals.push((start, bits(b)));
        }
        intervals.sort_unstable();
        Ok(InputRange { intervals })
    }
}

/// A bit pattern: `0x` and exactly 8 hex digits.
fn pattern(text: &str) -> Option<u32> {
    let hex = text.strip_prefix("0x")?;
    (hex.len() == 8)
        .then(|| u32::from_str_radix(hex, 16).ok())
        .flatten()
}

/// A value: decimal, `inf`, or a C hex float (`-0x1.8p-3`), which must be a `float`.
fn value(text: &str) -> Result<f32, String> {
    let bad = || format!("`{text}` is not a float value or a bit pattern");
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let magnitude = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => hex_float(hex).ok_or_else(bad)?,
        None => body.parse::<f64>().map_err(|_| bad())?,
    };
    if magnitude.is_nan() {
        return Err(bad());
    }
    let x = if neg { -magnitude } else { magnitude };
    let single = x as f32;
    if f64::from(single) != x {
        return Err(format!("`{text}` is not a float (nearest: {single:e})"));
    }
    Ok(single)
}

/// The value of a C hex float after its `0x`: hex digits, an optional point and more,
/// `p` and a decimal exponent; exact or `None`.
fn hex_float(text: &str) -> Option<f64> {
    let (mantissa, exp) = text.split_once(['p', 'P'])?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    if digits.is_empty() || digits.len() > 13 {
        return None;
    }
    let m = u64::from_str_radix(&digits, 16).ok()?;
    let e = exp - 4 * frac.len() as i32;
    Some(m as f64 * 2f64.powi(e))
}

impl fmt::Display for InputRange {
    /// The intervals as `0xLO..0xHI`, comma-separated: the canonical text of the range.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, (lo, hi)) in self.intervals.iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            write!(f, "0x{lo:08x}..0x{hi:08x}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_by_bits_and_by_value() {
        let r = InputRange::parse("0x3f800000..0x3f800003").unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r.nth(3), 0x3f800003);
        let v = InputRange::parse("1..2").unwrap();
        assert_eq!(v.to_string(), "0x3f800000..0x40000000");
        let both = InputRange::parse("-1..0x1p-149").unwrap();
        assert_eq!(
            both.to_string(),
            "0x00000000..0x00000001,0x80000000..0xbf800000"
        );
        assert_eq!(both.nth(2), 0x8000_0000);
        assert_eq!(
            InputRange::parse("-2..-1").unwrap().to_string(),
            "0xbf800000..0xc0000000"
        );
        assert_eq!(InputRange::all().len(), 1 << 32);
        assert_eq!(
            InputRange::parse("-inf..inf").unwrap().len(),
            (1 << 32) - (1 << 24) + 2
        );
        for bad in ["1", "2..1", "0x3f800000..1", "0.1..1", "nan..1"] {
            assert!(InputRange::parse(bad).is_err(), "{bad}");
        }
    }
}
