//! [`Arg`], what a caller passes for one parameter of the function the interpreter runs:
//! the type every spec and plan produces, defined here so that the interpreter depends on
//! the specs and not the other way round.

use fpir::Type;

/// An argument of a call of the function under test.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Arg {
    /// Raw bits of an integer, float or pointer parameter (masked to the parameter's width,
    /// so a sign-extended `-1i32 as u64` is accepted).
    Scalar(u64),
    /// An array placed in a fresh heap block (with redzones) whose address is passed to a
    /// pointer parameter; its final contents come back with the run's result.
    Array {
        /// Element type.
        elem: Type,
        /// Raw bits of the elements.
        values: Vec<u64>,
    },
}
