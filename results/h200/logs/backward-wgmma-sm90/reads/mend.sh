#!/usr/bin/env bash
# The review's mends (mend): the column-pair loads from one helper, the writer's block index from
# query_stats_at, the Δ pass's pair computed once: the backward's GPU tests (12 shards) and
# compute-sanitizer beside them; then mend against 557f7f3 (keys), two rounds, three scenarios.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
N=.calls/mend
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s55/mend.sh $log/
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 230 $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in racecheck memcheck; do
  ( timeout 230 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
for tool in racecheck memcheck synccheck; do
  ( timeout 230 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=backward_specialized \
      $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_wgmma*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
      || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-items-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED' $f | tr '\n' ' ')"; done
timeout 40 $N/attnlab run uniform-64x512 --pass bwd > $log/four-bwd.log 2>&1 || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log | cut -c1-150
bench() { timeout 90 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2; do
  order="keys mend"; [ $r = 2 ] && order="mend keys"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 web-mix-2048 --implementations=varlen \
      --pass=bwd --reps=15 --out=$csv/ab-$v-$r.csv
  done
done
python3 - $csv <<'PY' | tee $log/timing.txt
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    for r in csv.DictReader(open(p)): m.setdefault(r["scenario"], {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)), f"mend/keys {v['mend']/v['keys']:.3f}", m[k])
PY
tar czf $OUT/mend.tgz -C $w logs csv
