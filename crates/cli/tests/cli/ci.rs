//! What a CI job reads from `cover` and `explore`: the JUnit file (`--junit`), parsed
//! back, counts what `coverage.json` counts and gives each side and trap target the
//! outcome of its status; `--fail-under` exits 4 below the threshold and 0 at or above
//! it, after every file is written, and crashes exit 3 whatever the coverage.

use crate::common::{coverage_sides, fpforge_on_gauge as gauge, json_file, stderr, trap_sides};

/// The feasible coverage of a `coverage.json`, in percent.
fn feasible_percent(coverage: &serde_json::Value) -> f64 {
    let count = |field: &str| coverage[field].as_u64().unwrap() as f64;
    100.0 * count("covered") / (count("sides") - count("infeasible"))
}

/// An attribute read as a count.
fn count(node: roxmltree::Node<'_, '_>, name: &str) -> u64 {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name}", node.tag_name().name()))
        .parse()
        .unwrap()
}

/// Checks the JUnit file against `coverage.json`: the counts of both levels, one test
/// case per side with the outcome of its status, one per trap target no finding reached
/// (passing when proved unreachable, skipped when not reached), none for the guards'
/// `safe` sides, one error per finding with its input.
fn check_junit(xml: &str, coverage: &serde_json::Value) {
    let doc = roxmltree::Document::parse(xml).expect("the JUnit file is well-formed XML");
    let suites = doc.root_element();
    assert_eq!(suites.tag_name().name(), "testsuites");
    let suite = suites
        .children()
        .find(|n| n.has_tag_name("testsuite"))
        .expect("a testsuite");
    assert_eq!(suite.attribute("name"), coverage["function"].as_str());
    let field = |name: &str| coverage[name].as_u64().unwrap();
    let trap_field = |name: &str| coverage["traps"][name].as_u64().unwrap();
    let findings = field("crashes") + field("hangs");
    let tests = field("sides") + findings + trap_field("targets") - trap_field("reached");
    for node in [suites, suite] {
        assert_eq!(count(node, "tests"), tests);
        assert_eq!(count(node, "failures"), field("not_reached"));
        assert_eq!(count(node, "errors"), findings);
    }
    let skipped = field("infeasible") + trap_field("not_reached");
    assert_eq!(count(suite, "skipped"), skipped);
    let cases: Vec<roxmltree::Node> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len() as u64, tests);
    let guards = trap_sides(coverage);
    assert!(!guards.is_empty(), "gauge has trap targets");
    for side in coverage_sides(coverage).into_iter().chain(guards) {
        let name = side["side"].as_str().unwrap();
        let case = cases.iter().find(|c| c.attribute("name") == Some(name));
        let (arm, status) = (side["arm"].as_str().unwrap(), side["status"].as_str());
        let case = match (arm, status.unwrap()) {
            ("safe", _) | ("trap", "covered") => {
                assert!(case.is_none(), "{name} has no test case of its own");
                continue;
            }
            _ => case.unwrap_or_else(|| panic!("no test case {name}")),
        };
        assert_eq!(case.attribute("classname"), coverage["function"].as_str());
        let outcome = |tag: &str| case.children().find(|n| n.has_tag_name(tag));
        match (arm, status.unwrap()) {
            ("trap", "infeasible") | (_, "covered") => assert!(
                outcome("failure").or(outcome("skipped")).is_none(),
                "{name} passes"
            ),
            ("trap", _) => {
                let skipped = outcome("skipped").expect("an open trap target is skipped");
                let message = skipped.attribute("message").unwrap();
                assert!(
                    message.starts_with("trap target not reached: "),
                    "{message}"
                );
            }
            (_, "infeasible") => {
                let skipped = outcome("skipped").expect("an infeasible side is skipped");
                let method = side["method"].as_str().unwrap();
                let message = format!("infeasible: {method}");
                assert_eq!(skipped.attribute("message"), Some(message.as_str()));
            }
            _ => assert!(outcome("failure").is_some(), "{name} fails"),
        }
    }
    let errors: Vec<roxmltree::Node> = cases
        .iter()
        .filter_map(|c| c.children().find(|n| n.has_tag_name("error")))
        .collect();
    assert_eq!(errors.len() as u64, findings);
    for (error, finding) in errors.iter().zip(coverage["findings"].as_array().unwrap()) {
        assert_eq!(error.attribute("message"), finding["trap"].as_str());
        let text = error.text().unwrap();
        let input = finding["input"].as_str().unwrap();
        assert!(text.contains(&format!("-f gauge -- {input}")), "{text}");
    }
}

#[test]
fn junit_counts_what_coverage_json_counts() {
    for command in ["cover", "explore"] {
        let dir = tempfile::tempdir().unwrap();
        let junit = dir.path().join("junit.xml");
        let out = dir.path().join("out");
        let run = gauge(command, &out, &["--junit", junit.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(3), "{command}: {}", stderr(&run));
        let coverage = json_file(&out.join("coverage.json"));
        assert_eq!(
            coverage["crashes"], 1,
            "{command} finds the read past the table"
        );
        check_junit(&std::fs::read_to_string(&junit).unwrap(), &coverage);
    }
}

#[test]
fn fail_under_exits_4_below_the_threshold_and_3_on_crashes() {
    // With mode in [0, 3] nothing crashes, and br7:T (a double whose square is exactly
    // 2) can never be covered, so the feasible coverage is below 100.
    let no_crash = ["--arg", "mode in [0, 3]", "--fail-under"];
    let dir = tempfile::tempdir().unwrap();
    let below = gauge("cover", dir.path(), &[&no_crash[..], &["100"]].concat());
    assert_eq!(below.status.code(), Some(4), "{}", stderr(&below));
    let coverage = json_file(&dir.path().join("coverage.json"));
    let percent = feasible_percent(&coverage);
    assert!((50.0..100.0).contains(&percent), "{coverage}");
    assert!(
        stderr(&below).contains(&format!(
            "error: feasible coverage {percent:.1}% is below --fail-under 100"
        )),
        "{}",
        stderr(&below)
    );
    for file in ["inputs.txt", "coverage.lcov", "report.html", "regression.c"] {
        assert!(dir.path().join(file).exists(), "{file} is written first");
    }

    let dir = tempfile::tempdir().unwrap();
    let above = gauge("cover", dir.path(), &[&no_crash[..], &["50"]].concat());
    assert_eq!(above.status.code(), Some(0), "{}", stderr(&above));
    assert!(!stderr(&above).contains("fail-under"), "{}", stderr(&above));

    let dir = tempfile::tempdir().unwrap();
    let crashes = gauge("explore", dir.path(), &["--fail-under", "100"]);
    assert_eq!(crashes.status.code(), Some(3), "{}", stderr(&crashes));
    assert!(stderr(&crashes).contains("is below --fail-under 100"));
}

#[test]
fn fail_under_is_a_percentage() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["101", "-1"] {
        let run = gauge("cover", dir.path(), &[&format!("--fail-under={bad}")]);
        assert_eq!(run.status.code(), Some(1));
        assert_eq!(
            stderr(&run),
            format!("error: --fail-under must be a percentage between 0 and 100, not {bad}\n")
        );
    }
}
