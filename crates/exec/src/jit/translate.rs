//! Translation of one prepared function (`FuncCode`) into Cranelift IR.
//!
//! Every register slot becomes a Cranelift variable of type `i64` holding exactly the
//! bits the interpreter would hold under [`crate::Concrete`] (integers zero-extended and
//! masked to their width, `f32` in the low 32 bits), so each op is the same computation
//! on the same bits. Floats are bit-cast to native floats only around arithmetic and
//! comparisons. Memory, math calls, builtins and branch events go through the runtime
//! helpers of [`super::runtime`]; a helper that would trap sets `Ctx::bail`, and the
//! generated code then returns at once (the caller replays the run in the interpreter).
//! Steps are counted as the interpreter counts them: the ops since the last control
//! transfer are added to `Ctx::steps` at every jump, branch, call and return, and a
//! count above the fuel bails.

use super::runtime::{self, Ctx, Record, Tables};
use crate::memory::{REDZONE, STACK_BASE};
use crate::prepare::{CmpBr, FuncCode, Op, Slot, DIRECT, NONE};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, MemFlagsData, SigRef, Signature, StackSlot,
    StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, Switch, Variable};
use fpir::f80::MAX_ARGS;
use fpir::{
    Builtin, CastOp, F80Op, FloatBinOp, FloatPred, FloatTy, IntBinOp, IntPred, MathShape,
    SignBitOp, Type,
};
use std::collections::BTreeMap;

/// Why a function cannot be compiled (the interpreter runs it instead).
#[derive(Debug)]
pub(crate) struct Unsupported;

/// The signature of every compiled function: the context pointer, then one `i64` per
/// parameter; returns the result bits (0 for void).
pub(crate) fn func_signature(call_conv: CallConv, params: usize) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params.push(AbiParam::new(types::I64));
    sig.params
        .extend(std::iter::repeat_n(AbiParam::new(types::I64), params));
    sig.returns.push(AbiParam::new(types::I64));
    sig
}

/// Whether `fc` only contains ops the translation handles.
pub(crate) fn supported(fc: &FuncCode) -> bool {
    // Unwinding to a landing pad is the interpreter's alone.
    fc.landings.is_empty()
        && fc
            .code
            .iter()
            .all(|op| !matches!(op, Op::CallIndirect { .. }))
}

/// The functions `fc` calls directly.
pub(crate) fn callees(fc: &FuncCode) -> impl Iterator<Item = u32> + '_ {
    fc.code.iter().filter_map(|op| match *op {
        Op::Call { func, .. } => Some(func),
        _ => None,
    })
}

/// Signatures of the runtime helpers, imported once per function.
struct Helpers {
    sigs: BTreeMap<usize, SigRef>,
}

/// Translates one function. `funcs[k]` is the `FuncRef` of prepared function `k` when
/// this function calls it.
pub(crate) struct Translator<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    fc: &'a FuncCode,
    funcs: &'a BTreeMap<u32, FuncRef>,
    tables: &'a mut Tables,
    call_conv: CallConv,
    vars: Vec<Variable>,
    ctx: Value,
    mark: Option<Variable>,
    /// Steps so far; `Ctx::steps` is only current across calls and at return.
    steps: Variable,
    /// `Ctx::fuel`, read once.
    fuel: Variable,
    /// `Ctx::records_next` and `Ctx::records_end`, current in the context only across
    /// calls, around `grow_records` and at return.
    records_next: Variable,
    records_end: Variable,
    stack: StackUse,
    blocks: BTreeMap<usize, Block>,
    helpers: Helpers,
    pending: u64,
    /// The other half of the extended result of the op before: the pc of the op that
    /// computes it, which then reads it instead of calling the helper again.
    f80_other: Option<(usize, Value)>,
    /// Where the function passes the arguments of operations on extended values.
    f80_args: Option<StackSlot>,
}

const FLAGS: MemFlagsData = MemFlagsData::trusted();

/// How a function itself moves the stack pointer, which decides how it restores it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StackUse {
    None,
    /// Only register cells (`AllocaCell`) and the stack saves and restores around
    /// inlined leaves: reserved and released inline, with `mark` holding the stack
    /// pointer as an offset.
    Cells,
    /// Real `alloca`s or stack restores: through the helpers, with `mark` holding the
    /// stack pointer as an address.
    Allocas,
}

fn stack_use(fc: &FuncCode) -> StackUse {
    let mut usage = StackUse::None;
    for op in &fc.code {
        match op {
            Op::AllocaCell { .. } | Op::StackSave { .. } | Op::StackRestore { .. } => {
                usage = StackUse::Cells
            }
            Op::Alloca { .. }
            | Op::Builtin {
                b: Builtin::StackSave | Builtin::StackRestore,
                ..
            } => return StackUse::Allocas,
            _ => {}
        }
    }
    usage
}

impl<'a, 'b> Translator<'a, 'b> {
    pub(crate) fn new(
        b: &'a mut FunctionBuilder<'b>,
        fc: &'a FuncCode,
        funcs: &'a BTreeMap<u32, FuncRef>,
        tables: &'a mut Tables,
        call_conv: CallConv,
    ) -> Self {
        let vars = (0..fc.nregs).map(|_| b.declare_var(types::I64)).collect();
        let steps = b.declare_var(types::I64);
        let fuel = b.declare_var(types::I64);
        let records_next = b.declare_var(types::I64);
        let records_end = b.declare_var(types::I64);
        Translator {
            b,
            fc,
            funcs,
            tables,
            call_conv,
            vars,
            ctx: Value::from_u32(0),
            mark: None,
            steps,
            fuel,
            records_next,
            records_end,
            stack: stack_use(fc),
            blocks: BTreeMap::new(),
            helpers: Helpers {
                sigs: BTreeMap::new(),
            },
            pending: 0,
            f80_other: None,
            f80_args: None,
        }
    }

    /// Emits the whole function.
    pub(crate) fn translate(mut self, template: &[u64]) -> Result<(), Unsupported> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let params = self.b.block_params(entry).to_vec();
        self.ctx = params[0];
        for (slot, &bits) in template.iter().enumerate() {
            let v = self.b.ins().iconst(types::I64, bits as i64);
            self.b.def_var(self.vars[slot], v);
        }
        for (&p, &v) in self.fc.params.iter().zip(&params[1..]) {
            self.b.def_var(self.vars[p as usize], v);
        }
        self.load_run_state();
        let fuel = self.load_ctx(Ctx::FUEL_OFFSET);
        self.b.def_var(self.fuel, fuel);
        let sp = match self.stack {
            StackUse::None => None,
            StackUse::Cells => {
                let words = self.load_ctx(Ctx::SP_OFFSET);
                Some(self.b.ins().load(types::I64, FLAGS, words, 0))
            }
            StackUse::Allocas => Some(self.helper(runtime::HELPER_STACK_POINTER, &[])),
        };
        if let Some(sp) = sp {
            let mark = self.b.declare_var(types::I64);
            self.b.def_var(mark, sp);
            self.mark = Some(mark);
        }
        for pc in self.leaders() {
            let block = self.b.create_block();
            self.blocks.insert(pc, block);
        }
        let first = self.blocks[&0];
        self.b.ins().jump(first, &[]);
        let mut open = false;
        for pc in 0..self.fc.code.len() {
            if let Some(&block) = self.blocks.get(&pc) {
                if open {
                    self.flush(false);
                    self.b.ins().jump(block, &[]);
                }
                // A block that ended by bailing left its ops uncounted (the interpreter
                // replays that run); they are not this block's.
                self.pending = 0;
                self.b.switch_to_block(block);
                open = true;
            }
            if !open {
                // Unreachable code after a terminator that no edge targets.
                continue;
            }
            self.pending += 1;
            open = self.op(pc)?;
        }
        if open {
            return Err(Unsupported);
        }
        self.b.seal_all_blocks();
        Ok(())
    }

    /// The pcs that start a Cranelift block: the entry and every edge target.
    fn leaders(&self) -> Vec<usize> {
        let mut pcs = vec![0usize];
        let edge_pc = |edge: u32| -> usize {
            if edge & DIRECT != 0 {
                (edge & !DIRECT) as usize
            } else {
                self.fc.edges[edge as usize].pc as usize
            }
        };
        for op in &self.fc.code {
            if let Some(fused) = fused_branch(op) {
                pcs.push(edge_pc(fused.c.then_edge));
                pcs.push(edge_pc(fused.c.else_edge));
            }
            match *op {
                Op::Jump { edge } => pcs.push(edge_pc(edge)),
                Op::JumpMove1 { pc, .. } | Op::JumpMove2 { pc, .. } | Op::JumpMove3 { pc, .. } => {
                    pcs.push(pc as usize)
                }
                Op::Br {
                    then_edge,
                    else_edge,
                    ..
                } => {
                    pcs.push(edge_pc(then_edge));
                    pcs.push(edge_pc(else_edge));
                }
                Op::Switch { table, .. } => {
                    let t = &self.fc.switches[table as usize];
                    pcs.push(edge_pc(t.default));
                    pcs.extend(t.cases.iter().map(|c| edge_pc(c.2)));
                }
                _ => {}
            }
        }
        pcs.sort_unstable();
        pcs.dedup();
        pcs
    }

    fn get(&mut self, slot: Slot) -> Value {
        self.b.use_var(self.vars[slot as usize])
    }

    fn set(&mut self, slot: Slot, v: Value) {
        if slot != NONE {
            self.b.def_var(self.vars[slot as usize], v);
        }
    }

    fn iconst(&mut self, bits: u64) -> Value {
        self.b.ins().iconst(types::I64, bits as i64)
    }

    fn masked(&mut self, v: Value, ty: Type) -> Value {
        let m = ty.mask();
        if m == u64::MAX {
            v
        } else {
            self.b.ins().band_imm_u(v, m as i64)
        }
    }

    /// Sign-extends the low `ty`-width bits of `v` to 64.
    fn sext(&mut self, v: Value, ty: Type) -> Value {
        let shift = i64::from(64 - ty.bits());
        if shift == 0 {
            return v;
        }
        let up = self.b.ins().ishl_imm_u(v, shift);
        self.b.ins().sshr_imm_u(up, shift)
    }

    fn as_native_float(&mut self, v: Value, ty: FloatTy) -> Value {
        match ty {
            FloatTy::F64 => self.b.ins().bitcast(types::F64, MemFlagsData::new(), v),
            FloatTy::F32 => {
                let low = self.b.ins().ireduce(types::I32, v);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), low)
            }
        }
    }

    fn float_bits(&mut self, x: Value, ty: FloatTy) -> Value {
        match ty {
            FloatTy::F64 => self.b.ins().bitcast(types::I64, MemFlagsData::new(), x),
            FloatTy::F32 => {
                let low = self.b.ins().bitcast(types::I32, MemFlagsData::new(), x);
                self.b.ins().uextend(types::I64, low)
            }
        }
    }

    /// Calls runtime helper `index` (see `runtime::HELPERS`).
    fn helper(&mut self, index: usize, args: &[Value]) -> Value {
        let (ptr, arity) = runtime::HELPERS[index];
        debug_assert_eq!(arity, args.len());
        let sig = match self.helpers.sigs.get(&index) {
            Some(&s) => s,
            None => {
                let mut sig = Signature::new(self.call_conv);
                sig.params.push(AbiParam::new(types::I64));
                sig.params
                    .extend(std::iter::repeat_n(AbiParam::new(types::I64), arity));
                sig.returns.push(AbiParam::new(types::I64));
                let s = self.b.import_signature(sig);
                self.helpers.sigs.insert(index, s);
                s
            }
        };
        let callee = self.iconst(ptr as u64);
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(self.ctx);
        all.extend_from_slice(args);
        let call = self.b.ins().call_indirect(sig, callee, &all);
        self.b.inst_results(call)[0]
    }

    /// Returns from the function if `Ctx::bail` is set.
    fn check_bail(&mut self) {
        let bail = self
            .b
            .ins()
            .load(types::I64, FLAGS, self.ctx, Ctx::BAIL_OFFSET);
        let out = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bail, out, &[], cont, &[]);
        self.b.switch_to_block(out);
        let zero = self.iconst(0);
        self.b.ins().return_(&[zero]);
        self.b.switch_to_block(cont);
    }

    /// Sets `Ctx::bail` and returns.
    fn bail_here(&mut self) {
        let one = self.iconst(1);
        self.b.ins().store(FLAGS, one, self.ctx, Ctx::BAIL_OFFSET);
        let zero = self.iconst(0);
        self.b.ins().return_(&[zero]);
    }

    /// Adds the ops since the last flush to the step count; with `check`, bails when
    /// the total exceeds the fuel.
    fn flush(&mut self, check: bool) {
        if self.pending == 0 {
            return;
        }
        let steps = self.b.use_var(self.steps);
        let steps = self.b.ins().iadd_imm_s(steps, self.pending as i64);
        self.b.def_var(self.steps, steps);
        self.pending = 0;
        if check {
            let fuel = self.b.use_var(self.fuel);
            let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, steps, fuel);
            let out = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(over, out, &[], cont, &[]);
            self.b.switch_to_block(out);
            self.bail_here();
            self.b.switch_to_block(cont);
        }
    }

    /// The block that takes `edge`: its target when the edge moves nothing, else a new
    /// block that [`Translator::fill_edge`] must fill once the current block is
    /// terminated (Cranelift builds one block at a time).
    fn edge_block(&mut self, edge: u32) -> (Block, Option<u32>) {
        if edge & DIRECT != 0 {
            return (self.blocks[&((edge & !DIRECT) as usize)], None);
        }
        let e = self.fc.edges[edge as usize];
        let target = self.blocks[&(e.pc as usize)];
        if e.moves_len == 0 {
            return (target, None);
        }
        (self.b.create_block(), Some(edge))
    }

    /// Fills `block` with the block-argument copies of `edge` and a jump to its target.
    fn fill_edge(&mut self, block: Block, edge: Option<u32>) {
        let Some(edge) = edge else {
            return;
        };
        let e = self.fc.edges[edge as usize];
        let target = self.blocks[&(e.pc as usize)];
        self.b.switch_to_block(block);
        let range = e.moves_start as usize..(e.moves_start + e.moves_len) as usize;
        let moves = self.fc.moves[range].to_vec();
        // Block arguments are a parallel copy; reading every source first is exact
        // whether or not preparation marked the edge as needing it.
        let values: Vec<Value> = moves.iter().map(|&(_, src)| self.get(src)).collect();
        for (&(dst, _), v) in moves.iter().zip(values) {
            self.set(dst, v);
        }
        self.b.ins().jump(target, &[]);
    }

    /// Appends a branch record (see [`Record`]) whose kind is `kind`.
    fn record(&mut self, site: u32, kind: Value, a: Value, b: Value) {
        let next = self.b.use_var(self.records_next);
        let end = self.b.use_var(self.records_end);
        let full = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, next, end);
        let grow = self.b.create_block();
        let write = self.b.create_block();
        self.b.ins().brif(full, grow, &[], write, &[]);
        self.b.switch_to_block(grow);
        self.b
            .ins()
            .store(FLAGS, next, self.ctx, Ctx::RECORDS_NEXT_OFFSET);
        self.helper(runtime::HELPER_GROW_RECORDS, &[]);
        self.load_records();
        self.b.ins().jump(write, &[]);
        self.b.switch_to_block(write);
        let at = self.b.use_var(self.records_next);
        let kind = self.b.ins().ishl_imm_u(kind, 32);
        let head = self.b.ins().bor_imm_u(kind, i64::from(site));
        self.b.ins().store(FLAGS, head, at, 0);
        self.b.ins().store(FLAGS, a, at, 8);
        self.b.ins().store(FLAGS, b, at, 16);
        let after = self
            .b
            .ins()
            .iadd_imm_s(at, std::mem::size_of::<Record>() as i64);
        self.b.def_var(self.records_next, after);
    }

    fn load_ctx(&mut self, offset: i32) -> Value {
        self.b.ins().load(types::I64, FLAGS, self.ctx, offset)
    }

    fn branch_event(&mut self, site: u32, taken: Value, operands: Option<(Value, Value)>) {
        let (kind, a, b) = match operands {
            Some((a, b)) => (
                self.b.ins().bor_imm_u(taken, Record::WITH_OPERANDS as i64),
                a,
                b,
            ),
            None => {
                let z = self.iconst(0);
                (taken, z, z)
            }
        };
        self.record(site, kind, a, b);
    }

    /// Branches on `taken` (0 or 1) to the blocks of two edges.
    fn two_way(&mut self, taken: Value, then_edge: u32, else_edge: u32) {
        self.flush(true);
        let (then_block, then_fill) = self.edge_block(then_edge);
        let (else_block, else_fill) = self.edge_block(else_edge);
        self.b.ins().brif(taken, then_block, &[], else_block, &[]);
        self.fill_edge(then_block, then_fill);
        self.fill_edge(else_block, else_fill);
    }

    fn icmp(&mut self, pred: IntPred, ty: Type, a: Slot, b: Slot) -> (Value, Value, Value) {
        let (x, y) = (self.get(a), self.get(b));
        let signed = matches!(
            pred,
            IntPred::Sgt | IntPred::Sge | IntPred::Slt | IntPred::Sle
        );
        let (p, q) = if signed {
            (self.sext(x, ty), self.sext(y, ty))
        } else {
            (x, y)
        };
        let cc = match pred {
            IntPred::Eq => IntCC::Equal,
            IntPred::Ne => IntCC::NotEqual,
            IntPred::Ugt => IntCC::UnsignedGreaterThan,
            IntPred::Uge => IntCC::UnsignedGreaterThanOrEqual,
            IntPred::Ult => IntCC::UnsignedLessThan,
            IntPred::Ule => IntCC::UnsignedLessThanOrEqual,
            IntPred::Sgt => IntCC::SignedGreaterThan,
            IntPred::Sge => IntCC::SignedGreaterThanOrEqual,
            IntPred::Slt => IntCC::SignedLessThan,
            IntPred::Sle => IntCC::SignedLessThanOrEqual,
        };
        let c = self.b.ins().icmp(cc, p, q);
        (self.b.ins().uextend(types::I64, c), x, y)
    }

    fn fcmp(&mut self, pred: FloatPred, ty: FloatTy, a: Slot, b: Slot) -> (Value, Value, Value) {
        let (x, y) = (self.get(a), self.get(b));
        let cc = match pred {
            FloatPred::False => return (self.iconst(0), x, y),
            FloatPred::True => return (self.iconst(1), x, y),
            FloatPred::Oeq => FloatCC::Equal,
            FloatPred::Ogt => FloatCC::GreaterThan,
            FloatPred::Oge => FloatCC::GreaterThanOrEqual,
            FloatPred::Olt => FloatCC::LessThan,
            FloatPred::Ole => FloatCC::LessThanOrEqual,
            FloatPred::One => FloatCC::OrderedNotEqual,
            FloatPred::Ord => FloatCC::Ordered,
            FloatPred::Uno => FloatCC::Unordered,
            FloatPred::Ueq => FloatCC::UnorderedOrEqual,
            FloatPred::Ugt => FloatCC::UnorderedOrGreaterThan,
            FloatPred::Uge => FloatCC::UnorderedOrGreaterThanOrEqual,
            FloatPred::Ult => FloatCC::UnorderedOrLessThan,
            FloatPred::Ule => FloatCC::UnorderedOrLessThanOrEqual,
            FloatPred::Une => FloatCC::NotEqual,
        };
        let (p, q) = (self.as_native_float(x, ty), self.as_native_float(y, ty));
        let c = self.b.ins().fcmp(cc, p, q);
        (self.b.ins().uextend(types::I64, c), x, y)
    }

    fn cmp_br(
        &mut self,
        cmp: (Value, Value, Value),
        d: Slot,
        then_edge: u32,
        else_edge: u32,
        site: u32,
    ) {
        let (taken, x, y) = cmp;
        self.set(d, taken);
        self.branch_event(site, taken, Some((x, y)));
        self.two_way(taken, then_edge, else_edge);
    }

    fn int_bin(&mut self, op: IntBinOp, ty: Type, d: Slot, a: Slot, b: Slot) {
        let (x, y) = (self.get(a), self.get(b));
        let v = match op {
            IntBinOp::Add => self.b.ins().iadd(x, y),
            IntBinOp::Sub => self.b.ins().isub(x, y),
            IntBinOp::Mul => self.b.ins().imul(x, y),
            IntBinOp::And => self.b.ins().band(x, y),
            IntBinOp::Or => self.b.ins().bor(x, y),
            IntBinOp::Xor => self.b.ins().bxor(x, y),
            IntBinOp::Shl | IntBinOp::Lshr | IntBinOp::Ashr => {
                let count = if ty.bits() <= 32 {
                    self.b.ins().band_imm_u(y, 31)
                } else {
                    self.b.ins().band_imm_u(y, 63)
                };
                match op {
                    IntBinOp::Shl => self.b.ins().ishl(x, count),
                    IntBinOp::Lshr => self.b.ins().ushr(x, count),
                    _ => {
                        let s = self.sext(x, ty);
                        self.b.ins().sshr(s, count)
                    }
                }
            }
            IntBinOp::Udiv | IntBinOp::Urem => {
                self.bail_if(IntCC::Equal, y, 0);
                if op == IntBinOp::Udiv {
                    self.b.ins().udiv(x, y)
                } else {
                    self.b.ins().urem(x, y)
                }
            }
            IntBinOp::Sdiv | IntBinOp::Srem => {
                self.bail_if(IntCC::Equal, y, 0);
                let (p, q) = (self.sext(x, ty), self.sext(y, ty));
                let min = i64::MIN >> (64 - ty.bits());
                let is_min = self.b.ins().icmp_imm_s(IntCC::Equal, p, min);
                let is_neg1 = self.b.ins().icmp_imm_s(IntCC::Equal, q, -1);
                let overflow = self.b.ins().band(is_min, is_neg1);
                let overflow = self.b.ins().uextend(types::I64, overflow);
                self.bail_if(IntCC::NotEqual, overflow, 0);
                if op == IntBinOp::Sdiv {
                    self.b.ins().sdiv(p, q)
                } else {
                    self.b.ins().srem(p, q)
                }
            }
        };
        let v = self.masked(v, ty);
        self.set(d, v);
    }

    /// Bails when `v cc imm` holds.
    fn bail_if(&mut self, cc: IntCC, v: Value, imm: i64) {
        let c = self.b.ins().icmp_imm_s(cc, v, imm);
        let out = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(c, out, &[], cont, &[]);
        self.b.switch_to_block(out);
        self.bail_here();
        self.b.switch_to_block(cont);
    }

    fn float_bin(&mut self, op: FloatBinOp, ty: FloatTy, d: Slot, a: Slot, b: Slot) {
        let (x, y) = (self.get(a), self.get(b));
        let v = if op == FloatBinOp::Frem {
            let t = self.iconst(runtime::type_code(Type::Float(ty)));
            self.helper(runtime::HELPER_FREM, &[x, y, t])
        } else {
            let (p, q) = (self.as_native_float(x, ty), self.as_native_float(y, ty));
            let r = match op {
                FloatBinOp::Fadd => self.b.ins().fadd(p, q),
                FloatBinOp::Fsub => self.b.ins().fsub(p, q),
                FloatBinOp::Fmul => self.b.ins().fmul(p, q),
                _ => self.b.ins().fdiv(p, q),
            };
            self.float_bits(r, ty)
        };
        self.set(d, v);
    }

    fn cast(&mut self, op: CastOp, from: Type, to: Type, d: Slot, a: Slot) {
        let x = self.get(a);
        let v = match op {
            CastOp::Trunc | CastOp::Ptrtoint | CastOp::Bitcast => self.masked(x, to),
            CastOp::Zext | CastOp::Inttoptr => x,
            CastOp::Sext => {
                let s = self.sext(x, from);
                self.masked(s, to)
            }
            CastOp::Fptrunc | CastOp::Fpext => match (from, to) {
                (Type::Float(FloatTy::F32), Type::Float(FloatTy::F64)) => {
                    let f = self.as_native_float(x, FloatTy::F32);
                    let g = self.b.ins().fpromote(types::F64, f);
                    self.float_bits(g, FloatTy::F64)
                }
                (Type::Float(FloatTy::F64), Type::Float(FloatTy::F32)) => {
                    let f = self.as_native_float(x, FloatTy::F64);
                    let g = self.b.ins().fdemote(types::F32, f);
                    self.float_bits(g, FloatTy::F32)
                }
                _ => x,
            },
            CastOp::Sitofp | CastOp::Uitofp => {
                let ty = match to {
                    Type::Float(FloatTy::F32) => FloatTy::F32,
                    _ => FloatTy::F64,
                };
                let native = if ty == FloatTy::F32 {
                    types::F32
                } else {
                    types::F64
                };
                let f = if op == CastOp::Sitofp {
                    let s = self.sext(x, from);
                    self.b.ins().fcvt_from_sint(native, s)
                } else {
                    self.b.ins().fcvt_from_uint(native, x)
                };
                self.float_bits(f, ty)
            }
            CastOp::Fptosi | CastOp::Fptoui => {
                let codes = runtime::type_code(from) | runtime::type_code(to) << 8;
                let c = self.iconst(codes);
                let index = if op == CastOp::Fptosi {
                    runtime::HELPER_FPTOSI
                } else {
                    runtime::HELPER_FPTOUI
                };
                self.helper(index, &[x, c])
            }
        };
        self.set(d, v);
    }

    fn scaled_index(&mut self, index: Slot, ty: Type, scale: i64) -> Value {
        let i = self.get(index);
        let i = if ty.is_int() { self.sext(i, ty) } else { i };
        self.b.ins().imul_imm_s(i, scale)
    }

    fn call_args(&mut self, start: u32, len: u32) -> Vec<Value> {
        let slots = self.fc.args[start as usize..(start + len) as usize].to_vec();
        slots.into_iter().map(|s| self.get(s)).collect()
    }

    fn call(&mut self, op: &Op) -> Result<(), Unsupported> {
        let Op::Call {
            func,
            d,
            start,
            len,
        } = *op
        else {
            unreachable!("call is passed a call")
        };
        self.flush(true);
        let fref = *self.funcs.get(&func).ok_or(Unsupported)?;
        let depth = self
            .b
            .ins()
            .load(types::I64, FLAGS, self.ctx, Ctx::DEPTH_OFFSET);
        let limit = self
            .b
            .ins()
            .load(types::I64, FLAGS, self.ctx, Ctx::MAX_DEPTH_OFFSET);
        let deep = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, depth, limit);
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let floor = self.load_ctx(Ctx::STACK_FLOOR_OFFSET);
        let low = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, floor);
        let deep = self.b.ins().bor(deep, low);
        let deep = self.b.ins().uextend(types::I64, deep);
        self.bail_if(IntCC::NotEqual, deep, 0);
        let deeper = self.b.ins().iadd_imm_s(depth, 1);
        self.b
            .ins()
            .store(FLAGS, deeper, self.ctx, Ctx::DEPTH_OFFSET);
        let mut args = vec![self.ctx];
        args.extend(self.call_args(start, len));
        self.store_run_state();
        let call = self.b.ins().call(fref, &args);
        let result = self.b.inst_results(call)[0];
        self.load_run_state();
        self.b
            .ins()
            .store(FLAGS, depth, self.ctx, Ctx::DEPTH_OFFSET);
        self.check_bail();
        self.set(d, result);
        Ok(())
    }

    fn math(&mut self, op: &Op) {
        let Op::Math {
            call,
            ret,
            d,
            start,
            len,
            ..
        } = *op
        else {
            unreachable!("math is passed a math call")
        };
        let args = self.call_args(start, len);
        let v = match call.func.sign_bit_op() {
            Some(op) => self.sign_bit_op(op, call.ty, &args),
            None => {
                let index = self.tables.math_index(call, ret);
                let mut full = vec![self.iconst(index as u64), self.iconst(u64::from(len))];
                for k in 0..3 {
                    let a = args.get(k).copied().unwrap_or_else(|| self.iconst(0));
                    full.push(a);
                }
                let v = self.helper(runtime::HELPER_MATH, &full);
                self.check_bail();
                v
            }
        };
        self.set(d, v);
    }

    /// A math call computed on the sign bit, as [`SignBitOp::eval`] computes it.
    fn sign_bit_op(&mut self, op: SignBitOp, ty: FloatTy, args: &[Value]) -> Value {
        let sign = ty.sign_bit();
        let magnitude = self.b.ins().band_imm_u(args[0], (sign - 1) as i64);
        match op {
            SignBitOp::Abs => magnitude,
            SignBitOp::Copysign => {
                let sign = self.b.ins().band_imm_u(args[1], sign as i64);
                self.b.ins().bor(magnitude, sign)
            }
        }
    }

    fn builtin(&mut self, op: &Op) {
        let Op::Builtin {
            b,
            ty,
            d,
            start,
            len,
        } = *op
        else {
            unreachable!("builtin is passed a builtin")
        };
        let args = self.call_args(start, len);
        let index = self.tables.builtin_index(b, ty);
        let mark = match self.mark {
            Some(m) => self.b.use_var(m),
            None => self.iconst(u64::MAX),
        };
        let mut full = vec![self.iconst(index as u64), mark];
        for k in 0..3 {
            let a = args.get(k).copied().unwrap_or_else(|| self.iconst(0));
            full.push(a);
        }
        let v = self.helper(runtime::HELPER_BUILTIN, &full);
        self.check_bail();
        self.set(d, v);
    }

    /// Operation on extended values `op` at `pc`, through the helper on the same soft
    /// float as the interpreter's. An extended result is two ops, one per half, on the
    /// same arguments; when they follow each other, the second reads the half the
    /// helper left in the context for it instead of computing the value again.
    fn f80(&mut self, pc: usize, op: F80Op) {
        let Op::Builtin {
            b,
            ty,
            d,
            start,
            len,
        } = self.fc.code[pc]
        else {
            unreachable!("f80 is passed a builtin")
        };
        if let Some((at, other)) = self.f80_other.take() {
            if at == pc {
                self.set(d, other);
                return;
            }
        }
        let args = self.call_args(start, len.min(MAX_ARGS as u32));
        let slot = *self.f80_args.get_or_insert_with(|| {
            self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (8 * MAX_ARGS) as u32,
                3,
            ))
        });
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        for k in 0..MAX_ARGS {
            let a = args.get(k).copied().unwrap_or_else(|| self.iconst(0));
            self.b.ins().store(FLAGS, a, at, (8 * k) as i32);
        }
        let index = self.tables.builtin_index(b, ty);
        let index = self.iconst(index as u64);
        let v = self.helper(runtime::HELPER_F80, &[index, at]);
        if matches!(op, F80Op::Libm(_)) {
            // The host's `*l` function may be missing, and `frexpl` and `modfl` store.
            self.check_bail();
        }
        self.set(d, v);
        if self.computes_other_half(pc) {
            let other = self.load_ctx(Ctx::F80_OTHER_OFFSET);
            self.f80_other = Some((pc + 1, other));
        }
    }

    /// Whether the op after `pc` (an operation on extended values) computes the other
    /// half of the same extended result, in the same block.
    fn computes_other_half(&self, pc: usize) -> bool {
        let Op::Builtin {
            b: Builtin::F80(op),
            ty,
            d,
            start,
            len,
        } = self.fc.code[pc]
        else {
            return false;
        };
        let Some(&Op::Builtin {
            b: Builtin::F80(next_op),
            ty: next_ty,
            start: next_start,
            len: next_len,
            ..
        }) = self.fc.code.get(pc + 1)
        else {
            return false;
        };
        let halves = [ty, next_ty];
        let args = &self.fc.args[start as usize..(start + len) as usize];
        let next_args = &self.fc.args[next_start as usize..(next_start + next_len) as usize];
        next_op == op
            && (halves == [Type::I64, Type::Int(16)] || halves == [Type::Int(16), Type::I64])
            && args == next_args
            && !args.contains(&d)
            && !self.blocks.contains_key(&(pc + 1))
            && extended_result(op)
    }

    /// Writes the step count and the record cursor back to the context.
    fn store_run_state(&mut self) {
        let steps = self.b.use_var(self.steps);
        self.b
            .ins()
            .store(FLAGS, steps, self.ctx, Ctx::STEPS_OFFSET);
        let next = self.b.use_var(self.records_next);
        self.b
            .ins()
            .store(FLAGS, next, self.ctx, Ctx::RECORDS_NEXT_OFFSET);
    }

    /// Reads the step count and the record buffer from the context.
    fn load_run_state(&mut self) {
        let steps = self.load_ctx(Ctx::STEPS_OFFSET);
        self.b.def_var(self.steps, steps);
        self.load_records();
    }

    fn load_records(&mut self) {
        let next = self.load_ctx(Ctx::RECORDS_NEXT_OFFSET);
        self.b.def_var(self.records_next, next);
        let end = self.load_ctx(Ctx::RECORDS_END_OFFSET);
        self.b.def_var(self.records_end, end);
    }

    fn ret(&mut self, value: Slot) {
        self.flush(true);
        self.store_run_state();
        if let Some(mark) = self.mark {
            let m = self.b.use_var(mark);
            if self.stack == StackUse::Cells {
                self.release_cells(m);
            } else {
                self.helper(runtime::HELPER_STACK_RELEASE, &[m]);
            }
        }
        let v = if value == NONE {
            self.iconst(0)
        } else {
            self.get(value)
        };
        self.b.ins().return_(&[v]);
    }

    fn switch(&mut self, op: &Op) {
        let Op::Switch {
            ty,
            value,
            table,
            site,
        } = *op
        else {
            unreachable!("switch is passed a switch")
        };
        let site = site.0;
        let raw = self.get(value);
        let v = self.masked(raw, ty);
        self.flush(true);
        let t = self.fc.switches[table as usize].clone();
        let mut arms: Vec<(Option<u64>, u64, u32, Block)> = Vec::new();
        for &(v, case, edge) in &t.cases {
            arms.push((Some(v), u64::from(case), edge, self.b.create_block()));
        }
        arms.push((None, u64::MAX, t.default, self.b.create_block()));
        let mut switch = Switch::new();
        let mut default = None;
        for &(value, _, _, block) in &arms {
            match value {
                Some(value) => switch.set_entry(u128::from(value), block),
                None => default = Some(block),
            }
        }
        let default = default.expect("the default arm is always present");
        switch.emit(self.b, v, default);
        for (_, case, edge, block) in arms {
            self.b.switch_to_block(block);
            let kind = self.iconst(Record::SWITCH | case.min(Record::DEFAULT));
            let zero = self.iconst(0);
            self.record(site, kind, v, zero);
            let (target, fill) = self.edge_block(edge);
            self.b.ins().jump(target, &[]);
            self.fill_edge(target, fill);
        }
    }

    /// Emits op `pc`; returns whether control can fall through to the next op.
    fn op(&mut self, pc: usize) -> Result<bool, Unsupported> {
        let op = self.fc.code[pc];
        if let Some(branch) = fused_branch(&op) {
            self.fused_branch(branch);
            return Ok(false);
        }
        match op {
            Op::Jump { edge } => self.jump(edge),
            Op::JumpMove1 { pc, d, a } => self.jump_moving(pc, &[d], &[a]),
            Op::JumpMove2 { pc, d, a } => self.jump_moving(pc, &d, &a),
            Op::JumpMove3 { pc, d, a } => self.jump_moving(pc, &d, &a),
            Op::Br { .. } => self.br(&op),
            Op::Switch { .. } => self.switch(&op),
            Op::Ret { value } => self.ret(value),
            Op::Builtin {
                b: Builtin::F80(f80),
                ..
            } => {
                self.f80(pc, f80);
                return Ok(true);
            }
            // Whatever traps is the interpreter's to report; the C library model is the
            // interpreter's alone. Bailing where such an op runs, rather than refusing
            // the function, keeps the code around it compiled.
            Op::External { .. }
            | Op::Builtin {
                b: Builtin::Libc(_),
                ..
            }
            | Op::Unreachable
            | Op::Builtin {
                b:
                    Builtin::Abort
                    | Builtin::Exit
                    | Builtin::AssertFail
                    | Builtin::BoundsFault
                    | Builtin::Unwind
                    | Builtin::Terminate,
                ..
            } => self.bail_here(),
            _ => {
                self.straight(&op)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Emits `op`, an op that falls through to the next one.
    fn straight(&mut self, op: &Op) -> Result<(), Unsupported> {
        use CastOp::{Sext, Sitofp, Trunc, Zext};
        use FloatBinOp::{Fadd, Fdiv, Fmul, Fsub};
        use IntBinOp::{Add, And, Lshr, Mul, Or, Shl, Sub};
        const I32: Type = Type::I32;
        const I64: Type = Type::I64;
        const F64: FloatTy = FloatTy::F64;
        match *op {
            Op::Iadd { ty, d, a, b } => self.int_bin(Add, ty, d, a, b),
            Op::Isub { ty, d, a, b } => self.int_bin(Sub, ty, d, a, b),
            Op::Imul { ty, d, a, b } => self.int_bin(Mul, ty, d, a, b),
            Op::Udiv { ty, d, a, b } => self.int_bin(IntBinOp::Udiv, ty, d, a, b),
            Op::Sdiv { ty, d, a, b } => self.int_bin(IntBinOp::Sdiv, ty, d, a, b),
            Op::Urem { ty, d, a, b } => self.int_bin(IntBinOp::Urem, ty, d, a, b),
            Op::Srem { ty, d, a, b } => self.int_bin(IntBinOp::Srem, ty, d, a, b),
            Op::Shl { ty, d, a, b } => self.int_bin(Shl, ty, d, a, b),
            Op::Lshr { ty, d, a, b } => self.int_bin(Lshr, ty, d, a, b),
            Op::Ashr { ty, d, a, b } => self.int_bin(IntBinOp::Ashr, ty, d, a, b),
            Op::Band { ty, d, a, b } => self.int_bin(And, ty, d, a, b),
            Op::Bor { ty, d, a, b } => self.int_bin(Or, ty, d, a, b),
            Op::Bxor { ty, d, a, b } => self.int_bin(IntBinOp::Xor, ty, d, a, b),
            Op::Iadd32 { d, a, b } => self.int_bin(Add, I32, d, a, b),
            Op::Iadd64 { d, a, b } => self.int_bin(Add, I64, d, a, b),
            Op::Isub32 { d, a, b } => self.int_bin(Sub, I32, d, a, b),
            Op::Isub64 { d, a, b } => self.int_bin(Sub, I64, d, a, b),
            Op::Imul32 { d, a, b } => self.int_bin(Mul, I32, d, a, b),
            Op::Imul64 { d, a, b } => self.int_bin(Mul, I64, d, a, b),
            Op::Shl64 { d, a, b } => self.int_bin(Shl, I64, d, a, b),
            Op::Lshr32 { d, a, b } => self.int_bin(Lshr, I32, d, a, b),
            Op::Lshr64 { d, a, b } => self.int_bin(Lshr, I64, d, a, b),
            Op::Band64 { d, a, b } => self.int_bin(And, I64, d, a, b),
            Op::Bor64 { d, a, b } => self.int_bin(Or, I64, d, a, b),
            Op::Band32 { d, a, b } => self.int_bin(And, I32, d, a, b),
            Op::Fadd { ty, d, a, b, .. } => self.float_bin(Fadd, ty, d, a, b),
            Op::Fsub { ty, d, a, b, .. } => self.float_bin(Fsub, ty, d, a, b),
            Op::Fmul { ty, d, a, b, .. } => self.float_bin(Fmul, ty, d, a, b),
            Op::Fdiv { ty, d, a, b, .. } => self.float_bin(Fdiv, ty, d, a, b),
            Op::Frem { ty, d, a, b, .. } => self.float_bin(FloatBinOp::Frem, ty, d, a, b),
            Op::Fadd64 { d, a, b, .. } => self.float_bin(Fadd, F64, d, a, b),
            Op::Fsub64 { d, a, b, .. } => self.float_bin(Fsub, F64, d, a, b),
            Op::Fmul64 { d, a, b, .. } => self.float_bin(Fmul, F64, d, a, b),
            Op::Fdiv64 { d, a, b, .. } => self.float_bin(Fdiv, F64, d, a, b),
            Op::Fneg { ty, d, a } => self.fneg(ty, d, a),
            Op::Icmp { pred, ty, d, a, b } => self.compare(Compare::Int(pred, ty), d, a, b),
            Op::Fcmp { pred, ty, d, a, b } => self.compare(Compare::Float(pred, ty), d, a, b),
            Op::Select { d, c, t, f, .. } => self.select(d, c, t, f),
            Op::Sext32To64 { d, a } => self.cast(Sext, I32, I64, d, a),
            Op::Sitofp32To64 { d, a } => self.cast(Sitofp, I32, Type::F64, d, a),
            Op::Zext32To64 { d, a } => self.cast(Zext, I32, I64, d, a),
            Op::Trunc64To32 { d, a } => self.cast(Trunc, I64, I32, d, a),
            Op::Trunc { from, to, d, a } => self.cast(Trunc, from, to, d, a),
            Op::Zext { from, to, d, a } => self.cast(Zext, from, to, d, a),
            Op::Sext { from, to, d, a } => self.cast(Sext, from, to, d, a),
            Op::Fptrunc { from, to, d, a } => self.cast(CastOp::Fptrunc, from, to, d, a),
            Op::Fpext { from, to, d, a } => self.cast(CastOp::Fpext, from, to, d, a),
            Op::Fptoui { from, to, d, a } => self.cast(CastOp::Fptoui, from, to, d, a),
            Op::Fptosi { from, to, d, a } => self.cast(CastOp::Fptosi, from, to, d, a),
            Op::Uitofp { from, to, d, a } => self.cast(CastOp::Uitofp, from, to, d, a),
            Op::Sitofp { from, to, d, a } => self.cast(Sitofp, from, to, d, a),
            Op::Ptrtoint { from, to, d, a } => self.cast(CastOp::Ptrtoint, from, to, d, a),
            Op::Inttoptr { from, to, d, a } => self.cast(CastOp::Inttoptr, from, to, d, a),
            Op::Bitcast { from, to, d, a } => self.cast(CastOp::Bitcast, from, to, d, a),
            Op::Load { ty, d, addr } => self.load(ty, d, addr),
            Op::LoadF64 { d, addr } => self.load(Type::F64, d, addr),
            Op::LoadI64 { d, addr } => self.load(I64, d, addr),
            Op::Store { ty, addr, val } => self.store(ty, addr, val),
            Op::StoreF64 { addr, val } => self.store(Type::F64, addr, val),
            Op::StoreI64 { addr, val } => self.store(I64, addr, val),
            Op::Alloca { .. } => self.alloca(op),
            Op::AllocaCell { size, align } => self.reserve_cell(size, u64::from(align)),
            Op::PtrOffset { .. } | Op::PtrOffset1 { .. } => self.ptr_offset(op),
            Op::LoadCell { ty, d, cell } => self.load_cell(d, cell, ty),
            Op::LoadCellI64 { d, cell } => self.load_cell(d, cell, I64),
            Op::LoadCellF64 { d, cell } => self.load_cell(d, cell, Type::F64),
            Op::Move { d, a } => self.copy(d, a),
            Op::StackSave { d } => self.stack_save(d),
            Op::StackRestore { a } => self.stack_restore(a),
            Op::Call { .. } => self.call(op)?,
            Op::Math { .. } => self.math(op),
            Op::Builtin { .. } => self.builtin(op),
            Op::Nop => {}
            // Indirect calls, and any op this translation does not know, leave the
            // function to the interpreter.
            _ => return Err(Unsupported),
        }
        Ok(())
    }

    /// A fused compare-and-branch: the comparison, its branch event and the branch.
    fn fused_branch(&mut self, FusedBranch { compare, d, c }: FusedBranch) {
        let cmp = match compare {
            Compare::Int(pred, ty) => self.icmp(pred, ty, c.a, c.b),
            Compare::Float(pred, ty) => self.fcmp(pred, ty, c.a, c.b),
        };
        self.cmp_br(cmp, d, c.then_edge, c.else_edge, c.site.0);
    }

    fn jump(&mut self, edge: u32) {
        self.flush(true);
        let (block, fill) = self.edge_block(edge);
        self.b.ins().jump(block, &[]);
        self.fill_edge(block, fill);
    }

    fn br(&mut self, op: &Op) {
        let Op::Br {
            cond,
            then_edge,
            else_edge,
            site,
            lhs,
            rhs,
        } = *op
        else {
            unreachable!("br is passed a br")
        };
        let c = self.get(cond);
        let taken = self.b.ins().band_imm_u(c, 1);
        let operands = (lhs != NONE).then(|| (self.get(lhs), self.get(rhs)));
        self.branch_event(site.0, taken, operands);
        self.two_way(taken, then_edge, else_edge);
    }

    fn fneg(&mut self, ty: FloatTy, d: Slot, a: Slot) {
        let x = self.get(a);
        let sign = match ty {
            FloatTy::F32 => 0x8000_0000,
            FloatTy::F64 => i64::MIN,
        };
        let v = self.b.ins().bxor_imm_s(x, sign);
        self.set(d, v);
    }

    /// A comparison whose result only goes to its register.
    fn compare(&mut self, compare: Compare, d: Slot, a: Slot, b: Slot) {
        let (v, _, _) = match compare {
            Compare::Int(pred, ty) => self.icmp(pred, ty, a, b),
            Compare::Float(pred, ty) => self.fcmp(pred, ty, a, b),
        };
        self.set(d, v);
    }

    fn select(&mut self, d: Slot, c: Slot, t: Slot, f: Slot) {
        let cond = self.get(c);
        let bit = self.b.ins().band_imm_u(cond, 1);
        let (x, y) = (self.get(t), self.get(f));
        let v = self.b.ins().select(bit, x, y);
        self.set(d, v);
    }

    fn alloca(&mut self, op: &Op) {
        let Op::Alloca {
            d,
            size,
            count,
            count_ty,
            align,
        } = *op
        else {
            unreachable!("alloca is passed an alloca")
        };
        let n = if count == NONE {
            self.iconst(1)
        } else {
            let c = self.get(count);
            self.masked(c, count_ty)
        };
        let (s, al) = (self.iconst(size), self.iconst(u64::from(align)));
        let at = self.helper(runtime::HELPER_ALLOCA, &[s, n, al]);
        self.check_bail();
        self.set(d, at);
    }

    /// `PtrOffset` and `PtrOffset1`: the base plus the constant offset plus each index
    /// (sign-extended from its type) times its scale.
    fn ptr_offset(&mut self, op: &Op) {
        let (d, base, offset, terms) = match *op {
            Op::PtrOffset {
                d,
                base,
                offset,
                start,
                len,
            } => {
                let terms = self.fc.terms[start as usize..(start + len) as usize].to_vec();
                (d, base, offset, terms)
            }
            Op::PtrOffset1 {
                d,
                base,
                index,
                index_ty,
                offset,
                scale,
            } => (d, base, offset, vec![(index, index_ty, scale)]),
            _ => unreachable!("ptr_offset is passed PtrOffset or PtrOffset1"),
        };
        let b = self.get(base);
        let mut at = self.b.ins().iadd_imm_s(b, offset);
        for (index, ty, scale) in terms {
            let t = self.scaled_index(index, ty, scale);
            at = self.b.ins().iadd(at, t);
        }
        self.set(d, at);
    }

    /// A load from a register cell: the cell register's bits masked to `ty`.
    fn load_cell(&mut self, d: Slot, cell: Slot, ty: Type) {
        let c = self.get(cell);
        let v = self.masked(c, ty);
        self.set(d, v);
    }

    /// A register copy (a store to a register cell).
    fn copy(&mut self, d: Slot, a: Slot) {
        if d != NONE {
            let v = self.get(a);
            self.set(d, v);
        }
    }

    fn stack_save(&mut self, d: Slot) {
        let sp = if self.stack == StackUse::Cells {
            let words = self.load_ctx(Ctx::SP_OFFSET);
            let sp = self.b.ins().load(types::I64, FLAGS, words, 0);
            self.b.ins().iadd_imm_s(sp, STACK_BASE as i64)
        } else {
            self.helper(runtime::HELPER_STACK_POINTER, &[])
        };
        self.set(d, sp);
    }

    /// `Memory::reserve_cell`, inline below a stack pointer of 2^40 (the helper above).
    fn reserve_cell(&mut self, size: u64, align: u64) {
        let words = self.load_ctx(Ctx::SP_OFFSET);
        let sp = self.b.ins().load(types::I64, FLAGS, words, 0);
        let high = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, sp, 1 << 40);
        let slow = self.b.create_block();
        let fast = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(high, slow, &[], fast, &[]);
        self.b.switch_to_block(slow);
        let (s, al) = (self.iconst(size), self.iconst(align));
        self.helper(runtime::HELPER_RESERVE_CELL, &[s, al]);
        self.check_bail();
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(fast);
        let up = self.b.ins().iadd_imm_s(sp, (REDZONE + align - 1) as i64);
        let aligned = self.b.ins().band_imm_u(up, !(align as i64 - 1));
        let end = self.b.ins().iadd_imm_s(aligned, size as i64);
        let limit = self.load_ctx(Ctx::STACK_LIMIT_OFFSET);
        let top = self.b.ins().iadd_imm_s(end, REDZONE as i64);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, top, limit);
        let over = self.b.ins().uextend(types::I64, over);
        self.bail_if(IntCC::NotEqual, over, 0);
        self.b.ins().store(FLAGS, end, words, 0);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// `llvm.stackrestore(a)`: releases the stack to `a` unless `a` is below the
    /// function's own frame.
    fn stack_restore(&mut self, a: Slot) {
        let at = self.get(a);
        let Some(mark) = self.mark else {
            return;
        };
        let mark = self.b.use_var(mark);
        if self.stack != StackUse::Cells {
            self.helper(runtime::HELPER_STACK_RESTORE, &[at, mark]);
            return;
        }
        let off = self
            .b
            .ins()
            .iadd_imm_s(at, (STACK_BASE as i64).wrapping_neg());
        let inside = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, off, mark);
        let release = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(inside, release, &[], join, &[]);
        self.b.switch_to_block(release);
        self.release_cells(off);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// `Memory::stack_release` to the offset `mark`: inline unless live bytes above it
    /// must be invalidated.
    fn release_cells(&mut self, mark: Value) {
        let words = self.load_ctx(Ctx::SP_OFFSET);
        let sp = self.b.ins().load(types::I64, FLAGS, words, 0);
        let live_top = self.load_ctx(Ctx::LIVE_TOP_OFFSET);
        let live = self.b.ins().load(types::I64, FLAGS, live_top, 0);
        let below_live = self.b.ins().icmp(IntCC::UnsignedLessThan, mark, live);
        let slow = self.b.create_block();
        let fast = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(below_live, slow, &[], fast, &[]);
        self.b.switch_to_block(slow);
        let address = self.b.ins().iadd_imm_s(mark, STACK_BASE as i64);
        self.helper(runtime::HELPER_STACK_INVALIDATE, &[address]);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(fast);
        let lower = self.b.ins().umin(mark, sp);
        self.b.ins().store(FLAGS, lower, words, 0);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// A jump to `pc` copying the registers `a` into `d` (a parallel copy); never falls
    /// through.
    fn jump_moving(&mut self, pc: u32, d: &[Slot], a: &[Slot]) {
        self.flush(true);
        let values: Vec<Value> = a.iter().map(|&src| self.get(src)).collect();
        for (&dst, v) in d.iter().zip(values) {
            self.set(dst, v);
        }
        let target = self.blocks[&(pc as usize)];
        self.b.ins().jump(target, &[]);
    }

    fn load(&mut self, ty: Type, d: Slot, addr: Slot) {
        let at = self.get(addr);
        let t = self.iconst(runtime::type_code(ty));
        let v = self.helper(runtime::HELPER_LOAD, &[at, t]);
        self.check_bail();
        self.set(d, v);
    }

    fn store(&mut self, ty: Type, addr: Slot, val: Slot) {
        let at = self.get(addr);
        let v = self.get(val);
        let t = self.iconst(runtime::type_code(ty));
        self.helper(runtime::HELPER_STORE, &[at, v, t]);
        self.check_bail();
    }
}

/// Whether `op` gives an extended value: every arithmetic op and conversion to
/// extended, and the math functions but those to an integer (`lrintl`).
fn extended_result(op: F80Op) -> bool {
    match op {
        F80Op::Arith(_)
        | F80Op::Sqrt
        | F80Op::FromDouble
        | F80Op::FromSigned
        | F80Op::FromUnsigned => true,
        F80Op::Cmp | F80Op::ToFloat | F80Op::ToSigned | F80Op::ToUnsigned => false,
        F80Op::Libm(f) => f.shape() != MathShape::ToInt,
    }
}

/// How a fused compare-and-branch op compares.
#[derive(Clone, Copy)]
enum Compare {
    Int(IntPred, Type),
    Float(FloatPred, FloatTy),
}

/// A fused compare-and-branch op: the comparison, the slot its result goes to (`NONE`
/// when no other op reads it), and the operands and edges.
struct FusedBranch {
    compare: Compare,
    d: Slot,
    c: CmpBr,
}

/// The fused compare-and-branch op `op` is, if it is one.
fn fused_branch(op: &Op) -> Option<FusedBranch> {
    use FloatPred::{Oeq, Oge, Ogt, Ole, Olt, Une};
    use IntPred::{Eq, Ne, Sge, Sgt, Sle, Slt, Uge, Ugt, Ule, Ult};
    let general = |compare, d, a, b, then_edge, else_edge, site| {
        let c = CmpBr {
            a,
            b,
            then_edge,
            else_edge,
            site,
        };
        Some(FusedBranch { compare, d, c })
    };
    let (compare, c) = match *op {
        Op::IcmpBr {
            pred,
            ty,
            d,
            a,
            b,
            then_edge,
            else_edge,
            site,
        } => return general(Compare::Int(pred, ty), d, a, b, then_edge, else_edge, site),
        Op::FcmpBr {
            pred,
            ty,
            d,
            a,
            b,
            then_edge,
            else_edge,
            site,
        } => {
            return general(
                Compare::Float(pred, ty),
                d,
                a,
                b,
                then_edge,
                else_edge,
                site,
            )
        }
        Op::FcmpBr64 {
            pred,
            d,
            a,
            b,
            then_edge,
            else_edge,
            site,
        } => {
            let compare = Compare::Float(pred, FloatTy::F64);
            return general(compare, d, a, b, then_edge, else_edge, site);
        }
        Op::IcmpBrEq64(c) => (Compare::Int(Eq, Type::I64), c),
        Op::IcmpBrNe64(c) => (Compare::Int(Ne, Type::I64), c),
        Op::IcmpBrUlt64(c) => (Compare::Int(Ult, Type::I64), c),
        Op::IcmpBrUle64(c) => (Compare::Int(Ule, Type::I64), c),
        Op::IcmpBrUgt64(c) => (Compare::Int(Ugt, Type::I64), c),
        Op::IcmpBrUge64(c) => (Compare::Int(Uge, Type::I64), c),
        Op::IcmpBrSlt64(c) => (Compare::Int(Slt, Type::I64), c),
        Op::IcmpBrSle64(c) => (Compare::Int(Sle, Type::I64), c),
        Op::IcmpBrSgt64(c) => (Compare::Int(Sgt, Type::I64), c),
        Op::IcmpBrSge64(c) => (Compare::Int(Sge, Type::I64), c),
        Op::IcmpBrEq32(c) => (Compare::Int(Eq, Type::I32), c),
        Op::IcmpBrNe32(c) => (Compare::Int(Ne, Type::I32), c),
        Op::IcmpBrUlt32(c) => (Compare::Int(Ult, Type::I32), c),
        Op::IcmpBrUle32(c) => (Compare::Int(Ule, Type::I32), c),
        Op::IcmpBrUgt32(c) => (Compare::Int(Ugt, Type::I32), c),
        Op::IcmpBrUge32(c) => (Compare::Int(Uge, Type::I32), c),
        Op::IcmpBrSlt32(c) => (Compare::Int(Slt, Type::I32), c),
        Op::IcmpBrSle32(c) => (Compare::Int(Sle, Type::I32), c),
        Op::IcmpBrSgt32(c) => (Compare::Int(Sgt, Type::I32), c),
        Op::IcmpBrSge32(c) => (Compare::Int(Sge, Type::I32), c),
        Op::FcmpBrOeq64(c) => (Compare::Float(Oeq, FloatTy::F64), c),
        Op::FcmpBrUne64(c) => (Compare::Float(Une, FloatTy::F64), c),
        Op::FcmpBrOlt64(c) => (Compare::Float(Olt, FloatTy::F64), c),
        Op::FcmpBrOle64(c) => (Compare::Float(Ole, FloatTy::F64), c),
        Op::FcmpBrOgt64(c) => (Compare::Float(Ogt, FloatTy::F64), c),
        Op::FcmpBrOge64(c) => (Compare::Float(Oge, FloatTy::F64), c),
        _ => return None,
    };
    Some(FusedBranch {
        compare,
        d: NONE,
        c,
    })
}
