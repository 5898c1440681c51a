/* The three summation algorithms of the accuracy corpus (Higham, "The accuracy of
 * floating point summation", 1993), written for fpforge's benchmarks: each sums the n
 * doubles of x and returns the result in double precision. */

/* Recursive summation: s = ((x0 + x1) + x2) + ... */
double sum_recursive(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* Pairwise summation: the two halves are summed recursively and then added. */
double sum_pairwise(const double *x, int n)
{
    if (n <= 0)
        return 0.0;
    if (n == 1)
        return x[0];
    int half = n / 2;
    return sum_pairwise(x, half) + sum_pairwise(x + half, n - half);
}

/* Compensated (Kahan) summation: c carries the low-order bits that each addition to s
 * loses, and is subtracted from the next term. */
double sum_kahan(const double *x, int n)
{
    double s = 0.0;
    double c = 0.0;
    for (int i = 0; i < n; i++) {
        double y = x[i] - c;
        double t = s + y;
        c = (t - s) - y;
        s = t;
    }
    return s;
}
