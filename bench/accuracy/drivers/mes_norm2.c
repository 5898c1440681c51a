/* Meschach v_norm2: the Euclidean norm of the n entries of x (norm.c). */
#include "meschach_io.h"

double mes_norm2(const double *x, int n)
{
    VEC *v = vec_from(x, n);
    double s = v_norm2(v);
    V_FREE(v);
    return s;
}
