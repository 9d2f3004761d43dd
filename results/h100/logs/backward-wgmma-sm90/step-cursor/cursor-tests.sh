#!/usr/bin/env bash
# The step cursor: the backward's GPU tests (16 shards) beside memcheck on the shipped backward.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work; log=$w/logs; mkdir -p $log
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:EveryRung/WgmmaBackwardLadder.*rung3*:*Stream*:*Gqa*'
for i in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$i timeout 105 $N/tests/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
( timeout 105 compute-sanitizer --tool memcheck --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
    --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED memcheck rc=$?" ) > $log/sanitizer-memcheck.log 2>&1 &
wait
echo "== done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
tar czf $OUT/cursor-tests.tgz -C $w logs
