#!/usr/bin/env python3
"""How closely each searching command keeps --time-limit: wall-clock time of the whole
command, the same minus loading (clang, linking, lowering: `fpforge run` on the same
program), and the run's own clock as its JSON reports it, for limits of 1 and 3 s on
searches that never finish by themselves (bundled fixtures). Prints a markdown table.

    python3 bench/cli/time_limits.py [--fpforge target/release/fpforge]
"""
import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "tests/fixtures"


def wall(cmd):
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return time.monotonic() - t0, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fpforge", default=str(REPO / "target/release/fpforge"))
    args = ap.parse_args()
    fp = args.fpforge
    branchy, faults, sums = FIX / "cover/branchy.c", FIX / "findings/faults.c", FIX / "accuracy/sums.c"
    spec = ["--arg", "a: f64[4] in [-100, 100]", "--arg", "n = 4"]
    runs = {
        "cover": (branchy, "impossible", ["--starts", "100000000"], "coverage.json", "seconds"),
        "explore": (faults, "halvings", [], "coverage.json", "seconds"),
        "accuracy": (sums, "naive_sum", spec + ["--evals", "1000000000"], "report.json", "elapsed_s"),
    }
    print("| command | --time-limit (s) | wall (s) | load (s) | wall - load (s) | run's own clock (s) | stop |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, (src, func, extra, file, field) in runs.items():
        load, _ = wall([fp, "run", str(src), "-f", func, "--", *(["[1,2,3,4]", "4"] if name == "accuracy" else ["1"])])
        for limit in (1, 3):
            with tempfile.TemporaryDirectory() as out:
                cmd = [fp, name, str(src), "-f", func, *extra, "--time-limit", str(limit), "--quiet", "--out", out]
                t, r = wall(cmd)
                report = json.loads((Path(out) / file).read_text())
                print(f"| {name} | {limit} | {t:.2f} | {load:.2f} | {t - load:.2f} | {report[field]:.2f} | {report['stop']} |")


if __name__ == "__main__":
    main()
