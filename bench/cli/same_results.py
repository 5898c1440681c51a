#!/usr/bin/env python3
"""Whether two builds of fpforge give the same results: every command of a fixed list
(deterministic runs: `--evals` budgets, fixed seeds, the bundled examples and fixtures)
runs with both binaries from a directory outside the repository, and every file each
writes, its stdout, stderr and exit code are compared, timing aside (JSON fields and
texts that give seconds). A refactoring that must change no behaviour is checked with:

    python3 bench/cli/same_results.py --old OLD_BIN --new target/debug/fpforge

Prints a markdown table, one row per command, and the files that differ. `run-key` files
(the hashes `--resume` compares) are listed apart: a change of how keys are computed
changes them without changing any result.
"""
import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "tests/fixtures"
EX = REPO / "examples"

# Keys whose values are times: seconds, elapsed times, when each test was found.
TIME_KEY = re.compile(r"^(seconds|elapsed|found_at|.*_s|.*_time.*|.*seconds.*)$")
SECONDS_TEXT = re.compile(r"[0-9]+\.[0-9]+ ?s\b")

# (name, arguments): each writes into an output directory given by --out.
RUNS = [
    ("cover one function", ["cover", EX / "ieee_classify.c", "-f", "classify", "--evals", "60000", "--seed", "1"]),
    ("cover, an array parameter", ["cover", EX / "ieee_classify.c", "-f", "scaled_norm", "--evals", "30000", "--seed", "2"]),
    ("cover --all, two jobs", ["cover", FIX / "cover/branchy.c", "--all", "--evals", "20000", "--seed", "3", "--jobs", "2"]),
    ("cover --all, crashes", ["cover", FIX / "findings/faults.c", "--all", "--evals", "20000", "--seed", "1"]),
    ("cover, no reach", ["cover", FIX / "cover/open_sides.c", "-f", "open_sides", "--evals", "20000", "--seed", "1", "--no-reach"]),
    ("cover C++ --all", ["cover", EX / "decay.cpp", "--all", "--evals", "5000", "--seed", "1"]),
    ("accuracy one function", ["accuracy", FIX / "accuracy/sums.c", "-f", "naive_sum", "--arg", "a: f64[4] in [-100, 100]", "--arg", "n = 4", "--evals", "3000", "--seed", "1"]),
    ("accuracy --all", ["accuracy", FIX / "accuracy/zeros.c", "--all", "--evals", "2000", "--seed", "7"]),
]

# (name, arguments): output on stdout only.
PRINTS = [
    ("run", ["run", EX / "ieee_classify.c", "-f", "classify", "0x1p-1030"]),
    ("reach a side", ["reach", FIX / "cover/branchy.c", "-f", "classify", "--branch", "br1:T", "--time-limit", "5", "--json"]),
    ("sites", ["sites", EX / "ieee_classify.c", "-f", "scaled_norm", "--json"]),
    ("an unknown function", ["cover", EX / "ieee_classify.c", "-f", "nothing", "--evals", "10"]),
]


def normalized(text):
    """`text` (JSON or not) with its times replaced by `T`."""
    try:
        value = json.loads(text)
    except ValueError:
        return SECONDS_TEXT.sub("T s", text)

    def walk(v, key=None):
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if key and TIME_KEY.match(key) and isinstance(v, (float, list)):
            return "T"
        if isinstance(v, list):
            return [walk(x, key) for x in v]
        if isinstance(v, str):
            return SECONDS_TEXT.sub("T s", v)
        return v

    return json.dumps(walk(value), indent=1, sort_keys=True)


def run(binary, args, cwd):
    r = subprocess.run([binary, *map(str, args)], cwd=cwd, capture_output=True, text=True)
    return normalized(r.stdout), normalized(r.stderr), r.returncode


def files(root):
    return {p.relative_to(root): p for p in sorted(root.rglob("*")) if p.is_file()}


def compare_dirs(a, b):
    """The files that differ (or exist on one side only), and the run-keys that differ."""
    fa, fb = files(a), files(b)
    differ, keys = [], []
    for rel in sorted(set(fa) | set(fb)):
        if rel.suffix in (".html", ".svg"):
            continue
        if rel not in fa or rel not in fb:
            differ.append(f"{rel} (one side only)")
            continue
        if normalized(fa[rel].read_text(errors="replace")) != normalized(fb[rel].read_text(errors="replace")):
            (keys if rel.name == "run-key" else differ).append(str(rel))
    return len(fa), differ, keys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True, help="the fpforge binary to compare against")
    ap.add_argument("--new", default=str(REPO / "target/debug/fpforge"))
    args = ap.parse_args()
    print("| command | files | stdout, stderr, exit code | files that differ | run-keys that differ |")
    print("|---|---:|---|---|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, cmd in RUNS + PRINTS:
            outs = []
            for side, binary in (("old", args.old), ("new", args.new)):
                out = tmp / side / re.sub(r"\W+", "_", name)
                extra = ["--out", out, "--quiet"] if (name, cmd) in RUNS else []
                outs.append((out, run(binary, [*cmd, *extra], tmp)))
            (a, ra), (b, rb) = outs
            same_io = "same" if ra == rb else "**differ**"
            if (name, cmd) in RUNS:
                count, differ, keys = compare_dirs(a, b)
                print(f"| {name} | {count} | {same_io} | {', '.join(differ) or 'none'} | {len(keys)} |")
            else:
                print(f"| {name} | - | {same_io} | - | - |")


if __name__ == "__main__":
    main()
