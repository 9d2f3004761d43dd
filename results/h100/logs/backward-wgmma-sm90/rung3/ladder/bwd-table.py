"""The summary bwd-ladder.sh printed: the rungs' medians, the same-run peers, before and after."""

import csv
import glob
import os
import statistics
import sys

d = sys.argv[1]


def rows(pattern):
    for p in sorted(glob.glob(os.path.join(d, pattern))):
        yield from ((os.path.basename(p), r) for r in csv.DictReader(open(p)))


m = {}
for _, r in rows("ladder-*.csv"):
    m.setdefault((r["kernel"], r["scenario"]), []).append(float(r["median_us"]))
print("| kernel | scenario | median µs (mean of rounds) |")
for k, v in sorted(m.items()):
    print(f"| {k[0]} | {k[1]} | {statistics.mean(v):.1f} ({', '.join(f'{x:.1f}' for x in v)}) |")
print("same run:")
for _, r in list(rows("peers-bwd-same-run.csv")) + list(rows("ours-bwd-same-run.csv")):
    who = (r.get("source") or r["kernel"]) + " " + r["implementation"]
    print(f"  {r['scenario']:18s} {who:28s} {float(r['median_us']):9.1f} µs  {r['useful_tflops']} TFLOP/s")
v = {}
for f, r in rows("variants-*.csv"):
    side = f.split("-")[1]
    v.setdefault((r["scenario"], r["dtype"], r["head_dim"], side), []).append(float(r["median_us"]))
print("variants before -> after:")
for (s, dt, hd, side), x in sorted(v.items()):
    if side == "before":
        b, a = statistics.mean(x), statistics.mean(v.get((s, dt, hd, "after"), [0]))
        print(f"  {s:18s} {dt} d{hd}: {b:8.1f} -> {a:8.1f}  ({a / b:.3f})")
