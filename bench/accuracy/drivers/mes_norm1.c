/* Meschach v_norm1: the 1-norm of the n entries of x (norm.c). */
#include "meschach_io.h"

double mes_norm1(const double *x, int n)
{
    VEC *v = vec_from(x, n);
    double s = v_norm1(v);
    V_FREE(v);
    return s;
}
