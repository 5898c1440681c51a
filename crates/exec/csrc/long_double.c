/* Calls of the host C library's long double functions (`sinl`, `powl`, ...), which
   Rust cannot declare (it has no 80-bit type): each takes the function's address
   (looked up with dlsym by `fpforge_exec::libm_f80`) and the operands as their 10 bytes,
   and writes the result's 10 bytes. `fpforge_ld_snprintf` is glibc's own formatting of
   a long double, the reference of the printf model's tests. */
#include <stdio.h>
#include <string.h>

typedef long double ld;

static ld get(const unsigned char *p) {
  ld x = 0;
  memcpy(&x, p, 10);
  return x;
}

static void put(unsigned char *p, ld x) { memcpy(p, &x, 10); }

void fpforge_ld_unary(void *f, const unsigned char *a, unsigned char *out) {
  put(out, ((ld(*)(ld))f)(get(a)));
}

void fpforge_ld_binary(void *f, const unsigned char *a, const unsigned char *b,
                       unsigned char *out) {
  put(out, ((ld(*)(ld, ld))f)(get(a), get(b)));
}

void fpforge_ld_ternary(void *f, const unsigned char *a, const unsigned char *b,
                        const unsigned char *c, unsigned char *out) {
  put(out, ((ld(*)(ld, ld, ld))f)(get(a), get(b), get(c)));
}

void fpforge_ld_float_int(void *f, const unsigned char *a, int n, unsigned char *out) {
  put(out, ((ld(*)(ld, int))f)(get(a), n));
}

/* kind: 0 `int`, 1 `long`, 2 `long long`. */
long long fpforge_ld_to_int(void *f, int kind, const unsigned char *a) {
  switch (kind) {
  case 0:
    return ((int (*)(ld))f)(get(a));
  case 1:
    return ((long (*)(ld))f)(get(a));
  default:
    return ((long long (*)(ld))f)(get(a));
  }
}

void fpforge_ld_frexp(void *f, const unsigned char *a, int *e, unsigned char *out) {
  put(out, ((ld(*)(ld, int *))f)(get(a), e));
}

void fpforge_ld_modf(void *f, const unsigned char *a, unsigned char *ip, unsigned char *out) {
  ld i = 0;
  put(out, ((ld(*)(ld, ld *))f)(get(a), &i));
  put(ip, i);
}

int fpforge_ld_snprintf(char *buf, unsigned long n, const char *fmt, const unsigned char *a) {
  return snprintf(buf, n, fmt, get(a));
}
