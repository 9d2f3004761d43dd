#!/usr/bin/env bash
# The shipped backward with crossing tiles by the loader's cp.async: a checked web-mix run,
# the backward's GPU tests (8 shards) beside compute-sanitizer's four tools, then
# attnlab-bench --pass=bwd on every shipped scenario (the rows to ship).
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/r3/commit)
log=$OUT/logs; mkdir -p $log
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:EveryRung/WgmmaBackwardLadder.*rung3*:*Stream*:*Gqa*'
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 180 $N/tests/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in memcheck racecheck synccheck initcheck; do
  ( echo "---- $tool wgmma-sm90 bwd"
    timeout 180 compute-sanitizer --tool $tool --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool" ) > $log/sanitizer-$tool.log 2>&1 &
done
timeout 120 $N/cli/attnlab run web-mix-2048 --impl varlen --pass bwd --reps 10 > $log/web-mix-run.log 2>&1
echo "web-mix run rc=$?"; grep -E "^varlen" $log/web-mix-run.log | cut -c1-110
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 200 $N/bench/attnlab-bench $scenarios --pass=bwd --out=$OUT/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
python3 -c "
import csv
for r in csv.DictReader(open('$OUT/attnlab-bench-bwd.csv')):
    if r['implementation'] != 'naive': print(f\"  {r['scenario']:34s} {r['implementation']:7s} {float(r['median_us']):10.1f}\")"
echo "== bench done at ${SECONDS}s"
tar czf $OUT/bwd-crossing-logs.tgz -C $OUT logs && rm -rf $OUT/logs
