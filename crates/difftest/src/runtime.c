/* Branch-trace runtime linked into natively built test libraries.
 *
 * Instrumented code calls __fpforge_br before every conditional branch and
 * __fpforge_sw before every switch (see instrument.rs). Events go to a
 * thread-local, growable buffer that the Rust side reads and resets between
 * calls. Past FPFORGE_TRACE_LIMIT events the buffer stops growing and the
 * overflow flag is set, so a runaway loop cannot exhaust memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Calls of functions with a `long double` (x86_fp80) parameter or result, which the
 * Rust side cannot declare: `shape` is the signature's code (dispatch.rs,
 * EXTENDED_SHAPES), `a` holds one word per parameter (a long double is two: its
 * significand, then its sign and exponent) and the result's words go to `out`.
 * Returns 0 for a shape it does not know. */
typedef long double fpforge_ld;

static fpforge_ld fpforge_ld_at(const uint64_t *w) {
    fpforge_ld x = 0;
    uint16_t se = (uint16_t)w[1];
    memcpy(&x, w, 8);
    memcpy((char *)&x + 8, &se, 2);
    return x;
}

static void fpforge_put_ld(uint64_t *out, fpforge_ld x) {
    uint16_t se;
    memcpy(&out[0], &x, 8);
    memcpy(&se, (char *)&x + 8, 2);
    out[1] = se;
}

int fpforge_call_extended(const char *shape, void *f, const uint64_t *a, uint64_t *out) {
    typedef fpforge_ld ld;
    if (!strcmp(shape, "L>L")) {
        fpforge_put_ld(out, ((ld(*)(ld))f)(fpforge_ld_at(a)));
    } else if (!strcmp(shape, "LL>L")) {
        fpforge_put_ld(out, ((ld(*)(ld, ld))f)(fpforge_ld_at(a), fpforge_ld_at(a + 2)));
    } else if (!strcmp(shape, "LLL>L")) {
        fpforge_put_ld(out, ((ld(*)(ld, ld, ld))f)(fpforge_ld_at(a), fpforge_ld_at(a + 2),
                                                   fpforge_ld_at(a + 4)));
    } else if (!strcmp(shape, "Li>L")) {
        fpforge_put_ld(out, ((ld(*)(ld, int))f)(fpforge_ld_at(a), (int)a[2]));
    } else if (!strcmp(shape, "Ll>L")) {
        fpforge_put_ld(out, ((ld(*)(ld, long))f)(fpforge_ld_at(a), (long)a[2]));
    } else if (!strcmp(shape, "Lp>L")) {
        fpforge_put_ld(out, ((ld(*)(ld, void *))f)(fpforge_ld_at(a), (void *)a[2]));
    } else if (!strcmp(shape, "LLp>L")) {
        fpforge_put_ld(out, ((ld(*)(ld, ld, void *))f)(fpforge_ld_at(a), fpforge_ld_at(a + 2),
                                                      (void *)a[4]));
    } else if (!strcmp(shape, "L>i")) {
        out[0] = (uint32_t)((int (*)(ld))f)(fpforge_ld_at(a));
    } else if (!strcmp(shape, "L>l")) {
        out[0] = (uint64_t)((long (*)(ld))f)(fpforge_ld_at(a));
    } else if (!strcmp(shape, "dL>d")) {
        double x, r;
        memcpy(&x, &a[0], 8);
        r = ((double (*)(double, ld))f)(x, fpforge_ld_at(a + 1));
        memcpy(&out[0], &r, 8);
    } else if (!strcmp(shape, "fL>f")) {
        uint32_t bits = (uint32_t)a[0];
        float x, r;
        memcpy(&x, &bits, 4);
        r = ((float (*)(float, ld))f)(x, fpforge_ld_at(a + 1));
        memcpy(&bits, &r, 4);
        out[0] = bits;
    } else if (!strcmp(shape, "iL>L")) {
        fpforge_put_ld(out, ((ld(*)(int, ld))f)((int)a[0], fpforge_ld_at(a + 1)));
    } else if (!strcmp(shape, "p>L")) {
        fpforge_put_ld(out, ((ld(*)(void *))f)((void *)a[0]));
    } else if (!strcmp(shape, "Lpp>v")) {
        ((void (*)(ld, void *, void *))f)(fpforge_ld_at(a), (void *)a[2], (void *)a[3]);
    } else {
        return 0;
    }
    return 1;
}
