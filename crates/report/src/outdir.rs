//! An output directory kept valid while an engine runs: every file is replaced
//! atomically (written beside itself, then renamed), so an interrupted or killed run
//! leaves complete files with everything found so far, and what a resumed run reads back
//! is never half a file. `inputs.txt` too is rewritten whole at each new test rather than
//! appended to: a killed process can leave half a line, as a `write` that crosses a page
//! boundary stops between the pages.
//!
//! Nothing is synced to the disk: a killed process loses nothing the kernel has, and
//! only a machine that loses power can lose the last renames (a resumed run then finds
//! an older, complete file, or none).
//!
//! Writing never stops an engine: the first error is kept and later writes are skipped;
//! [`OutDir::finish`] reports it.

use crate::error::ReportError;
use std::fs;
use std::path::{Path, PathBuf};

/// An output directory being written.
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    error: Option<ReportError>,
}

impl OutDir {
    /// Creates `dir` (and its parents) and an empty `inputs.txt` in it.
    pub fn create(dir: &Path) -> Result<OutDir, ReportError> {
        fs::create_dir_all(dir).map_err(|source| ReportError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        write_atomic(&dir.join(INPUTS), "")?;
        Ok(OutDir {
            dir: dir.to_path_buf(),
            error: None,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Creates the subdirectory `name` (and keeps going when it exists).
    pub fn make_dir(&mut self, name: &str) {
        if self.error.is_some() {
            return;
        }
        let path = self.dir.join(name);
        if let Err(source) = fs::create_dir_all(&path) {
            self.error = Some(ReportError::Io { path, source });
        }
    }

    /// Replaces the file `name` of the directory with `text`, atomically.
    pub fn write(&mut self, name: &str, text: &str) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = write_atomic(&self.dir.join(name), text) {
            self.error = Some(e);
        }
    }

    /// Records an error found while producing a file's text (the file is not written).
    pub fn fail(&mut self, error: ReportError) {
        self.error.get_or_insert(error);
    }

    /// The first error of any write, if one failed.
    pub fn finish(self) -> Result<(), ReportError> {
        self.error.map_or(Ok(()), Err)
    }
}

/// The name of the file of tests, one per line, as `fpforge run` reads them.
pub const INPUTS: &str = "inputs.txt";

/// Writes `text` to a temporary file beside `path` and renames it over `path`.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), ReportError> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text)
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })
}
