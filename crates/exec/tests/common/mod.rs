//! A tiny builder for hand-written fpir functions in tests.

use fpir::{
    Block, BlockCall, BlockData, BranchSite, Callee, Const, EntityVec, FloatBinOp, FloatTy,
    Function, GlobalData, Inst, InstKind, IntBinOp, Module, OpSite, Reg, Terminator, Type,
};

/// Builds one function block by block.
pub struct FnBuilder {
    pub f: Function,
    pub cur: Block,
}

impl FnBuilder {
    /// A function with the given parameter types; returns the builder and the parameters.
    pub fn new(name: &str, params: &[Type], ret: Option<Type>) -> (FnBuilder, Vec<Reg>) {
        let mut f = Function {
            name: name.into(),
            demangled: None,
            ret,
            param_pointees: vec![None; params.len()],
            param_names: vec![None; params.len()],
            regs: EntityVec::new(),
            consts: Vec::new(),
            blocks: EntityVec::new(),
            loc: None,
        };
        let ps: Vec<Reg> = params.iter().map(|&t| f.regs.push(t)).collect();
        f.blocks.push(BlockData {
            params: ps.clone(),
            insts: Vec::new(),
            locs: Vec::new(),
            term: Terminator::Unreachable,
            term_loc: None,
        });
        (FnBuilder { f, cur: Block(0) }, ps)
    }

    pub fn reg(&mut self, ty: Type) -> Reg {
        self.f.regs.push(ty)
    }

    pub fn konst(&mut self, ty: Type, bits: u64) -> Reg {
        let r = self.reg(ty);
        self.f.consts.push((r, Const::Bits(bits)));
        r
    }

    pub fn f64c(&mut self, x: f64) -> Reg {
        self.konst(Type::F64, x.to_bits())
    }

    pub fn i32c(&mut self, x: i32) -> Reg {
        self.konst(Type::I32, u64::from(x as u32))
    }

    pub fn i64c(&mut self, x: i64) -> Reg {
        self.konst(Type::I64, x as u64)
    }

    pub fn addr_const(&mut self, base: fpir::AddrBase, off: i64) -> Reg {
        let r = self.reg(Type::Ptr);
        self.f.consts.push((r, Const::Addr(base, off)));
        r
    }

    /// A new block with parameters of the given types.
    pub fn block(&mut self, params: &[Type]) -> (Block, Vec<Reg>) {
        let ps: Vec<Reg> = params.iter().map(|&t| self.reg(t)).collect();
        let b = self.f.blocks.push(BlockData {
            params: ps.clone(),
            insts: Vec::new(),
            locs: Vec::new(),
            term: Terminator::Unreachable,
            term_loc: None,
        });
        (b, ps)
    }

    pub fn switch_to(&mut self, b: Block) {
        self.cur = b;
    }

    /// Appends an instruction with a result of type `ty`.
    pub fn op(&mut self, ty: Type, kind: InstKind) -> Reg {
        let r = self.reg(ty);
        self.push(Some(r), kind);
        r
    }

    /// Appends an instruction without a result.
    pub fn effect(&mut self, kind: InstKind) {
        self.push(None, kind);
    }

    fn push(&mut self, dest: Option<Reg>, kind: InstKind) {
        let b = &mut self.f.blocks[self.cur];
        b.insts.push(Inst { dest, kind });
        b.locs.push(None);
    }

    pub fn term(&mut self, t: Terminator) {
        self.f.blocks[self.cur].term = t;
    }

    /// A stack slot of `size` bytes aligned to `align`.
    pub fn alloca(&mut self, size: u64, align: u32) -> Reg {
        self.op(
            Type::Ptr,
            InstKind::Alloca {
                size,
                count: None,
                align,
            },
        )
    }

    pub fn ibin(&mut self, op: IntBinOp, ty: Type, lhs: Reg, rhs: Reg) -> Reg {
        self.op(ty, InstKind::IntBin { op, ty, lhs, rhs })
    }

    pub fn fbin(&mut self, op: FloatBinOp, ty: FloatTy, lhs: Reg, rhs: Reg) -> Reg {
        self.op(
            Type::Float(ty),
            InstKind::FloatBin {
                op,
                ty,
                lhs,
                rhs,
                site: OpSite(0),
            },
        )
    }

    pub fn call(&mut self, ret: Option<Type>, callee: Callee, args: Vec<Reg>) -> Option<Reg> {
        let kind = InstKind::Call { callee, args };
        match ret {
            Some(t) => Some(self.op(t, kind)),
            None => {
                self.effect(kind);
                None
            }
        }
    }

    pub fn ret(&mut self, r: Option<Reg>) {
        self.term(Terminator::Ret(r));
    }

    pub fn jump(&mut self, b: Block, args: Vec<Reg>) {
        self.term(Terminator::Jump(BlockCall { block: b, args }));
    }

    pub fn br(&mut self, cond: Reg, t: Block, e: Block) {
        self.term(Terminator::Br {
            cond,
            then_to: fpir::module::block_call(t),
            else_to: fpir::module::block_call(e),
            site: BranchSite(0),
            check: None,
        });
    }

    pub fn finish(self) -> Function {
        self.f
    }
}

/// A module from functions and globals, with sites renumbered densely and indexed.
pub fn module(funcs: Vec<Function>, globals: Vec<GlobalData>, externals: Vec<String>) -> Module {
    let mut m = Module {
        funcs: funcs.into_iter().collect(),
        globals: globals.into_iter().collect(),
        externals,
        ..Module::default()
    };
    let (mut nb, mut no) = (0u32, 0u32);
    let ids: Vec<fpir::Func> = m.funcs.keys().collect();
    for id in ids {
        let blocks: Vec<Block> = m.funcs[id].blocks.keys().collect();
        for b in blocks {
            let data = &mut m.funcs[id].blocks[b];
            for inst in &mut data.insts {
                match &mut inst.kind {
                    InstKind::FloatBin { site, .. }
                    | InstKind::Call {
                        callee: Callee::Math(_, site),
                        ..
                    } => {
                        *site = OpSite(no);
                        no += 1;
                    }
                    _ => {}
                }
            }
            match &mut data.term {
                Terminator::Br { site, .. } | Terminator::Switch { site, .. } => {
                    *site = BranchSite(nb);
                    nb += 1;
                }
                _ => {}
            }
        }
    }
    m.index_sites().expect("dense sites");
    m
}

/// A module holding one function.
pub fn single(f: Function) -> Module {
    module(vec![f], vec![], vec![])
}
