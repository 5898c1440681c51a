//! Ctrl-C as a request to stop: the engines watch a flag and end their run with what they
//! found, so the output files are completed rather than cut off.

use fpforge_engine::Interrupt;
use std::sync::atomic::{AtomicBool, Ordering};

/// The flag SIGINT sets: the handler may only touch an atomic.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn note_interrupt(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// The interrupt Ctrl-C raises (through [`INTERRUPTED`]) instead of killing the
/// process, so the search stops and the output files are completed.
pub fn interrupt_flag() -> Interrupt {
    let handler = note_interrupt as extern "C" fn(libc::c_int);
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
    Interrupt::watching(&INTERRUPTED)
}
