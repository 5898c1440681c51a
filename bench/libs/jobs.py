#!/usr/bin/env python3
"""--jobs 1 against --jobs 2 in one library run (issue 18): evaluations per function, and
the CPU time the worker threads got.

For each value of --jobs, one `fpforge cover` run of the selection; while it runs, the
/proc/PID/task/TID/schedstat of its worker threads (named `job 1`, `job 2`, ...) is read
every 20 ms: the seconds each spent on a CPU and the seconds it was runnable but waiting
on a run queue. Evaluations per worker CPU-second tell the two ways a second job can slow
the first apart: contention inside the process (a lock, a shared cache) lowers that rate
as --jobs grows; a smaller share of the machine (other processes, or the kernel's
autogroup scheduler dividing the CPUs between sessions rather than threads) leaves the
rate alone and shows as run-queue wait.

Libraries:
- `gsl`: GSL's special functions as bench/libs/library.py loads them, restricted to
  --functions (default: gsl_sf_coulomb_wave_FG_e, gsl_sf_bessel_Jnu_e,
  gsl_sf_hyperg_2F1_e, gsl_sf_ellint_RJ_e);
- `fixture`: bench/libs/jobs/cpu_bound.c, two CPU-bound functions with a branch no search
  takes, so that each runs its whole time limit.

--evals N gives every run the same work (an evaluation budget, no prover, a 60 s time
limit), so that the CPU seconds compare directly.

    bench/libs/jobs.py [--only gsl|fixture] [--functions a,b] [--jobs 1,2]
                       [--time-limit 2] [--evals N] [--fpforge PATH] [--build DIR]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from library import CORPUS, REPO, gsl  # noqa: E402

GSL_FUNCTIONS = ["gsl_sf_coulomb_wave_FG_e", "gsl_sf_bessel_Jnu_e", "gsl_sf_hyperg_2F1_e",
                 "gsl_sf_ellint_RJ_e"]
FIXTURE = REPO / "bench/libs/jobs/cpu_bound.c"
SAMPLE_EVERY = 0.02


def worker_times(pid):
    """{thread name: (seconds on a CPU, seconds waiting on a run queue)} of `pid`'s
    worker threads now."""
    times = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return times
    for tid in tasks:
        try:
            name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
            on_cpu, waiting, _ = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
        if name.startswith("job "):
            times[name] = (int(on_cpu) / 1e9, int(waiting) / 1e9)
    return times


def run(fpforge, args, out: Path):
    """Runs `fpforge cover ARGS --out OUT`; returns its workers' last times, its wall
    time and the load average before and after."""
    shutil.rmtree(out, ignore_errors=True)
    load0 = os.getloadavg()[0]
    started = time.monotonic()
    child = subprocess.Popen([str(fpforge), "cover", *map(str, args), "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    last = {}
    while child.poll() is None:
        last.update(worker_times(child.pid))
        time.sleep(SAMPLE_EVERY)
    wall = time.monotonic() - started
    if child.returncode not in (0, 3):
        sys.exit(f"fpforge cover failed ({child.returncode}): {child.stderr.read()[-2000:]}")
    return last, wall, (load0, os.getloadavg()[0])


def functions_of(out: Path):
    """(function, evaluations, sides covered, seconds) of each function of a run."""
    rows = []
    for row in json.loads((out / "index.json").read_text())["functions"]:
        report = out / row["directory"] / "coverage.json"
        if report.exists():
            data = json.loads(report.read_text())
            rows.append((data["function"], data["stats"]["evaluations"], data["covered"],
                         data["seconds"]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--only", choices=["gsl", "fixture"], default="gsl")
    ap.add_argument("--functions", type=lambda text: [f for f in text.split(",") if f])
    ap.add_argument("--jobs", type=lambda text: [int(j) for j in text.split(",")],
                    default=[1, 2])
    ap.add_argument("--time-limit", type=float, default=2.0)
    ap.add_argument("--evals", type=int)
    ap.add_argument("--build", type=Path, default=CORPUS / "build/libs/jobs")
    args = ap.parse_args()
    args.build.mkdir(parents=True, exist_ok=True)
    if args.only == "gsl":
        names = args.build / "functions.txt"
        names.write_text("".join(f"{f}\n" for f in args.functions or GSL_FUNCTIONS))
        program = [*gsl(args.build).fpforge_args, "--functions", names]
    else:
        selection = [a for f in args.functions for a in ("-f", f)] if args.functions else ["--all"]
        program = [FIXTURE, *selection]
    budget = (["--evals", args.evals, "--time-limit", 60, "--no-reach"] if args.evals
              else ["--time-limit", args.time_limit])
    print("| --jobs | function | evaluations | sides covered | seconds |")
    print("|---|---|---:|---:|---:|")
    totals = []
    for jobs in args.jobs:
        out = args.build / f"out-{args.only}-jobs{jobs}"
        workers, wall, load = run(args.fpforge, [*program, *budget, "--jobs", jobs], out)
        rows = functions_of(out)
        for function, evals, covered, seconds in rows:
            print(f"| {jobs} | {function} | {evals} | {covered} | {seconds:.2f} |")
        on_cpu = sum(t[0] for t in workers.values())
        waiting = sum(t[1] for t in workers.values())
        evals = sum(r[1] for r in rows)
        totals.append((jobs, len(workers), on_cpu, waiting, evals, wall, load))
    print("\n| --jobs | workers | worker CPU s | run-queue wait s | evaluations "
          "| evaluations per CPU s | wall s | load before / after |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for jobs, workers, on_cpu, waiting, evals, wall, load in totals:
        rate = evals / on_cpu if on_cpu else 0.0
        print(f"| {jobs} | {workers} | {on_cpu:.2f} | {waiting:.2f} | {evals} | {rate:,.0f} "
              f"| {wall:.1f} | {load[0]:.1f} / {load[1]:.1f} |")


if __name__ == "__main__":
    main()
