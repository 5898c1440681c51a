//! The C and C++ text that builds a structured argument (a struct, a `std::vector`) from
//! the raw bits of its coordinates, for the regression files (`regression.c` and
//! `regression.cpp`).
//!
//! Coordinates are read as C expressions `fpforge_v[K]` and converted with the prelude's
//! `fpforge_*_bits` helpers. The struct is declared anew with the same layout (`struct
//! fpforge_sJ`: one member per flattened scalar field at its offset, padding between):
//! C links by symbol name only, and regression.cpp declares the function by its symbol
//! (`__asm__`), so in both the function takes it as its own type, by pointer (a C++
//! reference passes as one) or by value. A `std::span` parameter is a pointer and a
//! length to fpforge, built like any array.

use fpforge_spec::{FieldInput, FieldValue};
use fpir::{FloatTy, Passing, StructShape, Type};
use std::fmt::Write as _;

/// The language of the regression file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Language {
    /// C99 (`regression.c`).
    C,
    /// C++ (`regression.cpp`).
    Cpp,
}

/// The text of one structured argument.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ArgText {
    /// File-level declarations it needs (a struct definition in C).
    pub decls: String,
    /// The parameter's type in the function's declaration.
    pub param: String,
    /// Statements declaring and filling the local variable.
    pub setup: String,
    /// The call's argument.
    pub arg: String,
}

/// The C spelling of a scalar type: `double`, `float`, `int`, `long long`, ...
pub fn c_type(ty: Type) -> &'static str {
    match ty {
        Type::Float(FloatTy::F64) => "double",
        Type::Float(FloatTy::F32) => "float",
        Type::Int(1) => "_Bool",
        Type::Int(8) => "signed char",
        Type::Int(16) => "short",
        Type::Int(32) => "int",
        Type::Int(_) => "long long",
        Type::Ptr => "void *",
    }
}

/// The C expression converting the raw bits `bits` (a C `uint64_t` expression) to `ty`.
pub fn from_bits(ty: Type, bits: &str) -> String {
    match ty {
        Type::Float(FloatTy::F64) => format!("fpforge_f64_bits({bits})"),
        Type::Float(FloatTy::F32) => format!("fpforge_f32_bits((uint32_t){bits})"),
        Type::Int(1) => format!("(_Bool)({bits} & 1u)"),
        Type::Int(8) => format!("(signed char)fpforge_i64_bits(fpforge_sext({bits}, 8))"),
        Type::Int(16) => format!("(short)fpforge_i64_bits(fpforge_sext({bits}, 16))"),
        Type::Int(32) => format!("(int)fpforge_i64_bits(fpforge_sext({bits}, 32))"),
        Type::Int(_) => format!("fpforge_i64_bits({bits})"),
        Type::Ptr => format!("(void *)(uintptr_t){bits}"),
    }
}

/// The struct argument of parameter `j` (variable `fpforge_aJ`), its input fields read
/// from coordinates `first`, `first + 1`, ... in field order.
pub fn struct_arg(j: usize, shape: &StructShape, fields: &[FieldInput], first: usize) -> ArgText {
    let var = format!("fpforge_a{j}");
    let tag = format!("struct fpforge_s{j}");
    let mut setup = format!("    {tag} {var};\n    memset(&{var}, 0, sizeof {var});\n");
    let mut next = first;
    for (k, field) in fields.iter().enumerate() {
        let bits = match field.value {
            FieldValue::Input(_) => {
                next += 1;
                format!("fpforge_v[{}]", next - 1)
            }
            FieldValue::Fixed(bits) => format!("UINT64_C(0x{bits:x})"),
            FieldValue::Null => continue,
        };
        let value = from_bits(field.ty, &bits);
        let _ = writeln!(setup, "    {var}.f{k} = {value};");
    }
    let (param, arg) = match shape.passing {
        Passing::Pointer | Passing::Reference => (format!("{tag} *"), format!("&{var}")),
        Passing::Value => (tag.clone(), var),
    };
    ArgText {
        decls: c_layout(&tag, shape.size, fields),
        param,
        setup,
        arg,
    }
}

/// The `std::vector` argument of parameter `j` (C++ only): `len` elements read from
/// coordinates `first`, ... as an initializer list, so its capacity is its size as
/// fpforge builds it.
pub fn vector_arg(j: usize, elem: Type, len: usize, first: usize) -> ArgText {
    let var = format!("fpforge_a{j}");
    let items: Vec<String> = (first..first + len)
        .map(|k| from_bits(elem, &format!("fpforge_v[{k}]")))
        .collect();
    let ty = format!("std::vector<{}>", c_type(elem));
    ArgText {
        decls: String::new(),
        setup: format!("    {ty} {var} = {{{}}};\n", items.join(", ")),
        param: format!("const {ty} &"),
        arg: var,
    }
}

/// A C struct with the layout of `fields` in `size` bytes: member `fK` for field `K` at
/// its offset, char arrays as padding, packed when a field is not at a multiple of its
/// size.
fn c_layout(tag: &str, size: u64, fields: &[FieldInput]) -> String {
    let packed = fields
        .iter()
        .any(|f| f.offset % u64::from(f.ty.bytes()) != 0);
    let mut out = format!("{tag} {{\n");
    let mut at = 0;
    for (k, field) in fields.iter().enumerate() {
        if field.offset > at {
            let _ = writeln!(out, "    unsigned char pad{k}[{}];", field.offset - at);
        }
        let _ = writeln!(out, "    {} f{k};", c_type(field.ty));
        at = field.offset + u64::from(field.ty.bytes());
    }
    if size > at {
        let _ = writeln!(out, "    unsigned char pad_end[{}];", size - at);
    }
    out.push('}');
    if packed {
        out.push_str(" __attribute__((packed))");
    }
    out.push_str(";\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(path: &str, offset: u64, ty: Type, value: FieldValue) -> FieldInput {
        FieldInput {
            path: path.to_string(),
            offset,
            ty,
            value,
        }
    }

    #[test]
    fn a_struct_is_laid_out_and_filled_from_its_coordinates() {
        let shape = StructShape {
            name: "struct p".to_string(),
            passing: Passing::Pointer,
            size: 24,
            fields: Vec::new(),
        };
        let fields = [
            field("n", 0, Type::I32, FieldValue::Fixed(4)),
            field("x[0]", 8, Type::F64, FieldValue::Input(None)),
            field("next", 16, Type::Ptr, FieldValue::Null),
        ];
        let c = struct_arg(1, &shape, &fields, 3);
        assert_eq!(
            c.decls,
            "struct fpforge_s1 {\n    int f0;\n    unsigned char pad1[4];\n    double f1;\n    void * f2;\n};\n"
        );
        assert_eq!(c.param, "struct fpforge_s1 *");
        assert_eq!(c.arg, "&fpforge_a1");
        assert!(c
            .setup
            .contains("fpforge_a1.f1 = fpforge_f64_bits(fpforge_v[3]);"));
        assert!(c.setup.contains("fpforge_a1.f0 = (int)"));
        let by_reference = StructShape {
            passing: Passing::Reference,
            ..shape.clone()
        };
        let r = struct_arg(1, &by_reference, &fields, 3);
        assert_eq!(
            (r.param.as_str(), r.arg.as_str()),
            ("struct fpforge_s1 *", "&fpforge_a1")
        );
        let by_value = StructShape {
            passing: Passing::Value,
            ..shape
        };
        let v = struct_arg(1, &by_value, &fields, 3);
        assert_eq!(
            (v.param.as_str(), v.arg.as_str()),
            ("struct fpforge_s1", "fpforge_a1")
        );
    }

    #[test]
    fn vectors_take_their_elements_in_order() {
        let v = vector_arg(0, Type::F32, 2, 5);
        assert_eq!(
            v.setup,
            "    std::vector<float> fpforge_a0 = {fpforge_f32_bits((uint32_t)fpforge_v[5]), \
             fpforge_f32_bits((uint32_t)fpforge_v[6])};\n"
        );
        assert_eq!(
            (v.param.as_str(), v.arg.as_str()),
            ("const std::vector<float> &", "fpforge_a0")
        );
    }
}
