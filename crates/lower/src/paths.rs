//! How a loaded program names its source files: one path per file, valid from the
//! directory the run started in, whatever path the user gave and wherever the library
//! was compiled from.
//!
//! Debug information names a file by a filename and the compilation directory, and clang
//! splits an absolute path at its common prefix with the directory it ran in
//! (`/x/proj/other/faults.c` compiled from `/x/proj/build` is `other/faults.c` in
//! `/x/proj`), so the filename alone names nothing. [`SourcePaths::written`] joins them,
//! resolves symlinks, and writes the result as compiler diagnostics do: relative to the
//! run's directory when the file lies under it, absolute otherwise — unless a
//! [`PrefixMapping`] says how paths under a directory are to be written (a CI host whose
//! checkout lives elsewhere, or a source root that outputs are relative to).
//! [`SourcePaths::located`] is the way back, for what reads a source after the run
//! (report pages).

use std::path::{Component, Path, PathBuf};

/// Paths under `from` are written with `from` replaced by `to` (`--path-prefix-map
/// FROM=TO`); an empty `to` writes them relative to `from` (a source root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefixMapping {
    /// The directory as it is on this machine (made absolute).
    pub from: PathBuf,
    /// What outputs write instead.
    pub to: String,
}

impl PrefixMapping {
    /// The mapping of `FROM=TO` text, `FROM` resolved against `run_dir`; `None` without
    /// an `=`.
    pub fn parse(text: &str, run_dir: &Path) -> Option<PrefixMapping> {
        let (from, to) = text.split_once('=')?;
        Some(PrefixMapping {
            from: resolved(&run_dir.join(from)),
            to: to.trim_end_matches('/').to_string(),
        })
    }

    /// Paths under `root` (resolved against `run_dir`) written relative to it.
    pub fn root(root: &Path, run_dir: &Path) -> PrefixMapping {
        PrefixMapping {
            from: resolved(&run_dir.join(root)),
            to: String::new(),
        }
    }
}

/// How source paths are written (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePaths {
    run_dir: PathBuf,
    mappings: Vec<PrefixMapping>,
}

impl Default for SourcePaths {
    /// Paths as seen from the process's working directory, no mappings.
    fn default() -> Self {
        SourcePaths::from_dir(std::env::current_dir().unwrap_or_default())
    }
}

impl SourcePaths {
    /// Paths as seen from `run_dir`, no mappings.
    pub fn from_dir(run_dir: impl AsRef<Path>) -> Self {
        SourcePaths {
            run_dir: resolved(run_dir.as_ref()),
            mappings: Vec::new(),
        }
    }

    /// The same with `mapping` tried after the mappings already given.
    pub fn with_mapping(mut self, mapping: PrefixMapping) -> Self {
        self.mappings.push(mapping);
        self
    }

    /// The directory the run started in.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// The path an output writes for the file debug information names `filename` in the
    /// compilation directory `directory`.
    pub fn written(&self, directory: Option<&str>, filename: &str) -> String {
        let joined = match directory {
            Some(dir) => Path::new(dir).join(filename),
            None => self.run_dir.join(filename),
        };
        self.write(&resolved(&joined))
    }

    /// The path an output writes for `path`, a path given on this machine (relative to
    /// the run's directory or absolute).
    pub fn written_path(&self, path: &Path) -> String {
        self.write(&resolved(&self.run_dir.join(path)))
    }

    /// Where the file an output names `written` is on this machine.
    pub fn located(&self, written: &str) -> PathBuf {
        let path = Path::new(written);
        for mapping in &self.mappings {
            let rest = if mapping.to.is_empty() {
                path.is_relative().then_some(path)
            } else {
                path.strip_prefix(&mapping.to).ok()
            };
            if let Some(rest) = rest {
                let here = mapping.from.join(rest);
                if here.exists() {
                    return here;
                }
            }
        }
        self.run_dir.join(path)
    }

    /// The path a tool run from anywhere reads for `written` (an lcov tracefile's `SF`):
    /// the file's absolute path on this machine, unless a mapping wrote it for another.
    pub fn anchored(&self, written: &str) -> String {
        if self.mapped(written) {
            return written.to_string();
        }
        self.located(written).display().to_string()
    }

    /// Whether a mapping wrote `written`.
    fn mapped(&self, written: &str) -> bool {
        let path = Path::new(written);
        self.mappings.iter().any(|m| {
            if m.to.is_empty() {
                path.is_relative()
            } else {
                path.starts_with(&m.to)
            }
        })
    }

    fn write(&self, absolute: &Path) -> String {
        for mapping in &self.mappings {
            if let Ok(rest) = absolute.strip_prefix(&mapping.from) {
                return if mapping.to.is_empty() {
                    rest.display().to_string()
                } else {
                    Path::new(&mapping.to).join(rest).display().to_string()
                };
            }
        }
        match absolute.strip_prefix(&self.run_dir) {
            Ok(rest) if !rest.as_os_str().is_empty() => rest.display().to_string(),
            _ => absolute.display().to_string(),
        }
    }
}

/// `path` with symlinks resolved when it exists, else with `.` and `..` removed.
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| lexically_normal(path))
}

fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proj/build")).unwrap();
        std::fs::create_dir_all(dir.path().join("proj/other")).unwrap();
        std::fs::write(dir.path().join("proj/other/faults.c"), "").unwrap();
        dir
    }

    #[test]
    fn a_split_debug_path_is_joined_and_written_from_the_run_dir() {
        let dir = tree();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let proj = root.join("proj");
        let from_build = SourcePaths::from_dir(proj.join("build"));
        let absolute = proj.join("other/faults.c").display().to_string();
        let proj_dir = proj.display().to_string();
        assert_eq!(
            from_build.written(Some(&proj_dir), "other/faults.c"),
            absolute
        );
        let from_proj = SourcePaths::from_dir(&proj);
        assert_eq!(
            from_proj.written(Some(&format!("{proj_dir}/build")), "../other/faults.c"),
            "other/faults.c"
        );
        assert_eq!(
            from_proj.located("other/faults.c"),
            proj.join("other/faults.c")
        );
    }

    #[test]
    fn symlinks_resolve_to_one_path() {
        let dir = tree();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(root.join("proj/other"), root.join("link")).unwrap();
        let paths = SourcePaths::from_dir(root.join("proj"));
        assert_eq!(
            paths.written_path(&root.join("link/faults.c")),
            "other/faults.c"
        );
    }

    #[test]
    fn mappings_write_paths_for_another_host_and_find_them_back() {
        let dir = tree();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let build = root.join("proj/build");
        let mapped = SourcePaths::from_dir(&build)
            .with_mapping(PrefixMapping::parse("..=/home/me/proj", &build).unwrap());
        let source = root.join("proj/other/faults.c");
        assert_eq!(mapped.written_path(&source), "/home/me/proj/other/faults.c");
        assert_eq!(mapped.located("/home/me/proj/other/faults.c"), source);
        let rooted = SourcePaths::from_dir(&build)
            .with_mapping(PrefixMapping::parse("..=", &build).unwrap());
        assert_eq!(rooted.written_path(&source), "other/faults.c");
        assert_eq!(rooted.located("other/faults.c"), source);
        assert_eq!(rooted.anchored("other/faults.c"), "other/faults.c");
        let plain = SourcePaths::from_dir(root.join("proj"));
        assert_eq!(
            plain.anchored("other/faults.c"),
            source.display().to_string()
        );
    }

    #[test]
    fn a_missing_file_keeps_a_normal_path() {
        let paths = SourcePaths::from_dir("/nowhere/run");
        assert_eq!(
            paths.written(Some("/nowhere/x"), "../y/z.c"),
            "/nowhere/y/z.c"
        );
        assert_eq!(paths.written(Some("/nowhere/run/a"), "./b.c"), "a/b.c");
    }
}
