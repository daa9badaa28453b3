# interleaved runs: each rep runs every variant of every program once
import subprocess, resource, os, sys, csv, time, statistics, json
progs = sys.argv[1].split(',')
reps = int(sys.argv[2])
variants = [(s, v) for s in ('greedy-down', 'ilp-cg') for v in ('base', 'new')]
os.chdir('/tmp/sp/bench')
rows = []
env = dict(os.environ, NESSIE_TIME='1', OMP_WAIT_POLICY='passive')
for rep in range(reps):
    for p in progs:
        outs = {}
        for s, v in variants:
            b = f'bin/{p}.{s}.{v}'
            wd = f'work/{p}.{s}.{v}'; os.makedirs(wd, exist_ok=True)
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.time()
            cp = subprocess.run(['nice', '-n', '10', os.path.abspath(b)], cwd=wd, env=env, capture_output=True, text=True)
            wall = time.time() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            sec = [l for l in cp.stderr.split('\n') if l.startswith('seconds ')]
            main_s = float(sec[0].split()[1]) if sec else float('nan')
            tot = [l for l in open(f'{wd}/nessie-profile.csv') if ',(total),' in l]
            f = tot[0].strip().split(',')
            launches, byts = int(f[6]), int(f[8])
            ln = sum(int(l.split(',')[6]) for l in open(f'{wd}/nessie-profile.csv') if ',(total),' not in l and not l.startswith('program'))
            outs[(s, v)] = cp.stdout
            rows.append(dict(rep=rep, program=p, scheduler=s, compiler=v, rc=cp.returncode, main_s=main_s, wall_s=round(wall, 4), cpu_s=round(cpu, 4), bytes=byts, launches=ln, maxrss_kb=r1.ru_maxrss))
        same = len(set(outs.values())) == 1
        if not same: print('OUTPUT DIFFERS', p, rep, flush=True)
        print(rep, p, 'ok' if same else 'DIFF', os.getloadavg()[0], flush=True)
with open(sys.argv[3], 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0].keys())); w.writeheader(); w.writerows(rows)
