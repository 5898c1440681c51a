#!/usr/bin/env python3
"""Differential of `fpforge run` against a gfortran -O0 build on SciPy 1.10.1's Fortran
routines (SPECFUN, AMOS, CDFLIB, QUADPACK, MINPACK).

SciPy's sdist is fetched from PyPI at run time with pip into
~/.cache/fpforge-corpus/scipy-1.10.1-sdist (pip's metadata step needs meson and fails,
so the unpacked tree is taken from pip's kept temporary directory); nothing of it is
committed.

For each routine (a SUBROUTINE or a DOUBLE PRECISION, REAL or INTEGER FUNCTION without
CHARACTER arguments; procedure arguments only where QUADPACK takes an integrand, for
which a fixed C integrand is passed), a C driver `main` calls it on N inputs: every
argument is a buffer of 256 elements of its type, element 0 the input (special values
first, then random ones: doubles log-uniform in magnitude with a random sign, integers
in 1..4), the rest a fixed pattern; after each call it prints the result's bits and a
hash of every buffer (NaNs hashed as one NaN: payloads aside). The same driver runs
under `fpforge run DRIVER.c SOURCES -f main` and as a native program linked with the
gfortran -O0 objects of the same Fortran sources; their outputs are compared line by
line. A run cut short on both sides (a native time-out, fpforge's fuel) compares the
lines both printed.

Usage: bench/fortran/run.py [--fpforge PATH] [--inputs N] [--only NAME,...]
"""

import argparse
import glob
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("FPFORGE_CORPUS", Path.home() / ".cache/fpforge-corpus"))
SDIST = CORPUS / "scipy-1.10.1-sdist"

# library: (directory under the sdist, the files every routine of it is linked with)
LIBS = {
    "specfun": ("scipy/special/specfun", ["specfun.f"]),
    "amos": ("scipy/special/amos", ["*.f", "../mach/d1mach.f", "../mach/i1mach.f"]),
    "cdflib": ("scipy/special/cdflib", ["*.f"]),
    "quadpack": ("scipy/integrate/quadpack", ["*.f", "../../special/mach/d1mach.f", "../../special/mach/i1mach.f",
                                              "../../special/mach/xerror.f"]),
    "minpack": ("scipy/optimize/minpack", ["*.f"]),
}

# The routines measured, per library (the issue asks for at least 40).
ROUTINES = {
    "specfun": ["gamma2", "psi_spec", "e1xb", "e1xa", "eix", "jy01a", "jy01b", "ik01a", "ik01b",
                "itjya", "itjyb", "ittjya", "ittjyb", "itika", "itikb", "ittika", "ittikb",
                "stvh0", "stvh1", "stvl0", "stvl1", "itsh0", "itth0", "itsl0", "cisia", "cisib",
                "fcs", "airya", "airyb", "klvna", "lgama", "chgm", "chgu", "hygfx", "itairy",
                "cerror", "comelp", "cjk", "beta", "lpmv0", "gmn", "cgama", "e1z"],
    "amos": ["zbesj", "zbesy", "zbesi", "zbesk", "zairy", "zbiry", "dgamln", "zabs", "zdiv",
             "zsqrt", "zexp", "zlog", "zbesh"],
    "cdflib": ["cumnor", "cumt", "cumchi", "cumgam", "cumbet", "cumpoi", "cumbin", "cumf",
               "alngam", "gamma_fort", "psi_fort", "erf", "erfc1", "rlog1", "alnrel", "betaln",
               "gamln", "gamln1", "algdiv", "rexp", "gam1", "dinvnr", "stvaln", "devlpl",
               "esum", "exparg", "bcorr", "gsumln", "rcomp", "brcomp", "bratio", "grat1",
               "gratio", "cdfnor", "cdft", "cdfchi", "cdfgam", "cdfbet", "cdfpoi", "cdfbin"],
    "quadpack": ["dqk15", "dqk21", "dqk31", "dqk41", "dqk51", "dqk61", "dqng", "dqags", "dqag",
                 "dqk15i", "dqagi"],
    "minpack": ["enorm", "dpmpar", "qrsolv", "r1mpyq", "qform", "qrfac", "rwupdt", "lmpar",
                "dogleg", "r1updt"],
}

SPECIAL_DOUBLES = [0.0, 1.0, -1.0, 0.5, 2.0, 10.0, -0.0, 1e-10, 100.0, 3.5]
NATIVE_TIMEOUT = 60


def sh(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def fetch_sdist():
    """SciPy 1.10.1's sdist, unpacked into the corpus cache (once)."""
    if (SDIST / "scipy/special/specfun/specfun.f").exists():
        return SDIST
    tmp = Path(tempfile.mkdtemp(prefix="fpforge-pip-"))
    env = dict(os.environ, TMPDIR=str(tmp))
    sh([sys.executable, "-m", "pip", "download", "scipy==1.10.1", "--no-binary", ":all:",
        "--no-deps", "--no-build-isolation", "--no-clean", "-d", tmp / "dl"], env=env)
    found = glob.glob(str(tmp / "pip-download-*" / "scipy_*" / "scipy" / "special" / "specfun"))
    if not found:
        sys.exit("bench/fortran: pip did not unpack scipy==1.10.1's sdist")
    tree = Path(found[0]).parents[2]
    SDIST.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(tree, SDIST)
    shutil.rmtree(tmp, ignore_errors=True)
    return SDIST


def sources(lib):
    sub, patterns = LIBS[lib]
    base = SDIST / sub
    files = []
    for p in patterns:
        files += sorted(glob.glob(str(base / p)))
    return sorted({str(Path(f).resolve()) for f in files})


PROTO = re.compile(r"^(?:/\* Subroutine \*/ )?(int|doublereal|real|integer|logical|void|double)\s+(\w+)_\((.*?)\)\s*$", re.S)


def prototypes(files, work):
    """The C prototypes f2c writes for the routines of `files`: name -> (result, [type])."""
    out = {}
    d = work / "f2c"
    d.mkdir(exist_ok=True)
    for f in files:
        if not f.endswith(".f"):
            continue
        text = Path(f).read_text(errors="replace")
        text = re.sub(r"(?im)^(\s+)recursive(\s)", r"\1         \2", text)
        src = d / Path(f).name
        src.write_text(text)
        sh(["f2c", "-a", "-R", f"-d{d}", src])
        c = d / (src.stem + ".c")
        if not c.exists():
            continue
        ctext = c.read_text(errors="replace")
        for m in re.finditer(r"^(?:/\* Subroutine \*/ )?(\w+) (\w+?)_{1,2}\(([^)]*)\)\n\{", ctext, re.M):
            ret, name, params = m.group(1), m.group(2), m.group(3)
            types = []
            for p in [p.strip() for p in params.replace("\n", " ").split(",") if p.strip()]:
                types.append(re.sub(r"\s", "", re.match(r"(.*?)\w+$", p).group(1)))
            out[name] = (ret, types)
    return out


C_TYPES = {"doublereal*": ("double", 8), "real*": ("float", 4), "integer*": ("int", 4),
           "logical*": ("int", 4), "doublecomplex*": ("double", 8), "complex*": ("float", 4)}


def values(types, n, seed):
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        row = []
        for j, t in enumerate(types):
            if C_TYPES[t][0] == "int":
                row.append(str(rng.randint(1, 4)))
            elif k < len(SPECIAL_DOUBLES):
                row.append(repr(SPECIAL_DOUBLES[(k + j) % len(SPECIAL_DOUBLES)]))
            else:
                mag = 10 ** rng.uniform(-3, 3)
                row.append(repr(mag if rng.random() < 0.6 else -mag))
        rows.append(row)
    return rows


def driver(name, ret, types, n, seed):
    """The C driver of one routine (see the module docs)."""
    decl_params = []
    for t in types:
        decl_params.append("double (*)(double *)" if t == "D_fp" else C_TYPES[t][0] + " *")
    # A SUBROUTINE is `int` in f2c's C (its alternate return), void in gfortran's: the
    # result is not compared.
    cret = {"doublereal": "double", "real": "float", "integer": "int", "logical": "int"}.get(ret, "int")
    sym = name + ("__" if "_" in name else "_")
    lines = ["#include <stdio.h>", "#include <string.h>",
             "#ifndef FPF_NATIVE",
             "#define fflush(stream) 0",
             "#endif",
             f"extern {cret} {sym}({', '.join(decl_params)});",
             "static double integrand_(double *x) { return 1.0 / (1.0 + *x * *x) + *x * *x; }",
             "static unsigned long long hash(const void *p, int n, int elem, int isfloat) {",
             "  unsigned long long h = 1469598103934665603ULL; const unsigned char *b = p;",
             "  for (int i = 0; i < n; i += elem) {",
             "    unsigned char tmp[8]; memcpy(tmp, b + i, elem);",
             "    if (isfloat && elem == 8) { double d; memcpy(&d, tmp, 8); if (d != d) { d = __builtin_nan(\"\"); memcpy(tmp, &d, 8); } }",
             "    if (isfloat && elem == 4) { float f; memcpy(&f, tmp, 4); if (f != f) { f = __builtin_nanf(\"\"); memcpy(tmp, &f, 4); } }",
             "    for (int k = 0; k < elem; k++) { h ^= tmp[k]; h *= 1099511628211ULL; }",
             "  }",
             "  return h;",
             "}"]
    for j, t in enumerate(types):
        if t != "D_fp":
            lines.append(f"static {C_TYPES[t][0]} b{j}[256];")
    rows = values([t for t in types if t != "D_fp"], n, seed)
    lines.append("int main(void) {")
    lines.append(f"  static const double in[{max(1, len(rows))}][{max(1, len(types))}] = {{")
    for row in rows:
        lines.append("    {" + ", ".join(row or ["0"]) + "},")
    lines.append("  };")
    lines.append(f"  for (int k = 0; k < {len(rows)}; k++) {{")
    col = 0
    for j, t in enumerate(types):
        if t == "D_fp":
            continue
        ctype = C_TYPES[t][0]
        lines.append(f"    for (int i = 0; i < 256; i++) b{j}[i] = ({ctype})((i * 37 % 11) + 1) / 4;")
        lines.append(f"    b{j}[0] = ({ctype})in[k][{col}];")
        col += 1
    args = ", ".join("integrand_" if t == "D_fp" else f"b{j}" for j, t in enumerate(types))
    if cret in ("double", "float"):
        lines.append(f"    double r = {sym}({args}); unsigned long long rb; memcpy(&rb, &r, 8);")
        lines.append("    if (r != r) rb = 0x7ff8000000000000ULL;")
    elif ret != "int":
        lines.append(f"    unsigned long long rb = (unsigned int){sym}({args});")
    else:
        lines.append(f"    {sym}({args}); unsigned long long rb = 0;")
    lines.append('    printf("%d %llx", k, rb);')
    for j, t in enumerate(types):
        if t == "D_fp":
            continue
        ctype, size = C_TYPES[t]
        isf = 0 if ctype == "int" else 1
        lines.append(f'    printf(" %llx", hash(b{j}, sizeof b{j}, {size}, {isf}));')
    lines.append('    printf("\\n"); fflush(stdout);')
    lines.append("  }")
    lines.append("  return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def native_objects(lib, files, work):
    """The gfortran -O0 objects of a library's files, as a static archive (so a routine
    links with what it calls only)."""
    out = work / f"native-{lib}"
    if out.exists():
        return [out / "lib.a"]
    out.mkdir()
    for f in files:
        text = Path(f).read_text(errors="replace")
        src = out / Path(f).name
        src.write_text(text)
        # -fsecond-underscore: f2c's names (`psi_spec__`) for names with an underscore.
        r = sh(["gfortran", "-O0", "-std=legacy", "-fsecond-underscore", "-c", src, "-o", out / (Path(f).stem + ".o")])
        if r.returncode != 0:
            print(f"  gfortran rejects {f}: {r.stderr.strip()[:200]}", file=sys.stderr)
    sh(["ar", "rcs", out / "lib.a", *sorted(out.glob("*.o"))])
    return [out / "lib.a"]


def measure(fpforge, lib, name, protos, files, work, n):
    if name not in protos:
        return ("no", 0, 0, "no such routine in these sources (or f2c rejects its file)")
    ret, types = protos[name]
    if any(t not in C_TYPES and t != "D_fp" for t in types):
        return ("-", 0, 0, "CHARACTER or procedure arguments: " + ", ".join(sorted(set(types) - set(C_TYPES))))
    if ret not in ("int", "doublereal", "real", "integer", "logical"):
        return ("-", 0, 0, f"returns {ret} (complex result)")
    d = work / f"{lib}-{name}"
    d.mkdir(exist_ok=True)
    drv = d / "driver.c"
    drv.write_text(driver(name, ret, types, n, hash(name) & 0xffff))
    exe = d / "native"
    objs = native_objects(lib, files, work)
    r = sh(["gfortran", "-O0", "-DFPF_NATIVE", drv, *objs, "-o", exe, "-lm"])
    if r.returncode != 0:
        undefined = sorted(set(re.findall(r"undefined reference to `([^']+)'", r.stderr)))
        return ("-", 0, 0, "native link failed: " + (("undefined " + ", ".join(undefined)) if undefined else r.stderr.strip()[-200:]))
    try:
        native = sh([exe], timeout=NATIVE_TIMEOUT).stdout
    except subprocess.TimeoutExpired as e:
        native = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    t0 = time.time()
    r = sh([fpforge, "run", drv, *files, "-f", "main", "--fuel", "4000000000"])
    ours = r.stdout
    if "stdout:" in ours or r.returncode not in (0, 3):
        pass
    lines = [l for l in ours.splitlines() if re.match(r"^\s*\d+ [0-9a-f]+( [0-9a-f]+)*$", l.strip())]
    if r.returncode != 0 and not lines:
        msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
        return ("no", 0, 0, (msg[0] if msg else "failed")[:150])
    nat = [l.strip() for l in native.splitlines()]
    got = [l.strip() for l in lines]
    common = min(len(nat), len(got))
    mism = sum(1 for a, b in zip(nat, got) if a != b)
    reason = ""
    if common < n:
        reason = f"compared {common} of {n}: native printed {len(nat)}, fpforge {len(got)}"
    return ("yes", common, mism, reason)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fpforge", default=str(REPO / "target/release/fpforge"))
    ap.add_argument("--inputs", type=int, default=24)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    fpforge = Path(args.fpforge).resolve()
    fetch_sdist()
    only = set(filter(None, args.only.split(",")))
    work = Path(tempfile.mkdtemp(prefix="fpforge-fortran-bench-"))
    rows = []
    start = time.time()
    for lib, names in ROUTINES.items():
        files = sources(lib)
        protos = prototypes(files, work)
        for name in names:
            if only and name not in only:
                continue
            loads, inputs, mism, reason = measure(fpforge, lib, name, protos, files, work, args.inputs)
            rows.append((lib, name, loads, inputs, mism, reason))
            print(f"{lib:9} {name:12} {loads:4} {inputs:4} {mism:4}  {reason}", flush=True)
    ok = [r for r in rows if r[2] == "yes"]
    print()
    print("| library | routine | loads | inputs | mismatches | note |")
    print("|---|---|---|---|---|---|")
    for lib, name, loads, inputs, mism, reason in rows:
        print(f"| {lib} | {name} | {loads} | {inputs} | {mism} | {reason} |")
    print()
    print(f"routines run: {len(ok)} of {len(rows)}; inputs compared: {sum(r[3] for r in ok)}; "
          f"mismatching inputs: {sum(r[4] for r in ok)}; routines with a mismatch: "
          f"{sum(1 for r in ok if r[4])}; {time.time() - start:.0f} s")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
