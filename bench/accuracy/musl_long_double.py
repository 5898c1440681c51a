#!/usr/bin/env python3
"""fpforge accuracy on musl 1.2.3's `long double` functions (a `long double` result,
measured in extended ulps).

For every function of the list below: `fpforge accuracy src/math/FILE.c -f FUNC` with
musl's include flags (those of bench/cover), `--lib-dir src/math --lib-dir src/fenv`,
`--oracle auto` (MPFR's true function for a C library `*l` name) and a fixed `--evals`
budget and `--seed`. A call of a `long double` function defined in another file of
`src/math` (`__polevll`, `__fpclassifyl`, `__invtrigl_R`, ...) is not found through
`--lib-dir` (the lowering takes it for a C library call), so the script adds the file
defining it to the command line and tries again. Prints one markdown row per function: the oracle, the worst
input's relative and ulp error, the input, wrong special values and poles, evaluations
and wall time.

    bench/accuracy/musl_long_double.py [--evals 2000] [--seed 1] [--only expl,logl]
"""

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench/cover"))
from run import Musl  # noqa: E402  (bench/cover's musl tree: include paths and flags)

# (file in src/math, function).
FUNCTIONS = [
    ("expl.c", "expl"),
    ("exp2l.c", "exp2l"),
    ("expm1l.c", "expm1l"),
    ("logl.c", "logl"),
    ("log2l.c", "log2l"),
    ("log10l.c", "log10l"),
    ("log1pl.c", "log1pl"),
    ("sinl.c", "sinl"),
    ("cosl.c", "cosl"),
    ("tanl.c", "tanl"),
    ("asinl.c", "asinl"),
    ("acosl.c", "acosl"),
    ("atanl.c", "atanl"),
    ("sinhl.c", "sinhl"),
    ("coshl.c", "coshl"),
    ("tanhl.c", "tanhl"),
    ("asinhl.c", "asinhl"),
    ("acoshl.c", "acoshl"),
    ("atanhl.c", "atanhl"),
    ("cbrtl.c", "cbrtl"),
    ("erfl.c", "erfl"),
    ("erfl.c", "erfcl"),
    ("lgammal.c", "lgammal"),
    ("tgammal.c", "tgammal"),
    ("powl.c", "powl"),
    ("hypotl.c", "hypotl"),
    ("atan2l.c", "atan2l"),
]

CALLED = re.compile(r"call of `(\w+)` on long double")


def run(fpforge, tree, root, file, func, evals, seed):
    """The report of one function, the files it took and the wall time."""
    flags = ["--lib-dir", str(tree.math), "--lib-dir", str(root / "src/fenv")] + tree.fpforge_flags()
    files = [tree.math / file]
    while True:
        cmd = [str(fpforge), "accuracy", *map(str, files), "-f", func, *flags,
               "--evals", str(evals), "--seed", str(seed), "--json"]
        start = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - start
        called = CALLED.search(p.stderr)
        helper = called and tree.math / tree.defined_in.get(called.group(1), f"{called.group(1)}.c")
        if p.returncode != 0 and helper and helper.exists() and helper not in files:
            files.append(helper)
            continue
        if p.returncode != 0:
            return None, files, wall, p.stderr.strip().splitlines()[-1:] or ["failed"]
        return json.loads(p.stdout), files, wall, None


def row(func, report, files, wall, error):
    if report is None:
        return f"| `{func}` | does not load: {error[0]} | | | | | | | |"
    worst = report.get("worst") or {}
    specials = report.get("special_values", [])
    wrong = sum(1 for s in specials if s["kind"] == "wrong special value")
    poles = len(specials) - wrong
    rel = worst.get("rel_error")
    ulps = worst.get("ulp_error")
    shown = lambda x, f: "inf" if x is None else format(x, f)  # noqa: E731
    helpers = ", ".join(f.name for f in files[1:]) or "-"
    oracle = "re-execution" if report["oracle_kind"] == "re_execution" else report["oracle"]
    return (f"| `{func}` | {oracle} | {shown(rel, '.3e')} | {shown(ulps, '.3f')} | "
            f"{worst.get('input', '-')} | {wrong} / {poles} | {report['evals']:,} | {wall:.1f} s | {helpers} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--evals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="comma-separated functions")
    ap.add_argument("--build", type=Path, default=Path.home() / ".cache/fpforge-corpus/build/libs/musl")
    args = ap.parse_args()
    root = Path(subprocess.run([REPO / "bench/source.sh", "musl"], capture_output=True, text=True,
                               check=True).stdout.strip())
    tree = Musl(root, args.build)
    only = set(args.only.split(",")) if args.only else None
    print("| function | oracle | relative error | extended ulps | worst input | wrong special values / poles "
          "| evaluations | wall | files added |")
    print("|---|---|---:|---:|---|---:|---:|---:|---|")
    for file, func in FUNCTIONS:
        if only and func not in only:
            continue
        print(row(func, *run(args.fpforge, tree, root, file, func, args.evals, args.seed)), flush=True)


if __name__ == "__main__":
    main()
