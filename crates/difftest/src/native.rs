//! Native builds of a bitcode module: instrument, compile with clang-14, load.
//!
//! [`NativeLib::build`] disassembles the bitcode with `llvm-dis-14`, adds branch hooks
//! ([`crate::instrument`]), compiles the text at `-O0` together with the trace runtime
//! (`runtime.c`) into a shared object linked with `-lm`, and loads it with `libloading`.
//! The same bitcode is what the interpreter runs, so both sides execute the same
//! instructions; only the executor differs.

use crate::instrument::{instrument, DefinedFunc, FloatConstants, InstrumentError};
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The trace runtime's C source.
pub const RUNTIME_C: &str = include_str!("runtime.c");

/// How to build a native library.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct NativeConfig {
    /// Add branch hooks and link the trace runtime. Default: true.
    pub trace: bool,
    /// Link with `-Wl,-Bsymbolic` so calls between the library's own functions bind
    /// inside it even when the process already has a symbol of that name (musl's `exp`
    /// vs the host's). Default: false.
    pub symbolic: bool,
    /// The clang to compile with. Default: `clang-14`.
    pub clang: String,
    /// The disassembler. Default: `llvm-dis-14`.
    pub llvm_dis: String,
    /// Whether constant operands of float operations are read at run time, as a run in
    /// a directed rounding mode needs (see [`FloatConstants`]). Default: as compiled.
    pub float_constants: FloatConstants,
}

impl Default for NativeConfig {
    fn default() -> Self {
        NativeConfig {
            trace: true,
            symbolic: false,
            clang: "clang-14".to_string(),
            llvm_dis: "llvm-dis-14".to_string(),
            float_constants: FloatConstants::AsCompiled,
        }
    }
}

impl NativeConfig {
    /// Sets whether branch hooks are added.
    pub fn with_trace(mut self, trace: bool) -> Self {
        self.trace = trace;
        self
    }

    /// Sets what becomes of float operations' constant operands.
    pub fn with_float_constants(mut self, float_constants: FloatConstants) -> Self {
        self.float_constants = float_constants;
        self
    }

    /// Sets whether the library is linked with `-Bsymbolic`.
    pub fn with_symbolic(mut self, symbolic: bool) -> Self {
        self.symbolic = symbolic;
        self
    }
}

/// Why a native build failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NativeError {
    /// A tool could not be started.
    #[error("cannot run {tool}: {source}")]
    Spawn {
        /// The program.
        tool: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A tool exited with an error.
    #[error("{tool} failed:\n{stderr}")]
    Tool {
        /// The program.
        tool: String,
        /// What it printed.
        stderr: String,
    },
    /// Reading or writing a temporary file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The disassembly could not be instrumented.
    #[error("instrumenting: {0}")]
    Instrument(#[from] InstrumentError),
    /// The shared object could not be loaded or lacks a symbol.
    #[error("{0}")]
    Load(#[from] libloading::Error),
}

/// One native trace event, as recorded by the runtime.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RawEvent {
    /// Branch site id.
    pub site: u32,
    /// 1 for a switch, 0 for a conditional branch.
    pub is_switch: u32,
    /// The condition (0/1) or the zero-extended switch scrutinee.
    pub value: u64,
}

type LenFn = unsafe extern "C" fn() -> usize;
type DataFn = unsafe extern "C" fn() -> *const RawEvent;
type FlagFn = unsafe extern "C" fn() -> i32;
type ResetFn = unsafe extern "C" fn();

#[derive(Clone, Copy)]
struct TraceFns {
    len: LenFn,
    data: DataFn,
    overflow: FlagFn,
    reset: ResetFn,
}

/// A loaded native build. The temporary directory holding the shared object lives as
/// long as the library.
pub struct NativeLib {
    trace: Option<TraceFns>,
    funcs: Vec<DefinedFunc>,
    sites: u32,
    path: PathBuf,
    // Field order matters: the library is unloaded before its directory is removed.
    lib: libloading::Library,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for NativeLib {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeLib")
            .field("path", &self.path)
            .field("sites", &self.sites)
            .field("funcs", &self.funcs.len())
            .finish()
    }
}

impl NativeLib {
    /// Builds and loads a shared object from an LLVM-14 bitcode file.
    pub fn build(bitcode: &Path, config: &NativeConfig) -> Result<Self, NativeError> {
        let dir = tempfile::Builder::new()
            .prefix("fpforge-native")
            .tempdir()?;
        let ll = dir.path().join("module.ll");
        run(Command::new(&config.llvm_dis)
            .arg(bitcode)
            .arg("-o")
            .arg(&ll))?;
        let text = std::fs::read_to_string(&ll)?;
        let instrumented = instrument(&text, config.float_constants)?;
        let so = dir.path().join("libnative.so");
        let mut cc = Command::new(&config.clang);
        cc.args(["-O0", "-shared", "-fPIC", "-w", "-Wno-override-module"]);
        if config.trace || config.float_constants == FloatConstants::ReadAtRunTime {
            let traced = dir.path().join("traced.ll");
            std::fs::write(&traced, &instrumented.text)?;
            let runtime = dir.path().join("fpforge_runtime.c");
            std::fs::write(&runtime, RUNTIME_C)?;
            cc.arg(&traced).arg(&runtime);
        } else {
            cc.arg(&ll);
        }
        if config.symbolic {
            cc.arg("-Wl,-Bsymbolic");
        }
        cc.arg("-o").arg(&so).arg("-lm");
        run(&mut cc)?;
        // SAFETY: the library is ours, built just now from the module under test; its
        // initializers are clang's and the runtime's, which have no side effects.
        let lib = unsafe { libloading::Library::new(&so)? };
        let trace = if config.trace {
            // SAFETY: these symbols are defined by runtime.c with exactly these types.
            unsafe {
                Some(TraceFns {
                    len: *lib.get::<LenFn>(b"fpforge_trace_len\0")?,
                    data: *lib.get::<DataFn>(b"fpforge_trace_data\0")?,
                    overflow: *lib.get::<FlagFn>(b"fpforge_trace_overflow\0")?,
                    reset: *lib.get::<ResetFn>(b"fpforge_trace_reset\0")?,
                })
            }
        } else {
            None
        };
        Ok(NativeLib {
            trace,
            funcs: instrumented.funcs,
            sites: instrumented.sites,
            path: so,
            lib,
            _dir: dir,
        })
    }

    /// Builds and loads a plain (untraced) shared object straight from C sources with
    /// `clang-14 -O0` and `cflags`, the way a user would compile them: the baseline of
    /// the speed benchmark. Nothing is instrumented, so [`NativeLib::funcs`] is empty.
    pub fn build_sources(
        sources: &[PathBuf],
        cflags: &[String],
        config: &NativeConfig,
    ) -> Result<Self, NativeError> {
        let dir = tempfile::Builder::new()
            .prefix("fpforge-native")
            .tempdir()?;
        let so = dir.path().join("libplain.so");
        let mut cc = Command::new(&config.clang);
        cc.args(["-O0", "-shared", "-fPIC", "-w"])
            .args(cflags)
            .args(sources);
        if config.symbolic {
            cc.arg("-Wl,-Bsymbolic");
        }
        cc.arg("-o").arg(&so).arg("-lm");
        run(&mut cc)?;
        // SAFETY: as in `build`: our own library, built just now.
        let lib = unsafe { libloading::Library::new(&so)? };
        Ok(NativeLib {
            trace: None,
            funcs: Vec::new(),
            sites: 0,
            path: so,
            lib,
            _dir: dir,
        })
    }

    /// Functions defined in the module, in textual order.
    pub fn funcs(&self) -> &[DefinedFunc] {
        &self.funcs
    }

    /// Number of branch sites the instrumenter numbered.
    pub fn sites(&self) -> u32 {
        self.sites
    }

    /// True when the library records branch traces.
    pub fn traced(&self) -> bool {
        self.trace.is_some()
    }

    /// The address of an exported function.
    pub fn symbol(&self, name: &str) -> Result<*const c_void, NativeError> {
        let mut cname = name.as_bytes().to_vec();
        cname.push(0);
        // SAFETY: the symbol is only read as an address here; callers give it a type.
        let sym = unsafe { self.lib.get::<*const c_void>(&cname)? };
        Ok(*sym)
    }

    /// The runtime's `long double` trampoline (see [`crate::dispatch::call_extended`]);
    /// only a traced library links the runtime.
    pub fn extended_trampoline(&self) -> Result<crate::dispatch::ExtendedTrampoline, NativeError> {
        // SAFETY: runtime.c defines `fpforge_call_extended` with exactly this type.
        let f = unsafe {
            self.lib
                .get::<crate::dispatch::ExtendedTrampoline>(b"fpforge_call_extended\0")?
        };
        Ok(*f)
    }

    /// Clears this thread's trace buffer.
    pub fn reset_trace(&self) {
        if let Some(t) = self.trace {
            // SAFETY: runtime function without arguments; touches thread-local state only.
            unsafe { (t.reset)() }
        }
    }

    /// This thread's trace since the last reset, or `None` if it overflowed the
    /// runtime's buffer (or the library is untraced).
    pub fn take_trace(&self) -> Option<Vec<RawEvent>> {
        let t = self.trace?;
        // SAFETY: the runtime returns a thread-local buffer of `len` events that stays
        // valid until the next hook call on this thread; it is copied out at once.
        unsafe {
            if (t.overflow)() != 0 {
                (t.reset)();
                return None;
            }
            let len = (t.len)();
            let data = (t.data)();
            let events = if len == 0 || data.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(data, len).to_vec()
            };
            (t.reset)();
            Some(events)
        }
    }
}

fn run(cmd: &mut Command) -> Result<(), NativeError> {
    let tool = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd.output().map_err(|source| NativeError::Spawn {
        tool: tool.clone(),
        source,
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(NativeError::Tool {
            tool,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}
