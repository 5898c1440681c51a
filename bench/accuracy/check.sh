#!/usr/bin/env bash
# Checks that fpforge runs every program of the accuracy corpus (programs.tsv) bit for
# bit like a native build: for each row, a generated C main calls the driver natively
# (clang-14 -O0 -ffp-contract=off, fpforge's frontend flags) on random inputs drawn from
# the row's --arg specs (uniform, log-uniform down to subnormals, signed zeros, small
# integers, negated repeats), `fpforge run` calls it on the same inputs, and the return
# value and every array argument after the call are compared bit for bit. The row's
# --arg/--out-arg texts are also resolved against the driver's parameters by fpforge
# itself (`fpforge accuracy --evals 1`, the command the corpus is for). Prints one line
# per program (values compared; FP op and branch sites the entry may reach; interpreter
# steps per call) and exits 1 on any mismatch.
#
#   bench/accuracy/check.sh                 # all rows, 10 inputs each
#   bench/accuracy/check.sh --inputs 20 lu  # only the named rows
#
# Run bench/accuracy/fetch.sh first (the libraries are unpacked under $CORPUS).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export CORPUS="${FPFORGE_CORPUS_CACHE:-$HOME/.cache/fpforge-corpus}"
fpforge="${FPFORGE:-$repo/target/release/fpforge}"

if [ -z "${FPFORGE:-}" ]; then
    (cd "$repo" && cargo build --release -q -p fpforge-cli)
fi
cd "$repo"
exec python3 - "$fpforge" "$here/programs.tsv" "$@" <<'PY'
import json, os, random, re, shlex, struct, subprocess, sys, tempfile

fpforge, table = sys.argv[1], sys.argv[2]
rest = sys.argv[3:]
inputs = 10
if rest[:1] == ["--inputs"]:
    inputs, rest = int(rest[1]), rest[2:]
only = set(rest)
corpus = os.environ["CORPUS"]

def expand(text):
    return text.replace("$CORPUS", corpus)

def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]

def exact_bits(text):
    """fpforge's exact text of a double (hex float, inf, raw:HEX) as its bit pattern."""
    if text.startswith("raw:"):
        return int(text[4:], 16)
    if text.endswith("inf"):
        return bits(float(text))
    return bits(float.fromhex(text))

def signature(func, sources):
    """(returns_value, [(kind, name)], definition head) of `func` from the first source
    defining it; kind is 'array', 'double' or 'int' (the drivers' plain parameter types)."""
    pattern = re.compile(r"^(\w+)\s+" + re.escape(func) + r"\s*\(([^)]*)\)\s*\{", re.M)
    for path in sources:
        if not os.path.exists(path):
            continue
        m = pattern.search(open(path, errors="replace").read())
        if not m:
            continue
        params = []
        for p in m.group(2).split(","):
            name = re.findall(r"\w+", p)[-1]
            kind = "array" if "*" in p else ("int" if re.search(r"\bint\b", p) else "double")
            params.append((kind, name))
        return m.group(1) != "void", params, m.group(0)
    raise SystemExit(f"{func}: no definition found in {sources}")

ARRAY = re.compile(r"^(\w+)\s*:\s*f64\[(\d+)\](?:\s+in\s+\[([^,]+),([^\]]+)\])?$")
FIXED = re.compile(r"^(\w+)\s*=\s*(\S+)$")
SCALAR = re.compile(r"^(\w+)(?:\s*:\s*f64)?\s+in\s+\[([^,]+),([^\]]+)\]$")

def element(rng, lo, hi, earlier):
    """A value in [lo, hi]: uniform, log-uniform in magnitude (down to subnormals), a
    signed zero, a small integer, or the negation of an earlier element (cancellation)."""
    mode = rng.random()
    if mode < 0.4 or lo >= 0 or hi <= 0:
        return rng.uniform(lo, hi)
    if mode < 0.7:
        top = min(-lo, hi)
        x = top * 2.0 ** rng.uniform(-1074, 0)
        return x if rng.random() < 0.5 else -x
    if mode < 0.8:
        return rng.choice([0.0, -0.0])
    if mode < 0.9 or not earlier:
        return float(rng.randint(max(-8, int(lo)), min(8, int(hi))))
    return -rng.choice(earlier)

def draw(spec_texts, out_texts, params, rng):
    """One argument list: {name: list of floats | float | int}."""
    values = {}
    for text in spec_texts:
        text = text.strip()
        if m := ARRAY.match(text):
            lo, hi = (float(m.group(3)), float(m.group(4))) if m.group(3) else (-1e3, 1e3)
            xs = []
            for _ in range(int(m.group(2))):
                xs.append(element(rng, lo, hi, xs))
            values[m.group(1)] = xs
        elif m := FIXED.match(text):
            v = m.group(2)
            values[m.group(1)] = int(v) if re.fullmatch(r"-?\d+", v) else float(v)
        elif m := SCALAR.match(text):
            values[m.group(1)] = rng.uniform(float(m.group(2)), float(m.group(3)))
        else:
            raise SystemExit(f"unsupported --arg text in check.sh: {text}")
    for text in out_texts:
        m = ARRAY.match(text.strip())
        if not m:
            raise SystemExit(f"check.sh needs a length on --out-arg {text}")
        values[m.group(1)] = [0.0] * int(m.group(2))
    missing = [n for _, n in params if n not in values]
    if missing:
        raise SystemExit(f"no --arg for parameter(s) {missing}")
    return values

def c_value(v):
    if isinstance(v, list):
        return "{" + ", ".join(x.hex() for x in v) + "}"
    return v.hex() if isinstance(v, float) else str(v)

def native_main(func, proto, returns, params, cases):
    lines = ["#include <stdio.h>", "#include <string.h>", proto.rstrip("{ \n") + ";",
             "static void show(double x) { unsigned long long b; memcpy(&b, &x, 8); printf(\"%016llx\\n\", b); }",
             "int main(void) {"]
    for vals in cases:
        lines.append("  {")
        call = []
        for kind, name in params:
            v = vals[name]
            if kind == "array":
                lines.append(f"    double {name}[] = {c_value(v)};")
            else:
                lines.append(f"    {'int' if kind == 'int' else 'double'} {name} = {c_value(v)};")
            call.append(name)
        if returns:
            lines.append(f"    show({func}({', '.join(call)}));")
        else:
            lines.append(f"    {func}({', '.join(call)});")
        for kind, name in params:
            if kind == "array":
                lines.append(f"    for (unsigned i = 0; i < sizeof {name} / sizeof {name}[0]; i++) show({name}[i]);")
        lines.append('    printf("--\\n");')
        lines.append("  }")
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"

def native_flags(tokens):
    out, i = [], 0
    while i < len(tokens):
        t = tokens[i]
        if t in ("-I", "-D"):
            out += [t + tokens[i + 1]]; i += 2
        elif t == "--cflag":
            out.append(tokens[i + 1]); i += 2
        elif t.startswith("--cflag="):
            out.append(t.split("=", 1)[1]); i += 1
        elif t == "--allow-undefined":
            # The native twin: undefined functions resolve to address 0 and crash if
            # reached (a position-dependent executable, so the loader never looks them up).
            out += ["-no-pie", "-Wl,--unresolved-symbols=ignore-all"]; i += 1
        elif t.startswith("--"):
            i += 1  # --skip-unsupported: natively everything is supported
        else:
            out.append(t); i += 1
    return out

def site_counts(row_sources, flags, func):
    """(FP add/sub op sites, all op sites, branch sites) the entry may reach."""
    cmd = [fpforge, "sites", *flags, "-f", func, "--deep", "--json", "--", *row_sources]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    report = json.loads(proc.stdout)
    ops = report["op_sites"]
    addsub = sum(1 for o in ops if o["what"].split()[0] in ("fadd", "fsub"))
    return addsub, len(ops), len(report["branch_sites"])

def spec_error(row_sources, flags, func, arg_texts, out_texts, tmp):
    """None when fpforge accepts the row's --arg/--out-arg texts, else its message."""
    cmd = [fpforge, "accuracy", *flags, "-f", func, "--evals", "1", "--out", os.path.join(tmp, "accuracy")]
    for a in arg_texts:
        cmd += ["--arg", a.strip()]
    for o in out_texts:
        cmd += ["--out-arg", o.strip()]
    proc = subprocess.run(cmd + ["--", *row_sources], capture_output=True, text=True)
    return None if proc.returncode == 0 else proc.stderr.strip()[-300:]

def fpforge_results(row_sources, flags, func, params, vals, returns):
    args = []
    for kind, name in params:
        v = vals[name]
        args.append("[" + ", ".join(x.hex() for x in v) + "]" if kind == "array" else c_value(v))
    cmd = [fpforge, "run", *flags, "-f", func, "--json", "--", *row_sources, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"exit {proc.returncode}: {(proc.stderr.strip() or proc.stdout.strip())[-300:]}"
    report = json.loads(proc.stdout)
    out = [report["steps"]]
    if returns:
        out.append(exact_bits(report["returned"]["exact"]))
    for array in report["arrays"]:
        out += [exact_bits(v["exact"]) for v in array["values"]]
    return out, None

rows = []
for line in open(table):
    if line.startswith("#") or not line.strip():
        continue
    rows.append(line.rstrip("\n").split("\t"))

failed = 0
checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for name, func, sources, args, outs, _fpgen, cflags in rows:
        if only and name not in only:
            continue
        checked += 1
        srcs = [expand(s) for s in sources.split()]
        flags = shlex.split(expand(cflags)) if cflags != "-" else []
        returns, params, proto = signature(func, srcs)
        rng = random.Random(name)
        arg_texts = [a for a in args.split(";") if a.strip()]
        out_texts = [] if outs == "-" else [o for o in outs.split(";") if o.strip()]
        cases = [draw(arg_texts, out_texts, params, rng) for _ in range(inputs)]
        if err := spec_error(srcs, flags, func, arg_texts, out_texts, tmp):
            print(f"{name:24} SPEC REJECTED: {err}")
            failed += 1
            continue
        main_c = os.path.join(tmp, f"{name}_main.c")
        exe = os.path.join(tmp, name)
        open(main_c, "w").write(native_main(func, proto, returns, params, cases))
        # -ffp-contract=off as fpforge's frontend: clang's default contracts a*b - c into
        # fmuladd(a, b, -c), whose fneg flips the sign of a NaN c.
        build = subprocess.run(["clang-14", "-O0", "-ffp-contract=off", "-w", "-o", exe, main_c, *srcs,
                                *native_flags(flags), "-lm"], capture_output=True, text=True)
        if build.returncode != 0:
            print(f"{name:24} NATIVE BUILD FAILED: {build.stderr.strip()[-400:]}")
            failed += 1
            continue
        native = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        native_cases = [[int(x, 16) for x in block.split()] for block in native.split("--")[:-1]]
        problems = []
        max_steps = 0
        for i, (vals, want) in enumerate(zip(cases, native_cases)):
            got, err = fpforge_results(srcs, flags, func, params, vals, returns)
            if err:
                problems.append(f"input {i}: {err}")
                continue
            max_steps = max(max_steps, got.pop(0))
            if got != want:
                diff = next(j for j, (a, b) in enumerate(zip(got, want)) if a != b) if len(got) == len(want) else "length"
                problems.append(f"input {i}: value {diff} differs")
        values = len(native_cases[0]) if native_cases else 0
        if problems:
            failed += 1
            print(f"{name:24} MISMATCH  {problems[0]}" + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
        else:
            addsub, ops, branches = site_counts(srcs, flags, func) or ("?", "?", "?")
            print(f"{name:24} ok  {inputs:>3} x {values:>2} values bit-identical  "
                  f"{addsub:>3} add/sub of {ops:>3} op sites  {branches:>3} branch sites  "
                  f"{max_steps:>6} steps/call (max)")
print(f"{checked - failed}/{checked} programs agree with the native build")
sys.exit(1 if failed else 0)
PY
