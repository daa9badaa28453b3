#!/usr/bin/env python3
"""programs-tables.py CSV OUT — the tables that experiments/programs.sh derives from
programs.csv for its plots (experiments/plots/programs-*.gp) and for results/README.md:

  programs-time.csv       per program: each fused scheduler's median seconds / none's
  programs-bytes.csv      per program: each fused scheduler's kernel bytes / none's
  programs-objective.csv  every ok C point (program, variant): objective, median seconds,
                          both relative to the program's none row
  programs-baselines.csv  per program: hand-written C, Nessie unfused and the best fused
                          scheduler (median seconds), and the ratios to the baseline
  programs-summary.txt    counts and the rank correlations quoted in results/README.md

Only rows whose status is ok enter the tables; missing values are written as `?`
(gnuplot's `set datafile missing "?"`)."""
import csv
import math
import sys

FUSED = ["greedy-down", "greedy-up", "ilp-glpk", "ilp-cbc", "ilp-cg"]


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def ranks(xs):
    """Average ranks (ties share the mean of their positions), 1-based."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    """Spearman's rank correlation (Pearson on average ranks); None below 3 points
    or when one side is constant."""
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def fmt(x, digits=4):
    return "?" if x is None else f"{x:.{digits}g}"


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(src) as f:
        rows = list(csv.DictReader(f))
    progs = []
    for r in rows:
        if r["program"] not in progs:
            progs.append(r["program"])
    ok = {(r["program"], r["variant"]): r for r in rows if r["status"] == "ok"}

    def val(p, v, col):
        r = ok.get((p, v))
        return num(r[col]) if r else None

    def ratio(a, b):
        return a / b if a is not None and b not in (None, 0) else None

    for col, name in (("seconds_median", "time"), ("bytes_allocated", "bytes")):
        with open(f"{out}/programs-{name}.csv", "w") as f:
            f.write("program," + ",".join(FUSED) + "\n")
            for p in progs:
                base = val(p, "none", col)
                f.write(p + "," + ",".join(fmt(ratio(val(p, v, col), base)) for v in FUSED) + "\n")

    points = []
    with open(f"{out}/programs-objective.csv", "w") as f:
        f.write("program,variant,objective,seconds_median,objective_rel,seconds_rel\n")
        for p in progs:
            for v in ["none"] + FUSED:
                o, s = val(p, v, "objective"), val(p, v, "seconds_median")
                if o is None or s is None:
                    continue
                orel, srel = ratio(o, val(p, "none", "objective")), ratio(s, val(p, "none", "seconds_median"))
                points.append((p, v, o, s, orel, srel))
                f.write(f"{p},{v},{o:.0f},{s},{fmt(orel)},{fmt(srel)}\n")

    with open(f"{out}/programs-baselines.csv", "w") as f:
        f.write("program,baseline_c_seconds,cmu_nesl_seconds,none_seconds,best_fused,best_fused_seconds,"
                "none_over_c,fused_over_c,fused_over_cmu\n")
        for p in progs:
            c, none = val(p, "baseline-c", "seconds_median"), val(p, "none", "seconds_median")
            cmu = val(p, "cmu-nesl", "seconds_median")
            fused = [(val(p, v, "seconds_median"), v) for v in FUSED if val(p, v, "seconds_median") is not None]
            bs, bv = min(fused) if fused else (None, "?")
            f.write(f"{p},{fmt(c)},{fmt(cmu)},{fmt(none)},{bv},{fmt(bs)},{fmt(ratio(none, c), 3)},"
                    f"{fmt(ratio(bs, c), 3)},{fmt(ratio(bs, cmu), 3)}\n")

    lines = []
    statuses = {}
    for r in rows:
        statuses.setdefault(r["status"], []).append(f'{r["program"]}/{r["variant"]}')
    lines.append("rows by status: " + "; ".join(f"{k} {len(v)}" for k, v in sorted(statuses.items())))
    for k, v in sorted(statuses.items()):
        if k != "ok":
            lines.append(f"  {k}: " + " ".join(v))
    rho = spearman([q[2] for q in points], [q[3] for q in points])
    lines.append(f"rank correlation (Spearman) of objective and median seconds over all {len(points)} "
                 f"ok program x scheduler points: {fmt(rho, 3)}")
    rel = [q for q in points if q[4] is not None and q[5] is not None]
    rho_rel = spearman([q[4] for q in rel], [q[5] for q in rel])
    lines.append(f"the same on objective and seconds relative to each program's none row ({len(rel)} points): "
                 f"{fmt(rho_rel, 3)}")
    for p in progs:
        objs = {v: val(p, v, "objective") for v in ["none"] + FUSED}
        secs = {v: val(p, v, "seconds_median") for v in ["none"] + FUSED}
        codes = {v: ok[(p, v)]["code"] for v in ["none"] + FUSED if (p, v) in ok}
        distinct = len(set(codes.values()))
        g = [objs[v] for v in ("greedy-down", "greedy-up") if objs[v] is not None]
        i = [objs[v] for v in ("ilp-glpk", "ilp-cbc", "ilp-cg") if objs[v] is not None]
        gi = "?" if not g or not i else ("ILP lower" if min(i) < min(g) else "equal" if min(i) == min(g) else "greedy lower")
        lines.append(f"{p}: objective none {fmt(objs['none'], 8)}, best greedy {fmt(min(g) if g else None, 8)}, "
                     f"best ILP {fmt(min(i) if i else None, 8)} ({gi}); distinct generated programs {distinct}; "
                     f"median seconds " + ", ".join(f"{v} {fmt(secs[v])}" for v in ["none"] + FUSED))
    with open(f"{out}/programs-summary.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), file=sys.stderr)


if __name__ == "__main__":
    main()
