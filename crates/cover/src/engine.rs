//! The search loop (CoverMe, Fu & Su, PLDI'17, Sec. 4): minimize the
//! representing function `FOO_R` by basinhopping from `n_start` starting points until
//! every included side is covered or the budget is spent.
//!
//! The search begins by evaluating points made of special values (zeros, ones,
//! infinities, NaN, the extreme normals and subnormals), which take the special-case
//! branches of libm-style code at once. Each start then picks its space in turn from
//! [`CoverConfig::spaces`] (a start holding an infinity or a NaN searches in ordered
//! bits, where it can move), seeds a ChaCha8 generator with the run's seed on stream
//! `start`, and runs basinhopping with target 0. A start whose basinhopping converges
//! without a zero is finished by the alternating variable method in exact ulp steps
//! ([`fpforge_search::avm()`]), which lands on equalities a line search stops short of.
//!
//! Inside the objective, every run whose sides include an uncovered one is re-executed
//! with a fresh [`BranchTrace`] interpreter; the sides of that re-run that were not
//! covered become covered with the input as their witness test (incidental coverage
//! counts), saturation is updated, and the objective returns 0, which ends the start.
//! The next start then continues from that witness, since inputs that reach a new side
//! are close to the sides behind it. A zero `r` that covered nothing new (the run
//! trapped, or ended inside a callee) counts as 1 so it cannot end a search.
//!
//! With [`CoverConfig::targeted`] every other start aims at one uncovered side whose
//! branch a test already reaches (the frontier, round robin): it starts from the test
//! closest to taking that side and minimizes the smallest distance to taking the side over the run (a run that
//! misses the branch scores above any distance). CoverMe's `r` is 0 at every branch with
//! two unsaturated sides, so it says nothing about a side whose sibling leads to work
//! too; the targeted objective does. New coverage still ends the search with 0.
//!
//! With [`CoverConfig::levels`] the objective ranks runs first by how many unsaturated
//! sides they take (like the approach level of search-based testing) and then by `r`:
//! CoverMe compares branch distances measured at different branches, so a run that went
//! deeper but ended far from its last branch could lose to a shallow run.

use crate::config::{CoverConfig, Metric};
use crate::error::CoverError;
use crate::inputs::{InputPlan, Test};
use crate::report::{CoverReport, CoverStop, SideReport, SideStatus};
use crate::represent::{Penalty, SiteShapes};
use crate::sides::{Side, SideTable};
use fpforge_exec::{BranchTrace, Concrete, ExecConfig, ExecError, Interpreter};
use fpforge_search::{
    avm, basinhopping, AvmConfig, BasinhoppingConfig, Budget, Evaluator, Space, StopReason,
};
use fpir::{Func, Module};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// Something a running search reports, as it happens.
#[derive(Clone, Debug)]
pub enum CoverEvent<'a> {
    /// The search is about to start; these are the included sides, in report order.
    Started {
        /// Every included side.
        sides: &'a [Side],
    },
    /// A new test covered new sides (already confirmed by re-execution).
    Test {
        /// Its index in [`CoverReport::tests`].
        index: usize,
        /// The test.
        test: &'a Test,
        /// The sides it covered first.
        new_sides: &'a [Side],
    },
    /// Periodic progress (at most every [`PROGRESS_EVERY`] during a search, and after
    /// each start).
    Progress {
        /// Covered sides.
        covered: usize,
        /// Included sides.
        total: usize,
        /// Evaluations so far.
        evals: u64,
        /// Time since the start.
        elapsed: Duration,
    },
}

/// Scales `r` so that runs taking more unsaturated sides rank lower whatever their
/// distance: `clamp(r, lo, hi) * (lo / hi)^k` for `k` unsaturated sides taken, so levels
/// occupy disjoint ranges and the scaling (by powers of two) is exact, keeping the full
/// precision of distances within a level. Ulp distances are at least 1: `[1, 2^64]`
/// and 15 levels fit in the exponent range; real distances use `[2^-64, 2^64]` and 7
/// levels. Deeper runs share the last level.
fn leveled(r: f64, open_hits: u32, metric: Metric) -> f64 {
    let (lo_exp, max_level) = match metric {
        Metric::Ulp => (0, 15),
        Metric::Real => (-64, 7),
    };
    let k = open_hits.min(max_level) as i32;
    r.clamp(2f64.powi(lo_exp), 2f64.powi(64)) * 2f64.powi((lo_exp - 64) * k)
}

/// The objective of a targeted search at a run that does not reach the target's branch:
/// above every branch distance.
const UNREACHED: f64 = 1.2e21;

/// The interval between progress reports.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Smallest first step of the local search in ordered-bits coordinates (ulps).
const ORDERED_ABS_STEP: f64 = (1u64 << 20) as f64;

/// Generates tests covering the branches of `func` (see [`CoverConfig`]).
pub fn cover(module: &Module, func: Func, config: &CoverConfig) -> Result<CoverReport, CoverError> {
    cover_with(module, func, config, |_| {})
}

/// [`cover`], calling `on_event` with the included sides, then with each new test and
/// with progress as they happen (so callers can stream results).
pub fn cover_with(
    module: &Module,
    func: Func,
    config: &CoverConfig,
    mut on_event: impl FnMut(&CoverEvent<'_>),
) -> Result<CoverReport, CoverError> {
    if module.funcs.get(func).is_none() {
        return Err(CoverError::UnknownFunc(func));
    }
    let started = Instant::now();
    let funcs = if config.deep {
        module.reachable_funcs(func)
    } else {
        vec![func]
    };
    let table = SideTable::new(module, &funcs);
    let plan = InputPlan::new(module, func, &funcs)?;
    let shapes = SiteShapes::new(module, &table);
    let exec_config = ExecConfig::default().with_fuel(config.fuel);
    let penalty = Penalty::new(&shapes, table.len(), config.metric);
    let interp = Interpreter::new(module, Concrete, penalty, exec_config.clone())?;
    on_event(&CoverEvent::Started {
        sides: &table.sides,
    });
    let mut search = Search {
        module,
        func,
        table: &table,
        plan: &plan,
        interp,
        exec_config,
        covered: vec![false; table.len()],
        witness: vec![None; table.len()],
        covered_count: 0,
        tests: Vec::new(),
        evals: 0,
        started,
        last_progress: started,
        on_event,
        levels: config.levels,
        metric: config.metric,
        error: None,
    };
    let (stop, starts) = search.run(config)?;
    let sides = table
        .sides
        .iter()
        .enumerate()
        .map(|(s, &side)| SideReport {
            side,
            loc: module.branch_sites[side.site].loc,
            status: match search.witness[s] {
                Some(test) => SideStatus::Covered { test },
                None => SideStatus::NotReached,
            },
        })
        .collect();
    Ok(CoverReport {
        func,
        sides,
        tests: search.tests,
        evals: search.evals,
        starts,
        elapsed: started.elapsed(),
        stop,
    })
}

/// The state of one coverage run.
struct Search<'m, 's, E> {
    module: &'m Module,
    func: Func,
    table: &'s SideTable,
    plan: &'s InputPlan,
    interp: Interpreter<'m, Concrete, Penalty<'s>>,
    exec_config: ExecConfig,
    covered: Vec<bool>,
    witness: Vec<Option<usize>>,
    covered_count: usize,
    tests: Vec<Test>,
    evals: u64,
    started: Instant,
    /// When progress was last reported.
    last_progress: Instant,
    on_event: E,
    /// Whether `FOO_R` is ranked by depth first ([`CoverConfig::levels`]).
    levels: bool,
    /// The branch distance metric.
    metric: Metric,
    /// An interpreter error met inside the objective, reported when the start ends.
    error: Option<ExecError>,
}

impl<E: FnMut(&CoverEvent<'_>)> Search<'_, '_, E> {
    /// Runs the starts; returns why it stopped and how many starts ran.
    fn run(&mut self, config: &CoverConfig) -> Result<(CoverStop, u32), CoverError> {
        let deadline = config.time_limit.map(|t| self.started + t);
        let default_spaces = [Space::Real, Space::OrderedBits];
        let spaces: &[Space] = if config.spaces.is_empty() {
            &default_spaces
        } else {
            &config.spaces
        };
        for point in self.plan.special_points() {
            if self.covered_count == self.table.len() {
                return Ok((CoverStop::AllCovered, 0));
            }
            if config.max_evals.is_some_and(|m| self.evals >= m) {
                return Ok((CoverStop::EvalLimit, 0));
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok((CoverStop::TimeLimit, 0));
            }
            self.evaluate(&point);
            if let Some(err) = self.error.take() {
                return Err(err.into());
            }
        }
        if self.plan.dims() == 0 {
            let stop = if self.covered_count == self.table.len() {
                CoverStop::AllCovered
            } else {
                CoverStop::StartsExhausted
            };
            return Ok((stop, 0));
        }
        let mut from_witness: Option<Vec<f64>> = None;
        let mut target_cursor = 0;
        let mut starts = 0;
        while starts < config.n_start {
            if self.covered_count == self.table.len() {
                return Ok((CoverStop::AllCovered, starts));
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok((CoverStop::TimeLimit, starts));
            }
            if config.max_evals.is_some_and(|m| self.evals >= m) {
                return Ok((CoverStop::EvalLimit, starts));
            }
            let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
            rng.set_stream(u64::from(starts));
            let mut space = spaces[starts as usize % spaces.len()];
            let aim = if config.targeted && starts % 2 == 1 && from_witness.is_none() {
                self.next_target(&mut target_cursor)
            } else {
                None
            };
            self.interp.observer_mut().target = aim;
            let point = match aim {
                Some(_) => self.closest_test(),
                None => from_witness
                    .take()
                    .unwrap_or_else(|| self.plan.start(&mut rng)),
            };
            if self.covered_count == self.table.len() {
                self.interp.observer_mut().target = None;
                return Ok((CoverStop::AllCovered, starts));
            }
            if point.iter().any(|v| !v.is_finite()) {
                space = Space::OrderedBits;
            }
            let coords: Vec<f64> = point.iter().map(|&v| space.encode(v)).collect();
            let abs_step = match space {
                Space::Real => 1.0,
                Space::OrderedBits => ORDERED_ABS_STEP,
            };
            let hopping = BasinhoppingConfig::default()
                .with_n_iter(config.n_iter)
                .with_abs_step(abs_step);
            let budget = self.budget(config, deadline);
            let mut ev = Evaluator::new(|x: &[f64]| self.evaluate(x), space, budget);
            let result = basinhopping(&mut ev, &coords, &hopping, &mut rng);
            let mut outcome = ev.finish(result);
            if outcome.reason == StopReason::Converged && config.ulp_refine {
                let budget = self.budget(config, deadline);
                let mut ev = Evaluator::new(|x: &[f64]| self.evaluate(x), Space::Real, budget);
                let result = avm(&mut ev, &outcome.best_input, &AvmConfig::default());
                outcome = ev.finish(result.map(|_| ()));
            }
            self.interp.observer_mut().target = None;
            starts += 1;
            if let Some(err) = self.error.take() {
                return Err(err.into());
            }
            self.progress();
            match outcome.reason {
                StopReason::TargetReached => from_witness = Some(outcome.best_input),
                StopReason::EvalLimit => return Ok((CoverStop::EvalLimit, starts)),
                StopReason::TimeLimit => return Ok((CoverStop::TimeLimit, starts)),
                StopReason::Converged => {}
            }
        }
        let stop = if self.covered_count == self.table.len() {
            CoverStop::AllCovered
        } else {
            CoverStop::StartsExhausted
        };
        Ok((stop, starts))
    }

    /// The next uncovered side (round robin from `cursor`) whose branch some test
    /// reaches: the target of a targeted search.
    fn next_target(&self, cursor: &mut usize) -> Option<u32> {
        let n = self.table.len();
        let s = (0..n).map(|step| (*cursor + step) % n).find(|&s| {
            !self.covered[s]
                && self
                    .table
                    .siblings(s as u32)
                    .any(|t| self.covered[t as usize])
        })?;
        *cursor = s + 1;
        Some(s as u32)
    }

    /// The point of the test closest to the current target (each test is run once).
    fn closest_test(&mut self) -> Vec<f64> {
        let points: Vec<Vec<f64>> = self.tests.iter().map(|t| self.plan.encode(t)).collect();
        let mut best: Option<(f64, Vec<f64>)> = None;
        for point in points {
            let d = self.evaluate(&point);
            if best.as_ref().is_none_or(|(b, _)| d < *b) {
                best = Some((d, point));
            }
        }
        best.map_or_else(|| vec![0.0; self.plan.dims()], |(_, p)| p)
    }

    /// The budget of one search: what is left of the run's evaluations, its deadline,
    /// and target 0.
    fn budget(&self, config: &CoverConfig, deadline: Option<Instant>) -> Budget {
        let mut budget = Budget::default().with_target(0.0);
        if let Some(m) = config.max_evals {
            budget = budget.with_eval_limit(m.saturating_sub(self.evals));
        }
        if let Some(d) = deadline {
            budget = budget.with_deadline(d);
        }
        budget
    }

    /// `FOO_R` at `point`, recording any new coverage.
    fn evaluate(&mut self, point: &[f64]) -> f64 {
        if self.error.is_some() {
            return f64::INFINITY;
        }
        let test = self.plan.decode(point);
        self.interp.observer_mut().begin();
        if let Err(err) = self.interp.call(self.func, &test.to_args()) {
            self.error = Some(err);
            return f64::INFINITY;
        }
        self.evals += 1;
        if self.last_progress.elapsed() >= PROGRESS_EVERY {
            self.progress();
        }
        let observer = self.interp.observer();
        let r = observer.r;
        let open_hits = observer.open_hits;
        let aimed = observer.target.map(|_| observer.target_distance);
        let candidate = observer.hits.iter().any(|&s| !self.covered[s as usize]);
        if candidate {
            match self.confirm(test) {
                Ok(true) => return 0.0,
                Ok(false) => {}
                Err(err) => {
                    self.error = Some(err);
                    return f64::INFINITY;
                }
            }
        }
        if let Some(d) = aimed {
            return d.min(UNREACHED);
        }
        let r = if r == 0.0 { 1.0 } else { r };
        if self.levels {
            leveled(r, open_hits, self.metric)
        } else {
            r
        }
    }

    /// Re-executes `test` with a fresh tracing interpreter; records it if the re-run
    /// covers new sides. Returns whether it did.
    fn confirm(&mut self, test: Test) -> Result<bool, ExecError> {
        let mut tracer = Interpreter::new(
            self.module,
            Concrete,
            BranchTrace::default(),
            self.exec_config.clone(),
        )?;
        tracer.call(self.func, &test.to_args())?;
        let mut new: Vec<u32> = tracer
            .observer()
            .events
            .iter()
            .filter_map(|&(site, outcome)| self.table.side_of(self.module, site, outcome))
            .filter(|&s| !self.covered[s as usize])
            .collect();
        new.sort_unstable();
        new.dedup();
        if new.is_empty() {
            return Ok(false);
        }
        let index = self.tests.len();
        for &s in &new {
            self.covered[s as usize] = true;
            self.witness[s as usize] = Some(index);
        }
        self.covered_count += new.len();
        self.table
            .saturate(&self.covered, &mut self.interp.observer_mut().saturated);
        self.tests.push(test);
        let new_sides: Vec<Side> = new.iter().map(|&s| self.table.sides[s as usize]).collect();
        (self.on_event)(&CoverEvent::Test {
            index,
            test: &self.tests[index],
            new_sides: &new_sides,
        });
        Ok(true)
    }

    fn progress(&mut self) {
        self.last_progress = Instant::now();
        (self.on_event)(&CoverEvent::Progress {
            covered: self.covered_count,
            total: self.table.len(),
            evals: self.evals,
            elapsed: self.started.elapsed(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeper_runs_rank_lower_whatever_their_distance() {
        for metric in [Metric::Ulp, Metric::Real] {
            assert!(leveled(1.8e19, 2, metric) < leveled(1.0, 1, metric));
            assert!(leveled(1.0, 1, metric) < leveled(2.0, 1, metric));
            assert!(leveled(5e-324, 0, metric) > 0.0);
            assert!(leveled(1.0, 40, metric) > 0.0);
            assert!(leveled(1.8e19, 40, metric).is_normal());
            assert_eq!(leveled(3.0, 1, metric) / leveled(2.0, 1, metric), 1.5);
        }
        assert!(leveled(1e-10, 1, Metric::Real) < leveled(1e-9, 1, Metric::Real));
    }
}
