//! `--changed-since REV`: the functions a pull request touches. `git diff` against REV
//! (the working tree, uncommitted changes included) gives the changed lines of each
//! file; a function changed when a changed line falls in its definition (from its
//! first line to the last line of its code), and a selected function is kept when it,
//! or a function it may call, changed.

use crate::error::{DriverError, Result, Setting};
use fpforge_lower::SourcePaths;
use fpforge_report::html::function_lines;
use fpir::{Func, Module};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Changed line ranges (first, last; on the new side) by absolute file path.
type ChangedLines = BTreeMap<PathBuf, Vec<(u32, u32)>>;

/// The functions of `module` whose definition changed since `rev`, the repository being
/// the one the run's directory lies in.
pub(super) fn changed_functions(
    module: &Module,
    rev: &str,
    paths: &SourcePaths,
) -> Result<BTreeSet<Func>> {
    let changed = changed_lines(rev, paths.run_dir())?;
    let mut funcs = BTreeSet::new();
    for (func, function) in module.funcs.iter() {
        let Some((file, first, last)) = function_lines(function) else {
            continue;
        };
        let Some(written) = module.files.get(file) else {
            continue;
        };
        let path = paths.located(written);
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let touched = changed
            .get(&path)
            .is_some_and(|ranges| ranges.iter().any(|&(from, to)| from <= last && to >= first));
        if touched {
            funcs.insert(func);
        }
    }
    Ok(funcs)
}

/// Whether `func` or a function it may call is in `changed`.
pub(super) fn reaches_changed(module: &Module, func: Func, changed: &BTreeSet<Func>) -> bool {
    changed.contains(&func)
        || module
            .reachable_funcs(func)
            .iter()
            .any(|f| changed.contains(f))
}

/// The lines `git diff REV` changes, read in `dir`'s repository.
fn changed_lines(rev: &str, dir: &Path) -> Result<ChangedLines> {
    let root = git(dir, &["rev-parse", "--show-toplevel"])?;
    let root = PathBuf::from(root.trim());
    let diff = git(
        &root,
        &[
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            rev,
            "--",
        ],
    )?;
    Ok(parse_diff(&diff, &root))
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| DriverError::setting(Setting::ChangedSince, format!("cannot run git: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(DriverError::setting(
            Setting::ChangedSince,
            format!("git {}: {}", args.join(" "), stderr.trim()),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The new-side line ranges of a unified diff with no context, files made absolute
/// under `root`. A hunk that only deletes lines counts the line after it.
fn parse_diff(diff: &str, root: &Path) -> ChangedLines {
    let mut changed = ChangedLines::new();
    let mut file: Option<PathBuf> = None;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            file = path.strip_prefix("b/").map(|p| {
                let path = root.join(p);
                std::fs::canonicalize(&path).unwrap_or(path)
            });
        } else if let (Some(hunk), Some(file)) = (line.strip_prefix("@@ "), &file) {
            if let Some(range) = new_range(hunk) {
                changed.entry(file.clone()).or_default().push(range);
            }
        }
    }
    changed
}

/// `(first, last)` of a hunk header's new side (`-a,b +c,d @@`).
fn new_range(hunk: &str) -> Option<(u32, u32)> {
    let new = hunk.split_whitespace().find_map(|w| w.strip_prefix('+'))?;
    let (start, count) = match new.split_once(',') {
        Some((start, count)) => (start.parse::<u32>().ok()?, count.parse::<u32>().ok()?),
        None => (new.parse::<u32>().ok()?, 1),
    };
    let start = start.max(1);
    Some((start, start + count.max(1) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_give_the_new_sides_lines() {
        let diff = "diff --git a/src/f.c b/src/f.c\n--- a/src/f.c\n+++ b/src/f.c\n\
                    @@ -3,2 +3,4 @@ double f(double x) {\n+a\n@@ -10 +12 @@\n-b\n+c\n\
                    @@ -20,3 +21,0 @@\n-d\n+++ /dev/null\n";
        let changed = parse_diff(diff, Path::new("/nowhere"));
        assert_eq!(
            changed[Path::new("/nowhere/src/f.c")],
            vec![(3, 6), (12, 12), (21, 21)]
        );
    }
}
