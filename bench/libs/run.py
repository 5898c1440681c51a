#!/usr/bin/env python3
"""Loads functions of real libraries the way a user names them: the function's own file,
the library's directories as `--lib-dir` and its include flags, in one `fpforge sites` run
with no other flag (issue 14). Prints two markdown tables (the ones in docs/BENCHMARKS.md).

Libraries: SciPy 1.10.1's Cephes (`scipy/special/cephes`) and GSL 2.7.1's special
functions (`specfunc`), both Debian bookworm source packages (`bench/source.sh`; GSL
configured by `bench/accuracy/fetch.sh` for its `config.h` and `gsl/` headers).

Each function is loaded twice:
- as shipped: Cephes with `--lib-dir cephes` (its error reporting, `sf_error`, is
  scipy's Python glue in `special/`, where `sf_error.c` and `sf_error.cc` both define
  it); GSL with `--lib-dir` on `specfunc`, `sys`, `complex`, `poly` and `err` (whose
  `gsl_error` prints through stdio);
- with C error reporting: the same, with the error reporting replaced by the small C
  files in `bench/libs/host/` (a `--lib-dir` of their own): what a C program that keeps
  the error code links.

The first run indexes the library directories into an empty cache (its time is printed
apart); every other time is a run with the index cached.

    bench/libs/run.py [--fpforge target/release/fpforge] [--only cephes_erfc,gsl_sf_psi_e]
"""

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOST = REPO / "bench/libs/host"
CORPUS = Path.home() / ".cache/fpforge-corpus"

# (file in cephes/, function): a spread over the library's families.
CEPHES = [
    ("ndtr.c", "cephes_ndtr"), ("ndtr.c", "cephes_erfc"), ("ndtri.c", "cephes_ndtri"),
    ("gamma.c", "cephes_Gamma"), ("gamma.c", "cephes_lgam"), ("psi.c", "cephes_psi"),
    ("beta.c", "cephes_beta"), ("j0.c", "cephes_j0"), ("j0.c", "cephes_y0"),
    ("j1.c", "cephes_j1"), ("i0.c", "cephes_i0"), ("k0.c", "cephes_k0"),
    ("k1.c", "cephes_k1"), ("ellpk.c", "cephes_ellpk"), ("ellpe.c", "cephes_ellpe"),
    ("dawsn.c", "cephes_dawsn"), ("expn.c", "cephes_expn"), ("zetac.c", "cephes_zetac"),
    ("spence.c", "cephes_spence"), ("incbet.c", "cephes_incbet"), ("igam.c", "cephes_igam"),
    ("struve.c", "cephes_struve_h"), ("airy.c", "cephes_airy"), ("sici.c", "cephes_sici"),
    ("kolmogorov.c", "cephes_smirnov"),
]

# (file in specfunc/, function).
GSL = [
    ("erfc.c", "gsl_sf_erfc_e"), ("erfc.c", "gsl_sf_erf_e"), ("gamma.c", "gsl_sf_gamma_e"),
    ("gamma.c", "gsl_sf_lngamma_e"), ("psi.c", "gsl_sf_psi_e"), ("beta.c", "gsl_sf_beta_e"),
    ("bessel_J0.c", "gsl_sf_bessel_J0_e"), ("bessel_J1.c", "gsl_sf_bessel_J1_e"),
    ("bessel_Y0.c", "gsl_sf_bessel_Y0_e"), ("bessel_I0.c", "gsl_sf_bessel_I0_e"),
    ("bessel_K0.c", "gsl_sf_bessel_K0_e"), ("bessel_j.c", "gsl_sf_bessel_j0_e"),
    ("airy.c", "gsl_sf_airy_Ai_e"), ("dawson.c", "gsl_sf_dawson_e"),
    ("zeta.c", "gsl_sf_zeta_e"), ("expint.c", "gsl_sf_expint_E1_e"),
    ("expint.c", "gsl_sf_expint_Ei_e"), ("sinint.c", "gsl_sf_Si_e"),
    ("dilog.c", "gsl_sf_dilog_e"), ("ellint.c", "gsl_sf_ellint_Kcomp_e"),
    ("lambert.c", "gsl_sf_lambert_W0_e"), ("log.c", "gsl_sf_log_1plusx_e"),
    ("clausen.c", "gsl_sf_clausen_e"), ("debye.c", "gsl_sf_debye_1_e"),
    ("fermi_dirac.c", "gsl_sf_fermi_dirac_1_e"),
]


def sh(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{r.stderr}")
    return r.stdout.strip()


class Library:
    """A library's source directory, its function files and the two configurations."""

    def __init__(self, name, src, funcs, includes, shipped, hosted):
        self.name, self.src, self.funcs = name, src, funcs
        self.includes, self.shipped, self.hosted = includes, shipped, hosted

    def flags(self, lib_dirs):
        out = []
        for d in lib_dirs:
            out += ["--lib-dir", str(d)]
        for d in self.includes:
            out += ["-I", str(d)]
        return out


def libraries():
    scipy = Path(sh([REPO / "bench/source.sh", "scipy"])) / "scipy/special"
    sh([REPO / "bench/accuracy/fetch.sh"])
    gsl = Path(sh([REPO / "bench/source.sh", "gsl"]))
    cephes = Library(
        "Cephes", scipy / "cephes", CEPHES,
        [scipy, scipy / "cephes", sysconfig.get_paths()["include"]],
        [scipy / "cephes"], [scipy / "cephes", HOST / "scipy"])
    gsl_dirs = [gsl / d for d in ("specfunc", "sys", "complex", "poly")]
    specfunc = Library(
        "GSL specfunc", gsl / "specfunc", GSL, [gsl],
        gsl_dirs + [gsl / "err"], gsl_dirs + [HOST / "gsl"])
    return [cephes, specfunc]


def load(fpforge, lib, file, func, lib_dirs, cache):
    """One `fpforge sites` run: (seconds, library files pulled in, error or None)."""
    cmd = [fpforge, "sites", lib.src / file, "-f", func] + lib.flags(lib_dirs)
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True,
                       env={**os.environ, "FPFORGE_CACHE_DIR": str(cache)})
    secs = time.monotonic() - start
    pulled = []
    error = None
    for line in r.stderr.splitlines():
        line = line.strip()
        if line.startswith("note: linked from the library: "):
            pulled = line.split(": ", 1)[1].split(", ")
        elif line.startswith("linked from the library: "):
            pulled = line.split(": ", 1)[1].split(", ")
        elif line.startswith("error: ") and error is None:
            error = describe_error(line[len("error: "):])
        elif error and error.startswith("cannot compile") and error.endswith(":") and "error:" in line:
            error += " " + line.split("error: ", 1)[1]
    if r.returncode != 0 and error is None:
        error = f"exit {r.returncode}: {r.stderr.strip()[:200]}"
    return secs, [Path(p).name for p in pulled], error


def describe_error(text):
    """The part of fpforge's first error line that names what is missing or unsupported."""
    if "may use what no input defines: " in text:
        text = text.split("may use what no input defines: ", 1)[1]
        return text.split(" (add the files", 1)[0]
    return text.replace(str(CORPUS) + "/", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--only", default="", help="comma-separated function names")
    ap.add_argument("--cache", type=Path, default=CORPUS / "build/libs/cache",
                    help="the library index (emptied first)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    shutil.rmtree(args.cache, ignore_errors=True)
    args.cache.mkdir(parents=True)
    for lib in libraries():
        funcs = [(f, n) for f, n in lib.funcs if not only or n in only]
        if not funcs:
            continue
        file, func = funcs[0]
        cold, _, _ = load(args.fpforge, lib, file, func, lib.hosted, args.cache)
        cold_shipped, _, _ = load(args.fpforge, lib, file, func, lib.shipped, args.cache)
        print(f"\n{lib.name}: first run (indexing the library into an empty cache) "
              f"{cold:.1f} s with C error reporting, then {cold_shipped:.1f} s as shipped.\n")
        print("| function | file | as shipped: missing | with C error reporting: files pulled in "
              "| load (s) | error |")
        print("|---|---|---|---|---:|---|")
        loads = shipped_loads = pulled_total = 0
        for file, func in funcs:
            _, _, shipped_error = load(args.fpforge, lib, file, func, lib.shipped, args.cache)
            secs, pulled, error = load(args.fpforge, lib, file, func, lib.hosted, args.cache)
            loads += error is None
            shipped_loads += shipped_error is None
            pulled_total += len(pulled)
            print(f"| {func} | {file} | {shipped_error or 'loads'} | {len(pulled)}: "
                  f"{', '.join(pulled) or '-'} | {secs:.2f} | {error or '-'} |")
        print(f"\n{lib.name}: {len(funcs)} functions; {shipped_loads} load as shipped, "
              f"{loads} with C error reporting ({pulled_total} library files pulled in "
              f"altogether).")


if __name__ == "__main__":
    main()
