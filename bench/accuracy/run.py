#!/usr/bin/env python3
"""fpforge accuracy on FPGen's programs (bench/accuracy/programs.tsv), beside a pure random
search given the same time in the same run, and FPGen's published figures.

For every row: `fpforge accuracy` with the search strategy and with `--strategy random`
(same time limit, same seed, same MPFR reference), then an independent re-evaluation of
the worst input's reference at other precisions (`--check-input REPORT --precision P`,
P = 256 and 4096 by default); "ok" means the re-evaluated relative error agrees with the
reported one to 1e-6 relative. Prints a markdown table (the one in docs/BENCHMARKS.md).

The error columns are the largest finite relative error found; "(+NaN/inf)" marks runs
that also found an input whose computed result is NaN or infinite where the MPFR
reference is finite (an infinite relative error, reported apart by fpforge). "same path"
is the largest error among inputs whose MPFR run takes the same branches as the binary64
run (pure rounding error; the overall maximum may come from a change of path, e.g. another
pivot in LU).

With `--evals N` every run ends after N evaluations instead (its time limit is then only a
safety net), so two builds or two machines are compared on the same work whatever the load.

With `--seeds K` every program runs the search with seeds 1..K instead and the table gives
the median, smallest and largest of the K worst errors (a single seed's figure is one
draw of a randomized search; comparisons of two builds use the median).

    bench/accuracy/run.py [--time-limit 60 | --evals N] [--only sum,lu] [--no-random]
                          [--recheck-precision 256] [--seeds K]
"""

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("FPFORGE_CORPUS_CACHE", Path.home() / ".cache" / "fpforge-corpus"))


def read_programs(path):
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 7:
            sys.exit(f"{path}: expected 7 tab-separated columns: {line!r}")
        name, function, sources, args, out_args, fpgen, cflags = cols[:7]
        expand = lambda s: s.replace("$CORPUS", str(CORPUS))
        rows.append(
            {
                "name": name,
                "function": function,
                "sources": [
                    str(ROOT / s) if not s.startswith("$CORPUS") else expand(s)
                    for s in sources.split()
                ],
                "args": [a.strip() for a in args.split(";") if a.strip()],
                "out_args": [] if out_args.strip() == "-" else [a.strip() for a in out_args.split(";") if a.strip()],
                "fpgen": fpgen.strip(),
                "cflags": [] if cflags.strip() == "-" else shlex.split(expand(cflags)),
            }
        )
    return rows


def base_command(fpforge, row):
    cmd = [fpforge, "accuracy", *row["sources"], "-f", row["function"]]
    for a in row["args"]:
        cmd += ["--arg", a]
    for o in row["out_args"]:
        cmd += ["--out-arg", o]
    return cmd + row["cflags"]


def run_json(cmd, timeout):
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    elapsed = time.monotonic() - started
    if proc.returncode != 0:
        return None, elapsed, proc.stderr.strip().splitlines()[-1:] or ["exit %d" % proc.returncode]
    try:
        return json.loads(proc.stdout), elapsed, None
    except json.JSONDecodeError as e:
        return None, elapsed, [f"bad JSON: {e}"]


def load_report(path):
    try:
        return json.loads(path.read_text()), None
    except (OSError, json.JSONDecodeError) as e:
        return None, [str(e)]


def rel_of(report):
    if not report or not report.get("worst"):
        return None
    r = report["worst"]["rel_error"]
    return float("inf") if r is None else r


def fmt(x):
    if x is None:
        return "-"
    if x == float("inf"):
        return "inf"
    if x == 0:
        return "0"
    return f"{x:.3g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per program and strategy")
    ap.add_argument("--evals", type=int, help="evaluations per program and strategy (deterministic budget)")
    ap.add_argument("--no-random", action="store_true", help="skip the random-search column")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, help="run seeds 1..K and tabulate median/min/max")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--recheck-precision", type=int, action="append",
                    help="precision of the re-evaluation (repeatable; default 256 and 4096)")
    ap.add_argument("--recheck-only", action="store_true",
                    help="do not search: re-check and tabulate the reports already in --out")
    ap.add_argument("--fpforge", default=str(ROOT / "target" / "release" / "fpforge"))
    ap.add_argument("--out", default="/tmp/fpforge-accuracy-bench", help="directory for per-program outputs")
    ap.add_argument("--no-fetch", action="store_true", help="do not run bench/accuracy/fetch.sh")
    opts = ap.parse_args()
    precisions = opts.recheck_precision or [256, 4096]

    if not Path(opts.fpforge).exists():
        sys.exit(f"{opts.fpforge} not found: cargo build --release -p fpforge-cli")
    fetch = ROOT / "bench" / "accuracy" / "fetch.sh"
    if fetch.exists() and not opts.no_fetch:
        subprocess.run(["bash", str(fetch)], check=True, stdout=sys.stderr)
    rows = read_programs(ROOT / "bench" / "accuracy" / "programs.tsv")
    if opts.only:
        wanted = set(opts.only.split(","))
        rows = [r for r in rows if r["name"] in wanted]
    out_root = Path(opts.out)
    out_root.mkdir(parents=True, exist_ok=True)
    limit = opts.time_limit
    budget = ["--time-limit", str(limit)]
    if opts.evals:
        limit = max(limit, 3600.0)
        budget = ["--evals", str(opts.evals), "--time-limit", str(limit)]
    timeout = 4 * limit + 300

    if opts.seeds:
        seed_table(opts, rows, out_root, budget, timeout)
        return
    lines = [
        "| program | fpforge max rel error | same path | time to worst (s) | inputs | random max rel error | FPGen | "
        + " | ".join(f"re-check {p} bits" for p in precisions) + " |",
        "|---|---|---|---|---|---|---|" + "---|" * len(precisions),
    ]
    print(lines[0], flush=True)
    print(lines[1], flush=True)
    for row in rows:
        base = base_command(opts.fpforge, row)
        common = budget + ["--seed", str(opts.seed), "--json"]
        sdir = out_root / row["name"] / "search"
        rdir = out_root / row["name"] / "random"
        if opts.recheck_only:
            search, serr = load_report(sdir / "report.json")
            random, rerr = load_report(rdir / "report.json")
        else:
            search, _, serr = run_json(base + common + ["--out", str(sdir)], timeout)
            random, rerr = None, ["not run"]
            if not opts.no_random:
                random, _, rerr = run_json(base + common + ["--strategy", "random", "--out", str(rdir)], timeout)
        rechecks = []
        for prec in precisions:
            recheck = "-"
            if search and search.get("worst"):
                check, _, cerr = run_json(
                    base + ["--check-input", str(sdir / "report.json"), "--precision", str(prec), "--json"],
                    timeout,
                )
                a, b = rel_of(search), rel_of(check)
                if cerr:
                    recheck = "error: " + " ".join(cerr)
                elif a is None or b is None:
                    recheck = "no"
                elif a == b or (a != float("inf") and b != float("inf") and abs(a - b) <= 1e-6 * max(abs(a), abs(b))):
                    recheck = "ok"
                else:
                    recheck = f"differs ({fmt(b)})"
            rechecks.append(recheck)
        found = "-" if not search else f"{search.get('worst_found_s', search.get('elapsed_s', 0)):.1f}"
        inputs = "-" if not search else str(search.get("evals", "-"))
        s_text = fmt(rel_of(search)) if search else "error: " + " ".join(serr or [])
        if search and search.get("non_finite"):
            s_text += " (+NaN/inf)"

        r_text = fmt(rel_of(random)) if random else ("-" if opts.no_random else "error: " + " ".join(rerr or []))
        if random and random.get("non_finite"):
            r_text += " (+NaN/inf)"

        same = "-"
        if search and search.get("worst"):
            w = search["worst"] if not search["worst"].get("diverged") else search.get("worst_same_path")
            same = fmt(rel_of({"worst": w})) if w else "none"
        line = f"| {row['name']} | {s_text} | {same} | {found} | {inputs} | {r_text} | {row['fpgen']} | " + " | ".join(rechecks) + " |"
        lines.append(line)
        print(line, flush=True)
    cpu = platform.processor() or platform.machine()
    try:
        for l in Path("/proc/cpuinfo").read_text().splitlines():
            if l.startswith("model name"):
                cpu = l.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    per_run = f"{opts.evals} evaluations" if opts.evals else f"{limit:g} s"
    runs = f"reports in {out_root}" if opts.recheck_only else f"{per_run} per program and strategy, seed {opts.seed}"
    print(f"\n{len(rows)} programs, {runs}, {os.cpu_count()} cores ({cpu})", flush=True)


def seed_table(opts, rows, out_root, budget, timeout):
    """One row per program: the worst error's median, min and max over seeds 1..K."""
    print("| program | median max rel error | smallest | largest | runs with NaN/inf | FPGen |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        rels, non_finite = [], 0
        for seed in range(1, opts.seeds + 1):
            out = out_root / row["name"] / f"seed{seed}"
            cmd = base_command(opts.fpforge, row) + budget + ["--seed", str(seed), "--json", "--out", str(out)]
            report, _, err = run_json(cmd, timeout)
            rel = rel_of(report) if report else None
            rels.append(0.0 if rel is None else rel)
            non_finite += bool(report and report.get("non_finite"))
        rels.sort()
        median = rels[len(rels) // 2] if len(rels) % 2 else (rels[len(rels) // 2 - 1] * rels[len(rels) // 2]) ** 0.5
        print(f"| {row['name']} | {fmt(median)} | {fmt(rels[0])} | {fmt(rels[-1])} | {non_finite}/{opts.seeds} | {row['fpgen']} |",
              flush=True)
    per_run = f"{opts.evals} evaluations" if opts.evals else f"{opts.time_limit:g} s"
    print(f"\n{len(rows)} programs, {per_run} per run, seeds 1-{opts.seeds} (median of an even count: geometric mean of the middle two)")


if __name__ == "__main__":
    main()
