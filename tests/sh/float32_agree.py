#!/usr/bin/env python3
"""float32_agree.py A B [REL]: the outputs A (the default, double build) and B (the
--float32 build) of one program agree: the same text around the numbers, the same
integers, and floats within a relative REL (default 1e-4, single precision's 2^-24
grown by a few roundings). Exit 0 and print the largest relative difference, else
exit 1 and say where they part (tests/sh/float32.sh)."""
import re
import sys

NUM = re.compile(r"-?inf\b|nan\b|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def pieces(s):
    out, pos = [], 0
    for m in NUM.finditer(s):
        out.append(("text", s[pos:m.start()]))
        out.append(("num", m.group()))
        pos = m.end()
    out.append(("text", s[pos:]))
    return out


def main():
    a = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    b = open(sys.argv[2], encoding="utf-8", errors="replace").read()
    rel = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
    pa, pb = pieces(a), pieces(b)
    if len(pa) != len(pb):
        print("the outputs have different shapes")
        return 1
    worst = 0.0
    for (ka, va), (_, vb) in zip(pa, pb):
        if ka == "text":
            if va != vb:
                print("text differs: %r and %r" % (va, vb))
                return 1
            continue
        if va == vb:
            continue
        isint = not re.search(r"[.eEna]", va + vb)
        x, y = float(va), float(vb)
        if isint or x != x or y != y or abs(x) == float("inf") or abs(y) == float("inf"):
            print("%s and %s differ" % (va, vb))
            return 1
        d = abs(x - y) / max(abs(x), abs(y), 1.0)
        worst = max(worst, d)
        if d > rel:
            print("%s and %s: relative difference %.3g > %g" % (va, vb, d, rel))
            return 1
    print("%.3g" % worst)
    return 0


sys.exit(main())
