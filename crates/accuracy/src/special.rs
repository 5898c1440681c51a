//! Wrong special values and poles: the findings a report lists first.
//!
//! A result that is NaN or infinite where the oracle's value is finite is a *wrong
//! special value*, the most serious kind of finding (the caller gets no number at all).
//! A finite result where the oracle's value is infinite or undefined is a *pole*: the
//! input sits on a singularity of the function, where no finite answer is right and a
//! relative error means nothing, so it is listed as such and never ranked as an error.

use crate::measure::Finding;
use fpforge_mpfr::HighValue;

/// What is wrong with a special value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SpecialKind {
    /// NaN or an infinity computed where the oracle is finite.
    WrongSpecialValue,
    /// The oracle is infinite or undefined (NaN) and the computed result differs.
    Pole,
}

impl SpecialKind {
    /// The kind's label in reports.
    pub fn label(self) -> &'static str {
        match self {
            SpecialKind::WrongSpecialValue => "wrong special value",
            SpecialKind::Pole => "pole",
        }
    }
}

/// A finding whose computed or true value is not finite.
#[derive(Clone, Debug)]
pub struct SpecialValue {
    /// What is wrong.
    pub kind: SpecialKind,
    /// The input, its computed result and the oracle's value.
    pub finding: Finding,
}

/// The special kind of `finding`, when its computed result and the oracle's value are
/// not both finite and do not agree.
pub fn classify(finding: &Finding) -> Option<SpecialKind> {
    if finding.error.rel == 0.0 {
        return None;
    }
    let computed = HighValue::from_bits(finding.ty, finding.computed);
    let computed_finite = computed.as_float().is_finite();
    // A true value beyond the format's range rounds to infinity: an overflow to the
    // right infinity is the correctly rounded result, not a wrong special value.
    let rounded = finding.reference.round_bits(finding.ty);
    if !computed_finite && rounded == finding.computed {
        return None;
    }
    let reference_finite = finding.reference.as_float().is_finite();
    match (computed_finite, reference_finite) {
        (false, true) => Some(SpecialKind::WrongSpecialValue),
        (_, false) => Some(SpecialKind::Pole),
        (true, true) => None,
    }
}
