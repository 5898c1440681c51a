//! The state every function's lowering shares: the module being built (its interned
//! source files, external functions and globals grow as lowering goes), the site
//! numbering, and the predicates of constrained comparisons read beside `llvm-ir`.
//!
//! Sites are numbered in textual order, in two series of branch sites: conditional
//! `br`s and `switch`es from 0, then the `select`s that lowering turns into branches
//! (see [`crate::func`]), from the module's number of `br`/`switch` terminators on. So
//! a `select` never moves another site, and every function's sites stay where the text
//! puts them whichever functions have selects.
//!
//! Source files are interned by the path every output writes for them
//! ([`SourcePaths::written`]: the debug info's filename joined with its directory,
//! relative to the run's directory when the file lies under it). Reports then print
//! `file:line:col` the way compiler diagnostics do, and golden files of fixtures under
//! the run's directory do not depend on the machine.

use crate::beside::Beside;
use crate::paths::SourcePaths;
use fpir::{FileId, SrcLoc};
use llvm_ir::debugloc::DebugLoc;
use std::collections::HashMap;

/// State shared by the lowering of all functions of one module.
pub(crate) struct Ctx {
    /// The module being built.
    pub out: fpir::Module,
    files: HashMap<(Option<String>, String), FileId>,
    paths: SourcePaths,
    externals: HashMap<String, u32>,
    /// What the LLVM C API read beside `llvm-ir` (see [`crate::beside`]).
    pub beside: Beside,
    next: SiteNumbers,
    /// The selector id of each typeinfo global caught (`None`: catch-all), from 1.
    typeids: HashMap<Option<String>, u32>,
    /// The parameters that are `long double`s ([`fpir::ParamShape::LongDouble`]): a
    /// value's significand, or the hidden slot of a `long double` result.
    pub long_doubles: std::collections::BTreeSet<(fpir::Func, usize)>,
}

/// The next site ids of each series (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SiteNumbers {
    branch: u32,
    select: u32,
    op: u32,
}

impl Ctx {
    /// The selector id of catching `typeinfo` (`None`: everything): what
    /// `llvm.eh.typeid.for` gives for it and the unwinder sets when that clause catches.
    pub fn typeid(&mut self, typeinfo: Option<&str>) -> u32 {
        let next = self.typeids.len() as u32 + 1;
        *self
            .typeids
            .entry(typeinfo.map(str::to_string))
            .or_insert(next)
    }

    /// A context building an empty module from an LLVM module with `branch_terminators`
    /// conditional `br`s and `switch`es, where the `select` sites begin.
    pub fn new(beside: Beside, branch_terminators: u32, paths: SourcePaths) -> Self {
        Ctx {
            out: fpir::Module::default(),
            files: HashMap::new(),
            paths,
            externals: HashMap::new(),
            beside,
            typeids: HashMap::new(),
            long_doubles: std::collections::BTreeSet::new(),
            next: SiteNumbers {
                branch: 0,
                select: branch_terminators,
                op: 0,
            },
        }
    }

    /// Interns a debug location's file and returns the location.
    pub fn src_loc(&mut self, loc: &Option<DebugLoc>) -> Option<SrcLoc> {
        let loc = loc.as_ref()?;
        let key = (loc.directory.clone(), loc.filename.clone());
        let file = match self.files.get(&key) {
            Some(&id) => id,
            None => {
                let written = self.paths.written(loc.directory.as_deref(), &loc.filename);
                let id = self.out.files.push(written);
                self.files.insert(key, id);
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

    /// The next site numbers, to rewind to.
    pub fn site_numbers(&self) -> SiteNumbers {
        self.next
    }

    /// Rewinds the site numbering (before lowering a function again).
    pub fn rewind_sites(&mut self, to: SiteNumbers) {
        self.next = to;
    }

    /// The next branch site id of a conditional `br` or a `switch`.
    pub fn next_branch(&mut self) -> fpir::BranchSite {
        self.next.branch += 1;
        fpir::BranchSite(self.next.branch - 1)
    }

    /// The next branch site id of a `select`.
    pub fn next_select(&mut self) -> fpir::BranchSite {
        self.next.select += 1;
        fpir::BranchSite(self.next.select - 1)
    }

    /// The next op site id.
    pub fn next_op(&mut self) -> fpir::OpSite {
        self.next.op += 1;
        fpir::OpSite(self.next.op - 1)
    }
}
