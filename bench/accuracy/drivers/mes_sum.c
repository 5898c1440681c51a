/* Meschach v_sum: the sum of the n entries of x (recursive summation in vecop.c). */
#include "meschach_io.h"

double mes_sum(const double *x, int n)
{
    VEC *v = vec_from(x, n);
    double s = v_sum(v);
    V_FREE(v);
    return s;
}
