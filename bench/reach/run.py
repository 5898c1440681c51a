#!/usr/bin/env python3
"""Prints the reach/explore benchmark tables (Markdown, for docs/BENCHMARKS.md).

    python3 bench/reach/run.py [--exe target/release/fpforge] [--no-bitwuzla] [--detail]

1. FPSE's benchmark as a program: `fpforge reach` on paths of the single-precision
   `dichotomic` root finder (tests/fixtures/explore/dichotomic.c) with 1..12 loop
   iterations, six side patterns per length. Every reached input is re-run with
   `fpforge run` and must take the path; every path condition is written with
   --emit-smt2 and given to Bitwuzla (PyPI, in the venv bench/solve uses) in the same
   run, whose answer must agree.
2. FloPSy's six functions (tests/fixtures/explore/flopsy.c) under `fpforge explore`
   with --solver portfolio, interval, avm and es, and the portfolio with math calls
   concretized (Pex/FloPSy style): seconds until every then-branch is covered.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FIX = os.path.join(ROOT, "tests", "fixtures", "explore")
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "fpforge")
VENV = os.path.join(CACHE, "bench-venv")
PATTERNS = ["T", "F", "TF", "FT", "TTF", "FFT"]
FLOPSY = ["beale", "freudenstein_roth", "helical_valley", "powell", "rosenbrock", "wood"]
SOLVERS = ["portfolio", "interval", "avm", "es", "portfolio --concretize-calls"]


def bitwuzla_python():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        os.makedirs(CACHE, exist_ok=True)
        venv.create(VENV, with_pip=True)
    if subprocess.run([py, "-c", "import bitwuzla"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q", "bitwuzla"], check=True)
    return py


BITWUZLA = r"""
import sys, time, bitwuzla as b
for path in sys.argv[2:]:
    tm = b.TermManager(); o = b.Options()
    o.set(b.Option.TIME_LIMIT_PER, int(float(sys.argv[1]) * 1000))
    start = time.monotonic()
    p = b.Parser(tm, o)
    p.parse(path, True)
    status = str(p.bitwuzla().check_sat())
    print(path, status, f"{time.monotonic() - start:.6f}", flush=True)
"""


def run_bitwuzla(py, paths, timeout):
    """Times each query (parse + check-sat) inside one Python process."""
    out = subprocess.run([py, "-c", BITWUZLA, str(timeout)] + paths, capture_output=True, text=True, check=True)
    results = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            results[parts[0]] = (parts[1], float(parts[2]))
    return results


# (function, precondition decisions, loop site, convergence site, side site, patterns)
VARIANTS = [
    ("dichotomic", "br0:F br1:F", "br2", "br3", "br4", PATTERNS),
    ("dichotomic_bracket", "br5:F br6:F br7:F br8:F br9:T", "br10", "br11", "br12", ["T", "F", "TF"]),
]


def dichotomic_path(k, pattern, pre="br0:F br1:F", loop="br2", conv="br3", side="br4"):
    text = pre
    for i in range(k - 1):
        text += f" {loop}:T {conv}:F {side}:{pattern[i % len(pattern)]}"
    return text + f" {loop}:T {conv}:T"


def fpforge(exe, args):
    return subprocess.run([exe] + args, capture_output=True, text=True)


def branches(exe, file, func, args):
    """The decisions of a run, `site:side`, from the first ones `run --json` lists."""
    out = fpforge(exe, ["run", "--json", file, "-f", func, "--"] + args)
    try:
        return [f"{b['site']}:{b['outcome']}" for b in json.loads(out.stdout)["branches"]]
    except (json.JSONDecodeError, KeyError):
        return []


def follows(taken, spec):
    """Decisions at the spec's sites begin with the spec."""
    want = spec.split()
    sites = {d.split(":")[0] for d in want}
    at = [d for d in taken if d.split(":")[0] in sites]
    return at[:len(want)] == want


def bench_dichotomic(exe, tmp, use_bitwuzla, timeout, detail, variant):
    func, pre, loop, conv, side, patterns = variant
    file = os.path.join(FIX, "dichotomic.c")
    rows = []
    for k in range(1, 13):
        for pat in patterns:
            spec = dichotomic_path(k, pat, pre, loop, conv, side)
            smt = os.path.join(tmp, f"{func}_{k}_{pat}.smt2")
            start = time.monotonic()
            out = fpforge(exe, ["reach", file, "-f", func, "--path", spec, "--emit-smt2", smt,
                                "--json", "--time-limit", str(timeout)])
            wall = time.monotonic() - start
            v = json.loads(out.stdout)
            m = re.search(r"([0-9.]+) s$", v["detail"])
            secs = float(m.group(1)) if m else wall
            ok = True
            if v["status"] == "reached":
                ok = follows(branches(exe, file, func, v["input"].split()), spec)
            rows.append(dict(k=k, pattern=pat, status=v["status"], secs=secs, wall=wall, ok=ok,
                             smt=smt if os.path.exists(smt) else None))
            print(f"{func} k={k} {pat}: {v['status']} {secs:.3f}s", file=sys.stderr)
    if use_bitwuzla:
        py = bitwuzla_python()
        res = run_bitwuzla(py, [r["smt"] for r in rows if r["smt"]], timeout)
        for r in rows:
            r["bw"] = res.get(r["smt"], ("-", 0.0))
    print(f"### FPSE `{func}` (binary32), `fpforge reach` vs Bitwuzla on the same path conditions\n")
    print("| iterations | paths | reached | infeasible | unknown | fpforge max s | fpforge mean s | Bitwuzla sat/unsat | Bitwuzla max s | agree |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in range(1, 13):
        rs = [r for r in rows if r["k"] == k]
        n = lambda s: sum(1 for r in rs if r["status"] == s)
        bw = [r.get("bw", ("-", 0.0)) for r in rs]
        agree = sum(1 for r, b in zip(rs, bw) if (r["status"], b[0]) in (("reached", "sat"), ("infeasible", "unsat")))
        bws = f"{sum(1 for b in bw if b[0] == 'sat')}/{sum(1 for b in bw if b[0] == 'unsat')}" if use_bitwuzla else "-"
        bwmax = f"{max(b[1] for b in bw):.3f}" if use_bitwuzla else "-"
        print(f"| {k} | {len(rs)} | {n('reached')} | {n('infeasible')} | {n('unknown')} | "
              f"{max(r['secs'] for r in rs):.3f} | {sum(r['secs'] for r in rs) / len(rs):.3f} | {bws} | {bwmax} | "
              f"{agree if use_bitwuzla else '-'}/{len(rs)} |")
    bad = [r for r in rows if not r["ok"]]
    print(f"\nReached inputs re-run by `fpforge run` along their path: {sum(1 for r in rows if r['status'] == 'reached') - len(bad)}"
          f"/{sum(1 for r in rows if r['status'] == 'reached')}; slowest answer "
          f"{max(r['secs'] for r in rows):.3f} s (engine time; process wall time max {max(r['wall'] for r in rows):.3f} s).\n")
    if detail:
        print("| path | fpforge | s | Bitwuzla | s |\n|---|---|---:|---|---:|")
        for r in rows:
            b = r.get("bw", ("-", 0.0))
            print(f"| k={r['k']} {r['pattern']} | {r['status']} | {r['secs']:.3f} | {b[0]} | {b[1]:.3f} |")
        print()
    return rows


def bench_flopsy(exe, tmp, timeout):
    file = os.path.join(FIX, "flopsy.c")
    print(f"### FloPSy's functions, `fpforge explore` (time limit {timeout:g} s): seconds until every then-branch is covered\n")
    print("| function | " + " | ".join(SOLVERS) + " |")
    print("|---|" + "---:|" * len(SOLVERS))
    for f in FLOPSY:
        cells = []
        for s in SOLVERS:
            out = os.path.join(tmp, f"{f}_{s.replace(' ', '_')}")
            start = time.monotonic()
            r = fpforge(exe, ["explore", file, "-f", f, "--solver", *s.split(), "--time-limit", str(timeout),
                              "--out", out])
            wall = time.monotonic() - start
            cov = json.load(open(os.path.join(out, "coverage.json")))
            thens = [side for site in cov["sites"] if site["kind"] == "cond"
                     for side in site["sides"] if side["arm"] == "T"]
            goal = [site for site in cov["sites"] if site["kind"] == "cond"][-1]["sides"][0]
            ok = goal["status"] == "covered"
            # Every test re-runs and takes the sides it is credited with.
            lines = open(os.path.join(out, "inputs.txt")).read().splitlines()
            for site in cov["sites"]:
                for side in site["sides"]:
                    if side["status"] == "covered":
                        taken = branches(exe, file, f, lines[side["test"]].split())
                        assert side["side"] in taken, (f, s, site, side)
            covered_thens = sum(1 for t in thens if t["status"] == "covered")
            if covered_thens == len(thens):
                secs = max(cov["test_seconds"][t["test"]] for t in thens)
                cells.append(f"{secs:.3f}")
            else:
                cells.append(f"not covered ({covered_thens}/{len(thens)}, {wall:.1f} s)")
            print(f"flopsy {f} {s}: {cells[-1]}", file=sys.stderr)
        print(f"| {f} | " + " | ".join(cells) + " |")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", help="a prebuilt fpforge (skips cargo build --release)")
    ap.add_argument("--no-bitwuzla", action="store_true")
    ap.add_argument("--timeout", type=float, default=10.0, help="reach time limit per path (s)")
    ap.add_argument("--explore-timeout", type=float, default=30.0)
    ap.add_argument("--detail", action="store_true", help="one row per path")
    args = ap.parse_args()
    exe = args.exe
    if exe is None:
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "fpforge-cli"], cwd=ROOT, check=True)
        exe = os.path.join(target, "release", "fpforge")
    with tempfile.TemporaryDirectory() as tmp:
        for variant in VARIANTS:
            bench_dichotomic(exe, tmp, not args.no_bitwuzla, args.timeout, args.detail, variant)
        bench_flopsy(exe, tmp, args.explore_timeout)


if __name__ == "__main__":
    main()
