#!/usr/bin/env bash
# The teaching backward (mma-sm80) before (head, 1825c09) and after (new, ac60c75) its per-query
# reads changed, two rounds in alternating order; then one-doc-16384's spread: ours (varlen
# and padded) and the peers (cuDNN padded, FA2 varlen_attn) in turn, three rounds.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s55/spread.sh $log/
bench() { timeout 90 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2; do
  order="head new"; [ $r = 2 ] && order="new head"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
      --kernel mma-sm80 --reps=10 --out=$csv/teaching-$v-$r.csv
  done
done
echo "== teaching at ${SECONDS}s"
for r in 1 2 3; do
  ATTNLAB_COMMIT=new bench .calls/new/attnlab-bench one-doc-16384 --implementations=varlen,padded --pass=bwd --reps=10 \
    --out=$csv/spread-ours-$r.csv
  timeout 90 python3 -m attnlab.peers one-doc-16384 --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded \
    --attnlab .calls/new/attnlab --out $csv/spread-peers-$r.csv >> $log/peers.log 2>&1 || echo "peers failed"
done
echo "== spread at ${SECONDS}s"
python3 - $csv <<'PY' | tee $log/spread.txt
import csv, glob, statistics, sys
m = {}
for p in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    kind = p.split("/")[-1].split("-")[0]
    for r in csv.DictReader(open(p)):
        who = r["commit"] if kind == "teaching" else f"{r.get('source') or 'attnlab'}:{r['implementation']}"
        m.setdefault((kind, r["scenario"]), {}).setdefault(who, []).append(round(float(r["median_us"]), 1))
for k in sorted(m):
    print(*k, {c: (round(statistics.mean(x), 1), x) for c, x in m[k].items()})
PY
tar czf $OUT/spread.tgz -C $w logs csv
