//! What `llvm-ir` does not expose, read through the LLVM C API from the same file:
//! the predicates of constrained floating-point comparisons, the text of inline
//! assembly, the high bits of integer constants wider than 64 bits (`llvm-ir` keeps
//! only the low 64), and the clauses of landing pads.
//!
//! Under `#pragma STDC FENV_ACCESS ON` clang emits
//! `llvm.experimental.constrained.fcmp(a, b, metadata !"olt", metadata !"fpexcept.strict")`,
//! and `llvm-ir` does not expose metadata operands; of an inline `asm` call it keeps
//! only the type, not the template and constraints. This module reads the same file
//! through the LLVM C API and records each such call's predicate or assembly (the call
//! as LLVM prints it, read by [`crate::asm`]) by function name, block index and
//! instruction index (the positions `llvm-ir` uses), and the limbs of each wide
//! constant by the instruction using it (globals: in initializer order). It only runs
//! when the module declares such an intrinsic, calls inline assembly or has integers
//! wider than 64 bits. The same reading prints the
//! module's text when a function takes a struct pointer, for the debug info of
//! [`crate::shapes`].

use fpir::FloatPred;
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::core::{
    LLVMConstBitCast, LLVMConstInt, LLVMConstIntGetZExtValue, LLVMConstLShr, LLVMConstTrunc,
    LLVMContextCreate, LLVMContextDispose, LLVMCountBasicBlocks,
    LLVMCreateMemoryBufferWithContentsOfFile, LLVMDisposeMemoryBuffer, LLVMDisposeMessage,
    LLVMDisposeModule, LLVMGetCalledValue, LLVMGetClause, LLVMGetFirstBasicBlock,
    LLVMGetFirstFunction, LLVMGetFirstGlobal, LLVMGetFirstInstruction, LLVMGetInitializer,
    LLVMGetIntTypeWidth, LLVMGetMDString, LLVMGetNextBasicBlock, LLVMGetNextFunction,
    LLVMGetNextGlobal, LLVMGetNextInstruction, LLVMGetNumClauses, LLVMGetNumOperands,
    LLVMGetOperand, LLVMGetTypeContext, LLVMGetTypeKind, LLVMGetValueName2, LLVMInt64TypeInContext,
    LLVMIntTypeInContext, LLVMIsACallInst, LLVMIsAConstant, LLVMIsAConstantExpr, LLVMIsAConstantFP,
    LLVMIsAConstantInt, LLVMIsAConstantPointerNull, LLVMIsAGlobalValue, LLVMIsAInlineAsm,
    LLVMIsALandingPadInst, LLVMPrintModuleToString, LLVMPrintValueToString, LLVMTypeOf,
};
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
use llvm_sys::LLVMTypeKind;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::path::Path;

/// An instruction's position: function name, block index, instruction index.
pub(crate) type Position = (String, usize, usize);

/// What the C API read beside `llvm-ir`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Beside {
    /// Predicates of constrained comparisons.
    pub fcmp_predicates: HashMap<Position, FloatPred>,
    /// Inline assembly calls, as LLVM prints the instruction.
    pub asm_calls: HashMap<Position, String>,
    /// The integer constants wider than 64 bits that each instruction uses as operands.
    pub wide_ints: HashMap<Position, Vec<WideInt>>,
    /// The integer constants wider than 64 bits in each global's initializer, in the
    /// order of the initializer's elements.
    pub global_wide_ints: HashMap<String, Vec<WideInt>>,
    /// The module's text (as `llvm-dis` prints it), when its debug info is wanted
    /// ([`crate::shapes`]).
    pub text: Option<String>,
    /// The clauses of each `landingpad`, in order.
    pub landing_clauses: HashMap<Position, Vec<ClauseText>>,
    /// The `x86_fp80` constants each instruction uses as operands, by operand index
    /// (a phi's: by incoming index), as their 80 bits.
    pub f80_consts: HashMap<Position, Vec<(u32, u128)>>,
}

/// A clause of a `landingpad` as the C API shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ClauseText {
    /// `catch` of the typeinfo global of that name, or of every exception (`None`).
    Catch(Option<String>),
    /// A `filter` (an exception specification).
    Filter,
}

/// An integer constant wider than 64 bits: its width and its 64-bit limbs, least
/// significant first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WideInt {
    pub bits: u32,
    pub limbs: Vec<u64>,
}

impl Beside {
    /// The bits of the `x86_fp80` constant operand of the instruction at `at`: the one
    /// at `operand` (its index, a phi's incoming index), or the only value the
    /// instruction's `x86_fp80` constants take when the index is not known.
    pub fn f80_const(&self, at: &Position, operand: Option<u32>) -> Result<u128, String> {
        let consts = self.f80_consts.get(at).map_or(&[][..], Vec::as_slice);
        if let Some(&(_, bits)) = operand.and_then(|k| consts.iter().find(|(i, _)| *i == k)) {
            return Ok(bits);
        }
        match consts {
            [] => Err("an x86_fp80 constant whose bits were not read".to_string()),
            [(_, first), rest @ ..] if rest.iter().all(|(_, b)| b == first) => Ok(*first),
            _ => Err("x86_fp80 constants of one instruction that cannot be told apart".to_string()),
        }
    }

    /// The wide constant operand of the instruction at `at` with width `bits` whose low
    /// 64 bits are `low` (see [`find_wide_int`]).
    pub fn wide_int(&self, at: &Position, bits: u32, low: u64) -> Result<Option<&WideInt>, String> {
        find_wide_int(self.wide_ints.get(at).map_or(&[], Vec::as_slice), bits, low)
    }
}

/// Where an initializer's integers wider than 64 bits come from.
pub(crate) enum WideInits<'a> {
    /// A global's, one after the other in the order of its elements.
    InOrder(std::slice::Iter<'a, WideInt>),
    /// An instruction's constant operand's, told apart by their low bits.
    Among(&'a [WideInt]),
}

/// The width a `long double` constant is recorded with among the wide integers of an
/// initializer (its 80 bits as the limbs of an `i80`).
pub(crate) const F80_BITS: u32 = 80;

impl WideInits<'_> {
    /// The next `long double` constant of a global's initializer.
    pub fn next_f80(&mut self) -> Result<WideInt, String> {
        let found = match self {
            WideInits::InOrder(iter) => iter.next(),
            WideInits::Among(_) => None,
        };
        match found {
            Some(c) if c.bits == F80_BITS && c.limbs.len() == 2 => Ok(c.clone()),
            _ => Err("x86_fp80 (long double) constant whose bits were not read".to_string()),
        }
    }

    /// The next wide constant, of width `bits` with low 64 bits `low`.
    pub fn next(&mut self, bits: u32, low: u64) -> Result<WideInt, String> {
        let found = match self {
            WideInits::InOrder(iter) => iter.next(),
            WideInits::Among(consts) => find_wide_int(consts, bits, low)?,
        };
        match found {
            Some(c) if c.bits == bits && c.limbs.first() == Some(&low) => Ok(c.clone()),
            _ => Err(format!(
                "{bits}-bit constant {low:#x} whose high bits were not read"
            )),
        }
    }
}

/// The constant of `consts` with width `bits` whose low 64 bits are `low` (all that
/// `llvm-ir` keeps). `Err` when two of them differ only above bit 63, which the low
/// bits cannot tell apart.
pub(crate) fn find_wide_int(
    consts: &[WideInt],
    bits: u32,
    low: u64,
) -> Result<Option<&WideInt>, String> {
    let mut found = consts
        .iter()
        .filter(|c| c.bits == bits && c.limbs.first() == Some(&low));
    let first = found.next();
    match (first, found.next()) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "two {bits}-bit constants with the same low 64 bits ({low:#x}) in one place"
        )),
        _ => Ok(first),
    }
}

/// True when `module` has something only the C API shows.
pub(crate) fn needs_beside(module: &llvm_ir::Module) -> bool {
    let constrained = module
        .func_declarations
        .iter()
        .any(|d| is_constrained_fcmp(&d.name));
    let asm = module
        .functions
        .iter()
        .flat_map(|f| &f.basic_blocks)
        .flat_map(|b| &b.instrs)
        .any(|i| {
            matches!(i, llvm_ir::Instruction::Call(c) if c.function.is_left())
                || matches!(i, llvm_ir::Instruction::LandingPad(_))
        });
    let wide_init = module
        .global_vars
        .iter()
        .filter_map(|g| g.initializer.as_deref())
        .any(has_wide_int);
    constrained
        || asm
        || wide_init
        || module.functions.iter().any(uses_f80_consts)
        || module
            .functions
            .iter()
            .any(|f| uses_wide_ints(&module.types, f))
}

/// True when `c` is or holds an integer constant wider than 64 bits or a `long double`.
fn has_wide_int(c: &llvm_ir::Constant) -> bool {
    use llvm_ir::Constant as C;
    match c {
        C::Int { bits, .. } => *bits > 64,
        C::Float(llvm_ir::constant::Float::X86_FP80) => true,
        C::Struct { values, .. } => values.iter().any(|v| has_wide_int(v)),
        C::Array { elements, .. } | C::Vector(elements) => elements.iter().any(|e| has_wide_int(e)),
        _ => false,
    }
}

/// True when an instruction of `f` can have an integer constant wider than 64 bits as
/// an operand: a wide result (arithmetic, `select`, phis) or a wide operand of an
/// instruction without one (`store`, `icmp`, calls, `ret`, `switch`).
fn uses_wide_ints(types: &llvm_ir::types::Types, f: &llvm_ir::Function) -> bool {
    use llvm_ir::types::Typed;
    use llvm_ir::Instruction as I;
    let wide = |ty: &llvm_ir::Type| matches!(ty, llvm_ir::Type::IntegerType { bits } if *bits > 64);
    let wide_op = |op: &llvm_ir::Operand| wide(&types.type_of(op));
    f.basic_blocks.iter().any(|b| {
        let term = match &b.term {
            llvm_ir::Terminator::Ret(r) => r.return_operand.as_ref().is_some_and(wide_op),
            llvm_ir::Terminator::Switch(s) => wide_op(&s.operand),
            _ => false,
        };
        term || b.instrs.iter().any(|i| match i {
            I::Store(s) => wide_op(&s.value),
            I::ICmp(c) => wide_op(&c.operand0),
            I::Call(c) => c.arguments.iter().any(|(a, _)| wide_op(a)),
            other => wide(&other.get_type(types)),
        })
    })
}

/// True when an instruction of `f` may have an `x86_fp80` constant operand (`llvm-ir`
/// keeps no bits of one, nor a list of operands: its debug form names the variant).
fn uses_f80_consts(f: &llvm_ir::Function) -> bool {
    let names_f80 = |text: String| text.contains("X86_FP80");
    f.basic_blocks.iter().any(|b| {
        b.instrs.iter().any(|i| names_f80(format!("{i:?}"))) || names_f80(format!("{:?}", b.term))
    })
}

/// True for the names of the constrained comparison intrinsics.
pub(crate) fn is_constrained_fcmp(name: &str) -> bool {
    name.starts_with("llvm.experimental.constrained.fcmp")
}

/// Reads the predicates of all constrained comparisons and the inline assembly calls in
/// the bitcode (or, with `is_text`, LLVM IR text) file at `path`, and with `want_text`
/// the module's text.
pub(crate) fn read_beside(path: &Path, is_text: bool, want_text: bool) -> Result<Beside, String> {
    let cpath = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: every LLVM object created here is disposed of before returning, values
    // are only read while the module is alive, and strings are copied out.
    unsafe {
        let context = LLVMContextCreate();
        let mut buffer = std::ptr::null_mut();
        let mut message = std::ptr::null_mut();
        if LLVMCreateMemoryBufferWithContentsOfFile(cpath.as_ptr(), &mut buffer, &mut message) != 0
        {
            let text = take_message(message);
            LLVMContextDispose(context);
            return Err(text);
        }
        let mut module: LLVMModuleRef = std::ptr::null_mut();
        let failed = if is_text {
            // Takes ownership of the buffer.
            LLVMParseIRInContext(context, buffer, &mut module, &mut message) != 0
        } else {
            let failed = LLVMParseBitcodeInContext2(context, buffer, &mut module) != 0;
            LLVMDisposeMemoryBuffer(buffer);
            failed
        };
        if failed {
            let text = take_message(message);
            LLVMContextDispose(context);
            return Err(if text.is_empty() {
                "cannot parse the module".to_string()
            } else {
                text
            });
        }
        let mut found = collect(module);
        if want_text {
            let text = LLVMPrintModuleToString(module);
            found.text = Some(CStr::from_ptr(text).to_string_lossy().into_owned());
            LLVMDisposeMessage(text);
        }
        LLVMDisposeModule(module);
        LLVMContextDispose(context);
        Ok(found)
    }
}

/// Walks every defined function of `module`.
///
/// # Safety
/// `module` must be a live module.
unsafe fn collect(module: LLVMModuleRef) -> Beside {
    let mut found = Beside::default();
    let mut func = LLVMGetFirstFunction(module);
    while !func.is_null() {
        if LLVMCountBasicBlocks(func) > 0 {
            let name = value_name(func);
            let mut block = LLVMGetFirstBasicBlock(func);
            let mut b = 0;
            while !block.is_null() {
                let mut inst = LLVMGetFirstInstruction(block);
                let mut i = 0;
                while !inst.is_null() {
                    if let Some(pred) = predicate(inst) {
                        found.fcmp_predicates.insert((name.clone(), b, i), pred);
                    }
                    if let Some(text) = asm_call(inst) {
                        found.asm_calls.insert((name.clone(), b, i), text);
                    }
                    if !LLVMIsALandingPadInst(inst).is_null() {
                        found
                            .landing_clauses
                            .insert((name.clone(), b, i), clauses(inst));
                    }
                    let mut consts = Vec::new();
                    let mut f80s = Vec::new();
                    for operand in 0..LLVMGetNumOperands(inst) {
                        let value = LLVMGetOperand(inst, operand as u32);
                        wide_ints_in(value, 0, &mut consts);
                        if let Some(bits) = f80_bits(value) {
                            f80s.push((operand as u32, bits));
                        }
                    }
                    if !f80s.is_empty() {
                        found.f80_consts.insert((name.clone(), b, i), f80s);
                    }
                    if !consts.is_empty() {
                        found.wide_ints.insert((name.clone(), b, i), consts);
                    }
                    inst = LLVMGetNextInstruction(inst);
                    i += 1;
                }
                block = LLVMGetNextBasicBlock(block);
                b += 1;
            }
        }
        func = LLVMGetNextFunction(func);
    }
    let mut global = LLVMGetFirstGlobal(module);
    while !global.is_null() {
        let init = LLVMGetInitializer(global);
        let mut consts = Vec::new();
        wide_ints_in(init, 0, &mut consts);
        if !consts.is_empty() {
            found.global_wide_ints.insert(value_name(global), consts);
        }
        global = LLVMGetNextGlobal(global);
    }
    found
}

/// Collects the integer constants wider than 64 bits and the `long double` constants
/// (as [`F80_BITS`]-bit ones) in constant `value`, looking inside aggregates and
/// constant expressions (not into other globals).
///
/// # Safety
/// `value` must be null or a live value.
unsafe fn wide_ints_in(value: LLVMValueRef, depth: u32, into: &mut Vec<WideInt>) {
    if value.is_null() || LLVMIsAConstant(value).is_null() || !LLVMIsAGlobalValue(value).is_null() {
        return;
    }
    if let Some(wide) = wide_int(value) {
        into.push(wide);
        return;
    }
    if let Some(bits) = f80_bits(value) {
        into.push(WideInt {
            bits: F80_BITS,
            limbs: vec![bits as u64, (bits >> 64) as u64],
        });
        return;
    }
    if depth < 16 {
        for i in 0..LLVMGetNumOperands(value) {
            wide_ints_in(LLVMGetOperand(value, i as u32), depth + 1, into);
        }
    }
}

/// The predicate of `inst` if it is a constrained comparison.
///
/// # Safety
/// `inst` must be a live instruction.
unsafe fn predicate(inst: LLVMValueRef) -> Option<FloatPred> {
    if LLVMIsACallInst(inst).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(inst);
    if callee.is_null() || !is_constrained_fcmp(&value_name(callee)) {
        return None;
    }
    // Operands: a, b, predicate, exception behaviour, callee.
    if LLVMGetNumOperands(inst) < 3 {
        return None;
    }
    let operand = LLVMGetOperand(inst, 2);
    if operand.is_null() {
        return None;
    }
    let mut len = 0;
    let text = LLVMGetMDString(operand, &mut len);
    if text.is_null() {
        return None;
    }
    let bytes = std::slice::from_raw_parts(text.cast::<u8>(), len as usize);
    pred_from_name(std::str::from_utf8(bytes).ok()?)
}

/// The text of `inst` if it calls inline assembly.
///
/// # Safety
/// `inst` must be a live instruction.
unsafe fn asm_call(inst: LLVMValueRef) -> Option<String> {
    if LLVMIsACallInst(inst).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(inst);
    if callee.is_null() || LLVMIsAInlineAsm(callee).is_null() {
        return None;
    }
    let text = LLVMPrintValueToString(inst);
    if text.is_null() {
        return None;
    }
    let copied = CStr::from_ptr(text).to_string_lossy().into_owned();
    LLVMDisposeMessage(text);
    Some(copied)
}

/// The clauses of the landing pad `inst`.
///
/// # Safety
/// `inst` must be a live `landingpad` instruction.
unsafe fn clauses(inst: LLVMValueRef) -> Vec<ClauseText> {
    (0..LLVMGetNumClauses(inst))
        .map(|k| {
            let mut clause = LLVMGetClause(inst, k);
            if !LLVMIsAConstantPointerNull(clause).is_null() {
                return ClauseText::Catch(None);
            }
            // `bitcast (i8** @_ZTI... to i8*)`: the global is the cast's operand.
            while !LLVMIsAConstantExpr(clause).is_null() && LLVMGetNumOperands(clause) > 0 {
                clause = LLVMGetOperand(clause, 0);
            }
            if LLVMIsAGlobalValue(clause).is_null() {
                ClauseText::Filter
            } else {
                ClauseText::Catch(Some(value_name(clause)))
            }
        })
        .collect()
}

/// The width and limbs of `value` if it is an integer constant wider than 64 bits,
/// cut into limbs by LLVM's own constant folding (`lshr`, then `trunc` to `i64`).
///
/// # Safety
/// `value` must be null or a live value.
unsafe fn wide_int(value: LLVMValueRef) -> Option<WideInt> {
    if value.is_null() || LLVMIsAConstantInt(value).is_null() {
        return None;
    }
    let ty = LLVMTypeOf(value);
    let bits = LLVMGetIntTypeWidth(ty);
    if bits <= 64 {
        return None;
    }
    let context = LLVMGetTypeContext(ty);
    let i64_ty = LLVMInt64TypeInContext(context);
    let limbs = (0..bits.div_ceil(64))
        .map(|i| {
            let shifted = LLVMConstLShr(value, LLVMConstInt(ty, u64::from(i) * 64, 0));
            LLVMConstIntGetZExtValue(LLVMConstTrunc(shifted, i64_ty))
        })
        .collect();
    Some(WideInt { bits, limbs })
}

/// The 80 bits of `value` if it is an `x86_fp80` constant, through LLVM's own
/// constant folding (a bit cast to `i80`).
///
/// # Safety
/// `value` must be null or a live value.
unsafe fn f80_bits(value: LLVMValueRef) -> Option<u128> {
    if value.is_null() || LLVMIsAConstantFP(value).is_null() {
        return None;
    }
    let ty = LLVMTypeOf(value);
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMX86_FP80TypeKind {
        return None;
    }
    let i80 = LLVMIntTypeInContext(LLVMGetTypeContext(ty), 80);
    let wide = wide_int(LLVMConstBitCast(value, i80))?;
    Some(u128::from(wide.limbs[1]) << 64 | u128::from(wide.limbs[0]))
}

/// The name of a value, copied.
///
/// # Safety
/// `value` must be a live value.
unsafe fn value_name(value: LLVMValueRef) -> String {
    let mut len = 0;
    let ptr = LLVMGetValueName2(value, &mut len);
    if ptr.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(ptr.cast::<u8>(), len)).into_owned()
}

/// Copies and frees an LLVM error message.
///
/// # Safety
/// `message` must be null or a message LLVM allocated.
unsafe fn take_message(message: *mut std::os::raw::c_char) -> String {
    if message.is_null() {
        return String::new();
    }
    let text = CStr::from_ptr(message).to_string_lossy().into_owned();
    LLVMDisposeMessage(message);
    text
}

/// A predicate from its LLVM name (`"olt"`).
fn pred_from_name(name: &str) -> Option<FloatPred> {
    use FloatPred::*;
    Some(match name {
        "false" => False,
        "oeq" => Oeq,
        "ogt" => Ogt,
        "oge" => Oge,
        "olt" => Olt,
        "ole" => Ole,
        "one" => One,
        "ord" => Ord,
        "ueq" => Ueq,
        "ugt" => Ugt,
        "uge" => Uge,
        "ult" => Ult,
        "ule" => Ule,
        "une" => Une,
        "uno" => Uno,
        "true" => True,
        _ => return None,
    })
}
