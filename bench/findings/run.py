#!/usr/bin/env python3
"""Real defects of public numerical libraries that fpforge finds, confirmed natively
(issue 34): the table of docs/FINDINGS.md.

For every row of rows.py:
  1. run the row's fpforge command (one at a time, with its evaluation budget and a time
     limit) and take the row's input from what the command wrote (report.json of
     `accuracy`: its wrong special values, then its worst inputs, in the report's order;
     the first entry the row's selector accepts);
  2. build a tiny C harness with gcc, linked with an archive of the library's own sources
     compiled with gcc -O2 and the library's flags (never fpforge's code), run it on the
     exact input (its bit pattern) and read the observed result (and GSL's status and
     error estimate);
  3. evaluate the true value with mpmath at 80 significant digits (the row's closed
     form), class the difference (wrong special value; error in ulps and relative error;
     GSL: also the error against the bound the function itself returns in result.err);
  4. print the markdown table (`--markdown`) or a summary, and exit 1 if a row did not
     confirm.

    bench/findings/run.py [--fpforge /tmp/fpforge-1c86e66] [--work /tmp/fpforge-findings]
                          [--only 3,7] [--reuse] [--markdown > docs/FINDINGS.md]

`--reuse` keeps the fpforge outputs an earlier run left in --work (the native check and
the true values are always redone). The libraries' sources come from bench/source.sh
(Debian bookworm source packages) or, for SciPy's Cephes and OpenLibm, from the tagged
public releases unpacked into the corpus cache (see rows.py); nothing of them enters
the repository.
"""

import argparse
import json
import math
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import libs  # noqa: E402
import rows as ROWS  # noqa: E402

import mpmath  # noqa: E402
from mpmath import mp, mpf  # noqa: E402

DBL_MAX = mpf(2) ** 1024 * (1 - mpf(2) ** -53)
DBL_TRUE_MIN = mpf(2) ** -1074


def bits_of(text):
    """The double a fpforge argument text denotes (hex float, decimal, inf, nan, raw:BITS)."""
    if text.startswith("raw:"):
        return struct.unpack("<d", struct.pack("<Q", int(text[4:], 16)))[0]
    return float.fromhex(text) if "0x" in text else float(text)


def hexbits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def fmt(x):
    if isinstance(x, float):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"`{x.hex()}` ({x!r})"
    return str(x)


def candidates(report):
    """The inputs an accuracy report lists: wrong special values first, then worst inputs."""
    out = []
    for e in report.get("special_values", []) + report.get("top", []):
        text = e["input"]
        # Output structs are shown after the arguments in brackets: `x [0x0p+0,0x0p+0]`.
        args = [t for t in re.split(r"\s+", re.sub(r"\[[^\]]*\]", "", text).strip()) if t]
        out.append((args, e))
    return out


def confirmed_findings(out):
    """The findings `--confirm` wrote under out/findings: (arguments, directory, fpforge's
    native verdict line) per finding, in name order."""
    found = []
    # Wrong special values first: where a row's selector accepts several, the row is the
    # special value (a large error of the same input region is GSL's to bound).
    order = lambda md: (not md.parent.name.startswith("wrong-special-value"), md.parent.name)
    for md in sorted((out / "findings").glob("*/report.md"), key=order):
        text = md.read_text()
        exact = re.search(r"^- exact \(C99 hex floats\): `([^`]*)`", text, re.M)
        native = re.search(r"^## Native run\n\n(.*)$", text, re.M)
        if exact:
            args = [t for t in re.split(r"\s+", re.sub(r"\[[^\]]*\]", "", exact.group(1)).strip()) if t]
            found.append((args, md.parent, native.group(1) if native else ""))
    return found


def pick_input(row, candidates):
    """The first (arguments, values, extra) of `candidates` the row's selector accepts."""
    for args, extra in candidates:
        try:
            xs = [bits_of(a) for a in args]
        except ValueError:
            continue
        # Fixed integer arguments (GSL's mode) are the harness's `extra_args`, not inputs.
        n = len(xs) - len(row.get("extra_args", []))
        if row["pick"](*xs[:n]):
            return args[:n], xs[:n], extra
    return None


def run_fpforge(fpforge, row, work, reuse):
    """The row's input: from the findings `--confirm` wrote when one is the row's (then
    with its directory and fpforge's native verdict), else from report.json."""
    out = work / f"row{row['id']:02d}"
    cmd = [str(fpforge)] + libs.expand(row["cmd"]) + ["--out", str(out), "--confirm"]
    if not (reuse and (out / "report.json").exists()):
        if out.exists():
            shutil.rmtree(out)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode not in (0, 3) or not (out / "report.json").exists():
            return None, f"fpforge exited {r.returncode}: {r.stderr.strip()[-300:]}"
    report = json.loads((out / "report.json").read_text())
    finding = pick_input(row, [(args, (d, v)) for args, d, v in confirmed_findings(out)])
    if finding:
        return finding, None
    reported = pick_input(row, [(args, None) for args, _ in candidates(report)])
    if reported:
        return reported, None
    return None, "no reported input matches the row's selector"


def save_report(row, finding_dir, reports):
    """The row's report.md as `--confirm` wrote it, the library's source root written as
    the placeholder the commands use (`{gsl}`)."""
    reports.mkdir(parents=True, exist_ok=True)
    text = (finding_dir / "report.md").read_text()
    text = text.replace(str(libs.root(row["lib"])), "{%s}" % row["lib"])
    text = text.replace(str(REPO), "{fpforge}")
    # What the loading flags name on this machine: generated headers, Python's includes.
    text = re.sub(r"/tmp/fpforge-findings[^/]*/", "{build}/", text)
    text = text.replace(sysconfig.get_paths()["include"], "{python-include}")
    (reports / ROWS.report_name(row)).write_text(text)


def truth(expr, xs):
    mp.dps = 80
    names = {k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}
    env = {**names, **{n: mpf(x) for n, x in zip("xyz", xs)}}
    v = eval(expr, env)
    if isinstance(v, mpmath.mpc):
        v = v.real if v.imag == 0 else mpf("nan")
    return v


def ulp_error(got, t, p=53, emin=-1022):
    """|got - t| in ulps of t (binary64, or binary32 with p=24, emin=-126; subnormals with
    the fixed quantum)."""
    e = max(int(mpmath.floor(mpmath.log(abs(t), 2))), emin) if t != 0 else emin
    return abs(mpf(got) - t) / mpf(2) ** (e - p + 1)


def classify(row, got, status, err, t):
    """(class text, confirmed?) for an observed result against the true value."""
    finite_t = mpmath.isfinite(t) and abs(t) <= DBL_MAX
    gsl = row["lib"] == "gsl"
    ok_status = (status == 0) if gsl else True
    if mpmath.isnan(t):
        if not math.isnan(got):
            return "wrong special value: finite where the result is NaN (outside the domain)", True
        return "correct (NaN)", False
    if not finite_t:
        return "true value not representable", False
    if math.isnan(got) or math.isinf(got):
        return ("wrong special value: " + ("NaN" if math.isnan(got) else "infinite")
                + (" with GSL_SUCCESS" if gsl and ok_status else "")
                + " where the result is finite"), ok_status
    if got == 0 and abs(t) >= DBL_TRUE_MIN / 2 * 3 / 2 and t != 0:
        return ("wrong special value: zero" + (" with GSL_SUCCESS" if gsl and ok_status else "")
                + " where the result is representable and nonzero"), ok_status
    if t == 0:
        return ("nonzero where the result is 0", ok_status) if got != 0 else ("correct", False)
    rel = abs((mpf(got) - t) / t)
    ulps = ulp_error(got, t, 24, -126) if row.get("float32") else ulp_error(got, t)
    text = f"error {mpmath.nstr(ulps, 3)} {'float ' if row.get('float32') else ''}ulps (relative error {mpmath.nstr(rel, 3)})"
    if rel > 0 and (got > 0) != (t > 0) and got != 0:
        text = "wrong sign: " + text
    confirmed = ulps >= row.get("min_ulps", 1000)
    if gsl:
        bound = abs(mpf(got) - t) / mpf(err) if err > 0 else mpf("inf")
        text += (f", {mpmath.nstr(bound, 3)}x the error bound GSL returns ({err:.3g})"
                 if err > 0 else ", GSL returns the error bound 0")
        confirmed = confirmed and ok_status and bound > 10
    return text, confirmed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fpforge", type=Path, default=Path(os.environ.get("FPFORGE", REPO / "target/release/fpforge")))
    ap.add_argument("--work", type=Path, default=Path("/tmp/fpforge-findings"))
    ap.add_argument("--only", default="")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--reports", type=Path, help="copy each row's report.md here (docs/findings)")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    only = {int(i) for i in args.only.split(",") if i}
    results = []
    for row in ROWS.ROWS:
        if only and row["id"] not in only:
            continue
        print(f"row {row['id']}: {row['lib']} {row['func']} ...", file=sys.stderr, flush=True)
        found, why = run_fpforge(args.fpforge, row, args.work, args.reuse)
        if found is None:
            results.append((row, None, why))
            continue
        texts, xs, finding = found
        try:
            observed = libs.native(row, xs, args.work)
        except RuntimeError as e:
            results.append((row, None, f"native build/run failed: {e}"))
            continue
        if observed is None:
            # A hang: the call is still running; its true value is not needed to class it.
            got, status, err, t = math.nan, 0, 0.0, None
            cls = f"hang: the call spends {libs.HANG_CPU_SECONDS} s of CPU time without returning (gcc -O2)"
            ok = row.get("hang", False)
        else:
            got, status, err = observed
            t = truth(row["truth"], xs)
            cls, ok = classify(row, got, status, err, t)
        if finding and args.reports:
            save_report(row, finding[0], args.reports)
        results.append((row, dict(texts=texts, xs=xs, got=got, status=status, err=err, t=t,
                                  cls=cls, ok=ok, finding=finding), None))
    failed = [r for r in results if r[1] is None or not r[1]["ok"]]
    if args.markdown:
        print(ROWS.markdown(results, fmt, libs))
    else:
        for row, res, why in results:
            if res is None:
                print(f"{row['id']:>2} {row['lib']:<8} {row['func']:<28} NOT CONFIRMED: {why}")
            else:
                t = "-" if res["t"] is None else mpmath.nstr(res["t"], 17)
                st = f" status {res['status']}" if row["lib"] == "gsl" else ""
                own = res["finding"][1] if res["finding"] else "no --confirm finding for this input"
                print(f"{row['id']:>2} {row['lib']:<8} {row['func']:<28} x={' '.join(res['texts'])} "
                      f"got {res['got']!r}{st} true {t}: {res['cls']} "
                      f"{'CONFIRMED' if res['ok'] else 'NOT CONFIRMED'}; fpforge --confirm: {own}")
    own = [r for r in results if r[1] and r[1]["finding"] and r[1]["finding"][1].startswith("Confirmed natively")]
    print(f"{len(results) - len(failed)} of {len(results)} rows confirmed natively; "
          f"{len(own)} by fpforge's own reproducer (--confirm)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
