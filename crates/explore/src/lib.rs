//! `fpforge-explore`: concolic execution over fpforge's interpreter, path-oriented input
//! generation (`reach`, after FPSE) and generational path exploration (`explore`, with
//! FloPSy's and FPSE's solvers answering the path conditions).
//!
//! - [`concolic`]: the [`Concolic`] semantics (concrete bits plus solver terms, a
//!   byte-granular symbolic memory shadow, path conditions, recorded concretizations).
//! - [`path`]: path specs (`br3:T (br2:T br4:F)x12 file.c:41:F`).
//! - [`session`]: one entry function under concolic execution: runs, solver queries,
//!   concrete confirmation.
//! - [`reach`]: an input for a path or a branch side, or a proof of infeasibility
//!   ([`reach_sides`] is what `cover` calls for the sides it could not reach).
//! - [`explore`](mod@explore): generational, coverage-first exploration.
//! - [`smt2`]: queries as SMT-LIB for peer solvers.
//! - [`libm_facts`]: math calls as uninterpreted results bounded by their ranges, for
//!   the bit-precise backend.
//!
//! What `cover` calls for the sides its search did not reach (coordinates as in
//! [`fpforge_spec::InputSpec::to_args`]):
//!
//! ```no_run
//! use fpforge_engine::Budget;
//! use fpforge_explore::{reach_sides, EngineConfig, SideAnswer};
//! # fn demo(module: &fpir::Module, func: fpir::Func, spec: fpforge_spec::InputSpec)
//! #     -> Result<(), Box<dyn std::error::Error>> {
//! let side = module.parse_side("br7:T")?;
//! let budget = Budget::default().with_time_limit(Some(std::time::Duration::from_secs(5)));
//! for answer in reach_sides(module, func, spec.clone(), &[side], EngineConfig::default(), &budget)? {
//!     match answer {
//!         SideAnswer::Covered(coords) => println!("witness {:?}", spec.to_args(&coords)),
//!         SideAnswer::Infeasible { method } => println!("infeasible ({method:?})"),
//!         SideAnswer::Unknown(why) => println!("not reached ({why:?})"),
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! Soundness: every input reported has been re-executed on the concrete interpreter
//! along the claimed path or side; "infeasible" comes only from a complete method on an
//! exact path condition (no concretization in it), and names the method.
#![deny(missing_docs)]

pub mod concolic;
pub mod error;
pub mod explore;
pub mod libm_facts;
pub mod path;
pub mod reach;
pub mod session;
pub mod smt2;

pub use concolic::{CVal, CallPolicy, Concolic, PathEntry, TermMismatch};
pub use error::ExploreError;
pub use explore::{explore, ExploreConfig, ExploreEvent, ExploreReport};
pub use path::PathSpec;
pub use reach::{
    reach_path, reach_side, reach_sides, ReachAim, ReachAnswer, ReachConfig, ReachReport,
    ReachVerdict, Reached, SideAnswer,
};
pub use session::{EngineConfig, QueryStats};
