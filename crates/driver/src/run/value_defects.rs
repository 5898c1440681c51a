//! `accuracy --confirm`: the wrong values an accuracy run found that are defects of the
//! function, each replayed natively with its reproducer and report (see
//! [`crate::native`]). A defect is a result the function returns with success (no
//! error status) that is:
//! - a NaN, an infinity or a zero where the true value is finite, nonzero and
//!   representable (`wrong special value`), or a finite value where the function is
//!   undefined (its true value NaN: outside the domain, also a wrong special value);
//! - a finite value at a pole (`pole`);
//! - the worst input's result, when its error against the oracle is large
//!   (`large error`: [`LARGE_ERROR_ULPS`] ulps or a relative error of
//!   [`LARGE_ERROR_RELATIVE`]).
//!
//! One defect is kept per function, result, class and kind of wrong value (the first
//! input shows it): its fingerprint ([`value_fingerprint`]).

use super::Task;
use crate::error::Result;
use crate::native::{confirm_natively, Confirm, Defect, NativeCheck, Target};
use fpforge_accuracy::measure::{ErrorFinding, OutputLoc};
use fpforge_accuracy::special::{PoleAnswer, SpecialKind, SpecialValue};
use fpforge_accuracy::{AccuracyReport, FloatBits};
use fpforge_report::accuracy::output_name;
use fpforge_report::bugreport::ValueFacts;
use fpforge_report::findings::{value_fingerprint, CrashRow, SavedFinding, VALUE_KIND};
use fpforge_report::regression::Expect;
use fpforge_spec::InputSpec;
use fpir::{Func, Module};

/// How far from the correctly rounded true value a reproducer accepts a result.
const VALUE_TOLERANCE_ULPS: u64 = 4;

/// The error in ulps from which the worst input's result is a defect to confirm.
pub const LARGE_ERROR_ULPS: f64 = 1000.0;

/// The relative error from which the worst input's result is a defect to confirm: the
/// threshold ATOMU and FPCC call significant.
pub const LARGE_ERROR_RELATIVE: f64 = 1e-3;

/// With `--confirm`, the value defects of `report` (the inputs of `spec`) and its
/// crashes and hangs (`rows` as the run wrote them), replayed natively.
pub(super) fn confirm_values(
    task: &Task<'_>,
    spec: &InputSpec,
    (report, rows): (&AccuracyReport, &[CrashRow]),
    values: &[ValueDefect],
) -> Result<Vec<NativeCheck>> {
    let (Confirm::Native, Some(out)) = (task.confirm, task.out) else {
        return Ok(Vec::new());
    };
    let (module, func) = (task.module, task.func);
    let entry = &module.funcs[func];
    let location = module.describe_loc(entry.loc);
    let faults = report.crashes.iter().zip(rows);
    let defects: Vec<Defect<'_>> = faults
        .filter(|(finding, _)| finding.kind.is_defect())
        .map(|(finding, row)| Defect::of_finding(finding, row))
        .chain(values.iter().map(|value| Defect {
            name: value.name.clone(),
            class: value.class,
            what: value.what.clone(),
            coords: &value.coords,
            expect: value.expect,
            hang: false,
            place: (entry.display_name(), &location, &[]),
            loc: entry.loc,
            fingerprint: &value.fingerprint,
            values: Some(&value.facts),
        }))
        .collect();
    let target = Target {
        module,
        func,
        spec,
        build: task.build,
    };
    confirm_natively(&target, &defects, out)
}

/// `values` (inputs of `spec`) as `report.json` lists them, whether or not they are
/// confirmed; the directory `--confirm` writes each into, when it does.
pub(super) fn saved_findings(
    task: &Task<'_>,
    spec: &InputSpec,
    values: &[ValueDefect],
) -> Vec<SavedFinding> {
    let (module, func) = (task.module, task.func);
    let entry = &module.funcs[func];
    values
        .iter()
        .map(|value| {
            let input = spec.line(&value.coords);
            SavedFinding {
                kind: VALUE_KIND.to_string(),
                trap: value.what.clone(),
                file: match task.confirm {
                    Confirm::Native => format!("findings/{}", value.name),
                    Confirm::Off => String::new(),
                },
                class: value.class.replace(' ', "-"),
                function: entry.display_name().to_string(),
                location: module.describe_loc(entry.loc),
                stack: Vec::new(),
                replay: task.replay.command(module, func, &input),
                input,
                fingerprint: value.fingerprint.clone(),
            }
        })
        .collect()
}

/// The value defects of `report`, one per fingerprint, wrong special values first; of
/// the inputs that show one, the most ordinary ([`extremity`]): what a maintainer
/// reads first.
pub(super) fn value_defects(
    (module, func): (&Module, Func),
    spec: &InputSpec,
    report: &AccuracyReport,
) -> Vec<ValueDefect> {
    let oracle = &report.oracle.to_string();
    let specials = report
        .special_values
        .iter()
        .filter_map(|special| special_class(special).map(|class| (class, &special.finding)));
    let large = large_error(report).map(|worst| ("large error", worst));
    let mut kept = specials
        .chain(large)
        .filter(|(_, finding)| finding.status.is_none_or(|status| status == 0))
        .filter_map(|(class, finding)| {
            ValueDefect::of((module, func), spec, (class, finding), oracle)
        })
        .fold(Vec::new(), |mut kept: Vec<ValueDefect>, value| {
            match kept.iter_mut().find(|k| k.fingerprint == value.fingerprint) {
                None => kept.push(value),
                Some(k)
                    if extremity(typed(spec, &value.coords))
                        < extremity(typed(spec, &k.coords)) =>
                {
                    *k = value;
                }
                Some(_) => {}
            }
            kept
        });
    let mut numbers = std::collections::BTreeMap::new();
    for value in &mut kept {
        let number = numbers.entry(value.class).or_insert(0);
        *number += 1;
        value.name = format!("{}-{number}", value.class.replace(' ', "-"));
    }
    kept
}

/// The coordinates `coords` of `spec` with their types.
fn typed<'a>(
    spec: &'a InputSpec,
    coords: &'a [u64],
) -> impl Iterator<Item = (fpir::Type, &'a u64)> {
    spec.coords().iter().map(|c| c.ty).zip(coords)
}

/// The signs of the coordinates, `+`, `-` or `0` each (`+-` for a positive then a
/// negative argument): functions are defined, and fail, by the signs of their arguments
/// (a negative argument outside the domain is not a tiny positive one's defect).
fn signs<'a>(coords: impl Iterator<Item = (fpir::Type, &'a u64)>) -> String {
    coords
        .map(|(ty, &bits)| {
            let width = ty.bits();
            if width == 0 || width > 64 {
                return '?';
            }
            let negative = (bits >> (width - 1)) & 1 == 1;
            let zero = bits & (ty.mask() >> 1) == 0;
            match (zero, negative) {
                (true, _) => '0',
                (false, true) => '-',
                (false, false) => '+',
            }
        })
        .collect()
}

/// How far from ordinary numbers an input is: first whether a float coordinate is
/// infinite or NaN (a special argument legitimately gives a special result), then the
/// sum of the float coordinates' binary exponents' magnitudes (subnormals counted at
/// their value's exponent).
fn extremity<'a>(coords: impl Iterator<Item = (fpir::Type, &'a u64)>) -> (bool, u64) {
    let floats = coords.filter_map(|(ty, &bits)| match ty {
        fpir::Type::Float(fpir::FloatTy::F32) => Some(f64::from(f32::from_bits(bits as u32))),
        fpir::Type::Float(fpir::FloatTy::F64) => Some(f64::from_bits(bits)),
        _ => None,
    });
    floats.fold((false, 0), |(special, sum), x| {
        let exponent = if x == 0.0 || !x.is_finite() {
            0
        } else {
            x.abs().log2().floor().abs() as u64
        };
        (special || !x.is_finite(), sum + exponent)
    })
}

/// The class of a special value that is a defect: a wrong special value (a finite value
/// where the function is undefined too), or a pole the function answers finite with
/// success; `None` when the function says so.
fn special_class(special: &SpecialValue) -> Option<&'static str> {
    match special.kind {
        SpecialKind::WrongSpecialValue => Some("wrong special value"),
        SpecialKind::Pole => {
            if special.pole_answer() != Some(PoleAnswer::FiniteWithSuccess) {
                None
            } else if special.finding.reference.to_f64().is_nan() {
                Some("wrong special value")
            } else {
                Some("pole")
            }
        }
    }
}

/// The worst input of `report`, when its error is large ([`LARGE_ERROR_ULPS`],
/// [`LARGE_ERROR_RELATIVE`]) while its result is finite (a wrong special value is
/// confirmed as such). Against the re-execution, the error is the algorithm's rounding
/// error, which the report says.
fn large_error(report: &AccuracyReport) -> Option<&ErrorFinding> {
    let worst = report.top.first()?;
    let large = worst.error.ulps >= LARGE_ERROR_ULPS || worst.error.rel >= LARGE_ERROR_RELATIVE;
    (worst.computed.is_finite() && large).then_some(worst)
}

/// Where `finding`'s true value comes from: the oracle, the precision Ziv's strategy
/// ended at, and whether the exact run took other branches.
fn oracle_words(oracle: &str, finding: &ErrorFinding) -> String {
    let mut words = oracle.to_string();
    if let Some(ziv) = finding.ziv {
        words += &format!(", stable at {} bits", ziv.precision);
    }
    if finding.diverged {
        words += "; the exact run took other branches than the observed one";
    }
    words
}

/// `x` in the shortest decimal that reads back as it.
fn decimal(x: f64) -> String {
    fpforge_spec::spec::decimal_text(fpir::Type::F64, x.to_bits())
}

/// `x` as a C99 hex float and in decimal.
fn both_forms(x: f64) -> String {
    if x.is_finite() {
        format!(
            "{} ({})",
            fpforge_spec::spec::value_text(fpir::Type::F64, x.to_bits()),
            decimal(x)
        )
    } else {
        decimal(x)
    }
}

/// What kind of wrong value `computed` is, for the fingerprint: `NaN`, `+inf`, `-inf`,
/// `zero` or `finite`.
fn value_kind(computed: f64) -> &'static str {
    match computed {
        x if x.is_nan() => "NaN",
        x if x == f64::INFINITY => "+inf",
        x if x == f64::NEG_INFINITY => "-inf",
        0.0 => "zero",
        _ => "finite",
    }
}

/// A wrong value the accuracy run found, as a reproducer checks it.
pub(super) struct ValueDefect {
    /// Its directory under `findings/`: `wrong-special-value-1`.
    name: String,
    class: &'static str,
    what: String,
    coords: Vec<u64>,
    expect: Expect,
    fingerprint: String,
    facts: ValueFacts,
}

impl ValueDefect {
    fn of(
        (module, func): (&Module, Func),
        spec: &InputSpec,
        (class, finding): (&'static str, &ErrorFinding),
        oracle: &str,
    ) -> Option<ValueDefect> {
        let FloatBits::Ieee(ty, _) = finding.computed else {
            return None;
        };
        let output = match finding.output {
            OutputLoc::Return => None,
            OutputLoc::Element { param, index } => Some((param, index)),
        };
        let name = output_name(module, func, finding.output);
        let (computed, truth) = (finding.computed.to_f64(), finding.reference.to_f64());
        let error = format!(
            "{:.3e} ulps, relative error {:.3e}",
            finding.error.ulps, finding.error.rel
        );
        let kind = value_kind(computed);
        Some(ValueDefect {
            name: String::new(),
            class,
            what: format!(
                "{name} is {} where the true value is {} ({error})",
                decimal(computed),
                decimal(truth),
            ),
            coords: finding.test.coords.clone(),
            expect: Expect::Value {
                output,
                expected: finding.reference.round_bits(ty),
                max_ulps: VALUE_TOLERANCE_ULPS,
            },
            fingerprint: value_fingerprint(
                &module.funcs[func].name,
                (class, &name),
                (kind, &signs(typed(spec, &finding.test.coords))),
            ),
            facts: ValueFacts {
                result: name,
                observed: both_forms(computed),
                truth: both_forms(truth),
                oracle: oracle_words(oracle, finding),
                error,
                status: finding.status,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_of_ordinary_numbers_is_less_extreme_than_one_with_huge_or_infinite_ones() {
        let of = |xs: [f64; 2]| {
            let bits = xs.map(f64::to_bits);
            extremity(bits.iter().map(|b| (fpir::Type::F64, b)))
        };
        let ordinary = of([-17.0, -2.2e-308]);
        let bits = [2.5f64.to_bits(), (-0.0f64).to_bits(), (-1e300f64).to_bits()];
        assert_eq!(signs(bits.iter().map(|b| (fpir::Type::F64, b))), "+0-");
        let huge = of([f64::MAX, -4.0e177]);
        let infinite = of([1e-225, f64::INFINITY]);
        assert!(ordinary < huge, "{ordinary:?} {huge:?}");
        assert!(huge < infinite, "{huge:?} {infinite:?}");
    }
}
