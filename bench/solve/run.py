#!/usr/bin/env python3
"""Prints fpforge's solver benchmark table: every query in queries/ through each
fpforge strategy and Z3 (the system libz3, via the `bench_solve` example) and
Bitwuzla (PyPI, in a venv this script creates outside the repository).

    python3 bench/solve/run.py [--timeout SECONDS] [--no-bitwuzla] [QUERY.smt2 ...]

Regenerate the queries with gen_queries.py. The table is Markdown, ready for
docs/BENCHMARKS.md; status is sat/unsat/unknown, times in seconds.
"""
import argparse
import os
import statistics
import subprocess
import sys
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "fpforge")
VENV = os.path.join(CACHE, "bench-venv")
SOLVERS = ["fpforge-interval", "fpforge-avm", "fpforge-es", "fpforge-random", "fpforge-bit-precise", "fpforge-portfolio", "z3", "bitwuzla"]


def bitwuzla_python():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        os.makedirs(CACHE, exist_ok=True)
        venv.create(VENV, with_pip=True)
    if subprocess.run([py, "-c", "import bitwuzla"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q", "bitwuzla"], check=True)
    return py


def run_bitwuzla(py, path, timeout):
    code = ("import sys, time, bitwuzla as b\n"
            "tm = b.TermManager(); o = b.Options()\n"
            f"o.set(b.Option.TIME_LIMIT_PER, {int(timeout * 1000)})\n"
            "p = b.Parser(tm, o); p.parse(sys.argv[1])\n")
    import time
    start = time.monotonic()
    try:
        r = subprocess.run([py, "-c", code, path], capture_output=True, text=True, timeout=timeout + 5)
        out = r.stdout.split()
        status = out[0] if out and out[0] in ("sat", "unsat", "unknown") else "error"
    except subprocess.TimeoutExpired:
        status = "unknown"
    return status, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--search-timeout", type=float, default=None,
                    help="limit for avm/es/random alone (they never answer unsat)")
    ap.add_argument("--no-bitwuzla", action="store_true")
    ap.add_argument("--exe", help="a prebuilt bench_solve example (skips cargo build)")
    ap.add_argument("queries", nargs="*")
    args = ap.parse_args()
    queries = args.queries or sorted(
        os.path.join(HERE, "queries", f) for f in os.listdir(os.path.join(HERE, "queries")) if f.endswith(".smt2"))
    exe = args.exe
    if exe is None:
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "fpforge-solve", "--example", "bench_solve"],
                       cwd=ROOT, check=True)
        exe = os.path.join(target, "release", "examples", "bench_solve")
    results = {}
    for q in queries:
        cmd = [exe, "--timeout", str(args.timeout)]
        if args.search_timeout is not None:
            cmd += ["--search-timeout", str(args.search_timeout)]
        out = subprocess.run(cmd + [q], capture_output=True, text=True, check=True)
        for line in out.stdout.splitlines():
            name, solver, status, secs = line.split("\t")
            results.setdefault(name, {})[solver] = (status, float(secs))
        if not args.no_bitwuzla:
            name = os.path.splitext(os.path.basename(q))[0]
            results[name]["bitwuzla"] = run_bitwuzla(bitwuzla_python(), q, args.timeout)
        print(f"done {os.path.basename(q)}", file=sys.stderr)
    solvers = [s for s in SOLVERS if any(s in r for r in results.values())]
    st = args.search_timeout if args.search_timeout is not None else args.timeout
    print(f"timeout {args.timeout:g} s per query and solver ({st:g} s for fpforge-avm/es/random)\n")
    print("| query | " + " | ".join(solvers) + " |")
    print("|---|" + "---|" * len(solvers))
    wrong = []
    for name in sorted(results):
        r = results[name]
        answers = {r[s][0] for s in solvers if s in r and r[s][0] in ("sat", "unsat")}
        if len(answers) > 1:
            wrong.append(name)
        cells = [f"{r[s][0]} {r[s][1]:.3f}" if s in r else "-" for s in solvers]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print("| solver | answered | median time (s) | total time (s) |")
    print("|---|---|---|---|")
    for s in solvers:
        rows = [r[s] for r in results.values() if s in r]
        answered = sum(1 for st, _ in rows if st in ("sat", "unsat"))
        times = [t for _, t in rows]
        print(f"| {s} | {answered}/{len(rows)} | {statistics.median(times):.3f} | {sum(times):.1f} |")
    print()
    print("disagreements (sat vs unsat): " + (", ".join(wrong) if wrong else "none"))


if __name__ == "__main__":
    main()
