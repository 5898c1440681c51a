//! `regression.c`, the regression test a user keeps: a C99 program that declares the
//! function under test with its C parameter types, calls it on every generated test,
//! prints each result, compares it with the result fpforge computed, and exits non-zero
//! when any differs, so a CI job fails when the function's behaviour changes.
//!
//! Tests are stored as the raw bits of their coordinates (one `uint64_t` per coordinate
//! of the [`fpforge_spec::InputSpec`], with the `inputs.txt` line beside each as a
//! comment), so every value is exact, NaN payloads included; the expected results are
//! stored the same way: the return value's bits, then every element of the pointer
//! parameters' arrays after the call. `fpforge_invoke` turns one row of bits into the
//! arguments (values copied from their bits with `memcpy`; a pointer parameter gets a
//! local array holding its element(s); fixed values and zero-filled output arrays are
//! spelled in the function), calls, and writes the results' bits. Each result prints on
//! its own line: floats as `%a` followed by their bit pattern in brackets (glibc prints
//! subnormals and NaNs in forms that lose or change the bits), integers as `%lld`, so the
//! output can be compared line by line with `fpforge run`. A mismatch prints a line on
//! stderr naming the test, the result and both bit patterns. Floats compare by their
//! bits except that any two NaNs are equal (`./regression --exact-nan` compares NaN
//! payloads too); pointer results are not compared (addresses differ between runs).
//!
//! The file compiles with `cc -std=c99 regression.c FILE.c -lm`; its own names start
//! with `fpforge_` so they do not clash with the program's. Defined `FPFORGE_NO_MAIN`, it
//! is a library for other drivers (random testing, fuzzers, replays): `FPFORGE_COORDS`
//! coordinates, `fpforge_call(const uint64_t *bits)`, and `fpforge_quiet` to silence the
//! printing. The function is called through a volatile function pointer, `fpforge_fn`,
//! so that a compiler cannot treat it as a builtin of the same name.
//!
//! A C++ function (one with a mangled symbol) gets `regression.cpp` instead, the same
//! program as C++ (`g++ regression.cpp SOURCE.cpp`): the function is declared by its
//! symbol (`double fpforge_target(double) __asm__("_Z7checkedd")`, which reaches
//! functions in namespaces, static and non-static methods alike, `this` being the first
//! parameter), every call sits in a `try`, and a test whose call throws expects the
//! exception: the same type (`typeid(...).name()`) and, for a `std::exception`, the
//! same `what()`; it prints `throws TYPE: WHAT`.

use crate::arg_text::{c_type, from_bits, struct_arg, vector_arg, ArgText, Language};
use crate::error::ReportError;
use fpforge_exec::Thrown;
use fpforge_spec::{InputSpec, ParamInput};
use fpir::{FloatTy, Func, Module, ParamShape, Type};
use std::fmt::Write as _;

/// One test of `regression.c`: its coordinates and the results it must produce (the
/// return value's bits, 0 for a void function, then the pointer parameters' elements),
/// as the driver computed them by running the test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegressionTest {
    /// The input's coordinate bits.
    pub coords: Vec<u64>,
    /// The expected results: the return value's bits (0 for a void function or a
    /// throw), then every element of the pointer parameters' arrays after the call.
    pub expected: Vec<u64>,
    /// The C++ exception the call throws, when it throws (the results are then not
    /// compared).
    pub thrown: Option<Thrown>,
    /// Whether its results are checked: false for an input that reaches a function the
    /// run left undefined (what fpforge computed stops there; the native build links the
    /// real function), which the program still calls, for coverage.
    pub checked: bool,
}

/// Whether [`c_type`] spells `ty` exactly (integers of other widths have no C type).
fn has_c_type(ty: Type) -> bool {
    !matches!(ty, Type::Int(w) if ![1, 8, 16, 32, 64].contains(&w))
}

/// The C expression giving the bits of the value `value` of type `ty`, zero-extended as
/// the interpreter holds them.
fn to_bits(ty: Type, value: &str) -> String {
    match ty {
        Type::Float(FloatTy::F64) => format!("fpforge_bits_f64({value})"),
        Type::Float(FloatTy::F32) => format!("(uint64_t)fpforge_bits_f32({value})"),
        Type::Int(1) => format!("(uint64_t)({value} ? 1 : 0)"),
        Type::Int(8) => format!("(uint64_t)(uint8_t)({value})"),
        Type::Int(16) => format!("(uint64_t)(uint16_t)({value})"),
        Type::Int(32) => format!("(uint64_t)(uint32_t)({value})"),
        Type::Int(_) => format!("(uint64_t)({value})"),
        Type::Ptr => format!("(uint64_t)(uintptr_t)({value})"),
    }
}

/// How `regression.c` compares a result word of type `ty`: 64 or 32 for floats (NaNs
/// equal unless `--exact-nan`), 1 for exact bits, 0 for not at all (pointers).
fn compare_kind(ty: Type) -> u8 {
    match ty {
        Type::Float(FloatTy::F64) => 64,
        Type::Float(FloatTy::F32) => 32,
        Type::Int(_) => 1,
        Type::Ptr => 0,
    }
}

/// The C declaration of a parameter's type as the spec passes it (structs are declared
/// by [`struct_arg`]; a vector has none).
fn param_decl(input: &ParamInput) -> Option<String> {
    match *input {
        ParamInput::Struct { .. }
        | ParamInput::Vector { .. }
        | ParamInput::LongDoubleExponent
        | ParamInput::LongDoubleResult => None,
        ParamInput::LongDouble { .. } => Some("long double".to_string()),
        ParamInput::Scalar { ty, .. } | ParamInput::Fixed { ty, .. } => {
            has_c_type(ty).then(|| c_type(ty).to_string())
        }
        ParamInput::Pointee { ty, .. }
        | ParamInput::Array { elem: ty, .. }
        | ParamInput::Output { elem: ty, .. } => {
            (has_c_type(ty) && ty != Type::Ptr).then(|| format!("{} *", c_type(ty)))
        }
    }
}

/// One result word of a test: its name in mismatch lines, its type, and the C
/// expression holding it after the call.
struct ResultWord {
    name: String,
    ty: Type,
    value: String,
}

/// The shape of the call: the C parameter declarations, the statements building the
/// arguments, the call's argument list, and the result words (return value first).
struct CallShape {
    /// True when the function returns a `long double` (through its hidden slot).
    long_double_result: bool,
    decls: String,
    params: Vec<String>,
    setup: String,
    args: Vec<String>,
    results: Vec<ResultWord>,
}

/// The call of `func` with `spec`'s inputs (fails on a type C cannot spell).
fn call_shape(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    lang: Language,
) -> Result<CallShape, ReportError> {
    let f = &module.funcs[func];
    let types = f.param_types();
    let mut shape = CallShape {
        long_double_result: false,
        decls: String::new(),
        params: Vec::new(),
        setup: String::new(),
        args: Vec::new(),
        results: vec![ResultWord {
            name: "return".to_string(),
            ty: f.ret.unwrap_or(Type::Int(32)),
            value: "fpforge_r".to_string(),
        }],
    };
    let mut next = 0usize;
    for (j, input) in spec.params().iter().enumerate() {
        let unsupported = || ReportError::UnsupportedParam {
            func: f.name.clone(),
            index: j + 1,
            ty: types.get(j).map_or_else(String::new, Type::to_string),
        };
        if let ParamInput::Struct { ref fields, .. } = *input {
            let Some(ParamShape::Struct(s)) = module.param_shapes.get(&(func, j)) else {
                return Err(unsupported());
            };
            let text = struct_arg(j, s, fields, next);
            next += spec.coords().iter().filter(|c| c.param == j).count();
            shape.push_arg(text);
            continue;
        }
        if *input == ParamInput::LongDoubleResult {
            shape.long_double_result = true;
            for (k, (part, ty)) in [("significand", Type::I64), ("exponent", Type::Int(16))]
                .into_iter()
                .enumerate()
            {
                shape.results.push(ResultWord {
                    name: format!("return.{part}"),
                    ty,
                    value: format!("fpforge_ld_word(fpforge_r, {k})"),
                });
            }
            continue;
        }
        if *input == ParamInput::LongDoubleExponent {
            continue;
        }
        if let ParamInput::Vector { elem, len, .. } = *input {
            if lang == Language::C || !has_c_type(elem) || elem == Type::Ptr {
                return Err(unsupported());
            }
            shape.push_arg(vector_arg(j, elem, len, next));
            next += len;
            continue;
        }
        shape
            .params
            .push(param_decl(input).ok_or_else(unsupported)?);
        let name = spec_param_name(f, j);
        match *input {
            ParamInput::Scalar { ty, .. } => {
                shape
                    .args
                    .push(from_bits(ty, &format!("fpforge_v[{next}]")));
                next += 1;
            }
            ParamInput::LongDouble { .. } => {
                shape.args.push(format!(
                    "fpforge_long_double(fpforge_v[{next}], fpforge_v[{}])",
                    next + 1
                ));
                next += 2;
            }
            ParamInput::Fixed { ty, bits } => {
                shape
                    .args
                    .push(from_bits(ty, &format!("UINT64_C(0x{bits:x})")));
            }
            ParamInput::Pointee { ty, .. } | ParamInput::Array { elem: ty, .. } => {
                let len = match *input {
                    ParamInput::Array { len, .. } => len,
                    _ => 1,
                };
                let _ = writeln!(
                    shape.setup,
                    "    {} fpforge_a{j}[{}];",
                    c_type(ty),
                    len.max(1)
                );
                for k in 0..len {
                    let value = from_bits(ty, &format!("fpforge_v[{}]", next + k));
                    let _ = writeln!(shape.setup, "    fpforge_a{j}[{k}] = {value};");
                }
                next += len;
                shape.array_results(&name, j, ty, len);
            }
            ParamInput::Output { elem, len } => {
                let _ = writeln!(
                    shape.setup,
                    "    {} fpforge_a{j}[{}] = {{0}};",
                    c_type(elem),
                    len.max(1)
                );
                shape.array_results(&name, j, elem, len);
            }
            ParamInput::Struct { .. }
            | ParamInput::Vector { .. }
            | ParamInput::LongDoubleExponent
            | ParamInput::LongDoubleResult => {}
        }
    }
    Ok(shape)
}

impl CallShape {
    /// Adds a structured argument built by [`crate::arg_text`].
    fn push_arg(&mut self, text: ArgText) {
        self.decls.push_str(&text.decls);
        self.setup.push_str(&text.setup);
        self.params.push(text.param);
        self.args.push(text.arg);
    }

    /// Passes local array `fpforge_a{j}` and checks its `len` elements after the call.
    fn array_results(&mut self, name: &str, j: usize, ty: Type, len: usize) {
        self.args.push(format!("fpforge_a{j}"));
        for k in 0..len {
            self.results.push(ResultWord {
                name: format!("{name}[{k}]"),
                ty,
                value: format!("fpforge_a{j}[{k}]"),
            });
        }
    }
}

/// A parameter's name in mismatch lines: its source name, or its 1-based position.
fn spec_param_name(f: &fpir::Function, j: usize) -> String {
    f.param_names
        .get(j)
        .cloned()
        .flatten()
        .unwrap_or_else(|| format!("arg{}", j + 1))
}

const PRELUDE: &str = "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n\
static double fpforge_f64_bits(uint64_t b) { double x; memcpy(&x, &b, sizeof x); return x; }\n\
static float fpforge_f32_bits(uint32_t b) { float x; memcpy(&x, &b, sizeof x); return x; }\n\
static long long fpforge_i64_bits(uint64_t b) { long long x; memcpy(&x, &b, sizeof x); return x; }\n\
static uint64_t fpforge_bits_f64(double x) { uint64_t b; memcpy(&b, &x, sizeof b); return b; }\n\
static uint32_t fpforge_bits_f32(float x) { uint32_t b; memcpy(&b, &x, sizeof b); return b; }\n\
static uint64_t fpforge_sext(uint64_t b, unsigned w) { uint64_t m = (uint64_t)1 << (w - 1); \
b &= ((uint64_t)1 << w) - 1; return (b ^ m) - m; }\n\n\
/* Set to 1 to call without printing. */\nstatic int fpforge_quiet = 0;\n\n";

/// What a regression file of a function with `long double` parameters or result adds:
/// the value of a long double's coordinates (as `fpforge_spec::long_double_of` computes
/// it) and the words of a long double result.
const LONG_DOUBLE_PRELUDE: &str = "#include <math.h>\n\n\
static long double fpforge_long_double(uint64_t head, uint64_t tail) {\n\
\x20   long double x = fpforge_f64_bits(head);\n\
\x20   int16_t t = (int16_t)(uint16_t)tail;\n\
\x20   int e;\n\
\x20   if (t == 0 || x == 0 || !isfinite(x)) return x;\n\
\x20   frexpl(x, &e);\n\
\x20   return x + ldexpl((long double)t, e - 1 - 64);\n\
}\n\
static uint64_t fpforge_ld_word(long double x, int k) {\n\
\x20   uint64_t sig = 0;\n\
\x20   uint16_t se = 0;\n\
\x20   memcpy(&sig, &x, 8);\n\
\x20   memcpy(&se, (char *)&x + 8, 2);\n\
\x20   return k ? se : sig;\n\
}\n\n";

/// The language of the regression file: C, or C++ for a function with a mangled symbol.
fn language_of(function: &fpir::Function) -> Language {
    if function.name.starts_with("_Z") {
        Language::Cpp
    } else {
        Language::C
    }
}

/// The name of the regression file of `func`: `regression.cpp` for a C++ function,
/// `regression.c` otherwise.
pub fn regression_file(module: &Module, func: Func) -> &'static str {
    match language_of(&module.funcs[func]) {
        Language::C => "regression.c",
        Language::Cpp => "regression.cpp",
    }
}

/// What a C++ regression file adds to the C one: the headers and `_Bool`, and how a call
/// notes the exception it throws.
const CXX_PRELUDE: &str = r#"#include <cstdlib>
#include <cxxabi.h>
#include <exception>
#include <typeinfo>
#include <vector>
#define _Bool bool

/* The exception the last call threw: typeid(...).name(), what() (empty if none), and\n * the type demangled. */
static int fpforge_threw = 0;
static char fpforge_thrown_type[256];
static char fpforge_thrown_what[1024];
static char fpforge_thrown_shown[256];
static void fpforge_note_exception() {
    const std::type_info *t = abi::__cxa_current_exception_type();
    int status = 0;
    char *shown = t ? abi::__cxa_demangle(t->name(), NULL, NULL, &status) : NULL;
    fpforge_threw = 1;
    snprintf(fpforge_thrown_type, sizeof fpforge_thrown_type, "%s", t ? t->name() : "?");
    snprintf(fpforge_thrown_shown, sizeof fpforge_thrown_shown, "%s", shown ? shown : fpforge_thrown_type);
    free(shown);
    fpforge_thrown_what[0] = 0;
    try { throw; } catch (const std::exception &e) {
        snprintf(fpforge_thrown_what, sizeof fpforge_thrown_what, "%s", e.what());
    } catch (...) {}
}

"#;

/// The C source of a regression test calling function `func` of `module` on every test
/// (see the module docs); C++ for a C++ function ([`regression_file`] names it).
///
/// Fails when a parameter or the result has no C scalar type (an integer of an odd
/// width, or a pointer to a pointer).
pub fn regression_c(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    tests: &[RegressionTest],
) -> Result<String, ReportError> {
    let f = &module.funcs[func];
    let ret = match f.ret {
        None => "void",
        Some(ty) if has_c_type(ty) => c_type(ty),
        Some(ty) => {
            return Err(ReportError::UnsupportedResult {
                func: f.name.clone(),
                ty: ty.to_string(),
            })
        }
    };
    let lang = language_of(f);
    let shape = call_shape(module, func, spec, lang)?;
    let ret = if shape.long_double_result {
        "long double"
    } else {
        ret
    };
    let uses_long_double = shape.long_double_result
        || spec
            .params()
            .iter()
            .any(|p| matches!(p, ParamInput::LongDouble { .. }));
    let name = &f.name;
    let shown = f.display_name().replace("*/", "* /");
    let build = match lang {
        Language::C => format!("cc -std=c99 regression.c <source of {name}> -lm"),
        Language::Cpp => "g++ regression.cpp <C++ source of the function>".to_string(),
    };
    let mut c = String::new();
    let _ = writeln!(
        c,
        "/* Regression test generated by fpforge for `{shown}`: calls it on every generated\n \
         * input, prints one result per line (floats as %a and [bits]) and checks every result;\n \
         * exits 1 on a mismatch (NaNs compare equal unless run with --exact-nan).\n \
         * Build: {build}\n \
         * With -DFPFORGE_NO_MAIN it is a library: fpforge_call(bits of FPFORGE_COORDS coordinates). */"
    );
    c.push_str(PRELUDE);
    if lang == Language::Cpp {
        c.push_str(CXX_PRELUDE);
    }
    if uses_long_double {
        c.push_str(LONG_DOUBLE_PRELUDE);
    }
    c.push_str(&shape.decls);
    let params = if shape.params.is_empty() {
        "void".to_string()
    } else {
        shape.params.join(", ")
    };
    // Called through a volatile pointer: a function named like a C library builtin
    // (`fma`, `fmax`, ...) is otherwise compiled as the builtin, and gcc swaps the
    // multiplicands of `fma` or folds calls, so the tests would not run as written.
    match lang {
        Language::C => {
            let _ = writeln!(
                c,
                "{ret} {name}({params});\nstatic {ret} (*volatile fpforge_fn)({params}) = {name};\n"
            );
        }
        Language::Cpp => {
            let _ = writeln!(
                c,
                "/* {shown} */\n{ret} fpforge_target({params}) __asm__(\"{name}\");\n\
                 static {ret} (*volatile fpforge_fn)({params}) = fpforge_target;\n"
            );
        }
    }
    let _ = writeln!(c, "#define FPFORGE_COORDS {}", spec.dims());
    let _ = writeln!(c, "#define FPFORGE_RESULTS {}\n", shape.results.len());
    let returns = match f.ret {
        _ if shape.long_double_result => Returns::LongDouble,
        None => Returns::Void,
        Some(ty) => Returns::Scalar(ty),
    };
    write_invoke(&mut c, returns, &shape, lang);
    write_print(&mut c, returns, lang);
    write_main(&mut c, spec, &shape, tests, lang);
    Ok(c)
}

/// What a reproducer checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A crash or hang: the call must not return, so it returning is the fault gone.
    Fault,
    /// A wrong value: the result word of `output` (`None`: the return value; else
    /// element `index` of output parameter `param`) must be within `max_ulps` of the
    /// bits `expected` (NaN matching NaN only).
    Value {
        /// Which result.
        output: Option<(usize, usize)>,
        /// The correctly rounded true value's bits.
        expected: u64,
        /// The distance in ulps still accepted.
        max_ulps: u64,
    },
}

/// A standalone C program that calls `func` once on the input `coords` (bits of `spec`'s
/// coordinates) and checks `expect`, exiting non-zero while the defect is there: a crash
/// or hang ends it (a signal, a sanitizer report, or a run that never ends) and the call
/// returning prints the result and exits 0; a wrong value prints the observed and the
/// expected value and exits 1 while they differ by more than the tolerance. `about`
/// opens it as a comment. It is this module's program without its tests
/// (`FPFORGE_NO_MAIN`) and with its own `main`, so it needs nothing of fpforge, only the
/// library's sources.
pub fn reproducer_c(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    (coords, expect): (&[u64], Expect),
    about: &str,
) -> Result<String, ReportError> {
    let library = regression_c(module, func, spec, &[])?;
    let words: Vec<String> = coords
        .iter()
        .map(|b| format!("UINT64_C(0x{b:x})"))
        .collect();
    let input = spec.line(coords).replace("*/", "* /");
    let about = about.replace("*/", "* /");
    let words = if words.is_empty() {
        "0".to_string()
    } else {
        words.join(", ")
    };
    let body = match expect {
        Expect::Fault => "\x20   fpforge_call(fpforge_input);\n\
             \x20   fprintf(stderr, \"fpforge reproducer: the call returned; the fault did not reproduce\\n\");\n\
             \x20   return 0;\n"
            .to_string(),
        Expect::Value {
            output,
            expected,
            max_ulps,
        } => value_check(module, func, spec, (output, expected, max_ulps))?,
    };
    Ok(format!(
        "/* {about} */\n#define FPFORGE_NO_MAIN\n{library}\n{VALUE_HELPERS}\
         int main(void) {{\n\
         \x20   /* {input} */\n\
         \x20   static const uint64_t fpforge_input[] = {{ {words} }};\n{body}}}\n"
    ))
}

/// What a value reproducer uses: the distance in ulps of two floats of `w` bits (their
/// bit patterns mapped to integers in the order of the values) and NaN tests.
const VALUE_HELPERS: &str = "static uint64_t fpforge_key(uint64_t b, unsigned w) {\n\
    \x20   uint64_t mask = w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1), sign = (uint64_t)1 << (w - 1);\n\
    \x20   b &= mask;\n    return (b & sign) ? (~b & mask) : (b | sign);\n}\n\
    static uint64_t fpforge_ulps(uint64_t a, uint64_t b, unsigned w) {\n\
    \x20   uint64_t ka = fpforge_key(a, w), kb = fpforge_key(b, w);\n    return ka > kb ? ka - kb : kb - ka;\n}\n\
    static int fpforge_is_nan(uint64_t b, unsigned w) {\n\
    \x20   return w == 64 ? fpforge_f64_bits(b) != fpforge_f64_bits(b) : fpforge_f32_bits((uint32_t)b) != fpforge_f32_bits((uint32_t)b);\n}\n\n";

/// The statements of `main` that call, then compare result `output` with `expected`.
fn value_check(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    (output, expected, max_ulps): (Option<(usize, usize)>, u64, u64),
) -> Result<String, ReportError> {
    let lang = language_of(&module.funcs[func]);
    let shape = call_shape(module, func, spec, lang)?;
    let wanted = match output {
        None => "fpforge_r".to_string(),
        Some((param, index)) => format!("fpforge_a{param}[{index}]"),
    };
    let missing = || ReportError::UnsupportedResult {
        func: module.funcs[func].name.clone(),
        ty: format!("no result word {wanted}"),
    };
    let word = shape
        .results
        .iter()
        .position(|r| r.value == wanted)
        .ok_or_else(missing)?;
    let result = &shape.results[word];
    let (width, show) = match result.ty.as_float() {
        Some(fpir::FloatTy::F32) => (32, "(double)fpforge_f32_bits((uint32_t)"),
        Some(fpir::FloatTy::F64) => (64, "fpforge_f64_bits("),
        None => return Err(missing()),
    };
    let name = &result.name;
    // An output checked beside a return value (GSL's status): the return is printed too.
    let status = if word > 0
        && shape
            .results
            .first()
            .is_some_and(|r| r.value == "fpforge_r")
    {
        "\x20   printf(\"return: \");\n    fpforge_print(fpforge_out);\n"
    } else {
        ""
    };
    Ok(format!(
        "\x20   uint64_t fpforge_out[FPFORGE_RESULTS];\n\
         \x20   uint64_t observed, expected = UINT64_C(0x{expected:x});\n\
         \x20   int wrong;\n\
         \x20   fpforge_invoke(fpforge_input, fpforge_out);\n{status}\
         \x20   observed = fpforge_out[{word}];\n\
         \x20   wrong = fpforge_is_nan(observed, {width}) != fpforge_is_nan(expected, {width})\n\
         \x20       || (!fpforge_is_nan(observed, {width}) && fpforge_ulps(observed, expected, {width}) > {max_ulps});\n\
         \x20   printf(\"{name}: observed %a (%.17g), expected %a (%.17g): %s\\n\",\n\
         \x20          {show}observed), {show}observed), {show}expected), {show}expected),\n\
         \x20          wrong ? \"wrong (more than {max_ulps} ulps off)\" : \"within {max_ulps} ulps\");\n\
         \x20   return wrong;\n"
    ))
}

/// What the function under test returns.
#[derive(Clone, Copy)]
enum Returns {
    Void,
    Scalar(Type),
    /// A `long double`, whose two words follow the (zero) first result word.
    LongDouble,
}

/// `fpforge_invoke`: arguments from the coordinates, the call, the results' bits.
fn write_invoke(c: &mut String, ret: Returns, shape: &CallShape, lang: Language) {
    c.push_str(
        "/* Calls the function on the coordinates `fpforge_v`; writes the results' bits to\n \
         * `fpforge_out` (FPFORGE_RESULTS words: the return value, then the arrays). */\n\
         static void fpforge_invoke(const uint64_t *fpforge_v, uint64_t *fpforge_out) {\n\
         \x20   (void)fpforge_v;\n\
         \x20   (void)fpforge_f64_bits;\n    (void)fpforge_f32_bits;\n    (void)fpforge_i64_bits;\n\
         \x20   (void)fpforge_bits_f64;\n    (void)fpforge_bits_f32;\n    (void)fpforge_sext;\n",
    );
    c.push_str(&shape.setup);
    let call = format!("fpforge_fn({})", shape.args.join(", "));
    let (open, close) = match lang {
        Language::C => ("", ""),
        Language::Cpp => (
            "    fpforge_threw = 0;\n    fpforge_out[0] = 0;\n    try {\n",
            "    } catch (...) {\n        fpforge_note_exception();\n    }\n",
        ),
    };
    c.push_str(open);
    match ret {
        Returns::Void => {
            let _ = writeln!(c, "    {call};\n    fpforge_out[0] = 0;");
        }
        Returns::LongDouble => {
            let _ = writeln!(
                c,
                "    long double fpforge_r = {call};\n    fpforge_out[0] = 0;"
            );
        }
        Returns::Scalar(ty) => {
            let _ = writeln!(c, "    {} fpforge_r = {call};", c_type(ty));
            let _ = writeln!(c, "    fpforge_out[0] = {};", to_bits(ty, "fpforge_r"));
        }
    }
    c.push_str(close);
    for (k, word) in shape.results.iter().enumerate().skip(1) {
        let _ = writeln!(
            c,
            "    fpforge_out[{k}] = {};",
            to_bits(word.ty, &word.value)
        );
    }
    c.push_str("}\n\n");
}

/// `fpforge_print` (one result line, as `fpforge run` shows it) and `fpforge_call`.
fn write_print(c: &mut String, ret: Returns, lang: Language) {
    let ret = match ret {
        Returns::Void => None,
        Returns::Scalar(ty) => Some(ty),
        Returns::LongDouble => {
            let line = "printf(\"[0x%04llx%016llx]\\n\", (unsigned long long)fpforge_out[2], (unsigned long long)fpforge_out[1]);";
            let _ = writeln!(
                c,
                "/* Prints the return value of one call. */\nstatic void fpforge_print(const uint64_t *fpforge_out) {{\n    {line}\n}}\n"
            );
            return write_call(c);
        }
    };
    let line = match ret {
        None => "puts(\"void\");".to_string(),
        Some(Type::Float(FloatTy::F64)) => "printf(\"%a [0x%016llx]\\n\", fpforge_f64_bits(fpforge_out[0]), (unsigned long long)fpforge_out[0]);".to_string(),
        Some(Type::Float(FloatTy::F32)) => "printf(\"%a [0x%08lx]\\n\", (double)fpforge_f32_bits((uint32_t)fpforge_out[0]), (unsigned long)fpforge_out[0]);".to_string(),
        Some(Type::Ptr) => "printf(\"%p\\n\", (void *)(uintptr_t)fpforge_out[0]);".to_string(),
        Some(Type::Int(1)) => "printf(\"%lld\\n\", (long long)fpforge_out[0]);".to_string(),
        Some(Type::Int(w)) => format!(
            "printf(\"%lld\\n\", fpforge_i64_bits(fpforge_sext(fpforge_out[0], {})));",
            u32::from(w).clamp(1, 64)
        ),
    };
    let line = match lang {
        Language::C => line,
        Language::Cpp => format!(
            "if (fpforge_threw) {{ printf(\"throws %s: %s\\n\", fpforge_thrown_shown, fpforge_thrown_what); return; }}\n    {line}"
        ),
    };
    let _ = writeln!(
        c,
        "/* Prints the return value of one call. */\nstatic void fpforge_print(const uint64_t *fpforge_out) {{\n    {line}\n}}\n"
    );
    write_call(c);
}

/// `fpforge_call`, the library entry point.
fn write_call(c: &mut String) {
    c.push_str(
        "/* The library entry point: calls the function on `fpforge_v` and prints the result. */\n\
         static void fpforge_call(const uint64_t *fpforge_v) {\n\
         \x20   uint64_t fpforge_out[FPFORGE_RESULTS];\n\
         \x20   fpforge_invoke(fpforge_v, fpforge_out);\n\
         \x20   if (!fpforge_quiet) fpforge_print(fpforge_out);\n}\n\n",
    );
}

/// The tests, their expected results, and `main`, which runs and checks them.
fn write_main(
    c: &mut String,
    spec: &InputSpec,
    shape: &CallShape,
    tests: &[RegressionTest],
    lang: Language,
) {
    let words = shape.results.len();
    c.push_str("#ifndef FPFORGE_NO_MAIN\n");
    let _ = writeln!(c, "#define FPFORGE_TESTS {}", tests.len());
    let row = |bits: &[u64]| -> String {
        if bits.is_empty() {
            "0".to_string()
        } else {
            let items: Vec<String> = bits.iter().map(|b| format!("UINT64_C(0x{b:x})")).collect();
            items.join(", ")
        }
    };
    let _ = writeln!(
        c,
        "static const uint64_t fpforge_tests[{}][{}] = {{",
        tests.len().max(1),
        spec.dims().max(1)
    );
    for test in tests {
        let line = spec.line(&test.coords).replace("*/", "* /");
        let unchecked = if test.checked {
            ""
        } else {
            " (unchecked: reaches a function the run left undefined)"
        };
        let _ = writeln!(
            c,
            "    {{ {} }}, /* {line}{unchecked} */",
            row(&test.coords)
        );
    }
    if tests.is_empty() {
        c.push_str("    { 0 }\n");
    }
    let _ = writeln!(
        c,
        "}};\nstatic const uint64_t fpforge_expected[{}][FPFORGE_RESULTS] = {{",
        tests.len().max(1)
    );
    for test in tests {
        let _ = writeln!(c, "    {{ {} }},", row(&test.expected));
    }
    if tests.is_empty() {
        c.push_str("    { 0 }\n");
    }
    let kinds: Vec<String> = shape
        .results
        .iter()
        .map(|w| compare_kind(w.ty).to_string())
        .collect();
    let names: Vec<String> = shape
        .results
        .iter()
        .map(|w| format!("{:?}", w.name))
        .collect();
    let checked: Vec<&str> = tests
        .iter()
        .map(|t| if t.checked { "1" } else { "0" })
        .collect();
    let checked = if checked.is_empty() {
        "1".to_string()
    } else {
        checked.join(", ")
    };
    let _ = writeln!(
        c,
        "}};\n/* Whether each test's results are checked (0: it reaches a function the run left undefined). */\n\
         static const unsigned char fpforge_checked[{}] = {{ {checked} }};",
        tests.len().max(1)
    );
    let _ = writeln!(
        c,
        "/* How each result compares: 64/32 floats (NaNs equal unless --exact-nan), 1 bits, 0 not at all. */\n\
         static const unsigned char fpforge_kind[{words}] = {{ {} }};\nstatic const char *const fpforge_name[{words}] = {{ {} }};\n",
        kinds.join(", "),
        names.join(", ")
    );
    match lang {
        Language::C => c.push_str(MAIN),
        Language::Cpp => {
            write_expected_throws(c, tests);
            c.push_str(&cxx_main());
        }
    }
}

/// Per test, the exception it must throw: `typeid(...).name()` and `what()` (NULL: no
/// exception, or `what()` not known).
fn write_expected_throws(c: &mut String, tests: &[RegressionTest]) {
    let quoted = |text: Option<&str>| text.map_or_else(|| "NULL".to_string(), c_string_literal);
    let rows = |pick: &dyn Fn(&Thrown) -> Option<&str>| -> String {
        let items: Vec<String> = tests
            .iter()
            .map(|t| quoted(t.thrown.as_ref().and_then(pick)))
            .collect();
        if items.is_empty() {
            "NULL".to_string()
        } else {
            items.join(", ")
        }
    };
    let n = tests.len().max(1);
    let _ = writeln!(
        c,
        "/* The exception each test throws (typeid name, what()), NULL for none. */\n\
         static const char *const fpforge_throw_type[{n}] = {{ {} }};\n\
         static const char *const fpforge_throw_what[{n}] = {{ {} }};\n",
        rows(&|t| Some(t.type_symbol.as_str())),
        rows(&|t| t.what.as_deref()),
    );
}

/// `text` as a C string literal (octal escapes for anything but printable ASCII).
fn c_string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for b in text.bytes() {
        match b {
            b'"' | b'\\' | b'?' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// `main` of `regression.cpp`: `MAIN`'s, where a test that must throw checks the
/// exception instead of the results, and a test that must not throw fails if it does.
fn cxx_main() -> String {
    MAIN.replace(
        "\x20       for (k = 0; k < FPFORGE_RESULTS; k++) {\n",
        CXX_THROW_CHECK,
    )
}

const CXX_THROW_CHECK: &str = "\x20       if (fpforge_throw_type[i] || fpforge_threw) {\n\
\x20           int same = fpforge_throw_type[i] && fpforge_threw\n\
\x20               && strcmp(fpforge_throw_type[i], fpforge_thrown_type) == 0\n\
\x20               && (!fpforge_throw_what[i] || strcmp(fpforge_throw_what[i], fpforge_thrown_what) == 0);\n\
\x20           if (!same) {\n\
\x20               fprintf(stderr, \"test %d (line %d of inputs.txt): expected %s%s%s, got %s%s%s\\n\", i, i + 1,\n\
\x20                       fpforge_throw_type[i] ? \"a throw of \" : \"no exception\", fpforge_throw_type[i] ? fpforge_throw_type[i] : \"\",\n\
\x20                       fpforge_throw_what[i] ? fpforge_throw_what[i] : \"\",\n\
\x20                       fpforge_threw ? \"a throw of \" : \"no exception\", fpforge_threw ? fpforge_thrown_type : \"\", fpforge_thrown_what);\n\
\x20               mismatches++;\n\
\x20           }\n\
\x20           continue;\n\
\x20       }\n\
\x20       for (k = 0; k < FPFORGE_RESULTS; k++) {\n";

const MAIN: &str = "static int fpforge_is_nan(uint64_t b, int kind) {\n\
\x20   if (kind == 64) return (b & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000);\n\
\x20   if (kind == 32) return (b & UINT64_C(0x7fffffff)) > UINT64_C(0x7f800000);\n\
\x20   return 0;\n}\n\n\
int main(int argc, char **argv) {\n\
\x20   int exact_nan = argc > 1 && strcmp(argv[1], \"--exact-nan\") == 0;\n\
\x20   int i, k, mismatches = 0;\n\
\x20   (void)fpforge_call;\n\
\x20   for (i = 0; i < FPFORGE_TESTS; i++) {\n\
\x20       uint64_t out[FPFORGE_RESULTS];\n\
\x20       fpforge_invoke(fpforge_tests[i], out);\n\
\x20       if (!fpforge_quiet) fpforge_print(out);\n\
\x20       if (!fpforge_checked[i]) continue;\n\
\x20       for (k = 0; k < FPFORGE_RESULTS; k++) {\n\
\x20           uint64_t want = fpforge_expected[i][k], got = out[k];\n\
\x20           int kind = fpforge_kind[k];\n\
\x20           if (kind == 0 || want == got) continue;\n\
\x20           if (!exact_nan && fpforge_is_nan(want, kind) && fpforge_is_nan(got, kind)) continue;\n\
\x20           fprintf(stderr, \"test %d (line %d of inputs.txt): %s: expected 0x%016llx, got 0x%016llx\\n\",\n\
\x20                   i, i + 1, fpforge_name[k], (unsigned long long)want, (unsigned long long)got);\n\
\x20           mismatches++;\n\
\x20       }\n\
\x20   }\n\
\x20   if (mismatches) fprintf(stderr, \"regression: %d mismatching results in %d tests\\n\", mismatches, FPFORGE_TESTS);\n\
\x20   return mismatches != 0;\n}\n#endif\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_converted_from_and_to_their_bits() {
        assert_eq!(from_bits(Type::F64, "v"), "fpforge_f64_bits(v)");
        assert_eq!(from_bits(Type::F32, "v"), "fpforge_f32_bits((uint32_t)v)");
        assert_eq!(
            from_bits(Type::I32, "v"),
            "(int)fpforge_i64_bits(fpforge_sext(v, 32))"
        );
        assert_eq!(to_bits(Type::I32, "r"), "(uint64_t)(uint32_t)(r)");
        assert_eq!(compare_kind(Type::Ptr), 0);
        assert_eq!(
            param_decl(&ParamInput::Array {
                elem: Type::F32,
                len: 3,
                range: None
            }),
            Some("float *".to_string())
        );
        assert_eq!(
            param_decl(&ParamInput::Pointee {
                ty: Type::Ptr,
                range: None
            }),
            None
        );
    }
}
