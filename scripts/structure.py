#!/usr/bin/env python3
"""Checks two rules of the tree that the compiler does not: no import cycle between the
top-level modules of a crate, and no function longer than 150 lines outside tests.

Both rules read the whole file without its comments, the contents of its string and
character literals, and its `#[cfg(test)]` items (a test module, function or import:
from the attribute to the item's closing brace or semicolon, by brace matching), so a
file whose tests come first is checked after them too. Imports: every `crate::a::...`
and `crate::{a::X, b}` path is an edge from the file's top-level module to `a`
(`super::` paths stay inside a top-level module, which is one node). Function lengths
count the lines from `fn` to its closing brace.

    python3 scripts/structure.py            # exit 1 and a list when a rule is broken
    python3 scripts/structure.py --report   # also list every crate's module graph
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates")
MAX_LINES = 150
FN_RE = re.compile(r'^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+"C"\s+)?fn\s+(\w+)')


CHAR_RE = re.compile(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^'\\\n])'")
RAW_STRING_RE = re.compile(r'b?r(#*)"')
TEST_ATTR_RE = re.compile(r"#\[cfg\(test\)\]")


def blank(chars, start, end):
    """Replaces `chars[start:end]` by spaces, keeping line breaks (and so line numbers)."""
    for k in range(start, end):
        if chars[k] != "\n":
            chars[k] = " "


def strip_literals(text):
    """The text with comments and the contents of string and character literals
    blanked, so that braces, `fn` and `crate::` in them count for nothing."""
    chars, i, n = list(text), 0, len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(chars, i, end)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(chars, i, j)
            i = j
        elif text[i] in "br" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) and RAW_STRING_RE.match(text, i):
            hashes = RAW_STRING_RE.match(text, i).group(1)
            body = text.index('"', i) + 1
            end = text.find('"' + hashes, body)
            end = n if end < 0 else end
            blank(chars, body, end)
            i = end + 1 + len(hashes)
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(chars, i + 1, j)
            i = j + 1
        elif text[i] == "'":
            # A character literal, or a lifetime (`'a`), which has no closing quote.
            m = CHAR_RE.match(text, i)
            if m:
                blank(chars, i + 1, m.end() - 1)
                i = m.end()
            else:
                i += 1
        else:
            i += 1
    return "".join(chars)


def item_end(code, start):
    """Where the item that starts at `start` ends: after its `;`, or after the brace
    that closes its first `{`."""
    depth = 0
    for j in range(start, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        elif code[j] == ";" and depth == 0:
            return j + 1
    return len(code)


def code_of(text):
    """The file's code: comments and literal contents blanked, `#[cfg(test)]` items
    too; line breaks stay where they were."""
    code = strip_literals(text)
    chars = list(code)
    for m in TEST_ATTR_RE.finditer(code):
        blank(chars, m.start(), item_end(code, m.end()))
    return "".join(chars)


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
            lines = code_of(open(path).read()).split("\n")
            for i, line in enumerate(lines):
                m = FN_RE.match(line)
                if not m:
                    continue
                depth, started, j = 0, False, i
                while j < len(lines):
                    code = lines[j]
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
