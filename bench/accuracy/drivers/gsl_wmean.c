/* GSL gsl_stats_wmean on n data points with weights w, both with stride 1
 * (statistics/wmean.c). */
#include <gsl/gsl_statistics_double.h>

double gsl_wmean(const double *w, const double *data, int n)
{
    return gsl_stats_wmean(w, 1, data, 1, n);
}
