//! SMT-LIB 2.6 text of a query (QF_BVFP), for peers such as Bitwuzla and Z3.
//!
//! Every non-leaf term becomes one `define-fun` in id order (children first), so the
//! text is linear in the number of distinct terms however much they share. The
//! non-standard [`Op::FpToBits`] becomes a fresh bit-vector `b` with
//! `((_ to_fp e s) b) = x` (equivalent except for NaN payloads); the extension operators
//! (`fpext.*`) have no SMT-LIB form, and a query using them is not written.

use fpforge_solve::eval::Value;
use fpforge_solve::{FpFormat, Op, Sort, TermId, TermStore};
use std::collections::HashSet;
use std::fmt::Write as _;

fn sort_text(sort: Sort) -> String {
    sort.to_string()
}

fn fp_index(f: FpFormat) -> String {
    format!("{} {}", f.exponent_bits(), f.significand_bits())
}

fn quote(name: &str) -> String {
    let simple = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c))
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if simple {
        name.to_string()
    } else {
        format!("|{}|", name.replace('|', "_"))
    }
}

/// The script asserting every term of `assertions`, ending with `(check-sat)`; `None`
/// when a term has no SMT-LIB form.
pub fn write_query(store: &TermStore, assertions: &[TermId]) -> Option<String> {
    let mut cone = HashSet::new();
    let mut stack = assertions.to_vec();
    while let Some(t) = stack.pop() {
        if cone.insert(t) {
            stack.extend(store.get(t).args.iter().copied());
        }
    }
    let mut ids: Vec<TermId> = cone.into_iter().collect();
    ids.sort_unstable();
    let mut out = String::from("(set-logic QF_BVFP)\n");
    let mut tail = String::new();
    let name = |t: TermId| -> String {
        match store.get(t).op {
            Op::Var(v) => quote(&format!("{}!{}", store.vars()[v.index()].name, v.0)),
            _ => format!("t{}", t.0),
        }
    };
    for &t in &ids {
        let term = store.get(t);
        let a: Vec<String> = term.args.iter().map(|&x| name(x)).collect();
        let bin = |f: &str| format!("({f} {})", a.join(" "));
        let body = match term.op {
            Op::Var(_) => {
                let _ = writeln!(out, "(declare-const {} {})", name(t), sort_text(term.sort));
                continue;
            }
            Op::BoolConst(b) => b.to_string(),
            Op::FpConst(f, bits) => Value::from_float_bits(f, bits).to_string(),
            Op::BvConst(v, w) => format!("(_ bv{v} {w})"),
            Op::RmConst(r) => r.name().to_string(),
            Op::Not => bin("not"),
            Op::And => bin("and"),
            Op::Or => bin("or"),
            Op::Xor => bin("xor"),
            Op::Implies => bin("=>"),
            Op::Ite => bin("ite"),
            Op::Eq => bin("="),
            Op::Distinct => bin("distinct"),
            Op::FpAbs => bin("fp.abs"),
            Op::FpNeg => bin("fp.neg"),
            Op::FpAdd => bin("fp.add"),
            Op::FpSub => bin("fp.sub"),
            Op::FpMul => bin("fp.mul"),
            Op::FpDiv => bin("fp.div"),
            Op::FpFma => bin("fp.fma"),
            Op::FpSqrt => bin("fp.sqrt"),
            Op::FpRem => bin("fp.rem"),
            Op::FpRoundToIntegral => bin("fp.roundToIntegral"),
            Op::FpMin => bin("fp.min"),
            Op::FpMax => bin("fp.max"),
            Op::FpLeq => bin("fp.leq"),
            Op::FpLt => bin("fp.lt"),
            Op::FpGeq => bin("fp.geq"),
            Op::FpGt => bin("fp.gt"),
            Op::FpEq => bin("fp.eq"),
            Op::FpIsNormal => bin("fp.isNormal"),
            Op::FpIsSubnormal => bin("fp.isSubnormal"),
            Op::FpIsZero => bin("fp.isZero"),
            Op::FpIsInfinite => bin("fp.isInfinite"),
            Op::FpIsNaN => bin("fp.isNaN"),
            Op::FpIsNegative => bin("fp.isNegative"),
            Op::FpIsPositive => bin("fp.isPositive"),
            Op::FpToSbv(w) => format!("((_ fp.to_sbv {w}) {} {})", a[0], a[1]),
            Op::FpToUbv(w) => format!("((_ fp.to_ubv {w}) {} {})", a[0], a[1]),
            Op::FpToFp(f) | Op::SbvToFp(f) => {
                format!("((_ to_fp {}) {} {})", fp_index(f), a[0], a[1])
            }
            Op::UbvToFp(f) => format!("((_ to_fp_unsigned {}) {} {})", fp_index(f), a[0], a[1]),
            Op::BitsToFp(f) => format!("((_ to_fp {}) {})", fp_index(f), a[0]),
            Op::FpToBits(f) => {
                let b = format!("b{}", t.0);
                let _ = writeln!(out, "(declare-const {b} (_ BitVec {}))", f.width());
                let _ = writeln!(
                    tail,
                    "(assert (= ((_ to_fp {}) {b}) {}))",
                    fp_index(f),
                    a[0]
                );
                b
            }
            Op::Ext(_) => return None,
            Op::BvNot => bin("bvnot"),
            Op::BvNeg => bin("bvneg"),
            Op::BvAnd => bin("bvand"),
            Op::BvOr => bin("bvor"),
            Op::BvXor => bin("bvxor"),
            Op::BvAdd => bin("bvadd"),
            Op::BvSub => bin("bvsub"),
            Op::BvMul => bin("bvmul"),
            Op::BvUdiv => bin("bvudiv"),
            Op::BvUrem => bin("bvurem"),
            Op::BvSdiv => bin("bvsdiv"),
            Op::BvSrem => bin("bvsrem"),
            Op::BvSmod => bin("bvsmod"),
            Op::BvShl => bin("bvshl"),
            Op::BvLshr => bin("bvlshr"),
            Op::BvAshr => bin("bvashr"),
            Op::Concat => bin("concat"),
            Op::Extract(h, l) => format!("((_ extract {h} {l}) {})", a[0]),
            Op::ZeroExtend(n) => format!("((_ zero_extend {n}) {})", a[0]),
            Op::SignExtend(n) => format!("((_ sign_extend {n}) {})", a[0]),
            Op::BvUlt => bin("bvult"),
            Op::BvUle => bin("bvule"),
            Op::BvUgt => bin("bvugt"),
            Op::BvUge => bin("bvuge"),
            Op::BvSlt => bin("bvslt"),
            Op::BvSle => bin("bvsle"),
            Op::BvSgt => bin("bvsgt"),
            Op::BvSge => bin("bvsge"),
        };
        let _ = writeln!(
            out,
            "(define-fun {} () {} {body})",
            name(t),
            sort_text(term.sort)
        );
    }
    out.push_str(&tail);
    for &a in assertions {
        let _ = writeln!(out, "(assert {})", name(a));
    }
    out.push_str("(check-sat)\n");
    Some(out)
}
