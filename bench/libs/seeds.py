#!/usr/bin/env python3
"""Some functions of a library, several seeds, one or more builds: how often each build
covers each function's sides, at a wall-clock or evaluation budget.

A library run (bench/libs/library.py) is one draw of a wall-clock budget per function; a
row that moves between two such runs may be the change or the draw. This runs the same
`fpforge cover` a library run makes (the library's inputs, load flags and run-wide specs,
through `--functions`), one function at a time with `--jobs 1`, for every seed and build,
and prints one markdown row per (function, build): sides covered per seed, how many
seeds cover every side, and the mean evaluations and starts.

    bench/libs/seeds.py --only gsl --functions gsl_sf_ellint_P_e,gsl_sf_coulomb_wave_FG_e \\
        --bin before=/tmp/fpforge-old --bin after=target/release/fpforge \\
        [--seeds 6] [--time-limit 2] [--evals N]

Builds are binaries named NAME=PATH; an earlier commit's binary comes from a worktree
(`git worktree add /tmp/wt COMMIT && cargo build --release -p fpforge-cli`).
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import library  # noqa: E402


def named_binary(text):
    name, sep, path = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name, Path(path)


def cover(binary, lib, function, seed, args, work: Path):
    """One `fpforge cover` run of `function`: its coverage.json."""
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    names = work / "functions.txt"
    names.write_text(f"{function}\n")
    budget = ["--time-limit", str(args.time_limit)]
    if args.evals:
        budget += ["--evals", str(args.evals)]
    cmd = [binary, "cover", *lib.fpforge_args, "--functions", names, "--jobs", "1",
           "--seed", str(seed), *budget, "--out", out]
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        sys.exit(f"{binary} cover {function} --seed {seed} failed ({r.returncode}): {r.stderr[-2000:]}")
    index = json.loads((out / "index.json").read_text())
    row = next(f for f in index["functions"] if f["function"] == function)
    if row["status"] != "finished":
        sys.exit(f"{binary} cover {function} --seed {seed}: {row['status']} {row.get('error', '')}")
    return json.loads((out / row["directory"] / "coverage.json").read_text())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["newlib", "musl", "gsl"], required=True)
    ap.add_argument("--functions", required=True, type=lambda text: [f for f in text.split(",") if f])
    ap.add_argument("--bin", dest="bins", action="append", type=named_binary, required=True,
                    help="a build as NAME=PATH (repeatable)")
    ap.add_argument("--seeds", type=int, default=6, help="seeds 0 .. N-1")
    ap.add_argument("--time-limit", type=float, default=2.0)
    ap.add_argument("--evals", type=int, help="an evaluation budget besides the time limit")
    ap.add_argument("--build", type=Path, default=library.CORPUS / "build/libs/seeds")
    args = ap.parse_args()
    lib = {"newlib": library.newlib, "musl": library.musl, "gsl": library.gsl}[args.only](args.build)
    budget = f"--time-limit {args.time_limit}" + (f" --evals {args.evals}" if args.evals else "")
    print(f"{lib.name}, {budget}, seeds 0-{args.seeds - 1}, one function at a time with --jobs 1\n")
    print("| function | build | sides covered per seed | seeds covering all | mean evaluations | mean starts |")
    print("|---|---|---|---:|---:|---:|")
    for function in args.functions:
        for name, binary in args.bins:
            runs = [cover(binary, lib, function, seed, args, args.build / lib.name)
                    for seed in range(args.seeds)]
            total = runs[0]["sides"]
            covered = [r["covered"] for r in runs]
            full = sum(c == total for c in covered)
            evals = statistics.mean(r["stats"]["evaluations"] for r in runs)
            starts = statistics.mean(r["stats"]["starts"] for r in runs)
            print(f"| {function} | {name} | {' '.join(map(str, covered))} of {total} | {full} of {len(runs)} "
                  f"| {evals:,.0f} | {starts:.1f} |", flush=True)


if __name__ == "__main__":
    main()
