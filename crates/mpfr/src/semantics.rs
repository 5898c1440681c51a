//! The two MPFR semantics, [`HighPrecision`] and [`Shadow`], as one generic [`Mpfr`]
//! parameterized by a [`Mode`].
//!
//! A value ([`MpValue`]) is cheap to copy: its IEEE bits and an index into the
//! semantics' arena of MPFR numbers (or no index when the high-precision value is exactly
//! the IEEE value, as for constants, inputs, integers and pointers). The arena is emptied
//! at the start of every run.
//!
//! - In [`HighPrecision`] every floating-point operation is computed in MPFR at the
//!   working precision and the bits are that value rounded to the register's format, so
//!   comparisons, `select` and float-to-integer conversions follow the high-precision
//!   values: control flow is the one of the program run with real-ish numbers (FPGen's
//!   `__float128` build). Format conversions (`fptrunc`, `fpext`) keep the high-precision
//!   value.
//! - In [`Shadow`] the bits are computed exactly as [`Concrete`] computes them, so the run
//!   is bit-identical to the concrete one, and the MPFR value rides beside them. At every
//!   float operation it records, per op site ([`SiteStats`]): the error the result carries
//!   and the error the operation introduced (result error minus the worst operand error,
//!   in bits), and FPGen's precision-loss and cancellation events. A comparison whose
//!   outcome on the shadows differs from the concrete outcome marks its `i1`, and a branch
//!   on such a value is recorded as a divergence.
//!
//! Extended values (`long double`) have their high-precision value on the
//! significand's register and are rounded as the x87 rounds (`semantics/extended.rs`,
//! [`crate::x87`]); their operations are builtins with no op site, so they have no
//! [`SiteStats`].
//!
//! Memory keeps a shadow map `address -> (type, bits, value)`: a float store (or an
//! extended value's significand) records its high-precision value, any store removes
//! the entries it overlaps, a load takes the shadow only when the entry has the loaded
//! type and its bits still equal the loaded bits (type-punned loads and stale cells see
//! the rounded IEEE bits), `memcpy`/`memmove` move entries with the bytes and `memset`
//! drops them.

use crate::exactness;
use crate::math::{self, Counterpart};
use crate::metrics::{self, exact, fpgen_checks, measure_float, round_bits, HighValue, Thresholds};
use fpforge_exec::memory::Memory;
use fpforge_exec::trap::TrapKind;
use fpforge_exec::{Concrete, InputSlot, RunEnv, Semantics};
use fpir::{
    BranchSite, F80Op, FloatBinOp, FloatPred, FloatTy, IntPred, MathCall, MathShape, OpSite, Type,
};
use rug::{Assign, Float};
use std::collections::HashMap;
use std::marker::PhantomData;

mod extended;

/// Arena index meaning "the value is exactly its IEEE bits".
const EXACT: u32 = u32::MAX;
/// Marker on an `i1` whose shadow comparison disagreed with the concrete one.
const DIVERGED: u32 = u32::MAX - 1;

/// A register value: IEEE (or integer, pointer) bits and the high-precision value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MpValue {
    bits: u64,
    hp: u32,
}

impl MpValue {
    /// The IEEE bits (rounded high-precision value in [`HighPrecision`], concrete bits in
    /// [`Shadow`]).
    pub fn bits(&self) -> u64 {
        self.bits
    }

    fn exact(bits: u64) -> MpValue {
        MpValue { bits, hp: EXACT }
    }
}

/// Which value drives control flow.
pub trait Mode: private::Sealed {
    /// True when the concrete bits drive (Shadow), false when the MPFR values do.
    const SHADOW: bool;
}

mod private {
    pub trait Sealed {}
    impl Sealed for super::Reference {}
    impl Sealed for super::Shadowed {}
}

/// Mode of [`HighPrecision`]: MPFR values drive control flow.
#[derive(Clone, Copy, Debug)]
pub enum Reference {}
/// Mode of [`Shadow`]: concrete values drive control flow.
#[derive(Clone, Copy, Debug)]
pub enum Shadowed {}

impl Mode for Reference {
    const SHADOW: bool = false;
}
impl Mode for Shadowed {
    const SHADOW: bool = true;
}

/// Every FP value and operation in MPFR; control flow follows the high-precision values.
pub type HighPrecision = Mpfr<Reference>;
/// The concrete run drives; an MPFR shadow rides beside every FP value.
pub type Shadow = Mpfr<Shadowed>;

/// What [`Shadow`] recorded at one op site over a run.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct SiteStats {
    /// Executions.
    pub execs: u64,
    /// Largest error introduced by one execution, in bits (result error minus the largest
    /// operand error).
    pub max_introduced_bits: f64,
    /// Sum of the errors introduced, in bits.
    pub sum_introduced_bits: f64,
    /// Largest error of the result against its shadow, in bits.
    pub max_result_bits: f64,
    /// Executions that passed FPGen's cancellation check.
    pub cancellations: u64,
    /// Executions that passed FPGen's precision-loss check.
    pub precision_losses: u64,
    /// Largest cancellation seen (`max(exp(a), exp(b)) - exp(r)`).
    pub max_cancellation: i32,
}

#[derive(Clone, Copy, Debug)]
struct Cell {
    ty: Type,
    value: MpValue,
}

/// The MPFR semantics; use the aliases [`HighPrecision`] and [`Shadow`].
#[derive(Debug)]
pub struct Mpfr<M: Mode> {
    prec: u32,
    arena: Vec<Float>,
    cells: HashMap<u64, Cell>,
    /// The sign-and-exponent half of the concrete extended value each arena entry made
    /// by an extended operation is the shadow of (see [`extended`]).
    extended: HashMap<u32, u16>,
    site: Option<OpSite>,
    stats: Vec<SiteStats>,
    divergences: Vec<BranchSite>,
    slot_addrs: Vec<Option<u64>>,
    pending_slot: Option<u32>,
    mode: PhantomData<M>,
}

/// Default working precision in bits.
pub const DEFAULT_PRECISION: u32 = 128;

impl<M: Mode> Default for Mpfr<M> {
    fn default() -> Self {
        Self::new(DEFAULT_PRECISION)
    }
}

impl<M: Mode> Mpfr<M> {
    /// A semantics working at `precision` bits (clamped to MPFR's limits, at least 2).
    pub fn new(precision: u32) -> Self {
        let prec = precision.clamp(rug::float::prec_min().max(2), 1 << 20);
        Mpfr {
            prec,
            arena: Vec::new(),
            cells: HashMap::new(),
            extended: HashMap::new(),
            site: None,
            stats: Vec::new(),
            divergences: Vec::new(),
            slot_addrs: Vec::new(),
            pending_slot: None,
            mode: PhantomData,
        }
    }

    /// The working precision in bits.
    pub fn precision(&self) -> u32 {
        self.prec
    }

    /// The high-precision value of a float register of format `ty`.
    pub fn high_value(&self, ty: FloatTy, v: &MpValue) -> HighValue {
        HighValue(self.hp(ty, v))
    }

    /// The high-precision value of the `ty` in memory at `addr` after a run (the shadow
    /// when it is current, else the IEEE value in memory); `None` outside valid memory.
    pub fn memory_value(&self, mem: &Memory, ty: FloatTy, addr: u64) -> Option<HighValue> {
        let bits = mem.peek(Type::Float(ty), addr)?;
        let v = self.cell_value(Type::Float(ty), addr, bits);
        Some(self.high_value(ty, &v))
    }

    /// The address where the array element fed by input `slot` was placed in the last run.
    pub fn slot_address(&self, slot: InputSlot) -> Option<u64> {
        self.slot_addrs.get(slot.0 as usize).copied().flatten()
    }

    /// Per op site statistics of the last run ([`Shadow`] only; indexed by
    /// `OpSite::index`; sites never executed may be missing at the end).
    pub fn site_stats(&self) -> &[SiteStats] {
        &self.stats
    }

    /// Branch sites where a shadow comparison decided differently from the concrete one,
    /// in order of first occurrence, during the last run ([`Shadow`] only).
    pub fn divergences(&self) -> &[BranchSite] {
        &self.divergences
    }

    fn hp(&self, ty: FloatTy, v: &MpValue) -> Float {
        match self.arena.get(v.hp as usize) {
            Some(x) if v.hp != EXACT && v.hp != DIVERGED => x.clone(),
            _ => exact(ty, v.bits, self.prec),
        }
    }

    fn push(&mut self, bits: u64, x: Float) -> MpValue {
        let hp = u32::try_from(self.arena.len())
            .unwrap_or(EXACT)
            .min(DIVERGED - 1);
        if hp >= DIVERGED - 1 {
            return MpValue::exact(bits);
        }
        self.arena.push(x);
        MpValue { bits, hp }
    }

    /// A float result: bits from `concrete` (Shadow) or rounded from `x` (HighPrecision).
    fn float_result(&mut self, ty: FloatTy, concrete: impl FnOnce() -> u64, x: Float) -> MpValue {
        let bits = if M::SHADOW {
            concrete()
        } else {
            round_bits(ty, &x)
        };
        self.push(bits, x)
    }

    fn cell_value(&self, ty: Type, addr: u64, bits: u64) -> MpValue {
        match self.cells.get(&addr) {
            Some(c) if c.ty == ty && c.value.bits == bits => c.value,
            _ => MpValue::exact(bits),
        }
    }

    /// Removes the shadow cells overlapping `[addr, addr + len)`.
    fn forget(&mut self, addr: u64, len: u64) {
        if self.cells.is_empty() {
            return;
        }
        if len > 64 {
            self.cells.retain(|&a, c| {
                a + u64::from(c.ty.bytes()) <= addr || a >= addr.saturating_add(len)
            });
            return;
        }
        for a in addr.saturating_sub(7)..addr.saturating_add(len) {
            if let Some(c) = self.cells.get(&a) {
                if a + u64::from(c.ty.bytes()) > addr {
                    self.cells.remove(&a);
                }
            }
        }
    }

    /// Records what the operation at the current site did (Shadow only).
    /// `op` is the arithmetic operation, `None` for a math call.
    fn record(
        &mut self,
        ty: FloatTy,
        op: Option<FloatBinOp>,
        operands: &[MpValue],
        result: &MpValue,
    ) {
        let Some(site) = self.site.take() else {
            return;
        };
        let result_bits = self.err_bits(ty, result);
        let operand_bits = operands
            .iter()
            .map(|o| self.err_bits(ty, o))
            .fold(0.0f64, f64::max);
        // An exact operation introduces nothing: its result's error is its operands',
        // exposed by cancellation (compensated arithmetic's error terms).
        let error_free = match (op, operands) {
            (Some(op), [a, b]) => exactness::is_exact(op, ty, a.bits, b.bits, result.bits),
            _ => false,
        };
        let introduced = if error_free {
            0.0
        } else {
            (result_bits - operand_bits).max(0.0)
        };
        let add_sub = matches!(op, Some(FloatBinOp::Fadd | FloatBinOp::Fsub));
        let checks = if add_sub && operands.len() == 2 {
            fpgen_checks(ty, operands[0].bits, operands[1].bits, result.bits)
        } else {
            None
        };
        let i = site.0 as usize;
        if self.stats.len() <= i {
            self.stats.resize(i + 1, SiteStats::default());
        }
        let s = &mut self.stats[i];
        s.execs += 1;
        s.max_introduced_bits = s.max_introduced_bits.max(introduced);
        s.sum_introduced_bits += introduced;
        s.max_result_bits = s.max_result_bits.max(result_bits);
        if let Some(c) = checks {
            let t = Thresholds::for_format(ty);
            s.cancellations += u64::from(c.cancellation > t.beta);
            s.precision_losses += u64::from(c.precision_loss > t.alpha);
            s.max_cancellation = s.max_cancellation.max(c.cancellation);
        }
    }

    /// Bits lost by a value's IEEE bits against its shadow (finite, capped at 2048).
    fn err_bits(&self, ty: FloatTy, v: &MpValue) -> f64 {
        match self.arena.get(v.hp as usize) {
            Some(x) if v.hp != EXACT && v.hp != DIVERGED => {
                measure_float(ty, v.bits, x).bits_lost.min(2048.0)
            }
            _ => 0.0,
        }
    }

    fn arith(
        &mut self,
        ty: FloatTy,
        a: &MpValue,
        b: &MpValue,
        kind: FloatBinOp,
        concrete: impl FnOnce(&mut Concrete, &u64, &u64) -> u64,
        op: impl FnOnce(Float, &Float) -> Float,
    ) -> MpValue {
        let x = self.hp(ty, a);
        let y = self.hp(ty, b);
        let mut r = Float::new(self.prec);
        r.assign(op(x, &y));
        let v = self.float_result(ty, || concrete(&mut Concrete, &a.bits, &b.bits), r);
        if M::SHADOW {
            self.record(ty, Some(kind), &[*a, *b], &v);
        }
        v
    }

    /// The relation of two high-precision values as stand-in doubles for `fcmp_f64`.
    fn hp_fcmp(&self, pred: FloatPred, ty: FloatTy, a: &MpValue, b: &MpValue) -> bool {
        if a.hp == EXACT && b.hp == EXACT {
            return Concrete.fcmp(pred, ty, &a.bits, &b.bits) != 0;
        }
        holds(pred, &self.hp(ty, a), &self.hp(ty, b))
    }

    /// The `i1` of a comparison whose outcome is `concrete` on the bits and `high` on the
    /// high-precision values: the concrete one marked [`DIVERGED`] when they differ
    /// (Shadow), the high-precision one (HighPrecision).
    fn comparison(&self, concrete: bool, high: bool) -> MpValue {
        if M::SHADOW {
            MpValue {
                bits: u64::from(concrete),
                hp: if concrete == high { EXACT } else { DIVERGED },
            }
        } else {
            MpValue::exact(u64::from(high))
        }
    }

    /// `fptosi`/`fptoui` from the high-precision value when it truncates to an integer
    /// representable in `to` (signed or unsigned); `None` to fall back to the bits.
    fn hp_to_int(&self, from: Type, to: Type, a: &MpValue, signed: bool) -> Option<u64> {
        let ty = from.as_float()?;
        if a.hp == EXACT {
            return None;
        }
        int_of(self.hp(ty, a), to, signed)
    }

    fn int_to_float(&mut self, from: Type, to: Type, a: &MpValue, signed: bool) -> MpValue {
        let Some(ty) = to.as_float() else {
            return MpValue::exact(0);
        };
        let x = if signed {
            Float::with_val(self.prec, from.sign_extend(a.bits))
        } else {
            Float::with_val(self.prec, a.bits)
        };
        let bits = if signed {
            Concrete.sitofp(from, to, &a.bits)
        } else {
            Concrete.uitofp(from, to, &a.bits)
        };
        if exact(ty, bits, self.prec) == x {
            return MpValue::exact(bits);
        }
        self.float_result(ty, || bits, x)
    }

    /// `fptrunc`/`fpext`: the high-precision value is kept across the format change.
    fn convert(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        let (Some(fty), Some(tty)) = (from.as_float(), to.as_float()) else {
            return MpValue::exact(Concrete.fpext(from, to, &a.bits));
        };
        let concrete = Concrete.fpext(from, to, &a.bits);
        if a.hp == EXACT {
            if exact(tty, concrete, self.prec) == exact(fty, a.bits, self.prec) {
                return MpValue::exact(concrete);
            }
            let x = exact(fty, a.bits, self.prec);
            return self.float_result(tty, || concrete, x);
        }
        let x = self.hp(fty, a);
        self.float_result(tty, || concrete, x)
    }
}

/// Whether `fcmp pred` holds between the high-precision values `x` and `y`.
fn holds(pred: FloatPred, x: &Float, y: &Float) -> bool {
    let (p, q) = match x.partial_cmp(y) {
        None => (f64::NAN, 0.0),
        Some(std::cmp::Ordering::Less) => (0.0, 1.0),
        Some(std::cmp::Ordering::Equal) => (0.0, 0.0),
        Some(std::cmp::Ordering::Greater) => (1.0, 0.0),
    };
    fpir::eval::fcmp_f64(pred, p, q)
}

/// `x` truncated to an integer of type `to` (signed or unsigned), when it is one.
fn int_of(x: Float, to: Type, signed: bool) -> Option<u64> {
    let i = x.trunc().to_integer()?;
    let w = to.bits().clamp(1, 64);
    if signed {
        let v = i.to_i64()?;
        let lo = i64::MIN >> (64 - w);
        let hi = i64::MAX >> (64 - w);
        (lo..=hi).contains(&v).then(|| v as u64 & to.mask())
    } else {
        let v = i.to_u64()?;
        (w == 64 || v >> w == 0).then_some(v)
    }
}

macro_rules! int_ops {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(&mut self, ty: Type, a: &MpValue, b: &MpValue) -> MpValue {
            MpValue::exact(Concrete.$name(ty, &a.bits, &b.bits))
        }
    )*};
}

macro_rules! int_div_ops {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(&mut self, ty: Type, a: &MpValue, b: &MpValue) -> Result<MpValue, TrapKind> {
            Concrete.$name(ty, &a.bits, &b.bits).map(MpValue::exact)
        }
    )*};
}

macro_rules! int_unary_ops {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(&mut self, ty: Type, a: &MpValue) -> MpValue {
            MpValue::exact(Concrete.$name(ty, &a.bits))
        }
    )*};
}

macro_rules! int_casts {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
            MpValue::exact(Concrete.$name(from, to, &a.bits))
        }
    )*};
}

impl<M: Mode> Semantics for Mpfr<M> {
    type Value = MpValue;

    fn begin_run(&mut self) {
        self.arena.clear();
        self.cells.clear();
        self.extended.clear();
        self.site = None;
        self.stats.clear();
        self.divergences.clear();
        self.slot_addrs.clear();
        self.pending_slot = None;
    }

    #[inline]
    fn constant(&mut self, ty: Type, bits: u64) -> MpValue {
        MpValue::exact(Concrete.constant(ty, bits))
    }

    fn input(&mut self, slot: InputSlot, ty: Type, bits: u64) -> MpValue {
        self.pending_slot = Some(slot.0);
        MpValue::exact(Concrete.constant(ty, bits))
    }

    #[inline]
    fn concrete_bits(&self, value: &MpValue) -> u64 {
        value.bits
    }

    #[inline]
    fn op_site(&mut self, site: OpSite) {
        self.site = Some(site);
    }

    fn br(&mut self, site: BranchSite, cond: &MpValue, _taken: bool) {
        if M::SHADOW && cond.hp == DIVERGED && !self.divergences.contains(&site) {
            self.divergences.push(site);
        }
    }

    int_ops!(iadd, isub, imul, shl, lshr, ashr, band, bor, bxor, smax, smin, umax, umin);
    int_div_ops!(udiv, sdiv, urem, srem);
    int_unary_ops!(ctpop, ctlz, cttz, bswap, abs);
    int_casts!(trunc, zext, sext, ptrtoint, inttoptr);

    fn fadd(&mut self, ty: FloatTy, a: &MpValue, b: &MpValue) -> MpValue {
        self.arith(
            ty,
            a,
            b,
            FloatBinOp::Fadd,
            |c, x, y| c.fadd(ty, x, y),
            |x, y| x + y,
        )
    }
    fn fsub(&mut self, ty: FloatTy, a: &MpValue, b: &MpValue) -> MpValue {
        self.arith(
            ty,
            a,
            b,
            FloatBinOp::Fsub,
            |c, x, y| c.fsub(ty, x, y),
            |x, y| x - y,
        )
    }
    fn fmul(&mut self, ty: FloatTy, a: &MpValue, b: &MpValue) -> MpValue {
        self.arith(
            ty,
            a,
            b,
            FloatBinOp::Fmul,
            |c, x, y| c.fmul(ty, x, y),
            |x, y| x * y,
        )
    }
    fn fdiv(&mut self, ty: FloatTy, a: &MpValue, b: &MpValue) -> MpValue {
        self.arith(
            ty,
            a,
            b,
            FloatBinOp::Fdiv,
            |c, x, y| c.fdiv(ty, x, y),
            |x, y| x / y,
        )
    }
    fn frem(&mut self, ty: FloatTy, a: &MpValue, b: &MpValue) -> MpValue {
        self.arith(
            ty,
            a,
            b,
            FloatBinOp::Frem,
            |c, x, y| c.frem(ty, x, y),
            |x, y| x % y,
        )
    }
    fn fneg(&mut self, ty: FloatTy, a: &MpValue) -> MpValue {
        let bits = Concrete.fneg(ty, &a.bits);
        if a.hp == EXACT || a.hp == DIVERGED {
            return MpValue::exact(bits);
        }
        let x = -self.hp(ty, a);
        self.push(bits, x)
    }

    fn icmp(&mut self, pred: IntPred, ty: Type, a: &MpValue, b: &MpValue) -> MpValue {
        MpValue::exact(Concrete.icmp(pred, ty, &a.bits, &b.bits))
    }

    fn fcmp(&mut self, pred: FloatPred, ty: FloatTy, a: &MpValue, b: &MpValue) -> MpValue {
        let high = self.hp_fcmp(pred, ty, a, b);
        let concrete = M::SHADOW && Concrete.fcmp(pred, ty, &a.bits, &b.bits) != 0;
        self.comparison(concrete, high)
    }

    fn fptrunc(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        self.convert(from, to, a)
    }
    fn fpext(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        self.convert(from, to, a)
    }
    fn fptoui(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        if !M::SHADOW {
            if let Some(bits) = self.hp_to_int(from, to, a, false) {
                return MpValue::exact(bits);
            }
        }
        MpValue::exact(Concrete.fptoui(from, to, &a.bits))
    }
    fn fptosi(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        if !M::SHADOW {
            if let Some(bits) = self.hp_to_int(from, to, a, true) {
                return MpValue::exact(bits);
            }
        }
        MpValue::exact(Concrete.fptosi(from, to, &a.bits))
    }
    fn uitofp(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        self.int_to_float(from, to, a, false)
    }
    fn sitofp(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        self.int_to_float(from, to, a, true)
    }
    fn bitcast(&mut self, from: Type, to: Type, a: &MpValue) -> MpValue {
        let bits = Concrete.bitcast(from, to, &a.bits);
        if from == to && from.as_float().is_some() && a.hp != DIVERGED {
            return MpValue { bits, hp: a.hp };
        }
        MpValue::exact(bits)
    }

    fn select(
        &mut self,
        _ty: Type,
        cond: &MpValue,
        if_true: &MpValue,
        if_false: &MpValue,
    ) -> MpValue {
        if cond.bits & 1 != 0 {
            *if_true
        } else {
            *if_false
        }
    }

    fn math(&mut self, call: MathCall, args: &[MpValue], ret: Type) -> (MpValue, Option<MpValue>) {
        let ty = call.ty;
        let bits: Vec<u64> = args.iter().map(|a| a.bits).collect();
        let concrete = || fpforge_exec::libm::eval(call, &bits, ret);
        let floats = match call.func.shape() {
            MathShape::Unary
            | MathShape::ToInt
            | MathShape::FloatPtrInt
            | MathShape::FloatPtrFloat => 1,
            MathShape::Binary => 2,
            MathShape::Ternary => 3,
            MathShape::FloatInt => 1,
        };
        let hps: Vec<Float> = args.iter().take(floats).map(|a| self.hp(ty, a)).collect();
        let int_arg = args.get(1).map_or(0, |a| a.bits as u32 as i32);
        let result = match math::eval(call.func, self.prec, &hps, int_arg) {
            Counterpart::Value(x) => (self.float_result(ty, || concrete().0, x), None),
            Counterpart::Host => {
                let (r, second) = concrete();
                (MpValue::exact(r), second.map(MpValue::exact))
            }
            Counterpart::Frexp => {
                let x = hps
                    .first()
                    .cloned()
                    .unwrap_or_else(|| metrics::nan(self.prec));
                let e = if M::SHADOW {
                    concrete().1.unwrap_or(0) as u32 as i32
                } else {
                    x.get_exp().unwrap_or(0)
                };
                let m = Float::with_val(self.prec, &x >> e);
                let v = self.float_result(ty, || concrete().0, m);
                (v, Some(MpValue::exact(u64::from(e as u32))))
            }
            Counterpart::Modf => {
                let x = hps
                    .first()
                    .cloned()
                    .unwrap_or_else(|| metrics::nan(self.prec));
                let int = Float::with_val(self.prec, x.trunc_ref());
                let frac = if x.is_infinite() {
                    Float::with_val(self.prec, 0).copysign(&x)
                } else {
                    Float::with_val(self.prec, &x - &int)
                };
                let (cf, ci) = concrete();
                let v = self.float_result(ty, || cf, frac);
                let i = self.float_result(ty, || ci.unwrap_or(0), int);
                (v, Some(i))
            }
        };
        if M::SHADOW {
            let operands: Vec<MpValue> = args.iter().take(floats).copied().collect();
            if ret.as_float().is_some() {
                self.record(ty, None, &operands, &result.0);
            } else {
                self.site = None;
            }
        }
        result
    }

    fn f80(
        &mut self,
        mem: &mut Memory,
        env: &mut RunEnv,
        op: F80Op,
        ty: Type,
        args: &[MpValue],
    ) -> Result<MpValue, TrapKind> {
        self.extended_op(mem, env, op, ty, args)
    }

    fn load(&mut self, mem: &Memory, ty: Type, addr: u64) -> Result<MpValue, TrapKind> {
        let bits = mem.load(ty, addr)?;
        Ok(self.cell_value(ty, addr, bits))
    }

    fn store(
        &mut self,
        mem: &mut Memory,
        ty: Type,
        addr: u64,
        value: &MpValue,
    ) -> Result<(), TrapKind> {
        mem.store(ty, addr, value.bits)?;
        if let Some(slot) = self.pending_slot.take() {
            let i = slot as usize;
            if self.slot_addrs.len() <= i {
                self.slot_addrs.resize(i + 1, None);
            }
            self.slot_addrs[i] = Some(addr);
        }
        self.forget(addr, u64::from(ty.bytes()));
        // Floats and the significands of extended values are the registers with shadows.
        if value.hp != EXACT && value.hp != DIVERGED {
            self.cells.insert(addr, Cell { ty, value: *value });
        }
        Ok(())
    }

    fn copy(&mut self, mem: &mut Memory, dst: u64, src: u64, len: u64) -> Result<(), TrapKind> {
        mem.copy(dst, src, len)?;
        let moved: Vec<(u64, Cell)> = self
            .cells
            .iter()
            .filter(|(&a, c)| a >= src && a + u64::from(c.ty.bytes()) <= src.saturating_add(len))
            .map(|(&a, c)| (a - src + dst, *c))
            .collect();
        self.forget(dst, len);
        self.cells.extend(moved);
        Ok(())
    }

    fn fill(&mut self, mem: &mut Memory, dst: u64, byte: u8, len: u64) -> Result<(), TrapKind> {
        mem.fill(dst, byte, len)?;
        self.forget(dst, len);
        Ok(())
    }
}
