/* Meschach in_prod: the inner product of x and y, both of length n (vecop.c, machine.c). */
#include "meschach_io.h"

double mes_dot(const double *x, const double *y, int n)
{
    VEC *u = vec_from(x, n);
    VEC *v = vec_from(y, n);
    double s = in_prod(u, v);
    V_FREE(u);
    V_FREE(v);
    return s;
}
