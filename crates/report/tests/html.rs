//! `report.html` of a coverage run, independent of any engine: the statuses of
//! `tests/fixtures/report/gauge.c`'s sides are set by hand (covered by a test or by a
//! crash, proved infeasible, not reached with a closest test; trap targets reached,
//! proved unreachable and not reached) and the page is compared
//! with the golden file `gauge.html` beside it (re-bless with `FPFORGE_BLESS=1`); a
//! source that cannot be read puts every side in the list of sides without source.

use fpforge_report::coverage::Coverage;
use fpforge_report::findings::CrashRow;
use fpforge_report::html::{coverage_page, Sources};
use fpforge_report::{Ending, EngineStats};
use fpir::{
    Closest, Effort, InfeasibleMethod, MissReason, Module, SideReport, SideStatus, SrcLoc, Witness,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/report")
}

/// The fixture's module with trap guards, as `cover` runs it, its source files named by
/// absolute paths (clang names them relative to the working directory).
fn module() -> Module {
    let dir = fixtures().canonicalize().unwrap();
    let mut module =
        fpforge_lower::load(&[dir.join("gauge.c")], &Default::default()).expect("lowers");
    let gauge = module.func_by_name("gauge").unwrap();
    let reached = module.reachable_funcs(gauge);
    fpir::guard::add_trap_guards(&mut module, &reached).unwrap();
    let files: Vec<String> = module
        .files
        .values()
        .map(|f| {
            let name = Path::new(f).file_name().unwrap();
            dir.join(name).to_string_lossy().into_owned()
        })
        .collect();
    module.files = files.into_iter().collect();
    module
}

/// The tests: the lines of `inputs.txt`.
const INPUTS: [&str; 4] = ["0x0p+0 0", "inf 0", "-inf 0", "0x1.ba5eb47e938p-1 3"];

/// Every side of `gauge` with the status the page is drawn with.
fn statuses() -> Vec<(&'static str, SideStatus)> {
    let test = |i| SideStatus::Covered {
        witness: Witness::Test(i),
    };
    let crash = SideStatus::Covered {
        witness: Witness::Finding(0),
    };
    let infeasible = |method| SideStatus::Infeasible { method };
    let not_reached = |closest, effort| SideStatus::NotReached {
        reason: MissReason {
            branch_reached: true,
            closest,
            effort,
            open: None,
        },
    };
    let searched = Effort {
        aimed_searches: 20,
        aimed_evaluations: 41_000,
        proof_time: Some(Duration::from_millis(1200)),
    };
    let closest = Closest {
        test: 3,
        distance: 2.5e16,
    };
    vec![
        ("br0:T", test(0)),
        ("br0:F", test(0)),
        ("br1:T", crash),
        ("br1:F", test(0)),
        ("br2:T", infeasible(InfeasibleMethod::ConstantCondition)),
        ("br2:F", test(0)),
        ("br3:T", infeasible(InfeasibleMethod::DeadCode)),
        ("br3:F", infeasible(InfeasibleMethod::DeadCode)),
        ("br4:T", test(2)),
        ("br4:F", test(0)),
        ("br5:case0", test(0)),
        ("br5:case3", test(3)),
        ("br5:default", not_reached(None, Effort::default())),
        ("br6:T", test(1)),
        ("br6:F", test(0)),
        ("br7:T", not_reached(Some(closest), searched)),
        ("br7:F", test(3)),
        ("br8:T", test(1)),
        ("br8:F", test(3)),
        ("br9:trap", crash),
        ("br9:safe", test(0)),
        ("br10:trap", not_reached(None, searched)),
        ("br10:safe", test(3)),
        ("br11:trap", infeasible(InfeasibleMethod::PrefixExploration)),
        ("br11:safe", test(2)),
    ]
}

/// The page of the hand-made run on `module`, with the fixture directory left out of
/// its paths so the golden file does not depend on where the repository lives.
fn page(module: &Module) -> String {
    let func = module.func_by_name("gauge").unwrap();
    let sides: Vec<SideReport> = statuses()
        .into_iter()
        .map(|(name, status)| SideReport {
            side: module.parse_side(name).unwrap(),
            status,
        })
        .collect();
    let file = module.funcs[func].loc.unwrap().file;
    let findings = [CrashRow {
        kind: "crash",
        number: 1,
        trap: "out-of-bounds access of 8 bytes at offset 32 of a 32-byte object".into(),
        class: "object-overrun",
        function: "gauge".into(),
        location: "gauge.c:12:30".into(),
        loc: Some(SrcLoc {
            file,
            line: 12,
            col: 30,
        }),
        stack: Vec::new(),
        file: "crashes/1.txt".into(),
        input: "0x0p+0 4".into(),
        fingerprint: "0123456789abcdef".into(),
        replay: "fpforge run gauge.c -f gauge -- 0x0p+0 4".into(),
        replay_from_file: "fpforge run gauge.c -f gauge -- $(grep -v '^#' crashes/1.txt)".into(),
    }];
    let inputs: Vec<String> = INPUTS.map(String::from).to_vec();
    let found_at = [0.001, 0.002, 0.004, 0.012].map(Duration::from_secs_f64);
    let ending = Ending {
        stop: "all starting points searched".into(),
        elapsed: Duration::from_millis(1990),
        stats: EngineStats::Cover {
            evaluations: 1_096_136,
            starts: 500,
        },
    };
    let coverage = Coverage {
        module,
        func,
        sides: &sides,
        inputs: &inputs,
        found_at: &found_at,
        findings: &findings,
        diagnostic: None,
        ending: Some(&ending),
        engine: "cover",
    };
    let dir = format!("{}/", fixtures().canonicalize().unwrap().display());
    coverage_page(&coverage, &mut Sources::default()).replace(&dir, "")
}

#[test]
fn the_page_of_a_run_matches_its_golden_file() {
    let text = page(&module());
    let golden = fixtures().join("gauge.html");
    if std::env::var_os("FPFORGE_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&golden, &text).expect("writing the golden file");
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|_| {
        panic!(
            "missing {}; run with FPFORGE_BLESS=1 to create it",
            golden.display()
        )
    });
    if let Some(line) = expected.lines().zip(text.lines()).position(|(a, b)| a != b) {
        panic!(
            "report.html differs from {} at line {}:\n  expected: {:?}\n  actual:   {:?}\n\
             (re-bless with FPFORGE_BLESS=1 if the change is intended)",
            golden.display(),
            line + 1,
            expected.lines().nth(line),
            text.lines().nth(line)
        );
    }
    assert_eq!(expected, text, "the page differs in its length");
}

#[test]
fn sides_of_an_unreadable_source_are_listed_without_it() {
    let mut module = module();
    let missing: Vec<String> = module.files.values().map(|f| format!("{f}.gone")).collect();
    module.files = missing.into_iter().collect();
    let text = page(&module);
    let unplaced = text
        .split("<section id=\"unplaced\">")
        .nth(1)
        .expect("a section of sides without source");
    assert!(unplaced.contains("cannot read gauge.c.gone"), "{unplaced}");
    let shown = statuses()
        .into_iter()
        .filter(|(n, _)| !n.ends_with(":safe"));
    for (name, status) in shown {
        let word = match status {
            SideStatus::Covered { .. } => "covered",
            SideStatus::Infeasible { .. } => "infeasible",
            SideStatus::NotReached { .. } => "not reached",
        };
        let row = format!("<tr data-side=\"{name}\" data-status=\"{word}\">");
        assert!(unplaced.contains(&row), "{row} missing");
    }
    assert!(
        !unplaced.contains(":safe"),
        "guards' safe sides are not shown"
    );
    assert!(!text.contains("<table class=\"src\">"), "no source table");
}
