//! Joins the output directories of a run's shards ([`super::Shard`]) into the directory a
//! single run writes (`fpforge merge SHARD... --out OUT`). Every shard's `index.json`
//! must name the same engine, run key and selection, each `K` of `1..=N` must come once
//! and every selected function must have one row; anything else is an error naming the
//! shards at fault, and nothing is written. The functions' directories are copied, and
//! `index.json` (rows in name order, no `"shard"`), the index page and the merged
//! `coverage.lcov` (not for `accuracy`) are rebuilt from them as a single run writes them, its `seconds` the
//! longest shard's.

use super::write_index;
use crate::error::{DriverError, Result, Setting};
use fpforge_report::index::{Index, IndexRow, Measure, RowOutcome, SavedIndex, SavedRow, ShardOf};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The joined run of the shards in `dirs`, written into `out`.
pub struct Merged {
    /// The joined index, as written.
    pub index: Index,
    /// `index.json`'s text.
    pub json: String,
}

/// Joins the shards' directories `dirs` into `out` (see the module docs).
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Merged> {
    let shards = dirs
        .iter()
        .map(|dir| read_shard(dir))
        .collect::<Result<Vec<_>>>()?;
    if shards.is_empty() {
        return Err(DriverError::Invalid("no shard to merge".to_string()));
    }
    refuse_overlap(dirs, out)?;
    let (engine, rows) = check(&shards)?;
    fs::create_dir_all(out).map_err(|e| DriverError::io("create", out, e))?;
    let mut index_rows = Vec::new();
    for (name, (dir, row)) in rows {
        let directory = row.directory.clone().unwrap_or_else(|| name.clone());
        index_rows.push(IndexRow {
            outcome: outcome(
                Measure::of(engine),
                row,
                &dir.join(&directory),
                &out.join(&directory),
            )?,
            function: name,
            directory,
        });
    }
    let index = Index {
        engine,
        seconds: shards.iter().map(|s| s.index.seconds).fold(0.0, f64::max),
        rows: index_rows,
        shard: None,
    };
    let json = write_index(out, &index)?;
    Ok(Merged { index, json })
}

/// Refuses an output directory inside a shard's or holding one: writing it would change
/// what is being read.
fn refuse_overlap(dirs: &[PathBuf], out: &Path) -> Result<()> {
    let out_abs = std::path::absolute(out).map_err(|e| DriverError::io("read", out, e))?;
    for dir in dirs {
        let dir = fs::canonicalize(dir).map_err(|e| DriverError::io("read", dir, e))?;
        if out_abs.starts_with(&dir) || dir.starts_with(&out_abs) {
            return Err(DriverError::setting(
                Setting::MergeOut,
                format!(
                    "{} overlaps the shard {}: write the joined run elsewhere",
                    out.display(),
                    dir.display()
                ),
            ));
        }
    }
    Ok(())
}

/// A shard's directory and its index.
struct ShardDir {
    dir: PathBuf,
    index: SavedIndex,
    shard: ShardOf,
}

fn read_shard(dir: &Path) -> Result<ShardDir> {
    let path = dir.join("index.json");
    let text = fs::read_to_string(&path).map_err(|e| DriverError::io("read", &path, e))?;
    let index = SavedIndex::from_json(&text)
        .map_err(|e| DriverError::Invalid(format!("{}: {e}", path.display())))?;
    let shard = index.shard.clone().ok_or_else(|| {
        DriverError::Invalid(format!(
            "{}: not a shard's index (no \"shard\"): run each part as a shard K/N",
            path.display()
        ))
    })?;
    Ok(ShardDir {
        dir: dir.to_path_buf(),
        index,
        shard,
    })
}

/// Every function's row with the directory of the shard it is in, by name.
type Rows = BTreeMap<String, (PathBuf, SavedRow)>;

/// The engine and every function's row with the shard directory it is in, by name;
/// an error when the shards are not all of one run, each once.
fn check(shards: &[ShardDir]) -> Result<(&'static str, Rows)> {
    let first = &shards[0];
    for other in &shards[1..] {
        let differs = other.index.engine != first.index.engine
            || other.shard.run != first.shard.run
            || other.shard.count != first.shard.count
            || other.shard.selected != first.shard.selected;
        if differs {
            return Err(DriverError::Invalid(format!(
                "{} and {} are shards of different runs (engine, settings, selection or N differ)",
                first.dir.display(),
                other.dir.display()
            )));
        }
    }
    let count = first.shard.count;
    let mut by_index: BTreeMap<usize, &Path> = BTreeMap::new();
    for shard in shards {
        if let Some(earlier) = by_index.insert(shard.shard.index, &shard.dir) {
            return Err(DriverError::Invalid(format!(
                "shard {}/{count} is given twice: {} and {}",
                shard.shard.index,
                earlier.display(),
                shard.dir.display()
            )));
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(DriverError::Invalid(format!(
            "missing shards: {}",
            missing.join(", ")
        )));
    }
    let mut rows = Rows::new();
    for shard in shards {
        for row in &shard.index.functions {
            if let Some((earlier, _)) =
                rows.insert(row.function.clone(), (shard.dir.clone(), row.clone()))
            {
                return Err(DriverError::Invalid(format!(
                    "`{}` has a row in two shards: {} and {}",
                    row.function,
                    earlier.display(),
                    shard.dir.display()
                )));
            }
        }
    }
    let absent: Vec<&str> = first
        .shard
        .selected
        .iter()
        .filter(|name| !rows.contains_key(*name))
        .map(String::as_str)
        .collect();
    if !absent.is_empty() || rows.len() != first.shard.selected.len() {
        return Err(DriverError::Invalid(format!(
            "the shards' rows are not the run's selection (missing: {})",
            absent.join(", ")
        )));
    }
    let engine = match first.index.engine.as_str() {
        "cover" => "cover",
        "explore" => "explore",
        "accuracy" => "accuracy",
        other => {
            return Err(DriverError::Invalid(format!(
                "{}: unknown engine `{other}`",
                first.dir.display()
            )))
        }
    };
    Ok((engine, rows))
}

/// A row of the joined index: a function that ran has its directory copied from `from`
/// to `to` and its row read back from there as `measure` reads it.
fn outcome(measure: Measure, row: SavedRow, from: &Path, to: &Path) -> Result<RowOutcome> {
    let why = row.error.unwrap_or_default();
    match row.status.as_str() {
        "finished" | "interrupted" => {
            if to.exists() {
                fs::remove_dir_all(to).map_err(|e| DriverError::io("clear", to, e))?;
            }
            copy_dir(from, to)?;
            Ok(measure.read(to)?)
        }
        "error" => Ok(RowOutcome::Error(why)),
        "not run" => Ok(RowOutcome::NotRun(why)),
        other => Err(DriverError::Invalid(format!(
            "`{}`: unknown status `{other}`",
            row.function
        ))),
    }
}

/// Copies the directory `from` to `to`, recursively.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).map_err(|e| DriverError::io("create", to, e))?;
    let read = |e| DriverError::io("read", from, e);
    for entry in fs::read_dir(from).map_err(read)? {
        let entry = entry.map_err(read)?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(read)?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)
                .map_err(|e| DriverError::io("copy", entry.path(), e))?;
        }
    }
    Ok(())
}
