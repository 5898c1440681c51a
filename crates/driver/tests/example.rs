//! The library-user example (`examples/cover_a_function.rs`) run as a test: it covers
//! a function of the bundled example into a directory, from a working directory that is
//! not the repository's, and its summary and files say the same as each other.

#[path = "../examples/cover_a_function.rs"]
#[allow(dead_code)]
mod example;

use std::path::PathBuf;

#[test]
fn the_example_covers_a_function_into_a_directory_and_prints_the_summary() {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/ieee_classify.c");
    let source = std::fs::canonicalize(source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("classify");
    let summary = example::cover(&source, "classify", &dir).expect("the example runs");
    assert!(summary.contains("classify: covered"), "{summary}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("coverage.json")).unwrap()).unwrap();
    assert_eq!(json["finished"], true);
    let covered = json["covered"].as_u64().unwrap();
    assert!(covered > 0);
    assert!(
        summary.contains(&format!("covered {covered}/")),
        "{summary}"
    );
    let inputs = std::fs::read_to_string(dir.join("inputs.txt")).unwrap();
    assert_eq!(
        inputs.lines().count() as u64,
        json["tests"].as_u64().unwrap()
    );
    for file in ["coverage.lcov", "regression.c", "report.html"] {
        assert!(dir.join(file).is_file(), "{file}");
    }
}
