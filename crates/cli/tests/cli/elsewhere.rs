//! Runs started where users start them: in a build directory outside the repository, on
//! sources given by absolute path, by a relative path that leaves the directory, through
//! a symlink, as a library directory. From that directory, every output must work:
//! `genhtml` reads each `coverage.lcov` (run from yet another directory), each
//! `report.html` shows its sources, and every replay command the outputs print (crash
//! files, `coverage.json`, the JUnit file) exits 3 when pasted there.

use crate::common::{fixture, json_file, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch tree: `build/` (where runs start), `other/` (sources beside it) and `link`
/// (a symlink to the repository's findings fixtures).
struct Tree {
    root: tempfile::TempDir,
}

impl Tree {
    fn new() -> Tree {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("build")).unwrap();
        std::fs::create_dir(root.path().join("other")).unwrap();
        std::fs::copy(
            fixture("findings", "faults.c"),
            root.path().join("other/faults.c"),
        )
        .unwrap();
        std::os::unix::fs::symlink(fixture("findings", ""), root.path().join("link")).unwrap();
        Tree { root }
    }

    fn build(&self) -> PathBuf {
        self.root.path().join("build")
    }

    /// `fpforge ARGS` run in `build/`.
    fn fpforge(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_fpforge"))
            .current_dir(self.build())
            .args(args)
            .output()
            .expect("the fpforge binary runs")
    }

    /// `command` run by the shell in `build/`, `fpforge` on its path.
    fn paste(&self, command: &str) -> Output {
        let bin = Path::new(env!("CARGO_BIN_EXE_fpforge")).parent().unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new("sh")
            .args(["-c", command])
            .current_dir(self.build())
            .env("PATH", path)
            .output()
            .unwrap()
    }
}

/// Every file under `dir` that `keep` keeps.
fn files_where(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if keep(&path) {
                found.push(path);
            }
        }
    }
    found
}

/// Every file under `dir` whose name is `name`.
fn files_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    files_where(dir, &|p| p.file_name().is_some_and(|n| n == name))
}

/// The replay commands of `out`'s findings: each crash or hang file's `# replay:` line
/// and each `coverage.json`'s and `report.json`'s `findings[].replay`.
fn replay_commands(out: &Path) -> Vec<String> {
    let finding_file = |p: &Path| {
        p.parent()
            .is_some_and(|d| d.ends_with("crashes") || d.ends_with("hangs"))
    };
    let mut commands = Vec::new();
    for file in files_where(out, &finding_file) {
        let text = std::fs::read_to_string(&file).unwrap();
        let line = text.lines().find_map(|l| l.strip_prefix("# replay: "));
        commands.push(line.expect("a replay line").to_string());
    }
    let reports = files_named(out, "coverage.json")
        .into_iter()
        .chain(files_named(out, "report.json"));
    for report in reports {
        for finding in json_file(&report)["findings"]
            .as_array()
            .into_iter()
            .flatten()
        {
            commands.push(finding["replay"].as_str().unwrap().to_string());
        }
    }
    commands
}

/// Checks every output under `build/OUT` from `build/`.
fn check_outputs(tree: &Tree, out: &str, findings: bool) {
    let dir = tree.build().join(out);
    let lcovs = files_named(&dir, "coverage.lcov");
    for lcov in &lcovs {
        let html = tempfile::tempdir().unwrap();
        let run = Command::new("genhtml")
            .args(["--branch-coverage", "--quiet", "-o"])
            .arg(html.path())
            .arg(lcov)
            .current_dir("/")
            .output()
            .expect("genhtml runs (apt-get install lcov; scripts/setup.sh does)");
        assert!(run.status.success(), "{}: {}", lcov.display(), stderr(&run));
    }
    for page in files_named(&dir, "report.html") {
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(!text.contains("cannot read"), "{}", page.display());
    }
    let commands = replay_commands(&dir);
    assert_eq!(!commands.is_empty(), findings, "{out}: {commands:?}");
    for command in commands {
        let run = tree.paste(&command);
        assert_eq!(run.status.code(), Some(3), "{command}: {}", stderr(&run));
    }
}

#[test]
fn outputs_work_from_a_build_directory_whatever_path_names_the_source() {
    let tree = Tree::new();
    let absolute = fixture("findings", "faults.c");
    let sources = [
        ("absolute", absolute.as_str()),
        ("outside", "../other/faults.c"),
        ("symlink", "../link/faults.c"),
    ];
    for (out, source) in sources {
        let run = tree.fpforge(&[
            "cover",
            source,
            "-f",
            "scaled",
            "--evals",
            "20000",
            "--no-reach",
            "--out",
            out,
            "--junit",
            "junit.xml",
        ]);
        assert_eq!(run.status.code(), Some(3), "{out}: {}", stderr(&run));
        check_outputs(&tree, out, true);
        let lcov = std::fs::read_to_string(tree.build().join(out).join("coverage.lcov")).unwrap();
        let file = lcov.lines().find_map(|l| l.strip_prefix("SF:")).unwrap();
        assert!(
            Path::new(file).is_absolute() && Path::new(file).exists(),
            "{file}"
        );
        let junit = std::fs::read_to_string(tree.build().join("junit.xml")).unwrap();
        assert!(junit.contains("fpforge run "), "{junit}");
    }
}

#[test]
fn library_cpp_and_accuracy_outputs_work_from_a_build_directory() {
    let tree = Tree::new();
    let library = fixture("library", "");
    let run = tree.fpforge(&[
        "cover",
        &library,
        "--all",
        "--evals",
        "20000",
        "--no-reach",
        "--out",
        "lib",
    ]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    check_outputs(&tree, "lib", true);

    let cpp = fixture("cpp", "steps.cpp");
    let run = tree.fpforge(&[
        "cover",
        &cpp,
        "-f",
        "checked_step",
        "--evals",
        "20000",
        "--no-reach",
        "--out",
        "cpp",
    ]);
    assert!(
        run.status.code().is_some_and(|c| c <= 3),
        "{}",
        stderr(&run)
    );
    check_outputs(&tree, "cpp", run.status.code() == Some(3));

    let sums = fixture("accuracy", "sums.c");
    let run = tree.fpforge(&[
        "accuracy", &sums, "--all", "--evals", "3000", "--out", "acc",
    ]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    check_outputs(&tree, "acc", true);
}

#[test]
fn a_source_root_writes_paths_for_another_checkout() {
    let tree = Tree::new();
    let run = tree.fpforge(&[
        "cover",
        "../other/faults.c",
        "-f",
        "scaled",
        "--evals",
        "20000",
        "--no-reach",
        "--source-root",
        "..",
        "--out",
        "out",
    ]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let out = tree.build().join("out");
    let lcov = std::fs::read_to_string(out.join("coverage.lcov")).unwrap();
    assert!(lcov.contains("SF:other/faults.c\n"), "{lcov}");
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(!page.contains("cannot read"));
    // Replay commands are written for the source root: they run from there.
    let commands = replay_commands(&out);
    assert!(!commands.is_empty());
    for command in commands {
        assert!(command.contains(" other/faults.c "), "{command}");
        let from_root = format!("cd .. && {command}");
        let run = tree.paste(&from_root);
        assert_eq!(run.status.code(), Some(3), "{command}: {}", stderr(&run));
    }
}
