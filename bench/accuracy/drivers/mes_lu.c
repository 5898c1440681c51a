/* Meschach LUfactor: the LU factorization with partial pivoting of the n x n row-major
 * matrix a; the compact factor (L below the diagonal, U on and above it) is written
 * row-major to lu (n * n entries) (lufactor.c). */
#include "matrix2.h"
#include "meschach_io.h"

void mes_lu(const double *a, int n, double *lu)
{
    MAT *A = mat_from(a, n, n);
    PERM *pivot = px_get(n);
    LUfactor(A, pivot);
    mat_to(A, lu);
    M_FREE(A);
    PX_FREE(pivot);
}
