//! The oracle an accuracy run measures every candidate against, and how it is named in
//! every report.
//!
//! - **The true function** ([`Oracle::TrueFunction`]): MPFR's value of the function the
//!   entry computes, found by the entry's name ([`TrueFunction::for_entry`]: C library
//!   names in their `double`, `float` and `long double` forms, GSL, Cephes names) or
//!   named by `--oracle mpfr:NAME`. A GSL `_e` function returns a
//!   status and its value in a `gsl_sf_result *`: the value (`result->val`, the first
//!   element of the output) is measured and the status reported beside it.
//! - **A C reference** ([`Oracle::CReference`], `--oracle FILE.c:FN`): the user's own
//!   function with the entry's scalar signature (computing in `long double`,
//!   `__float128` or MPFR as they choose), compiled natively with clang-14 into a shared
//!   object and called in-process through `dlopen` ([`native`]). In-process, because
//!   the search measures every candidate against the oracle: a call through a function
//!   pointer costs nanoseconds where a driver process costs a round trip through a pipe
//!   per candidate. The price: a reference that crashes takes fpforge down with it.
//! - **The high-precision re-execution** of the same code ([`Oracle::ReExecution`]) when
//!   neither exists: what it measures is the rounding error of this algorithm only, not
//!   the error of its approximation.
//!
//! `--oracle auto` (the default) takes the true function when the table knows the entry
//! and its operands fit, and the re-execution otherwise.

pub mod native;

use crate::error::AccuracyError;
use fpforge_mpfr::{HighValue, Operand, TrueFunction};
use fpforge_spec::plan::Test;
use fpforge_spec::{Arg, InputSpec, OutArgSpec, ParamInput};
use fpir::f80::F80;
use fpir::{FloatTy, Func, Module, Type};
use native::NativeReference;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// The oracle a run is asked to use (`--oracle`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum OracleChoice {
    /// The true function when the entry's name is in the table, else the re-execution.
    #[default]
    Auto,
    /// The named true function (`mpfr:NAME`).
    Mpfr(TrueFunction),
    /// The user's reference in C (`FILE.c:FN`).
    CReference {
        /// The C source.
        source: PathBuf,
        /// The function in it.
        function: String,
    },
    /// The high-precision re-execution of the same code (`reexec`).
    ReExecution,
}

impl std::str::FromStr for OracleChoice {
    type Err = String;

    /// `auto`, `reexec`, `mpfr:NAME` or `FILE.c:FN`.
    fn from_str(text: &str) -> Result<OracleChoice, String> {
        match text {
            "auto" => return Ok(OracleChoice::Auto),
            "reexec" => return Ok(OracleChoice::ReExecution),
            _ => {}
        }
        if let Some(name) = text.strip_prefix("mpfr:") {
            return TrueFunction::from_mpfr_name(name)
                .map(OracleChoice::Mpfr)
                .ok_or_else(|| format!("MPFR has no function `{name}` that fpforge knows"));
        }
        match text.rsplit_once(':') {
            Some((source, function)) if !source.is_empty() && !function.is_empty() => {
                Ok(OracleChoice::CReference {
                    source: PathBuf::from(source),
                    function: function.to_string(),
                })
            }
            _ => Err(format!(
                "`{text}` is not an oracle: give auto, reexec, mpfr:NAME or FILE.c:FUNCTION"
            )),
        }
    }
}

impl std::fmt::Display for OracleChoice {
    /// The `--oracle` text that [`OracleChoice::from_str`](std::str::FromStr) reads back
    /// equal: `auto`, `reexec`, `mpfr:NAME` or `FILE.c:FN`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OracleChoice::Auto => f.write_str("auto"),
            OracleChoice::ReExecution => f.write_str("reexec"),
            OracleChoice::Mpfr(function) => write!(f, "mpfr:{}", function.mpfr_name()),
            OracleChoice::CReference { source, function } => {
                write!(f, "{}:{function}", source.display())
            }
        }
    }
}

/// The oracle of a run, resolved for its entry function.
#[derive(Clone, Debug)]
pub enum Oracle {
    /// MPFR's value of the function the entry computes.
    TrueFunction(TrueFunction),
    /// The user's C reference, compiled natively.
    CReference(Arc<NativeReference>),
    /// The same code re-run in MPFR.
    ReExecution,
}

/// What kind of oracle a report's figures come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OracleKind {
    /// The true function in MPFR.
    TrueFunction,
    /// A C reference.
    CReference,
    /// The high-precision re-execution.
    ReExecution,
}

impl OracleKind {
    /// The kind's name in `report.json`.
    pub fn name(self) -> &'static str {
        match self {
            OracleKind::TrueFunction => "true_function",
            OracleKind::CReference => "c_reference",
            OracleKind::ReExecution => "re_execution",
        }
    }
}

impl Oracle {
    /// The oracle `choice` gives for `func` with inputs `spec`; the C reference is
    /// compiled here.
    pub fn resolve(
        choice: &OracleChoice,
        module: &Module,
        func: Func,
        spec: &InputSpec,
    ) -> Result<Oracle, AccuracyError> {
        let probe = probe_operands(spec);
        match choice {
            OracleChoice::Auto => Ok(TrueFunction::for_entry(&module.funcs[func].name)
                .filter(|f| probe.as_deref().is_some_and(|p| f.fits(p)))
                .map_or(Oracle::ReExecution, Oracle::TrueFunction)),
            OracleChoice::Mpfr(f) => match probe {
                Some(p) if f.fits(&p) => Ok(Oracle::TrueFunction(*f)),
                _ => Err(AccuracyError::Oracle(format!(
                    "MPFR {} does not take the scalar inputs of `{}`",
                    f.mpfr_name(),
                    module.funcs[func].display_name()
                ))),
            },
            OracleChoice::CReference { source, function } => {
                let native = NativeReference::build(source, function, module, func, spec)?;
                Ok(Oracle::CReference(Arc::new(native)))
            }
            OracleChoice::ReExecution => Ok(Oracle::ReExecution),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> OracleKind {
        match self {
            Oracle::TrueFunction(_) => OracleKind::TrueFunction,
            Oracle::CReference(_) => OracleKind::CReference,
            Oracle::ReExecution => OracleKind::ReExecution,
        }
    }

    /// The oracle's value on `operands` at `prec` bits; `None` for the re-execution
    /// (which runs the code instead) and for operands it does not take.
    pub(crate) fn value(&self, prec: u32, operands: &[Operand]) -> Option<HighValue> {
        match self {
            Oracle::TrueFunction(f) => f.eval(prec, operands),
            Oracle::CReference(native) => {
                let r = native.call(operands)?;
                Some(HighValue::from_bits(FloatTy::F64, r.to_bits()))
            }
            Oracle::ReExecution => None,
        }
    }
}

impl fmt::Display for Oracle {
    /// The label every report gives the oracle.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Oracle::TrueFunction(t) => write!(f, "true function ({t})"),
            Oracle::CReference(native) => write!(
                f,
                "C reference {} (compiled natively, called through dlopen)",
                native.name()
            ),
            Oracle::ReExecution => write!(
                f,
                "rounding error of this algorithm only (high-precision re-execution)"
            ),
        }
    }
}

/// The operands an oracle takes on `test`: its scalar inputs in parameter order
/// (fixed values and `long double`s included, output arrays and the slot of a
/// `long double` result left out); `None` when an input is not a scalar.
pub(crate) fn operands(spec: &InputSpec, test: &Test) -> Option<Vec<Operand>> {
    let mut ops = Vec::new();
    let mut significand = 0;
    for (p, arg) in spec.params().iter().zip(test.args()) {
        match (p, arg) {
            (ParamInput::Scalar { ty, .. } | ParamInput::Fixed { ty, .. }, Arg::Scalar(bits)) => {
                ops.push(operand(*ty, *bits)?);
            }
            (ParamInput::LongDouble { .. }, Arg::Scalar(sig)) => significand = *sig,
            (ParamInput::LongDoubleExponent, Arg::Scalar(se)) => ops.push(Operand::Extended(F80 {
                sig: significand,
                se: *se as u16,
            })),
            (ParamInput::Output { .. } | ParamInput::LongDoubleResult, _) => {}
            _ => return None,
        }
    }
    Some(ops)
}

/// The operand shapes of `spec` (every value zero), to check what an oracle takes.
pub(crate) fn probe_operands(spec: &InputSpec) -> Option<Vec<Operand>> {
    let mut ops = Vec::new();
    for p in spec.params() {
        match p {
            ParamInput::Scalar { ty, .. } | ParamInput::Fixed { ty, .. } => {
                ops.push(operand(*ty, 0)?)
            }
            ParamInput::LongDouble { .. } => ops.push(Operand::Extended(F80::ZERO)),
            ParamInput::LongDoubleExponent
            | ParamInput::LongDoubleResult
            | ParamInput::Output { .. } => {}
            _ => return None,
        }
    }
    Some(ops)
}

fn operand(ty: Type, bits: u64) -> Option<Operand> {
    match ty {
        Type::Float(ft) => Some(Operand::Float(ft, bits)),
        Type::Int(_) => Some(Operand::Int(ty.sign_extend(bits))),
        Type::Ptr => None,
    }
}

/// The output arrays of a run: the `--out-arg`s given, or, for a GSL special function
/// in its `_e` form (`int gsl_sf_NAME_e(..., gsl_sf_result *result)`), its trailing
/// `gsl_sf_result *` as a two-element output (`val`, `err`) of which the value is
/// measured.
pub fn implied_out_args(module: &Module, func: Func, given: &[OutArgSpec]) -> Vec<OutArgSpec> {
    let f = &module.funcs[func];
    let returns_status = matches!(f.ret, Some(Type::Int(_)));
    let last_is_pointer = f.param_types().last() == Some(&Type::Ptr);
    let gsl_e_form = f.name.starts_with("gsl_sf_") && f.name.ends_with("_e");
    if !given.is_empty() || !gsl_e_form || !returns_status || !last_is_pointer {
        return given.to_vec();
    }
    vec![OutArgSpec {
        name: f.params().len().to_string(),
        elem: Some(Type::F64),
        len: Some(2),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_choices_are_written_as_they_are_read() {
        for text in [
            "auto",
            "reexec",
            "mpfr:gamma",
            "mpfr:digamma",
            "ref/sin.c:my_sin",
        ] {
            let choice: OracleChoice = text.parse().unwrap();
            assert_eq!(choice.to_string(), text);
        }
    }
}
