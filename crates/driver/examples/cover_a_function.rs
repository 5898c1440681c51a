//! Covers one function of a C file into a directory and prints the summary: the driver
//! as a Rust program uses it, without the `fpforge` binary.
//!
//! ```sh
//! cargo run -p fpforge-driver --example cover_a_function -- examples/ieee_classify.c classify out/
//! ```

use fpforge_cover::CoverConfig;
use fpforge_driver::native::Confirm;
use fpforge_driver::out::TestSet;
use fpforge_driver::run::{run_one, CoverJob, JobBase, Place, Seeds};
use fpforge_driver::{Functions, Program, TrapTargets};
use fpforge_engine::Budget;
use fpforge_lower::LoadOptions;
use std::path::{Path, PathBuf};

/// Covers `function` of `source` into `out` with 20,000 evaluations and returns the
/// summary the run prints.
pub fn cover(source: &Path, function: &str, out: &Path) -> fpforge_driver::Result<String> {
    let functions = Functions::One(function.to_string());
    let program = Program::new(
        vec![source.to_path_buf()],
        functions,
        LoadOptions::default(),
    )
    .with_trap_targets(TrapTargets::On);
    let job = CoverJob {
        config: CoverConfig::default().with_seed(1),
        base: JobBase {
            budget: Budget::default().with_evals(Some(20_000)),
            specs: Default::default(),
        },
        tests: TestSet::Minimized,
    };
    let place = Place {
        out: Some(out),
        seeds: Seeds::None,
        junit: None,
        confirm: Confirm::Off,
    };
    let (_, searched) = run_one(&program, &job, place, &|note| eprintln!("{note:?}"), None)?;
    Ok(searched.finished.text)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [source, function, out] = args.as_slice() else {
        return Err("usage: cover_a_function SOURCE.c FUNCTION OUT_DIR".into());
    };
    print!(
        "{}",
        cover(&PathBuf::from(source), function, Path::new(out))?
    );
    Ok(())
}
