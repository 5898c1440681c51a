"""The safety net for false "infeasible" proofs (issue 18): a peer's inputs replayed through
`fpforge run --json`, checked against the sides a cover run reported infeasible.

A side of `OUT/FUNC/coverage.json` with status `infeasible` is a proof that no input takes
it (or, for a trap guard, that no input traps there). An AFL++ input that takes it is a
false proof. This module owns the three steps of checking that:

- `Harness`: how the harness of `regression.c` turns raw coordinates (AFL++'s bytes, eight
  little-endian bytes a coordinate) into the function's arguments, read from its
  `fpforge_invoke` (crates/report's `regression.rs` and `arg_text.rs` write it), and the
  same arguments as `fpforge run` takes them. It is checked per function: the test rows
  of `regression.c` must give the argument lines of `inputs.txt`.
- `LibraryBitcode`: the cover run's inputs compiled once with fpforge's own clang flags
  (crates/lower's `frontend.rs`) and linked in the same order, then, per function, the
  closure of what it needs (`llvm-link --only-needed`): the same definitions as the cover
  run's module, loaded in a fraction of a second rather than the whole library's seconds.
  The closure numbers its sites from zero; `site_ids` maps them to coverage.json's ids
  (the k-th site at a source location is the k-th there), and a function whose sites do
  not match location for location is reported, not checked.
- `check_function`: the inputs (crashes and hangs first, then the queue; at most `cap`,
  spread evenly over the queue), each replayed with the cover run's fuel times 100 (what
  cover gives a run out of fuel before it counts as a hang); inputs outside the run's
  `NAME in [LO, HI]` specs are skipped, as the proofs hold under them.
"""

import concurrent.futures
import enum
import json
import math
import re
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cover"))
from run import split_args  # noqa: E402

# crates/lower/src/frontend.rs: the flags fpforge compiles every C file with, before the
# user's.
FPFORGE_CLANG_FLAGS = ["-O0", "-Xclang", "-disable-O0-optnone", "-g", "-fno-discard-value-names",
                       "-ffp-contract=off", "-emit-llvm", "-c"]
SOURCE_SUFFIXES = {".c", ".cpp", ".cc", ".cxx", ".C", ".c++"}
BITCODE_SUFFIXES = {".ll", ".bc"}
# cover's --fuel default, times the 100 it gives a run out of fuel before calling it a hang.
REPLAY_FUEL = 100_000 * 100


class HarnessError(Exception):
    """regression.c calls the function in a way this module does not decode."""


@dataclass(frozen=True)
class Leaf:
    """One value of an argument: its C type (`f64`, `f32`, `bool`, `i8` .. `i64`) and
    where its bits come from: coordinate `coord`, or the constant `bits`."""
    ty: str
    coord: int | None = None
    bits: int = 0

    def value(self, coords):
        """The value's bits, as the interpreter holds them (ints sign-extended)."""
        raw = coords[self.coord] if self.coord is not None else self.bits
        if self.ty == "f64":
            return raw & (2**64 - 1)
        if self.ty == "f32":
            return raw & 0xFFFFFFFF
        if self.ty == "bool":
            return raw & 1
        if self.ty == "f80":
            return long_double_bits(raw, coords[self.coord + 1])
        width = int(self.ty[1:])
        raw &= (1 << width) - 1
        return raw - (1 << width) if raw >> (width - 1) else raw

    def text(self, coords):
        """The value as `fpforge run` takes it."""
        v = self.value(coords)
        if self.ty == "f64":
            return f"raw:{v:016x}"
        if self.ty == "f32":
            return f"raw:{v:08x}"
        if self.ty == "f80":
            return f"raw:{v:020x}"
        return str(v)


def long_double_bits(head, tail):
    """The x87 bits of regression.c's `fpforge_long_double(head, tail)`: the double `head`
    plus `(int16_t)tail` units of 2^-64 of its binade, rounded to nearest even."""
    x = struct.unpack("<d", head.to_bytes(8, "little"))[0]
    t = (tail & 0xFFFF) - ((tail & 0x8000) << 1)
    if t == 0 or x == 0 or not math.isfinite(x):
        return double_as_long_double(head)
    e = math.frexp(x)[1]
    return long_double_of(Fraction(x) + t * Fraction(2) ** (e - 1 - 64))


def double_as_long_double(bits):
    """The x87 bits of the double `bits` converted (a NaN made quiet, as the FPU does)."""
    sign = (bits >> 63) << 79
    exponent, fraction = (bits >> 52) & 0x7FF, bits & (2**52 - 1)
    if exponent == 0x7FF:
        return sign | 0x7FFF << 64 | 1 << 63 | ((1 << 62 | fraction << 11) if fraction else 0)
    if exponent == 0 and fraction == 0:
        return sign
    return long_double_of(Fraction(struct.unpack("<d", bits.to_bytes(8, "little"))[0]))


def long_double_of(value: Fraction):
    """The x87 bits of the nonzero `value` (in the normal range), rounded to nearest even."""
    sign = (1 if value < 0 else 0) << 79
    a = abs(value)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    significand = round(a / Fraction(2) ** (e - 63))
    if significand == 1 << 64:
        significand >>= 1
        e += 1
    return sign | (e + 16383) << 64 | significand


def exact_value(token):
    """inputs.txt's number `token` as an exact fraction (hex floats of any precision);
    None for infinities and NaNs."""
    m = re.fullmatch(r"([+-]?)0x([0-9a-fA-F]+)(?:\.([0-9a-fA-F]*))?p([+-]?\d+)", token)
    if m:
        digits = m.group(3) or ""
        value = Fraction(int(m.group(2) + digits, 16), 16 ** len(digits)) * Fraction(2) ** int(m.group(4))
        return -value if m.group(1) == "-" else value
    if token.lstrip("+-") in ("inf", "nan"):
        return None
    return Fraction(token)


@dataclass
class Param:
    """One argument: a scalar (one leaf), an array (`[..]`, output arrays zero leaves) or a
    struct (`{name: ..}`, names from inputs.txt)."""
    shape: str
    leaves: list
    names: list = field(default_factory=list)

    def text(self, coords):
        items = [leaf.text(coords) for leaf in self.leaves]
        if self.shape == "scalar":
            return items[0]
        if self.shape == "array":
            return "[" + ", ".join(items) + "]"
        return "{" + ", ".join(f"{n}: {t}" for n, t in zip(self.names, items)) + "}"


# crates/report/src/arg_text.rs `from_bits`: the C expression of each type's value.
VALUE_FORMS = [
    (re.compile(r"fpforge_f64_bits\((.+)\)"), "f64"),
    (re.compile(r"fpforge_f32_bits\(\(uint32_t\)(.+)\)"), "f32"),
    (re.compile(r"\(_Bool\)\((.+) & 1u\)"), "bool"),
    (re.compile(r"\(signed char\)fpforge_i64_bits\(fpforge_sext\((.+), 8\)\)"), "i8"),
    (re.compile(r"\(short\)fpforge_i64_bits\(fpforge_sext\((.+), 16\)\)"), "i16"),
    (re.compile(r"\(int\)fpforge_i64_bits\(fpforge_sext\((.+), 32\)\)"), "i32"),
    (re.compile(r"fpforge_i64_bits\((.+)\)"), "i64"),
]
C_TYPES = {"double": "f64", "float": "f32", "_Bool": "bool", "signed char": "i8", "char": "i8",
           "short": "i16", "int": "i32", "long long": "i64", "long": "i64"}


def leaf_of(expr):
    """The leaf of a `from_bits` expression over `fpforge_v[K]` or `UINT64_C(0x..)`, or
    of a long double read from two coordinates."""
    pair = re.fullmatch(r"fpforge_long_double\(fpforge_v\[(\d+)\], fpforge_v\[(\d+)\]\)", expr.strip())
    if pair and int(pair.group(2)) == int(pair.group(1)) + 1:
        return Leaf("f80", coord=int(pair.group(1)))
    for pattern, ty in VALUE_FORMS:
        m = pattern.fullmatch(expr.strip())
        if not m:
            continue
        source = m.group(1).strip()
        coord = re.fullmatch(r"fpforge_v\[(\d+)\]", source)
        if coord:
            return Leaf(ty, coord=int(coord.group(1)))
        const = re.fullmatch(r"UINT64_C\((0x[0-9a-fA-F]+)\)", source)
        if const:
            return Leaf(ty, bits=int(const.group(1), 16))
    raise HarnessError(f"argument expression {expr!r}")


# inputs.txt: a field name is `NAME: ` (a space after the colon, unlike `raw:BITS`).
FIELD_NAME = re.compile(r"(\w+):\s")
INPUT_TOKEN = re.compile(r"raw:[0-9a-fA-F]+|[^\s\[\]{},]+")


class Harness:
    """The coordinates-to-arguments map of one `regression.c`."""

    def __init__(self, regression_c: str, first_input_line: str):
        coords = re.search(r"#define FPFORGE_COORDS (\d+)", regression_c)
        body = re.search(r"static void fpforge_invoke\(.*?\{\n(.*?)\n\}", regression_c, re.S)
        if not coords or not body:
            raise HarnessError("no FPFORGE_COORDS or fpforge_invoke")
        self.coords = int(coords.group(1))
        call = re.search(r"^\s+(?:[\w ]+ fpforge_r = )?fpforge_fn\((.*)\);$", body.group(1), re.M)
        if not call:
            raise HarnessError("no call of fpforge_fn")
        setup = body.group(1)[: call.start()]
        struct_texts = iter(re.findall(r"\{[^{}]*\}", first_input_line))
        self.params = []
        for arg in split_args(call.group(1)):
            var = re.fullmatch(r"&?(fpforge_a\d+)", arg)
            if var is None:
                self.params.append(Param("scalar", [leaf_of(arg)]))
                continue
            name = var.group(1)
            if re.search(rf"^\s+struct fpforge_s\d+ {name};", setup, re.M):
                fields = re.findall(rf"^\s+{name}\.f(\d+) = (.*);$", setup, re.M)
                names = FIELD_NAME.findall(next(struct_texts, ""))
                if len(names) != len(fields):
                    raise HarnessError(f"struct {name}: fields {len(fields)}, names in inputs.txt {names}")
                self.params.append(Param("struct", [leaf_of(e) for _, e in fields], names))
                continue
            output = re.search(rf"^\s+([\w ]+?) {name}\[(\d+)\] = \{{0\}};$", setup, re.M)
            if output:
                ty = C_TYPES.get(output.group(1))
                if ty is None:
                    raise HarnessError(f"output array of {output.group(1)}")
                self.params.append(Param("array", [Leaf(ty)] * int(output.group(2))))
                continue
            elems = re.findall(rf"^\s+{name}\[\d+\] = (.*);$", setup, re.M)
            if not elems:
                raise HarnessError(f"argument {arg}")
            self.params.append(Param("array", [leaf_of(e) for e in elems]))

    def coordinates(self, raw: bytes):
        """AFL++'s input as the persistent driver reads it: at most 8 bytes a coordinate,
        little-endian, zero-filled."""
        raw = raw[: 8 * self.coords].ljust(8 * self.coords, b"\0")
        return [int.from_bytes(raw[8 * k: 8 * k + 8], "little") for k in range(self.coords)]

    def arguments(self, coords):
        """The `fpforge run` arguments of `coords`."""
        return [p.text(coords) for p in self.params]

    def leaves(self, coords):
        """Every leaf value, in the order `inputs.txt` prints them: (type, bits)."""
        return [(leaf.ty, leaf.value(coords)) for p in self.params for leaf in p.leaves]

    def check(self, regression_c: str, inputs_txt: str):
        """Raises HarnessError unless every test row of regression.c decodes to its line of
        inputs.txt (the values compared as bits; any NaN equals any NaN)."""
        rows = [[int(x, 16) for x in re.findall(r"UINT64_C\((0x[0-9a-fA-F]+)\)", row)]
                for row in re.findall(r"^    \{ (.*) \},", tests_block(regression_c), re.M)]
        lines = [line for line in inputs_txt.splitlines() if line.strip() and not line.startswith("#")]
        if not rows or len(rows) != len(lines):
            raise HarnessError(f"{len(rows)} test rows, {len(lines)} lines in inputs.txt")
        for row, line in zip(rows, lines):
            tokens = INPUT_TOKEN.findall(FIELD_NAME.sub("", line))
            decoded = self.leaves(row)
            if len(tokens) != len(decoded) or not all(
                    same_value(ty, bits, token) for (ty, bits), token in zip(decoded, tokens)):
                raise HarnessError(f"row {row} decodes to {decoded}, inputs.txt has {line!r}")


def tests_block(regression_c):
    """The rows of regression.c's `fpforge_tests` table, as text."""
    m = re.search(r"static const uint64_t fpforge_tests\[\d+\]\[\d+\] = \{\n(.*?)\n\};", regression_c, re.S)
    return m.group(1) if m else ""


def same_value(ty, bits, token):
    """Whether `token` of inputs.txt is the value `bits` of type `ty`."""
    if ty == "f80":
        if token.startswith("raw:"):
            return int(token[4:], 16) == bits
        is_nan = (bits >> 64) & 0x7FFF == 0x7FFF and bits & (2**63 - 1) != 0
        if "nan" in token:
            return is_nan
        value = exact_value(token)
        if value is None:
            return bits == (token.startswith("-")) << 79 | 0x7FFF << 64 | 1 << 63
        if value == 0:
            return bits == (token.startswith("-")) << 79
        return not is_nan and long_double_of(value) == bits
    if ty in ("f64", "f32"):
        fmt, mask = ("<d", "<Q") if ty == "f64" else ("<f", "<I")
        if token.startswith("raw:"):
            return int(token[4:], 16) == bits
        value = float.fromhex(token) if "0x" in token else float(token)
        as_float = struct.unpack(fmt, bits.to_bytes(8 if ty == "f64" else 4, "little"))[0]
        if value != value:
            return as_float != as_float
        return struct.unpack(mask, struct.pack(fmt, value))[0] == bits
    return int(token, 0) == bits


def param_names(fpforge, bitcode: Path, load, func):
    """The source names of `func`'s parameters (`fpforge ir`'s `vK: TYPE #NAME`)."""
    r = subprocess.run([str(fpforge), "ir", str(bitcode), *map(str, load), "-f", func],
                       capture_output=True, text=True, timeout=300)
    m = re.search(r'^func f\d+ "' + re.escape(func) + r'"\((.*)\)', r.stdout, re.M)
    if not m:
        return []
    return [p.group(1) if p else None
            for p in (re.search(r"#(\w+)", part) for part in split_args(m.group(1)))]


class LibraryBitcode:
    """The cover run's inputs compiled and linked once (see the module docs)."""

    def __init__(self, work: Path, inputs, load):
        work.mkdir(parents=True, exist_ok=True)
        self.work = work
        files = []
        for item in map(Path, inputs):
            found = sorted(p for p in item.iterdir() if p.is_file()) if item.is_dir() else [item]
            files += [p for p in found if p.suffix in SOURCE_SUFFIXES | BITCODE_SUFFIXES]
        flags = clang_flags(load)
        jobs, bitcode = [], []
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for i, f in enumerate(files):
                if f.suffix in BITCODE_SUFFIXES:
                    bitcode.append(f)
                    continue
                out = work / f"{i:04d}-{f.stem}.bc"
                bitcode.append(out)
                jobs.append(pool.submit(subprocess.run, ["clang-14", *FPFORGE_CLANG_FLAGS, *flags, str(f),
                                                         "-o", str(out)], capture_output=True, text=True))
        failed = [j.result().stderr[-500:] for j in jobs if j.result().returncode != 0]
        if failed:
            raise RuntimeError(f"clang: {failed[0]}")
        self.path = work / "library.bc"
        llvm_link([*bitcode, "-o", self.path])

    def closure(self, func):
        """What `func` needs of the library, as one bitcode file: a module whose only
        definition refers to `func`, linked with the library `--only-needed`. Loading
        the whole library again for every input would cost seconds a run (GSL)."""
        stub = self.work / f"keep-{func}.ll"
        stub.write_text(f'declare void @"{func}"()\n@fpforge_keep = global void ()* @"{func}"\n')
        out = self.work / f"closure-{func}.bc"
        llvm_link([stub, "--only-needed", self.path, "-o", out])
        return out


def llvm_link(args):
    r = subprocess.run(["llvm-link-14", *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"llvm-link: {r.stderr[-500:]}")


def site_ids(fpforge, closure: Path, load, func, coverage):
    """The ids of coverage.json's branch sites (the whole library's numbering) by the ids
    of the same sites in `closure` (its own numbering): both number a function's sites in
    program order, so the k-th site at a location is the k-th there. Raises HarnessError
    when a location has not as many sites in both."""
    r = subprocess.run([str(fpforge), "sites", str(closure), *map(str, load), "-f", func, "--json"],
                       capture_output=True, text=True, timeout=300)
    try:
        listed = json.loads(r.stdout)["branch_sites"]
    except (json.JSONDecodeError, KeyError) as e:
        raise HarnessError(f"fpforge sites on the closure: {r.stderr[-300:]}") from e
    number = lambda site_id: int(site_id[2:])

    def by_location(sites):
        groups = {}
        for site_id, location in sorted(sites, key=lambda s: number(s[0])):
            groups.setdefault(location, []).append(site_id)
        return groups
    ours = by_location((s["id"], s["location"]) for s in listed if not s["what"].startswith("trap guard"))
    theirs = by_location((s["id"], s["location"]) for s in coverage["sites"] if s["kind"] != "trap")
    ids = {}
    for location, library_ids in theirs.items():
        closure_ids = ours.get(location, [])
        if len(closure_ids) != len(library_ids):
            raise HarnessError(f"{location}: {len(library_ids)} sites in coverage.json, "
                               f"{len(closure_ids)} in the closure")
        ids.update(zip(closure_ids, library_ids))
    return ids


def clang_flags(load):
    """The clang flags fpforge derives from load flags (crates/cli's options.rs order:
    -I, -D, -std, then --cflag)."""
    includes, defines, std, cflags = [], [], [], []
    items = list(map(str, load))
    i = 0
    while i < len(items):
        flag = items[i]
        if flag in ("-I", "-D", "--std", "--lib-dir", "--compile-commands"):
            value = items[i + 1]
            i += 2
            {"-I": includes, "-D": defines, "--std": std}.get(flag, []).append(value)
            continue
        if flag.startswith("--cflag="):
            cflags.append(flag[len("--cflag="):])
        i += 1
    return ([f"-I{d}" for d in includes] + [f"-D{d}" for d in defines] + [f"-std={s}" for s in std]
            + cflags)


def inputs_to_replay(queue, cap):
    """At most `cap` of AFL++'s inputs, the same for the same queue: every crash and hang
    first, then queue entries spread evenly over it."""
    found = [p for p in queue if p.parent.name in ("crashes", "hangs")]
    kept = [p for p in queue if p.parent.name == "queue"]
    room = max(cap - len(found), 0)
    if len(kept) > room:
        kept = [kept[i * len(kept) // room] for i in range(room)] if room else []
    return (found + kept)[:cap]


@dataclass
class Proofs:
    """The sides coverage.json reports infeasible: branch sides by (site, arm), trap
    guards proved never to trap by location; and every site's location and arms, to check
    the replay's."""
    sides: dict
    traps: dict
    sites: dict

    @classmethod
    def of(cls, coverage):
        sides, traps, sites = {}, {}, {}
        for site in coverage["sites"]:
            sites[site["id"]] = (site["location"], {s["arm"] for s in site["sides"]})
            for s in site["sides"]:
                if s["status"] != "infeasible":
                    continue
                entry = {"site": site["id"], "side": s["arm"], "location": site["location"],
                         "method": s.get("method", "")}
                if site["kind"] == "trap":
                    # Only a `trap` side proved infeasible says no input traps there; a
                    # `safe` side proved infeasible says every input that gets there does.
                    if s["arm"] == "trap":
                        traps[site["location"]] = entry
                else:
                    sides[(site["id"], s["arm"])] = entry
        return cls(sides, traps, sites)

    def __bool__(self):
        return bool(self.sides or self.traps)


def check_function(fpforge, library: LibraryBitcode, load, func, regression: Path, out_dir: Path,
                   queue, cap, ranges, jobs):
    """Replays at most `cap` inputs of `queue` through `fpforge run` and returns what the
    replay found: inputs replayed, skipped (outside the specs) and failed, the false
    proofs (one per side, with its first input), sides whose arm coverage.json's site
    lacks, and the seconds it took (or `error`: why the function was not checked)."""
    t0 = time.monotonic()
    result = {"replayed": 0, "out_of_spec": 0, "failed": 0, "false_proofs": [], "mismatches": []}
    coverage = json.loads((out_dir / "coverage.json").read_text())
    proofs = Proofs.of(coverage)
    if not proofs:
        return result
    text = regression.read_text()
    inputs_txt = (out_dir / "inputs.txt").read_text()
    try:
        harness = Harness(text, next((l for l in inputs_txt.splitlines() if l.strip()), ""))
        harness.check(text, inputs_txt)
        closure = library.closure(func)
        ids = site_ids(fpforge, closure, load, func, coverage)
    except (HarnessError, RuntimeError) as e:
        result["error"] = str(e)
        return result
    bounds = spec_bounds(harness, param_names(fpforge, closure, load, func), ranges) if ranges else []

    def replay(path):
        coords = harness.coordinates(path.read_bytes())
        if any(not lo <= leaf.value(coords) <= hi for leaf, (lo, hi) in bounds):
            return path, coords, Outcome.OUT_OF_SPEC
        cmd = [str(fpforge), "run", str(closure), *map(str, load), "-f", func, "--json",
               "--fuel", str(REPLAY_FUEL), "--", *harness.arguments(coords)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            return path, coords, json.loads(r.stdout)
        except (json.JSONDecodeError, subprocess.TimeoutExpired):
            return path, coords, Outcome.FAILED

    reached = set()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for path, coords, run in pool.map(replay, inputs_to_replay(queue, cap)):
            if run is Outcome.OUT_OF_SPEC:
                result["out_of_spec"] += 1
            elif run is Outcome.FAILED:
                result["failed"] += 1
            else:
                result["replayed"] += 1
                reached |= record(result, proofs, ids, run, path, harness.arguments(coords))
    # A proof is put to the test only where a replayed input executes its branch.
    result["proved_sides"] = len(proofs.sides)
    result["proved_sides_reached"] = sum(1 for site, _ in proofs.sides if site in reached)
    result["proved_traps"] = len(proofs.traps)
    result["seconds"] = time.monotonic() - t0
    return result


class Outcome(enum.Enum):
    """A replay that gave no run to check."""
    OUT_OF_SPEC = "outside the run's specs"
    FAILED = "fpforge run failed or timed out"


def spec_bounds(harness, names, ranges):
    """(leaf, (LO, HI)) of each scalar parameter a `NAME in [LO, HI]` spec names."""
    return [(param.leaves[0], ranges[name]) for name, param in zip(names, harness.params)
            if name in ranges and param.shape == "scalar"]


def record(result, proofs, ids, run, path, arguments):
    """Adds to `result` the infeasible sides `run` takes (its site ids translated by
    `ids`) and the sides whose arm coverage.json's site does not have; returns the
    coverage.json sites `run` executes."""
    taken, executed = [], set()
    for side in run.get("sides", []):
        site = ids.get(side["site"])
        if site is None:
            continue
        executed.add(site)
        if side["outcome"] not in proofs.sites[site][1]:
            mismatch = f"{site}:{side['outcome']} at {side['location']}"
            if mismatch not in result["mismatches"]:
                result["mismatches"].append(mismatch)
        taken.append(proofs.sides.get((site, side["outcome"])))
    trap = re.search(r" at (\S+:\d+:\d+)$", run.get("trap", ""))
    if trap and "fuel exhausted" not in run["trap"]:
        taken.append(proofs.traps.get(trap.group(1)))
    for proof in filter(None, taken):
        if all((p["site"], p["side"]) != (proof["site"], proof["side"]) for p in result["false_proofs"]):
            result["false_proofs"].append({**proof, "input": arguments, "afl_file": str(path)})
    return executed


def spec_ranges(specs):
    """The `NAME in [LO, HI]` specs among cover's `--arg` flags, as {NAME: (LO, HI)}
    (integer bounds: the ones a replay can compare an integer coordinate with)."""
    out = {}
    items = list(map(str, specs))
    for flag, value in zip(items, items[1:]):
        m = re.fullmatch(r"(\w+) in \[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]", value) if flag == "--arg" else None
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return out
