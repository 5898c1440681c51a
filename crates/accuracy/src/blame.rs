//! Blame: which operations make an input's result inaccurate.
//!
//! The input is re-run under [`Shadow`] (the concrete run with an MPFR shadow beside
//! every value). Each op site gets the largest error one of its executions introduced
//! (the result's error against its shadow minus the largest operand error, in bits) and
//! the number of executions that passed FPGen's cancellation and precision-loss checks.
//! Sites are ranked by introduced error, then by cancellations; sites where neither
//! happened are left out. Branches where the shadow values would have gone the other
//! way are listed as divergences.

use fpforge_exec::{ExecConfig, ExecError, Interpreter, NoObserver};
use fpforge_mpfr::Shadow;
use fpforge_spec::plan::Test;
use fpir::{BranchSite, FloatBinOp, Func, Module, OpKind, OpSite};

/// One ranked op site.
#[derive(Clone, Debug, PartialEq)]
pub struct BlameRow {
    /// The site.
    pub site: OpSite,
    /// `file:line:col`.
    pub location: String,
    /// What it computes (`fadd`, `fsub`, ..., or the math function's name).
    pub op: String,
    /// Executions in the run.
    pub execs: u64,
    /// Largest error introduced by one execution, in bits.
    pub introduced_bits: f64,
    /// Largest error of its result against the shadow, in bits.
    pub result_bits: f64,
    /// Executions that passed the cancellation check.
    pub cancellations: u64,
    /// Executions that passed the precision-loss check.
    pub precision_losses: u64,
}

/// The blame of one input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Blame {
    /// Ranked sites.
    pub rows: Vec<BlameRow>,
    /// Branches whose shadow comparison disagreed with the concrete one, with locations.
    pub divergences: Vec<(BranchSite, String)>,
}

/// The op's name for reports.
pub fn op_name(kind: &OpKind) -> String {
    match kind {
        OpKind::Arith(op, _) => match op {
            FloatBinOp::Fadd => "fadd",
            FloatBinOp::Fsub => "fsub",
            FloatBinOp::Fmul => "fmul",
            FloatBinOp::Fdiv => "fdiv",
            FloatBinOp::Frem => "frem",
        }
        .to_string(),
        OpKind::Math(call) => call.func.name().to_string(),
    }
}

/// Runs `test` under [`Shadow`] at `precision` bits and ranks the op sites.
pub fn blame(
    module: &Module,
    func: Func,
    test: &Test,
    precision: u32,
    fuel: u64,
) -> Result<Blame, ExecError> {
    let mut interp = Interpreter::new(
        module,
        Shadow::new(precision),
        NoObserver,
        ExecConfig::default().with_fuel(fuel),
    )?;
    interp.call(func, test.args())?;
    let sem = interp.semantics();
    let mut rows: Vec<BlameRow> = sem
        .site_stats()
        .iter()
        .enumerate()
        .filter(|(_, s)| s.execs > 0 && (s.max_introduced_bits > 0.0 || s.cancellations > 0))
        .filter_map(|(i, s)| {
            let site = OpSite(i as u32);
            let data = module.op_sites.get(site)?;
            Some(BlameRow {
                site,
                location: module.describe_loc(data.loc),
                op: op_name(&data.kind),
                execs: s.execs,
                introduced_bits: s.max_introduced_bits,
                result_bits: s.max_result_bits,
                cancellations: s.cancellations,
                precision_losses: s.precision_losses,
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.introduced_bits
            .total_cmp(&a.introduced_bits)
            .then(b.cancellations.cmp(&a.cancellations))
            .then(a.site.cmp(&b.site))
    });
    let divergences = sem
        .divergences()
        .iter()
        .map(|&b| {
            let loc = module.branch_sites.get(b).and_then(|d| d.loc);
            (b, module.describe_loc(loc))
        })
        .collect();
    Ok(Blame { rows, divergences })
}
