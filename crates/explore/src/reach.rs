//! `reach`: an input that takes a given path ([`reach_path`]) or one branch side
//! ([`reach_side`]), or a proof that none exists.
//!
//! **Paths** (FPSE's question, Botella, Gotlieb, Michel, STVR 2006), generationally:
//! run the current input concolically; find the first spec decision the run does not
//! take (index `k`, run event `j`); ask the solver for an input satisfying every
//! symbolic decision of the run before `j` plus the spec's side at `j`; repeat from its
//! model. When the query is exactly the condition of the spec's prefix — nothing was
//! concretized before `j` and every input-dependent decision before `j` is one of the
//! spec's — `unsat` (from interval labeling or the bit-precise backend, and the proof
//! is labeled with the one that answered), a decision at `j` that does not depend on
//! the inputs, or a run that returns before decision `k` proves the path infeasible:
//! every input taking the spec's first `k` decisions follows this run's events up to
//! `j`, by induction over the events. Otherwise a negative answer restarts from a random
//! input (an unknown one also multiplies the query limit by four, up to 64), and the
//! answer is `unknown` when time runs out.
//!
//! Proofs through the math functions the solver has as extension operators (`exp log
//! atan sin cos tan`) rest on its documented assumption that the host libm is within
//! `fpforge_solve::term::EXT_ULP_BOUND` ulps of the true function;
//! `--concretize-calls` (or [`crate::CallPolicy::Concretize`]) makes such paths inexact,
//! so they are never proved infeasible.
//!
//! **Branch sides** are reached by [`crate::explore::explore`] with the side as target.
//!
//! Every input returned re-executes on the concrete interpreter along the claimed path.

use crate::error::ExploreError;
use crate::explore::{explore, ExploreConfig};
use crate::path::PathSpec;
use crate::session::{EngineConfig, QueryAnswer, QueryStats, RunEnd, Session, UnsatBy};
use fpforge_engine::{Engine, EngineKind, Event, NoDetail, Settings, Stop};
use fpforge_search::Budget;
use fpforge_solve::TermId;
use fpforge_spec::{ArgSpec, InputSpec, OutArgSpec};
use fpir::{Func, InfeasibleMethod, Module, OpenReason, Side, SideStatus, Witness};
use std::time::Duration;

/// The answer of `reach`.
#[derive(Clone, Debug, PartialEq)]
pub enum ReachAnswer {
    /// An input (coordinate bits) whose concrete run takes the path.
    Reached(Vec<u64>),
    /// No input takes the path.
    Infeasible {
        /// The proof.
        method: InfeasibleMethod,
        /// Spec decisions that can be taken before the infeasible one.
        prefix: usize,
    },
    /// Neither within the limits; says what was tried.
    Unknown(String),
}

/// What `reach` did.
#[derive(Clone, Debug)]
pub struct ReachReport {
    /// The answer.
    pub answer: ReachAnswer,
    /// Concolic runs.
    pub runs: u64,
    /// Solver queries.
    pub queries: QueryStats,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// The query that decided the answer (the path condition of the confirmed run, or the
    /// condition proved unsat), as SMT-LIB, when [`reach_path`] was asked for it and it
    /// can be written (extension operators cannot).
    pub smt2: Option<String>,
}

/// Searches an input that takes `path` (see the module docs).
pub fn reach_path(
    module: &Module,
    func: Func,
    spec: InputSpec,
    path: &PathSpec,
    config: EngineConfig,
    budget: &Budget,
    emit_smt2: bool,
) -> Result<ReachReport, ExploreError> {
    let mut s = Session::new(module, func, spec, config, budget.start())?;
    let sites = path.sites();
    let mut input = s.seed_input();
    let mut tried: Vec<String> = Vec::new();
    let mut restarts = 0u32;
    let mut scale = 8u32;
    let mut last_query: Vec<TermId> = Vec::new();
    let finish = |s: &Session<'_>, answer: ReachAnswer, query: &[TermId]| ReachReport {
        smt2: emit_smt2
            .then(|| crate::smt2::write_query(s.store(), &s.with_ranges(query)))
            .flatten(),
        answer,
        runs: s.runs,
        queries: s.stats,
        elapsed: s.elapsed(),
    };
    loop {
        let run = s.run(&input)?;
        let follow = path.follow(&run.decisions());
        if follow.matched == path.decisions.len() {
            let concrete = s.concrete_run(&input)?;
            if path.follow(&concrete.sides).matched == path.decisions.len() {
                let last = follow.positions.last().copied().unwrap_or(0);
                let pc: Vec<TermId> = run.path[..=last]
                    .iter()
                    .filter_map(|e| e.constraint)
                    .collect();
                return Ok(finish(&s, ReachAnswer::Reached(input), &pc));
            }
            tried.push("a model's concrete run left the path".into());
        }
        let j = follow.diverged_at.unwrap_or(run.path.len());
        let exact = j <= run.exact_prefix
            && run.path[..j]
                .iter()
                .all(|e| e.constraint.is_none() || sites.contains(&e.side.site));
        let prefix: Vec<TermId> = run.path[..j].iter().filter_map(|e| e.constraint).collect();
        let mut negative = None;
        match follow.diverged_at {
            None => {
                // The run ended before the next spec decision.
                if exact && run.end == RunEnd::Returned {
                    return Ok(finish(
                        &s,
                        ReachAnswer::Infeasible {
                            method: InfeasibleMethod::PathEnds,
                            prefix: follow.matched,
                        },
                        &prefix,
                    ));
                }
                negative = Some(format!(
                    "runs end after {} of the path's decisions",
                    follow.matched
                ));
            }
            Some(j) => {
                let want = path.decisions[follow.matched];
                let entry = run.path[j];
                match s.semantics_mut().constraint_for(&entry, want.arm) {
                    None if exact => {
                        return Ok(finish(
                            &s,
                            ReachAnswer::Infeasible {
                                method: InfeasibleMethod::ConstantDecision,
                                prefix: follow.matched,
                            },
                            &prefix,
                        ));
                    }
                    None => {
                        negative = Some(format!(
                            "decision {} does not depend on the inputs here, but the prefix is not exact (a concretization, or input-dependent decisions at sites the path does not name)",
                            module.side_name(want)
                        ))
                    }
                    Some(c) => {
                        let mut query = prefix.clone();
                        query.push(c);
                        last_query.clone_from(&query);
                        match s.solve(&query, &input, scale) {
                            QueryAnswer::Sat(next) => input = next,
                            QueryAnswer::Unsat(by) if exact => {
                                return Ok(finish(
                                    &s,
                                    ReachAnswer::Infeasible {
                                        method: match by {
                                            UnsatBy::Intervals => InfeasibleMethod::IntervalLabeling,
                                            UnsatBy::BitPrecise => InfeasibleMethod::BitPrecise,
                                        },
                                        prefix: follow.matched,
                                    },
                                    &query,
                                ));
                            }
                            QueryAnswer::Unsat(_) => {
                                negative = Some(format!(
                                    "decision {} unsat along an inexact prefix",
                                    follow.matched + 1
                                ))
                            }
                            QueryAnswer::Unknown => {
                                // Retry from a fresh input with a longer query limit.
                                scale = (scale * 4).min(64 * 8);
                                negative =
                                    Some(format!("decision {}: solver unknown", follow.matched + 1))
                            }
                        }
                    }
                }
            }
        }
        if let Some(why) = negative {
            if !tried.contains(&why) {
                tried.push(why);
            }
            restarts += 1;
            input = s.random_input();
        }
        if s.out_of_time() || s.interrupted() {
            let text = format!(
                "{}{} runs, {} queries ({} sat, {} unsat, {} unknown), {restarts} random restarts; {}",
                if s.interrupted() { "interrupted: " } else { "" },
                s.runs,
                s.stats.queries,
                s.stats.sat,
                s.stats.unsat,
                s.stats.unknown,
                tried.join("; ")
            );
            return Ok(finish(&s, ReachAnswer::Unknown(text), &last_query));
        }
    }
}

/// The answer for one branch side, as `cover` uses it.
#[derive(Clone, Debug, PartialEq)]
pub enum SideAnswer {
    /// An input (coordinate bits) whose concrete run takes the side.
    Covered(Vec<u64>),
    /// No input takes the side.
    Infeasible {
        /// The proof.
        method: InfeasibleMethod,
    },
    /// Neither within the time limit; with what kept exploration from deciding, when
    /// it says.
    Unknown(Option<OpenReason>),
}

/// Reaches one branch side of `func` within `budget`: exploration with the
/// side as target (see [`mod@crate::explore`]).
pub fn reach_side(
    module: &Module,
    func: Func,
    spec: InputSpec,
    side: Side,
    config: EngineConfig,
    budget: &Budget,
) -> Result<SideAnswer, ExploreError> {
    let mut answers = reach_sides(module, func, spec, &[side], config, budget)?;
    Ok(answers.pop().unwrap_or(SideAnswer::Unknown(None)))
}

/// Reaches each of `sides` of `func` within one `budget`: one exploration
/// with every side as target, stopping once all are taken. The library entry point
/// `cover` calls for the sides its search did not reach; answers are in `sides` order.
pub fn reach_sides(
    module: &Module,
    func: Func,
    spec: InputSpec,
    sides: &[Side],
    config: EngineConfig,
    budget: &Budget,
) -> Result<Vec<SideAnswer>, ExploreError> {
    let cfg = ExploreConfig::default()
        .with_engine(config)
        .with_targets(sides.to_vec());
    let report = explore(module, func, spec, &cfg, budget, |_| {})?;
    Ok(sides
        .iter()
        .map(|side| {
            let status = report
                .sides
                .iter()
                .find(|r| r.side == *side)
                .map(|r| r.status);
            match status {
                Some(SideStatus::Covered {
                    witness: Witness::Test(test),
                }) => SideAnswer::Covered(report.tests[test].clone()),
                Some(SideStatus::Covered {
                    witness: Witness::Finding(k),
                }) => SideAnswer::Covered(report.findings[k].coords.clone()),
                Some(SideStatus::Infeasible { method }) => SideAnswer::Infeasible { method },
                Some(SideStatus::NotReached { reason }) => SideAnswer::Unknown(reason.open),
                None => SideAnswer::Unknown(None),
            }
        })
        .collect())
}

/// What a reach run aims at, as the user names it (read against the module when the
/// run starts): a path spec, or one branch side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReachAim {
    /// A path spec ([`PathSpec`]).
    Path(String),
    /// One branch side (`br3:T`, `FILE:LINE`...).
    Side(String),
}

/// `reach` as an [`Engine`]: an input that takes the aim, or a proof that none does.
#[derive(Clone, Debug)]
pub struct ReachConfig {
    /// The concolic engine's settings.
    pub engine: EngineConfig,
    /// What to reach.
    pub aim: ReachAim,
    /// Parameter specs.
    pub args: Vec<ArgSpec>,
    /// Output arrays.
    pub out_args: Vec<OutArgSpec>,
    /// Keep the deciding path condition as SMT-LIB (a path aim only).
    pub emit_smt2: bool,
}

/// The answer of a reach run, for a path or for a side.
#[derive(Clone, Debug)]
pub enum ReachVerdict {
    /// A path's answer, with what the search did.
    Path(ReachReport),
    /// A side's answer.
    Side(SideAnswer),
}

/// A finished reach run.
#[derive(Clone, Debug)]
pub struct Reached {
    /// The answer.
    pub verdict: ReachVerdict,
    /// The input that takes the aim, when one does.
    pub input: Option<Vec<u64>>,
    /// Why it ended: the aim reached, proved infeasible (nothing left to try), or neither
    /// within the budget.
    pub stop: Stop,
    /// Wall-clock time.
    pub elapsed: Duration,
}

fpforge_engine::ended_by_fields!(Reached);

impl Engine for ReachConfig {
    const KIND: EngineKind = EngineKind::Reach;
    type Detail<'a> = NoDetail;
    type Report = Reached;
    type Error = ExploreError;

    fn settings(&self) -> Settings {
        let ReachConfig {
            engine,
            aim,
            args,
            out_args,
            emit_smt2,
        } = self;
        let (kind, text) = match aim {
            ReachAim::Path(text) => ("path", text),
            ReachAim::Side(text) => ("side", text),
        };
        Settings::new()
            .with_group("engine", engine.settings())
            .with(&format!("aim.{kind}"), text)
            .with_each("args", args)
            .with_each("out_args", out_args)
            .with("emit_smt2", emit_smt2)
    }

    fn run(
        &self,
        module: &Module,
        func: Func,
        budget: &Budget,
        events: &mut dyn FnMut(&Event<'_, NoDetail>),
    ) -> Result<Reached, ExploreError> {
        let started = std::time::Instant::now();
        let spec = InputSpec::for_function(module, func, &self.args, &self.out_args)?;
        events(&Event::Started { sides: &[] });
        let config = self.engine.clone();
        let (verdict, input, decided) = match &self.aim {
            ReachAim::Path(text) => {
                let path = PathSpec::parse(text, module)?;
                let report = reach_path(module, func, spec, &path, config, budget, self.emit_smt2)?;
                let (input, decided) = match &report.answer {
                    ReachAnswer::Reached(input) => (Some(input.clone()), Some(true)),
                    ReachAnswer::Infeasible { .. } => (None, Some(false)),
                    ReachAnswer::Unknown(_) => (None, None),
                };
                (ReachVerdict::Path(report), input, decided)
            }
            ReachAim::Side(text) => {
                let side = module
                    .parse_side(text)
                    .map_err(|e| ExploreError::PathSyntax {
                        text: text.clone(),
                        reason: e.to_string(),
                    })?;
                let answer = reach_side(module, func, spec, side, config, budget)?;
                let (input, decided) = match &answer {
                    SideAnswer::Covered(input) => (Some(input.clone()), Some(true)),
                    SideAnswer::Infeasible { .. } => (None, Some(false)),
                    SideAnswer::Unknown(_) => (None, None),
                };
                (ReachVerdict::Side(answer), input, decided)
            }
        };
        if let Some(coords) = &input {
            events(&Event::Test {
                index: 0,
                coords,
                new_sides: &[],
            });
        }
        let stop = match decided {
            Some(true) => Stop::TargetsReached,
            Some(false) => Stop::Exhausted,
            None if budget.interrupt.as_ref().is_some_and(|i| i.raised()) => Stop::Interrupted,
            None => Stop::TimeLimit,
        };
        Ok(Reached {
            verdict,
            input,
            stop,
            elapsed: started.elapsed(),
        })
    }
}
