//! What a run tells its user beside its results: which library files were linked,
//! which symbols nothing defines, which pointer lengths were fitted, which saved tests
//! no longer fit. The driver hands each [`Note`] to its caller's listener as it happens;
//! the front end words it (a terminal prints `note:` and `warning:` lines).

use std::path::PathBuf;

/// Something worth telling the user, as data.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Note {
    /// The library search path linked these files into the program.
    LinkedFromLibrary(Vec<PathBuf>),
    /// `entry` may use these functions or globals that nothing defines (allowed: they
    /// trap if reached).
    MayUseUndefined {
        /// The entry function.
        entry: String,
        /// The missing symbols.
        names: Vec<String>,
    },
    /// Nearly every run with one element per pointer went out of bounds, so these
    /// pointer parameters were taken as longer arrays.
    PointersFitted {
        /// The function.
        function: String,
        /// The specs chosen, e.g. `y: f64[2]`.
        specs: Vec<String>,
    },
    /// Integer parameters found to be array parameters' lengths, kept within them.
    LengthParameters {
        /// The function.
        function: String,
        /// The specs chosen, e.g. `a: f64[8]`, `n in [0, 8]`.
        specs: Vec<String>,
    },
    /// Fortran array arguments dimensioned by another parameter (`X(N)`) were given
    /// that many elements and the parameter a range within them, from the declaration.
    DeclaredLengths {
        /// The function.
        function: String,
        /// The specs chosen, e.g. `x: f64[8]`, `n in [0, 8]`.
        specs: Vec<String>,
    },
    /// Nearly every probe run meets the same fault (the line the reports carry).
    EveryRunTraps(String),
    /// A function's saved tests no longer fit its inputs (its parameters changed), so
    /// its search starts afresh.
    SavedTestsDropped {
        /// Why they do not fit.
        reason: String,
    },
}

impl Note {
    /// Whether the note warns (something may be wrong) or only informs.
    pub fn is_warning(&self) -> bool {
        matches!(
            self,
            Note::MayUseUndefined { .. } | Note::EveryRunTraps(_) | Note::SavedTestsDropped { .. }
        )
    }
}

/// Who hears the notes of a run; runs over several functions call it from several
/// threads.
pub type Notes<'a> = &'a (dyn Fn(Note) + Sync);
