//! The arguments of one call, read from text (`fpforge run`'s command line): the one
//! text-to-arguments mapping of a call, beside [`crate::spec`]'s of a search's
//! coordinates, whose value and struct readers it uses.
//!
//! Floats accept decimal, C99 hex (`0x1.8p+1`), `inf`/`-inf`/`nan` and `raw:` + hex bits;
//! integers accept decimal or `0x` hex; arrays are `[v, v, ...]` and are passed by
//! pointer to the pointee type the function's parameter declares; a parameter the module
//! gives a shape takes a struct `{field: value, ...}` or a vector `[v, v, ...]`; a Fortran
//! dummy argument (passed by reference) a plain value or an array.

use crate::spec::{parse_f80, parse_value, shaped_arg};
use crate::{Arg, SpecError};
use fpir::{Func, Function, Module, ParamShape, Type};

/// A call's result.
type Result<T> = std::result::Result<T, SpecError>;

/// An error about one argument text.
fn bad(reason: String) -> SpecError {
    SpecError::BadLine { reason }
}

/// Parses the text of one argument for a parameter of type `ty` (with optional pointee).
pub fn parse_arg(text: &str, ty: Type, pointee: Option<Type>) -> Result<Arg> {
    let trimmed = text.trim();
    if let Some(inner) = trimmed.strip_prefix('[') {
        let Some(inner) = inner.strip_suffix(']') else {
            return Err(bad(format!("array `{text}` has no closing `]`")));
        };
        if ty != Type::Ptr {
            return Err(bad(format!(
                "`{text}` is an array but the parameter is {ty}"
            )));
        }
        let elem = pointee.unwrap_or(Type::F64);
        let values = inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|item| parse_scalar(item, elem))
            .collect::<Result<Vec<u64>>>()?;
        return Ok(Arg::Array { elem, values });
    }
    if ty == Type::Ptr {
        let elem = pointee.unwrap_or(Type::F64);
        let value = parse_scalar(trimmed, elem).map_err(|e| {
            bad(format!(
                "pointer parameter: give an array like `[{trimmed}]`: {e}"
            ))
        })?;
        return Ok(Arg::Array {
            elem,
            values: vec![value],
        });
    }
    Ok(Arg::Scalar(parse_scalar(trimmed, ty)?))
}

/// The argument of a parameter passed by reference (a Fortran dummy argument): an
/// array `[v, ...]`, or a plain value passed as a one-element array.
fn reference_arg(text: &str, pointee: Option<Type>) -> Result<Arg> {
    if text.trim().starts_with('[') {
        return parse_arg(text, Type::Ptr, pointee);
    }
    let elem = pointee.unwrap_or(Type::F64);
    Ok(Arg::Array {
        elem,
        values: vec![parse_scalar(text.trim(), elem)?],
    })
}

/// Parses a scalar of type `ty` into its raw bits (integers truncated to the width
/// after a range check).
pub fn parse_scalar(text: &str, ty: Type) -> Result<u64> {
    if ty == Type::Ptr {
        return Err(bad(format!("cannot pass `{text}` as a raw pointer")));
    }
    parse_value(text, ty)
}

/// The arguments of a call of `entry` in `module`, read from `texts` (a hidden
/// struct-result buffer first, when the function has one).
pub fn call_args(module: &Module, entry: Func, texts: &[String]) -> Result<Vec<Arg>> {
    let func = &module.funcs[entry];
    let types = func.param_types();
    let hidden = func.sret_elem();
    let visible = visible_params(module, entry);
    if texts.len() != visible.len() {
        return Err(bad(format!(
            "`{}` takes {} argument(s) ({}), {} given",
            func.display_name(),
            visible.len(),
            signature(module, entry),
            texts.len()
        )));
    }
    let result_buffer = hidden.map(|elem| Arg::Array {
        elem,
        values: vec![0; (Function::SRET_BYTES / elem.bytes()) as usize],
    });
    let mut args: Vec<Arg> = result_buffer.into_iter().collect();
    for (i, (text, &index)) in texts.iter().zip(&visible).enumerate() {
        let ty = types[index];
        let pointee = func.param_pointees.get(index).copied().flatten();
        let name = func.param_names[index].as_deref().unwrap_or("");
        let context = |e: SpecError| {
            bad(format!(
                "argument {} of `{}`: {e}",
                i + 1,
                func.display_name()
            ))
        };
        match module.param_shapes.get(&(entry, index)) {
            Some(ParamShape::LongDouble) => {
                let x = parse_f80(name, text).map_err(context)?;
                args.extend([Arg::Scalar(x.sig), Arg::Scalar(u64::from(x.se))]);
            }
            Some(ParamShape::ByReference | ParamShape::Array(_)) => {
                args.push(reference_arg(text, pointee).map_err(context)?)
            }
            Some(shape) => args.push(shaped_arg(name, shape, text).map_err(context)?),
            None => args.push(parse_arg(text, ty, pointee).map_err(context)?),
        }
    }
    Ok(args)
}

/// The parameters a caller writes, by index: not the hidden result slot, nor the
/// exponent half of a `long double` (its significand's parameter stands for both).
fn visible_params(module: &Module, func: Func) -> Vec<usize> {
    let f = &module.funcs[func];
    let first_visible = usize::from(f.sret_elem().is_some());
    let is_long_double =
        |i: usize| module.param_shapes.get(&(func, i)) == Some(&ParamShape::LongDouble);
    (first_visible..f.param_types().len())
        .filter(|&i| !(i > 0 && is_long_double(i - 1) && f.param_types()[i - 1] == Type::I64))
        .collect()
}

/// `x: f64, a: ptr<f64>` for error messages.
fn signature(module: &Module, func: Func) -> String {
    let f = &module.funcs[func];
    let types = f.param_types();
    visible_params(module, func)
        .into_iter()
        .map(|i| (i, &types[i]))
        .map(|(i, ty)| {
            let name = f
                .param_names
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("arg{}", i + 1));
            match (
                f.param_pointees.get(i).copied().flatten(),
                module.param_shapes.get(&(func, i)),
            ) {
                (_, Some(ParamShape::LongDouble)) => format!("{name}: f80"),
                (Some(p), Some(ParamShape::ByReference)) => format!("{name}: {p}"),
                (Some(p), Some(ParamShape::Array(_))) => format!("{name}: {p}[]"),
                (Some(p), _) => format!("{name}: {p}*"),
                (None, _) => format!("{name}: {ty}"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_range_checked_and_truncated() {
        assert_eq!(parse_scalar("-1", Type::I32).unwrap(), 0xffff_ffff);
        assert_eq!(parse_scalar("0x10", Type::I8).unwrap(), 16);
        assert!(parse_scalar("256", Type::I8).is_err());
        assert!(parse_scalar("-129", Type::I8).is_err());
        assert_eq!(parse_scalar("-128", Type::I8).unwrap(), 0x80);
        assert!(parse_scalar("1.5", Type::I32).is_err());
    }

    #[test]
    fn arrays_take_the_pointee_type() {
        let arg = parse_arg("[1.5, 0x1p-3, -inf]", Type::Ptr, Some(Type::F32)).unwrap();
        let Arg::Array { elem, values } = arg else {
            panic!("expected an array")
        };
        assert_eq!(elem, Type::F32);
        assert_eq!(
            values,
            vec![
                u64::from(1.5f32.to_bits()),
                u64::from(0.125f32.to_bits()),
                u64::from(f32::NEG_INFINITY.to_bits())
            ]
        );
        assert!(parse_arg("[1, 2", Type::Ptr, None).is_err());
        assert!(parse_arg("[1]", Type::F64, None).is_err());
    }
}
