//! Helpers shared by the CLI test binaries.

/// The decisions a `fpforge run --json` report lists one by one, as `site:side`.
pub fn listed_decisions(report: &serde_json::Value) -> Vec<String> {
    report["branches"]
        .as_array()
        .expect("a branches list")
        .iter()
        .map(|b| {
            format!(
                "{}:{}",
                b["site"].as_str().unwrap(),
                b["outcome"].as_str().unwrap()
            )
        })
        .collect()
}
