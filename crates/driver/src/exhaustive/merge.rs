//! Joins the output directories of an exhaustive run's shards (`--exhaustive --shard
//! K/N`) into the directory one run writes: every shard's `exhaustive.json` must carry
//! the same key and `N`, each `K` must come once and every shard must have finished;
//! the tallies are joined ([`Tally::join`]), the chunk files copied, and the re-check of
//! the largest error is the shards' own (those whose largest error is the joined one),
//! so nothing runs again.

use super::{CHUNKS_DIR, EXHAUSTIVE_JSON};
use crate::error::{DriverError, Result, Setting};
use fpforge_accuracy::exhaustive::Tally;
use fpforge_report::exhaustive::{ExhaustiveJson, RecheckJson, TallyJson};
use fpforge_report::write_atomic;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Whether `dir` holds an exhaustive run's result.
pub fn is_exhaustive(dir: &Path) -> bool {
    dir.join(EXHAUSTIVE_JSON).is_file()
}

/// Joins the shards in `dirs` into `out` (see the module docs); the joined file.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<ExhaustiveJson> {
    let mut shards = Vec::new();
    for dir in dirs {
        let path = dir.join(EXHAUSTIVE_JSON);
        let text = fs::read_to_string(&path).map_err(|e| DriverError::io("read", &path, e))?;
        let file = ExhaustiveJson::from_json(&text)
            .map_err(|e| DriverError::Invalid(format!("{}: {e}", path.display())))?;
        shards.push((dir.clone(), file));
    }
    if shards.is_empty() {
        return Err(DriverError::Invalid("no shard to merge".to_string()));
    }
    check(&shards)?;
    shards.sort_by_key(|(_, f)| f.shard.as_ref().map_or(0, |s| s.index));
    for dir in dirs {
        let dir = fs::canonicalize(dir).map_err(|e| DriverError::io("read", dir, e))?;
        let out_abs = std::path::absolute(out).map_err(|e| DriverError::io("read", out, e))?;
        if out_abs.starts_with(&dir) || dir.starts_with(&out_abs) {
            return Err(DriverError::setting(
                Setting::MergeOut,
                format!("{} overlaps the shard {}", out.display(), dir.display()),
            ));
        }
    }
    let mut tally = Tally::default();
    for (_, file) in &shards {
        tally.join(&file.tally.tally()?);
    }
    let recheck = joined_recheck(&shards, &tally);
    let chunks = out.join(CHUNKS_DIR);
    fs::create_dir_all(&chunks).map_err(|e| DriverError::io("create", &chunks, e))?;
    for (dir, _) in &shards {
        copy_chunks(&dir.join(CHUNKS_DIR), &chunks)?;
    }
    let file = ExhaustiveJson {
        chunks_done: shards.iter().map(|(_, f)| f.chunks_done).sum(),
        shard: None,
        finished: true,
        tally: TallyJson::result(&tally),
        recheck,
        seconds: shards.iter().map(|(_, f)| f.seconds).fold(0.0, f64::max),
        ..shards[0].1.clone()
    };
    write_atomic(&out.join(EXHAUSTIVE_JSON), &file.to_json()?)?;
    Ok(file)
}

/// Whether the shards are all of one run, each `K` once, all finished (else an error).
fn check(shards: &[(PathBuf, ExhaustiveJson)]) -> Result<()> {
    let (first_dir, first) = &shards[0];
    let mut seen = BTreeMap::new();
    for (dir, file) in shards {
        let shard = file.shard.as_ref().ok_or_else(|| {
            DriverError::Invalid(format!(
                "{}: not a shard (no \"shard\"): run each part with --shard K/N",
                dir.display()
            ))
        })?;
        let n = first.shard.as_ref().map_or(0, |s| s.count);
        if file.key != first.key || shard.count != n {
            return Err(DriverError::Invalid(format!(
                "{} and {} are shards of different runs (function, oracle, range or N differ)",
                first_dir.display(),
                dir.display()
            )));
        }
        if !file.finished {
            return Err(DriverError::Invalid(format!(
                "{}: shard {}/{} did not finish: run it again with --resume",
                dir.display(),
                shard.index,
                shard.count
            )));
        }
        if let Some(earlier) = seen.insert(shard.index, dir) {
            return Err(DriverError::Invalid(format!(
                "shard {}/{n} is given twice: {} and {}",
                shard.index,
                earlier.display(),
                dir.display()
            )));
        }
    }
    let n = first.shard.as_ref().map_or(0, |s| s.count);
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(DriverError::Invalid(format!(
            "missing shards: {}",
            missing.join(", ")
        )));
    }
    Ok(())
}

/// The re-check of the joined largest error: the shards' whose largest error it is
/// (the first such shard's figure; agreed when all agreed).
fn joined_recheck(shards: &[(PathBuf, ExhaustiveJson)], tally: &Tally) -> Option<RecheckJson> {
    let max = tally.max.as_ref()?;
    let mut joined: Option<RecheckJson> = None;
    for (_, file) in shards {
        let same = file.tally.max.as_ref().is_some_and(|m| m.ulps == max.ulps);
        if let (true, Some(r)) = (same, &file.recheck) {
            match &mut joined {
                Some(j) => j.agreed &= r.agreed,
                None => joined = Some(r.clone()),
            }
        }
    }
    joined
}

/// Copies the chunk files of `from` into `to`.
fn copy_chunks(from: &Path, to: &Path) -> Result<()> {
    let read = |e| DriverError::io("read", from, e);
    for entry in fs::read_dir(from).map_err(read)? {
        let entry = entry.map_err(read)?;
        fs::copy(entry.path(), to.join(entry.file_name()))
            .map_err(|e| DriverError::io("copy", entry.path(), e))?;
    }
    Ok(())
}
