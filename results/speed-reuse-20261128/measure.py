import os, re, subprocess, sys, resource, statistics, csv, json
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
progs = ["quicksort", "quickhull", "batcher_sort", "barnes_hut"]
env = dict(os.environ, OMP_WAIT_POLICY="passive")
def run(cmd, prof=None):
    e = dict(env)
    if prof: e["NESSIE_PROFILE"] = prof
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=e)
    out, _ = p.communicate()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return out.decode(), cpu, r1.ru_minflt - r0.ru_minflt
res = {}
def add(k, v): res.setdefault(k, []).append(v)
for rep in range(reps):
    for prog in progs + ["qst", "hand"]:
        for v in ([s + "_" + c for s in ("none", "greedy-down") for c in ("base", "new")] if prog != "hand" else ["c"]):
            if prog == "hand":
                out, cpu, flt = run(["./qs_hand", "1000000", "0"])
                add(("hand", "c", "cpu"), cpu)
                add(("hand", "c", "secs"), float(re.search(r"seconds ([0-9.]+)", out).group(1)))
                continue
            exe = f"./{prog}_{v}" if prog != "qst" else f"./qst_{v}"
            prof = f"prof_{prog}_{v}.csv"
            out, cpu, flt = run([exe], prof)
            add((prog, v, "cpu"), cpu); add((prog, v, "minflt"), flt)
            if prog == "qst":
                add((prog, v, "secs"), float(re.search(r"it = \(([0-9.eE+-]+),", out).group(1)))
            rows = list(csv.reader(open(prof)))[1:]
            l = sum(int(r[6]) for r in rows if r[3] != "(total)")
            b = sum(int(r[8]) for r in rows if r[3] != "(total)")
            peak = [int(r[8]) for r in rows if r[3] == "(total)"][0]
            add((prog, v, "launches"), l); add((prog, v, "bytes"), b); add((prog, v, "peak"), peak)
            add((prog, v, "out"), out.strip().splitlines()[-1])
for k in sorted(res):
    vals = res[k]
    if k[2] == "out":
        print(k, "same" if len(set(vals)) == 1 else "DIFFER", vals[0][:80])
    else:
        print(k, "median", statistics.median(vals), "min", min(vals), "max", max(vals))
