//! Measuring one candidate input: a concrete run (with FPGen's checks observed) gives
//! the computed result, a [`HighPrecision`] run gives the reference, and
//! [`fpforge_mpfr::measure`] the error: on the return value, or, with output arrays, the
//! largest over their elements (with the element).

use crate::config::AccuracyConfig;
use crate::error::AccuracyError;
use crate::targets::{CheckObserver, Targets};
use fpforge_exec::{BranchTrace, Concrete, ExecConfig, InputSlot, Interpreter, Outcome, Trap};
use fpforge_mpfr::{measure, ErrorMeasure, HighPrecision, HighValue};
use fpforge_spec::plan::{InputPlan, Test};
use fpforge_spec::{InputSpec, ParamInput};
use fpir::{FloatTy, Func, Module, Type};

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
pub struct Finding {
    /// The input.
    pub test: Test,
    /// Where the largest error is.
    pub output: OutputLoc,
    /// Format of that result.
    pub ty: FloatTy,
    /// The computed IEEE result (raw bits).
    pub computed: u64,
    /// The high-precision reference.
    pub reference: HighValue,
    /// The error of `computed` against `reference`.
    pub error: ErrorMeasure,
    /// Whether the reference run took other branches than the concrete run (then the
    /// error includes the effect of a different path, e.g. another pivot).
    pub diverged: bool,
}

/// An output array measured after a run.
#[derive(Clone, Debug)]
struct OutArray {
    param: usize,
    /// Index among the run's array arguments.
    arg_index: usize,
    first_slot: u32,
    elem: FloatTy,
    len: usize,
}

#[derive(Clone, Debug)]
enum Measured {
    Return(FloatTy),
    Arrays(Vec<OutArray>),
}

/// Runs candidates concretely and at high precision and measures their error.
pub struct Measurer<'m> {
    func: Func,
    plan: InputPlan,
    measured: Measured,
    concrete: Interpreter<'m, Concrete, CheckObserver>,
    high: Interpreter<'m, HighPrecision, BranchTrace>,
    verify: Option<Interpreter<'m, HighPrecision, BranchTrace>>,
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
        let spec = InputSpec::for_function(module, func, &config.args, &config.out_args)?;
        let measured = measured_outputs(module, func, &spec)?;
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
            func,
            plan,
            measured,
            concrete,
            high,
            verify,
            last_trap: None,
            exec,
        })
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
    pub fn measure(&mut self, test: &Test) -> Option<Finding> {
        self.measure_with(test, false)
    }

    /// Runs `test` concretely and at the verification precision (the working precision
    /// when there is none).
    pub fn measure_verified(&mut self, test: &Test) -> Option<Finding> {
        self.measure_with(test, true)
    }

    fn measure_with(&mut self, test: &Test, verified: bool) -> Option<Finding> {
        self.concrete.observer_mut().clear();
        let run = self.concrete.call(self.func, test.args()).ok()?;
        self.last_trap = match &run.outcome {
            Outcome::Trapped(trap) => Some(trap.clone()),
            Outcome::Returned(_) | Outcome::Threw(_) => None,
        };
        let reference = match (verified, self.verify.as_mut()) {
            (true, Some(v)) => v,
            _ => &mut self.high,
        };
        reference.observer_mut().clear();
        let high = reference.call(self.func, test.args()).ok()?;
        let diverged = reference.observer().events != self.concrete.observer().branches;
        match &self.measured {
            Measured::Return(ty) => {
                let (Outcome::Returned(Some(bits)), Outcome::Returned(Some(v))) =
                    (run.outcome, high.outcome)
                else {
                    return None;
                };
                let reference = reference.semantics().high_value(*ty, &v);
                Some(Finding {
                    test: test.clone(),
                    output: OutputLoc::Return,
                    ty: *ty,
                    computed: bits,
                    error: measure(*ty, bits, &reference),
                    reference,
                    diverged,
                })
            }
            Measured::Arrays(arrays) => {
                if !matches!(run.outcome, Outcome::Returned(_))
                    || !matches!(high.outcome, Outcome::Returned(_))
                {
                    return None;
                }
                let sem = reference.semantics();
                let mem = reference.memory();
                let mut best: Option<Finding> = None;
                for a in arrays {
                    let base = sem.slot_address(InputSlot(a.first_slot))?;
                    let size = u64::from(Type::Float(a.elem).bytes());
                    for k in 0..a.len {
                        let computed = *run.arrays.get(a.arg_index)?.get(k)?;
                        let reference = sem.memory_value(mem, a.elem, base + size * k as u64)?;
                        let error = measure(a.elem, computed, &reference);
                        if best.as_ref().is_none_or(|b| worse(&error, &b.error)) {
                            best = Some(Finding {
                                test: test.clone(),
                                output: OutputLoc::Element {
                                    param: a.param,
                                    index: k,
                                },
                                ty: a.elem,
                                computed,
                                reference,
                                error,
                                diverged,
                            });
                        }
                    }
                }
                best
            }
        }
    }
}

/// Whether error `a` ranks above `b` (larger relative error; NaN never ranks).
pub fn worse(a: &ErrorMeasure, b: &ErrorMeasure) -> bool {
    a.rel > b.rel || (a.rel == b.rel && a.ulps > b.ulps)
}

/// What is measured: the output arrays when there are any, else a float return value.
fn measured_outputs(
    module: &Module,
    func: Func,
    spec: &InputSpec,
) -> Result<Measured, AccuracyError> {
    let mut arrays = Vec::new();
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
                        len,
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
    match f.ret.and_then(Type::as_float) {
        Some(ty) => Ok(Measured::Return(ty)),
        None => Err(AccuracyError::NothingToMeasure(f.name.clone())),
    }
}
