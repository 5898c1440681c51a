"""The libraries of docs/FINDINGS.md: where their sources are, the flags fpforge and gcc
compile them with, and the native harness (gcc -O2, the library's own sources)."""

import os
import resource
import signal
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("FPFORGE_CORPUS_CACHE", Path.home() / ".cache" / "fpforge-corpus"))


def sh(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))[:300]}: {r.stderr[-800:]}")
    return r.stdout.strip()


def debian(pkg):
    return Path(sh([REPO / "bench/source.sh", pkg]))


def release(name, repo, tag, subdir=""):
    """A tagged public release unpacked into the corpus cache (the search tool's mirror or
    a plain git clone of the public repository)."""
    dest = CORPUS / name
    if not dest.exists():
        tmp = CORPUS / f".{name}.git"
        if not tmp.exists():
            sh(["git", "clone", "--bare", "--filter=blob:none", f"https://github.com/{repo}", tmp])
        dest.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", tmp, "archive", tag] + ([subdir] if subdir else []),
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return dest


_roots = {}


def root(lib):
    if lib not in _roots:
        if lib == "gsl":
            _roots[lib] = debian("gsl")
        elif lib == "musl":
            _roots[lib] = debian("musl")
        elif lib == "newlib":
            _roots[lib] = debian("newlib") / "newlib"
        elif lib == "cephes":
            _roots[lib] = release("scipy-1.10.1", "scipy/scipy", "v1.10.1", "scipy/special") / "scipy/special"
        elif lib == "openlibm":
            _roots[lib] = release("openlibm-0.8.7", "JuliaMath/openlibm", "v0.8.7")
        else:
            raise KeyError(lib)
    return _roots[lib]


def musl_obj(build):
    """musl's generated alltypes.h (as bench/cover/run.py's Musl makes it)."""
    m = root("musl")
    bits = build / "musl-obj/include/bits"
    if not (bits / "alltypes.h").exists():
        bits.mkdir(parents=True, exist_ok=True)
        (bits / "alltypes.h").write_text(sh(["sed", "-f", m / "tools/mkalltypes.sed",
                                             m / "arch/x86_64/bits/alltypes.h.in", m / "include/alltypes.h.in"]))
    return build / "musl-obj"


def flags(lib, build):
    """(fpforge flags, gcc flags, [source directories of the archive]) of a library."""
    r = root(lib)
    if lib == "gsl":
        dirs = [r / d for d in ("specfunc", "sys", "complex", "poly")]
        ff = ["-I", r]
        for d in dirs + [REPO / "bench/libs/host/gsl"]:
            ff += ["--lib-dir", d]
        return ff, ["-I", r, "-DHAVE_CONFIG_H"], dirs + [r / "err"]
    if lib == "musl":
        obj = musl_obj(build)
        inc = [r / "arch/x86_64", r / "arch/generic", obj / "src/internal", r / "src/include",
               r / "src/internal", obj / "include", r / "include"]
        ff = ["--std", "c99", "--lib-dir", r / "src/fenv"]
        for p in inc:
            ff += ["-I", p]
        ff += ["-D", "_XOPEN_SOURCE=700", "--cflag=-ffreestanding", "--cflag=-nostdinc",
               "--cflag=-fno-strict-aliasing", "--cflag=-w"]
        gcc = (["-std=c99", "-ffreestanding", "-nostdinc", "-fno-strict-aliasing", "-w",
                "-fexcess-precision=standard", "-frounding-math", "-D_XOPEN_SOURCE=700",
                "-isystem", sh(["gcc", "-print-file-name=include"])]
               + [f"-I{p}" for p in inc])
        return ff, gcc, [r / "src/math"]
    if lib == "newlib":
        ff = ["-I", r / "libc/include", "-I", r / "libm/common"]
        gcc = ["-nostdinc", "-isystem", sh(["gcc", "-print-file-name=include"]),
               "-I", r / "libc/include", "-I", r / "libm/common", "-fno-builtin", "-w"]
        return ff, gcc, [r / "libm/math", r / "libm/common"]
    if lib == "cephes":
        inc = [r, r / "cephes", sysconfig.get_paths()["include"]]
        ff = []
        for p in inc:
            ff += ["-I", p]
        ff += ["--lib-dir", r / "cephes", "--lib-dir", REPO / "bench/libs/host/scipy"]
        return ff, [f"-I{p}" for p in inc] + ["-w"], [r / "cephes", REPO / "bench/libs/host/scipy"]
    if lib == "openlibm":
        inc = [r, r / "include", r / "amd64", r / "src", r / "ld80"]
        ff = ["--std", "c99", "-D", "ASSEMBLER", "-D", "__BSD_VISIBLE", "--cflag=-w",
              "--lib-dir", r / "src", "--lib-dir", r / "ld80"]
        for p in inc:
            ff += ["-I", p]
        gcc = ["-std=c99", "-fno-builtin", "-fno-strict-aliasing", "-DASSEMBLER", "-D__BSD_VISIBLE", "-w"] + [
            f"-I{p}" for p in inc]
        return ff, gcc, [r / "src", r / "ld80"]
    raise KeyError(lib)


def expand(cmd):
    """A row's command with the library roots put in: `{gsl}`, `{gsl:flags}`, ..."""
    out = []
    build = Path("/tmp/fpforge-findings")
    for part in cmd:
        if isinstance(part, str) and part.startswith("{") and part.endswith(":flags}"):
            out += [str(f) for f in flags(part[1:-7], build)[0]]
        else:
            out.append(str(part).format(**{k: root(k) for k in ("gsl", "musl", "newlib", "cephes", "openlibm")
                                             if "{" + k in str(part)}, repo=REPO))
    return out


def archive(lib, build):
    """The library's sources compiled by gcc -O2 into build/lib<lib>.a (once)."""
    a = build / f"lib{lib}.a"
    if a.exists():
        return a
    _, gcc, dirs = flags(lib, build)
    objdir = build / f"obj-{lib}"
    objdir.mkdir(parents=True, exist_ok=True)
    srcs = [c for d in dirs for c in sorted(Path(d).glob("*.c"))
            if not c.name.startswith("test") and "mathieu" not in c.name]

    def one(c):
        o = objdir / f"{c.parent.name}_{c.stem}.o"
        r = subprocess.run(["gcc", "-O2", "-c", *map(str, gcc), str(c), "-o", str(o)], capture_output=True)
        return o if r.returncode == 0 else None

    with ThreadPoolExecutor(2) as ex:
        objs = [o for o in ex.map(one, srcs) if o]
    extra = []
    if lib == "newlib":
        rt = objdir / "newlib_runtime.c"
        rt.write_text("#include <reent.h>\nstatic struct _reent fpforge_reent;\n"
                      "struct _reent *_impure_ptr = &fpforge_reent;\n"
                      "int *__errno(void) { return &fpforge_reent._errno; }\n")
        sh(["gcc", "-O2", "-c", *gcc, rt, "-o", objdir / "newlib_runtime.o"])
        extra.append(objdir / "newlib_runtime.o")
    sh(["ar", "rcs", a, *objs, *extra])
    print(f"built {a.name}: {len(objs)} of {len(srcs)} files compiled by gcc -O2", file=sys.stderr)
    return a


HARNESS = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
%(decl)s
static double arg(const char *s) { uint64_t b = strtoull(s, 0, 16); double x; memcpy(&x, &b, 8); return x; }
int main(int argc, char **argv) {
  (void)argc;
%(body)s
  return 0;
}
"""


def harness(row, n):
    """C source calling the row's function natively on argv's bit patterns; prints
    `value status error-bound` in C99 hex."""
    f = row["func"]
    params = ", ".join(["double"] * n)
    args = ", ".join(f"arg(argv[{i + 1}])" for i in range(n))
    extra = "".join(f", {e}" for e in row.get("extra_args", []))
    if row["lib"] == "gsl":
        decl = ("typedef struct { double val; double err; } gsl_sf_result;\n"
                "typedef void gsl_error_handler_t(const char *, const char *, int, int);\n"
                "gsl_error_handler_t *gsl_set_error_handler_off(void);\n"
                f"int {f}({params}{', unsigned int' * len(row.get('extra_args', []))}, gsl_sf_result *);")
        body = (f"  gsl_set_error_handler_off();\n  gsl_sf_result r = {{0, 0}};\n"
                f"  int s = {f}({args}{extra}, &r);\n  printf(\"%a %d %a\\n\", r.val, s, r.err);")
    elif row.get("float32"):
        fargs = ", ".join(f"(float)arg(argv[{i + 1}])" for i in range(n))
        decl = f"float {f}({', '.join(['float'] * n)});"
        body = f"  float y = {f}({fargs});\n  printf(\"%a 0 0\\n\", (double)y);"
    else:
        decl = f"double {f}({params});"
        body = f"  double y = {f}({args});\n  printf(\"%a 0 0\\n\", y);"
    return HARNESS % {"decl": decl, "body": body}


HANG_CPU_SECONDS = 30


def native(row, xs, work):
    """(value, status, error bound) of the row's function on xs, natively; `None` when
    the call spends HANG_CPU_SECONDS of CPU time without returning (a CPU limit, not a
    wall-clock one: a slow call on a loaded machine is no hang)."""
    build = work / "native"
    build.mkdir(parents=True, exist_ok=True)
    a = archive(row["lib"], build)
    src = build / f"row{row['id']:02d}.c"
    src.write_text(harness(row, len(xs)))
    exe = build / f"row{row['id']:02d}"
    sh(["gcc", "-O2", src, a, "-lm", "-o", exe])
    bits = [f"{int.from_bytes(__import__('struct').pack('<d', x), 'little'):016x}" for x in xs]
    limit = (HANG_CPU_SECONDS, HANG_CPU_SECONDS)
    run = subprocess.run([str(exe)] + bits, capture_output=True, text=True,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, limit))
    if run.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return None
    if run.returncode != 0:
        raise RuntimeError(f"{exe}: exit {run.returncode}: {run.stderr[-400:]}")
    out = run.stdout.split()
    return float.fromhex(out[0]) if "0x" in out[0] else float(out[0]), int(out[1]), (
        float.fromhex(out[2]) if "0x" in out[2] else float(out[2]))
