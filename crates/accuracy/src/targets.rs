//! FPGen's inaccuracy checks as search targets (Guo & Rubio-González, ICSE'20, Sec. III).
//!
//! Every selected floating-point addition or subtraction carries two targets: precision
//! loss (`|exp(a) - exp(b)| > alpha`) and cancellation (`max(exp(a), exp(b)) - exp(r) >
//! beta`), thresholds per format from [`fpforge_mpfr::Thresholds`]. A run under the
//! [`CheckObserver`] records, per target, the largest quantity seen over the sampled
//! executions; the target's distance is `threshold + 1 - quantity` (covered at `<= 0`).
//! Sites are selected from the entry function and every function it may call: all of
//! them, those inside loops (blocks on a cycle of the control-flow graph), or those on
//! given source lines. The observer also records, per op site of those functions, the
//! largest atomic condition number of the run ([`crate::condition`]), a search goal of
//! its own.

use crate::condition::condition;
use crate::config::{Sampling, SiteSelection};
use fpforge_exec::{BranchEvent, Observer, OpEvent};
use fpforge_mpfr::metrics::fpgen_checks;
use fpforge_mpfr::Thresholds;
use fpir::{Block, FloatBinOp, FloatTy, Func, Module, OpKind, OpSite, Side};

/// Which of FPGen's two checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    /// `|exp(a) - exp(b)| > alpha`.
    PrecisionLoss,
    /// `max(exp(a), exp(b)) - exp(r) > beta`.
    Cancellation,
}

impl Check {
    /// The check's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Check::PrecisionLoss => "precision-loss",
            Check::Cancellation => "cancellation",
        }
    }
}

/// One target: a check at an op site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The `fadd`/`fsub` site.
    pub site: OpSite,
    /// Which check.
    pub check: Check,
    /// The threshold the quantity must exceed.
    pub threshold: i32,
}

/// The targets of a run, with a per-site lookup for the observer.
#[derive(Clone, Debug)]
pub struct Targets {
    /// Targets in site order, precision loss before cancellation.
    pub list: Vec<Target>,
    /// For each op site, the index of its precision-loss target (cancellation is next).
    by_site: Vec<Option<(u32, FloatTy)>>,
    /// For each op site of the selected functions, what it computes (for its condition
    /// number).
    kinds: Vec<Option<OpKind>>,
}

impl Targets {
    /// The targets of the selected add/sub sites of `funcs`.
    pub fn select(module: &Module, funcs: &[Func], selection: &SiteSelection) -> Targets {
        let in_loop = match selection {
            SiteSelection::Loops => Some(loop_blocks(module, funcs)),
            _ => None,
        };
        let mut list = Vec::new();
        let mut by_site = vec![None; module.op_sites.len()];
        let kinds = module
            .op_sites
            .iter()
            .map(|(_, data)| funcs.contains(&data.func).then_some(data.kind))
            .collect();
        for (site, data) in module.op_sites.iter() {
            let OpKind::Arith(op @ (FloatBinOp::Fadd | FloatBinOp::Fsub), ty) = data.kind else {
                continue;
            };
            let _ = op;
            if !funcs.contains(&data.func) {
                continue;
            }
            let selected = match selection {
                SiteSelection::All => true,
                SiteSelection::Loops => in_loop
                    .as_ref()
                    .is_some_and(|l| l.contains(&(data.func, data.block))),
                SiteSelection::Lines(lines) => data.loc.is_some_and(|loc| {
                    let file = module.files.get(loc.file).map_or("", String::as_str);
                    lines.iter().any(|(f, l)| {
                        *l == loc.line && (file == f || file.ends_with(&format!("/{f}")))
                    })
                }),
            };
            if !selected {
                continue;
            }
            let t = Thresholds::for_format(ty);
            by_site[site.0 as usize] = Some((list.len() as u32, ty));
            list.push(Target {
                site,
                check: Check::PrecisionLoss,
                threshold: t.alpha,
            });
            list.push(Target {
                site,
                check: Check::Cancellation,
                threshold: t.beta,
            });
        }
        Targets {
            list,
            by_site,
            kinds,
        }
    }

    /// Number of targets.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Blocks on a cycle of their function's control-flow graph.
fn loop_blocks(module: &Module, funcs: &[Func]) -> Vec<(Func, Block)> {
    let mut out = Vec::new();
    for &f in funcs {
        let func = &module.funcs[f];
        let succ: Vec<Vec<usize>> = func
            .blocks
            .values()
            .map(|b| {
                b.term
                    .targets()
                    .iter()
                    .map(|t| t.block.0 as usize)
                    .collect()
            })
            .collect();
        for start in 0..succ.len() {
            let mut seen = vec![false; succ.len()];
            let mut stack: Vec<usize> = succ[start].clone();
            let mut cyclic = false;
            while let Some(b) = stack.pop() {
                if b == start {
                    cyclic = true;
                    break;
                }
                if b < seen.len() && !std::mem::replace(&mut seen[b], true) {
                    stack.extend(&succ[b]);
                }
            }
            if cyclic {
                out.push((f, Block(start as u32)));
            }
        }
    }
    out
}

/// Records, per target, the largest check quantity seen in one run.
#[derive(Clone, Debug)]
pub struct CheckObserver {
    targets: Targets,
    sampling: Sampling,
    /// Executions per op site so far.
    counts: Vec<u64>,
    /// Largest quantity per target (`i32::MIN` when never checked).
    pub best: Vec<i32>,
    /// The run's branch outcomes, in order (to compare with the reference run's).
    pub branches: Vec<Side>,
    /// Largest atomic condition number per op site (`None` when never executed or not
    /// recorded).
    pub conditions: Vec<Option<f64>>,
}

impl CheckObserver {
    /// An observer for `targets`.
    pub fn new(targets: Targets, sampling: Sampling) -> Self {
        CheckObserver {
            sampling,
            counts: vec![0; targets.by_site.len()],
            best: vec![i32::MIN; targets.len()],
            branches: Vec::new(),
            conditions: vec![None; targets.kinds.len()],
            targets,
        }
    }

    /// Forgets the last run.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.best.iter_mut().for_each(|b| *b = i32::MIN);
        self.branches.clear();
        self.conditions.iter_mut().for_each(|c| *c = None);
    }

    /// The op site with the largest condition number in the last run, and the number.
    pub fn worst_condition(&self) -> Option<(OpSite, f64)> {
        self.conditions
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((OpSite(i as u32), (*c)?)))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    }

    fn note_condition(&mut self, ev: &OpEvent) {
        let s = ev.site.0 as usize;
        let Some(Some(kind)) = self.targets.kinds.get(s) else {
            return;
        };
        let ty = match kind {
            OpKind::Arith(_, ty) => *ty,
            OpKind::Math(call) => call.ty,
        };
        let mut args = [0.0; 3];
        for (a, &bits) in args.iter_mut().zip(ev.args()) {
            *a = match ty {
                FloatTy::F64 => f64::from_bits(bits),
                FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
            };
        }
        if let Some(c) = condition(kind, &args[..ev.args().len()]) {
            let best = &mut self.conditions[s];
            if best.is_none_or(|b| c > b) {
                *best = Some(c);
            }
        }
    }

    /// Distance of target `i` in the last run: `threshold + 1 - quantity` (covered when
    /// `<= 0`; `None` when never checked).
    pub fn distance(&self, i: usize) -> Option<i32> {
        let b = self.best[i];
        (b != i32::MIN).then(|| self.targets.list[i].threshold + 1 - b)
    }
}

impl Observer for CheckObserver {
    const OBSERVES_OPS: bool = true;

    fn on_branch(&mut self, ev: &BranchEvent) {
        self.branches.push(ev.side);
    }

    fn on_op(&mut self, ev: &OpEvent) {
        self.note_condition(ev);
        let s = ev.site.0 as usize;
        let Some(&Some((first, ty))) = self.targets.by_site.get(s) else {
            return;
        };
        let n = self.counts[s];
        self.counts[s] = n + 1;
        if !self.sampling.checks(n) {
            return;
        }
        let args = ev.args();
        if args.len() < 2 {
            return;
        }
        if let Some(c) = fpgen_checks(ty, args[0], args[1], ev.result) {
            let i = first as usize;
            self.best[i] = self.best[i].max(c.precision_loss);
            self.best[i + 1] = self.best[i + 1].max(c.cancellation);
        }
    }
}
