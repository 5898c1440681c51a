//! The compiled tier: prepared code translated to native code with Cranelift, used by
//! [`crate::Interpreter::call`] in place of the driver loop when the semantics is
//! exactly [`crate::Concrete`]'s ([`crate::Semantics::COMPILABLE`]) and the observer
//! does not watch float operations.
//!
//! A compiled run computes the same bits as the interpreter, op for op (see
//! `translate`), on the same [`Memory`] and floating-point environment, counts steps the same way and records the same
//! branch events, which are handed to the observer once the run has returned. It never
//! reports a trap: whenever the interpreter would trap (or the run would exceed the
//! fuel, a call depth of [`MAX_DEPTH`] or [`NATIVE_STACK_BUDGET`] bytes of native stack,
//! which compiled frames share with the caller's thread), the run stops and
//! [`Jit::run`] returns `None`; the caller replays the call in the interpreter from a
//! fresh memory state, which is exact because runs are independent. A function is
//! compiled with everything it calls when it is hot (see [`HOT_STEPS_PER_OP`]) or, when
//! eager, on its first call; entry points whose code the translation does not handle
//! (indirect calls) always run in the interpreter.

mod runtime;
mod translate;

use crate::fenv::FloatEnv;
use crate::memory::Memory;
use crate::observer::Observer;
use crate::prepare::{FuncCode, Program};
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module as _};
use runtime::{Ctx, Record, Tables};
use std::collections::{BTreeMap, HashMap, HashSet};
use translate::{func_signature, Translator};

/// Interpreted steps per op of code after which a function is compiled: compiling
/// costs about 30 us per op (fmod, 150 ops with what it inlines and calls: 4.5 ms),
/// and each step run compiled instead of interpreted saves about 1.5 ns, so compiling
/// pays off after some 20,000 steps per op.
const HOT_STEPS_PER_OP: u64 = 20_000;

/// Call depth at which a compiled run stops and the interpreter takes over.
pub(crate) const MAX_DEPTH: u64 = 200;

/// Native stack a compiled run may use for its frames before it stops and the
/// interpreter (whose frames are on the heap) takes over; small enough for the 2 MiB
/// stacks of spawned threads.
const NATIVE_STACK_BUDGET: u64 = 256 << 10;

/// A trampoline `(ctx, args) -> bits` that calls a compiled function with `args[..n]`,
/// and `n`. Calling it is sound when `ctx` is a live context (see `Ctx`) and `args`
/// points at `n` values.
#[derive(Clone, Copy)]
struct EntryFn(unsafe extern "C" fn(*mut Ctx, *const u64) -> u64, usize);

/// The compiled entry of a function, valid as long as the [`Jit`] that made it.
#[derive(Clone, Copy)]
pub(crate) struct Entry(EntryFn);

impl Entry {
    fn params(self) -> usize {
        self.0 .1
    }
}

/// The native code of one interpreter's program.
pub(crate) struct Jit {
    module: JITModule,
    /// Cranelift ids of the prepared functions declared so far.
    ids: HashMap<u32, FuncId>,
    /// The prepared functions whose code is defined.
    defined: HashSet<u32>,
    /// Entry trampolines by prepared function, once compiled (`None` when it cannot
    /// be).
    entries: Vec<Option<Option<EntryFn>>>,
    tables: Box<Tables>,
    records: Vec<Record>,
    /// Compile on the first call rather than when hot.
    eager: bool,
    /// Per prepared function: steps the interpreter ran it for, and the size of the code
    /// compiling it would translate (once known).
    heat: Vec<(u64, Option<u64>)>,
    /// Argument bits of the next run.
    pub args: Vec<u64>,
    next_name: u32,
    /// Set when Cranelift refused code after some of a call closure was defined: those
    /// definitions may call functions that never will be, so nothing more is compiled
    /// (entries compiled before stay valid).
    refused: bool,
}

/// The result of a compiled run that returned.
pub(crate) struct Returned {
    /// The returned bits (0 for void).
    pub bits: u64,
    pub steps: u64,
}

impl Jit {
    /// A code generator for the host, or `None` if Cranelift does not support it;
    /// `eager` compiles functions on their first call instead of when hot.
    pub(crate) fn new(eager: bool) -> Option<Jit> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        // Cranelift's IR verifier checks the translation in debug builds (tests).
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        flags.set("enable_verifier", verify).ok()?;
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let module = JITModule::new(JITBuilder::with_isa(
            isa,
            cranelift_module::default_libcall_names(),
        ));
        Some(Jit {
            module,
            ids: HashMap::new(),
            defined: HashSet::new(),
            entries: Vec::new(),
            tables: Box::default(),
            records: Vec::new(),
            eager,
            heat: Vec::new(),
            args: Vec::new(),
            next_name: 0,
            refused: false,
        })
    }

    /// Reports the branch events of the last run that returned to `obs`, in order.
    pub(crate) fn report_events<O: Observer>(&self, obs: &mut O) {
        obs.on_branches(self.records.iter().map(Record::event));
    }

    /// Runs `func` on [`Jit::args`] (raw bits, one per parameter) against `mem` in the
    /// floating-point environment `float_env`, both of which the caller has reset;
    /// `None` when the interpreter must run the call instead.
    pub(crate) fn run(
        &mut self,
        entry: Entry,
        mem: &mut Memory,
        float_env: &mut FloatEnv,
        fuel: u64,
        max_depth: u32,
    ) -> Option<Returned> {
        if self.args.len() != entry.params() {
            return None;
        }
        self.records.clear();
        let spare = self.records.spare_capacity_mut().as_mut_ptr_range();
        let mem: *mut Memory = mem;
        // SAFETY: `mem` comes from a live `&mut Memory`.
        let (sp, live_top, stack_limit) = unsafe { Memory::stack_words(mem) };
        let mut ctx = Ctx {
            bail: 0,
            steps: 0,
            fuel,
            depth: 0,
            max_depth: MAX_DEPTH.min(u64::from(max_depth)),
            stack_floor: 0,
            records_next: spare.start.cast(),
            records_end: spare.end.cast(),
            sp,
            live_top,
            stack_limit,
            mem,
            buffer: &mut self.records,
            tables: &*self.tables,
            f80_other: 0,
            float_env,
        };
        // The context lives in this frame, near the top of the stack the run will use.
        ctx.stack_floor = (&raw const ctx as u64).saturating_sub(NATIVE_STACK_BUDGET);
        // SAFETY: `entry` was compiled by this Jit for a function with `args.len()`
        // parameters, and `ctx` is live (see `Ctx`) for the whole call: its pointers come
        // from the borrows of `mem`, `float_env`, `self.records` and `self.tables` this
        // call holds.
        let bits = unsafe { (entry.0 .0)(&mut ctx, self.args.as_ptr()) };
        // SAFETY: compiled code wrote the records before `records_next` (growing the
        // buffer through `grow_records`, which keeps `records_end` its capacity's end).
        unsafe { self.records.set_len(ctx.records_len()) };
        (ctx.bail == 0).then_some(Returned {
            bits,
            steps: ctx.steps,
        })
    }

    /// The compiled entry of `func`, compiling it when it is first called hot (or, when
    /// eager, first called); `None` while it runs interpreted or when it cannot be
    /// compiled.
    #[inline]
    pub(crate) fn entry(&mut self, prog: &Program, func: u32) -> Option<Entry> {
        if let Some(Some(entry)) = self.entries.get(func as usize) {
            return entry.map(Entry);
        }
        // An unknown function is the interpreter's error to report.
        if self.refused
            || func as usize >= prog.funcs.len()
            || !(self.eager || self.hot(prog, func))
        {
            return None;
        }
        self.first_entry(prog, func).map(Entry)
    }

    /// Records that the interpreter ran `func` for `steps` steps.
    pub(crate) fn interpreted(&mut self, func: u32, steps: u64) {
        if let Some(heat) = self.heat.get_mut(func as usize) {
            heat.0 = heat.0.saturating_add(steps);
        }
    }

    /// Whether the interpreter has run `func` long enough for compiling it to pay off:
    /// [`HOT_STEPS_PER_OP`] steps per op of the code to compile.
    fn hot(&mut self, prog: &Program, func: u32) -> bool {
        let index = func as usize;
        if self.heat.len() <= index {
            self.heat.resize(prog.funcs.len().max(index + 1), (0, None));
        }
        let (steps, size) = self.heat[index];
        let size = size.unwrap_or_else(|| {
            let ops: usize = call_closure(prog, func)
                .iter()
                .map(|&f| prog.funcs[f as usize].code.len())
                .sum();
            let size = ops as u64;
            self.heat[index].1 = Some(size);
            size
        });
        steps >= size.saturating_mul(HOT_STEPS_PER_OP)
    }

    #[cold]
    fn first_entry(&mut self, prog: &Program, func: u32) -> Option<EntryFn> {
        let index = func as usize;
        let entry = self.compile(prog, func);
        if self.entries.len() <= index {
            self.entries.resize(index + 1, None);
        }
        self.entries[index] = Some(entry);
        entry
    }

    /// Compiles `func` and every function it calls that is not compiled yet, and its
    /// entry trampoline.
    fn compile(&mut self, prog: &Program, func: u32) -> Option<EntryFn> {
        let closure = call_closure(prog, func);
        if closure
            .iter()
            .any(|&f| !translate::supported(&prog.funcs[f as usize]))
        {
            return None;
        }
        let call_conv = self.module.isa().default_call_conv();
        for &f in &closure {
            if !self.ids.contains_key(&f) {
                let sig = func_signature(call_conv, prog.funcs[f as usize].params.len());
                let name = format!("f{f}");
                let id = self
                    .module
                    .declare_function(&name, Linkage::Local, &sig)
                    .ok()?;
                self.ids.insert(f, id);
            }
        }
        let mut contexts = Vec::new();
        for &f in &closure {
            if self.defined.contains(&f) {
                continue;
            }
            let fc = &prog.funcs[f as usize];
            let mut ctx = self.module.make_context();
            ctx.func.signature = func_signature(call_conv, fc.params.len());
            let mut fbc = FunctionBuilderContext::new();
            {
                let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
                let mut refs = BTreeMap::new();
                for callee in translate::callees(fc) {
                    let fref = self.module.declare_func_in_func(self.ids[&callee], b.func);
                    refs.insert(callee, fref);
                }
                Translator::new(&mut b, fc, &refs, &mut self.tables, call_conv)
                    .translate(&template(fc))
                    .ok()?;
                b.finalize(self.module.isa().frontend_config());
            }
            contexts.push((f, ctx));
        }
        let finalized = self.define_and_finalize(prog, func, contexts);
        self.refused |= finalized.is_none();
        let trampoline = finalized?;
        let code = self.module.get_finalized_function(trampoline);
        // SAFETY: the trampoline was built with exactly this signature.
        let code = unsafe {
            std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut Ctx, *const u64) -> u64>(
                code,
            )
        };
        Some(EntryFn(code, prog.funcs[func as usize].params.len()))
    }

    /// Defines the translated `contexts` and the entry trampoline of `func`, and makes
    /// them executable; `None` if Cranelift refuses any of it.
    fn define_and_finalize(
        &mut self,
        prog: &Program,
        func: u32,
        contexts: Vec<(u32, cranelift_codegen::Context)>,
    ) -> Option<FuncId> {
        for (f, mut ctx) in contexts {
            self.module.define_function(self.ids[&f], &mut ctx).ok()?;
            self.defined.insert(f);
        }
        let trampoline = self.trampoline(prog, func)?;
        self.module.finalize_definitions().ok()?;
        Some(trampoline)
    }

    /// `(ctx, args) -> bits`: loads the parameters of `func` from `args` and calls it.
    fn trampoline(&mut self, prog: &Program, func: u32) -> Option<FuncId> {
        let call_conv = self.module.isa().default_call_conv();
        let mut sig = Signature::new(call_conv);
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        self.next_name += 1;
        let name = format!("entry{}", self.next_name);
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &sig)
            .ok()?;
        let mut ctx = self.module.make_context();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(1, self.next_name);
        let mut fbc = FunctionBuilderContext::new();
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
            let block = b.create_block();
            b.append_block_params_for_function_params(block);
            b.switch_to_block(block);
            let (c, args) = (b.block_params(block)[0], b.block_params(block)[1]);
            let mut call_args = vec![c];
            for k in 0..prog.funcs[func as usize].params.len() {
                let offset = i32::try_from(8 * k).ok()?;
                call_args.push(
                    b.ins()
                        .load(types::I64, MemFlagsData::trusted(), args, offset),
                );
            }
            let fref = self.module.declare_func_in_func(self.ids[&func], b.func);
            let call = b.ins().call(fref, &call_args);
            let result = b.inst_results(call)[0];
            b.ins().return_(&[result]);
            b.seal_all_blocks();
            b.finalize(self.module.isa().frontend_config());
        }
        self.module.define_function(id, &mut ctx).ok()?;
        Some(id)
    }
}

/// The initial register bits of a frame of `fc`: its constants, zero elsewhere.
fn template(fc: &FuncCode) -> Vec<u64> {
    let mut bits = vec![0u64; fc.nregs as usize];
    for c in &fc.consts {
        bits[c.slot as usize] = c.bits & c.ty.mask();
    }
    bits
}

/// `func` and every function it calls directly, transitively, in first-seen order.
fn call_closure(prog: &Program, func: u32) -> Vec<u32> {
    let mut seen = vec![func];
    let mut k = 0;
    while k < seen.len() {
        for callee in translate::callees(&prog.funcs[seen[k] as usize]) {
            if !seen.contains(&callee) {
                seen.push(callee);
            }
        }
        k += 1;
    }
    seen
}
