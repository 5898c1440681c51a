#!/usr/bin/env python3
"""Crash safety of a library run's output directory: a run killed with SIGKILL at random
moments and resumed with `--resume` until it finishes must end with the files of a run
that was never interrupted (timing fields aside; docs/LIBRARY.md, "Resume").

1. A: one uninterrupted `fpforge cover ... --evals N --no-reach --time-limit 600 --out A`
   (the evaluation budget, not the clock, ends every search, and no concolic prover with
   a time budget of its own runs, so the run is deterministic);
2. rounds, until --kills SIGKILLs have landed: the same command into an empty B, killed
   after a random delay (seeded, uniform between 0 and A's wall time, so that a kill
   falls anywhere in a run: loading, a search, a function's last writes, the index),
   then the same command with `--resume`, killed the same way, and so on until a run
   ends by itself; a round whose run ends before its first kill counts no kill;
3. after each round, every file of A and B compared: `index.json` and each
   `coverage.json` without their timing fields (`seconds`, `test_seconds`, `elapsed_s`,
   `worst_found_s`), every other file byte for byte (the merged `coverage.lcov`, each
   function's `run-key`, `inputs.txt`, `coverage.lcov`, `regression.c`, `crashes/`,
   `hangs/`), each function's `report.html` (which prints times) only for saying its run
   finished; a file only one of them has counts as a difference (a leftover temporary
   file, say).

Prints one row per kill (when it came, what the directory held: functions finished,
functions started but not finished) and one per round (the comparison).

Libraries:
- `musl`: musl 1.2.3's src/math as bench/libs/library.py loads it (fetched into
  ~/.cache/fpforge-corpus by bench/source.sh), with --functions' globs (default: the
  square roots, cube roots, exponentials, log1p, hypot, fmod and arc tangents, 38
  functions);
- `fixture`: tests/fixtures/library, the small library of the CLI tests.

    bench/libs/kill_resume.py [--only musl|fixture] [--functions 'sqrt*,exp*'] [--kills 20]
                              [--seed 1] [--evals 5000] [--jobs 2] [--fpforge PATH] [--build DIR]
"""

import argparse
import json
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from library import CORPUS, REPO, musl  # noqa: E402

MUSL_FUNCTIONS = ["sqrt*", "cbrt*", "exp*", "log1p*", "hypot*", "fmod*", "atan*"]
FIXTURE = REPO / "tests/fixtures/library"
# The fields of index.json and coverage.json that hold times (docs/REPORTS.md).
TIMES = {"seconds", "test_seconds", "elapsed_s", "worst_found_s"}


def without_times(value):
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in TIMES}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def files_of(out: Path):
    """{path relative to `out`: what is compared} of every file under `out`: JSON without
    its timing fields, a function's page as whether it says its run finished, the index
    page not at all, other files as bytes."""
    files = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        rel = str(path.relative_to(out))
        if path.suffix == ".html":
            page = path.read_text(errors="replace")
            files[rel] = path.parent == out or 'id="finished" data-value="true"' in page
        elif path.suffix == ".json":
            try:
                files[rel] = without_times(json.loads(path.read_text()))
            except ValueError:
                files[rel] = path.read_bytes()
        else:
            files[rel] = path.read_bytes()
    return files


def state(out: Path):
    """(functions finished, functions started but not finished) in `out` now."""
    finished, running = 0, []
    for d in sorted(p for p in out.glob("*") if p.is_dir()):
        try:
            done = json.loads((d / "coverage.json").read_text()).get("finished")
        except (OSError, ValueError):
            done = False
        if done:
            finished += 1
        else:
            running.append(d.name)
    return finished, running


def run(fpforge, program, out: Path, resume, kill_after=None):
    """Runs `fpforge cover PROGRAM --out OUT [--resume]`; with `kill_after`, sends SIGKILL
    after that many seconds if it still runs. Returns (killed, exit code, wall seconds)."""
    cmd = [str(fpforge), "cover", *map(str, program), "--out", str(out)]
    if resume:
        cmd.append("--resume")
    log = out.with_name(out.name + ".stderr")
    started = time.monotonic()
    with open(log, "w") as stderr:
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            child.wait(timeout=kill_after)
            killed = False
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.wait()
            killed = True
    if not killed and child.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)} failed ({child.returncode}): {log.read_text()[-2000:]}")
    return killed, child.returncode, time.monotonic() - started


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--only", choices=["musl", "fixture"], default="musl")
    ap.add_argument("--functions", type=lambda text: [f for f in text.split(",") if f],
                    help="comma-separated names or globs (musl)")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1, help="seeds the kill moments")
    ap.add_argument("--evals", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--build", type=Path, default=CORPUS / "build/libs/kill_resume")
    args = ap.parse_args()
    args.build.mkdir(parents=True, exist_ok=True)
    if args.only == "musl":
        selection = [a for f in args.functions or MUSL_FUNCTIONS for a in ("-f", f)]
        program = [*musl(args.build).fpforge_args, *selection]
    else:
        program = [FIXTURE, "--all"]
    program += ["--evals", args.evals, "--time-limit", 600, "--no-reach", "--jobs", args.jobs]
    whole, killed = args.build / "uninterrupted", args.build / "killed"
    shutil.rmtree(whole, ignore_errors=True)
    _, _, wall = run(args.fpforge, program, whole, resume=False)
    want = files_of(whole)
    rng = random.Random(args.seed)
    print(f"fpforge cover ({args.only}) --evals {args.evals} --no-reach --jobs {args.jobs}: "
          f"uninterrupted in {wall:.1f} s, {len(want)} files; {args.kills} SIGKILLs at "
          f"uniform random moments in [0, {wall:.1f} s] of a run, seed {args.seed}\n")
    print("| kill | round | after s | functions finished | started, not finished |")
    print("|---:|---:|---:|---:|---|")
    landed, rounds = 0, []
    while landed < args.kills:
        shutil.rmtree(killed, ignore_errors=True)
        kills = runs = 0
        while True:
            delay = rng.uniform(0, wall) if landed < args.kills else None
            was_killed, code, _ = run(args.fpforge, program, killed, resume=runs > 0,
                                      kill_after=delay)
            runs += 1
            if not was_killed:
                break
            kills += 1
            landed += 1
            finished, running = state(killed)
            print(f"| {landed} | {len(rounds) + 1} | {delay:.2f} | {finished} "
                  f"| {', '.join(running) or '-'} |", flush=True)
        got = files_of(killed)
        differ = sorted(p for p in want.keys() | got.keys() if want.get(p) != got.get(p))
        rounds.append((kills, runs, code, got, differ))

    print("\n| round | kills | runs | last exit | index.json (times aside) | merged coverage.lcov "
          "| functions with every file identical | files differing |")
    print("|---:|---:|---:|---:|---|---|---:|---|")
    functions = sorted({p.split("/")[0] for p in want if "/" in p})
    for i, (kills, runs, code, got, differ) in enumerate(rounds, 1):
        same = [f for f in functions if not any(p.startswith(f + "/") for p in differ)]
        listed = ", ".join(f"{p} ({'A only' if p not in got else 'B only' if p not in want else 'differs'})"
                           for p in differ)
        print(f"| {i} | {kills} | {runs} | {code} | {'identical' if 'index.json' not in differ else 'DIFFERS'} "
              f"| {'identical' if 'coverage.lcov' not in differ else 'DIFFERS'} "
              f"| {len(same)} of {len(functions)} | {listed or '-'} |")
    total = sum(len(r[4]) for r in rounds)
    print(f"\n{landed} kills in {len(rounds)} rounds: "
          + ("every file identical to the uninterrupted run" if not total else f"{total} files differ"))
    if total:
        sys.exit(1)


if __name__ == "__main__":
    main()
