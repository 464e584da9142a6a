import csv, glob, statistics, re, sys
def load(pattern):
    runs = {}
    for f in sorted(glob.glob(pattern)):
        with open(f) as fh:
            lines = [l for l in fh if l.startswith('"') or l.startswith('name')]
        for row in csv.DictReader(lines):
            n = row['name']
            if not n.endswith('_median'): continue
            runs.setdefault(n[:-7], []).append(float(row['real_time']))
    return {k: statistics.median(v) for k, v in runs.items()}, {k: len(v) for k, v in runs.items()}
b, nb = load('/tmp/proto-bench/micro-before-*.csv')
a, na = load('/tmp/proto-bench/micro-after-*.csv')
pb, npb = load('/tmp/proto-bench/proto-before-*.csv')
print("| benchmark | before ns | after ns | after/before |")
print("|---|---:|---:|---:|")
for k in b:
    if k in a:
        print(f"| `{k}` | {b[k]:.1f} | {a[k]:.1f} | {a[k]/b[k]:.2f} |")
print()
print("| benchmark | before ns | after ns |")
print("|---|---:|---:|")
for k in sorted(set(a) - set(b)):
    print(f"| `{k}` (after) | | {a[k]:.1f} |")
for k in pb:
    print(f"| `{k}` (before) | {pb[k]:.1f} | |")
print(nb.get(next(iter(nb))), na.get(next(iter(na))), file=sys.stderr)
