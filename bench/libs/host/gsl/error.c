/* GSL's err/error.c prints through stdio and aborts; a program that calls
 * gsl_set_error_handler_off() keeps only the status the functions return. This file is
 * that handler, without stdio: it records the last error code. */
#include <gsl/gsl_errno.h>

int gsl_error_last = GSL_SUCCESS;

void gsl_error(const char *reason, const char *file, int line, int gsl_errno)
{
    (void)reason;
    (void)file;
    (void)line;
    gsl_error_last = gsl_errno;
}
