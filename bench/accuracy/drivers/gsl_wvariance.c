/* GSL's weighted variance family on n data points with weights w, both with stride 1
 * (statistics/wvariance.c). The `_m` and `_w` drivers pass the mean GSL computes with
 * gsl_stats_wmean, as FPGen's benchmarks do: `_m` calls the `_m` variants,
 * `_w` the `_with_fixed_mean` variants. */
#include <gsl/gsl_statistics_double.h>

double gsl_wvariance(const double *w, const double *data, int n)
{
    return gsl_stats_wvariance(w, 1, data, 1, n);
}

double gsl_wsd(const double *w, const double *data, int n)
{
    return gsl_stats_wsd(w, 1, data, 1, n);
}

double gsl_wtss(const double *w, const double *data, int n)
{
    return gsl_stats_wtss(w, 1, data, 1, n);
}

double gsl_wvariance_m(const double *w, const double *data, int n)
{
    double mean = gsl_stats_wmean(w, 1, data, 1, n);
    return gsl_stats_wvariance_m(w, 1, data, 1, n, mean);
}

double gsl_wsd_m(const double *w, const double *data, int n)
{
    double mean = gsl_stats_wmean(w, 1, data, 1, n);
    return gsl_stats_wsd_m(w, 1, data, 1, n, mean);
}

double gsl_wtss_m(const double *w, const double *data, int n)
{
    double mean = gsl_stats_wmean(w, 1, data, 1, n);
    return gsl_stats_wtss_m(w, 1, data, 1, n, mean);
}

double gsl_wvariance_w(const double *w, const double *data, int n)
{
    double mean = gsl_stats_wmean(w, 1, data, 1, n);
    return gsl_stats_wvariance_with_fixed_mean(w, 1, data, 1, n, mean);
}

double gsl_wsd_w(const double *w, const double *data, int n)
{
    double mean = gsl_stats_wmean(w, 1, data, 1, n);
    return gsl_stats_wsd_with_fixed_mean(w, 1, data, 1, n, mean);
}
