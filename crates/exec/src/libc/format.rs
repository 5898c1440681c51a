//! glibc's `printf` formatting, byte for byte: conversions `d i u o x X c s p % f F e E g
//! G a A`, flags `-+ #0`, widths and precisions (literal or `*`), length modifiers `hh h
//! l ll q j z Z t`, and `L` for an x87 `long double` (`%Lf %Le %Lg %La`). Floats are
//! converted exactly ([`Decimal`]: every digit of the binary value) and rounded as glibc
//! rounds them in the run's rounding mode ([`format_in`]):
//! half to even to nearest, else toward the mode for the value's sign; Rust's own float
//! formatting prints the shortest round-trip digits, which is not what C prints.

use fpir::eval::RoundingMode;
use fpir::f80::F80;
use std::fmt;

/// A conversion the model cannot format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "printf conversion `{}`", self.0)
    }
}

/// Where `printf` takes its arguments from and how it reads strings.
pub trait Args {
    /// The next argument's bits (integers and pointers as 64 bits, a double as its bits,
    /// a `long double` as two arguments: its significand, then its sign and exponent);
    /// 0 past the last one.
    fn next(&mut self) -> u64;
    /// The bytes of the C string at `addr` (at most `max` of them), or the reason the
    /// access faults.
    fn string(&mut self, addr: u64, max: Option<usize>) -> Result<Vec<u8>, FormatError>;
}

/// Why formatting stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
    /// A conversion the model does not know.
    Unsupported(Unsupported),
    /// Reading a `%s` argument faulted.
    Fault(crate::trap::TrapKind),
}

/// The arguments in a slice, with strings read by a closure (for tests and callers that
/// hold no memory).
pub struct SliceArgs<'a, F> {
    values: &'a [u64],
    next: usize,
    read: F,
}

impl<'a, F> SliceArgs<'a, F>
where
    F: FnMut(u64, Option<usize>) -> Result<Vec<u8>, FormatError>,
{
    /// `values` in order; `read` reads strings.
    pub fn new(values: &'a [u64], read: F) -> Self {
        SliceArgs {
            values,
            next: 0,
            read,
        }
    }
}

impl<F> Args for SliceArgs<'_, F>
where
    F: FnMut(u64, Option<usize>) -> Result<Vec<u8>, FormatError>,
{
    fn next(&mut self) -> u64 {
        let v = self.values.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        v
    }

    fn string(&mut self, addr: u64, max: Option<usize>) -> Result<Vec<u8>, FormatError> {
        (self.read)(addr, max)
    }
}

#[derive(Clone, Copy, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// How a float conversion rounds the digits it drops.
    rounding: DigitRounding,
}

/// How the digits a float conversion drops round its magnitude: to nearest (ties to
/// even), away from zero or toward zero, as the rounding mode says for the value's sign.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum DigitRounding {
    #[default]
    NearestEven,
    AwayFromZero,
    TowardZero,
}

impl DigitRounding {
    fn of(mode: RoundingMode, negative: bool) -> DigitRounding {
        match mode {
            RoundingMode::Nearest => DigitRounding::NearestEven,
            RoundingMode::Upward if !negative => DigitRounding::AwayFromZero,
            RoundingMode::Downward if negative => DigitRounding::AwayFromZero,
            _ => DigitRounding::TowardZero,
        }
    }

    /// Whether the kept digits go up one unit, given the first dropped digit of `base`,
    /// whether any later dropped digit is nonzero, and whether the last kept one is odd.
    fn rounds_up(self, first: u8, base: u8, more: bool, last_odd: bool) -> bool {
        let half = base / 2;
        match self {
            DigitRounding::NearestEven => first > half || (first == half && (more || last_odd)),
            DigitRounding::AwayFromZero => first > 0 || more,
            DigitRounding::TowardZero => false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Length {
    Char,
    Short,
    Int,
    Long,
    LongDouble,
}

/// Formats `fmt` with `args` as glibc's `printf` would in round-to-nearest.
pub fn format(fmt: &[u8], args: &mut impl Args) -> Result<Vec<u8>, FormatError> {
    format_in(fmt, args, RoundingMode::Nearest)
}

/// Formats `fmt` with `args` as glibc's `printf` would in rounding mode `mode`.
pub fn format_in(
    fmt: &[u8],
    args: &mut impl Args,
    mode: RoundingMode,
) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::with_capacity(fmt.len() + 16);
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let start = i - 1;
        let mut spec = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let w = args.next() as i32;
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
        } else {
            spec.width = number(fmt, &mut i);
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let p = args.next() as i32;
                spec.precision = usize::try_from(p).ok();
            } else {
                spec.precision = Some(number(fmt, &mut i));
            }
        }
        let mut length = Length::Int;
        while let Some(&l) = fmt.get(i) {
            length = match (l, length) {
                (b'h', Length::Short) => Length::Char,
                (b'h', _) => Length::Short,
                (b'l' | b'q' | b'j' | b'z' | b'Z' | b't', _) => Length::Long,
                (b'L', _) => Length::LongDouble,
                _ => break,
            };
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        match conv {
            b'd' | b'i' => {
                let v = signed(args.next(), length);
                let sign = sign_text(v < 0, &spec);
                integer(&mut out, &spec, sign, "", &v.unsigned_abs().to_string());
            }
            b'u' | b'o' | b'x' | b'X' => {
                let v = unsigned(args.next(), length);
                unsigned_conv(&mut out, &spec, conv, v);
            }
            // `%n` writes through its argument, `%lc`/`%ls` take wide characters.
            b'n' | b'c' | b's' if conv == b'n' || length == Length::Long => {
                return Err(unsupported(&fmt[start..i]));
            }
            b'c' => pad(&mut out, &spec, "", &[args.next() as u8], false),
            b's' => {
                let addr = args.next();
                let text = if addr == 0 {
                    match spec.precision {
                        Some(p) if p < 6 => Vec::new(),
                        _ => b"(null)".to_vec(),
                    }
                } else {
                    args.string(addr, spec.precision)?
                };
                pad(&mut out, &spec, "", &text, false);
            }
            b'p' => {
                let addr = args.next();
                if addr == 0 {
                    pad(&mut out, &spec, "", b"(nil)", false);
                } else {
                    let sign = sign_text(false, &spec);
                    let digits = format!("{addr:x}");
                    let prefix = format!("{sign}0x");
                    integer(&mut out, &spec, &prefix, "", &digits);
                }
            }
            b'%' => out.push(b'%'),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let value = if length == Length::LongDouble {
                    let sig = args.next();
                    let se = args.next() as u16;
                    FloatArg::extended(F80 { sig, se })
                } else {
                    FloatArg::double(f64::from_bits(args.next()))
                };
                float(&mut out, &spec, conv, &value, mode);
            }
            _ => out.extend_from_slice(&fmt[start..i]),
        }
    }
    Ok(out)
}

/// The error for the conversion spelled `spec`.
fn unsupported(spec: &[u8]) -> FormatError {
    FormatError::Unsupported(Unsupported(String::from_utf8_lossy(spec).into_owned()))
}

fn number(fmt: &[u8], i: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(d) = fmt.get(*i).filter(|d| d.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
        *i += 1;
    }
    n
}

fn signed(bits: u64, length: Length) -> i64 {
    match length {
        Length::Char => i64::from(bits as i8),
        Length::Short => i64::from(bits as i16),
        Length::Int => i64::from(bits as i32),
        Length::Long | Length::LongDouble => bits as i64,
    }
}

fn unsigned(bits: u64, length: Length) -> u64 {
    match length {
        Length::Char => u64::from(bits as u8),
        Length::Short => u64::from(bits as u16),
        Length::Int => u64::from(bits as u32),
        Length::Long | Length::LongDouble => bits,
    }
}

fn sign_text(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn unsigned_conv(out: &mut Vec<u8>, spec: &Spec, conv: u8, v: u64) {
    let digits = match conv {
        b'u' => v.to_string(),
        b'o' => format!("{v:o}"),
        b'x' => format!("{v:x}"),
        _ => format!("{v:X}"),
    };
    let prefix = match conv {
        b'x' if spec.alt && v != 0 => "0x",
        b'X' if spec.alt && v != 0 => "0X",
        _ => "",
    };
    // `#o` makes the first digit a zero, which a precision may already provide.
    let octal_zero = conv == b'o'
        && spec.alt
        && (v != 0 || spec.precision == Some(0))
        && spec.precision.is_none_or(|p| p <= digits.len());
    integer(
        out,
        spec,
        prefix,
        if octal_zero { "0" } else { "" },
        &digits,
    );
}

/// An integer conversion: `prefix` (sign, `0x`), then `lead` (the `#o` zero) and
/// `digits` extended to the precision, padded to the width.
fn integer(out: &mut Vec<u8>, spec: &Spec, prefix: &str, lead: &str, digits: &str) {
    let mut body = String::from(lead);
    let digits = if spec.precision == Some(0) && digits == "0" {
        ""
    } else {
        digits
    };
    if let Some(p) = spec.precision {
        for _ in digits.len()..p {
            body.push('0');
        }
    }
    body.push_str(digits);
    let zero = spec.zero && spec.precision.is_none();
    pad(out, spec, prefix, body.as_bytes(), zero);
}

/// `prefix` and `body`, padded to the width: on the right with `-`, else with zeros
/// between them when `zero`, else with spaces on the left.
fn pad(out: &mut Vec<u8>, spec: &Spec, prefix: &str, body: &[u8], zero: bool) {
    let len = prefix.len() + body.len();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if zero {
        out.extend_from_slice(prefix.as_bytes());
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
    }
}

/// A floating-point argument of a conversion: its sign and magnitude.
struct FloatArg {
    negative: bool,
    magnitude: Magnitude,
}

enum Magnitude {
    Nan,
    Infinite,
    /// `mantissa * 2^e2`, and the digits `%a` prints.
    Finite {
        mantissa: u64,
        e2: i32,
        hex: Hex,
    },
}

/// A magnitude as `%a` writes it before rounding: the leading hexadecimal digit, the
/// fraction's digits and the binary exponent.
struct Hex {
    lead: u64,
    digits: Vec<u8>,
    exp: i64,
}

impl FloatArg {
    fn double(x: f64) -> FloatArg {
        let bits = x.to_bits();
        let biased = (bits >> 52 & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let magnitude = match (biased, fraction) {
            (0x7ff, 0) => Magnitude::Infinite,
            (0x7ff, _) => Magnitude::Nan,
            _ => {
                // A double's `%a` leads with its integer bit and 13 digits of fraction.
                let (lead, exp) = match (biased, fraction) {
                    (0, 0) => (0, 0),
                    (0, _) => (0, -1022),
                    _ => (1, i64::from(biased) - 1023),
                };
                let (mantissa, e2) = if biased == 0 {
                    (fraction, -1074)
                } else {
                    (fraction | 1 << 52, biased - 1075)
                };
                Magnitude::Finite {
                    mantissa,
                    e2,
                    hex: Hex {
                        lead,
                        digits: nibbles(fraction << 12, 13),
                        exp,
                    },
                }
            }
        };
        FloatArg {
            negative: x.is_sign_negative(),
            magnitude,
        }
    }

    /// An x87 value. glibc's `%La` leads with the significand's top four bits (so
    /// `1.0L` is `0x8p-3`) and writes the other 60 as 15 digits.
    fn extended(x: F80) -> FloatArg {
        let biased = i32::from(x.se & 0x7fff);
        let magnitude = if x.is_nan() || x.is_unsupported_encoding() {
            Magnitude::Nan
        } else if biased == 0x7fff {
            Magnitude::Infinite
        } else {
            let e2 = biased.max(1) - 16383 - 63;
            let exp = if x.sig == 0 { 0 } else { i64::from(e2) + 60 };
            Magnitude::Finite {
                mantissa: x.sig,
                e2,
                hex: Hex {
                    lead: x.sig >> 60,
                    digits: nibbles(x.sig << 4, 15),
                    exp,
                },
            }
        };
        FloatArg {
            negative: x.is_negative(),
            magnitude,
        }
    }
}

/// The top `count` hexadecimal digits of `bits`.
fn nibbles(bits: u64, count: usize) -> Vec<u8> {
    (0..count)
        .map(|k| (bits >> (60 - 4 * k) & 0xf) as u8)
        .collect()
}

fn float(out: &mut Vec<u8>, spec: &Spec, conv: u8, x: &FloatArg, mode: RoundingMode) {
    let spec = &Spec {
        rounding: DigitRounding::of(mode, x.negative),
        ..*spec
    };
    let upper = conv.is_ascii_uppercase();
    let sign = sign_text(x.negative, spec);
    let (mantissa, e2, hex) = match &x.magnitude {
        Magnitude::Finite { mantissa, e2, hex } => (*mantissa, *e2, hex),
        special => {
            let text = match (matches!(special, Magnitude::Nan), upper) {
                (true, false) => "nan",
                (true, true) => "NAN",
                (false, false) => "inf",
                (false, true) => "INF",
            };
            pad(out, spec, sign, text.as_bytes(), false);
            return;
        }
    };
    let exact = || Decimal::of_binary(mantissa, e2);
    let precision = spec.precision.unwrap_or(6);
    let (prefix, body) = match conv.to_ascii_lowercase() {
        b'f' => (sign.to_string(), fixed(spec, exact(), precision)),
        b'e' => (sign.to_string(), exponent(spec, exact(), precision)),
        b'g' => (sign.to_string(), general(spec, exact())),
        _ => {
            let body = hex_float(spec, hex);
            (format!("{sign}0x"), body)
        }
    };
    let (prefix, body) = if upper {
        (prefix.to_ascii_uppercase(), body.to_ascii_uppercase())
    } else {
        (prefix, body)
    };
    pad(out, spec, &prefix, body.as_bytes(), spec.zero && !spec.left);
}

/// `%f` of the exact magnitude `d` with `precision` fraction digits.
fn fixed(spec: &Spec, d: Decimal, precision: usize) -> String {
    let keep = i64::from(d.point) + precision as i64;
    let d = d.rounded(keep, spec.rounding);
    let mut s = String::new();
    if d.point <= 0 {
        s.push('0');
    } else {
        for i in 0..d.point {
            s.push(d.digit(i64::from(i)));
        }
    }
    if precision > 0 || spec.alt {
        s.push('.');
    }
    for i in 0..precision as i64 {
        s.push(d.digit(i64::from(d.point) + i));
    }
    s
}

/// `%e` of the exact magnitude `d` with `precision` fraction digits.
fn exponent(spec: &Spec, d: Decimal, precision: usize) -> String {
    let d = d.rounded(precision as i64 + 1, spec.rounding);
    let exp = if d.is_zero() { 0 } else { d.point - 1 };
    let mut s = String::new();
    s.push(d.digit(0));
    if precision > 0 || spec.alt {
        s.push('.');
    }
    for i in 1..=precision as i64 {
        s.push(d.digit(i));
    }
    let sign = if exp < 0 { '-' } else { '+' };
    s.push_str(&format!("e{sign}{:02}", exp.unsigned_abs()));
    s
}

/// `%g` of the exact magnitude `exact`.
fn general(spec: &Spec, exact: Decimal) -> String {
    let p = spec.precision.unwrap_or(6).max(1);
    let exact_exp = i64::from(exact.point) - 1;
    let d = exact.clone().rounded(p as i64, spec.rounding);
    let exp = if d.is_zero() {
        0
    } else {
        i64::from(d.point) - 1
    };
    let carried = !d.is_zero() && exact_exp < exp;
    let mut s = if exp < p as i64 && exp >= -4 {
        fixed(spec, exact, (p as i64 - 1 - exp) as usize)
    } else if spec.alt && carried && exp == p as i64 {
        // glibc 2.36 (printf_fp.c) drops the fraction's digits when rounding carries
        // the exponent up to the precision: `%#.2g` of 99.7 is `1.e+02`, not `1.0e+02`.
        exponent(spec, exact, 0)
    } else {
        exponent(spec, exact, p - 1)
    };
    if !spec.alt {
        let (mantissa, tail) = match s.find('e') {
            Some(k) => (s[..k].to_string(), s[k..].to_string()),
            None => (s.clone(), String::new()),
        };
        let mantissa = if mantissa.contains('.') {
            mantissa.trim_end_matches('0').trim_end_matches('.')
        } else {
            &mantissa
        };
        s = format!("{mantissa}{tail}");
    }
    s
}

/// `%a` of a finite magnitude after the `0x` prefix.
fn hex_float(spec: &Spec, hex: &Hex) -> String {
    let (mut lead, mut exp) = (hex.lead, hex.exp);
    let mut digits = hex.digits.clone();
    let count = digits.len();
    match spec.precision {
        Some(p) if p < count => {
            let rest = &digits[p..];
            let first = rest[0];
            let more = rest[1..].iter().any(|&d| d != 0);
            let last_odd = if p == 0 {
                lead & 1 == 1
            } else {
                digits[p - 1] & 1 == 1
            };
            let up = spec.rounding.rounds_up(first, 16, more, last_odd);
            digits.truncate(p);
            if up {
                let mut k = p;
                loop {
                    if k == 0 {
                        lead += 1;
                        break;
                    }
                    k -= 1;
                    if digits[k] == 15 {
                        digits[k] = 0;
                    } else {
                        digits[k] += 1;
                        break;
                    }
                }
            }
            if lead == 16 {
                // glibc's x87 `%La`: a leading `f` that carries becomes `1`, four
                // binary places up.
                lead = 1;
                exp += 4;
            }
        }
        Some(p) => digits.resize(p, 0),
        None => {
            while digits.last() == Some(&0) {
                digits.pop();
            }
        }
    }
    let mut s = format!("{lead:x}");
    if !digits.is_empty() || spec.alt {
        s.push('.');
    }
    for d in digits {
        s.push(char::from_digit(u32::from(d), 16).unwrap_or('0'));
    }
    let sign = if exp < 0 { '-' } else { '+' };
    s.push_str(&format!("p{sign}{}", exp.unsigned_abs()));
    s
}

/// The exact decimal expansion of a non-negative finite binary number: `0.DIGITS × 10^point`,
/// with no leading or trailing zero digit (no digits for zero).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    digits: Vec<u8>,
    point: i32,
}

impl Decimal {
    /// The exact value of `x` (its sign ignored).
    pub fn of(x: f64) -> Decimal {
        match FloatArg::double(x).magnitude {
            Magnitude::Finite { mantissa, e2, .. } => Decimal::of_binary(mantissa, e2),
            _ => Decimal::of_binary(0, 0),
        }
    }

    /// The exact value of `mantissa * 2^e2`.
    pub fn of_binary(mantissa: u64, e2: i32) -> Decimal {
        if mantissa == 0 {
            return Decimal {
                digits: Vec::new(),
                point: 0,
            };
        }
        let mut big = Big::from(mantissa);
        let shift = if e2 >= 0 {
            big.mul_pow(2, e2 as u32);
            0
        } else {
            big.mul_pow(5, e2.unsigned_abs());
            e2.unsigned_abs() as i32
        };
        let mut digits = big.decimal_digits();
        let point = digits.len() as i32 - shift;
        while digits.last() == Some(&0) {
            digits.pop();
        }
        Decimal { digits, point }
    }

    /// The `i`-th digit after the leading `0.`, as a character (`'0'` outside the digits).
    fn digit(&self, i: i64) -> char {
        let d = usize::try_from(i)
            .ok()
            .and_then(|i| self.digits.get(i))
            .copied()
            .unwrap_or(0);
        char::from(b'0' + d)
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// The value rounded by `rounding` to `keep` digits after the leading `0.`.
    fn rounded(mut self, keep: i64, rounding: DigitRounding) -> Decimal {
        if keep >= self.digits.len() as i64 {
            return self;
        }
        if keep < 0 {
            // Every digit is dropped: zero, or rounding away from zero one unit of the
            // last kept place, 10^(point - keep).
            if rounding == DigitRounding::AwayFromZero && !self.is_zero() {
                return Decimal {
                    digits: vec![1],
                    point: self.point - keep as i32 + 1,
                };
            }
            return Decimal {
                digits: Vec::new(),
                point: self.point,
            };
        }
        let k = keep as usize;
        let first = self.digits[k];
        let more = self.digits[k + 1..].iter().any(|&d| d != 0);
        let last_odd = k > 0 && self.digits[k - 1] % 2 == 1;
        let up = rounding.rounds_up(first, 10, more, last_odd);
        self.digits.truncate(k);
        if up {
            let mut i = k;
            loop {
                if i == 0 {
                    self.digits.insert(0, 1);
                    self.point += 1;
                    break;
                }
                i -= 1;
                if self.digits[i] == 9 {
                    self.digits[i] = 0;
                } else {
                    self.digits[i] += 1;
                    break;
                }
            }
        }
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        self
    }
}

/// A natural number in base 10^9 limbs, least significant first.
struct Big(Vec<u64>);

const LIMB: u64 = 1_000_000_000;

impl Big {
    fn from(mut n: u64) -> Big {
        let mut limbs = Vec::new();
        while n > 0 {
            limbs.push(n % LIMB);
            n /= LIMB;
        }
        Big(limbs)
    }

    fn mul_small(&mut self, m: u64) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = *limb * m + carry;
            *limb = v % LIMB;
            carry = v / LIMB;
        }
        while carry > 0 {
            self.0.push(carry % LIMB);
            carry /= LIMB;
        }
    }

    /// Multiplies by `base^exp` (`base` 2 or 5), in steps that keep limb products in u64.
    fn mul_pow(&mut self, base: u64, mut exp: u32) {
        let step = if base == 2 { 30 } else { 13 };
        while exp > 0 {
            let e = exp.min(step);
            self.mul_small(base.pow(e));
            exp -= e;
        }
    }

    fn decimal_digits(&self) -> Vec<u8> {
        let mut digits = Vec::with_capacity(self.0.len() * 9);
        for (k, limb) in self.0.iter().rev().enumerate() {
            let text = if k == 0 {
                limb.to_string()
            } else {
                format!("{limb:09}")
            };
            digits.extend(text.bytes().map(|b| b - b'0'));
        }
        digits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(fmt: &str, values: &[u64]) -> String {
        let mut args = SliceArgs::new(values, |_, max: Option<usize>| {
            Ok(b"str"[..max.unwrap_or(3).min(3)].to_vec())
        });
        String::from_utf8(format(fmt.as_bytes(), &mut args).unwrap()).unwrap()
    }

    #[test]
    fn conversions_outside_the_model_are_named() {
        for spec in ["%n", "%ls", "%lc"] {
            let mut args = SliceArgs::new(&[0], |_, _| Ok(Vec::new()));
            assert_eq!(
                format(spec.as_bytes(), &mut args),
                Err(FormatError::Unsupported(Unsupported(spec.to_string())))
            );
        }
    }

    #[test]
    fn glibc_examples() {
        assert_eq!(
            show(
                "%.0f %.0f %.0f",
                &[0.5f64.to_bits(), 1.5f64.to_bits(), 2.5f64.to_bits()]
            ),
            "0 2 2"
        );
        assert_eq!(show("%.20f", &[0.1f64.to_bits()]), "0.10000000000000000555");
        assert_eq!(
            show(
                "%g %g %g",
                &[
                    1e-5f64.to_bits(),
                    123456789.0f64.to_bits(),
                    100.0f64.to_bits()
                ]
            ),
            "1e-05 1.23457e+08 100"
        );
        assert_eq!(
            show(
                "%a %a %.0a",
                &[1.0f64.to_bits(), 0.1f64.to_bits(), 1.5f64.to_bits()]
            ),
            "0x1p+0 0x1.999999999999ap-4 0x2p+0"
        );
        assert_eq!(
            show(
                "%08.3f|%-8d|%+d|% d|%#x|%#o",
                &[(-3.17159f64).to_bits(), 42, 7, 7, 255, 8]
            ),
            "-003.172|42      |+7| 7|0xff|010"
        );
        assert_eq!(
            show("%X %5s %.1s %c%%", &[0xabcu64, 1, 1, u64::from(b'z')]),
            "ABC   str s z%"
        );
        assert_eq!(
            show(
                "%d %u %hhd %lld",
                &[(-1i64) as u64, (-1i64) as u64, 200, (-5i64) as u64]
            ),
            "-1 4294967295 -56 -5"
        );
        assert_eq!(
            show("%e %E", &[0.0f64.to_bits(), f64::INFINITY.to_bits()]),
            "0.000000e+00 INF"
        );
        assert_eq!(
            show("%5.1f %-6g|", &[f64::NAN.to_bits(), (-0.0f64).to_bits()]),
            "  nan -0    |"
        );
    }
}
