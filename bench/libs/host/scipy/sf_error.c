/* scipy's special/sf_error.c reports errors as Python warnings (through the Python C
 * API), and special/sf_error.cc includes it again for the C++ extensions. Outside
 * Python a C program keeps the error code, as this file does. */
#include "sf_error.h"

sf_error_t sf_error_last = SF_ERROR_OK;

void sf_error(const char *func_name, sf_error_t code, const char *fmt, ...)
{
    (void)func_name;
    (void)fmt;
    sf_error_last = code;
}

void sf_error_check_fpe(const char *func_name)
{
    (void)func_name;
}
