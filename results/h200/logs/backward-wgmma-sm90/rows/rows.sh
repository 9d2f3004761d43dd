#!/usr/bin/env bash
# The shipped set's backward rows on this GPU, the persistent backward (rung 4, 359f6e8):
# attnlab-bench --pass=bwd on every shipped scenario; uniform-64x512's bwd rows of all four
# implementations, checked; the peers' backward on every shipped scenario but long-tail.
set -u
N=.calls/base
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/s53/commit)
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s53/rows.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 230 $N/attnlab-bench $scenarios --pass=bwd --out=$csv/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
echo "== bench done at ${SECONDS}s"
timeout 40 $N/attnlab run uniform-64x512 --pass bwd --out $csv/attnlab-run-bwd.csv > $log/four-bwd.log 2>&1 \
  || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log | cut -c1-150
echo "== four done at ${SECONDS}s"
rest=$(echo $scenarios | tr ' ' '\n' | grep -v long-tail)
timeout --signal=INT --kill-after=10 ${PEERS_T:-250} python3 -m attnlab.peers $rest --pass bwd \
  --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd.csv > $log/peers.log 2>&1 \
  || echo "peers failed"
echo "== peers done at ${SECONDS}s"
python3 - $csv <<'PY'
import csv, glob, os, statistics, sys
d = sys.argv[1]
ours = {}
for r in csv.DictReader(open(f"{d}/attnlab-bench-bwd.csv")):
    ours[(r["scenario"], r["implementation"])] = float(r["median_us"])
    print(f"  {r['scenario']:34s} {r['implementation']:7s} {r['kernel']:12s} {float(r['median_us']):10.1f}")
lad = {}
for p in glob.glob(f"{d}/ladder-*.csv"):
    for r in csv.DictReader(open(p)): lad.setdefault((r["kernel"], r["scenario"]), []).append(float(r["median_us"]))
for k in sorted(lad): print("ladder", *k, f"{statistics.mean(lad[k]):.1f}", [round(x, 1) for x in lad[k]])
if os.path.exists(f"{d}/peers-bwd.csv"):
    for r in csv.DictReader(open(f"{d}/peers-bwd.csv")):
        o = ours.get((r["scenario"], "varlen"))
        print(f"peer {r['scenario']:34s} {r['source']:28s} {r['implementation']:7s} {float(r['median_us']):10.1f}",
              f"ours varlen {o:.1f} ratio {float(r['median_us'])/o:.2f}" if o else "")
PY
tar czf $OUT/rows.tgz -C $w logs csv
