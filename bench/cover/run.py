#!/usr/bin/env python3
"""Branch coverage of musl's src/math measured by gcov: fpforge cover against random
testing and AFL++, each peer given ten times fpforge's wall-clock time.

For every selected function (double/float/int parameters and pointers to those):
  1. `fpforge cover` on the function's file plus the musl helpers it calls
     (`__rem_pio2`, `__cos`, data tables, ...), with musl's own compiler flags;
  2. gcov measures its inputs: the function's file is compiled with `gcc -O0 --coverage`
     and linked with the `regression.c` fpforge emitted (the same harness the gcov
     agreement tests use), run once, and the branches of the function are counted from
     `gcov -b -c` (taken at least once / total);
  3. random testing: `regression.c` as a library (`-DFPFORGE_NO_MAIN`) driven by
     uniformly random bit patterns per coordinate, linked with the same --coverage
     object, run for the peer budget;
  4. AFL++: the same library driven by afl-fuzz in persistent mode (8 raw bytes per
     coordinate on stdin), built with afl-clang-fast; its queue is then replayed
     through the --coverage object.
  5. soundness cross-check: the peers' inputs (the AFL++ queue, then the start of the
     random driver's stream, at most --replay-cap per function) are replayed through
     the interpreter (`fpforge run --json` on the function's bitcode, compiled once with
     fpforge's own clang flags) and no branch side they take may be one fpforge reported
     `infeasible (...)`.
Optional ablation rows rerun fpforge with one improvement switched off.

Prints a markdown table (and writes JSON beside it with --json).
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
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FPFORGE = REPO / "target/release/fpforge"

# Types a selected function may take (pointers to them too) and return.
SCALARS = {"double", "float", "int", "long", "long long"}


def status_label(side):
    """A coverage.json side's status in words: `covered`, `infeasible (METHOD)`,
    `not reached (likely infeasible)`, `not reached (not tried enough)` or
    `not reached (branch not executed)`."""
    if side["status"] == "infeasible":
        return f"infeasible ({side['method']})"
    if side["status"] == "not reached":
        if not side.get("branch_reached"):
            return "not reached (branch not executed)"
        return "not reached (likely infeasible)" if side.get("likely_infeasible") else "not reached (not tried enough)"
    return side["status"]


def branch_sites(cov):
    """The program's own branch sites of a coverage.json (trap guards are counted apart)."""
    return [s for s in cov["sites"] if s.get("kind") != "trap"]


def sh(cmd, cwd=None, timeout=None, check=True, env=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {r.stderr[-2000:]}{r.stdout[-500:]}")
    return r


class Musl:
    """musl's tree: compiler flags, the function pool and each symbol's defining file."""

    def __init__(self, root: Path, build: Path):
        self.root = root
        self.math = root / "src/math"
        bits = build / "obj/include/bits"
        bits.mkdir(parents=True, exist_ok=True)
        alltypes = sh(["sed", "-f", root / "tools/mkalltypes.sed",
                       root / "arch/x86_64/bits/alltypes.h.in", root / "include/alltypes.h.in"]).stdout
        (bits / "alltypes.h").write_text(alltypes)
        self.includes = [root / "arch/x86_64", root / "arch/generic", build / "obj/src/internal",
                         root / "src/include", root / "src/internal", build / "obj/include",
                         root / "include"]
        self.defines = ["_XOPEN_SOURCE=700"]
        self.cflags = ["-ffreestanding", "-nostdinc", "-fno-strict-aliasing", "-w"]
        self.texts = {p.name: p.read_text(errors="replace") for p in sorted(self.math.glob("*.c"))}
        self.defined_in = {}
        for name, text in self.texts.items():
            if "long double" in text and not name.startswith("__"):
                pass
            for m in re.finditer(r"^(?!static)[A-Za-z_][\w \*]*?\b(__\w+)\s*(\(|\[|=)[^;]*$", text, re.M):
                self.defined_in.setdefault(m.group(1), name)

    def gcc_flags(self):
        return (["-std=c99"] + self.cflags + [f"-D{d}" for d in self.defines]
                + [f"-I{p}" for p in self.includes])

    def fpforge_flags(self):
        out = ["--std", "c99"]
        for p in self.includes:
            out += ["-I", str(p)]
        for d in self.defines:
            out += ["-D", d]
        for f in self.cflags:
            out.append(f"--cflag={f}")
        return out

    def signature(self, func):
        """(return type, [param types]) of `func` defined in `func.c`, or None."""
        text = self.texts.get(f"{func}.c")
        if text is None:
            return None
        m = re.search(r"^([A-Za-z][\w ]*?)\s*\b" + re.escape(func) + r"\s*\(([^)]*)\)\s*\{", text, re.M)
        if not m:
            return None
        ret = m.group(1).strip()
        params = [p.strip() for p in m.group(2).split(",")]
        types = []
        for p in params:
            p = re.sub(r"\b(const|volatile|restrict)\b", "", p).strip()
            pm = re.match(r"^(.*?)(\*?)\s*\w+$", p.replace(" *", "*").replace("* ", "*"))
            if not pm:
                return None
            base, star = pm.group(1).strip().rstrip("*").strip(), ("*" in p)
            if base not in SCALARS:
                return None
            types.append(base + ("*" if star else ""))
        if ret not in SCALARS | {"void"}:
            return None
        return ret, types

    def closure(self, func):
        """The files `func`'s file needs: itself first, then musl helpers (transitively)."""
        first = f"{func}.c"
        files, todo = [first], [first]
        while todo:
            text = self.texts[todo.pop()]
            for sym in sorted(set(re.findall(r"\b(__\w+)\b", text))):
                f = self.defined_in.get(sym)
                # Files ending in `l.c` are the long double versions.
                if f and f not in files and not f.endswith("l.c"):
                    files.append(f)
                    todo.append(f)
        return files


def gcov_branches(gcov_text, func):
    """Branches of `func` in a `gcov -b -c` file: (taken at least once, total, the taken
    ones as `line:N` texts). Counted as crates/cli/tests/gcov.rs counts them: the
    `branch N taken M` lines from the `function FUNC called` header to the next function."""
    lines = gcov_text.splitlines()
    header = f"function {func} called"
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith(header))
    except StopIteration:
        return None
    taken, total, line = set(), 0, 0
    for l in lines[start + 1:]:
        if l.startswith("function "):
            break
        source = re.match(r"\s*[^:]+:\s*(\d+):", l)
        if source:
            line = int(source.group(1))
        if l.startswith("branch "):
            total += 1
            w = l.split()
            if "taken" in w and int(w[w.index("taken") + 1].rstrip("%")) > 0:
                taken.add(f"{line}:{w[1]}")
    return len(taken), total, taken


RANDOM_DRIVER = r"""
#define FPFORGE_NO_MAIN
#include "regression.c"
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
/* One call can loop for long (jn with a huge n): an alarm ends the run, and exit()
 * still writes the coverage data. */
static void fpforge_stop(int sig) { (void)sig; exit(0); }
int main(int argc, char **argv) {
    double secs = atof(argv[1]);
    signal(SIGALRM, fpforge_stop);
    alarm((unsigned)secs + 2);
    uint64_t s = strtoull(argv[2], 0, 10) * 0x9E3779B97F4A7C15ull + 1, v[FPFORGE_COORDS + 1];
    struct timespec t0, t;
    unsigned long long n = 0;
    int k;
    fpforge_quiet = 1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        for (k = 0; k < FPFORGE_COORDS; k++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            v[k] = s;
        }
        fpforge_call(v);
        if ((++n & 1023) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) >= secs) break;
        }
    }
    printf("%llu\n", n);
    return 0;
}
"""

AFL_DRIVER = r"""
#define FPFORGE_NO_MAIN
#include "regression.c"
#include <unistd.h>
__AFL_FUZZ_INIT();
int main(void) {
    uint64_t v[FPFORGE_COORDS + 1];
    unsigned char *buf;
    fpforge_quiet = 1;
    __AFL_INIT();
    buf = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(100000)) {
        int len = __AFL_FUZZ_TESTCASE_LEN;
        memset(v, 0, sizeof v);
        memcpy(v, buf, len < (int)(8 * FPFORGE_COORDS) ? len : (int)(8 * FPFORGE_COORDS));
        fpforge_call(v);
    }
    return 0;
}
"""

REPLAY_DRIVER = r"""
#define FPFORGE_NO_MAIN
#include "regression.c"
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
static void fpforge_stop(int sig) { (void)sig; exit(0); }
int main(int argc, char **argv) {
    int i;
    fpforge_quiet = 1;
    signal(SIGALRM, fpforge_stop);
    alarm(60);
    for (i = 1; i < argc; i++) {
        uint64_t v[FPFORGE_COORDS + 1];
        FILE *f = fopen(argv[i], "rb");
        if (!f) continue;
        memset(v, 0, sizeof v);
        if (fread(v, 1, 8 * FPFORGE_COORDS, f)) {}
        fclose(f);
        fpforge_call(v);
    }
    return 0;
}
"""


class Bench:
    def __init__(self, musl: Musl, args):
        self.musl = musl
        self.args = args
        self.afl = shutil.which("afl-clang-fast") and shutil.which("afl-fuzz")
        self.afl_execs = 0

    def objects(self, work: Path, files, cc="gcc", extra=()):
        """Compiles the function's file (with `extra`, e.g. --coverage) and its helpers."""
        objs = []
        for i, f in enumerate(files):
            obj = work / (Path(f).stem + ".o")
            flags = list(extra) if i == 0 else ["-O0"]
            sh([cc, *self.musl.gcc_flags(), *flags, "-c", self.musl.math / f, "-o", obj], cwd=work)
            objs.append(obj)
        return objs

    def measure(self, work: Path, func, files, run_driver):
        """Builds `driver.c` against the --coverage object, runs it, returns gcov's count."""
        for g in work.glob("*.gcda"):
            g.unlink()
        run_driver()
        stem = Path(files[0]).stem
        sh(["gcov", "-b", "-c", f"{stem}.o"], cwd=work)
        text = (work / f"{files[0]}.gcov").read_text()
        return gcov_branches(text, func)

    def link(self, work, driver_src, name, objs):
        (work / f"{name}.c").write_text(driver_src)
        sh(["gcc", "-std=gnu99", "-O0", "-w", "-c", f"{name}.c", "-o", f"{name}.drv.o"], cwd=work)
        sh(["gcc", "--coverage", "-o", name, f"{name}.drv.o", *objs, "-lm"], cwd=work)

    def run_fpforge(self, work: Path, func, files, extra_flags=(), out_name="fp"):
        out = work / out_name
        cmd = [self.args.fpforge, "cover", *[self.musl.math / f for f in files], "-f", func,
               *self.musl.fpforge_flags(), "--seed", "1", "--time-limit", str(self.args.time_limit),
               *([] if "--jobs" in extra_flags else ["--jobs", str(self.args.jobs)]),
               "--out", out, *extra_flags]
        t0 = time.monotonic()
        r = sh(cmd, check=False, timeout=self.args.time_limit * 3 + 60)
        wall = time.monotonic() - t0
        # Exit code 3: the run found crashes or hangs (listed in coverage.json).
        if r.returncode not in (0, 3):
            raise RuntimeError(f"fpforge cover failed: {r.stderr.strip()[-500:]}")
        cov = json.loads((out / "coverage.json").read_text())
        return out, wall, cov

    def gcov_of_fpforge(self, work, func, files, out, objs):
        shutil.copy(out / "regression.c", work / "regression.c")
        sh(["gcc", "-std=c99", "-O0", "-w", "-c", "regression.c", "-o", "regression.o"], cwd=work)
        sh(["gcc", "--coverage", "-o", "regression", "regression.o", *objs, "-lm"], cwd=work)
        return self.measure(work, func, files,
                            lambda: sh(["./regression"], cwd=work, timeout=120, check=False))

    def one(self, func, files):
        row = {"function": func, "files": files}
        with tempfile.TemporaryDirectory(prefix=f"fpcov-{func}-") as tmp:
            work = Path(tmp)
            try:
                out, wall, cov = self.run_fpforge(work, func, files)
            except RuntimeError as e:
                # Public functions it calls (remainder -> remquo), musl's C fenv
                # (nearbyint -> fetestexcept) or globals (lgamma -> __signgam): add the
                # files the load error names, as musl-diff does.
                names = re.findall(r"^\s+(\w+) \((?:function|global)\):", str(e), re.M)
                if not names:
                    raise
                for name in names:
                    f = "../fenv/fenv.c" if name.startswith("fe") else f"{name.lstrip('_')}.c"
                    if not (self.musl.math / f).exists():
                        raise
                    if f not in files:
                        files.append(f)
                row["files"] = files
                out, wall, cov = self.run_fpforge(work, func, files)
            objs = self.objects(work, files, extra=["-O0", "--coverage"])
            row.update(fp_wall=wall, evals=cov["stats"]["evaluations"], search_s=cov.get("seconds"),
                       infeasible=cov["infeasible"], sides=cov["sides"],
                       sides_covered=cov["covered"], tests=cov["tests"], stop=cov.get("stop"),
                       crashes=cov["crashes"], hangs=cov["hangs"],
                       traps=cov.get("traps", {"targets": 0, "reached": 0, "infeasible": 0, "not_reached": 0}))
            statuses = [status_label(side) for s in branch_sites(cov) for side in s["sides"]]
            row["sides_infeasible"] = cov["infeasible"]
            row["sides_open"] = row["sides"] - row["sides_covered"] - row["sides_infeasible"]
            row["settled"] = row["sides_open"] == 0
            row["statuses"] = {}
            for st in statuses:
                row["statuses"][st] = row["statuses"].get(st, 0) + 1
            row["uncovered"] = [(s["location"], side["side"], status_label(side))
                                for s in branch_sites(cov) for side in s["sides"]
                                if side["status"] != "covered"]
            g = self.gcov_of_fpforge(work, func, files, out, objs)
            if g is None:
                row["error"] = "gcov has no record of the function"
                return row
            row["fp_taken"], row["branches"], fp_set = g
            shutil.copy(out / "regression.c", work / "regression.c")
            budget = max(10 * wall, self.args.min_peer)
            if self.args.peer_cap:
                budget = min(budget, self.args.peer_cap)
            row["peer_budget"] = budget
            if self.args.peers:
                self.link(work, RANDOM_DRIVER, "random", objs)
                row["random_taken"], _, peer_set = self.measure(
                    work, func, files,
                    lambda: sh(["./random", f"{budget}", "1"], cwd=work, timeout=budget + 120))
                queue = []
                if self.afl:
                    row["afl_taken"], queue, afl_set = self.afl_run(work, func, files, objs, budget)
                    row["afl_execs"] = self.afl_execs
                    peer_set = peer_set | afl_set
                # gcov's own view of soundness: a branch some peer input takes and no test
                # of fpforge's does (with every side settled, there must be none).
                row["peer_only"] = sorted(peer_set - fp_set)
                if self.args.replay_cap:
                    row.update(self.cross_check(work, func, files, cov, queue))
            for name, flags in self.args.ablations:
                out2, wall2, cov2 = self.run_fpforge(work, func, files, flags, out_name=f"fp-{name}")
                g2 = self.gcov_of_fpforge(work, func, files, out2, objs)
                settled = cov2["not_reached"] == 0
                row.setdefault("ablations", {})[name] = {"taken": g2[0] if g2 else 0, "wall": wall2,
                                                         "settled": settled}
        return row

    def afl_run(self, work, func, files, objs, budget):
        afl = work / "afl"
        afl.mkdir()
        (afl / "driver.c").write_text(AFL_DRIVER)
        shutil.copy(work / "regression.c", afl / "regression.c")
        aobjs = []
        for f in files:
            o = afl / (Path(f).stem + ".o")
            sh(["afl-clang-fast", *self.musl.gcc_flags(), "-O2", "-c", self.musl.math / f, "-o", o],
               cwd=afl, env={**os.environ, "AFL_QUIET": "1"})
            aobjs.append(o)
        sh(["afl-clang-fast", "-O2", "-w", "-o", "fuzz", "driver.c", *aobjs, "-lm"], cwd=afl,
           env={**os.environ, "AFL_QUIET": "1"})
        seeds = afl / "seeds"
        seeds.mkdir()
        coords = int(re.search(r"#define FPFORGE_COORDS (\d+)", (work / "regression.c").read_text()).group(1))
        # Seeds: every coordinate 0, and every coordinate the bits of 1.0.
        (seeds / "zero").write_bytes(bytes(8 * max(coords, 1)))
        (seeds / "one").write_bytes((0x3FF0000000000000).to_bytes(8, "little") * max(coords, 1))
        env = {**os.environ, "AFL_SKIP_CPUFREQ": "1", "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1",
               "AFL_NO_UI": "1", "AFL_NO_AFFINITY": "1", "AFL_QUIET": "1", "AFL_SKIP_BIN_CHECK": "1",
               "AFL_FAST_CAL": "1", "AFL_NO_CRASH_README": "1"}
        r = sh(["afl-fuzz", "-i", seeds, "-o", afl / "out", "-V", str(max(1, round(budget))), "--", afl / "fuzz"],
               cwd=afl, env=env, timeout=budget + 120, check=False)
        if not (afl / "out/default/queue").is_dir():
            raise RuntimeError(f"afl-fuzz: {r.stdout[-300:]} {r.stderr[-300:]}")
        stats = (afl / "out/default/fuzzer_stats").read_text() if (afl / "out/default/fuzzer_stats").exists() else ""
        m = re.search(r"execs_done\s*:\s*(\d+)", stats)
        self.afl_execs = int(m.group(1)) if m else 0
        queue = [p for d in ("queue", "crashes", "hangs") for p in sorted((afl / "out/default" / d).glob("id*"))]
        self.link(work, REPLAY_DRIVER, "replay", objs)
        g = self.measure(work, func, files,
                         lambda: sh(["./replay", *queue], cwd=work, timeout=300, check=False))
        return (g[0], queue, g[2]) if g else (0, queue, set())

    def cross_check(self, work: Path, func, files, cov, queue):
        """Replays peer inputs through the interpreter: the sides fpforge reported
        infeasible that one of them takes (must be none), and how many were replayed."""
        infeasible = {(s["id"], side["arm"]): status_label(side) for s in branch_sites(cov)
                      for side in s["sides"] if side["status"] == "infeasible"}
        out = {"replayed": 0, "replay_failed": 0, "violations": [], "site_mismatch": []}
        if not infeasible:
            return out
        decode = self.arg_decoder(work / "regression.c", func)
        if decode is None:
            out["replay_error"] = "cannot read the parameters from regression.c"
            return out
        coords = decode[0]
        try:
            decode[1]([0] * coords)
        except ValueError as e:
            out["replay_error"] = f"unexpected argument expression in regression.c: {e}"
            return out
        inputs = []
        for q in queue[: self.args.replay_cap // 2]:
            raw = q.read_bytes()[: 8 * coords].ljust(8 * coords, b"\0")
            inputs.append([int.from_bytes(raw[8 * k: 8 * k + 8], "little") for k in range(coords)])
        # The random driver's stream (seed 1): its first inputs, as it drew them.
        s = (1 * 0x9E3779B97F4A7C15 + 1) & (2**64 - 1)
        while len(inputs) < self.args.replay_cap:
            v = []
            for _ in range(coords):
                s ^= (s << 13) & (2**64 - 1)
                s ^= s >> 7
                s ^= (s << 17) & (2**64 - 1)
                v.append(s)
            inputs.append(v)
        bc = self.bitcode(work, files)
        locations = {s["id"]: s["location"] for s in branch_sites(cov)}
        # Every side a replay takes at a site of coverage.json must be one of its sides
        # (the labels agree); the ones that are not are listed.
        labels = {(s["id"], side["arm"]) for s in branch_sites(cov) for side in s["sides"]}
        out["unknown_sides"] = []

        def replay(bits):
            # The same instruction budget per run as cover's (its --fuel default): without
            # one, jn with a huge n runs for the default budget, a thousand times longer.
            try:
                r = subprocess.run([self.args.fpforge, "run", bc, "-f", func, "--json", "--fuel", "100000",
                                    "--", *decode[1](bits)], capture_output=True, text=True, timeout=120)
                return bits, json.loads(r.stdout)
            except (json.JSONDecodeError, subprocess.TimeoutExpired):
                return bits, None
        with concurrent.futures.ThreadPoolExecutor(self.args.replay_jobs) as pool:
            for bits, res in pool.map(replay, inputs):
                if res is None:
                    out["replay_failed"] += 1
                    continue
                out["replayed"] += 1
                for b in res.get("sides", []):
                    key = (b["site"], b["outcome"])
                    loc = locations.get(b["site"])
                    if loc is not None and loc != b["location"] and b["site"] not in out["site_mismatch"]:
                        out["site_mismatch"].append(b["site"])
                    if loc is not None and key not in labels and list(key) not in out["unknown_sides"]:
                        out["unknown_sides"].append(list(key))
                    if key in infeasible and all((v["site"], v["side"]) != key for v in out["violations"]):
                        out["violations"].append({"site": key[0], "side": key[1], "status": infeasible[key],
                                                  "location": b["location"],
                                                  "input": [f"{x:#x}" for x in bits]})
        return out

    def bitcode(self, work: Path, files):
        """Links the function's files to one bitcode file with the clang flags fpforge
        uses itself (crates/lower/src/frontend.rs), so `fpforge run` skips clang and
        numbers the sites as `cover` did (checked against coverage.json's locations)."""
        bcs = []
        for i, f in enumerate(files):
            bc = work / f"replay{i}.bc"
            sh(["clang-14", "-O0", "-Xclang", "-disable-O0-optnone", "-g", "-fno-discard-value-names",
                "-ffp-contract=off", "-emit-llvm", "-c", *self.musl.gcc_flags(), self.musl.math / f,
                "-o", bc], cwd=work)
            bcs.append(bc)
        out = work / "replay.bc"
        sh(["llvm-link-14", *bcs, "-o", out], cwd=work)
        return out

    @staticmethod
    def arg_decoder(regression: Path, func):
        """(number of coordinates, bits -> `fpforge run` argument texts), read from the
        `fpforge_call` that `fpforge cover` emitted (emit_c.rs's conversions)."""
        text = regression.read_text()
        m = re.search(r"#define FPFORGE_COORDS (\d+)", text)
        call = re.search(r"^\s+(?:[\w ]+ fpforge_r = )?(?:\(long long\))?fpforge_fn\((.*)\);$", text, re.M)
        if not m or not call:
            return None
        coords = int(m.group(1))
        arrays = {}
        for a in re.finditer(r"(fpforge_a\d+)\[(\d+)\] = (.*);", text):
            arrays.setdefault(a.group(1), []).append(a.group(3))
        parts = split_args(call.group(1))

        def value(expr, bits):
            k = re.search(r"fpforge_v\[(\d+)\]", expr)
            if not k:
                raise ValueError(expr)
            b = bits[int(k.group(1))]
            if "fpforge_f64_bits" in expr:
                return f"raw:{b:016x}"
            if "fpforge_f32_bits" in expr:
                return f"raw:{b & 0xFFFFFFFF:08x}"
            w = re.search(r"fpforge_sext\(fpforge_v\[\d+\], (\d+)\)", expr)
            width = int(w.group(1)) if w else 64
            b &= (1 << width) - 1
            return str(b - (1 << width) if b >> (width - 1) else b)

        def args(bits):
            out = []
            for p in parts:
                if p in arrays:
                    out.append("[" + ", ".join(value(e, bits) for e in arrays[p]) + "]")
                else:
                    out.append(value(p, bits))
            return out
        return coords, args


def split_args(text):
    """The top-level comma-separated parts of a call's argument list."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def pct(a, b):
    return 100.0 * a / b if b else 100.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--musl", required=True, type=Path)
    ap.add_argument("--build", type=Path, default=Path.home() / ".cache/fpforge-corpus/build/cover")
    ap.add_argument("--quick", action="store_true", help="a handful of functions, short peer budget")
    ap.add_argument("--only", default="", help="comma-separated function names")
    ap.add_argument("--all", action="store_true", help="float versions too (default: double ones)")
    ap.add_argument("--time-limit", type=float, default=10.0, help="fpforge's --time-limit")
    ap.add_argument("--jobs", type=int, default=1, help="fpforge's --jobs")
    ap.add_argument("--min-peer", type=float, default=2.0, help="smallest peer budget (s)")
    ap.add_argument("--peer-cap", type=float, default=60.0, help="largest peer budget (s); 0: none")
    ap.add_argument("--no-peers", dest="peers", action="store_false")
    ap.add_argument("--replay-cap", type=int, default=200,
                    help="peer inputs replayed through the interpreter per function (0: no cross-check)")
    ap.add_argument("--replay-jobs", type=int, default=2, help="parallel `fpforge run`s of the replay")
    ap.add_argument("--ablate", action="store_true", help="also run fpforge with each improvement off")
    ap.add_argument("--ablate-only", metavar="NAMES",
                    help="only these ablation rows, comma-separated (e.g. no-reach,coverme)")
    ap.add_argument("--json", type=Path, help="write the rows as JSON")
    ap.add_argument("--fpforge", type=Path, default=FPFORGE, help="the fpforge binary")
    args = ap.parse_args()
    ablations = [("no-ulp-space", ["--no-ulp-space"]), ("no-ulp-distance", ["--no-ulp-distance"]),
                 ("no-seeding", ["--no-seeding"]), ("no-refine", ["--no-refine"]),
                 ("no-targeted", ["--no-targeted"]), ("no-levels", ["--no-levels"]),
                 ("no-boundaries", ["--no-boundaries"]),
                 ("no-reach", ["--no-reach"]), ("no-trap-targets", ["--no-trap-targets"]),
                 ("jobs 2", ["--jobs", "2"]),
                 ("coverme", ["--no-ulp-space", "--no-ulp-distance", "--no-seeding",
                              "--no-refine", "--no-targeted", "--no-levels",
                              "--no-boundaries", "--no-reach"])]
    args.ablations = ablations if args.ablate else []
    if args.ablate_only:
        wanted = args.ablate_only.split(",")
        unknown = set(wanted) - {name for name, _ in ablations}
        if unknown:
            ap.error(f"unknown ablation rows: {', '.join(sorted(unknown))}")
        args.ablations = [a for a in ablations if a[0] in wanted]
    musl = Musl(args.musl, args.build)
    funcs = []
    for name in sorted(musl.texts):
        func = name[:-2]
        if func.startswith("__") or func.endswith("_data"):
            continue
        sig = musl.signature(func)
        if sig is None:
            continue
        if not args.all and func.endswith("f") and f"{func[:-1]}.c" in musl.texts:
            continue
        funcs.append(func)
    if args.quick:
        funcs = [f for f in funcs if f in ("cos", "exp", "fmod", "frexp", "ilogb", "atan2", "fmax", "pow")]
        if not args.peer_cap:
            args.peer_cap = 3.0
    if args.only:
        want = args.only.split(",")
        funcs = [f for f in funcs if f in want]
    bench = Bench(musl, args)
    rows = []
    for func in funcs:
        files = musl.closure(func)
        try:
            row = bench.one(func, files)
        except Exception as e:  # one broken function must not stop the table
            row = {"function": func, "files": files, "error": str(e)[-300:]}
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("files", "uncovered")}), file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print_table(rows, args)


def print_table(rows, args):
    ok = [r for r in rows if "error" not in r and r.get("branches")]
    print("| function | gcov branches | % fpforge | fpforge time (s) | evaluations | % random (10x) | % AFL++ (10x) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if "error" in r:
            print(f"| {r['function']} | error: {r['error'][:80]} | | | | | |")
            continue
        b = r["branches"]
        if not b:
            continue
        rnd = f"{pct(r['random_taken'], b):.1f}" if "random_taken" in r else "-"
        afl = f"{pct(r['afl_taken'], b):.1f}" if "afl_taken" in r else "-"
        print(f"| {r['function']} | {b} | {pct(r['fp_taken'], b):.1f} | {r['fp_wall']:.2f} | {r['evals']} | {rnd} | {afl} |")

    def col(key):
        return [pct(r[key], r["branches"]) for r in ok if key in r]
    fp, rnd, afl = col("fp_taken"), col("random_taken"), col("afl_taken")
    times = [r["fp_wall"] for r in ok]
    fmt = lambda xs: f"{statistics.mean(xs):.1f}" if xs else "-"
    med = lambda xs: f"{statistics.median(xs):.1f}" if xs else "-"
    print(f"| **mean** ({len(ok)} functions) | {sum(r['branches'] for r in ok)} | {fmt(fp)} | {statistics.mean(times) if times else 0:.2f} | "
          f"{round(statistics.mean([r['evals'] for r in ok])) if ok else 0} | {fmt(rnd)} | {fmt(afl)} |")
    print(f"| **median** | | {med(fp)} | {statistics.median(times) if times else 0:.2f} | "
          f"{round(statistics.median([r['evals'] for r in ok])) if ok else 0} | {med(rnd)} | {med(afl)} |")
    beaten = [r["function"] for r in ok if r["fp_taken"] < max(r.get("random_taken", 0), r.get("afl_taken", 0))]
    print(f"\nfunctions where a peer covers more branches than fpforge: {', '.join(beaten) or 'none'}")
    errors = [r["function"] for r in rows if "error" in r]
    print(f"errors: {', '.join(errors) or 'none'}")
    if any("sides_infeasible" in r for r in ok):
        print("\n| function | gcov branches | sides | covered | proved infeasible | open | settled | tests | peer inputs replayed |")
        print("|---|---:|---:|---:|---:|---:|:-:|---:|---:|")
        for r in ok:
            rep = str(r["replayed"]) if "replayed" in r and r.get("sides_infeasible") else "-"
            print(f"| {r['function']} | {r['branches']} | {r['sides']} | {r['sides_covered']} | "
                  f"{r['sides_infeasible']} | {r['sides_open']} | {'yes' if r['settled'] else 'no'} | "
                  f"{r['tests']} | {rep} |")
        totals = [sum(r.get(k) or 0 for r in ok) for k in ("branches", "sides", "sides_covered", "sides_infeasible", "sides_open")]
        settled = sum(1 for r in ok if r["settled"])
        rest = [sum(r.get(k) or 0 for r in ok) for k in ("tests", "replayed")]
        print("| **total** | " + " | ".join(str(t) for t in totals) + f" | {settled} | " + " | ".join(str(t) for t in rest) + " |")
        ran = [r for r in rows if "error" not in r and "settled" in r]
        settled_all = sum(1 for r in ran if r["settled"])
        print(f"\nfunctions settled (every side covered or proved infeasible): {settled} of {len(ok)} "
              f"with gcov branches ({pct(settled, len(ok)):.0f}%); {settled_all} of {len(ran)} run "
              f"({pct(settled_all, len(ran)):.0f}%)")
        unsettled = [f"{r['function']} ({r['sides_open']})" for r in ran if not r["settled"]]
        print(f"functions with open sides (how many): {', '.join(unsettled) or 'none'}")
        traps = {k: sum(r["traps"][k] for r in ran) for k in ("targets", "reached", "infeasible", "not_reached")}
        print(f"trap targets (every division and variable memory access): {traps['targets']}, "
              f"{traps['reached']} reached by a crash, {traps['infeasible']} proved unreachable, "
              f"{traps['not_reached']} not reached")
        crashed = [f"{r['function']} ({r['crashes']} crash, {r['hangs']} hang)" for r in ran if r["crashes"] or r["hangs"]]
        print(f"functions with findings: {', '.join(crashed) or 'none'}")
        open_traps = [f"{r['function']} ({r['traps']['not_reached']})" for r in ran if r["traps"]["not_reached"]]
        print(f"functions with trap targets not reached: {', '.join(open_traps) or 'none'}")
        kinds = {}
        for r in ran:
            for st, n in r.get("statuses", {}).items():
                if st.startswith("infeasible") or st.startswith("not reached"):
                    kinds[st] = kinds.get(st, 0) + n
        print("side statuses other than covered (all functions run): "
              + "; ".join(f"{k}: {v}" for k, v in sorted(kinds.items())))
        gcov_checked = [r for r in ok if "peer_only" in r]
        if gcov_checked:
            missed = [f"{r['function']} ({', '.join(r['peer_only'])}{'' if r['settled'] else ', open sides'})"
                      for r in gcov_checked if r["peer_only"]]
            print(f"\ngcov branches some peer input takes and no fpforge test takes "
                  f"(source line:branch): {'; '.join(missed) or 'none'}")
            confirmed = sum(1 for r in gcov_checked if r["settled"] and r["fp_taken"] + r["sides_infeasible"] >= r["branches"])
            print(f"functions settled with gcov confirming (every gcov branch taken by fpforge's tests, or as many "
                  f"sides proved infeasible as gcov branches left): {confirmed} of {len(gcov_checked)} "
                  f"({pct(confirmed, len(gcov_checked)):.0f}%)")
        checked = [r for r in ran if "replayed" in r]
        if checked:
            viol = [(r["function"], v) for r in checked for v in r["violations"]]
            print(f"\nsoundness cross-check: {sum(r['replayed'] for r in checked)} peer inputs replayed "
                  f"through `fpforge run` on the {sum(1 for r in checked if r.get('sides_infeasible'))} "
                  f"functions with sides reported infeasible "
                  f"({sum(r['replay_failed'] for r in checked)} replays without JSON)")
            mism = [f"{r['function']}: {', '.join(r['site_mismatch'])}" for r in checked if r["site_mismatch"]]
            if mism:
                print(f"site ids whose location differs between `run` and coverage.json: {'; '.join(mism)}")
            unk = [f"{r['function']}: {', '.join(':'.join(k) for k in r['unknown_sides'])}"
                   for r in checked if r.get("unknown_sides")]
            if unk:
                print(f"sides taken by replays that coverage.json does not list: {'; '.join(unk)}")
            errs = [f"{r['function']}: {r['replay_error']}" for r in checked if "replay_error" in r]
            if errs:
                print(f"not replayed: {'; '.join(errs)}")
            distinct = {(f, v["site"], v["side"]): v for f, v in viol}
            print(f"sides reported infeasible but taken by a peer input: {len(distinct)}")
            for (f, _, _), v in sorted(distinct.items()):
                print(f"  - {f} {v['site']}:{v['side']} ({v['status']}) at {v['location']}, input {' '.join(v['input'])}")
        search = [r["search_s"] for r in ok if r.get("search_s") is not None]
        if search:
            evals = sum(r["evals"] for r in ok)
            print(f"\nsearch time (after compiling): median {statistics.median(search):.3f} s, "
                  f"total {sum(search):.1f} s for {evals} evaluations "
                  f"({evals / max(sum(search), 1e-9) / 1e6:.2f} M evaluations/s); "
                  f"wall time including clang and lowering: median {statistics.median(times):.2f} s")
    if args.ablations:
        print("\n| configuration | mean % fpforge (gcov) | median time (s) | functions settled |")
        print("|---|---:|---:|---:|")
        print(f"| all improvements on | {fmt(fp)} | {statistics.median(times) if times else 0:.2f} | "
              f"{sum(1 for r in ok if r.get('settled'))}/{len(ok)} |")
        for name, _ in args.ablations:
            runs = [r for r in ok if name in r.get("ablations", {})]
            cov = [pct(r["ablations"][name]["taken"], r["branches"]) for r in runs]
            tm = [r["ablations"][name]["wall"] for r in runs]
            settled = sum(1 for r in runs if r["ablations"][name].get("settled"))
            label = {"coverme": "all off (CoverMe's search)", "jobs 2": "--jobs 2"}.get(name, f"--{name}")
            print(f"| {label} | {fmt(cov)} | {statistics.median(tm) if tm else 0:.2f} | {settled}/{len(runs)} |")


if __name__ == "__main__":
    main()
