//! The page of a run over several functions (`OUT/report.html` beside `index.json`): the
//! totals, then one row per function with its coverage, proved-infeasible and
//! not-reached sides, crashes, hangs, tests and time, linking to the function's own
//! page (`<function>/report.html`); a function that could not be tested or was not run
//! shows why.

use super::{badge, code, page, tile};
use crate::escape::escape;
use crate::index::{Index, IndexRow};
use std::fmt::Write as _;

/// The index page of `index` (see the module docs). Each row is a `<tr>` with
/// `data-function` and `data-status` (the status word of `index.json`), each count in a
/// cell whose `data-field` is the JSON field's name.
pub fn index_page(index: &Index) -> String {
    let totals = index.totals();
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header class=\"top\">\n<h1><span class=\"tool\">fpforge <span id=\"engine\">{}</span></span> \
         <span id=\"functions\">{}</span> functions</h1>\n<div class=\"sub\">\
         <span id=\"seconds\" data-value=\"{}\">{:.1}</span> s in all</div>\n</header>\n<main>",
        index.engine, totals.functions, index.seconds, index.seconds
    );
    body.push_str("<div class=\"tiles\">\n");
    let percent = totals.feasible_percent;
    let _ = writeln!(
        body,
        "<div class=\"tile headline\"><span class=\"n\" id=\"feasible_percent\" data-value=\"{percent}\">{percent:.1}%</span>\
         <span class=\"l\">feasible coverage</span></div>"
    );
    tile(&mut body, "sides", totals.sides, "branch sides", "");
    tile(&mut body, "covered", totals.covered, "covered", "covered");
    tile(
        &mut body,
        "infeasible",
        totals.infeasible,
        "infeasible",
        "infeasible",
    );
    tile(
        &mut body,
        "not_reached",
        totals.not_reached,
        "not reached",
        "not-reached",
    );
    tile(&mut body, "crashes", totals.crashes, "crashes", "finding");
    tile(&mut body, "hangs", totals.hangs, "hangs", "finding");
    tile(&mut body, "errors", totals.errors, "not testable", "");
    tile(&mut body, "not_run", totals.not_run, "not run", "");
    body.push_str("</div>\n");
    let _ = writeln!(
        body,
        "<section id=\"function-table\">\n<h2>Functions <span class=\"muted\">the rows of \
         index.json, in name order</span></h2>\n<table class=\"list\">\n<tr><th>function</th>\
         <th>status</th><th>feasible</th><th>covered</th><th>sides</th><th>infeasible</th>\
         <th>not reached</th><th>trap targets reached</th><th>crashes</th><th>hangs</th>\
         <th>tests</th><th>seconds</th><th>stop</th></tr>"
    );
    for row in &index.rows {
        function_row(&mut body, row);
    }
    body.push_str(
        "</table>\n</section>\n<footer>Written by fpforge. Each function's page holds its \
         sides, findings and tests; figures are those of <code>index.json</code> \
         (docs/REPORTS.md).</footer>\n</main>\n",
    );
    page(
        &format!("fpforge {}: {} functions", index.engine, totals.functions),
        &body,
    )
}

fn function_row(out: &mut String, row: &IndexRow) {
    let status = row.status();
    let _ = write!(
        out,
        "<tr data-function=\"{name}\" data-status=\"{status}\">",
        name = escape(&row.function)
    );
    let Some(counts) = row.counts() else {
        let _ = writeln!(
            out,
            "<td>{}</td><td>{}</td><td colspan=\"11\" class=\"warn\">{}</td></tr>",
            code(&row.function),
            badge("open", status),
            escape(row.error().unwrap_or_default())
        );
        return;
    };
    let percent = counts.feasible_percent();
    let class = if counts.crashes + counts.hangs > 0 {
        "finding"
    } else if counts.not_reached > 0 {
        "not-reached"
    } else {
        "covered"
    };
    let _ = write!(
        out,
        "<td><a href=\"{link}/report.html\">{name}</a></td><td>{badge}</td>\
         <td class=\"num\" data-field=\"feasible_percent\" data-value=\"{percent}\">{percent:.1}%</td>",
        link = escape(&row.directory),
        name = code(&row.function),
        badge = badge(class, status),
    );
    for (field, value) in [
        ("covered", counts.covered),
        ("sides", counts.sides),
        ("infeasible", counts.infeasible),
        ("not_reached", counts.not_reached),
        ("traps_reached", counts.traps.reached),
        ("crashes", counts.crashes),
        ("hangs", counts.hangs),
        ("tests", counts.tests),
    ] {
        let _ = write!(out, "<td class=\"num\" data-field=\"{field}\">{value}</td>");
    }
    let seconds = counts.seconds.unwrap_or_default();
    let _ = writeln!(
        out,
        "<td class=\"num\" data-field=\"seconds\" data-value=\"{seconds}\">{seconds:.2}</td><td>{}</td></tr>",
        escape(counts.stop.as_deref().unwrap_or_default())
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{RowOutcome, RunCounts, TrapTotals};

    #[test]
    fn rows_link_to_each_function_and_escape_names() {
        let counts = RunCounts {
            finished: true,
            stop: Some("time limit".into()),
            seconds: Some(1.0),
            sides: 4,
            covered: 3,
            infeasible: 0,
            not_reached: 1,
            traps: TrapTotals::default(),
            crashes: 1,
            hangs: 0,
            tests: 2,
        };
        let index = Index {
            engine: "cover",
            seconds: 3.0,
            rows: vec![
                IndexRow {
                    function: "f".into(),
                    directory: "f".into(),
                    outcome: RowOutcome::Ran(counts),
                },
                IndexRow {
                    function: "g".into(),
                    directory: "g".into(),
                    outcome: RowOutcome::Error("no <spec> fits".into()),
                },
            ],
        };
        let html = index_page(&index);
        assert!(html.contains("<a href=\"f/report.html\">"));
        assert!(html.contains("data-function=\"f\" data-status=\"finished\""));
        assert!(html.contains("data-field=\"covered\">3<"));
        assert!(html.contains("data-function=\"g\" data-status=\"error\""));
        assert!(html.contains("no &lt;spec&gt; fits"));
        assert!(html.contains("id=\"feasible_percent\" data-value=\"75\""));
    }
}
