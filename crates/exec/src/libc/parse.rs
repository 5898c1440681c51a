//! Number parsing as glibc's `strtol`, `strtoul`, `strtod` and `strtof` do it: leading
//! white space, a sign, C's prefixes (`0x`, octal `0`, hexadecimal floats with a `p`
//! exponent), `inf`/`infinity`/`nan(...)`, the length of the prefix that parsed (what
//! `endptr` points past) and whether the value was out of range (`ERANGE`). Decimal
//! floats are rounded correctly by Rust's parser; hexadecimal ones here.

/// A parsed number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parsed<T> {
    /// The value (0 when nothing parsed).
    pub value: T,
    /// Bytes consumed, white space and sign included; 0 when nothing parsed.
    pub used: usize,
    /// The value was out of range (`errno = ERANGE`).
    pub range_error: bool,
}

fn skip_space(s: &[u8]) -> usize {
    s.iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .count()
}

fn sign(s: &[u8], i: &mut usize) -> bool {
    match s.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    }
}

/// The digits of an integer in `base` (0: from the prefix) at `s`: (negative, magnitude
/// saturated at u64::MAX with an overflow flag, bytes used).
fn integer(s: &[u8], base: u32) -> (bool, u64, bool, usize) {
    let mut i = skip_space(s);
    let negative = sign(s, &mut i);
    let hex_prefix = matches!(s.get(i), Some(b'0'))
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let base = match base {
        0 if hex_prefix => 16,
        0 if s.get(i) == Some(&b'0') => 8,
        0 => 10,
        b => b,
    };
    if !(2..=36).contains(&base) {
        return (false, 0, false, 0);
    }
    if base == 16 && hex_prefix {
        i += 2;
    }
    let start = i;
    let mut value = 0u64;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|&b| char::from(b).to_digit(base)) {
        match value
            .checked_mul(u64::from(base))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return (false, 0, false, 0);
    }
    (negative, value, overflow, i)
}

/// `strtol(s, &end, base)`.
pub fn strtol(s: &[u8], base: u32) -> Parsed<i64> {
    let (negative, magnitude, overflow, used) = integer(s, base);
    let limit = if negative {
        i64::MIN.unsigned_abs()
    } else {
        i64::MAX as u64
    };
    let range_error = overflow || magnitude > limit;
    let value = match (range_error, negative) {
        (true, true) => i64::MIN,
        (true, false) => i64::MAX,
        (false, true) => 0i64.wrapping_sub_unsigned(magnitude),
        (false, false) => magnitude as i64,
    };
    Parsed {
        value,
        used,
        range_error,
    }
}

/// `strtoul(s, &end, base)`: a negative number is negated in `unsigned long`.
pub fn strtoul(s: &[u8], base: u32) -> Parsed<u64> {
    let (negative, magnitude, overflow, used) = integer(s, base);
    let value = match (overflow, negative) {
        (true, _) => u64::MAX,
        (false, true) => magnitude.wrapping_neg(),
        (false, false) => magnitude,
    };
    Parsed {
        value,
        used,
        range_error: overflow,
    }
}

/// Precision and least normal exponent of a float format.
#[derive(Clone, Copy)]
struct Format {
    bits: i64,
    min_exp: i64,
    max_exp: i64,
}

const DOUBLE: Format = Format {
    bits: 53,
    min_exp: -1022,
    max_exp: 1023,
};
const SINGLE: Format = Format {
    bits: 24,
    min_exp: -126,
    max_exp: 127,
};

/// `strtod(s, &end)`.
pub fn strtod(s: &[u8]) -> Parsed<f64> {
    float(s, DOUBLE, |text| text.parse::<f64>().unwrap_or(0.0))
}

/// `strtof(s, &end)`.
pub fn strtof(s: &[u8]) -> Parsed<f32> {
    let p = float(s, SINGLE, |text| {
        f64::from(text.parse::<f32>().unwrap_or(0.0))
    });
    Parsed {
        value: p.value as f32,
        used: p.used,
        range_error: p.range_error,
    }
}

/// A float of `format` (returned as f64, exact); `decimal` converts a normalized decimal
/// text (`123.45e-6`) correctly rounded to the format.
fn float(s: &[u8], format: Format, decimal: impl Fn(&str) -> f64) -> Parsed<f64> {
    let nothing = Parsed {
        value: 0.0,
        used: 0,
        range_error: false,
    };
    let mut i = skip_space(s);
    let negative = sign(s, &mut i);
    let apply = |v: f64| if negative { -v } else { v };
    let rest = &s[i..];
    let lower = |n: usize| rest.get(..n).map(<[u8]>::to_ascii_lowercase);
    if lower(3).as_deref() == Some(b"inf") {
        let n = if lower(8).as_deref() == Some(b"infinity") {
            8
        } else {
            3
        };
        return Parsed {
            value: apply(f64::INFINITY),
            used: i + n,
            range_error: false,
        };
    }
    if lower(3).as_deref() == Some(b"nan") {
        let mut n = 3;
        if rest.get(3) == Some(&b'(') {
            let close = rest[4..]
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'));
            if let Some(k) = close.filter(|&k| rest.get(4 + k) == Some(&b')')) {
                n = 4 + k + 1;
            }
        }
        return Parsed {
            value: apply(f64::NAN),
            used: i + n,
            range_error: false,
        };
    }
    let hex = rest.first() == Some(&b'0')
        && matches!(rest.get(1), Some(b'x' | b'X'))
        && (rest.get(2).is_some_and(u8::is_ascii_hexdigit)
            || (rest.get(2) == Some(&b'.') && rest.get(3).is_some_and(u8::is_ascii_hexdigit)));
    let (value, used, nonzero) = if hex {
        match hex_float(&rest[2..], format) {
            Some((v, n, nonzero)) => (v, i + 2 + n, nonzero),
            None => return nothing,
        }
    } else {
        let Some((text, n, nonzero)) = decimal_text(rest) else {
            return nothing;
        };
        (decimal(&text), i + n, nonzero)
    };
    let tiny = value.abs() < f64::powi(2.0, format.min_exp as i32);
    Parsed {
        value: apply(value),
        used,
        range_error: value.is_infinite() || (nonzero && tiny),
    }
}

/// The decimal number at the start of `s` as text Rust parses, the bytes it takes and
/// whether any digit is nonzero.
fn decimal_text(s: &[u8]) -> Option<(String, usize, bool)> {
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while s.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let whole = digits(&mut i);
    let mut frac = 0;
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        frac = digits(&mut j);
        if whole + frac > 0 {
            i = j;
        }
    }
    if whole + frac == 0 {
        return None;
    }
    let mantissa_end = i;
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digits(&mut j) > 0 {
            i = j;
        }
    }
    let mantissa = &s[..mantissa_end];
    let nonzero = mantissa.iter().any(|b| (b'1'..=b'9').contains(b));
    let mut text = String::from_utf8_lossy(&s[..i]).into_owned();
    if text.starts_with('.') {
        text.insert(0, '0');
    }
    Some((text, i, nonzero))
}

/// The hexadecimal float after `0x` at `s`, correctly rounded to `format`: (value, bytes
/// used, any digit nonzero).
fn hex_float(s: &[u8], format: Format) -> Option<(f64, usize, bool)> {
    let mut i = 0;
    let mut mantissa = 0u64;
    let mut exp = 0i64;
    let mut sticky = false;
    let mut any = false;
    let mut seen_point = false;
    loop {
        match s.get(i) {
            Some(b'.') if !seen_point => seen_point = true,
            Some(&b) if b.is_ascii_hexdigit() => {
                any = true;
                let d = u64::from(char::from(b).to_digit(16).unwrap_or(0));
                if mantissa >> 60 == 0 {
                    mantissa = mantissa << 4 | d;
                    if seen_point {
                        exp -= 4;
                    }
                } else {
                    sticky |= d != 0;
                    if !seen_point {
                        exp += 4;
                    }
                }
            }
            _ => break,
        }
        i += 1;
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let negative = sign(s, &mut j);
        let start = j;
        let mut e = 0i64;
        while let Some(b) = s.get(j).filter(|b| b.is_ascii_digit()) {
            e = (e * 10 + i64::from(b - b'0')).min(1 << 40);
            j += 1;
        }
        if j > start {
            exp += if negative { -e } else { e };
            i = j;
        }
    }
    let nonzero = mantissa != 0 || sticky;
    Some((compose(mantissa, sticky, exp, format), i, nonzero))
}

/// `mantissa × 2^exp` (plus less than one unit when `sticky`) rounded half to even to
/// `format`. For a subnormal result glibc 2.36's `strtof`/`strtod` first keep the
/// format's full precision of hexadecimal input and then round to the subnormal's with
/// the bit just below the kept ones forgotten (the bits below it still count), and so
/// does this: `0x1.ba6045p-128` gives `0x1.ba604p-128` where a correct rounding gives
/// `0x1.ba6048p-128`, while `0x1.ce4bc24ac4a8dp-127` rounds up, as correctly.
fn compose(mantissa: u64, sticky: bool, exp: i64, format: Format) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    let (mut mantissa, mut sticky, mut exp) = (u128::from(mantissa), sticky, exp);
    let lead = 127 - i64::from(mantissa.leading_zeros());
    let extra = lead + 1 - format.bits;
    if exp + lead < format.min_exp && extra > 0 {
        let below_forgotten = (1u128 << (extra - 1)) - 1;
        sticky |= mantissa & below_forgotten != 0;
        mantissa >>= extra;
        exp += extra;
    }
    let lead = 127 - i64::from(mantissa.leading_zeros());
    let top = exp + lead;
    if top > format.max_exp {
        return f64::INFINITY;
    }
    let keep = if top >= format.min_exp {
        format.bits
    } else {
        format.bits - (format.min_exp - top)
    };
    let (rounded, exp) = round_to_bits(mantissa, sticky, exp, keep);
    let value = rounded as f64 * pow2(exp);
    if value > f64::MAX || (format.bits == SINGLE.bits && value > f64::from(f32::MAX)) {
        return f64::INFINITY;
    }
    value
}

/// `mantissa × 2^exp` (plus less than one unit when `sticky`) rounded half to even to
/// `keep` significant bits (none when `keep` is not positive): the new mantissa and
/// exponent.
fn round_to_bits(mantissa: u128, sticky: bool, exp: i64, keep: i64) -> (u128, i64) {
    let lead = 127 - i64::from(mantissa.leading_zeros());
    let drop = lead + 1 - keep;
    if drop <= 0 {
        return (mantissa, exp);
    }
    if drop > 100 {
        return (0, exp + drop);
    }
    let m = mantissa << 2 | u128::from(sticky);
    let shift = drop as u32 + 2;
    let kept = m >> shift;
    let below = m & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let up = below > half || (below == half && kept & 1 == 1);
    (kept + u128::from(up), exp + drop)
}

/// 2^k as a product of exact powers (`k` may reach below the least normal exponent).
fn pow2(k: i64) -> f64 {
    let mut v = 1.0;
    let mut k = k;
    while k != 0 {
        let step = k.clamp(-1000, 1000);
        v *= f64::powi(2.0, step as i32);
        k -= step;
    }
    v
}
