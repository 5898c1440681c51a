//! `fpir`: fpforge's lowered intermediate representation.
//!
//! A compact, typed, register-based IR that every engine runs through one interpreter.
//! Functions own typed tables of registers and blocks; blocks take parameters instead
//! of phis; constants are registers defined in a per-function table; every conditional
//! branch or switch is a numbered [`BranchSite`] and every floating-point operation or
//! math call a numbered [`OpSite`], each with its source location.
//!
//! The IR has a text form ([`mod@write`] prints it, [`mod@parse`] reads it back) and a
//! [`verify`] pass that checks the invariants listed in its module docs.

#![deny(missing_docs)]

pub mod analysis;
pub mod entities;
pub mod eval;
pub mod f80;
pub mod float_text;
pub mod guard;
pub mod inst;
pub mod math;
pub mod module;
pub mod names;
pub mod parse;
pub mod shape;
pub mod side;
pub mod types;
pub mod verify;
pub mod write;

pub use entities::{Block, BranchSite, EntityId, EntityVec, FileId, Func, Global, OpSite, Reg};
pub use inst::{
    BlockCall, Builtin, Callee, CastOp, Clause, F80Op, FloatBinOp, FloatPred, IndexTerm, Inst,
    InstKind, IntBinOp, IntPred, Landing, LibcFn, SwitchCase, Terminator, TrapCheck,
};
pub use math::{MathCall, MathFn, MathOrigin, MathShape, SignBitOp};
pub use module::{
    AddrBase, BlockData, BranchKind, BranchSiteData, CmpPred, Comparison, Const, Function,
    GlobalData, Module, OpKind, OpSiteData, Reloc, SiteIndexError, SrcLoc,
};
pub use names::FuncLookup;
pub use parse::{parse_module, ParseError};
pub use shape::{Extent, FieldShape, ParamShape, Passing, StructShape};
pub use side::{
    Arm, Closest, Effort, InfeasibleMethod, MissReason, OpenReason, Side, SideParseError,
    SideReport, SideStatus, SideTally, Witness,
};
pub use types::{FloatTy, Type};
pub use verify::{verify_module, VerifyError};
pub use write::{write_module, write_reached};
