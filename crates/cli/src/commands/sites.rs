//! `fpforge sites`: the branch and op sites of a function, with source locations.

use crate::inputs::{split_items, ProgramArgs};
use anyhow::Result;
use clap::Args;
use fpir::write::{float_bin_name, float_pred_name, int_pred_name};
use fpir::{BranchKind, CmpPred, Func, Module, OpKind};
use serde::Serialize;
use std::fmt::{self, Write};
use std::process::ExitCode;

/// Flags of `fpforge sites`.
#[derive(Args, Debug)]
pub struct SitesArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    program: ProgramArgs,
    /// Include the sites of every function the entry function may call.
    #[arg(long)]
    deep: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct SiteRow {
    id: String,
    function: String,
    location: String,
    what: String,
}

#[derive(Serialize)]
struct SitesReport {
    function: String,
    branch_sites: Vec<SiteRow>,
    op_sites: Vec<SiteRow>,
}

/// Runs `fpforge sites`.
pub fn run(args: SitesArgs) -> Result<ExitCode> {
    let (paths, _) = split_items(&args.items)?;
    let loaded = args.program.load(&paths)?;
    let funcs = if args.deep {
        loaded.module.reachable_funcs(loaded.func)
    } else {
        vec![loaded.func]
    };
    let report = collect(&loaded.module, &funcs, &args.program.function);
    if args.json {
        crate::output::emit(&(serde_json::to_string_pretty(&report)? + "\n"))?;
    } else {
        crate::output::emit(&print_table(&report)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn collect(module: &Module, funcs: &[Func], entry: &str) -> SitesReport {
    let row = |id: String, func: Func, loc, what: String| SiteRow {
        id,
        function: module.funcs[func].name.clone(),
        location: module.describe_loc(loc),
        what,
    };
    let branch_sites = module
        .branch_sites
        .iter()
        .filter(|(_, s)| funcs.contains(&s.func))
        .map(|(id, s)| {
            let what = describe_branch(s.kind, s.cmp.as_ref());
            row(id.to_string(), s.func, s.loc, what)
        })
        .collect();
    let op_sites = module
        .op_sites
        .iter()
        .filter(|(_, s)| funcs.contains(&s.func))
        .map(|(id, s)| {
            let what = match s.kind {
                OpKind::Arith(op, ty) => format!("{} {ty}", float_bin_name(op)),
                OpKind::Math(call) => format!("{}.{}", call.func.name(), call.ty),
            };
            row(id.to_string(), s.func, s.loc, what)
        })
        .collect();
    SitesReport {
        function: entry.to_string(),
        branch_sites,
        op_sites,
    }
}

fn describe_branch(kind: BranchKind, cmp: Option<&fpir::Comparison>) -> String {
    match (kind, cmp) {
        (BranchKind::Switch { cases }, _) => format!("switch, {cases} cases + default"),
        (BranchKind::Cond, Some(c)) => {
            let pred = match c.pred {
                CmpPred::Int(p) => format!("icmp {}", int_pred_name(p)),
                CmpPred::Float(p) => format!("fcmp {}", float_pred_name(p)),
            };
            let not = if c.negated { "not " } else { "" };
            format!("{not}{pred} {} {}, {}", c.ty, c.lhs, c.rhs)
        }
        (BranchKind::Cond, None) => "condition not from a comparison".to_string(),
    }
}

fn print_table(report: &SitesReport) -> Result<String, fmt::Error> {
    let mut out = String::new();
    for (title, rows) in [
        ("branch sites", &report.branch_sites),
        ("op sites", &report.op_sites),
    ] {
        writeln!(out, "{title} of {} ({}):", report.function, rows.len())?;
        let width = rows.iter().map(|r| r.location.len()).max().unwrap_or(0);
        for row in rows.iter() {
            writeln!(
                out,
                "  {:<6} {:<width$}  {:<12} {}",
                row.id, row.location, row.function, row.what
            )?;
        }
    }
    Ok(out)
}
