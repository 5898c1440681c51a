//! The project file: `fpforge init` on a copy of `tests/fixtures/library/`, then `cover`
//! with no arguments in that directory, which must write the index of the explicit
//! command line; flags overriding the file, per-function specs (cover, explore and
//! accuracy alike), and unknown keys.

use crate::common::{fixture, fpforge, json_file, stderr, stdout};
use crate::library::without_times;
use std::path::Path;
use std::process::{Command, Output};

/// A temporary copy of the library fixture's sources.
fn library_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in ["shapes.c", "tables.c"] {
        std::fs::copy(fixture("library", file), dir.path().join(file)).unwrap();
    }
    dir
}

/// Runs `fpforge ARGS` in `dir`.
fn fpforge_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fpforge"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the fpforge binary runs")
}

#[test]
fn init_then_cover_alone_tests_the_library_as_the_explicit_command_line() {
    let library = library_copy();
    let dir = library.path();
    let dir_text = dir.display().to_string();
    let init = fpforge(&["init", &dir_text]);
    assert_eq!(init.status.code(), Some(0), "{}", stderr(&init));
    assert!(
        stdout(&init).contains("2 sources, 6 functions, 1 needing a spec"),
        "{}",
        stdout(&init)
    );
    let toml = std::fs::read_to_string(dir.join("fpforge.toml")).unwrap();
    assert!(toml.contains("files = [\"*.c\"]"), "{toml}");
    assert!(toml.contains("[select]\nall = true"), "{toml}");
    for name in [
        "clamp",
        "classify",
        "first",
        "lookup",
        "near_root_two",
        "scale",
    ] {
        assert!(
            toml.contains(&format!("# [function.{name}]")),
            "{name}: {toml}"
        );
    }
    assert!(
        toml.contains("# NEEDS A SPEC: parameter `rows`")
            && toml.contains("# [function.first]  # (rows: ptr to ptr) -> f64"),
        "{toml}"
    );
    assert_eq!(toml.matches("NEEDS A SPEC").count(), 1, "{toml}");
    let again = fpforge(&["init", &dir_text]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("pass --force"),
        "{}",
        stderr(&again)
    );

    let alone = fpforge_in(dir, &["cover", "--quiet"]);
    assert_eq!(
        alone.status.code(),
        Some(3),
        "lookup crashes: {}",
        stderr(&alone)
    );
    let explicit_out = tempfile::tempdir().unwrap();
    let out = explicit_out.path().display().to_string();
    let shapes = dir.join("shapes.c").display().to_string();
    let tables = dir.join("tables.c").display().to_string();
    let explicit = fpforge(&["cover", &shapes, &tables, "--all", "--out", &out, "--quiet"]);
    assert_eq!(explicit.status.code(), Some(3), "{}", stderr(&explicit));
    let index = |dir: &Path| without_times(&json_file(&dir.join("index.json")));
    assert_eq!(index(&dir.join("fpforge-out")), index(explicit_out.path()));
    let rewrite = fpforge(&["init", &dir_text, "--force"]);
    assert_eq!(rewrite.status.code(), Some(0), "{}", stderr(&rewrite));
    assert_eq!(
        std::fs::read_to_string(dir.join("fpforge.toml")).unwrap(),
        toml,
        "the run's regression.c files are not sources"
    );
}

#[test]
fn flags_override_the_file_and_function_sections_give_specs() {
    let library = library_copy();
    let dir = library.path();
    std::fs::write(
        dir.join("fpforge.toml"),
        "[sources]\nfiles = [\"*.c\"]\n\n[select]\nfunctions = [\"cl*\"]\n\n[budget]\nevals = 3000\n\n\
         [function.classify]\nargs = [\"x = 3\"]\n",
    )
    .unwrap();
    let run = fpforge_in(dir, &["cover", "--quiet"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let index = json_file(&dir.join("fpforge-out/index.json"));
    let rows = index["functions"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{index}");
    assert_eq!(rows[0]["function"], "clamp");
    assert_eq!(rows[0]["covered"], rows[0]["sides"], "{index}");
    assert_eq!(rows[1]["function"], "classify");
    assert_eq!(rows[1]["covered"], 2, "x is fixed at 3: one path: {index}");
    let inputs = std::fs::read_to_string(dir.join("fpforge-out/classify/inputs.txt")).unwrap();
    assert_eq!(inputs.trim(), "0x1.8p+1", "{inputs}");

    let run = fpforge_in(dir, &["explore", "--out", "exp", "--quiet"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let index = json_file(&dir.join("exp/index.json"));
    assert_eq!(index["engine"], "explore");
    assert_eq!(
        index["functions"][1]["infeasible"], 2,
        "with x fixed at 3, explore proves the other sides infeasible: {index}"
    );
    let inputs = std::fs::read_to_string(dir.join("exp/classify/inputs.txt")).unwrap();
    assert_eq!(inputs.trim(), "0x1.8p+1", "{inputs}");

    let run = fpforge_in(dir, &["accuracy", "--out", "acc", "--quiet"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let index = json_file(&dir.join("acc/index.json"));
    assert_eq!(index["engine"], "accuracy");
    let rows = index["functions"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "the file's selection: {index}");
    assert_eq!(rows[0]["function"], "clamp");
    assert_eq!(rows[0]["evals"], 3000, "the file's evals: {index}");

    let run = fpforge_in(
        dir,
        &[
            "cover", "-f", "scale", "-f", "lookup", "--out", "other", "--quiet",
        ],
    );
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let index = json_file(&dir.join("other/index.json"));
    let names: Vec<&str> = index["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["function"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["lookup", "scale"],
        "-f replaces the file's selection"
    );

    let run = fpforge_in(
        dir,
        &[
            "cover", "-f", "classify", "--arg", "x = 200", "--out", "one", "--quiet",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let inputs = std::fs::read_to_string(dir.join("one/inputs.txt")).unwrap();
    assert_eq!(
        inputs.trim(),
        "0x1.9p+7",
        "--arg replaces the file's spec: {inputs}"
    );
}

#[test]
fn an_unknown_key_is_an_error_naming_it_and_its_line() {
    let library = library_copy();
    let dir = library.path();
    std::fs::write(
        dir.join("fpforge.toml"),
        "[sources]\nfiles = [\"*.c\"]\n\n[budget]\njobs = 2\ntimelimit = 5\n",
    )
    .unwrap();
    let run = fpforge_in(dir, &["cover"]);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert!(err.contains("fpforge.toml"), "{err}");
    assert!(err.contains("unknown field `timelimit`"), "{err}");
    assert!(err.contains("line 6"), "{err}");
    let none = tempfile::tempdir().unwrap();
    let run = fpforge_in(none.path(), &["cover", "--all"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("fpforge init DIR writes one"),
        "{}",
        stderr(&run)
    );
}
