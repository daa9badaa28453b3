#!/usr/bin/env python3
"""table.py OUT.csv CSV... — the side-by-side table of README.md from programs.sh's programs.csv
files (median seconds of the timed computation): per program hand C, CMU NESL, Nessie
per scheduler, the best fused schedule over hand C and over CMU NESL; then the median
of each ratio. Writes OUT.csv and the Markdown table on stdout."""
import csv
import statistics
import sys

NESSIE = ["none", "greedy-down", "greedy-up", "ilp-glpk", "ilp-cbc", "ilp-cg"]
rows, order = {}, []
for src in sys.argv[2:]:
    for r in csv.DictReader(open(src)):
        key = (r["program"], r["n"])
        if key not in rows:
            rows[key] = {}
            order.append(key)
        rows[key][r["variant"]] = r
variants = [v for v in NESSIE if any(v in rows[k] for k in order)]


def sec(k, v):
    r = rows[k].get(v)
    return float(r["seconds_median"]) if r and r["status"] == "ok" else None


def cell(k, v):
    r = rows[k].get(v)
    if r is None:
        return "–"
    return f"{float(r['seconds_median']):.3g}" if r["status"] == "ok" else r["status"]


def ratio(a, b):
    return a / b if a is not None and b else None


out = []
ratios_c, ratios_cmu, none_c = [], [], []
for k in order:
    c, cmu = sec(k, "baseline-c"), sec(k, "cmu-nesl")
    fused = [(sec(k, v), v) for v in variants if v != "none" and sec(k, v) is not None]
    best, bv = min(fused) if fused else (None, "?")
    rc, rcmu, rn = ratio(best, c), ratio(best, cmu), ratio(sec(k, "none"), c)
    if rc is not None:
        ratios_c.append(rc)
    if rcmu is not None:
        ratios_cmu.append(rcmu)
    if rn is not None:
        none_c.append(rn)
    out.append([k[0], k[1], cell(k, "baseline-c"), cell(k, "cmu-nesl")] + [cell(k, v) for v in variants] +
               [bv, "?" if rc is None else f"{rc:.2f}", "?" if rcmu is None else f"{rcmu:.2f}",
                "?" if rn is None else f"{rn:.2f}"])
head = ["program", "n", "hand C", "CMU NESL"] + [f"Nessie {v}" for v in variants] + \
    ["best fused", "best fused / C", "best fused / CMU", "none / C"]
with open(sys.argv[1], "w") as f:
    w = csv.writer(f)
    w.writerow(head)
    w.writerows(out)
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for r in out:
    print("| " + " | ".join(r) + " |")
med = lambda xs: f"{statistics.median(xs):.2f} (over {len(xs)})" if xs else "?"
print(f"\nmedian best fused / hand C: {med(ratios_c)}; median best fused / CMU NESL: {med(ratios_cmu)}; "
      f"median none / hand C: {med(none_c)}; best fused faster than CMU NESL on "
      f"{sum(r < 1 for r in ratios_cmu)} of {len(ratios_cmu)}")
