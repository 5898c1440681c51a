//! SARIF 2.1.0, the format code-scanning tools and CI systems show findings in: one log
//! with one run of fpforge, one rule per class of finding (`crash/null-dereference`,
//! `crash/division-by-zero`, `hang/fuel-exhausted`, ...) and one result per distinct
//! finding (by fingerprint: a fault reached from several entry functions of a library
//! run is one result, its entries listed), with the faulting instruction's location, the
//! call stack as related locations, `partialFingerprints` from the finding's fingerprint
//! (so a code-scanning service tracks it across runs), and the input and the command
//! that replays it as properties.
//!
//! Paths an output writes relative to the run's directory are URIs relative to the base
//! `SRCROOT`, which `originalUriBaseIds` sets to that directory; absolute paths are
//! `file://` URIs.

use crate::findings::SavedFinding;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The key of fpforge's fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "fpforgeFinding/v1";

/// One function's findings as an output directory holds them.
#[derive(Clone, Debug)]
pub struct EntryFindings {
    /// The entry function the run started from.
    pub entry: String,
    /// Its findings.
    pub findings: Vec<SavedFinding>,
}

/// The SARIF log of `entries`' findings, from a run started in `run_dir` by fpforge
/// `version`.
pub fn sarif_log(entries: &[EntryFindings], run_dir: &Path, version: &str) -> String {
    let distinct = distinct_findings(entries);
    let rules: Vec<String> = distinct
        .iter()
        .map(|(f, _)| rule_id(f))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let results: Vec<Value> = distinct
        .iter()
        .map(|(finding, entries)| {
            let rule = rule_id(finding);
            let index = rules.iter().position(|r| *r == rule).unwrap_or(0);
            result(finding, entries, (&rule, index))
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "fpforge",
                "version": version,
                "rules": rules.iter().map(|r| rule(r)).collect::<Vec<_>>(),
            }},
            "originalUriBaseIds": {"SRCROOT": {"uri": directory_uri(run_dir)}},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

/// The findings with distinct fingerprints, first seen first, each with every entry
/// function that reached it.
fn distinct_findings(entries: &[EntryFindings]) -> Vec<(&SavedFinding, Vec<&str>)> {
    let mut order: Vec<(&SavedFinding, Vec<&str>)> = Vec::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in entries {
        for finding in entry.findings.iter().filter(|f| f.is_defect()) {
            match seen.get(finding.fingerprint.as_str()) {
                Some(&i) => order[i].1.push(&entry.entry),
                None => {
                    seen.insert(&finding.fingerprint, order.len());
                    order.push((finding, vec![&entry.entry]));
                }
            }
        }
    }
    order
}

/// `crash/null-dereference`, `hang/fuel-exhausted`.
fn rule_id(finding: &SavedFinding) -> String {
    format!("{}/{}", finding.kind, finding.class)
}

fn rule(id: &str) -> Value {
    let (kind, class) = id.split_once('/').unwrap_or((id, ""));
    let words = class.replace('-', " ");
    let text = match kind {
        "hang" => "The function runs out of its step budget: a loop that does not end, or one \
                   longer than the budget."
            .to_string(),
        "value" => format!("The function returns a wrong value: {words}."),
        _ => format!("The function crashes: {words}."),
    };
    let level = match (kind, class) {
        ("hang", _) | ("value", "large-error") => "warning",
        _ => "error",
    };
    json!({
        "id": id,
        "name": format!("{kind} {words}"),
        "shortDescription": {"text": text},
        "defaultConfiguration": {"level": level},
    })
}

fn result(finding: &SavedFinding, entries: &[&str], (rule, index): (&str, usize)) -> Value {
    let mut location = json!({
        "logicalLocations": [{"name": finding.function, "kind": "function"}],
    });
    if let Some(physical) = physical_location(&finding.location) {
        location["physicalLocation"] = physical;
    }
    let related: Vec<Value> = finding
        .stack
        .iter()
        .enumerate()
        .filter_map(|(i, call)| {
            let (caller, at) = call.split_once(" at ")?;
            Some(json!({
                "id": i + 1,
                "message": {"text": format!("called from {caller}")},
                "physicalLocation": physical_location(at)?,
            }))
        })
        .collect();
    let mut value = json!({
        "ruleId": rule,
        "ruleIndex": index,
        "message": {"text": format!(
            "{} {} in {} at {}",
            finding.kind, finding.trap, finding.function, finding.location
        )},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {
            "input": finding.input,
            "replay": finding.replay,
            "entries": entries,
        },
    });
    if !related.is_empty() {
        value["relatedLocations"] = Value::Array(related);
    }
    value
}

/// The physical location of `file:line:col`.
fn physical_location(location: &str) -> Option<Value> {
    let mut parts = location.rsplitn(3, ':');
    let col: u32 = parts.next()?.parse().ok()?;
    let line: u32 = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    let mut artifact = json!({"uri": file_uri(file)});
    if Path::new(file).is_relative() {
        artifact["uriBaseId"] = json!("SRCROOT");
    }
    let mut region = json!({"startLine": line.max(1)});
    if col > 0 {
        region["startColumn"] = json!(col);
    }
    Some(json!({"artifactLocation": artifact, "region": region}))
}

/// `path` as a URI reference: relative paths stay relative, absolute ones get `file://`;
/// characters a URI cannot hold are percent-encoded.
fn file_uri(path: &str) -> String {
    let encoded: String = path
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"/-._~+,=@:".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    if path.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

/// The URI of a directory (ending in `/`, as SARIF requires of a base).
fn directory_uri(dir: &Path) -> String {
    let text = dir.display().to_string();
    let uri = file_uri(&text);
    if uri.ends_with('/') {
        uri
    } else {
        uri + "/"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(fingerprint: &str, location: &str) -> SavedFinding {
        SavedFinding {
            kind: "crash".into(),
            trap: "null pointer dereference at 0x8".into(),
            class: "null-dereference".into(),
            function: "f".into(),
            location: location.into(),
            stack: vec!["g at src/g.c:9:5".into()],
            file: "crashes/1.txt".into(),
            input: "1".into(),
            fingerprint: fingerprint.into(),
            replay: "fpforge run src/f.c -f g -- 1".into(),
        }
    }

    #[test]
    fn one_result_per_fingerprint_with_every_entry_that_reached_it() {
        let entries = [
            EntryFindings {
                entry: "g".into(),
                findings: vec![saved("00000000000000aa", "src/f.c:3:7")],
            },
            EntryFindings {
                entry: "h".into(),
                findings: vec![
                    saved("00000000000000aa", "src/f.c:3:7"),
                    saved("00000000000000bb", "/abs/dir x/f.c:4:1"),
                ],
            },
        ];
        let log: Value =
            serde_json::from_str(&sarif_log(&entries, Path::new("/run"), "0.1")).unwrap();
        let run = &log["runs"][0];
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 2);
        assert_eq!(results[0]["properties"]["entries"], json!(["g", "h"]));
        assert_eq!(results[0]["ruleId"], "crash/null-dereference");
        let artifact = &results[0]["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(artifact["uri"], "src/f.c");
        assert_eq!(artifact["uriBaseId"], "SRCROOT");
        let absolute = &results[1]["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(absolute["uri"], "file:///abs/dir%20x/f.c");
        assert_eq!(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///run/");
        assert_eq!(
            results[1]["partialFingerprints"][FINGERPRINT_KEY],
            "00000000000000bb"
        );
    }
}
