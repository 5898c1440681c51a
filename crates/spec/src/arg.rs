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
    /// A struct placed in a fresh zeroed heap block whose address is passed to a pointer
    /// parameter: its size and the scalars stored in it. Every cell that is not a
    /// pointer is an input of the run (one input slot each, in order).
    Block {
        /// Size in bytes.
        size: u64,
        /// The scalars stored in it.
        cells: Vec<Cell>,
    },
    /// A libstdc++ `std::vector`: the values in a fresh heap array, and a 24-byte header
    /// (first element, past the last, past the end of the storage) whose address is
    /// passed to the pointer parameter.
    Vector {
        /// Element type.
        elem: Type,
        /// Raw bits of the elements.
        values: Vec<u64>,
    },
}

/// One scalar stored in an [`Arg::Block`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Cell {
    /// Byte offset in the block.
    pub offset: u64,
    /// Its type.
    pub ty: Type,
    /// Raw bits.
    pub bits: u64,
}
