//! The state every function's lowering shares: the module being built (its interned
//! source files, external functions and globals grow as lowering goes), the site
//! numbering, and the predicates of constrained comparisons read beside `llvm-ir`.
//!
//! Source files are interned as the debug info names them (the `DIFile` filename, not
//! joined with the compilation directory): the path as given to clang, which clang
//! makes relative to its working directory when the file lies under it. Reports then
//! print `file:line:col` the way compiler diagnostics do, and golden files do not depend
//! on the machine.

use crate::fenv::FcmpPredicates;
use fpir::{FileId, SrcLoc};
use llvm_ir::debugloc::DebugLoc;
use std::collections::HashMap;

/// State shared by the lowering of all functions of one module.
pub(crate) struct Ctx {
    /// The module being built.
    pub out: fpir::Module,
    files: HashMap<String, FileId>,
    externals: HashMap<String, u32>,
    /// Predicates of constrained comparisons (see [`crate::fenv`]).
    pub fcmp_predicates: FcmpPredicates,
    next_branch: u32,
    next_op: u32,
}

impl Ctx {
    /// A context building an empty module.
    pub fn new(fcmp_predicates: FcmpPredicates) -> Self {
        Ctx {
            out: fpir::Module::default(),
            files: HashMap::new(),
            externals: HashMap::new(),
            fcmp_predicates,
            next_branch: 0,
            next_op: 0,
        }
    }

    /// Interns a debug location's file and returns the location.
    pub fn src_loc(&mut self, loc: &Option<DebugLoc>) -> Option<SrcLoc> {
        let loc = loc.as_ref()?;
        let file = match self.files.get(&loc.filename) {
            Some(&id) => id,
            None => {
                let id = self.out.files.push(loc.filename.clone());
                self.files.insert(loc.filename.clone(), id);
                id
            }
        };
        Some(SrcLoc {
            file,
            line: loc.line,
            col: loc.col.unwrap_or(0),
        })
    }

    /// The index of an external function in `Module::externals`, added on first use.
    pub fn external(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.externals.get(name) {
            return i;
        }
        let i = self.out.externals.len() as u32;
        self.out.externals.push(name.to_string());
        self.externals.insert(name.to_string(), i);
        i
    }

    /// The next branch and op site numbers.
    pub fn site_counters(&self) -> (u32, u32) {
        (self.next_branch, self.next_op)
    }

    /// Rewinds the site numbering (before lowering a function again).
    pub fn reset_site_counters(&mut self, (branch, op): (u32, u32)) {
        self.next_branch = branch;
        self.next_op = op;
    }

    /// The next branch site id (textual order).
    pub fn next_branch(&mut self) -> fpir::BranchSite {
        self.next_branch += 1;
        fpir::BranchSite(self.next_branch - 1)
    }

    /// The next op site id (textual order).
    pub fn next_op(&mut self) -> fpir::OpSite {
        self.next_op += 1;
        fpir::OpSite(self.next_op - 1)
    }
}
