#!/usr/bin/env python3
"""experiments/costmodel.py — does a cost model rank schedules as their times do?
(issue 38; experiments/README.md, "Cost-model validation")

For each program of experiments/programs at one size (programs.sh's size table):
  1. an unfused build runs once with the runtime profile: elements per kernel (--sizes);
  2. schedules: none, greedy-down, greedy-up, the ILP optimum under the unit model
     (ilp-cg, the experiments' exact scheduler), the ILP optimum under the sized model
     (ilp-cg --cost=FILE --sizes),
     and K random legal partitions (--scheduler=random --partition-seed=1..K);
  3. each schedule's objective under both models (nessie emit --stage=fused, summed over
     regions; --report-cost prices a unit-scheduled partition under the sized model);
  4. schedules whose generated C is the same are one binary; every binary runs R times,
     interleaved (each round runs every binary of every program once), and more rounds
     follow, up to --max-runs, for the programs whose rho is not yet settled (its 90 %
     bootstrap interval, resampling each binary's runs, wider than --settle); the time is the
     process's CPU seconds (user + system: robust to a loaded machine, where wall time is
     mostly waiting), main's wall seconds (NESSIE_TIME) beside it; outputs checked equal
     to the unfused build's;
  5. per program: Spearman's rho between objective and median seconds for each model,
      and whether each model's optimum is the fastest measured schedule or within the
     noise of it (its fastest run not slower than the fastest schedule's slowest run).
Writes OUT/machine.cost (the model used), OUT/costmodel.csv (one row per schedule),
OUT/costmodel-summary.txt and, where
gnuplot is, OUT/costmodel-PROG.svg (objective against seconds, both models side by side).

  experiments/costmodel.py [--size=tiny|small|default] [--programs=a,b] [--random=K]
                           [--first-seed=S] [--runs=R] [--max-runs=M] [--settle=W]
                           [--cost=FILE] [--out=DIR] [--bin=DIR]
--random: K random legal partitions, --partition-seed=S..S+K-1 (--first-seed, default 1).
--cost: a sized cost file; default: calibrate this machine first (nessie-bench --calibrate).
"""
import csv, hashlib, os, re, resource, shutil, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    print("costmodel.py: " + msg, file=sys.stderr)
    sys.exit(2)


def opts():
    o = dict(size="small", programs=None, random=6, runs=3, cost=None, out="results", bin="bin",
             max_runs=None, settle="0.3", first_seed="1")
    for a in sys.argv[1:]:
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        m = re.match(r"--(size|programs|random|first-seed|runs|max-runs|settle|cost|out|bin)=(.*)$", a)
        if not m:
            die("unknown argument '%s' (--help)" % a)
        o[m.group(1).replace("-", "_")] = m.group(2)
    try:
        o["random"], o["runs"], o["first_seed"] = int(o["random"]), int(o["runs"]), int(o["first_seed"])
        o["max_runs"] = int(o["max_runs"]) if o["max_runs"] is not None else o["runs"]
        o["settle"] = float(o["settle"])
    except ValueError:
        die("--random, --first-seed, --runs and --max-runs take integers, --settle a number")
    if o["random"] < 0 or o["runs"] < 1 or o["max_runs"] < o["runs"] or not 0 < o["settle"] <= 2:
        die("--random >= 0, --runs >= 1, --max-runs >= --runs, 0 < --settle <= 2")
    return o


def rho_interval(xs, runs, reps=400, seed=1):
    """The 5-95 % bootstrap interval of Spearman's rho between the objectives xs and
    the medians of the binaries' runs, each binary's runs resampled with replacement."""
    import random
    rnd = random.Random(seed)
    got = []
    for _ in range(reps):
        med = [statistics.median(rnd.choice(r) for _ in r) for r in runs]
        v = spearman(xs, med)
        if v == v:
            got.append(v)
    if not got:
        return float("nan"), float("nan")
    got.sort()
    return got[int(0.05 * (len(got) - 1))], got[int(0.95 * (len(got) - 1))]


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


_tables = None


def spearman(xs, ys):
    """programs-tables.py's (one definition of the statistic); NaN where it has none."""
    global _tables
    if _tables is None:
        import importlib.util
        spec = importlib.util.spec_from_file_location("tables", os.path.join(ROOT, "experiments/programs-tables.py"))
        _tables = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_tables)
    r = _tables.spearman(xs, ys)
    return float("nan") if r is None else r


def objectives(text):
    """(unit, sized) objective after fusion, summed over the regions of an emit report:
    each region's line has the objective of the model it was scheduled under, the line
    after it the other model's (unit objective / sized objective)."""
    tot = {"unit": 0.0, "sized": 0.0}
    main = None
    for line in text.split("\n"):
        m = re.match(r"// region \d+ .*objective (\S+) -> (\S+),", line)
        if m:
            main = float(m.group(2))
            continue
        m = re.match(r"//   (unit|sized) objective (\S+) -> (\S+)$", line)
        if m and main is not None:
            tot[m.group(1)] += float(m.group(3))
            tot["sized" if m.group(1) == "unit" else "unit"] += main
            main = None
    return tot["unit"], tot["sized"]


def main():
    o = opts()
    nessie, bench = os.path.join(o["bin"], "nessie"), os.path.join(o["bin"], "nessie-bench")
    for b in (nessie, bench):
        if not os.access(b, os.X_OK):
            die("%s: not built (make)" % b)
    nessie, bench = os.path.abspath(nessie), os.path.abspath(bench)
    lst = sh(["bash", os.path.join(ROOT, "experiments/programs.sh"), "--size=" + o["size"], "--list",
              "--variants=none"])
    if lst.returncode != 0:
        die("programs.sh --list failed: " + lst.stderr)
    sizes = {}
    for line in lst.stdout.split("\n"):
        f = line.split()
        if len(f) >= 3:
            sizes[f[0]] = int(f[2])
    progs = o["programs"].split(",") if o["programs"] else list(sizes)
    for p in progs:
        if p not in sizes:
            die("unknown program '%s' (%s)" % (p, ", ".join(sizes)))
    work = os.path.join(ROOT, "build", "costmodel", o["size"])
    os.makedirs(work, exist_ok=True)
    os.makedirs(o["out"], exist_ok=True)
    env = dict(os.environ, NESSIE_CACHE_DIR=os.path.join(work, "cache"))
    cost = o["cost"]
    if not cost:
        cost = os.path.join(work, "machine.cost")
        r = sh([bench, "--calibrate", "--out=" + cost], env=env)
        if r.returncode != 0:
            die("calibration failed: " + r.stderr)
        print(r.stderr.strip(), flush=True)
    cost = os.path.abspath(cost)
    if os.path.abspath(os.path.join(o["out"], "machine.cost")) != cost:  # the results keep the model they used
        shutil.copyfile(cost, os.path.join(o["out"], "machine.cost"))
    rows, binaries, want = [], {}, {}  # binaries: (prog, md5) -> path; want: the unfused output
    for p in progs:
        d = os.path.join(work, p)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "main.nesl")
        with open(src, "w") as fh:
            fh.write('load "%s/experiments/programs/%s" $\nbench(%d) $\n' % (ROOT, p, sizes[p]))
        # 1. sizes from an unfused run's profile
        none_bin = os.path.join(d, "none")
        r = sh([nessie, "build", src, "--scheduler=none", "-o", none_bin], env=env)
        if r.returncode != 0:
            die("%s: unfused build failed: %s" % (p, r.stderr))
        prof = os.path.join(d, "sizes.csv")
        r = sh([none_bin], env=dict(env, NESSIE_PROFILE=prof), cwd=d)
        if r.returncode != 0:
            die("%s: unfused run failed: %s" % (p, r.stderr))
        want[p] = r.stdout
        scheds = [("none", ["--scheduler=none", "--report-cost=" + cost]),
                  ("greedy-down", ["--scheduler=greedy-down", "--report-cost=" + cost]),
                  ("greedy-up", ["--scheduler=greedy-up", "--report-cost=" + cost]),
                  ("ilp-unit", ["--scheduler=ilp-cg", "--report-cost=" + cost]),
                  ("ilp-sized", ["--scheduler=ilp-cg", "--cost=" + cost])]
        scheds += [("random-%d" % k, ["--scheduler=random", "--partition-seed=%d" % k, "--report-cost=" + cost])
                   for k in range(o["first_seed"], o["first_seed"] + o["random"])]
        for name, flags in scheds:
            flags = flags + ["--sizes=" + prof]
            r = sh([nessie, "emit", src, "--stage=fused"] + flags, env=env)
            if r.returncode != 0:
                die("%s %s: emit failed: %s" % (p, name, r.stderr))
            unit, sized = objectives(r.stdout)
            c = sh([nessie, "emit", src, "--stage=c"] + flags, env=env)
            if c.returncode != 0:
                die("%s %s: emit --stage=c failed: %s" % (p, name, c.stderr))
            md5 = hashlib.md5(c.stdout.encode()).hexdigest()[:10]
            if (p, md5) not in binaries:
                exe = os.path.join(d, "bin-" + md5)
                b = sh([nessie, "build", src, "-o", exe] + flags, env=env)
                if b.returncode != 0:
                    die("%s %s: build failed: %s" % (p, name, b.stderr))
                binaries[(p, md5)] = exe
            rows.append(dict(program=p, n=sizes[p], schedule=name, code=md5, unit_objective=unit,
                             sized_objective=sized, runs=[]))
            print("built %s %s (%s)" % (p, name, md5), flush=True)
    # 4. interleaved runs: every binary once per round; after --runs rounds only the
    # programs whose rho is not settled go on, up to --max-runs
    secs = {k: [] for k in binaries}
    wall = {k: [] for k in binaries}
    loads = []

    def points(p):
        """One row per distinct binary of p (the first schedule that made it)."""
        byc = {}
        for r in rows:
            if r["program"] == p:
                byc.setdefault(r["code"], r)
        return list(byc.values())

    def unsettled(p):
        pts = points(p)
        runs = [secs[(p, r["code"])] for r in pts]
        for model in ("unit", "sized"):
            lo, hi = rho_interval([r[model + "_objective"] for r in pts], runs, reps=200)
            if not (hi - lo <= o["settle"]):
                return True
        return False

    active = set(progs)
    for rnd in range(o["max_runs"]):
        if rnd >= o["runs"]:
            active = {p for p in active if unsettled(p)}
            if not active:
                break
        for (p, md5), exe in binaries.items():
            if p not in active:
                continue
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = sh([exe], env=dict(env, NESSIE_TIME="1"), cwd=os.path.dirname(exe))
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            m = re.search(r"^seconds (\S+)", r.stderr, re.M)
            if r.returncode != 0 or not m:
                die("%s: %s failed: %s" % (p, exe, r.stderr))
            if r.stdout != want[p]:
                die("%s: %s printed something else than the unfused build" % (p, exe))
            secs[(p, md5)].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
            wall[(p, md5)].append(float(m.group(1)))
        loads.append(os.getloadavg()[0])
        print("round %d done, %d programs (load %.1f)" % (rnd + 1, len(active), loads[-1]), flush=True)
    for row in rows:
        row["runs"] = secs[(row["program"], row["code"])]
        row["wall"] = wall[(row["program"], row["code"])]
    with open(os.path.join(o["out"], "costmodel.csv"), "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["program", "n", "schedule", "code", "unit_objective", "sized_objective", "cpu_median",
                    "cpu_min", "cpu_max", "wall_median", "runs"])
        for row in rows:
            s = row["runs"]
            w.writerow([row["program"], row["n"], row["schedule"], row["code"], "%g" % row["unit_objective"],
                        "%g" % row["sized_objective"], "%.6f" % statistics.median(s), "%.6f" % min(s),
                        "%.6f" % max(s), "%.6f" % statistics.median(row["wall"]), len(s)])
    # 5. per program
    out = ["cost-model validation: size %s, %d random partitions, %d-%d interleaved runs (until rho's 90 %% "
           "bootstrap interval is at most %g wide), cost file %s; times are the process's CPU seconds "
           "(user + system); load average %.1f-%.1f; rho [5 %%, 95 %% bootstrap]" %
           (o["size"], o["random"], o["runs"], o["max_runs"], o["settle"], cost, min(loads), max(loads))]
    rho = {"unit": [], "sized": []}
    for p in progs:
        pr = [r for r in rows if r["program"] == p]
        pts = points(p)
        med = [statistics.median(r["runs"]) for r in pts]
        fastest = min(range(len(pts)), key=lambda i: med[i])
        line = "%s (n=%d): %d schedules, %d distinct programs, %d runs each" % (
            p, sizes[p], len(pr), len(pts), len(pts[0]["runs"]))
        for model in ("unit", "sized"):
            xs = [r[model + "_objective"] for r in pts]
            rh = spearman(xs, med)
            lo, hi = rho_interval(xs, [r["runs"] for r in pts])
            if rh == rh:
                rho[model].append(rh)
            opt = next(r for r in pr if r["schedule"] == "ilp-" + model)
            om = statistics.median(opt["runs"])
            within = min(opt["runs"]) <= max(pts[fastest]["runs"])
            line += "; %s: rho %.2f [%.2f, %.2f], optimum %.4f s CPU (%s)" % (
                model, rh, lo, hi, om, "fastest" if opt["code"] == pts[fastest]["code"] else
                "within noise of the fastest" if within else "slower than the fastest %.4f s" % med[fastest])
        out.append(line)
    for model in ("unit", "sized"):
        v = rho[model]
        out.append("median rho, %s model: %s over %d programs" % (
            model, "%.2f" % statistics.median(v) if v else "?", len(v)))
    text = "\n".join(out) + "\n"
    with open(os.path.join(o["out"], "costmodel-summary.txt"), "w") as fh:
        fh.write(text)
    print(text, end="")
    if shutil.which("gnuplot"):
        for p in progs:
            dat = os.path.join(work, p, "points.dat")
            with open(dat, "w") as fh:
                for r in rows:
                    if r["program"] == p:
                        fh.write("%g %g %g %s\n" % (r["unit_objective"], r["sized_objective"],
                                                    statistics.median(r["runs"]), r["schedule"]))
            svg = os.path.join(o["out"], "costmodel-%s.svg" % p)
            script = ('set terminal svg size 900,400 dynamic; set output "%s"; set multiplot layout 1,2 title "%s"; '
                      'set ylabel "median CPU seconds"; set xlabel "unit objective"; '
                      'plot "%s" using 1:3 with points pt 7 notitle, "" using 1:3:4 with labels offset 0,1 font ",7" notitle; '
                      'set xlabel "sized objective (ns)"; '
                      'plot "%s" using 2:3 with points pt 7 notitle, "" using 2:3:4 with labels offset 0,1 font ",7" notitle; '
                      'unset multiplot' % (svg, p, dat, dat))
            sh(["gnuplot", "-e", script])


if __name__ == "__main__":
    main()
