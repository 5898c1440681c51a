//! Ctrl-C as a request to stop: the engines watch a flag and end their run with what they
//! found, so the output files are completed rather than cut off.

use fpforge_engine::Interrupt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The flag SIGINT sets: the handler may only touch an atomic.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn note_interrupt(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// A flag that Ctrl-C sets (through [`INTERRUPTED`], watched by a thread) instead of
/// killing the process, so the search stops and the output files are completed.
pub fn interrupt_flag() -> Interrupt {
    let flag = Interrupt::new();
    let handler = note_interrupt as extern "C" fn(libc::c_int);
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
    let watched = flag.clone();
    std::thread::spawn(move || loop {
        if INTERRUPTED.load(Ordering::Relaxed) {
            watched.raise();
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    });
    flag
}

/// Whether Ctrl-C was pressed, without the watcher's delay: a run over several functions
/// asks before it starts each one, so none starts after a search saw the signal.
pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}
