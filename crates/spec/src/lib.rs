//! `fpforge-spec`: what the inputs of a function under test are, and how a search's
//! coordinates become the arguments of a call.
//!
//! Every engine (cover, explore, accuracy) searches over a flat vector of coordinates and
//! hands the interpreter [`Arg`]s; this crate owns the one mapping between the two, so
//! the engines agree on it, and sits below the interpreter (`fpforge-exec` takes the
//! [`Arg`]s it produces).
//!
//! - [`spec`]: `--arg` and `--out-arg` texts ([`ArgSpec`], [`OutArgSpec`]) resolved
//!   against a function's parameters into an [`InputSpec`]: its [`ParamInput`]s, the
//!   [`Coord`]s of the search space, and the arguments and `inputs.txt` line of a point.
//! - [`plan`]: the searches' view of an [`InputSpec`]: coordinates as reals, the starting
//!   points (special values, constants harvested from the program) and the
//!   [`plan::Test`] a point stands for.
//! - [`Arg`]: one argument of a call: a scalar's bits, an array, a struct or a vector.

#![deny(missing_docs)]

mod arg;
pub mod call;
mod fields;
pub mod plan;
pub mod spec;

pub use arg::{Arg, Cell};
pub use spec::{
    ArgSpec, Coord, FieldInput, FieldValue, InputSpec, OutArgSpec, ParamInput, SpecError,
    ValueRange,
};
