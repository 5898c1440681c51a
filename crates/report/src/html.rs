//! `report.html`: one self-contained page a person opens after a run (inline CSS, no
//! script, no network, no external font), written beside the JSON it shows.
//!
//! - [`coverage_page`]: for `cover` and `explore`, rewritten with `coverage.json`: the
//!   totals of `coverage.json`, the source of the function with each line that holds a
//!   branch site marked by the most urgent status of its sides (covered, infeasible, not
//!   reached; a line where a finding trapped is marked as a finding), every side with its
//!   witness input or the reason it is open, the trap targets apart, the crashes and
//!   hangs with the command that replays them, and the tests;
//! - [`final_accuracy_page`] and [`partial_accuracy_page`]: for `accuracy`, rewritten
//!   with `report.json` from the same data: the worst inputs with their errors and the
//!   operations to blame;
//! - [`index_page`]: for a run over several functions, written with `index.json`: one
//!   row per function, linking to its page.
//!
//! Every figure a test compares with the JSON sits in an element whose `id` is the JSON
//! field's name (`<span id="covered">12</span>`, exact values in `data-value`), every side
//! and trap target in an element with `data-side` and `data-status` (the status word of
//! `coverage.json`). Text from the user's files (source lines, names, messages, inputs)
//! goes through [`escape`].

mod accuracy_page;
mod coverage_page;
mod index_page;
mod source;

pub use accuracy_page::{final_accuracy_page, partial_accuracy_page};
pub use coverage_page::coverage_page;
pub use index_page::index_page;
pub use source::{function_lines, Sources};

use crate::escape::escape;
use std::fmt::{Display, Write as _};

/// The page's file name in an output directory.
pub const REPORT_HTML: &str = "report.html";

/// The style sheet of every page: status colours, a monospace source table, tiles.
const STYLE: &str = r#"
:root {
  --covered: #1a7f37; --covered-bg: #dafbe1;
  --infeasible: #57606a; --infeasible-bg: #eaeef2;
  --not-reached: #cf222e; --not-reached-bg: #ffebe9;
  --finding: #8250df; --finding-bg: #fbefff;
  --border: #d0d7de; --muted: #59636e; --text: #1f2328;
}
* { box-sizing: border-box; }
body { margin: 0; background: #f6f8fa; color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, .mono, table.src { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas,
  "Liberation Mono", "DejaVu Sans Mono", monospace; }
code { font-size: 12.5px; background: #eff1f3; border-radius: 4px; padding: 1px 5px;
  overflow-wrap: break-word; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { background: #24292f; color: #fff; padding: 18px 32px 16px; }
header.top h1 { margin: 0; font-size: 20px; font-weight: 600; }
header.top h1 code { background: #3d444d; color: #fff; font-size: 18px; }
header.top .sub { color: #c9d1d9; margin-top: 6px; }
header.top .tool { color: #9ea7b3; font-weight: 400; }
main { max-width: 1240px; margin: 0 auto; padding: 16px 32px 40px; }
.tiles { display: flex; flex-wrap: wrap; gap: 8px; margin: 4px 0 14px; }
.tile { background: #fff; border: 1px solid var(--border); border-radius: 8px;
  padding: 8px 14px 10px; min-width: 100px; }
.tile .n { display: block; font-size: 24px; font-weight: 600; line-height: 1.3; }
.tile .l { color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: .05em; }
.tile .s { display: block; color: var(--muted); font-size: 11.5px; }
.tile .of { color: var(--muted); font-size: 16px; font-weight: 400; }
.tile.covered .n { color: var(--covered); }
.tile.infeasible .n { color: var(--infeasible); }
.tile.not-reached .n { color: var(--not-reached); }
.tile.finding .n { color: var(--finding); }
.tile.headline { border-color: #8c959f; }
.bar { display: flex; height: 10px; border-radius: 5px; overflow: hidden; background: var(--border); }
.bar span { display: block; height: 100%; }
.bar .covered { background: var(--covered); }
.bar .infeasible { background: #afb8c1; }
.bar .not-reached { background: var(--not-reached); }
.legend { display: flex; flex-wrap: wrap; gap: 18px; color: var(--muted); font-size: 13px; margin: 10px 0 4px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px;
  vertical-align: -1px; margin-right: 6px; }
.swatch.covered { background: var(--covered); }
.swatch.infeasible { background: #afb8c1; }
.swatch.not-reached { background: var(--not-reached); }
.swatch.finding { background: var(--finding); }
section { background: #fff; border: 1px solid var(--border); border-radius: 8px; margin: 16px 0;
  overflow: hidden; }
section > h2 { font-size: 14px; font-weight: 600; margin: 0; padding: 9px 16px;
  background: #f6f8fa; border-bottom: 1px solid var(--border); }
section > h2 .muted, .muted { color: var(--muted); font-weight: 400; }
section > p { margin: 10px 16px; }
table { border-collapse: collapse; width: 100%; }
table.list th { text-align: left; font-size: 12px; color: var(--muted); font-weight: 600;
  padding: 6px 12px; border-bottom: 1px solid var(--border); }
table.list td { padding: 6px 12px; border-top: 1px solid #eaeef2; vertical-align: top; }
table.list td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.src { font-size: 12.5px; line-height: 1.55; }
table.src td { padding: 0; vertical-align: top; }
table.src td.ln { width: 1%; min-width: 48px; padding: 0 10px 0 16px; text-align: right;
  color: #8c959f; user-select: none; }
table.src td.ln a { color: inherit; }
table.src td.mark { width: 4px; min-width: 4px; }
table.src td.code { white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 12px; tab-size: 4; }
tr.covered td.mark { background: var(--covered); }
tr.covered td.code { background: var(--covered-bg); }
tr.infeasible td.mark { background: #afb8c1; }
tr.infeasible td.code { background: var(--infeasible-bg); }
tr.not-reached td.mark { background: var(--not-reached); }
tr.not-reached td.code { background: var(--not-reached-bg); }
tr.finding td.mark { background: var(--finding); }
tr.finding td.code { background: var(--finding-bg); }
tr.gap td { color: #8c959f; background: #f6f8fa; padding: 2px 0; }
tr.notes td.code { white-space: normal; padding: 4px 12px 8px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; font-size: 13px; }
.note { display: flex; gap: 10px; align-items: baseline; padding: 3px 0; }
.note .name { flex: none; min-width: 92px; font-weight: 600; }
.note .why { color: #31373d; }
.badge { display: inline-block; flex: none; padding: 0 8px; border-radius: 10px; font-size: 11.5px;
  font-weight: 600; white-space: nowrap; line-height: 18px; }
.badge.covered { background: var(--covered-bg); color: var(--covered); }
.badge.infeasible { background: var(--infeasible-bg); color: var(--infeasible); }
.badge.not-reached { background: var(--not-reached-bg); color: var(--not-reached); }
.badge.finding { background: var(--finding-bg); color: var(--finding); }
.badge.open { background: #fff; color: var(--muted); box-shadow: inset 0 0 0 1px var(--border); }
.warn { color: #9a6700; }
footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
"#;

/// A whole page: the document, its head (title, style sheet) and `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// A headline figure: the value in an element with the JSON field's name as its `id`.
fn tile(out: &mut String, id: &str, value: impl Display, label: &str, class: &str) {
    let _ = writeln!(
        out,
        "<div class=\"tile {class}\"><span class=\"n\" id=\"{id}\">{}</span><span class=\"l\">{label}</span></div>",
        escape(&value.to_string())
    );
}

/// A status badge.
fn badge(class: &str, text: &str) -> String {
    format!("<span class=\"badge {class}\">{}</span>", escape(text))
}

/// `text` as inline code.
fn code(text: &str) -> String {
    format!("<code>{}</code>", escape(text))
}
