//! True functions: the mathematical function an entry computes, evaluated by MPFR at any
//! precision, and the table that recognizes it by the entry's name.
//!
//! An accuracy run that measures `gsl_sf_bessel_J0` against the same code re-run in
//! high precision sees only the rounding error of the algorithm; measured against
//! MPFR's `j0` it sees the error of the result. [`TrueFunction::for_entry`] maps names
//! to functions:
//!
//! - **C library names** (`j0`, `erf`, `lgamma`, `expm1`, ..., and their `float` forms
//!   `j0f`, ...): fpir's math table ([`fpir::MathFn`], its MPFR column read through
//!   [`crate::math`]), so there is one table for those names; plus `jn` and `yn`.
//! - **GSL names** (`gsl_sf_bessel_J0`, `gsl_sf_psi`, ...), and their `_e` forms, which
//!   return a status and the value in a `gsl_sf_result *` (the caller measures
//!   `result->val`).
//! - **Cephes names** where the mapping is exact: `ndtr` (`erfc(-x/sqrt 2)/2`), `psi`,
//!   `lgam`, `zetac` (`zeta(x) - 1`), `ei`.
//!
//! A name whose meaning differs between libraries (`gamma`: `lgamma` in glibc, `tgamma`
//! in Cephes; Cephes's two-argument Hurwitz `zeta`) is not in the table.

use crate::math::{self, Counterpart};
use crate::metrics::{exact, HighValue};
use crate::x87;
use fpir::f80::F80;
use fpir::{FloatTy, MathCall, MathFn, MathShape};
use rug::Float;
use std::fmt;

mod airy;
mod elliptic;
mod trigamma;

/// A special function beside fpir's math table: MPFR's own, or built here from MPFR's
/// operations (Airy far from 0, trigamma, `E2`, the complete elliptic integrals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `psi(x)`, the digamma function.
    Digamma,
    /// `psi'(x)`, the trigamma function.
    Trigamma,
    /// Riemann's `zeta(x)`.
    Zeta,
    /// `zeta(x) - 1` (Cephes `zetac`).
    ZetaMinusOne,
    /// Airy `Ai(x)` (GSL's mode argument is ignored: it only chooses GSL's precision).
    Ai,
    /// The exponential integral `Ei(x)`.
    Ei,
    /// `E1(x) = -Ei(-x)`.
    E1,
    /// `E2(x) = e^-x - x E1(x)`, the real part for `x < 0` (GSL's `expint_E2`).
    E2,
    /// `e^x E2(x)` (GSL's `expint_E2_scaled`).
    E2Scaled,
    /// The complete elliptic integral of the first kind `K(k)`, modulus `k` (GSL's
    /// mode argument is ignored, as Airy's).
    EllipticK,
    /// The complete elliptic integral of the second kind `E(k)`.
    EllipticE,
    /// The dilogarithm `Li2(x)`.
    Li2,
    /// `J_n(x)` with the integer order first.
    Jn,
    /// `Y_n(x)` with the integer order first.
    Yn,
    /// The standard normal distribution function `erfc(-x / sqrt 2) / 2` (Cephes `ndtr`).
    Ndtr,
}

impl Special {
    const ALL: [Special; 15] = [
        Special::Digamma,
        Special::Trigamma,
        Special::Zeta,
        Special::ZetaMinusOne,
        Special::Ai,
        Special::Ei,
        Special::E1,
        Special::E2,
        Special::E2Scaled,
        Special::EllipticK,
        Special::EllipticE,
        Special::Li2,
        Special::Jn,
        Special::Yn,
        Special::Ndtr,
    ];

    /// The name `--oracle mpfr:NAME` takes (MPFR's, where MPFR has the function).
    fn name(self) -> &'static str {
        match self {
            Special::Digamma => "digamma",
            Special::Trigamma => "trigamma",
            Special::Zeta => "zeta",
            Special::ZetaMinusOne => "zetac",
            Special::Ai => "ai",
            Special::Ei => "eint",
            Special::E1 => "e1",
            Special::E2 => "e2",
            Special::E2Scaled => "e2_scaled",
            Special::EllipticK => "ellint_k",
            Special::EllipticE => "ellint_e",
            Special::Li2 => "li2",
            Special::Jn => "jn",
            Special::Yn => "yn",
            Special::Ndtr => "ndtr",
        }
    }
}

/// The true function of an entry: a row of fpir's math table or a [`Special`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrueFunction {
    /// A row of fpir's math table with a real-valued MPFR counterpart.
    Math(MathFn),
    /// A function beside the table.
    Special(Special),
}

/// One operand of a true function: a float (raw bits of its format), a `long double`
/// or an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A floating-point operand.
    Float(FloatTy, u64),
    /// An x87 extended (`long double`) operand.
    Extended(F80),
    /// An integer operand (sign-extended).
    Int(i64),
}

impl Operand {
    /// Its exact value at `prec` bits, when it is a float.
    fn value(self, prec: u32) -> Option<Float> {
        match self {
            Operand::Float(ty, bits) => Some(exact(ty, bits, prec)),
            Operand::Extended(x) => Some(x87::value(x, prec)),
            Operand::Int(_) => None,
        }
    }

    fn kind(self) -> OperandKind {
        match self {
            Operand::Float(..) | Operand::Extended(_) => OperandKind::Float,
            Operand::Int(_) => OperandKind::Int,
        }
    }
}

/// GSL's special functions beside fpir's math table whose true function MPFR has (the
/// `_e` forms too); the table's own rows have their GSL names in [`gsl_name`].
const GSL: &[(&str, Special)] = &[
    ("gsl_sf_bessel_Jn", Special::Jn),
    ("gsl_sf_bessel_Yn", Special::Yn),
    ("gsl_sf_psi", Special::Digamma),
    ("gsl_sf_psi_1", Special::Trigamma),
    ("gsl_sf_zeta", Special::Zeta),
    ("gsl_sf_zetam1", Special::ZetaMinusOne),
    ("gsl_sf_airy_Ai", Special::Ai),
    ("gsl_sf_expint_Ei", Special::Ei),
    ("gsl_sf_expint_E1", Special::E1),
    ("gsl_sf_expint_E2", Special::E2),
    ("gsl_sf_expint_E2_scaled", Special::E2Scaled),
    ("gsl_sf_ellint_Kcomp", Special::EllipticK),
    ("gsl_sf_ellint_Ecomp", Special::EllipticE),
    ("gsl_sf_dilog", Special::Li2),
];

/// The GSL function (`gsl_sf_*`, whose `_e` form is also recognized) that computes the
/// row `f` of fpir's math table, if GSL has one.
///
/// Every row is decided here, with no catch-all arm: a new row does not compile until
/// someone looks for its GSL name.
fn gsl_name(f: MathFn) -> Option<&'static str> {
    use MathFn as M;
    match f {
        M::J0 => Some("gsl_sf_bessel_J0"),
        M::J1 => Some("gsl_sf_bessel_J1"),
        M::Y0 => Some("gsl_sf_bessel_Y0"),
        M::Y1 => Some("gsl_sf_bessel_Y1"),
        M::Erf => Some("gsl_sf_erf"),
        M::Erfc => Some("gsl_sf_erfc"),
        M::Tgamma => Some("gsl_sf_gamma"),
        M::Lgamma => Some("gsl_sf_lngamma"),
        M::Exp => Some("gsl_sf_exp"),
        M::Expm1 => Some("gsl_sf_expm1"),
        M::Log => Some("gsl_sf_log"),
        M::Log1p => Some("gsl_sf_log_1plusx"),
        M::Sin => Some("gsl_sf_sin"),
        M::Cos => Some("gsl_sf_cos"),
        M::Hypot => Some("gsl_sf_hypot"),
        // No `gsl_sf_*` function computes these (the `gsl_math.h` fallbacks of some,
        // `gsl_log1p`, `gsl_asinh`, ..., are not looked up).
        M::Fabs
        | M::Sqrt
        | M::Cbrt
        | M::Floor
        | M::Ceil
        | M::Trunc
        | M::Round
        | M::Rint
        | M::Nearbyint
        | M::Exp2
        | M::Exp10
        | M::Log2
        | M::Log10
        | M::Logb
        | M::Tan
        | M::Asin
        | M::Acos
        | M::Atan
        | M::Sinh
        | M::Cosh
        | M::Tanh
        | M::Asinh
        | M::Acosh
        | M::Atanh
        | M::Pow
        | M::Atan2
        | M::Fmod
        | M::Remainder
        | M::Copysign
        | M::Fmin
        | M::Fmax
        | M::Fdim
        | M::Nextafter
        | M::Minnum
        | M::Maxnum
        | M::Fma
        | M::Fmuladd
        | M::Ldexp
        | M::Scalbn
        | M::Ilogb
        | M::Lround
        | M::Llround
        | M::Lrint
        | M::Llrint
        | M::Frexp
        | M::Modf => None,
    }
}

/// Names of the C library and Cephes outside fpir's math table.
const OTHER_NAMES: &[(&str, TrueFunction)] = &[
    ("jn", TrueFunction::Special(Special::Jn)),
    ("yn", TrueFunction::Special(Special::Yn)),
    ("ndtr", TrueFunction::Special(Special::Ndtr)),
    ("psi", TrueFunction::Special(Special::Digamma)),
    ("lgam", TrueFunction::Math(MathFn::Lgamma)),
    ("zetac", TrueFunction::Special(Special::ZetaMinusOne)),
    ("ei", TrueFunction::Special(Special::Ei)),
];

impl TrueFunction {
    /// The true function of an entry named `name` (a C library name in its `double`,
    /// `float` or `long double` form, a GSL name, a GSL `_e` form included, or a Cephes
    /// name), when the table knows it.
    pub fn for_entry(name: &str) -> Option<TrueFunction> {
        let value_form = name.strip_suffix("_e").unwrap_or(name);
        let gsl_row = MathFn::ALL
            .into_iter()
            .find(|&f| gsl_name(f) == Some(value_form));
        if let Some(f) = gsl_row {
            return Some(TrueFunction::Math(f));
        }
        if let Some(&(_, s)) = GSL.iter().find(|(n, _)| *n == value_form) {
            return Some(TrueFunction::Special(s));
        }
        if let Some(&(_, f)) = OTHER_NAMES.iter().find(|(n, _)| *n == name) {
            return Some(f);
        }
        let func = match MathCall::from_c_symbol(name) {
            Some(call) => call.func,
            None => long_double_form(name)?,
        };
        TrueFunction::real_valued(func)
    }

    /// The function `--oracle mpfr:NAME` names: an MPFR name (`j0`, `lngamma`,
    /// `digamma`, `eint`, ...) or a C name of fpir's math table.
    pub fn from_mpfr_name(name: &str) -> Option<TrueFunction> {
        if let Some(&s) = Special::ALL.iter().find(|s| s.name() == name) {
            return Some(TrueFunction::Special(s));
        }
        let renamed = match name {
            "gamma" => "tgamma",
            "lngamma" => "lgamma",
            "abs" => "fabs",
            other => other,
        };
        MathFn::from_name(renamed).and_then(TrueFunction::real_valued)
    }

    /// A row of the math table as a true function, when MPFR gives it a real value of
    /// float operands.
    fn real_valued(func: MathFn) -> Option<TrueFunction> {
        let floats = matches!(
            func.shape(),
            MathShape::Unary | MathShape::Binary | MathShape::Ternary | MathShape::FloatInt
        );
        let probe = [Float::with_val(64, 0.5), Float::with_val(64, 0.25)];
        let valued = matches!(math::eval(func, 64, &probe, 0), Counterpart::Value(_));
        (floats && valued).then_some(TrueFunction::Math(func))
    }

    /// The MPFR name of the function, as reports label the oracle.
    pub fn mpfr_name(self) -> &'static str {
        match self {
            TrueFunction::Special(s) => s.name(),
            TrueFunction::Math(MathFn::Tgamma) => "gamma",
            TrueFunction::Math(MathFn::Fabs) => "abs",
            TrueFunction::Math(f) => f.name(),
        }
    }

    /// Whether `operands` are the function's: the float operands of its shape, with
    /// the order first for `jn`/`yn`, the exponent last for `ldexp`, and GSL's mode
    /// argument allowed after the `x` of Airy's function and the elliptic integrals.
    pub fn fits(self, operands: &[Operand]) -> bool {
        use OperandKind::{Float as F, Int as I};
        let kinds: Vec<OperandKind> = operands.iter().map(|o| o.kind()).collect();
        match self {
            TrueFunction::Special(Special::Jn | Special::Yn) => kinds == [I, F],
            TrueFunction::Special(Special::Ai | Special::EllipticK | Special::EllipticE) => {
                kinds == [F] || kinds == [F, I]
            }
            TrueFunction::Special(_) => kinds == [F],
            TrueFunction::Math(f) => match f.shape() {
                MathShape::Binary => kinds == [F, F],
                MathShape::Ternary => kinds == [F, F, F],
                MathShape::FloatInt => kinds == [F, I],
                _ => kinds == [F],
            },
        }
    }

    /// The function's value on `operands` at `prec` bits (correctly rounded by MPFR,
    /// except those defined by a formula or a series: `zetac`, `e1`, `e2`, `ndtr`,
    /// `trigamma`, the elliptic integrals and Airy's far from 0, within a few ulps of
    /// `prec` bits); `None` when the operands do not fit ([`TrueFunction::fits`]), or
    /// for Airy's function far from 0 at thousands of bits (beyond both its series and
    /// its asymptotic expansions).
    pub fn eval(self, prec: u32, operands: &[Operand]) -> Option<HighValue> {
        if !self.fits(operands) {
            return None;
        }
        let floats: Vec<Float> = operands
            .iter()
            .filter_map(|o| Some(Float::with_val(prec, o.value(prec)?)))
            .collect();
        let int = operands.iter().find_map(|o| match *o {
            Operand::Int(n) => Some(n.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32),
            Operand::Float(..) | Operand::Extended(_) => None,
        });
        let x = floats.first()?.clone();
        let value = match self {
            TrueFunction::Math(f) => match math::eval(f, prec, &floats, int.unwrap_or(0)) {
                Counterpart::Value(v) => v,
                Counterpart::Host | Counterpart::Frexp | Counterpart::Modf => return None,
            },
            TrueFunction::Special(s) => special(s, prec, x, int.unwrap_or(0))?,
        };
        Some(HighValue::from(value))
    }
}

/// Whether an operand is a float or an integer, as a function's shape asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OperandKind {
    Float,
    Int,
}

/// The function of the table whose C `long double` form is `name` (`expl`, `lgammal`).
fn long_double_form(name: &str) -> Option<MathFn> {
    let f = MathFn::from_name(name.strip_suffix('l')?)?;
    f.origin().is_c().then_some(f)
}

/// The bits of `|x|`'s integer part (0 below 1, and for 0, infinities and NaN): what a
/// formula whose terms cancel to `1/x`, or a reduction modulo `2π`, loses.
fn integer_bits(x: &Float) -> u32 {
    u32::try_from(x.get_exp().unwrap_or(0).max(0)).unwrap_or(0)
}

/// `E2(x) = e^-x + x Ei(-x)` (the real part for `x < 0`). The two terms cancel to
/// `e^-x / x` for large `|x|`, so they carry `log2 |x|` more bits; `None` where they
/// leave MPFR's exponent range (`|x|` above about `7e8`).
fn exponential_integral_2(prec: u32, x: Float) -> Option<Float> {
    if x.is_zero() {
        return Some(Float::with_val(prec, 1u32));
    }
    let extra = integer_bits(&x);
    let work = prec + 64 + extra;
    let x = Float::with_val(work, x);
    let decay = Float::with_val(work, -&x).exp();
    let ei = Float::with_val(work, -&x).eint();
    let in_range = decay.is_normal() && ei.is_normal();
    in_range.then(|| Float::with_val(prec, decay + x * ei))
}

/// `e^x E2(x) = 1 + x e^x Ei(-x)`, whose terms cancel to `1/x` for large `|x|` as
/// `E2`'s do. Past `|x| = work` bits the asymptotic series `(1/x) Σ (-1)^k (k+1)! / x^k`
/// (DLMF 8.20.2; its smallest term is about `e^-|x|`) serves instead: `e^x` and `Ei(-x)`
/// leave MPFR's exponent range there long before a double does.
fn scaled_exponential_integral_2(prec: u32, x: Float) -> Option<Float> {
    if x.is_nan() {
        return None;
    }
    if x.is_zero() {
        return Some(Float::with_val(prec, 1u32));
    }
    let extra = integer_bits(&x);
    let work = prec + 64 + extra;
    let x = Float::with_val(work, x);
    if x.is_infinite() {
        return Some(Float::new(prec));
    }
    if x.clone().abs() < work {
        let grown = Float::with_val(work, x.exp_ref());
        let ei = Float::with_val(work, -&x).eint();
        return Some(Float::with_val(
            prec,
            1u32 + Float::with_val(work, &x * grown) * ei,
        ));
    }
    let mut sum = Float::with_val(work, 1u32);
    let mut term = Float::with_val(work, 1u32);
    let tiny = Float::with_val(work, Float::i_exp(1, -(work as i32)));
    // The terms shrink while k + 1 < |x|, and |x| >= work.
    for k in 1..=work {
        // (k+1)! / x^k from k!/x^(k-1), with the sign of (-1)^k.
        term *= k + 1;
        term /= &x;
        term = -term;
        if term.clone().abs() > 1u32 || term.clone().abs() < tiny {
            break;
        }
        sum += &term;
    }
    Some(Float::with_val(prec, sum / x))
}

/// Whether MPFR's `jn`/`yn` may take their series at order `n` and `x` with `x^2` past
/// an unsigned long, which MPFR asserts against (an abort): they take it where their
/// asymptotic expansion fails, which its terms, shrinking by about `n^2 / (2 k x)`, do
/// not when `n^2` exceeds `x`. Such inputs have no true value here.
fn bessel_beyond_mpfr(x: &Float, n: i32) -> bool {
    let x = x.to_f64().abs();
    x >= 2f64.powi(31) && f64::from(n).powi(2) > x
}

/// The value of a [`Special`] at `x` (and the integer `n`).
fn special(s: Special, prec: u32, x: Float, n: i32) -> Option<Float> {
    if matches!(s, Special::Jn | Special::Yn) && bessel_beyond_mpfr(&x, n) {
        return None;
    }
    Some(match s {
        Special::Digamma => x.digamma(),
        Special::Trigamma => trigamma::trigamma(prec, &x)?,
        Special::Zeta => x.zeta(),
        Special::ZetaMinusOne => x.zeta() - 1u32,
        Special::Ai => airy::ai(prec, &x)?,
        Special::Ei => x.eint(),
        // MPFR's eint of a negative argument is -E1 of its opposite.
        Special::E1 => -((-x).eint()),
        Special::E2 => exponential_integral_2(prec, x)?,
        Special::E2Scaled => scaled_exponential_integral_2(prec, x)?,
        Special::EllipticK => elliptic::complete(elliptic::EllipticKind::First, prec, &x)?,
        Special::EllipticE => elliptic::complete(elliptic::EllipticKind::Second, prec, &x)?,
        Special::Li2 => x.li2(),
        Special::Jn => x.jn(n),
        Special::Yn => x.yn(n),
        Special::Ndtr => {
            let sqrt2 = Float::with_val(prec, 2u32).sqrt();
            let t = Float::with_val(prec, -x / sqrt2);
            t.erfc() / 2u32
        }
    })
}

impl fmt::Display for TrueFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MPFR {}", self.mpfr_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::float::Constant;

    const PREC: u32 = 200;

    fn decimal(text: &str) -> Float {
        Float::with_val(PREC, Float::parse(text).unwrap())
    }

    fn at(f: TrueFunction, x: f64) -> Float {
        let v = f.eval(PREC, &[Operand::Float(FloatTy::F64, x.to_bits())]);
        v.unwrap().as_float().clone()
    }

    fn close(a: &Float, b: &Float, rel: f64) -> bool {
        let diff = Float::with_val(PREC, a - b).abs();
        Float::with_val(PREC, diff / b.clone().abs()).to_f64() <= rel
    }

    fn named(name: &str) -> TrueFunction {
        TrueFunction::for_entry(name).unwrap_or_else(|| panic!("{name} is not in the table"))
    }

    /// Asserts that `f` agrees with each decimal value to `rel` at its argument.
    fn assert_agrees(f: TrueFunction, label: &str, cases: &[(f64, &str)], rel: f64) {
        for &(x, want) in cases {
            let got = at(f, x);
            assert!(
                close(&got, &decimal(want), rel),
                "{label}({x}) = {got}, want {want}"
            );
        }
    }

    #[test]
    fn e2_where_its_terms_cancel() {
        // mpmath's re(expint(2, x)) at 60 digits: next to E2's negative zero (GSL 2.7.1
        // returns -4.4e-16 at the first), and far out on both sides.
        let e2 = named("gsl_sf_expint_E2_e");
        let e2_values = [
            (
                -1.3471552510691682,
                "1.6815674214682241464044942588697792e-18",
            ),
            (1.0, "0.14849550677592204791835999470133922"),
            (-2.5, "-5.5019207757430283417387039549595652"),
            (700.0, "1.4045180121540397284498152074964069e-307"),
            (-50.0, "-108112919978773017443.31739368150821"),
            (0.0, "1"),
        ];
        assert_agrees(e2, "E2", &e2_values, 1e-33);
        let scaled = named("gsl_sf_expint_E2_scaled_e");
        let scaled_values = [
            (
                -6.991028857957759e+307,
                "-1.430404623293348955343427886477667686943e-308",
            ),
            (
                -3.5140166152462336e+16,
                "-2.845746362328819608516888822339342782077e-17",
            ),
            (
                -1.3471552510691682,
                "4.371718535465196730670668585881735669534e-19",
            ),
            (1.0, "0.4036526376768059256589215006307206239258"),
            (300.0, "0.003311330418787880669131422821641721615401"),
            (-300.0, "-0.003355780791134789993297126407026208046522"),
            (1e10, "0.0000000000999999999800000000059999999976000000012"),
        ];
        assert_agrees(scaled, "e^x E2", &scaled_values, 1e-38);
        let nan = Operand::Float(FloatTy::F64, f64::NAN.to_bits());
        assert_eq!(scaled.eval(PREC, &[nan]), None);
        // mpmath's 9.28e-4342944830 at 1e10 is out of MPFR's exponent range.
        let far = Operand::Float(FloatTy::F64, 1e10f64.to_bits());
        assert_eq!(e2.eval(PREC, &[far]), None);
    }

    #[test]
    fn known_values_of_the_table() {
        let pi = Float::with_val(PREC, Constant::Pi);
        let ln_sqrt_pi = Float::with_val(PREC, pi.clone().sqrt().ln());
        let pi2_6 = Float::with_val(PREC, pi.clone().square() / 6u32);
        let euler = Float::with_val(PREC, Constant::Euler);
        let cases: [(&str, f64, Float); 9] = [
            (
                "erf",
                1.0,
                decimal("0.84270079294971486934122063508260925929606699796630"),
            ),
            ("gsl_sf_lngamma_e", 0.5, ln_sqrt_pi),
            ("gsl_sf_zeta", 2.0, pi2_6.clone()),
            ("zetac", 2.0, Float::with_val(PREC, &pi2_6 - 1u32)),
            ("gsl_sf_psi", 1.0, Float::with_val(PREC, -euler)),
            (
                "gsl_sf_airy_Ai_e",
                0.0,
                decimal("0.35502805388781723926006318600418317639797917419918"),
            ),
            (
                "gsl_sf_expint_Ei",
                1.0,
                decimal("1.8951178163559367554665209343316342690170605817327"),
            ),
            (
                "gsl_sf_expint_E1_e",
                1.0,
                decimal("0.21938393439552027367716377546012164903104729340691"),
            ),
            ("gsl_sf_dilog", 1.0, pi2_6),
        ];
        for (name, x, want) in cases {
            let got = at(named(name), x);
            assert!(
                close(&got, &want, 1e-45),
                "{name}({x}) = {got}, want {want}"
            );
        }
        assert_eq!(at(named("ndtr"), 0.0), 0.5);
    }

    #[test]
    fn j0_at_the_double_nearest_its_first_zero() {
        // Near a simple zero z0, J0(x) = -J1(z0) (x - z0) to second order.
        let z0 = decimal("2.4048255576957727686216318793264546431242449091460");
        let x = z0.to_f64();
        let j1 = z0.clone().j1();
        let linear = Float::with_val(PREC, -(Float::with_val(PREC, x) - &z0) * j1);
        let got = at(named("j0"), x);
        assert!(
            close(&got, &linear, 1e-12),
            "j0({x}) = {got}, linear {linear}"
        );
        assert_eq!(named("gsl_sf_bessel_J0_e"), named("j0"));
    }

    #[test]
    fn bessel_orders_mpfr_cannot_evaluate_have_no_true_value_instead_of_an_abort() {
        // MPFR's series for J_n/Y_n asserts that z^2 fits an unsigned long; it takes
        // the series where its asymptotic expansion fails, |n| large for z.
        let x = Operand::Float(FloatTy::F64, 8589934592f64.to_bits());
        let order = Operand::Int(1 << 30);
        assert_eq!(named("jn").eval(PREC, &[order, x]), None);
        assert_eq!(named("yn").eval(PREC, &[order, x]), None);
        let near = Operand::Float(FloatTy::F64, 1e3f64.to_bits());
        assert!(named("jn").eval(PREC, &[order, near]).is_some());
        let small_order = Operand::Int(3);
        assert!(named("jn").eval(PREC, &[small_order, x]).is_some());
    }

    #[test]
    fn names_map_once_and_operands_fit() {
        assert_eq!(named("j0f"), TrueFunction::Math(MathFn::J0));
        assert_eq!(named("lgamma"), TrueFunction::Math(MathFn::Lgamma));
        assert_eq!(named("expm1"), TrueFunction::Math(MathFn::Expm1));
        assert_eq!(TrueFunction::for_entry("gamma"), None);
        assert_eq!(TrueFunction::for_entry("nextafter"), None);
        assert_eq!(TrueFunction::for_entry("frexp"), None);
        assert_eq!(
            TrueFunction::from_mpfr_name("lngamma"),
            Some(named("lgamma"))
        );
        assert_eq!(TrueFunction::from_mpfr_name("log1p"), Some(named("log1p")));
        assert_eq!(TrueFunction::from_mpfr_name("eint"), Some(named("ei")));
        assert_eq!(named("gsl_sf_bessel_J0").to_string(), "MPFR j0");
        let x = Operand::Float(FloatTy::F64, 2.5f64.to_bits());
        let jn = named("gsl_sf_bessel_Jn_e");
        assert!(jn.fits(&[Operand::Int(0), x]));
        assert!(!jn.fits(&[x]));
        let j0 = named("j0").eval(PREC, &[x]).unwrap();
        assert_eq!(jn.eval(PREC, &[Operand::Int(0), x]).unwrap(), j0);
        let ai = named("gsl_sf_airy_Ai_e");
        assert!(ai.fits(&[x, Operand::Int(0)]));
        let far = Operand::Float(FloatTy::F64, (-1000f64).to_bits());
        assert!(ai.eval(PREC, &[far]).is_some());
        assert_eq!(named("pow").eval(PREC, &[x]), None);
    }

    #[test]
    fn every_table_row_with_a_gsl_name_resolves_to_it() {
        let x = Operand::Float(FloatTy::F64, 0.5f64.to_bits());
        let mut rows = 0;
        for f in MathFn::ALL {
            let Some(name) = gsl_name(f) else { continue };
            rows += 1;
            let want = Some(TrueFunction::Math(f));
            assert_eq!(TrueFunction::for_entry(name), want, "{name}");
            assert_eq!(
                TrueFunction::for_entry(&format!("{name}_e")),
                want,
                "{name}_e"
            );
            assert!(GSL.iter().all(|&(other, _)| other != name), "{name} twice");
            let operands = vec![x; if f.shape() == MathShape::Binary { 2 } else { 1 }];
            assert!(
                TrueFunction::Math(f).eval(PREC, &operands).is_some(),
                "{name}"
            );
        }
        assert_eq!(rows, 15);
        for &(name, s) in GSL {
            assert_eq!(
                TrueFunction::for_entry(name),
                Some(TrueFunction::Special(s))
            );
        }
    }

    #[test]
    fn long_double_names_take_extended_operands() {
        assert_eq!(named("expl"), named("exp"));
        assert_eq!(named("lgammal"), named("lgamma"));
        assert_eq!(named("ldexpl"), named("ldexp"));
        assert_eq!(TrueFunction::for_entry("frexpl"), None);
        assert_eq!(TrueFunction::for_entry("ceill"), Some(named("ceil")));
        // 1 + 2^-63: below a double's precision, so the extended operand's own value.
        let x = F80 {
            sig: (1 << 63) | 1,
            se: 0x3fff,
        };
        let operand = Operand::Extended(x);
        assert!(named("expl").fits(&[operand]));
        assert!(named("ldexpl").fits(&[operand, Operand::Int(3)]));
        let got = named("logl").eval(PREC, &[operand]).unwrap();
        let want = Float::with_val(PREC, x87::value(x, PREC).ln());
        assert_eq!(*got.as_float(), want);
        assert!(close(
            &want,
            &Float::with_val(PREC, Float::u_exp(1, -63)),
            1e-18
        ));
    }
}
