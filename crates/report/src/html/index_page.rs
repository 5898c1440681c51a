//! The page of a run over several functions (`OUT/report.html` beside `index.json`): the
//! totals, then one row per function with its coverage, proved-infeasible and
//! not-reached sides, crashes, hangs, tests and time, linking to the function's own
//! page (`<function>/report.html`); a function that could not be tested or was not run
//! shows why. An `accuracy` run's page shows each function's worst input and its
//! errors, the evaluations, crashes, hangs and time instead.

use super::{badge, code, page, tile};
use crate::escape::escape;
use crate::index::{AccuracyCounts, Index, IndexRow, Measure};
use std::fmt::Write as _;

/// The index page of `index` (see the module docs). Each row is a `<tr>` with
/// `data-function` and `data-status` (the status word of `index.json`), each count in a
/// cell whose `data-field` is the JSON field's name.
pub fn index_page(index: &Index) -> String {
    let totals = index.totals();
    let mut body = String::new();
    let shard = index.shard.as_ref().map_or(String::new(), |shard| {
        format!(
            ", <span id=\"shard\">shard {} of {}</span> of {} functions (fpforge merge joins the shards)",
            shard.index,
            shard.count,
            shard.selected.len()
        )
    });
    let _ = writeln!(
        body,
        "<header class=\"top\">\n<h1><span class=\"tool\">fpforge <span id=\"engine\">{}</span></span> \
         <span id=\"functions\">{}</span> functions</h1>\n<div class=\"sub\">\
         <span id=\"seconds\" data-value=\"{}\">{:.1}</span> s in all{shard}</div>\n</header>\n<main>",
        index.engine, totals.functions, index.seconds, index.seconds
    );
    match index.measure() {
        Measure::Coverage => coverage_tables(&mut body, index),
        Measure::Accuracy => accuracy_tables(&mut body, index),
    }
    body.push_str(
        "</table>\n</section>\n<footer>Written by fpforge. Each function's page holds its \
         details; figures are those of <code>index.json</code> (docs/REPORTS.md).</footer>\n</main>\n",
    );
    page(
        &format!("fpforge {}: {} functions", index.engine, totals.functions),
        &body,
    )
}

/// The coverage tiles and the start of the function table, with its rows.
fn coverage_tables(body: &mut String, index: &Index) {
    let totals = index.totals();
    body.push_str("<div class=\"tiles\">\n");
    let percent = totals.feasible_percent;
    let _ = writeln!(
        body,
        "<div class=\"tile headline\"><span class=\"n\" id=\"feasible_percent\" data-value=\"{percent}\">{percent:.1}%</span>\
         <span class=\"l\">feasible coverage</span></div>"
    );
    tile(body, "sides", totals.sides, "branch sides", "");
    tile(body, "covered", totals.covered, "covered", "covered");
    tile(
        body,
        "infeasible",
        totals.infeasible,
        "infeasible",
        "infeasible",
    );
    tile(
        body,
        "not_reached",
        totals.not_reached,
        "not reached",
        "not-reached",
    );
    closing_tiles(
        body,
        [totals.crashes, totals.hangs, totals.errors, totals.not_run],
    );
    table_head(
        body,
        "<th>feasible</th><th>covered</th><th>sides</th><th>infeasible</th>\
         <th>not reached</th><th>trap targets reached</th><th>crashes</th><th>hangs</th>\
         <th>tests</th>",
    );
    for row in &index.rows {
        function_row(body, row);
    }
}

/// The accuracy tiles and the start of the function table, with its rows.
fn accuracy_tables(body: &mut String, index: &Index) {
    let totals = index.accuracy_totals();
    body.push_str("<div class=\"tiles\">\n");
    if let Some(worst) = &totals.worst {
        let rel = worst.input.rel_error;
        let _ = writeln!(
            body,
            "<div class=\"tile headline\"><span class=\"n\" id=\"worst_rel_error\" data-value=\"{}\">{}</span>\
             <span class=\"l\">worst relative error, in {}</span></div>",
            rel.map_or("inf".to_string(), |r| r.to_string()),
            error_text(rel),
            code(&worst.function)
        );
    }
    tile(body, "evals", totals.evals, "inputs evaluated", "");
    closing_tiles(
        body,
        [totals.crashes, totals.hangs, totals.errors, totals.not_run],
    );
    table_head(
        body,
        "<th>relative error</th><th>ulps</th><th>bits lost</th>\
         <th>worst input</th><th>evaluations</th><th>crashes</th><th>hangs</th>",
    );
    for row in &index.rows {
        match row.measured() {
            Some(counts) => accuracy_row(body, row, counts),
            None => no_counts_row(body, row, 9),
        }
    }
}

/// The tiles every index ends with (crashes, hangs, not testable, not run), and the end
/// of the tiles.
fn closing_tiles(body: &mut String, [crashes, hangs, errors, not_run]: [usize; 4]) {
    tile(body, "crashes", crashes, "crashes", "finding");
    tile(body, "hangs", hangs, "hangs", "finding");
    tile(body, "errors", errors, "not testable", "");
    tile(body, "not_run", not_run, "not run", "");
    body.push_str("</div>\n");
}

/// The start of the function table: its heading and header row, `columns` between the
/// status and the seconds.
fn table_head(body: &mut String, columns: &str) {
    let _ = writeln!(
        body,
        "<section id=\"function-table\">\n<h2>Functions <span class=\"muted\">the rows of \
         index.json, in name order</span></h2>\n<table class=\"list\">\n<tr><th>function</th>\
         <th>status</th>{columns}<th>seconds</th><th>stop</th></tr>"
    );
}

/// An error as the page shows it (`inf` for `null`).
fn error_text(error: Option<f64>) -> String {
    error.map_or_else(|| "inf".to_string(), |e| format!("{e:.3e}"))
}

fn accuracy_row(out: &mut String, row: &IndexRow, counts: &AccuracyCounts) {
    let status = row.status();
    let class = if counts.crashes + counts.hangs > 0 {
        "finding"
    } else {
        "covered"
    };
    let _ = write!(
        out,
        "<tr data-function=\"{name}\" data-status=\"{status}\"><td><a href=\"{name}/report.html\">{code}</a></td><td>{badge}</td>",
        name = escape(&row.function),
        code = code(&row.function),
        badge = badge(class, status),
    );
    let worst = counts.worst.as_ref();
    let errors = [
        ("rel_error", worst.map(|w| w.rel_error)),
        ("ulp_error", worst.map(|w| w.ulp_error)),
        ("bits_lost", worst.map(|w| w.bits_lost)),
    ];
    for (field, value) in errors {
        let shown = value.map_or("-".to_string(), error_text);
        let _ = write!(out, "<td class=\"num\" data-field=\"{field}\">{shown}</td>");
    }
    let _ = write!(
        out,
        "<td data-field=\"input\">{}</td>",
        worst.map_or(String::new(), |w| code(&w.input))
    );
    for (field, value) in [
        ("evals", counts.evals),
        ("crashes", counts.crashes as u64),
        ("hangs", counts.hangs as u64),
    ] {
        let _ = write!(out, "<td class=\"num\" data-field=\"{field}\">{value}</td>");
    }
    let _ = writeln!(
        out,
        "<td class=\"num\" data-field=\"seconds\" data-value=\"{s}\">{s:.2}</td><td>{}</td></tr>",
        escape(counts.stop.as_deref().unwrap_or_default()),
        s = counts.seconds
    );
}

/// The row of a function that did not run: its name, status and why, across `span`
/// more columns.
fn no_counts_row(out: &mut String, row: &IndexRow, span: usize) {
    let _ = writeln!(
        out,
        "<tr data-function=\"{name}\" data-status=\"{status}\"><td>{code}</td><td>{badge}</td><td colspan=\"{span}\" class=\"warn\">{why}</td></tr>",
        name = escape(&row.function),
        status = row.status(),
        code = code(&row.function),
        badge = badge("open", row.status()),
        why = escape(row.error().unwrap_or_default())
    );
}

fn function_row(out: &mut String, row: &IndexRow) {
    let status = row.status();
    let Some(counts) = row.counts() else {
        no_counts_row(out, row, 11);
        return;
    };
    let _ = write!(
        out,
        "<tr data-function=\"{name}\" data-status=\"{status}\">",
        name = escape(&row.function)
    );
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
            findings: Vec::new(),
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
            shard: None,
        };
        let html = index_page(&index);
        assert!(!html.contains("id=\"shard\""));
        let shard = crate::index::ShardOf {
            index: 2,
            count: 3,
            run: "0".into(),
            selected: vec!["f".into(), "g".into(), "h".into()],
        };
        let split = index_page(&Index {
            shard: Some(shard),
            ..index.clone()
        });
        assert!(
            split.contains("<span id=\"shard\">shard 2 of 3</span> of 3 functions"),
            "{split}"
        );
        assert!(html.contains("<a href=\"f/report.html\">"));
        assert!(html.contains("data-function=\"f\" data-status=\"finished\""));
        assert!(html.contains("data-field=\"covered\">3<"));
        assert!(html.contains("data-function=\"g\" data-status=\"error\""));
        assert!(html.contains("no &lt;spec&gt; fits"));
        assert!(html.contains("id=\"feasible_percent\" data-value=\"75\""));
    }
}
