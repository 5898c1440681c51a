//! Output formats like `fpforge cover`'s: `coverage.json`
//! (input lines come from [`fpforge_exec::InputSpec::line`]).

use crate::explore::ExploreReport;
use fpir::{Module, SideStatus};
use serde::Serialize;

#[derive(Serialize)]
struct SideRow {
    side: String,
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<usize>,
    /// Seconds from the start until the side was first covered.
    #[serde(skip_serializing_if = "Option::is_none")]
    seconds: Option<f64>,
}

#[derive(Serialize)]
struct SiteRow {
    id: String,
    location: String,
    sides: Vec<SideRow>,
}

#[derive(Serialize)]
struct Queries {
    total: u64,
    sat: u64,
    unsat: u64,
    unknown: u64,
}

#[derive(Serialize)]
struct CoverageJson<'a> {
    function: &'a str,
    finished: bool,
    stop: String,
    complete: bool,
    covered: usize,
    infeasible: usize,
    total: usize,
    tests: usize,
    paths: u64,
    runs: u64,
    queries: Queries,
    sites: Vec<SiteRow>,
}

/// `coverage.json` of an exploration (the layout of `fpforge cover`'s, plus proved
/// infeasible sides, paths and query counts).
pub fn coverage_json(module: &Module, report: &ExploreReport) -> String {
    let mut sites: Vec<SiteRow> = Vec::new();
    for s in &report.sides {
        let id = s.side.site.to_string();
        if sites.last().is_none_or(|r| r.id != id) {
            sites.push(SiteRow {
                id,
                location: module.describe_loc(module.branch_sites[s.side.site].loc),
                sides: Vec::new(),
            });
        }
        if let Some(row) = sites.last_mut() {
            row.sides.push(SideRow {
                side: module.arm_name(s.side.site, s.side.arm),
                status: s.status.to_string(),
                test: match s.status {
                    SideStatus::Covered { test } => Some(test),
                    _ => None,
                },
                seconds: match s.status {
                    SideStatus::Covered { test } => {
                        report.found_at.get(test).map(|d| d.as_secs_f64())
                    }
                    _ => None,
                },
            });
        }
    }
    let json = CoverageJson {
        function: &module.funcs[report.func].name,
        finished: true,
        stop: report.stop.to_string(),
        complete: report.complete,
        covered: report.covered(),
        infeasible: report.infeasible(),
        total: report.sides.len(),
        tests: report.tests.len(),
        paths: report.paths,
        runs: report.runs,
        queries: Queries {
            total: report.queries.queries,
            sat: report.queries.sat,
            unsat: report.queries.unsat,
            unknown: report.queries.unknown,
        },
        sites,
    };
    serde_json::to_string_pretty(&json).unwrap_or_default() + "\n"
}
