#!/usr/bin/env bash
# Rung 5 candidates on one H200: the backward's GPU tests and racecheck on variant B (the
# built tree: dV issued before dSᵀ is staged, the next step's Sᵀ before this step's dK lands),
# then base (359f6e8, rung 4 shipped) against variants A (dV early only), B, and C (B with
# 40/232 registers), two rounds in alternating order.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s53/variants.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
finish() { tar czf $OUT/variants.tgz -C $w logs csv; exit 0; }
N=.calls/vB
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 200 $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
( timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 --kernel-name kns=backward_specialized \
    $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
    || echo "SANITIZER FAILED racecheck rc=$?" ) > $log/sanitizer-items-racecheck.log 2>&1 &
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|PASSED' $f | tr '\n' ' ')"; done
bench() { timeout 120 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix sft-chats"
for r in 1 2; do
  order="base vA vB vC"; [ $r = 2 ] && order="vC vB vA base"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=15 --out=$csv/$v-$r.csv
  done
  echo "== round $r at ${SECONDS}s"
done
python3 - $csv <<'PY'
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)),
          " ".join(f"{c}/base {v[c]/v['base']:.3f}" for c in sorted(v) if c != 'base'),
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
finish
