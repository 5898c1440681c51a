//! The bit-precise backend: a complete decision procedure for the store's
//! theory (Booleans, bit-vectors, rounding modes, floats of every format), by
//! bit-blasting to SAT. `fp.rem` is the one operation whose circuit grows with
//! 2^eb: on formats where it would pass ~2^18 gates (Float128) the answer is
//! [`GaveUp::Unsupported`].
//!
//! Every term of the assertions' cone becomes a circuit in one [`aig::Aig`]
//! (children first, in id order): Booleans a literal, bit-vectors and floats a
//! word ([`bv`], [`fp`]), rounding modes a 3-bit word. The assertions are
//! encoded by [`cnf`] and solved by CaDiCaL; a satisfying assignment is read
//! back into a [`Model`] (which the caller re-checks with the exact evaluator).
//! `unsat` is a proof relative to the circuits, which the tests check against
//! [`crate::ieee`] and Z3.
//!
//! What SMT-LIB leaves unspecified is a fresh input, kept a function of the
//! operands' values: the result of `fp.min`/`fp.max` on `+0`/`-0` is either
//! operand by one of four shared bits (the model's [`Model::zero_choice`]),
//! `fp.to_sbv`/`fp.to_ubv` out of range a fresh word with Ackermann's
//! constraints between applications, and the bits of a NaN
//! ([`Op::FpToBits`], whose `term.rs` semantics reads the payload a value
//! carries) a fresh NaN pattern unless the NaN is a variable, a literal or a
//! reinterpreted bit-vector, whose pattern is known. Floats are compared by
//! SMT-LIB `=` with one NaN. C math calls ([`Op::Ext`]) have no circuit: a
//! query with one is answered [`Verdict::Unknown`], never guessed.

pub mod aig;
pub mod bv;
pub mod cnf;
pub mod fp;

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use aig::{Aig, Lit};
use bv::Word;
use cnf::SatSession;

use crate::eval::{Model, Value};
use crate::sort::FpFormat;
use crate::sort::{SmtRounding, Sort};
use crate::term::{Op, TermId, TermStore};

/// Why the backend gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// An operator without a circuit (its SMT-LIB or extension name).
    Unsupported(String),
    /// The deadline or the conflict budget ran out inside the SAT solver.
    Timeout,
    /// Every model leaves a result open that the evaluator cannot check.
    OnlyOpenResults,
}

impl fmt::Display for GaveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GaveUp::Unsupported(op) => write!(f, "unsupported: {op}"),
            GaveUp::Timeout => write!(f, "timeout"),
            GaveUp::OnlyOpenResults => write!(f, "models rest on unspecified results"),
        }
    }
}

/// The backend's answer.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// A satisfying assignment of the circuits (not yet re-checked).
    Sat(Model),
    /// No assignment of the circuits satisfies the assertions.
    Unsat,
    /// No answer, and why.
    Unknown(GaveUp),
}

/// The circuit of one term.
#[derive(Clone, Debug)]
enum Circuit {
    Bool(Lit),
    Word(Word),
}

impl Circuit {
    fn lit(&self) -> Lit {
        match self {
            Circuit::Bool(l) => *l,
            Circuit::Word(_) => unreachable!("sorts are checked by the store"),
        }
    }

    fn word(&self) -> &[Lit] {
        match self {
            Circuit::Word(w) => w,
            Circuit::Bool(_) => unreachable!("sorts are checked by the store"),
        }
    }
}

/// Builds the circuits of a store's terms.
pub struct Blaster<'s> {
    store: &'s TermStore,
    aig: Aig,
    circuits: Vec<Option<Circuit>>,
    /// Facts every model must satisfy: mode variables hold one of the five
    /// modes, fresh NaN patterns are NaNs.
    side: Vec<Lit>,
    /// One literal per result SMT-LIB leaves open that the evaluator does not
    /// choose (`fp.to_sbv`/`fp.to_ubv` out of range), true when it is open.
    open: Vec<Lit>,
    /// The conversions to integers built so far, for Ackermann's constraints.
    open_integers: Vec<OpenInteger>,
    /// The four choices of `fp.min`/`fp.max` between zeros of two signs, indexed as
    /// the bits of [`Model::zero_choice`].
    zero_choices: Option<[Lit; 4]>,
    /// When building stops with [`GaveUp::Timeout`] (the circuits built so far are kept,
    /// so a later call resumes).
    deadline: Option<Instant>,
}

/// An application of `fp.to_sbv`/`fp.to_ubv`: its operands and its fresh word.
#[derive(Clone, Debug)]
struct OpenInteger {
    op: Op,
    format: FpFormat,
    mode: Word,
    x: Word,
    unspecified: Word,
}

impl<'s> Blaster<'s> {
    /// A blaster for terms of `store`.
    pub fn new(store: &'s TermStore) -> Blaster<'s> {
        Blaster {
            store,
            aig: Aig::new(),
            circuits: vec![None; store.len()],
            side: Vec::new(),
            open: Vec::new(),
            open_integers: Vec::new(),
            zero_choices: None,
            deadline: None,
        }
    }

    /// Makes building stop at `deadline` ([`GaveUp::Timeout`]): a query's circuits can
    /// take seconds to build (a path of double divisions is millions of gates).
    pub fn stop_building_at(&mut self, deadline: Instant) {
        self.deadline = Some(deadline);
    }

    /// The graph built so far.
    pub fn aig(&self) -> &Aig {
        &self.aig
    }

    /// Side facts to assert with every query.
    pub fn side_facts(&self) -> &[Lit] {
        &self.side
    }

    /// The literal of a Boolean term, building its cone.
    pub fn literal(&mut self, t: TermId) -> Result<Lit, GaveUp> {
        self.build(t)?;
        Ok(self.circuit(t).lit())
    }

    /// The word of a float, bit-vector or mode term, building its cone.
    pub fn word(&mut self, t: TermId) -> Result<Word, GaveUp> {
        self.build(t)?;
        Ok(self.circuit(t).word().to_vec())
    }

    fn circuit(&self, t: TermId) -> &Circuit {
        self.circuits[t.index()]
            .as_ref()
            .expect("children are built first")
    }

    fn build(&mut self, root: TermId) -> Result<(), GaveUp> {
        let mut stack = vec![root];
        while let Some(&t) = stack.last() {
            if self.circuits[t.index()].is_some() {
                stack.pop();
                continue;
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(GaveUp::Timeout);
            }
            let args = &self.store.get(t).args;
            let pending: Vec<TermId> = args
                .iter()
                .copied()
                .filter(|a| self.circuits[a.index()].is_none())
                .collect();
            if pending.is_empty() {
                let c = self.term(t)?;
                self.circuits[t.index()] = Some(c);
                stack.pop();
            } else {
                stack.extend(pending);
            }
        }
        Ok(())
    }

    fn fresh_word(&mut self, w: usize) -> Word {
        bv::inputs(&mut self.aig, w)
    }

    /// The circuit of `t`, its arguments built.
    fn term(&mut self, t: TermId) -> Result<Circuit, GaveUp> {
        let term = self.store.get(t);
        let op = term.op;
        let sort = term.sort;
        let args: Vec<TermId> = term.args.to_vec();
        let l = |s: &Self, i: usize| s.circuit(args[i]).lit();
        let w = |s: &Self, i: usize| s.circuit(args[i]).word().to_vec();
        use Op::*;
        let bool_of = Circuit::Bool;
        Ok(match op {
            Var(_) => self.variable(sort),
            BoolConst(b) => bool_of(Lit::constant(b)),
            FpConst(f, bits) => Circuit::Word(bv::constant(bits, f.width() as usize)),
            BvConst(v, width) => Circuit::Word(bv::constant(u128::from(v), width as usize)),
            RmConst(rm) => Circuit::Word(fp::mode_constant(rm)),
            Not => bool_of(!l(self, 0)),
            And | Or | Xor | Implies => {
                let (a, b) = (l(self, 0), l(self, 1));
                let g = &mut self.aig;
                bool_of(match op {
                    And => g.and(a, b),
                    Or => g.or(a, b),
                    Xor => g.xor(a, b),
                    _ => g.implies(a, b),
                })
            }
            Ite => {
                let c = l(self, 0);
                match self.circuit(args[1]).clone() {
                    Circuit::Bool(a) => {
                        let b = l(self, 2);
                        bool_of(self.aig.ite(c, a, b))
                    }
                    Circuit::Word(a) => {
                        let b = w(self, 2);
                        Circuit::Word(bv::ite(&mut self.aig, c, &a, &b))
                    }
                }
            }
            Eq | Distinct => {
                let same = self.same(args[0], args[1]);
                bool_of(if op == Eq { same } else { !same })
            }
            Ext(_) => return Err(GaveUp::Unsupported(format!("{op:?}"))),
            FpRem if !fp::rem_fits(self.format(args[0])) => {
                return Err(GaveUp::Unsupported(format!(
                    "fp.rem on {sort} (its circuit grows with 2^eb)"
                )))
            }
            FpToBits(f) => {
                let x = w(self, 0);
                let known = matches!(
                    self.store.get(args[0]).op,
                    Var(_) | FpConst(..) | BitsToFp(_)
                );
                if known {
                    Circuit::Word(x)
                } else {
                    let fresh = self.fresh_word(x.len());
                    let fresh_is_nan = fp::is_nan(&mut self.aig, f, &fresh);
                    self.side.push(fresh_is_nan);
                    let x_is_nan = fp::is_nan(&mut self.aig, f, &x);
                    Circuit::Word(bv::ite(&mut self.aig, x_is_nan, &fresh, &x))
                }
            }
            FpMin | FpMax => {
                let f = self.format(args[0]);
                let (x, y) = (w(self, 0), w(self, 1));
                let max = op == FpMax;
                let first_negative = self.zero_choice(max, true);
                let first_positive = self.zero_choice(max, false);
                let sign = *x.last().expect("a float word");
                let choice = self.aig.ite(sign, first_negative, first_positive);
                Circuit::Word(fp::min_max(&mut self.aig, f, &x, &y, max, choice))
            }
            FpToSbv(_) | FpToUbv(_) => {
                self.integer_conversion(op, &w(self, 0), &w(self, 1), args[1])
            }
            _ => {
                let arg_words: Vec<Circuit> =
                    args.iter().map(|a| self.circuit(*a).clone()).collect();
                let arg_formats: Vec<Option<FpFormat>> =
                    args.iter().map(|&a| self.float_format(a)).collect();
                let g = &mut self.aig;
                float_or_bv(g, op, sort, &arg_words, &arg_formats)
            }
        })
    }

    /// The choice of `fp.min` (`fp.max` when `max`) between zeros of two signs whose
    /// first is negative (`first_negative`) or positive: one input per case, shared
    /// by every application (a function of its operands' values, as in SMT-LIB, and
    /// as [`Model::zero_choice`] holds it).
    fn zero_choice(&mut self, max: bool, first_negative: bool) -> Lit {
        let bit = 2 * usize::from(max) + usize::from(first_negative);
        if self.zero_choices.is_none() {
            let bits = [(); 4].map(|_| self.aig.input());
            self.zero_choices = Some(bits);
        }
        self.zero_choices.expect("just made")[bit]
    }

    /// `fp.to_sbv`/`fp.to_ubv` (`op`) of `x` (the term `arg`) in `mode`: out of range,
    /// a fresh word, equal to the fresh word of every earlier application of the same
    /// operator to the same mode and value (Ackermann's constraints: SMT-LIB leaves
    /// the result unspecified, but it is still a function).
    fn integer_conversion(&mut self, op: Op, mode: &[Lit], x: &[Lit], arg: TermId) -> Circuit {
        let (signed, width) = match op {
            Op::FpToSbv(w) => (true, w),
            Op::FpToUbv(w) => (false, w),
            _ => unreachable!("only conversions to integers"),
        };
        let f = self.format(arg);
        let unspecified = self.fresh_word(width as usize);
        let (result, specified) = fp::to_integer(&mut self.aig, f, mode, x, signed, &unspecified);
        self.open.push(!specified);
        let earlier: Vec<OpenInteger> = self
            .open_integers
            .iter()
            .filter(|o| o.op == op && o.format == f)
            .cloned()
            .collect();
        for o in earlier {
            let g = &mut self.aig;
            let same_mode = bv::eq(g, &o.mode, mode);
            let same_value = fp::same(g, f, &o.x, x);
            let same_args = g.and(same_mode, same_value);
            let same_result = bv::eq(g, &o.unspecified, &unspecified);
            let consistent = g.implies(same_args, same_result);
            self.side.push(consistent);
        }
        self.open_integers.push(OpenInteger {
            op,
            format: f,
            mode: mode.to_vec(),
            x: x.to_vec(),
            unspecified,
        });
        Circuit::Word(result)
    }

    fn variable(&mut self, sort: Sort) -> Circuit {
        match sort {
            Sort::Bool => Circuit::Bool(self.aig.input()),
            Sort::Fp(f) => Circuit::Word(self.fresh_word(f.width() as usize)),
            Sort::BitVec(w) => Circuit::Word(self.fresh_word(w as usize)),
            Sort::RoundingMode => {
                let m = self.fresh_word(fp::MODE_BITS);
                let five = bv::constant(SmtRounding::ALL.len() as u128, fp::MODE_BITS);
                let valid = bv::ult(&mut self.aig, &m, &five);
                self.side.push(valid);
                Circuit::Word(m)
            }
        }
    }

    fn format(&self, t: TermId) -> FpFormat {
        self.float_format(t)
            .expect("sorts are checked by the store")
    }

    fn float_format(&self, t: TermId) -> Option<FpFormat> {
        match self.store.sort(t) {
            Sort::Fp(f) => Some(f),
            _ => None,
        }
    }

    /// SMT-LIB `=` of two built terms of one sort.
    fn same(&mut self, a: TermId, b: TermId) -> Lit {
        let fmt = self.float_format(a);
        let (ca, cb) = (self.circuit(a).clone(), self.circuit(b).clone());
        let g = &mut self.aig;
        match (ca, cb, fmt) {
            (Circuit::Bool(x), Circuit::Bool(y), _) => g.iff(x, y),
            (Circuit::Word(x), Circuit::Word(y), Some(f)) => fp::same(g, f, &x, &y),
            (Circuit::Word(x), Circuit::Word(y), None) => bv::eq(g, &x, &y),
            _ => unreachable!("sorts are checked by the store"),
        }
    }

    /// The model the current SAT assignment gives the store's variables.
    fn model(&self, sat: &SatSession) -> Model {
        let mut model = Model::zeros(self.store);
        if let Some(bits) = self.zero_choices {
            model.zero_choice = bits
                .iter()
                .enumerate()
                .map(|(k, &l)| u8::from(sat.value(l)) << k)
                .sum();
        }
        for (i, v) in self.store.vars().iter().enumerate() {
            let Some(c) = &self.circuits[v.term.index()] else {
                continue;
            };
            let bits = |w: &[Lit]| {
                w.iter()
                    .enumerate()
                    .map(|(k, &l)| u128::from(sat.value(l)) << k)
                    .sum::<u128>()
            };
            model.values[i] = match (v.sort, c) {
                (Sort::Bool, Circuit::Bool(l)) => Value::Bool(sat.value(*l)),
                (Sort::Fp(f), Circuit::Word(w)) => Value::from_float_bits(f, bits(w)),
                (Sort::BitVec(width), Circuit::Word(w)) => Value::Bv(bits(w) as u64, width),
                (Sort::RoundingMode, Circuit::Word(w)) => {
                    Value::Rm(SmtRounding::ALL[(bits(w) as usize).min(4)])
                }
                _ => unreachable!("variables are built by their sort"),
            };
        }
        model
    }
}

/// Float arithmetic, classification, conversions and bit-vector operators.
fn float_or_bv(
    g: &mut Aig,
    op: Op,
    sort: Sort,
    args: &[Circuit],
    formats: &[Option<FpFormat>],
) -> Circuit {
    use Op::*;
    let w = |i: usize| args[i].word();
    // The format of the first float argument (after the mode, if any).
    let fmt = || formats.iter().flatten().copied().next().expect("a float");
    let word = Circuit::Word;
    let bool_of = Circuit::Bool;
    match op {
        FpAbs => word(fp::abs_neg(g, fmt(), w(0), false)),
        FpNeg => word(fp::abs_neg(g, fmt(), w(0), true)),
        FpAdd => word(fp::add(g, fmt(), w(0), w(1), w(2))),
        FpSub => word(fp::sub(g, fmt(), w(0), w(1), w(2))),
        FpMul => word(fp::mul(g, fmt(), w(0), w(1), w(2))),
        FpDiv => word(fp::div(g, fmt(), w(0), w(1), w(2))),
        FpFma => word(fp::fma(g, fmt(), w(0), w(1), w(2), w(3))),
        FpSqrt => word(fp::sqrt(g, fmt(), w(0), w(1))),
        FpRem => word(fp::rem(g, fmt(), w(0), w(1))),
        FpRoundToIntegral => word(fp::round_to_integral(g, fmt(), w(0), w(1))),
        FpLt | FpLeq | FpGt | FpGeq | FpEq => {
            let (x, y) = if matches!(op, FpGt | FpGeq) {
                (w(1), w(0))
            } else {
                (w(0), w(1))
            };
            let c = fp::Compare::new(g, fmt(), x, y);
            bool_of(match op {
                FpLt | FpGt => c.lt(),
                FpEq => c.eq(),
                _ => c.leq(g),
            })
        }
        FpIsNormal | FpIsSubnormal | FpIsZero | FpIsInfinite | FpIsNaN | FpIsNegative
        | FpIsPositive => {
            let u = fp::classify(g, fmt(), w(0));
            bool_of(match op {
                FpIsNormal => u.normal(g),
                FpIsSubnormal => u.subnormal,
                FpIsZero => u.zero,
                FpIsInfinite => u.inf,
                FpIsNaN => u.nan,
                FpIsNegative => g.and(u.sign, !u.nan),
                _ => g.and(!u.sign, !u.nan),
            })
        }
        FpToFp(to) => word(fp::convert(g, fmt(), to, w(0), w(1))),
        SbvToFp(to) | UbvToFp(to) => word(fp::from_integer(
            g,
            to,
            w(0),
            w(1),
            matches!(op, SbvToFp(_)),
        )),
        BitsToFp(_) => word(w(0).to_vec()),
        _ => bit_vector(g, op, sort, args),
    }
}

/// Bit-vector operators (SMT-LIB QF_BV semantics).
fn bit_vector(g: &mut Aig, op: Op, sort: Sort, args: &[Circuit]) -> Circuit {
    use Op::*;
    let w = |i: usize| args[i].word();
    let word = Circuit::Word;
    let bool_of = Circuit::Bool;
    match op {
        BvNot => word(bv::not(w(0))),
        BvNeg => word(bv::neg(g, w(0))),
        BvAnd => word(bv::zip(g, w(0), w(1), Aig::and)),
        BvOr => word(bv::zip(g, w(0), w(1), Aig::or)),
        BvXor => word(bv::zip(g, w(0), w(1), Aig::xor)),
        BvAdd => word(bv::add(g, w(0), w(1))),
        BvSub => word(bv::sub(g, w(0), w(1))),
        BvMul => word(bv::mul(g, w(0), w(1))),
        BvUdiv => word(bv::udivrem(g, w(0), w(1)).0),
        BvUrem => word(bv::udivrem(g, w(0), w(1)).1),
        BvSdiv | BvSrem | BvSmod => word(signed_division(g, op, w(0), w(1))),
        BvShl => word(bv::shl(g, w(0), w(1))),
        BvLshr => word(bv::lshr(g, w(0), w(1))),
        BvAshr => word(bv::ashr(g, w(0), w(1))),
        Concat => {
            let mut c = w(1).to_vec();
            c.extend_from_slice(w(0));
            word(c)
        }
        Extract(hi, lo) => word(w(0)[lo as usize..=hi as usize].to_vec()),
        ZeroExtend(_) | SignExtend(_) => {
            let Sort::BitVec(width) = sort else {
                unreachable!("sorts are checked by the store")
            };
            word(if matches!(op, SignExtend(_)) {
                bv::sext(w(0), width as usize)
            } else {
                bv::zext(w(0), width as usize)
            })
        }
        BvUlt => bool_of(bv::ult(g, w(0), w(1))),
        BvUle => bool_of(bv::ule(g, w(0), w(1))),
        BvUgt => bool_of(bv::ult(g, w(1), w(0))),
        BvUge => bool_of(bv::ule(g, w(1), w(0))),
        BvSlt => bool_of(bv::slt(g, w(0), w(1))),
        BvSle => bool_of(bv::sle(g, w(0), w(1))),
        BvSgt => bool_of(bv::slt(g, w(1), w(0))),
        BvSge => bool_of(bv::sle(g, w(1), w(0))),
        _ => unreachable!("{op:?} is built by Blaster::term"),
    }
}

/// `bvsdiv`, `bvsrem`, `bvsmod` by their SMT-LIB definitions over the unsigned
/// division of the magnitudes.
fn signed_division(g: &mut Aig, op: Op, a: &[Lit], b: &[Lit]) -> Word {
    let top = a.len() - 1;
    let (sa, sb) = (a[top], b[top]);
    let neg_a = bv::neg(g, a);
    let neg_b = bv::neg(g, b);
    let abs_a = bv::ite(g, sa, &neg_a, a);
    let abs_b = bv::ite(g, sb, &neg_b, b);
    let (q, r) = bv::udivrem(g, &abs_a, &abs_b);
    match op {
        Op::BvSdiv => {
            let differ = g.xor(sa, sb);
            let neg_q = bv::neg(g, &q);
            bv::ite(g, differ, &neg_q, &q)
        }
        Op::BvSrem => {
            let neg_r = bv::neg(g, &r);
            bv::ite(g, sa, &neg_r, &r)
        }
        _ => {
            // bvsmod: the remainder takes the divisor's sign.
            let r_zero = !bv::any(g, &r);
            let neg_r = bv::neg(g, &r);
            let plus_b = bv::add(g, &neg_r, b);
            let r_plus_b = bv::add(g, &r, b);
            let a_positive = bv::ite(g, sb, &r_plus_b, &r);
            let a_negative = bv::ite(g, sb, &neg_r, &plus_b);
            let by_signs = bv::ite(g, sa, &a_negative, &a_positive);
            let zero = bv::constant(0, a.len());
            bv::ite(g, r_zero, &zero, &by_signs)
        }
    }
}

/// The backend on one conjunction: its circuits asserted in a SAT session that
/// resumes across calls to [`Blast::run`]. The circuits are built and encoded by the
/// runs, within their deadlines, and resume where the last run stopped.
pub struct Blast<'s> {
    blaster: Blaster<'s>,
    sat: SatSession,
    assertions: Vec<TermId>,
    /// How many of `assertions` are built and asserted.
    asserted: usize,
    /// Whether every assertion and the side facts are asserted.
    complete: bool,
    /// Why no circuit could be built, if so.
    unsupported: Option<GaveUp>,
    /// Whether models must leave no result open (see [`Blast::avoid_open_results`]).
    avoid_open: bool,
}

impl<'s> Blast<'s> {
    /// The backend for the conjunction of `assertions` (nothing is built yet).
    pub fn new(store: &'s TermStore, assertions: &[TermId]) -> Blast<'s> {
        Blast {
            blaster: Blaster::new(store),
            sat: SatSession::new(),
            assertions: assertions.to_vec(),
            asserted: 0,
            complete: false,
            unsupported: None,
            avoid_open: false,
        }
    }

    /// Builds and asserts the circuits of the assertions not yet asserted, then the
    /// side facts, until `deadline`; whether all are asserted.
    fn assert_all(&mut self, deadline: Instant) -> Result<bool, GaveUp> {
        if self.complete {
            return Ok(true);
        }
        self.blaster.stop_building_at(deadline);
        while self.asserted < self.assertions.len() {
            let lit = self.blaster.literal(self.assertions[self.asserted])?;
            if !self.sat.assert_until(self.blaster.aig(), lit, deadline) {
                return Ok(false);
            }
            self.asserted += 1;
        }
        for &l in self.blaster.side_facts() {
            if !self.sat.assert_until(self.blaster.aig(), l, deadline) {
                return Ok(false);
            }
        }
        self.complete = true;
        Ok(true)
    }

    /// From now on, looks only for models in which no `fp.to_sbv`/`fp.to_ubv` is out
    /// of range (the evaluator rejects a model that rests on one); returns false
    /// when it already did. A conjunction satisfiable only through open results
    /// then gets [`GaveUp::OnlyOpenResults`], not `unsat`.
    pub fn avoid_open_results(&mut self) -> bool {
        !std::mem::replace(&mut self.avoid_open, true)
    }

    /// The gates built so far (the circuits grow as runs build them).
    pub fn gates(&self) -> usize {
        self.blaster.aig().len()
    }

    /// Stops every later [`Blast::run`] as soon as `flag` is raised (another thread's
    /// answer made this one's moot).
    pub fn interrupt_when(&mut self, flag: Arc<AtomicBool>) {
        self.sat.interrupt_when(flag);
    }

    /// Searches for `conflicts` more SAT conflicts at most, until `deadline`.
    pub fn run(&mut self, conflicts: u64, deadline: Instant) -> Verdict {
        if let Some(why) = &self.unsupported {
            return Verdict::Unknown(why.clone());
        }
        match self.assert_all(deadline) {
            Ok(true) => {}
            Ok(false) | Err(GaveUp::Timeout) => return Verdict::Unknown(GaveUp::Timeout),
            Err(why) => {
                self.unsupported = Some(why.clone());
                return Verdict::Unknown(why);
            }
        }
        let result = if self.avoid_open {
            let closed: Vec<Lit> = self.blaster.open.iter().map(|&l| !l).collect();
            self.sat
                .solve_assuming(self.blaster.aig(), &closed, conflicts, deadline)
        } else {
            self.sat.solve_limited(conflicts, deadline)
        };
        match result {
            Some(true) => Verdict::Sat(self.blaster.model(&self.sat)),
            Some(false) if self.avoid_open => Verdict::Unknown(GaveUp::OnlyOpenResults),
            Some(false) => Verdict::Unsat,
            None => Verdict::Unknown(GaveUp::Timeout),
        }
    }
}

/// Decides the conjunction of `assertions` by bit-blasting, until `deadline`.
pub fn check(store: &TermStore, assertions: &[TermId], deadline: Instant) -> Verdict {
    Blast::new(store, assertions).run(u64::MAX, deadline)
}
