//! The [`Concolic`] semantics: every value is its concrete bits plus, when it depends on
//! the inputs, a term of the solver's language ([`fpforge_solve::TermStore`]).
//!
//! - **Inputs.** Each coordinate of an [`InputSpec`] (scalar parameter, pointee, array
//!   element) is one solver variable, named after its parameter (`x`, `a[3]`); fixed
//!   arguments and output arrays stay concrete.
//! - **Sorts.** `f32`/`f64` values are floats, `i1` values Booleans, `iN` values
//!   bit-vectors of width N. Pointers are always concrete.
//! - **Operations** build the term whose exact evaluation ([`fpforge_solve::eval`]) is the
//!   concrete result bit for bit, including the x86-64 choices of [`fpforge_exec::Concrete`]:
//!   masked shift counts, `cvttsd2si` results for out-of-range `fptosi`/`fptoui` (as an
//!   `ite` on the range, with the conversion applied to a clamped operand so no term is
//!   ever unspecified), clang's `fptoui` sequence to 64 bits.
//! - **Math calls** become what the `solver` column of fpir's math table says:
//!   `fabs sqrt floor ceil trunc round rint nearbyint fma fmuladd modf` become exact IEEE
//!   operators; `exp log atan sin cos tan` become the solver's extension operators
//!   (evaluated with the same host libm as the interpreter); with
//!   [`CallPolicy::Concretize`] all of them are concretized instead.
//! - **Concretization.** What the solver cannot express (`frem`, other math functions,
//!   `ctpop`/`ctlz`/`cttz`, symbolic shift counts on types narrower than 5 bits, symbolic
//!   integers turned into pointers, symbolic indices of address arithmetic reported by
//!   [`Semantics::address_index`], `frexp`, the operands of the modelled floating-point
//!   environment and the arguments of C library calls, reported by
//!   [`Semantics::concretized`], and memory a library call reads while any shadow byte
//!   is symbolic) is replaced by
//!   its concrete value *without* a recorded equality. The first place where this
//!   happens is remembered ([`Concolic::exact_prefix`]): path-condition entries before
//!   it are exact, so `unsat` on them proves infeasibility; after it they only guide.
//! - **Memory** stays concrete-addressed. A byte-granular shadow maps each byte written
//!   from a symbolic value to (bit pattern term, byte index, concrete byte). A load
//!   assembles its term from the bytes (`extract` of one stored pattern, or a `concat`
//!   of pieces and concrete bytes), then reinterprets it (`to_fp` for floats), so type
//!   punning (`GET_HIGH_WORD`, unions) keeps its symbolic meaning. A shadow byte whose
//!   concrete byte no longer matches memory is ignored (stale stack slots).
//! - **Path condition.** Every conditional branch and switch appends a [`PathEntry`]:
//!   the site, the outcome and, when the decision depends on the inputs, the Boolean
//!   term that holds exactly when the run takes that outcome.
//!
//! A self-check mode ([`Concolic::with_self_check`]) evaluates every term it builds at the
//! run's input with the exact evaluator and records any disagreement with the concrete
//! bits; the differential tests run with it.

use fpforge_exec::{Concrete, InputSlot, Memory, Semantics, TrapKind};
use fpforge_solve::eval::{Model, TermEvaluator, Value};
use fpforge_solve::term::ExtFn;
use fpforge_solve::{FpFormat, Op, SmtRounding, Sort, TermId, TermStore};
use fpforge_spec::{FieldValue, InputSpec, ParamInput};
use fpir::{
    Arm, BranchSite, FloatPred, FloatTy, IntPred, MathCall, MathFn, Module, ParamShape, Side,
    Terminator, Type,
};
use std::collections::HashMap;

/// A concolic value: concrete bits (as [`Concrete`] holds them) and the term, when the
/// value depends on the inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CVal {
    /// Raw bits, zero-extended.
    pub bits: u64,
    /// The symbolic value, `None` for values that do not depend on the inputs.
    pub term: Option<TermId>,
}

impl CVal {
    fn concrete(bits: u64) -> CVal {
        CVal { bits, term: None }
    }
}

/// One decision of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathEntry {
    /// The branch or switch, and where it went.
    pub side: Side,
    /// The Boolean term that holds exactly for the inputs taking the side here (given
    /// the decisions before); `None` when the decision does not depend on the inputs.
    pub constraint: Option<TermId>,
    /// The deciding value's term: the Boolean condition of a branch, the bit-vector
    /// scrutinee of a switch (`None` when concrete).
    pub decider: Option<TermId>,
}

/// What math calls become.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CallPolicy {
    /// Exact operators and the solver's extension operators where they exist (default).
    #[default]
    Symbolic,
    /// Every math call is concretized (the Pex/FloPSy approach).
    Concretize,
    /// As [`CallPolicy::Symbolic`], and a call without an operator (`pow`, `erf`, ...)
    /// becomes an uninterpreted result: one fresh variable per function and operand
    /// terms, unconstrained. Path conditions then over-approximate the inputs that take
    /// them instead of being cut at the call: their `unsat` is a proof, their models
    /// are only candidates (the bit-precise step of `explore` uses it).
    Uninterpreted,
}

/// A term that disagreed with the concrete value in self-check mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermMismatch {
    /// The operation that built the term.
    pub op: &'static str,
    /// The concrete bits.
    pub concrete: u64,
    /// The evaluated term, or `None` when its value is unspecified.
    pub symbolic: Option<u64>,
}

/// One shadow byte: byte `index` of the bit pattern `pattern`, whose concrete value was
/// `byte` when stored.
#[derive(Clone, Copy, Debug)]
struct ShadowByte {
    pattern: TermId,
    index: u8,
    byte: u8,
}

/// The concolic semantics (see the module docs).
#[derive(Clone, Debug)]
pub struct Concolic {
    store: TermStore,
    /// Per input slot, the coordinate it is (`None`: fixed or output).
    slot_coord: Vec<Option<usize>>,
    /// Per coordinate, its variable term and type.
    vars: Vec<(TermId, Type)>,
    /// Case values of every switch site.
    cases: HashMap<BranchSite, Vec<u64>>,
    calls: CallPolicy,
    path: Vec<PathEntry>,
    shadow: HashMap<u64, ShadowByte>,
    exact_prefix: Option<usize>,
    /// Whether the first concretization of the run was a math call's.
    cut_by_math_call: bool,
    /// Whether an exception flag of the modelled floating-point environment may have
    /// been raised by an operation on a symbolic value in this run.
    flags_symbolic: bool,
    /// The variable of each uninterpreted call result, by function and operand terms
    /// ([`CallPolicy::Uninterpreted`]), kept across runs.
    uninterpreted: HashMap<(&'static str, Vec<TermId>), TermId>,
    concretizations: u64,
    input_bits: Vec<u64>,
    self_check: bool,
    model: Model,
    mismatches: Vec<TermMismatch>,
    checked: HashMap<&'static str, u64>,
}

fn sort_of(ty: Type) -> Option<Sort> {
    match ty {
        Type::Int(1) => Some(Sort::Bool),
        Type::Int(w) => Some(Sort::BitVec(u32::from(w))),
        Type::Float(FloatTy::F32) => Some(Sort::F32),
        Type::Float(FloatTy::F64) => Some(Sort::F64),
        Type::Ptr => None,
    }
}

fn fmt_of(ty: FloatTy) -> FpFormat {
    match ty {
        FloatTy::F32 => FpFormat::F32,
        FloatTy::F64 => FpFormat::F64,
    }
}

/// Raw bits of a model value (Booleans as 0/1).
pub fn value_bits(v: &Value) -> u64 {
    match *v {
        Value::Bool(b) => u64::from(b),
        Value::F32(x) => u64::from(x.to_bits()),
        Value::F64(x) => x.to_bits(),
        Value::Bv(x, _) => x,
        Value::Float(_, bits) => bits as u64,
        Value::Rm(_) => 0,
    }
}

/// The model value of raw bits of type `ty`.
pub fn bits_value(ty: Type, bits: u64) -> Value {
    match ty {
        Type::Int(1) => Value::Bool(bits & 1 != 0),
        Type::Int(w) => Value::Bv(bits & ty.mask(), u32::from(w)),
        Type::Float(FloatTy::F32) => Value::F32(f32::from_bits(bits as u32)),
        Type::Float(FloatTy::F64) | Type::Ptr => Value::F64(f64::from_bits(bits)),
    }
}

impl Concolic {
    /// A concolic semantics for runs of the function `spec` describes, in `module` (for
    /// the case values of switches).
    pub fn new(module: &Module, spec: &InputSpec, calls: CallPolicy) -> Concolic {
        let mut store = TermStore::new();
        let mut slot_coord = Vec::new();
        let mut vars = Vec::new();
        let mut long_double_head = 0;
        for (param, input) in spec.params().iter().enumerate() {
            let name = spec.param_name(param);
            let mut var =
                |slot_coord: &mut Vec<Option<usize>>, ty: Type, label: String| match sort_of(ty) {
                    Some(sort) => {
                        slot_coord.push(Some(vars.len()));
                        vars.push((store.declare(&label, sort), ty));
                    }
                    None => slot_coord.push(None),
                };
            match *input {
                ParamInput::Scalar { ty, .. } | ParamInput::Pointee { ty, .. } => {
                    var(&mut slot_coord, ty, name.to_string())
                }
                ParamInput::Array { elem, len, .. } => {
                    for k in 0..len {
                        var(&mut slot_coord, elem, format!("{name}[{k}]"));
                    }
                }
                ParamInput::Vector { elem, len, .. } => {
                    for k in 0..len {
                        var(&mut slot_coord, elem, format!("{name}[{k}]"));
                    }
                }
                ParamInput::Struct { ref fields, .. } => {
                    for field in fields {
                        match field.value {
                            FieldValue::Input(_) => var(
                                &mut slot_coord,
                                field.ty,
                                ParamShape::field_name(name, &field.path),
                            ),
                            FieldValue::Fixed(_) => slot_coord.push(None),
                            FieldValue::Null => {}
                        }
                    }
                }
                ParamInput::Fixed { .. } => slot_coord.push(None),
                ParamInput::Output { len, .. } => slot_coord.extend((0..len).map(|_| None)),
                ParamInput::LongDoubleResult => slot_coord.extend([None, None]),
                // A long double's coordinates are declared, but its two registers are
                // not theirs (extended arithmetic is concrete): both slots name the head
                // coordinate with another type, which `input` concretizes, so no path
                // through them counts as exact.
                ParamInput::LongDouble { .. } => {
                    long_double_head = vars.len();
                    for (label, ty) in [("head", Type::F64), ("tail", Type::Int(16))] {
                        if let Some(sort) = sort_of(ty) {
                            vars.push((store.declare(&format!("{name}.{label}"), sort), ty));
                        }
                    }
                    slot_coord.push(Some(long_double_head));
                }
                ParamInput::LongDoubleExponent => slot_coord.push(Some(long_double_head)),
            }
        }
        let mut cases = HashMap::new();
        for (site, data) in module.branch_sites.iter() {
            if let Terminator::Switch { cases: cs, .. } =
                &module.funcs[data.func].blocks[data.block].term
            {
                cases.insert(site, cs.iter().map(|c| c.value).collect());
            }
        }
        let model = Model::zeros(&store);
        Concolic {
            store,
            input_bits: vec![0; vars.len()],
            slot_coord,
            vars,
            cases,
            calls,
            path: Vec::new(),
            shadow: HashMap::new(),
            exact_prefix: None,
            cut_by_math_call: false,
            flags_symbolic: false,
            uninterpreted: HashMap::new(),
            concretizations: 0,
            self_check: false,
            model,
            mismatches: Vec::new(),
            checked: HashMap::new(),
        }
    }

    /// Turns on self-checking: every term built is evaluated at the run's input and
    /// compared with the concrete value ([`Concolic::mismatches`]).
    pub fn with_self_check(mut self, on: bool) -> Concolic {
        self.self_check = on;
        self
    }

    /// The term store (grows across runs; terms are shared by hash-consing).
    pub fn store(&self) -> &TermStore {
        &self.store
    }

    /// The store, mutably (to build queries).
    pub fn store_mut(&mut self) -> &mut TermStore {
        &mut self.store
    }

    /// The variable term and type of each coordinate.
    pub fn vars(&self) -> &[(TermId, Type)] {
        &self.vars
    }

    /// The path condition of the last run.
    pub fn path(&self) -> &[PathEntry] {
        &self.path
    }

    /// Number of path entries before the first concretization of the last run (`None`:
    /// nothing was concretized, the whole path condition is exact).
    pub fn exact_prefix(&self) -> Option<usize> {
        self.exact_prefix
    }

    /// Whether the last run's first concretization (where its exact prefix ends) was a
    /// math call's result that has no term under the call policy.
    pub fn cut_by_math_call(&self) -> bool {
        self.cut_by_math_call
    }

    /// Concretizations of symbolic values in the last run.
    pub fn concretizations(&self) -> u64 {
        self.concretizations
    }

    /// The coordinate bits of the last run's input.
    pub fn input_bits(&self) -> &[u64] {
        &self.input_bits
    }

    /// Self-check disagreements so far (all runs).
    pub fn mismatches(&self) -> &[TermMismatch] {
        &self.mismatches
    }

    /// Self-checked terms per operation name so far (all runs).
    pub fn checked(&self) -> &HashMap<&'static str, u64> {
        &self.checked
    }

    /// The Boolean term that holds exactly for the inputs whose decision at `entry`'s
    /// site is `arm` (given the decisions before it); `None` when the decision does
    /// not depend on the inputs or `arm` does not fit the site.
    pub fn constraint_for(&mut self, entry: &PathEntry, arm: Arm) -> Option<TermId> {
        let d = entry.decider?;
        let case = match arm {
            Arm::True => return Some(d),
            Arm::False => return self.mk(Op::Not, &[d]),
            Arm::Case(i) => Some(i),
            Arm::Default => None,
        };
        let Sort::BitVec(w) = self.store.sort(d) else {
            return None;
        };
        let values = self
            .cases
            .get(&entry.side.site)
            .cloned()
            .unwrap_or_default();
        match case {
            Some(i) => {
                let c = self.bv_const(*values.get(i as usize)?, w);
                self.mk(Op::Eq, &[d, c])
            }
            None => {
                let mut all = self.store.bool_const(true);
                for v in values {
                    let c = self.bv_const(v, w);
                    let differs = self.mk(Op::Distinct, &[d, c])?;
                    all = self.mk(Op::And, &[all, differs])?;
                }
                Some(all)
            }
        }
    }

    fn concretize(&mut self, v: &CVal) {
        if v.term.is_some() {
            self.cut_here();
        }
    }

    /// A concretization happens now: the path condition is exact up to here only.
    fn cut_here(&mut self) {
        self.concretizations += 1;
        self.exact_prefix.get_or_insert(self.path.len());
    }

    fn mk(&mut self, op: Op, args: &[TermId]) -> Option<TermId> {
        self.store.mk(op, args).ok()
    }

    /// `op(rm, args...)`: an operation that takes a rounding mode, in mode `rm`.
    fn rounded(&mut self, op: Op, rm: SmtRounding, args: &[TermId]) -> Option<TermId> {
        let mut all = vec![self.store.rm_const(rm)];
        all.extend_from_slice(args);
        self.mk(op, &all)
    }

    fn bv_const(&mut self, bits: u64, w: u32) -> TermId {
        // Widths come from IR types (1..=64), which the store accepts.
        self.store
            .bv_const(bits, w)
            .unwrap_or_else(|_| self.store.bool_const(false))
    }

    /// The constant term of raw bits of type `ty` (floats keep their exact bits).
    fn const_term(&mut self, ty: Type, bits: u64) -> Option<TermId> {
        match ty {
            Type::Int(1) => Some(self.store.bool_const(bits & 1 != 0)),
            Type::Int(w) => Some(self.bv_const(bits, u32::from(w))),
            Type::Float(f) => self.mk(Op::FpConst(fmt_of(f), u128::from(bits & ty.mask())), &[]),
            Type::Ptr => None,
        }
    }

    /// The term of `v` (its own, or its constant).
    fn lift(&mut self, ty: Type, v: &CVal) -> Option<TermId> {
        match v.term {
            Some(t) => Some(t),
            None => self.const_term(ty, v.bits),
        }
    }

    /// `v` as a bit-vector term (`i1` as a 1-bit vector).
    fn bv(&mut self, ty: Type, v: &CVal) -> Option<TermId> {
        let t = self.lift(ty, v)?;
        if ty == Type::BOOL {
            let (one, zero) = (self.bv_const(1, 1), self.bv_const(0, 1));
            self.mk(Op::Ite, &[t, one, zero])
        } else {
            Some(t)
        }
    }

    /// A bit-vector term back as a value of integer type `ty`.
    fn bv_as(&mut self, ty: Type, t: TermId) -> Option<TermId> {
        if ty == Type::BOOL {
            let one = self.bv_const(1, 1);
            self.mk(Op::Eq, &[t, one])
        } else {
            Some(t)
        }
    }

    /// A result with concrete bits `bits` and the term `build` makes, when an operand is
    /// symbolic. A failed build concretizes.
    fn result(
        &mut self,
        name: &'static str,
        ty: Type,
        bits: u64,
        operands: &[&CVal],
        build: impl FnOnce(&mut Self) -> Option<TermId>,
    ) -> CVal {
        if operands.iter().all(|v| v.term.is_none()) {
            return CVal::concrete(bits);
        }
        match build(self) {
            Some(t) => {
                if self.self_check {
                    self.check(name, ty, bits, t);
                }
                CVal {
                    bits,
                    term: Some(t),
                }
            }
            None => {
                for v in operands {
                    self.concretize(v);
                }
                CVal::concrete(bits)
            }
        }
    }

    fn check(&mut self, name: &'static str, ty: Type, bits: u64, t: TermId) {
        *self.checked.entry(name).or_insert(0) += 1;
        let mut ev = TermEvaluator::new(&self.store, &[t]);
        ev.run(&self.store, &self.model);
        let got = (!ev.is_tainted(t)).then(|| value_bits(&ev.value(t)));
        let agree = match (got, ty) {
            (Some(g), Type::Float(FloatTy::F32)) => {
                g == bits
                    || (f32::from_bits(g as u32).is_nan() && f32::from_bits(bits as u32).is_nan())
            }
            (Some(g), Type::Float(FloatTy::F64)) => {
                g == bits || (f64::from_bits(g).is_nan() && f64::from_bits(bits).is_nan())
            }
            (Some(g), _) => g == bits & ty.mask(),
            (None, _) => false,
        };
        if !agree {
            self.mismatches.push(TermMismatch {
                op: name,
                concrete: bits,
                symbolic: got,
            });
        }
    }

    fn binary_bv(
        &mut self,
        name: &'static str,
        op: Op,
        ty: Type,
        a: &CVal,
        b: &CVal,
        bits: u64,
    ) -> CVal {
        self.result(name, ty, bits, &[a, b], |s| {
            let (x, y) = (s.bv(ty, a)?, s.bv(ty, b)?);
            let r = s.mk(op, &[x, y])?;
            s.bv_as(ty, r)
        })
    }

    /// A bitwise operation: `ops[0]` on booleans (`i1` terms are Bool), `ops[1]` on
    /// bit-vectors.
    fn bitwise(
        &mut self,
        name: &'static str,
        ops: [Op; 2],
        ty: Type,
        a: &CVal,
        b: &CVal,
        bits: u64,
    ) -> CVal {
        let op = if ty == Type::BOOL { ops[0] } else { ops[1] };
        self.result(name, ty, bits, &[a, b], |s| {
            let (x, y) = (s.lift(ty, a)?, s.lift(ty, b)?);
            s.mk(op, &[x, y])
        })
    }

    /// The masked shift count of x86 (mod 32 up to 32 bits, mod 64 above).
    fn shift(
        &mut self,
        name: &'static str,
        op: Op,
        ty: Type,
        a: &CVal,
        b: &CVal,
        bits: u64,
    ) -> CVal {
        let w = ty.bits();
        self.result(name, ty, bits, &[a, b], |s| {
            if w < 5 {
                return None;
            }
            let x = s.lift(ty, a)?;
            let count = match b.term {
                None => s.bv_const(b.bits & if w <= 32 { 31 } else { 63 }, w),
                Some(t) => {
                    let m = s.bv_const(if w <= 32 { 31 } else { 63 }, w);
                    s.mk(Op::BvAnd, &[t, m])?
                }
            };
            s.mk(op, &[x, count])
        })
    }

    fn float_binary(
        &mut self,
        name: &'static str,
        op: Op,
        ty: FloatTy,
        a: &CVal,
        b: &CVal,
        bits: u64,
    ) -> CVal {
        let t = Type::Float(ty);
        self.result(name, t, bits, &[a, b], |s| {
            let (x, y) = (s.lift(t, a)?, s.lift(t, b)?);
            s.rounded(op, SmtRounding::Rne, &[x, y])
        })
    }

    /// `x` (a float term of format `ty`) as a binary64 term.
    fn widen64(&mut self, ty: Type, x: TermId) -> Option<TermId> {
        match ty {
            Type::Float(FloatTy::F32) => {
                self.rounded(Op::FpToFp(FpFormat::F64), SmtRounding::Rne, &[x])
            }
            _ => Some(x),
        }
    }

    /// x86 `cvttsd2si` (64-bit destination) of a binary64 term.
    fn cvtt64(&mut self, x: TermId) -> Option<TermId> {
        let lo = self.store.f64_const(-9_223_372_036_854_775_808.0);
        let hi = self.store.f64_const(9_223_372_036_854_775_808.0);
        let ge = self.mk(Op::FpGeq, &[x, lo])?;
        let lt = self.mk(Op::FpLt, &[x, hi])?;
        self.clamped_conversion(x, ge, lt, 64, 1 << 63)
    }

    /// x86 `cvttsd2si` (32-bit destination) of a binary64 term, as a 32-bit vector.
    fn cvtt32(&mut self, x: TermId) -> Option<TermId> {
        let lo = self.store.f64_const(-2_147_483_649.0);
        let hi = self.store.f64_const(2_147_483_648.0);
        let gt = self.mk(Op::FpGt, &[x, lo])?;
        let lt = self.mk(Op::FpLt, &[x, hi])?;
        self.clamped_conversion(x, gt, lt, 32, 0x8000_0000)
    }

    /// `ite(in range, to_sbv(RTZ, x'), invalid)` where `x'` is `x` in range and `+0`
    /// outside, so the conversion term is never unspecified.
    fn clamped_conversion(
        &mut self,
        x: TermId,
        c1: TermId,
        c2: TermId,
        w: u32,
        invalid: u64,
    ) -> Option<TermId> {
        let inside = self.mk(Op::And, &[c1, c2])?;
        let zero = self.store.f64_const(0.0);
        let safe = self.mk(Op::Ite, &[inside, x, zero])?;
        let conv = self.rounded(Op::FpToSbv(w), SmtRounding::Rtz, &[safe])?;
        let bad = self.bv_const(invalid, w);
        self.mk(Op::Ite, &[inside, conv, bad])
    }

    /// The low `w` bits of a bit-vector term of width `from`.
    fn low_bits(&mut self, t: TermId, from: u32, w: u32) -> Option<TermId> {
        if w == from {
            Some(t)
        } else {
            self.mk(Op::Extract(w - 1, 0), &[t])
        }
    }

    /// The low `w` bits of x86's truncating conversion of the binary64 term `x` to a
    /// `conv`-bit integer (`cvttsd2si` with a 32- or 64-bit destination).
    fn truncated_to(&mut self, x: TermId, w: u32, conv: u32) -> Option<TermId> {
        let r = if conv == 64 {
            self.cvtt64(x)?
        } else {
            self.cvtt32(x)?
        };
        self.low_bits(r, conv, w)
    }

    /// `fptrunc`/`fpext` of `a` from `from` to `to`, whose concrete result is `bits`.
    fn float_to_float(
        &mut self,
        name: &'static str,
        from: Type,
        to: Type,
        bits: u64,
        a: &CVal,
    ) -> CVal {
        self.result(name, to, bits, &[a], |s| {
            let x = s.lift(from, a)?;
            s.rounded(Op::FpToFp(fmt_of(to.as_float()?)), SmtRounding::Rne, &[x])
        })
    }

    /// The bit pattern of a symbolic value of type `ty`, as stored in memory
    /// (`i1` as one byte).
    fn pattern(&mut self, ty: Type, t: TermId) -> Option<TermId> {
        match ty {
            Type::Float(f) => self.mk(Op::FpToBits(fmt_of(f)), &[t]),
            Type::Int(1) => {
                let (one, zero) = (self.bv_const(1, 8), self.bv_const(0, 8));
                self.mk(Op::Ite, &[t, one, zero])
            }
            Type::Int(_) => Some(t),
            Type::Ptr => None,
        }
    }

    fn unary_float(
        &mut self,
        name: &'static str,
        op: Op,
        ty: FloatTy,
        a: &CVal,
        bits: u64,
    ) -> CVal {
        let t = Type::Float(ty);
        self.result(name, t, bits, &[a], |s| {
            let x = s.lift(t, a)?;
            s.mk(op, &[x])
        })
    }

    fn pick(
        &mut self,
        name: &'static str,
        ty: Type,
        a: &CVal,
        b: &CVal,
        pred: Op,
        take_a: bool,
    ) -> CVal {
        let bits = if take_a { a.bits } else { b.bits };
        self.result(name, ty, bits, &[a, b], |s| {
            let (x, y) = (s.lift(ty, a)?, s.lift(ty, b)?);
            let c = s.mk(pred, &[x, y])?;
            s.mk(Op::Ite, &[c, x, y])
        })
    }
}

impl Semantics for Concolic {
    type Value = CVal;

    fn begin_run(&mut self) {
        self.path.clear();
        self.shadow.clear();
        self.exact_prefix = None;
        self.cut_by_math_call = false;
        self.concretizations = 0;
        self.flags_symbolic = false;
    }

    fn constant(&mut self, ty: Type, bits: u64) -> CVal {
        CVal::concrete(bits & ty.mask())
    }

    fn input(&mut self, slot: InputSlot, ty: Type, bits: u64) -> CVal {
        let coord = self.slot_coord.get(slot.0 as usize).copied().flatten();
        match coord.and_then(|c| self.vars.get(c).copied().map(|v| (c, v))) {
            Some((c, (term, vty))) if vty == ty => {
                self.input_bits[c] = bits;
                let var = c;
                if let Some(slot) = self.model.values.get_mut(var) {
                    *slot = bits_value(ty, bits);
                }
                CVal {
                    bits,
                    term: Some(term),
                }
            }
            Some(_) => {
                // A coordinate passed with another type than planned: not symbolic, so
                // nothing after this point is exact.
                self.exact_prefix = Some(0);
                self.concretizations += 1;
                CVal::concrete(bits)
            }
            None => CVal::concrete(bits),
        }
    }

    fn address_index(&mut self, index: &CVal) {
        self.concretize(index);
    }

    fn concretized(&mut self, value: &CVal) {
        self.concretize(value);
    }

    fn libc_reads_memory(&mut self) {
        if !self.shadow.is_empty() {
            self.cut_here();
        }
    }

    fn flags_depend_on(&mut self, operand: &CVal) {
        self.flags_symbolic |= operand.term.is_some();
    }

    fn libc_reads_flags(&mut self) {
        if self.flags_symbolic {
            self.cut_here();
        }
    }

    fn concrete_bits(&self, value: &CVal) -> u64 {
        value.bits
    }

    fn br(&mut self, site: BranchSite, cond: &CVal, taken: bool) {
        let mut entry = PathEntry {
            side: Side {
                site,
                arm: Arm::cond(taken),
            },
            constraint: None,
            decider: cond.term,
        };
        entry.constraint = self.constraint_for(&entry, entry.side.arm);
        self.path.push(entry);
    }

    fn switch(&mut self, site: BranchSite, ty: Type, value: &CVal, case: Option<u32>) {
        let decider = match value.term {
            Some(_) => self.bv(ty, value),
            None => None,
        };
        let mut entry = PathEntry {
            side: Side {
                site,
                arm: Arm::case(case),
            },
            constraint: None,
            decider,
        };
        entry.constraint = self.constraint_for(&entry, entry.side.arm);
        if value.term.is_some() && entry.constraint.is_none() {
            self.concretize(value);
        }
        self.path.push(entry);
    }

    fn iadd(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.iadd(ty, &a.bits, &b.bits);
        self.binary_bv("add", Op::BvAdd, ty, a, b, bits)
    }
    fn isub(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.isub(ty, &a.bits, &b.bits);
        self.binary_bv("sub", Op::BvSub, ty, a, b, bits)
    }
    fn imul(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.imul(ty, &a.bits, &b.bits);
        self.binary_bv("mul", Op::BvMul, ty, a, b, bits)
    }
    fn udiv(&mut self, ty: Type, a: &CVal, b: &CVal) -> Result<CVal, TrapKind> {
        let bits = Concrete.udiv(ty, &a.bits, &b.bits)?;
        Ok(self.binary_bv("udiv", Op::BvUdiv, ty, a, b, bits))
    }
    fn sdiv(&mut self, ty: Type, a: &CVal, b: &CVal) -> Result<CVal, TrapKind> {
        let bits = Concrete.sdiv(ty, &a.bits, &b.bits)?;
        Ok(self.binary_bv("sdiv", Op::BvSdiv, ty, a, b, bits))
    }
    fn urem(&mut self, ty: Type, a: &CVal, b: &CVal) -> Result<CVal, TrapKind> {
        let bits = Concrete.urem(ty, &a.bits, &b.bits)?;
        Ok(self.binary_bv("urem", Op::BvUrem, ty, a, b, bits))
    }
    fn srem(&mut self, ty: Type, a: &CVal, b: &CVal) -> Result<CVal, TrapKind> {
        let bits = Concrete.srem(ty, &a.bits, &b.bits)?;
        Ok(self.binary_bv("srem", Op::BvSrem, ty, a, b, bits))
    }
    fn shl(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.shl(ty, &a.bits, &b.bits);
        self.shift("shl", Op::BvShl, ty, a, b, bits)
    }
    fn lshr(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.lshr(ty, &a.bits, &b.bits);
        self.shift("lshr", Op::BvLshr, ty, a, b, bits)
    }
    fn ashr(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.ashr(ty, &a.bits, &b.bits);
        self.shift("ashr", Op::BvAshr, ty, a, b, bits)
    }
    fn band(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.band(ty, &a.bits, &b.bits);
        self.bitwise("and", [Op::And, Op::BvAnd], ty, a, b, bits)
    }
    fn bor(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.bor(ty, &a.bits, &b.bits);
        self.bitwise("or", [Op::Or, Op::BvOr], ty, a, b, bits)
    }
    fn bxor(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.bxor(ty, &a.bits, &b.bits);
        self.bitwise("xor", [Op::Xor, Op::BvXor], ty, a, b, bits)
    }

    fn fadd(&mut self, ty: FloatTy, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.fadd(ty, &a.bits, &b.bits);
        self.float_binary("fadd", Op::FpAdd, ty, a, b, bits)
    }
    fn fsub(&mut self, ty: FloatTy, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.fsub(ty, &a.bits, &b.bits);
        self.float_binary("fsub", Op::FpSub, ty, a, b, bits)
    }
    fn fmul(&mut self, ty: FloatTy, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.fmul(ty, &a.bits, &b.bits);
        self.float_binary("fmul", Op::FpMul, ty, a, b, bits)
    }
    fn fdiv(&mut self, ty: FloatTy, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.fdiv(ty, &a.bits, &b.bits);
        self.float_binary("fdiv", Op::FpDiv, ty, a, b, bits)
    }
    fn frem(&mut self, ty: FloatTy, a: &CVal, b: &CVal) -> CVal {
        // C fmod is not SMT-LIB fp.rem (which rounds the quotient to nearest).
        let bits = Concrete.frem(ty, &a.bits, &b.bits);
        self.result("frem", Type::Float(ty), bits, &[a, b], |_| None)
    }
    fn fneg(&mut self, ty: FloatTy, a: &CVal) -> CVal {
        let bits = Concrete.fneg(ty, &a.bits);
        self.unary_float("fneg", Op::FpNeg, ty, a, bits)
    }

    fn icmp(&mut self, pred: IntPred, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.icmp(pred, ty, &a.bits, &b.bits);
        self.result("icmp", Type::BOOL, bits, &[a, b], |s| {
            let (x, y) = (s.bv(ty, a)?, s.bv(ty, b)?);
            let op = match pred {
                IntPred::Eq => Op::Eq,
                IntPred::Ne => Op::Distinct,
                IntPred::Ult => Op::BvUlt,
                IntPred::Ule => Op::BvUle,
                IntPred::Ugt => Op::BvUgt,
                IntPred::Uge => Op::BvUge,
                IntPred::Slt => Op::BvSlt,
                IntPred::Sle => Op::BvSle,
                IntPred::Sgt => Op::BvSgt,
                IntPred::Sge => Op::BvSge,
            };
            s.mk(op, &[x, y])
        })
    }

    fn fcmp(&mut self, pred: FloatPred, ty: FloatTy, a: &CVal, b: &CVal) -> CVal {
        let bits = Concrete.fcmp(pred, ty, &a.bits, &b.bits);
        let t = Type::Float(ty);
        self.result("fcmp", Type::BOOL, bits, &[a, b], |s| {
            let (x, y) = (s.lift(t, a)?, s.lift(t, b)?);
            let ordered = |s: &mut Self, p: FloatPred| -> Option<TermId> {
                match p {
                    FloatPred::Oeq => s.mk(Op::FpEq, &[x, y]),
                    FloatPred::Ogt => s.mk(Op::FpGt, &[x, y]),
                    FloatPred::Oge => s.mk(Op::FpGeq, &[x, y]),
                    FloatPred::Olt => s.mk(Op::FpLt, &[x, y]),
                    FloatPred::Ole => s.mk(Op::FpLeq, &[x, y]),
                    FloatPred::One => {
                        let lt = s.mk(Op::FpLt, &[x, y])?;
                        let gt = s.mk(Op::FpGt, &[x, y])?;
                        s.mk(Op::Or, &[lt, gt])
                    }
                    FloatPred::Ord => {
                        let nx = s.mk(Op::FpIsNaN, &[x])?;
                        let ny = s.mk(Op::FpIsNaN, &[y])?;
                        let any = s.mk(Op::Or, &[nx, ny])?;
                        s.mk(Op::Not, &[any])
                    }
                    _ => None,
                }
            };
            // Each unordered predicate is the negation of an ordered one.
            let negated = |p| match p {
                FloatPred::Uno => Some(FloatPred::Ord),
                FloatPred::Ueq => Some(FloatPred::One),
                FloatPred::Ugt => Some(FloatPred::Ole),
                FloatPred::Uge => Some(FloatPred::Olt),
                FloatPred::Ult => Some(FloatPred::Oge),
                FloatPred::Ule => Some(FloatPred::Ogt),
                FloatPred::Une => Some(FloatPred::Oeq),
                _ => None,
            };
            match pred {
                FloatPred::True => Some(s.store.bool_const(true)),
                FloatPred::False => Some(s.store.bool_const(false)),
                p => match negated(p) {
                    Some(q) => {
                        let c = ordered(s, q)?;
                        s.mk(Op::Not, &[c])
                    }
                    None => ordered(s, p),
                },
            }
        })
    }

    fn trunc(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.trunc(from, to, &a.bits);
        self.result("trunc", to, bits, &[a], |s| {
            let x = s.bv(from, a)?;
            let low = s.low_bits(x, from.bits(), to.bits())?;
            s.bv_as(to, low)
        })
    }
    fn zext(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.zext(from, to, &a.bits);
        self.result("zext", to, bits, &[a], |s| {
            let x = s.bv(from, a)?;
            let n = to.bits() - from.bits();
            if n == 0 {
                return s.bv_as(to, x);
            }
            let r = s.mk(Op::ZeroExtend(n), &[x])?;
            s.bv_as(to, r)
        })
    }
    fn sext(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.sext(from, to, &a.bits);
        self.result("sext", to, bits, &[a], |s| {
            let x = s.bv(from, a)?;
            let n = to.bits() - from.bits();
            if n == 0 {
                return s.bv_as(to, x);
            }
            let r = s.mk(Op::SignExtend(n), &[x])?;
            s.bv_as(to, r)
        })
    }
    fn fptrunc(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.fptrunc(from, to, &a.bits);
        self.float_to_float("fptrunc", from, to, bits, a)
    }
    fn fpext(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.fpext(from, to, &a.bits);
        self.float_to_float("fpext", from, to, bits, a)
    }
    fn fptoui(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.fptoui(from, to, &a.bits);
        self.result("fptoui", to, bits, &[a], |s| {
            let x = s.lift(from, a)?;
            let x = s.widen64(from, x)?;
            let w = to.bits();
            let r = if w == 64 {
                let lo = s.cvtt64(x)?;
                let two63 = s.store.f64_const(9_223_372_036_854_775_808.0);
                let shifted = s.rounded(Op::FpSub, SmtRounding::Rne, &[x, two63])?;
                let hi = s.cvtt64(shifted)?;
                let c63 = s.bv_const(63, 64);
                let sign = s.mk(Op::BvAshr, &[lo, c63])?;
                let hi = s.mk(Op::BvAnd, &[hi, sign])?;
                s.mk(Op::BvOr, &[lo, hi])?
            } else {
                // A u32 result needs the 64-bit conversion: values above i32::MAX.
                s.truncated_to(x, w, if w >= 32 { 64 } else { 32 })?
            };
            s.bv_as(to, r)
        })
    }
    fn fptosi(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.fptosi(from, to, &a.bits);
        self.result("fptosi", to, bits, &[a], |s| {
            let x = s.lift(from, a)?;
            let x = s.widen64(from, x)?;
            let w = to.bits();
            let r = s.truncated_to(x, w, if w > 32 { 64 } else { 32 })?;
            s.bv_as(to, r)
        })
    }
    fn uitofp(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.uitofp(from, to, &a.bits);
        self.result("uitofp", to, bits, &[a], |s| {
            let x = s.bv(from, a)?;
            s.rounded(Op::UbvToFp(fmt_of(to.as_float()?)), SmtRounding::Rne, &[x])
        })
    }
    fn sitofp(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.sitofp(from, to, &a.bits);
        self.result("sitofp", to, bits, &[a], |s| {
            let x = s.bv(from, a)?;
            s.rounded(Op::SbvToFp(fmt_of(to.as_float()?)), SmtRounding::Rne, &[x])
        })
    }
    fn ptrtoint(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        CVal::concrete(Concrete.ptrtoint(from, to, &a.bits))
    }
    fn inttoptr(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        self.concretize(a);
        CVal::concrete(Concrete.inttoptr(from, to, &a.bits))
    }
    fn bitcast(&mut self, from: Type, to: Type, a: &CVal) -> CVal {
        let bits = Concrete.bitcast(from, to, &a.bits);
        if to == Type::Ptr || from == Type::Ptr {
            self.concretize(a);
            return CVal::concrete(bits);
        }
        self.result("bitcast", to, bits, &[a], |s| {
            let x = s.lift(from, a)?;
            match (from, to) {
                (Type::Float(f), Type::Int(_)) => s.mk(Op::FpToBits(fmt_of(f)), &[x]),
                (Type::Int(_), Type::Float(f)) => s.mk(Op::BitsToFp(fmt_of(f)), &[x]),
                _ => Some(x),
            }
        })
    }

    fn select(&mut self, ty: Type, cond: &CVal, if_true: &CVal, if_false: &CVal) -> CVal {
        let picked = if cond.bits & 1 != 0 {
            if_true
        } else {
            if_false
        };
        match cond.term {
            None => *picked,
            Some(c) => {
                if ty == Type::Ptr {
                    self.concretize(cond);
                    return *picked;
                }
                self.result("select", ty, picked.bits, &[cond], |s| {
                    let (x, y) = (s.lift(ty, if_true)?, s.lift(ty, if_false)?);
                    s.mk(Op::Ite, &[c, x, y])
                })
            }
        }
    }

    fn math(&mut self, call: MathCall, args: &[CVal], ret: Type) -> (CVal, Option<CVal>) {
        let exact_before = self.exact_prefix.is_none();
        let result = self.math_result(call, args, ret);
        if exact_before && self.exact_prefix.is_some() {
            self.cut_by_math_call = true;
        }
        result
    }
    fn ctpop(&mut self, ty: Type, a: &CVal) -> CVal {
        self.concretize(a);
        CVal::concrete(Concrete.ctpop(ty, &a.bits))
    }
    fn ctlz(&mut self, ty: Type, a: &CVal) -> CVal {
        self.concretize(a);
        CVal::concrete(Concrete.ctlz(ty, &a.bits))
    }
    fn cttz(&mut self, ty: Type, a: &CVal) -> CVal {
        self.concretize(a);
        CVal::concrete(Concrete.cttz(ty, &a.bits))
    }
    fn bswap(&mut self, ty: Type, a: &CVal) -> CVal {
        let bits = Concrete.bswap(ty, &a.bits);
        self.result("bswap", ty, bits, &[a], |s| {
            let x = s.lift(ty, a)?;
            let n = ty.bits() / 8;
            if n < 2 || !ty.bits().is_multiple_of(8) {
                return None;
            }
            let mut acc = s.mk(Op::Extract(7, 0), &[x])?;
            for i in 1..n {
                let byte = s.mk(Op::Extract(8 * i + 7, 8 * i), &[x])?;
                acc = s.mk(Op::Concat, &[acc, byte])?;
            }
            Some(acc)
        })
    }
    fn abs(&mut self, ty: Type, a: &CVal) -> CVal {
        let bits = Concrete.abs(ty, &a.bits);
        self.result("abs", ty, bits, &[a], |s| {
            let x = s.bv(ty, a)?;
            let zero = s.bv_const(0, ty.bits());
            let neg = s.mk(Op::BvSlt, &[x, zero])?;
            let minus = s.mk(Op::BvNeg, &[x])?;
            let r = s.mk(Op::Ite, &[neg, minus, x])?;
            s.bv_as(ty, r)
        })
    }
    fn smax(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let take_a = ty.sign_extend(a.bits) >= ty.sign_extend(b.bits);
        self.pick_bv("smax", ty, a, b, Op::BvSge, take_a)
    }
    fn smin(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let take_a = ty.sign_extend(a.bits) <= ty.sign_extend(b.bits);
        self.pick_bv("smin", ty, a, b, Op::BvSle, take_a)
    }
    fn umax(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let take_a = a.bits >= b.bits;
        self.pick_bv("umax", ty, a, b, Op::BvUge, take_a)
    }
    fn umin(&mut self, ty: Type, a: &CVal, b: &CVal) -> CVal {
        let take_a = a.bits <= b.bits;
        self.pick_bv("umin", ty, a, b, Op::BvUle, take_a)
    }

    fn load(&mut self, mem: &Memory, ty: Type, addr: u64) -> Result<CVal, TrapKind> {
        let bits = mem.load(ty, addr)?;
        let n = u64::from(ty.bytes());
        if self.shadow.is_empty() || !(0..n).any(|i| self.shadow.contains_key(&(addr + i))) {
            return Ok(CVal::concrete(bits));
        }
        let raw = match ty {
            Type::Int(1) => mem.load(Type::I8, addr)?,
            _ => bits,
        };
        let byte_at = |i: u64| ((raw >> (8 * i)) & 0xff) as u8;
        // Bytes from high to low: a live shadow byte, or a concrete one.
        let bytes: Vec<Option<ShadowByte>> = (0..n)
            .rev()
            .map(|i| {
                self.shadow
                    .get(&(addr + i))
                    .copied()
                    .filter(|sb| sb.byte == byte_at(i))
            })
            .collect();
        if bytes.iter().all(Option::is_none) {
            return Ok(CVal::concrete(bits));
        }
        if ty == Type::Ptr {
            self.concretizations += 1;
            self.exact_prefix.get_or_insert(self.path.len());
            return Ok(CVal::concrete(bits));
        }
        // The operand that makes the load symbolic: the first live shadow byte's pattern.
        let source = CVal {
            bits,
            term: bytes.iter().flatten().next().map(|sb| sb.pattern),
        };
        let value = self.result("load", ty, bits, &[&source], |s| {
            let mut pieces: Vec<TermId> = Vec::new();
            let mut k = 0usize;
            while k < bytes.len() {
                let byte_index = n - 1 - k as u64;
                match bytes[k] {
                    Some(sb) => {
                        // A run of consecutive bytes of the same pattern, high to low.
                        let mut j = k + 1;
                        while j < bytes.len()
                            && matches!(bytes[j], Some(o) if o.pattern == sb.pattern
                                && u64::from(o.index) + (j - k) as u64 == u64::from(sb.index))
                        {
                            j += 1;
                        }
                        let hi = u32::from(sb.index) * 8 + 7;
                        let lo = (u32::from(sb.index) + 1 - (j - k) as u32) * 8;
                        let width = match s.store.sort(sb.pattern) {
                            Sort::BitVec(w) => w,
                            _ => return None,
                        };
                        pieces.push(if lo == 0 && hi + 1 == width {
                            sb.pattern
                        } else {
                            s.mk(Op::Extract(hi, lo), &[sb.pattern])?
                        });
                        k = j;
                    }
                    None => {
                        let mut j = k + 1;
                        while j < bytes.len() && bytes[j].is_none() {
                            j += 1;
                        }
                        let count = (j - k) as u64;
                        let low = byte_index + 1 - count;
                        let value = (raw >> (8 * low)) & Type::Int((8 * count) as u8).mask();
                        pieces.push(s.bv_const(value, (8 * count) as u32));
                        k = j;
                    }
                }
            }
            let mut acc = pieces[0];
            for &p in &pieces[1..] {
                acc = s.mk(Op::Concat, &[acc, p])?;
            }
            match ty {
                Type::Float(f) => s.mk(Op::BitsToFp(fmt_of(f)), &[acc]),
                Type::Int(1) => {
                    let bit = s.mk(Op::Extract(0, 0), &[acc])?;
                    s.bv_as(ty, bit)
                }
                _ => Some(acc),
            }
        });
        Ok(value)
    }

    fn store(
        &mut self,
        mem: &mut Memory,
        ty: Type,
        addr: u64,
        value: &CVal,
    ) -> Result<(), TrapKind> {
        mem.store(ty, addr, value.bits)?;
        let n = u64::from(ty.bytes());
        let pattern = match value.term {
            Some(t) => self.pattern(ty, t),
            None => None,
        };
        match pattern {
            Some(p) => {
                let raw = if ty == Type::BOOL {
                    value.bits & 1
                } else {
                    value.bits
                };
                for i in 0..n {
                    self.shadow.insert(
                        addr + i,
                        ShadowByte {
                            pattern: p,
                            index: i as u8,
                            byte: ((raw >> (8 * i)) & 0xff) as u8,
                        },
                    );
                }
            }
            None => {
                self.concretize(value);
                if !self.shadow.is_empty() {
                    for i in 0..n {
                        self.shadow.remove(&(addr + i));
                    }
                }
            }
        }
        Ok(())
    }

    fn copy(&mut self, mem: &mut Memory, dst: u64, src: u64, len: u64) -> Result<(), TrapKind> {
        mem.copy(dst, src, len)?;
        if self.shadow.is_empty() {
            return Ok(());
        }
        let moved: Vec<(u64, ShadowByte)> = (0..len)
            .filter_map(|i| self.shadow.get(&(src + i)).map(|sb| (i, *sb)))
            .collect();
        for i in 0..len {
            self.shadow.remove(&(dst + i));
        }
        for (i, sb) in moved {
            self.shadow.insert(dst + i, sb);
        }
        Ok(())
    }

    fn fill(&mut self, mem: &mut Memory, dst: u64, byte: u8, len: u64) -> Result<(), TrapKind> {
        mem.fill(dst, byte, len)?;
        if !self.shadow.is_empty() {
            for i in 0..len {
                self.shadow.remove(&(dst + i));
            }
        }
        Ok(())
    }
}

/// What a math call's result becomes in the solver's language: the `solver` field of
/// fpir's math table ([`fpir::for_each_math_fn!`]).
#[derive(Clone, Copy)]
enum MathTerm {
    /// Nothing: the call is concretized.
    Concrete,
    /// One exact operator or extension operator on the one operand.
    Unary(Op),
    /// One operator that takes a rounding mode, in that mode, on the one operand.
    Rounded(Op, SmtRounding),
    /// `fp.fma` on the three operands.
    Fma,
    /// `fp.add(fp.mul(x, y), z)`: two roundings, as clang -O0 computes `fmuladd`.
    MulAdd,
    /// The fraction and the integral part, as [`Concolic::modf_terms`] builds them.
    Modf,
}

/// Generates `math_term`, one match arm per row of the math table.
macro_rules! math_terms {
    ($($variant:ident { $name:literal, $shape:ident, $origin:ident, $host:tt, $mpfr:tt, $solver:tt, $inline:ident })*) => {
        /// The term a call of `func` becomes under [`CallPolicy::Symbolic`].
        fn math_term(func: MathFn) -> MathTerm {
            match func {
                $(MathFn::$variant => math_term!($solver),)*
            }
        }
    };
}

/// One row's `solver` field as a [`MathTerm`].
macro_rules! math_term {
    ([none]) => {
        MathTerm::Concrete
    };
    ([abs]) => {
        MathTerm::Unary(Op::FpAbs)
    };
    ([sqrt]) => {
        MathTerm::Rounded(Op::FpSqrt, SmtRounding::Rne)
    };
    ([round($mode:ident)]) => {
        MathTerm::Rounded(Op::FpRoundToIntegral, SmtRounding::$mode)
    };
    ([ext($f:ident)]) => {
        MathTerm::Unary(Op::Ext(ExtFn::$f))
    };
    ([fma]) => {
        MathTerm::Fma
    };
    ([mul_add]) => {
        MathTerm::MulAdd
    };
    ([modf]) => {
        MathTerm::Modf
    };
}

fpir::for_each_math_fn!(math_terms);

impl Concolic {
    /// The uninterpreted result of the math function `name` on `xs`, of type `ty`: the
    /// same variable for the same function and operand terms.
    fn uninterpreted(&mut self, name: &'static str, ty: Type, xs: &[TermId]) -> Option<TermId> {
        let key = (name, xs.to_vec());
        if let Some(&var) = self.uninterpreted.get(&key) {
            return Some(var);
        }
        let Type::Float(f) = ty else {
            return None;
        };
        let sort = Sort::Fp(fmt_of(f));
        let var = self
            .store
            .declare(&format!("{name}.{}", self.uninterpreted.len()), sort);
        self.uninterpreted.insert(key, var);
        Some(var)
    }

    /// A math call's result (and second result) under the call policy.
    fn math_result(&mut self, call: MathCall, args: &[CVal], ret: Type) -> (CVal, Option<CVal>) {
        let raw: Vec<u64> = args.iter().map(|v| v.bits).collect();
        let (bits, second) = fpforge_exec::libm::eval(call, &raw, ret);
        let term = math_term(call.func);
        let policy = self.calls;
        if let (
            MathTerm::Modf,
            CallPolicy::Symbolic | CallPolicy::Uninterpreted,
            Some(x),
            Some(int_bits),
        ) = (term, policy, args.first().and_then(|a| a.term), second)
        {
            if let Some((frac, int)) = self.modf_terms(call.ty, x) {
                let ft = Type::Float(call.ty);
                if self.self_check {
                    self.check("modf", ft, bits, frac);
                    self.check("modf", ft, int_bits, int);
                }
                let frac = CVal {
                    bits,
                    term: Some(frac),
                };
                let int = CVal {
                    bits: int_bits,
                    term: Some(int),
                };
                return (frac, Some(int));
            }
        }
        let second = second.map(|b| {
            for v in args {
                self.concretize(v);
            }
            CVal::concrete(b)
        });
        let refs: Vec<&CVal> = args.iter().collect();
        let name = call.func.name();
        let ft = Type::Float(call.ty);
        let value = self.result(name, ret, bits, &refs, |s| {
            if policy == CallPolicy::Concretize || ret != ft {
                return None;
            }
            let xs: Vec<TermId> = args
                .iter()
                .map(|v| s.lift(ft, v))
                .collect::<Option<Vec<_>>>()?;
            match (term, xs.as_slice()) {
                (MathTerm::Unary(op), &[x]) => s.mk(op, &[x]),
                (MathTerm::Rounded(op, rm), &[x]) => s.rounded(op, rm, &[x]),
                (MathTerm::Fma, &[_, _, _]) => s.rounded(Op::FpFma, SmtRounding::Rne, &xs),
                (MathTerm::MulAdd, &[x, y, z]) => {
                    let p = s.rounded(Op::FpMul, SmtRounding::Rne, &[x, y])?;
                    s.rounded(Op::FpAdd, SmtRounding::Rne, &[p, z])
                }
                (
                    MathTerm::Unary(_) | MathTerm::Rounded(..) | MathTerm::Fma | MathTerm::MulAdd,
                    _,
                ) => None,
                (MathTerm::Concrete, _) if policy == CallPolicy::Uninterpreted => {
                    s.uninterpreted(name, ft, &xs)
                }
                (MathTerm::Concrete | MathTerm::Modf, _) => None,
            }
        });
        (value, second)
    }

    /// `modf(x)` as terms: the integral part `trunc(x)` and the fraction `x - trunc(x)`
    /// (exact), a zero with the sign of `x` when that is zero or `x` is infinite.
    fn modf_terms(&mut self, ty: FloatTy, x: TermId) -> Option<(TermId, TermId)> {
        let int = self.rounded(Op::FpRoundToIntegral, SmtRounding::Rtz, &[x])?;
        let d = self.rounded(Op::FpSub, SmtRounding::Rne, &[x, int])?;
        let f = fmt_of(ty);
        let (pz, nz) = (
            self.store.fp_const(f, f.zero(false)),
            self.store.fp_const(f, f.zero(true)),
        );
        let neg = self.mk(Op::FpIsNegative, &[x])?;
        let zero = self.mk(Op::Ite, &[neg, nz, pz])?;
        let inf = self.mk(Op::FpIsInfinite, &[x])?;
        let dz = self.mk(Op::FpIsZero, &[d])?;
        let either = self.mk(Op::Or, &[inf, dz])?;
        let frac = self.mk(Op::Ite, &[either, zero, d])?;
        Some((frac, int))
    }

    fn pick_bv(
        &mut self,
        name: &'static str,
        ty: Type,
        a: &CVal,
        b: &CVal,
        pred: Op,
        take_a: bool,
    ) -> CVal {
        if ty == Type::BOOL {
            let bits = if take_a { a.bits } else { b.bits };
            return self.result(name, ty, bits, &[a, b], |_| None);
        }
        self.pick(name, ty, a, b, pred, take_a)
    }
}
