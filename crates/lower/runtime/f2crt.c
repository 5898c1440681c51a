/* The Fortran runtime fpforge links into programs translated from Fortran by f2c: the
 * entries f2c's C calls for intrinsics, strings, STOP and WRITE, written for fpforge
 * from what each Fortran operation means (not libf2c's code), and run as the program's
 * own code. Linked with --only-needed, so a program gets what it calls; weak, so a
 * program's own definitions win. Compiled without debug information.
 *
 * Where Fortran leaves a choice, each entry computes what gfortran -O0 computes on
 * x86-64, so a translated routine agrees bit for bit with the gfortran build:
 * - x**n (pow_di, pow_ri, pow_zi, pow_ci): libgcc's __powidf2 order: binary powering of
 *   |n| from the low bit, the reciprocal of the result when n < 0;
 * - SIGN is copysign (gfortran's -fsign-zero default: SIGN(1.0, -0.0) is -1.0), MOD of
 *   reals fmod, AINT trunc, ANINT round, NINT lround, DIM is (a-b <= 0 ? 0 : a-b);
 * - ABS of a complex is hypot, complex division Smith's method as gfortran's
 *   -fcx-fortran-rules expands it;
 * - integer powers as libgfortran's: 1 for n = 0, for n < 0 only a = 1 and a = -1 give
 *   non-zero, and a = 0 divides by zero.
 *
 * STOP ends the run as the gfortran program does (exit status 0, `STOP code` on stderr
 * when the statement has a code). List-directed and formatted WRITE print each item in
 * the order given (strings as they are, integers in decimal, reals with 17 significant
 * digits; a formatted WRITE ignores its FORMAT), one line per statement: the text is
 * the program's output, not gfortran's layout. READ, OPEN, CLOSE, internal files and the
 * other I/O entries are not here: calling them is an unknown external. */

#define WEAK __attribute__((weak))

typedef int integer;
typedef int logical;
typedef int ftnlen;
typedef float real;
typedef double doublereal;
typedef struct { real r, i; } complex;
typedef struct { doublereal r, i; } doublecomplex;
typedef struct { int cierr; int ciunit; int ciend; char *cifmt; int cirec; } cilist;

typedef struct _IO_FILE FILE;
extern FILE *stdout;
extern FILE *stderr;
int fputc(int c, FILE *stream);
int printf(const char *format, ...);
void exit(int status);

double fabs(double);
double sqrt(double);
double exp(double);
double log(double);
double log10(double);
double pow(double, double);
double fmod(double, double);
double trunc(double);
double round(double);
double copysign(double, double);
double hypot(double, double);
double sin(double);
double cos(double);
double sinh(double);
double cosh(double);
double atan2(double, double);
long lround(double);
float fmodf(float, float);
float truncf(float);
float roundf(float);
float copysignf(float, float);
float log10f(float);
float hypotf(float, float);
long lroundf(float);

/* Powers with an integer exponent. */

WEAK double pow_di(doublereal *x, integer *n) {
  unsigned int m = *n < 0 ? -(unsigned int)*n : (unsigned int)*n;
  double base = *x, y = m % 2 ? base : 1.0;
  while (m >>= 1) {
    base = base * base;
    if (m % 2)
      y = y * base;
  }
  return *n < 0 ? 1.0 / y : y;
}

WEAK double pow_ri(real *x, integer *n) {
  unsigned int m = *n < 0 ? -(unsigned int)*n : (unsigned int)*n;
  float base = *x, y = m % 2 ? base : 1.0f;
  while (m >>= 1) {
    base = base * base;
    if (m % 2)
      y = y * base;
  }
  return *n < 0 ? 1.0f / y : y;
}

WEAK integer pow_ii(integer *a, integer *n) {
  integer x = *a, result = 1;
  unsigned int m;
  if (*n == 0)
    return 1;
  if (*n < 0) {
    if (x == 1)
      return 1;
    if (x == -1)
      return (*n & 1) ? -1 : 1;
    return x == 0 ? 1 / x : 0;
  }
  m = (unsigned int)*n;
  for (;;) {
    if (m & 1)
      result *= x;
    m >>= 1;
    if (!m)
      break;
    x *= x;
  }
  return result;
}

WEAK double pow_dd(doublereal *x, doublereal *y) { return pow(*x, *y); }

/* DOUBLE PRECISION intrinsics. */

WEAK double d_sign(doublereal *a, doublereal *b) { return copysign(fabs(*a), *b); }
WEAK double d_mod(doublereal *a, doublereal *p) { return fmod(*a, *p); }
WEAK double d_int(doublereal *x) { return trunc(*x); }
WEAK double d_nint(doublereal *x) { return round(*x); }
WEAK integer i_dnnt(doublereal *x) { return (integer)lround(*x); }
WEAK double d_lg10(doublereal *x) { return log10(*x); }
WEAK double d_dim(doublereal *a, doublereal *b) {
  double d = *a - *b;
  return d <= 0.0 ? 0.0 : d;
}
WEAK double d_abs(doublereal *x) { return fabs(*x); }
WEAK double d_prod(real *a, real *b) { return (double)*a * (double)*b; }

/* REAL intrinsics: f2c declares them as returning double; the value is single. */

WEAK double r_sign(real *a, real *b) { return copysignf(*a < 0 ? -*a : *a, *b); }
WEAK double r_mod(real *a, real *p) { return fmodf(*a, *p); }
WEAK double r_int(real *x) { return truncf(*x); }
WEAK double r_nint(real *x) { return roundf(*x); }
WEAK integer i_nint(real *x) { return (integer)lroundf(*x); }
WEAK double r_lg10(real *x) { return log10f(*x); }
WEAK double r_dim(real *a, real *b) {
  float d = *a - *b;
  return d <= 0.0f ? 0.0f : d;
}

/* INTEGER intrinsics. */

WEAK integer i_sign(integer *a, integer *b) {
  integer m = *a >= 0 ? *a : -*a;
  return *b >= 0 ? m : -m;
}
WEAK integer i_dim(integer *a, integer *b) { return *a > *b ? *a - *b : 0; }
WEAK integer i_mod(integer *a, integer *b) { return *a % *b; }

/* COMPLEX and DOUBLE COMPLEX. */

WEAK double z_abs(doublecomplex *z) { return hypot(z->r, z->i); }
WEAK double c_abs(complex *z) { return hypotf(z->r, z->i); }
WEAK double d_imag(doublecomplex *z) { return z->i; }
WEAK double r_imag(complex *z) { return z->i; }

WEAK void d_cnjg(doublecomplex *r, doublecomplex *z) {
  double re = z->r, im = z->i;
  r->r = re;
  r->i = -im;
}

WEAK void r_cnjg(complex *r, complex *z) {
  float re = z->r, im = z->i;
  r->r = re;
  r->i = -im;
}

/* a / b by Smith's method, as gcc expands a complex division under Fortran's rules. */
WEAK void z_div(doublecomplex *c, doublecomplex *a, doublecomplex *b) {
  double ar = a->r, ai = a->i, br = b->r, bi = b->i, ratio, div, tr, ti;
  if (fabs(br) < fabs(bi)) {
    ratio = br / bi;
    div = br * ratio + bi;
    tr = ar * ratio + ai;
    ti = ai * ratio - ar;
  } else {
    ratio = bi / br;
    div = bi * ratio + br;
    tr = ai * ratio + ar;
    ti = ai - ar * ratio;
  }
  c->r = tr / div;
  c->i = ti / div;
}

WEAK void c_div(complex *c, complex *a, complex *b) {
  float ar = a->r, ai = a->i, br = b->r, bi = b->i, ratio, div, tr, ti;
  float abr = br < 0 ? -br : br, abi = bi < 0 ? -bi : bi;
  if (abr < abi) {
    ratio = br / bi;
    div = br * ratio + bi;
    tr = ar * ratio + ai;
    ti = ai * ratio - ar;
  } else {
    ratio = bi / br;
    div = bi * ratio + br;
    tr = ai * ratio + ar;
    ti = ai - ar * ratio;
  }
  c->r = tr / div;
  c->i = ti / div;
}

WEAK void pow_zi(doublecomplex *p, doublecomplex *a, integer *n) {
  unsigned int m = *n < 0 ? -(unsigned int)*n : (unsigned int)*n;
  double xr = a->r, xi = a->i, yr = 1.0, yi = 0.0, t;
  if (m % 2) {
    yr = xr;
    yi = xi;
  }
  while (m >>= 1) {
    t = xr * xr - xi * xi;
    xi = xr * xi + xi * xr;
    xr = t;
    if (m % 2) {
      t = yr * xr - yi * xi;
      yi = yr * xi + yi * xr;
      yr = t;
    }
  }
  if (*n < 0) {
    doublecomplex one = {1.0, 0.0}, y = {yr, yi};
    z_div(p, &one, &y);
  } else {
    p->r = yr;
    p->i = yi;
  }
}

/* exp, log and sqrt of a double complex, from their definitions. */
WEAK void z_exp(doublecomplex *r, doublecomplex *z) {
  double m = exp(z->r), im = z->i;
  r->r = m * cos(im);
  r->i = m * sin(im);
}

WEAK void z_log(doublecomplex *r, doublecomplex *z) {
  double re = z->r, im = z->i;
  r->i = atan2(im, re);
  r->r = log(hypot(re, im));
}

WEAK void z_sqrt(doublecomplex *r, doublecomplex *z) {
  double re = z->r, im = z->i, m = hypot(re, im), t;
  if (m == 0.0) {
    r->r = 0.0;
    r->i = im;
  } else if (re > 0.0) {
    t = sqrt(0.5 * (m + re));
    r->r = t;
    r->i = 0.5 * (im / t);
  } else {
    t = sqrt(0.5 * (m - re));
    t = copysign(t, im);
    r->i = t;
    r->r = 0.5 * (im / t);
  }
}

WEAK void z_sin(doublecomplex *r, doublecomplex *z) {
  double re = z->r, im = z->i;
  r->r = sin(re) * cosh(im);
  r->i = cos(re) * sinh(im);
}

WEAK void z_cos(doublecomplex *r, doublecomplex *z) {
  double re = z->r, im = z->i;
  r->r = cos(re) * cosh(im);
  r->i = -(sin(re) * sinh(im));
}

/* CHARACTER: fixed-length strings padded with blanks. */

WEAK int s_copy(char *to, char *from, ftnlen to_len, ftnlen from_len) {
  ftnlen i;
  if (from_len >= to_len) {
    for (i = 0; i < to_len; i++)
      to[i] = from[i];
  } else {
    for (i = 0; i < from_len; i++)
      to[i] = from[i];
    for (; i < to_len; i++)
      to[i] = ' ';
  }
  return 0;
}

WEAK integer s_cmp(char *a, char *b, ftnlen a_len, ftnlen b_len) {
  ftnlen n = a_len > b_len ? a_len : b_len;
  for (ftnlen i = 0; i < n; i++) {
    unsigned char ca = i < a_len ? (unsigned char)a[i] : ' ';
    unsigned char cb = i < b_len ? (unsigned char)b[i] : ' ';
    if (ca != cb)
      return ca < cb ? -1 : 1;
  }
  return 0;
}

WEAK int s_cat(char *to, char **pieces, integer *lengths, integer *count, ftnlen to_len) {
  ftnlen at = 0;
  for (integer k = 0; k < *count && at < to_len; k++)
    for (integer i = 0; i < lengths[k] && at < to_len; i++)
      to[at++] = pieces[k][i];
  while (at < to_len)
    to[at++] = ' ';
  return 0;
}

WEAK integer i_len(char *s, ftnlen len) {
  (void)s;
  return len;
}

WEAK integer i_indx(char *a, char *b, ftnlen a_len, ftnlen b_len) {
  for (ftnlen i = 0; i + b_len <= a_len; i++) {
    ftnlen j = 0;
    while (j < b_len && a[i + j] == b[j])
      j++;
    if (j == b_len)
      return i + 1;
  }
  return 0;
}

WEAK logical l_ge(char *a, char *b, ftnlen la, ftnlen lb) { return s_cmp(a, b, la, lb) >= 0; }
WEAK logical l_gt(char *a, char *b, ftnlen la, ftnlen lb) { return s_cmp(a, b, la, lb) > 0; }
WEAK logical l_le(char *a, char *b, ftnlen la, ftnlen lb) { return s_cmp(a, b, la, lb) <= 0; }
WEAK logical l_lt(char *a, char *b, ftnlen la, ftnlen lb) { return s_cmp(a, b, la, lb) < 0; }

/* STOP and PAUSE. */

static void put_text(FILE *stream, const char *text, ftnlen len) {
  for (ftnlen i = 0; i < len; i++)
    fputc(text[i], stream);
}

WEAK int s_stop(char *code, ftnlen len) {
  if (len > 0) {
    put_text(stderr, "STOP ", 5);
    put_text(stderr, code, len);
    fputc('\n', stderr);
  }
  exit(0);
  return 0;
}

/* WRITE: one line per statement on stdout, items as they come (see the header). */

/* The item codes f2c passes to do_lio. */
enum { TY_SHORT = 2, TY_LONG = 3, TY_REAL = 4, TY_DREAL = 5, TY_COMPLEX = 6,
       TY_DCOMPLEX = 7, TY_LOGICAL = 8, TY_CHAR = 9, TY_INT1 = 11, TY_LOGICAL1 = 12,
       TY_LOGICAL2 = 13, TY_QUAD = 14 };

WEAK integer s_wsle(cilist *control) {
  (void)control;
  return 0;
}

WEAK integer e_wsle(void) {
  fputc('\n', stdout);
  return 0;
}

static void put_item(integer type, char *item, ftnlen len) {
  switch (type) {
  case TY_CHAR:
    fputc(' ', stdout);
    put_text(stdout, item, len);
    break;
  case TY_SHORT:
    printf(" %d", *(short *)item);
    break;
  case TY_LONG:
    printf(" %d", *(int *)item);
    break;
  case TY_QUAD:
    printf(" %lld", *(long long *)item);
    break;
  case TY_INT1:
    printf(" %d", *(signed char *)item);
    break;
  case TY_REAL:
    printf(" %.9g", (double)*(float *)item);
    break;
  case TY_DREAL:
    printf(" %.17g", *(double *)item);
    break;
  case TY_COMPLEX:
    printf(" (%.9g,%.9g)", (double)((float *)item)[0], (double)((float *)item)[1]);
    break;
  case TY_DCOMPLEX:
    printf(" (%.17g,%.17g)", ((double *)item)[0], ((double *)item)[1]);
    break;
  case TY_LOGICAL:
    printf(" %c", *(int *)item ? 'T' : 'F');
    break;
  case TY_LOGICAL1:
    printf(" %c", *(char *)item ? 'T' : 'F');
    break;
  case TY_LOGICAL2:
    printf(" %c", *(short *)item ? 'T' : 'F');
    break;
  default:
    printf(" ?");
    break;
  }
}

WEAK integer do_lio(integer *type, integer *count, char *items, ftnlen len) {
  for (integer k = 0; k < *count; k++)
    put_item(*type, items + (long)k * len, len);
  return 0;
}

WEAK integer s_wsfe(cilist *control) {
  (void)control;
  return 0;
}

WEAK integer e_wsfe(void) {
  fputc('\n', stdout);
  return 0;
}

/* A formatted item: its type is unknown here, so its size says it (4 bytes an integer,
 * 8 a double, otherwise characters). */
WEAK integer do_fio(integer *count, char *items, ftnlen len) {
  for (integer k = 0; k < *count; k++) {
    char *item = items + (long)k * len;
    if (len == 4)
      put_item(TY_LONG, item, len);
    else if (len == 8)
      put_item(TY_DREAL, item, len);
    else
      put_item(TY_CHAR, item, len);
  }
  return 0;
}
