//! Wrong special values and poles: the findings a report lists first.
//!
//! A result that is NaN or infinite where the oracle's value is finite is a *wrong
//! special value*, the most serious kind of finding (the caller gets no number at all).
//! A finite result where the oracle's value is infinite or undefined is a *pole*: the
//! input sits on a singularity of the function, where no finite answer is right and a
//! relative error means nothing, so it is listed as such and never ranked as an error.
//! So is an input next to a pole the zero search located between two doubles
//! ([`crate::zeros`]). For a pole, [`PoleAnswer`] says whether the code tells its
//! caller.

use crate::measure::ErrorFinding;

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

/// What the code answers at a pole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoleAnswer {
    /// It returns an infinity or NaN: it says so.
    NotFinite,
    /// It returns an error status (non-zero): it says so.
    ErrorStatus,
    /// It returns a finite value with success: the caller cannot tell.
    FiniteWithSuccess,
}

impl PoleAnswer {
    /// The answer's label in reports.
    pub fn label(self) -> &'static str {
        match self {
            PoleAnswer::NotFinite => "says so (not finite)",
            PoleAnswer::ErrorStatus => "says so (error status)",
            PoleAnswer::FiniteWithSuccess => "does not say so (finite value, success)",
        }
    }
}

/// A finding whose computed or true value is not finite.
#[derive(Clone, Debug)]
pub struct SpecialValue {
    /// What is wrong.
    pub kind: SpecialKind,
    /// The input, its computed result and the oracle's value.
    pub finding: ErrorFinding,
}

impl SpecialValue {
    /// For a pole, what the code answers there.
    pub fn pole_answer(&self) -> Option<PoleAnswer> {
        if self.kind != SpecialKind::Pole {
            return None;
        }
        let f = &self.finding;
        Some(if !f.computed.is_finite() {
            PoleAnswer::NotFinite
        } else if f.status.is_some_and(|s| s != 0) {
            PoleAnswer::ErrorStatus
        } else {
            PoleAnswer::FiniteWithSuccess
        })
    }
}

/// The special kind of `finding`, when its computed result and the oracle's value are
/// not both finite and do not agree.
pub fn classify(finding: &ErrorFinding) -> Option<SpecialKind> {
    if finding.error.rel == 0.0 {
        return None;
    }
    let computed_finite = finding.computed.is_finite();
    // A true value beyond the format's range rounds to infinity: an overflow to the
    // right infinity is the correctly rounded result, not a wrong special value.
    let rounded = finding.reference.round_to(finding.computed.format());
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
