#!/usr/bin/env python3
"""Exhaustive binary32 accuracy of musl 1.2.3's one-argument float functions:
`fpforge accuracy src/math/F.c -f F --exhaustive --jobs N` on every function named (all
2^32 inputs, or --range), and an independent check of each result.

The independent check runs in this script, outside fpforge: the function built natively
(gcc -O2, musl's own sources, the files fpforge linked) and called through ctypes on
10^6 random inputs (seed 1, uniform over the range's bit patterns, NaNs skipped), each
judged by gmpy2's MPFR (its own build, from PyPI, in a venv in the corpus cache) at 128
bits: the largest error of the sample must not exceed the exhaustive one, and the
exhaustive run's worst input must give, natively, the computed bits and (to 1e-9) the
ulp error fpforge reported. musl comes from the corpus cache (bench/source.sh);
nothing third-party enters the repository.

    bench/accuracy/exhaustive.py                      # every function below, --jobs 2
    bench/accuracy/exhaustive.py expf logf --jobs 2   # some of them
    bench/accuracy/exhaustive.py j0f --range 0x3f800000..0x3fffffff
    bench/accuracy/exhaustive.py --markdown table.md  # the table as docs/BENCHMARKS.md has it

Needs a release build (cargo build --release -p fpforge-cli).
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "findings"))
import libs  # noqa: E402

REPO = libs.REPO
BUILD = libs.CORPUS / "build" / "exhaustive"
VENV = libs.CORPUS / "build" / "exhaustive-venv"

FUNCTIONS = ["expf", "exp2f", "exp10f", "expm1f", "logf", "log2f", "log10f", "log1pf",
             "sinf", "cosf", "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf",
             "asinhf", "acoshf", "atanhf", "cbrtf", "erff", "erfcf",
             "lgammaf", "tgammaf", "j0f", "j1f", "y0f", "y1f"]

# The musl source file of the functions that share one.
SOURCE = {"erfcf": "erff", "y0f": "j0f", "y1f": "j1f"}

# gmpy2's name of each function's true value.
TRUE = {"exp10f": "exp10", "lgammaf": "lgamma", "tgammaf": "gamma"}


def ensure_venv():
    """Re-runs this script in the venv that has gmpy2 (made on first use)."""
    try:
        import gmpy2  # noqa: F401
        return
    except ImportError:
        pass
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "gmpy2"], check=True)
    os.execv(py, [str(py)] + sys.argv)


def run_fpforge(name, flags, args, out):
    """fpforge's exhaustive run: (exhaustive.json, seconds, linked library files)."""
    src = libs.root("musl") / "src/math" / f"{SOURCE.get(name, name)}.c"
    cmd = [REPO / "target/release/fpforge", "accuracy", src, "-f", name, *flags,
           "--exhaustive", "--jobs", str(args.jobs), "--out", out, "--json"]
    if args.range:
        cmd += ["--range", args.range]
    start = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    seconds = (time.time() - start, cpu, os.getloadavg()[0])
    if r.returncode != 0:
        raise RuntimeError(f"{name}: {r.stderr.strip()[-600:]}")
    linked = []
    for line in r.stderr.splitlines():
        if line.startswith("note: linked from the library: "):
            linked += line.split(": ", 2)[2].split(", ")
    return json.loads(r.stdout), seconds, [src] + linked


def native_lib(name, sources, gcc):
    """The function built natively as a shared object (symbols bound inside it)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    so = BUILD / f"{name}.so"
    libs.sh(["gcc", "-O2", "-shared", "-fPIC", "-Wl,-Bsymbolic", *gcc, *sources, "-o", so])
    import ctypes
    lib = ctypes.CDLL(str(so))
    f = getattr(lib, name)
    f.restype = ctypes.c_float
    f.argtypes = [ctypes.c_float]
    return f


def bits_to_float(b):
    import struct
    return struct.unpack("<f", struct.pack("<I", b))[0]


def float_to_bits(x):
    import struct
    return struct.unpack("<I", struct.pack("<f", x))[0]


class Judge:
    """The true value in gmpy2 (MPFR at 128 bits): correctly rounded float and ulp error."""

    def __init__(self, name):
        import gmpy2
        self.g = gmpy2
        gmpy2.get_context().precision = 128
        gmpy2.get_context().emin = -100000
        gmpy2.get_context().emax = 100000
        self.fn = getattr(gmpy2, TRUE.get(name, name[:-1]))

    def truth(self, x):
        v = self.fn(self.g.mpfr(x))
        return v[0] if isinstance(v, tuple) else v

    def to_single(self, t):
        """t rounded to nearest (ties to even) in binary32, subnormals and overflow too."""
        g = self.g
        if abs(t) < 2 ** -126:
            return float(g.rint(t * 2 ** 149) / 2 ** 149) if t != 0 else float(t)
        r = g.mpfr(t, 24)
        return float(r) if abs(r) < 2 ** 128 else float("inf") * (1 if t > 0 else -1)

    def judge(self, x, y):
        """(correctly rounded, ulp error or None when not both finite)."""
        g = self.g
        t = self.truth(x)
        if g.is_nan(t):
            return (y != y), None
        same = float_to_bits(self.to_single(t)) == float_to_bits(y)
        if g.is_infinite(t) or y != y or y in (float("inf"), float("-inf")):
            return same, None
        e = max(g.get_exp(t), -125) if t != 0 else -125
        return same, float(abs(g.mpfr(y) - t) / g.mpfr(2) ** (e - 24))


def independent_check(name, native, result, lo, hi, samples):
    """The sample's largest error and incorrectly rounded count, and whether the worst
    input reproduces natively."""
    judge = Judge(name)
    rng = random.Random(1)
    worst, wrong, n = 0.0, 0, 0
    while n < samples:
        b = rng.randint(lo, hi)
        x = bits_to_float(b)
        if x != x:
            continue
        n += 1
        y = native(x)
        ok, ulps = judge.judge(x, y)
        wrong += not ok
        if ulps is not None:
            worst = max(worst, ulps)
    top = result["tally"]["max"]
    reproduced = None
    if top:
        case = top["inputs"][0]
        x = bits_to_float(int(case["input"], 16))
        y = native(x)
        _, ulps = judge.judge(x, y)
        reproduced = (float_to_bits(y) == int(case["computed"], 16)
                      and ulps is not None and abs(ulps - top["ulps"]) <= 1e-9 * top["ulps"])
    return worst, wrong, n, reproduced


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("functions", nargs="*", default=FUNCTIONS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--range", help="LO..HI as bit patterns (0x and 8 hex digits)")
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--out", default=str(BUILD / "out"))
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args()
    ensure_venv()
    ff, gcc, _ = libs.flags("musl", BUILD)
    ff = [str(f) for f in ff] + ["--lib-dir", str(libs.root("musl") / "src/math")]
    lo, hi = 0, 0xFFFFFFFF
    if args.range:
        a, b = args.range.split("..")
        lo, hi = int(a, 16), int(b, 16)
    rows = ["| function | largest error (ulps) | input | incorrectly rounded | wrong special | judged by | wall s | CPU s | load | sample of 10^6: largest, incorrectly rounded | worst input natively |",
            "|---|---:|---|---:|---:|---|---:|---:|---:|---|---|"]
    print(rows[0], flush=True)
    print(rows[1], flush=True)
    for name in args.functions:
        try:
            result, seconds, sources = run_fpforge(name, ff, args, Path(args.out) / name)
            native = native_lib(name, sources, gcc)
            worst, wrong, n, reproduced = independent_check(name, native, result, lo, hi, args.samples)
        except RuntimeError as e:
            row = f"| {name} | error: {str(e)[:200]} | | | | | | | | | |"
            print(row, flush=True)
            rows.append(row)
            continue
        t = result["tally"]
        top = t["max"]
        ulps = f"{top['ulps']:.4f}" if top else "-"
        at = top["inputs"][0]["input"] + (f" (+{top['count'] - 1})" if top and top["count"] > 1 else "") if top else "-"
        exact = "" if t["exact"] else " (not exact)"
        ok = "yes" if worst <= (top["ulps"] if top else 0) + 1e-9 else "NO"
        row = (f"| {name} | {ulps}{exact} | {at} | {t['incorrectly_rounded']:,} | {t['wrong_special_values']['count']:,} | "
               f"{'MPFR' if result['judged_by'].startswith('MPFR') else 'fast path'} | "
               f"{seconds[0]:.0f} | {seconds[1]:.0f} | {seconds[2]:.1f} | "
               f"{worst:.4f} ({ok} <= largest), {wrong:,} of {n:,} | {'yes' if reproduced else reproduced} |")
        print(row, flush=True)
        rows.append(row)
    if args.markdown:
        Path(args.markdown).write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
