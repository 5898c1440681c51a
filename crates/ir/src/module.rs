//! The module: functions, globals, source files, externals and the site tables.
//!
//! Site tables are derived from the instructions ([`Module::index_sites`]) so they can
//! never disagree with the code: lowering and the text parser both number sites in the
//! instructions and then index them.

use crate::entities::{Block, BranchSite, EntityVec, FileId, Func, Global, OpSite, Reg};
use crate::inst::{
    BlockCall, Callee, FloatBinOp, FloatPred, Inst, InstKind, IntPred, Terminator, TrapCheck,
};
use crate::math::MathCall;
use crate::shape::ParamShape;
use crate::types::{FloatTy, Type};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// A source position from debug info.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SrcLoc {
    /// Source file.
    pub file: FileId,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub col: u32,
}

/// Where an address constant points.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AddrBase {
    /// A global variable.
    Global(Global),
    /// A function (for function pointers).
    Func(Func),
}

/// A constant register's value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Const {
    /// Raw bits of an integer or float of the register's type (zero-extended); `Ptr` bits are a raw address.
    Bits(u64),
    /// An address inside a global or of a function, plus a byte offset.
    Addr(AddrBase, i64),
}

/// A pointer stored inside a global's initial bytes, patched when memory is laid out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Reloc {
    /// Byte offset inside the global where the 8-byte address goes.
    pub at: u64,
    /// What it points to.
    pub target: AddrBase,
    /// Byte offset added to the target's address.
    pub addend: i64,
}

/// A global variable: its initial bytes and the pointers inside them.
#[derive(Clone, PartialEq, Debug)]
pub struct GlobalData {
    /// Symbol name.
    pub name: String,
    /// Initial bytes (the size of the global).
    pub init: Vec<u8>,
    /// Alignment in bytes.
    pub align: u32,
    /// True for `const` globals (stores to them trap).
    pub constant: bool,
    /// Addresses to patch into `init`.
    pub relocs: Vec<Reloc>,
}

/// A basic block: parameters (the SSA phis), instructions, terminator, and locations.
#[derive(Clone, PartialEq, Debug)]
pub struct BlockData {
    /// Registers receiving the values jumps pass in.
    pub params: Vec<Reg>,
    /// Instructions in order.
    pub insts: Vec<Inst>,
    /// Source location of each instruction (parallel to `insts`).
    pub locs: Vec<Option<SrcLoc>>,
    /// How the block ends.
    pub term: Terminator,
    /// Source location of the terminator.
    pub term_loc: Option<SrcLoc>,
}

/// A function with a body. The entry block is the first block; its parameters are the
/// function's parameters.
#[derive(Clone, PartialEq, Debug)]
pub struct Function {
    /// Symbol name.
    pub name: String,
    /// The demangled signature when `name` is a mangled C++ symbol
    /// (`clamp3(double, double*)` for `_Z6clamp3dPd`); see [`crate::names`].
    pub demangled: Option<String>,
    /// Result type (`None` for void).
    pub ret: Option<Type>,
    /// For each pointer parameter, the pointee scalar type when the source says it
    /// (`double *x`); parallel to the entry block's parameters.
    pub param_pointees: Vec<Option<Type>>,
    /// Names of the parameters in the source, when debug info or IR names give them.
    pub param_names: Vec<Option<String>>,
    /// Type of every register.
    pub regs: EntityVec<Reg, Type>,
    /// Constant registers and their values.
    pub consts: Vec<(Reg, Const)>,
    /// Blocks; `Block(0)` is the entry.
    pub blocks: EntityVec<Block, BlockData>,
    /// Where the function is defined.
    pub loc: Option<SrcLoc>,
}

impl Function {
    /// The entry block.
    pub const ENTRY: Block = Block(0);

    /// The name of the hidden first parameter of a function that returns a small struct
    /// by value (at most [`Function::SRET_BYTES`] bytes): lowering passes a buffer that
    /// receives the result. Larger structs already come as an ordinary result pointer.
    pub const SRET_PARAM: &'static str = ".sret";

    /// The largest struct returned by value in registers, which lowering turns into a
    /// [`Function::SRET_PARAM`] buffer.
    pub const SRET_BYTES: u32 = 16;

    /// The element type of the hidden struct-result parameter, when the function has one.
    pub fn sret_elem(&self) -> Option<Type> {
        let first = self.param_names.first()?.as_deref();
        (first == Some(Self::SRET_PARAM)).then(|| {
            self.param_pointees
                .first()
                .copied()
                .flatten()
                .unwrap_or(Type::I64)
        })
    }

    /// The parameter registers.
    pub fn params(&self) -> &[Reg] {
        &self.blocks[Self::ENTRY].params
    }

    /// Parameter types in order.
    pub fn param_types(&self) -> Vec<Type> {
        self.params().iter().map(|&r| self.regs[r]).collect()
    }
}

/// The comparison that decides a branch, when the condition comes from one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CmpPred {
    /// An `icmp`.
    Int(IntPred),
    /// An `fcmp`.
    Float(FloatPred),
}

/// The comparison feeding a conditional branch: `br (lhs pred rhs)` or its negation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Comparison {
    /// Predicate.
    pub pred: CmpPred,
    /// Operand type.
    pub ty: Type,
    /// Left operand register.
    pub lhs: Reg,
    /// Right operand register.
    pub rhs: Reg,
    /// True when the branch condition is the comparison's negation (`xor cmp, true`).
    pub negated: bool,
}

/// What kind of branch a site is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BranchKind {
    /// Two-way conditional branch: outcomes true and false.
    Cond,
    /// Switch with this many cases plus a default.
    Switch {
        /// Number of explicit cases.
        cases: u32,
    },
    /// A trap guard ([`crate::guard`]): a two-way branch whose true side is the input
    /// that makes the next instruction trap, so that searches aim at faults as they aim
    /// at branches.
    Trap(TrapCheck),
}

/// A branch site: where it is and what decides it.
#[derive(Clone, PartialEq, Debug)]
pub struct BranchSiteData {
    /// Enclosing function.
    pub func: Func,
    /// Block ending in the branch.
    pub block: Block,
    /// Source position of the branch.
    pub loc: Option<SrcLoc>,
    /// Conditional or switch.
    pub kind: BranchKind,
    /// The comparison deciding a conditional branch, when found.
    pub cmp: Option<Comparison>,
}

/// What operation an op site performs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OpKind {
    /// `fadd`, `fsub`, `fmul`, `fdiv`, `frem`.
    Arith(FloatBinOp, FloatTy),
    /// A math function call.
    Math(MathCall),
}

/// An op site: where a floating-point operation is and what it does.
#[derive(Clone, PartialEq, Debug)]
pub struct OpSiteData {
    /// Enclosing function.
    pub func: Func,
    /// Block holding it.
    pub block: Block,
    /// Index of the instruction in the block.
    pub inst: u32,
    /// Source position.
    pub loc: Option<SrcLoc>,
    /// The operation.
    pub kind: OpKind,
}

/// A whole program: what the interpreter runs and every engine reports on.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    /// Functions with bodies.
    pub funcs: EntityVec<Func, Function>,
    /// Global variables.
    pub globals: EntityVec<Global, GlobalData>,
    /// Source file names.
    pub files: EntityVec<FileId, String>,
    /// Names of called functions that are neither defined nor known; calling one traps.
    pub externals: Vec<String>,
    /// Branch sites, derived by [`Module::index_sites`].
    pub branch_sites: EntityVec<BranchSite, BranchSiteData>,
    /// Op sites, derived by [`Module::index_sites`].
    pub op_sites: EntityVec<OpSite, OpSiteData>,
    /// What pointer parameters point to when debug info says more than a scalar, by
    /// function and parameter index (see [`crate::shape`]).
    pub param_shapes: BTreeMap<(Func, usize), ParamShape>,
}

/// A site table that does not match the instructions.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SiteIndexError(pub String);

impl Module {
    /// Finds a function by symbol name.
    pub fn func_by_name(&self, name: &str) -> Option<Func> {
        self.funcs
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    /// What [`Module::describe_loc`] prints for a missing location.
    pub const UNKNOWN_LOCATION: &'static str = "<unknown location>";

    /// Prints a location as `file:line:col`.
    pub fn describe_loc(&self, loc: Option<SrcLoc>) -> String {
        match loc {
            Some(l) => format!(
                "{}:{}:{}",
                self.files.get(l.file).map_or("?", String::as_str),
                l.line,
                l.col
            ),
            None => Self::UNKNOWN_LOCATION.to_string(),
        }
    }

    /// Rebuilds the branch and op site tables from the site ids in the instructions.
    /// Site ids must be dense (0..n) and each used once.
    pub fn index_sites(&mut self) -> Result<(), SiteIndexError> {
        let mut branches: HashMap<BranchSite, BranchSiteData> = HashMap::new();
        let mut ops: HashMap<OpSite, OpSiteData> = HashMap::new();
        for (fid, func) in self.funcs.iter() {
            let defs = comparison_defs(func);
            for (bid, block) in func.blocks.iter() {
                for (i, inst) in block.insts.iter().enumerate() {
                    let found = match &inst.kind {
                        InstKind::FloatBin { op, ty, site, .. } => {
                            Some((*site, OpKind::Arith(*op, *ty)))
                        }
                        InstKind::Call {
                            callee: Callee::Math(call, site),
                            ..
                        } => Some((*site, OpKind::Math(*call))),
                        _ => None,
                    };
                    if let Some((site, kind)) = found {
                        let data = OpSiteData {
                            func: fid,
                            block: bid,
                            inst: i as u32,
                            loc: block.locs.get(i).copied().flatten(),
                            kind,
                        };
                        if ops.insert(site, data).is_some() {
                            return Err(SiteIndexError(format!("{site} is used twice")));
                        }
                    }
                }
                let found = match &block.term {
                    Terminator::Br {
                        cond, site, check, ..
                    } => {
                        let kind = check.map_or(BranchKind::Cond, BranchKind::Trap);
                        Some((*site, kind, defs.get(cond).copied()))
                    }
                    Terminator::Switch { cases, site, .. } => Some((
                        *site,
                        BranchKind::Switch {
                            cases: cases.len() as u32,
                        },
                        None,
                    )),
                    _ => None,
                };
                if let Some((site, kind, cmp)) = found {
                    let data = BranchSiteData {
                        func: fid,
                        block: bid,
                        loc: block.term_loc,
                        kind,
                        cmp,
                    };
                    if branches.insert(site, data).is_some() {
                        return Err(SiteIndexError(format!("{site} is used twice")));
                    }
                }
            }
        }
        self.branch_sites = dense_table(branches)?;
        self.op_sites = dense_table(ops)?;
        Ok(())
    }
}

/// Maps each `i1` register defined by a comparison (or the `xor true` of one) to it.
fn comparison_defs(func: &Function) -> HashMap<Reg, Comparison> {
    let mut defs = HashMap::new();
    let mut nots = Vec::new();
    let true_regs: Vec<Reg> = func
        .consts
        .iter()
        .filter(|(r, c)| func.regs[*r] == Type::BOOL && *c == Const::Bits(1))
        .map(|(r, _)| *r)
        .collect();
    for block in func.blocks.values() {
        for inst in &block.insts {
            let Some(dest) = inst.dest else { continue };
            let cmp = match inst.kind {
                InstKind::Icmp { pred, ty, lhs, rhs } => Comparison {
                    pred: CmpPred::Int(pred),
                    ty,
                    lhs,
                    rhs,
                    negated: false,
                },
                InstKind::Fcmp { pred, ty, lhs, rhs } => Comparison {
                    pred: CmpPred::Float(pred),
                    ty: Type::Float(ty),
                    lhs,
                    rhs,
                    negated: false,
                },
                InstKind::IntBin {
                    op: crate::inst::IntBinOp::Xor,
                    ty: Type::Int(1),
                    lhs,
                    rhs,
                } if true_regs.contains(&rhs) => {
                    nots.push((dest, lhs));
                    continue;
                }
                _ => continue,
            };
            defs.insert(dest, cmp);
        }
    }
    for (dest, inner) in nots {
        if let Some(c) = defs.get(&inner).copied() {
            defs.insert(
                dest,
                Comparison {
                    negated: !c.negated,
                    ..c
                },
            );
        }
    }
    defs
}

fn dense_table<K, V>(mut map: HashMap<K, V>) -> Result<EntityVec<K, V>, SiteIndexError>
where
    K: crate::entities::EntityId + fmt::Display,
{
    let n = map.len();
    (0..n)
        .map(|i| {
            let key = K::new(i);
            map.remove(&key)
                .ok_or_else(|| SiteIndexError(format!("site ids are not dense: {key} is missing")))
        })
        .collect()
}

/// A jump target with no arguments.
pub fn block_call(block: Block) -> BlockCall {
    BlockCall {
        block,
        args: Vec::new(),
    }
}
