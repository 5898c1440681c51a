//! Exact text for floats: C99 hex-float formatting and parsing, decimal parsing, and the
//! `raw:` bit-pattern form, shared by the IR text, the CLI and reports.
//!
//! Parsing is correctly rounded (round-to-nearest-even) directly to the target format,
//! so an `f32` literal is never rounded twice.

use crate::types::FloatTy;

/// A float literal that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid {ty} literal `{text}`: {reason}")]
pub struct FloatTextError {
    /// The literal.
    pub text: String,
    /// The format it was read as.
    pub ty: FloatTy,
    /// What is wrong.
    pub reason: &'static str,
}

/// Formats `bits` of format `ty` as a C99 hex float (`0x1.8p+1`, `-0x0p+0`, `inf`, `nan`),
/// the way `printf("%a", (double)x)` does. NaN payloads are not shown; use [`format_raw`].
pub fn format_hex(ty: FloatTy, bits: u64) -> String {
    let x = match ty {
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
        FloatTy::F64 => f64::from_bits(bits),
    };
    format_hex_f64(x)
}

/// Formats an `f64` as a C99 hex float.
pub fn format_hex_f64(x: f64) -> String {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        return format!("{sign}nan");
    }
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if biased == 0 && frac == 0 {
        return format!("{sign}0x0p+0");
    }
    let (lead, exp) = if biased == 0 {
        (0, -1022)
    } else {
        (1, biased - 1023)
    };
    let mut digits = format!("{frac:013x}");
    while digits.ends_with('0') {
        digits.pop();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!("{sign}0x{lead}{dot}{digits}p{exp:+}")
}

/// Formats `bits` as `raw:` followed by the hex digits of the format's width.
pub fn format_raw(ty: FloatTy, bits: u64) -> String {
    match ty {
        FloatTy::F32 => format!("raw:{:08x}", bits as u32),
        FloatTy::F64 => format!("raw:{bits:016x}"),
    }
}

/// Formats exactly: hex float for numbers, `raw:` for NaN (keeping its payload).
pub fn format_exact(ty: FloatTy, bits: u64) -> String {
    let is_nan = match ty {
        FloatTy::F32 => f32::from_bits(bits as u32).is_nan(),
        FloatTy::F64 => f64::from_bits(bits).is_nan(),
    };
    if is_nan {
        format_raw(ty, bits)
    } else {
        format_hex(ty, bits)
    }
}

/// Shortest decimal that reads back to the same value (Rust's `Display`).
pub fn format_decimal(ty: FloatTy, bits: u64) -> String {
    match ty {
        FloatTy::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        FloatTy::F64 => format!("{:?}", f64::from_bits(bits)),
    }
}

/// Reads a float literal of format `ty`: decimal, C99 hex float, `inf`/`-inf`/`nan`, or
/// `raw:` + hex digits of the exact bit pattern. Returns the bits.
pub fn parse_float(ty: FloatTy, text: &str) -> Result<u64, FloatTextError> {
    let err = |reason| FloatTextError {
        text: text.to_string(),
        ty,
        reason,
    };
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("raw:") {
        let bits =
            u64::from_str_radix(hex, 16).map_err(|_| err("expected hex digits after raw:"))?;
        if ty == FloatTy::F32 && bits > u64::from(u32::MAX) {
            return Err(err("bit pattern wider than 32 bits"));
        }
        return Ok(bits);
    }
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let magnitude = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_magnitude(ty, hex).ok_or_else(|| err("malformed hex float"))?
    } else if lower == "nan" {
        match ty {
            FloatTy::F32 => u64::from(f32::NAN.to_bits()),
            FloatTy::F64 => f64::NAN.to_bits(),
        }
    } else {
        if body.starts_with(['+', '-']) {
            return Err(err("two signs"));
        }
        match ty {
            FloatTy::F32 => u64::from(
                body.parse::<f32>()
                    .map_err(|_| err("not a number"))?
                    .to_bits(),
            ),
            FloatTy::F64 => body
                .parse::<f64>()
                .map_err(|_| err("not a number"))?
                .to_bits(),
        }
    };
    let sign_bit = match ty {
        FloatTy::F32 => 1u64 << 31,
        FloatTy::F64 => 1u64 << 63,
    };
    Ok(if negative {
        magnitude | sign_bit
    } else {
        magnitude
    })
}

/// Parses the part of a hex float after `0x` (no sign) and rounds it to `ty`.
fn parse_hex_magnitude(ty: FloatTy, hex: &str) -> Option<u64> {
    let (mantissa_text, exp_text) = match hex.find('p') {
        Some(i) => (&hex[..i], &hex[i + 1..]),
        None => (hex, "0"),
    };
    let exp: i64 = exp_text.parse().ok()?;
    let (int_part, frac_part) = match mantissa_text.find('.') {
        Some(i) => (&mantissa_text[..i], &mantissa_text[i + 1..]),
        None => (mantissa_text, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut sticky = false;
    let mut exp2 = exp;
    let mut started_overflow = false;
    for (i, c) in int_part.chars().chain(frac_part.chars()).enumerate() {
        let d = u64::from(c.to_digit(16)?);
        let in_frac = i >= int_part.len();
        if mantissa >> 60 == 0 && !started_overflow {
            mantissa = mantissa << 4 | d;
            if in_frac {
                exp2 -= 4;
            }
        } else {
            started_overflow = true;
            sticky |= d != 0;
            if !in_frac {
                exp2 += 4;
            }
        }
    }
    let exp2 = i32::try_from(exp2.clamp(-100_000, 100_000)).ok()?;
    Some(round_to_format(ty, mantissa, sticky, exp2))
}

/// Rounds `mantissa * 2^exp` (plus a sticky bit of anything below) to `ty`, to nearest even.
fn round_to_format(ty: FloatTy, mantissa: u64, sticky: bool, exp: i32) -> u64 {
    let (frac_bits, bias): (i32, i32) = match ty {
        FloatTy::F32 => (23, 127),
        FloatTy::F64 => (52, 1023),
    };
    if mantissa == 0 {
        return 0;
    }
    let precision = frac_bits + 1;
    let lz = mantissa.leading_zeros() as i32;
    let m = mantissa << lz;
    let lead_exp = exp - lz + 63;
    let emin = 1 - bias;
    let keep = if lead_exp >= emin {
        precision
    } else {
        precision - (emin - lead_exp)
    };
    let shift = 64 - keep;
    if shift > 64 {
        return 0;
    }
    let (q, rem, half) = if shift == 64 {
        (0u64, m, 1u64 << 63)
    } else {
        (m >> shift, m & ((1u64 << shift) - 1), 1u64 << (shift - 1))
    };
    let round_up = rem > half || (rem == half && (sticky || q & 1 == 1));
    let mut q = q + u64::from(round_up);
    if lead_exp < emin {
        return q;
    }
    let mut e = lead_exp;
    if q == 1u64 << precision {
        q >>= 1;
        e += 1;
    }
    if e > bias {
        return ((2 * bias + 1) as u64) << frac_bits;
    }
    (((e + bias) as u64) << frac_bits) | (q & ((1u64 << frac_bits) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_of(text: &str) -> f64 {
        f64::from_bits(parse_float(FloatTy::F64, text).unwrap())
    }

    #[test]
    fn hex_round_trips_special_and_random_doubles() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let specials = [
            0.0,
            -0.0,
            1.0,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            -2.5,
            0.1,
        ];
        let randoms = (0..20_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            f64::from_bits(x)
        });
        for v in specials.into_iter().chain(randoms).filter(|v| !v.is_nan()) {
            let text = format_hex_f64(v);
            assert_eq!(f64_of(&text).to_bits(), v.to_bits(), "{text}");
        }
    }

    #[test]
    fn hex_f32_rounds_once_to_nearest_even() {
        let bits = |t| f32::from_bits(parse_float(FloatTy::F32, t).unwrap() as u32);
        assert_eq!(bits("0x1.000001p+0"), 1.0);
        assert_eq!(bits("0x1.000003p+0"), 1.000_000_2);
        assert_eq!(bits("0x1.0000011p+0"), 1.000_000_1);
        assert_eq!(bits("0x1p-149"), f32::from_bits(1));
        assert_eq!(bits("0x1p-150"), 0.0);
        assert_eq!(bits("0x1.0001p-150"), f32::from_bits(1));
        assert_eq!(bits("0x1p+128"), f32::INFINITY);
    }

    #[test]
    fn matches_known_printf_output() {
        assert_eq!(format_hex_f64(3.0), "0x1.8p+1");
        assert_eq!(format_hex_f64(-0.0), "-0x0p+0");
        assert_eq!(format_hex_f64(5e-324), "0x0.0000000000001p-1022");
        assert_eq!(format_hex_f64(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_hex(FloatTy::F32, 0x3f80_0000), "0x1p+0");
    }

    #[test]
    fn reads_decimal_special_and_raw_forms() {
        assert_eq!(f64_of("-inf"), f64::NEG_INFINITY);
        assert!(f64_of("nan").is_nan());
        assert_eq!(f64_of("1e-3"), 0.001);
        assert_eq!(
            parse_float(FloatTy::F64, "raw:7ff0000000000001").unwrap(),
            0x7ff0_0000_0000_0001
        );
        assert!(parse_float(FloatTy::F32, "raw:1ffffffff").is_err());
        assert!(parse_float(FloatTy::F64, "0x").is_err());
        assert!(parse_float(FloatTy::F64, "--1").is_err());
        assert_eq!(
            format_exact(FloatTy::F64, 0x7ff8_0000_0000_0002),
            "raw:7ff8000000000002"
        );
    }
}
