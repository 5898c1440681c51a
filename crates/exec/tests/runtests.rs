//! Runtests, in the manner of cranelift's filetests: every `tests/fixtures/runtests/*.fpir`
//! is a module in fpir's text form whose `; run:` comments state what calls return:
//!
//! ```text
//! ; run: add32(2147483647, 1) == -2147483648
//! ; run: fdiv64(0x0p+0, 0x0p+0) == raw:fff8000000000000
//! ; run: sum_array([0x1p+0, 0x1p+1], 2) == 0x1.8p+1
//! ; run: sdiv32(5, 0) traps integer division by zero
//! ; run: cleanup(-4) throws E
//! ```
//!
//! Arguments and results are written as `fpforge run` reads values (hex floats, `raw:`
//! bits, `inf`, `nan`, integers; `[...]` arrays for `ptr<T>` parameters); results are
//! compared bit for bit, a trap by the start of its message, and a C++ exception that
//! escapes by its demangled type. Each file must verify,
//! and each call runs twice: on the interpreter alone and with every function compiled
//! by the Cranelift tier from the first call; both must meet the expectation, take the
//! same branches and count the same steps.

use fpforge_exec::{BranchTrace, Compilation, Concrete, ExecConfig, Interpreter, Outcome};
use fpforge_spec::spec::parse_value;
use fpforge_spec::Arg;
use fpir::{Func, Module, Type};
use std::path::PathBuf;

/// What a run line expects.
#[derive(Debug)]
enum Expect {
    /// The result's bits.
    Returns(u64),
    /// A trap whose message starts with this text.
    Traps(String),
    /// A C++ exception of this type escapes.
    Throws(String),
}

/// One `; run:` line.
#[derive(Debug)]
struct RunLine {
    text: String,
    func: Func,
    args: Vec<Arg>,
    expect: Expect,
}

fn runtest_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/runtests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fpir"))
        .collect();
    files.sort();
    files
}

/// Splits `a, [b, c], d` at the commas outside brackets.
fn split_args(text: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        items.push(last);
    }
    items
}

/// One argument of type `ty` (a pointer takes an array of its pointee).
fn parse_arg(text: &str, ty: Type, pointee: Option<Type>) -> Arg {
    match text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        Some(items) => {
            let elem = pointee.expect("an array argument needs a ptr<T> parameter");
            Arg::Array {
                elem,
                values: split_args(items)
                    .into_iter()
                    .map(|v| parse_value(v, elem).unwrap_or_else(|e| panic!("{v}: {e}")))
                    .collect(),
            }
        }
        None => Arg::Scalar(parse_value(text, ty).unwrap_or_else(|e| panic!("{text}: {e}"))),
    }
}

fn parse_run_line(module: &Module, text: &str) -> RunLine {
    if let Some((call, type_name)) = text.split_once(" throws ") {
        return finish_line(
            module,
            text,
            call.trim(),
            Expect::Throws(type_name.trim().to_string()),
        );
    }
    if let Some((call, trap)) = text.split_once(" traps ") {
        return finish_line(
            module,
            text,
            call.trim(),
            Expect::Traps(trap.trim().to_string()),
        );
    }
    let (call, value) = text
        .split_once("==")
        .unwrap_or_else(|| panic!("`{text}`: expected `CALL == VALUE` or `CALL traps MESSAGE`"));
    let ret = module.funcs[callee(module, text, call)]
        .ret
        .unwrap_or_else(|| panic!("`{text}`: the function returns nothing"));
    let bits = parse_value(value.trim(), ret).unwrap_or_else(|e| panic!("`{text}`: {e}"));
    finish_line(module, text, call.trim(), Expect::Returns(bits))
}

fn callee(module: &Module, text: &str, call: &str) -> Func {
    let name = call.split('(').next().unwrap_or_default().trim();
    module
        .func_by_name(name)
        .unwrap_or_else(|| panic!("`{text}`: no function `{name}`"))
}

fn finish_line(module: &Module, text: &str, call: &str, expect: Expect) -> RunLine {
    let func = callee(module, text, call);
    let inner = call
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("`{text}`: expected NAME(ARGS)"));
    let f = &module.funcs[func];
    let types = f.param_types();
    let args: Vec<Arg> = split_args(inner)
        .into_iter()
        .enumerate()
        .map(|(i, a)| parse_arg(a, types[i], f.param_pointees[i]))
        .collect();
    assert_eq!(args.len(), types.len(), "`{text}`: argument count");
    RunLine {
        text: text.to_string(),
        func,
        args,
        expect,
    }
}

fn run_lines(module: &Module, source: &str) -> Vec<RunLine> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("; run:"))
        .map(|l| parse_run_line(module, l.trim()))
        .collect()
}

/// Runs every line under `compile`; returns each run's branch trace and steps, and how
/// many runs were compiled.
fn check(
    module: &Module,
    lines: &[RunLine],
    compile: Compilation,
) -> (Vec<(Vec<fpir::Side>, u64)>, u64) {
    let config = ExecConfig::default().with_compile(compile);
    let mut interp = Interpreter::new(module, Concrete, BranchTrace::default(), config).unwrap();
    let mut traces = Vec::new();
    for line in lines {
        interp.observer_mut().clear();
        let run = interp
            .call(line.func, &line.args)
            .unwrap_or_else(|e| panic!("{} ({compile:?}): {e}", line.text));
        match (&line.expect, &run.outcome) {
            (Expect::Returns(want), Outcome::Returned(Some(got))) => assert_eq!(
                got, want,
                "{} ({compile:?}): got {got:#x}, want {want:#x}",
                line.text
            ),
            (Expect::Traps(want), Outcome::Trapped(trap)) => assert!(
                trap.kind.to_string().starts_with(want.as_str()),
                "{} ({compile:?}): trapped with {}",
                line.text,
                trap.kind
            ),
            (Expect::Throws(want), Outcome::Threw(thrown)) => {
                assert_eq!(&thrown.type_name, want, "{} ({compile:?})", line.text)
            }
            (_, other) => panic!("{} ({compile:?}): {other:?}", line.text),
        }
        traces.push((interp.observer().events.clone(), run.steps));
    }
    (traces, interp.compiled_runs())
}

#[test]
fn runtests_pass_interpreted_and_compiled() {
    let files = runtest_files();
    assert!(!files.is_empty(), "no runtests found");
    let mut total = 0;
    for path in files {
        let name = path.display().to_string();
        let source = std::fs::read_to_string(&path).unwrap();
        let module = fpir::parse_module(&source).unwrap_or_else(|e| panic!("{name}:{e}"));
        if let Err(errors) = fpir::verify_module(&module) {
            panic!("{name} does not verify: {errors:?}");
        }
        let lines = run_lines(&module, &source);
        assert!(!lines.is_empty(), "{name} has no `; run:` line");
        let (interpreted, none) = check(&module, &lines, Compilation::Off);
        let (compiled, runs) = check(&module, &lines, Compilation::Eager);
        assert_eq!(none, 0, "{name}: the interpreter alone compiled something");
        assert!(runs > 0, "{name}: no run was compiled");
        assert_eq!(
            interpreted, compiled,
            "{name}: branch traces or steps differ"
        );
        total += lines.len();
    }
    assert!(total >= 50, "only {total} run lines");
}

#[test]
fn a_wrong_expectation_fails() {
    let source = "; run: id(1) == 2\nfunc f0 \"id\"(v0: i32) -> i32 {\nbb0:\n  ret v0\n}\n";
    let module = fpir::parse_module(source).unwrap();
    let lines = run_lines(&module, source);
    let outcome = std::panic::catch_unwind(|| check(&module, &lines, Compilation::Off));
    assert!(outcome.is_err());
}
