import csv, glob, statistics
def load(side):
    vals = {}
    for f in glob.glob(f'/tmp/proto-bench/{side}-*/*.csv'):
        for row in csv.reader(open(f)):
            if not row or row[0].startswith('#') or row[0] == 'workload': continue
            w, target, metric, run, value = row[:5]
            if target != 'spool': continue
            vals.setdefault((w, metric), []).append(float(value))
    return vals
b, a = load('before'), load('after')
print("| workload | metric | before (median of n) | after (median of n) | after/before |")
print("|---|---|---:|---:|---:|")
for k in sorted(b):
    if k not in a: continue
    if k[1] not in ('msgs_per_s', 'MB_per_s'): continue
    if k[1] == 'msgs_per_s' and not k[0].startswith('produce'): continue
    mb, ma = statistics.median(b[k]), statistics.median(a[k])
    fmt = (lambda x: f"{x/1e3:.0f} k") if k[1] == 'msgs_per_s' else (lambda x: f"{x:.0f}")
    print(f"| {k[0]} | {k[1]} | {fmt(mb)} ({len(b[k])}) | {fmt(ma)} ({len(a[k])}) | {ma/mb:.2f} |")
