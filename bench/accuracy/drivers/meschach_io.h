/* Helpers shared by the Meschach drivers of fpforge's accuracy corpus: copy plain
 * row-major double arrays into Meschach VEC/MAT objects and back. */
#ifndef FPFORGE_MESCHACH_IO_H
#define FPFORGE_MESCHACH_IO_H

#include "matrix.h"

/* A new VEC holding x[0..n). */
static VEC *vec_from(const double *x, int n)
{
    VEC *v = v_get(n);
    for (int i = 0; i < n; i++)
        v->ve[i] = x[i];
    return v;
}

/* A new m x n MAT holding the row-major array a. */
static MAT *mat_from(const double *a, int m, int n)
{
    MAT *A = m_get(m, n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A->me[i][j] = a[i * n + j];
    return A;
}

/* Copies the entries of v to out. */
static void vec_to(const VEC *v, double *out)
{
    for (unsigned i = 0; i < v->dim; i++)
        out[i] = v->ve[i];
}

/* Copies the entries of A to out, row-major. */
static void mat_to(const MAT *A, double *out)
{
    for (unsigned i = 0; i < A->m; i++)
        for (unsigned j = 0; j < A->n; j++)
            out[i * A->n + j] = A->me[i][j];
}

#endif
