#!/usr/bin/env python3
"""Public SMT-LIB floating-point benchmarks through fpforge, Z3, Bitwuzla and cvc5.

The files are not in this repository. `import` copies a fixed, seeded sample of them out
of git snapshots of public repositories (listed in SOURCES with the commit they were
taken at) into a cache outside the repository:

    python3 bench/solve/public.py import --mirror bitwuzla/bitwuzla=GITDIR \
        --mirror mc-imperial/jfs-fse-2019-artifact=GITDIR

`run` answers every cached file with each solver under one time limit and prints the
issue's table (solved / wrong / unknown / error per solver) and a per-family table:

    python3 bench/solve/public.py run --timeout 10 [--exe target/release/fpforge] [--jobs 2]

Z3, Bitwuzla and cvc5 come from PyPI (`z3-solver`, `bitwuzla`, `cvc5`) in the venv that
run.py uses. A file's expected answer is its `(set-info :status ...)`, or else the answer
every peer that decided it agrees on; an answer contradicting it is *wrong*. *error*
counts files a solver rejects (unsupported features, parse errors, crashes); fpforge's
`unsupported: NAME` errors are listed by NAME under the table. Results are kept as JSON
beside the files, so `--only fpforge` re-runs one solver against stored peer answers.
"""
import argparse
import collections
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
XDG = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
CORPUS = os.path.join(XDG, "fpforge-corpus", "smtlib-fp")
VENV = os.path.join(XDG, "fpforge", "bench-venv")
PEERS = ["z3", "bitwuzla", "cvc5"]

# (repository, commit, directory prefix, how many files to sample from it; None = all).
SOURCES = [
    ("mc-imperial/jfs-fse-2019-artifact", "fcd3e41855584ec26df42cddf773563d5c25ea8e",
     "data/benchmarks/3-stratified-random-sampling/benchmarks/QF_FP/", 60),
    ("mc-imperial/jfs-fse-2019-artifact", "fcd3e41855584ec26df42cddf773563d5c25ea8e",
     "data/benchmarks/3-stratified-random-sampling/benchmarks/QF_BVFP/", 40),
    ("bitwuzla/bitwuzla", "89ccdb3c27939315fd2101c3485398dfea21b310",
     "test/regress/solver/fp/", None),
]
SAMPLE_SEED = 19


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, check=True).stdout


def import_files(mirrors):
    for repo, commit, prefix, count in SOURCES:
        gitdir = mirrors.get(repo)
        if gitdir is None:
            print(f"skipping {repo}: no --mirror given", file=sys.stderr)
            continue
        names = git(gitdir, "ls-tree", "-r", "--name-only", commit, prefix).decode().split("\n")
        names = sorted(n for n in names if n.endswith(".smt2"))
        if count is not None and count < len(names):
            names = sorted(random.Random(SAMPLE_SEED).sample(names, count))
        for n in names:
            dest = os.path.join(CORPUS, repo.replace("/", "+"), n)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(git(gitdir, "show", f"{commit}:{n}"))
        print(f"{repo}@{commit[:12]} {prefix}: {len(names)} files", file=sys.stderr)


def corpus_files():
    out = []
    for base, _, files in os.walk(CORPUS):
        out += [os.path.join(base, f) for f in files if f.endswith(".smt2")]
    return sorted(out)


def family(path):
    rel = os.path.relpath(path, CORPUS).split(os.sep)
    for i, part in enumerate(rel):
        if part.startswith("QF_"):
            return "/".join(rel[i:i + 2])
    return rel[0].split("+")[0] + " regressions"


def expected_status(path):
    with open(path, errors="replace") as f:
        m = re.search(r":status\s+(sat|unsat)", f.read())
    return m.group(1) if m else None


def python():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        os.makedirs(os.path.dirname(VENV), exist_ok=True)
        venv.create(VENV, with_pip=True)
    for mod, pkg in [("z3", "z3-solver"), ("bitwuzla", "bitwuzla"), ("cvc5", "cvc5")]:
        if subprocess.run([py, "-c", f"import {mod}"], capture_output=True).returncode != 0:
            subprocess.run([py, "-m", "pip", "install", "-q", pkg], check=True)
    return py


PEER_CODE = {
    # The script command by command (push/pop, several check-sats), like the others.
    "z3": "import sys, z3\n"
          "z3.set_param('timeout', {ms})\n"
          "print(z3.Z3_eval_smtlib2_string(z3.main_ctx().ref(), open(sys.argv[1]).read()))\n",
    "bitwuzla": "import sys, bitwuzla as b\n"
                "tm = b.TermManager(); o = b.Options(); o.set(b.Option.TIME_LIMIT_PER, {ms})\n"
                "b.Parser(tm, o).parse(sys.argv[1])\n",
    "cvc5": "import sys, cvc5\n"
            "tm = cvc5.TermManager(); s = cvc5.Solver(tm); s.setOption('tlimit-per', '{ms}')\n"
            "s.setOption('fp-exp', 'true'); s.setOption('produce-models', 'true')\n"
            "p = cvc5.InputParser(s); p.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.argv[1])\n"
            "sm = p.getSymbolManager()\n"
            "while True:\n"
            "    c = p.nextCommand()\n"
            "    if c.isNull(): break\n"
            "    r = c.invoke(s, sm)\n"
            "    if r.strip(): print(r.strip())\n",
}


def classify(stdout):
    """The first check-sat answer: sat, unsat, unknown, or error when there is none."""
    for line in stdout.splitlines():
        word = line.strip()
        if word in ("sat", "unsat", "unknown"):
            return word
    return "error"


def run_one(cmd, timeout):
    start = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 5)
        status = classify(r.stdout)
        reason = ""
        if status == "error":
            text = (r.stderr.strip() or r.stdout.strip()).splitlines()
            reason = text[-1][:300] if text else f"exit {r.returncode}"
    except subprocess.TimeoutExpired:
        status, reason = "unknown", "killed"
    return {"status": status, "time": time.monotonic() - start, "reason": reason}


def solver_cmd(name, path, args, py):
    if name == "fpforge":
        jobs = ["--jobs", str(args.jobs)] if args.jobs != 1 else []
        return [args.exe, "solve", "--timeout", str(args.timeout)] + jobs + [path]
    return [py, "-c", PEER_CODE[name].format(ms=int(args.timeout * 1000)), path]


def unsupported_name(reason):
    m = re.search(r"unsupported: (\(_ \w+|[^\s(]+(?: [^\s(]+)?)", reason)
    return m.group(1) if m else None


def expected(path, answers):
    status = expected_status(path)
    if status:
        return status
    decided = {answers[p]["status"] for p in PEERS if p in answers} & {"sat", "unsat"}
    return decided.pop() if len(decided) == 1 else None


def print_tables(results, solvers):
    rows = collections.OrderedDict((s, collections.Counter()) for s in solvers)
    fams = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    unsupported = collections.Counter()
    wrong_files = []
    for path, answers in sorted(results.items()):
        want = expected(path, answers)
        for s in solvers:
            a = answers.get(s)
            if a is None:
                continue
            st = a["status"]
            kind = ("wrong" if want and st != want else "solved") if st in ("sat", "unsat") else st
            rows[s][kind] += 1
            fams[family(path)][s][kind] += 1
            if kind == "wrong":
                wrong_files.append(f"{s}: {os.path.relpath(path, CORPUS)} ({st}, expected {want})")
            if s == "fpforge" and kind == "error":
                unsupported[unsupported_name(a["reason"]) or a["reason"][:80]] += 1
    print(f"{len(results)} files\n")
    print("| solver | solved | wrong | unknown/timeout | error | median time, solved (s) |")
    print("|---|---|---|---|---|---|")
    for s, c in rows.items():
        times = [a[s]["time"] for a in results.values() if s in a and a[s]["status"] in ("sat", "unsat")]
        med = f"{statistics.median(times):.2f}" if times else "-"
        print(f"| {s} | {c['solved']} | {c['wrong']} | {c['unknown']} | {c['error']} | {med} |")
    both = [a for a in results.values()
            if all(s in a and a[s]["status"] in ("sat", "unsat") for s in ("fpforge", "bitwuzla"))]
    if both:
        print(f"\non the {len(both)} files fpforge and bitwuzla both solve, median time: "
              + ", ".join(f"{s} {statistics.median(a[s]['time'] for a in both):.3f} s"
                          for s in ("fpforge", "bitwuzla")))
    print("\n| family | files | " + " | ".join(f"{s} solved/wrong/error" for s in solvers) + " |")
    print("|---|---|" + "---|" * len(solvers))
    for fam in sorted(fams):
        n = max(sum(fams[fam][s].values()) for s in solvers)
        cells = [f"{fams[fam][s]['solved']}/{fams[fam][s]['wrong']}/{fams[fam][s]['error']}" for s in solvers]
        print(f"| {fam} | {n} | " + " | ".join(cells) + " |")
    print("\nwrong answers: " + ("none" if not wrong_files else ""))
    for w in wrong_files:
        print(f"  {w}")
    print("\nfpforge errors by cause:")
    for why, n in unsupported.most_common():
        print(f"  {n:3}  {why}")


def run(args):
    files = corpus_files()
    if not files:
        sys.exit(f"no files under {CORPUS}; run the import step first")
    store = os.path.join(CORPUS, f"results-{int(args.timeout)}s.json")
    results = {}
    if os.path.exists(store):
        with open(store) as f:
            results = json.load(f)
    py = python()
    solvers = args.only or ["fpforge"] + PEERS
    for i, path in enumerate(files):
        answers = results.setdefault(path, {})
        for s in solvers:
            answers[s] = run_one(solver_cmd(s, path, args, py), args.timeout)
        print(f"[{i + 1}/{len(files)}] {os.path.relpath(path, CORPUS)} "
              + " ".join(f"{s}={answers[s]['status']}" for s in solvers), file=sys.stderr)
    with open(store, "w") as f:
        json.dump(results, f, indent=1)
    print_tables({p: results[p] for p in files}, ["fpforge"] + PEERS)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    imp = sub.add_parser("import", help="copy the sample out of git snapshots into the cache")
    imp.add_argument("--mirror", action="append", default=[], metavar="OWNER/NAME=GITDIR")
    r = sub.add_parser("run", help="run the solvers and print the tables")
    r.add_argument("--timeout", type=float, default=10.0)
    r.add_argument("--exe", default=os.path.join(ROOT, "target", "release", "fpforge"))
    r.add_argument("--jobs", type=int, default=1, help="fpforge solve --jobs (portfolio threads)")
    r.add_argument("--only", action="append", choices=["fpforge"] + PEERS,
                   help="re-run only these solvers (others come from the stored results)")
    t = sub.add_parser("table", help="print the tables from stored results")
    t.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()
    if args.cmd == "import":
        import_files(dict(m.split("=", 1) for m in args.mirror))
    elif args.cmd == "run":
        run(args)
    else:
        with open(os.path.join(CORPUS, f"results-{int(args.timeout)}s.json")) as f:
            results = json.load(f)
        print_tables(results, ["fpforge"] + PEERS)


if __name__ == "__main__":
    main()
