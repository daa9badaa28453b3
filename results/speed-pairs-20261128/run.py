# interleaved runs: each variant once per repetition; CPU = user+sys of the child (getrusage)
import os, resource, subprocess, sys, re, csv, statistics
reps = int(sys.argv[1]); out = sys.argv[2]; variants = sys.argv[3:]
env = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
rows = []
for r in range(reps):
    for v in variants:
        exe, *args = v.split()
        prof = f"/tmp/pairs_m/prof_{os.path.basename(exe)}.csv"
        env["NESSIE_PROFILE"] = prof
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        o = subprocess.run(["nice", "-n", "10", exe] + args, env=env, capture_output=True, text=True).stdout
        a = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime)
        m = re.search(r"seconds ([0-9.eE+-]+)", o) or re.search(r"it = \(\S+, ([0-9.eE+-]+)\)", o)
        secs = float(m.group(1)) if m else float("nan")
        load = os.getloadavg()[0]
        rows.append(dict(rep=r, variant=os.path.basename(exe) + ("" if not args else " " + " ".join(args)), cpu=cpu, secs=secs, load=load, out=o.strip().splitlines()[-1][:80]))
with open(out, "w") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
names = []
for x in rows:
    if x["variant"] not in names: names.append(x["variant"])
print("variant | median CPU s | median timed s | results")
for n in names:
    xs = [x for x in rows if x["variant"] == n]
    print(f"{n} | {statistics.median(x['cpu'] for x in xs):.3f} | {statistics.median(x['secs'] for x in xs):.4f} | {set(x['out'] for x in xs)}")
print("load", min(x["load"] for x in rows), max(x["load"] for x in rows))
