//! Input specifications: which parameters of an entry function are inputs, their shapes
//! and value ranges, and how a vector of search coordinates becomes interpreter arguments.
//!
//! Every engine (cover, accuracy, explore) searches over a flat vector of coordinates; this
//! module owns the one mapping from that vector to [`Arg`]s so the engines agree on it.
//! Users describe parameters with `--arg` texts ([`ArgSpec`]) and output arrays with
//! `--out-arg` texts ([`OutArgSpec`]):
//!
//! | text | meaning |
//! |---|---|
//! | `x: f64` | scalar input (or the pointee of a pointer parameter) |
//! | `a: f64[8]` | array of 8 inputs passed by pointer |
//! | `a: f64[8] in [-100, 100]` | the same, each element in the range |
//! | `x in [0, 1]` | the parameter's own type, in a range |
//! | `n = 8` | a fixed value, not an input |
//! | `--out-arg b`, `--out-arg 'b: f64[8]'` | a zero-filled output array (as long as the first input array, else one element; a struct's size for a struct) |
//! | `p.mass in [0, 10]`, `p.pos in [-1, 1]` | a struct field (or every field below a path) in a range |
//! | `p.n = 4` | a struct field fixed, not an input |
//! | `v: vector<f64>[16] in [-1, 1]` | a `std::vector` of 16 inputs |
//!
//! A parameter is named by its source name or its 1-based position. Parameters without a
//! spec default to one coordinate each: scalars as they are, a pointer to a scalar gets a
//! one-element array whose element is the coordinate (CoverMe's `double*` parameters;
//! the CLI plans a longer array when nearly every run overruns that one element).
//! A parameter the module gives a [`ParamShape`] (a struct, class or `std::array` by
//! pointer, reference or value; a `std::vector`) has one coordinate per scalar field,
//! pointer fields null, or [`DEFAULT_VECTOR_LEN`] elements (a vector; a span's pointer,
//! whose length parameter is then fixed to it); its text in a line of inputs is
//! [`struct_text`]'s (`{pos: [1, 2, 3], mass: 2}`), a vector's `[a,b,...]`. A Fortran
//! dummy argument ([`ParamShape::ByReference`]) is a pointer to one scalar like C's,
//! written as a plain value; a Fortran array ([`ParamShape::Array`]) defaults to its
//! constant extents' elements, else [`DEFAULT_VECTOR_LEN`].

use crate::fields::{self, FieldText};
use crate::{Arg, Cell};
use fpir::f80::{self, F80Arith, Round, F80};
use fpir::float_text::{format_decimal, format_exact, parse_float};
use fpir::{Extent, FloatTy, Func, Module, ParamShape, StructShape, Type};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Errors in argument specifications.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SpecError {
    /// The text of a spec does not follow the grammar.
    #[error("bad argument spec `{text}`: {reason}")]
    Syntax {
        /// The spec text.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A line of inputs (`--seeds`) does not give the function's arguments.
    #[error("{reason}")]
    BadLine {
        /// What is wrong.
        reason: String,
    },
    /// A value does not parse as its type.
    #[error("`{text}` is not a valid {ty} value")]
    BadValue {
        /// The value text.
        text: String,
        /// The expected type.
        ty: Type,
    },
    /// No parameter has the given name or position.
    #[error("function `{func}` has no parameter `{name}` (parameters: {known})")]
    UnknownParam {
        /// Function name.
        func: String,
        /// The name or position given.
        name: String,
        /// The parameters the function has.
        known: String,
    },
    /// Two specs name the same parameter.
    #[error("parameter `{0}` is specified twice")]
    Duplicate(String),
    /// The spec does not fit the parameter's type.
    #[error("parameter `{name}` of type {ty}: {reason}")]
    Mismatch {
        /// Parameter name.
        name: String,
        /// Its IR type.
        ty: Type,
        /// Why the spec does not fit.
        reason: String,
    },
    /// The function id is not in the module.
    #[error("no function {0} in the module")]
    UnknownFunc(Func),
}

/// A closed range of values for every coordinate of a parameter.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ValueRange {
    /// Lowest value.
    pub lo: f64,
    /// Highest value.
    pub hi: f64,
}

impl ValueRange {
    /// True when `x` lies in the range.
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// The shape a spec gives a parameter.
#[derive(Clone, PartialEq, Debug)]
pub enum SpecShape {
    /// Inputs: an explicit element type (or the parameter's own), an array length (or a
    /// scalar), and an optional range.
    Input {
        /// Element type, when written.
        ty: Option<Type>,
        /// Array length, when written (`[N]`).
        len: Option<usize>,
        /// Value range, when written.
        range: Option<ValueRange>,
    },
    /// A fixed value (`n = 8`), kept as text until the parameter's type is known.
    Fixed(String),
    /// A `long double` input (`x: f80`, `x: long double`), in a range if written.
    LongDouble {
        /// Value range, when written.
        range: Option<ValueRange>,
    },
}

/// One `--arg` text, parsed.
#[derive(Clone, PartialEq, Debug)]
pub struct ArgSpec {
    /// Parameter name or 1-based position.
    pub name: String,
    /// What the spec says about it.
    pub shape: SpecShape,
}

/// One `--out-arg` text, parsed: an output array.
#[derive(Clone, PartialEq, Debug)]
pub struct OutArgSpec {
    /// Parameter name or 1-based position.
    pub name: String,
    /// Element type, when written.
    pub elem: Option<Type>,
    /// Length, when written (otherwise the length of the first input array).
    pub len: Option<usize>,
}

/// How one parameter is passed.
#[derive(Clone, PartialEq, Debug)]
pub enum ParamInput {
    /// A scalar input: one coordinate.
    Scalar {
        /// Its type.
        ty: Type,
        /// Its range, if any.
        range: Option<ValueRange>,
    },
    /// A pointer to one scalar input: one coordinate, passed as a one-element array.
    Pointee {
        /// The pointee type.
        ty: Type,
        /// Its range, if any.
        range: Option<ValueRange>,
    },
    /// An array of inputs passed by pointer: `len` coordinates.
    Array {
        /// Element type.
        elem: Type,
        /// Number of elements.
        len: usize,
        /// Range of every element, if any.
        range: Option<ValueRange>,
    },
    /// A fixed scalar value: no coordinate.
    Fixed {
        /// Its type.
        ty: Type,
        /// Its raw bits.
        bits: u64,
    },
    /// A zero-filled output array passed by pointer: no coordinate.
    Output {
        /// Element type.
        elem: Type,
        /// Number of elements.
        len: usize,
    },
    /// A struct passed by pointer (or reference, or by value in memory): one coordinate
    /// per input field.
    Struct {
        /// Its size in bytes.
        size: u64,
        /// Its scalar fields.
        fields: Vec<FieldInput>,
    },
    /// A `std::vector` of inputs: `len` coordinates.
    Vector {
        /// Element type.
        elem: Type,
        /// Number of elements.
        len: usize,
        /// Range of every element, if any.
        range: Option<ValueRange>,
    },
    /// A `long double` passed by value (its significand; the next parameter is its
    /// [`ParamInput::LongDoubleExponent`]): two coordinates, the value rounded to a
    /// double (in the range, if any) and the tail below it ([`long_double_of`]).
    LongDouble {
        /// Range of the value, if any.
        range: Option<ValueRange>,
    },
    /// The sign and exponent of the `long double` of the parameter before: no
    /// coordinate, no text of its own.
    LongDoubleExponent,
    /// The hidden slot receiving a `long double` result: no coordinate, no text.
    LongDoubleResult,
}

impl ParamInput {
    /// True for the parameters a line of inputs has no text for: a `long double`'s
    /// exponent half and the slot of a `long double` result.
    pub fn is_hidden(&self) -> bool {
        matches!(
            self,
            ParamInput::LongDoubleExponent | ParamInput::LongDoubleResult
        )
    }
}

/// The range of a `long double`'s tail coordinate: the value below its rounding to a
/// double in units of half its last place (see [`long_double_of`]).
pub const LONG_DOUBLE_TAIL: ValueRange = ValueRange {
    lo: -2048.0,
    hi: 2048.0,
};

/// The `long double` of a pair of coordinates: `head` (the bits of a double) plus `tail`
/// (a 16-bit integer) units of 2^(e-64), where 2^e is the binade of the head, rounded
/// to nearest. Every `long double` in a double's range is such a pair, the head being
/// its rounding to a double ([`long_double_coords`]); infinities and NaNs ignore the
/// tail.
pub fn long_double_of(head: u64, tail: u64) -> F80 {
    let x = F80::from_float(FloatTy::F64, head);
    let exponent = i32::from(x.se & 0x7fff);
    if exponent == 0x7fff || x.sig == 0 {
        return x;
    }
    let tail = tail as u16 as i16;
    let magnitude = F80::from_i64(i64::from(tail.unsigned_abs()));
    let unit_exponent = exponent - 64;
    if tail == 0 || unit_exponent < 1 {
        return x;
    }
    let unit = F80 {
        sig: 1 << 63,
        se: unit_exponent as u16,
    };
    let step = f80::arith(F80Arith::Mul, magnitude, unit, Round::NearestTiesToEven);
    let op = if tail < 0 {
        F80Arith::Sub
    } else {
        F80Arith::Add
    };
    f80::arith(op, x, step, Round::NearestTiesToEven)
}

/// The coordinates (head, tail) of a `long double` (see [`long_double_of`]); `None` when
/// it lies outside a double's range, or between its subnormals.
pub fn long_double_coords(x: F80) -> Option<(u64, u64)> {
    let head = x.to_float(FloatTy::F64, Round::NearestTiesToEven);
    let near = F80::from_float(FloatTy::F64, head);
    if x.is_nan() || near == x {
        return Some((head, 0));
    }
    let unit_exponent = i32::from(near.se & 0x7fff) - 64;
    if unit_exponent < 1 || f64::from_bits(head).is_infinite() {
        return None;
    }
    let unit = F80 {
        sig: 1 << 63,
        se: unit_exponent as u16,
    };
    let rest = f80::arith(F80Arith::Sub, x, near, Round::NearestTiesToEven);
    let units = f80::arith(F80Arith::Div, rest, unit, Round::NearestTiesToEven);
    let tail = units.to_signed(64) as i64;
    let tail = i16::try_from(tail).ok()?;
    (long_double_of(head, tail as u16 as u64) == x).then_some((head, tail as u16 as u64))
}

/// The text of a `long double` in a line of inputs: exact ([`f80::format_exact`]).
pub fn long_double_text(x: F80) -> String {
    f80::format_exact(x)
}

/// The number of elements of a `std::vector` parameter without a spec.
pub const DEFAULT_VECTOR_LEN: usize = 8;

/// One scalar field of a struct parameter and what it receives.
#[derive(Clone, PartialEq, Debug)]
pub struct FieldInput {
    /// Its path in the struct (`pos[2]`, `st.v.x`).
    pub path: String,
    /// Byte offset.
    pub offset: u64,
    /// Its type.
    pub ty: Type,
    /// What it receives.
    pub value: FieldValue,
}

/// What one struct field receives.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum FieldValue {
    /// A coordinate, in a range if any.
    Input(Option<ValueRange>),
    /// A fixed value (raw bits): no coordinate.
    Fixed(u64),
    /// A null pointer: no coordinate.
    Null,
}

/// One search coordinate: which parameter (and array element) it feeds.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Coord {
    /// Index of the parameter.
    pub param: usize,
    /// Element index for array and vector parameters, field index for structs.
    pub elem: Option<usize>,
    /// Type of the value.
    pub ty: Type,
    /// Range of the value, if any.
    pub range: Option<ValueRange>,
}

/// The inputs of one entry function: how each parameter is passed and the flat list of
/// coordinates the engines search over.
#[derive(Clone, PartialEq, Debug)]
pub struct InputSpec {
    names: Vec<String>,
    params: Vec<ParamInput>,
    coords: Vec<Coord>,
}

impl InputSpec {
    /// Plans the inputs of `func` from the user's specs; parameters without one take the
    /// defaults described in the module docs.
    pub fn for_function(
        module: &Module,
        func: Func,
        args: &[ArgSpec],
        outs: &[OutArgSpec],
    ) -> Result<InputSpec, SpecError> {
        let f = module.funcs.get(func).ok_or(SpecError::UnknownFunc(func))?;
        let types = f.param_types();
        let names: Vec<String> = (0..types.len())
            .map(|i| match f.param_names.get(i).cloned().flatten() {
                Some(name) => name,
                None => format!("{}", i + 1),
            })
            .collect();
        let position = |name: &str| -> Option<usize> {
            names.iter().position(|n| n == name).or_else(|| {
                name.parse::<usize>()
                    .ok()
                    .filter(|&k| (1..=names.len()).contains(&k))
                    .map(|k| k - 1)
            })
        };
        let resolve = |name: &str| -> Result<usize, SpecError> {
            names
                .iter()
                .position(|n| n == name)
                .or_else(|| {
                    name.parse::<usize>()
                        .ok()
                        .filter(|&k| (1..=names.len()).contains(&k))
                        .map(|k| k - 1)
                })
                .ok_or_else(|| SpecError::UnknownParam {
                    func: f.name.clone(),
                    name: name.to_string(),
                    known: names.join(", "),
                })
        };
        let mut arg_of: Vec<Option<&ArgSpec>> = vec![None; types.len()];
        let mut out_of: Vec<Option<&OutArgSpec>> = vec![None; types.len()];
        let mut fields_of: Vec<Vec<(&str, &ArgSpec)>> = vec![Vec::new(); types.len()];
        for spec in args {
            let field_split = match position(&spec.name) {
                Some(_) => None,
                None => {
                    split_field(&spec.name).and_then(|(param, path)| Some((position(param)?, path)))
                }
            };
            if let Some((index, path)) = field_split {
                fields_of[index].push((path, spec));
                continue;
            }
            let index = resolve(&spec.name)?;
            if arg_of[index].replace(spec).is_some() {
                return Err(SpecError::Duplicate(names[index].clone()));
            }
        }
        for spec in outs {
            let index = resolve(&spec.name)?;
            if arg_of[index].is_some() || out_of[index].replace(spec).is_some() {
                return Err(SpecError::Duplicate(names[index].clone()));
            }
        }
        let mut params = Vec::with_capacity(types.len());
        for (i, &ty) in types.iter().enumerate() {
            let pointee = f.param_pointees.get(i).copied().flatten();
            let param = Param {
                name: &names[i],
                ty,
                pointee,
            };
            let shape = module.param_shapes.get(&(func, i));
            params.push(match (shape, arg_of[i]) {
                (Some(ParamShape::ByReference | ParamShape::Array(_)), _)
                    if !fields_of[i].is_empty() =>
                {
                    return Err(param.mismatch("it has no fields"));
                }
                (Some(ParamShape::ByReference), Some(spec)) => param.input_from(&spec.shape)?,
                (Some(ParamShape::Array(_)), Some(spec)) => param.input_from(&spec.shape)?,
                (Some(ParamShape::ByReference | ParamShape::Array(_)), None)
                    if out_of[i].is_some() =>
                {
                    ParamInput::Fixed { ty, bits: 0 }
                }
                (Some(ParamShape::Array(extents)), None) => param.array_input(extents),
                (Some(ParamShape::ByReference), None) => param.default_input()?,
                (Some(shape), _) if out_of[i].is_none() => {
                    param.shaped(shape, arg_of[i], &fields_of[i])?
                }
                _ if !fields_of[i].is_empty() => {
                    return Err(param.mismatch("it has no fields"));
                }
                (_, Some(spec)) => param.input_from(&spec.shape)?,
                (_, None) if out_of[i].is_some() => ParamInput::Fixed { ty, bits: 0 },
                (_, None) => param.default_input()?,
            });
        }
        // A span's length parameter says how many elements its pointer has.
        for i in 0..params.len().saturating_sub(1) {
            let span = matches!(
                module.param_shapes.get(&(func, i)),
                Some(ParamShape::Span(_))
            );
            if let (true, ParamInput::Array { len, .. }) = (span, &params[i]) {
                let ty = types[i + 1];
                params[i + 1] = ParamInput::Fixed {
                    ty,
                    bits: *len as u64 & ty.mask(),
                };
            }
        }
        // A long double's significand parameter carries its exponent parameter along.
        for i in 0..params.len().saturating_sub(1) {
            if let ParamInput::LongDouble { .. } = params[i] {
                params[i + 1] = ParamInput::LongDoubleExponent;
            }
        }
        let first_array_len = params.iter().find_map(|p| match p {
            ParamInput::Array { len, .. } => Some(*len),
            _ => None,
        });
        for (i, out) in out_of.iter().enumerate() {
            if let Some(out) = out {
                let param = Param {
                    name: &names[i],
                    ty: types[i],
                    pointee: f.param_pointees.get(i).copied().flatten(),
                };
                params[i] = match module.param_shapes.get(&(func, i)) {
                    Some(ParamShape::Struct(s)) if out.elem.is_none() && out.len.is_none() => {
                        struct_output(s)
                    }
                    _ => param.output(out, first_array_len)?,
                };
            }
        }
        let coords = coords_of(&params);
        Ok(InputSpec {
            names,
            params,
            coords,
        })
    }

    /// How each parameter is passed, in parameter order.
    pub fn params(&self) -> &[ParamInput] {
        &self.params
    }

    /// The search coordinates, in parameter order then element order.
    pub fn coords(&self) -> &[Coord] {
        &self.coords
    }

    /// Number of coordinates.
    pub fn dims(&self) -> usize {
        self.coords.len()
    }

    /// The source name (or 1-based position) of parameter `param`.
    pub fn param_name(&self, param: usize) -> &str {
        &self.names[param]
    }

    /// The arguments for the raw bits of every coordinate as one line that `fpforge run`
    /// reads back: exact values ([`value_text`]) separated by spaces, arrays as
    /// `[a,b,...]`, fixed values as given, output arrays zero-filled.
    pub fn line(&self, coord_bits: &[u64]) -> String {
        self.line_with(coord_bits, value_text)
    }

    /// The same line for a reader: floats as the shortest decimal that reads back as
    /// the same value ([`decimal_text`]); not exact for NaN payloads.
    pub fn decimal_line(&self, coord_bits: &[u64]) -> String {
        self.line_with(coord_bits, decimal_text)
    }

    fn line_with(&self, coord_bits: &[u64], value_text: fn(Type, u64) -> String) -> String {
        let mut next = coord_bits.iter().copied();
        let list = |ty: Type, values: &mut dyn Iterator<Item = u64>| {
            let items: Vec<String> = values.map(|b| value_text(ty, b)).collect();
            format!("[{}]", items.join(","))
        };
        self.params
            .iter()
            .filter(|p| !p.is_hidden())
            .map(|p| match *p {
                ParamInput::Scalar { ty, .. } | ParamInput::Pointee { ty, .. } => {
                    value_text(ty, next.next().unwrap_or(0))
                }
                ParamInput::LongDouble { .. } => {
                    let head = next.next().unwrap_or(0);
                    long_double_text(long_double_of(head, next.next().unwrap_or(0)))
                }
                ParamInput::LongDoubleExponent | ParamInput::LongDoubleResult => String::new(),
                ParamInput::Array { elem, len, .. } => list(elem, &mut next.by_ref().take(len)),
                ParamInput::Fixed { ty, bits } => value_text(ty, bits),
                ParamInput::Output { elem, len } => list(elem, &mut std::iter::repeat_n(0, len)),
                ParamInput::Vector { elem, len, .. } => list(elem, &mut next.by_ref().take(len)),
                ParamInput::Struct { ref fields, .. } => {
                    let texts: Vec<(&str, String)> = fields
                        .iter()
                        .map(|field| {
                            let text = match field.value {
                                FieldValue::Input(_) => {
                                    value_text(field.ty, next.next().unwrap_or(0))
                                }
                                FieldValue::Fixed(bits) => value_text(field.ty, bits),
                                FieldValue::Null => "null".to_string(),
                            };
                            (field.path.as_str(), text)
                        })
                        .collect();
                    struct_text(&texts)
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The raw bits of every coordinate from a line as [`InputSpec::line`] writes it
    /// (and `fpforge run` reads it): one value per parameter, arrays as `[a,b,...]` of
    /// their length, fixed values as fixed, output arrays as anything; every value
    /// inside its range.
    pub fn parse_line(&self, line: &str) -> Result<Vec<u64>, SpecError> {
        let bad = |reason: String| SpecError::BadLine { reason };
        let words = split_words(line);
        let visible: Vec<(usize, &ParamInput)> = self
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.is_hidden())
            .collect();
        if words.len() != visible.len() {
            return Err(bad(format!(
                "{} values for {} parameters",
                words.len(),
                visible.len()
            )));
        }
        let mut bits = Vec::with_capacity(self.coords.len());
        for ((param, input), word) in visible.into_iter().zip(&words) {
            let name = &self.names[param];
            match *input {
                ParamInput::LongDouble { .. } => {
                    let (head, tail) = parse_long_double(name, word)?;
                    bits.extend([head, tail]);
                }
                ParamInput::LongDoubleExponent | ParamInput::LongDoubleResult => {}
                ParamInput::Scalar { ty, .. } | ParamInput::Pointee { ty, .. } => {
                    bits.push(parse_value(word, ty)?);
                }
                ParamInput::Array { elem, len, .. } | ParamInput::Vector { elem, len, .. } => {
                    let items = array_items(word)
                        .ok_or_else(|| bad(format!("`{name}` takes an array `[...]`")))?;
                    if items.len() != len {
                        return Err(bad(format!(
                            "`{name}` takes {len} values, the line has {}",
                            items.len()
                        )));
                    }
                    for item in items {
                        bits.push(parse_value(item, elem)?);
                    }
                }
                ParamInput::Fixed { ty, bits: fixed } => {
                    if parse_value(word, ty)? & ty.mask() != fixed & ty.mask() {
                        return Err(bad(format!(
                            "`{name}` is fixed to {}",
                            value_text(ty, fixed)
                        )));
                    }
                }
                ParamInput::Output { .. } => {}
                ParamInput::Struct { ref fields, .. } => {
                    bits.extend(struct_inputs(name, fields, word)?);
                }
            }
        }
        for (coord, &b) in self.coords.iter().zip(&bits) {
            if let Some(range) = coord.range {
                let value = value_of(coord.ty, b);
                if !range.contains(value) {
                    return Err(bad(format!(
                        "{} is outside `{}`'s range [{}, {}]",
                        value_text(coord.ty, b),
                        self.names[coord.param],
                        range.lo,
                        range.hi
                    )));
                }
            }
        }
        Ok(bits)
    }

    /// The interpreter arguments for the raw bits of every coordinate.
    ///
    /// # Panics
    /// When `coord_bits` does not have one value per coordinate (a caller bug).
    pub fn to_args(&self, coord_bits: &[u64]) -> Vec<Arg> {
        assert_eq!(
            coord_bits.len(),
            self.coords.len(),
            "one value per coordinate"
        );
        let mut next = coord_bits.iter().copied();
        let mut exponent = 0;
        self.params
            .iter()
            .map(|param| match *param {
                ParamInput::Scalar { .. } => Arg::Scalar(next.next().unwrap_or(0)),
                ParamInput::LongDouble { .. } => {
                    let head = next.next().unwrap_or(0);
                    let x = long_double_of(head, next.next().unwrap_or(0));
                    exponent = u64::from(x.se);
                    Arg::Scalar(x.sig)
                }
                ParamInput::LongDoubleExponent => Arg::Scalar(exponent),
                ParamInput::LongDoubleResult => Arg::Array {
                    elem: Type::I64,
                    values: vec![0; 2],
                },
                ParamInput::Pointee { ty, .. } => Arg::Array {
                    elem: ty,
                    values: vec![next.next().unwrap_or(0)],
                },
                ParamInput::Array { elem, len, .. } => Arg::Array {
                    elem,
                    values: next.by_ref().take(len).collect(),
                },
                ParamInput::Fixed { bits, .. } => Arg::Scalar(bits),
                ParamInput::Output { elem, len } => Arg::Array {
                    elem,
                    values: vec![0; len],
                },
                ParamInput::Vector { elem, len, .. } => Arg::Vector {
                    elem,
                    values: next.by_ref().take(len).collect(),
                },
                ParamInput::Struct { size, ref fields } => Arg::Block {
                    size,
                    cells: fields
                        .iter()
                        .map(|field| Cell {
                            offset: field.offset,
                            ty: field.ty,
                            bits: match field.value {
                                FieldValue::Input(_) => next.next().unwrap_or(0),
                                FieldValue::Fixed(bits) => bits,
                                FieldValue::Null => 0,
                            },
                        })
                        .collect(),
                },
            })
            .collect()
    }
}

/// The raw bits of the input fields of a struct from its text (`{pos: [1, 2], ...}`):
/// a field the text leaves out is zero; fixed fields and null pointers, when given,
/// must be what the spec says.
pub fn struct_inputs(name: &str, fields: &[FieldInput], text: &str) -> Result<Vec<u64>, SpecError> {
    let bad = |reason: String| SpecError::BadLine { reason };
    let parsed = FieldText::parse(text)
        .map_err(|e| bad(format!("`{name}` takes `{{field: value, ...}}`: {e}")))?;
    let mut bits = Vec::new();
    for field in fields {
        let given = parsed.get(&field.path);
        let full = ParamShape::field_name(name, &field.path);
        match (field.value, given) {
            (FieldValue::Input(_), Some(text)) => bits.push(parse_value(text, field.ty)?),
            (FieldValue::Input(_), None) => bits.push(0),
            (FieldValue::Fixed(fixed), Some(text))
                if parse_value(text, field.ty)? & field.ty.mask() != fixed & field.ty.mask() =>
            {
                return Err(bad(format!(
                    "`{full}` is fixed to {}",
                    value_text(field.ty, fixed)
                )));
            }
            (FieldValue::Null, Some(text)) if text != "null" && text != "0" => {
                return Err(bad(format!("`{full}` is a null pointer")));
            }
            _ => {}
        }
    }
    Ok(bits)
}

/// The text of a struct argument from its fields' paths and value texts in layout order
/// (`{pos: [1, 2], mass: 2}`), as lines of inputs write it.
pub fn struct_text(fields: &[(&str, String)]) -> String {
    fields::write(fields)
}

/// The argument of a parameter with a shape from its text, as `fpforge run` reads it:
/// a struct as `{field: value, ...}` (fields left out are zero, pointers null), a vector
/// as `[a, b, ...]` of any length.
pub fn shaped_arg(name: &str, shape: &ParamShape, text: &str) -> Result<Arg, SpecError> {
    match shape {
        ParamShape::Vector(elem) | ParamShape::Span(elem) => {
            let items = array_items(text.trim()).ok_or_else(|| SpecError::BadLine {
                reason: format!("`{name}` takes a vector `[...]`"),
            })?;
            let values = items
                .into_iter()
                .map(|item| parse_value(item, *elem))
                .collect::<Result<Vec<u64>, SpecError>>()?;
            let elem = *elem;
            Ok(match shape {
                ParamShape::Span(_) => Arg::Array { elem, values },
                _ => Arg::Vector { elem, values },
            })
        }
        ParamShape::LongDouble => {
            let x = parse_f80(name, text)?;
            Ok(Arg::Scalar(x.sig))
        }
        ParamShape::ByReference | ParamShape::Array(_) => Err(SpecError::BadLine {
            reason: format!("`{name}` is passed by reference: give a value or an array"),
        }),
        ParamShape::Struct(s) => {
            let fields = default_fields(s, None);
            let mut bits = struct_inputs(name, &fields, text)?.into_iter();
            let cells = fields
                .iter()
                .map(|f| Cell {
                    offset: f.offset,
                    ty: f.ty,
                    bits: match f.ty {
                        Type::Ptr => 0,
                        _ => bits.next().unwrap_or(0),
                    },
                })
                .collect();
            Ok(Arg::Block {
                size: s.size,
                cells,
            })
        }
    }
}

/// A `long double` from its text ([`f80::parse`]).
pub fn parse_f80(name: &str, text: &str) -> Result<F80, SpecError> {
    f80::parse(text).ok_or_else(|| SpecError::BadLine {
        reason: format!("`{name}` takes a long double, not `{text}`"),
    })
}

/// The coordinates of a `long double` from its text.
fn parse_long_double(name: &str, text: &str) -> Result<(u64, u64), SpecError> {
    let x = parse_f80(name, text)?;
    long_double_coords(x).ok_or_else(|| SpecError::BadLine {
        reason: format!(
            "`{name}`: {text} lies outside the values a search coordinate of a long double \
             holds (a double's range)"
        ),
    })
}

/// The fields of `shape` with no spec of their own: inputs in `range`, pointers null.
fn default_fields(shape: &StructShape, range: Option<ValueRange>) -> Vec<FieldInput> {
    shape
        .fields
        .iter()
        .map(|f| FieldInput {
            path: f.path.clone(),
            offset: f.offset,
            ty: f.ty,
            value: match f.ty {
                Type::Ptr => FieldValue::Null,
                _ => FieldValue::Input(range),
            },
        })
        .collect()
}

/// `p.mass` as (`p`, `mass`), `a[2]` as (`a`, `[2]`).
fn split_field(name: &str) -> Option<(&str, &str)> {
    let at = name.find(['.', '['])?;
    let path = name[at..].strip_prefix('.').unwrap_or(&name[at..]);
    Some((&name[..at], path))
}

/// True when field `path` is `prefix` or lies below it.
fn is_below(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

fn coords_of(params: &[ParamInput]) -> Vec<Coord> {
    let mut coords = Vec::new();
    for (param, input) in params.iter().enumerate() {
        match *input {
            ParamInput::Scalar { ty, range } | ParamInput::Pointee { ty, range } => {
                coords.push(Coord {
                    param,
                    elem: None,
                    ty,
                    range,
                })
            }
            ParamInput::Array { elem, len, range } => coords.extend((0..len).map(|k| Coord {
                param,
                elem: Some(k),
                ty: elem,
                range,
            })),
            ParamInput::Vector { elem, len, range } => coords.extend((0..len).map(|k| Coord {
                param,
                elem: Some(k),
                ty: elem,
                range,
            })),
            ParamInput::Struct { ref fields, .. } => {
                for (k, field) in fields.iter().enumerate() {
                    if let FieldValue::Input(range) = field.value {
                        coords.push(Coord {
                            param,
                            elem: Some(k),
                            ty: field.ty,
                            range,
                        });
                    }
                }
            }
            ParamInput::LongDouble { range } => {
                coords.push(Coord {
                    param,
                    elem: Some(0),
                    ty: Type::F64,
                    range,
                });
                coords.push(Coord {
                    param,
                    elem: Some(1),
                    ty: Type::Int(16),
                    range: Some(LONG_DOUBLE_TAIL),
                });
            }
            ParamInput::Fixed { .. }
            | ParamInput::Output { .. }
            | ParamInput::LongDoubleExponent
            | ParamInput::LongDoubleResult => {}
        }
    }
    coords
}

/// A parameter being planned.
struct Param<'a> {
    name: &'a str,
    ty: Type,
    pointee: Option<Type>,
}

impl Param<'_> {
    fn mismatch(&self, reason: impl Into<String>) -> SpecError {
        SpecError::Mismatch {
            name: self.name.to_string(),
            ty: self.ty,
            reason: reason.into(),
        }
    }

    fn default_input(&self) -> Result<ParamInput, SpecError> {
        match (self.ty, self.pointee) {
            (Type::Ptr, Some(Type::Ptr)) => {
                Err(self
                    .mismatch("a pointer to a pointer cannot be an input; write a driver function"))
            }
            (Type::Ptr, pointee) => Ok(ParamInput::Pointee {
                ty: pointee.unwrap_or(Type::F64),
                range: None,
            }),
            (ty, _) => Ok(ParamInput::Scalar { ty, range: None }),
        }
    }

    /// The default input of an array dummy argument: as many elements as its constant
    /// extents make, [`DEFAULT_VECTOR_LEN`] when an extent is not constant.
    fn array_input(&self, extents: &[Extent]) -> ParamInput {
        let len = extents
            .iter()
            .try_fold(1u64, |n, e| match e {
                Extent::Const(k) => n.checked_mul(*k),
                _ => None,
            })
            .filter(|&n| (1..=1 << 16).contains(&n))
            .map_or(DEFAULT_VECTOR_LEN, |n| n as usize);
        ParamInput::Array {
            elem: self.pointee.unwrap_or(Type::F64),
            len,
            range: None,
        }
    }

    /// The input of a parameter with a shape: its whole-parameter spec, then the specs
    /// of its fields (`p.mass in [0, 10]`, `p.n = 4`) in order.
    fn shaped(
        &self,
        shape: &ParamShape,
        whole: Option<&ArgSpec>,
        field_specs: &[(&str, &ArgSpec)],
    ) -> Result<ParamInput, SpecError> {
        if *shape == ParamShape::LongDouble && self.ty == Type::Ptr {
            return Ok(ParamInput::LongDoubleResult);
        }
        if *shape == ParamShape::LongDouble {
            return match whole.map(|s| &s.shape) {
                None => Ok(ParamInput::LongDouble { range: None }),
                Some(SpecShape::LongDouble { range })
                | Some(SpecShape::Input {
                    ty: None,
                    len: None,
                    range,
                }) => Ok(ParamInput::LongDouble { range: *range }),
                Some(_) => Err(self.mismatch("it is a long double: give `f80` or a range")),
            };
        }
        let (ty, len, range) = match whole.map(|s| &s.shape) {
            None => (None, None, None),
            Some(SpecShape::Input { ty, len, range }) => (*ty, *len, *range),
            Some(SpecShape::Fixed(_)) => {
                return Err(self.mismatch("a struct or vector cannot have a fixed value"))
            }
            Some(SpecShape::LongDouble { .. }) => return Err(self.mismatch("it is no long double")),
        };
        let s = match shape {
            ParamShape::Vector(elem) | ParamShape::Span(elem) => {
                if !field_specs.is_empty() {
                    return Err(self.mismatch("a vector or span has no fields"));
                }
                if ty.is_some_and(|t| t != *elem) {
                    return Err(self.mismatch(format!("it holds {elem}")));
                }
                let (elem, len) = (*elem, len.unwrap_or(DEFAULT_VECTOR_LEN));
                return Ok(match shape {
                    ParamShape::Span(_) => ParamInput::Array { elem, len, range },
                    _ => ParamInput::Vector { elem, len, range },
                });
            }
            ParamShape::Struct(s) => s,
            ParamShape::LongDouble => unreachable!("returned above"),
            ParamShape::ByReference | ParamShape::Array(_) => {
                return match whole {
                    Some(spec) => self.input_from(&spec.shape),
                    None => self.default_input(),
                }
            }
        };
        if ty.is_some() || len.is_some() {
            return Err(self.mismatch(format!("it is a {}: give ranges or fields", s.name)));
        }
        let mut fields = default_fields(s, range);
        for (path, spec) in field_specs {
            let below: Vec<&mut FieldInput> = fields
                .iter_mut()
                .filter(|f| is_below(&f.path, path))
                .collect();
            if below.is_empty() {
                let known: Vec<&str> = s.fields.iter().map(|f| f.path.as_str()).collect();
                return Err(self.mismatch(format!(
                    "{} has no field `{path}` (fields: {})",
                    s.name,
                    known.join(", ")
                )));
            }
            for field in below {
                field.value = match (&spec.shape, field.ty) {
                    (_, Type::Ptr) => {
                        return Err(self.mismatch(format!(
                            "`{}` is a pointer: only null is supported",
                            field.path
                        )))
                    }
                    (SpecShape::Fixed(text), ty) => FieldValue::Fixed(parse_value(text, ty)?),
                    (SpecShape::Input { ty: Some(t), .. }, ty) if *t != ty => {
                        return Err(self.mismatch(format!("`{}` is {ty}", field.path)))
                    }
                    (SpecShape::Input { len: Some(_), .. }, _) => {
                        return Err(self.mismatch(format!("`{}` is no pointer", field.path)))
                    }
                    (SpecShape::Input { range, .. }, _) => FieldValue::Input(*range),
                    (SpecShape::LongDouble { .. }, _) => {
                        return Err(self.mismatch(format!("`{}` is no long double", field.path)))
                    }
                };
            }
        }
        Ok(ParamInput::Struct {
            size: s.size,
            fields,
        })
    }

    fn input_from(&self, shape: &SpecShape) -> Result<ParamInput, SpecError> {
        match shape {
            SpecShape::LongDouble { .. } => Err(self.mismatch("it is no long double")),
            SpecShape::Fixed(text) => {
                if self.ty == Type::Ptr {
                    return Err(self.mismatch("a pointer cannot have a fixed value"));
                }
                Ok(ParamInput::Fixed {
                    ty: self.ty,
                    bits: parse_value(text, self.ty)?,
                })
            }
            SpecShape::Input { ty, len, range } => {
                if let Some(range) = range {
                    let elem = ty.or(self.pointee).unwrap_or(self.ty);
                    if !matches!(elem, Type::Float(_) | Type::Int(_)) {
                        return Err(self.mismatch("a range needs a number type"));
                    }
                    if range.lo > range.hi {
                        return Err(self.mismatch("the range is empty"));
                    }
                }
                match (self.ty, len) {
                    (Type::Ptr, Some(len)) => Ok(ParamInput::Array {
                        elem: self.pointee_type(*ty)?,
                        len: *len,
                        range: *range,
                    }),
                    (Type::Ptr, None) => Ok(ParamInput::Pointee {
                        ty: self.pointee_type(*ty)?,
                        range: *range,
                    }),
                    (_, Some(_)) => Err(self.mismatch("an array needs a pointer parameter")),
                    (own, None) => match ty {
                        Some(t) if *t != own => Err(self.mismatch(format!("the spec says {t}"))),
                        _ => Ok(ParamInput::Scalar {
                            ty: own,
                            range: *range,
                        }),
                    },
                }
            }
        }
    }

    /// The element type of a pointer parameter: the written one, which must agree with the
    /// declared pointee when the source says it.
    fn pointee_type(&self, written: Option<Type>) -> Result<Type, SpecError> {
        match (written, self.pointee) {
            (Some(Type::Ptr), _) | (None, Some(Type::Ptr)) => {
                Err(self
                    .mismatch("a pointer to a pointer cannot be an input; write a driver function"))
            }
            (Some(w), Some(p)) if w != p => {
                Err(self.mismatch(format!("the spec says {w} but the parameter points to {p}")))
            }
            (Some(w), _) => Ok(w),
            (None, p) => Ok(p.unwrap_or(Type::F64)),
        }
    }

    fn output(
        &self,
        spec: &OutArgSpec,
        default_len: Option<usize>,
    ) -> Result<ParamInput, SpecError> {
        if self.ty != Type::Ptr {
            return Err(self.mismatch("an output array needs a pointer parameter"));
        }
        let elem = self.pointee_type(spec.elem)?;
        // Without a length or an input array to take it from, the pointer is to one value.
        let len = spec.len.or(default_len).unwrap_or(1);
        Ok(ParamInput::Output { elem, len })
    }
}

/// A zero-filled output holding a struct the function fills (`--out-arg result` for a
/// `gsl_sf_result *result`): its fields' type when they all share one that divides the
/// size, else bytes.
fn struct_output(s: &StructShape) -> ParamInput {
    let first = s.fields.first().map(|f| f.ty);
    let bytes = first.map_or(0, |ty| ty.bytes() as u64);
    match first {
        Some(elem) if s.fields.iter().all(|f| f.ty == elem) && s.size.is_multiple_of(bytes) => {
            ParamInput::Output {
                elem,
                len: (s.size / bytes) as usize,
            }
        }
        _ => ParamInput::Output {
            elem: Type::I8,
            len: s.size as usize,
        },
    }
}

/// The words of a line of inputs: split at spaces outside brackets.
fn split_words(line: &str) -> Vec<&str> {
    let (mut words, mut depth, mut start) = (Vec::new(), 0i32, None);
    for (i, c) in line.char_indices() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            _ => {}
        }
        match (c.is_whitespace() && depth == 0, start) {
            (true, Some(s)) => {
                words.push(&line[s..i]);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    words.extend(start.map(|s| &line[s..]));
    words
}

/// The items of `[a,b,...]` (spaces allowed), or `None` when `word` is no array.
fn array_items(word: &str) -> Option<Vec<&str>> {
    let inner = word.strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    Some(inner.split(',').map(str::trim).collect())
}

/// The coordinate value (as the search sees it) of raw bits of type `ty`.
pub(crate) fn value_of(ty: Type, bits: u64) -> f64 {
    match ty {
        Type::Float(FloatTy::F64) => f64::from_bits(bits),
        Type::Float(FloatTy::F32) => f64::from(f32::from_bits(bits as u32)),
        Type::Int(_) => ty.sign_extend(bits) as f64,
        Type::Ptr => 0.0,
    }
}

/// The exact text of one value that `fpforge run` reads back: a C99 hex float, `raw:`
/// and the bits of a NaN, or a signed decimal integer.
pub fn value_text(ty: Type, bits: u64) -> String {
    match ty {
        Type::Float(ft) => format_exact(ft, bits),
        Type::Int(_) => ty.sign_extend(bits).to_string(),
        Type::Ptr => format!("{bits:#x}"),
    }
}

/// One value in decimal: a float as the shortest decimal that reads back as it (`inf`,
/// `nan`), anything else as [`value_text`] writes it.
pub fn decimal_text(ty: Type, bits: u64) -> String {
    let readable = |x: f64, shortest: String, scientific: String| {
        let plain = x == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&x.abs());
        if plain {
            shortest
        } else {
            scientific
        }
    };
    match ty.as_float() {
        Some(fpir::FloatTy::F32) => {
            let x = f32::from_bits(bits as u32);
            readable(f64::from(x), format!("{x}"), format!("{x:e}"))
        }
        Some(fpir::FloatTy::F64) => {
            let x = f64::from_bits(bits);
            readable(x, format!("{x}"), format!("{x:e}"))
        }
        None => value_text(ty, bits),
    }
}

/// Parses a scalar of type `ty` into its raw bits: floats in decimal, C99 hex, `inf`,
/// `nan` or `raw:` + hex bits; integers in decimal or `0x` hex, range-checked and
/// truncated to the width.
pub fn parse_value(text: &str, ty: Type) -> Result<u64, SpecError> {
    let bad = || SpecError::BadValue {
        text: text.to_string(),
        ty,
    };
    match ty {
        Type::Float(ft) => parse_float(ft, text.trim()).map_err(|_| bad()),
        Type::Int(_) => parse_int(text.trim(), ty).ok_or_else(bad),
        Type::Ptr => Err(bad()),
    }
}

/// An integer of type `ty` (an integer type): from its signed minimum to its unsigned
/// maximum, as the bits of the width.
fn parse_int(text: &str, ty: Type) -> Option<u64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u64>().ok()?,
    };
    let unsigned_max = ty.mask();
    let signed_min_magnitude = 1u64 << (ty.bits() - 1);
    if (negative && magnitude > signed_min_magnitude) || (!negative && magnitude > unsigned_max) {
        return None;
    }
    let value = if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    Some(value & unsigned_max)
}

fn syntax(text: &str, reason: &str) -> SpecError {
    SpecError::Syntax {
        text: text.to_string(),
        reason: reason.to_string(),
    }
}

/// Parses a type name: `f64`/`double`, `f32`/`float`, `i8`/`char`, `i16`/`short`,
/// `i32`/`int`, `i64`/`long`.
fn parse_type(text: &str) -> Option<Type> {
    Some(match text {
        "f64" | "double" => Type::Float(FloatTy::F64),
        "f32" | "float" => Type::Float(FloatTy::F32),
        "i8" | "char" => Type::I8,
        "i16" | "short" => Type::Int(16),
        "i32" | "int" => Type::I32,
        "i64" | "long" => Type::I64,
        _ => return None,
    })
}

/// Parses `TYPE` or `TYPE[N]`.
fn parse_type_and_len(full: &str, text: &str) -> Result<(Type, Option<usize>), SpecError> {
    let (name, len) = match text.split_once('[') {
        Some((name, rest)) => {
            let len_text = rest
                .strip_suffix(']')
                .ok_or_else(|| syntax(full, "missing `]` after the array length"))?;
            let len = len_text
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| syntax(full, "the array length must be a positive integer"))?;
            (name.trim(), Some(len))
        }
        None => (text.trim(), None),
    };
    let name = name
        .strip_prefix("vector<")
        .and_then(|n| n.strip_suffix('>'))
        .unwrap_or(name)
        .trim();
    let ty = parse_type(name).ok_or_else(|| {
        syntax(
            full,
            &format!("unknown type `{name}` (f64, f32, i8, i16, i32, i64)"),
        )
    })?;
    Ok((ty, len))
}

/// Parses `[LO, HI]`.
fn parse_range(full: &str, text: &str) -> Result<ValueRange, SpecError> {
    let inner = text
        .trim()
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| syntax(full, "a range is written `in [LO, HI]`"))?;
    let (lo, hi) = inner
        .split_once(',')
        .ok_or_else(|| syntax(full, "a range is written `in [LO, HI]`"))?;
    let bound = |t: &str| -> Result<f64, SpecError> {
        parse_float(FloatTy::F64, t.trim())
            .map(f64::from_bits)
            .ok()
            .filter(|v| !v.is_nan())
            .ok_or_else(|| syntax(full, &format!("`{}` is not a number", t.trim())))
    };
    let range = ValueRange {
        lo: bound(lo)?,
        hi: bound(hi)?,
    };
    if range.lo > range.hi {
        return Err(syntax(full, "the range is empty (LO > HI)"));
    }
    Ok(range)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
}

impl FromStr for ArgSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<ArgSpec, SpecError> {
        if let Some((name, value)) = text.split_once('=') {
            let name = name.trim();
            if !valid_name(name) || value.trim().is_empty() {
                return Err(syntax(text, "a fixed value is written `NAME = VALUE`"));
            }
            return Ok(ArgSpec {
                name: name.to_string(),
                shape: SpecShape::Fixed(value.trim().to_string()),
            });
        }
        let (head, range) = match text.split_once(" in ") {
            Some((head, range)) => (head, Some(parse_range(text, range)?)),
            None => (text, None),
        };
        let long_double = head
            .split_once(':')
            .filter(|(_, ty)| matches!(ty.trim(), "f80" | "long double"));
        if let Some((name, _)) = long_double {
            let name = name.trim();
            if !valid_name(name) {
                return Err(syntax(text, "expected `NAME: f80 in [LO, HI]`"));
            }
            return Ok(ArgSpec {
                name: name.to_string(),
                shape: SpecShape::LongDouble { range },
            });
        }
        let (name, ty, len) = match head.split_once(':') {
            Some((name, ty)) => {
                let (ty, len) = parse_type_and_len(text, ty)?;
                (name.trim(), Some(ty), len)
            }
            None => (head.trim(), None, None),
        };
        if !valid_name(name) {
            return Err(syntax(
                text,
                "expected `NAME: TYPE[N] in [LO, HI]`, `NAME in [LO, HI]` or `NAME = VALUE`",
            ));
        }
        if ty.is_none() && range.is_none() {
            return Err(syntax(text, "say a type (`NAME: f64`), a range or a value"));
        }
        Ok(ArgSpec {
            name: name.to_string(),
            shape: SpecShape::Input { ty, len, range },
        })
    }
}

impl FromStr for OutArgSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<OutArgSpec, SpecError> {
        let (name, elem, len) = match text.split_once(':') {
            Some((name, ty)) => {
                let (ty, len) = parse_type_and_len(text, ty)?;
                (name.trim(), Some(ty), len)
            }
            None => (text.trim(), None, None),
        };
        if !valid_name(name) {
            return Err(syntax(text, "expected `NAME` or `NAME: TYPE[N]`"));
        }
        Ok(OutArgSpec {
            name: name.to_string(),
            elem,
            len,
        })
    }
}

/// ` in [LO, HI]` with the bounds in the shortest decimal that reads back to the same
/// double, or nothing.
fn write_range(f: &mut fmt::Formatter<'_>, range: &Option<ValueRange>) -> fmt::Result {
    match range {
        Some(ValueRange { lo, hi }) => {
            let bound = |x: &f64| format_decimal(FloatTy::F64, x.to_bits());
            write!(f, " in [{}, {}]", bound(lo), bound(hi))
        }
        None => Ok(()),
    }
}

/// `: TYPE`, `: TYPE[N]` or nothing. A length without a type, which no text reads to,
/// is written `: [N]`, which reads back as an error rather than as another spec.
fn write_type_and_len(
    f: &mut fmt::Formatter<'_>,
    ty: Option<Type>,
    len: Option<usize>,
) -> fmt::Result {
    match (ty, len) {
        (Some(ty), Some(len)) => write!(f, ": {ty}[{len}]"),
        (Some(ty), None) => write!(f, ": {ty}"),
        (None, Some(len)) => write!(f, ": [{len}]"),
        (None, None) => Ok(()),
    }
}

impl fmt::Display for ArgSpec {
    /// The `--arg` text that [`ArgSpec::from_str`] reads back equal: `NAME = VALUE`,
    /// `NAME: f80`, `NAME: TYPE[N]`, `NAME in [LO, HI]`... (a `vector<T>[N]` reads as
    /// `T[N]`, so it is written so).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ArgSpec { name, shape } = self;
        f.write_str(name)?;
        match shape {
            SpecShape::Fixed(value) => write!(f, " = {value}"),
            SpecShape::LongDouble { range } => {
                f.write_str(": f80")?;
                write_range(f, range)
            }
            SpecShape::Input { ty, len, range } => {
                write_type_and_len(f, *ty, *len)?;
                write_range(f, range)
            }
        }
    }
}

impl fmt::Display for OutArgSpec {
    /// The `--out-arg` text that [`OutArgSpec::from_str`] reads back equal: `NAME`,
    /// `NAME: TYPE` or `NAME: TYPE[N]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let OutArgSpec { name, elem, len } = self;
        f.write_str(name)?;
        write_type_and_len(f, *elem, *len)
    }
}

impl fmt::Display for ParamInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = |r: &Option<ValueRange>| match r {
            Some(r) => format!(" in [{}, {}]", r.lo, r.hi),
            None => String::new(),
        };
        match self {
            ParamInput::Scalar { ty, range: r } => write!(f, "{ty}{}", range(r)),
            ParamInput::Pointee { ty, range: r } => write!(f, "*{ty}{}", range(r)),
            ParamInput::Array {
                elem,
                len,
                range: r,
            } => write!(f, "{elem}[{len}]{}", range(r)),
            ParamInput::Fixed { ty, bits } => write!(f, "{ty} = {bits:#x}"),
            ParamInput::Output { elem, len } => write!(f, "out {elem}[{len}]"),
            ParamInput::Vector {
                elem,
                len,
                range: r,
            } => write!(f, "vector<{elem}>[{len}]{}", range(r)),
            ParamInput::Struct { size, fields } => {
                write!(f, "struct of {size} bytes, {} fields", fields.len())
            }
            ParamInput::LongDouble { range: r } => write!(f, "f80{}", range(r)),
            ParamInput::LongDoubleExponent => write!(f, "(its exponent)"),
            ParamInput::LongDoubleResult => write!(f, "(long double result)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_reads_back_as_the_same_value() {
        let f64s = [0.1, -5.56e-309, 1e300, 1.5, -0.0, 123456.75, f64::INFINITY];
        for x in f64s {
            let text = decimal_text(Type::F64, x.to_bits());
            assert_eq!(
                text.parse::<f64>().unwrap().to_bits(),
                x.to_bits(),
                "{text}"
            );
        }
        assert_eq!(decimal_text(Type::F64, 0.1f64.to_bits()), "0.1");
        assert_eq!(decimal_text(Type::F64, 1e300f64.to_bits()), "1e300");
        assert_eq!(decimal_text(Type::F32, 0.1f32.to_bits().into()), "0.1");
        assert_eq!(decimal_text(Type::Int(32), u64::from(u32::MAX)), "-1");
    }

    #[test]
    fn parses_every_form() {
        let a: ArgSpec = "a: f64[8] in [-100, 100]".parse().unwrap();
        assert_eq!(a.name, "a");
        assert_eq!(
            a.shape,
            SpecShape::Input {
                ty: Some(Type::F64),
                len: Some(8),
                range: Some(ValueRange {
                    lo: -100.0,
                    hi: 100.0
                })
            }
        );
        let n: ArgSpec = "n = 8".parse().unwrap();
        assert_eq!(n.shape, SpecShape::Fixed("8".to_string()));
        let x: ArgSpec = "2 in [0x1p-3, inf]".parse().unwrap();
        assert_eq!(x.name, "2");
        let out: OutArgSpec = "b: f32[4]".parse().unwrap();
        assert_eq!((out.elem, out.len), (Some(Type::F32), Some(4)));
        let bare: OutArgSpec = "b".parse().unwrap();
        assert_eq!((bare.elem, bare.len), (None, None));
    }

    #[test]
    fn rejects_malformed_specs() {
        for bad in [
            "a",
            "a: f128",
            "a: f80[4]",
            "a: f64[0]",
            "a: f64[8",
            "a in [2, 1]",
            "a in 1, 2",
            "a in [x, 2]",
            "= 3",
            "a b: f64",
        ] {
            assert!(bad.parse::<ArgSpec>().is_err(), "{bad} should be rejected");
        }
        let long_double: ArgSpec = "a: f80 in [-1, 2]".parse().unwrap();
        assert_eq!(
            long_double.shape,
            SpecShape::LongDouble {
                range: Some(ValueRange { lo: -1.0, hi: 2.0 })
            }
        );
    }

    #[test]
    fn spec_texts_read_back_equal() {
        for (text, written) in [
            ("a: f64[8] in [-100, 100]", "a: f64[8] in [-100.0, 100.0]"),
            ("v: vector<f64>[16] in [-1, 1]", "v: f64[16] in [-1.0, 1.0]"),
            ("x in [0x1p-3, inf]", "x in [0.125, inf]"),
            ("2 in [-0, 1e300]", "2 in [-0.0, 1e300]"),
            ("x: double", "x: f64"),
            ("n = 8", "n = 8"),
            ("p.pos[0] = 0x1p-2", "p.pos[0] = 0x1p-2"),
            ("t: long double in [1, 2]", "t: f80 in [1.0, 2.0]"),
            ("t: f80", "t: f80"),
        ] {
            let spec: ArgSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), written, "{text}");
            let again: ArgSpec = written.parse().unwrap();
            assert_eq!(again, spec, "{text}");
        }
        for (text, written) in [
            ("b", "b"),
            ("b: float[4]", "b: f32[4]"),
            ("2: i32", "2: i32"),
        ] {
            let spec: OutArgSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), written, "{text}");
            assert_eq!(written.parse::<OutArgSpec>().unwrap(), spec, "{text}");
        }
        let no_type = ArgSpec {
            name: "a".to_string(),
            shape: SpecShape::Input {
                ty: None,
                len: Some(4),
                range: None,
            },
        };
        assert!(
            no_type.to_string().parse::<ArgSpec>().is_err(),
            "a length without a type reads as no other spec"
        );
    }

    proptest::proptest! {
        #[test]
        fn every_spec_text_reads_back_to_its_spec(
            name in "[a-z_][a-z0-9_]{0,6}(\\.[a-z]{1,3})?|[1-9]",
            shape in 0..4u8,
            ty in proptest::sample::select(vec![Type::F64, Type::F32, Type::I8, Type::Int(16), Type::I32, Type::I64]),
            len in proptest::option::of(1..100usize),
            bounds in proptest::option::of((proptest::num::f64::ANY, proptest::num::f64::ANY)),
            value in "[0-9a-z.+-]{1,8}",
        ) {
            let range = bounds
                .filter(|(lo, hi)| !lo.is_nan() && !hi.is_nan())
                .map(|(lo, hi)| ValueRange { lo: lo.min(hi), hi: lo.max(hi) });
            let shape = match shape {
                0 => SpecShape::Fixed(value),
                1 => SpecShape::LongDouble { range },
                2 => SpecShape::Input { ty: Some(ty), len, range },
                _ => SpecShape::Input { ty: None, len: None, range: range.or(Some(ValueRange { lo: 0.0, hi: 1.0 })) },
            };
            let spec = ArgSpec { name: name.clone(), shape };
            let text = spec.to_string();
            let again: ArgSpec = text.parse().unwrap();
            proptest::prop_assert_eq!(again.to_string(), text.clone(), "signed zeros kept");
            proptest::prop_assert_eq!(again, spec);
            let out = OutArgSpec { name, elem: Some(ty), len };
            proptest::prop_assert_eq!(out.to_string().parse::<OutArgSpec>().unwrap(), out);
        }
    }

    #[test]
    fn values_are_range_checked_and_truncated() {
        assert_eq!(parse_value("-1", Type::I32).unwrap(), 0xffff_ffff);
        assert_eq!(parse_value("0x10", Type::I8).unwrap(), 16);
        assert!(parse_value("256", Type::I8).is_err());
        assert!(parse_value("-129", Type::I8).is_err());
        assert_eq!(parse_value("-128", Type::I8).unwrap(), 0x80);
        assert!(parse_value("1.5", Type::I32).is_err());
        assert_eq!(parse_value("0x1.8p+1", Type::F64).unwrap(), 3f64.to_bits());
    }

    #[test]
    fn integers_of_every_width_print_and_parse_back() {
        for width in 1..=64u8 {
            let ty = Type::Int(width);
            let w = u32::from(width);
            let signed_min = -(1i128 << (w - 1));
            let unsigned_max = (1i128 << w) - 1;
            for value in [signed_min, -1, 0, 1, unsigned_max] {
                let bits = parse_value(&value.to_string(), ty)
                    .unwrap_or_else(|e| panic!("{value} at i{width}: {e}"));
                assert_eq!(bits, (value as u64) & ty.mask(), "{value} at i{width}");
                let text = value_text(ty, bits);
                assert_eq!(parse_value(&text, ty), Ok(bits), "{text} at i{width}");
                assert!(i128::from(ty.sign_extend(bits)) >= signed_min);
            }
            for outside in [signed_min - 1, unsigned_max + 1] {
                assert!(
                    parse_value(&outside.to_string(), ty).is_err(),
                    "{outside} at i{width}"
                );
            }
        }
    }
}
