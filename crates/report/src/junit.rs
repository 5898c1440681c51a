//! The JUnit XML file of a `cover` or `explore` run (`--junit FILE`), which CI servers
//! show as test results: one `<testsuite>` named after the function, one `<testcase>`
//! per branch side of the program (`classname` the function, `name` the side's name),
//! one per trap target the run did not reach, and one per crash or hang.
//!
//! A covered side passes (its witness input in `<system-out>`); an infeasible side is
//! `<skipped message="infeasible: METHOD"/>`; a side not reached is a `<failure>` whose
//! message is the reason in the summary's words; a crash or hang is an `<error>` with the
//! trap's message, its location, input, the command that replays it and the trap target
//! it reached, if any. A trap target is a check, not a side to cover: proved unreachable
//! it passes, not reached it is skipped (no gap in coverage), reached it is its finding's
//! error case. The counts are those of `coverage.json`: `tests` = sides + findings +
//! trap targets not reached by a finding, `failures` = not reached, `errors` =
//! findings, `skipped` = infeasible + trap targets not reached. The layout follows the
//! common JUnit schema (Jenkins' `junit-10.xsd`): `testsuites` > `testsuite` >
//! `testcase` with `skipped`, `error`, `failure`, `system-out` in that order.

use crate::coverage::{infeasible_reason, miss_reason, Coverage, TrapCounts};
use crate::escape::escape;
use crate::labels;
use fpir::{SideReport, SideStatus, SideTally, Witness};
use std::fmt::Write as _;

/// The JUnit XML of `coverage` (see the module docs).
pub fn junit_xml(coverage: &Coverage<'_>) -> String {
    let (branches, traps) = coverage.split_sides();
    let tally = SideTally::of(&branches);
    let trap_counts = TrapCounts::of(&traps);
    let name = escape(coverage.module.funcs[coverage.func].display_name()).into_owned();
    let errors = coverage.findings.len();
    let tests = branches.len() + errors + trap_counts.targets - trap_counts.reached;
    let skipped = tally.infeasible + trap_counts.not_reached;
    let time = coverage.ending.map_or(0.0, |e| e.elapsed.as_secs_f64());
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(
        "tests=\"{tests}\" failures=\"{}\" errors=\"{errors}\"",
        tally.not_reached
    );
    let _ = writeln!(
        xml,
        "<testsuites name=\"fpforge {engine}\" {counts} time=\"{time:.3}\">\n\
         <testsuite name=\"{name}\" {counts} skipped=\"{skipped}\" time=\"{time:.3}\">",
        engine = coverage.engine_name(),
    );
    let stop = coverage.ending.map_or("still running", |e| e.stop.as_str());
    let _ = writeln!(
        xml,
        "<properties>\n<property name=\"engine\" value=\"{}\"/>\n\
         <property name=\"stop\" value=\"{}\"/>\n</properties>",
        coverage.engine_name(),
        escape(stop)
    );
    for report in &branches {
        side_case(&mut xml, coverage, &name, report);
    }
    for report in &traps {
        trap_case(&mut xml, coverage, &name, report);
    }
    for (k, finding) in coverage.findings.iter().enumerate() {
        let replay = &finding.replay;
        let target = traps
            .iter()
            .find(|t| {
                t.status
                    == SideStatus::Covered {
                        witness: Witness::Finding(k),
                    }
            })
            .map_or(String::new(), |t| {
                format!("\ntrap target: {}", coverage.module.side_name(t.side))
            });
        let _ = writeln!(
            xml,
            "<testcase classname=\"{name}\" name=\"{kind} {number}\">\n\
             <error type=\"{kind}\" message=\"{trap}\">{trap} in {function} at {location}\n\
             input: {input}\nreplay: {replay}\nfile: {file}{target}</error>\n</testcase>",
            kind = finding.kind,
            number = finding.number,
            trap = escape(&finding.trap),
            function = escape(&finding.function),
            location = escape(&finding.location),
            input = escape(&finding.input),
            replay = escape(replay),
            file = escape(&finding.file),
        );
    }
    xml.push_str("</testsuite>\n</testsuites>\n");
    xml
}

/// The test case of one side.
fn side_case(xml: &mut String, coverage: &Coverage<'_>, class: &str, report: &SideReport) {
    let module = coverage.module;
    let side = escape(&module.side_name(report.side)).into_owned();
    let location =
        escape(&module.describe_loc(module.branch_sites[report.side.site].loc)).into_owned();
    let _ = writeln!(xml, "<testcase classname=\"{class}\" name=\"{side}\">");
    match report.status {
        SideStatus::Covered { witness } => {
            let input = match witness {
                Witness::Test(test) => coverage
                    .inputs
                    .get(test)
                    .map(|line| format!("test {test}: {line}")),
                Witness::Finding(k) => coverage
                    .findings
                    .get(k)
                    .map(|f| format!("{} {} (before it fails): {}", f.kind, f.number, f.input)),
            };
            let _ = writeln!(
                xml,
                "<system-out>{side} at {location} is taken by {}</system-out>",
                escape(&input.unwrap_or_default())
            );
        }
        SideStatus::Infeasible { method } => {
            let _ = writeln!(
                xml,
                "<skipped message=\"infeasible: {}\"/>\n<system-out>{side} at {location}: {}</system-out>",
                escape(labels::method(method)),
                escape(infeasible_reason(method))
            );
        }
        SideStatus::NotReached { reason } => {
            let why = escape(&miss_reason(&reason, coverage.ending.is_some())).into_owned();
            let _ = writeln!(
                xml,
                "<failure type=\"not reached\" message=\"{why}\">{side} at {location}: {}</failure>",
                escape(labels::miss(&reason))
            );
        }
    }
    xml.push_str("</testcase>\n");
}

/// The test case of a trap target, unless a finding reached it (that finding's error
/// case stands for it).
fn trap_case(xml: &mut String, coverage: &Coverage<'_>, class: &str, report: &SideReport) {
    let module = coverage.module;
    let check = module
        .trap_check(report.side.site)
        .map_or("trap", |c| c.label());
    let side = escape(&module.side_name(report.side)).into_owned();
    let location =
        escape(&module.describe_loc(module.branch_sites[report.side.site].loc)).into_owned();
    let outcome = match report.status {
        SideStatus::Covered { .. } => return,
        SideStatus::Infeasible { method } => format!(
            "<system-out>trap target {side} at {location} ({}) proved unreachable: {}: {}</system-out>",
            escape(check),
            escape(labels::method(method)),
            escape(infeasible_reason(method))
        ),
        SideStatus::NotReached { reason } => format!(
            "<skipped message=\"trap target not reached: {}\"/>\n<system-out>{side} at {location}: {}</system-out>",
            escape(check),
            escape(&miss_reason(&reason, coverage.ending.is_some()))
        ),
    };
    let _ = writeln!(
        xml,
        "<testcase classname=\"{class}\" name=\"{side}\">\n{outcome}\n</testcase>"
    );
}
