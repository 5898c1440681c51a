//! Lowering tests: C fixtures under `tests/fixtures/lower` lowered and compared as fpir
//! text against golden `.ir` files next to them (re-bless with `FPFORGE_BLESS=1`), the
//! site-numbering contract checked against `llvm-dis`, and the error paths.

use fpforge_lower::{
    compile_to_bitcode, load, lower_bitcode, LoadOptions, LowerError, MissingKind,
};
use fpir::{BranchKind, Callee, InstKind, Module, OpKind};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/lower")
}

fn fixture(name: &str) -> PathBuf {
    fixtures().join(name)
}

/// Loads fixtures and makes file names relative to the fixture directory (clang records
/// them relative to its working directory when they are under it, absolute otherwise),
/// so golden files do not depend on where the repository lives or the test runs.
fn load_fixtures(names: &[&str]) -> Module {
    let paths: Vec<PathBuf> = names.iter().map(|n| fixture(n)).collect();
    let mut module = load(&paths, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("loading {names:?} failed: {e}"));
    let files: Vec<String> = module
        .files
        .values()
        .map(|f| f.rsplit("fixtures/lower/").next().unwrap_or(f).to_string())
        .collect();
    module.files = files.into_iter().collect();
    fpir::verify_module(&module).expect("lowered module verifies");
    let text = fpir::write_module(&module);
    let reparsed = fpir::parse_module(&text).expect("the IR text parses back");
    assert_eq!(reparsed, module, "the IR text round-trips");
    module
}

/// Compares the IR text of `module` with `<name>.ir`, or rewrites it when blessing.
fn check_golden(name: &str, module: &Module) {
    let text = fpir::write_module(module);
    let golden = fixture(&format!("{name}.ir"));
    if std::env::var_os("FPFORGE_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&golden, &text).expect("writing golden file");
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|_| {
        panic!(
            "missing golden file {}; run with FPFORGE_BLESS=1 to create it",
            golden.display()
        )
    });
    if expected != text {
        let first = expected
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(text.lines().count()));
        panic!(
            "{name}: lowered IR differs from {} at line {}:\n  expected: {:?}\n  actual:   {:?}\n\
             full output:\n{text}\n(re-bless with FPFORGE_BLESS=1 if the change is intended)",
            golden.display(),
            first + 1,
            expected.lines().nth(first),
            text.lines().nth(first),
        );
    }
}

macro_rules! golden {
    ($($test:ident => $file:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                let module = load_fixtures(&[$file]);
                let stem = $file.rsplit_once('.').map_or($file, |(stem, _)| stem);
                check_golden(stem, &module);
            }
        )*
    };
}

golden! {
    golden_branches => "branches.c",
    golden_loops => "loops.c",
    golden_switch => "switch.c",
    golden_globals => "globals.c",
    golden_punning => "punning.c",
    golden_gep => "gep.c",
    golden_math => "math.c",
    golden_fnptr => "fnptr.c",
    golden_dead_code => "dead_code.c",
    golden_constexpr => "constexpr.ll",
    golden_cxx => "cxx.cpp",
    golden_aggregates => "aggregates.c",
    golden_aggregate_values => "aggregate_values.ll",
    golden_fenv => "fenv.c",
    golden_selects => "selects.ll",
    golden_wide => "wide.ll",
    golden_long_double => "long_double.c",
}

/// One site as the test harness sees it in `llvm-dis` output: function and kind.
#[derive(Debug, PartialEq, Eq)]
struct TextSite {
    func: String,
    what: String,
}

/// Numbers the `br i1`/`switch` lines, then the `select i1 %...` lines, and the FP
/// operations and math calls of the textual IR, the way the differential harness does.
fn text_sites(ll: &str, module: &Module) -> (Vec<TextSite>, Vec<TextSite>) {
    let mut branches = Vec::new();
    let mut selects = Vec::new();
    let mut ops = Vec::new();
    let mut func = String::new();
    for line in ll.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            let at = rest.find('@').expect("function name");
            let name = &rest[at + 1..];
            func = name[..name.find('(').expect("parameter list")]
                .trim_matches('"')
                .to_string();
            continue;
        }
        let t = line.trim_start();
        if t.starts_with("br i1 ") {
            branches.push(TextSite {
                func: func.clone(),
                what: "cond".into(),
            });
        } else if t.starts_with("switch ") {
            branches.push(TextSite {
                func: func.clone(),
                what: "switch".into(),
            });
        }
        let op = t.split(" = ").nth(1).unwrap_or("");
        if op.starts_with("select i1 %") {
            selects.push(TextSite {
                func: func.clone(),
                what: "cond".into(),
            });
        }
        let mnemonic = op.split_whitespace().next().unwrap_or("");
        if ["fadd", "fsub", "fmul", "fdiv", "frem"].contains(&mnemonic) {
            ops.push(TextSite {
                func: func.clone(),
                what: mnemonic.into(),
            });
        } else if op.contains("call ") {
            let callee = op.split('@').nth(1).and_then(|c| c.split('(').next());
            let constrained = callee
                .and_then(|c| c.strip_prefix("llvm.experimental.constrained."))
                .and_then(|c| c.split('.').next())
                .filter(|op| ["fadd", "fsub", "fmul", "fdiv", "frem"].contains(op));
            if let Some(op) = constrained {
                ops.push(TextSite {
                    func: func.clone(),
                    what: op.into(),
                });
            } else if let Some(callee) = callee {
                let is_math = !callee.starts_with("llvm.dbg")
                    && module.func_by_name(callee).is_none()
                    && is_math_name(callee);
                if is_math {
                    ops.push(TextSite {
                        func: func.clone(),
                        what: "math".into(),
                    });
                }
            }
        }
    }
    branches.extend(selects);
    (branches, ops)
}

fn is_math_name(callee: &str) -> bool {
    let stem = callee
        .strip_prefix("llvm.")
        .map(|s| s.split('.').next().unwrap_or(s))
        .unwrap_or(callee);
    fpir::MathFn::from_name(stem).is_some()
        || stem
            .strip_suffix('f')
            .is_some_and(|s| fpir::MathFn::from_name(s).is_some())
}

#[test]
fn sites_follow_llvm_textual_order() {
    let paths = [
        fixture("fdlibm.c"),
        fixture("math.c"),
        fixture("switch.c"),
        fixture("dead_code.c"),
        fixture("aggregates.c"),
        fixture("fenv.c"),
        fixture("branches.c"),
        fixture("selects.ll"),
    ];
    let bitcode = compile_to_bitcode(&paths, &LoadOptions::default()).expect("compiles");
    let module = lower_bitcode(bitcode.path()).expect("lowers");
    let out = Command::new("llvm-dis-14")
        .arg(bitcode.path())
        .arg("-o")
        .arg("-")
        .output()
        .expect("llvm-dis-14 runs");
    assert!(out.status.success());
    let ll = String::from_utf8(out.stdout).expect("utf-8");
    let (text_branches, text_ops) = text_sites(&ll, &module);
    let ours: Vec<TextSite> = module
        .branch_sites
        .values()
        .map(|s| TextSite {
            func: module.funcs[s.func].name.clone(),
            what: match s.kind {
                BranchKind::Cond => "cond".into(),
                BranchKind::Switch { .. } => "switch".into(),
                BranchKind::Trap(check) => panic!("lowering made a {check:?} guard"),
            },
        })
        .collect();
    assert!(ours.len() > 90, "fdlibm.c has many branches");
    let selects = ["classify", "clamp", "clamp", "step_sum", "dead_wide"];
    let last: Vec<&str> = ours[ours.len() - selects.len()..]
        .iter()
        .map(|s| s.func.as_str())
        .collect();
    assert_eq!(last, selects, "selects are numbered last, in textual order");
    assert_eq!(ours, text_branches);
    let our_ops: Vec<TextSite> = module
        .op_sites
        .values()
        .map(|s| TextSite {
            func: module.funcs[s.func].name.clone(),
            what: match s.kind {
                OpKind::Arith(op, _) => fpir::write::float_bin_name(op).into(),
                OpKind::Math(_) => "math".into(),
            },
        })
        .collect();
    assert_eq!(our_ops, text_ops);
}

#[test]
fn fdlibm_style_file_lowers_with_locations() {
    let module = load_fixtures(&["fdlibm.c"]);
    assert_eq!(module.files.values().collect::<Vec<_>>(), ["fdlibm.c"]);
    let exp = module.func_by_name("fd_exp").expect("fd_exp");
    let f = &module.funcs[exp];
    assert_eq!(module.describe_loc(f.loc), "fdlibm.c:57:0");
    assert_eq!(f.param_names, [Some("x".to_string())]);
    let frexp = &module.funcs[module.func_by_name("fd_frexp").expect("fd_frexp")];
    assert_eq!(frexp.param_pointees, [None, Some(fpir::Type::I32)]);
    assert!(module.externals.is_empty());
    for site in module.branch_sites.values() {
        assert!(site.loc.is_some(), "every branch has a location");
    }
    let with_cmp = module.branch_sites.values().filter(|s| s.cmp.is_some());
    assert!(with_cmp.count() > 80, "branch comparisons are found");
}

#[test]
fn directories_are_loaded_in_name_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("b.c"), "double b(double x) { return x; }\n").unwrap();
    std::fs::write(
        dir.path().join("a.c"),
        "double b(double);\ndouble a(double x) { return b(x) * 2; }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a source").unwrap();
    let module = load(&[dir.path().to_path_buf()], &LoadOptions::default()).expect("loads");
    let names: Vec<&str> = module.funcs.values().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let a = &module.funcs[module.func_by_name("a").unwrap()];
    let calls_b = a.blocks.values().flat_map(|b| &b.insts).any(|i| {
        matches!(&i.kind, InstKind::Call { callee: Callee::Direct(f), .. } if module.funcs[*f].name == "b")
    });
    assert!(calls_b, "the call crosses files as a direct call");
}

#[test]
fn llvm_ir_inputs_are_accepted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ll = dir.path().join("m.ll");
    std::fs::write(
        &ll,
        "define double @twice(double %x) {\nentry:\n  %r = fmul double %x, 2.0\n  ret double %r\n}\n",
    )
    .unwrap();
    let module = load(&[ll], &LoadOptions::default()).expect("loads");
    let text = fpir::write_module(&module);
    assert!(text.contains("fmul f64 v0, v1 @op0"), "{text}");
}

#[test]
fn syntax_errors_show_clang_diagnostics() {
    let err = load(&[fixture("syntax_error.c")], &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LowerError::Compile { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("syntax_error.c:2:"), "{text}");
    assert!(text.contains("error: expected expression"), "{text}");
}

#[test]
fn float128_is_unsupported_with_its_location() {
    let err = load(&[fixture("float128.c")], &LoadOptions::default()).unwrap_err();
    let LowerError::Unsupported { what, location, .. } = &err else {
        panic!("expected Unsupported, got {err:?}");
    };
    assert!(what.contains("fp128 (__float128)"), "{what}");
    assert!(what.contains("`widen`"), "{what}");
    assert!(location.ends_with("float128.c:3:0"), "{location}");
}

/// Wide integers lower as limbs between defined functions; an intrinsic or a `switch`
/// on one has no limb form and is named.
#[test]
fn wide_integer_intrinsics_and_switches_are_unsupported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "declare i128 @llvm.ctpop.i128(i128)\n\
             define i128 @f(i128 %x) {\nentry:\n  %p = call i128 @llvm.ctpop.i128(i128 %x)\n  ret i128 %p\n}\n",
            "call of `llvm.ctpop.i128` on an integer wider than 64 bits",
        ),
        (
            "define i32 @f(i128 %x) {\nentry:\n  switch i128 %x, label %d [ i128 1, label %one ]\n\
             one:\n  ret i32 1\nd:\n  ret i32 0\n}\n",
            "switch",
        ),
    ];
    for (i, (text, want)) in cases.into_iter().enumerate() {
        let ll = dir.path().join(format!("m{i}.ll"));
        std::fs::write(&ll, text).unwrap();
        let err = load(&[ll], &LoadOptions::default()).unwrap_err();
        let LowerError::Unsupported { what, .. } = &err else {
            panic!("expected Unsupported, got {err:?}");
        };
        assert!(what.contains(want), "{what}");
    }
}

#[test]
fn stubs_stand_for_declared_functions_whose_address_is_taken() {
    let module = load_fixtures(&["fnptr.c"]);
    let sin = module.func_by_name("sin").expect("a stub for sin");
    let body = &module.funcs[sin].blocks[fpir::Function::ENTRY].insts;
    assert!(matches!(
        body[..],
        [fpir::Inst {
            kind: InstKind::Call {
                callee: Callee::Math(..),
                ..
            },
            ..
        }]
    ));
    let integrate_sin = module.func_by_name("integrate_sin").unwrap();
    assert!(module.reachable_funcs(integrate_sin).contains(&sin));
    assert!(module.unresolved_from(integrate_sin).is_empty());
    let mystery = module.func_by_name("mystery").expect("a stub for mystery");
    assert_eq!(module.unresolved_from(mystery), ["mystery"]);
}

#[test]
fn skip_unsupported_turns_such_functions_into_trapping_skeletons() {
    let opts = LoadOptions::default().with_skip_unsupported(true);
    let module = load(&[fixture("float128.c")], &opts).expect("loads with skipping");
    fpir::verify_module(&module).expect("verifies");
    let fine = module.func_by_name("fine").unwrap();
    assert!(module.unresolved_from(fine).is_empty());
    let widen = module.func_by_name("widen").unwrap();
    assert_eq!(
        module.funcs[widen].ret, None,
        "the __float128 result is left out"
    );
    let missing = module.unresolved_from(widen);
    assert_eq!(missing.len(), 1);
    assert!(
        missing[0].starts_with("widen (not lowered: ") && missing[0].contains("__float128"),
        "{missing:?}"
    );
}

#[test]
fn skipped_functions_keep_their_branch_sites() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("mixed.c");
    // `?:` with constant arms is a `select`: `mid` has one on `int` and one on
    // `__float128`, `after` one on `int`.
    std::fs::write(
        &src,
        "double before(double x) { return x < 0 ? -x : x; }\n\
         __float128 mid(__float128 x, int n) {\n\
           for (int i = 0; i < n; i++) x *= (i & 1) ? 2 : 3;\n\
           return n > 5 ? (__float128)1 : (__float128)2;\n\
         }\n\
         int after(double x, int k) { if (x > 1) return k > 2 ? 1 : 5; return 0; }\n",
    )
    .unwrap();
    let opts = LoadOptions::default().with_skip_unsupported(true);
    let bitcode = compile_to_bitcode(&[src], &opts).expect("compiles");
    let module = fpforge_lower::lower_bitcode_with(bitcode.path(), &opts).expect("lowers");
    let funcs: Vec<&str> = module
        .branch_sites
        .values()
        .map(|s| module.funcs[s.func].name.as_str())
        .collect();
    assert_eq!(funcs, ["before", "mid", "after", "mid", "mid", "after"]);
    assert!(matches!(
        lower_bitcode(bitcode.path()),
        Err(LowerError::Unsupported { .. })
    ));
}

#[test]
fn aliases_of_functions_can_be_run_by_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("alias.c");
    std::fs::write(
        &src,
        "double __twice(double x) { return 2 * x; }\n\
         extern __typeof(__twice) twice __attribute__((weak, alias(\"__twice\")));\n\
         double four(double x) { return twice(twice(x)); }\n",
    )
    .unwrap();
    let module = load(&[src], &LoadOptions::default()).expect("loads");
    fpir::verify_module(&module).expect("verifies");
    let target = module.func_by_name("__twice").unwrap();
    let alias = module
        .func_by_name("twice")
        .expect("the alias is a function");
    let insts = &module.funcs[alias].blocks[fpir::Function::ENTRY].insts;
    assert!(matches!(
        &insts[..],
        [fpir::Inst { kind: InstKind::Call { callee: Callee::Direct(f), .. }, .. }] if *f == target
    ));
    let four = module.func_by_name("four").unwrap();
    assert!(
        !module.reachable_funcs(four).contains(&alias),
        "calls go to the target"
    );
}

#[test]
fn unknown_externals_are_reported_by_unresolved_from() {
    let module = load_fixtures(&["unknown_external.c"]);
    let calls = module.func_by_name("calls_mystery").unwrap();
    assert_eq!(module.unresolved_from(calls), ["mystery", "perror"]);
    let pure = module.func_by_name("pure").unwrap();
    assert!(module.unresolved_from(pure).is_empty());
}

#[test]
fn missing_clang_says_to_run_setup() {
    let opts = LoadOptions::default().with_clang("clang-14-does-not-exist");
    let err = load(&[fixture("branches.c")], &opts).unwrap_err();
    assert!(matches!(err, LowerError::ToolNotFound { .. }), "{err:?}");
    assert!(err.to_string().contains("scripts/setup.sh"), "{err}");
}

/// A file of random bytes named `.bc` (no line break or NUL among them, so that the
/// line quoted is all of it): llvm-link reads it as IR text and quotes the line it stopped
/// at; the error quotes that escaped and cut, never the raw bytes.
#[test]
fn garbage_bitcode_is_quoted_escaped_and_cut() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("garbage.bc");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let garbage: Vec<u8> = (0..3000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        })
        .filter(|&b| !matches!(b, b'\n' | b'\r' | 0))
        .collect();
    std::fs::write(&path, &garbage).unwrap();
    let err = load(&[path], &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LowerError::Tool { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("llvm-link"), "{text}");
    assert!(
        text.chars()
            .all(|c| c == '\n' || c == '\t' || !c.is_control()),
        "{text:?}"
    );
    assert!(!text.contains('\u{fffd}'), "{text:?}");
    assert!(text.contains(" more bytes cut]"), "{text}");
    assert!(text.len() < 2000, "{} bytes: {text}", text.len());
}

#[test]
fn compiler_flags_reach_clang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("d.c");
    std::fs::write(&src, "double k(void) { return SCALE * 2.0; }\n").unwrap();
    assert!(matches!(
        load(std::slice::from_ref(&src), &LoadOptions::default()),
        Err(LowerError::Compile { .. })
    ));
    let opts = LoadOptions::default().with_compiler_flags(["-DSCALE=3.0"]);
    let module = load(&[src], &opts).expect("compiles with -D");
    assert!(module.func_by_name("k").is_some());
}

#[test]
fn unknown_input_kinds_are_rejected() {
    let err = load(&[PathBuf::from("notes.txt")], &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LowerError::UnknownInput { .. }), "{err:?}");
    let err = load(&[], &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LowerError::NoInputs), "{err:?}");
    let err = load(&[fixture("no_such_file.c")], &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LowerError::Io { .. }), "{err:?}");
}

#[test]
fn a_file_named_twice_is_compiled_once() {
    let dir = fixtures();
    let twice = [fixture("branches.c"), dir.join(".").join("branches.c")];
    let module = load(&twice, &LoadOptions::default()).expect("loads");
    assert_eq!(module.funcs.len(), 2);
}

fn load_lazy(entry: &str, opts: LoadOptions) -> Result<fpforge_lower::Loaded, LowerError> {
    fpforge_lower::load_program(&[fixture("lazy.c")], &opts.with_entry(entry))
}

#[test]
fn only_what_the_entry_reaches_must_lower() {
    let loaded = load_lazy("unrelated", LoadOptions::default()).expect("loads");
    assert!(loaded.missing.is_empty());
    let entry = loaded.entry.expect("the entry is found");
    assert_eq!(loaded.module.funcs[entry].name, "unrelated");
    assert!(
        matches!(
            load(&[fixture("lazy.c")], &LoadOptions::default()),
            Err(LowerError::Unsupported { .. })
        ),
        "without an entry every function must lower"
    );
    let err = load_lazy("top", LoadOptions::default()).unwrap_err();
    let LowerError::Unsupported {
        what,
        location,
        reached,
    } = &err
    else {
        panic!("expected Unsupported, got {err:?}");
    };
    assert!(what.contains("`through_long_double`"), "{what}");
    assert!(location.ends_with("lazy.c:3:18"), "{location}");
    assert_eq!(reached, &["top", "middle", "through_long_double"]);
    assert!(
        err.to_string()
            .ends_with("(reached: top → middle → through_long_double)"),
        "{err}"
    );
}

#[test]
fn skipped_functions_the_entry_reaches_are_missing() {
    let skip = || LoadOptions::default().with_skip_unsupported(true);
    let err = load_lazy("top", skip()).unwrap_err();
    let LowerError::Undefined { entry, missing, .. } = &err else {
        panic!("expected Undefined, got {err:?}");
    };
    assert_eq!(entry, "top");
    assert_eq!(missing.len(), 1);
    assert!(matches!(&missing[0].kind, MissingKind::NotLowered(why) if why.contains("__float128")));
    assert_eq!(missing[0].chain, ["top", "middle"]);
    assert!(
        missing[0].used_at.ends_with("lazy.c:6:34"),
        "{:?}",
        missing[0]
    );
    let loaded = load_lazy("top", skip().with_allow_undefined(true)).expect("loads");
    assert_eq!(loaded.missing, *missing);
}

#[test]
fn undefined_functions_and_globals_are_listed_together() {
    let err = load_lazy("calls_missing", LoadOptions::default()).unwrap_err();
    let LowerError::Undefined { missing, .. } = &err else {
        panic!("expected Undefined, got {err:?}");
    };
    let listed: Vec<(&str, &MissingKind, &str)> = missing
        .iter()
        .map(|m| {
            (
                m.name.as_str(),
                &m.kind,
                m.used_at.rsplit('/').next().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("missing_code", &MissingKind::Function, "lazy.c:14:41"),
            ("MACHEP", &MissingKind::Global, "lazy.c:12:44"),
            ("TABLE", &MissingKind::Global, "lazy.c:12:53"),
        ]
    );
    assert_eq!(missing[1].chain, ["calls_missing", "missing_data"]);
    let text = err.to_string();
    assert!(
        text.starts_with(
            "`calls_missing` may use what no input defines: functions missing_code; globals MACHEP, TABLE\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("MACHEP (global): used at ")
            && text.contains("in calls_missing → missing_data"),
        "{text}"
    );
    let opts = LoadOptions::default().with_allow_undefined(true);
    let loaded = load_lazy("calls_missing", opts).expect("loads");
    assert_eq!(loaded.missing, *missing);
    let machep = loaded
        .module
        .globals
        .values()
        .find(|g| g.name == "MACHEP")
        .unwrap();
    assert!(
        machep.init.is_empty(),
        "an undefined global has no bytes to read"
    );
}

#[test]
fn an_entry_no_input_defines_is_an_error_listing_the_functions() {
    let err = load_lazy("nope", LoadOptions::default()).unwrap_err();
    assert!(matches!(&err, LowerError::NoEntry { name, .. } if name == "nope"));
    let text = err.to_string();
    assert!(
        text.starts_with("no function named `nope` (defined functions: "),
        "{text}"
    );
    assert!(text.contains("calls_missing, middle"), "{text}");
}

/// A library directory: `helper` (in `helper.c`) reads `SCALE` (in `scale.c`); `twice`
/// is defined in two files; `broken.c` does not compile; `wide.c` uses `long double`
/// but nothing calls it.
fn library(dir: &Path) -> PathBuf {
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let files = [
        (
            "helper.c",
            "extern double SCALE;\ndouble helper(double x) { return x * SCALE; }\n",
        ),
        ("scale.c", "double SCALE = 3.0;\n"),
        ("twice1.c", "double twice(double x) { return 2 * x; }\n"),
        ("twice2.c", "double twice(double x) { return x + x; }\n"),
        ("broken.c", "double broken(double x) { return x +; }\n"),
        (
            "wide.c",
            "long double wide(long double x) { return x * x; }\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(lib.join(name), text).unwrap();
    }
    std::fs::write(
        dir.join("main.c"),
        "double helper(double);\ndouble twice(double);\ndouble nowhere(double);\n\
         double f(double x) { return helper(x) + 1; }\n\
         double g(double x) { return twice(x); }\n\
         double h(double x) { return nowhere(x); }\n",
    )
    .unwrap();
    lib
}

#[test]
fn library_files_are_pulled_in_for_what_the_entry_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path());
    let cache = dir.path().join("cache");
    let opts = |entry: &str| {
        LoadOptions::default()
            .with_entry(entry)
            .with_lib_dirs([&lib])
            .with_cache_dir(&cache)
    };
    let main = [dir.path().join("main.c")];
    let loaded = fpforge_lower::load_program(&main, &opts("f")).expect("loads with the library");
    let names: Vec<String> = loaded
        .library_files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["helper.c", "scale.c"],
        "pulled in transitively, in order"
    );
    let scale = loaded
        .module
        .globals
        .values()
        .find(|g| g.name == "SCALE")
        .unwrap();
    assert_eq!(scale.init, 3.0f64.to_le_bytes());
    let cached = |ext: &str| {
        std::fs::read_dir(&cache)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == ext)
            })
            .count()
    };
    assert_eq!(cached("idx"), 6, "an index entry per library file");
    assert_eq!(cached("bc"), 5, "bitcode for each file that compiles");
    let again = fpforge_lower::load_program(&main, &opts("f")).expect("loads from the cache");
    assert_eq!(again.library_files, loaded.library_files);

    let err = fpforge_lower::load_program(&main, &opts("g")).unwrap_err();
    let LowerError::Conflict { symbol, files } = &err else {
        panic!("expected Conflict, got {err:?}");
    };
    assert_eq!(symbol, "twice");
    assert_eq!(files.len(), 2);
    assert!(err.to_string().contains("twice1.c") && err.to_string().contains("twice2.c"));

    let err = fpforge_lower::load_program(&main, &opts("h")).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("functions nowhere"), "{text}");
    assert!(
        text.contains(
            "1 library files did not compile, so what they define is unknown (the first: "
        ) && text.contains("broken.c"),
        "{text}"
    );
}

#[test]
fn compile_commands_list_library_files_with_their_own_flags() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("proj");
    std::fs::create_dir_all(lib.join("include")).unwrap();
    std::fs::write(lib.join("include/k.h"), "#define K 4.0\n").unwrap();
    std::fs::write(
        lib.join("k.c"),
        "#include \"k.h\"\ndouble times_k(double x) { return x * K * FACTOR; }\n",
    )
    .unwrap();
    let db = dir.path().join("compile_commands.json");
    std::fs::write(
        &db,
        format!(
            r#"[{{"directory": "{}", "file": "k.c", "command": "cc -O2 -Iinclude -DFACTOR=2 -c k.c -o k.o"}}]"#,
            lib.display()
        ),
    )
    .unwrap();
    let main = dir.path().join("main.c");
    std::fs::write(
        &main,
        "double times_k(double);\ndouble f(double x) { return times_k(x); }\n",
    )
    .unwrap();
    let opts = LoadOptions::default()
        .with_entry("f")
        .with_compile_commands(&db)
        .with_cache_dir(dir.path().join("cache"));
    let loaded = fpforge_lower::load_program(&[main], &opts).expect("loads");
    assert_eq!(
        loaded.library_files,
        [lib.join("k.c").canonicalize().unwrap()]
    );
    let text = fpir::write_module(&loaded.module);
    assert!(text.contains("0x1p+2") && text.contains("0x1p+1"), "{text}");
}

#[test]
fn a_variadic_function_called_with_its_fixed_parameters_only_is_an_ordinary_call() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.c");
    std::fs::write(
        &file,
        "int last;\n\
         void report(const char *who, int code, const char *fmt, ...) { last = code; }\n\
         double checked(double x) { if (x < 0) report(\"checked\", 7, 0); return x; }\n\
         double formatted(double x) { report(\"formatted\", 7, \"%g\", x); return x; }\n",
    )
    .unwrap();
    let opts = |entry: &str| LoadOptions::default().with_entry(entry);
    let loaded =
        fpforge_lower::load_program(std::slice::from_ref(&file), &opts("checked")).expect("loads");
    let module = &loaded.module;
    let report = module.func_by_name("report").unwrap();
    let calls_report = module.funcs[loaded.entry.unwrap()]
        .blocks
        .values()
        .flat_map(|b| &b.insts)
        .any(|i| {
            matches!(&i.kind, InstKind::Call { callee: Callee::Direct(f), args } if *f == report && args.len() == 3)
        });
    assert!(calls_report, "{}", fpir::write_module(module));
    let err = fpforge_lower::load_program(&[file], &opts("formatted")).unwrap_err();
    assert!(
        err.to_string()
            .contains("call of variadic function `report` with variable arguments"),
        "{err}"
    );
}
