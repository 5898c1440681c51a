/* Two CPU-bound functions for bench/libs/jobs.py (issue 18): loops of a few hundred
 * floating-point steps, and one branch each behind a 64-bit mix of the result that
 * neither the search nor the prover takes, so each function runs its whole time limit. */
#include <math.h>
#include <string.h>

static int rare(double v, unsigned long long want) {
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    b ^= b >> 29;
    b *= 0xbf58476d1ce4e5b9ull;
    b ^= b >> 32;
    b *= 0x94d049bb133111ebull;
    return (b >> 40) == want;
}

double orbit(double x, double y) {
    double s = 0.0, t = x;
    for (int i = 0; i < 300; i++) {
        t = t * 0.999 + y * 1e-3;
        if (t > 1.0) t -= 0.5;
        else if (t < -1.0) t += 0.5;
        s += t * t;
        if (s > 1e6) break;
    }
    if (rare(s, 12345)) return -1.0;
    if (s > 100.0) return s - x;
    if (s > 10.0) return s + y;
    return s;
}

double series(double a, double b) {
    double acc = 0.0, term = 1.0;
    for (int k = 1; k < 250; k++) {
        term *= a / k;
        if (fabs(term) < 1e-300) break;
        if (k % 3 == 0) acc += term * b;
        else acc -= term;
        if (acc > 1e100) return INFINITY;
    }
    if (rare(acc, 54321)) return -2.0;
    if (acc < 0.0) return -acc;
    if (acc > b) return acc - b;
    return acc;
}
