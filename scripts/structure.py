#!/usr/bin/env python3
"""Checks two rules of the tree that the compiler does not: no import cycle between the
top-level modules of a crate, and no function longer than 150 lines outside tests.

Imports are read from the source text: every `crate::a::...` and `crate::{a::X, b}` path
outside comments and `#[cfg(test)]` modules is an edge from the file's top-level module
to `a` (`super::` paths stay inside a top-level module, which is one node). Function lengths count the lines from `fn` to its closing brace
(brace matching over code with strings and comments removed).

    python3 scripts/structure.py            # exit 1 and a list when a rule is broken
    python3 scripts/structure.py --report   # also list every crate's module graph
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates")
MAX_LINES = 150
FN_RE = re.compile(r'^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+"C"\s+)?fn\s+(\w+)')


def code_of(text):
    """The text before the first `#[cfg(test)]` module, without `//` comments."""
    text = text.split("#[cfg(test)]")[0]
    return "\n".join(re.sub(r"//.*", "", line) for line in text.split("\n"))


def module_name(src, path):
    parts = os.path.relpath(path, src)[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts[0] if parts else "crate"


def imported(code):
    """Top-level module names that `crate::` and grouped `crate::{...}` paths name."""
    names = set(re.findall(r"crate::([a-z_][a-z0-9_]*)", code))
    for group in re.findall(r"crate::\{([^}]*)\}", code):
        names.update(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
    return names


def cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return found


def crate_graph(src):
    graph = {}
    for d, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(d, f)
            mod = module_name(src, path)
            code = code_of(open(path).read())
            graph.setdefault(mod, set())
            graph[mod].update(n for n in imported(code) if n != mod)
    modules = set(graph)
    return {m: {n for n in deps if n in modules} for m, deps in graph.items()}


def long_functions(src):
    out = []
    for d, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(d, f)
            lines = open(path).read().split("#[cfg(test)]")[0].split("\n")
            for i, line in enumerate(lines):
                m = FN_RE.match(line)
                if not m:
                    continue
                depth, started, j = 0, False, i
                while j < len(lines):
                    code = re.sub(r"//.*", "", lines[j])
                    code = re.sub(r"'(\\.|[^'\\])'", "", code)
                    code = re.sub(r'"(\\.|[^"\\])*"', '""', code)
                    depth += code.count("{") - code.count("}")
                    started = started or "{" in code
                    if started and depth <= 0:
                        break
                    if not started and code.rstrip().endswith(";"):
                        break
                    j += 1
                if started and j - i + 1 > MAX_LINES:
                    out.append(f"{os.path.relpath(path, os.path.join(ROOT, '..'))}:{i + 1} {m.group(7)} ({j - i + 1} lines)")
    return out


def main():
    problems = []
    for crate in sorted(os.listdir(ROOT)):
        src = os.path.join(ROOT, crate, "src")
        if not os.path.isdir(src):
            continue
        graph = crate_graph(src)
        if "--report" in sys.argv:
            for m in sorted(graph):
                print(f"{crate}::{m} -> {', '.join(sorted(graph[m])) or '-'}")
        for comp in cycles(graph):
            problems.append(f"{crate}: import cycle among {', '.join(comp)}")
        problems.extend(long_functions(src))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} structure problem(s): modules must import one way, functions stay under {MAX_LINES} lines")
        sys.exit(1)
    print("structure: no import cycle between modules, no function over 150 lines")


if __name__ == "__main__":
    main()
