//! `coverage.lcov`: an lcov tracefile of one function's branch sides, in the records
//! `genhtml` and coverage services read.
//!
//! One record per source file (`SF`, absolute, so `genhtml` finds it from any directory,
//! unless a `--path-prefix-map` wrote it for another machine: [`SourcePaths::anchored`]): `FN`/`FNDA`/`FNF`/`FNH` for the functions whose sides
//! are included, `DA:line,count` for every line of their code (1 when a block holding it
//! runs, 0 otherwise) with `LF`/`LH`, and `BRDA:line,block,branch,taken` per side, where
//! block is the site id, branch the side's number within its site, and taken `1` when
//! covered, `0` when another side of the site is, `-` when the site was never reached;
//! then `BRF`/`BRH` and `end_of_record`. Trap guards' sides are no branch of the
//! program and have no `BRDA` record; they count for the lines that run.
//!
//! The blocks that run are derived from the sides: a called function's entry block runs,
//! a jump's target runs when its block does, and a branch's target when the side leading
//! to it is covered. The entry function is called when the run kept any input; a callee
//! (with `--deep`) when any of its sides is covered.

use fpforge_lower::SourcePaths;
use fpir::{Block, Func, Function, Module, SideReport, SideStatus, Terminator};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

/// What one source file's record holds.
#[derive(Default)]
struct FileRecord {
    /// `(line, name, called)` per function defined in the file.
    functions: Vec<(u32, String, bool)>,
    /// Line -> whether some block holding it runs.
    lines: BTreeMap<u32, bool>,
    /// `(line, site, side number, taken)` per side.
    branches: Vec<(u32, u32, u32, &'static str)>,
}

/// The tracefile of `sides` of `func` (see the module docs), its sources where `paths`
/// says; `ran` says whether the run kept any input (a test or a finding), which means
/// `func` was called.
pub fn lcov(
    (module, paths): (&Module, &SourcePaths),
    func: Func,
    sides: &[SideReport],
    ran: bool,
) -> String {
    let mut files: BTreeMap<String, FileRecord> = BTreeMap::new();
    let file_of = |id| module.files.get(id).cloned().unwrap_or_default();
    for (f, called) in functions_of(module, func, sides, ran) {
        let function = &module.funcs[f];
        let runs = running_blocks(function, f, called, sides, module);
        if let Some(loc) = function.loc {
            let record = files.entry(file_of(loc.file)).or_default();
            record
                .functions
                .push((loc.line, function.display_name().to_string(), called));
        }
        for (b, block) in function.blocks.iter() {
            let locs = block.locs.iter().flatten().chain(block.term_loc.iter());
            for loc in locs.filter(|l| l.line > 0) {
                let record = files.entry(file_of(loc.file)).or_default();
                *record.lines.entry(loc.line).or_default() |= runs.contains(&b);
            }
        }
    }
    let (branches, _) = module.split_trap_targets(sides);
    for (site, number, taken, loc) in branch_rows(module, &branches) {
        let record = files.entry(file_of(loc.file)).or_default();
        record.branches.push((loc.line, site, number, taken));
    }
    let mut out = String::new();
    for (file, record) in &files {
        write_record(&mut out, &paths.anchored(file), record);
    }
    out
}

/// The functions whose sides are included (the entry first), and whether each is
/// called.
fn functions_of(module: &Module, func: Func, sides: &[SideReport], ran: bool) -> Vec<(Func, bool)> {
    let mut called: BTreeMap<Func, bool> = BTreeMap::new();
    called.insert(func, ran);
    for s in sides {
        let f = module.branch_sites[s.side.site].func;
        *called.entry(f).or_default() |= s.status.is_covered();
    }
    let mut order: Vec<(Func, bool)> = called.into_iter().collect();
    order.sort_by_key(|&(f, _)| (f != func, f));
    order
}

/// The blocks of `function` (id `f`) that run (see the module docs).
fn running_blocks(
    function: &Function,
    f: Func,
    called: bool,
    sides: &[SideReport],
    module: &Module,
) -> BTreeSet<Block> {
    let taken: HashMap<Block, Vec<Block>> = sides
        .iter()
        .filter(|s| s.status.is_covered() && module.branch_sites[s.side.site].func == f)
        .filter_map(|s| {
            let from = module.branch_sites[s.side.site].block;
            module.side_target(s.side).map(|to| (from, to))
        })
        .fold(HashMap::new(), |mut map, (from, to)| {
            map.entry(from).or_insert_with(Vec::new).push(to);
            map
        });
    let mut runs = BTreeSet::new();
    let mut todo: Vec<Block> = if called && !function.blocks.is_empty() {
        vec![Function::ENTRY]
    } else {
        Vec::new()
    };
    while let Some(b) = todo.pop() {
        if !runs.insert(b) {
            continue;
        }
        match &function.blocks[b].term {
            // A landing pad's run is not recorded: only the normal edge is known taken.
            Terminator::Jump(call) | Terminator::Invoke { normal: call, .. } => {
                todo.push(call.block)
            }
            Terminator::Br { .. } | Terminator::Switch { .. } => {
                todo.extend(taken.get(&b).into_iter().flatten().copied());
            }
            Terminator::Ret(_) | Terminator::Unreachable => {}
        }
    }
    runs
}

/// `(site number, side number within the site, taken, location)` per side with a location.
fn branch_rows(
    module: &Module,
    sides: &[SideReport],
) -> Vec<(u32, u32, &'static str, fpir::SrcLoc)> {
    let mut site_reached: BTreeMap<u32, bool> = BTreeMap::new();
    for s in sides {
        *site_reached.entry(s.side.site.0).or_default() |= s.status.is_covered();
    }
    let mut number: BTreeMap<u32, u32> = BTreeMap::new();
    let mut rows = Vec::new();
    for s in sides {
        let site = s.side.site.0;
        let n = number.entry(site).or_default();
        let taken = match s.status {
            SideStatus::Covered { .. } => "1",
            _ if site_reached[&site] => "0",
            _ => "-",
        };
        if let Some(loc) = module.branch_sites[s.side.site].loc {
            rows.push((site, *n, taken, loc));
        }
        *n += 1;
    }
    rows
}

fn write_record(out: &mut String, file: &str, record: &FileRecord) {
    let _ = writeln!(out, "TN:\nSF:{file}");
    for (line, name, _) in &record.functions {
        let _ = writeln!(out, "FN:{line},{name}");
    }
    for (_, name, called) in &record.functions {
        let _ = writeln!(out, "FNDA:{},{name}", u32::from(*called));
    }
    let hit_functions = record.functions.iter().filter(|f| f.2).count();
    let _ = writeln!(out, "FNF:{}\nFNH:{hit_functions}", record.functions.len());
    for (line, site, number, taken) in &record.branches {
        let _ = writeln!(out, "BRDA:{line},{site},{number},{taken}");
    }
    let hit = record.branches.iter().filter(|r| r.3 == "1").count();
    let _ = writeln!(out, "BRF:{}\nBRH:{hit}", record.branches.len());
    for (line, runs) in &record.lines {
        let _ = writeln!(out, "DA:{line},{}", u32::from(*runs));
    }
    let hit_lines = record.lines.values().filter(|&&r| r).count();
    let _ = writeln!(
        out,
        "LF:{}\nLH:{hit_lines}\nend_of_record",
        record.lines.len()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpir::{Arm, BranchSite, Side, Witness};

    /// `f`: bb0 branches to bb1 (T) or bb2 (F); both jump to bb3.
    const TEXT: &str = r#"file file0 "nowhere.c"
func f0 "f"(v0: i32) -> i32 !0:1:0 {
  const v1: i32 = 0
bb0:
  v2: i1 = icmp slt i32 v0, v1 !0:2:7
  br v2, bb1(), bb2() @br0 !0:2:3
bb1():
  jump bb3(v1) !0:3:5
bb2():
  jump bb3(v0) !0:4:5
bb3(v3: i32):
  ret v3 !0:5:3
}
"#;

    #[test]
    fn lines_run_through_covered_sides_and_jumps() {
        let m = fpir::parse_module(TEXT).unwrap();
        let side = |arm| Side {
            site: BranchSite(0),
            arm,
        };
        let sides = [
            SideReport {
                side: side(Arm::True),
                status: SideStatus::Covered {
                    witness: Witness::Test(0),
                },
            },
            SideReport {
                side: side(Arm::False),
                status: SideStatus::NotReached {
                    reason: Default::default(),
                },
            },
        ];
        let text = lcov((&m, &SourcePaths::default()), Func(0), &sides, true);
        for line in ["FN:1,f", "FNDA:1,f", "DA:2,1", "DA:3,1", "DA:4,0", "DA:5,1"] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
        assert!(
            text.contains("BRDA:2,0,0,1\nBRDA:2,0,1,0\nBRF:2\nBRH:1\n"),
            "{text}"
        );
        assert!(text.contains("LF:4\nLH:3\nend_of_record"), "{text}");
        let never = lcov((&m, &SourcePaths::default()), Func(0), &sides[1..], false);
        assert!(
            never.contains("FNDA:0,f") && never.contains("LH:0"),
            "{never}"
        );
    }
}
