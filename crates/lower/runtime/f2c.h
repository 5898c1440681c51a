/* fpforge's own f2c.h: the types and macros the C that `f2c` writes expects, written
 * for fpforge (not libf2c's header). The C files f2c writes say `#include "f2c.h"`; the
 * frontend writes this file beside them.
 *
 * Types are those of gfortran on x86-64, so a Fortran program translated by f2c lays
 * out its storage as the gfortran build does: INTEGER and LOGICAL are 4 bytes (`int`,
 * not libf2c's `long`), REAL is `float`, DOUBLE PRECISION `double`, COMPLEX and
 * DOUBLE COMPLEX two of them, hidden CHARACTER lengths `int` (f2c's `ftnlen`).
 *
 * The intrinsics f2c writes as macros follow gfortran's code rather than libf2c's:
 * ABS of a real is fabs (ABS(-0.0) is +0.0, and no branch); MAX(a, b) and MIN(a, b)
 * are x86's maxsd/minsd with gfortran's operand order (b when b is greater (smaller),
 * else a: MAX(NaN, 1) is NaN as in the gfortran build). */
#ifndef FPFORGE_F2C_H
#define FPFORGE_F2C_H

typedef int integer;
typedef unsigned int uinteger;
typedef char *address;
typedef short int shortint;
typedef float real;
typedef double doublereal;
typedef struct { real r, i; } complex;
typedef struct { doublereal r, i; } doublecomplex;
typedef int logical;
typedef short int shortlogical;
typedef char logical1;
typedef char integer1;
typedef long long longint;
typedef unsigned long long ulongint;
typedef long long qbit;

#define TRUE_ (1)
#define FALSE_ (0)

typedef int flag;
typedef int ftnlen;
typedef int ftnint;

/* The control blocks of I/O statements, in the field order f2c initializes them. */
typedef struct { flag cierr; ftnint ciunit; flag ciend; char *cifmt; ftnint cirec; } cilist;
typedef struct { flag icierr; char *iciunit; flag iciend; char *icifmt; ftnint icirlen; ftnint icirnum; } icilist;
typedef struct { flag oerr; ftnint ounit; char *ofnm; ftnlen ofnmlen; char *osta; char *oacc; char *ofm; ftnint orl; char *oblnk; } olist;
typedef struct { flag cerr; ftnint cunit; char *csta; } cllist;
typedef struct { flag aerr; ftnint aunit; } alist;

typedef union { integer1 g; shortint h; integer i; real r; doublereal d; complex c; doublecomplex z; } Multitype;

#define VOID void
#define Extern extern

#define abs(x) _Generic((x), double: __builtin_fabs(x), float: __builtin_fabsf(x), default: ((x) >= 0 ? (x) : -(x)))
#define dabs(x) __builtin_fabs(x)
#define min(a, b) ((b) < (a) ? (b) : (a))
#define max(a, b) ((b) > (a) ? (b) : (a))
#define dmin(a, b) ((b) < (a) ? (b) : (a))
#define dmax(a, b) ((b) > (a) ? (b) : (a))
#define bit_test(a, b) ((a) >> (b) & 1)
#define bit_clear(a, b) ((a) & ~((uinteger)1 << (b)))
#define bit_set(a, b) ((a) | ((uinteger)1 << (b)))

/* Procedure dummy arguments and EXTERNAL functions, by result type. */
typedef int (*U_fp)();
typedef shortint (*J_fp)();
typedef integer (*I_fp)();
typedef real (*R_fp)();
typedef doublereal (*D_fp)(), (*E_fp)();
typedef VOID (*C_fp)();
typedef VOID (*Z_fp)();
typedef logical (*L_fp)();
typedef shortlogical (*K_fp)();
typedef VOID (*H_fp)();
typedef int (*S_fp)();
typedef VOID C_f;
typedef VOID H_f;
typedef VOID Z_f;
typedef doublereal E_f;

#endif
