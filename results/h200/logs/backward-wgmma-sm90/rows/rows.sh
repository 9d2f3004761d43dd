#!/usr/bin/env bash
# The shipped set's backward rows on ac60c75 (new: the steps' per-query reads in few loads):
# attnlab-bench --pass=bwd on every shipped scenario; uniform-64x512's bwd rows of all four
# implementations, checked; the peers' backward on every shipped scenario but long-tail, in
# the same command; then ncu's source counters on one launch of the new kernel at
# uniform-64x512 and uniform-16x2048, for the next leads.
set -u
N=.calls/new
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/s55/commit)
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s55/rows.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 220 $N/attnlab-bench $scenarios --pass=bwd --out=$csv/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
echo "== bench done at ${SECONDS}s"
timeout 40 $N/attnlab run uniform-64x512 --pass bwd --out $csv/attnlab-run-bwd.csv > $log/four-bwd.log 2>&1 \
  || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log | cut -c1-150
echo "== four done at ${SECONDS}s"
rest=$(echo $scenarios | tr ' ' '\n' | grep -v long-tail)
timeout --signal=INT --kill-after=10 170 python3 -m attnlab.peers $rest --pass bwd \
  --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd.csv > $log/peers.log 2>&1 \
  || echo "peers failed"
echo "== peers done at ${SECONDS}s"
python3 - $csv <<'PY' | tee $log/table.txt
import csv, sys
d = sys.argv[1]
ours = {}
for r in csv.DictReader(open(f"{d}/attnlab-bench-bwd.csv")):
    ours[(r["scenario"], r["implementation"])] = (float(r["median_us"]), r["useful_tflops"])
peers = {}
for r in csv.DictReader(open(f"{d}/peers-bwd.csv")):
    peers[(r["scenario"], r["source"])] = float(r["median_us"])
for (sc, impl), (us, tf) in sorted(ours.items()):
    if impl != "varlen": continue
    fa = peers.get((sc, "torch-varlen_attn")); cu = peers.get((sc, "torch-sdpa-cudnn-padded"))
    print(f"{sc:36s} ours {us:9.1f} ({tf}) FA2 {fa or 0:9.1f} FA2/ours {fa/us if fa else 0:5.2f} cuDNN {cu or 0:9.1f} ours/cuDNN {us/cu if cu else 0:5.3f}")
PY
for sc in uniform-64x512 uniform-16x2048; do
  timeout 90 ncu --profile-from-start off --clock-control none -k regex:backward_specialized \
    --section SourceCounters --section WarpStateStats --section SpeedOfLight -o $w/source-$sc \
    $N/attnlab-bench $sc --implementations=varlen --pass=bwd --reps=1 --profile-one-pass > $log/ncu-$sc.log 2>&1 || echo "ncu $sc failed"
  timeout 60 ncu --import $w/source-$sc.ncu-rep --page source --csv --print-source sass > $log/source-$sc.csv 2>/dev/null
  timeout 60 ncu --import $w/source-$sc.ncu-rep --page details > $log/details-$sc.txt 2>&1
  echo "== $sc at ${SECONDS}s: $(grep -E 'Duration' $log/details-$sc.txt | head -1 | sed 's/  */ /g')"
done
tar czf $OUT/rows.tgz -C $w logs csv
