//! What `llvm-ir` does not expose, read through the LLVM C API from the same file:
//! the predicates of constrained floating-point comparisons and the text of inline
//! assembly, and the clauses of landing pads.
//!
//! Under `#pragma STDC FENV_ACCESS ON` clang emits
//! `llvm.experimental.constrained.fcmp(a, b, metadata !"olt", metadata !"fpexcept.strict")`,
//! and `llvm-ir` does not expose metadata operands; of an inline `asm` call it keeps
//! only the type, not the template and constraints. This module reads the same file
//! through the LLVM C API and records each such call's predicate or assembly (the call
//! as LLVM prints it, read by [`crate::asm`]) by function name, block index and
//! instruction index (the positions `llvm-ir` uses). It only runs when the module
//! declares such an intrinsic or calls inline assembly. The same reading prints the
//! module's text when a function takes a struct pointer, for the debug info of
//! [`crate::shapes`].

use fpir::FloatPred;
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::core::{
    LLVMContextCreate, LLVMContextDispose, LLVMCountBasicBlocks,
    LLVMCreateMemoryBufferWithContentsOfFile, LLVMDisposeMemoryBuffer, LLVMDisposeMessage,
    LLVMDisposeModule, LLVMGetCalledValue, LLVMGetClause, LLVMGetFirstBasicBlock,
    LLVMGetFirstFunction, LLVMGetFirstInstruction, LLVMGetMDString, LLVMGetNextBasicBlock,
    LLVMGetNextFunction, LLVMGetNextInstruction, LLVMGetNumClauses, LLVMGetNumOperands,
    LLVMGetOperand, LLVMGetValueName2, LLVMIsACallInst, LLVMIsAConstantExpr,
    LLVMIsAConstantPointerNull, LLVMIsAGlobalValue, LLVMIsAInlineAsm, LLVMIsALandingPadInst,
    LLVMPrintModuleToString, LLVMPrintValueToString,
};
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
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
    /// The module's text (as `llvm-dis` prints it), when its debug info is wanted
    /// ([`crate::shapes`]).
    pub text: Option<String>,
    /// The clauses of each `landingpad`, in order.
    pub landing_clauses: HashMap<Position, Vec<ClauseText>>,
}

/// A clause of a `landingpad` as the C API shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ClauseText {
    /// `catch` of the typeinfo global of that name, or of every exception (`None`).
    Catch(Option<String>),
    /// A `filter` (an exception specification).
    Filter,
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
    constrained || asm
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
                    inst = LLVMGetNextInstruction(inst);
                    i += 1;
                }
                block = LLVMGetNextBasicBlock(block);
                b += 1;
            }
        }
        func = LLVMGetNextFunction(func);
    }
    found
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
