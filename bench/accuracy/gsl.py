#!/usr/bin/env python3
"""fpforge accuracy on GSL 2.7.1's one-argument special functions (`gsl_sf_*_e`, issue 20),
judged independently by mpmath.

For every function of the list below: `fpforge accuracy specfunc/FILE.c -f FUNC` with the
library's directories as `--lib-dir` (as bench/libs/run.py loads them, with C error
reporting), `--oracle auto` (the true function in MPFR when fpforge's table knows the
name, else the high-precision re-execution) and a fixed `--evals` budget. Then every
input the report lists (special values and worst inputs) is evaluated again by the
native GSL (Debian's libgsl-dev, through ctypes) and by mpmath at 110 digits, and the
script prints per function:

- the oracle the report names;
- the largest TRUE relative error among the reported inputs: |GSL - mpmath| / |mpmath|;
- the share of reported inputs whose true relative error is significant (>= 1e-3, as
  ATOMU and FPCC count it);
- the share of reported inputs that are significant or that the report labels "below
  threshold" (its `significance`): the goal is all of them;
- the share of reported inputs whose reported error is within a factor 2 of the true
  one (the goal where the oracle is the true function);
- wrong special values and poles reported;
- the zeros and poles the search located (report.json's `zeros_found`, `poles_found`;
  "-" for a build without the zero search).

    bench/accuracy/gsl.py [--evals 20000 | --time-limit 20] [--only gsl_sf_bessel_J0_e,gsl_sf_psi_e]
                          [--literature DIR] [--rejudge]

`--rejudge` judges the reports an earlier run left in `--out` again, without running
fpforge. With `--literature DIR`, a checkout of FPCC's public artifact (OOPSLA'24, "Detecting
Floating-Point Errors via Chain Conditions": its `result_analysis/res_table_FPCC*.xls`
hold the paper's per-function table of ATOMU and FPCC on GSL 2.5, and `fpcc_output.json`,
where the checkout has it, FPCC's reported inputs), a second table follows: per function
the largest relative error each tool reported in the paper, the largest TRUE error of
FPCC's reported inputs on this GSL (judged here exactly as fpforge's), and whether
fpforge's largest true error reaches the largest of them. Nothing of the artifact is kept.

mpmath comes from PyPI into a venv the script creates (under the corpus cache); the GSL
sources from bench/source.sh; libgsl-dev from apt when it is missing.
"""

import argparse
import ctypes
import json
import math
import os
import shutil
import struct
import subprocess
from decimal import Decimal, InvalidOperation, localcontext
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("FPFORGE_CORPUS_CACHE", Path.home() / ".cache" / "fpforge-corpus"))
VENV = CORPUS / "build" / "mpmath-venv"
LIBGSL = "libgsl.so.27"

# (file in specfunc/, function, mpmath expression of x, extra --arg texts).
FUNCTIONS = [
    ("bessel_J0.c", "gsl_sf_bessel_J0_e", "besselj(0, x)", []),
    ("bessel_J1.c", "gsl_sf_bessel_J1_e", "besselj(1, x)", []),
    ("bessel_Y0.c", "gsl_sf_bessel_Y0_e", "bessely(0, x)", []),
    ("bessel_Y1.c", "gsl_sf_bessel_Y1_e", "bessely(1, x)", []),
    ("erfc.c", "gsl_sf_erf_e", "erf(x)", []),
    ("erfc.c", "gsl_sf_erfc_e", "erfc(x)", []),
    ("gamma.c", "gsl_sf_lngamma_e", "re(loggamma(x))", []),
    ("psi.c", "gsl_sf_psi_e", "digamma(x)", []),
    ("zeta.c", "gsl_sf_zeta_e", "zeta(x)", []),
    ("expint.c", "gsl_sf_expint_E1_e", "re(e1(x))", []),
    ("expint.c", "gsl_sf_expint_Ei_e", "ei(x)", []),
    ("dilog.c", "gsl_sf_dilog_e", "re(polylog(2, x))", []),
    ("log.c", "gsl_sf_log_1plusx_e", "log1p(x)", []),
    ("airy.c", "gsl_sf_airy_Ai_e", "airyai(x)", ["mode = 0"]),
    ("sinint.c", "gsl_sf_Si_e", "si(x)", []),
    ("sinint.c", "gsl_sf_Ci_e", "ci(x)", []),
    ("dawson.c", "gsl_sf_dawson_e", "sqrt(pi)/2*exp(-x**2)*erfi(x)", []),
    ("lambert.c", "gsl_sf_lambert_W0_e", "re(lambertw(x))", []),
    ("clausen.c", "gsl_sf_clausen_e", "clsin(2, x)", []),
    ("bessel_I0.c", "gsl_sf_bessel_I0_e", "besseli(0, x)", []),
    # Beyond the first 20: every other one-argument gsl_sf_*_e of GSL 2.7.1 with a
    # closed mpmath expression (not the Debye, synchrotron and transport integrals).
    ("airy.c", "gsl_sf_airy_Bi_e", "airybi(x)", ["mode = 0"]),
    ("airy.c", "gsl_sf_airy_Ai_scaled_e", "airyai(x)*exp(2*x**1.5/3) if x > 0 else airyai(x)", ["mode = 0"]),
    ("airy.c", "gsl_sf_airy_Bi_scaled_e", "airybi(x)*exp(-2*x**1.5/3) if x > 0 else airybi(x)", ["mode = 0"]),
    ("airy_der.c", "gsl_sf_airy_Ai_deriv_e", "airyai(x, 1)", ["mode = 0"]),
    ("airy_der.c", "gsl_sf_airy_Bi_deriv_e", "airybi(x, 1)", ["mode = 0"]),
    ("airy_der.c", "gsl_sf_airy_Ai_deriv_scaled_e", "airyai(x, 1)*exp(2*x**1.5/3) if x > 0 else airyai(x, 1)", ["mode = 0"]),
    ("airy_der.c", "gsl_sf_airy_Bi_deriv_scaled_e", "airybi(x, 1)*exp(-2*x**1.5/3) if x > 0 else airybi(x, 1)", ["mode = 0"]),
    ("atanint.c", "gsl_sf_atanint_e", "im(polylog(2, j*x))", []),
    ("bessel_I0.c", "gsl_sf_bessel_I0_scaled_e", "exp(-abs(x))*besseli(0, x)", []),
    ("bessel_I1.c", "gsl_sf_bessel_I1_e", "besseli(1, x)", []),
    ("bessel_I1.c", "gsl_sf_bessel_I1_scaled_e", "exp(-abs(x))*besseli(1, x)", []),
    ("bessel_K0.c", "gsl_sf_bessel_K0_e", "besselk(0, x)", []),
    ("bessel_K0.c", "gsl_sf_bessel_K0_scaled_e", "exp(x)*besselk(0, x)", []),
    ("bessel_K1.c", "gsl_sf_bessel_K1_e", "besselk(1, x)", []),
    ("bessel_K1.c", "gsl_sf_bessel_K1_scaled_e", "exp(x)*besselk(1, x)", []),
    ("bessel_i.c", "gsl_sf_bessel_i0_scaled_e", "exp(-abs(x))*sinh(x)/x", []),
    ("bessel_i.c", "gsl_sf_bessel_i1_scaled_e", "exp(-abs(x))*(cosh(x)/x - sinh(x)/x**2)", []),
    ("bessel_i.c", "gsl_sf_bessel_i2_scaled_e", "exp(-abs(x))*((3/x**2 + 1)*sinh(x)/x - 3*cosh(x)/x**2)", []),
    ("bessel_j.c", "gsl_sf_bessel_j0_e", "sin(x)/x", []),
    ("bessel_j.c", "gsl_sf_bessel_j1_e", "sin(x)/x**2 - cos(x)/x", []),
    ("bessel_j.c", "gsl_sf_bessel_j2_e", "(3/x**2 - 1)*sin(x)/x - 3*cos(x)/x**2", []),
    ("bessel_k.c", "gsl_sf_bessel_k0_scaled_e", "pi/(2*x)", []),
    ("bessel_k.c", "gsl_sf_bessel_k1_scaled_e", "pi/(2*x)*(1 + 1/x)", []),
    ("bessel_k.c", "gsl_sf_bessel_k2_scaled_e", "pi/(2*x)*(1 + 3/x + 3/x**2)", []),
    ("bessel_y.c", "gsl_sf_bessel_y0_e", "-cos(x)/x", []),
    ("bessel_y.c", "gsl_sf_bessel_y1_e", "-cos(x)/x**2 - sin(x)/x", []),
    ("bessel_y.c", "gsl_sf_bessel_y2_e", "(-3/x**3 + 1/x)*cos(x) - 3*sin(x)/x**2", []),
    ("erfc.c", "gsl_sf_log_erfc_e", "log(erfc(x))", []),
    ("erfc.c", "gsl_sf_erf_Z_e", "npdf(x)", []),
    ("erfc.c", "gsl_sf_erf_Q_e", "ncdf(-x)", []),
    ("erfc.c", "gsl_sf_hazard_e", "npdf(x)/ncdf(-x)", []),
    ("exp.c", "gsl_sf_exp_e", "exp(x)", []),
    ("exp.c", "gsl_sf_expm1_e", "expm1(x)", []),
    ("exp.c", "gsl_sf_exprel_e", "expm1(x)/x", []),
    ("exp.c", "gsl_sf_exprel_2_e", "2*(expm1(x) - x)/x**2", []),
    ("expint.c", "gsl_sf_expint_E1_scaled_e", "re(exp(x)*e1(x))", []),
    ("expint.c", "gsl_sf_expint_E2_e", "re(expint(2, x))", []),
    ("expint.c", "gsl_sf_expint_E2_scaled_e", "re(exp(x)*expint(2, x))", []),
    ("expint.c", "gsl_sf_expint_Ei_scaled_e", "exp(-x)*ei(x)", []),
    ("expint3.c", "gsl_sf_expint_3_e", "gammainc(mpf(1)/3, 0, x**3)/3", []),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_m1_e", "1/(1 + exp(-x))", []),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_0_e", "log1p(exp(x))", []),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_1_e", "-polylog(2, -exp(x))", []),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_2_e", "-polylog(3, -exp(x))", []),
    ("gamma.c", "gsl_sf_gamma_e", "gamma(x)", []),
    ("gamma.c", "gsl_sf_gammastar_e", "gamma(x)/(sqrt(2*pi)*x**(x - 0.5)*exp(-x))", []),
    ("gamma.c", "gsl_sf_gammainv_e", "rgamma(x)", []),
    ("lambert.c", "gsl_sf_lambert_Wm1_e", "re(lambertw(x, -1))", []),
    ("legendre_Qn.c", "gsl_sf_legendre_Q0_e", "atanh(x) if abs(x) < 1 else acoth(x)", []),
    ("legendre_Qn.c", "gsl_sf_legendre_Q1_e", "x*(atanh(x) if abs(x) < 1 else acoth(x)) - 1", []),
    ("log.c", "gsl_sf_log_e", "log(x)", []),
    ("log.c", "gsl_sf_log_abs_e", "log(abs(x))", []),
    ("log.c", "gsl_sf_log_1plusx_mx_e", "log1p(x) - x", []),
    # mpmath's psi(1, x) takes minutes at 110 digits far from 0; there three terms of
    # the asymptotic expansion are exact to 1e-26, and the reflection serves x < 0.
    ("psi.c", "gsl_sf_psi_1_e",
     "psi(1, x) if abs(x) <= 1e6 else (1/x + 1/(2*x**2) + 1/(6*x**3) if x > 0 else "
     "pi**2/sinpi(x)**2 - (1/(1-x) + 1/(2*(1-x)**2) + 1/(6*(1-x)**3)))", []),
    ("psi.c", "gsl_sf_psi_1piy_e", "re(digamma(1 + j*x))", []),
    ("shint.c", "gsl_sf_Shi_e", "shi(x)", []),
    ("shint.c", "gsl_sf_Chi_e", "chi(x)", []),
    ("sincos_pi.c", "gsl_sf_sin_pi_e", "sinpi(x)", []),
    ("sincos_pi.c", "gsl_sf_cos_pi_e", "cospi(x)", []),
    ("trig.c", "gsl_sf_sin_e", "sin(x)", []),
    ("trig.c", "gsl_sf_cos_e", "cos(x)", []),
    ("trig.c", "gsl_sf_sinc_e", "sinpi(x)/(pi*x) if x != 0 else mpf(1)", []),
    ("trig.c", "gsl_sf_lnsinh_e", "log(sinh(x))", []),
    ("trig.c", "gsl_sf_lncosh_e", "log(cosh(x))", []),
    ("zeta.c", "gsl_sf_zetam1_e", "zeta(x) - 1", []),
    ("zeta.c", "gsl_sf_eta_e", "altzeta(x)", []),
    # The rest of the 88 functions ATOMU and FPCC report on.
    ("ellint.c", "gsl_sf_ellint_Kcomp_e", "ellipk(x**2)", ["mode = 0"]),
    ("ellint.c", "gsl_sf_ellint_Ecomp_e", "ellipe(x**2)", ["mode = 0"]),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_mhalf_e", "re(-polylog(mpf(1)/2, -exp(x)))", []),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_half_e", "re(-polylog(mpf(3)/2, -exp(x)))", []),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_3half_e", "re(-polylog(mpf(5)/2, -exp(x)))", []),
    ("legendre_poly.c", "gsl_sf_legendre_P1_e", "legendre(1, x)", []),
    ("legendre_poly.c", "gsl_sf_legendre_P2_e", "legendre(2, x)", []),
    ("legendre_poly.c", "gsl_sf_legendre_P3_e", "legendre(3, x)", []),
    ("synchrotron.c", "gsl_sf_synchrotron_2_e", "x*besselk(mpf(2)/3, x)", []),
]

JUDGE = r'''
import json, signal, sys
from mpmath import mp, mpf
import mpmath
mp.dps = 110
expr, xs = json.loads(sys.stdin.read())
out = []


def too_slow(*_):
    raise TimeoutError("mpmath took over 30 s")


signal.signal(signal.SIGALRM, too_slow)
for x in xs:
    # Some expressions (psi(1, x) at 1e300) take mpmath minutes: judged as errors.
    signal.alarm(30)
    try:
        # The exact double: a decimal text of it would be another number at 110 digits.
        v = eval(expr, {**{k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}, "x": mpf(float.fromhex(x))})
        out.append(mpmath.nstr(v, 40) if mpmath.isfinite(v) else str(v))
    except Exception as e:
        out.append("error: " + str(e))
    signal.alarm(0)
print(json.dumps(out))
'''


# Reads the artifact's tables (old-style .xls) in the venv, where xlrd is installed.
TABLES = r'''
import json, sys, xlrd
rows = {}
for path in sys.argv[1:]:
    sheet = xlrd.open_workbook(path).sheet_by_index(0)
    head = [sheet.cell_value(1, c) for c in range(sheet.ncols)]
    # Columns come in pairs under a title in row 0: (FPCC, ATOMU).
    maxcol = [sheet.cell_value(0, c) for c in range(sheet.ncols)].index("Max RelErr")
    for r in range(2, sheet.nrows):
        name = sheet.cell_value(r, 0)
        if name:
            rows[name] = {head[maxcol]: sheet.cell_value(r, maxcol),
                          head[maxcol + 1]: sheet.cell_value(r, maxcol + 1)}
print(json.dumps(rows))
'''


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{r.stderr}")
    return r.stdout.strip()


def mpmath_python():
    py = VENV / "bin" / "python"
    if not py.exists():
        sh([sys.executable, "-m", "venv", str(VENV)])
        sh([str(py), "-m", "pip", "install", "-q", "mpmath"])
    return py


def literature(directory, py):
    """The paper's per-function figures and FPCC's reported inputs, by GSL name (`airy_Ai`)."""
    tables = [directory / "result_analysis" / f for f in ("res_table_FPCC.xls", "res_table_FPCC_NoErr.xls")]
    tables = [t for t in tables if t.exists()]
    if not tables:
        sys.exit(f"{directory}: no result_analysis/res_table_FPCC*.xls (a checkout of FPCC's artifact?)")
    sh([str(py), "-m", "pip", "install", "-q", "xlrd"])
    figures = json.loads(sh([str(py), "-c", TABLES, *map(str, tables)]))
    inputs = {}
    outputs = directory / "fpcc_output.json"
    readme = directory / "README.md"
    if outputs.exists() and readme.exists():
        # The README's function list gives each function's index in fpcc_output.json.
        index = {}
        for line in readme.read_text().splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and cells[0].startswith("gsl_sf_") and cells[1].isdigit():
                index[cells[1]] = cells[0][len("gsl_sf_"):]
        for key, run in json.loads(outputs.read_text()).items():
            if key in index:
                inputs[index[key]] = [float(i["input"]) for i in run["input_list"]]
    return {name: {"ATOMU": row.get("ATOMU"), "FPCC": row.get("FPCC"), "inputs": inputs.get(name)}
            for name, row in figures.items()} | {
        name: {"ATOMU": None, "FPCC": None, "inputs": xs} for name, xs in inputs.items() if name not in figures}


def native_gsl():
    try:
        lib = ctypes.CDLL(LIBGSL)
    except OSError:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        sh(sudo + ["apt-get", "install", "-y", "-qq", "libgsl-dev"])
        lib = ctypes.CDLL(LIBGSL)
    lib.gsl_set_error_handler_off()
    return lib


class Result(ctypes.Structure):
    _fields_ = [("val", ctypes.c_double), ("err", ctypes.c_double)]


def gsl_value(lib, func, x, extra):
    f = getattr(lib, func)
    r = Result()
    args = [ctypes.c_double(x)] + [ctypes.c_uint(0) for _ in extra] + [ctypes.byref(r)]
    status = f(*args)
    return r.val, status


def to_double(hex_bits):
    return struct.unpack("<d", struct.pack("<Q", int(hex_bits, 16)))[0]


def true_errors(py, lib, func, expr, extra, xs):
    """Per input, GSL's true relative error against mpmath (None where mpmath has no finite
    real value): in 60-digit decimal, from mpmath's 40 digits rather than their double, so
    that an error below half an ulp of the result is measured, not rounded to 0 (a
    Decimal, not a Fraction: values such as erfc's 1e-400000 are out of any binary range).
    At a true zero any nonzero result is infinitely wrong."""
    truths = json.loads(sh([str(py), "-c", JUDGE], input=json.dumps([expr, [x.hex() for x in xs]])))
    errors = []
    for x, t in zip(xs, truths):
        try:
            truth = Decimal(t)
        except InvalidOperation:
            truth = None
        if truth is None or not truth.is_finite():
            errors.append(None)
            continue
        value, _ = gsl_value(lib, func, x, extra)
        if not math.isfinite(value):
            errors.append(math.inf)
        elif truth == 0:
            errors.append(0.0 if value == 0 else math.inf)
        else:
            with localcontext() as ctx:
                ctx.prec = 60
                errors.append(float(abs((Decimal(value) - truth) / truth)))
    return errors


def run_fpforge(fpforge, gsl, file, func, extra, budget, seed, out):
    dirs = [gsl / d for d in ("specfunc", "sys", "complex", "poly")] + [REPO / "bench/libs/host/gsl"]
    cmd = [str(fpforge), "accuracy", str(gsl / "specfunc" / file), "-f", func, "-I", str(gsl),
           *budget, "--seed", str(seed), "--oracle", "auto", "--out", str(out), "--json"]
    for d in dirs:
        cmd += ["--lib-dir", str(d)]
    for a in extra:
        cmd += ["--arg", a]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 3):
        return None, (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
    return json.loads(r.stdout), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--evals", type=int, default=20000)
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds per function instead of an --evals budget")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "fpforge-gsl-bench")
    ap.add_argument("--rejudge", action="store_true",
                    help="judge the reports an earlier run left in --out instead of running fpforge")
    ap.add_argument("--literature", type=Path, default=None,
                    help="a checkout of FPCC's artifact: compare with ATOMU's and FPCC's figures")
    opts = ap.parse_args()
    if not opts.fpforge.exists():
        sys.exit(f"{opts.fpforge} not found: cargo build --release -p fpforge-cli")
    only = set(filter(None, opts.only.split(",")))
    sh([REPO / "bench/accuracy/fetch.sh"])
    gsl = Path(sh([REPO / "bench/source.sh", "gsl"]))
    py = mpmath_python()
    lib = native_gsl()
    papers = literature(opts.literature, py) if opts.literature else None
    compared = []
    print(f"| function | oracle | reported | largest true rel error | significant (>= 1e-3) "
          f"| significant or labelled below | reported within 2x of true | wrong special values | poles "
          f"| zeros/poles located | evals | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for file, func, expr, extra in FUNCTIONS:
        if only and func not in only:
            continue
        out = opts.out / func
        if opts.rejudge:
            saved = out / "report.json"
            report, error = (json.loads(saved.read_text()), None) if saved.exists() else (None, f"no {saved}")
        else:
            shutil.rmtree(out, ignore_errors=True)
            # An --evals run must end by its budget, not by accuracy's default 10 s.
            budget = (["--time-limit", str(opts.time_limit)] if opts.time_limit is not None
                      else ["--evals", str(opts.evals), "--time-limit", "3600"])
            report, error = run_fpforge(opts.fpforge, gsl, file, func, extra, budget, opts.seed, out)
        if report is None:
            print(f"| {func} | error: {error} | | | | | | | | | | |", flush=True)
            continue
        specials = report.get("special_values", [])
        rows = specials + report.get("top", [])
        xs = [to_double(r["coords"][0]) for r in rows]
        largest, significant, accounted, within, judged = 0.0, 0, 0, 0, 0
        for row, true_rel in zip(rows, true_errors(py, lib, func, expr, extra, xs)):
            if true_rel is None:
                continue
            judged += 1
            largest = max(largest, true_rel)
            significant += true_rel >= 1e-3
            accounted += true_rel >= 1e-3 or row.get("significance") == "below_threshold"
            reported = row.get("rel_error")
            if reported is not None and true_rel > 0 and 0.5 <= reported / true_rel <= 2.0:
                within += 1
            elif reported is None and not math.isfinite(true_rel):
                within += 1
        if papers is not None:
            compared.append(compare(papers, py, lib, func, expr, extra, largest if judged else None))
        kinds = [s["kind"] for s in specials]
        share = lambda n: f"{n}/{judged}" if judged else "-"
        located = (f"{report['zeros_found']}/{report['poles_found']}" if "zeros_found" in report else "-")
        print(f"| {func} | {report.get('oracle', '-')} | {len(rows)} | {largest:.3g} | {share(significant)} "
              f"| {share(accounted)} | {share(within)} | {kinds.count('wrong special value')} "
              f"| {kinds.count('pole')} | {located} | {report.get('evals', '-')} "
              f"| {report.get('elapsed_s', 0):.1f} |",
              flush=True)

    if papers is not None:
        print_comparison(compared)


def compare(papers, py, lib, func, expr, extra, fpforge):
    """One row of the literature table: the paper's figures, FPCC's inputs judged on this GSL."""
    name = func[len("gsl_sf_"):-len("_e")]
    paper = papers.get(name, {"ATOMU": None, "FPCC": None, "inputs": None})
    fpcc_true = None
    if paper["inputs"]:
        errors = [e for e in true_errors(py, lib, func, expr, extra, paper["inputs"]) if e is not None]
        fpcc_true = max(errors, default=None)
    # FPCC's inputs judged on this GSL stand for its paper figure where the checkout has
    # them: a finding on GSL 2.5 that 2.7.1 fixed is no finding here.
    fpcc_here = fpcc_true if paper["inputs"] is not None else paper["FPCC"]
    known = [v for v in (paper["ATOMU"], fpcc_here) if isinstance(v, float)]
    # No judged input at all counts as 0: where neither tool reports an error either.
    found = fpforge or 0.0
    if not known:
        verdict = "-"
    elif found >= max(known):
        verdict = "at least"
    elif found >= 0.5 * max(known):
        verdict = "within 2x"
    else:
        verdict = "below"
    return (func, fpforge, paper["ATOMU"], paper["FPCC"], fpcc_true,
            len(paper["inputs"]) if paper["inputs"] is not None else None, verdict)


def print_comparison(rows):
    fmt = lambda v: "-" if not isinstance(v, float) else f"{v:.3g}"
    print()
    print("| function | fpforge: largest true rel error | ATOMU (paper, GSL 2.5) | FPCC (paper, GSL 2.5) "
          "| FPCC's inputs on this GSL (true) | FPCC inputs | fpforge reaches the largest |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for func, fpforge, atomu, fpcc, fpcc_true, n, verdict in rows:
        print(f"| {func} | {fmt(fpforge)} | {fmt(atomu)} | {fmt(fpcc)} | {fmt(fpcc_true)} "
              f"| {'-' if n is None else n} | {verdict} |")
    verdicts = [r[-1] for r in rows]
    print(f"\n{len(rows)} functions: {verdicts.count('at least')} at least the largest either tool "
          f"reports, {verdicts.count('within 2x')} within 2x, {verdicts.count('below')} below, "
          f"{verdicts.count('-')} without figures")


if __name__ == "__main__":
    main()
