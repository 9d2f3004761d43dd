#!/usr/bin/env bash
# Every GPU test (8 shards) and compute-sanitizer's four tools on the shipped backward and
# bwd-rung1, side by side; a summary on stdout, the logs in one archive.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
log=$OUT/logs; mkdir -p $log
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 280 $N/tests/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for k in wgmma-sm90 wgmma-sm90/bwd-rung1; do for tool in memcheck racecheck synccheck initcheck; do
  ( echo "---- $tool $k bwd"
    timeout 280 compute-sanitizer --tool $tool --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel $k --reps 1 --count || echo "SANITIZER FAILED $tool $k" ) > $log/sanitizer-${k//\//-}-$tool.log 2>&1 &
done; done
wait
echo "== done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -hE "^  rung[0-9] " $log/tests-shard*.log | head -12
grep -hE "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
tail -n 3 $log/tests-shard*.log | grep -E "PASSED|FAILED|tests ran" 
tar czf $OUT/bwd-tests.tgz -C $OUT logs && rm -rf $OUT/logs
