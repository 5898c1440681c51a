//! `report.html` as a browser shows it: headless Chromium (apt `chromium`, which
//! `scripts/setup.sh` installs) loads the page of a `cover`, an `explore` and an
//! `accuracy` run; the DOM it builds holds the figures of `coverage.json` /
//! `report.json` and every side and trap target with its status (the guards' `safe`
//! sides, the normal path, are not shown); a screenshot of each page is saved
//! under `target/report-screenshots/` for a person to look at (the path is printed).

use crate::accuracy::accuracy;
use crate::common::{coverage_sides, fpforge_on_gauge, json_file, stderr, trap_sides};
use crate::library::on_library;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the screenshots go: `target/report-screenshots/` beside the binary's profile.
fn screenshot_dir() -> PathBuf {
    let binary = Path::new(env!("CARGO_BIN_EXE_fpforge"));
    let dir = binary
        .ancestors()
        .nth(2)
        .unwrap()
        .join("report-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Loads `page` in headless Chromium: returns the DOM it built, and saves a screenshot
/// as `NAME.png` (printing its path).
fn load_in_chromium(page: &Path, name: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let screenshot = screenshot_dir().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&screenshot);
    let run = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg("--window-size=1280,2000")
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .output();
    let run = match run {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            panic!("chromium is not installed: run scripts/setup.sh (apt-get install chromium)")
        }
        run => run.expect("chromium runs"),
    };
    assert!(run.status.success(), "chromium: {}", stderr(&run));
    assert!(screenshot.exists(), "chromium wrote no screenshot");
    println!("screenshot of {name}: {}", screenshot.display());
    String::from_utf8(run.stdout).expect("the DOM is UTF-8")
}

/// The element whose `id` is `id`: its start tag and the text right after it.
fn element<'d>(dom: &'d str, id: &str) -> (&'d str, &'d str) {
    let at = dom
        .find(&format!(" id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element with id {id}"));
    let start = dom[..at].rfind('<').unwrap();
    let end = at + dom[at..].find('>').unwrap();
    let text = &dom[end + 1..];
    (&dom[start..=end], &text[..text.find('<').unwrap()])
}

/// The text of the element `id`.
fn text<'d>(dom: &'d str, id: &str) -> &'d str {
    element(dom, id).1
}

/// The `data-value` of the element `id`.
fn data_value<'d>(dom: &'d str, id: &str) -> &'d str {
    let tag = element(dom, id).0;
    let value = tag
        .split(" data-value=\"")
        .nth(1)
        .unwrap_or_else(|| panic!("{tag} has no data-value"));
    &value[..value.find('"').unwrap()]
}

/// An error figure of `report.json` (`null` when infinite) against the page's
/// `data-value` (`inf`).
fn same_error(page: &str, json: &serde_json::Value) -> bool {
    match json.as_f64() {
        Some(v) => page.parse::<f64>() == Ok(v),
        None => page == "inf",
    }
}

/// Runs `command` on `gauge` and checks its page against its `coverage.json`.
fn check_coverage_page(command: &str) {
    let dir = tempfile::tempdir().unwrap();
    let run = fpforge_on_gauge(command, dir.path(), &[]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let coverage = json_file(&dir.path().join("coverage.json"));
    let dom = load_in_chromium(&dir.path().join("report.html"), &format!("{command}-gauge"));

    for field in ["function", "engine", "stop"] {
        assert_eq!(text(&dom, field), coverage[field], "{field}");
    }
    assert_eq!(data_value(&dom, "finished"), "true");
    let seconds: f64 = data_value(&dom, "seconds").parse().unwrap();
    assert_eq!(seconds, coverage["seconds"].as_f64().unwrap());
    for field in [
        "sides",
        "covered",
        "infeasible",
        "not_reached",
        "tests",
        "crashes",
        "hangs",
    ] {
        let shown: u64 = text(&dom, field).parse().unwrap();
        assert_eq!(shown, coverage[field].as_u64().unwrap(), "{field}");
    }
    for field in ["targets", "reached", "infeasible", "not_reached"] {
        let shown: u64 = text(&dom, &format!("traps_{field}")).parse().unwrap();
        assert_eq!(
            shown,
            coverage["traps"][field].as_u64().unwrap(),
            "traps {field}"
        );
    }
    let traps = trap_sides(&coverage)
        .into_iter()
        .filter(|t| t["arm"] == "trap");
    let sides: Vec<&serde_json::Value> =
        coverage_sides(&coverage).into_iter().chain(traps).collect();
    assert!(
        sides.iter().any(|side| side["arm"] == "trap"),
        "gauge has trap targets"
    );
    assert_eq!(dom.matches(" data-side=\"").count(), sides.len());
    for side in sides {
        let (name, status) = (side["side"].as_str().unwrap(), side["status"].as_str());
        let shown = format!(" data-side=\"{name}\" data-status=\"{}\"", status.unwrap());
        assert_eq!(dom.matches(&shown).count(), 1, "{shown}");
    }
    for finding in coverage["findings"].as_array().unwrap() {
        let file = finding["file"].as_str().unwrap();
        assert!(dom.contains(&format!(" data-finding=\"{file}\"")), "{file}");
        let replay = format!("-f gauge -- {}", finding["input"].as_str().unwrap());
        assert!(dom.contains(&replay), "{replay}");
    }
}

#[test]
fn cover_page_in_chromium_shows_coverage_json() {
    check_coverage_page("cover");
}

#[test]
fn explore_page_in_chromium_shows_coverage_json() {
    check_coverage_page("explore");
}

#[test]
fn accuracy_page_in_chromium_shows_report_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let run = accuracy("naive_sum", &["--out", &out]);
    assert!(run.status.success(), "{}", stderr(&run));
    let report = json_file(&dir.path().join("report.json"));
    let dom = load_in_chromium(&dir.path().join("report.html"), "accuracy-naive_sum");

    assert_eq!(text(&dom, "function"), report["function"]);
    assert_eq!(text(&dom, "strategy"), report["strategy"]);
    assert_eq!(data_value(&dom, "finished"), "true");
    for field in ["precision", "evals", "targets_covered", "targets_total"] {
        let shown: u64 = text(&dom, field).parse().unwrap();
        assert_eq!(shown, report[field].as_u64().unwrap(), "{field}");
    }
    for field in ["rel_error", "ulp_error", "bits_lost"] {
        let shown = data_value(&dom, &format!("worst_{field}"));
        assert!(
            same_error(shown, &report["worst"][field]),
            "{field}: {shown}"
        );
    }
    let top = report["top"].as_array().unwrap();
    assert!(!top.is_empty());
    assert_eq!(dom.matches(" data-rank=\"").count(), top.len());
    for row in top {
        assert!(dom.contains(row["input"].as_str().unwrap()), "{row}");
    }
    let blame = report["blame"].as_array().unwrap();
    assert!(!blame.is_empty());
    assert_eq!(dom.matches(" data-site=\"").count(), blame.len());
    for row in blame {
        let site = row["site"].as_str().unwrap();
        assert!(dom.contains(&format!(" data-site=\"{site}\"")), "{site}");
    }
}

#[test]
fn index_page_in_chromium_shows_index_json_and_links_each_function() {
    let dir = tempfile::tempdir().unwrap();
    let run = on_library("cover", dir.path(), &["--all"]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let index = json_file(&dir.path().join("index.json"));
    let dom = load_in_chromium(&dir.path().join("report.html"), "cover-library-index");

    assert_eq!(text(&dom, "engine"), "cover");
    let totals = &index["totals"];
    for field in [
        "functions",
        "sides",
        "covered",
        "infeasible",
        "not_reached",
        "crashes",
        "hangs",
        "errors",
        "not_run",
    ] {
        let shown: u64 = text(&dom, field).parse().unwrap();
        assert_eq!(shown, totals[field].as_u64().unwrap(), "{field}");
    }
    let percent: f64 = data_value(&dom, "feasible_percent").parse().unwrap();
    assert_eq!(percent, totals["feasible_percent"].as_f64().unwrap());
    let rows = index["functions"].as_array().unwrap();
    assert_eq!(dom.matches(" data-function=\"").count(), rows.len());
    for row in rows {
        let name = row["function"].as_str().unwrap();
        let status = row["status"].as_str().unwrap();
        let start = dom
            .find(&format!(
                " data-function=\"{name}\" data-status=\"{status}\""
            ))
            .unwrap_or_else(|| panic!("no row for {name} ({status})"));
        let cells = &dom[start..start + dom[start..].find("</tr>").unwrap()];
        if row.get("directory").is_none() {
            assert!(cells.contains(row["error"].as_str().unwrap()), "{cells}");
            continue;
        }
        let link = format!("<a href=\"{name}/report.html\">");
        assert!(cells.contains(&link), "{cells}");
        assert!(dir.path().join(name).join("report.html").exists());
        for field in [
            "covered",
            "sides",
            "infeasible",
            "not_reached",
            "crashes",
            "tests",
        ] {
            let shown = format!(" data-field=\"{field}\">{}<", row[field]);
            assert!(cells.contains(&shown), "{name}: {shown} in {cells}");
        }
    }
}
