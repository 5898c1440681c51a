/* Branch-trace runtime linked into natively built test libraries.
 *
 * Instrumented code calls __fpforge_br before every conditional branch and
 * __fpforge_sw before every switch (see instrument.rs). Events go to a
 * thread-local, growable buffer that the Rust side reads and resets between
 * calls. Past FPFORGE_TRACE_LIMIT events the buffer stops growing and the
 * overflow flag is set, so a runaway loop cannot exhaust memory. */
#include <stdint.h>
#include <stdlib.h>

#define FPFORGE_TRACE_LIMIT ((size_t)1 << 22)

struct fpforge_event {
    uint32_t site;
    uint32_t is_switch;
    uint64_t value;
};

static _Thread_local struct fpforge_event *fpforge_buf;
static _Thread_local size_t fpforge_len;
static _Thread_local size_t fpforge_cap;
static _Thread_local int fpforge_overflow;
static _Thread_local int fpforge_enabled = 1;

static void fpforge_push(uint32_t site, uint32_t is_switch, uint64_t value) {
    if (!fpforge_enabled) {
        return;
    }
    if (fpforge_len == fpforge_cap) {
        size_t cap = fpforge_cap ? fpforge_cap * 2 : 1024;
        struct fpforge_event *grown;
        if (cap > FPFORGE_TRACE_LIMIT) {
            fpforge_overflow = 1;
            return;
        }
        grown = realloc(fpforge_buf, cap * sizeof *grown);
        if (!grown) {
            fpforge_overflow = 1;
            return;
        }
        fpforge_buf = grown;
        fpforge_cap = cap;
    }
    fpforge_buf[fpforge_len].site = site;
    fpforge_buf[fpforge_len].is_switch = is_switch;
    fpforge_buf[fpforge_len].value = value;
    fpforge_len++;
}

void __fpforge_br(uint32_t site, uint32_t cond) { fpforge_push(site, 0, cond); }

void __fpforge_sw(uint32_t site, uint64_t value) { fpforge_push(site, 1, value); }

size_t fpforge_trace_len(void) { return fpforge_len; }

const struct fpforge_event *fpforge_trace_data(void) { return fpforge_buf; }

int fpforge_trace_overflow(void) { return fpforge_overflow; }

void fpforge_trace_enable(int on) { fpforge_enabled = on; }

void fpforge_trace_reset(void) {
    fpforge_len = 0;
    fpforge_overflow = 0;
}
