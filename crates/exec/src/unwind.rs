//! C++ exceptions as the Itanium ABI runs them, over the C++ runtime that lowering links
//! into C++ programs (`crates/lower/runtime/cxxrt.c`): which landing pad takes a raised
//! exception, and what an exception that escapes the entry function is.
//!
//! The runtime keeps the thrown type's typeinfo address in the [`HEADER_BYTES`] in front
//! of every exception object. A `catch (T)` clause takes an exception whose typeinfo is
//! `T`'s or whose base classes, followed through `__si_class_type_info` (one public
//! base) and `__vmi_class_type_info` (a list of bases with their flags) typeinfos,
//! include `T`'s. A typeinfo's kind is the address of its vtable: the runtime defines
//! `__cxxabiv1`'s `__class_type_info`, `__si_class_type_info` and
//! `__vmi_class_type_info` vtables, and this module finds them by symbol.

use crate::libc::c_string;
use crate::memory::Memory;
use crate::prepare::{LandingCode, NONE};
use fpir::{EntityId, Module, Type};

/// Bytes in front of an exception object: its typeinfo address, then its destructor.
pub const HEADER_BYTES: u64 = 16;

/// Base classes followed at most, against cyclic or corrupt typeinfos.
const MAX_BASES_DEPTH: u32 = 64;

/// An exception that escaped the entry function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Thrown {
    /// The thrown object's type, demangled (`std::invalid_argument`).
    pub type_name: String,
    /// Its typeinfo name as `typeid(T).name()` gives it (`St16invalid_argument`); empty
    /// when the exception's typeinfo cannot be read.
    pub type_symbol: String,
    /// What its `what()` returns, when it is one of the `<stdexcept>` family the runtime
    /// models (or `std::exception` itself).
    pub what: Option<String>,
}

impl std::fmt::Display for Thrown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.what {
            Some(what) => write!(f, "{}: {what}", self.type_name),
            None => f.write_str(&self.type_name),
        }
    }
}

/// The addresses of the ABI's objects in one module's memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct CxxAbi {
    /// The address point (vtable + 16) of `__si_class_type_info`'s vtable.
    single_base: Option<u64>,
    /// The same of `__vmi_class_type_info`.
    many_bases: Option<u64>,
    /// `typeid(std::exception)`.
    std_exception: Option<u64>,
    /// The runtime's `what()` functions that return the message at offset 8 of the
    /// object, and `std::exception::what`'s.
    message_whats: Vec<u64>,
    exception_what: Option<u64>,
}

impl CxxAbi {
    /// Finds the ABI's objects of `module` laid out in `mem`.
    pub(crate) fn new(module: &Module, mem: &Memory) -> CxxAbi {
        let global = |name: &str| {
            let (g, _) = module.globals.iter().find(|(_, data)| data.name == name)?;
            mem.global_addr(g.index())
        };
        let func = |name: &str| {
            module
                .func_by_name(name)
                .map(|f| crate::memory::func_addr(f.0))
        };
        CxxAbi {
            single_base: global("_ZTVN10__cxxabiv120__si_class_type_infoE").map(|a| a + 16),
            many_bases: global("_ZTVN10__cxxabiv121__vmi_class_type_infoE").map(|a| a + 16),
            std_exception: global("_ZTISt9exception"),
            message_whats: ["_ZNKSt11logic_error4whatEv", "_ZNKSt13runtime_error4whatEv"]
                .into_iter()
                .filter_map(func)
                .collect(),
            exception_what: func("_ZNKSt9exception4whatEv"),
        }
    }

    /// The typeinfo address of the exception object at `exception`.
    fn typeinfo_of(mem: &Memory, exception: u64) -> Option<u64> {
        mem.peek(Type::Ptr, exception.checked_sub(HEADER_BYTES)?)
    }

    /// Whether the type of typeinfo `thrown` is the type of typeinfo `caught` or
    /// derives from it publicly.
    fn derives(&self, mem: &Memory, thrown: u64, caught: u64, depth: u32) -> bool {
        if thrown == caught {
            return true;
        }
        if depth == MAX_BASES_DEPTH {
            return false;
        }
        let Some(kind) = mem.peek(Type::Ptr, thrown) else {
            return false;
        };
        if Some(kind) == self.single_base {
            return mem
                .peek(Type::Ptr, thrown + 16)
                .is_some_and(|base| self.derives(mem, base, caught, depth + 1));
        }
        if Some(kind) == self.many_bases {
            let count = mem.peek(Type::I32, thrown + 20).unwrap_or(0);
            return (0..count).any(|k| {
                let entry = thrown + 24 + 16 * k;
                let public = mem.peek(Type::I64, entry + 8).is_some_and(|f| f & 2 != 0);
                public
                    && mem
                        .peek(Type::Ptr, entry)
                        .is_some_and(|base| self.derives(mem, base, caught, depth + 1))
            });
        }
        false
    }

    /// The selector with which `landing` takes the exception at `exception`: the id of
    /// the first clause that catches it, 0 when none does but the pad cleans up, `None`
    /// when the pad lets it pass. `typeinfo(slot)` reads a clause's typeinfo address.
    pub(crate) fn selector(
        &self,
        mem: &Memory,
        landing: &LandingCode,
        exception: u64,
        typeinfo: impl Fn(u32) -> u64,
    ) -> Option<u32> {
        let thrown = Self::typeinfo_of(mem, exception);
        let caught = landing.clauses.iter().find(|&&(slot, _)| {
            slot == NONE || thrown.is_some_and(|t| self.derives(mem, t, typeinfo(slot), 0))
        });
        match caught {
            Some(&(_, id)) => Some(id),
            None => landing.cleanup.then_some(0),
        }
    }

    /// The escaped exception at `exception`, described.
    pub(crate) fn describe(&self, mem: &Memory, exception: u64) -> Thrown {
        let typeinfo = Self::typeinfo_of(mem, exception);
        let name = typeinfo
            .and_then(|t| mem.peek(Type::Ptr, t + 8))
            .and_then(|at| c_string(mem, at, Some(4096)).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        let type_name = name.as_deref().map_or_else(
            || "an exception of unknown type".to_string(),
            fpir::names::demangle_type,
        );
        Thrown {
            type_name,
            type_symbol: name.unwrap_or_default(),
            what: typeinfo.and_then(|t| self.what(mem, exception, t)),
        }
    }

    /// What `what()` of a `std::exception` modelled by the runtime returns.
    fn what(&self, mem: &Memory, exception: u64, typeinfo: u64) -> Option<String> {
        let std_exception = self.std_exception?;
        if !self.derives(mem, typeinfo, std_exception, 0) {
            return None;
        }
        let vtable = mem.peek(Type::Ptr, exception)?;
        let what = mem.peek(Type::Ptr, vtable + 16)?;
        if Some(what) == self.exception_what {
            return Some("std::exception".to_string());
        }
        if !self.message_whats.contains(&what) {
            return None;
        }
        let message = mem.peek(Type::Ptr, exception + 8)?;
        let bytes = c_string(mem, message, Some(1 << 16)).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}
