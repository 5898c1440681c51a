/* Meschach QRfactor: the Householder QR factorization of the n x n row-major matrix a;
 * the compact factor (R on and above the diagonal, the Householder vectors below it) is
 * written row-major to qr (n * n entries) and the Householder diagonal to diag (n
 * entries) (qrfactor.c, hsehldr.c). */
#include "matrix2.h"
#include "meschach_io.h"

void mes_qr(const double *a, int n, double *qr, double *diag)
{
    MAT *A = mat_from(a, n, n);
    VEC *d = v_get(n);
    QRfactor(A, d);
    mat_to(A, qr);
    vec_to(d, diag);
    M_FREE(A);
    V_FREE(d);
}
