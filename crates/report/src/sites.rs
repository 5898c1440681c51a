//! The report of `fpforge sites`: the branch sites (with the comparison deciding each)
//! and op sites (float arithmetic and math calls) of some functions, with their source
//! locations; as a table or JSON.

use fpir::write::{float_bin_name, float_pred_name, int_pred_name};
use fpir::{BranchKind, CmpPred, Func, Module, OpKind};
use serde::Serialize;
use std::fmt::{self, Write};

#[derive(Serialize)]
struct SiteRow {
    id: String,
    function: String,
    location: String,
    what: String,
}

/// The sites of some functions.
#[derive(Serialize)]
pub struct SitesReport {
    function: String,
    branch_sites: Vec<SiteRow>,
    op_sites: Vec<SiteRow>,
}

impl SitesReport {
    /// The sites of `funcs` (listed for the entry function `entry`).
    pub fn new(module: &Module, funcs: &[Func], entry: &str) -> SitesReport {
        let row = |id: String, func: Func, loc, what: String| SiteRow {
            id,
            function: module.funcs[func].display_name().to_string(),
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
}

fn describe_branch(kind: BranchKind, cmp: Option<&fpir::Comparison>) -> String {
    match (kind, cmp) {
        (BranchKind::Switch { cases }, _) => format!("switch, {cases} cases + default"),
        (BranchKind::Trap(check), _) => format!("trap guard: {}", check.label()),
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

impl SitesReport {
    /// The report as JSON.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The report as a table.
    pub fn to_text(&self) -> String {
        // Writing to a String cannot fail.
        self.table().unwrap_or_default()
    }

    fn table(&self) -> Result<String, fmt::Error> {
        let report = self;
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
}

#[derive(Serialize)]
struct FunctionRow {
    name: String,
    symbol: String,
    location: String,
    branch_sites: usize,
    op_sites: usize,
}

/// The report of `fpforge list`: every function a module defines, in display-name
/// order, with its symbol, place and site counts; never cut.
#[derive(Serialize)]
pub struct FunctionList {
    functions: Vec<FunctionRow>,
}

/// The widest a column of [`FunctionList::to_text`] aligns to.
const MAX_COLUMN_WIDTH: usize = 60;

impl FunctionList {
    /// Every function of `module`.
    pub fn new(module: &Module) -> FunctionList {
        let mut functions: Vec<FunctionRow> = module
            .funcs
            .iter()
            .map(|(func, f)| FunctionRow {
                name: f.display_name().to_string(),
                symbol: f.name.clone(),
                location: module.describe_loc(f.loc),
                branch_sites: module
                    .branch_sites
                    .values()
                    .filter(|s| s.func == func)
                    .count(),
                op_sites: module.op_sites.values().filter(|s| s.func == func).count(),
            })
            .collect();
        functions.sort_by(|a, b| a.name.cmp(&b.name));
        FunctionList { functions }
    }

    /// The list as JSON.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The list as a table: name, symbol (when it differs), place, site counts. When
    /// some functions have a place in the sources, those without one (the C++ runtime,
    /// declared functions whose address is taken) are counted on a last line instead.
    pub fn to_text(&self) -> String {
        let placed = |r: &&FunctionRow| r.location != Module::UNKNOWN_LOCATION;
        let shown: Vec<&FunctionRow> = if self.functions.iter().any(|r| placed(&r)) {
            self.functions.iter().filter(placed).collect()
        } else {
            self.functions.iter().collect()
        };
        // Columns align up to a width; a longer cell (a C++ template instantiation's
        // signature) runs over on its own row instead of widening every row.
        let width = |column: fn(&FunctionRow) -> usize| {
            shown
                .iter()
                .map(|r| column(r))
                .max()
                .unwrap_or(0)
                .min(MAX_COLUMN_WIDTH)
        };
        let name_width = width(|r| r.name.len());
        let symbol_width = width(|r| {
            if r.symbol == r.name {
                0
            } else {
                r.symbol.len()
            }
        });
        let location_width = width(|r| r.location.len());
        let mut out = format!("functions ({}):\n", shown.len());
        for row in &shown {
            let symbol = if row.symbol == row.name {
                ""
            } else {
                &row.symbol
            };
            let line = format!(
                "  {:<name_width$}  {symbol:<symbol_width$}  {:<location_width$}  {} branch sites, {} op sites",
                row.name, row.location, row.branch_sites, row.op_sites
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let hidden = self.functions.len() - shown.len();
        if hidden > 0 {
            out.push_str(&format!(
                "and {hidden} functions without a place in the sources (the C++ runtime, declarations): --json lists them\n"
            ));
        }
        out
    }
}
