//! A run's findings after the fact: read back from its output directory (one function's,
//! or a run over several with a directory per function), told apart from the ones a
//! baseline already knows, and written as SARIF.
//!
//! A baseline is a text file with one known finding per line, its fingerprint first
//! (`fpforge baseline OUT > FILE` writes one; `#` starts a comment; what follows the
//! fingerprint on a line is for the reader):
//!
//! ```text
//! # fpforge baseline: findings known and accepted
//! 3f2a9c0d1e5b7a64 crash null-dereference scaled at src/faults.c:42:12
//! ```

use crate::error::{DriverError, Result};
use fpforge_report::findings::SavedFinding;
use fpforge_report::sarif::{sarif_log, EntryFindings};
use std::collections::BTreeSet;
use std::path::Path;

/// The files a function's directory holds its findings in: `coverage.json` (cover,
/// explore) or `report.json` (accuracy).
const RESULT_FILES: [&str; 2] = ["coverage.json", "report.json"];

/// The findings of the run in `out`, one entry per function, in directory order.
pub fn collect(out: &Path) -> Result<Vec<EntryFindings>> {
    if let Some(entry) = read_dir_findings(out)? {
        return Ok(vec![entry]);
    }
    let listing = std::fs::read_dir(out).map_err(|e| DriverError::io("read", out, e))?;
    let mut dirs: Vec<_> = listing
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    let mut entries = Vec::new();
    for dir in dirs {
        entries.extend(read_dir_findings(&dir)?);
    }
    Ok(entries)
}

/// The findings a function's directory lists, if it is one.
fn read_dir_findings(dir: &Path) -> Result<Option<EntryFindings>> {
    let Some(path) = RESULT_FILES
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
    else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|e| DriverError::io("read", &path, e))?;
    let invalid = |why: String| DriverError::Invalid(format!("{}: {why}", path.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    let entry = doc["function"].as_str().unwrap_or_default().to_string();
    // `findings[]`: crashes, hangs, undefined calls; `defects[]` (accuracy): wrong values.
    let mut findings: Vec<SavedFinding> = Vec::new();
    for list in ["findings", "defects"]
        .iter()
        .filter_map(|&key| doc.get(key))
    {
        let saved: Vec<SavedFinding> = serde_json::from_value(list.clone()).map_err(|e| {
            invalid(format!(
                "{e} (written by an fpforge before findings had fingerprints? run it again)"
            ))
        })?;
        findings.extend(saved);
    }
    Ok(Some(EntryFindings { entry, findings }))
}

/// The known findings' fingerprints.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    known: BTreeSet<String>,
}

impl Baseline {
    /// The baseline in `path`.
    pub fn read(path: &Path) -> Result<Baseline> {
        let text = std::fs::read_to_string(path).map_err(|e| DriverError::io("read", path, e))?;
        let mut known = BTreeSet::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let print = line.split_whitespace().next().unwrap_or_default();
            if !is_fingerprint(print) {
                return Err(DriverError::Invalid(format!(
                    "{}:{}: expected a finding's fingerprint (16 hex digits) first, found `{print}`",
                    path.display(),
                    number + 1
                )));
            }
            known.insert(print.to_ascii_lowercase());
        }
        Ok(Baseline { known })
    }

    /// The same baseline knowing `fingerprints` too (`[[accept]]` entries); an entry that
    /// is no fingerprint is named in the error.
    pub fn with_accepted<'a>(
        mut self,
        fingerprints: impl IntoIterator<Item = &'a str>,
    ) -> Result<Baseline> {
        for print in fingerprints {
            if !is_fingerprint(print) {
                return Err(DriverError::Invalid(format!(
                    "[[accept]] fingerprint `{print}`: expected 16 hex digits, as `fpforge baseline` prints"
                )));
            }
            self.known.insert(print.to_ascii_lowercase());
        }
        Ok(self)
    }

    /// Whether it knows `finding`.
    pub fn knows(&self, finding: &SavedFinding) -> bool {
        self.known.contains(&finding.fingerprint)
    }
}

/// Whether `text` reads as a finding's fingerprint: 16 hex digits.
fn is_fingerprint(text: &str) -> bool {
    text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The baseline file that accepts every finding of `entries`, each once.
pub fn baseline_text(entries: &[EntryFindings]) -> String {
    let mut text = String::from(
        "# fpforge baseline: findings known and accepted (fingerprint, then what it is)\n",
    );
    let mut seen = BTreeSet::new();
    let defects = entries
        .iter()
        .flat_map(|e| &e.findings)
        .filter(|f| f.is_defect());
    for finding in defects {
        if seen.insert(finding.fingerprint.as_str()) {
            text += &format!(
                "{} {} {} {} at {}\n",
                finding.fingerprint,
                finding.kind,
                finding.class,
                finding.function,
                finding.location
            );
        }
    }
    text
}

/// Distinct findings (by fingerprint) of a run, split by a baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Triage {
    /// Not in the baseline.
    pub new: usize,
    /// In it.
    pub known: usize,
}

/// How many of `entries`' distinct findings `baseline` knows.
pub fn triage(entries: &[EntryFindings], baseline: &Baseline) -> Triage {
    let mut seen = BTreeSet::new();
    let mut triage = Triage::default();
    let defects = entries
        .iter()
        .flat_map(|e| &e.findings)
        .filter(|f| f.is_defect());
    for finding in defects {
        if seen.insert(finding.fingerprint.as_str()) {
            if baseline.knows(finding) {
                triage.known += 1;
            } else {
                triage.new += 1;
            }
        }
    }
    triage
}

/// Writes the SARIF log of `entries` to `file`, for a run started in `run_dir`.
pub fn write_sarif(entries: &[EntryFindings], run_dir: &Path, file: &Path) -> Result<()> {
    let log = sarif_log(entries, run_dir, env!("CARGO_PKG_VERSION"));
    fpforge_report::write_atomic(file, &log).map_err(DriverError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(print: &str) -> SavedFinding {
        SavedFinding {
            kind: "crash".into(),
            trap: "abort called".into(),
            class: "abort".into(),
            function: "f".into(),
            location: "f.c:1:1".into(),
            stack: Vec::new(),
            file: "crashes/1.txt".into(),
            input: "0".into(),
            fingerprint: print.into(),
            replay: "fpforge run f.c -f f -- 0".into(),
        }
    }

    #[test]
    fn a_baseline_written_for_a_run_knows_each_of_its_findings_once() {
        let entries = vec![
            EntryFindings {
                entry: "f".into(),
                findings: vec![finding("00000000000000aa"), finding("00000000000000bb")],
            },
            EntryFindings {
                entry: "g".into(),
                findings: vec![finding("00000000000000aa")],
            },
        ];
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("baseline.txt");
        std::fs::write(&file, baseline_text(&entries[..1])).unwrap();
        let baseline = Baseline::read(&file).unwrap();
        assert_eq!(triage(&entries, &baseline), Triage { new: 0, known: 2 });
        let more = [EntryFindings {
            entry: "h".into(),
            findings: vec![finding("00000000000000cc")],
        }];
        assert_eq!(triage(&more, &baseline), Triage { new: 1, known: 0 });
        std::fs::write(&file, "not-a-fingerprint crash\n").unwrap();
        let error = Baseline::read(&file).unwrap_err().to_string();
        assert!(error.contains("baseline.txt:1:"), "{error}");
    }
}
