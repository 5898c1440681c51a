//! What an accuracy run counts errors in ([`ErrorMetric`], `--metric`): the search's
//! objective, the ranking of the worst inputs and the figure every report leads with.
//!
//! - **Ulps** of the reference in the result's format ([`fpforge_mpfr::metrics`]: the
//!   spacing of the format in the binade of the true value, the smallest subnormal for
//!   subnormal and zero true values), as math-library authors and Zimmermann et al.'s
//!   reports measure accuracy: a 0.52-ulp worst case is good, 1.5 ulps a bug. The
//!   default when the oracle is a true function of the result's format
//!   ([`default_metric`]).
//! - **Relative error** (FPGen's, ATOMU's): the default otherwise, and exactly what
//!   every run measured before the metric was a choice.
//!
//! Both figures are measured on every input ([`ErrorMeasure`]); the metric only says
//! which one ranks. Ties on it are broken by the other.

use crate::oracle::Oracle;
use fpforge_engine::ErrorMetric;
use fpforge_mpfr::{ErrorMeasure, Format, Operand};

/// The metric of a run that asks for none: ulps when `oracle` is a true function and
/// every floating-point operand it takes (`operands`) has the format of the measured
/// result (`result`), as `exp` on a `double` giving a `double`, `expf` on a `float`
/// giving a `float`, or `jn` on an `int` and a `double`; the relative error otherwise:
/// under the re-execution (the reference is the code's own), a C reference (a double,
/// not the true value) or a true function measured on a result of another format.
pub fn default_metric(oracle: &Oracle, operands: &[Operand], result: Format) -> ErrorMetric {
    let same_format = operands.iter().all(|op| match *op {
        Operand::Float(ty, _) => result == Format::Ieee(ty),
        Operand::Extended(_) => result == Format::Extended,
        Operand::Int(_) => true,
    });
    match oracle {
        Oracle::TrueFunction(_) if same_format => ErrorMetric::Ulps,
        Oracle::TrueFunction(_) | Oracle::CReference(_) | Oracle::ReExecution => {
            ErrorMetric::Relative
        }
    }
}

/// `error` in `metric` (infinite when a value is not finite where the other is).
pub fn figure(metric: ErrorMetric, error: &ErrorMeasure) -> f64 {
    match metric {
        ErrorMetric::Ulps => error.ulps,
        ErrorMetric::Relative => error.rel,
    }
}

/// Whether error `a` ranks above `b` in `metric` (larger, the other figure breaking
/// ties; NaN never ranks).
pub fn worse(metric: ErrorMetric, a: &ErrorMeasure, b: &ErrorMeasure) -> bool {
    let (x, y, x2, y2) = match metric {
        ErrorMetric::Ulps => (a.ulps, b.ulps, a.rel, b.rel),
        ErrorMetric::Relative => (a.rel, b.rel, a.ulps, b.ulps),
    };
    x > y || (x == y && x2 > y2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpforge_mpfr::TrueFunction;
    use fpir::FloatTy;

    #[test]
    fn ulps_are_the_default_for_a_true_function_of_the_results_format() {
        let exp = Oracle::TrueFunction(TrueFunction::from_mpfr_name("exp").unwrap());
        let double = Format::Ieee(FloatTy::F64);
        let x = [Operand::Float(FloatTy::F64, 0)];
        assert_eq!(default_metric(&exp, &x, double), ErrorMetric::Ulps);
        let n_and_x = [Operand::Int(3), Operand::Float(FloatTy::F64, 0)];
        assert_eq!(default_metric(&exp, &n_and_x, double), ErrorMetric::Ulps);
        let single = Format::Ieee(FloatTy::F32);
        assert_eq!(default_metric(&exp, &x, single), ErrorMetric::Relative);
        assert_eq!(
            default_metric(&Oracle::ReExecution, &x, double),
            ErrorMetric::Relative
        );
    }

    #[test]
    fn the_metric_ranks_and_the_other_figure_breaks_ties() {
        let e = |rel, ulps| ErrorMeasure {
            rel,
            ulps,
            bits_lost: 0.0,
        };
        // Just above a power of two an ulp is twice as wide relatively.
        let (above, below) = (e(1.1e-16, 0.5), e(1.0e-16, 0.9));
        assert!(worse(ErrorMetric::Ulps, &below, &above));
        assert!(worse(ErrorMetric::Relative, &above, &below));
        assert!(worse(ErrorMetric::Ulps, &e(2.0, 1.0), &e(1.0, 1.0)));
        assert!(!worse(
            ErrorMetric::Ulps,
            &e(f64::NAN, f64::NAN),
            &e(0.0, 0.0)
        ));
        assert_eq!(figure(ErrorMetric::Ulps, &below), 0.9);
        assert_eq!(figure(ErrorMetric::Relative, &below), 1.0e-16);
    }
}
