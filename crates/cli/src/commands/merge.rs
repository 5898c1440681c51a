//! `fpforge merge SHARD... --out OUT`: joins the output directories of a run's shards
//! (`--shard K/N`) into the directory a single run writes (the driver's
//! `library::merge`); prints the joined summary. The exit code is a single run's: 3 when
//! a function crashed or hung. Shards of `accuracy --exhaustive` (an `exhaustive.json`
//! in each directory) are joined by the driver's `exhaustive::merge` into one exact
//! result.

use crate::options::MergeOptions;
use crate::progress::Verbosity;
use anyhow::Result;
use fpforge_driver::exhaustive::{self, is_exhaustive};
use fpforge_driver::library::merge::merge;
use std::process::ExitCode;

/// Runs `fpforge merge`.
pub fn run(options: MergeOptions) -> Result<ExitCode> {
    if options.shards.first().is_some_and(|d| is_exhaustive(d)) {
        let merged =
            exhaustive::merge(&options.shards, &options.out).map_err(crate::render::error)?;
        if options.output.json {
            crate::output::emit(&merged.to_json()?)?;
        } else if options.output.verbosity == Verbosity::Normal {
            crate::output::emit(&merged.summary())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let merged = merge(&options.shards, &options.out).map_err(crate::render::error)?;
    if options.output.json {
        crate::output::emit(&merged.json)?;
    } else if options.output.verbosity == Verbosity::Normal {
        let wrote = format!(
            "merged {} shards into {}\n",
            options.shards.len(),
            options.out.display()
        );
        crate::output::emit(&(merged.index.summary() + &wrote))?;
    }
    let totals = merged.index.totals();
    Ok(crate::search_exit(false, totals.crashes + totals.hangs))
}
