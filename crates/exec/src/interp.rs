//! The interpreter: [`Interpreter::call`] runs one function of a module to completion.
//!
//! `step` (the submodule of that name) executes one prepared op and returns a `Control`
//! value (next, jump, call, return, trap); it touches registers, memory, the semantics
//! and the observer but never control state. The driver loop ([`Interpreter::call`]) owns control: the current
//! function, pc and frame base, the frame stack, block-parameter copies, fuel and call
//! depth. Registers of all live frames sit in one stack of values; a call lays the
//! callee's frame template (its constants already in place) out above the caller's frame,
//! unless the registers there still hold it from an earlier call of the same function at
//! the same place (`Interpreter::laid`), and a return leaves it there, so calls allocate
//! nothing once the stack has grown and repeated calls copy nothing.
//!
//! The `unsafe` code reads and writes registers, fetches ops and follows edges without
//! bounds checks: the driver slices the current frame to exactly the function's register
//! count, and preparation rejects any op naming a register outside it, and checks that
//! the code ends in a terminator and that every edge and its moves are in range (see
//! `prepare`). Fuel is checked where control moves rather than before every op (see
//! `Interpreter::run`), with the same result.

mod step;

use crate::env::RunEnv;
use crate::fenv::{EnvModel, FloatEnv};
use crate::jit::{Entry, Jit};
use crate::memory::Memory;
use crate::observer::Observer;
use crate::prepare::{prepare, FuncCode, Op, Program, Slot, DIRECT, NONE};
use crate::semantics::{InputSlot, Semantics};
use crate::streams::ProgramOutput;
use crate::trap::{CallSite, ExecError, Trap, TrapKind, MAX_STACK};
use crate::unwind::{CxxAbi, Thrown};
use fpforge_spec::Arg;
use fpir::eval::RoundingMode;
use fpir::{Builtin, EntityId, Func, Module, Type};
use std::time::Instant;
use step::{Control, Machine, Step};

/// Whether any function of the program calls a `<fenv.h>` function.
fn calls_fenv(prog: &Program) -> bool {
    prog.funcs
        .iter()
        .flat_map(|fc| &fc.code)
        .any(|op| matches!(op, Op::Builtin { b: Builtin::Libc(f), .. } if f.is_fenv()))
}

/// Limits of one run. Build with [`ExecConfig::default`] and the `with_*` methods.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExecConfig {
    /// Instruction budget per call, in executed ops (see [`Run::steps`]); default 100 000 000.
    pub fuel: u64,
    /// Maximum call depth; default 50 000.
    pub max_depth: u32,
    /// Stack budget in bytes for `alloca`s; default 8 MiB (the Linux default).
    pub stack_bytes: u64,
    /// Heap budget in bytes (array arguments included); default 64 MiB.
    pub heap_bytes: u64,
    /// When a semantics that is exactly [`crate::Concrete`]'s
    /// ([`Semantics::COMPILABLE`]), under an observer that does not watch float
    /// operations, runs functions as native code (same results, branch events and steps;
    /// a run that would trap is replayed in the interpreter, which reports the trap).
    /// Default [`Compilation::WhenHot`].
    pub compile: Compilation,
    /// The rounding mode every run starts in (`fesetround` changes it within a run);
    /// default [`RoundingMode::Nearest`]. Another mode, or a program calling a
    /// `<fenv.h>` function, runs every floating-point operation in the modelled
    /// environment of [`crate::fenv`], in the interpreter.
    pub rounding: RoundingMode,
    /// When an interpreted run stops with [`TrapKind::DeadlinePassed`] (default: never).
    /// The clock is read every [`DEADLINE_CHECK_STEPS`] steps; native runs
    /// ([`ExecConfig::compile`]) are bounded by their fuel alone.
    pub deadline: Option<Instant>,
}

/// Interpreted steps between readings of the clock when a run has a deadline: about a
/// millisecond of concrete interpretation, tens of milliseconds of concolic.
pub const DEADLINE_CHECK_STEPS: u64 = 1 << 15;

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            fuel: 100_000_000,
            max_depth: 50_000,
            stack_bytes: 8 << 20,
            heap_bytes: 64 << 20,
            compile: Compilation::WhenHot,
            rounding: RoundingMode::Nearest,
            deadline: None,
        }
    }
}

impl ExecConfig {
    /// Sets [`ExecConfig::fuel`].
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }

    /// Sets [`ExecConfig::max_depth`].
    pub fn with_max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`ExecConfig::stack_bytes`].
    pub fn with_stack_bytes(mut self, stack_bytes: u64) -> Self {
        self.stack_bytes = stack_bytes;
        self
    }

    /// Sets [`ExecConfig::heap_bytes`].
    pub fn with_heap_bytes(mut self, heap_bytes: u64) -> Self {
        self.heap_bytes = heap_bytes;
        self
    }

    /// Sets [`ExecConfig::compile`].
    pub fn with_compile(mut self, compile: Compilation) -> Self {
        self.compile = compile;
        self
    }

    /// Sets [`ExecConfig::deadline`].
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Sets [`ExecConfig::rounding`].
    pub fn with_rounding(mut self, rounding: RoundingMode) -> Self {
        self.rounding = rounding;
        self
    }

    /// The limits that change what a run computes, by name, in a fixed order: what an
    /// engine that holds an `ExecConfig` puts in its settings (`fpforge_engine::Settings`,
    /// a crate above this one). Written by destructuring, so a new field does not compile
    /// until it is decided here.
    pub fn named_settings(&self) -> [(&'static str, String); 5] {
        let ExecConfig {
            fuel,
            max_depth,
            stack_bytes,
            heap_bytes,
            // Native code computes the interpreter's results bit for bit: how fast, not what.
            compile: _,
            rounding,
            // When one run's clock ends: the engine's budget says how long a run may take.
            deadline: _,
        } = self;
        [
            ("fuel", fuel.to_string()),
            ("max_depth", max_depth.to_string()),
            ("stack_bytes", stack_bytes.to_string()),
            ("heap_bytes", heap_bytes.to_string()),
            ("rounding", rounding.name().to_string()),
        ]
    }
}

/// When functions run as native code (see [`ExecConfig::compile`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compilation {
    /// Never: the interpreter alone.
    Off,
    /// Once the interpreter has run a function long enough for compiling it to pay off
    /// (executed steps in proportion to the size of its code): searches that evaluate a
    /// function a few hundred times never wait for a compiler.
    WhenHot,
    /// On the first call of each function.
    Eager,
}

/// How a run ended.
#[derive(Clone, PartialEq, Debug)]
pub enum Outcome<V> {
    /// The function returned (with a value unless it returns void).
    Returned(Option<V>),
    /// The program trapped (including `exit`).
    Trapped(Trap),
    /// A C++ exception escaped the function: an outcome of the call like a return value,
    /// not a fault (`std::terminate` is [`TrapKind::Terminate`]).
    Threw(Thrown),
}

/// The result of one [`Interpreter::call`].
#[derive(Clone, PartialEq, Debug)]
pub struct Run<V> {
    /// How it ended.
    pub outcome: Outcome<V>,
    /// Final contents (raw bits) of the [`Arg::Array`] arguments, in argument order.
    pub arrays: Vec<Vec<u64>>,
    /// Ops executed: one per instruction and per taken terminator, except that a
    /// comparison and the branch on it count once, jumps that preparation threads
    /// through or lays out as fall-through count zero, and a call of a small leaf that
    /// preparation inlines counts its body (plus a copy when it returns a parameter or
    /// constant, and a stack save and restore when it has allocas) instead of call and
    /// return.
    pub steps: u64,
}

/// Where [`Interpreter::enter`] puts the arguments.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// In the bottom frame, for the driver loop.
    Frame,
    /// In `Jit::args`, for a compiled run.
    Compiled,
}

/// A caller's state saved across a call.
#[derive(Clone, Copy, Debug)]
struct Frame {
    func: u32,
    pc: u32,
    base: usize,
    dest: Slot,
    mark: u64,
}

/// Runs functions of one module under semantics `S`, reporting to observer `O`.
pub struct Interpreter<'m, S: Semantics, O: Observer> {
    module: &'m Module,
    prog: Program,
    abi: CxxAbi,
    templates: Vec<Vec<S::Value>>,
    config: ExecConfig,
    m: Machine<S, O>,
    /// Registers of every live frame, bottom frame first, and of frames that returned.
    regs: Vec<S::Value>,
    /// Per call depth, the function and base of the frame whose template `regs` still
    /// holds there: constant slots are never written (preparation checks that no
    /// instruction or block parameter defines a constant register) and every other
    /// register is written before it is read (SSA), so a call of the same function at
    /// the same depth and base, in this run or a later one, need not copy the template
    /// again. Laying out another frame at a depth forgets the deeper entries, whose
    /// registers it may overwrite; a frame only ever writes its own registers.
    laid: Vec<(u32, usize)>,
    /// Saved callers.
    frames: Vec<Frame>,
    /// Native code of the program, when [`ExecConfig::compile`] applies.
    jit: Option<Jit>,
    /// Calls that ran to completion as native code.
    compiled_runs: u64,
}

impl<'m, S: Semantics, O: Observer> Interpreter<'m, S, O> {
    /// Lays out memory and the run's environment, prepares the code and builds every
    /// function's frame template.
    pub fn new(
        module: &'m Module,
        mut semantics: S,
        observer: O,
        config: ExecConfig,
    ) -> Result<Self, ExecError> {
        let mem = Memory::new(module, config.stack_bytes, config.heap_bytes)?;
        let prog = prepare(module, &mem, S::CONCRETE_MEMORY)?;
        let env_model = if config.rounding != RoundingMode::Nearest || calls_fenv(&prog) {
            EnvModel::Exact
        } else {
            EnvModel::Native
        };
        let env = RunEnv::new(module, &mem, FloatEnv::new(env_model, config.rounding));
        let abi = CxxAbi::new(module, &mem);
        let templates = prog
            .funcs
            .iter()
            .map(|fc| {
                let mut t: Vec<S::Value> = fc
                    .reg_types
                    .iter()
                    .map(|&ty| semantics.constant(ty, 0))
                    .collect();
                for c in &fc.consts {
                    t[c.slot as usize] = semantics.constant(c.ty, c.bits);
                }
                t
            })
            .collect();
        Ok(Interpreter {
            module,
            prog,
            abi,
            templates,
            m: Machine {
                sem: semantics,
                obs: observer,
                mem,
                env,
                scratch: Vec::new(),
                pending: None,
            },
            regs: Vec::new(),
            laid: Vec::new(),
            frames: Vec::new(),
            // Compiled code rounds to nearest and keeps no flags.
            jit: (config.compile != Compilation::Off
                && S::COMPILABLE
                && !O::OBSERVES_OPS
                && env_model == EnvModel::Native)
                .then(|| Jit::new(config.compile == Compilation::Eager))
                .flatten(),
            compiled_runs: 0,
            config,
        })
    }

    /// The module being run.
    pub fn module(&self) -> &'m Module {
        self.module
    }

    /// The limits in force.
    pub fn config(&self) -> &ExecConfig {
        &self.config
    }

    /// The observer.
    pub fn observer(&self) -> &O {
        &self.m.obs
    }

    /// The observer, mutably (to clear it between runs).
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.m.obs
    }

    /// The semantics.
    pub fn semantics(&self) -> &S {
        &self.m.sem
    }

    /// The semantics, mutably.
    pub fn semantics_mut(&mut self) -> &mut S {
        &mut self.m.sem
    }

    /// Memory as the last run left it.
    pub fn memory(&self) -> &Memory {
        &self.m.mem
    }

    /// What the last run wrote to `stdout` and `stderr` and left in `errno`.
    pub fn output(&self) -> ProgramOutput {
        self.m.env.output(&self.m.mem)
    }

    /// The floating-point environment as the last run left it (its rounding mode and
    /// raised exceptions).
    pub fn float_env(&self) -> &FloatEnv {
        self.m.env.float_env()
    }

    /// Gives back the semantics and the observer.
    pub fn into_parts(self) -> (S, O) {
        (self.m.sem, self.m.obs)
    }

    /// How many calls so far ran to completion as native code (see
    /// [`ExecConfig::compile`]); the others ran in the interpreter.
    pub fn compiled_runs(&self) -> u64 {
        self.compiled_runs
    }

    /// Runs `func` on `args` from a fresh memory state (initial globals, empty stack and
    /// heap), so runs are independent and deterministic.
    pub fn call(&mut self, func: Func, args: &[Arg]) -> Result<Run<S::Value>, ExecError> {
        self.call_with(func, args, None)
    }

    /// Calls a C `main`: `main(argc, argv)` with `argv` laid out in the program's memory
    /// as C does it (NUL-terminated strings, a NULL after the last), or `main()` when it
    /// takes no parameters (`argv` is then ignored).
    pub fn call_main(&mut self, func: Func, argv: &[String]) -> Result<Run<S::Value>, ExecError> {
        let params = self.module.funcs.get(func).map_or(0, |f| f.params().len());
        if params == 0 {
            return self.call(func, &[]);
        }
        let argc = Arg::Scalar(argv.len() as u64);
        // The second argument's bits are replaced by the address of the laid-out array.
        self.call_with(func, &[argc, Arg::Scalar(0)], Some(argv))
    }

    fn call_with(
        &mut self,
        func: Func,
        args: &[Arg],
        argv: Option<&[String]>,
    ) -> Result<Run<S::Value>, ExecError> {
        let prog = &self.prog;
        let entry = self.jit.as_mut().and_then(|jit| jit.entry(prog, func.0));
        let mut done = None;
        let mut arrays = Vec::new();
        if let Some(entry) = entry {
            arrays = self.enter(func, args, argv, Placement::Compiled)?;
            done = self.run_compiled(func, entry);
        }
        let (outcome, steps) = match done {
            Some(done) => {
                self.compiled_runs += 1;
                done
            }
            None => {
                // Not compiled, or the compiled run stopped short: the interpreter runs
                // the call from a fresh memory state.
                arrays = self.enter(func, args, argv, Placement::Frame)?;
                let (outcome, steps) = self.run(func.0);
                if let Some(jit) = &mut self.jit {
                    jit.interpreted(func.0, steps);
                }
                (outcome, steps)
            }
        };
        let mem = &self.m.mem;
        let arrays = if arrays.is_empty() {
            Vec::new()
        } else {
            arrays
                .into_iter()
                .map(|(addr, elem, n)| {
                    let esize = u64::from(elem.bytes());
                    (0..n as u64)
                        .map(|k| mem.peek(elem, addr + esize * k).unwrap_or(0))
                        .collect()
                })
                .collect()
        };
        Ok(Run {
            outcome,
            arrays,
            steps,
        })
    }

    /// Runs `func`, compiled and whose arguments [`Interpreter::enter`] has placed, as
    /// native code; `None` when the run must be replayed in the interpreter.
    fn run_compiled(&mut self, func: Func, entry: Entry) -> Option<(Outcome<S::Value>, u64)> {
        let jit = self.jit.as_mut()?;
        let m = &mut self.m;
        let (fuel, max_depth) = (self.config.fuel, self.config.max_depth);
        let done = jit.run(entry, &mut m.mem, &mut m.env.float, fuel, max_depth)?;
        if O::OBSERVES_BRANCHES {
            jit.report_events(&mut m.obs);
        }
        let value = self.module.funcs[func]
            .ret
            .map(|ty| m.sem.constant(ty, done.bits));
        Some((Outcome::Returned(value), done.steps))
    }

    /// Resets memory, the run's environment and the semantics, then places `args` (array arguments in fresh
    /// heap blocks) in the bottom frame of `func`, laid out for it, or as bits in
    /// `Jit::args` for a compiled run; returns the arrays' places.
    fn enter(
        &mut self,
        func: Func,
        args: &[Arg],
        argv: Option<&[String]>,
        place: Placement,
    ) -> Result<Vec<(u64, Type, usize)>, ExecError> {
        let fc = self
            .prog
            .funcs
            .get(func.index())
            .ok_or(ExecError::UnknownFunc(func))?;
        if args.len() != fc.params.len() {
            return Err(ExecError::ArgCount {
                func,
                expected: fc.params.len(),
                got: args.len(),
            });
        }
        let m = &mut self.m;
        m.mem.reset();
        m.env.reset();
        m.sem.begin_run();
        let argv_addr = argv.map(|a| lay_out_argv(&mut m.mem, a)).transpose()?;
        // Compiled runs take their arguments as bits and need no frame.
        let mut compiled = match (&mut self.jit, place) {
            (Some(jit), Placement::Compiled) => {
                jit.args.clear();
                Some(&mut jit.args)
            }
            _ => {
                self.frames.clear();
                lay_frame(
                    &mut self.regs,
                    &mut self.laid,
                    &self.templates[func.index()],
                    0,
                    func.0,
                    0,
                );
                None
            }
        };
        let mut slot = 0u32;
        let mut arrays = Vec::new();
        for (index, (arg, &p)) in args.iter().zip(&fc.params).enumerate() {
            let ty = fc.reg_types[p as usize];
            let value = match arg {
                Arg::Scalar(_) if index == 1 && argv_addr.is_some() => {
                    m.sem.address(argv_addr.unwrap_or(0))
                }
                Arg::Scalar(bits) => {
                    slot += 1;
                    m.sem.input(InputSlot(slot - 1), ty, bits & ty.mask())
                }
                Arg::Array { .. } if ty != Type::Ptr => {
                    return Err(ExecError::ArgType {
                        func,
                        index,
                        message: format!("an array passed for a parameter of type {ty}"),
                    });
                }
                Arg::Array { elem, values } => {
                    let elem = *elem;
                    let esize = u64::from(elem.bytes());
                    let size = esize
                        .checked_mul(values.len() as u64)
                        .ok_or(ExecError::ArgsTooLarge)?;
                    let addr = m.mem.malloc(size).map_err(|_| ExecError::ArgsTooLarge)?;
                    if addr == 0 {
                        return Err(ExecError::ArgsTooLarge);
                    }
                    for (k, &bits) in values.iter().enumerate() {
                        let v = m.sem.input(InputSlot(slot), elem, bits & elem.mask());
                        slot += 1;
                        m.sem
                            .store(&mut m.mem, elem, addr + esize * k as u64, &v)
                            .map_err(|_| ExecError::ArgsTooLarge)?;
                    }
                    arrays.push((addr, elem, values.len()));
                    m.sem.address(addr)
                }
                Arg::Block { .. } | Arg::Vector { .. } if ty != Type::Ptr => {
                    return Err(ExecError::ArgType {
                        func,
                        index,
                        message: format!("a struct or vector passed for a parameter of type {ty}"),
                    });
                }
                Arg::Block { size, cells } => {
                    let addr = m.mem.malloc(*size).map_err(|_| ExecError::ArgsTooLarge)?;
                    if addr == 0 {
                        return Err(ExecError::ArgsTooLarge);
                    }
                    for cell in cells {
                        let v = match cell.ty {
                            Type::Ptr => m.sem.address(cell.bits),
                            ty => {
                                slot += 1;
                                m.sem.input(InputSlot(slot - 1), ty, cell.bits & ty.mask())
                            }
                        };
                        m.sem
                            .store(&mut m.mem, cell.ty, addr + cell.offset, &v)
                            .map_err(|_| ExecError::ArgsTooLarge)?;
                    }
                    m.sem.address(addr)
                }
                Arg::Vector { elem, values } => {
                    let esize = u64::from(elem.bytes());
                    let size = esize
                        .checked_mul(values.len() as u64)
                        .ok_or(ExecError::ArgsTooLarge)?;
                    let data = m
                        .mem
                        .malloc(size.max(1))
                        .map_err(|_| ExecError::ArgsTooLarge)?;
                    let header = m.mem.malloc(24).map_err(|_| ExecError::ArgsTooLarge)?;
                    if data == 0 || header == 0 {
                        return Err(ExecError::ArgsTooLarge);
                    }
                    for (k, &bits) in values.iter().enumerate() {
                        let v = m.sem.input(InputSlot(slot), *elem, bits & elem.mask());
                        slot += 1;
                        m.sem
                            .store(&mut m.mem, *elem, data + esize * k as u64, &v)
                            .map_err(|_| ExecError::ArgsTooLarge)?;
                    }
                    // libstdc++'s `_Vector_impl_data`: start, finish, end of storage.
                    for (at, pointer) in [(0, data), (8, data + size), (16, data + size)] {
                        let v = m.sem.address(pointer);
                        m.sem
                            .store(&mut m.mem, Type::Ptr, header + at, &v)
                            .map_err(|_| ExecError::ArgsTooLarge)?;
                    }
                    m.sem.address(header)
                }
            };
            match compiled.as_mut() {
                Some(bits) => bits.push(m.sem.concrete_bits(&value)),
                None => self.regs[p as usize] = value,
            }
        }
        Ok(arrays)
    }

    /// The driver loop, from the entry of `entry` whose frame is set up at the bottom of
    /// the register stack.
    ///
    /// Each turn of the outer loop is one activation of `fc`, which runs until a call,
    /// return or trap. Ops between two control transfers form a segment starting at
    /// `seg`; their steps are counted when control leaves the segment, and fuel is
    /// checked there too. A segment never runs past the end of `code` (preparation: it
    /// ends in a terminator), so while `steps < fuel - code.len()` no op inside the next
    /// segment can exhaust the fuel; closer to the limit the careful loop checks before
    /// every op, exactly where a per-op check would trap.
    ///
    /// A *valid pc* is one inside `code`: 0, a return address (the op after a call, never
    /// the last op since the last op is a terminator), `pc + 1` after an op that is not a
    /// terminator, or an edge target; preparation checks that the code is non-empty, ends
    /// in a terminator and that every edge target is inside the code
    /// (`prepare::check_code`). The op fetches rely on it.
    ///
    /// The floating-point environment's model is fixed for the whole run, so the loop is
    /// compiled once per model and no float operation tests it.
    fn run(&mut self, entry: u32) -> (Outcome<S::Value>, u64) {
        if self.m.env.float.is_native() {
            self.run_in::<false>(entry)
        } else {
            self.run_in::<true>(entry)
        }
    }

    /// [`Self::run`] in the native (`EXACT_ENV = false`) or the modelled environment.
    fn run_in<const EXACT_ENV: bool>(&mut self, entry: u32) -> (Outcome<S::Value>, u64) {
        let prog = &self.prog;
        let abi = &self.abi;
        let templates = &self.templates;
        let module = self.module;
        let m = &mut self.m;
        let regs = &mut self.regs;
        let laid = &mut self.laid;
        let frames = &mut self.frames;
        let mut budget = StepBudget::of(&self.config);
        let max_depth = self.config.max_depth as usize;
        let mut func = entry;
        let mut fc = &prog.funcs[func as usize];
        let mut pc = 0usize;
        let mut base = 0usize;
        let mut mark = m.mem.stack_pointer();
        let mut steps = 0u64;
        loop {
            let frame = &mut regs[base..base + fc.nregs as usize];
            let code = &fc.code[..];
            // Below `limit`, the next segment cannot reach the step budget.
            let limit = budget.next.saturating_sub(code.len() as u64);
            let mut seg = pc;
            macro_rules! fetch {
                () => {{
                    debug_assert!(pc < code.len());
                    // SAFETY: `pc` is a valid pc (see the function's docs).
                    unsafe { code.get_unchecked(pc) }
                }};
            }
            // One `Step` per activation: built per op, its eleven words were stored anew
            // before every dispatch (measured: 12 instructions per op, a third of an
            // interpreted musl call).
            let mut s = Step::<S, O, EXACT_ENV>::new(m, frame, prog, fc, module, mark);
            let control = 'activation: {
                if steps < limit {
                    // `op` points at the op at a valid pc; walking a pointer saves the
                    // index arithmetic of every dispatch (measured: 3 instructions per
                    // op, 3-9 % of a musl call), and `pc` is derived from it where control
                    // leaves the segment.
                    let start = code.as_ptr();
                    // SAFETY: `pc` is a valid pc, so `start + pc` is inside `code`.
                    let mut op = unsafe { start.add(pc) };
                    loop {
                        debug_assert!(code.as_ptr_range().contains(&op));
                        // SAFETY: `op` points at the op at a valid pc, inside `code`.
                        let this = unsafe { &*op };
                        match s.exec(this) {
                            // SAFETY: only an op that is not a terminator continues, and
                            // the code ends in a terminator, so the next op is inside.
                            Control::Next => op = unsafe { op.add(1) },
                            Control::Jump(edge) => {
                                // SAFETY: `op` and `start` point into `code`.
                                pc = unsafe { op.offset_from(start) } as usize;
                                steps += (pc + 1 - seg) as u64;
                                pc = s.take_edge(edge);
                                seg = pc;
                                // SAFETY: an edge target is a valid pc.
                                op = unsafe { start.add(pc) };
                                if steps >= limit {
                                    break;
                                }
                            }
                            other => {
                                // SAFETY: `op` and `start` point into `code`.
                                pc = unsafe { op.offset_from(start) } as usize;
                                steps += (pc + 1 - seg) as u64;
                                break 'activation other;
                            }
                        }
                    }
                }
                // Careful: one op at a time against the step budget.
                loop {
                    if steps >= budget.next {
                        if let Err(kind) = budget.renew(steps) {
                            break s.trap(kind);
                        }
                        // Back to the fast path, at the same pc, with the new budget.
                        break 'activation Control::Next;
                    }
                    steps += 1;
                    match s.exec(fetch!()) {
                        Control::Next => pc += 1,
                        Control::Jump(edge) => pc = s.take_edge(edge),
                        other => break other,
                    }
                }
            };
            match control {
                // Handled inside the activation loop.
                Control::Next | Control::Jump(_) => {}
                Control::Call {
                    func: callee,
                    dest,
                    start,
                    len,
                } => {
                    if frames.len() >= max_depth {
                        let trap = trap_at(prog, frames, func, pc, TrapKind::StackOverflow);
                        return (Outcome::Trapped(trap), steps);
                    }
                    let cfc = &prog.funcs[callee as usize];
                    let new_base = base + fc.nregs as usize;
                    let template = &templates[callee as usize];
                    lay_frame(regs, laid, template, frames.len() + 1, callee, new_base);
                    let args = &fc.args[start as usize..(start + len) as usize];
                    pass_args(regs, args, base, &cfc.params, new_base);
                    frames.push(Frame {
                        func,
                        pc: pc as u32 + 1,
                        base,
                        dest,
                        mark,
                    });
                    func = callee;
                    fc = cfc;
                    pc = 0;
                    base = new_base;
                    mark = m.mem.stack_pointer();
                }
                Control::Ret(slot) => {
                    let value = (slot != NONE).then(|| regs[base + slot as usize].clone());
                    m.mem.stack_release(mark);
                    let Some(frame) = frames.pop() else {
                        return (Outcome::Returned(value), steps);
                    };
                    func = frame.func;
                    fc = &prog.funcs[func as usize];
                    pc = frame.pc as usize;
                    base = frame.base;
                    mark = frame.mark;
                    if frame.dest != NONE {
                        let d = frame.dest as usize;
                        // A call of a function without a result whose caller reads one.
                        let v = value.unwrap_or_else(|| m.sem.constant(fc.reg_types[d], 0));
                        regs[base + d] = v;
                    }
                }
                Control::Trap => match settle(prog, abi, m, regs, frames, (func, pc, base, mark)) {
                    Ok(landed) => {
                        (func, pc, base, mark) = landed;
                        fc = &prog.funcs[func as usize];
                    }
                    Err(outcome) => return (outcome, steps),
                },
            }
        }
    }
}

/// How many steps a run may take before it looks at its fuel and deadline again.
struct StepBudget {
    fuel: u64,
    deadline: Option<Instant>,
    /// The step count at which to look: the fuel, or with a deadline the next reading
    /// of the clock.
    next: u64,
}

impl StepBudget {
    fn of(config: &ExecConfig) -> StepBudget {
        let mut budget = StepBudget {
            fuel: config.fuel,
            deadline: config.deadline,
            next: 0,
        };
        budget.next = budget.after(0);
        budget
    }

    fn after(&self, steps: u64) -> u64 {
        match self.deadline {
            Some(_) => self.fuel.min(steps.saturating_add(DEADLINE_CHECK_STEPS)),
            None => self.fuel,
        }
    }

    /// At `steps` steps: the trap that ends the run, or the next step count to look at.
    fn renew(&mut self, steps: u64) -> Result<(), TrapKind> {
        if steps >= self.fuel {
            return Err(TrapKind::FuelExhausted);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(TrapKind::DeadlinePassed);
        }
        self.next = self.after(steps);
        Ok(())
    }
}

/// An activation: function, pc, frame base, stack mark.
type Activation = (u32, usize, usize, u64);

/// After the op at pc `at.1` of activation `at` stopped with `m.pending`: a trap ends
/// the run; a C++ exception unwinds from there, then from each caller's call, to the
/// first landing pad that takes it, whose exception and selector registers are set and
/// whose edge is taken (the activation returned is at the pad), or, with none, leaves
/// every frame and escapes.
fn settle<S: Semantics, O: Observer>(
    prog: &Program,
    abi: &CxxAbi,
    m: &mut Machine<S, O>,
    regs: &mut [S::Value],
    frames: &mut Vec<Frame>,
    at: Activation,
) -> Result<Activation, Outcome<S::Value>> {
    let exception = match m.pending.take().unwrap_or(TrapKind::Unreachable) {
        TrapKind::Raised { exception } => exception,
        kind => return Err(Outcome::Trapped(trap_at(prog, frames, at.0, at.1, kind))),
    };
    let (mut func, mut at_pc, mut base, mut mark) = at;
    loop {
        let fc = &prog.funcs[func as usize];
        let frame = &mut regs[base..base + fc.nregs as usize];
        let landed = fc.landing_at(at_pc).and_then(|landing| {
            let typeinfo = |slot: u32| m.sem.concrete_bits(&frame[slot as usize]);
            let selector = abi.selector(&m.mem, landing, exception, typeinfo)?;
            Some((landing, selector))
        });
        if let Some((landing, selector)) = landed {
            frame[landing.exception as usize] = m.sem.address(exception);
            frame[landing.selector as usize] = m.sem.constant(Type::I32, u64::from(selector));
            let pc = take_edge(&mut m.scratch, frame, fc, landing.edge);
            return Ok((func, pc, base, mark));
        }
        m.mem.stack_release(mark);
        let Some(caller) = frames.pop() else {
            return Err(Outcome::Threw(abi.describe(&m.mem, exception)));
        };
        (func, at_pc, base, mark) = (
            caller.func,
            caller.pc as usize - 1,
            caller.base,
            caller.mark,
        );
    }
}

/// Copies the caller's argument registers `args` (of the frame at `base`) into the
/// callee's parameter registers `params` (of the frame at `new_base`).
fn pass_args<V: Clone>(regs: &mut [V], args: &[u32], base: usize, params: &[u32], new_base: usize) {
    for (&a, &p) in args.iter().zip(params) {
        let v = regs[base + a as usize].clone();
        regs[new_base + p as usize] = v;
    }
}

/// Makes `regs[base..]` hold the frame template of `func`, called at call depth `depth`
/// (0 for the bottom frame), unless `laid` says it still does (see `Interpreter::laid`).
/// Every shallower depth is in `laid`.
fn lay_frame<V: Clone>(
    regs: &mut Vec<V>,
    laid: &mut Vec<(u32, usize)>,
    template: &[V],
    depth: usize,
    func: u32,
    base: usize,
) {
    if laid.get(depth) == Some(&(func, base)) {
        return;
    }
    laid.truncate(depth);
    regs.truncate(base);
    regs.extend_from_slice(template);
    laid.push((func, base));
}

fn trap_at(prog: &Program, frames: &[Frame], func: u32, pc: usize, kind: TrapKind) -> Trap {
    let fc = &prog.funcs[func as usize];
    // A call inlined where the trap is, then each frame's call (it resumes after it),
    // innermost first.
    let inlined = fc
        .inlined_at
        .get(pc)
        .copied()
        .flatten()
        .map(|loc| CallSite {
            func: Func(func),
            loc: Some(loc),
        });
    let callers = frames.iter().rev().map(|frame| {
        let caller = &prog.funcs[frame.func as usize];
        let call = frame.pc.saturating_sub(1) as usize;
        CallSite {
            func: caller.owners.get(call).copied().unwrap_or(Func(frame.func)),
            loc: caller.locs.get(call).copied().flatten(),
        }
    });
    let stack = inlined.into_iter().chain(callers).take(MAX_STACK).collect();
    Trap {
        kind,
        func: fc.owners.get(pc).copied().unwrap_or(Func(func)),
        loc: fc.locs.get(pc).copied().flatten(),
        stack,
    }
}

/// Copies block arguments along `edge` and returns the target pc.
#[inline(always)]
fn take_edge<V: Clone>(scratch: &mut Vec<V>, frame: &mut [V], fc: &FuncCode, edge: u32) -> usize {
    if edge & DIRECT != 0 {
        return (edge & !DIRECT) as usize;
    }
    debug_assert!((edge as usize) < fc.edges.len());
    // SAFETY: `edge` comes from an op of `fc`, and preparation made every such edge index
    // below `fc.edges.len()` (`prepare::check_code`).
    let e = *unsafe { fc.edges.get_unchecked(edge as usize) };
    if e.moves_len == 0 {
        return e.pc as usize;
    }
    let range = e.moves_start as usize..(e.moves_start + e.moves_len) as usize;
    debug_assert!(range.end <= fc.moves.len());
    // SAFETY: preparation checked that every edge's move range is inside `fc.moves`.
    let moves = unsafe { fc.moves.get_unchecked(range) };
    let get = |frame: &[V], slot: Slot| {
        debug_assert!((slot as usize) < frame.len());
        // SAFETY: `frame` is exactly `fc.nregs` long and preparation checked that every
        // slot of `fc.moves` is below `fc.nregs`.
        unsafe { frame.get_unchecked(slot as usize) }.clone()
    };
    let put = |frame: &mut [V], slot: Slot, v: V| {
        debug_assert!((slot as usize) < frame.len());
        // SAFETY: as for `get`.
        *unsafe { frame.get_unchecked_mut(slot as usize) } = v;
    };
    if e.parallel {
        scratch.clear();
        for &(_, src) in moves {
            scratch.push(get(frame, src));
        }
        for (&(dst, _), v) in moves.iter().zip(scratch.drain(..)) {
            put(frame, dst, v);
        }
    } else {
        for &(dst, src) in moves {
            let v = get(frame, src);
            put(frame, dst, v);
        }
    }
    e.pc as usize
}

/// `argv` in `mem`: each string NUL-terminated in its own heap block, then the array of
/// their addresses ended by NULL; returns the array's address.
fn lay_out_argv(mem: &mut Memory, argv: &[String]) -> Result<u64, ExecError> {
    let mut pointers = Vec::with_capacity(argv.len() + 1);
    for arg in argv {
        let mut bytes = arg.as_bytes().to_vec();
        bytes.push(0);
        let addr = mem
            .malloc(bytes.len() as u64)
            .ok()
            .filter(|&a| a != 0)
            .ok_or(ExecError::ArgsTooLarge)?;
        mem.write_bytes(addr, &bytes)
            .map_err(|_| ExecError::ArgsTooLarge)?;
        pointers.push(addr);
    }
    pointers.push(0);
    let array = mem
        .malloc(8 * pointers.len() as u64)
        .ok()
        .filter(|&a| a != 0)
        .ok_or(ExecError::ArgsTooLarge)?;
    for (k, &p) in pointers.iter().enumerate() {
        mem.store(Type::Ptr, array + 8 * k as u64, p)
            .map_err(|_| ExecError::ArgsTooLarge)?;
    }
    Ok(array)
}
