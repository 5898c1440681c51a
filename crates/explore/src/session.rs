//! The machinery `reach` and `explore` share: one concolic interpreter over one entry
//! function, queries to the solver built from path entries, and concrete confirmation
//! of every input before it is reported.

use crate::concolic::{bits_value, value_bits, CallPolicy, Concolic, PathEntry};
use crate::error::ExploreError;
use crate::libm_facts::{subterms, LibmFacts};
use fpforge_engine::settings::seconds;
use fpforge_engine::Settings;
use fpforge_exec::{
    BranchTrace, Concrete, ExecConfig, Interpreter, NoObserver, Outcome, Trap, TrapKind,
};
use fpforge_search::Clock;
use fpforge_solve::{Answer, Model, Op, SolveConfig, Solver, Sort, Strategy, TermId, TermStore};
use fpforge_spec::InputSpec;
use fpir::{FloatTy, Func, Module, OpenReason, Side, Type};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Settings shared by `reach` and `explore`.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Limit of each solver query. Default: 1 s.
    pub query_timeout: Duration,
    /// Solver engine for queries. Default: [`Strategy::Portfolio`].
    pub strategy: Strategy,
    /// Seed of the solver and of random restarts. Default: 0.
    pub seed: u64,
    /// What math calls become. Default: [`CallPolicy::Symbolic`].
    pub calls: CallPolicy,
    /// Interpreter limits of each run. Default: fuel 1 000 000 ops (a concolic run
    /// builds terms at every step, so long loops are cut short and reported as traps),
    /// otherwise [`ExecConfig::default`].
    pub exec: ExecConfig,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            query_timeout: Duration::from_secs(1),
            strategy: Strategy::Portfolio,
            seed: 0,
            calls: CallPolicy::Symbolic,
            exec: ExecConfig::default().with_fuel(1_000_000),
        }
    }
}

impl EngineConfig {
    /// Sets [`EngineConfig::query_timeout`].
    pub fn with_query_timeout(mut self, t: Duration) -> Self {
        self.query_timeout = t;
        self
    }
    /// Sets [`EngineConfig::strategy`].
    pub fn with_strategy(mut self, s: Strategy) -> Self {
        self.strategy = s;
        self
    }
    /// Sets [`EngineConfig::seed`].
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Sets [`EngineConfig::calls`].
    pub fn with_calls(mut self, calls: CallPolicy) -> Self {
        self.calls = calls;
        self
    }
    /// Sets [`EngineConfig::exec`].
    pub fn with_exec(mut self, exec: ExecConfig) -> Self {
        self.exec = exec;
        self
    }

    /// Every setting that changes what a concolic run finds, by name: part of the
    /// settings of `explore`, `reach` and the prover that serves `cover`.
    pub fn settings(&self) -> Settings {
        let EngineConfig {
            query_timeout,
            strategy,
            seed,
            calls,
            exec,
        } = self;
        Settings::new()
            .with("query_timeout", seconds(*query_timeout))
            .with("strategy", strategy.name())
            .with("seed", seed)
            .with(
                "calls",
                match calls {
                    CallPolicy::Symbolic => "symbolic",
                    CallPolicy::Concretize => "concretize",
                    CallPolicy::Uninterpreted => "uninterpreted",
                },
            )
            .with_group("exec", exec.named_settings().into_iter().collect())
    }
}

/// How a concolic run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The function returned, or a C++ exception escaped it (an outcome, not a fault).
    Returned,
    /// The program trapped.
    Trapped(TrapKind),
}

/// One concolic run.
#[derive(Clone, Debug)]
pub struct ConcolicRun {
    /// The coordinate bits of the input.
    pub input: Vec<u64>,
    /// The path condition, one entry per executed branch or switch.
    pub path: Vec<PathEntry>,
    /// Entries before the first concretization (`path.len()` when none).
    pub exact_prefix: usize,
    /// What the first concretization was (where the exact prefix ends): a math call's
    /// result, or another value without a term.
    pub cut: OpenReason,
    /// How it ended.
    pub end: RunEnd,
}

impl ConcolicRun {
    /// The decisions of the run.
    pub fn decisions(&self) -> Vec<Side> {
        self.path.iter().map(|e| e.side).collect()
    }
}

/// What a concrete run of an input did.
#[derive(Clone, Debug)]
pub struct ConcreteRun {
    /// Its decisions, in order.
    pub sides: Vec<Side>,
    /// Its trap, when it ended in one.
    pub trap: Option<Trap>,
}

/// The answer to one query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryAnswer {
    /// A model, as the next input's coordinate bits.
    Sat(Vec<u64>),
    /// Proved unsatisfiable, by the engine named.
    Unsat(UnsatBy),
    /// Neither within the query limit.
    Unknown,
}

/// Which of the solver's complete engines proved a query unsatisfiable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsatBy {
    /// Interval propagation and labeling.
    Intervals,
    /// The bit-precise backend (floating point bit-blasted to SAT).
    BitPrecise,
}

/// Counters of the solver queries of a search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryStats {
    /// Queries sent.
    pub queries: u64,
    /// Answered sat.
    pub sat: u64,
    /// Answered unsat.
    pub unsat: u64,
    /// Answered unknown.
    pub unknown: u64,
}

/// One entry function under concolic execution.
pub struct Session<'m> {
    module: &'m Module,
    func: Func,
    spec: InputSpec,
    interp: Interpreter<'m, Concolic, NoObserver>,
    confirm: Interpreter<'m, Concrete, BranchTrace>,
    config: EngineConfig,
    /// The run's budget being spent (the deadline and interrupt of every step).
    clock: Clock,
    /// Range constraints per coordinate.
    ranges: Vec<Option<TermId>>,
    /// Math applications abstracted so far for the bit-precise backend.
    libm: LibmFacts,
    rng: ChaCha8Rng,
    start: Instant,
    /// Query counters.
    pub stats: QueryStats,
    /// Concolic runs made.
    pub runs: u64,
}

impl<'m> Session<'m> {
    /// A session for `func` with inputs `spec`, within the run's budget `clock`.
    pub fn new(
        module: &'m Module,
        func: Func,
        spec: InputSpec,
        config: EngineConfig,
        clock: Clock,
    ) -> Result<Session<'m>, ExploreError> {
        let start = Instant::now();
        let mut sem = Concolic::new(module, &spec, config.calls);
        let ranges = range_constraints(&spec, &mut sem);
        // A concolic run of a long loop can take seconds: it ends with the session.
        let concolic = config.exec.clone().with_deadline(clock.deadline());
        let interp = Interpreter::new(module, sem, NoObserver, concolic)?;
        let confirm = Interpreter::new(
            module,
            Concrete,
            BranchTrace::default(),
            config.exec.clone(),
        )?;
        use rand::SeedableRng;
        Ok(Session {
            module,
            func,
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            spec,
            interp,
            confirm,
            config,
            clock,
            ranges,
            libm: LibmFacts::default(),
            start,
            stats: QueryStats::default(),
            runs: 0,
        })
    }

    /// The module.
    pub fn module(&self) -> &'m Module {
        self.module
    }

    /// The input spec.
    pub fn spec(&self) -> &InputSpec {
        &self.spec
    }

    /// The configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The term store of the path conditions.
    pub fn store(&self) -> &TermStore {
        self.interp.semantics().store()
    }

    /// The concolic semantics (to build constraints).
    pub fn semantics_mut(&mut self) -> &mut Concolic {
        self.interp.semantics_mut()
    }

    /// Time since the session started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The run's budget being spent.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// True once the time limit has passed.
    pub fn out_of_time(&self) -> bool {
        self.clock.out_of_time()
    }

    /// Whether the caller asked the search to stop (the budget's interrupt).
    pub fn interrupted(&self) -> bool {
        self.clock.interrupted()
    }

    /// The first input: every coordinate zero, or the range's point nearest zero.
    pub fn seed_input(&self) -> Vec<u64> {
        self.spec
            .coords()
            .iter()
            .map(|c| {
                let x = c.range.map_or(0.0, |r| 0f64.clamp(r.lo, r.hi));
                number_bits(c.ty, x)
            })
            .collect()
    }

    /// A random input (within the ranges): small numbers, wide magnitudes, and for
    /// unranged floats random bit patterns.
    pub fn random_input(&mut self) -> Vec<u64> {
        let coords = self.spec.coords().to_vec();
        coords
            .iter()
            .map(|c| {
                let x = match c.range {
                    Some(r) => self.rng.gen_range(r.lo..=r.hi),
                    None => match self.rng.gen_range(0..3) {
                        0 => self.rng.gen_range(-10.0..10.0),
                        1 => self.rng.gen_range(-1e6..1e6),
                        _ => {
                            let e: i32 = self.rng.gen_range(-60..60);
                            self.rng.gen_range(-1.0..1.0) * 2f64.powi(e)
                        }
                    },
                };
                number_bits(c.ty, x)
            })
            .collect()
    }

    /// Runs the function concolically on `input`.
    pub fn run(&mut self, input: &[u64]) -> Result<ConcolicRun, ExploreError> {
        self.runs += 1;
        let args = self.spec.to_args(input);
        let run = self.interp.call(self.func, &args)?;
        let sem = self.interp.semantics();
        let path = sem.path().to_vec();
        Ok(ConcolicRun {
            input: input.to_vec(),
            exact_prefix: sem.exact_prefix().unwrap_or(path.len()),
            cut: if sem.cut_by_math_call() {
                OpenReason::LibmCall
            } else {
                OpenReason::Unsupported
            },
            path,
            end: match run.outcome {
                Outcome::Returned(_) | Outcome::Threw(_) => RunEnd::Returned,
                Outcome::Trapped(t) => RunEnd::Trapped(t.kind),
            },
        })
    }

    /// A concrete run on `input` (the evidence behind every answer): its decisions, and
    /// its trap when it ended in one.
    pub fn concrete_run(&mut self, input: &[u64]) -> Result<ConcreteRun, ExploreError> {
        let args = self.spec.to_args(input);
        self.confirm.observer_mut().clear();
        let run = self.confirm.call(self.func, &args)?;
        Ok(ConcreteRun {
            sides: self.confirm.observer().events.clone(),
            trap: match run.outcome {
                Outcome::Trapped(trap) => Some(trap),
                Outcome::Returned(_) | Outcome::Threw(_) => None,
            },
        })
    }

    /// Decides the conjunction of `constraints` (plus the ranges of the variables they
    /// use). Variables the query does not mention keep their value in `current`.
    ///
    /// The query's time limit is the configured one times `eighths / 8` (a first cheap
    /// attempt, longer retries of unknown queries), within the time left. A query with
    /// math functions that comes back unknown goes once more, for as long, to the
    /// bit-precise backend with the functions' results abstracted ([`LibmFacts`]): its
    /// `unsat` is a proof, its model counts once the original query holds on it.
    pub fn solve(&mut self, constraints: &[TermId], current: &[u64], eighths: u32) -> QueryAnswer {
        let share = (self.config.query_timeout / 8).saturating_mul(eighths.max(1));
        let query = self.with_ranges(constraints);
        self.stats.queries += 1;
        let cfg = SolveConfig::default()
            .with_timeout(self.within_time_left(share))
            .with_strategy(self.config.strategy)
            .with_seed(self.config.seed);
        let (mut answer, mut by) = self.check(&query, cfg.clone());
        if matches!(answer, Answer::Unknown) && self.uses_extension(&query) {
            let cfg = cfg.with_timeout(self.within_time_left(share));
            (answer, by) = self.check_abstracted(&query, cfg);
        }
        match answer {
            Answer::Sat(model) => {
                self.stats.sat += 1;
                QueryAnswer::Sat(self.input_of(&query, &model, current))
            }
            Answer::Unsat => {
                self.stats.unsat += 1;
                QueryAnswer::Unsat(by)
            }
            Answer::Unknown => {
                self.stats.unknown += 1;
                QueryAnswer::Unknown
            }
        }
    }

    /// `share`, cut to the session's time left (at least a millisecond).
    fn within_time_left(&self, share: Duration) -> Duration {
        share
            .min(self.clock.time_left().unwrap_or(share))
            .max(Duration::from_millis(1))
    }

    /// One check of `query`, and which complete engine answered when it is `unsat`.
    fn check(&self, query: &[TermId], cfg: SolveConfig) -> (Answer, UnsatBy) {
        let store = self.interp.semantics().store();
        let mut solver = Solver::new(store, cfg);
        let answer = solver.check(query);
        let by = if solver.stats().method() == Some(Strategy::BitPrecise.name()) {
            UnsatBy::BitPrecise
        } else {
            UnsatBy::Intervals
        };
        (answer, by)
    }

    /// `query` with its math results abstracted, to the bit-precise backend alone; a
    /// model counts only when it satisfies `query` itself.
    fn check_abstracted(&mut self, query: &[TermId], cfg: SolveConfig) -> (Answer, UnsatBy) {
        let store = self.interp.semantics_mut().store_mut();
        let Some(weaker) = self.libm.abstract_query(store, query) else {
            return (Answer::Unknown, UnsatBy::BitPrecise);
        };
        let store = self.interp.semantics().store();
        let answer = Solver::new(store, cfg.with_strategy(Strategy::BitPrecise)).check(&weaker);
        match answer {
            Answer::Sat(model) if !fpforge_solve::check_model(store, query, &model) => {
                (Answer::Unknown, UnsatBy::BitPrecise)
            }
            answer => (answer, UnsatBy::BitPrecise),
        }
    }

    /// The input a model of `query` gives: its values for the coordinates `query` uses,
    /// `current`'s for the others.
    fn input_of(&self, query: &[TermId], model: &Model, current: &[u64]) -> Vec<u64> {
        let store = self.interp.semantics().store();
        let used = vars_in(store, query);
        let vars = self.interp.semantics().vars();
        let mut next = current.to_vec();
        for (i, &(term, ty)) in vars.iter().enumerate() {
            if !used.contains(&term) {
                continue;
            }
            if let (Some(slot), Some(v)) = (next.get_mut(i), model.values.get(i)) {
                *slot = value_bits(v) & ty.mask();
            }
        }
        next
    }

    /// Whether `constraints` use a math function the solver has only as an extension
    /// operator (`exp log atan sin cos tan`), which the bit-precise backend cannot take.
    pub fn uses_extension(&self, constraints: &[TermId]) -> bool {
        let store = self.interp.semantics().store();
        subterms(store, constraints)
            .into_iter()
            .any(|t| matches!(store.get(t).op, Op::Ext(_)))
    }

    /// `constraints` plus the range constraints of the variables they use.
    pub fn with_ranges(&self, constraints: &[TermId]) -> Vec<TermId> {
        let store = self.interp.semantics().store();
        let used = vars_in(store, constraints);
        let vars = self.interp.semantics().vars();
        let mut query = constraints.to_vec();
        for (i, &(term, _)) in vars.iter().enumerate() {
            if let Some(r) = self.ranges.get(i).copied().flatten() {
                if used.contains(&term) {
                    query.push(r);
                }
            }
        }
        query
    }

    /// The model value of coordinate bits, for printing.
    pub fn coord_values(&self, input: &[u64]) -> Vec<fpforge_solve::eval::Value> {
        self.spec
            .coords()
            .iter()
            .zip(input)
            .map(|(c, &b)| bits_value(c.ty, b))
            .collect()
    }
}

/// The variable terms used by `roots`.
pub fn vars_in(store: &TermStore, roots: &[TermId]) -> HashSet<TermId> {
    subterms(store, roots)
        .into_iter()
        .filter(|&t| matches!(store.get(t).op, Op::Var(_)))
        .collect()
}

/// Raw bits of the number `x` as a value of type `ty` (integers rounded and clamped).
pub fn number_bits(ty: Type, x: f64) -> u64 {
    match ty {
        Type::Float(FloatTy::F32) => u64::from((x as f32).to_bits()),
        Type::Float(FloatTy::F64) => x.to_bits(),
        Type::Int(w) => {
            let w = u32::from(w).clamp(1, 64);
            let (lo, hi) = if w == 64 {
                (i64::MIN as f64, i64::MAX as f64)
            } else {
                (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1) - 1.0)
            };
            (x.round().clamp(lo, hi) as i64 as u64) & ty.mask()
        }
        Type::Ptr => 0,
    }
}

/// One range constraint per coordinate that has a range.
fn range_constraints(spec: &InputSpec, sem: &mut Concolic) -> Vec<Option<TermId>> {
    let vars = sem.vars().to_vec();
    let store = sem.store_mut();
    spec.coords()
        .iter()
        .zip(&vars)
        .map(|(c, &(var, ty))| {
            let r = c.range?;
            let (lo, hi) = match (ty, store.sort(var)) {
                (Type::Float(_), _) => {
                    let x = match ty {
                        Type::Float(FloatTy::F32) => {
                            let rne = store.rm_const(fpforge_solve::SmtRounding::Rne);
                            store
                                .mk(Op::FpToFp(fpforge_solve::FpFormat::F64), &[rne, var])
                                .ok()?
                        }
                        _ => var,
                    };
                    let (lo, hi) = (store.f64_const(r.lo), store.f64_const(r.hi));
                    (
                        store.mk(Op::FpGeq, &[x, lo]).ok()?,
                        store.mk(Op::FpLeq, &[x, hi]).ok()?,
                    )
                }
                (Type::Int(_), Sort::BitVec(w)) => {
                    let lo = store.bv_const(number_bits(ty, r.lo.ceil()), w).ok()?;
                    let hi = store.bv_const(number_bits(ty, r.hi.floor()), w).ok()?;
                    (
                        store.mk(Op::BvSge, &[var, lo]).ok()?,
                        store.mk(Op::BvSle, &[var, hi]).ok()?,
                    )
                }
                _ => return None,
            };
            store.mk(Op::And, &[lo, hi]).ok()
        })
        .collect()
}
