//! A user's reference function in C, compiled natively and called in-process.
//!
//! fpforge writes a small C wrapper that declares the reference with the entry's
//! scalar signature and calls it from one fixed signature,
//! `double fpforge_oracle_call(const double *floats, const long long *ints)`, compiles
//! wrapper and source with `clang-14 -O2 -shared -fPIC` (linking `-lquadmath` when the
//! source includes `quadmath.h`, `-lmpfr -lgmp` when it includes `mpfr.h`) and loads the
//! shared object with `libloading`. The fixed signature is what makes the call safe to
//! type in Rust whatever the entry's parameters are.

use crate::error::AccuracyError;
use fpforge_mpfr::Operand;
use fpforge_spec::{InputSpec, ParamInput};
use fpir::{FloatTy, Func, Module, Type};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

/// The wrapper's entry point.
const CALL: &str = "fpforge_oracle_call";

/// The signature of [`CALL`]: float operands, integer operands, the reference's value.
type CallFn = unsafe extern "C" fn(*const f64, *const i64) -> f64;

/// A compiled C reference.
pub struct NativeReference {
    name: String,
    call: CallFn,
    // Keeps the shared object mapped while `call` may be called.
    _library: libloading::Library,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for NativeReference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NativeReference({})", self.name)
    }
}

impl NativeReference {
    /// Compiles `function` of `source`, declared with the scalar signature of `func`
    /// as `spec` gives its inputs, and loads it.
    pub fn build(
        source: &Path,
        function: &str,
        module: &Module,
        func: Func,
        spec: &InputSpec,
    ) -> Result<NativeReference, AccuracyError> {
        let fail =
            |reason: String| AccuracyError::Oracle(format!("{}: {reason}", source.display()));
        let text = fs::read_to_string(source).map_err(|e| fail(e.to_string()))?;
        let ret = module.funcs[func]
            .ret
            .and_then(Type::as_float)
            .ok_or_else(|| fail("a C reference replaces a function that returns a float".into()))?;
        let wrapper = wrapper(function, ret, spec)
            .ok_or_else(|| fail("a C reference takes scalar parameters only".into()))?;
        let dir = tempfile::tempdir().map_err(|e| fail(e.to_string()))?;
        let wrapper_path = dir.path().join("fpforge_oracle.c");
        fs::write(&wrapper_path, wrapper).map_err(|e| fail(e.to_string()))?;
        let so = dir.path().join("oracle.so");
        let mut cc = Command::new("clang-14");
        cc.args(["-O2", "-shared", "-fPIC", "-w", "-o"])
            .arg(&so)
            .arg(&wrapper_path)
            .arg(source)
            .arg("-lm");
        if text.contains("quadmath.h") {
            cc.arg("-lquadmath");
        }
        if text.contains("mpfr.h") {
            cc.args(["-lmpfr", "-lgmp"]);
        }
        let out = cc
            .output()
            .map_err(|e| fail(format!("cannot run clang-14: {e}")))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(fail(format!("clang-14 failed:\n{}", stderr.trim_end())));
        }
        // SAFETY: the library is the user's reference and our wrapper; loading runs
        // their initializers, which a reference is not expected to have.
        let library = unsafe { libloading::Library::new(&so) }.map_err(|e| fail(e.to_string()))?;
        // SAFETY: the wrapper defines CALL with exactly the type of `CallFn`.
        let call: CallFn = unsafe {
            *library
                .get::<CallFn>(CALL.as_bytes())
                .map_err(|e| fail(e.to_string()))?
        };
        Ok(NativeReference {
            name: format!("{}:{function}", source.display()),
            call,
            _library: library,
            _dir: dir,
        })
    }

    /// `FILE:FUNCTION`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The reference's value on `operands` (floats and integers in parameter order).
    pub(crate) fn call(&self, operands: &[Operand]) -> Option<f64> {
        let mut floats = Vec::new();
        let mut ints = Vec::new();
        for o in operands {
            match *o {
                Operand::Float(FloatTy::F64, bits) => floats.push(f64::from_bits(bits)),
                Operand::Float(FloatTy::F32, bits) => {
                    floats.push(f64::from(f32::from_bits(bits as u32)))
                }
                Operand::Int(n) => ints.push(n),
                // The wrapper declares no `long double` parameter.
                Operand::Extended(_) => return None,
            }
        }
        // Never empty, so the pointers are valid even for a function of no floats.
        floats.push(0.0);
        ints.push(0);
        // SAFETY: the wrapper reads as many floats and integers as the signature it was
        // generated from has, which are the operands given here (plus one spare each).
        Some(unsafe { (self.call)(floats.as_ptr(), ints.as_ptr()) })
    }
}

/// The C type of a scalar parameter.
fn c_type(ty: Type) -> Option<&'static str> {
    Some(match ty {
        Type::Float(FloatTy::F64) => "double",
        Type::Float(FloatTy::F32) => "float",
        Type::Int(1..=8) => "signed char",
        Type::Int(9..=16) => "short",
        Type::Int(17..=32) => "int",
        Type::Int(_) => "long long",
        Type::Ptr => return None,
    })
}

/// The wrapper's C text; `None` when a parameter is not a scalar.
fn wrapper(function: &str, ret: FloatTy, spec: &InputSpec) -> Option<String> {
    let (mut params, mut args) = (Vec::new(), Vec::new());
    let (mut nf, mut ni) = (0, 0);
    for p in spec.params() {
        let ty = match p {
            ParamInput::Scalar { ty, .. } | ParamInput::Fixed { ty, .. } => *ty,
            _ => return None,
        };
        let c = c_type(ty)?;
        params.push(c);
        if ty.as_float().is_some() {
            args.push(format!("({c})f[{nf}]"));
            nf += 1;
        } else {
            args.push(format!("({c})n[{ni}]"));
            ni += 1;
        }
    }
    let ret = c_type(Type::Float(ret))?;
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let mut t = String::new();
    let _ = writeln!(t, "{ret} {function}({params});");
    let _ = writeln!(
        t,
        "double {CALL}(const double *f, const long long *n) {{ (void)f; (void)n; return (double){function}({}); }}",
        args.join(", ")
    );
    Some(t)
}
