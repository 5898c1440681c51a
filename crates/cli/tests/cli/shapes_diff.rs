//! Differential test of structured parameters: for every shape fpforge builds (a struct
//! by pointer, through a typedef, by value in memory, packed, split into scalars, as one
//! vector value; `std::vector` by reference and by value, `std::array` by reference and
//! by value, `std::span`, a class with a base), random field values go to a native build
//! (a generated C or C++ harness that sets each field through its source path, as the
//! compiler lays it out) and to `fpforge run` (the struct's `{field: value}` text). The
//! functions of `tests/fixtures/structs/shapes.c{,pp}` hash every field's bytes, so any
//! field at the wrong offset, of the wrong width or with other bits changes the result:
//! 0 mismatches.
//!
//! The fields come from `fpforge ir`'s `shape` lines, so the harness builds what
//! fpforge's debug-info reading says, and the compiler checks every path and type.

use crate::common::{fixture, fpforge};
use fpforge_spec::spec::struct_text;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// A deterministic xorshift generator (no dependency, same values on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A scalar type of the IR text (`f64`, `i32`, `ptr`): its width in bytes and how
/// fpforge reads a value of it from raw bits.
fn width(ty: &str) -> u32 {
    match ty {
        "f64" | "i64" | "ptr" => 8,
        "f32" | "i32" => 4,
        "i16" => 2,
        "i8" => 1,
        other => panic!("type {other}"),
    }
}

/// The text `fpforge run` reads for raw bits of `ty`.
fn value_text(ty: &str, bits: u64) -> String {
    match ty {
        "f64" | "f32" => format!("raw:{bits:x}"),
        _ => {
            let shift = 64 - 8 * width(ty);
            (((bits << shift) as i64) >> shift).to_string()
        }
    }
}

/// Random raw bits of `ty`, zero-extended.
fn random_bits(rng: &mut Rng, ty: &str) -> u64 {
    match width(ty) {
        8 => rng.next(),
        w => rng.next() & ((1u64 << (8 * w)) - 1),
    }
}

/// One scalar field of a `shape` line: path, type.
struct Field {
    path: String,
    ty: String,
}

/// What `fpforge ir` says about a parameter.
enum Shape {
    Struct {
        name: String,
        passing: String,
        fields: Vec<Field>,
    },
    Vector(String),
    Span(String),
}

/// The parameters (name, type) of function `symbol` and the shapes of its parameters,
/// read from the IR text.
fn signature(ir: &str, symbol: &str) -> (Vec<(String, String)>, Vec<Option<Shape>>) {
    let header = ir
        .lines()
        .find(|l| l.starts_with("func ") && l.contains(&format!(" \"{symbol}\"")))
        .unwrap_or_else(|| panic!("no function {symbol}"));
    let id = header.split_whitespace().nth(1).unwrap();
    // The parameters follow the quoted symbol and demangled name.
    let after_names = &header[header.rfind('"').unwrap() + 1..];
    let list = &after_names[after_names.find('(').unwrap() + 1..after_names.find(')').unwrap()];
    let params: Vec<(String, String)> = list
        .split(", ")
        .map(|p| {
            let ty = p.split_whitespace().nth(1).unwrap();
            let ty = ty.split('<').next().unwrap().to_string();
            let name = p.split('#').nth(1).unwrap().to_string();
            (name, ty)
        })
        .collect();
    let mut shapes: Vec<Option<Shape>> = params.iter().map(|_| None).collect();
    for line in ir.lines() {
        let Some(rest) = line.strip_prefix(&format!("shape {id} ")) else {
            continue;
        };
        let (index, shape) = rest.split_once(' ').unwrap();
        let index: usize = index.parse().unwrap();
        shapes[index] = Some(if let Some(elem) = shape.strip_prefix("vector ") {
            Shape::Vector(elem.to_string())
        } else if let Some(elem) = shape.strip_prefix("span ") {
            Shape::Span(elem.to_string())
        } else {
            let quoted: Vec<&str> = shape.split('"').collect();
            let name = quoted[1].to_string();
            let passing = quoted[2].split_whitespace().next().unwrap().to_string();
            let fields = quoted[3..]
                .chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| Field {
                    path: c[0].to_string(),
                    ty: c[1]
                        .split(": ")
                        .nth(1)
                        .unwrap()
                        .trim_matches([',', ' ', '}'])
                        .to_string(),
                })
                .collect();
            Shape::Struct {
                name,
                passing,
                fields,
            }
        });
    }
    (params, shapes)
}

/// The C/C++ type of an element type of the IR text.
fn c_type(ty: &str) -> &'static str {
    match ty {
        "f64" => "double",
        "f32" => "float",
        "i32" => "int",
        "i64" => "long long",
        other => panic!("element type {other}"),
    }
}

/// One call of the harness and the `fpforge run` arguments for the same values.
struct Call {
    native: String,
    args: Vec<String>,
}

/// A random call of `symbol` (called `plain` in the source); `split` is the C type of
/// the struct whose fields arrive as scalar parameters named `q.FIELD`, if any.
fn random_call(
    rng: &mut Rng,
    ir: &str,
    (symbol, plain, split): (&str, &str, Option<&str>),
    n: usize,
) -> Call {
    let (params, shapes) = signature(ir, symbol);
    let (mut setup, mut call_args, mut args) = (String::new(), Vec::new(), Vec::new());
    let mut skip_next = false;
    for (j, ((name, ty), shape)) in params.iter().zip(&shapes).enumerate() {
        let var = format!("a{n}_{j}");
        if std::mem::take(&mut skip_next) {
            continue;
        }
        match shape {
            Some(Shape::Struct {
                name: c_name,
                passing,
                fields,
            }) => {
                let _ = writeln!(
                    setup,
                    "    {c_name} {var}; memset(&{var}, 0, sizeof {var});"
                );
                let mut texts = Vec::new();
                for field in fields.iter().filter(|f| f.ty != "ptr") {
                    let bits = random_bits(rng, &field.ty);
                    let path = match field.path.starts_with('[') {
                        true => format!("{var}{}", field.path),
                        false => format!("{var}.{}", field.path),
                    };
                    let w = width(&field.ty);
                    let _ = writeln!(setup, "    set(&{path}, {bits:#x}ULL, {w});");
                    texts.push((field.path.as_str(), value_text(&field.ty, bits)));
                }
                args.push(struct_text(&texts));
                call_args.push(match passing.as_str() {
                    "pointer" => format!("&{var}"),
                    _ => var,
                });
            }
            Some(Shape::Vector(elem)) | Some(Shape::Span(elem)) => {
                let len = (rng.next() % 6) as usize;
                let values: Vec<u64> = (0..len).map(|_| random_bits(rng, elem)).collect();
                let t = c_type(elem);
                let items: Vec<String> = values
                    .iter()
                    .map(|b| format!("from_bits<{t}>({b:#x}ULL)"))
                    .collect();
                let texts: Vec<String> = values.iter().map(|&b| value_text(elem, b)).collect();
                args.push(format!("[{}]", texts.join(", ")));
                if let Some(Shape::Span(_)) = shape {
                    let _ = writeln!(setup, "    {t} {var}[] = {{0, {}}};", items.join(", "));
                    call_args.push(format!("std::span<const {t}>({var} + 1, {len})"));
                    args.push(len.to_string());
                    skip_next = true;
                } else {
                    let _ = writeln!(
                        setup,
                        "    std::vector<{t}> {var} = {{{}}};",
                        items.join(", ")
                    );
                    call_args.push(var);
                }
            }
            None if name.contains('.') => {
                let c_name = split.expect("a split struct's type");
                let (struct_var, field) = name.split_once('.').unwrap();
                let struct_var = format!("a{n}_{struct_var}");
                if !setup.contains(&format!(" {struct_var};")) {
                    let _ = writeln!(setup, "    {c_name} {struct_var};");
                    call_args.push(struct_var.clone());
                }
                let bits = random_bits(rng, ty);
                let _ = writeln!(
                    setup,
                    "    set(&{struct_var}.{field}, {bits:#x}ULL, {});",
                    width(ty)
                );
                args.push(value_text(ty, bits));
            }
            None => panic!("{symbol}: parameter {name} has no shape"),
        }
    }
    Call {
        native: format!(
            "  {{\n{setup}    printf(\"%lld\\n\", (long long){plain}({}));\n  }}\n",
            call_args.join(", ")
        ),
        args,
    }
}

/// Runs the `cases` of `source` natively and under `fpforge run`, `per_case` random
/// inputs each, and counts the mismatches.
fn differ(source: &str, cpp: bool, cases: &[(&str, &str, Option<&str>)], per_case: usize) {
    let std = if cpp {
        &["--std", "c++20"][..]
    } else {
        &[][..]
    };
    let mut ir_args = vec!["ir", source, "-f", cases[0].0];
    ir_args.extend(std);
    let ir = fpforge(&ir_args);
    assert!(
        ir.status.success(),
        "{}",
        String::from_utf8_lossy(&ir.stderr)
    );
    let ir = String::from_utf8_lossy(&ir.stdout).into_owned();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut calls = Vec::new();
    for case in cases {
        for _ in 0..per_case {
            calls.push((case.0, random_call(&mut rng, &ir, *case, calls.len())));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let harness = dir
        .path()
        .join(if cpp { "harness.cpp" } else { "harness.c" });
    let mut text = format!("#include \"{source}\"\n#include <stdio.h>\n#include <string.h>\n");
    text.push_str(
        "static void set(void *p, unsigned long long bits, unsigned n) { memcpy(p, &bits, n); }\n",
    );
    if cpp {
        text.push_str(
            "template <class T> T from_bits(unsigned long long b) { T x; memcpy(&x, &b, sizeof x); return x; }\n",
        );
    }
    text.push_str("int main(void) {\n");
    for (_, call) in &calls {
        text.push_str(&call.native);
    }
    text.push_str("  return 0;\n}\n");
    std::fs::write(&harness, &text).unwrap();
    let exe = dir.path().join("harness");
    let compiler = if cpp { "g++" } else { "gcc" };
    let mut build = Command::new(compiler);
    if cpp {
        build.arg("-std=c++20");
    }
    let built = build
        .arg("-O0")
        .arg(&harness)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&built.stderr)
    );
    let native = Command::new(&exe).output().unwrap();
    let native = String::from_utf8_lossy(&native.stdout).into_owned();
    let native: Vec<&str> = native.lines().collect();
    assert_eq!(native.len(), calls.len());
    let mut mismatches = Vec::new();
    for ((symbol, call), want) in calls.iter().zip(native) {
        let mut args = vec!["run", "--json", source, "-f", symbol];
        args.extend(std);
        args.push("--");
        args.extend(call.args.iter().map(String::as_str));
        let out = fpforge(&args);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        let got = report["returned"]["decimal"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if got != want {
            mismatches.push(format!(
                "{symbol}({}): fpforge {got}, native {want}",
                call.args.join(" ")
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn c_struct_shapes_agree_with_a_native_build() {
    let source = fixture("structs", "shapes.c");
    let cases = [
        ("by_pointer", "by_pointer", None),
        ("by_typedef", "by_typedef", None),
        ("by_value", "by_value", None),
        ("packed", "packed", None),
        ("split", "split", Some("struct pair")),
        ("small_vector", "small_vector", None),
    ];
    assert!(Path::new(&source).exists());
    differ(&source, false, &cases, 6);
}

#[test]
fn cpp_container_and_class_shapes_agree_with_a_native_build() {
    let source = fixture("structs", "shapes.cpp");
    let cases = [
        ("_Z10vector_refRKSt6vectorIdSaIdEE", "vector_ref", None),
        ("_Z12vector_valueSt6vectorIfSaIfEE", "vector_value", None),
        ("_Z9array_refRKSt5arrayIdLm4EE", "array_ref", None),
        ("_Z11array_valueSt5arrayIiLm5EE", "array_value", None),
        (
            "_Z10span_valueSt4spanIKdLm18446744073709551615EE",
            "span_value",
            None,
        ),
        ("_Z9class_refR8particle", "class_ref", None),
    ];
    differ(&source, true, &cases, 4);
}
