#!/usr/bin/env python3
"""Csmith differential for the libc model and main(argc, argv) (issue 15).

Generates programs with `csmith --float` (seeds FIRST..FIRST+COUNT-1), keeps those free of
undefined behaviour (the UBSan build is silent and the -O0 and -O2 builds print the same
checksum), and compares the native checksum line (clang-14 -O0 -ffp-contract=off) with
what `fpforge run prog.c -f main` prints. Each program ends as agree, mismatch,
unsupported (fpforge names what: `unsupported: ...`, an unknown external, a lowering
error) or skipped (UB, a native timeout). Prints a table; `--json FILE` keeps the rows.

Usage: bench/csmith/run.py [--first 1500000] [--count 200] [--fpforge target/release/fpforge]
       bench/csmith/run.py --seeds 1500046,1500075 [--fpforge ...]   (only those seeds)
Needs `apt-get install -y csmith libcsmith-dev` (Debian bookworm: csmith 2.3).
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

INCLUDE = "/usr/include/csmith"


def sh(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def checksum(text):
    m = re.search(r"checksum = ([0-9A-F]+)", text)
    return m.group(1) if m else None


def native(src, work, flags, timeout=10):
    exe = os.path.join(work, "prog" + re.sub(r"\W", "_", "".join(flags)))
    rc, _, err = sh(["clang-14", "-w", "-ffp-contract=off", f"-I{INCLUDE}", *flags, src, "-o", exe, "-lm"], 120)
    if rc != 0:
        return None, "compile: " + err[:200]
    rc, out, err = sh([exe], timeout)
    if rc is None:
        return None, "timeout"
    return out, err


def judge(seed, fpforge, work):
    src = os.path.join(work, f"csmith_{seed}.c")
    rc, out, err = sh(["csmith", "--float", "--seed", str(seed), "-o", src], 60)
    if rc != 0:
        return "skipped", "csmith failed"
    o0, why = native(src, work, ["-O0"])
    if o0 is None or checksum(o0) is None:
        return "skipped", f"native -O0: {why if o0 is None else 'no checksum'}"
    o2, why = native(src, work, ["-O2"])
    if o2 is None or checksum(o0) != checksum(o2):
        return "skipped", f"UB: -O0 and -O2 disagree ({why if o2 is None else 'checksums'})"
    ub, ub_err = native(src, work, ["-O0", "-fsanitize=undefined", "-fno-sanitize-recover=undefined"])
    if ub is None or "runtime error" in ub_err:
        return "skipped", "UB: UBSan" + (f" ({ub_err})" if ub is None else "")
    want = checksum(o0)
    rc, out, err = sh([fpforge, "run", src, "-f", "main", "-I", INCLUDE, "--json"], 300)
    if rc is None:
        return "unsupported", "fpforge timeout"
    if rc != 0 and not out.strip():
        first = (err.strip().splitlines() or ["?"])[-1]
        return "unsupported", re.sub(r"`[^`]*`", "`...`", first)[:160]
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        return "unsupported", "unreadable report"
    if report.get("trap"):
        return "unsupported", "trap: " + re.sub(r"0x[0-9a-f]+|\d+", "N", report["trap"])[:160]
    got = checksum(report.get("stdout", ""))
    if got == want:
        return "agree", ""
    return "mismatch", f"native {want}, fpforge {got}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--first", type=int, default=1_500_000)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--fpforge", default="target/release/fpforge")
    ap.add_argument("--seeds", help="comma-separated seeds to judge instead of --first/--count")
    ap.add_argument("--json")
    args = ap.parse_args()
    if shutil.which("csmith") is None:
        sys.exit("csmith is not installed: apt-get install -y csmith libcsmith-dev")
    rows = []
    counts = collections.Counter()
    reasons = collections.Counter()
    with tempfile.TemporaryDirectory() as work:
        seeds = ([int(s) for s in args.seeds.split(",")] if args.seeds
                 else range(args.first, args.first + args.count))
        for seed in seeds:
            began = time.monotonic()
            verdict, why = judge(seed, args.fpforge, work)
            took = time.monotonic() - began
            rows.append({"seed": seed, "verdict": verdict, "why": why, "seconds": round(took, 1)})
            counts[verdict] += 1
            if verdict in ("unsupported", "mismatch", "skipped"):
                reasons[(verdict, why)] += 1
            print(f"{seed} {verdict} {took:.1f}s {why}", flush=True)
    judged = counts["agree"] + counts["mismatch"] + counts["unsupported"]
    print(f"\nprograms {len(rows)}, judged (UB-free) {judged}: agree {counts['agree']}, "
          f"mismatch {counts['mismatch']}, unsupported {counts['unsupported']}; skipped {counts['skipped']}")
    for (verdict, why), n in reasons.most_common():
        print(f"  {verdict:11} {n:5}  {why}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
