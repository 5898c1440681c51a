//! Atomic condition numbers on `tests/fixtures/accuracy/conditions.c`: the search drives
//! `1 - cos(x)` next to 2 pi, and the worst finding names the subtraction and its
//! condition number, recomputed here from the input.

use fpforge_accuracy::{accuracy, AccuracyConfig};
use fpforge_engine::Budget;
use fpforge_lower::LoadOptions;
use fpforge_spec::ArgSpec;
use std::path::PathBuf;

#[test]
fn the_worst_finding_names_the_cancelling_subtraction() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/accuracy/conditions.c");
    let module = fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers");
    let func = module.func_by_name("one_minus_cos").unwrap();
    let config = AccuracyConfig::default()
        .with_seed(3)
        .with_args(vec!["x in [4, 8]".parse::<ArgSpec>().unwrap()]);
    let budget = Budget::default().with_evals(Some(3000));
    let report = accuracy(&module, func, &config, &budget).unwrap();
    let worst = report.worst().expect("finite errors");
    let (site, number) = worst.condition.expect("a condition number");
    let data = module.op_sites.get(site).unwrap();
    assert_eq!(fpforge_accuracy::blame::op_name(&data.kind), "fsub");
    let x = f64::from_bits(worst.test.coords[0]);
    let c = x.cos();
    let expected = (1.0 + c.abs()) / (1.0 - c).abs();
    // Infinite where cos(x) rounds to 1 and the subtraction cancels to zero.
    assert!(
        number == expected || (number - expected).abs() <= 1e-9 * expected,
        "{number:e} vs {expected:e}"
    );
    assert!(number >= 1e6, "condition {number:e} at {x}");
}
