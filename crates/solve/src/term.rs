//! The term arena: a flat, hash-consed store of typed terms.
//!
//! Every term is a `u32` [`TermId`] into one [`TermStore`]; children are always
//! created before their parents, so iterating ids in increasing order visits a
//! term after all of its arguments (the evaluator and the propagator rely on
//! this). Structurally equal terms get the same id. Sorts are checked once, in
//! [`TermStore::mk`], so every stored term is well sorted.

use std::collections::HashMap;
use std::fmt;

use crate::sort::{FpFormat, SmtRounding, Sort};

/// Id of a term in a [`TermStore`]; displays as `t7`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(pub u32);

impl TermId {
    /// The index of this term in the arena.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for TermId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

/// Id of a declared variable (an SMT-LIB constant); displays as `x3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl VarId {
    /// The index of this variable in the store's variable table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for VarId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "x{}", self.0)
    }
}

/// Operators. Literal payloads and indices live in the operator; arguments are
/// term ids. Every operator SMT-LIB gives a rounding mode takes it as its first
/// argument, a term of sort `SmtRounding` (a literal such as
/// [`TermStore::rm_const`] or any other mode term): `fp.add`, `fp.sub`, `fp.mul`,
/// `fp.div`, `fp.fma`, `fp.sqrt`, `fp.roundToIntegral`, the conversions to and from
/// bit-vector integers and between formats.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A declared variable.
    Var(VarId),
    BoolConst(bool),
    /// A float literal given by its bit pattern (NaN is always the quiet NaN).
    FpConst(FpFormat, u128),
    /// A bit-vector literal: value and width.
    BvConst(u64, u32),
    RmConst(SmtRounding),
    Not,
    And,
    Or,
    Xor,
    Implies,
    Ite,
    /// SMT-LIB `=`: identity of values (one NaN, +0 distinct from -0).
    Eq,
    Distinct,
    FpAbs,
    FpNeg,
    FpAdd,
    FpSub,
    FpMul,
    FpDiv,
    FpFma,
    FpSqrt,
    FpRem,
    FpRoundToIntegral,
    FpMin,
    FpMax,
    FpLeq,
    FpLt,
    FpGeq,
    FpGt,
    FpEq,
    FpIsNormal,
    FpIsSubnormal,
    FpIsZero,
    FpIsInfinite,
    FpIsNaN,
    FpIsNegative,
    FpIsPositive,
    /// `((_ fp.to_sbv w) rm x)`.
    FpToSbv(u32),
    /// `((_ fp.to_ubv w) rm x)`.
    FpToUbv(u32),
    /// `((_ to_fp e s) rm x)` from another float format.
    FpToFp(FpFormat),
    /// `((_ to_fp e s) rm bv)`: signed bit-vector to float.
    SbvToFp(FpFormat),
    /// `((_ to_fp_unsigned e s) rm bv)`.
    UbvToFp(FpFormat),
    /// `((_ to_fp e s) bv)`: reinterpret an IEEE bit pattern.
    BitsToFp(FpFormat),
    /// The IEEE bit pattern of a float (the inverse of [`Op::BitsToFp`]; a NaN gives
    /// the payload the value carries). Not SMT-LIB: writers express it as a fresh
    /// bit-vector `b` with `((_ to_fp e s) b) = x`.
    FpToBits(FpFormat),
    /// An extension: a C math function (`fpext.exp` ...), evaluated with the
    /// host libm, not part of SMT-LIB.
    Ext(ExtFn),
    BvNot,
    BvNeg,
    BvAnd,
    BvOr,
    BvXor,
    BvAdd,
    BvSub,
    BvMul,
    BvUdiv,
    BvUrem,
    BvSdiv,
    BvSrem,
    BvSmod,
    BvShl,
    BvLshr,
    BvAshr,
    Concat,
    /// `((_ extract hi lo) x)`.
    Extract(u32, u32),
    ZeroExtend(u32),
    SignExtend(u32),
    BvUlt,
    BvUle,
    BvUgt,
    BvUge,
    BvSlt,
    BvSle,
    BvSgt,
    BvSge,
}

/// C math functions available as extension operators `fpext.NAME`.
///
/// They are evaluated with the host C library (`exp`, `log`, ... of the
/// float's format), so models are checked against that library, not against
/// the exact function; Z3 and Bitwuzla cannot read them. Propagation uses
/// enclosures widened by [`EXT_ULP_BOUND`] ulps on each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtFn {
    /// `exp`, monotone.
    Exp,
    /// `log`, monotone (NaN below -0).
    Log,
    /// `atan`, monotone.
    Atan,
    /// `sin`.
    Sin,
    /// `cos`.
    Cos,
    /// `tan`.
    Tan,
}

/// Ulps the host libm may be off by, as assumed by propagation (glibc
/// documents at most 1–2 ulps for these functions; we take twice that).
pub const EXT_ULP_BOUND: i64 = 4;

impl ExtFn {
    /// Parses `fpext.NAME`.
    pub fn from_name(name: &str) -> Option<ExtFn> {
        Some(match name {
            "fpext.exp" => ExtFn::Exp,
            "fpext.log" => ExtFn::Log,
            "fpext.atan" => ExtFn::Atan,
            "fpext.sin" => ExtFn::Sin,
            "fpext.cos" => ExtFn::Cos,
            "fpext.tan" => ExtFn::Tan,
            _ => return None,
        })
    }

    /// Applies the host function in binary64.
    pub fn apply64(self, x: f64) -> f64 {
        match self {
            ExtFn::Exp => x.exp(),
            ExtFn::Log => x.ln(),
            ExtFn::Atan => x.atan(),
            ExtFn::Sin => x.sin(),
            ExtFn::Cos => x.cos(),
            ExtFn::Tan => x.tan(),
        }
    }

    /// Applies the host function in binary32.
    pub fn apply32(self, x: f32) -> f32 {
        match self {
            ExtFn::Exp => x.exp(),
            ExtFn::Log => x.ln(),
            ExtFn::Atan => x.atan(),
            ExtFn::Sin => x.sin(),
            ExtFn::Cos => x.cos(),
            ExtFn::Tan => x.tan(),
        }
    }
}

/// One stored term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// The operator.
    pub op: Op,
    /// Argument ids, all smaller than this term's id.
    pub args: Box<[TermId]>,
    /// The sort of the term.
    pub sort: Sort,
}

/// A declared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    /// Its name.
    pub name: String,
    /// Its sort.
    pub sort: Sort,
    /// The term `Op::Var` for it.
    pub term: TermId,
}

/// A term that is not well sorted, or an unsupported construction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TermError {
    /// Wrong number of arguments.
    #[error("{op} expects {expected} arguments, got {got}")]
    Arity {
        /// Operator name.
        op: String,
        /// Expected count, in words.
        expected: &'static str,
        /// Actual count.
        got: usize,
    },
    /// An argument of the wrong sort.
    #[error("{op}: argument {index} has sort {got}, expected {expected}")]
    Sort {
        /// Operator name.
        op: String,
        /// 0-based argument index.
        index: usize,
        /// Actual sort.
        got: Sort,
        /// Expected sort, in words.
        expected: String,
    },
    /// A bit-vector index or width out of range.
    #[error("{0}")]
    Width(String),
}

/// The hash-consed term arena plus the variable table.
#[derive(Clone, Debug, Default)]
pub struct TermStore {
    terms: Vec<Term>,
    dedup: HashMap<Term, TermId>,
    vars: Vec<VarInfo>,
}

impl TermStore {
    /// An empty store.
    pub fn new() -> TermStore {
        TermStore::default()
    }

    /// The term with id `t`.
    pub fn get(&self, t: TermId) -> &Term {
        &self.terms[t.index()]
    }

    /// The sort of `t`.
    pub fn sort(&self, t: TermId) -> Sort {
        self.terms[t.index()].sort
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// True when no term exists.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// All declared variables, indexed by [`VarId`].
    pub fn vars(&self) -> &[VarInfo] {
        &self.vars
    }

    /// Declares a fresh variable (names need not be unique).
    pub fn declare(&mut self, name: &str, sort: Sort) -> TermId {
        let v = VarId(self.vars.len() as u32);
        let term = self.intern(Op::Var(v), Box::new([]), sort);
        self.vars.push(VarInfo {
            name: name.to_string(),
            sort,
            term,
        });
        term
    }

    fn intern(&mut self, op: Op, args: Box<[TermId]>, sort: Sort) -> TermId {
        let term = Term { op, args, sort };
        if let Some(&id) = self.dedup.get(&term) {
            return id;
        }
        let id = TermId(self.terms.len() as u32);
        self.terms.push(term.clone());
        self.dedup.insert(term, id);
        id
    }

    /// The Boolean literal `b`.
    pub fn bool_const(&mut self, b: bool) -> TermId {
        self.intern(Op::BoolConst(b), Box::new([]), Sort::Bool)
    }

    /// The rounding-mode literal `r`.
    pub fn rm_const(&mut self, r: SmtRounding) -> TermId {
        self.intern(Op::RmConst(r), Box::new([]), Sort::RoundingMode)
    }

    /// A binary32 literal (any NaN becomes the canonical NaN).
    pub fn f32_const(&mut self, x: f32) -> TermId {
        let bits = if x.is_nan() {
            f32::NAN.to_bits()
        } else {
            x.to_bits()
        };
        self.fp_const(FpFormat::F32, u128::from(bits))
    }

    /// A binary64 literal (any NaN becomes the canonical NaN).
    pub fn f64_const(&mut self, x: f64) -> TermId {
        let bits = if x.is_nan() {
            f64::NAN.to_bits()
        } else {
            x.to_bits()
        };
        self.fp_const(FpFormat::F64, u128::from(bits))
    }

    /// The literal of format `f` with bit pattern `bits` (bits above the
    /// format's width are dropped; any NaN becomes the format's quiet NaN).
    pub fn fp_const(&mut self, f: FpFormat, bits: u128) -> TermId {
        let bits = bits & (u128::MAX >> (128 - f.width()));
        let bits = if f.is_nan(bits) { f.nan() } else { bits };
        self.intern(Op::FpConst(f, bits), Box::new([]), Sort::Fp(f))
    }

    /// A bit-vector literal of width `w` (the value is truncated to `w` bits).
    pub fn bv_const(&mut self, value: u64, w: u32) -> Result<TermId, TermError> {
        check_width(w)?;
        Ok(self.intern(
            Op::BvConst(value & mask(w), w),
            Box::new([]),
            Sort::BitVec(w),
        ))
    }

    /// Builds `op(args)` after checking arity and sorts. Constants and
    /// variables are built with their own constructors.
    pub fn mk(&mut self, op: Op, args: &[TermId]) -> Result<TermId, TermError> {
        let sort = self.sort_of(op, args)?;
        Ok(self.intern(op, args.into(), sort))
    }

    /// The sort of `op(args)`, after checking arity and argument sorts.
    fn sort_of(&self, op: Op, args: &[TermId]) -> Result<Sort, TermError> {
        let a = ArgSorts {
            op,
            sorts: args.iter().map(|&t| self.sort(t)).collect(),
        };
        use Op::*;
        match op {
            Var(v) => a.leaf(self.vars[v.index()].sort),
            BoolConst(_) => a.leaf(Sort::Bool),
            FpConst(f, _) => a.leaf(Sort::Fp(f)),
            BvConst(_, w) => a.leaf(Sort::BitVec(w)),
            RmConst(_) => a.leaf(Sort::RoundingMode),
            Not => a.boolean(1),
            And | Or | Xor | Implies => a.boolean(2),
            Ite => {
                a.arity(3)?;
                a.want_bool(0)?;
                if a.sorts[2] != a.sorts[1] {
                    return Err(a.bad(2, &a.sorts[1].to_string()));
                }
                Ok(a.sorts[1])
            }
            Eq | Distinct => {
                a.arity(2)?;
                a.same_as_first(1)?;
                Ok(Sort::Bool)
            }
            FpAbs | FpNeg => Ok(Sort::Fp(a.float(1)?)),
            Ext(_) => {
                let f = a.float(1)?;
                if f.host().is_none() {
                    return Err(a.bad(0, "a binary32 or binary64 float"));
                }
                Ok(Sort::Fp(f))
            }
            FpSqrt | FpRoundToIntegral => Ok(Sort::Fp(a.rounded_float(1)?)),
            FpRem | FpMin | FpMax => Ok(Sort::Fp(a.float(2)?)),
            FpAdd | FpSub | FpMul | FpDiv => Ok(Sort::Fp(a.rounded_float(2)?)),
            FpFma => Ok(Sort::Fp(a.rounded_float(3)?)),
            FpLeq | FpLt | FpGeq | FpGt | FpEq => a.float(2).map(|_| Sort::Bool),
            FpIsNormal | FpIsSubnormal | FpIsZero | FpIsInfinite | FpIsNaN | FpIsNegative
            | FpIsPositive => a.float(1).map(|_| Sort::Bool),
            FpToSbv(w) | FpToUbv(w) => {
                a.rounded_float(1)?;
                check_width(w)?;
                Ok(Sort::BitVec(w))
            }
            FpToFp(f) => a.rounded_float(1).map(|_| Sort::Fp(f)),
            SbvToFp(f) | UbvToFp(f) => {
                a.arity(2)?;
                a.want_rm(0)?;
                a.want_bv(1).map(|_| Sort::Fp(f))
            }
            BitsToFp(f) => {
                if a.bitvec(1)? != f.width() {
                    return Err(a.bad(0, &Sort::BitVec(f.width()).to_string()));
                }
                Ok(Sort::Fp(f))
            }
            FpToBits(f) => {
                if a.float(1)? != f {
                    return Err(a.bad(0, &Sort::Fp(f).to_string()));
                }
                check_width(f.width())?;
                Ok(Sort::BitVec(f.width()))
            }
            BvNot | BvNeg => Ok(Sort::BitVec(a.bitvec(1)?)),
            BvAnd | BvOr | BvXor | BvAdd | BvSub | BvMul | BvUdiv | BvUrem | BvSdiv | BvSrem
            | BvSmod | BvShl | BvLshr | BvAshr => Ok(Sort::BitVec(a.bitvec(2)?)),
            BvUlt | BvUle | BvUgt | BvUge | BvSlt | BvSle | BvSgt | BvSge => {
                a.bitvec(2).map(|_| Sort::Bool)
            }
            Concat => {
                a.arity(2)?;
                let w = a.want_bv(0)? + a.want_bv(1)?;
                check_width(w)?;
                Ok(Sort::BitVec(w))
            }
            Extract(hi, lo) => {
                let w = a.bitvec(1)?;
                if lo > hi || hi >= w {
                    return Err(TermError::Width(format!(
                        "extract {hi} {lo} out of range for width {w}"
                    )));
                }
                Ok(Sort::BitVec(hi - lo + 1))
            }
            ZeroExtend(n) | SignExtend(n) => {
                let w = a.bitvec(1)?.saturating_add(n);
                check_width(w)?;
                Ok(Sort::BitVec(w))
            }
        }
    }
}

/// The argument sorts of one application of `op`, and the checks `mk` makes on them;
/// errors name the operator.
struct ArgSorts {
    op: Op,
    sorts: Vec<Sort>,
}

impl ArgSorts {
    fn arity(&self, n: usize) -> Result<(), TermError> {
        if self.sorts.len() == n {
            return Ok(());
        }
        Err(TermError::Arity {
            op: format!("{:?}", self.op),
            expected: ["zero", "one", "two", "three", "four"][n],
            got: self.sorts.len(),
        })
    }

    fn bad(&self, index: usize, expected: &str) -> TermError {
        TermError::Sort {
            op: format!("{:?}", self.op),
            index,
            got: self.sorts[index],
            expected: expected.to_string(),
        }
    }

    fn want_bool(&self, i: usize) -> Result<(), TermError> {
        if self.sorts[i] == Sort::Bool {
            Ok(())
        } else {
            Err(self.bad(i, "Bool"))
        }
    }

    fn want_fp(&self, i: usize) -> Result<FpFormat, TermError> {
        match self.sorts[i] {
            Sort::Fp(f) => Ok(f),
            _ => Err(self.bad(i, "a floating-point sort")),
        }
    }

    fn want_bv(&self, i: usize) -> Result<u32, TermError> {
        match self.sorts[i] {
            Sort::BitVec(w) => Ok(w),
            _ => Err(self.bad(i, "a bit-vector sort")),
        }
    }

    fn same_as_first(&self, i: usize) -> Result<(), TermError> {
        if self.sorts[i] == self.sorts[0] {
            Ok(())
        } else {
            Err(self.bad(i, &self.sorts[0].to_string()))
        }
    }

    /// A constant or variable of sort `sort`.
    fn leaf(&self, sort: Sort) -> Result<Sort, TermError> {
        self.arity(0)?;
        Ok(sort)
    }

    /// A connective of `n` Booleans.
    fn boolean(&self, n: usize) -> Result<Sort, TermError> {
        self.arity(n)?;
        for i in 0..n {
            self.want_bool(i)?;
        }
        Ok(Sort::Bool)
    }

    /// `n` floats of one format: that format.
    fn float(&self, n: usize) -> Result<FpFormat, TermError> {
        self.arity(n)?;
        let f = self.want_fp(0)?;
        for i in 1..n {
            self.same_as_first(i)?;
        }
        Ok(f)
    }

    /// A rounding mode, then `n` floats of one format: that format.
    fn rounded_float(&self, n: usize) -> Result<FpFormat, TermError> {
        self.arity(n + 1)?;
        self.want_rm(0)?;
        let f = self.want_fp(1)?;
        for i in 2..=n {
            if self.sorts[i] != self.sorts[1] {
                return Err(self.bad(i, &self.sorts[1].to_string()));
            }
        }
        Ok(f)
    }

    fn want_rm(&self, i: usize) -> Result<(), TermError> {
        if self.sorts[i] == Sort::RoundingMode {
            Ok(())
        } else {
            Err(self.bad(i, "RoundingMode"))
        }
    }

    /// `n` bit-vectors of one width: that width.
    fn bitvec(&self, n: usize) -> Result<u32, TermError> {
        self.arity(n)?;
        let w = self.want_bv(0)?;
        for i in 1..n {
            self.same_as_first(i)?;
        }
        Ok(w)
    }
}

/// The all-ones mask of width `w` (1..=64).
pub fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn check_width(w: u32) -> Result<(), TermError> {
    if (1..=64).contains(&w) {
        Ok(())
    } else {
        Err(TermError::Width(format!(
            "unsupported: bit-vector width {w} (1..=64)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_consing_shares_equal_terms() {
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F32);
        let y = s.declare("y", Sort::F32);
        let rne = s.rm_const(SmtRounding::Rne);
        let a = s.mk(Op::FpAdd, &[rne, x, y]).unwrap();
        let b = s.mk(Op::FpAdd, &[rne, x, y]).unwrap();
        assert_eq!(a, b);
        let c = s.mk(Op::FpAdd, &[rne, y, x]).unwrap();
        assert_ne!(a, c);
        assert!(a.index() > x.index() && a.index() > y.index());
    }

    #[test]
    fn sorts_are_checked() {
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F32);
        let d = s.declare("d", Sort::F64);
        let rtz = s.rm_const(SmtRounding::Rtz);
        assert!(matches!(
            s.mk(Op::FpAdd, &[rtz, x, d]),
            Err(TermError::Sort { index: 2, .. })
        ));
        assert!(matches!(
            s.mk(Op::FpAdd, &[x, x, x]),
            Err(TermError::Sort { index: 0, .. })
        ));
        assert!(s.mk(Op::FpAdd, &[x, x]).is_err());
        let b = s.declare("b", Sort::BitVec(32));
        let f = s.mk(Op::BitsToFp(FpFormat::F32), &[b]).unwrap();
        assert_eq!(s.sort(f), Sort::F32);
        assert!(s.mk(Op::BitsToFp(FpFormat::F64), &[b]).is_err());
        assert!(s.mk(Op::Extract(32, 0), &[b]).is_err());
        assert!(s.mk(Op::Concat, &[b, b]).is_ok());
        let wide = s.mk(Op::Concat, &[b, b]).unwrap();
        assert!(s.mk(Op::Concat, &[wide, b]).is_err());
    }
}
