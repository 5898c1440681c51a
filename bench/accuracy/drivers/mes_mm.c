/* Meschach m_mlt: the product of the n x n row-major matrices a and b, written row-major
 * to out (n * n entries) (matop.c). */
#include "meschach_io.h"

void mes_mm(const double *a, const double *b, int n, double *out)
{
    MAT *A = mat_from(a, n, n);
    MAT *B = mat_from(b, n, n);
    MAT *C = m_mlt(A, B, MNULL);
    mat_to(C, out);
    M_FREE(A);
    M_FREE(B);
    M_FREE(C);
}
