#!/usr/bin/env python3
"""`fpforge explore` on musl's src/math: per function, branch sides covered (each input
re-executed by fpforge), proved infeasible (by which method) and left open.

    python3 bench/reach/musl.py --musl ~/.cache/fpforge-corpus/musl-1.2.3 [--time-limit S] [--only f,g]

Function selection, helper files and compiler flags are bench/cover/run.py's (its
`Musl` class is imported), so the rows line up with the cover table. gcov does not
appear here: the cover bench confirms covered sides with gcov once `cover` calls
`reach` for the sides it did not reach.
"""
import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("cover_bench", REPO / "bench/cover/run.py")
cover_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cover_bench)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--musl", required=True, type=Path)
    ap.add_argument("--build", type=Path, default=Path.home() / ".cache/fpforge-corpus/build/cover")
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    musl = cover_bench.Musl(args.musl, args.build)
    funcs = []
    for name in sorted(musl.texts):
        func = name[:-2]
        if func.startswith("__") or func.endswith("_data") or musl.signature(func) is None:
            continue
        if func.endswith("f") and f"{func[:-1]}.c" in musl.texts:
            continue
        funcs.append(func)
    if args.only:
        funcs = [f for f in funcs if f in args.only.split(",")]
    rows = []
    for func in funcs:
        files = [str(musl.math / f) for f in musl.closure(func)]
        with tempfile.TemporaryDirectory() as out:
            start = time.monotonic()
            r = subprocess.run([str(args.fpforge), "explore", *files, *musl.fpforge_flags(), "-f", func,
                                "--time-limit", str(args.time_limit), "--out", out, "--allow-undefined"],
                               capture_output=True, text=True)
            wall = time.monotonic() - start
            try:
                cov = json.load(open(Path(out) / "coverage.json"))
            except (OSError, ValueError):
                rows.append({"function": func, "error": (r.stderr or r.stdout)[-200:]})
                print(f"{func}: error {rows[-1]['error']}", file=sys.stderr)
                continue
        sides = [s for site in cov["sites"] for s in site["sides"]]
        methods = {}
        for s in sides:
            if s["status"] == "infeasible":
                methods[s["method"]] = methods.get(s["method"], 0) + 1
        row = {"function": func, "sides": len(sides), "covered": cov["covered"], "infeasible": cov["infeasible"],
               "open": len(sides) - cov["covered"] - cov["infeasible"], "methods": methods,
               "complete": cov["stats"]["complete"], "paths": cov["stats"]["paths"],
               "queries": cov["stats"]["queries"], "wall": wall}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    ok = [r for r in rows if "error" not in r]
    decided = [r for r in ok if r["open"] == 0]
    tot = lambda k: sum(r[k] for r in ok)
    meth = {}
    for r in ok:
        for m, n in r["methods"].items():
            meth[m] = meth.get(m, 0) + n
    print(f"### musl src/math, `fpforge explore` alone (time limit {args.time_limit:g} s per function)\n")
    print("| functions | loaded | every side covered or proved infeasible | sides | covered | proved infeasible | open | exploration complete |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {len(rows)} | {len(ok)} | {len(decided)} ({100 * len(decided) / max(len(ok), 1):.0f}%) | {tot('sides')} | "
          f"{tot('covered')} | {tot('infeasible')} | {tot('open')} | {sum(1 for r in ok if r['complete'])} |")
    print("\nInfeasible sides by method: " + ", ".join(f"{m}: {n}" for m, n in sorted(meth.items())) + "\n")
    print("| function | sides | covered | infeasible | open | paths | queries (sat/unsat/unknown) | s |")
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        if "error" in r:
            print(f"| {r['function']} | error | | | | | | |")
            continue
        q = r["queries"]
        print(f"| {r['function']} | {r['sides']} | {r['covered']} | {r['infeasible']} | {r['open']} | {r['paths']} | "
              f"{q['sat']}/{q['unsat']}/{q['unknown']} | {r['wall']:.1f} |")


if __name__ == "__main__":
    main()
