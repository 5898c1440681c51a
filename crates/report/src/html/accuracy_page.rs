//! The page of an `accuracy` run, drawn from the data `report.json` is serialized from:
//! the run's settings (the oracle first) and counts, the wrong special values and poles,
//! the worst inputs with their errors (under the ulps metric, ulps first and whether
//! each result is correctly rounded), the plot of `errors.svg` once the run finished,
//! the worst input on the reference's own path, and the operations to blame with their
//! source lines.

use super::coverage_page::findings_section;
use super::{code, page, tile, Sources};
use crate::accuracy::{
    top_rows, ulps_text, AccuracyProgress, ErrorRow, ReportJson, RunInfo, Significance, SpecialRow,
};
use crate::errors_svg::errors_svg;
use crate::escape::escape;
use fpforge_accuracy::{AccuracyReport, ErrorMetric};
use fpforge_lower::SourcePaths;
use fpir::Module;
use std::fmt::Write as _;

/// `report.html` while the search runs: the worst inputs so far, worst first.
pub fn partial_accuracy_page(
    info: RunInfo<'_>,
    progress: AccuracyProgress,
    found: &[ErrorRow],
) -> String {
    render(&ReportJson::new(info, progress, found), None, None)
}

/// `report.html` of a finished run (`progress` says when the last worst input came);
/// the source lines it quotes are where `sources` says.
pub fn final_accuracy_page(
    info: RunInfo<'_>,
    progress: AccuracyProgress,
    (module, sources): (&Module, &SourcePaths),
    report: &AccuracyReport,
) -> String {
    let top = top_rows(module, report);
    let doc = ReportJson::finished(info, progress, module, report, &top);
    render(&doc, Some((module, sources)), Some(&errors_svg(report)))
}

/// The page of `doc`; once it finished, `run` (the module measured and where its sources
/// are) and the plot of the errors.
fn render(
    doc: &ReportJson<'_>,
    run: Option<(&Module, &SourcePaths)>,
    plot: Option<&str>,
) -> String {
    let mut body = String::new();
    header(&mut body, doc);
    body.push_str("<main>\n");
    totals(&mut body, doc);
    let ulps = Ulps(doc.metric == Some(ErrorMetric::Ulps.name()));
    // Wrong special values are the most serious findings of a run: they come first.
    special_section(&mut body, &doc.special_values, ulps);
    worst_section(&mut body, doc, ulps);
    if let Some(svg) = plot {
        let _ = writeln!(
            body,
            "<section id=\"errors_plot\">\n<h2>Error against the input <span class=\"muted\">a \
             sample of the evaluated inputs; the same picture as errors.svg</span></h2>\n{svg}</section>"
        );
    }
    // As in the text report: only a worst input that changed path needs its counterpart.
    if let (Some(row), true) = (&doc.worst_same_path, doc.worst.is_some_and(|w| w.diverged)) {
        let title = "Worst input whose reference run takes the same branches";
        single_section(&mut body, "worst_same_path", title, row, ulps);
    }
    blame_section(&mut body, doc, run);
    if run.is_some() {
        findings_section(&mut body, doc.findings);
    }
    body.push_str(
        "<footer>Written by fpforge. Errors are measured against the oracle named at the top; \
         the figures are those of <code>report.json</code> (docs/REPORTS.md).</footer>\n</main>\n",
    );
    page(&format!("fpforge accuracy: {}", doc.function), &body)
}

fn header(out: &mut String, doc: &ReportJson<'_>) {
    let _ = writeln!(
        out,
        "<header class=\"top\">\n<h1><span class=\"tool\">fpforge accuracy</span> \
         <code id=\"function\">{}</code></h1>",
        escape(doc.function)
    );
    let state = match &doc.stop {
        Some(stop) if doc.finished => format!(
            "<span id=\"finished\" data-value=\"true\">finished</span>: <span id=\"stop\">{}</span>",
            escape(stop)
        ),
        _ if doc.finished => "<span id=\"finished\" data-value=\"true\">finished</span>".to_string(),
        _ => "<span id=\"finished\" data-value=\"false\">still running</span>: this page is \
              rewritten as worse inputs are found"
            .to_string(),
    };
    let verify = doc.verify_precision.map_or(String::new(), |p| {
        format!(", kept inputs verified at <span id=\"verify_precision\">{p}</span> bits")
    });
    let oracle = doc.oracle.as_deref().map_or(String::new(), |o| {
        format!(
            " · oracle: <span id=\"oracle\" data-kind=\"{}\">{}</span>",
            doc.oracle_kind.unwrap_or(""),
            escape(o)
        )
    });
    let _ = writeln!(
        out,
        "<div class=\"sub\">{state} · strategy <span id=\"strategy\">{}</span>{oracle} · MPFR \
         at <span id=\"precision\">{}</span> bits{verify}</div>\n</header>",
        doc.strategy, doc.precision
    );
}

/// An error figure: exact in `data-value`, short in the text, `∞` when infinite (`null`
/// in the JSON).
fn error_figure(id_attr: &str, value: Option<f64>, format: fn(f64) -> String) -> String {
    match value {
        Some(v) => format!("<span {id_attr} data-value=\"{v}\">{}</span>", format(v)),
        None => format!("<span {id_attr} data-value=\"inf\">&infin;</span>"),
    }
}

fn sci(v: f64) -> String {
    format!("{v:.3e}")
}

fn one_decimal(v: f64) -> String {
    format!("{v:.1}")
}

/// Whether the run ranks errors in ulps: then ulps lead every table and the tiles, and
/// each row says whether its result is correctly rounded.
#[derive(Clone, Copy)]
struct Ulps(bool);

fn totals(out: &mut String, doc: &ReportJson<'_>) {
    out.push_str("<div class=\"tiles\">\n");
    if let Some(worst) = doc.worst {
        type Figure = (&'static str, Option<f64>, &'static str, fn(f64) -> String);
        let figures: [Figure; 3] = if doc.metric == Some(ErrorMetric::Ulps.name()) {
            [
                (
                    "ulp_error",
                    worst.ulp_error,
                    "worst error in ulps",
                    ulps_text,
                ),
                ("rel_error", worst.rel_error, "relative error", sci),
                ("bits_lost", worst.bits_lost, "bits lost", one_decimal),
            ]
        } else {
            [
                ("rel_error", worst.rel_error, "worst relative error", sci),
                ("ulp_error", worst.ulp_error, "ulps", sci),
                ("bits_lost", worst.bits_lost, "bits lost", one_decimal),
            ]
        };
        for (id, value, label, format) in figures {
            let _ = writeln!(
                out,
                "<div class=\"tile not-reached\"><span class=\"n\">{}</span><span class=\"l\">{label}</span></div>",
                error_figure(&format!("id=\"worst_{id}\""), value, format)
            );
        }
    }
    tile(out, "evals", doc.evals, "inputs evaluated", "");
    let _ = writeln!(
        out,
        "<div class=\"tile\"><span class=\"n\" id=\"elapsed_s\" data-value=\"{}\">{:.2} s</span>\
         <span class=\"l\">search time</span></div>",
        doc.elapsed_s, doc.elapsed_s
    );
    let _ = writeln!(
        out,
        "<div class=\"tile covered\"><span class=\"n\"><span id=\"targets_covered\">{}</span>/<span \
         id=\"targets_total\">{}</span></span><span class=\"l\">FPGen checks covered</span></div>",
        doc.targets_covered, doc.targets_total
    );
    tile(out, "top", doc.top.len(), "worst inputs kept", "");
    if doc.metric == Some(ErrorMetric::Ulps.name()) {
        let rounded = doc.top.iter().filter(|r| r.correctly_rounded).count();
        tile(
            out,
            "correctly_rounded",
            rounded,
            "of them correctly rounded",
            "",
        );
    }
    tile(out, "zeros_found", doc.zeros_found, "zeros found", "");
    tile(out, "poles_found", doc.poles_found, "poles found", "");
    let _ = writeln!(
        out,
        "</div>\n<p class=\"muted\">the last new worst input came after \
         <span id=\"worst_found_evals\">{}</span> inputs ({:.2} s)</p>",
        doc.worst_found_evals, doc.worst_found_s
    );
}

/// The column heads of [`row_cells`].
const ROW_HEADS: &str = "<th>output</th><th>input</th><th>computed</th><th>reference</th>\
     <th>relative error</th><th>ulps</th><th>bits lost</th><th>path</th>\
     <th>largest condition number</th>";

/// The column heads of [`row_cells`] under the ulps metric.
const ULPS_ROW_HEADS: &str = "<th>output</th><th>input</th><th>computed</th><th>reference</th>\
     <th>ulps</th><th>rounding</th><th>relative error</th><th>bits lost</th><th>path</th>\
     <th>largest condition number</th>";

/// The column heads of the run's metric.
fn row_heads(ulps: Ulps) -> &'static str {
    if ulps.0 {
        ULPS_ROW_HEADS
    } else {
        ROW_HEADS
    }
}

/// The cells of one measured input.
fn row_cells(row: &ErrorRow, ulps: Ulps) -> String {
    let path = if row.diverged {
        "<span class=\"badge not-reached\">diverged</span>"
    } else {
        "<span class=\"badge covered\">same</span>"
    };
    // Where Ziv's strategy found the error stable, under the figure.
    let stable = match (row.oracle_precision, row.stable) {
        (Some(p), Some(true)) => format!("<br><span class=\"muted\">stable at {p} bits</span>"),
        (Some(p), _) => format!("<br><span class=\"muted\">not yet stable at {p} bits</span>"),
        _ => String::new(),
    };
    let significance = match row.significance {
        Significance::Significant => "",
        Significance::BelowThreshold => "<br><span class=\"muted\">below threshold</span>",
    };
    let condition = match &row.condition_op {
        Some(op) => format!(
            "{}<br><span class=\"muted mono\">{}</span>",
            error_figure("class=\"cond\"", row.condition, sci),
            escape(op)
        ),
        None => String::new(),
    };
    let figures = if ulps.0 {
        let rounding = if row.correctly_rounded {
            "<span class=\"badge covered\" data-correctly-rounded=\"true\">correctly rounded</span>"
        } else {
            "<span class=\"badge not-reached\" data-correctly-rounded=\"false\">not correctly rounded</span>"
        };
        format!(
            "<td class=\"num\">{}{stable}</td><td>{rounding}</td><td class=\"num\">{}{significance}</td>",
            error_figure("class=\"ulp\"", row.ulp_error, ulps_text),
            error_figure("class=\"rel\"", row.rel_error, sci),
        )
    } else {
        format!(
            "<td class=\"num\">{}{stable}{significance}</td><td class=\"num\">{}</td>",
            error_figure("class=\"rel\"", row.rel_error, sci),
            error_figure("class=\"ulp\"", row.ulp_error, sci),
        )
    };
    format!(
        "<td class=\"mono\">{}</td><td>{}</td><td>{}<br><span class=\"muted mono\">{}</span></td>\
         <td class=\"mono\">{}</td>{figures}\
         <td class=\"num\">{}</td><td>{path}</td><td class=\"num\">{condition}</td>",
        escape(&row.output),
        code(&row.input),
        code(&row.computed_decimal),
        escape(&row.computed),
        escape(&row.reference),
        error_figure("class=\"bits\"", row.bits_lost, one_decimal),
    )
}

/// The wrong special values and poles, each with its kind and the function's status.
fn special_section(out: &mut String, rows: &[SpecialRow], ulps: Ulps) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"special_values\">\n<h2>Wrong special values and poles <span class=\"muted\">\
         NaN or infinite where the oracle is finite; a pole: the oracle is infinite or undefined \
         there, not an error</span></h2>\n<table class=\"list\">\n<tr><th>kind</th><th>status</th><th>the code</th>{}</tr>",
        row_heads(ulps)
    );
    for s in rows {
        let badge = if s.kind == "pole" {
            "muted"
        } else {
            "not-reached"
        };
        let status = s.row.status.map_or(String::new(), |st| st.to_string());
        let _ = writeln!(
            out,
            "<tr data-kind=\"{kind}\"><td><span class=\"badge {badge}\">{kind}</span></td>\
             <td class=\"num\">{status}</td><td>{answer}</td>{}</tr>",
            row_cells(&s.row, ulps),
            kind = escape(s.kind),
            answer = escape(s.code_answer.unwrap_or("")),
        );
    }
    out.push_str("</table>\n</section>\n");
}

fn worst_section(out: &mut String, doc: &ReportJson<'_>, ulps: Ulps) {
    let _ = writeln!(
        out,
        "<section id=\"worst\">\n<h2>Worst inputs <span class=\"muted\">worst first, one per region{} \
         (<span id=\"folded\">{}</span> near-duplicates folded), the lines of inputs.txt; \
         \"diverged\": the reference run took other branches</span></h2>",
        if ulps.0 { ", zero or pole" } else { "" },
        doc.folded
    );
    if doc.top.is_empty() {
        out.push_str("<p>No input ran to completion with a measurable error.</p>\n</section>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<table class=\"list\">\n<tr><th>#</th>{}</tr>",
        row_heads(ulps)
    );
    for (rank, row) in doc.top.iter().enumerate() {
        let _ = writeln!(
            out,
            "<tr data-rank=\"{rank}\"><td class=\"num\">{}</td>{}</tr>",
            rank + 1,
            row_cells(row, ulps)
        );
    }
    out.push_str("</table>\n</section>\n");
}

fn single_section(out: &mut String, id: &str, title: &str, row: &ErrorRow, ulps: Ulps) {
    let _ = writeln!(
        out,
        "<section id=\"{id}\">\n<h2>{}</h2>\n<table class=\"list\">\n<tr>{}</tr>\n<tr>{}</tr>\n</table>\n</section>",
        escape(title),
        row_heads(ulps),
        row_cells(row, ulps)
    );
}

/// The op sites of the worst input by error introduced, each with its source line and
/// a bar scaled to the largest, then the branch sites where the exact run diverged.
fn blame_section(out: &mut String, doc: &ReportJson<'_>, run: Option<(&Module, &SourcePaths)>) {
    if doc.blame.is_empty() && doc.divergences.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"blame\">\n<h2>Blame <span class=\"muted\">operations of the worst input by \
         error introduced (bits)</span></h2>\n<table class=\"list\">\n<tr><th>site</th><th>op</th>\
         <th>source</th><th>introduced</th><th></th><th>result error</th><th>execs</th>\
         <th>cancellations</th><th>precision losses</th></tr>"
    );
    let module = run.map(|(m, _)| m);
    let mut sources = Sources::new(run.map(|(_, s)| s.clone()).unwrap_or_default());
    let most = doc
        .blame
        .iter()
        .map(|r| r.introduced_bits)
        .fold(0.0, f64::max);
    for row in &doc.blame {
        let line = module.and_then(|m| {
            let loc = m.op_sites.get(row.site)?.loc?;
            let lines = sources.lines(m, loc.file).ok()?;
            lines.get(loc.line.checked_sub(1)? as usize).cloned()
        });
        let width = if most > 0.0 {
            100.0 * row.introduced_bits / most
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "<tr data-site=\"{site}\"><td class=\"mono\">{site}</td><td class=\"mono\">{op}</td>\
             <td>{location}<br>{line}</td><td class=\"num\" data-value=\"{bits}\">{bits:.1}</td>\
             <td style=\"width: 120px\"><div class=\"bar\"><span class=\"not-reached\" style=\"width: {width:.1}%\"></span></div></td>\
             <td class=\"num\">{:.1}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            row.result_bits,
            row.execs,
            row.cancellations,
            row.precision_losses,
            site = row.site,
            op = escape(&row.op),
            location = escape(&row.location),
            line = line.map_or(String::new(), |l| code(l.trim())),
            bits = row.introduced_bits,
        );
    }
    out.push_str("</table>\n");
    if !doc.divergences.is_empty() {
        let list: Vec<String> = doc
            .divergences
            .iter()
            .map(|d| format!("{} at {}", code(&d.site), escape(&d.location)))
            .collect();
        let _ = writeln!(
            out,
            "<p>Control flow diverges from the exact run at {}.</p>",
            list.join(", ")
        );
    }
    out.push_str("</section>\n");
}
