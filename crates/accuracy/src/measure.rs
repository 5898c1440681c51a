//! Measuring one candidate input: a concrete run (with FPGen's checks observed) gives
//! the computed result, the oracle ([`crate::oracle`]) the reference, and
//! [`fpforge_mpfr::measure`] the error. Under the re-execution oracle the reference is a
//! [`HighPrecision`] run of the same code, and the error is on the return value or,
//! with output arrays, the largest over their elements (with the element); under a true
//! function or a C reference it is on the return value or the first element of the
//! first output array (a GSL `_e` function's `result->val`), with the function's integer
//! return as its status.
//!
//! A `long double` result comes back through a hidden slot (16 bytes: significand, then
//! sign and exponent); its reference under the re-execution is the shadow of the
//! significand stored there, and its error is counted in extended ulps
//! ([`fpforge_mpfr::FloatBits::error`]).
//!
//! [`Measurer::stabilize`] is Ziv's strategy on a reported error: the reference again at
//! twice the precision, and again, until two successive errors agree to 2 digits (in
//! the run's metric, [`crate::metric`]).

use crate::config::AccuracyConfig;
use crate::error::AccuracyError;
use crate::metric::{self, default_metric};
use crate::oracle::{self, implied_out_args, probe_operands, Oracle};
use crate::targets::{CheckObserver, Targets};
use fpforge_engine::ErrorMetric;
use fpforge_exec::{BranchTrace, Concrete, ExecConfig, InputSlot, Interpreter, Outcome, Run, Trap};
use fpforge_mpfr::{ErrorMeasure, FloatBits, Format, HighPrecision, HighValue, MpValue};
use fpforge_spec::plan::{InputPlan, Test};
use fpforge_spec::{InputSpec, ParamInput};
use fpir::f80::F80;
use fpir::{FloatTy, Func, Module, OpSite, Type};

/// Which result an error was measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputLoc {
    /// The return value.
    Return,
    /// Element `index` of the output array parameter `param` (0-based).
    Element {
        /// Parameter index.
        param: usize,
        /// Element index.
        index: usize,
    },
}

/// One measured input.
#[derive(Clone, Debug)]
pub struct ErrorFinding {
    /// The input.
    pub test: Test,
    /// Where the largest error is.
    pub output: OutputLoc,
    /// The computed result, in its format.
    pub computed: FloatBits,
    /// The high-precision reference.
    pub reference: HighValue,
    /// The error of `computed` against `reference`.
    pub error: ErrorMeasure,
    /// Whether the reference run took other branches than the concrete run (then the
    /// error includes the effect of a different path, e.g. another pivot; always false
    /// when the oracle is not the re-execution).
    pub diverged: bool,
    /// The function's integer return when the measured value is an output (a GSL `_e`
    /// function's status) and the oracle is not the re-execution.
    pub status: Option<i64>,
    /// Where Ziv's strategy ended, once the error was recomputed
    /// ([`Measurer::stabilize`]).
    pub ziv: Option<Ziv>,
    /// The op site with the largest atomic condition number in the concrete run, and
    /// the number ([`crate::condition`]).
    pub condition: Option<(OpSite, f64)>,
}

impl ErrorFinding {
    /// Whether the computed result is the reference rounded to nearest in its format
    /// ([`FloatBits::correctly_rounded`]): under a true function, the correctly rounded
    /// result.
    pub fn correctly_rounded(&self) -> bool {
        self.computed.correctly_rounded(&self.reference)
    }
}

/// The outcome of recomputing an error at increasing precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ziv {
    /// The precision in bits of the reference behind the error kept.
    pub precision: u32,
    /// Whether the last two errors agreed to 2 digits (false: the cap was reached).
    pub agreed: bool,
}

/// An output array measured after a run.
#[derive(Clone, Debug)]
struct OutArray {
    param: usize,
    /// Index among the run's array arguments.
    arg_index: usize,
    first_slot: u32,
    elem: FloatTy,
    /// Elements measured: all of them, or a GSL result's value alone.
    measured: usize,
}

#[derive(Clone, Debug)]
enum Measured {
    Return(Returned),
    Arrays(Vec<OutArray>),
}

impl Measured {
    /// The format of the result measured against a true function or a C reference:
    /// the return value's, or the first output element's.
    fn format(&self) -> Option<Format> {
        match self {
            Measured::Return(Returned::Register(ty)) => Some(Format::Ieee(*ty)),
            Measured::Return(Returned::LongDoubleSlot { .. }) => Some(Format::Extended),
            Measured::Arrays(arrays) => arrays.first().map(|a| Format::Ieee(a.elem)),
        }
    }
}

/// Where a function's floating-point result comes back.
#[derive(Clone, Copy, Debug)]
enum Returned {
    /// In the return register, in this format.
    Register(FloatTy),
    /// A `long double`, in the hidden result slot: the run's array `arg_index`, whose
    /// significand is input slot `first_slot`.
    LongDoubleSlot { arg_index: usize, first_slot: u32 },
}

impl Returned {
    /// The computed result of a concrete run.
    fn computed(self, run: &Run<u64>) -> Option<FloatBits> {
        match (self, &run.outcome) {
            (Returned::Register(ty), Outcome::Returned(Some(bits))) => {
                Some(FloatBits::Ieee(ty, *bits))
            }
            (Returned::LongDoubleSlot { arg_index, .. }, Outcome::Returned(_)) => {
                let words = run.arrays.get(arg_index)?;
                Some(FloatBits::Extended(F80 {
                    sig: *words.first()?,
                    se: *words.get(1)? as u16,
                }))
            }
            _ => None,
        }
    }

    /// The high-precision result of a run of `interp` that returned `value`.
    fn reference(
        self,
        interp: &Interpreter<'_, HighPrecision, BranchTrace>,
        value: Option<MpValue>,
    ) -> Option<HighValue> {
        let sem = interp.semantics();
        match self {
            Returned::Register(ty) => Some(sem.high_value(ty, &value?)),
            Returned::LongDoubleSlot { first_slot, .. } => {
                let addr = sem.slot_address(InputSlot(first_slot))?;
                sem.memory_extended_value(interp.memory(), addr)
            }
        }
    }
}

/// Runs candidates concretely and at high precision and measures their error.
pub struct Measurer<'m> {
    module: &'m Module,
    func: Func,
    oracle: Oracle,
    metric: ErrorMetric,
    precision: u32,
    ziv_max_precision: u32,
    plan: InputPlan,
    measured: Measured,
    concrete: Interpreter<'m, Concrete, CheckObserver>,
    high: Interpreter<'m, HighPrecision, BranchTrace>,
    verify: Option<Interpreter<'m, HighPrecision, BranchTrace>>,
    /// Re-execution at the precisions of Ziv's strategy, made when first needed.
    ladder: Vec<(u32, Interpreter<'m, HighPrecision, BranchTrace>)>,
    /// The trap of the last concrete run, when it trapped.
    last_trap: Option<Trap>,
    exec: ExecConfig,
}

impl<'m> Measurer<'m> {
    /// Plans the inputs of `func` and builds both interpreters.
    pub fn new(
        module: &'m Module,
        func: Func,
        config: &AccuracyConfig,
        targets: Targets,
    ) -> Result<Measurer<'m>, AccuracyError> {
        let out_args = implied_out_args(module, func, &config.out_args);
        let spec = InputSpec::for_function(module, func, &config.args, &out_args)?;
        let oracle = Oracle::resolve(&config.oracle, module, func, &spec)?;
        let value_only = out_args.len() > config.out_args.len();
        let measured = measured_outputs(module, func, &spec, value_only)?;
        let metric =
            config
                .metric
                .unwrap_or_else(|| match (probe_operands(&spec), measured.format()) {
                    (Some(operands), Some(format)) => default_metric(&oracle, &operands, format),
                    _ => ErrorMetric::Relative,
                });
        let reachable = module.reachable_funcs(func);
        let plan = InputPlan::new(module, func, &reachable, spec)
            .map_err(|e| AccuracyError::Inputs(e.to_string()))?;
        let exec = ExecConfig::default().with_fuel(config.fuel);
        let concrete = Interpreter::new(
            module,
            Concrete,
            CheckObserver::new(targets, config.sampling),
            exec.clone(),
        )?;
        let high = Interpreter::new(
            module,
            HighPrecision::new(config.precision),
            BranchTrace::default(),
            exec.clone(),
        )?;
        let verify = match config.verify_precision {
            Some(p) if p > config.precision => Some(Interpreter::new(
                module,
                HighPrecision::new(p),
                BranchTrace::default(),
                exec.clone(),
            )?),
            _ => None,
        };
        Ok(Measurer {
            module,
            func,
            oracle,
            metric,
            precision: config.precision,
            ziv_max_precision: config.ziv_max_precision,
            plan,
            measured,
            concrete,
            high,
            verify,
            ladder: Vec::new(),
            last_trap: None,
            exec,
        })
    }

    /// The oracle every candidate is measured against.
    pub fn oracle(&self) -> &Oracle {
        &self.oracle
    }

    /// What errors are counted in: the configured metric, or the oracle's default.
    pub fn metric(&self) -> ErrorMetric {
        self.metric
    }

    /// Whether one value is measured (the return value or a single output element):
    /// then the signs of successive results compare, and zeros mean something.
    pub fn measures_one_value(&self) -> bool {
        match &self.measured {
            Measured::Return(_) => true,
            Measured::Arrays(arrays) => arrays.iter().map(|a| a.measured).sum::<usize>() == 1,
        }
    }

    /// The input plan.
    pub fn plan(&self) -> &InputPlan {
        &self.plan
    }

    /// The trap of the last concrete run of [`Measurer::measure`], when it trapped:
    /// the input crashes or hangs the function.
    pub fn last_trap(&self) -> Option<&Trap> {
        self.last_trap.as_ref()
    }

    /// The interpreter limits of the runs.
    pub fn exec_config(&self) -> &ExecConfig {
        &self.exec
    }

    /// The check observer of the last concrete run.
    pub fn checks(&self) -> &CheckObserver {
        self.concrete.observer()
    }

    /// Runs `test` concretely and at the working precision; `None` when either run
    /// trapped or produced no result.
    pub fn measure(&mut self, test: &Test) -> Option<ErrorFinding> {
        self.measure_with(test, false)
    }

    /// Runs `test` concretely and at the verification precision (the working precision
    /// when there is none).
    pub fn measure_verified(&mut self, test: &Test) -> Option<ErrorFinding> {
        self.measure_with(test, true)
    }

    fn measure_with(&mut self, test: &Test, verified: bool) -> Option<ErrorFinding> {
        self.concrete.observer_mut().clear();
        let run = self.concrete.call(self.func, test.args()).ok()?;
        self.last_trap = match &run.outcome {
            Outcome::Trapped(trap) => Some(trap.clone()),
            Outcome::Returned(_) | Outcome::Threw(_) => None,
        };
        let condition = self.concrete.observer().worst_condition();
        let finding = match self.oracle {
            Oracle::ReExecution => self.re_executed(test, run, verified),
            Oracle::TrueFunction(_) | Oracle::CReference(_) => self.against_oracle(test, run),
        };
        finding.map(|f| ErrorFinding { condition, ..f })
    }

    /// The error of a concrete run against the oracle's value on the test's operands.
    fn against_oracle(&self, test: &Test, run: Run<u64>) -> Option<ErrorFinding> {
        let Outcome::Returned(returned) = run.outcome else {
            return None;
        };
        let (output, computed, status) = match &self.measured {
            Measured::Return(r) => (OutputLoc::Return, r.computed(&run)?, None),
            Measured::Arrays(arrays) => {
                let a = arrays.first()?;
                let computed = *run.arrays.get(a.arg_index)?.first()?;
                let status = status(self.module.funcs[self.func].ret, returned);
                let at = OutputLoc::Element {
                    param: a.param,
                    index: 0,
                };
                (at, FloatBits::Ieee(a.elem, computed), status)
            }
        };
        let operands = oracle::operands(self.plan.spec(), test)?;
        let reference = self.oracle.value(self.precision, &operands)?;
        Some(ErrorFinding {
            test: test.clone(),
            output,
            computed,
            error: computed.error(&reference),
            reference,
            diverged: false,
            status,
            ziv: None,
            condition: None,
        })
    }

    /// The error of a concrete run against the same code run at high precision.
    fn re_executed(&mut self, test: &Test, run: Run<u64>, verified: bool) -> Option<ErrorFinding> {
        let status = match run.outcome {
            Outcome::Returned(r) => status(self.module.funcs[self.func].ret, r),
            Outcome::Trapped(_) | Outcome::Threw(_) => None,
        };
        let reference = match (verified, self.verify.as_mut()) {
            (true, Some(v)) => v,
            _ => &mut self.high,
        };
        reference.observer_mut().clear();
        let high = reference.call(self.func, test.args()).ok()?;
        let diverged = reference.observer().events != self.concrete.observer().branches;
        match &self.measured {
            Measured::Return(r) => {
                let computed = r.computed(&run)?;
                let Outcome::Returned(v) = high.outcome else {
                    return None;
                };
                let reference = r.reference(reference, v)?;
                Some(ErrorFinding {
                    test: test.clone(),
                    output: OutputLoc::Return,
                    computed,
                    error: computed.error(&reference),
                    reference,
                    diverged,
                    status: None,
                    ziv: None,
                    condition: None,
                })
            }
            Measured::Arrays(arrays) => {
                if !matches!(run.outcome, Outcome::Returned(_))
                    || !matches!(high.outcome, Outcome::Returned(_))
                {
                    return None;
                }
                let mut best: Option<ErrorFinding> = None;
                for a in arrays {
                    for k in 0..a.measured {
                        let computed =
                            FloatBits::Ieee(a.elem, *run.arrays.get(a.arg_index)?.get(k)?);
                        let reference = array_value(reference, a, k)?;
                        let error = computed.error(&reference);
                        let worse = |b: &ErrorFinding| metric::worse(self.metric, &error, &b.error);
                        if best.as_ref().is_none_or(worse) {
                            best = Some(ErrorFinding {
                                test: test.clone(),
                                output: OutputLoc::Element {
                                    param: a.param,
                                    index: k,
                                },
                                computed,
                                reference,
                                error,
                                diverged,
                                status,
                                ziv: None,
                                condition: None,
                            });
                        }
                    }
                }
                best
            }
        }
    }

    /// Ziv's strategy on `finding`'s error: the reference recomputed at twice its
    /// precision, again and again up to the cap, until two successive errors in the
    /// run's metric agree to 2 digits; the finding comes back with the last error and where it
    /// ended. A C reference has one precision: its finding comes back as it is.
    pub fn stabilize(&mut self, finding: ErrorFinding) -> ErrorFinding {
        if matches!(self.oracle, Oracle::CReference(_)) {
            return finding;
        }
        let mut current = finding;
        let mut precision = current.reference.precision();
        let mut agreed = false;
        while precision < self.ziv_max_precision {
            precision = (precision * 2).min(self.ziv_max_precision);
            let Some(reference) = self.reference_at(&current, precision) else {
                break;
            };
            let error = current.computed.error(&reference);
            let figure = |e: &ErrorMeasure| metric::figure(self.metric, e);
            agreed = agree(figure(&current.error), figure(&error));
            current.reference = reference;
            current.error = error;
            if agreed {
                break;
            }
        }
        current.ziv = Some(Ziv {
            precision: current.reference.precision(),
            agreed,
        });
        current
    }

    /// The oracle's value for `finding`'s output at `precision` bits.
    fn reference_at(&mut self, finding: &ErrorFinding, precision: u32) -> Option<HighValue> {
        if !matches!(self.oracle, Oracle::ReExecution) {
            let operands = oracle::operands(self.plan.spec(), &finding.test)?;
            return self.oracle.value(precision, &operands);
        }
        let i = match self.ladder.iter().position(|(p, _)| *p == precision) {
            Some(i) => i,
            None => {
                let interp = Interpreter::new(
                    self.module,
                    HighPrecision::new(precision),
                    BranchTrace::default(),
                    self.exec.clone(),
                )
                .ok()?;
                self.ladder.push((precision, interp));
                self.ladder.len() - 1
            }
        };
        let interp = &mut self.ladder[i].1;
        let run = interp.call(self.func, finding.test.args()).ok()?;
        let Outcome::Returned(value) = run.outcome else {
            return None;
        };
        match (finding.output, &self.measured) {
            (OutputLoc::Return, Measured::Return(r)) => r.reference(interp, value),
            (OutputLoc::Return, Measured::Arrays(_)) => None,
            (OutputLoc::Element { param, index }, Measured::Arrays(arrays)) => {
                let a = arrays.iter().find(|a| a.param == param)?;
                array_value(interp, a, index)
            }
            (OutputLoc::Element { .. }, Measured::Return(_)) => None,
        }
    }
}

/// The function's integer return, when it returns an integer: a status beside the
/// measured output.
fn status(ret: Option<Type>, returned: Option<u64>) -> Option<i64> {
    let ret = ret?;
    let bits = returned?;
    matches!(ret, Type::Int(_)).then(|| ret.sign_extend(bits))
}

/// Element `k` of output array `a` in the memory of a high-precision run.
fn array_value(
    interp: &Interpreter<'_, HighPrecision, BranchTrace>,
    a: &OutArray,
    k: usize,
) -> Option<HighValue> {
    let sem = interp.semantics();
    let base = sem.slot_address(InputSlot(a.first_slot))?;
    let size = u64::from(Type::Float(a.elem).bytes());
    sem.memory_value(interp.memory(), a.elem, base + size * k as u64)
}

/// Whether two errors agree to 2 digits (equal infinities and zeros agree).
fn agree(a: f64, b: f64) -> bool {
    a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= 0.01 * a.abs().max(b.abs()))
}

/// What is measured: the output arrays when there are any (their first elements only
/// when `first_only`), else a float return value or a `long double` result.
fn measured_outputs(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    first_only: bool,
) -> Result<Measured, AccuracyError> {
    let mut arrays = Vec::new();
    let mut long_double_slot = None;
    let mut slot = 0u32;
    let mut arg_index = 0usize;
    for (param, p) in spec.params().iter().enumerate() {
        match *p {
            ParamInput::Scalar { .. }
            | ParamInput::Fixed { .. }
            | ParamInput::LongDouble { .. }
            | ParamInput::LongDoubleExponent => slot += 1,
            ParamInput::Pointee { .. } => {
                slot += 1;
                arg_index += 1;
            }
            ParamInput::LongDoubleResult => {
                long_double_slot = Some(Returned::LongDoubleSlot {
                    arg_index,
                    first_slot: slot,
                });
                slot += 2;
                arg_index += 1;
            }
            ParamInput::Array { len, .. } => {
                slot += len as u32;
                arg_index += 1;
            }
            // Neither comes back among the run's arrays.
            ParamInput::Vector { len, .. } => slot += len as u32,
            ParamInput::Struct { ref fields, .. } => {
                slot += fields.iter().filter(|f| f.ty != Type::Ptr).count() as u32;
            }
            ParamInput::Output { elem, len } => {
                if let Some(ft) = elem.as_float() {
                    arrays.push(OutArray {
                        param,
                        arg_index,
                        first_slot: slot,
                        elem: ft,
                        measured: if first_only { 1 } else { len },
                    });
                }
                slot += len as u32;
                arg_index += 1;
            }
        }
    }
    if !arrays.is_empty() {
        return Ok(Measured::Arrays(arrays));
    }
    let f = &module.funcs[func];
    match (f.ret.and_then(Type::as_float), long_double_slot) {
        (Some(ty), _) => Ok(Measured::Return(Returned::Register(ty))),
        (None, Some(slot)) => Ok(Measured::Return(slot)),
        (None, None) => Err(AccuracyError::NothingToMeasure(f.name.clone())),
    }
}
