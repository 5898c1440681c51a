//! Powell's conjugate-direction method with a bracketing golden-section line search.
//!
//! M. J. D. Powell, "An efficient method for finding the minimum of a function of several
//! variables without calculating derivatives", Computer Journal 7(2), 1964. CoverMe
//! (Fu & Su, PLDI'17, Sec. 4) uses it as the local minimizer inside basinhopping. The
//! objectives here are piecewise (branch distances), so the line search only compares
//! values: it brackets by expansion and narrows by golden sections, never fits parabolas.

use crate::evaluator::{Evaluator, Halt};

/// Parameters of Powell's method.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct PowellConfig {
    /// Outer iterations over all directions (default 20).
    pub max_iters: u32,
    /// Relative decrease below which an outer iteration counts as converged (default 1e-12).
    pub ftol: f64,
    /// First trial step along a direction, relative to the point's largest coordinate of
    /// the kind the direction moves (default 0.1; see [`Evaluator::step_scale`]).
    pub rel_step: f64,
    /// Smallest first trial step (default 1.0; use ~2^20 in ordered-bits space). Along
    /// integer coordinates it is 1.
    pub abs_step: f64,
    /// Golden-section narrowing steps per line search (default 40).
    pub line_iters: u32,
    /// Bracket expansions per line search (default 60).
    pub max_expansions: u32,
}

impl Default for PowellConfig {
    fn default() -> Self {
        PowellConfig {
            max_iters: 20,
            ftol: 1e-12,
            rel_step: 0.1,
            abs_step: 1.0,
            line_iters: 40,
            max_expansions: 60,
        }
    }
}

impl PowellConfig {
    /// Sets the smallest first trial step.
    pub fn with_abs_step(mut self, step: f64) -> Self {
        self.abs_step = step;
        self
    }

    /// Sets the number of outer iterations.
    pub fn with_max_iters(mut self, iters: u32) -> Self {
        self.max_iters = iters;
        self
    }
}

const GOLDEN: f64 = 0.618_033_988_749_894_8;

/// Minimizes from `start`; returns the local minimum's coordinates and value.
pub fn powell<F: FnMut(&[f64]) -> f64>(
    ev: &mut Evaluator<F>,
    start: &[f64],
    config: &PowellConfig,
) -> Result<(Vec<f64>, f64), Halt> {
    let n = start.len();
    let mut x = start.to_vec();
    let mut fx = ev.eval(&x)?;
    let mut dirs: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for _ in 0..config.max_iters {
        let (x_start, f_start) = (x.clone(), fx);
        let mut biggest = (0.0, 0);
        for (i, dir) in dirs.iter().enumerate() {
            let (scale, integer) = ev.step_scale(&x, dir);
            let step = if integer { 1.0 } else { config.abs_step }.max(config.rel_step * scale);
            let before = fx;
            fx = line_minimize(ev, &mut x, fx, dir, step, config)?;
            if before - fx > biggest.0 {
                biggest = (before - fx, i);
            }
        }
        if 2.0 * (f_start - fx) <= config.ftol * (f_start.abs() + fx.abs()) + f64::MIN_POSITIVE {
            break;
        }
        let new_dir: Vec<f64> = x.iter().zip(&x_start).map(|(a, b)| a - b).collect();
        if new_dir.iter().any(|d| *d != 0.0 && d.is_finite()) {
            fx = line_minimize(ev, &mut x, fx, &new_dir, 1.0, config)?;
            dirs[biggest.1] = new_dir;
        }
    }
    Ok((x, fx))
}

/// Moves `x` to the best point found along `dir` and returns its value.
fn line_minimize<F: FnMut(&[f64]) -> f64>(
    ev: &mut Evaluator<F>,
    x: &mut [f64],
    fx: f64,
    dir: &[f64],
    step: f64,
    config: &PowellConfig,
) -> Result<f64, Halt> {
    let mut probe = x.to_vec();
    let mut at = |ev: &mut Evaluator<F>, t: f64| -> Result<f64, Halt> {
        for ((p, base), d) in probe.iter_mut().zip(x.iter()).zip(dir) {
            *p = base + t * d;
        }
        ev.eval(&probe)
    };
    let (mut best_t, mut best_f) = (0.0, fx);
    let consider = |t: f64, f: f64, best_t: &mut f64, best_f: &mut f64| {
        if f < *best_f {
            *best_t = t;
            *best_f = f;
        }
    };
    let f_fwd = at(ev, step)?;
    consider(step, f_fwd, &mut best_t, &mut best_f);
    let (mut lo, mut hi) = if f_fwd < fx {
        (0.0, step)
    } else {
        let f_back = at(ev, -step)?;
        consider(-step, f_back, &mut best_t, &mut best_f);
        if f_back < fx {
            (0.0, -step)
        } else {
            (-step, step)
        }
    };
    if best_t != 0.0 {
        let mut prev_f = best_f;
        for _ in 0..config.max_expansions {
            let next = hi + (hi - lo) / GOLDEN;
            if !next.is_finite() {
                break;
            }
            let f = at(ev, next)?;
            consider(next, f, &mut best_t, &mut best_f);
            lo = hi;
            hi = next;
            if f >= prev_f {
                break;
            }
            prev_f = f;
        }
        lo = lo - (hi - lo);
    }
    let (mut a, mut b) = (lo.min(hi), lo.max(hi));
    // Along integer coordinates, sections narrower than one step round to points already
    // tried.
    let narrowest = if ev.step_scale(x, dir).1 { 1.0 } else { 0.0 };
    for _ in 0..config.line_iters {
        let c = b - GOLDEN * (b - a);
        let d = a + GOLDEN * (b - a);
        if !(a < c && c < d && d < b) || b - a < narrowest {
            break;
        }
        let fc = at(ev, c)?;
        let fd = at(ev, d)?;
        consider(c, fc, &mut best_t, &mut best_f);
        consider(d, fd, &mut best_t, &mut best_f);
        if fc < fd {
            b = d;
        } else {
            a = c;
        }
    }
    for (xi, d) in x.iter_mut().zip(dir) {
        *xi += best_t * d;
    }
    Ok(best_f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Limits;
    use crate::space::Space;
    use crate::stop::Stop;

    #[test]
    fn finds_the_minimum_of_a_shifted_quadratic() {
        let f = |x: &[f64]| (x[0] - 3.0).powi(2) + 10.0 * (x[1] + 1.5).powi(2) + 1.0;
        let mut ev = Evaluator::new(f, Space::Real, Limits::default());
        let (x, fx) = powell(&mut ev, &[0.0, 0.0], &PowellConfig::default()).unwrap();
        assert!(
            (x[0] - 3.0).abs() < 1e-5 && (x[1] + 1.5).abs() < 1e-5,
            "{x:?}"
        );
        assert!((fx - 1.0).abs() < 1e-9);
    }

    #[test]
    fn reaches_a_zero_of_a_branch_distance() {
        // Distance to taking `if (x * y > 100 && x < 2)`.
        let f = |x: &[f64]| (100.0 - x[0] * x[1]).max(0.0) + (x[0] - 2.0).max(0.0);
        let mut ev = Evaluator::new(f, Space::Real, Limits::default().with_target(0.0));
        let result = powell(&mut ev, &[0.5, 0.5], &PowellConfig::default());
        assert_eq!(result.unwrap_err(), Halt(Stop::TargetsReached));
        let out = ev.finish(Err(Halt(Stop::TargetsReached)));
        assert!(out.best_input[0] * out.best_input[1] >= 100.0 && out.best_input[0] <= 2.0);
    }

    #[test]
    fn an_integer_order_is_stepped_on_its_own_scale() {
        // An order n that must be 6 beside a double near 1e300: sized on the double, the
        // first step along n would be 1e299.
        let evaluated = std::cell::RefCell::new(Vec::new());
        let f = |x: &[f64]| {
            let n = x[0].round();
            evaluated.borrow_mut().push(n);
            (n - 6.0).abs() + (x[1] - 1e300).abs() / 1e300
        };
        let budget = Limits::default().with_target(0.0).with_eval_limit(400);
        let mut ev =
            Evaluator::new(f, Space::Real, budget).with_integer_coordinates(vec![true, false]);
        let result = powell(&mut ev, &[0.0, 1e300], &PowellConfig::default());
        assert_eq!(result.unwrap_err(), Halt(Stop::TargetsReached));
        assert!(
            evaluated.borrow().iter().all(|n| n.abs() < 100.0),
            "{evaluated:?}"
        );
    }
}
