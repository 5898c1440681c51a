//! The page of a `cover` or `explore` run: the totals of `coverage.json`, the crashes and
//! hangs, the source with its sides and trap targets, the sides no readable source line
//! holds, and the tests. Trap targets (the `trap` sides of the guards fpforge puts before
//! instructions that may trap) are shown apart from the program's sides: reached is a
//! finding, not reached is no gap in coverage, and they never mark a line; the guards'
//! `safe` sides (the normal path) are not shown.

use super::source::{function_lines, merge_ranges, with_leading_comment};
use super::{badge, code, page, tile, Sources};
use crate::coverage::{
    feasible_percent, infeasible_reason, miss_reason, status_word, Coverage, TrapCounts,
};
use crate::escape::escape;
use crate::findings::CrashRow;
use crate::labels;
use fpir::{FileId, Func, SideReport, SideStatus, SideTally, SrcLoc, TrapCheck, Witness};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// How a source line is marked, from least to most urgent: a line holding sides takes
/// the most urgent status among them; a line where a finding trapped is a finding's.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Mark {
    Covered,
    Infeasible,
    NotReached,
    Finding,
}

impl Mark {
    fn of(status: &SideStatus) -> Mark {
        match status {
            SideStatus::Covered { .. } => Mark::Covered,
            SideStatus::Infeasible { .. } => Mark::Infeasible,
            SideStatus::NotReached { .. } => Mark::NotReached,
        }
    }

    fn class(self) -> &'static str {
        match self {
            Mark::Covered => "covered",
            Mark::Infeasible => "infeasible",
            Mark::NotReached => "not-reached",
            Mark::Finding => "finding",
        }
    }
}

/// A side the page shows: one of the program's branch sides, or a trap target (with the
/// fault its guard tests for).
#[derive(Clone, Copy)]
struct Shown {
    report: SideReport,
    trap: Option<TrapCheck>,
}

/// What is shown under one source line: the sides of the sites on it and the findings
/// that trapped there (indices into the coverage's findings).
#[derive(Default)]
struct LineNotes {
    sides: Vec<Shown>,
    findings: Vec<usize>,
}

impl LineNotes {
    /// The line's mark: from the program's sides and the findings; none for a line that
    /// holds only trap targets.
    fn mark(&self) -> Option<Mark> {
        let sides = self
            .sides
            .iter()
            .filter(|s| s.trap.is_none())
            .map(|s| Mark::of(&s.report.status));
        let findings = self.findings.iter().map(|_| Mark::Finding);
        sides.chain(findings).max()
    }
}

/// Where each side and finding goes: under a line of a file, or (no location) nowhere.
struct Placement {
    lines: BTreeMap<(FileId, u32), LineNotes>,
    /// Sides without a source location.
    unlocated: Vec<Shown>,
    /// Line ranges of the functions the report is about, by file (the entry's first).
    files: Vec<(FileId, Vec<(u32, u32)>)>,
}

impl Placement {
    fn of(coverage: &Coverage<'_>) -> Placement {
        let module = coverage.module;
        let mut lines: BTreeMap<(FileId, u32), LineNotes> = BTreeMap::new();
        let mut unlocated = Vec::new();
        let (branches, traps) = coverage.split_sides();
        let traps = traps.into_iter().map(|report| Shown {
            report,
            trap: module.trap_check(report.side.site),
        });
        let shown = branches
            .into_iter()
            .map(|report| Shown { report, trap: None })
            .chain(traps);
        for side in shown {
            match module.branch_sites[side.report.side.site].loc {
                Some(loc) if loc.line > 0 => lines.entry(key(loc)).or_default().sides.push(side),
                _ => unlocated.push(side),
            }
        }
        for (k, finding) in coverage.findings.iter().enumerate() {
            if let Some(loc) = finding.loc.filter(|l| l.line > 0) {
                lines.entry(key(loc)).or_default().findings.push(k);
            }
        }
        let files = file_ranges(coverage, &lines);
        Placement {
            lines,
            unlocated,
            files,
        }
    }
}

fn key(loc: SrcLoc) -> (FileId, u32) {
    (loc.file, loc.line)
}

/// The functions the page is about: the entry, those whose sides are included, and
/// those where a finding trapped.
fn functions(coverage: &Coverage<'_>) -> BTreeSet<Func> {
    let module = coverage.module;
    let mut funcs = BTreeSet::from([coverage.func]);
    funcs.extend(
        coverage
            .sides
            .iter()
            .map(|s| module.branch_sites[s.side.site].func),
    );
    funcs.extend(
        coverage
            .findings
            .iter()
            .filter_map(|f| match module.lookup_func(&f.function) {
                fpir::FuncLookup::Found(func) => Some(func),
                _ => None,
            }),
    );
    funcs
}

/// Per file, the line ranges to show: every function of the page, and every line that
/// holds notes; the entry function's file first.
fn file_ranges(
    coverage: &Coverage<'_>,
    lines: &BTreeMap<(FileId, u32), LineNotes>,
) -> Vec<(FileId, Vec<(u32, u32)>)> {
    let module = coverage.module;
    let mut ranges: BTreeMap<FileId, Vec<(u32, u32)>> = BTreeMap::new();
    for f in functions(coverage) {
        if let Some((file, a, b)) = function_lines(&module.funcs[f]) {
            ranges.entry(file).or_default().push((a, b));
        }
    }
    for &(file, line) in lines.keys() {
        ranges.entry(file).or_default().push((line, line));
    }
    let entry_file = module.funcs[coverage.func].loc.map(|l| l.file);
    let mut files: Vec<(FileId, Vec<(u32, u32)>)> = ranges
        .into_iter()
        .map(|(file, r)| (file, merge_ranges(r)))
        .collect();
    files.sort_by_key(|(file, _)| Some(*file) != entry_file);
    files
}

/// The page of a `cover` or `explore` run (see the module docs of [`super`]); `sources`
/// keeps the source files read for earlier versions of the page.
pub fn coverage_page(coverage: &Coverage<'_>, sources: &mut Sources) -> String {
    let mut body = String::new();
    header(&mut body, coverage);
    body.push_str("<main>\n");
    totals(&mut body, coverage);
    if let Some(diagnostic) = coverage.diagnostic {
        let _ = writeln!(
            body,
            "<p id=\"diagnostic\"><strong>{}</strong></p>",
            escape(diagnostic)
        );
    }
    findings_section(&mut body, coverage.findings);
    let placement = Placement::of(coverage);
    let mut unplaced: Vec<(Shown, String)> = placement
        .unlocated
        .iter()
        .map(|&side| (side, "no source location".to_string()))
        .collect();
    for (file, ranges) in &placement.files {
        match sources.lines(coverage.module, *file) {
            Ok(lines) => {
                let shown = FileView {
                    coverage,
                    file: *file,
                    lines,
                    notes: &placement.lines,
                };
                unplaced.extend(shown.section(&mut body, ranges));
            }
            Err(why) => {
                let sides = placement.lines.range((*file, 0)..=(*file, u32::MAX));
                let why = why.to_string();
                unplaced.extend(sides.flat_map(|(_, n)| n.sides.iter().map(|&s| (s, why.clone()))));
            }
        }
    }
    unplaced_section(&mut body, coverage, &unplaced);
    tests_section(&mut body, coverage);
    body.push_str(
        "<footer>Written by fpforge. Side names are those <code>fpforge reach --branch</code> \
         accepts; statuses and totals are those of <code>coverage.json</code> \
         (docs/REPORTS.md).</footer>\n</main>\n",
    );
    let name = coverage.module.funcs[coverage.func].display_name();
    page(
        &format!("fpforge {}: {name}", coverage.engine_name()),
        &body,
    )
}

fn header(out: &mut String, coverage: &Coverage<'_>) {
    let name = coverage.module.funcs[coverage.func].display_name();
    let _ = writeln!(
        out,
        "<header class=\"top\">\n<h1><span class=\"tool\">fpforge <span id=\"engine\">{}</span></span> \
         <code id=\"function\">{}</code></h1>",
        coverage.engine_name(),
        escape(name)
    );
    let status = match coverage.ending {
        Some(ending) => format!(
            "<span id=\"finished\" data-value=\"true\">finished</span>: \
             <span id=\"stop\">{}</span> after <span id=\"seconds\" data-value=\"{}\">{:.2}</span> s",
            escape(&ending.stop),
            ending.elapsed.as_secs_f64(),
            ending.elapsed.as_secs_f64()
        ),
        None => "<span id=\"finished\" data-value=\"false\">still running</span>: \
                 this page is rewritten as tests are found"
            .to_string(),
    };
    let _ = writeln!(out, "<div class=\"sub\">{status}</div>\n</header>");
}

fn totals(out: &mut String, coverage: &Coverage<'_>) {
    let (branches, traps) = coverage.split_sides();
    let tally = SideTally::of(&branches);
    let sides = branches.len();
    let percent = feasible_percent(tally);
    out.push_str("<div class=\"tiles\">\n");
    let _ = writeln!(
        out,
        "<div class=\"tile headline\"><span class=\"n\" id=\"feasible_percent\" data-value=\"{percent}\">{percent:.1}%</span>\
         <span class=\"l\">feasible coverage</span></div>"
    );
    tile(out, "sides", sides, "branch sides", "");
    tile(out, "covered", tally.covered, "covered", "covered");
    tile(
        out,
        "infeasible",
        tally.infeasible,
        "infeasible",
        "infeasible",
    );
    tile(
        out,
        "not_reached",
        tally.not_reached,
        "not reached",
        "not-reached",
    );
    tile(out, "tests", coverage.inputs.len(), "tests", "");
    tile(
        out,
        "crashes",
        coverage.count_findings("crash"),
        "crashes",
        "finding",
    );
    tile(
        out,
        "hangs",
        coverage.count_findings("hang"),
        "hangs",
        "finding",
    );
    let undefined = coverage.count_findings("undefined");
    if undefined > 0 {
        tile(out, "undefined", undefined, "undefined calls", "");
    }
    if !traps.is_empty() {
        trap_tile(out, &TrapCounts::of(&traps));
    }
    out.push_str("</div>\n<div class=\"bar\">");
    for (count, class) in [
        (tally.covered, "covered"),
        (tally.infeasible, "infeasible"),
        (tally.not_reached, "not-reached"),
    ] {
        if count > 0 {
            let width = 100.0 * count as f64 / sides as f64;
            let _ = write!(
                out,
                "<span class=\"{class}\" style=\"width: {width:.3}%\"></span>"
            );
        }
    }
    out.push_str(
        "</div>\n<div class=\"legend\">\
         <span><span class=\"swatch covered\"></span>covered: an input takes the side</span>\
         <span><span class=\"swatch infeasible\"></span>infeasible: proved never taken</span>\
         <span><span class=\"swatch not-reached\"></span>not reached: no input found, no proof</span>\
         <span><span class=\"swatch finding\"></span>finding: an input crashes or hangs here</span>\
         </div>\n<p class=\"muted\">feasible coverage = covered / (sides &minus; infeasible), \
         what <code>--fail-under</code> compares",
    );
    if !traps.is_empty() {
        out.push_str(
            "; trap targets (checks fpforge puts before each instruction that may trap) \
             count apart: reached is a crash, not reached is no gap in coverage",
        );
    }
    out.push_str("</p>\n");
}

/// The trap targets' tile: how many, and how they ended (the `traps` object of
/// `coverage.json`, each count under its field's name).
fn trap_tile(out: &mut String, counts: &TrapCounts) {
    let _ = writeln!(
        out,
        "<div class=\"tile finding\"><span class=\"n\"><span id=\"traps_reached\">{}</span>\
         <span class=\"of\">/<span id=\"traps_targets\">{}</span></span></span>\
         <span class=\"l\">trap targets reached</span><span class=\"s\">\
         <span id=\"traps_infeasible\">{}</span> unreachable &middot; \
         <span id=\"traps_not_reached\">{}</span> open</span></div>",
        counts.reached, counts.targets, counts.infeasible, counts.not_reached
    );
}

/// `crash 1`, `hang 2`.
fn finding_name(finding: &CrashRow) -> String {
    format!("{} {}", finding.kind, finding.number)
}

/// The crashes and hangs of a run of `func`, with the command replaying each.
pub(super) fn findings_section(out: &mut String, findings: &[CrashRow]) {
    if findings.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"findings\">\n<h2>Crashes and hangs <span class=\"muted\">\
         inputs on which the function faults or runs out of fuel; kept out of inputs.txt \
         and regression.c</span></h2>\n<table class=\"list\">\n<tr><th>finding</th><th>what</th>\
         <th>where</th><th>input</th><th>replay</th></tr>"
    );
    for finding in findings {
        let _ = writeln!(
            out,
            "<tr data-finding=\"{file}\" data-kind=\"{kind}\"><td>{badge}<br>\
             <a class=\"mono\" href=\"{file}\">{file}</a></td><td>{trap}</td>\
             <td>{function} at {location}</td><td>{input}</td><td>{replay}</td></tr>",
            file = escape(&finding.file),
            kind = finding.kind,
            badge = badge("finding", &finding_name(finding)),
            trap = escape(&finding.trap),
            function = code(&finding.function),
            location = code(&finding.location),
            input = code(&finding.input),
            replay = code(&finding.replay),
        );
    }
    out.push_str("</table>\n</section>\n");
}

/// One source file's section.
struct FileView<'c, 'a> {
    coverage: &'c Coverage<'a>,
    file: FileId,
    lines: &'c [String],
    notes: &'c BTreeMap<(FileId, u32), LineNotes>,
}

impl FileView<'_, '_> {
    /// Writes the section of `ranges` (with the comment above each range's first line);
    /// returns the sides on lines the file does not have (it changed since compiling).
    fn section(&self, out: &mut String, ranges: &[(u32, u32)]) -> Vec<(Shown, String)> {
        let path = &self.coverage.module.files[self.file];
        let count = self.lines.len() as u32;
        let shown: Vec<(u32, u32)> = ranges
            .iter()
            .filter(|&&(a, _)| a <= count)
            .map(|&(a, b)| (with_leading_comment(self.lines, a), b.min(count)))
            .collect();
        let shown = merge_ranges(shown);
        let _ = writeln!(
            out,
            "<section class=\"file\">\n<h2><span class=\"mono\">{}</span></h2>\n<table class=\"src\">",
            escape(path)
        );
        for (k, &(a, b)) in shown.iter().enumerate() {
            if k > 0 {
                out.push_str("<tr class=\"gap\"><td class=\"ln\">&#8942;</td><td class=\"mark\"></td><td class=\"code\"></td></tr>\n");
            }
            for line in a..=b {
                self.line_row(out, line);
            }
        }
        out.push_str("</table>\n</section>\n");
        let beyond = format!("{path} has fewer lines than its debug information names");
        self.notes
            .range((self.file, count + 1)..=(self.file, u32::MAX))
            .flat_map(|(_, n)| n.sides.iter().map(|&s| (s, beyond.clone())))
            .collect()
    }

    fn line_row(&self, out: &mut String, line: u32) {
        let text = &self.lines[line as usize - 1];
        let notes = self.notes.get(&(self.file, line));
        let class = notes.and_then(LineNotes::mark).map_or("", Mark::class);
        let id = format!("{}-L{line}", self.file);
        let _ = writeln!(
            out,
            "<tr class=\"line {class}\" id=\"{id}\"><td class=\"ln\"><a href=\"#{id}\">{line}</a></td>\
             <td class=\"mark\"></td><td class=\"code\">{}</td></tr>",
            escape(text)
        );
        let Some(notes) = notes else { return };
        out.push_str("<tr class=\"notes\"><td class=\"ln\"></td><td class=\"mark\"></td><td class=\"code\">\n");
        for side in &notes.sides {
            side_note(out, self.coverage, side);
        }
        for &k in &notes.findings {
            finding_note(out, &self.coverage.findings[k]);
        }
        out.push_str("</td></tr>\n");
    }
}

/// One side under its line: name, status, and its witness or why it is open.
fn side_note(out: &mut String, coverage: &Coverage<'_>, side: &Shown) {
    let name = coverage.module.side_name(side.report.side);
    let _ = writeln!(
        out,
        "<div class=\"note\" data-side=\"{name}\" data-status=\"{}\"><span class=\"name mono\">{name}</span>{}\
         <span class=\"why\">{}</span></div>",
        status_word(&side.report.status),
        side_badge(side),
        side_detail(coverage, side),
        name = escape(&name),
    );
}

/// The badge of a side: the status word of `coverage.json` for the program's sides; for
/// a trap target `reached` (a finding), `proved unreachable` or `not reached`, the last
/// in a colour that does not count it as a gap.
fn side_badge(side: &Shown) -> String {
    let status = &side.report.status;
    match (side.trap, status) {
        (None, _) => badge(Mark::of(status).class(), status_word(status)),
        (Some(_), SideStatus::Covered { .. }) => badge("finding", "reached"),
        (Some(_), SideStatus::Infeasible { .. }) => badge("infeasible", "proved unreachable"),
        (Some(_), SideStatus::NotReached { .. }) => badge("open", "not reached"),
    }
}

/// What the page says about a side: its witness input, the proof, or why it is open (in
/// the summary's words), as HTML; a trap target first names the fault.
fn side_detail(coverage: &Coverage<'_>, side: &Shown) -> String {
    let Some(check) = side.trap else {
        return status_detail(coverage, &side.report.status);
    };
    let detail = match side.report.status {
        SideStatus::Covered {
            witness: Witness::Finding(k),
        } => match coverage.findings.get(k) {
            Some(f) => format!(
                "{} fails here: {}",
                escape(&finding_name(f)),
                code(&f.input)
            ),
            None => format!("finding {k} fails here"),
        },
        status => status_detail(coverage, &status),
    };
    format!("trap target, {}: {detail}", escape(check.label()))
}

/// What the page says about a side of this status, as HTML.
fn status_detail(coverage: &Coverage<'_>, status: &SideStatus) -> String {
    let input = |test: usize| {
        coverage
            .inputs
            .get(test)
            .map_or_else(String::new, |line| code(line))
    };
    match *status {
        SideStatus::Covered {
            witness: Witness::Test(test),
        } => format!("test {test}: {}", input(test)),
        SideStatus::Covered {
            witness: Witness::Finding(k),
        } => match coverage.findings.get(k) {
            Some(f) => format!(
                "taken by {} before it fails: {}",
                escape(&finding_name(f)),
                code(&f.input)
            ),
            None => format!("taken by finding {k}"),
        },
        SideStatus::Infeasible { method } => format!(
            "<b>{}</b>: {}",
            escape(labels::method(method)),
            escape(infeasible_reason(method))
        ),
        SideStatus::NotReached { reason } => {
            let why = escape(&miss_reason(&reason, coverage.ending.is_some())).into_owned();
            match reason.closest {
                Some(c) if c.test < coverage.inputs.len() => {
                    format!("{why}; test {}: {}", c.test, input(c.test))
                }
                _ => why,
            }
        }
    }
}

/// A finding under the line where it trapped.
fn finding_note(out: &mut String, finding: &CrashRow) {
    let _ = writeln!(
        out,
        "<div class=\"note\"><span class=\"name mono\"></span>{}<span class=\"why\">{}: {} \
         (<a href=\"{file}\">{file}</a>)</span></div>",
        badge("finding", &finding_name(finding)),
        escape(&finding.trap),
        code(&finding.input),
        file = escape(&finding.file),
    );
}

/// The sides no shown source line holds, with the reason.
fn unplaced_section(out: &mut String, coverage: &Coverage<'_>, unplaced: &[(Shown, String)]) {
    if unplaced.is_empty() {
        return;
    }
    out.push_str(
        "<section id=\"unplaced\">\n<h2>Sides without source</h2>\n<table class=\"list\">\n\
         <tr><th>side</th><th>location</th><th>status</th><th>why no source</th><th></th></tr>\n",
    );
    let module = coverage.module;
    for (side, why) in unplaced {
        let name = module.side_name(side.report.side);
        let location = module.describe_loc(module.branch_sites[side.report.side.site].loc);
        let _ = writeln!(
            out,
            "<tr data-side=\"{name}\" data-status=\"{}\"><td class=\"mono\">{name}</td><td>{}</td>\
             <td>{}</td><td class=\"warn\">{}</td><td>{}</td></tr>",
            status_word(&side.report.status),
            code(&location),
            side_badge(side),
            escape(why),
            side_detail(coverage, side),
            name = escape(&name),
        );
    }
    out.push_str("</table>\n</section>\n");
}

/// The tests, each with the sides it takes first.
fn tests_section(out: &mut String, coverage: &Coverage<'_>) {
    if coverage.inputs.is_empty() {
        return;
    }
    let mut credited: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for report in &coverage.split_sides().0 {
        if let SideStatus::Covered {
            witness: Witness::Test(test),
        } = report.status
        {
            credited
                .entry(test)
                .or_default()
                .push(coverage.module.side_name(report.side));
        }
    }
    let _ = writeln!(
        out,
        "<section id=\"tests\">\n<h2>Tests <span class=\"muted\">the lines of inputs.txt, \
         as <code>fpforge run</code> reads them</span></h2>\n<table class=\"list\">\n\
         <tr><th>test</th><th>input</th><th>witness of</th></tr>"
    );
    for (test, input) in coverage.inputs.iter().enumerate() {
        let sides = credited.get(&test).map_or(String::new(), |s| s.join(" "));
        let _ = writeln!(
            out,
            "<tr data-test=\"{test}\"><td class=\"num\">{test}</td><td>{}</td><td class=\"mono\">{}</td></tr>",
            code(input),
            escape(&sides)
        );
    }
    out.push_str("</table>\n</section>\n");
}
