//! Instructions and terminators.
//!
//! Every operand is a [`Reg`]: constants are registers too, defined once in the
//! function's constant table, so the interpreter reads every operand the same way.
//! Opcode and predicate names are LLVM's mnemonics.

use crate::entities::{Block, BranchSite, Func, OpSite, Reg};
use crate::math::{MathCall, MathFn, MathShape};
use crate::types::{FloatTy, Type};

/// Integer binary operations (`add` .. `xor`), with LLVM semantics on two's complement.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum IntBinOp {
    Add,
    Sub,
    Mul,
    Udiv,
    Sdiv,
    Urem,
    Srem,
    Shl,
    Lshr,
    Ashr,
    And,
    Or,
    Xor,
}

impl IntBinOp {
    /// Every value, in declaration order.
    pub const ALL: [IntBinOp; 13] = [
        IntBinOp::Add,
        IntBinOp::Sub,
        IntBinOp::Mul,
        IntBinOp::Udiv,
        IntBinOp::Sdiv,
        IntBinOp::Urem,
        IntBinOp::Srem,
        IntBinOp::Shl,
        IntBinOp::Lshr,
        IntBinOp::Ashr,
        IntBinOp::And,
        IntBinOp::Or,
        IntBinOp::Xor,
    ];
}

/// Floating-point binary operations; each one is an [`OpSite`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum FloatBinOp {
    Fadd,
    Fsub,
    Fmul,
    Fdiv,
    Frem,
}

impl FloatBinOp {
    /// Every value, in declaration order.
    pub const ALL: [FloatBinOp; 5] = [
        FloatBinOp::Fadd,
        FloatBinOp::Fsub,
        FloatBinOp::Fmul,
        FloatBinOp::Fdiv,
        FloatBinOp::Frem,
    ];
}

/// Integer comparison predicates.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum IntPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

impl IntPred {
    /// Every value, in declaration order.
    pub const ALL: [IntPred; 10] = [
        IntPred::Eq,
        IntPred::Ne,
        IntPred::Ugt,
        IntPred::Uge,
        IntPred::Ult,
        IntPred::Ule,
        IntPred::Sgt,
        IntPred::Sge,
        IntPred::Slt,
        IntPred::Sle,
    ];
}

/// Floating-point comparison predicates (ordered `o*`, unordered `u*`, constant `true`/`false`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum FloatPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    Uno,
    True,
}

impl FloatPred {
    /// Every value, in declaration order.
    pub const ALL: [FloatPred; 16] = [
        FloatPred::False,
        FloatPred::Oeq,
        FloatPred::Ogt,
        FloatPred::Oge,
        FloatPred::Olt,
        FloatPred::Ole,
        FloatPred::One,
        FloatPred::Ord,
        FloatPred::Ueq,
        FloatPred::Ugt,
        FloatPred::Uge,
        FloatPred::Ult,
        FloatPred::Ule,
        FloatPred::Une,
        FloatPred::Uno,
        FloatPred::True,
    ];
}

/// Conversions between types.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum CastOp {
    Trunc,
    Zext,
    Sext,
    Fptrunc,
    Fpext,
    Fptoui,
    Fptosi,
    Uitofp,
    Sitofp,
    Ptrtoint,
    Inttoptr,
    Bitcast,
}

impl CastOp {
    /// Every value, in declaration order.
    pub const ALL: [CastOp; 12] = [
        CastOp::Trunc,
        CastOp::Zext,
        CastOp::Sext,
        CastOp::Fptrunc,
        CastOp::Fpext,
        CastOp::Fptoui,
        CastOp::Fptosi,
        CastOp::Uitofp,
        CastOp::Sitofp,
        CastOp::Ptrtoint,
        CastOp::Inttoptr,
        CastOp::Bitcast,
    ];
}

/// Memory and bit-manipulation intrinsics and the few libc functions with fixed meaning.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum Builtin {
    /// `(dst, src, len)`.
    Memcpy,
    /// `(dst, src, len)`, overlapping allowed.
    Memmove,
    /// `(dst, byte, len)`.
    Memset,
    /// `(size) -> ptr`.
    Malloc,
    /// `(count, size) -> ptr`.
    Calloc,
    /// `(ptr, size) -> ptr`.
    Realloc,
    /// `(ptr)`.
    Free,
    /// Terminates the run with a trap.
    Abort,
    /// `(code)`: terminates the run.
    Exit,
    /// `__assert_fail`: terminates the run with a trap.
    AssertFail,
    /// `llvm.ctpop`.
    Ctpop,
    /// `llvm.ctlz` (second operand: zero is poison; ignored).
    Ctlz,
    /// `llvm.cttz`.
    Cttz,
    /// `llvm.bswap`.
    Bswap,
    /// `llvm.abs`.
    Abs,
    /// `llvm.smax`.
    Smax,
    /// `llvm.smin`.
    Smin,
    /// `llvm.umax`.
    Umax,
    /// `llvm.umin`.
    Umin,
    /// `llvm.stacksave -> ptr`.
    StackSave,
    /// `llvm.stackrestore(ptr)`.
    StackRestore,
    /// `(addr, size) -> i64`: how many bytes an access of `size` bytes at `addr` could
    /// move, either way, and stay inside the object it touches (capped); negative when the
    /// access would trap. Trap guards ([`crate::guard`]) measure pointers with it.
    AccessSlack,
    /// `(offset, object_bytes, size)`: traps, reporting an access of `size` bytes at byte
    /// `offset` of an object of `object_bytes` bytes; where a trap guard found the offset
    /// out of the object's bounds ([`crate::guard`]).
    BoundsFault,
    /// A C library function with a model: output, strings, number parsing, `errno`.
    Libc(LibcFn),
    /// `(exception)`: raises the C++ exception whose object is at the address (the C++
    /// runtime keeps its typeinfo in front of it): the run unwinds to the nearest
    /// [`Terminator::Invoke`] whose [`Landing`] takes it, or ends with the exception.
    Unwind,
    /// `std::terminate()`: ends the run with a trap (a throw through `noexcept`, an
    /// exception during unwinding).
    Terminate,
    /// An operation on x87 extended values (`long double`), computed by `fpir::f80`.
    F80(F80Op),
}

/// The arithmetic operations on two extended values that give one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum F80Arith {
    /// `fadd`.
    Add,
    /// `fsub`.
    Sub,
    /// `fmul`.
    Mul,
    /// `fdiv`.
    Div,
    /// `frem`: C's `fmodl`, exact.
    Rem,
}

/// An operation on x87 extended values (`long double`, see `fpir::f80`). Each
/// extended operand is two arguments, its significand (`i64`) then its sign and
/// exponent (`i16`). An operation whose result is extended is called once per half: the
/// call's result type says which (`i64` the significand, `i16` the sign and exponent).
/// The other results have the type of the call's result (`i1`, a float, an integer).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum F80Op {
    /// `(a, b) -> extended`: `fadd`, `fsub`, `fmul`, `fdiv`, `frem`.
    Arith(F80Arith),
    /// `(a) -> extended`: `sqrtl`, correctly rounded.
    Sqrt,
    /// `(a, b, pred) -> i1`: `fcmp`, `pred` the index of the predicate in
    /// [`FloatPred::ALL`].
    Cmp,
    /// `(x: f64) -> extended`: exact (an `f32` is extended to `f64` first).
    FromDouble,
    /// `(x: i64) -> extended`, exact.
    FromSigned,
    /// `(x: u64) -> extended`, exact.
    FromUnsigned,
    /// `(a) -> f32 | f64`, rounded once to the result type.
    ToFloat,
    /// `(a) -> iN`: `fptosi` as x86-64 code computes it.
    ToSigned,
    /// `(a) -> iN`: `fptoui` as x86-64 code computes it.
    ToUnsigned,
    /// `(operands...) -> extended | iN`: the host C library's `long double` version of
    /// the math function (`sinl`, `powl`, ...), named in the IR text as
    /// `f80_libm.NAME`, the row's name. Operands as the function's shape says: extended
    /// values, then the `int` of `ldexpl`, or the pointer `frexpl` and `modfl` store
    /// their second result through.
    Libm(MathFn),
}

impl F80Op {
    /// Every operation but the math functions ([`F80Op::Libm`] takes one of
    /// [`MathFn::ALL`]).
    pub const ALL: [F80Op; 13] = {
        use F80Arith as A;
        [
            F80Op::Arith(A::Add),
            F80Op::Arith(A::Sub),
            F80Op::Arith(A::Mul),
            F80Op::Arith(A::Div),
            F80Op::Arith(A::Rem),
            F80Op::Sqrt,
            F80Op::Cmp,
            F80Op::FromDouble,
            F80Op::FromSigned,
            F80Op::FromUnsigned,
            F80Op::ToFloat,
            F80Op::ToSigned,
            F80Op::ToUnsigned,
        ]
    };

    /// The IR text name of the builtin.
    pub fn name(self) -> &'static str {
        use F80Arith as A;
        match self {
            F80Op::Arith(A::Add) => "f80_add",
            F80Op::Arith(A::Sub) => "f80_sub",
            F80Op::Arith(A::Mul) => "f80_mul",
            F80Op::Arith(A::Div) => "f80_div",
            F80Op::Arith(A::Rem) => "f80_rem",
            F80Op::Sqrt => "f80_sqrt",
            F80Op::Cmp => "f80_cmp",
            F80Op::FromDouble => "f80_from_double",
            F80Op::FromSigned => "f80_from_signed",
            F80Op::FromUnsigned => "f80_from_unsigned",
            F80Op::ToFloat => "f80_to_float",
            F80Op::ToSigned => "f80_to_signed",
            F80Op::ToUnsigned => "f80_to_unsigned",
            F80Op::Libm(f) => libm_builtin_name(f),
        }
    }

    /// Looks an operation up by its IR text name: `f80_libm.NAME` takes the math
    /// function by its name in the table, never by its place there, so that saved IR
    /// keeps its meaning when the table's rows move.
    pub fn from_name(name: &str) -> Option<F80Op> {
        if let Some(func) = name.strip_prefix(LIBM_PREFIX) {
            return MathFn::from_name(func)
                .filter(|f| f.origin().is_c())
                .map(F80Op::Libm);
        }
        F80Op::ALL.into_iter().find(|op| op.name() == name)
    }

    /// How many arguments a call takes.
    pub fn arity(self) -> usize {
        match self {
            F80Op::Arith(_) => 4,
            F80Op::Cmp => 5,
            F80Op::Sqrt | F80Op::ToFloat | F80Op::ToSigned | F80Op::ToUnsigned => 2,
            F80Op::FromDouble | F80Op::FromSigned | F80Op::FromUnsigned => 1,
            F80Op::Libm(f) => match f.shape() {
                MathShape::Unary | MathShape::ToInt => 2,
                MathShape::Binary => 4,
                MathShape::Ternary => 6,
                MathShape::FloatInt | MathShape::FloatPtrInt | MathShape::FloatPtrFloat => 3,
            },
        }
    }
}

/// The text name of [`F80Op::Libm`]'s builtins starts so; the function's name follows.
const LIBM_PREFIX: &str = "f80_libm.";

/// The callback that generates the text names of [`F80Op::Libm`] from the math table.
macro_rules! define_libm_builtin_name {
    ($($variant:ident { $name:literal, $shape:ident, $origin:ident, $host:tt, $mpfr:tt, $solver:tt, $inline:ident })*) => {
        /// `f80_libm.NAME`, the IR text name of `f`'s `long double` builtin.
        fn libm_builtin_name(f: MathFn) -> &'static str {
            match f {
                $(MathFn::$variant => concat!("f80_libm.", $name),)*
            }
        }
    };
}

crate::for_each_math_fn!(define_libm_builtin_name);

/// The C library functions fpforge models beyond memory and termination: they read and
/// write the program's memory, capture its output, parse numbers and keep the
/// floating-point environment as glibc does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum LibcFn {
    /// `__errno_location() -> int*` (newlib's `__errno`): the address of the program's
    /// `errno`.
    ErrnoLocation,
    Printf,
    Fprintf,
    Sprintf,
    Snprintf,
    Puts,
    Putchar,
    Fputs,
    Fputc,
    Strlen,
    Strcmp,
    Strncmp,
    Strcpy,
    Strncpy,
    Strcat,
    Strchr,
    Strrchr,
    Strstr,
    Memcmp,
    Memchr,
    Atoi,
    Atol,
    Strtol,
    Strtoul,
    Strtod,
    Strtof,
    /// `<fenv.h>`: the run's rounding mode and exception flags.
    Fesetround,
    Fegetround,
    Feclearexcept,
    Fetestexcept,
    Feraiseexcept,
    Fegetexceptflag,
    Fesetexceptflag,
    Fegetenv,
    Fesetenv,
    Feholdexcept,
    Feupdateenv,
}

impl LibcFn {
    /// Every modelled function.
    pub const ALL: &'static [LibcFn] = &[
        LibcFn::ErrnoLocation,
        LibcFn::Printf,
        LibcFn::Fprintf,
        LibcFn::Sprintf,
        LibcFn::Snprintf,
        LibcFn::Puts,
        LibcFn::Putchar,
        LibcFn::Fputs,
        LibcFn::Fputc,
        LibcFn::Strlen,
        LibcFn::Strcmp,
        LibcFn::Strncmp,
        LibcFn::Strcpy,
        LibcFn::Strncpy,
        LibcFn::Strcat,
        LibcFn::Strchr,
        LibcFn::Strrchr,
        LibcFn::Strstr,
        LibcFn::Memcmp,
        LibcFn::Memchr,
        LibcFn::Atoi,
        LibcFn::Atol,
        LibcFn::Strtol,
        LibcFn::Strtoul,
        LibcFn::Strtod,
        LibcFn::Strtof,
        LibcFn::Fesetround,
        LibcFn::Fegetround,
        LibcFn::Feclearexcept,
        LibcFn::Fetestexcept,
        LibcFn::Feraiseexcept,
        LibcFn::Fegetexceptflag,
        LibcFn::Fesetexceptflag,
        LibcFn::Fegetenv,
        LibcFn::Fesetenv,
        LibcFn::Feholdexcept,
        LibcFn::Feupdateenv,
    ];

    /// The C symbol.
    pub fn name(self) -> &'static str {
        use LibcFn::*;
        match self {
            ErrnoLocation => "__errno_location",
            Printf => "printf",
            Fprintf => "fprintf",
            Sprintf => "sprintf",
            Snprintf => "snprintf",
            Puts => "puts",
            Putchar => "putchar",
            Fputs => "fputs",
            Fputc => "fputc",
            Strlen => "strlen",
            Strcmp => "strcmp",
            Strncmp => "strncmp",
            Strcpy => "strcpy",
            Strncpy => "strncpy",
            Strcat => "strcat",
            Strchr => "strchr",
            Strrchr => "strrchr",
            Strstr => "strstr",
            Memcmp => "memcmp",
            Memchr => "memchr",
            Atoi => "atoi",
            Atol => "atol",
            Strtol => "strtol",
            Strtoul => "strtoul",
            Strtod => "strtod",
            Strtof => "strtof",
            Fesetround => "fesetround",
            Fegetround => "fegetround",
            Feclearexcept => "feclearexcept",
            Fetestexcept => "fetestexcept",
            Feraiseexcept => "feraiseexcept",
            Fegetexceptflag => "fegetexceptflag",
            Fesetexceptflag => "fesetexceptflag",
            Fegetenv => "fegetenv",
            Fesetenv => "fesetenv",
            Feholdexcept => "feholdexcept",
            Feupdateenv => "feupdateenv",
        }
    }

    /// Whether the function is one of `<fenv.h>`'s, which read or change the run's
    /// floating-point environment.
    pub fn is_fenv(self) -> bool {
        use LibcFn::*;
        matches!(
            self,
            Fesetround
                | Fegetround
                | Feclearexcept
                | Fetestexcept
                | Feraiseexcept
                | Fegetexceptflag
                | Fesetexceptflag
                | Fegetenv
                | Fesetenv
                | Feholdexcept
                | Feupdateenv
        )
    }

    /// Whether what the function returns or writes may depend on the bytes it reads
    /// through a pointer argument (strings, buffers, a `%s` into a buffer).
    pub fn reads_memory(self) -> bool {
        use LibcFn::*;
        matches!(
            self,
            Strlen
                | Strcmp
                | Strncmp
                | Strcpy
                | Strncpy
                | Strcat
                | Strchr
                | Strrchr
                | Strstr
                | Memcmp
                | Memchr
                | Atoi
                | Atol
                | Strtol
                | Strtoul
                | Strtod
                | Strtof
                | Sprintf
                | Snprintf
        )
    }

    /// Whether the function reads the exception flags: returns them, or saves the whole
    /// environment where the program can read it.
    pub fn reads_flags(self) -> bool {
        use LibcFn::*;
        matches!(
            self,
            Fetestexcept | Fegetexceptflag | Fegetenv | Feholdexcept
        )
    }

    /// Whether the function only writes to an output stream: called for its effect, its
    /// arguments decide nothing the program can read back but its return value.
    pub fn only_writes_a_stream(self) -> bool {
        use LibcFn::*;
        matches!(self, Printf | Fprintf | Puts | Putchar | Fputs | Fputc)
    }

    /// The function whose C symbol is `name` (`putc` is `fputc`, `atoll` is `atol`,
    /// `strtoll`/`strtoull` are `strtol`/`strtoul`: the same on LP64; newlib's `__errno`
    /// is `__errno_location`).
    pub fn from_c_symbol(name: &str) -> Option<LibcFn> {
        let canonical = match name {
            "__errno" => "__errno_location",
            "putc" | "_IO_putc" => "fputc",
            "atoll" => "atol",
            "strtoll" => "strtol",
            "strtoull" => "strtoul",
            other => other,
        };
        LibcFn::ALL.iter().copied().find(|f| f.name() == canonical)
    }

    /// How many arguments a call needs at least (the variadic ones take more).
    pub fn min_args(self) -> usize {
        use LibcFn::*;
        match self {
            ErrnoLocation | Fegetround => 0,
            Fesetround | Feclearexcept | Fetestexcept | Feraiseexcept | Fegetenv | Fesetenv
            | Feholdexcept | Feupdateenv => 1,
            Fegetexceptflag | Fesetexceptflag => 2,
            Printf | Puts | Putchar | Strlen | Atoi | Atol => 1,
            Fprintf | Sprintf | Fputs | Fputc | Strcmp | Strcpy | Strcat | Strchr | Strrchr
            | Strstr | Strtod | Strtof => 2,
            Snprintf | Strncmp | Strncpy | Memcmp | Memchr | Strtol | Strtoul => 3,
        }
    }
}

impl Builtin {
    /// Every builtin but the [`Builtin::F80`] operations ([`F80Op::ALL`] and the math
    /// functions).
    pub const ALL: &'static [Builtin] = &[
        Builtin::Memcpy,
        Builtin::Memmove,
        Builtin::Memset,
        Builtin::Malloc,
        Builtin::Calloc,
        Builtin::Realloc,
        Builtin::Free,
        Builtin::Abort,
        Builtin::Exit,
        Builtin::AssertFail,
        Builtin::Ctpop,
        Builtin::Ctlz,
        Builtin::Cttz,
        Builtin::Bswap,
        Builtin::Abs,
        Builtin::Smax,
        Builtin::Smin,
        Builtin::Umax,
        Builtin::Umin,
        Builtin::StackSave,
        Builtin::StackRestore,
        Builtin::AccessSlack,
        Builtin::BoundsFault,
        Builtin::Unwind,
        Builtin::Terminate,
        Builtin::Libc(LibcFn::ErrnoLocation),
        Builtin::Libc(LibcFn::Printf),
        Builtin::Libc(LibcFn::Fprintf),
        Builtin::Libc(LibcFn::Sprintf),
        Builtin::Libc(LibcFn::Snprintf),
        Builtin::Libc(LibcFn::Puts),
        Builtin::Libc(LibcFn::Putchar),
        Builtin::Libc(LibcFn::Fputs),
        Builtin::Libc(LibcFn::Fputc),
        Builtin::Libc(LibcFn::Strlen),
        Builtin::Libc(LibcFn::Strcmp),
        Builtin::Libc(LibcFn::Strncmp),
        Builtin::Libc(LibcFn::Strcpy),
        Builtin::Libc(LibcFn::Strncpy),
        Builtin::Libc(LibcFn::Strcat),
        Builtin::Libc(LibcFn::Strchr),
        Builtin::Libc(LibcFn::Strrchr),
        Builtin::Libc(LibcFn::Strstr),
        Builtin::Libc(LibcFn::Memcmp),
        Builtin::Libc(LibcFn::Memchr),
        Builtin::Libc(LibcFn::Atoi),
        Builtin::Libc(LibcFn::Atol),
        Builtin::Libc(LibcFn::Strtol),
        Builtin::Libc(LibcFn::Strtoul),
        Builtin::Libc(LibcFn::Strtod),
        Builtin::Libc(LibcFn::Strtof),
    ];

    /// IR text name.
    pub fn name(self) -> &'static str {
        use Builtin::*;
        match self {
            Memcpy => "memcpy",
            Memmove => "memmove",
            Memset => "memset",
            Malloc => "malloc",
            Calloc => "calloc",
            Realloc => "realloc",
            Free => "free",
            Abort => "abort",
            Exit => "exit",
            AssertFail => "assert_fail",
            Ctpop => "ctpop",
            Ctlz => "ctlz",
            Cttz => "cttz",
            Bswap => "bswap",
            Abs => "abs",
            Smax => "smax",
            Smin => "smin",
            Umax => "umax",
            Umin => "umin",
            StackSave => "stacksave",
            StackRestore => "stackrestore",
            AccessSlack => "access_slack",
            BoundsFault => "bounds_fault",
            Unwind => "unwind",
            Terminate => "terminate",
            Libc(f) => f.name(),
            F80(op) => op.name(),
        }
    }

    /// Looks a builtin up by its IR text name.
    pub fn from_name(name: &str) -> Option<Builtin> {
        let builtin = Builtin::ALL.iter().copied().find(|b| b.name() == name);
        builtin.or_else(|| F80Op::from_name(name).map(Builtin::F80))
    }
}

/// What a call instruction calls.
#[derive(Clone, PartialEq, Debug)]
pub enum Callee {
    /// A function defined in the module.
    Direct(Func),
    /// A function pointer held in a register.
    Indirect(Reg),
    /// A math function; the call is an [`OpSite`].
    Math(MathCall, OpSite),
    /// A builtin with fixed meaning.
    Builtin(Builtin),
    /// A function neither defined nor known, by index into `Module::externals`; calling it traps.
    External(u32),
}

/// One `index * scale` term of an address computation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IndexTerm {
    /// The index register (an integer, sign-extended to 64 bits).
    pub index: Reg,
    /// Bytes per unit of index.
    pub scale: i64,
}

/// A non-terminator instruction. Its result register, if any, is [`Inst::dest`].
#[derive(Clone, PartialEq, Debug)]
pub enum InstKind {
    /// Integer arithmetic at type `ty`.
    IntBin {
        /// The operation.
        op: IntBinOp,
        /// Operand and result type.
        ty: Type,
        /// Left operand.
        lhs: Reg,
        /// Right operand.
        rhs: Reg,
    },
    /// Floating-point arithmetic; an op site.
    FloatBin {
        /// The operation.
        op: FloatBinOp,
        /// Operand and result format.
        ty: FloatTy,
        /// Left operand.
        lhs: Reg,
        /// Right operand.
        rhs: Reg,
        /// The op site of this operation.
        site: OpSite,
    },
    /// Floating-point negation (sign flip, exact).
    Fneg {
        /// Operand format.
        ty: FloatTy,
        /// Operand.
        arg: Reg,
    },
    /// Integer or pointer comparison producing `i1`.
    Icmp {
        /// Predicate.
        pred: IntPred,
        /// Operand type.
        ty: Type,
        /// Left operand.
        lhs: Reg,
        /// Right operand.
        rhs: Reg,
    },
    /// Floating-point comparison producing `i1`.
    Fcmp {
        /// Predicate.
        pred: FloatPred,
        /// Operand format.
        ty: FloatTy,
        /// Left operand.
        lhs: Reg,
        /// Right operand.
        rhs: Reg,
    },
    /// Conversion from type `from` to type `to`.
    Cast {
        /// The conversion.
        op: CastOp,
        /// Source type.
        from: Type,
        /// Result type.
        to: Type,
        /// Operand.
        arg: Reg,
    },
    /// `cond ? if_true : if_false`.
    Select {
        /// Result type.
        ty: Type,
        /// `i1` condition.
        cond: Reg,
        /// Value when true.
        if_true: Reg,
        /// Value when false.
        if_false: Reg,
    },
    /// Little-endian load of `ty` from `addr`.
    Load {
        /// Loaded type.
        ty: Type,
        /// Address.
        addr: Reg,
    },
    /// Little-endian store of `value` (of type `ty`) to `addr`.
    Store {
        /// Stored type.
        ty: Type,
        /// Address.
        addr: Reg,
        /// Value.
        value: Reg,
    },
    /// Stack allocation of `size * count` bytes aligned to `align`; freed on return.
    Alloca {
        /// Bytes per element.
        size: u64,
        /// Element count register (`None` means 1).
        count: Option<Reg>,
        /// Alignment in bytes.
        align: u32,
    },
    /// Address arithmetic: `base + offset + sum(index * scale)`.
    PtrOffset {
        /// Base address.
        base: Reg,
        /// Constant byte offset.
        offset: i64,
        /// Variable terms.
        terms: Vec<IndexTerm>,
    },
    /// A call; `dest` receives the result if the callee returns one.
    Call {
        /// What is called.
        callee: Callee,
        /// Arguments.
        args: Vec<Reg>,
    },
}

impl InstKind {
    /// The registers the instruction reads, in operand order (an indirect call's
    /// function pointer first).
    pub fn operands(&self) -> Vec<Reg> {
        match self {
            InstKind::IntBin { lhs, rhs, .. }
            | InstKind::FloatBin { lhs, rhs, .. }
            | InstKind::Icmp { lhs, rhs, .. }
            | InstKind::Fcmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            InstKind::Fneg { arg, .. } | InstKind::Cast { arg, .. } => vec![*arg],
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => vec![*cond, *if_true, *if_false],
            InstKind::Load { addr, .. } => vec![*addr],
            InstKind::Store { addr, value, .. } => vec![*addr, *value],
            InstKind::Alloca { count, .. } => count.iter().copied().collect(),
            InstKind::PtrOffset { base, terms, .. } => std::iter::once(*base)
                .chain(terms.iter().map(|t| t.index))
                .collect(),
            InstKind::Call { callee, args } => match callee {
                Callee::Indirect(f) => std::iter::once(*f).chain(args.iter().copied()).collect(),
                _ => args.clone(),
            },
        }
    }
}

/// An instruction with its optional result register.
#[derive(Clone, PartialEq, Debug)]
pub struct Inst {
    /// Result register.
    pub dest: Option<Reg>,
    /// Operation.
    pub kind: InstKind,
}

/// A jump target with the values passed to the block's parameters.
#[derive(Clone, PartialEq, Debug)]
pub struct BlockCall {
    /// Target block.
    pub block: Block,
    /// Arguments, one per parameter of `block`.
    pub args: Vec<Reg>,
}

/// One case of a switch.
#[derive(Clone, PartialEq, Debug)]
pub struct SwitchCase {
    /// Case value (bits of the scrutinee's type, zero-extended).
    pub value: u64,
    /// Where it goes.
    pub target: BlockCall,
}

/// How a block ends.
#[derive(Clone, PartialEq, Debug)]
pub enum Terminator {
    /// Unconditional jump.
    Jump(BlockCall),
    /// Two-way branch on an `i1`; a branch site.
    Br {
        /// Condition.
        cond: Reg,
        /// Target when true.
        then_to: BlockCall,
        /// Target when false.
        else_to: BlockCall,
        /// Its site.
        site: BranchSite,
        /// For a trap guard, the fault its true side leads to.
        check: Option<TrapCheck>,
    },
    /// Multi-way branch on an integer; a branch site.
    Switch {
        /// Scrutinee type.
        ty: Type,
        /// Scrutinee.
        value: Reg,
        /// Cases, in source order.
        cases: Vec<SwitchCase>,
        /// Target when no case matches.
        default: BlockCall,
        /// Its site.
        site: BranchSite,
    },
    /// The end of a block whose last instruction is a call that may raise a C++
    /// exception (LLVM's `invoke`): `normal` when the call returns, `landing` when it
    /// raises one that the landing takes.
    Invoke {
        /// Where a return of the call goes.
        normal: BlockCall,
        /// Where an exception goes.
        landing: Landing,
    },
    /// Return, with a value unless the function returns void.
    Ret(Option<Reg>),
    /// Reaching it is a trap.
    Unreachable,
}

impl Terminator {
    /// The registers the terminator reads: its condition, scrutinee or returned value,
    /// then the arguments of its jumps in target order.
    pub fn operands(&self) -> Vec<Reg> {
        let own = match self {
            Terminator::Br { cond, .. } => Some(*cond),
            Terminator::Switch { value, .. } => Some(*value),
            Terminator::Ret(value) => *value,
            Terminator::Jump(_) | Terminator::Unreachable => None,
            Terminator::Invoke { landing, .. } => {
                return landing
                    .typeinfos()
                    .chain(
                        self.targets()
                            .into_iter()
                            .flat_map(|t| t.args.iter().copied()),
                    )
                    .filter(|&r| r != landing.exception && r != landing.selector)
                    .collect();
            }
        };
        own.into_iter()
            .chain(
                self.targets()
                    .into_iter()
                    .flat_map(|t| t.args.iter().copied()),
            )
            .collect()
    }

    /// All jump targets, in order (then/else; cases then default).
    pub fn targets(&self) -> Vec<&BlockCall> {
        match self {
            Terminator::Jump(t) => vec![t],
            Terminator::Br {
                then_to, else_to, ..
            } => vec![then_to, else_to],
            Terminator::Switch { cases, default, .. } => {
                cases.iter().map(|c| &c.target).chain([default]).collect()
            }
            Terminator::Invoke { normal, landing } => vec![normal, &landing.to],
            Terminator::Ret(_) | Terminator::Unreachable => Vec::new(),
        }
    }
}

/// Where an exception raised by the call before a [`Terminator::Invoke`] goes (LLVM's
/// `landingpad`): the registers `exception` (the thrown object's address) and `selector`
/// (the [`Clause::Catch`] id that matched, 0 for a cleanup) are set by the unwinder and
/// defined by the terminator, and `to` passes them on like any other jump argument.
#[derive(Clone, PartialEq, Debug)]
pub struct Landing {
    /// The landing pad block and its arguments.
    pub to: BlockCall,
    /// `ptr`: the exception object.
    pub exception: Reg,
    /// `i32`: which clause matched.
    pub selector: Reg,
    /// The catch clauses in order.
    pub clauses: Vec<Clause>,
    /// Whether the pad also runs (with selector 0) for exceptions no clause catches.
    pub cleanup: bool,
}

impl Landing {
    /// The typeinfo registers of the clauses, in order.
    pub fn typeinfos(&self) -> impl Iterator<Item = Reg> + '_ {
        self.clauses.iter().filter_map(|c| match c {
            Clause::Catch { typeinfo, .. } => *typeinfo,
        })
    }
}

/// One clause of a [`Landing`].
#[derive(Clone, PartialEq, Debug)]
pub enum Clause {
    /// `catch (T)`: exceptions whose type is `T` or derives from it (`typeinfo` holds the
    /// address of `T`'s typeinfo object), or every exception (`catch (...)`, `None`); the
    /// selector becomes `id`, the value `llvm.eh.typeid.for` gives for that typeinfo.
    Catch {
        /// The typeinfo address, or `None` for a catch-all.
        typeinfo: Option<Reg>,
        /// The selector value.
        id: u32,
    },
}

/// The fault a trap guard tests for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TrapCheck {
    /// An integer divisor is zero.
    DivByZero,
    /// A signed division or remainder of the type's minimum by -1.
    DivOverflow,
    /// A load or store touches bytes outside the object its address points into.
    OutOfBounds,
}

impl TrapCheck {
    /// Every check.
    pub const ALL: [TrapCheck; 3] = [
        TrapCheck::DivByZero,
        TrapCheck::DivOverflow,
        TrapCheck::OutOfBounds,
    ];

    /// Its name in the IR text (`br ... @br7 trap div0`) and in reports.
    pub fn name(self) -> &'static str {
        match self {
            TrapCheck::DivByZero => "div0",
            TrapCheck::DivOverflow => "divoverflow",
            TrapCheck::OutOfBounds => "bounds",
        }
    }

    /// The check by its name.
    pub fn from_name(name: &str) -> Option<TrapCheck> {
        TrapCheck::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The fault in words, as reports print it.
    pub fn label(self) -> &'static str {
        match self {
            TrapCheck::DivByZero => "integer division by zero",
            TrapCheck::DivOverflow => "integer division overflow (MIN / -1)",
            TrapCheck::OutOfBounds => "out-of-bounds access",
        }
    }
}
