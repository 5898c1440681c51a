//! Scalar types and the memory layout of LLVM types (x86-64 System V data layout).
//!
//! fpir registers hold scalars only; aggregates live in memory, so lowering needs every
//! type's size, alignment and field offsets. They follow the data layout clang-14 emits
//! for `x86_64-pc-linux-gnu` (`e-m:e-i64:64-f80:128-n8:16:32:64-S128`): integers are
//! aligned to their size rounded up to a power of two (at most 8, so `i128` is 8-aligned
//! as in LLVM 14), `double` and pointers to 8, `x86_fp80` and `fp128` take 16 bytes
//! aligned to 16, structs pad each field to its alignment (packed structs do not), and
//! every allocation size is rounded up to the type's alignment.

use llvm_ir::types::{FPType, NamedStructDef, Types};
use llvm_ir::{Type, TypeRef};

/// Size and alignment of a type in memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct SizeAlign {
    /// Allocation size in bytes (a multiple of `align`).
    pub size: u64,
    /// ABI alignment in bytes.
    pub align: u32,
}

/// The fpir register type of an LLVM first-class scalar type, if it has one.
pub(crate) fn scalar(ty: &Type) -> Option<fpir::Type> {
    match ty {
        Type::IntegerType { bits } if (1..=64).contains(bits) => {
            Some(fpir::Type::Int(u8::try_from(*bits).ok()?))
        }
        Type::FPType(FPType::Single) => Some(fpir::Type::F32),
        Type::FPType(FPType::Double) => Some(fpir::Type::F64),
        Type::PointerType { .. } => Some(fpir::Type::Ptr),
        _ => None,
    }
}

/// The scalar type every element of a small aggregate shares (`{double, double}`,
/// `<2 x float>`, `[2 x i32]`), if there is one.
pub(crate) fn uniform_element(ty: &Type) -> Option<fpir::Type> {
    match ty {
        Type::StructType { element_types, .. } => {
            let first = scalar(element_types.first()?)?;
            element_types
                .iter()
                .all(|t| scalar(t) == Some(first))
                .then_some(first)
        }
        Type::VectorType { element_type, .. } | Type::ArrayType { element_type, .. } => {
            scalar(element_type)
        }
        _ => None,
    }
}

/// Names a type fpir registers cannot hold, for error messages ("x86_fp80 (long
/// double)"); callers add what it is ("value", "result", "parameter").
pub(crate) fn describe_unsupported(ty: &Type) -> String {
    match ty {
        Type::IntegerType { bits } => format!("{bits}-bit integer (wider than 64 bits)"),
        Type::FPType(FPType::X86_FP80) => "x86_fp80 (long double)".to_string(),
        Type::FPType(FPType::FP128) => "fp128 (__float128)".to_string(),
        Type::FPType(ft) => format!("{ft} floating-point"),
        Type::VectorType { .. } => format!("vector {ty}"),
        Type::StructType { .. } | Type::NamedStructType { .. } | Type::ArrayType { .. } => {
            format!("by-value struct or array {ty}")
        }
        _ => format!("{ty}"),
    }
}

/// Computes layouts; needs the module's named struct definitions.
pub(crate) struct Layout<'m> {
    types: &'m Types,
}

impl<'m> Layout<'m> {
    /// A layout oracle for the module whose types are `types`.
    pub fn new(types: &'m Types) -> Self {
        Layout { types }
    }

    /// The element types and packing of a struct type (named or literal).
    pub fn struct_fields<'t>(&self, ty: &'t Type) -> Result<(&'t [TypeRef], bool), String>
    where
        'm: 't,
    {
        match ty {
            Type::StructType {
                element_types,
                is_packed,
            } => Ok((element_types, *is_packed)),
            Type::NamedStructType { name } => match self.types.named_struct_def(name) {
                Some(NamedStructDef::Defined(def)) => match def.as_ref() {
                    Type::StructType {
                        element_types,
                        is_packed,
                    } => Ok((element_types, *is_packed)),
                    other => Err(format!("struct %{name} is defined as {other}")),
                },
                Some(NamedStructDef::Opaque) | None => {
                    Err(format!("opaque struct %{name} has no known layout"))
                }
            },
            other => Err(format!("{other} is not a struct")),
        }
    }

    /// Size and alignment of `ty` in memory.
    pub fn size_align(&self, ty: &Type) -> Result<SizeAlign, String> {
        let (size, align) = match ty {
            Type::IntegerType { bits } => {
                let store = u64::from(*bits).div_ceil(8);
                let align = store.next_power_of_two().min(8);
                (store, align as u32)
            }
            Type::FPType(FPType::Half | FPType::BFloat) => (2, 2),
            Type::FPType(FPType::Single) => (4, 4),
            Type::FPType(FPType::Double) => (8, 8),
            Type::FPType(FPType::X86_FP80 | FPType::FP128 | FPType::PPC_FP128) => (16, 16),
            Type::PointerType { .. } => (8, 8),
            Type::ArrayType {
                element_type,
                num_elements,
            } => {
                let elem = self.size_align(element_type)?;
                let n = u64::try_from(*num_elements).map_err(|e| e.to_string())?;
                let size = elem
                    .size
                    .checked_mul(n)
                    .ok_or_else(|| format!("array type {ty} is too large"))?;
                (size, elem.align)
            }
            Type::VectorType {
                element_type,
                num_elements,
                scalable: false,
            } => {
                let elem = self.size_align(element_type)?;
                let size = elem.size * (*num_elements as u64);
                (size, size.next_power_of_two().min(64) as u32)
            }
            Type::StructType { .. } | Type::NamedStructType { .. } => {
                let (fields, packed) = self.struct_fields(ty)?;
                let (_, sa) = self.struct_layout(fields, packed)?;
                return Ok(sa);
            }
            other => return Err(format!("type {other} has no size")),
        };
        Ok(SizeAlign {
            size: size.next_multiple_of(u64::from(align)),
            align,
        })
    }

    /// Field offsets and the overall size/alignment of a struct.
    pub fn struct_layout(
        &self,
        fields: &[TypeRef],
        packed: bool,
    ) -> Result<(Vec<u64>, SizeAlign), String> {
        let mut offsets = Vec::with_capacity(fields.len());
        let mut offset = 0u64;
        let mut align = 1u32;
        for field in fields {
            let sa = self.size_align(field)?;
            let field_align = if packed { 1 } else { sa.align };
            offset = offset.next_multiple_of(u64::from(field_align));
            offsets.push(offset);
            offset += sa.size;
            align = align.max(field_align);
        }
        Ok((
            offsets,
            SizeAlign {
                size: offset.next_multiple_of(u64::from(align)),
                align,
            },
        ))
    }

    /// The byte offset and type of field `index` of struct type `ty`.
    pub fn field<'t>(&self, ty: &'t Type, index: u64) -> Result<(u64, &'t TypeRef), String>
    where
        'm: 't,
    {
        let (fields, packed) = self.struct_fields(ty)?;
        let (offsets, _) = self.struct_layout(fields, packed)?;
        let i = usize::try_from(index).map_err(|e| e.to_string())?;
        match (offsets.get(i), fields.get(i)) {
            (Some(&off), Some(field)) => Ok((off, field)),
            _ => Err(format!("field index {index} is out of range for {ty}")),
        }
    }
}

/// One `getelementptr` index.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GepIndex {
    /// A constant index, sign-extended.
    Const(i64),
    /// An index held in a register (sign-extended at run time).
    Var(fpir::Reg),
}

/// The constant byte offset and variable terms of a `getelementptr` whose first index
/// steps over `source` (the pointee type) and whose later indices walk into it.
pub(crate) fn gep_offsets(
    layout: &Layout<'_>,
    source: &Type,
    indices: &[GepIndex],
) -> Result<(i64, Vec<fpir::IndexTerm>), String> {
    let mut offset = 0i64;
    let mut terms = Vec::new();
    let mut ty = source;
    for (i, idx) in indices.iter().enumerate() {
        let scale = if i == 0 {
            layout.size_align(ty)?.size
        } else {
            match ty {
                Type::ArrayType { element_type, .. } | Type::VectorType { element_type, .. } => {
                    ty = element_type;
                    layout.size_align(ty)?.size
                }
                Type::StructType { .. } | Type::NamedStructType { .. } => {
                    let GepIndex::Const(field) = *idx else {
                        return Err("getelementptr into a struct with a variable index".into());
                    };
                    let (off, field_ty) = layout.field(ty, field as u64)?;
                    ty = field_ty;
                    offset = offset.wrapping_add(off as i64);
                    continue;
                }
                other => return Err(format!("getelementptr into non-aggregate type {other}")),
            }
        };
        let scale = scale as i64;
        match *idx {
            GepIndex::Const(k) => offset = offset.wrapping_add(k.wrapping_mul(scale)),
            GepIndex::Var(index) if scale != 0 => terms.push(fpir::IndexTerm { index, scale }),
            GepIndex::Var(_) => {}
        }
    }
    Ok((offset, terms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use llvm_ir::types::FPType;

    fn layout_of(ir: &str, global: &str) -> (SizeAlign, Vec<u64>) {
        let module = llvm_ir::Module::from_ir_str(ir).expect("valid IR");
        let layout = Layout::new(&module.types);
        let g = module
            .global_vars
            .iter()
            .find(|g| g.name == llvm_ir::Name::from(global))
            .expect("global");
        let Type::PointerType { pointee_type, .. } = g.ty.as_ref() else {
            panic!("globals are pointers");
        };
        let sa = layout.size_align(pointee_type).expect("sized");
        let offsets = match layout.struct_fields(pointee_type) {
            Ok((fields, packed)) => layout.struct_layout(fields, packed).expect("laid out").0,
            Err(_) => Vec::new(),
        };
        (sa, offsets)
    }

    #[test]
    fn structs_pad_fields_and_packed_structs_do_not() {
        let ir = "%s = type { i8, double, [3 x i32] }\n\
                  %p = type <{ i8, double, i32 }>\n\
                  %n = type { %s, i16 }\n\
                  @s = global %s zeroinitializer\n\
                  @p = global %p zeroinitializer\n\
                  @n = global %n zeroinitializer\n\
                  @w = global { i24, i128, x86_fp80 } zeroinitializer\n";
        let sa = |size, align| SizeAlign { size, align };
        assert_eq!(layout_of(ir, "s"), (sa(32, 8), vec![0, 8, 16]));
        assert_eq!(layout_of(ir, "p"), (sa(13, 1), vec![0, 1, 9]));
        assert_eq!(layout_of(ir, "n"), (sa(40, 8), vec![0, 32]));
        assert_eq!(layout_of(ir, "w"), (sa(48, 16), vec![0, 8, 32]));
    }

    #[test]
    fn scalars_map_to_fpir_types() {
        assert_eq!(
            scalar(&Type::IntegerType { bits: 1 }),
            Some(fpir::Type::BOOL)
        );
        assert_eq!(scalar(&Type::IntegerType { bits: 65 }), None);
        assert_eq!(scalar(&Type::FPType(FPType::Single)), Some(fpir::Type::F32));
        assert_eq!(scalar(&Type::FPType(FPType::X86_FP80)), None);
    }
}
