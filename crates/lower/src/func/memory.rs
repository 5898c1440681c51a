//! Memory and addresses: `alloca`, `load`, `store`, `getelementptr`, and the aggregate
//! and vector values, which live in memory (see [`super`]).

use super::FnLower;
use crate::consts::{int_type, int_width, Folded};
use crate::error::LowerError;
use crate::layout::{gep_offsets, scalar, GepIndex};
use fpir::{Builtin, Callee, Const, InstKind, Reg, Type};
use llvm_ir::instruction;
use llvm_ir::{Constant, Name, Operand, TypeRef};

impl<'c, 'm> FnLower<'c, 'm> {
    /// Emits `memcpy(dst, src, size)`.
    fn memcpy(&mut self, dst: Reg, src: Reg, size: u64) {
        let len = self.const_reg(Type::I64, Const::Bits(size));
        self.push(
            None,
            InstKind::Call {
                callee: Callee::Builtin(Builtin::Memcpy),
                args: vec![dst, src, len],
            },
        );
    }

    /// Emits a fresh stack slot for a value of type `ty`.
    pub(super) fn slot(&mut self, ty: &llvm_ir::Type) -> Result<Reg, LowerError> {
        let sa = self.mem_layout(ty)?;
        Ok(self.emit(
            Type::Ptr,
            InstKind::Alloca {
                size: sa.size,
                count: None,
                align: sa.align,
            },
        ))
    }

    /// The byte offset and type of the element at constant `indices` inside `ty`.
    pub(super) fn element_at(
        &mut self,
        ty: &TypeRef,
        indices: &[u32],
    ) -> Result<(u64, TypeRef), LowerError> {
        let mut offset = 0u64;
        let mut ty = ty.clone();
        for &i in indices {
            let next = match ty.as_ref() {
                llvm_ir::Type::ArrayType { element_type, .. }
                | llvm_ir::Type::VectorType { element_type, .. } => {
                    let size = self.mem_layout(element_type)?.size;
                    offset = offset.wrapping_add(size.wrapping_mul(u64::from(i)));
                    element_type.clone()
                }
                _ => {
                    let (off, field) = match self.symbols.layout.field(&ty, u64::from(i)) {
                        Ok((off, field)) => (off, field.clone()),
                        Err(e) => return Err(self.unsupported(e)),
                    };
                    offset = offset.wrapping_add(off);
                    field
                }
            };
            ty = next;
        }
        Ok((offset, ty))
    }

    /// Defines `dest` as a fresh stack slot for a value of type `ty`.
    pub(super) fn slot_for(&mut self, dest: &'m Name, ty: &TypeRef) -> Result<Reg, LowerError> {
        let sa = self.mem_layout(ty)?;
        let r = self.value(dest, ty)?;
        self.push(
            Some(r),
            InstKind::Alloca {
                size: sa.size,
                count: None,
                align: sa.align,
            },
        );
        Ok(r)
    }

    /// Writes `value` (of LLVM type `ty`) to `addr`.
    pub(super) fn write_value(
        &mut self,
        ty: &TypeRef,
        addr: Reg,
        value: Reg,
    ) -> Result<(), LowerError> {
        match scalar(ty) {
            Some(t) => {
                self.push(None, InstKind::Store { ty: t, addr, value });
                Ok(())
            }
            None => {
                let size = self.mem_layout(ty)?.size;
                self.memcpy(addr, value, size);
                Ok(())
            }
        }
    }

    /// `base + offset` as a register (the base itself when the offset is 0).
    pub(super) fn offset_addr(&mut self, base: Reg, offset: u64) -> Reg {
        if offset == 0 {
            return base;
        }
        self.emit(
            Type::Ptr,
            InstKind::PtrOffset {
                base,
                offset: offset as i64,
                terms: Vec::new(),
            },
        )
    }

    /// Defines `dest` as the element of type `ty` at `base + offset + terms`: a load for
    /// scalars, the address itself for values held in memory.
    fn read_at(
        &mut self,
        dest: &'m Name,
        ty: &TypeRef,
        base: Reg,
        offset: i64,
        terms: Vec<fpir::IndexTerm>,
    ) -> Result<(), LowerError> {
        let place = InstKind::PtrOffset {
            base,
            offset,
            terms,
        };
        match scalar(ty) {
            Some(t) => {
                let addr = match place {
                    InstKind::PtrOffset {
                        base,
                        offset: 0,
                        ref terms,
                    } if terms.is_empty() => base,
                    place => self.emit(Type::Ptr, place),
                };
                self.define(dest, ty, InstKind::Load { ty: t, addr })
            }
            None => self.define(dest, ty, place),
        }
    }

    /// Defines `dest` as a new slot holding a copy of `original` (for `insertvalue` and
    /// `insertelement`; an `undef` original is not copied).
    fn copy_for_insert(
        &mut self,
        dest: &'m Name,
        original: &'m Operand,
        ty: &TypeRef,
    ) -> Result<Reg, LowerError> {
        let slot = self.slot_for(dest, ty)?;
        if !matches!(
            original.as_constant(),
            Some(Constant::Undef(_) | Constant::Poison(_))
        ) {
            let size = self.mem_layout(ty)?.size;
            let src = self.operand(original)?;
            self.memcpy(slot, src, size);
        }
        Ok(slot)
    }

    /// The place of element `index` of a vector of type `ty`: constant offset, variable
    /// terms, and the element type.
    fn vector_index(
        &mut self,
        ty: &TypeRef,
        index: &'m Operand,
    ) -> Result<(i64, Vec<fpir::IndexTerm>, TypeRef), LowerError> {
        let llvm_ir::Type::VectorType { element_type, .. } = ty.as_ref() else {
            return Err(self.malformed(format!("vector operation on {ty}")));
        };
        let elem = element_type.clone();
        let size = self.mem_layout(&elem)?.size as i64;
        if let Some(Constant::Int { value, bits }) = index.as_constant() {
            let index = int_type(*bits).sign_extend(*value);
            return Ok((index.wrapping_mul(size), Vec::new(), elem));
        }
        let index = self.operand(index)?;
        Ok((0, vec![fpir::IndexTerm { index, scale: size }], elem))
    }

    /// `alloca`: a stack slot of the allocated type (times the count).
    pub(super) fn alloca(&mut self, a: &'m instruction::Alloca) -> Result<(), LowerError> {
        let sa = self
            .symbols
            .layout
            .size_align(&a.allocated_type)
            .map_err(|e| self.unsupported(e))?;
        let count = match a.num_elements.as_constant() {
            Some(Constant::Int { value: 1, .. }) => None,
            _ => Some(self.operand(&a.num_elements)?),
        };
        let align = if a.alignment > 0 {
            a.alignment
        } else {
            sa.align
        };
        let ptr = self.symbols.llvm.types.pointer_to(a.allocated_type.clone());
        self.define(
            &a.dest,
            &ptr,
            InstKind::Alloca {
                size: sa.size,
                count,
                align,
            },
        )
    }

    /// `load`: a scalar load, or a private copy of an aggregate value. An atomic load
    /// is a plain one: a run has one thread (C++ reads a static's guard with one).
    pub(super) fn load(&mut self, l: &'m instruction::Load) -> Result<(), LowerError> {
        let loaded = match self.type_of(&l.address).as_ref() {
            llvm_ir::Type::PointerType { pointee_type, .. } => pointee_type.clone(),
            _ => return Err(self.unsupported("load through a vector of pointers")),
        };
        if scalar(&loaded).is_none() && self.is_mem(&loaded) {
            // An aggregate value: a private copy of the bytes.
            let addr = self.operand(&l.address)?;
            let size = self.mem_layout(&loaded)?.size;
            let slot = self.slot_for(&l.dest, &loaded)?;
            self.memcpy(slot, addr, size);
            return Ok(());
        }
        let ty = self.scalar_ty(&loaded)?;
        let addr = self.operand(&l.address)?;
        self.define(&l.dest, &loaded, InstKind::Load { ty, addr })
    }

    /// `store`: a scalar store, or a copy of an aggregate value; atomic or not (one
    /// thread).
    pub(super) fn store(&mut self, s: &'m instruction::Store) -> Result<(), LowerError> {
        let value_ty = self.type_of(&s.value);
        if scalar(&value_ty).is_none() && self.is_mem(&value_ty) {
            let value = self.operand(&s.value)?;
            let addr = self.operand(&s.address)?;
            return self.write_value(&value_ty, addr, value);
        }
        let ty = self.operand_ty(&s.value)?;
        let value = self.operand(&s.value)?;
        let addr = self.operand(&s.address)?;
        self.push(None, InstKind::Store { ty, addr, value });
        Ok(())
    }

    /// `getelementptr`: a constant offset plus scaled index terms.
    pub(super) fn gep(&mut self, g: &'m instruction::GetElementPtr) -> Result<(), LowerError> {
        let addr_ty = self.operand_ty(&g.address)?;
        if addr_ty != Type::Ptr {
            return Err(self.unsupported("getelementptr on a vector of pointers"));
        }
        let base = self.operand(&g.address)?;
        let mut indices = Vec::with_capacity(g.indices.len());
        for idx in &g.indices {
            let index_ty = int_type(int_width(&self.type_of(idx)));
            let folded = match idx.as_constant() {
                Some(c) => self.symbols.fold(c).map_err(|e| self.unsupported(e))?,
                None => None,
            };
            indices.push(match folded {
                Some(Folded::Bits(b)) => GepIndex::Const(index_ty.sign_extend(b)),
                _ => {
                    let r = self.operand(idx)?;
                    if !self.regs[r].is_int() {
                        return Err(self.unsupported("getelementptr with a vector index"));
                    }
                    GepIndex::Var(r)
                }
            });
        }
        let (offset, terms) = gep_offsets(&self.symbols.layout, &g.source_element_type, &indices)
            .map_err(|e| self.unsupported(e))?;
        if offset == 0 && terms.is_empty() && !self.values.contains_key(&g.dest) {
            // `gep p, 0` is `p` under another name.
            self.values.insert(&g.dest, base);
            return Ok(());
        }
        let llty = self.type_of(&g.address);
        let ptr = match llty.as_ref() {
            llvm_ir::Type::PointerType { .. } => llty.clone(),
            _ => return Err(self.unsupported("getelementptr on a non-pointer")),
        };
        self.define(
            &g.dest,
            &ptr,
            InstKind::PtrOffset {
                base,
                offset,
                terms,
            },
        )
    }

    /// `extractvalue`: a read at the element's offset.
    pub(super) fn extract_value(
        &mut self,
        e: &'m instruction::ExtractValue,
    ) -> Result<(), LowerError> {
        let agg_ty = self.type_of(&e.aggregate);
        let base = self.operand(&e.aggregate)?;
        let (offset, elem_ty) = self.element_at(&agg_ty, &e.indices)?;
        self.read_at(&e.dest, &elem_ty, base, offset as i64, Vec::new())
    }

    /// `insertvalue`: a copy of the aggregate with the element written.
    pub(super) fn insert_value(
        &mut self,
        iv: &'m instruction::InsertValue,
    ) -> Result<(), LowerError> {
        let agg_ty = self.type_of(&iv.aggregate);
        let slot = self.copy_for_insert(&iv.dest, &iv.aggregate, &agg_ty)?;
        let (offset, elem_ty) = self.element_at(&agg_ty, &iv.indices)?;
        let addr = self.offset_addr(slot, offset);
        let value = self.operand(&iv.element)?;
        self.write_value(&elem_ty, addr, value)
    }

    /// `extractelement`: a read at the element's (possibly variable) offset.
    pub(super) fn extract_element(
        &mut self,
        e: &'m instruction::ExtractElement,
    ) -> Result<(), LowerError> {
        let vec_ty = self.type_of(&e.vector);
        let base = self.operand(&e.vector)?;
        let (offset, terms, elem_ty) = self.vector_index(&vec_ty, &e.index)?;
        self.read_at(&e.dest, &elem_ty, base, offset, terms)
    }

    /// `insertelement`: a copy of the vector with the element written.
    pub(super) fn insert_element(
        &mut self,
        ie: &'m instruction::InsertElement,
    ) -> Result<(), LowerError> {
        let vec_ty = self.type_of(&ie.vector);
        let slot = self.copy_for_insert(&ie.dest, &ie.vector, &vec_ty)?;
        let (offset, terms, elem_ty) = self.vector_index(&vec_ty, &ie.index)?;
        let addr = if terms.is_empty() {
            self.offset_addr(slot, offset as u64)
        } else {
            self.emit(
                Type::Ptr,
                InstKind::PtrOffset {
                    base: slot,
                    offset,
                    terms,
                },
            )
        };
        let value = self.operand(&ie.element)?;
        self.write_value(&elem_ty, addr, value)
    }
}
