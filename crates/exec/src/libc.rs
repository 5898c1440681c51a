//! The C library model: what each [`LibcFn`] does to the program's memory, its captured
//! output ([`crate::streams::Streams`]) and its `errno`.
//!
//! Output goes to `stdout` and `stderr` buffers ([`crate::streams`]) that the run's
//! [`crate::RunEnv`] keeps (emptied before every run), never to the host's streams;
//! `errno` is an `int` on the heap, allocated at the first `__errno_location` (newlib's
//! `__errno`) of a run, so it is zero at each call's start. Functions work on concrete
//! bits: their results are constants to any semantics. The `<fenv.h>` functions
//! (`environment`) work on the run's [`crate::fenv::FloatEnv`], and `printf` rounds in
//! its mode.

mod environment;
pub mod format;
pub mod parse;

use crate::env::RunEnv;
use crate::memory::Memory;
use crate::semantics::Semantics;
use crate::streams::{Stream, Streams};
use crate::trap::TrapKind;
use format::{Args, FormatError};
use fpir::eval::RoundingMode;
use fpir::{LibcFn, Type};

/// What the host's glibc prints for `snprintf(buf, n, fmt, x)` with `x` a `long double`
/// (its one conversion an `L` one), or `None` when it fails: the reference the model's
/// `%L` conversions are tested against (Rust cannot pass a `long double` to C itself).
pub fn host_format_long_double(fmt: &std::ffi::CStr, x: fpir::f80::F80) -> Option<Vec<u8>> {
    crate::libm_f80::host_format(fmt, x)
}

/// The name of an `errno` value, as `<errno.h>` spells it (`EDOM`, `ERANGE`, ...).
pub fn errno_name(errno: i32) -> Option<&'static str> {
    Some(match errno {
        1 => "EPERM",
        2 => "ENOENT",
        5 => "EIO",
        9 => "EBADF",
        12 => "ENOMEM",
        14 => "EFAULT",
        22 => "EINVAL",
        33 => "EDOM",
        34 => "ERANGE",
        75 => "EOVERFLOW",
        84 => "EILSEQ",
        _ => return None,
    })
}

/// Runs `f` on the concrete bits `args` of its arguments.
pub(crate) fn call<S: Semantics>(
    sem: &mut S,
    mem: &mut Memory,
    env: &mut RunEnv,
    f: LibcFn,
    args: &[u64],
) -> Returned<S> {
    let arg = |k: usize| args.get(k).copied().unwrap_or(0);
    let mode = env.float.mode();
    let streams = &mut env.streams;
    match f {
        LibcFn::ErrnoLocation => {
            let addr = match streams.errno_addr {
                Some(a) => a,
                None => {
                    let a = mem.malloc(4)?;
                    mem.store(Type::I32, a, 0)?;
                    streams.errno_addr = Some(a);
                    a
                }
            };
            ptr(sem, addr)
        }
        LibcFn::Printf => {
            let text = printf(mem, mode, arg(0), &args[1.min(args.len())..])?;
            streams.write(Stream::Out, &text);
            int(sem, text.len() as i64)
        }
        LibcFn::Fprintf => {
            let stream = streams.stream(arg(0))?;
            let text = printf(mem, mode, arg(1), &args[2.min(args.len())..])?;
            streams.write(stream, &text);
            int(sem, text.len() as i64)
        }
        LibcFn::Sprintf => {
            let mut text = printf(mem, mode, arg(1), &args[2.min(args.len())..])?;
            let n = text.len();
            text.push(0);
            mem.write_bytes(arg(0), &text)?;
            int(sem, n as i64)
        }
        LibcFn::Snprintf => {
            let text = printf(mem, mode, arg(2), &args[3.min(args.len())..])?;
            let size = arg(1) as usize;
            if size > 0 {
                let keep = text.len().min(size - 1);
                let mut out = text[..keep].to_vec();
                out.push(0);
                mem.write_bytes(arg(0), &out)?;
            }
            int(sem, text.len() as i64)
        }
        LibcFn::Puts => {
            let mut text = c_string(mem, arg(0), None)?;
            text.push(b'\n');
            streams.write(Stream::Out, &text);
            int(sem, 1)
        }
        LibcFn::Putchar => {
            streams.write(Stream::Out, &[arg(0) as u8]);
            int(sem, i64::from(arg(0) as u8))
        }
        LibcFn::Fputs => {
            let stream = streams.stream(arg(1))?;
            let text = c_string(mem, arg(0), None)?;
            streams.write(stream, &text);
            int(sem, 1)
        }
        LibcFn::Fputc => {
            let stream = streams.stream(arg(1))?;
            streams.write(stream, &[arg(0) as u8]);
            int(sem, i64::from(arg(0) as u8))
        }
        f if f.is_fenv() => {
            let result = environment::call(mem, &mut env.float, f, arg)?;
            int(sem, result)
        }
        _ => strings_and_numbers(sem, mem, streams, f, arg),
    }
}

/// The string, memory and number functions of [`call`]; a range error sets the `errno`
/// that `streams` locates.
fn strings_and_numbers<S: Semantics>(
    sem: &mut S,
    mem: &mut Memory,
    streams: &mut Streams,
    f: LibcFn,
    arg: impl Fn(usize) -> u64,
) -> Returned<S> {
    match f {
        LibcFn::Strlen => {
            let n = c_string(mem, arg(0), None)?.len();
            long(sem, n as u64)
        }
        LibcFn::Strcmp | LibcFn::Strncmp => {
            let max = (f == LibcFn::Strncmp).then(|| arg(2) as usize);
            let a = c_string(mem, arg(0), max)?;
            let b = c_string(mem, arg(1), max)?;
            int(sem, compare(&a, &b))
        }
        LibcFn::Memcmp => {
            let a = mem.read_bytes(arg(0), arg(2))?.to_vec();
            let b = mem.read_bytes(arg(1), arg(2))?;
            int(sem, compare(&a, b))
        }
        LibcFn::Strcpy => {
            let mut s = c_string(mem, arg(1), None)?;
            s.push(0);
            mem.write_bytes(arg(0), &s)?;
            ptr(sem, arg(0))
        }
        LibcFn::Strncpy => {
            let n = arg(2) as usize;
            let mut s = c_string(mem, arg(1), Some(n))?;
            s.resize(n, 0);
            mem.write_bytes(arg(0), &s)?;
            ptr(sem, arg(0))
        }
        LibcFn::Strcat => {
            let end = arg(0) + c_string(mem, arg(0), None)?.len() as u64;
            let mut s = c_string(mem, arg(1), None)?;
            s.push(0);
            mem.write_bytes(end, &s)?;
            ptr(sem, arg(0))
        }
        LibcFn::Strchr | LibcFn::Strrchr => {
            let s = c_string(mem, arg(0), None)?;
            let c = arg(1) as u8;
            let at = if c == 0 {
                Some(s.len())
            } else if f == LibcFn::Strchr {
                s.iter().position(|&b| b == c)
            } else {
                s.iter().rposition(|&b| b == c)
            };
            ptr(sem, at.map_or(0, |k| arg(0) + k as u64))
        }
        LibcFn::Strstr => {
            let hay = c_string(mem, arg(0), None)?;
            let needle = c_string(mem, arg(1), None)?;
            let at = if needle.is_empty() {
                Some(0)
            } else {
                hay.windows(needle.len())
                    .position(|w| w == needle.as_slice())
            };
            ptr(sem, at.map_or(0, |k| arg(0) + k as u64))
        }
        LibcFn::Memchr => {
            let c = arg(1) as u8;
            let mut at = None;
            for k in 0..arg(2) {
                if mem.load(Type::I8, arg(0) + k)? as u8 == c {
                    at = Some(arg(0) + k);
                    break;
                }
            }
            ptr(sem, at.unwrap_or(0))
        }
        LibcFn::Atoi => {
            let s = c_string(mem, arg(0), None)?;
            int(sem, parse::strtol(&s, 10).value as i32 as i64)
        }
        LibcFn::Atol => {
            let s = c_string(mem, arg(0), None)?;
            long(sem, parse::strtol(&s, 10).value as u64)
        }
        LibcFn::Strtol | LibcFn::Strtoul => {
            let s = c_string(mem, arg(0), None)?;
            let base = arg(2) as u32;
            let (value, used, range_error) = if f == LibcFn::Strtol {
                let p = parse::strtol(&s, base);
                (p.value as u64, p.used, p.range_error)
            } else {
                let p = parse::strtoul(&s, base);
                (p.value, p.used, p.range_error)
            };
            finish_parse(mem, streams, arg(0), arg(1), used, range_error)?;
            long(sem, value)
        }
        LibcFn::Strtod | LibcFn::Strtof => {
            let s = c_string(mem, arg(0), None)?;
            let (bits, ty) = if f == LibcFn::Strtod {
                let p = parse::strtod(&s);
                finish_parse(mem, streams, arg(0), arg(1), p.used, p.range_error)?;
                (p.value.to_bits(), Type::F64)
            } else {
                let p = parse::strtof(&s);
                finish_parse(mem, streams, arg(0), arg(1), p.used, p.range_error)?;
                (u64::from(p.value.to_bits()), Type::F32)
            };
            Ok(Some(sem.constant(ty, bits)))
        }
        _ => unreachable!("call handles {f:?}"),
    }
}

type Returned<S> = Result<Option<<S as Semantics>::Value>, TrapKind>;

/// An `int` result.
fn int<S: Semantics>(sem: &mut S, v: i64) -> Returned<S> {
    Ok(Some(sem.constant(Type::I32, v as u64)))
}

/// A `long` result.
fn long<S: Semantics>(sem: &mut S, v: u64) -> Returned<S> {
    Ok(Some(sem.constant(Type::I64, v)))
}

/// A pointer result.
fn ptr<S: Semantics>(sem: &mut S, p: u64) -> Returned<S> {
    Ok(Some(sem.address(p)))
}

/// Stores `*endptr` (when not NULL) and `errno = ERANGE` on a range error.
fn finish_parse(
    mem: &mut Memory,
    streams: &mut Streams,
    start: u64,
    endptr: u64,
    used: usize,
    range_error: bool,
) -> Result<(), TrapKind> {
    if endptr != 0 {
        mem.store(Type::Ptr, endptr, start + used as u64)?;
    }
    if range_error {
        set_errno(mem, streams, 34)?;
    }
    Ok(())
}

fn set_errno(mem: &mut Memory, streams: &mut Streams, value: i32) -> Result<(), TrapKind> {
    let addr = match streams.errno_addr {
        Some(a) => a,
        None => {
            let a = mem.malloc(4)?;
            streams.errno_addr = Some(a);
            a
        }
    };
    mem.store(Type::I32, addr, value as u32 as u64)
}

/// `strcmp`'s sign: the first differing bytes as unsigned chars.
fn compare(a: &[u8], b: &[u8]) -> i64 {
    let differing = a.iter().zip(b).find(|(x, y)| x != y);
    match differing {
        Some((&x, &y)) => i64::from(x) - i64::from(y),
        None => a.len() as i64 - b.len() as i64,
    }
    .signum()
}

/// The bytes of the C string at `addr` without its terminator, at most `max`.
pub(crate) fn c_string(mem: &Memory, addr: u64, max: Option<usize>) -> Result<Vec<u8>, TrapKind> {
    let mut s = Vec::new();
    while max.is_none_or(|m| s.len() < m) {
        let b = mem.load(Type::I8, addr + s.len() as u64)? as u8;
        if b == 0 {
            break;
        }
        s.push(b);
    }
    Ok(s)
}

struct MemArgs<'a> {
    mem: &'a Memory,
    values: &'a [u64],
    next: usize,
}

impl Args for MemArgs<'_> {
    fn next(&mut self) -> u64 {
        let v = self.values.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        v
    }

    fn string(&mut self, addr: u64, max: Option<usize>) -> Result<Vec<u8>, FormatError> {
        c_string(self.mem, addr, max).map_err(FormatError::Fault)
    }
}

/// The text `printf(fmt, values...)` prints when the run rounds in `mode`.
fn printf(mem: &Memory, mode: RoundingMode, fmt: u64, values: &[u64]) -> Result<Vec<u8>, TrapKind> {
    let fmt = c_string(mem, fmt, None)?;
    let mut args = MemArgs {
        mem,
        values,
        next: 0,
    };
    format::format_in(&fmt, &mut args, mode).map_err(|e| match e {
        FormatError::Fault(kind) => kind,
        FormatError::Unsupported(u) => TrapKind::Unsupported(u.to_string()),
    })
}
