#!/usr/bin/env python3
"""Writes fpforge's solver benchmark queries (SMT-LIB 2.6) into queries/.

Our own encodings, written from the programs' descriptions:
  * the FloPSy functions (Lakhotia et al., ICTSS 2010): "f(x) == 0" over binary64;
  * a single-precision dichotomic root finder (after the FPSE paper's example),
    unrolled along paths of 1..12 iterations, three branch patterns per length;
  * small classics and a 20-step recurrence.
Run: python3 gen_queries.py   (rewrites queries/*.smt2)
"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "queries")
D = "(_ FloatingPoint 11 53)"
S = "(_ FloatingPoint 8 24)"


def lit(eb_sb, v):
    """A float literal; negative ones as fp.neg of the positive literal, which
    every solver reads (Bitwuzla rejects `(- 1.5)` as a real term)."""
    v = str(v)
    if v.startswith("-"):
        return f"(fp.neg ((_ to_fp {eb_sb}) RNE {v[1:]}))"
    return f"((_ to_fp {eb_sb}) RNE {v})"


def d(v):
    return lit("11 53", v)


def s(v):
    return lit("8 24", v)


def add(a, b, t="RNE"):
    return f"(fp.add {t} {a} {b})"


def sub(a, b):
    return f"(fp.sub RNE {a} {b})"


def mul(a, b):
    return f"(fp.mul RNE {a} {b})"


def sq(a):
    return mul(a, a)


def header(vars_, sort, logic="QF_FP"):
    lines = [f"(set-logic {logic})"]
    lines += [f"(declare-const {v} {sort})" for v in vars_]
    return lines


def write(name, lines):
    with open(os.path.join(OUT, name + ".smt2"), "w") as f:
        f.write("\n".join(lines + ["(check-sat)", "(exit)"]) + "\n")


def flopsy():
    zero = "(_ +zero 11 53)"
    x1, x2, x3, x4 = "x1", "x2", "x3", "x4"
    # Beale: (1.5 - x1(1-x2))^2 + (2.25 - x1(1-x2^2))^2 + (2.625 - x1(1-x2^3))^2
    one = d("1.0")
    t1 = sub(d("1.5"), mul(x1, sub(one, x2)))
    t2 = sub(d("2.25"), mul(x1, sub(one, sq(x2))))
    t3 = sub(d("2.625"), mul(x1, sub(one, mul(x2, sq(x2)))))
    f = add(add(sq(t1), sq(t2)), sq(t3))
    write("flopsy_beale", header([x1, x2], D) + [f"(assert (fp.eq {f} {zero}))"])
    # Freudenstein-Roth
    f1 = add(add(d("-13.0"), x1), mul(sub(mul(sub(d("5.0"), x2), x2), d("2.0")), x2))
    f2 = add(add(d("-29.0"), x1), mul(sub(mul(add(x2, one), x2), d("14.0")), x2))
    write("flopsy_freudenstein_roth", header([x1, x2], D) + [f"(assert (fp.eq {add(sq(f1), sq(f2))} {zero}))"])
    # Helical valley needs atan: fpforge's extension operator fpext.atan (host
    # libm), which Z3 and Bitwuzla cannot read.
    t = f"(fp.div RNE (fpext.atan (fp.div RNE {x2} {x1})) {d('6.283185307179586')})"
    theta = f"(ite (fp.gt {x1} {zero}) {t} {add(t, d('0.5'))})"
    h1 = mul(d("10.0"), sub(x3, mul(d("10.0"), theta)))
    h2 = mul(d("10.0"), sub(f"(fp.sqrt RNE {add(sq(x1), sq(x2))})", one))
    write("flopsy_helical_valley_ext", header([x1, x2, x3], D) +
          [f"(assert (fp.eq {add(add(sq(h1), sq(h2)), sq(x3))} {zero}))"])
    # Powell singular
    p = add(add(add(sq(add(x1, mul(d("10.0"), x2))), mul(d("5.0"), sq(sub(x3, x4)))),
                sq(sq(sub(x2, mul(d("2.0"), x3))))), mul(d("10.0"), sq(sq(sub(x1, x4)))))
    write("flopsy_powell", header([x1, x2, x3, x4], D) + [f"(assert (fp.eq {p} {zero}))"])
    # Rosenbrock
    r = add(mul(d("100.0"), sq(sub(x2, sq(x1)))), sq(sub(one, x1)))
    write("flopsy_rosenbrock", header([x1, x2], D) + [f"(assert (fp.eq {r} {zero}))"])
    # Wood
    w = add(add(add(add(add(mul(d("100.0"), sq(sub(x2, sq(x1)))), sq(sub(one, x1))),
                        mul(d("90.0"), sq(sub(x4, sq(x3))))), sq(sub(one, x3))),
                mul(d("10.1"), add(sq(sub(x2, one)), sq(sub(x4, one))))),
            mul(d("19.8"), mul(sub(x2, one), sub(x4, one))))
    write("flopsy_wood", header([x1, x2, x3, x4], D) + [f"(assert (fp.eq {w} {zero}))"])


def dichotomic():
    """float a in [-100, 1], k in [1, 4]; b = 2; f(x) = x*x - k;
    while (b - a > 1/16) { m = (a + b) / 2; if (f(m) * f(a) > 0) a = m; else b = m; }
    A path of length n: n true guards, one false guard, and a branch pattern."""
    eps = s("0.0625")
    half = s("0.5")
    for n in range(1, 13):
        for pat_name in ["left", "right", "alt"]:
            lines = header(["a", "k"], S)
            lines += [f"(assert (fp.leq {s('-100.0')} a))", f"(assert (fp.leq a {s('1.0')}))",
                      f"(assert (fp.leq {s('1.0')} k))", f"(assert (fp.leq k {s('4.0')}))"]
            a, b = "a", s("2.0")
            for i in range(n):
                lines.append(f"(define-fun a{i} () {S} {a})")
                lines.append(f"(define-fun b{i} () {S} {b})")
                lines.append(f"(assert (fp.gt (fp.sub RNE b{i} a{i}) {eps}))")
                lines.append(f"(define-fun m{i} () {S} (fp.mul RNE (fp.add RNE a{i} b{i}) {half}))")
                fm = f"(fp.sub RNE (fp.mul RNE m{i} m{i}) k)"
                fa = f"(fp.sub RNE (fp.mul RNE a{i} a{i}) k)"
                cond = f"(fp.gt (fp.mul RNE {fm} {fa}) (_ +zero 8 24))"
                take_a = {"left": True, "right": False, "alt": i % 2 == 0}[pat_name]
                if take_a:
                    lines.append(f"(assert {cond})")
                    a = f"m{i}"
                    b = f"b{i}"
                else:
                    lines.append(f"(assert (not {cond}))")
                    a = f"a{i}"
                    b = f"m{i}"
            lines.append(f"(assert (not (fp.gt (fp.sub RNE {b} {a}) {eps})))")
            write(f"dichotomic_{n:02}_{pat_name}", lines)


def classics():
    write("absorption", header(["x", "y"], S) +
          ["(assert (fp.eq (fp.add RNE x y) x))", "(assert (not (fp.isZero y)))", "(assert (not (fp.isInfinite x)))"])
    write("sqrt2", header(["x"], S) + [f"(assert (fp.eq (fp.mul RNE x x) {s('2.0')}))"])
    write("plus_one_minus", header(["x"], S) +
          [f"(assert (not (fp.eq (fp.sub RNE (fp.add RNE x {s('1.0')}) x) {s('1.0')})))",
           "(assert (not (fp.isNaN x)))", "(assert (not (fp.isInfinite x)))"])
    write("div3_mul3", header(["x"], S) +
          [f"(assert (not (fp.eq (fp.mul RNE (fp.div RNE x {s('3.0')}) {s('3.0')}) x)))",
           "(assert (not (fp.isNaN x)))", "(assert (not (fp.isInfinite x)))"])
    write("absorption_bounded_unsat", header(["x"], S) +
          [f"(assert (fp.eq (fp.add RNE x {s('1.0')}) x))", f"(assert (fp.leq (fp.abs x) {s('1000.0')}))"])
    # x_{i+1} = x_i * 1.5 - 0.25 for 20 steps, final value in [100, 101].
    lines = header(["x0"], S) + [f"(assert (fp.leq (fp.abs x0) {s('10.0')}))"]
    for i in range(20):
        lines.append(f"(define-fun x{i + 1} () {S} (fp.sub RNE (fp.mul RNE x{i} {s('1.5')}) {s('0.25')}))")
    lines += [f"(assert (fp.geq x20 {s('100.0')}))", f"(assert (fp.leq x20 {s('101.0')}))"]
    write("recurrence20", lines)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    flopsy()
    dichotomic()
    classics()
