//! `fpforge accuracy --exhaustive`: the accuracy crate's exhaustive checker
//! ([`fpforge_accuracy::exhaustive`]) over a range of `float` inputs, split into chunks
//! run by `jobs` threads, each chunk's tally kept on disk as it ends, and the joined
//! result written as `OUT/exhaustive.json` ([`fpforge_report::exhaustive`]).
//!
//! - **Chunks.** The range's inputs, in bit order, are cut into chunks of
//!   `clamp(len / 1024, 4096, 2^22)` inputs (1,024 chunks of 2^22 for the whole space),
//!   a size that depends on the range alone, so every shard and every resumed run cuts
//!   the same chunks. A finished chunk's tally is written atomically to
//!   `OUT/exhaustive/chunk-NNNNN.json` with the run's key.
//! - **Resume.** With `--resume`, the chunk files of the same key are kept (those of
//!   another key removed) and only the other chunks run; without it every chunk file is
//!   removed first. An interrupted run
//!   (Ctrl-C) keeps every chunk it finished and writes `exhaustive.json` with
//!   `finished: false`.
//! - **Shards.** `--shard K/N` runs the chunks `[(K-1)·C/N, K·C/N)` of the `C` chunks:
//!   contiguous ranges of the input space. [`merge()`] joins the shards' directories.
//! - **The key** hashes the function as lowered with everything it reaches, the true
//!   function, the range and the chunk size: chunks of another run never mix.
//!
//! The result does not depend on `jobs`, the order chunks finish in or interruptions:
//! tallies join in any order into the same one ([`Tally::join`]).

mod merge;

pub use merge::{is_exhaustive, merge};

use crate::error::{DriverError, Result};
use crate::library::resume::fnv1a;
use crate::library::Resume;
use crate::library::Shard;
use crate::note::Notes;
use crate::program::Program;
use crate::run::{RunStatus, Watch};
use fpforge_accuracy::exhaustive::{Exhaustive, Floor, InputRange, Tally};
use fpforge_accuracy::OracleChoice;
use fpforge_engine::Interrupt;
use fpforge_report::exhaustive::{
    ChunkJson, ExhaustiveJson, RecheckJson, ShardJson, TallyJson, CHUNK_FORMAT, EXHAUSTIVE_VERSION,
    FORMAT,
};
use fpforge_report::write_atomic;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The file of the result.
pub const EXHAUSTIVE_JSON: &str = "exhaustive.json";

/// The directory of the chunk files.
pub const CHUNKS_DIR: &str = "exhaustive";

/// Inputs sampled before the chunks run, to start the floor of the largest error.
const PROBES: u64 = 4096;

/// What an exhaustive run checks and how it is split.
#[derive(Debug, Clone)]
pub struct ExhaustiveOptions {
    /// The true function: `auto` or `mpfr:NAME`.
    pub oracle: OracleChoice,
    /// The inputs.
    pub range: InputRange,
    /// Threads.
    pub jobs: usize,
    /// The part of the range this process checks.
    pub shard: Option<Shard>,
    /// Whether chunks finished by an earlier run of the same key are kept.
    pub resume: Resume,
}

/// A finished (or interrupted) exhaustive run.
pub struct ExhaustiveRun {
    /// `exhaustive.json` as written.
    pub file: ExhaustiveJson,
    /// Whether the interrupt stopped it.
    pub interrupted: bool,
}

/// The chunk size of a range of `len` inputs (see the module docs).
pub fn chunk_size(len: u64) -> u64 {
    (len / 1024).clamp(4096, 1 << 22)
}

/// The chunks `[first, end)` of `count` that `shard` runs.
fn shard_chunks(shard: Option<Shard>, count: u64) -> (u64, u64) {
    match shard {
        None => (0, count),
        Some(s) => {
            let (k, n) = (s.index as u64, s.count as u64);
            ((k - 1) * count / n, k * count / n)
        }
    }
}

/// The path of chunk `i`'s file.
fn chunk_path(out: &Path, i: u64) -> PathBuf {
    out.join(CHUNKS_DIR).join(format!("chunk-{i:05}.json"))
}

/// Runs `program`'s function exhaustively into `out` (see the module docs).
pub fn run_exhaustive(
    program: &Program,
    options: &ExhaustiveOptions,
    out: &Path,
    interrupt: Option<&Interrupt>,
    notes: Notes<'_>,
    watch: Option<Watch<'_>>,
) -> Result<ExhaustiveRun> {
    let started = Instant::now();
    let loaded = program.load(notes)?;
    let (module, func) = (&loaded.module, loaded.func);
    let checker = Exhaustive::new(module, func, &options.oracle)?;
    let range = &options.range;
    let size = chunk_size(range.len());
    let count = range.len().div_ceil(size);
    let (first, end) = shard_chunks(options.shard, count);
    let judged_by = judged_by(&checker);
    let key = fnv1a([
        "exhaustive",
        &fpir::write_reached(module, func),
        checker.truth().mpfr_name(),
        &judged_by,
        &range.to_string(),
        &size.to_string(),
    ]);
    let chunks_dir = out.join(CHUNKS_DIR);
    std::fs::create_dir_all(&chunks_dir).map_err(|e| DriverError::io("create", &chunks_dir, e))?;
    let mut done = match options.resume {
        Resume::Continue => {
            remove_chunks(&chunks_dir, |text| {
                ChunkJson::from_json(text).map_or(true, |c| c.key != key)
            })?;
            saved_chunks(out, &key, first..end)
        }
        Resume::Restart => {
            remove_chunks(&chunks_dir, |_| true)?;
            Vec::new()
        }
    };
    let floor = Floor::default();
    for (_, t) in &done {
        floor.raise(t.max.as_ref().map_or(t.below, |m| m.ulps));
    }
    checker.checker()?.probe(range, PROBES, &floor)?;
    let pending: Vec<u64> = (first..end)
        .filter(|i| !done.iter().any(|(d, _)| d == i))
        .collect();
    let work = Work {
        checker: &checker,
        range,
        size,
        key: &key,
        out,
        floor: &floor,
        interrupt,
        watch,
        total: (first..end)
            .map(|i| span(range, size, i).count() as u64)
            .sum(),
        progress: AtomicU64::new(done.iter().map(|(_, t)| t.inputs).sum()),
    };
    let (ran, interrupted) = work.run_all(&pending, options.jobs)?;
    done.extend(ran);
    done.sort_by_key(|(i, _)| *i);
    let mut tally = Tally::default();
    for (_, t) in &done {
        tally.join(t);
    }
    let finished = done.len() as u64 == end - first;
    let recheck = match (&tally.max, finished) {
        (Some(max), true) => Some(RecheckJson::from(&checker.recheck(max))),
        _ => None,
    };
    let file = ExhaustiveJson {
        format: FORMAT.to_string(),
        version: EXHAUSTIVE_VERSION,
        function: module.funcs[func].display_name().to_string(),
        oracle: checker.truth().mpfr_name().to_string(),
        judged_by,
        range: range.to_string(),
        range_inputs: range.len(),
        key,
        chunks: count,
        chunks_done: done.len() as u64,
        shard: options.shard.map(|s| ShardJson {
            index: s.index,
            count: s.count,
        }),
        finished,
        tally: TallyJson::result(&tally),
        recheck,
        seconds: started.elapsed().as_secs_f64(),
    };
    write_atomic(&out.join(EXHAUSTIVE_JSON), &file.to_json()?)?;
    Ok(ExhaustiveRun { file, interrupted })
}

/// How results are judged, as `exhaustive.json` says it.
fn judged_by(checker: &Exhaustive<'_>) -> String {
    match checker.fast_bound() {
        Some(b) => format!("fast path (host double, bound {b} ulps), then MPFR"),
        None => "MPFR (no trusted fast path)".to_string(),
    }
}

/// The indices of chunk `i`'s inputs in the range.
fn span(range: &InputRange, size: u64, i: u64) -> std::ops::Range<u64> {
    let start = i * size;
    start..(start + size).min(range.len())
}

/// The tallies of the chunk files of key `key` among `chunks`.
fn saved_chunks(out: &Path, key: &str, chunks: std::ops::Range<u64>) -> Vec<(u64, Tally)> {
    chunks
        .filter_map(|i| {
            let text = std::fs::read_to_string(chunk_path(out, i)).ok()?;
            let chunk = ChunkJson::from_json(&text).ok()?;
            if chunk.key != key || chunk.chunk != i {
                return None;
            }
            Some((i, chunk.tally.tally().ok()?))
        })
        .collect()
}

/// Removes the chunk files in `dir` whose text `stale` says are not to be kept (another
/// run's, or unreadable).
fn remove_chunks(dir: &Path, stale: impl Fn(&str) -> bool) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| DriverError::io("clear", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| DriverError::io("clear", dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name.starts_with("chunk-") && name.ends_with(".json");
        if ours && stale(&std::fs::read_to_string(entry.path()).unwrap_or_default()) {
            std::fs::remove_file(entry.path())
                .map_err(|e| DriverError::io("remove", entry.path(), e))?;
        }
    }
    Ok(())
}

/// What the threads of a run share.
struct Work<'a, 'm> {
    checker: &'a Exhaustive<'m>,
    range: &'a InputRange,
    size: u64,
    key: &'a str,
    out: &'a Path,
    floor: &'a Floor,
    interrupt: Option<&'a Interrupt>,
    watch: Option<Watch<'a>>,
    /// Inputs of the run's chunks.
    total: u64,
    /// Inputs checked so far.
    progress: AtomicU64,
}

impl Work<'_, '_> {
    /// Runs `pending` chunks on `jobs` threads; their tallies, and whether the interrupt
    /// stopped the run.
    fn run_all(&self, pending: &[u64], jobs: usize) -> Result<(Vec<(u64, Tally)>, bool)> {
        let next = AtomicUsize::new(0);
        let stopped = AtomicBool::new(false);
        let results = Mutex::new(Vec::new());
        let failure: Mutex<Option<DriverError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..jobs.max(1).min(pending.len().max(1)) {
                scope.spawn(|| {
                    if let Err(e) = self.worker(pending, &next, &stopped, &results) {
                        stopped.store(true, Ordering::Relaxed);
                        failure.lock().expect("no panic").get_or_insert(e);
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().expect("no panic") {
            return Err(e);
        }
        let interrupted = self.interrupt.is_some_and(Interrupt::raised);
        Ok((results.into_inner().expect("no panic"), interrupted))
    }

    /// One thread: takes chunks until none is left or the run stops.
    fn worker(
        &self,
        pending: &[u64],
        next: &AtomicUsize,
        stopped: &AtomicBool,
        results: &Mutex<Vec<(u64, Tally)>>,
    ) -> Result<()> {
        let mut checker = self.checker.checker()?;
        let stop = |inputs: u64| {
            let done = self.progress.fetch_add(inputs, Ordering::Relaxed) + inputs;
            if let Some(watch) = self.watch {
                watch(&RunStatus {
                    evals: done,
                    total: self.total as usize,
                    ..RunStatus::default()
                });
            }
            if self.interrupt.is_some_and(Interrupt::raised) {
                stopped.store(true, Ordering::Relaxed);
            }
            stopped.load(Ordering::Relaxed)
        };
        while !stopped.load(Ordering::Relaxed) {
            let Some(&i) = pending.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let Some(tally) = checker.check(
                self.range,
                span(self.range, self.size, i),
                self.floor,
                &stop,
            )?
            else {
                break;
            };
            let chunk = ChunkJson {
                format: CHUNK_FORMAT.to_string(),
                version: EXHAUSTIVE_VERSION,
                key: self.key.to_string(),
                chunk: i,
                tally: TallyJson::from(&tally),
            };
            write_atomic(&chunk_path(self.out, i), &chunk.to_json()?)?;
            results.lock().expect("no panic").push((i, tally));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_contiguous_and_cover_every_chunk() {
        assert_eq!(chunk_size(1 << 32), 1 << 22);
        assert_eq!(chunk_size(1000), 4096);
        for n in 1..7 {
            let mut next = 0;
            for k in 1..=n {
                let (a, b) = shard_chunks(Some(Shard { index: k, count: n }), 1024);
                assert_eq!(a, next);
                next = b;
            }
            assert_eq!(next, 1024);
        }
    }
}
