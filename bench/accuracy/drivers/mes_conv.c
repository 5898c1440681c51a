/* Meschach v_conv: the convolution of x and y (both of length n) written to out, of
 * length 2n - 1 (vecop.c). */
#include "meschach_io.h"

/* matrix.h does not declare v_conv. */
VEC *v_conv(VEC *x1, VEC *x2, VEC *out);

void mes_conv(const double *x, const double *y, int n, double *out)
{
    VEC *u = vec_from(x, n);
    VEC *v = vec_from(y, n);
    VEC *w = v_conv(u, v, VNULL);
    vec_to(w, out);
    V_FREE(u);
    V_FREE(v);
    V_FREE(w);
}
