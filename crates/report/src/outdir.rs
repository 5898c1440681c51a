//! An output directory kept valid while an engine runs: `inputs.txt` grows one line (one
//! `write` call) per test, every other file is replaced atomically (written beside
//! itself, then renamed), so an interrupted or killed run leaves complete files with
//! everything found so far.
//!
//! Writing never stops an engine: the first error is kept and later writes are skipped;
//! [`OutDir::finish`] reports it.

use crate::error::ReportError;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// An output directory being written.
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    inputs: Option<File>,
    error: Option<ReportError>,
}

impl OutDir {
    /// Creates `dir` (and its parents) and an empty `inputs.txt` in it.
    pub fn create(dir: &Path) -> Result<OutDir, ReportError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ReportError::Io { path, source }
        };
        fs::create_dir_all(dir).map_err(io(dir))?;
        let inputs_path = dir.join(INPUTS);
        let inputs = File::create(&inputs_path).map_err(io(&inputs_path))?;
        Ok(OutDir {
            dir: dir.to_path_buf(),
            inputs: Some(inputs),
            error: None,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Appends one line to `inputs.txt` and flushes it.
    pub fn append_input(&mut self, line: &str) {
        if self.error.is_some() {
            return;
        }
        let path = self.dir.join(INPUTS);
        if let Some(file) = self.inputs.as_mut() {
            if let Err(source) = file
                .write_all(format!("{line}\n").as_bytes())
                .and_then(|()| file.flush())
            {
                self.error = Some(ReportError::Io { path, source });
            }
        }
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
