#!/usr/bin/env python3
"""Whole libraries in one command (issue 18), judged by gcov per function against AFL++.

For each library, one `fpforge cover LIB --all --jobs 2` run (release build), then:
  1. gcov per function: the library's files compiled once with `gcc -O0 --coverage` into
     an archive; each function's `regression.c` is linked with it, run once, and the
     branches of that function are counted in the `gcov -b -c` output of the file that
     defines it (bench/cover/run.py's `gcov_branches`);
  2. AFL++ (with --afl): the same total wall time as fpforge's run, split evenly over the
     functions, two fuzzers at a time (2 cores): bench/cover's persistent-mode driver
     around each `regression.c`, the library compiled once with `afl-clang-fast -O2`,
     the queue replayed through the --coverage archive;
  3. the false-proof check (with --afl): for every function with sides or trap guards
     proved infeasible, AFL++'s inputs (crashes and hangs, then the queue; at most
     --replay-cap, chosen deterministically) are replayed through `fpforge run --json`
     with the same load flags, on the function's closure in the same module
     (bench/libs/replay.py). An input that takes a side reported infeasible, or traps at
     a guard proved safe, is a false proof: listed (function, side, location, input) in
     the table and the JSON, and the script exits non-zero.

Libraries:
- newlib 3.3.0's libm: bench/libs/whole.py's `newlib-libm.bc` (libm/math and
  libm/common linked), with no other flag. gcov's side links a C runtime of two
  definitions (`__errno`, `_impure_ptr`), as newlib's libc would.
- musl 1.2.3's `src/math` as one directory, with `--lib-dir src/fenv` and musl's flags
  (bench/cover's `Musl`).
- GSL 2.7.1's special functions: `specfunc/*.c` (not the tests, nor the fragments
  other files include) with `-f 'gsl_sf_*_e'`,
  `--lib-dir` on `specfunc` itself (`sincos_pi.c`), `sys`, `complex`, `poly` and bench/libs/host/gsl (C error reporting,
  as bench/libs/run.py loads them), and two run-wide specs, each applied to the functions
  with that parameter: `--out-arg result` (the `gsl_sf_result *result` or
  `gsl_sf_result_e10 *result` a function fills: a zero-filled output of the struct's
  size) and `--arg 'mode in [0, 2]'` (a `gsl_mode_t` is one of GSL_PREC_DOUBLE, _SINGLE,
  _APPROX: GSL indexes a three-entry table with it unchecked). gcov's and AFL++'s
  harnesses link the system's libgsl after the archive, for the linear algebra the
  mathieu functions' files call (the archive's definitions win).

--functions a,b,c runs those functions of the library instead of its selection (through
`fpforge cover --functions FILE`, same layout, judging and AFL++ budget rule: fpforge's
wall time split evenly over the functions run), to measure a subset such as the rows
below AFL++.

Prints one markdown table per library and the rows below or equal to AFL++, and writes
JSON beside them with --json.

    bench/libs/library.py [--only newlib|musl|gsl] [--functions a,b,c] [--time-limit 2]
                          [--afl] [--replay-cap 200] [--json FILE] [--build DIR]
    bench/libs/library.py --recheck [--only ...] [--build DIR]   # the false-proof check alone
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path.home() / ".cache/fpforge-corpus"
sys.path.insert(0, str(REPO / "bench/cover"))
from run import AFL_DRIVER, REPLAY_DRIVER, Musl, gcov_branches  # noqa: E402

sys.path.insert(0, str(REPO / "bench/libs"))
import replay  # noqa: E402

# What a library's files call that its harness archive does not build, from the system:
# GSL's mathieu_*.c call its linear algebra (gsl_matrix_*, gsl_vector_*, gsl_eigen_*),
# which Debian's libgsl-dev (the same 2.7.1) provides.
SYSTEM_LIBS = {"gsl": ["-lgsl", "-lgslcblas"]}

NEWLIB_RUNTIME = r"""
#include <reent.h>
static struct _reent fpforge_reent;
struct _reent *_impure_ptr = &fpforge_reent;
int *__errno(void) { return &fpforge_reent._errno; }
"""


def sh(cmd, cwd=None, timeout=None, check=True, env=None):
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {r.stderr[-1500:]}")
    return r


class Library:
    """A library's sources, how fpforge loads it and how gcc and AFL++ build it."""

    def __init__(self, name, sources, cflags, inputs, load=(), specs=(), runtime=None, select=("--all",),
                 system_libs=()):
        self.name = name
        self.select = list(select)
        self.sources = sources
        self.cflags = cflags
        # fpforge's inputs, the flags that load them (`fpforge run` takes these too) and
        # cover's run-wide argument specs.
        self.inputs = list(inputs)
        self.load = list(load)
        self.specs = list(specs)
        self.runtime = runtime
        # Linked after the archive, for what the library's own files call but the archive
        # does not build: the archive's definitions win, these fill the rest.
        self.system_libs = list(system_libs)

    @property
    def fpforge_args(self):
        return [*self.inputs, *self.load, *self.specs]

    def archive(self, work: Path, cc, flags, env=None):
        """Compiles every source (those that do not compile are left out) and the C
        runtime into `work`; returns (archive, what the link line takes after it: the
        runtime object and the system libraries, {symbol: source})."""
        work.mkdir(parents=True, exist_ok=True)
        objs, defined = [], {}
        jobs = []
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for i, src in enumerate(self.sources):
                obj = work / f"{i:03d}-{src.stem}.o"
                jobs.append((src, obj, pool.submit(sh, [cc, *self.cflags, *flags, "-c", src, "-o", obj],
                                                   work, None, False, env)))
        for src, obj, job in jobs:
            if job.result().returncode == 0:
                objs.append(obj)
                for sym in sh(["nm", "--defined-only", obj]).stdout.split("\n"):
                    parts = sym.split()
                    if len(parts) == 3 and parts[1] in "TW":
                        defined.setdefault(parts[2], obj)
        lib = work / "lib.a"
        lib.unlink(missing_ok=True)
        sh(["ar", "rcs", lib, *objs])
        link = []
        if self.runtime:
            (work / "runtime.c").write_text(self.runtime)
            link.append(work / "runtime.o")
            sh([cc, *self.cflags, "-O0", "-c", "runtime.c", "-o", link[0]], cwd=work, env=env)
        return lib, [*link, *self.system_libs], defined


def newlib(build: Path):
    src = Path(sh([REPO / "bench/source.sh", "newlib"]).stdout.strip()) / "newlib"
    bitcode = CORPUS / "build/libs/newlib/newlib-libm.bc"
    if not bitcode.exists():
        sys.exit(f"{bitcode}: run bench/libs/whole.py --only newlib first")
    sources = sorted((src / "libm/math").glob("*.c")) + sorted((src / "libm/common").glob("*.c"))
    flags = ["-w", "-I", str(src / "libc/include"), "-I", str(src / "libm/common")]
    return Library("newlib", sources, flags, [bitcode], runtime=NEWLIB_RUNTIME)


def musl(build: Path):
    root = Path(sh([REPO / "bench/source.sh", "musl"]).stdout.strip())
    tree = Musl(root, build / "musl")
    sources = sorted(tree.math.glob("*.c")) + [root / "src/fenv/fenv.c"]
    load = ["--lib-dir", root / "src/fenv", *tree.fpforge_flags()]
    return Library("musl", sources, tree.gcc_flags(), [tree.math], load)


def gsl(build: Path):
    root = Path(sh([REPO / "bench/source.sh", "gsl"]).stdout.strip())
    sh([REPO / "bench/accuracy/fetch.sh"])
    # Files without config.h are fragments other files #include (cheb_eval.c, ...).
    files = [f for f in sorted((root / "specfunc").glob("*.c"))
             if not f.name.startswith("test") and "#include <config.h>" in f.read_text(errors="replace")]
    dirs = [root / d for d in ("sys", "complex", "poly")] + [REPO / "bench/libs/host/gsl"]
    sources = [f for d in [root / "specfunc", *dirs] for f in sorted(d.glob("*.c"))
               if not f.name.startswith("test")]
    load = ["-I", root]
    for d in [root / "specfunc", *dirs]:
        load += ["--lib-dir", d]
    return Library("gsl", sources, ["-w", "-I", str(root)], files, load,
                   ["--out-arg", "result", "--arg", "mode in [0, 2]"], select=["-f", "gsl_sf_*_e"],
                   system_libs=SYSTEM_LIBS["gsl"])


def selection(lib: Library, functions, work: Path):
    """The flags that select the functions to run: the library's own, or the names of
    `functions` (a list) through a --functions file in `work`."""
    if not functions:
        return lib.select
    work.mkdir(parents=True, exist_ok=True)
    names = work / "functions.txt"
    names.write_text("".join(f"{name}\n" for name in functions))
    return ["--functions", names]


def run_fpforge(fpforge, lib: Library, select, out: Path, time_limit, jobs):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [fpforge, "cover", *lib.fpforge_args, *select, "--jobs", str(jobs),
           "--time-limit", str(time_limit), "--out", out]
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    r = sh(cmd, check=False)
    wall = time.monotonic() - t0
    if r.returncode not in (0, 3):
        sys.exit(f"fpforge cover failed ({r.returncode}): {r.stderr[-2000:]}")
    index = json.loads((out / "index.json").read_text())
    return index, wall, (load0, os.getloadavg()[0])


def gcov_of(work: Path, lib_a, link, defined, func, driver_obj, run_args, name, timeout=120):
    """Links `driver_obj` with the --coverage archive (then `link`), runs it, and counts `func`'s
    branches in the gcov output of its defining file: (taken, total, taken set)."""
    for g in lib_a.parent.glob("*.gcda"):
        g.unlink()
    exe = work / name
    if sh(["gcc", "--coverage", "-o", exe, driver_obj, lib_a, *link, "-lm"],
          check=False).returncode != 0:
        return None
    sh([exe, *run_args], cwd=work, timeout=timeout, check=False)
    obj = defined.get(func)
    if obj is None:
        return None
    gdir = work / f"gcov-{name}"
    shutil.rmtree(gdir, ignore_errors=True)
    gdir.mkdir()
    sh(["gcov", "-b", "-c", obj], cwd=gdir, check=False)
    for text in (p.read_text(errors="replace") for p in gdir.glob("*.gcov")):
        found = gcov_branches(text, func)
        if found is not None:
            return found
    return None


def afl(work: Path, afl_lib, afl_link, regression: Path, budget):
    """AFL++ on one function for `budget` seconds; returns its queue (inputs kept)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "driver.c").write_text(AFL_DRIVER)
    shutil.copy(regression, work / "regression.c")
    env = {**os.environ, "AFL_QUIET": "1"}
    sh(["afl-clang-fast", "-O2", "-w", "-o", "fuzz", "driver.c", afl_lib,
        *afl_link, "-lm"], cwd=work, env=env)
    coords = int(re.search(r"#define FPFORGE_COORDS (\d+)", regression.read_text()).group(1))
    seeds = work / "seeds"
    seeds.mkdir(exist_ok=True)
    (seeds / "zero").write_bytes(bytes(8 * max(coords, 1)))
    (seeds / "one").write_bytes((0x3FF0000000000000).to_bytes(8, "little") * max(coords, 1))
    env.update(AFL_SKIP_CPUFREQ="1", AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1", AFL_NO_UI="1",
               AFL_NO_AFFINITY="1", AFL_SKIP_BIN_CHECK="1", AFL_FAST_CAL="1", AFL_NO_CRASH_README="1")
    sh(["afl-fuzz", "-i", seeds, "-o", work / "out", "-V", str(max(1, round(budget))), "--",
        work / "fuzz"], cwd=work, env=env, timeout=budget + 120, check=False)
    return [p for d in ("queue", "crashes", "hangs")
            for p in sorted((work / "out/default" / d).glob("id*"))]


def ensure_afl():
    """Installs Debian's AFL++ (afl-fuzz, afl-clang-fast) when it is missing."""
    if shutil.which("afl-fuzz") and shutil.which("afl-clang-fast"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    sh([*sudo, "apt-get", "update", "-qq"], env=env)
    sh([*sudo, "apt-get", "install", "-y", "-qq", "afl++"], env=env)


def measure(lib: Library, args, build: Path):
    work = build / lib.name
    out = work / "out"
    select = selection(lib, args.functions, work)
    index, wall, load = run_fpforge(args.fpforge, lib, select, out, args.time_limit, args.jobs)
    rows = []
    result = {"library": lib.name, "wall": wall, "load": load, "rows": rows,
              "selected": len(index["functions"])}
    print(f"{lib.name}: fpforge cover {' '.join(map(str, select))} --jobs {args.jobs} --time-limit {args.time_limit}: "
          f"{wall:.0f} s wall, load average {load[0]:.1f} before, {load[1]:.1f} after", flush=True)
    cov_lib, cov_link, defined = lib.archive(work / "cov", "gcc", ["-O0", "--coverage"])
    finished = [r for r in index["functions"] if r["status"] == "finished"]
    for r in index["functions"]:
        row = {"function": r["function"], "status": r["status"]}
        rows.append(row)
        if r["status"] != "finished":
            row["error"] = r.get("error", "")
            continue
        row.update(sides=r["sides"], covered=r["covered"], infeasible=r["infeasible"],
                   crashes=r["crashes"], hangs=r["hangs"])
        fdir = work / "judge" / r["function"]
        fdir.mkdir(parents=True, exist_ok=True)
        shutil.copy(out / r["directory"] / "regression.c", fdir / "regression.c")
        drv = fdir / "regression.o"
        if sh(["gcc", "-std=gnu99", "-O0", "-w", "-c", "regression.c", "-o", drv], cwd=fdir,
              check=False).returncode != 0:
            row["gcov_error"] = "regression.c does not compile"
            continue
        g = gcov_of(fdir, cov_lib, cov_link, defined, r["function"], drv, [], "regression")
        if g is None:
            row["gcov_error"] = "no gcov record of the function (an alias, or its harness does not link)"
            continue
        row["fp_taken"], row["branches"], _ = g
    if args.afl:
        afl_lib, afl_link, _ = lib.archive(work / "afl", "afl-clang-fast", ["-O2"],
                                         env={**os.environ, "AFL_QUIET": "1"})
        judged = [row for row in rows if "branches" in row]
        budget = wall * args.jobs / max(len(finished), 1)

        def fuzz(row):
            fdir = work / "judge" / row["function"]
            shutil.rmtree(fdir / "afl", ignore_errors=True)
            return row, afl(fdir / "afl", afl_lib, afl_link, fdir / "regression.c", budget)

        queues = {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for row, queue in pool.map(fuzz, judged):
                fdir = work / "judge" / row["function"]
                (fdir / "replay.c").write_text(REPLAY_DRIVER)
                sh(["gcc", "-std=gnu99", "-O0", "-w", "-c", "replay.c", "-o", "replay.o"], cwd=fdir)
                g = gcov_of(fdir, cov_lib, cov_link, defined, row["function"], fdir / "replay.o",
                            queue, "replay", timeout=300)
                row["afl_taken"] = g[0] if g else 0
                row["afl_budget"] = budget
                queues[row["function"]] = queue
        result["proof_check"] = check_proofs(lib, args, work, index, rows, queues)
    return result


def check_proofs(lib: Library, args, work: Path, index, rows, queues):
    """Replays AFL++'s inputs of every function with a side or trap guard proved
    infeasible through `fpforge run` (bench/libs/replay.py); fills the `replay` of each
    such function's row and returns the totals."""
    proved = {r["function"]: r for r in index["functions"]
              if r["status"] == "finished" and (r["infeasible"] or r["traps"]["infeasible"])}
    checked_rows = [row for row in rows if row["function"] in proved]
    t0 = time.monotonic()
    bitcode = replay.LibraryBitcode(work / "replay", lib.inputs, lib.load) if proved else None
    ranges = replay.spec_ranges(lib.specs)
    for row in checked_rows:
        func = row["function"]
        if func not in queues:
            row["replay"] = {"error": "no AFL++ run (not judged by gcov)"}
            continue
        row["replay"] = replay.check_function(
            args.fpforge, bitcode, lib.load, func, work / "judge" / func / "regression.c",
            work / "out" / proved[func]["directory"], queues[func], args.replay_cap, ranges, args.jobs)
    checks = [row["replay"] for row in checked_rows]
    checked = [row["function"] for row in checked_rows if "error" not in row["replay"]]
    total = lambda key: sum(c.get(key, 0) for c in checks)
    return {"functions": len(proved), "checked": len(checked),
            "sides": sum(proved[f]["infeasible"] for f in proved),
            "traps": sum(proved[f]["traps"]["infeasible"] for f in proved),
            "sides_checked": sum(proved[f]["infeasible"] for f in checked),
            "traps_checked": sum(proved[f]["traps"]["infeasible"] for f in checked),
            "replayed": total("replayed"), "out_of_spec": total("out_of_spec"), "failed": total("failed"),
            "false_proofs": sum(len(c.get("false_proofs", [])) for c in checks),
            "proved_sides_reached": total("proved_sides_reached"),
            "seconds": time.monotonic() - t0, "cap": args.replay_cap}


def recheck(lib: Library, args, build: Path):
    """The false-proof check alone, on the cover run and AFL++ queues a previous --afl run
    left in `build` (after a fix, or with another --replay-cap)."""
    work = build / lib.name
    index = json.loads((work / "out/index.json").read_text())
    rows = [{"function": r["function"]} for r in index["functions"]]
    queues = {}
    for row in rows:
        found = [p for d in ("queue", "crashes", "hangs")
                 for p in sorted((work / "judge" / row["function"] / "afl/out/default" / d).glob("id*"))]
        if found:
            queues[row["function"]] = found
    result = {"library": lib.name, "rows": rows}
    result["proof_check"] = check_proofs(lib, args, work, index, rows, queues)
    return result


def pct(taken, total):
    return 100.0 * taken / total if total else 100.0


def print_table(result):
    rows = result["rows"]
    judged = [r for r in rows if "branches" in r]
    fp = [pct(r["fp_taken"], r["branches"]) for r in judged]
    print(f"\n### {result['library']}\n")
    print(f"{result['selected']} functions selected; {len(judged)} judged by gcov; "
          f"total wall time {result['wall']:.0f} s (load average {result['load'][0]:.1f} → "
          f"{result['load'][1]:.1f})\n")
    with_afl = [r for r in judged if "afl_taken" in r]
    print("| | fpforge | AFL++ |")
    print("|---|---:|---:|")
    afl = [pct(r["afl_taken"], r["branches"]) for r in with_afl]
    mean = lambda xs: f"{statistics.mean(xs):.1f}%" if xs else "-"
    median = lambda xs: f"{statistics.median(xs):.1f}%" if xs else "-"
    print(f"| mean gcov branch coverage | {mean(fp)} | {mean(afl)} |")
    print(f"| median gcov branch coverage | {median(fp)} | {median(afl)} |")
    print(f"| branches taken / total | {sum(r['fp_taken'] for r in judged)} / "
          f"{sum(r['branches'] for r in judged)} | "
          f"{sum(r['afl_taken'] for r in with_afl)} / {sum(r['branches'] for r in with_afl)} |")
    print(f"| sides proved infeasible | {sum(r['infeasible'] for r in judged)} | |")
    print(f"| functions with crashes / hangs | {sum(1 for r in judged if r['crashes'])} / "
          f"{sum(1 for r in judged if r['hangs'])} | |")
    if with_afl:
        above = [r for r in with_afl if r["fp_taken"] > r["afl_taken"]]
        equal = [r for r in with_afl if r["fp_taken"] == r["afl_taken"]]
        below = [r for r in with_afl if r["fp_taken"] < r["afl_taken"]]
        print(f"| fpforge above / equal / below AFL++ | {len(above)} / {len(equal)} / {len(below)} | |")
        print(f"\nequal at 100%: {sum(1 for r in equal if r['fp_taken'] == r['branches'])}; "
              f"below: " + (", ".join(f"{r['function']} ({r['fp_taken']} vs {r['afl_taken']} of "
                                       f"{r['branches']})" for r in below) or "none"))
        print("equal below 100%: " + (", ".join(
            f"{r['function']} ({r['fp_taken']} of {r['branches']})" for r in equal
            if r["fp_taken"] < r["branches"]) or "none"))
    errors = [r for r in rows if r["status"] != "finished" or "gcov_error" in r]
    for r in errors:
        print(f"- {r['function']}: {r.get('error') or r.get('gcov_error')}"[:300])
    if "proof_check" in result:
        print_proof_check(result)


def print_proof_check(result):
    """The replay of AFL++'s inputs against the sides proved infeasible: totals, every
    false proof, and the functions it could not check."""
    c = result["proof_check"]
    print(f"\nfalse-proof check ({result['library']}): {c['replayed']} AFL++ inputs replayed through "
          f"`fpforge run` (at most {c['cap']} a function) on {c['checked']} of the {c['functions']} "
          f"functions with proofs ({c['sides_checked']} of {c['sides']} branch sides and "
          f"{c['traps_checked']} of {c['traps']} trap guards proved infeasible) in {c['seconds']:.0f} s; "
          f"{c['out_of_spec']} outside the run's specs skipped, {c['failed']} runs failed; "
          f"false proofs: {c['false_proofs']}. {c['proved_sides_reached']} of the proved branch sides "
          f"checked are at branches a replayed input executes (the proofs put to the test)\n")
    checked = [r for r in result["rows"] if "replay" in r]
    if c["false_proofs"]:
        print("| function | side proved infeasible | location | method | AFL++ input |")
        print("|---|---|---|---|---|")
        for r in checked:
            for f in r["replay"].get("false_proofs", []):
                print(f"| {r['function']} | {f['site']}:{f['side']} | {f['location']} | {f['method']} | "
                      f"`{' '.join(f['input'])}` |")
    for r in checked:
        if "error" in r["replay"]:
            print(f"- not checked: {r['function']}: {r['replay']['error']}"[:300])
        elif r["replay"]["mismatches"]:
            print(f"- {r['function']}: replayed sides with an arm coverage.json's site lacks: "
                  f"{r['replay']['mismatches'][:3]}"[:300])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--only", choices=["newlib", "musl", "gsl"])
    ap.add_argument("--time-limit", type=float, default=2.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--functions", type=lambda text: [f for f in text.split(",") if f],
                    help="comma-separated function names: run these instead of the selection")
    ap.add_argument("--afl", action="store_true")
    ap.add_argument("--replay-cap", type=int, default=200,
                    help="AFL++ inputs replayed through `fpforge run` per function with sides proved infeasible")
    ap.add_argument("--recheck", action="store_true",
                    help="only the false-proof check, on what a previous --afl run left in --build")
    ap.add_argument("--build", type=Path, default=CORPUS / "build/libs/library")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.afl:
        ensure_afl()
    results = []
    for name, make in (("newlib", newlib), ("musl", musl), ("gsl", gsl)):
        if args.only in (None, name):
            if args.recheck:
                result = recheck(make(args.build), args, args.build)
                print_proof_check(result)
            else:
                result = measure(make(args.build), args, args.build)
                print_table(result)
            results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if any(r.get("proof_check", {}).get("false_proofs") for r in results):
        sys.exit("false proofs: AFL++ inputs take sides fpforge reported infeasible (listed above)")


def reprint(path):
    """Prints the tables of a --json file again."""
    for result in json.loads(Path(path).read_text()):
        print_table(result)


if __name__ == "__main__":
    main()
