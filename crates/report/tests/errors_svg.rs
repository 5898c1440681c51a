//! `errors.svg` parses as XML and holds, per panel, one marker per reported input and
//! one line per located zero or pole; the accuracy page embeds it.

use fpforge_accuracy::zeros::SingularityKind;
use fpforge_accuracy::{accuracy, AccuracyConfig, AccuracyReport, OracleChoice, TrueFunction};
use fpforge_engine::Budget;
use fpforge_lower::LoadOptions;
use fpforge_report::accuracy::{AccuracyProgress, RunInfo};
use fpforge_report::errors_svg::errors_svg;
use fpforge_report::html::final_accuracy_page;
use fpforge_spec::ArgSpec;
use fpir::Module;
use std::path::PathBuf;

fn run(name: &str, oracle: &str, range: &str) -> (Module, AccuracyReport) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/accuracy/zeros.c");
    let module = fpforge_lower::load(&[path], &LoadOptions::default()).expect("fixture lowers");
    let func = module.func_by_name(name).unwrap();
    let config = AccuracyConfig::default()
        .with_seed(7)
        .with_oracle(OracleChoice::Mpfr(
            TrueFunction::from_mpfr_name(oracle).unwrap(),
        ))
        .with_args(vec![range.parse::<ArgSpec>().unwrap()]);
    let budget = Budget::default().with_evals(Some(2000));
    let report = accuracy(&module, func, &config, &budget).unwrap();
    (module, report)
}

fn count(doc: &roxmltree::Document<'_>, element: &str, class: &str) -> usize {
    doc.descendants()
        .filter(|n| n.tag_name().name() == element && n.attribute("class") == Some(class))
        .count()
}

#[test]
fn one_marker_per_reported_input_and_a_line_per_zero_and_pole() {
    for (name, oracle, range) in [
        ("j0_series", "j0", "x in [0.5, 4]"),
        ("tan_series", "tan", "x in [1, 2]"),
    ] {
        let (_, report) = run(name, oracle, range);
        let svg = errors_svg(&report);
        let doc = roxmltree::Document::parse(&svg).expect("errors.svg parses");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let reported = report.top.len() + report.special_values.len();
        assert!(reported > 0);
        assert_eq!(count(&doc, "circle", "reported"), reported, "{name}");
        // Samples whose input is not finite have no place on the axis.
        let finite = report
            .samples
            .iter()
            .filter(|s| s.point[0].is_finite())
            .count();
        assert!(finite >= report.samples.len() * 9 / 10);
        assert_eq!(count(&doc, "circle", "sample"), finite);
        assert_eq!(
            count(&doc, "line", "zero"),
            report.count(SingularityKind::Zero)
        );
        assert_eq!(
            count(&doc, "line", "pole"),
            report.count(SingularityKind::Pole)
        );
    }
}

#[test]
fn the_accuracy_page_embeds_the_plot() {
    let (module, report) = run("j0_series", "j0", "x in [0.5, 4]");
    let info = RunInfo {
        function: "j0_series",
        strategy: "search",
        precision: 128,
        verify_precision: None,
        oracle: Some(&report.oracle),
        metric: Some(report.metric),
        findings: &[],
        diagnostic: None,
    };
    let page = final_accuracy_page(
        info,
        AccuracyProgress::default(),
        (&module, &Default::default()),
        &report,
    );
    let svg = errors_svg(&report);
    assert!(page.contains(&svg));
}
