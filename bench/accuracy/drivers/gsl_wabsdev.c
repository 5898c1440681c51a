/* GSL gsl_stats_wabsdev and gsl_stats_wabsdev_m (with the mean from gsl_stats_wmean) on
 * n data points with weights w, both with stride 1 (statistics/wabsdev.c). */
#include <gsl/gsl_statistics_double.h>

double gsl_wabsdev(const double *w, const double *data, int n)
{
    return gsl_stats_wabsdev(w, 1, data, 1, n);
}

double gsl_wabsdev_m(const double *w, const double *data, int n)
{
    double mean = gsl_stats_wmean(w, 1, data, 1, n);
    return gsl_stats_wabsdev_m(w, 1, data, 1, n, mean);
}
