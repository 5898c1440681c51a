#!/usr/bin/env python3
"""Whole libms with no flags (issue 14): `fpforge run` and `fpforge cover` on every double
and float function newlib's and musl's `math.h` declare, with no `--skip-unsupported` and
no `--allow-undefined`; counts how many load and what stops the rest.

- newlib 3.3.0 (Debian bookworm source package): `libm/math` and `libm/common` compiled
  with fpforge's clang flags and linked into one bitcode file, as a user builds a whole
  libm; each function is `fpforge run newlib-libm.bc -f NAME ARGS`.
- musl 1.2.3: each function's own file in `src/math` with `--lib-dir src/math --lib-dir
  src/fenv` and musl's include flags (those of bench/cover).

Arguments for `run`: 0.5 for floating-point parameters, 2 for integers, `[0]` for
pointers. `cover` runs with `--time-limit 0.5` (only loading is measured here). Stop
reasons are grouped: errno (a C-runtime symbol: `__errno`, `errno`, `__errno_location`),
long double (x86_fp80), and the rest by their message.

    bench/libs/whole.py [--only newlib|musl] [--fpforge target/release/fpforge]
"""

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path.home() / ".cache/fpforge-corpus"
sys.path.insert(0, str(REPO / "bench/cover"))
from run import Musl  # noqa: E402  (bench/cover's musl tree: include paths and flags)

CLANG = ["clang-14", "-O0", "-Xclang", "-disable-O0-optnone", "-g", "-fno-discard-value-names",
         "-ffp-contract=off", "-emit-llvm", "-c"]
PROTOTYPE = re.compile(r"^\s*(?:extern\s+)?([A-Za-z_][\w ]*?[\s\*]+)(\w+)\s*\(([^;()]*)\)\s*;", re.M)
FLOATS = {"double", "float"}
ERRNO = ("__errno", "errno", "__errno_location", "_impure_ptr", "_REENT")


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def prototypes(header):
    """(name, return type, [parameter types]) of the double and float functions `header`
    declares, in order, without long double ones."""
    found = {}
    for ret, name, params in PROTOTYPE.findall(header.read_text(errors="replace")):
        ret = " ".join(ret.split())
        types = [" ".join(p.split()) for p in params.split(",") if p.strip() and p.strip() != "void"]
        if "long double" in ret or any("long double" in p for p in types):
            continue
        if ret in FLOATS or any(p in FLOATS for p in types):
            found.setdefault(name, (ret, types))
    return [(n, r, t) for n, (r, t) in found.items()]


def argument(ty):
    """The `fpforge run` argument for a parameter of C type `ty`, or None."""
    ty = re.sub(r"\b(const|volatile|restrict|__restrict)\b", "", ty).strip()
    if ty.endswith("*"):
        return None if "char" in ty else "[0]"
    if ty in FLOATS:
        return "0.5"
    if ty in {"int", "long", "long int", "long long", "long long int", "unsigned", "unsigned int"}:
        return "2"
    return None


def stop_reason(stderr):
    """Why a load failed, grouped (see the module docs)."""
    first = next((l for l in stderr.splitlines() if l.startswith("error: ")), stderr.strip()[:200])
    if "may use what no input defines: " in first:
        missing = first.split("may use what no input defines: ", 1)[1].split(" (add the files", 1)[0]
        names = re.findall(r"[\w.]+", missing.replace("functions not lowered", "").replace(
            "functions", "").replace("globals", ""))
        if names and all(n in ERRNO for n in names):
            return "errno"
        return f"undefined: {missing}"
    if "x86_fp80" in first or "long double" in first:
        return "long double"
    return re.sub(r"^.*?: (unsupported: )?", "", first.replace("error: ", "", 1))[:160]


LOAD_ERRORS = ("may use what no input defines", ": unsupported: ", "cannot compile",
               "cannot find the entry function", "conflicting definitions", "malformed LLVM IR",
               "internal error while lowering", "cannot read bitcode", "timed out")


def measure(label, funcs, command, out, timeout=120):
    """Runs `run` and `cover` for each function; prints the counts and the stop reasons.
    A failure after loading (an input `cover` cannot derive, say) counts as loaded and
    is listed apart."""
    stops = {"run": Counter(), "cover": Counter()}
    loads = Counter()
    examples, after_loading = {}, []
    skipped = []
    for name, ret, params in funcs:
        args = [argument(p) for p in params]
        if any(a is None for a in args):
            skipped.append(name)
            continue
        for mode in ("run", "cover"):
            extra = args if mode == "run" else ["--time-limit", "0.5", "--out", str(out)]
            try:
                r = sh(command(mode, name) + extra, timeout=timeout)
                stderr, code = r.stderr, r.returncode
            except subprocess.TimeoutExpired:
                stderr, code = "error: timed out", 1
            first = next((l for l in stderr.splitlines() if l.startswith("error: ")), "")
            if code == 1 and any(e in first for e in LOAD_ERRORS):
                reason = stop_reason(stderr)
                stops[mode][reason] += 1
                examples.setdefault(reason, name)
                continue
            loads[mode] += 1
            if code not in (0, 3):
                after_loading.append(f"{mode} {name}: {first or stderr.strip()[:160]}")
    total = len(funcs) - len(skipped)
    print(f"\n{label}: {total} double and float functions ({len(skipped)} more take other "
          f"argument types: {', '.join(skipped) or 'none'})")
    for mode in ("run", "cover"):
        print(f"- fpforge {mode}: {loads[mode]} load, {total - loads[mode]} do not")
    for line in after_loading:
        print(f"- loaded, then failed: {line}")
    print("\n| what stops the rest | run | cover | e.g. |")
    print("|---|---:|---:|---|")
    reasons = sorted(set(stops["run"]) | set(stops["cover"]),
                     key=lambda r: (-(stops["run"][r] + stops["cover"][r]), r))
    for reason in reasons:
        print(f"| {reason.replace('|', '/')} | {stops['run'][reason]} | {stops['cover'][reason]} "
              f"| {examples[reason]} |")


def newlib(fpforge, build):
    src = Path(sh([REPO / "bench/source.sh", "newlib"]).stdout.strip()) / "newlib"
    flags = ["-I", str(src / "libc/include"), "-I", str(src / "libm/common")]
    build.mkdir(parents=True, exist_ok=True)
    bitcode, failed = [], []
    for dir in ("libm/math", "libm/common"):
        for c in sorted((src / dir).glob("*.c")):
            out = build / f"{dir.replace('/', '_')}_{c.stem}.bc"
            r = sh(CLANG + flags + [str(c), "-o", str(out)])
            (bitcode if r.returncode == 0 else failed).append(out if r.returncode == 0 else c.name)
    libm = build / "newlib-libm.bc"
    r = sh(["llvm-link-14"] + [str(b) for b in bitcode] + ["-o", str(libm)])
    if r.returncode != 0:
        sys.exit(f"llvm-link-14 failed: {r.stderr[:2000]}")
    print(f"newlib-libm.bc: {len(bitcode)} files of libm/math and libm/common linked; "
          f"{len(failed)} did not compile with newlib's headers alone: {', '.join(failed)}")
    defined = set(re.findall(r"^define [^@]*@(\w+)\(", sh(["llvm-dis-14", str(libm), "-o", "-"]).stdout, re.M))
    funcs = [f for f in prototypes(src / "libc/include/math.h") if f[0] in defined]
    measure("newlib", funcs, lambda mode, name: [fpforge, mode, str(libm), "-f", name],
            build / "cover-out")


def musl(fpforge, build):
    root = Path(sh([REPO / "bench/source.sh", "musl"]).stdout.strip())
    tree = Musl(root, build)
    flags = []
    for p in tree.includes:
        flags += ["-I", str(p)]
    flags += ["-D", *tree.defines] + ["--std", "c99"] + [f"--cflag={f}" for f in tree.cflags]
    files = {}
    for c in sorted(tree.math.glob("*.c")):
        for name in re.findall(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;]*$", c.read_text(errors="replace"), re.M):
            files.setdefault(name, c)
    funcs = [f for f in prototypes(root / "include/math.h") if f[0] in files]
    lib = ["--lib-dir", str(tree.math), "--lib-dir", str(root / "src/fenv")]
    measure("musl", funcs, lambda mode, name: [fpforge, mode, str(files[name]), "-f", name] + lib + flags,
            build / "cover-out")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=REPO / "target/release/fpforge")
    ap.add_argument("--only", choices=["newlib", "musl"])
    ap.add_argument("--build", type=Path, default=CORPUS / "build/libs")
    args = ap.parse_args()
    if args.only in (None, "newlib"):
        newlib(args.fpforge, args.build / "newlib")
    if args.only in (None, "musl"):
        musl(args.fpforge, args.build / "musl")


if __name__ == "__main__":
    main()
