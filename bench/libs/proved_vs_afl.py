#!/usr/bin/env python3
"""Sides proved infeasible against AFL++, after `library.py --afl` (issue 19).

For each function of a library run with branch sides proved infeasible, its AFL++ queue
(kept under the build's `judge/FUNC/afl`) is replayed through the `--coverage` archive, and
the gcov branches AFL++ takes that fpforge's tests do not are listed on the lines of the
proved sides: a proved side AFL++ takes would show there. Functions whose gcov record is
empty for both drivers cannot be checked (they are listed as such by their counts).

    bench/libs/proved_vs_afl.py [--library gsl]
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import library as L  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--library", default="gsl", choices=["newlib", "musl", "gsl"])
ap.add_argument("--build", type=Path, default=L.CORPUS / "build/libs/library")
args = ap.parse_args()
work = args.build / args.library
out = work / "out"
cov = work / "cov"
defined = {}
for obj in sorted(cov.glob("*.o")):
    for sym in L.sh(["nm", "--defined-only", obj]).stdout.split("\n"):
        p = sym.split()
        if len(p) == 3 and p[1] in "TW":
            defined.setdefault(p[2], obj)
lib_a = cov / "lib.a"
link = [*([cov / "runtime.o"] if (cov / "runtime.o").exists() else []), *L.SYSTEM_LIBS.get(args.library, [])]
index = json.loads((out / "index.json").read_text())
checked = conflicts = proved_total = 0
no_afl = []
for r in index["functions"]:
    if r["status"] != "finished":
        continue
    d = json.loads((out / r["directory"] / "coverage.json").read_text())
    proved = []
    for site in d["sites"]:
        if site["kind"] == "trap":
            continue
        for s in site["sides"]:
            if s["status"] == "infeasible":
                proved.append((s["side"], s["method"], site["location"]))
    if not proved:
        continue
    proved_total += len(proved)
    func = r["function"]
    fdir = work / "judge" / func
    queue = [p for q in ("queue", "crashes", "hangs") for p in sorted((fdir / "afl/out/default" / q).glob("id*"))]
    if not queue or not (fdir / "regression.o").exists():
        no_afl.append(func)
        continue
    (fdir / "replay.c").write_text(L.REPLAY_DRIVER)
    L.sh(["gcc", "-std=gnu99", "-O0", "-w", "-c", "replay.c", "-o", "replay.o"], cwd=fdir)
    fp = L.gcov_of(fdir, lib_a, link, defined, func, fdir / "regression.o", [], "regression")
    afl = L.gcov_of(fdir, lib_a, link, defined, func, fdir / "replay.o", queue, "replay", timeout=300)
    if fp is None or afl is None:
        no_afl.append(func)
        continue
    checked += 1
    extra = afl[2] - fp[2]
    lines = {int(loc.split(":")[-2]) for _, _, loc in proved}
    hits = sorted(b for b in extra if int(b.split(":")[0]) in lines)
    status = "CONFLICT?" if hits else "ok"
    if hits:
        conflicts += 1
    print(f"{func}: {len(proved)} proved ({', '.join(sorted({m for _, m, _ in proved}))}); AFL++ {afl[0]}/{afl[1]}, fpforge {fp[0]}/{fp[1]}; AFL-only branches on proved lines: {hits or 'none'} {status}")
print(f"functions with proved sides checked against AFL++: {checked}, sides {proved_total}; with AFL-only branches on a proved side's line: {conflicts}; not checkable (no AFL++ queue or gcov record): {len(no_afl)} {no_afl}")
