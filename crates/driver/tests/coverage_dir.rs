//! The coverage output directory on real runs: `cover` and `explore` on the same functions of
//! `tests/fixtures/cover/branchy.c` write `coverage.json` files that validate against one
//! JSON schema (`docs/schema/coverage.schema.json`), list the same sides under the same
//! names, and every side name reads back as its side (what `reach --branch` accepts);
//! files written while a run is still going validate too; the lcov file has a record per
//! branch side; `coverage.json` says `finished` only once every other file is final. The
//! module carries trap guards, as the CLI's does, so trap sites are in the files too.

use fpforge_cover::{cover_with, CoverConfig};
use fpforge_driver::out::CoverageOut;
use fpforge_engine::{Budget, Event};
use fpforge_explore::{explore, ExploreConfig};
use fpforge_report::coverage::Ending;
use fpforge_report::labels;
use fpforge_report::lcov::lcov;
use fpforge_report::replay::Replay;
use fpforge_spec::InputSpec;
use fpir::{InfeasibleMethod, Module, OpenReason};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/cover/branchy.c")
}

fn replay() -> Replay {
    Replay::new(&[fixture()], &Default::default())
}

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path = fixture();
        let mut module = fpforge_lower::load(&[path], &Default::default()).expect("fixture lowers");
        let funcs: Vec<fpir::Func> = module.funcs.keys().collect();
        fpir::guard::add_trap_guards(&mut module, &funcs).expect("guards");
        module
    })
}

fn schema() -> jsonschema::Validator {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/coverage.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn assert_valid(validator: &jsonschema::Validator, doc: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{doc:#}");
}

/// The side names of a `coverage.json`, each checked to read back as a side of the
/// module whose name it is.
fn side_names(doc: &serde_json::Value) -> Vec<String> {
    let m = module();
    let mut names = Vec::new();
    for site in doc["sites"].as_array().unwrap() {
        for side in site["sides"].as_array().unwrap() {
            let name = side["side"].as_str().unwrap();
            let parsed = m.parse_side(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(m.side_name(parsed), name);
            assert_eq!(parsed.site.to_string(), site["id"].as_str().unwrap());
            names.push(name.to_string());
        }
    }
    names
}

fn run_cover(func: &str, dir: &Path) -> serde_json::Value {
    let (m, f) = (module(), module().func_by_name(func).unwrap());
    let config = CoverConfig::default().with_seed(3);
    let budget = Budget::default().with_evals(Some(20_000));
    let spec = InputSpec::for_function(m, f, &[], &[]).unwrap();
    let mut out = CoverageOut::create(dir, "cover", (m, f), spec, replay()).unwrap();
    let validator = schema();
    let report = cover_with(m, f, &config, &budget, |event| {
        out.event(event);
        if let Event::Started { .. } = event {
            let running = read_json(&dir.join("coverage.json"));
            assert_eq!(running["finished"], false);
            assert_valid(&validator, &running, "cover while running");
        }
    })
    .unwrap();
    let summary = out
        .finish(&report.sides, &Ending::of_cover(&report))
        .unwrap()
        .text;
    assert!(summary.contains(&format!("{func}: covered")), "{summary}");
    let ran = !report.tests.is_empty() || !report.findings.is_empty();
    let lcov_text = lcov((m, replay().sources()), f, &report.sides, ran);
    let (branches, _) = m.split_trap_targets(&report.sides);
    assert_eq!(lcov_text.matches("BRDA:").count(), branches.len());
    assert_eq!(
        std::fs::read_to_string(dir.join("coverage.lcov")).unwrap(),
        lcov_text
    );
    read_json(&dir.join("coverage.json"))
}

fn run_explore(func: &str, dir: &Path) -> serde_json::Value {
    let (m, f) = (module(), module().func_by_name(func).unwrap());
    let spec = InputSpec::for_function(m, f, &[], &[]).unwrap();
    let config = ExploreConfig::default();
    let budget = Budget::default().with_time_limit(Some(Duration::from_secs(5)));
    let mut out = CoverageOut::create(dir, "explore", (m, f), spec.clone(), replay()).unwrap();
    let report = explore(m, f, spec, &config, &budget, |event| out.event(event)).unwrap();
    out.finish(&report.sides, &Ending::of_explore(&report))
        .unwrap();
    read_json(&dir.join("coverage.json"))
}

/// Documents that break the schema's rules are rejected.
fn assert_schema_is_strict(validator: &jsonschema::Validator, doc: &serde_json::Value) {
    let broken = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut d = doc.clone();
        edit(&mut d);
        !validator.is_valid(&d)
    };
    let first_side =
        |d: &mut serde_json::Value| -> serde_json::Value { d["sites"][0]["sides"][0].take() };
    assert!(broken(&|d| d["schema"] = 2.into()));
    assert!(broken(
        &|d| d["sites"][0]["sides"][0]["side"] = "br1:X".into()
    ));
    assert!(broken(&|d| {
        let mut side = first_side(d);
        side["status"] = "infeasible".into();
        side.as_object_mut().unwrap().remove("method");
        d["sites"][0]["sides"][0] = side;
    }));
    assert!(broken(&|d| d["surprise"] = true.into()));
}

#[test]
fn cover_and_explore_write_one_schema_with_the_same_side_names() {
    let validator = schema();
    for func in [
        "classify",
        "dispatch",
        "impossible",
        "quadrant",
        "count_above",
    ] {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let covered = run_cover(func, a.path());
        let explored = run_explore(func, b.path());
        assert_valid(&validator, &covered, func);
        assert_valid(&validator, &explored, func);
        assert_schema_is_strict(&validator, &covered);
        assert_eq!(
            (covered["engine"].as_str(), explored["engine"].as_str()),
            (Some("cover"), Some("explore"))
        );
        assert_eq!(side_names(&covered), side_names(&explored), "{func}");
        for doc in [&covered, &explored] {
            let sides = |traps: bool| {
                doc["sites"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(move |s| (s["kind"] == "trap") == traps)
                    .flat_map(|s| s["sides"].as_array().unwrap())
                    .filter(move |s| !traps || s["arm"] == "trap")
            };
            let count =
                |traps: bool, status: &str| sides(traps).filter(|s| s["status"] == status).count();
            assert_eq!(doc["covered"], count(false, "covered"), "{func}");
            assert_eq!(doc["infeasible"], count(false, "infeasible"), "{func}");
            assert_eq!(doc["not_reached"], count(false, "not reached"), "{func}");
            let traps = &doc["traps"];
            assert_eq!(traps["targets"], sides(true).count(), "{func}");
            assert_eq!(traps["reached"], count(true, "covered"), "{func}");
            assert_eq!(traps["infeasible"], count(true, "infeasible"), "{func}");
            assert_eq!(traps["not_reached"], count(true, "not reached"), "{func}");
            let lines = std::fs::read_to_string(
                if doc["engine"] == "cover" {
                    a.path()
                } else {
                    b.path()
                }
                .join("inputs.txt"),
            )
            .unwrap();
            assert_eq!(doc["tests"], lines.lines().count(), "{func}");
        }
    }
}

/// The labels coverage.schema.json lists for a side's `property`.
fn schema_labels(schema: &serde_json::Value, property: &str) -> Vec<String> {
    schema["$defs"]["side"]["properties"][property]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_schema_names_every_proof_method_and_open_reason() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/coverage.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let methods: Vec<&str> = InfeasibleMethod::ALL
        .iter()
        .map(|&m| labels::method(m))
        .collect();
    assert_eq!(schema_labels(&schema, "method"), methods);
    let reasons: Vec<&str> = OpenReason::ALL.iter().map(|&r| labels::open(r)).collect();
    assert_eq!(schema_labels(&schema, "open_reason"), reasons);
}

#[test]
fn a_directory_says_finished_only_once_every_other_file_is_final() {
    let dir = tempfile::tempdir().unwrap();
    let (m, f) = (module(), module().func_by_name("classify").unwrap());
    let spec = InputSpec::for_function(m, f, &[], &[]).unwrap();
    let mut out = CoverageOut::create(dir.path(), "cover", (m, f), spec, replay()).unwrap();
    let config = CoverConfig::default().with_seed(3);
    let budget = Budget::default().with_evals(Some(2_000));
    let report = cover_with(m, f, &config, &budget, |event| out.event(event)).unwrap();
    // The final report.html cannot replace the running one: a directory takes its name.
    let page = dir.path().join("report.html");
    std::fs::remove_file(&page).unwrap();
    std::fs::create_dir(&page).unwrap();
    assert!(out
        .finish(&report.sides, &Ending::of_cover(&report))
        .is_err());
    let coverage = read_json(&dir.path().join("coverage.json"));
    assert_eq!(
        coverage["finished"], false,
        "a resumed run would keep a directory whose page is not final"
    );
}
