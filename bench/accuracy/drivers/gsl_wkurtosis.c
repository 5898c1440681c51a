/* GSL gsl_stats_wkurtosis and gsl_stats_wkurtosis_m_sd (with the mean and standard
 * deviation from gsl_stats_wmean and gsl_stats_wsd) on n data points with weights w, both
 * with stride 1 (statistics/wkurtosis.c). */
#include <gsl/gsl_statistics_double.h>

double gsl_wkurtosis(const double *w, const double *data, int n)
{
    return gsl_stats_wkurtosis(w, 1, data, 1, n);
}

double gsl_wkurtosis_m(const double *w, const double *data, int n)
{
    double mean = gsl_stats_wmean(w, 1, data, 1, n);
    double sd = gsl_stats_wsd(w, 1, data, 1, n);
    return gsl_stats_wkurtosis_m_sd(w, 1, data, 1, n, mean, sd);
}
