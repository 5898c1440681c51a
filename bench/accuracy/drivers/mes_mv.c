/* Meschach mv_mlt: the product of the n x n row-major matrix a and the vector x, written
 * to out (length n) (matop.c). */
#include "meschach_io.h"

void mes_mv(const double *a, const double *x, int n, double *out)
{
    MAT *A = mat_from(a, n, n);
    VEC *v = vec_from(x, n);
    VEC *w = mv_mlt(A, v, VNULL);
    vec_to(w, out);
    M_FREE(A);
    V_FREE(v);
    V_FREE(w);
}
