//! `coverage.lcov`: an lcov tracefile of one function's branch sides, for `genhtml` and
//! coverage services.
//!
//! One record per source file: `FN`/`FNDA` for the function when it is defined in the
//! file, and a `BRDA:line,block,branch,taken` line per side, where block is the site id,
//! branch the side's number within its site, and taken `1` when covered, `0` when another
//! side of the site is, `-` when the site was never reached.

use fpir::{Func, Module, SideReport, SideStatus};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The tracefile of `sides` of `func` (see the module docs).
pub fn lcov(module: &Module, func: Func, sides: &[SideReport]) -> String {
    let mut files: BTreeMap<String, Vec<(u32, u32, u32, &str)>> = BTreeMap::new();
    let mut site_reached: BTreeMap<u32, bool> = BTreeMap::new();
    for s in sides {
        *site_reached.entry(s.side.site.0).or_default() |= s.status.is_covered();
    }
    let mut arm_index: BTreeMap<u32, u32> = BTreeMap::new();
    for s in sides {
        let site = s.side.site.0;
        let arm = arm_index.entry(site).or_default();
        let taken = match s.status {
            SideStatus::Covered { .. } => "1",
            SideStatus::NotReached { .. } | SideStatus::Infeasible { .. }
                if site_reached[&site] =>
            {
                "0"
            }
            SideStatus::NotReached { .. } | SideStatus::Infeasible { .. } => "-",
        };
        if let Some(loc) = module.branch_sites[s.side.site].loc {
            let file = module.files.get(loc.file).cloned().unwrap_or_default();
            files
                .entry(file)
                .or_default()
                .push((loc.line, site, *arm, taken));
        }
        *arm += 1;
    }
    let mut out = String::new();
    let name = module.funcs.get(func).map_or("", |f| f.name.as_str());
    let func_loc = module.funcs.get(func).and_then(|f| f.loc);
    for (file, rows) in &files {
        let _ = writeln!(out, "TN:\nSF:{file}");
        if let Some(loc) = func_loc.filter(|l| module.files.get(l.file) == Some(file)) {
            let _ = writeln!(out, "FN:{},{name}\nFNDA:1,{name}\nFNF:1\nFNH:1", loc.line);
        }
        for (line, site, arm, taken) in rows {
            let _ = writeln!(out, "BRDA:{line},{site},{arm},{taken}");
        }
        let hit = rows.iter().filter(|r| r.3 == "1").count();
        let _ = writeln!(out, "BRF:{}\nBRH:{hit}\nend_of_record", rows.len());
    }
    out
}
