#!/usr/bin/env python3
"""verify.py — recomputes every benchmark's bench(n) summary in Python, independently
of Nessie (plain algorithms: sorted(), a monotone-chain hull, a direct sieve, ...), and
compares it with `nessie run experiments/programs/NAME.nesl -e 'bench(N)'`.

    python3 experiments/programs/verify.py [--bin=bin] [NAME=N ...]

Integers and booleans must match exactly; floats to a relative 1e-9 (the summaries
are sums whose order the two sides need not share). Exit 0 when all match.

For experiments/programs.sh (issue 28), which checks every run without running
nessie again:

    verify.py --check=OUT NAME=N [--cache=DIR]     the last `it = ...` line of OUT
    verify.py --check-timed=OUT NAME=N [--cache=DIR]   the same for bench_timed(N), whose
                                          value is (bench(N), seconds): the seconds dropped
    verify.py --check-baseline=OUT NAME=N [--cache=DIR]   a baseline's `result V` (seed 0)

print `ok` or `wrong: ...` and exit 0 or 1 (2 for bad arguments, 3 for a program
whose baseline result has no model); --cache keeps each model's value in
DIR/NAME-N.json, so that the jobs of one sweep compute it once."""
import json
import math
import os
import re
import subprocess
import sys

SIZES = {"dotprod": 1000, "blackscholes": 300, "nbody": 60, "quicksort": 1000,
         "quickhull": 500, "batcher_sort": 700, "radix_sort": 1000, "spmv": 300,
         "mandelbrot": 24, "linefit": 500, "primes": 2000, "barnes_hut": 300}


def h(i):
    a = ((i % 46337) * 7919 + 13) % 46337
    return (a * a + 12345) % 46337


def gen(i):
    return h(i) / 46337.0


def rem(a, b):  # C's %, as NESL's rem (the operands here are non-negative)
    return a % b


def dotprod(n):
    return sum(float(i % 7) * (float(i % 5) - 2.0) for i in range(n))


def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    w = 1.0 - math.exp(-(d * d) / 2.0) / math.sqrt(2.0 * math.pi) * poly
    return 1.0 - w if d < 0.0 else w


def blackscholes(n):
    calls = puts = 0.0
    for i in range(n):
        s, x, t, r, v = 5.0 + 25.0 * gen(i), 1.0 + 99.0 * gen(i + 1), 0.25 + 9.75 * gen(i + 2), 0.02, 0.30
        sq = v * math.sqrt(t)
        d1 = (math.log(s / x) + (r + v * v / 2.0) * t) / sq
        d2 = d1 - sq
        disc = x * math.exp(-r * t)
        calls += s * cnd(d1) - disc * cnd(d2)
        puts += disc * cnd(-d2) - s * cnd(-d1)
    return (calls, puts)


def nbody(n):
    pos = [(gen(3 * i), gen(3 * i + 1), gen(3 * i + 2)) for i in range(n)]
    dt = 0.001
    total = norms = 0.0
    for (px, py, pz) in pos:
        ax = ay = az = 0.0
        for (qx, qy, qz) in pos:
            dx, dy, dz = qx - px, qy - py, qz - pz
            r2 = dx * dx + dy * dy + dz * dz + 0.01
            s = 1.0 / (r2 * math.sqrt(r2))
            ax, ay, az = ax + s * dx, ay + s * dy, az + s * dz
        vx, vy, vz = dt * ax, dt * ay, dt * az
        total += (px + dt * vx) + (py + dt * vy) + (pz + dt * vz)
        norms += math.sqrt(ax * ax + ay * ay + az * az)
    return (total, norms)


def sorted_summary(n, middle):
    s = sorted(h(i) for i in range(n))
    out = [True, sum(s), s[0]]
    if middle:
        out.append(s[n // 2])
    out.append(s[-1])
    return tuple(out)


def quickhull(n):
    pts = sorted(set((gen(2 * i), gen(2 * i + 1)) for i in range(n)))

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = lower[:-1] + upper[:-1]
    area = abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(hull, hull[1:] + hull[:1]))) / 2.0
    # hull[0] of the NESL program: the first point in index order with the smallest x
    # (several points share it once n passes hash's period, 46337)
    first = min(range(n), key=lambda i: (gen(2 * i), i))
    return (len(hull), area, gen(2 * first), gen(2 * first + 1))


def spmv(n):
    x = [float(j % 10) for j in range(n)]
    y = []
    for i in range(n):
        y.append(sum(float(h(8 * i + j + 3) % 9 - 4) * x[h(8 * i + j) % n]
                     for j in range(1 + h(i) % 8)))
    return (sum(y), y[0], y[-1])


def mandelbrot(n):
    hstep = 2.5 / float(n)
    counts = []
    for k in range(n * n):
        cx, cy = -2.0 + hstep * float(k % n), -1.25 + hstep * float(k // n)
        x = y = 0.0
        i = 0
        while not (i >= 100 or x * x + y * y > 4.0):
            x, y = x * x - y * y + cx, 2.0 * x * y + cy
            i += 1
        counts.append(i)
    return (sum(counts), sum(1 for c in counts if c == 100))


def linefit(n):
    x = [float(i) for i in range(n)]
    y = [3.0 * float(i) + 2.0 + float(h(i) % 11 - 5) / 4.0 for i in range(n)]
    xa, ya = sum(x) / n, sum(y) / n
    sxx = sum((xi - xa) * (xi - xa) for xi in x)
    sxy = sum((xi - xa) * (yi - ya) for xi, yi in zip(x, y))
    b = sxy / sxx
    return (b, ya - b * xa)


def primes(n):
    """A direct sieve of Eratosthenes (the NESL program recurses on sqrt(n) instead)."""
    sieve = bytearray([1]) * n
    sieve[0:2] = b"\x00\x00"
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = bytes(len(range(p * p, n, p)))
    ps = [p for p in range(n) if sieve[p]]
    return (len(ps), ps[-1], sum(ps))


def pull(t, s, m):
    dx, dy = s[0] - t[0], s[1] - t[1]
    r2 = dx * dx + dy * dy + 0.0001
    f = m / (r2 * math.sqrt(r2))
    return (f * dx, f * dy)


def bh_tree(srcs, x0, y0, size):
    """The quadtree of the walk below, built once for every target (a square's sources
    do not depend on the target): (leaf sources or None, centre, mass, children), the
    children in quadrant order, None for an empty one."""
    if len(srcs) <= 4 or size < 1.0e-6:
        return (srcs, None, 0.0, None)
    m = float(len(srcs))
    c = (sum(x for x, _ in srcs) / m, sum(y for _, y in srcs) / m)
    half = size / 2.0
    kids = []
    for k in range(4):
        q = [(x, y) for x, y in srcs if int(x >= x0 + half) + 2 * int(y >= y0 + half) == k]
        kids.append(bh_tree(q, x0 + half * (k % 2), y0 + half * (k // 2), half) if q else None)
    return (None, c, m, kids)


def bh_accel(t, node, size):
    """One target's acceleration by the same walk as barnes_hut.nesl, written per
    target as a plain recursive quadtree descent."""
    leaf, c, m, kids = node
    if leaf is not None:
        fs = [pull(t, s, 1.0) for s in leaf]
        return (sum(f[0] for f in fs), sum(f[1] for f in fs))
    if size * size < 0.25 * ((t[0] - c[0]) ** 2 + (t[1] - c[1]) ** 2):
        return pull(t, c, m)
    ax = ay = 0.0
    for kid in kids:
        a = bh_accel(t, kid, size / 2.0) if kid else (0.0, 0.0)
        ax, ay = ax + a[0], ay + a[1]
    return (ax, ay)


def barnes_hut(n):
    ps = [(gen(2 * i), gen(2 * i + 1)) for i in range(n)]
    tree = bh_tree(ps, 0.0, 0.0, 1.0)
    acc = [bh_accel(p, tree, 1.0) for p in ps]
    return (sum(a[0] for a in acc), sum(a[1] for a in acc),
            sum(math.sqrt(a[0] * a[0] + a[1] * a[1]) for a in acc))


MODELS = {"barnes_hut": barnes_hut, "dotprod": lambda n: (dotprod(n),), "blackscholes": blackscholes, "nbody": nbody,
          "quicksort": lambda n: sorted_summary(n, True), "quickhull": quickhull,
          "batcher_sort": lambda n: sorted_summary(n, False),
          "radix_sort": lambda n: sorted_summary(n, False), "spmv": spmv,
          "mandelbrot": mandelbrot, "linefit": linefit, "primes": primes}


# What a hand-written baseline prints for seed 0 (experiments/baselines/README.md):
# the k-th value of bench(n) (1-based), or the checksum of the sorted keys.
BASELINE_VALUE = {"dotprod": 1, "blackscholes": 1, "nbody": 2, "quickhull": 2, "spmv": 1,
                  "mandelbrot": 1, "linefit": 1, "primes": 3, "barnes_hut": 3,
                  "quicksort": "sorted", "batcher_sort": "sorted", "radix_sort": "sorted"}


def sorted_checksum(n):
    s = sorted(h(i) for i in range(n))
    return sum(x * (i % 7) for i, x in enumerate(s))


def int32(w):
    """NESL's int is 32 bits and wraps (NESL.md): big sums are compared modulo 2^32."""
    if isinstance(w, bool) or not isinstance(w, int):
        return w
    return (w + 2 ** 31) % 2 ** 32 - 2 ** 31


def abs_tols(name, n, want):
    """Absolute tolerances beyond the relative 1e-9: linefit's intercept ya - b * xa is a
    difference of two terms of about 1.5 n each, so b's relative 1e-9 becomes an absolute
    1e-9 * (|b * xa| + |ya|) there (the summation order moves it by ~1e-6 at n = 3e6)."""
    if name == "linefit" and len(want) == 2:
        xa = (n - 1) / 2.0
        return [1e-12, 1e-9 * (abs(want[0] * xa) + abs(want[1] + want[0] * xa))]
    return [1e-12] * len(want)


def same(got, want, tols=None, wrap=True):
    """wrap: NESL output (32-bit ints); a C baseline's ints are 64-bit."""
    tols = tols or [1e-12] * len(want)
    return len(got) == len(want) and all(
        (g == (int32(w) if wrap else w)) if isinstance(w, (bool, int)) and not isinstance(g, float)
        else math.isclose(g, w, rel_tol=1e-9, abs_tol=t)
        for g, w, t in zip(got, want, tols))


def model(name, n, cache):
    """MODELS[name](n), through DIR/NAME-N.json when cache names a directory."""
    path = os.path.join(cache, f"{name}-{n}.json") if cache else None
    if path and os.path.exists(path):
        with open(path) as f:
            return tuple(json.load(f))
    want = MODELS[name](n)
    if path:
        os.makedirs(cache, exist_ok=True)
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(list(want), f)
        os.replace(tmp, path)  # atomic: parallel jobs may write the same file
    return want


def check(out, name, n, cache, baseline, timed=False):
    try:
        with open(out) as f:
            text = f.read()
    except OSError as e:
        print(f"wrong: cannot read {out}: {e}")
        return 1
    if baseline:
        how = BASELINE_VALUE.get(name)
        if how is None:
            print(f"no model for the baseline of {name}")
            return 3
        lines = [l for l in text.splitlines() if l.startswith("result ")]
        if not lines:
            print("wrong: no 'result' line")
            return 1
        tok = lines[-1].split()[1]
        got = (float(tok) if re.search(r"[.eEn]", tok) else int(tok),)
        want = (sorted_checksum(n),) if how == "sorted" else (model(name, n, cache)[how - 1],)
    else:
        if not any(l.startswith("it = ") for l in text.splitlines()):
            print("wrong: no 'it = ' line")
            return 1
        got, want = parse(text), model(name, n, cache)
        if timed:  # (bench(n), seconds)
            got = got[:-1]
    if same(got, want, None if baseline else abs_tols(name, n, want), wrap=not baseline):
        print("ok")
        return 0
    print(f"wrong: got {got}, the Python model gives {want}")
    return 1


def parse(text):
    """The values of an `it = V1, V2 ... : TYPE` line, flattened (tuples print flat)."""
    line = [l for l in text.splitlines() if l.startswith("it = ")][-1]
    value = line[5:line.rindex(" : ")]
    out = []
    for tok in re.findall(r"-?[0-9][0-9.E-]*|\bT\b|\bF\b", value):
        if tok in ("T", "F"):
            out.append(tok == "T")
        elif re.search(r"[.E]", tok):
            out.append(float(tok))
        else:
            out.append(int(tok))
    return tuple(out)


def main():
    bindir = "bin"
    sizes = dict(SIZES)
    given = {}
    out = cache = None
    baseline = timed = False
    for a in sys.argv[1:]:
        if a.startswith("--bin="):
            bindir = a[6:]
        elif a.startswith(("--check=", "--check-timed=", "--check-baseline=")):
            out = a.split("=", 1)[1]
            baseline = a.startswith("--check-baseline=")
            timed = a.startswith("--check-timed=")
        elif a.startswith("--cache="):
            cache = a[8:]
        elif "=" in a and a.split("=")[0] in SIZES and a.split("=")[1].isdigit():
            sizes[a.split("=")[0]] = given[a.split("=")[0]] = int(a.split("=")[1])
        else:
            print(f"verify.py: unknown argument {a}", file=sys.stderr)
            return 2
    if out is not None:
        if len(given) != 1:
            print("verify.py: --check needs exactly one NAME=N", file=sys.stderr)
            return 2
        (name, n), = given.items()
        return check(out, name, n, cache, baseline, timed)
    bad = 0
    for name, n in sizes.items():
        r = subprocess.run([f"{bindir}/nessie", "run", f"experiments/programs/{name}.nesl",
                            "-e", f"bench({n})"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL {name}({n}): nessie exit {r.returncode}: {r.stderr.strip()}")
            bad = 1
            continue
        got, want = parse(r.stdout), MODELS[name](n)
        ok = same(got, want, abs_tols(name, n, want))
        print(f"{'ok  ' if ok else 'FAIL'} {name}({n}): nessie {got}" + ("" if ok else f", python {want}"))
        bad |= not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
