//! The exact evaluator: IEEE-754 semantics of every operator on concrete values.
//!
//! This is the model checker behind every `sat` answer, so it is written
//! independently of the interval projections (`crate::interval`). In
//! round-to-nearest-even it uses the host's IEEE arithmetic, which Rust defines
//! as RNE: `+ - * /`, `sqrt`, `mul_add` (fused), `as` conversions between floats
//! and integers; the other four modes go through the exact arithmetic of
//! [`crate::ieee`]. `round_ties_even`/`round`/`ceil`/`floor`/`trunc` are exact,
//! so `roundToIntegral` and the conversions to integers use them in every mode.
//! Formats other than binary32 and binary64 have no host arithmetic: their
//! values are bit patterns ([`Value::Float`]) and every operation on them goes
//! through [`crate::ieee`] in every mode (module `any_format`).
//! `fp.min`/`fp.max` of two zeros of different signs may be either zero
//! (SMT-LIB leaves it open): a model carries the choice ([`Model::zero_choice`])
//! and [`check_model`] accepts a model under any choice. Other results that
//! SMT-LIB leaves
//! unspecified (`fp.min` of `+0`/`-0`, out-of-range `fp.to_sbv`) are marked
//! *tainted*: a model whose assertions depend on one is never reported `sat`.

mod any_format;

use std::fmt;

use crate::ieee;
use crate::sort::{FpFormat, HostFormat, SmtRounding, Sort};
use crate::term::{mask, Op, TermId, TermStore};

/// A concrete value of some sort.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// A Boolean.
    Bool(bool),
    /// A binary32 number.
    F32(f32),
    /// A binary64 number.
    F64(f64),
    /// A number of any other format: its bit pattern (NaN is the format's quiet
    /// NaN or any other NaN pattern; all are the one NaN of SMT-LIB).
    Float(FpFormat, u128),
    /// A bit-vector: value (upper bits zero) and width.
    Bv(u64, u32),
    /// A rounding mode.
    Rm(SmtRounding),
}

impl Value {
    /// The default value of a sort (false, +0, zero bit-vector, RNE).
    pub fn zero(sort: Sort) -> Value {
        match sort {
            Sort::Bool => Value::Bool(false),
            Sort::Fp(f) => Value::from_float_bits(f, 0),
            Sort::BitVec(w) => Value::Bv(0, w),
            Sort::RoundingMode => Value::Rm(SmtRounding::Rne),
        }
    }

    /// SMT-LIB `=`: identity, with a single NaN and `+0 != -0`.
    pub fn same(&self, other: &Value) -> bool {
        match (*self, *other) {
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::F32(a), Value::F32(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            (Value::F64(a), Value::F64(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            (Value::Float(f, a), Value::Float(g, b)) => {
                f == g && ((f.is_nan(a) && f.is_nan(b)) || a == b)
            }
            (Value::Bv(a, w), Value::Bv(b, v)) => a == b && w == v,
            (Value::Rm(a), Value::Rm(b)) => a == b,
            _ => false,
        }
    }

    /// The Boolean inside, or false for other sorts.
    pub fn as_bool(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// The format and bit pattern of a float.
    pub fn float_bits(&self) -> Option<(FpFormat, u128)> {
        match *self {
            Value::F32(x) => Some((FpFormat::F32, u128::from(x.to_bits()))),
            Value::F64(x) => Some((FpFormat::F64, u128::from(x.to_bits()))),
            Value::Float(f, bits) => Some((f, bits)),
            _ => None,
        }
    }

    /// The float of format `f` with bit pattern `bits` (upper bits ignored).
    pub fn from_float_bits(f: FpFormat, bits: u128) -> Value {
        match f.host() {
            Some(HostFormat::F32) => Value::F32(f32::from_bits(bits as u32)),
            Some(HostFormat::F64) => Value::F64(f64::from_bits(bits as u64)),
            None => Value::Float(f, bits & mask128(f.width())),
        }
    }

    /// The sign of a float zero (`Some(true)` for `-0`); `None` for anything else.
    pub fn zero_sign(&self) -> Option<bool> {
        let (f, bits) = self.float_bits()?;
        (ieee::classify(f, bits) == ieee::Class::Zero).then(|| ieee::sign_of(f, bits))
    }

    /// The rounding mode inside.
    pub fn as_rm(&self) -> Option<SmtRounding> {
        match *self {
            Value::Rm(r) => Some(r),
            _ => None,
        }
    }

    /// The float inside widened to f64 (exact for binary32); `None` for the
    /// formats without host arithmetic.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F32(x) => Some(f64::from(x)),
            Value::F64(x) => Some(x),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    /// SMT-LIB syntax: `true`, `(fp #b0 #b... #b...)`, `(_ NaN 8 24)`, `#b0101`, `RNE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::F32(x) if x.is_nan() => write!(f, "(_ NaN 8 24)"),
            Value::F64(x) if x.is_nan() => write!(f, "(_ NaN 11 53)"),
            Value::Float(ff, bits) if ff.is_nan(bits) => {
                write!(f, "(_ NaN {} {})", ff.eb, ff.sb)
            }
            Value::F32(x) => write_fp(f, u128::from(x.to_bits()), 8, 23),
            Value::F64(x) => write_fp(f, u128::from(x.to_bits()), 11, 52),
            Value::Float(ff, bits) => write_fp(f, bits, ff.eb, ff.sb - 1),
            Value::Bv(v, w) => {
                write!(f, "#b")?;
                for i in (0..w).rev() {
                    write!(f, "{}", (v >> i) & 1)?;
                }
                Ok(())
            }
            Value::Rm(r) => write!(f, "{}", r.name()),
        }
    }
}

fn write_fp(f: &mut fmt::Formatter<'_>, bits: u128, eb: u32, mb: u32) -> fmt::Result {
    let bin = |v: u128, w: u32| -> String {
        (0..w)
            .rev()
            .map(|i| if (v >> i) & 1 == 1 { '1' } else { '0' })
            .collect()
    };
    write!(
        f,
        "(fp #b{} #b{} #b{})",
        bits >> (eb + mb),
        bin((bits >> mb) & mask128(eb), eb),
        bin(bits & mask128(mb), mb)
    )
}

/// The all-ones mask of width `w` (0..=128).
fn mask128(w: u32) -> u128 {
    u128::MAX.checked_shr(128 - w).unwrap_or(0)
}

/// Values of the declared variables, indexed by [`crate::term::VarId`], and the
/// interpretation of the results SMT-LIB leaves open that the model chose.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// One value per variable of the store.
    pub values: Vec<Value>,
    /// What `fp.min`/`fp.max` of `+0` and `-0` give: bit `2 * max + first_is_negative`
    /// set means the first operand, clear the second. Default: 0.
    pub zero_choice: u8,
}

impl Model {
    /// The all-default model for the store's variables.
    pub fn zeros(store: &TermStore) -> Model {
        Model {
            values: store.vars().iter().map(|v| Value::zero(v.sort)).collect(),
            zero_choice: 0,
        }
    }
}

/// Choices of [`Model::zero_choice`] there are.
const ZERO_CHOICES: u8 = 16;

/// `fp.min`/`fp.max` of two zeros of different signs under `choice`; `None` for
/// any other operator or operands.
fn chosen_zero(op: Op, a: &[Value], choice: u8) -> Option<Value> {
    let (first, second) = (a.first()?.zero_sign()?, a.get(1)?.zero_sign()?);
    if !matches!(op, Op::FpMin | Op::FpMax) || first == second {
        return None;
    }
    let bit = 2 * u8::from(op == Op::FpMax) + u8::from(first);
    Some(if choice & (1 << bit) != 0 { a[0] } else { a[1] })
}

/// Evaluates a fixed set of root terms (and their sub-terms) under models.
///
/// The cone of the roots is computed once; each [`TermEvaluator::run`] fills a
/// value and a taint flag per term, in id order (children first).
#[derive(Clone, Debug)]
pub struct TermEvaluator {
    cone: Vec<TermId>,
    vals: Vec<Value>,
    tainted: Vec<bool>,
    /// Whether the last run consulted the model's [`Model::zero_choice`].
    chose: bool,
}

impl TermEvaluator {
    /// An evaluator for `roots` in `store`.
    pub fn new(store: &TermStore, roots: &[TermId]) -> TermEvaluator {
        let mut seen = vec![false; store.len()];
        let mut stack: Vec<TermId> = roots.to_vec();
        while let Some(t) = stack.pop() {
            if std::mem::replace(&mut seen[t.index()], true) {
                continue;
            }
            stack.extend(store.get(t).args.iter().copied());
        }
        let cone = (0..store.len() as u32)
            .map(TermId)
            .filter(|t| seen[t.index()])
            .collect();
        TermEvaluator {
            cone,
            vals: vec![Value::Bool(false); store.len()],
            tainted: vec![false; store.len()],
            chose: false,
        }
    }

    /// Evaluates every term of the cone under `model`.
    pub fn run(&mut self, store: &TermStore, model: &Model) {
        self.chose = false;
        for &t in &self.cone {
            let term = store.get(t);
            let mut taint = term.args.iter().any(|a| self.tainted[a.index()]);
            let v = match term.op {
                Op::Var(v) => model
                    .values
                    .get(v.index())
                    .copied()
                    .unwrap_or(Value::zero(term.sort)),
                _ => {
                    let args: Vec<Value> = term.args.iter().map(|a| self.vals[a.index()]).collect();
                    match apply(term.op, &args) {
                        Some(v) => v,
                        None => match chosen_zero(term.op, &args, model.zero_choice) {
                            Some(v) => {
                                self.chose = true;
                                v
                            }
                            None => {
                                taint = true;
                                Value::zero(term.sort)
                            }
                        },
                    }
                }
            };
            self.vals[t.index()] = v;
            self.tainted[t.index()] = taint;
        }
    }

    /// The value of `t` after the last [`TermEvaluator::run`].
    pub fn value(&self, t: TermId) -> Value {
        self.vals[t.index()]
    }

    /// Whether `t`'s value depends on an unspecified result.
    pub fn is_tainted(&self, t: TermId) -> bool {
        self.tainted[t.index()]
    }

    /// True when every root is `true` and untainted.
    pub fn holds(&self, roots: &[TermId]) -> bool {
        roots
            .iter()
            .all(|&r| self.vals[r.index()].as_bool() && !self.tainted[r.index()])
    }
}

/// Checks that `model` satisfies every assertion, with exact semantics, under
/// some choice of the results SMT-LIB leaves open (see [`satisfying_choice`]).
pub fn check_model(store: &TermStore, assertions: &[TermId], model: &Model) -> bool {
    satisfying_choice(store, assertions, model).is_some()
}

/// A [`Model::zero_choice`] under which the values of `model` satisfy every
/// assertion (the model's own choice first), or `None`.
pub fn satisfying_choice(store: &TermStore, assertions: &[TermId], model: &Model) -> Option<u8> {
    let mut ev = TermEvaluator::new(store, assertions);
    let mut m = model.clone();
    for flip in 0..ZERO_CHOICES {
        m.zero_choice = model.zero_choice ^ flip;
        ev.run(store, &m);
        if ev.holds(assertions) {
            return Some(m.zero_choice);
        }
        if !ev.chose {
            return None;
        }
    }
    None
}

/// Evaluates one term under a model; `None` if its value is unspecified.
pub fn eval_term(store: &TermStore, t: TermId, model: &Model) -> Option<Value> {
    let mut ev = TermEvaluator::new(store, &[t]);
    ev.run(store, model);
    (!ev.is_tainted(t)).then(|| ev.value(t))
}

/// IEEE-754 `remainder(x, y)`: `x - y*n` with `n` the integer nearest `x/y`
/// (ties to even), computed exactly. Exact for binary32 arguments too.
pub fn ieee_remainder(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
        return f64::NAN;
    }
    if y.is_infinite() || x == 0.0 {
        return x;
    }
    let ay = y.abs();
    // r = fmod(x, 2|y|) keeps the parity of the quotient; `%` is exact.
    let two_ay = ay * 2.0;
    let mut ax = if two_ay.is_finite() {
        (x % two_ay).abs()
    } else {
        x.abs()
    };
    let mut odd = false;
    if ax >= ay {
        // ax is in [ay, 2ay): exact by Sterbenz.
        ax -= ay;
        odd = true;
    }
    // Compare ax with ay/2 without rounding: ay/2 is exact when ay is large,
    // ax + ax is exact when ay is small.
    let twice_cmp = if ay > f64::MAX / 2.0 {
        ax.partial_cmp(&(ay / 2.0))
    } else {
        (ax + ax).partial_cmp(&ay)
    };
    match twice_cmp {
        Some(std::cmp::Ordering::Greater) => ax -= ay,
        Some(std::cmp::Ordering::Equal) if odd => ax -= ay,
        _ => {}
    }
    if ax == 0.0 {
        ax = 0.0;
    }
    if x.is_sign_negative() {
        -ax
    } else {
        ax
    }
}

/// Rounds to an integral value in the given rounding mode (sign of zero kept).
pub fn round_integral(x: f64, rm: SmtRounding) -> f64 {
    match rm {
        SmtRounding::Rne => x.round_ties_even(),
        SmtRounding::Rna => x.round(),
        SmtRounding::Rtp => x.ceil(),
        SmtRounding::Rtn => x.floor(),
        SmtRounding::Rtz => x.trunc(),
    }
}

fn round_integral32(x: f32, rm: SmtRounding) -> f32 {
    match rm {
        SmtRounding::Rne => x.round_ties_even(),
        SmtRounding::Rna => x.round(),
        SmtRounding::Rtp => x.ceil(),
        SmtRounding::Rtn => x.floor(),
        SmtRounding::Rtz => x.trunc(),
    }
}

fn min_max(a: f64, b: f64, max: bool) -> Option<f64> {
    if a.is_nan() {
        return Some(b);
    }
    if b.is_nan() {
        return Some(a);
    }
    if a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative() {
        return None;
    }
    Some(if (a < b) != max { a } else { b })
}

fn to_sbv(x: f64, w: u32, rm: SmtRounding) -> Option<u64> {
    if !x.is_finite() {
        return None;
    }
    let r = round_integral(x, rm);
    let lim = 2f64.powi(w as i32 - 1);
    (r >= -lim && r < lim).then(|| (r as i64 as u64) & mask(w))
}

fn to_ubv(x: f64, w: u32, rm: SmtRounding) -> Option<u64> {
    if !x.is_finite() {
        return None;
    }
    let r = round_integral(x, rm);
    (r >= 0.0 && r < 2f64.powi(w as i32)).then_some(r as u64)
}

fn sext(v: u64, w: u32) -> i64 {
    if w >= 64 {
        v as i64
    } else {
        ((v << (64 - w)) as i64) >> (64 - w)
    }
}

macro_rules! fp1 {
    ($a:expr, |$x:ident| $e:expr) => {
        match $a {
            Value::F32($x) => Value::F32($e),
            Value::F64($x) => Value::F64($e),
            _ => return None,
        }
    };
}

macro_rules! fp2 {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {
        match ($a, $b) {
            (Value::F32($x), Value::F32($y)) => Value::F32($e),
            (Value::F64($x), Value::F64($y)) => Value::F64($e),
            _ => return None,
        }
    };
}

macro_rules! fpcmp {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {
        match ($a, $b) {
            (Value::F32($x), Value::F32($y)) => Value::Bool($e),
            (Value::F64($x), Value::F64($y)) => Value::Bool($e),
            _ => return None,
        }
    };
}

macro_rules! fptest {
    ($a:expr, |$x:ident| $e:expr) => {
        match $a {
            Value::F32($x) => Value::Bool($e),
            Value::F64($x) => Value::Bool($e),
            _ => return None,
        }
    };
}

/// `x` rounded to host format `f` (binary64 unless `f` is binary32: the others
/// are evaluated by [`any_format`]).
fn float_of(f: FpFormat, x: f64) -> Value {
    if f == FpFormat::F32 {
        Value::F32(x as f32)
    } else {
        Value::F64(x)
    }
}

/// Applies a non-variable operator to argument values; `None` when the result
/// is unspecified by SMT-LIB (or, defensively, on ill-sorted arguments).
pub fn apply(op: Op, a: &[Value]) -> Option<Value> {
    use Op::*;
    let b = |i: usize| a[i].as_bool();
    Some(match op {
        Var(_) => return None,
        BoolConst(x) => Value::Bool(x),
        FpConst(f, bits) => Value::from_float_bits(f, bits),
        BvConst(v, w) => Value::Bv(v, w),
        RmConst(r) => Value::Rm(r),
        Not => Value::Bool(!b(0)),
        And => Value::Bool(b(0) && b(1)),
        Or => Value::Bool(b(0) || b(1)),
        Xor => Value::Bool(b(0) != b(1)),
        Implies => Value::Bool(!b(0) || b(1)),
        Ite => {
            if b(0) {
                a[1]
            } else {
                a[2]
            }
        }
        Eq => Value::Bool(a[0].same(&a[1])),
        Distinct => Value::Bool(!a[0].same(&a[1])),
        FpAbs | FpNeg | FpAdd | FpSub | FpMul | FpDiv | FpSqrt | FpFma | FpRem
        | FpRoundToIntegral | FpMin | FpMax | Ext(_) => return on_floats(op, a, apply_fp_arith),
        FpLeq | FpLt | FpGeq | FpGt | FpEq | FpIsNormal | FpIsSubnormal | FpIsZero
        | FpIsInfinite | FpIsNaN | FpIsNegative | FpIsPositive => {
            return on_floats(op, a, apply_fp_test)
        }
        FpToSbv(..) | FpToUbv(..) | FpToFp(_) | SbvToFp(_) | UbvToFp(_) | BitsToFp(_)
        | FpToBits(_) => return on_floats(op, a, apply_conversion),
        BvNot | BvNeg | BvAnd | BvOr | BvXor | BvAdd | BvSub | BvMul | BvUdiv | BvUrem | BvSdiv
        | BvSrem | BvSmod | BvShl | BvLshr | BvAshr | Concat | Extract(..) | ZeroExtend(_)
        | SignExtend(_) | BvUlt | BvUle | BvUgt | BvUge | BvSlt | BvSle | BvSgt | BvSge => {
            return apply_bv(op, a)
        }
    })
}

/// A floating-point operator by `host` on the host formats, by [`any_format`]
/// on the others.
fn on_floats(op: Op, a: &[Value], host: fn(Op, &[Value]) -> Option<Value>) -> Option<Value> {
    if any_format::applies(op, a) {
        any_format::apply(op, a)
    } else {
        host(op, a)
    }
}

/// `op` in round-to-nearest-even on the host's floats.
fn rounded_nearest(op: Op, a: &[Value]) -> Option<Value> {
    use Op::*;
    Some(match op {
        FpAdd => fp2!(a[0], a[1], |x, y| x + y),
        FpSub => fp2!(a[0], a[1], |x, y| x - y),
        FpMul => fp2!(a[0], a[1], |x, y| x * y),
        FpDiv => fp2!(a[0], a[1], |x, y| x / y),
        FpSqrt => fp1!(a[0], |x| x.sqrt()),
        FpFma => match (a[0], a[1], a[2]) {
            (Value::F32(x), Value::F32(y), Value::F32(z)) => Value::F32(x.mul_add(y, z)),
            (Value::F64(x), Value::F64(y), Value::F64(z)) => Value::F64(x.mul_add(y, z)),
            _ => return None,
        },
        _ => return None,
    })
}

/// Float arithmetic: the value of a floating-point operator.
fn apply_fp_arith(op: Op, a: &[Value]) -> Option<Value> {
    use Op::*;
    Some(match op {
        FpAbs => fp1!(a[0], |x| x.abs()),
        FpNeg => fp1!(a[0], |x| -x),
        FpAdd | FpSub | FpMul | FpDiv | FpSqrt | FpFma => match a[0].as_rm()? {
            SmtRounding::Rne => return rounded_nearest(op, &a[1..]),
            rm => return any_format::rounded(op, rm, &a[1..]),
        },
        FpRem => match (a[0], a[1]) {
            (Value::F32(x), Value::F32(y)) => {
                Value::F32(ieee_remainder(f64::from(x), f64::from(y)) as f32)
            }
            (Value::F64(x), Value::F64(y)) => Value::F64(ieee_remainder(x, y)),
            _ => return None,
        },
        FpRoundToIntegral => {
            let rm = a[0].as_rm()?;
            match a[1] {
                Value::F32(x) => Value::F32(round_integral32(x, rm)),
                Value::F64(x) => Value::F64(round_integral(x, rm)),
                _ => return None,
            }
        }
        FpMin | FpMax => match (a[0], a[1]) {
            (Value::F32(x), Value::F32(y)) => {
                Value::F32(min_max(f64::from(x), f64::from(y), op == FpMax)? as f32)
            }
            (Value::F64(x), Value::F64(y)) => Value::F64(min_max(x, y, op == FpMax)?),
            _ => return None,
        },
        Ext(g) => match a[0] {
            Value::F32(x) => Value::F32(g.apply32(x)),
            Value::F64(x) => Value::F64(g.apply64(x)),
            _ => return None,
        },
        _ => return None,
    })
}

/// Float comparisons and classification: a Boolean.
fn apply_fp_test(op: Op, a: &[Value]) -> Option<Value> {
    use Op::*;
    Some(match op {
        FpLeq => fpcmp!(a[0], a[1], |x, y| x <= y),
        FpLt => fpcmp!(a[0], a[1], |x, y| x < y),
        FpGeq => fpcmp!(a[0], a[1], |x, y| x >= y),
        FpGt => fpcmp!(a[0], a[1], |x, y| x > y),
        FpEq => fpcmp!(a[0], a[1], |x, y| x == y),
        FpIsNormal => fptest!(a[0], |x| x.is_normal()),
        FpIsSubnormal => fptest!(a[0], |x| x.is_subnormal()),
        FpIsZero => fptest!(a[0], |x| x == 0.0),
        FpIsInfinite => fptest!(a[0], |x| x.is_infinite()),
        FpIsNaN => fptest!(a[0], |x| x.is_nan()),
        FpIsNegative => fptest!(a[0], |x| !x.is_nan() && x.is_sign_negative()),
        FpIsPositive => fptest!(a[0], |x| !x.is_nan() && x.is_sign_positive()),
        _ => return None,
    })
}

/// The bit-vector argument `i`: value and width.
fn bv_arg(a: &[Value], i: usize) -> (u64, u32) {
    match a[i] {
        Value::Bv(v, w) => (v, w),
        _ => (0, 1),
    }
}

/// Conversions between floats, bit-vector integers and bit patterns.
fn apply_conversion(op: Op, a: &[Value]) -> Option<Value> {
    use Op::*;
    Some(match op {
        FpToSbv(w) => Value::Bv(to_sbv(a[1].as_f64()?, w, a[0].as_rm()?)?, w),
        FpToUbv(w) => Value::Bv(to_ubv(a[1].as_f64()?, w, a[0].as_rm()?)?, w),
        FpToFp(to) => {
            let (from, bits) = a[1].float_bits()?;
            match a[0].as_rm()? {
                SmtRounding::Rne => float_of(to, a[1].as_f64()?),
                rm => Value::from_float_bits(to, ieee::convert(from, to, rm, bits)),
            }
        }
        SbvToFp(f) => {
            let (v, w) = bv_arg(a, 1);
            let i = sext(v, w);
            match a[0].as_rm()? {
                SmtRounding::Rne => float_of_integer(f, i as f64, i as f32),
                rm => Value::from_float_bits(
                    f,
                    ieee::from_integer(f, rm, i < 0, u128::from(i.unsigned_abs())),
                ),
            }
        }
        UbvToFp(f) => {
            let (v, _) = bv_arg(a, 1);
            match a[0].as_rm()? {
                SmtRounding::Rne => float_of_integer(f, v as f64, v as f32),
                rm => Value::from_float_bits(f, ieee::from_integer(f, rm, false, u128::from(v))),
            }
        }
        BitsToFp(f) => Value::from_float_bits(f, u128::from(bv_arg(a, 0).0)),
        FpToBits(_) => match a[0] {
            Value::F32(x) => Value::Bv(u64::from(x.to_bits()), 32),
            Value::F64(x) => Value::Bv(x.to_bits(), 64),
            _ => return None,
        },
        _ => return None,
    })
}

/// An integer converted by the host (`as`, round to nearest-even) to each format:
/// the value of host format `f`.
fn float_of_integer(f: FpFormat, wide: f64, narrow: f32) -> Value {
    if f == FpFormat::F32 {
        Value::F32(narrow)
    } else {
        Value::F64(wide)
    }
}

/// Bit-vector operators: arithmetic and logic, bit layout, comparisons.
fn apply_bv(op: Op, a: &[Value]) -> Option<Value> {
    use Op::*;
    let bv = |i: usize| bv_arg(a, i);
    Some(match op {
        BvNot => {
            let (x, w) = bv(0);
            Value::Bv(!x & mask(w), w)
        }
        BvNeg => {
            let (x, w) = bv(0);
            Value::Bv(x.wrapping_neg() & mask(w), w)
        }
        BvAnd | BvOr | BvXor | BvAdd | BvSub | BvMul | BvUdiv | BvUrem | BvSdiv | BvSrem
        | BvSmod | BvShl | BvLshr | BvAshr => {
            let ((x, w), (y, _)) = (bv(0), bv(1));
            Value::Bv(bv_binary(op, x, y, w) & mask(w), w)
        }
        Concat => {
            let ((x, w), (y, v)) = (bv(0), bv(1));
            Value::Bv((x << v) | y, w + v)
        }
        Extract(hi, lo) => {
            let (x, _) = bv(0);
            Value::Bv((x >> lo) & mask(hi - lo + 1), hi - lo + 1)
        }
        ZeroExtend(n) => {
            let (x, w) = bv(0);
            Value::Bv(x, w + n)
        }
        SignExtend(n) => {
            let (x, w) = bv(0);
            Value::Bv(sext(x, w) as u64 & mask(w + n), w + n)
        }
        BvUlt | BvUle | BvUgt | BvUge => {
            let ((x, _), (y, _)) = (bv(0), bv(1));
            Value::Bool(match op {
                BvUlt => x < y,
                BvUle => x <= y,
                BvUgt => x > y,
                _ => x >= y,
            })
        }
        BvSlt | BvSle | BvSgt | BvSge => {
            let ((x, w), (y, _)) = (bv(0), bv(1));
            let (x, y) = (sext(x, w), sext(y, w));
            Value::Bool(match op {
                BvSlt => x < y,
                BvSle => x <= y,
                BvSgt => x > y,
                _ => x >= y,
            })
        }
        _ => return None,
    })
}

/// SMT-LIB bit-vector binary operators on `w`-bit values (result not masked).
fn bv_binary(op: Op, x: u64, y: u64, w: u32) -> u64 {
    let m = mask(w);
    let neg = |v: u64| v.wrapping_neg() & m;
    let msb = |v: u64| (v >> (w - 1)) & 1 == 1;
    let udiv = |x: u64, y: u64| x.checked_div(y).unwrap_or(m);
    let urem = |x: u64, y: u64| if y == 0 { x } else { x % y };
    match op {
        Op::BvAnd => x & y,
        Op::BvOr => x | y,
        Op::BvXor => x ^ y,
        Op::BvAdd => x.wrapping_add(y),
        Op::BvSub => x.wrapping_sub(y),
        Op::BvMul => x.wrapping_mul(y),
        Op::BvUdiv => udiv(x, y),
        Op::BvUrem => urem(x, y),
        Op::BvSdiv => match (msb(x), msb(y)) {
            (false, false) => udiv(x, y),
            (true, false) => neg(udiv(neg(x), y)),
            (false, true) => neg(udiv(x, neg(y))),
            (true, true) => udiv(neg(x), neg(y)),
        },
        Op::BvSrem => match (msb(x), msb(y)) {
            (false, false) => urem(x, y),
            (true, false) => neg(urem(neg(x), y)),
            (false, true) => urem(x, neg(y)),
            (true, true) => neg(urem(neg(x), neg(y))),
        },
        Op::BvSmod => {
            let abs = |v: u64| if msb(v) { neg(v) } else { v };
            let u = urem(abs(x), abs(y));
            if u == 0 {
                u
            } else {
                match (msb(x), msb(y)) {
                    (false, false) => u,
                    (true, false) => neg(u).wrapping_add(y),
                    (false, true) => u.wrapping_add(y),
                    (true, true) => neg(u),
                }
            }
        }
        Op::BvShl => {
            if y >= u64::from(w) {
                0
            } else {
                x << y
            }
        }
        Op::BvLshr => {
            if y >= u64::from(w) {
                0
            } else {
                x >> y
            }
        }
        _ => {
            let s = sext(x, w);
            (if y >= u64::from(w) { s >> 63 } else { s >> y }) as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainder_matches_definition() {
        let cases = [
            (5.0, 2.0, 1.0),
            (7.0, 2.0, -1.0),
            (-7.0, 2.0, 1.0),
            (6.0, 4.0, -2.0),
            (10.0, 4.0, 2.0),
            (1.0, 3.0, 1.0),
            (2.0, 3.0, -1.0),
            (-0.0, 1.0, -0.0),
            (4.0, 2.0, 0.0),
            (-4.0, 2.0, -0.0),
            (3.0, f64::INFINITY, 3.0),
            (f64::MAX, f64::MAX, 0.0),
            (
                f64::MAX,
                -1.5 * 2f64.powi(1023),
                f64::MAX - 1.5 * 2f64.powi(1023),
            ),
        ];
        for (x, y, r) in cases {
            assert_eq!(ieee_remainder(x, y).to_bits(), r.to_bits(), "{x} rem {y}");
        }
        assert!(ieee_remainder(f64::INFINITY, 1.0).is_nan());
        assert!(ieee_remainder(1.0, 0.0).is_nan());
    }

    #[test]
    fn remainder_agrees_with_integer_arithmetic() {
        for x in -50i64..50 {
            for y in 1i64..12 {
                let q = x as f64 / y as f64;
                let n = q.round_ties_even();
                let want = x as f64 - n * y as f64;
                let got = ieee_remainder(x as f64, y as f64);
                assert_eq!(got, want, "{x} rem {y}");
                assert!(got.abs() * 2.0 <= y as f64);
            }
        }
    }

    #[test]
    fn bit_vector_division_follows_smtlib() {
        let v = |op, x, y| bv_binary(op, x, y, 8) & 0xff;
        assert_eq!(v(Op::BvUdiv, 7, 0), 0xff);
        assert_eq!(v(Op::BvUrem, 7, 0), 7);
        assert_eq!(v(Op::BvSdiv, 0xf9, 2), 0xfd); // -7 / 2 = -3
        assert_eq!(v(Op::BvSrem, 0xf9, 2), 0xff); // -7 rem 2 = -1
        assert_eq!(v(Op::BvSmod, 0xf9, 2), 1); // -7 mod 2 = 1
        assert_eq!(v(Op::BvSmod, 7, 0xfe), 0xff); // 7 mod -2 = -1
        assert_eq!(v(Op::BvAshr, 0x80, 9), 0xff);
        assert_eq!(v(Op::BvShl, 1, 8), 0);
    }

    #[test]
    fn conversions_and_unspecified_results() {
        let (rtz, rne) = (Value::Rm(SmtRounding::Rtz), Value::Rm(SmtRounding::Rne));
        assert!(apply(Op::FpToSbv(8), &[rtz, Value::F32(127.9)]).is_some());
        assert!(apply(Op::FpToSbv(8), &[rne, Value::F32(127.9)]).is_none());
        assert!(apply(Op::FpMin, &[Value::F64(0.0), Value::F64(-0.0)]).is_none());
        let zeros = [Value::F64(0.0), Value::F64(-0.0)];
        let picks: Vec<bool> = (0..4)
            .map(|c| chosen_zero(Op::FpMin, &zeros, c).unwrap().same(&zeros[0]))
            .collect();
        assert_eq!(picks, [false, true, false, true]);
        assert!(chosen_zero(Op::FpMax, &[Value::F64(0.0), Value::F64(0.0)], 15).is_none());
        let r = apply(Op::FpToUbv(8), &[rtz, Value::F64(-0.5)]).unwrap();
        assert!(r.same(&Value::Bv(0, 8)));
        let r = apply(Op::SbvToFp(FpFormat::F32), &[rne, Value::Bv(0xff, 8)]).unwrap();
        assert!(r.same(&Value::F32(-1.0)));
        // 2^24 + 1 is halfway between two binary32 values.
        let odd = Value::Bv((1 << 24) + 1, 32);
        for (rm, want) in [
            (SmtRounding::Rne, 16777216.0),
            (SmtRounding::Rtp, 16777218.0),
            (SmtRounding::Rna, 16777218.0),
            (SmtRounding::Rtz, 16777216.0),
        ] {
            let r = apply(Op::UbvToFp(FpFormat::F32), &[Value::Rm(rm), odd]).unwrap();
            assert!(r.same(&Value::F32(want)), "{rm:?}");
        }
        let third = apply(
            Op::FpDiv,
            &[
                Value::Rm(SmtRounding::Rtp),
                Value::F64(1.0),
                Value::F64(3.0),
            ],
        );
        assert!(third
            .unwrap()
            .same(&Value::F64(f64::from_bits((1.0f64 / 3.0).to_bits() + 1))));
    }

    #[test]
    fn values_print_in_smtlib_syntax() {
        assert_eq!(
            Value::F32(-2.0).to_string(),
            "(fp #b1 #b10000000 #b00000000000000000000000)"
        );
        assert_eq!(Value::F64(f64::NAN).to_string(), "(_ NaN 11 53)");
        assert_eq!(Value::Bv(5, 4).to_string(), "#b0101");
    }
}
