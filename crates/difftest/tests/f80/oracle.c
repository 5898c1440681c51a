/* The host's x87 as the oracle of fpir::f80: reads one operation a line,
   "OP MODE A_SE A_SIG B_SE B_SIG" (MODE 0-3: nearest, downward, upward, toward zero,
   set by fesetround before the operation; hex operands; B is ignored by unary operations, and a
   conversion from a double or an integer reads its operand from B_SIG), and prints
   the result as "SE SIG" (hex) for extended results, or "BITS" for the others.
   Built at -O0, so every operation runs on the x87 unit (or glibc's fmodl, sqrtl). */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static long double make(unsigned se, unsigned long long sig) {
  long double x = 0;
  memcpy(&x, &sig, 8);
  unsigned short s = (unsigned short)se;
  memcpy((char *)&x + 8, &s, 2);
  return x;
}

static void put(long double x) {
  unsigned long long sig;
  unsigned short se;
  memcpy(&sig, &x, 8);
  memcpy(&se, (char *)&x + 8, 2);
  printf("%x %llx\n", se, sig);
}

int main(void) {
  static const int modes[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  char op[16];
  unsigned mode, ase, bse;
  unsigned long long asig, bsig;
  while (scanf("%15s %u %x %llx %x %llx", op, &mode, &ase, &asig, &bse, &bsig) == 6) {
    fesetround(modes[mode & 3]);
    long double a = make(ase, asig), b = make(bse, bsig);
    double d;
    float f;
    memcpy(&d, &bsig, 8);
    unsigned fbits = (unsigned)bsig;
    memcpy(&f, &fbits, 4);
    if (!strcmp(op, "add")) put(a + b);
    else if (!strcmp(op, "sub")) put(a - b);
    else if (!strcmp(op, "mul")) put(a * b);
    else if (!strcmp(op, "div")) put(a / b);
    else if (!strcmp(op, "rem")) put(fmodl(a, b));
    else if (!strcmp(op, "sqrt")) put(sqrtl(a));
    else if (!strcmp(op, "cmp")) /* olt ole oeq ogt oge une uno as bits */
      printf("%x\n", (a < b) | (a <= b) << 1 | (a == b) << 2 | (a > b) << 3 |
                         (a >= b) << 4 | (a != b) << 5 | (a != a || b != b) << 6);
    else if (!strcmp(op, "from_f64")) put((long double)d);
    else if (!strcmp(op, "from_f32")) put((long double)f);
    else if (!strcmp(op, "from_i64")) put((long double)(long long)bsig);
    else if (!strcmp(op, "from_u64")) put((long double)bsig);
    else if (!strcmp(op, "to_f64")) { d = (double)a; unsigned long long u; memcpy(&u, &d, 8); printf("%llx\n", u); }
    else if (!strcmp(op, "to_f32")) { f = (float)a; unsigned u; memcpy(&u, &f, 4); printf("%x\n", u); }
    else if (!strcmp(op, "to_i64")) printf("%llx\n", (unsigned long long)(long long)a);
    else if (!strcmp(op, "to_i32")) printf("%x\n", (unsigned)(int)a);
    else if (!strcmp(op, "to_i16")) printf("%x\n", (unsigned)(unsigned short)(short)a);
    else if (!strcmp(op, "to_u64")) printf("%llx\n", (unsigned long long)a);
    else if (!strcmp(op, "to_u32")) printf("%x\n", (unsigned)a);
    else printf("?\n");
    fesetround(FE_TONEAREST);
  }
  return 0;
}
