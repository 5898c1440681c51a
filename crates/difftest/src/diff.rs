//! Running one function on both sides and comparing everything observable.
//!
//! For every argument list, [`Differ`] calls the native function (through
//! [`crate::dispatch`]) and the interpreter (with a `BranchTrace` observer) and requires:
//! - identical result bits (two NaNs match whatever their payloads: the interpreter's
//!   libm and the native one may quiet NaNs differently, and C does not specify it);
//! - identical contents of every array argument after the call (same NaN rule);
//! - identical branch traces: the same sites in the same order with the same outcomes.
//!   The native runtime records a switch's scrutinee; it is mapped to the case index
//!   through the module's switch terminator, the way the interpreter reports it.
//!
//! An interpreter trap where the native code returned is a mismatch too.

use crate::dispatch::{self, AbiKind, Signature};
use crate::inputs::{plan, ArgValue, InputGen, ParamSpec};
use crate::native::{NativeLib, RawEvent};
use fpforge_exec::libm::under_host_mode;
use fpforge_exec::{BranchTrace, Concrete, ExecConfig, Interpreter, Outcome};
use fpforge_spec::Arg;
use fpir::{Arm, BranchSite, Func, Module, ParamShape, Side, Terminator, Type};
use std::collections::HashMap;
use std::fmt::Write as _;

/// How many inputs, which seed, what to keep.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DiffConfig {
    /// Argument lists tried per function. Default: 2000.
    pub inputs: usize,
    /// Base seed (combined with the function name). Default: 0x5eed.
    pub seed: u64,
    /// Largest array length. Default: 12.
    pub max_len: u32,
    /// Mismatches kept as examples in a report. Default: 3.
    pub keep: usize,
    /// Integer arguments are folded into `[-limit, limit]` when set. Default: none.
    pub int_limit: Option<u64>,
    /// Interpreter limits. Default: `ExecConfig::default()`.
    pub exec: ExecConfig,
}

impl Default for DiffConfig {
    fn default() -> Self {
        DiffConfig {
            inputs: 2000,
            seed: 0x5eed,
            max_len: 12,
            keep: 3,
            int_limit: None,
            exec: ExecConfig::default(),
        }
    }
}

impl DiffConfig {
    /// Sets the number of inputs per function.
    pub fn with_inputs(mut self, inputs: usize) -> Self {
        self.inputs = inputs;
        self
    }

    /// Folds integer arguments into `[-limit, limit]`.
    pub fn with_int_limit(mut self, limit: u64) -> Self {
        self.int_limit = Some(limit);
        self
    }

    /// Sets the base seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

/// One input on which the two sides disagreed.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The arguments.
    pub args: Vec<ArgValue>,
    /// What differed.
    pub what: String,
}

/// The result of testing one function.
#[derive(Clone, Debug)]
pub struct FuncReport {
    /// Function name.
    pub name: String,
    /// Its native signature, when it has a supported one.
    pub signature: Option<Signature>,
    /// Inputs run on both sides.
    pub tried: usize,
    /// Inputs with any difference.
    pub mismatches: usize,
    /// Branch events compared over all inputs (both traces had them).
    pub branch_events: u64,
    /// Inputs that ran to completion as native code (see `ExecConfig::compile`).
    pub compiled: u64,
    /// The first few mismatches.
    pub examples: Vec<Mismatch>,
    /// Why the function was not run, if it was not.
    pub unsupported: Option<String>,
}

impl FuncReport {
    fn unsupported(name: &str, why: String) -> Self {
        FuncReport {
            name: name.to_string(),
            signature: None,
            tried: 0,
            mismatches: 0,
            branch_events: 0,
            compiled: 0,
            examples: Vec::new(),
            unsupported: Some(why),
        }
    }

    /// A readable summary with the kept examples.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{}: {} inputs ({} compiled), {} mismatches, {} branch events compared",
            self.name, self.tried, self.compiled, self.mismatches, self.branch_events
        );
        if let Some(why) = &self.unsupported {
            let _ = write!(s, ", unsupported: {why}");
        }
        for m in &self.examples {
            let _ = write!(s, "\n  args {}: {}", format_args_list(&m.args), m.what);
        }
        s
    }
}

/// Formats arguments as hex bits.
pub fn format_args_list(args: &[ArgValue]) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| match a {
            ArgValue::Scalar(v) => format!("{v:#x}"),
            ArgValue::Array(vs) => {
                let items: Vec<String> = vs.iter().map(|v| format!("{v:#x}")).collect();
                format!("[{}]", items.join(", "))
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

/// A branch outcome in the common vocabulary of both sides.
type Event = Side;

/// Compares the interpreter on a module with a native build of the same bitcode.
pub struct Differ<'a> {
    module: &'a Module,
    native: &'a NativeLib,
    /// For each switch site: the scrutinee mask and the case values in order.
    switches: HashMap<u32, (u64, Vec<u64>)>,
}

impl<'a> Differ<'a> {
    /// Pairs a lowered module with its native build.
    pub fn new(module: &'a Module, native: &'a NativeLib) -> Self {
        let mut switches = HashMap::new();
        for func in module.funcs.values() {
            for block in func.blocks.values() {
                if let Terminator::Switch {
                    ty, cases, site, ..
                } = &block.term
                {
                    let values = cases.iter().map(|c| c.value).collect();
                    switches.insert(site.0, (ty.mask(), values));
                }
            }
        }
        Differ {
            module,
            native,
            switches,
        }
    }

    /// The native signature of `func` and what to generate for each parameter. A
    /// `long double` parameter is the lowered module's two ([`AbiKind::F80`],
    /// [`AbiKind::F80Exp`]); a `long double` result, the module's hidden result slot, is
    /// [`AbiKind::F80`] and no parameter.
    pub fn plan_for(&self, func: Func) -> Result<(Signature, Vec<ParamSpec>), String> {
        let f = &self.module.funcs[func];
        let long_double = |i: usize| {
            matches!(
                self.module.param_shapes.get(&(func, i)),
                Some(ParamShape::LongDouble)
            )
        };
        let returns_long_double = f.sret_elem().is_some() && long_double(0);
        let types = f.param_types();
        let mut params = Vec::with_capacity(types.len());
        let mut pointees = Vec::with_capacity(types.len());
        let mut i = usize::from(returns_long_double);
        while i < types.len() {
            if long_double(i) {
                params.extend([AbiKind::F80, AbiKind::F80Exp]);
                pointees.extend([None, None]);
                i += 2;
                continue;
            }
            params.push(kind_of(types[i])?);
            pointees.push(
                f.param_pointees
                    .get(i)
                    .copied()
                    .flatten()
                    .and_then(|t| kind_of(t).ok()),
            );
            i += 1;
        }
        let ret = match f.ret {
            None if returns_long_double => AbiKind::F80,
            None => AbiKind::Void,
            Some(Type::Ptr) => return Err("returns a pointer".to_string()),
            Some(t) => kind_of(t)?,
        };
        let sig = Signature { params, ret };
        if !dispatch::supported(&sig) {
            return Err(format!("native signature {sig} is not in dispatch::SHAPES"));
        }
        let specs = plan(&sig.params, &pointees);
        Ok((sig, specs))
    }

    /// Runs `name` on `config.inputs` generated argument lists and compares.
    pub fn check(&self, name: &str, config: &DiffConfig) -> FuncReport {
        let Some(func) = self.module.func_by_name(name) else {
            return FuncReport::unsupported(name, "not in the lowered module".to_string());
        };
        let (sig, specs) = match self.plan_for(func) {
            Ok(p) => p,
            Err(why) => return FuncReport::unsupported(name, why),
        };
        let ptr = match self.native.symbol(name) {
            Ok(p) => p,
            Err(e) => return FuncReport::unsupported(name, format!("native: {e}")),
        };
        let mut interp = match Interpreter::new(
            self.module,
            Concrete,
            BranchTrace::default(),
            config.exec.clone(),
        ) {
            Ok(i) => i,
            Err(e) => return FuncReport::unsupported(name, format!("interpreter: {e}")),
        };
        let mut gen = InputGen::new(specs.clone(), config.seed, name).with_max_len(config.max_len);
        if let Some(limit) = config.int_limit {
            gen = gen.with_int_limit(limit);
        }
        let mut report = FuncReport {
            name: name.to_string(),
            signature: Some(sig.clone()),
            tried: 0,
            mismatches: 0,
            branch_events: 0,
            compiled: 0,
            examples: Vec::new(),
            unsupported: None,
        };
        for _ in 0..config.inputs {
            let args = gen.next_args();
            report.tried += 1;
            match self.compare_one(&mut interp, func, ptr, &sig, &specs, &args) {
                Ok(events) => report.branch_events += events as u64,
                Err(what) => {
                    report.mismatches += 1;
                    if report.examples.len() < config.keep {
                        report.examples.push(Mismatch { args, what });
                    }
                }
            }
        }
        report.compiled = interp.compiled_runs();
        report
    }

    /// Runs one argument list on both sides; `Ok` gives the number of branch events
    /// compared, `Err` describes the first difference.
    fn compare_one(
        &self,
        interp: &mut Interpreter<'_, Concrete, BranchTrace>,
        func: Func,
        ptr: *const std::ffi::c_void,
        sig: &Signature,
        specs: &[ParamSpec],
        args: &[ArgValue],
    ) -> Result<usize, String> {
        // Native side: arrays become byte buffers the function reads and writes.
        let mut buffers: Vec<(AbiKind, Vec<u8>)> = Vec::new();
        for (spec, arg) in specs.iter().zip(args) {
            if let (ParamSpec::Array(kind), ArgValue::Array(values)) = (spec, arg) {
                buffers.push((*kind, encode(*kind, values)));
            }
        }
        let mut raw = Vec::with_capacity(args.len());
        let mut next_buf = 0;
        for arg in args {
            match arg {
                ArgValue::Scalar(v) => raw.push(*v),
                ArgValue::Array(_) => {
                    let Some((_, buf)) = buffers.get_mut(next_buf) else {
                        return Err("an array argument has no array parameter".to_string());
                    };
                    // An empty array still gets a valid, non-dangling address.
                    if buf.is_empty() {
                        buf.reserve(8);
                    }
                    raw.push(buf.as_mut_ptr() as u64);
                    next_buf += 1;
                }
            }
        }
        let trampoline = match sig.extended_shape() {
            Some(_) => Some(
                self.native
                    .extended_trampoline()
                    .map_err(|e| e.to_string())?,
            ),
            None => None,
        };
        self.native.reset_trace();
        // The native call starts in the rounding mode the interpreter's runs start in.
        let (native_words, _) = under_host_mode(interp.config().rounding, || {
            // SAFETY: `sig` was derived from the function's IR signature, which is the
            // one the native code was compiled from; array arguments point at buffers of
            // the length passed in the length parameter, which the corpus respects.
            unsafe {
                match trampoline {
                    Some(t) => dispatch::call_extended(t, ptr, sig, &raw),
                    None => dispatch::call(ptr, sig, &raw).map(|r| r.into_iter().collect()),
                }
            }
        });
        let native_words: Vec<u64> = native_words.map_err(|e| e.to_string())?;
        let native_ret = native_words.first().copied();
        let native_trace = self.native.take_trace();
        let native_arrays: Vec<Vec<u64>> = buffers.iter().map(|(k, b)| decode(*k, b)).collect();

        // Interpreter side; a `long double` result comes back in the hidden result slot,
        // the first array.
        let returns_long_double = sig.ret == AbiKind::F80;
        let mut interp_args = Vec::with_capacity(args.len() + 1);
        if returns_long_double {
            interp_args.push(Arg::Array {
                elem: Type::I64,
                values: vec![0; 2],
            });
        }
        interp_args.extend(interpreter_args(specs, args));
        interp.observer_mut().clear();
        let run = interp
            .call(func, &interp_args)
            .map_err(|e| format!("interpreter refused the call: {e}"))?;
        let interp_ret = match run.outcome {
            Outcome::Returned(v) => v,
            Outcome::Trapped(t) => {
                return Err(format!(
                    "interpreter trapped ({t} at {}), native returned {}",
                    self.module.describe_loc(t.loc),
                    show(sig.ret, native_ret)
                ))
            }
            Outcome::Threw(thrown) => {
                return Err(format!(
                    "interpreter threw {thrown}, native returned {}",
                    show(sig.ret, native_ret)
                ))
            }
        };
        let mut interp_arrays = run.arrays.iter();
        if returns_long_double {
            let slot = interp_arrays.next().map(Vec::as_slice).unwrap_or_default();
            let native = long_double_words(&native_words);
            let interp = long_double_words(slot);
            if !same_long_double(native, interp) {
                return Err(format!(
                    "result: native {} interpreter {}",
                    show_long_double(native),
                    show_long_double(interp)
                ));
            }
        } else if !same_bits(sig.ret, native_ret, interp_ret) {
            return Err(format!(
                "result: native {} interpreter {}",
                show(sig.ret, native_ret),
                show(sig.ret, interp_ret)
            ));
        }
        for (i, ((kind, _), native_vals)) in buffers.iter().zip(&native_arrays).enumerate() {
            let Some(interp_vals) = interp_arrays.next() else {
                return Err(format!("interpreter returned no contents for array {i}"));
            };
            if native_vals.len() != interp_vals.len() {
                return Err(format!(
                    "array {i}: native {} elements, interpreter {}",
                    native_vals.len(),
                    interp_vals.len()
                ));
            }
            for (j, (a, b)) in native_vals.iter().zip(interp_vals).enumerate() {
                if !same_bits(*kind, Some(*a), Some(*b)) {
                    return Err(format!("array {i}[{j}]: native {a:#x} interpreter {b:#x}"));
                }
            }
        }
        let Some(native_trace) = native_trace else {
            return Err("native trace overflowed the runtime buffer".to_string());
        };
        let native_events = self.normalize(&native_trace)?;
        compare_traces(&native_events, &interp.observer().events)?;
        Ok(native_events.len())
    }

    /// Maps native events to branch outcomes, switch values to case indices.
    fn normalize(&self, raw: &[RawEvent]) -> Result<Vec<Event>, String> {
        raw.iter()
            .map(|ev| {
                if ev.is_switch == 0 {
                    return Ok(Side {
                        site: BranchSite(ev.site),
                        arm: Arm::cond(ev.value != 0),
                    });
                }
                let (mask, cases) = self.switches.get(&ev.site).ok_or_else(|| {
                    format!(
                        "native switch at {} is not a switch in the lowered module",
                        BranchSite(ev.site)
                    )
                })?;
                let v = ev.value & mask;
                let index = cases.iter().position(|c| *c & mask == v);
                Ok(Side {
                    site: BranchSite(ev.site),
                    arm: Arm::case(index.map(|i| i as u32)),
                })
            })
            .collect()
    }
}

fn compare_traces(native: &[Event], interp: &[Event]) -> Result<(), String> {
    for (i, (a, b)) in native.iter().zip(interp).enumerate() {
        if a != b {
            return Err(format!(
                "branch trace differs at event {i}: native {}={:?}, interpreter {}={:?}",
                a.site, a.arm, b.site, b.arm
            ));
        }
    }
    if native.len() != interp.len() {
        return Err(format!(
            "branch trace lengths differ: native {}, interpreter {}",
            native.len(),
            interp.len()
        ));
    }
    Ok(())
}

fn kind_of(t: Type) -> Result<AbiKind, String> {
    match t {
        Type::Float(fpir::FloatTy::F64) => Ok(AbiKind::F64),
        Type::Float(fpir::FloatTy::F32) => Ok(AbiKind::F32),
        Type::Int(32) => Ok(AbiKind::I32),
        Type::Int(64) => Ok(AbiKind::I64),
        Type::Ptr => Ok(AbiKind::Ptr),
        other => Err(format!("parameter or result of type {other}")),
    }
}

/// The interpreter's arguments for a generated argument list.
pub fn interpreter_args(specs: &[ParamSpec], args: &[ArgValue]) -> Vec<Arg> {
    specs
        .iter()
        .zip(args)
        .map(|(spec, arg)| match (spec, arg) {
            (ParamSpec::Array(kind), ArgValue::Array(values)) => Arg::Array {
                elem: type_of(*kind),
                values: values.clone(),
            },
            (_, ArgValue::Scalar(v)) => Arg::Scalar(*v),
            (_, ArgValue::Array(values)) => Arg::Array {
                elem: Type::F64,
                values: values.clone(),
            },
        })
        .collect()
}

fn type_of(k: AbiKind) -> Type {
    match k {
        AbiKind::F32 => Type::F32,
        AbiKind::I32 => Type::I32,
        AbiKind::I64 | AbiKind::F80 => Type::I64,
        AbiKind::F80Exp => Type::Int(16),
        AbiKind::F64 | AbiKind::Ptr | AbiKind::Void => Type::F64,
    }
}

/// A `long double` result's significand and sign-and-exponent, from two words.
fn long_double_words(words: &[u64]) -> Option<(u64, u16)> {
    match words {
        [sig, se, ..] => Some((*sig, *se as u16)),
        _ => None,
    }
}

/// Same bits, or two NaNs (x87: the largest exponent and a significand other than the
/// integer bit alone).
fn same_long_double(a: Option<(u64, u16)>, b: Option<(u64, u16)>) -> bool {
    let nan = |(sig, se): (u64, u16)| se & 0x7fff == 0x7fff && sig << 1 != 0;
    match (a, b) {
        (Some(a), Some(b)) => a == b || (nan(a) && nan(b)),
        _ => false,
    }
}

fn show_long_double(v: Option<(u64, u16)>) -> String {
    match v {
        Some((sig, se)) => format!("{se:#06x}:{sig:#018x}"),
        None => "nothing".to_string(),
    }
}

fn width(k: AbiKind) -> usize {
    match k {
        AbiKind::F32 | AbiKind::I32 => 4,
        _ => 8,
    }
}

fn encode(kind: AbiKind, values: &[u64]) -> Vec<u8> {
    let w = width(kind);
    values
        .iter()
        .flat_map(|v| v.to_le_bytes().into_iter().take(w))
        .collect()
}

fn decode(kind: AbiKind, bytes: &[u8]) -> Vec<u64> {
    let w = width(kind);
    bytes
        .chunks_exact(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn is_nan(kind: AbiKind, v: u64) -> bool {
    match kind {
        AbiKind::F64 => f64::from_bits(v).is_nan(),
        AbiKind::F32 => f32::from_bits(v as u32).is_nan(),
        _ => false,
    }
}

fn same_bits(kind: AbiKind, a: Option<u64>, b: Option<u64>) -> bool {
    let m = match kind {
        AbiKind::F32 | AbiKind::I32 => 0xffff_ffff,
        _ => u64::MAX,
    };
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a & m) == (b & m) || (is_nan(kind, a) && is_nan(kind, b)),
        _ => false,
    }
}

fn show(kind: AbiKind, v: Option<u64>) -> String {
    match v {
        None => "nothing".to_string(),
        Some(v) => match kind {
            AbiKind::F64 => format!("{v:#018x} ({:e})", f64::from_bits(v)),
            AbiKind::F32 => format!("{v:#010x} ({:e})", f32::from_bits(v as u32)),
            _ => format!("{v:#x}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nans_match_whatever_their_payload() {
        assert!(same_bits(
            AbiKind::F64,
            Some(0x7ff8_0000_0000_0000),
            Some(0xfff8_0000_0000_0001)
        ));
        assert!(!same_bits(
            AbiKind::F64,
            Some(0),
            Some(0x8000_0000_0000_0000)
        ));
        assert!(same_bits(
            AbiKind::F32,
            Some(0x7fc0_0000),
            Some(0x7f80_0001)
        ));
        assert!(same_bits(
            AbiKind::I32,
            Some(0xffff_ffff),
            Some(0xffff_ffff)
        ));
        assert!(!same_bits(AbiKind::I32, Some(1), None));
    }

    #[test]
    fn arrays_round_trip_through_bytes() {
        let v = vec![0x3f80_0000, 0x8000_0000];
        assert_eq!(decode(AbiKind::F32, &encode(AbiKind::F32, &v)), v);
        let v = vec![u64::MAX, 1];
        assert_eq!(decode(AbiKind::F64, &encode(AbiKind::F64, &v)), v);
    }

    #[test]
    fn traces_report_the_first_difference() {
        let side = |site, arm| Side {
            site: BranchSite(site),
            arm,
        };
        let a = [side(0, Arm::True), side(3, Arm::Default)];
        let b = [side(0, Arm::True), side(3, Arm::Case(1))];
        assert!(compare_traces(&a, &a).is_ok());
        let e = compare_traces(&a, &b).unwrap_err();
        assert!(e.contains("event 1"), "{e}");
        assert!(compare_traces(&a, &a[..1]).is_err());
    }
}
