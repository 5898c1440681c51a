//! The solver core: one [`Solver`] runs the configured engines on a set of
//! assertions and answers with evidence.
//!
//! The portfolio first propagates at the root (a conflict there is `unsat`;
//! the narrowed float ranges seed the search), then interleaves rounds of
//! AVM, ES (cycling through recombination and mutation variants), random
//! search, labeling and, from the seventh round on, the bit-precise backend
//! ([`crate::bitblast`]) in work budgets (evaluations, labeling nodes, SAT
//! conflicts) that double each round (AVM, labeling and the SAT solver resume
//! where they stopped), all under one deadline. Within a round the engines'
//! results are taken in that fixed order, the backend's last; the first definite
//! one wins. The schedule is one of work, never of time, so the same query and
//! seed give the same answer, model and method whatever the load, unless the
//! deadline cuts the run short.
//!
//! With [`SolveConfig::jobs`] at 2 or more, the backend takes its turns on a
//! thread of its own from its first turn on, running ahead of the other engines; the
//! portfolio waits for the backend's turn of a round only once that round's other
//! engines have found nothing, and stops the thread when it answers. The turns and
//! their order are those of one thread, so so is the answer: `--jobs` changes the
//! time taken only.
//!
//! Queries on a store with a float of any other format than binary32 and
//! binary64 go to the bit-precise backend alone, whatever the configured
//! strategy: the other engines work in the host's formats.
//!
//! `sat` is reported only with a model the exact evaluator accepts (after a
//! bit-precise model it rejects, possible where SMT-LIB leaves a result open, the
//! backend looks only for models without open results, and retires when there are
//! none); `unsat` comes from root propagation or exhausted
//! labeling, or from the bit-precise backend, whose proof is cross-checked by
//! labeling on the same round's budget: a model labeling finds then makes the
//! answer `unknown`, never a wrong one. [`Stats::method`] says which method
//! decided.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bitblast::{Blast, GaveUp, Verdict};
use crate::eval::{satisfying_choice, Model};
use crate::interval::labeling::{LabelOutcome, Labeling};
use crate::interval::propagate::Doms;
use crate::interval::{Dom, FDom};
use crate::search::avm::Avm;
use crate::search::es::{Es, Mutation, Recombination};
use crate::search::random::RandomSearch;
use crate::search::{run_engine, Objective, SearchEngine};
use crate::sort::Sort;
use crate::term::{TermId, TermStore};
use crate::{SolveConfig, Strategy};
use fpforge_search::Stop;

/// The answer to a check.
#[derive(Clone, Debug)]
pub enum Answer {
    /// A model accepted by the exact evaluator.
    Sat(Model),
    /// Proved by exhausted interval labeling.
    Unsat,
    /// No answer within the limits.
    Unknown,
}

/// Counters and timings of one or more checks.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// `check` calls.
    pub checks: u64,
    /// Fitness evaluations by the search engines.
    pub evals: u64,
    /// Constraint revisions (projection applications) by propagation.
    pub propagations: u64,
    /// Labeling nodes.
    pub nodes: u64,
    /// Labeling nodes that failed.
    pub conflicts: u64,
    /// Time spent in search engines.
    pub search_time: Duration,
    /// Time spent in propagation and labeling.
    pub interval_time: Duration,
    /// Time spent building circuits and in the SAT solver.
    pub bitblast_time: Duration,
    /// Bit-precise `unsat` answers that labeling contradicted with a checked model
    /// (a bug in a circuit; the check answered `unknown`).
    pub disagreements: u64,
    /// Which engine answered the last check.
    pub winner: Option<&'static str>,
}

impl Stats {
    /// Adds another run's counters to these.
    pub fn absorb(&mut self, o: &Stats) {
        self.checks += o.checks;
        self.evals += o.evals;
        self.propagations += o.propagations;
        self.nodes += o.nodes;
        self.conflicts += o.conflicts;
        self.search_time += o.search_time;
        self.interval_time += o.interval_time;
        self.bitblast_time += o.bitblast_time;
        self.disagreements += o.disagreements;
        if o.winner.is_some() {
            self.winner = o.winner;
        }
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "checks        {}", self.checks)?;
        writeln!(f, "evaluations   {}", self.evals)?;
        writeln!(f, "propagations  {}", self.propagations)?;
        writeln!(f, "nodes         {}", self.nodes)?;
        writeln!(f, "conflicts     {}", self.conflicts)?;
        writeln!(f, "search time   {:.3}s", self.search_time.as_secs_f64())?;
        writeln!(f, "interval time {:.3}s", self.interval_time.as_secs_f64())?;
        writeln!(f, "bitblast time {:.3}s", self.bitblast_time.as_secs_f64())?;
        writeln!(f, "answered by   {}", self.winner.unwrap_or("-"))
    }
}

impl Stats {
    /// The method that decided the last check: `intervals` (root propagation or
    /// labeling), `search` (AVM, ES, random) or `bit-precise`.
    pub fn method(&self) -> Option<&'static str> {
        self.winner.map(|w| match w {
            "interval" => "intervals",
            BIT_PRECISE => BIT_PRECISE,
            _ => "search",
        })
    }
}

/// The engine name of the bit-precise backend.
const BIT_PRECISE: &str = "bit-precise";

/// A solver over terms of one store.
pub struct Solver<'s> {
    store: &'s TermStore,
    config: SolveConfig,
    stats: Stats,
}

const RECOMBINATIONS: [Recombination; 4] = [
    Recombination::Discrete,
    Recombination::GlobalDiscrete,
    Recombination::Intermediate,
    Recombination::GlobalIntermediate,
];

impl<'s> Solver<'s> {
    /// A solver with the given configuration.
    pub fn new(store: &'s TermStore, config: SolveConfig) -> Solver<'s> {
        Solver {
            store,
            config,
            stats: Stats::default(),
        }
    }

    /// Statistics accumulated over all checks.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Decides the conjunction of `assertions` (Boolean terms of the store).
    pub fn check(&mut self, assertions: &[TermId]) -> Answer {
        self.stats.checks += 1;
        let deadline = Instant::now() + self.config.timeout;
        // The interval domain and search know binary32 and binary64 only.
        let strategy = if host_formats_only(self.store) {
            self.config.strategy
        } else {
            Strategy::BitPrecise
        };
        let answer = match strategy {
            Strategy::Interval => self.interval_only(assertions, deadline),
            Strategy::Avm | Strategy::Es | Strategy::Random => {
                let seed = self.config.seed;
                let mut engine: Box<dyn SearchEngine> = match self.config.strategy {
                    Strategy::Avm => Box::new(Avm::new(seed)),
                    Strategy::Es => {
                        Box::new(Es::new(seed, Recombination::Discrete, Mutation::MultiSigma))
                    }
                    _ => Box::new(RandomSearch::new(seed)),
                };
                let mut obj = Objective::new(self.store, assertions, self.config.fitness);
                let name = self.config.strategy.name();
                self.search(&mut obj, engine.as_mut(), u64::MAX, deadline, name)
                    .map_or(Answer::Unknown, Answer::Sat)
            }
            Strategy::BitPrecise => {
                let mut blast = Blast::new(self.store, assertions);
                loop {
                    match self.bit_precise(&mut blast, assertions, u64::MAX, deadline) {
                        Verdict::Sat(m) => break Answer::Sat(m),
                        Verdict::Unsat => break Answer::Unsat,
                        Verdict::Unknown(GaveUp::Timeout) if Instant::now() < deadline => {}
                        Verdict::Unknown(_) => break Answer::Unknown,
                    }
                }
            }
            Strategy::Portfolio => self.portfolio(assertions, deadline),
        };
        if let Answer::Sat(mut m) = answer {
            // Evidence: never report a model the evaluator rejects.
            let Some(choice) = satisfying_choice(self.store, assertions, &m) else {
                self.stats.winner = None;
                return Answer::Unknown;
            };
            m.zero_choice = choice;
            return Answer::Sat(m);
        }
        answer
    }

    fn search(
        &mut self,
        obj: &mut Objective<'_>,
        engine: &mut dyn SearchEngine,
        evals: u64,
        deadline: Instant,
        name: &'static str,
    ) -> Option<Model> {
        let start = Instant::now();
        let before = obj.evals;
        let reason = run_engine(engine, obj, evals, deadline);
        self.stats.evals += obj.evals - before;
        self.stats.search_time += start.elapsed();
        if reason == Stop::TargetsReached {
            self.stats.winner = Some(name);
            return obj.solution.clone();
        }
        None
    }

    fn label(&mut self, lab: &mut Labeling<'_>, nodes: u64, deadline: Instant) -> LabelOutcome {
        let start = Instant::now();
        let (n0, c0, r0) = (lab.nodes, lab.conflicts, lab.revisions());
        let out = lab.search(nodes, deadline);
        self.stats.nodes += lab.nodes - n0;
        self.stats.conflicts += lab.conflicts - c0;
        self.stats.propagations += lab.revisions() - r0;
        self.stats.interval_time += start.elapsed();
        if !matches!(out, LabelOutcome::Unknown) {
            self.stats.winner = Some("interval");
        }
        out
    }

    /// Runs the bit-precise backend on `conflicts` more conflicts (see [`run_backend`]).
    fn bit_precise(
        &mut self,
        blast: &mut Blast<'_>,
        assertions: &[TermId],
        conflicts: u64,
        deadline: Instant,
    ) -> Verdict {
        let start = Instant::now();
        let verdict = run_backend(self.store, assertions, blast, conflicts, deadline);
        self.stats.bitblast_time += start.elapsed();
        if matches!(verdict, Verdict::Sat(_) | Verdict::Unsat) {
            self.stats.winner = Some(BIT_PRECISE);
        }
        verdict
    }

    /// Cross-checks a bit-precise `unsat` by labeling on `nodes` more nodes: a
    /// model labeling finds that the evaluator accepts refutes the proof.
    fn confirm_unsat(
        &mut self,
        lab: &mut Labeling<'_>,
        assertions: &[TermId],
        nodes: u64,
        deadline: Instant,
    ) -> Answer {
        if let LabelOutcome::Sat(m) = self.label(lab, nodes, deadline) {
            if satisfying_choice(self.store, assertions, &m).is_some() {
                self.stats.disagreements += 1;
                self.stats.winner = None;
                return Answer::Unknown;
            }
        }
        self.stats.winner = Some(BIT_PRECISE);
        Answer::Unsat
    }

    fn new_labeling<'t>(&self, store: &'t TermStore, assertions: &[TermId]) -> Labeling<'t> {
        Labeling::new(
            store,
            assertions,
            self.config.direct_epsilon,
            self.config.indirect_epsilon,
            self.config.var_order,
        )
    }

    fn root(&mut self, lab: &mut Labeling<'_>) -> Option<Doms> {
        let start = Instant::now();
        let r0 = lab.revisions();
        let root = lab.root();
        self.stats.propagations += lab.revisions() - r0;
        self.stats.interval_time += start.elapsed();
        if root.is_none() {
            self.stats.winner = Some("interval");
        }
        root
    }

    fn interval_only(&mut self, assertions: &[TermId], deadline: Instant) -> Answer {
        let store = self.store;
        let mut lab = self.new_labeling(store, assertions);
        if self.root(&mut lab).is_none() {
            return Answer::Unsat;
        }
        match self.label(&mut lab, u64::MAX, deadline) {
            LabelOutcome::Sat(m) => Answer::Sat(m),
            LabelOutcome::Unsat => Answer::Unsat,
            LabelOutcome::Unknown => Answer::Unknown,
        }
    }

    fn portfolio(&mut self, assertions: &[TermId], deadline: Instant) -> Answer {
        let store = self.store;
        let mut lab = self.new_labeling(store, assertions);
        let Some(root) = self.root(&mut lab) else {
            return Answer::Unsat;
        };
        let mut obj = Objective::new(store, assertions, self.config.fitness);
        seed_bounds(store, &mut obj, &root);
        let seed = self.config.seed;
        let mut avm = Avm::new(seed);
        let mut random = RandomSearch::new(seed ^ 0x5eed);
        // Work budgets that double each round, so the schedule (and with it the answer)
        // depends on the seed only, never on timing. Measured on bench/solve: an
        // evaluation costs ~1 us and a labeling node ~70 us, so the first round gives
        // about 1 ms to AVM, 0.5 ms each to ES and random, and 2 ms to labeling.
        let mut backend = if self.config.jobs > 1 {
            Backend::Threaded(None)
        } else {
            Backend::Inline(Box::new(None))
        };
        let mut backend_retired = false;
        let mut round: u32 = 0;
        while Instant::now() < deadline {
            let budget = |base: u64| base.saturating_mul(1u64 << round.min(40));
            if let Some(m) = self.search(&mut obj, &mut avm, budget(1024), deadline, "avm") {
                return Answer::Sat(m);
            }
            let mutation = if round.is_multiple_of(2) {
                Mutation::MultiSigma
            } else {
                Mutation::SingleSigma
            };
            let mut es = Es::new(
                seed.wrapping_add(u64::from(round)),
                RECOMBINATIONS[round as usize % 4],
                mutation,
            );
            if let Some(m) = self.search(&mut obj, &mut es, budget(512), deadline, "es") {
                return Answer::Sat(m);
            }
            if let Some(m) = self.search(&mut obj, &mut random, budget(512), deadline, "random") {
                return Answer::Sat(m);
            }
            match self.label(&mut lab, budget(32), deadline) {
                LabelOutcome::Sat(m) => return Answer::Sat(m),
                LabelOutcome::Unsat => return Answer::Unsat,
                LabelOutcome::Unknown => {}
            }
            if round >= FIRST_BIT_PRECISE_ROUND && !backend_retired {
                let turn = backend.turn(store, assertions, round, deadline);
                self.stats.bitblast_time += turn.time;
                match turn.verdict {
                    Verdict::Sat(m) => {
                        self.stats.winner = Some(BIT_PRECISE);
                        return Answer::Sat(m);
                    }
                    Verdict::Unsat => {
                        return self.confirm_unsat(&mut lab, assertions, budget(32), deadline)
                    }
                    Verdict::Unknown(GaveUp::Timeout) => {}
                    // Models rest on results SMT-LIB leaves open, or an operator has no
                    // circuit: the other engines go on alone.
                    Verdict::Unknown(_) => backend_retired = true,
                }
            }
            round += 1;
        }
        Answer::Unknown
    }
}

/// The round from which the portfolio takes the bit-precise backend's verdicts. The
/// other engines' first six rounds take ~0.3 s and decide FPSE's dichotomic paths;
/// with one thread, turns from the third round on cost the slowest of them their 1 s
/// (the circuits of a path of double multiplications and divisions take longer to
/// build than the other engines take to answer).
const FIRST_BIT_PRECISE_ROUND: u32 = 6;

/// SAT conflicts of the backend's turn in round 0 (its budget doubles each round, as
/// the other engines' do): 2048 in the seventh round, 1-100 us each by the circuits'
/// size.
const BIT_PRECISE_CONFLICTS: u64 = 32;

/// One turn of the bit-precise backend and the time it took.
struct Turn {
    verdict: Verdict,
    time: Duration,
}

/// Where the portfolio's bit-precise turns run.
enum Backend<'s> {
    /// In the portfolio's thread, when the portfolio reaches them; the circuits are
    /// built at the first turn.
    Inline(Box<Option<Blast<'s>>>),
    /// Ahead, on a thread of their own, started at the first turn: started earlier,
    /// it took the CPU the other engines need to decide FPSE's dichotomic paths (under
    /// load, where one process's threads share its time, it doubled their wall time).
    Threaded(Option<BackendThread>),
}

impl<'s> Backend<'s> {
    /// The backend's turn of `round`.
    fn turn(
        &mut self,
        store: &'s TermStore,
        assertions: &[TermId],
        round: u32,
        deadline: Instant,
    ) -> Turn {
        match self {
            Backend::Inline(blast) => {
                take_turn(store, assertions, blast.as_mut(), round, deadline, None)
            }
            Backend::Threaded(thread) => thread
                .get_or_insert_with(|| BackendThread::spawn(store, assertions, deadline))
                .next_turn(deadline),
        }
    }
}

/// The backend's turns from [`FIRST_BIT_PRECISE_ROUND`] on, taken one after another on
/// a thread of their own (on a copy of the store), each sent when done. Dropping this
/// stops the thread: its answer is no longer wanted.
struct BackendThread {
    turns: Receiver<Turn>,
    stop: Arc<AtomicBool>,
}

impl BackendThread {
    fn spawn(store: &TermStore, assertions: &[TermId], deadline: Instant) -> BackendThread {
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, turns) = mpsc::channel();
        let (store, assertions, flag) = (store.clone(), assertions.to_vec(), stop.clone());
        std::thread::spawn(move || {
            let mut blast = None;
            for round in FIRST_BIT_PRECISE_ROUND.. {
                if flag.load(Ordering::Relaxed) || Instant::now() >= deadline {
                    return;
                }
                let turn = take_turn(
                    &store,
                    &assertions,
                    &mut blast,
                    round,
                    deadline,
                    Some(&flag),
                );
                let last = !matches!(turn.verdict, Verdict::Unknown(GaveUp::Timeout));
                if sender.send(turn).is_err() || last {
                    return;
                }
            }
        });
        BackendThread { turns, stop }
    }

    /// The next turn, waiting for it until `deadline` (then a time-out).
    fn next_turn(&self, deadline: Instant) -> Turn {
        let wait = deadline.saturating_duration_since(Instant::now());
        self.turns.recv_timeout(wait).unwrap_or(Turn {
            verdict: Verdict::Unknown(GaveUp::Timeout),
            time: Duration::ZERO,
        })
    }
}

impl Drop for BackendThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The backend's turn of `round` on `blast`, whose circuits are built at the first
/// turn (to stop when `interrupt` is raised, if given).
fn take_turn<'s>(
    store: &'s TermStore,
    assertions: &[TermId],
    blast: &mut Option<Blast<'s>>,
    round: u32,
    deadline: Instant,
    interrupt: Option<&Arc<AtomicBool>>,
) -> Turn {
    let start = Instant::now();
    let blast = blast.get_or_insert_with(|| {
        let mut blast = Blast::new(store, assertions);
        if let Some(flag) = interrupt {
            blast.interrupt_when(Arc::clone(flag));
        }
        blast
    });
    let conflicts = BIT_PRECISE_CONFLICTS.saturating_mul(1u64 << round.min(40));
    let verdict = run_backend(store, assertions, blast, conflicts, deadline);
    Turn {
        verdict,
        time: start.elapsed(),
    }
}

/// Runs the bit-precise backend on `conflicts` more conflicts. A model the evaluator
/// rejects (it rests on an out-of-range `fp.to_sbv`/`fp.to_ubv`) makes the backend
/// look on for models without such results, on the same budget.
fn run_backend(
    store: &TermStore,
    assertions: &[TermId],
    blast: &mut Blast<'_>,
    conflicts: u64,
    deadline: Instant,
) -> Verdict {
    let mut verdict = blast.run(conflicts, deadline);
    while let Verdict::Sat(m) = &verdict {
        if satisfying_choice(store, assertions, m).is_some() {
            break;
        }
        verdict = if blast.avoid_open_results() {
            blast.run(conflicts, deadline)
        } else {
            Verdict::Unknown(GaveUp::OnlyOpenResults)
        };
    }
    verdict
}

/// Whether every term of the store has a sort of the host formats (or no float
/// sort): the interval domain and search give every term of the store a domain
/// or a value, not only those of the assertions' cone.
fn host_formats_only(store: &TermStore) -> bool {
    (0..store.len() as u32).all(|t| store.sort(TermId(t)).is_host())
}

/// Gives the search engines the float ranges propagation found at the root.
fn seed_bounds(store: &TermStore, obj: &mut Objective<'_>, root: &Doms) {
    for (i, v) in obj.vars.iter().enumerate() {
        let term = store.vars()[v.index].term;
        if let (Sort::Fp(f), Dom::Fp(d)) = (v.sort, root[term.index()]) {
            if !d.range_empty() && d.count() < FDom::full(f.expect_host()).count() - 1 {
                obj.bounds[i] = Some((d.lo, d.hi));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Op;

    fn solve(s: &TermStore, roots: &[TermId], strategy: Strategy) -> Answer {
        let cfg = SolveConfig::default()
            .with_strategy(strategy)
            .with_timeout(Duration::from_secs(5));
        Solver::new(s, cfg).check(roots)
    }

    #[test]
    fn every_engine_solves_a_simple_equation() {
        // x * x == 2.25 in binary64.
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F64);
        let rne = s.rm_const(crate::sort::SmtRounding::Rne);
        let sq = s.mk(Op::FpMul, &[rne, x, x]).unwrap();
        let c = s.f64_const(2.25);
        let eq = s.mk(Op::FpEq, &[sq, c]).unwrap();
        for st in [
            Strategy::Portfolio,
            Strategy::Interval,
            Strategy::Avm,
            Strategy::Es,
        ] {
            match solve(&s, &[eq], st) {
                Answer::Sat(m) => assert!(crate::check_model(&s, &[eq], &m), "{st:?}"),
                other => panic!("{st:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn only_interval_search_says_unsat() {
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F32);
        let nan = s.mk(Op::FpIsNaN, &[x]).unwrap();
        let eq = s.mk(Op::FpEq, &[x, x]).unwrap();
        assert!(matches!(
            solve(&s, &[nan, eq], Strategy::Portfolio),
            Answer::Unsat
        ));
        let cfg = SolveConfig::default()
            .with_strategy(Strategy::Random)
            .with_timeout(Duration::from_millis(100));
        assert!(matches!(
            Solver::new(&s, cfg).check(&[nan, eq]),
            Answer::Unknown
        ));
    }

    /// `a + b != a` for binary32 `a` in [1, 2] and `b` in (0, 1e-9): every `b` is
    /// absorbed, which labeling cannot exhaust.
    fn absorption(s: &mut TermStore) -> Vec<TermId> {
        let a = s.declare("a", Sort::F32);
        let b = s.declare("b", Sort::F32);
        let rne = s.rm_const(crate::sort::SmtRounding::Rne);
        let (one, two) = (s.f32_const(1.0), s.f32_const(2.0));
        let (zero, tiny) = (s.f32_const(0.0), s.f32_const(1e-9));
        let sum = s.mk(Op::FpAdd, &[rne, a, b]).unwrap();
        let same = s.mk(Op::Eq, &[sum, a]).unwrap();
        vec![
            s.mk(Op::FpLeq, &[one, a]).unwrap(),
            s.mk(Op::FpLeq, &[a, two]).unwrap(),
            s.mk(Op::FpLt, &[zero, b]).unwrap(),
            s.mk(Op::FpLt, &[b, tiny]).unwrap(),
            s.mk(Op::Not, &[same]).unwrap(),
        ]
    }

    #[test]
    fn bit_precise_backend_proves_what_labeling_leaves_open() {
        let mut s = TermStore::new();
        let roots = absorption(&mut s);
        let short = SolveConfig::default()
            .with_strategy(Strategy::Interval)
            .with_timeout(Duration::from_millis(300));
        assert!(matches!(
            Solver::new(&s, short).check(&roots),
            Answer::Unknown
        ));
        for st in [Strategy::BitPrecise, Strategy::Portfolio] {
            let cfg = SolveConfig::default()
                .with_strategy(st)
                .with_timeout(Duration::from_secs(10));
            let mut solver = Solver::new(&s, cfg);
            assert!(matches!(solver.check(&roots), Answer::Unsat), "{st:?}");
            assert_eq!(solver.stats().method(), Some("bit-precise"));
            assert_eq!(solver.stats().disagreements, 0);
        }
    }

    #[test]
    fn bit_precise_models_pass_the_evaluator() {
        // x * x == 2.25 under a rounding-mode variable that must not be RNE.
        let mut s = TermStore::new();
        let x = s.declare("x", Sort::F64);
        let r = s.declare("r", Sort::RoundingMode);
        let rne = s.rm_const(crate::sort::SmtRounding::Rne);
        let sq = s.mk(Op::FpMul, &[r, x, x]).unwrap();
        let c = s.f64_const(2.25);
        let eq = s.mk(Op::FpEq, &[sq, c]).unwrap();
        let not_rne = s.mk(Op::Distinct, &[r, rne]).unwrap();
        let mut solver = Solver::new(
            &s,
            SolveConfig::default().with_strategy(Strategy::BitPrecise),
        );
        match solver.check(&[eq, not_rne]) {
            Answer::Sat(m) => {
                assert!(crate::check_model(&s, &[eq, not_rne], &m));
                assert_ne!(m.values[1].as_rm(), Some(crate::sort::SmtRounding::Rne));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(solver.stats().method(), Some("bit-precise"));
    }
}
