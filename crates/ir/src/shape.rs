//! Parameter shapes: what a pointer parameter points to when it is more than one
//! scalar, read by lowering from the program's debug info.
//!
//! A parameter whose source type is `struct S *`, `S &` or a struct passed by value in
//! memory (`byval`) points to a [`StructShape`]: its size and its scalar fields
//! flattened in layout order, each with the path the source names it by (`pos[2]`,
//! `mass`, `st.v.x`) and its byte offset. `std::array<T, N>` is a struct whose fields
//! are `[0]`..`[N-1]`. A `std::vector<T>` (by reference, or by value, which the ABI
//! passes as a pointer to a copy) is [`ParamShape::Vector`]: three pointers laid out as
//! libstdc++ lays them out, to the first element, past the last one and past the end
//! of the storage. A `std::span` by value arrives as two parameters, a pointer to its
//! elements ([`ParamShape::Span`]) and their number. A routine translated from Fortran
//! takes every argument by reference: a dummy argument that is no array is
//! [`ParamShape::ByReference`] (a caller writes a value), an array one
//! [`ParamShape::Array`] with its extents as declared (`X(N)`: the parameter `N`).
//! Specs, engines and reports read these shapes from the module;
//! nothing above `lower` sees LLVM or DWARF types.

use crate::types::Type;

/// What a pointer parameter points to.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParamShape {
    /// A struct (or class, or `std::array`).
    Struct(StructShape),
    /// A libstdc++ `std::vector` of the element type.
    Vector(Type),
    /// The data pointer of a `std::span` passed by value, which the ABI splits in two:
    /// this pointer to the elements, and the next parameter, their number.
    Span(Type),
    /// A `long double` (x86_fp80, see [`crate::f80`]). On an `i64` parameter: it and the
    /// next parameter (an `i16`) are one `long double` passed by value, its significand
    /// and its sign and exponent. On the hidden result slot ([`crate::Function::SRET_PARAM`]):
    /// the function returns a `long double` there (10 bytes, the significand first).
    LongDouble,
    /// One scalar of the pointee type passed by reference (a Fortran dummy argument
    /// that is no array): a caller writes its value, the callee may change it.
    ByReference,
    /// An array passed by its first element (a Fortran array dummy argument), with
    /// the extents its declaration gives, first dimension first (column-major).
    Array(Vec<Extent>),
}

/// One extent of an array parameter's declaration.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Extent {
    /// A constant number of elements (`X(3)`, `X(0:4)`).
    Const(u64),
    /// As many elements as another parameter (by index) holds (`X(N)`).
    Param(usize),
    /// Not known from the declaration (`X(*)`, `X(2*N+1)`).
    Unknown,
}

/// How the source passes a struct parameter that arrives as a pointer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Passing {
    /// `struct S *p`: a caller writes `&s`.
    Pointer,
    /// `S &p` (C++): a caller writes `s`.
    Reference,
    /// `struct S p`, copied to memory by the caller (`byval`): a caller writes `s`.
    Value,
}

impl Passing {
    /// The word of the text form.
    pub fn name(self) -> &'static str {
        match self {
            Passing::Pointer => "pointer",
            Passing::Reference => "reference",
            Passing::Value => "value",
        }
    }

    /// The passing a word of the text form names.
    pub fn from_name(name: &str) -> Option<Passing> {
        [Passing::Pointer, Passing::Reference, Passing::Value]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// A struct: how the source names and passes it, its size and flattened scalar fields.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StructShape {
    /// The type as a C or C++ declaration spells it (`struct particle`, a typedef's
    /// name, `soa`, `std::array<double, 4>`).
    pub name: String,
    /// How the parameter passes it.
    pub passing: Passing,
    /// Its size in bytes.
    pub size: u64,
    /// Its scalar fields in layout order.
    pub fields: Vec<FieldShape>,
}

/// One scalar field of a struct, nested structs and fixed arrays flattened.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FieldShape {
    /// The path from the struct (`pos[2]`, `st.v.x`, `[0]` for an array's element).
    pub path: String,
    /// Byte offset from the start of the struct.
    pub offset: u64,
    /// Its type (`ptr` for a pointer field).
    pub ty: Type,
}

impl ParamShape {
    /// The field path of `path` below parameter `param`: `p.mass`, `a[2]`.
    pub fn field_name(param: &str, path: &str) -> String {
        if path.starts_with('[') {
            format!("{param}{path}")
        } else {
            format!("{param}.{path}")
        }
    }
}
