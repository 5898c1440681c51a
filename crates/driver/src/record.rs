//! `OUT/program.json`: how a function's output directory was made — the inputs and the
//! flags that loaded the program, the function, its input specs and its fuel — so that
//! `fpforge confirm OUT` can load the same program later, plan the same inputs and
//! replay what the run found (see [`crate::later`]). Paths are canonical: the record
//! works from any directory on the machine that made it.

use crate::error::{DriverError, Result};
use crate::plan::Specs;
use crate::program::{Functions, Program, TrapTargets};
use fpforge_lower::LoadOptions;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The record's file name in an output directory.
pub const RECORD_FILE: &str = "program.json";

/// The record's schema version.
const SCHEMA: u32 = 1;

/// How an output directory's program and inputs were made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramRecord {
    /// The record's schema version (1).
    pub schema: u32,
    /// The function, as the user named it.
    pub function: String,
    /// The input files and directories, canonical.
    pub inputs: Vec<PathBuf>,
    /// The compiler flags.
    pub compiler_flags: Vec<String>,
    /// `--lib-dir` directories, canonical.
    pub lib_dirs: Vec<PathBuf>,
    /// `--compile-commands`, canonical.
    pub compile_commands: Option<PathBuf>,
    /// `--skip-unsupported`.
    pub skip_unsupported: bool,
    /// `--allow-undefined`.
    pub allow_undefined: bool,
    /// Whether the program had trap guards.
    pub trap_targets: bool,
    /// The `--arg` specs, as written.
    pub args: Vec<String>,
    /// The `--out-arg` specs, as written.
    pub out_args: Vec<String>,
    /// The instruction budget of one run (a hang is a run that exhausts it).
    pub fuel: u64,
}

impl ProgramRecord {
    /// The record of `function` of `program` with `specs`, run with `fuel`.
    pub fn of(program: &Program, function: &str, specs: &Specs, fuel: u64) -> ProgramRecord {
        let load = &program.load;
        ProgramRecord {
            schema: SCHEMA,
            function: function.to_string(),
            inputs: program.paths.iter().map(|p| canonical(p)).collect(),
            compiler_flags: load.compiler_flags.clone(),
            lib_dirs: load.lib_dirs.iter().map(|p| canonical(p)).collect(),
            compile_commands: load.compile_commands.as_deref().map(canonical),
            skip_unsupported: load.skip_unsupported,
            allow_undefined: load.allow_undefined,
            trap_targets: program.trap_targets == TrapTargets::On,
            args: specs.args.iter().map(ToString::to_string).collect(),
            out_args: specs.out_args.iter().map(ToString::to_string).collect(),
            fuel,
        }
    }

    /// Writes it to `dir/program.json` (the directory is created).
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| DriverError::io("create", dir, e))?;
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| DriverError::Invalid(format!("writing {RECORD_FILE}: {e}")))?;
        Ok(fpforge_report::write_atomic(
            &dir.join(RECORD_FILE),
            &(text + "\n"),
        )?)
    }

    /// The record of `dir`, if it has one.
    pub fn read(dir: &Path) -> Result<Option<ProgramRecord>> {
        let path = dir.join(RECORD_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| DriverError::io("read", &path, e))?;
        let record: ProgramRecord = serde_json::from_str(&text)
            .map_err(|e| DriverError::Invalid(format!("{}: {e}", path.display())))?;
        if record.schema != SCHEMA {
            return Err(DriverError::Invalid(format!(
                "{}: schema {} (this fpforge reads {SCHEMA})",
                path.display(),
                record.schema
            )));
        }
        Ok(Some(record))
    }

    /// The program it loaded, with its function as the entry.
    pub fn program(&self) -> Program {
        let mut load = LoadOptions::default();
        load.compiler_flags = self.compiler_flags.clone();
        load.entry = Some(self.function.clone());
        load.skip_unsupported = self.skip_unsupported;
        load.allow_undefined = self.allow_undefined;
        load.lib_dirs = self.lib_dirs.clone();
        load.compile_commands = self.compile_commands.clone();
        Program {
            paths: self.inputs.clone(),
            functions: Functions::One(self.function.clone()),
            load,
            trap_targets: if self.trap_targets {
                TrapTargets::On
            } else {
                TrapTargets::Off
            },
        }
    }

    /// Its input specs, parsed again.
    pub fn specs(&self) -> Result<Specs> {
        let invalid = |what: &str, text: &str, e: String| {
            DriverError::Invalid(format!("{RECORD_FILE}: {what} `{text}`: {e}"))
        };
        let args = self
            .args
            .iter()
            .map(|a| a.parse().map_err(|e| invalid("--arg", a, format!("{e}"))))
            .collect::<Result<_>>()?;
        let out_args = self
            .out_args
            .iter()
            .map(|a| {
                a.parse()
                    .map_err(|e| invalid("--out-arg", a, format!("{e}")))
            })
            .collect::<Result<_>>()?;
        Ok(Specs { args, out_args })
    }
}

/// `path` made absolute and free of symlinks, when it exists.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
