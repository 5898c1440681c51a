"""The rows of docs/FINDINGS.md: per defect, the fpforge command that finds it, which of
the inputs it reports is the row's (a selector on the argument values, applied in the
report's order), the true value's closed form for mpmath, and the evidence that the
input is inside the function's documented domain.

`cmd` is the fpforge command after `fpforge` (run.py adds `--out`); `{gsl}`, `{musl}`,
`{newlib}`, `{cephes}`, `{openlibm}` are the libraries' source roots and `{LIB:flags}` the
loading flags bench/findings/libs.py gives each (the ones the bench/ scripts use).
"""

# The rows were found ranking by relative error (the default before `--metric ulps`).
GSL_BUDGET = ["--oracle", "auto", "--metric", "relative", "--evals", "20000", "--seed", "1",
              "--time-limit", "120"]


def gsl(file, func, extra=()):
    cmd = ["accuracy", "{gsl}/specfunc/" + file, "-f", func, "{gsl:flags}"] + GSL_BUDGET
    for a in extra:
        cmd += ["--arg", a]
    return cmd


def acc(lib, file, func, evals=20000, seed=1, extra=()):
    cmd = ["accuracy", "{%s}/%s" % (lib, file), "-f", func, "{%s:flags}" % lib,
           "--oracle", "auto", "--metric", "relative", "--evals", str(evals), "--seed", str(seed),
           "--time-limit", "120"]
    for a in extra:
        cmd += ["--arg", a]
    return cmd


GSL_DOC = "GSL manual (doc/specfunc*.rst) defines the function for every real x"

ROWS = [
    dict(id=1, lib="gsl", func="gsl_sf_sin_e", cmd=gsl("trig.c", "gsl_sf_sin_e"),
         pick=lambda x: abs(x) > 2.0**53, truth="sin(x)",
         why="sin is defined on all reals; GSL returns NaN and GSL_SUCCESS: the octant reduction "
             "(trig.c:183-205) computes z = |x| - y*P1 - ... in double for |x| > 2^53, z is huge, the "
             "Chebyshev series overflows to inf-inf. The callers that reduce through gsl_sf_sin_e/cos_e "
             "(airy for x < -2^70, bessel_y0/y1/y2, Ci) inherit this one defect and are not listed again.",
         upstream="not checked upstream"),
    dict(id=2, lib="gsl", func="gsl_sf_erf_e", cmd=gsl("erfc.c", "gsl_sf_erf_e"),
         pick=lambda x: x < -1e10, truth="erf(x)",
         why="erf is defined on all reals (|erf| <= 1); for x < -8 erfc8_sum's rational function "
             "(erfc.c:60-77) overflows to inf/inf = NaN, then erf = 1 - NaN with GSL_SUCCESS. erfc, "
             "erf_Q, log_erfc and hazard share erfc8 and are not listed again.",
         upstream="reported by the issue 34 measurement; not checked upstream"),
    dict(id=4, lib="gsl", func="gsl_sf_zeta_e", cmd=gsl("zeta.c", "gsl_sf_zeta_e"),
         pick=lambda x: -1e-300 < x < 0, truth="zeta(x)",
         why="zeta(s) is defined for s != 1 and zeta(-tiny) = -0.5; GSL returns -inf with GSL_SUCCESS "
             "(the reflection formula for s < 0 divides by a gamma/sine product that underflows). "
             "eta_e and zetam1_e call this code and are not listed again.",
         upstream="not checked upstream"),
    dict(id=5, lib="gsl", func="gsl_sf_dilog_e", cmd=gsl("dilog.c", "gsl_sf_dilog_e"),
         pick=lambda x: x < -1e100, truth="polylog(2, x)",
         why="Li2 is defined for all real x <= 1 (the manual: real dilogarithm for x real); "
             "Li2(-1.1e202) = -1.08e5, GSL returns -inf with GSL_SUCCESS",
         upstream="not checked upstream"),
    dict(id=6, lib="gsl", func="gsl_sf_exprel_2_e", cmd=gsl("exp.c", "gsl_sf_exprel_2_e"),
         pick=lambda x: x > 700, truth="2*(expm1(x) - x)/x**2",
         why="exprel_2(x) = 2(e^x - 1 - x)/x^2 is 7.1e302 at x = 709.78, below DBL_MAX; GSL "
             "returns +inf with GSL_SUCCESS (e^x overflows before the division by x^2)",
         upstream="not checked upstream"),
    dict(id=7, lib="gsl", func="gsl_sf_bessel_i1_scaled_e", cmd=gsl("bessel_i.c", "gsl_sf_bessel_i1_scaled_e"),
         pick=lambda x: abs(x) > 1e154, truth="exp(-abs(x))*(cosh(x)/x - sinh(x)/x**2)",
         why="exp(-|x|) i1(x) ~ 1/(2x) is representable for every finite x; for |x| > 1.3e154 "
             "bessel_i.c divides by ax*ax, which overflows: 0 with GSL_SUCCESS and error bound 0",
         upstream="not checked upstream"),
    dict(id=8, lib="gsl", func="gsl_sf_bessel_i2_scaled_e", cmd=gsl("bessel_i.c", "gsl_sf_bessel_i2_scaled_e"),
         pick=lambda x: abs(x) > 1e154,
         truth="exp(-abs(x))*((3/x**2 + 1)*sinh(x)/x - 3*cosh(x)/x**2)",
         why="exp(-|x|) i2(x) ~ 1/(2|x|) is representable; for |x| > 1.3e154 x*x and ax^3 overflow: "
             "inf/inf = NaN with GSL_SUCCESS (a separate expression from row 7's)",
         upstream="not checked upstream"),
    dict(id=9, lib="gsl", func="gsl_sf_clausen_e", cmd=gsl("clausen.c", "gsl_sf_clausen_e"),
         pick=lambda x: abs(x) > 1e6, truth="clsin(2, x)",
         why="Cl2 is defined and periodic on all reals; for large |x| the reduction modulo 2 pi "
             "(clausen.c, gsl_sf_angle_restrict_pos_err_e) loses the result's digits, and the "
             "error bound GSL returns ignores the loss",
         upstream="not checked upstream"),
    dict(id=10, lib="gsl", func="gsl_sf_legendre_Q1_e", cmd=gsl("legendre_Qn.c", "gsl_sf_legendre_Q1_e"),
         pick=lambda x: 0.8 < x < 0.9, truth="x*atanh(x) - 1",
         why="Q1(x) = x atanh(x) - 1 for -1 < x < 1; near its zero x = 0.8336 the subtraction "
             "cancels and the returned error bound (1e-31) is far below the error made",
         upstream="not checked upstream"),
    dict(id=11, lib="gsl", func="gsl_sf_ellint_Ecomp_e", cmd=gsl("ellint.c", "gsl_sf_ellint_Ecomp_e", ["mode = 0"]),
         pick=lambda x: 0.999 < x < 1, truth="ellipe(x**2)", extra_args=["0"],
         why="E(k) is defined for |k| <= 1 (the manual: -1 <= k <= 1); near k = 1 the Carlson "
             "reduction (1 - k^2 rounded) loses digits while the bound returned is 4.4e-16",
         upstream="not checked upstream"),
    dict(id=12, lib="gsl", func="gsl_sf_lnsinh_e", cmd=gsl("trig.c", "gsl_sf_lnsinh_e"),
         pick=lambda x: 0.85 < x < 0.9, truth="log(sinh(x))",
         why="log(sinh x) is defined for x > 0; at x = asinh(1) rounded, sinh(x) rounds to 1 and "
             "GSL returns 0 with the error bound 0: the bound is wrong (relative error 1)",
         upstream="not checked upstream", min_ulps=1),
    dict(id=13, lib="cephes", func="cephes_rgamma", cmd=acc("cephes", "cephes/rgamma.c", "cephes_rgamma", evals=400000),
         pick=lambda x: -1e-300 < x < 0, truth="rgamma(x)",
         why="1/Gamma(x) is entire; Cephes documents rgamma for all x (rgamma.c: 'Returns one divided by "
             "the Gamma function'); near 0 it is ~x, so -5.6e-309 is representable, Cephes returns -0",
         upstream="reported by the issue 34 measurement; not checked upstream"),
    dict(id=15, lib="musl", func="acosh", cmd=acc("musl", "src/math/acosh.c", "acosh", extra=()) + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: x < -1, truth="acosh(x)",
         why="acosh is defined for x >= 1 and C99 F.10.2.1 / POSIX require NaN (domain error) for x < 1; "
             "musl returns a finite value for some large negative x (acosh.c tests only the exponent "
             "bits, not the sign, on its |x| >= 2 paths)",
         upstream="known: AssemblyScript issue 1856 (2021) found it in their musl port and noted musl fixed only acoshf (commit c4c38e63); rust-lang/compiler-builtins PR 1070 (2026) fixed its port and says musl's acosh is still unfixed"),
    dict(id=16, lib="gsl", func="gsl_sf_lambert_W0_e", cmd=gsl("lambert.c", "gsl_sf_lambert_W0_e"),
         pick=lambda x: 0 < x < 1e-20, truth="lambertw(x)",
         why="W0 is defined for x >= -1/e and W0(x) = x - x^2 + ... near 0; GSL returns 0 for tiny x > 0 "
             "(the Halley iteration starts from the branch-point series and stops at 0): relative "
             "error 1 with GSL_SUCCESS (the absolute bound 4.4e-15 it returns covers it, but no "
             "relative accuracy is left); lambert_Wm1_e returns W0 for x > 0 and is not listed again",
         upstream="not checked upstream", min_ulps=1),
    dict(id=17, lib="musl", func="lgamma", cmd=acc("musl", "src/math/lgamma.c", "lgamma") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: -3 < x < -2, truth="log(abs(gamma(x)))",
         why="lgamma is defined for x not a non-positive integer; near its zeros on the negative axis "
             "(here x = -2.4570) fdlibm's reflection log(pi/|x sin(pi x)|) - lgamma(1-x) cancels: "
             "1e15 ulps. glibc replaced this code for the same reason (lgamma_neg.c, 2015)",
         upstream="inherited from fdlibm; glibc replaced its copy's code for negative x (lgamma_neg.c, glibc 2.22); not checked in musl"),
    dict(id=18, lib="musl", func="j0", cmd=acc("musl", "src/math/j0.c", "j0") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: 2 < x < 3, truth="besselj(0, x)",
         why="j0 is defined on all reals; near its first zero 2.4048 the asymptotic form "
             "sqrt(2/(pi x))(P cos - Q sin) cancels: 4.5e14 ulps",
         upstream="inherited from fdlibm (its asymptotic form near the zeros); not checked upstream"),
    dict(id=19, lib="musl", func="y1", cmd=acc("musl", "src/math/j1.c", "y1") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: 2 < x < 2.5, truth="bessely(1, x)",
         why="y1 is defined for x > 0; near its first zero 2.1971 the asymptotic form with pone/qone "
             "(separate code from row 18's pzero/qzero) cancels: 5.6e15 ulps",
         upstream="inherited from fdlibm (its asymptotic form near the zeros); not checked upstream"),
    dict(id=20, lib="musl", func="lgammaf", cmd=acc("musl", "src/math/lgammaf.c", "lgammaf") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: -4 < x < -2, truth="log(abs(gamma(x)))", float32=True,
         why="binary32 lgammaf (lgammaf_r.c, its own code and constants) cancels near the negative zeros "
             "the same way: millions of float ulps",
         upstream="not checked upstream"),
    dict(id=21, lib="newlib", func="lgamma", cmd=acc("newlib", "libm/math/w_lgamma.c", "lgamma") + ["--lib-dir", "{newlib}/libm/math", "--lib-dir", "{newlib}/libm/common"],
         pick=lambda x: -3 < x < -2, truth="log(abs(gamma(x)))",
         why="as row 17, in newlib's own copy of fdlibm (e_lgamma_r.c)",
         upstream="inherited from fdlibm; glibc replaced its copy (glibc 2.22); not checked in newlib"),
    dict(id=22, lib="newlib", func="j0", cmd=acc("newlib", "libm/math/w_j0.c", "j0") + ["--lib-dir", "{newlib}/libm/math", "--lib-dir", "{newlib}/libm/common"],
         pick=lambda x: 2 < x < 3, truth="besselj(0, x)",
         why="as row 18, in newlib's copy (e_j0.c)",
         upstream="inherited from fdlibm; not checked upstream"),
    dict(id=23, lib="openlibm", func="lgamma", cmd=acc("openlibm", "src/e_lgamma.c", "lgamma"),
         pick=lambda x: -3 < x < -2, truth="log(abs(gamma(x)))",
         why="as row 17, in OpenLibm's copy of FreeBSD msun (e_lgamma_r.c)",
         upstream="inherited from fdlibm; not checked upstream"),
    dict(id=24, lib="openlibm", func="j0", cmd=acc("openlibm", "src/e_j0.c", "j0"),
         pick=lambda x: 2 < x < 3, truth="besselj(0, x)",
         why="as row 18, in OpenLibm's copy (e_j0.c)",
         upstream="inherited from fdlibm; not checked upstream"),
    dict(id=25, lib="musl", func="j1f", cmd=acc("musl", "src/math/j1f.c", "j1f") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: 3.5 < abs(x) < 4, truth="besselj(1, x)", float32=True,
         why="binary32 j1f (j1f.c, its own ponef/qonef) cancels near the zero 3.8317 of J1",
         upstream="not checked upstream"),
    dict(id=26, lib="newlib", func="y1", cmd=acc("newlib", "libm/math/w_j1.c", "y1") + ["--lib-dir", "{newlib}/libm/math", "--lib-dir", "{newlib}/libm/common"],
         pick=lambda x: 2 < x < 2.5, truth="bessely(1, x)",
         why="as row 19, in newlib's copy (e_j1.c)",
         upstream="inherited from fdlibm; not checked upstream"),
    dict(id=27, lib="openlibm", func="y1", cmd=acc("openlibm", "src/e_j1.c", "y1"),
         pick=lambda x: 2 < x < 2.5, truth="bessely(1, x)",
         why="as row 19, in OpenLibm's copy (e_j1.c)",
         upstream="inherited from fdlibm; not checked upstream"),
    dict(id=28, lib="gsl", func="gsl_sf_beta_e", cmd=gsl("beta.c", "gsl_sf_beta_e"),
         pick=lambda x, y: 0 < x < 50 and 0 < y < 50 and min(x, y) < 1e-300 and max(x, y) > 1e-300,
         truth="beta(x, y)",
         why="B(a,b) = Gamma(a)Gamma(b)/Gamma(a+b) is defined for a, b > 0 (the manual: 'for x > 0, y > 0'); "
             "B(0.0013, 2.2e-308) ~ 1/b = 4.5e307 < DBL_MAX. For a, b < 50 beta.c takes the "
             "gamma-ratio path, Gamma(b) overflows to inf (its overflow status is dropped) and "
             "GSL returns +inf with GSL_SUCCESS",
         upstream="not checked upstream"),
    dict(id=29, lib="gsl", func="gsl_sf_lnbeta_e", cmd=gsl("beta.c", "gsl_sf_lnbeta_e"),
         pick=lambda x, y: x > 0 and y > 0 and min(x, y) < 1e-300,
         truth="log(beta(x, y))",
         why="log B(a,b) is defined for a, b > 0 and is about -log(min(a,b)) <= 745 for tiny "
             "arguments; lnbeta's min/max < 0.2 path (beta.c, lnbeta_sgn) divides gammastar values "
             "that overflow for subnormal arguments (their status ignored): NaN or inf with "
             "GSL_SUCCESS. Separate code from row 28's gamma ratio",
         upstream="not checked upstream"),
    dict(id=30, lib="gsl", func="gsl_sf_poch_e", cmd=gsl("poch.c", "gsl_sf_poch_e"),
         pick=lambda x, y: 0 < x < 1e-300 and 0 < y < 1e-300,
         truth="gamma(x + y)/gamma(x)",
         why="(a)_x = Gamma(a+x)/Gamma(a) is defined for a > 0, a+x > 0; for a = 1.7e-318, "
             "x = 5e-324 it is 1 - 2e-11. GSL's small-x path (poch.c, pochrel_smallx via lnpoch_pos) "
             "returns NaN with GSL_SUCCESS",
         upstream="not checked upstream"),
    dict(id=31, lib="gsl", func="gsl_sf_lnpoch_e", cmd=gsl("poch.c", "gsl_sf_lnpoch_e"),
         pick=lambda x, y: x > 1e300 and x + y > 0,
         truth="workdps(800)(lambda: loggamma(x + y) - loggamma(x))()",
         why="log (a)_x is defined for a > 0, a+x > 0 (the manual); log (DBL_MAX)_{-1} = "
             "-log(DBL_MAX - 1) = -709.8. For a above GAMMA_XMAX lnpoch_pos subtracts "
             "lngamma(a+x) - lngamma(a), both overflow to inf: inf - inf = NaN with GSL_SUCCESS "
             "(the true value evaluated at 800 digits, the two log-gammas being 1e311)",
         upstream="not checked upstream"),
    dict(id=32, lib="gsl", func="gsl_sf_hzeta_e", cmd=gsl("zeta.c", "gsl_sf_hzeta_e"),
         pick=lambda x, y: 1 < x < 2 and y > 1e300,
         truth="zeta(x, y)",
         why="zeta(s, q) is defined for s > 1, q > 0 (the manual); for s - 1 = 2.4e-7 and "
             "q = 1.2e306 it is 1.05e6. The Euler-Maclaurin start term (kmax+q)/(s-1) overflows "
             "to inf before it is multiplied by (kmax+q)^-s: +inf with GSL_SUCCESS (not row 4's "
             "reflection code)",
         upstream="not checked upstream"),
    dict(id=33, lib="gsl", func="gsl_sf_bessel_i0_scaled_e", cmd=gsl("bessel_i.c", "gsl_sf_bessel_i0_scaled_e"),
         pick=lambda x: abs(x) > 1e307, truth="exp(-abs(x))*sinh(x)/x",
         why="exp(-|x|) i0(x) ~ 1/(2|x|) is representable (subnormal, 5.6e-309) for |x| = 9e307; "
             "bessel_i.c returns 1/(2.0*ax) and 2.0*ax overflows for |x| > DBL_MAX/2: 0 with "
             "GSL_SUCCESS and error bound 0 (a separate expression from row 7's ax*ax)",
         upstream="not checked upstream"),
    dict(id=34, lib="gsl", func="gsl_sf_gamma_inc_e", cmd=gsl("gamma_inc.c", "gsl_sf_gamma_inc_e"),
         pick=lambda x, y: 0 < x < 1e-290 and y > 1, truth="gammainc(x, y)",
         why="Gamma(a, x) is defined for real a and x >= 0 (the manual); for a -> 0 it tends to "
             "E1(x), here 1.1e-41 at x = 89.8. gamma_inc_a_gt_0 returns Gamma(a) * Q(a,x): "
             "Q = Gamma(a,x)/Gamma(a) = 2e-339 underflows to 0 for tiny a (Gamma(a) = 5e297) and "
             "GSL returns 0 with GSL_SUCCESS and error bound 0",
         upstream="not checked upstream"),
    dict(id=35, lib="gsl", func="gsl_sf_bessel_Inu_e", cmd=gsl("bessel_Inu.c", "gsl_sf_bessel_Inu_e"),
         pick=lambda x, y: 0 <= x < 1e-300 and y > 200, truth="besseli(x, y)",
         why="I_nu(x) is defined for x > 0, nu >= 0 (the manual); I_nu(298) ~ I_0(298) = 8e127. "
             "Inu_scaled takes the uniform asymptotic (Debye) expansion in 1/nu whenever "
             "0.5/(nu^2 + x^2) < 6e-6, i.e. for every x > 288 even when nu ~ 0; it divides by nu: "
             "NaN with GSL_SUCCESS for nu = 0 and tiny nu (for nu = 1e-20 the error bound it "
             "returns is 6e247). Inu_scaled_e is the same code and not listed again",
         upstream="not checked upstream"),
    dict(id=36, lib="gsl", func="gsl_sf_hyperg_0F1_e", cmd=gsl("hyperg_0F1.c", "gsl_sf_hyperg_0F1_e"),
         pick=lambda x, y: x < 0 and -1e-50 < y < 0, truth="hyp0f1(x, y)",
         why="0F1(;c;x) is defined for c not 0 or a negative integer (the manual) and is 1 + x/c + ... "
             "for small x; at c = -17.07, x = -2.2e-308 it is 1. For x < 0 GSL evaluates "
             "Gamma(c) (-x)^((1-c)/2) J_{c-1}(2 sqrt(-x)), for c < 0 through cos J_{|nu|} - sin Y_{|nu|} "
             "(hyperg_0F1_bessel_J); for small |x| (here up to |x| = 1e-100 at least) Y overflows "
             "and the prefactor underflows: NaN with GSL_SUCCESS",
         upstream="not checked upstream"),
    dict(id=37, lib="gsl", func="gsl_sf_gegenpoly_2_e", cmd=gsl("gegenbauer.c", "gsl_sf_gegenpoly_2_e"),
         pick=lambda x, y: 1e-300 < abs(x) < 1e-50 and 1.4e154 < abs(y) < 1e200, truth="gegenbauer(2, x, y)",
         why="C2^lambda(x) = 2 lambda (1+lambda) x^2 - lambda is a polynomial defined for lambda > -1/2 and "
             "all x (the manual); for a tiny lambda and |x| > 1.4e154 it is representable (lambda x^2), but "
             "gegenbauer.c computes lambda*(-1 + 2(1+lambda)*x*x), where x*x overflows: inf with GSL_SUCCESS",
         upstream="not checked upstream"),
    dict(id=38, lib="gsl", func="gsl_sf_hyperg_1F1_e", cmd=gsl("hyperg_1F1.c", "gsl_sf_hyperg_1F1_e"),
         pick=lambda x, y, z: x < 0 and 1e155 < y < 1e300 and abs(z) < 10, truth="hyp1f1(x, y, z)",
         why="M(a,b,x) = 1F1(a;b;x) is defined for b not 0 or a negative integer (the manual); for b -> inf "
             "it tends to 1 (here a = -130.7, b = 5.7e231, x = -1.16: 1 - 2.6e-230). GSL returns NaN "
             "with GSL_SUCCESS for a < 0 and every b tried above about 1e155 (a = -1.5, -10.3, -50.5, "
             "-130.7; x = -1.16), the right 1.0 for b = 1e152",
         upstream="not checked upstream"),
    dict(id=39, lib="musl", func="j0f", cmd=acc("musl", "src/math/j0f.c", "j0f") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: 2 < abs(x) < 3, truth="besselj(0, x)", float32=True,
         why="binary32 j0f is defined on all reals; near the zero 2.4048 of J0 its asymptotic form "
             "with pzerof/qzerof (j0f.c, its own code and constants, not row 25's ponef/qonef nor "
             "the double j0's pzero/qzero) cancels: 1e6 float ulps",
         upstream="known to musl as a limitation: j0f.c comments 'large ulp error near zeros'; not reported upstream as far as checked"),
    dict(id=40, lib="musl", func="y0", cmd=acc("musl", "src/math/j0.c", "y0") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: 0.8 < x < 1, truth="bessely(0, x)",
         why="y0 is defined for x > 0; for 2^-27 <= x < 2 fdlibm computes U(x^2)/V(x^2) + (2/pi) j0(x) log(x) "
             "(j0.c, the x < 2 branch of y0), which cancels near the first zero 0.8936: 1e15 ulps. Separate code from "
             "row 18's asymptotic form (x >= 2); newlib's and OpenLibm's copies of e_j0.c carry it too "
             "and are not listed again",
         upstream="known to musl as a limitation: j0.c comments 'large ulp error near the first zero, x ~= 0.89'; inherited from fdlibm"),
    dict(id=41, lib="musl", func="y0f", cmd=acc("musl", "src/math/j0f.c", "y0f") + ["--lib-dir", "{musl}/src/math"],
         pick=lambda x: 0.8 < x < 1, truth="bessely(0, x)", float32=True,
         why="binary32 y0f (j0f.c, its own constants) makes the same small-x cancellation as row 40 "
             "near the zero 0.8936: thousands of float ulps",
         upstream="known to musl as a limitation: j0f.c comments 'large ulp error at x ~= 0.89'"),
    dict(id=42, lib="gsl", func="gsl_sf_hyperg_U_e", cmd=gsl("hyperg_U.c", "gsl_sf_hyperg_U_e"),
         pick=lambda x, y, z: 0 < x < 10 and y < -1e100 and z == 1, truth="hyperu(x, y, z)", hang=True,
         why="U(a,b,x) is defined for x > 0 and all real a, b (gsl_sf_hyperg.h declares it for every "
             "double a, b, x and lists no exceptions); at a = 2.8, b = -1.1e202, x = 1 the call never "
             "returns (fpforge: fuel exhausted in hyperg_U_bge1, hyperg_U.c:1414; natively still running "
             "after 30 s of CPU time at -O2) where it should return a value or an error status. Another "
             "fuel-exhausted input, a = 1.1e115, b = 0, x = 1 (hyperg_U_int_bge1), returns natively after "
             "about 5 s of CPU with GSL_EOVRFLW: slow, not a hang, not listed",
         upstream="not checked upstream"),
    dict(id=44, lib="gsl", func="gsl_sf_hyperg_U_e", cmd=gsl("hyperg_U.c", "gsl_sf_hyperg_U_e"),
         pick=lambda x, y, z: abs(x) < 1e-50 and -1000 < y < -1 and 0 < z < 10, truth="hyperu(x, y, z)",
         why="U(a,b,x) ~ 1 for a -> 0 and x > 0 (U(0,b,x) = 1); at a = -8.7e-105, b = -354.2, x = 2.47 GSL "
             "returns NaN with GSL_SUCCESS",
         upstream="not checked upstream"),
]


def report_name(row):
    """The file of docs/findings/ holding the row's report.md."""
    return f"row{row['id']:02d}-{row['lib']}-{row['func']}.md"


def reproducer_cell(row, finding):
    """The row's report.md (docs/findings/) and what fpforge's own reproducer said."""
    if not finding:
        return "none for this input"
    verdict = finding[1]
    link = f"[report.md](findings/{report_name(row)})"
    if verdict.startswith("Confirmed natively"):
        compilers = "gcc and clang" if "; clang: confirmed natively" in verdict else "gcc"
        return f"{link}: confirmed natively ({compilers})"
    return f"{link}: {verdict[:120]}"


def markdown(results, fmt, libs):
    out = []
    out.append("| # | library | function | input (hex, decimal) | observed (gcc -O2) | true value (mpmath, 80 digits) "
               "| class | found by | fpforge's reproducer | why it is a defect (domain evidence) | upstream |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    import re
    number = {row["id"]: n for n, (row, _, _) in enumerate(results, 1)}
    for n, (row, res, why) in enumerate(results, 1):
        row = dict(row, why=re.sub(r"\brow (\d+)", lambda m: f"row {number.get(int(m.group(1)), m.group(1))}", row["why"]))
        cmd = "fpforge " + " ".join(row["cmd"]) + " --confirm"
        if res is None:
            out.append(f"| {n} | {row['lib']} | `{row['func']}` | not confirmed: {why} | | | | `{cmd}` | | | |")
            continue
        own = reproducer_cell(row, res["finding"])
        import mpmath
        inp = ", ".join(f"`{x.hex()}` ({x!r})" for x in res["xs"])
        got = fmt(res["got"])
        if row.get("hang"):
            got = "no result (30 s of CPU time, gcc -O2)"
        elif row["lib"] == "gsl":
            got += f", status {res['status']}{' (GSL_SUCCESS)' if res['status'] == 0 else ''}, err {res['err']:.3g}"
        out.append(f"| {n} | {LIBNAMES[row['lib']]} | `{row['func']}` | {inp} | {got} | "
                   f"{'-' if res['t'] is None else mpmath.nstr(res['t'], 17)} | {res['cls']} | `{cmd}` | {own} | {row['why']} | {row['upstream']} |")
    return "\n".join(out)


LIBNAMES = {"gsl": "GSL 2.7.1", "musl": "musl 1.2.3", "newlib": "newlib 3.3.0",
            "cephes": "SciPy 1.10.1 Cephes", "openlibm": "OpenLibm 0.8.7"}
