/* A small fdlibm-style example for fpforge: bit tests on the words of a double,
 * a table lookup, and a loop over an array argument. */
#include <math.h>
#include <stdint.h>

typedef union {
    double value;
    struct { uint32_t lo, hi; } words;
} ieee_double;

#define GET_HIGH_WORD(i, d) do { ieee_double u_; u_.value = (d); (i) = u_.words.hi; } while (0)
#define GET_LOW_WORD(i, d)  do { ieee_double u_; u_.value = (d); (i) = u_.words.lo; } while (0)

enum { ZERO = 0, SUBNORMAL = 1, NORMAL = 2, INFINITE = 3, NOT_A_NUMBER = 4 };

/* Classifies x from its bit pattern; negative classes are returned negated. */
int classify(double x)
{
    uint32_t hx, lx;
    GET_HIGH_WORD(hx, x);
    GET_LOW_WORD(lx, x);
    int sign = (hx >> 31) ? -1 : 1;
    hx &= 0x7fffffff;
    int cls;
    if (hx >= 0x7ff00000) {
        cls = ((hx & 0x000fffff) | lx) ? NOT_A_NUMBER : INFINITE;
    } else if (hx < 0x00100000) {
        cls = (hx | lx) ? SUBNORMAL : ZERO;
    } else {
        cls = NORMAL;
    }
    return sign * cls;
}

static const double scale_table[3] = { 0x1p-600, 1.0, 0x1p600 };

/* Euclidean norm of a[0..n), rescaled to avoid overflow and underflow. */
double scaled_norm(const double *a, int n)
{
    double big = 0.0;
    for (int i = 0; i < n; i++) {
        if (fabs(a[i]) > big)
            big = fabs(a[i]);
    }
    int k = big > 0x1p500 ? 0 : big < 0x1p-500 ? 2 : 1;
    double s = scale_table[k], sum = 0.0;
    for (int i = 0; i < n; i++) {
        double t = a[i] * s;
        sum += t * t;
    }
    return sqrt(sum) / s;
}
