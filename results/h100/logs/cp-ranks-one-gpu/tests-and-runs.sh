#!/usr/bin/env bash
# The pieces' step buffers and `attnlab cp --run`: every GPU test, compute-sanitizer on the
# gathers and a small --run, then each rank of each strategy timed on one GPU (wgmma-sm90):
# one-doc-16384, one-doc-65536 and web-mix-2048 over 2 and 4 ranks.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
log=$OUT/logs; mkdir -p $log
nvidia-smi > $log/nvidia-smi.txt 2>&1
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 $N/tests/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
( echo "---- memcheck CpStepTensors"
  timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 $N/tests/attnlab_gpu_tests \
    --gtest_filter='CpStepTensors.*' || echo "SANITIZER FAILED step tensors" ) > $log/sanitizer-step-tensors.log 2>&1 &
( echo "---- memcheck cp --run"
  timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 $N/cli/attnlab cp uniform-16x2048 --ranks 2 \
    --strategy zigzag --run --reps 1 --warmup 0 || echo "SANITIZER FAILED cp --run" ) > $log/sanitizer-cp-run.log 2>&1 &
wait
echo "== tests done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped; shards passed: $(tail -n 3 $log/tests-shard*.log | grep -c PASSED)"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -hE "^----|ERROR SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
for s in one-doc-16384 results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml web-mix-2048; do
  for n in 2 4; do
    name=$(basename $s .toml)-$n
    timeout 200 $N/cli/attnlab cp $s --ranks $n --run > $log/cp-run-$name.txt 2>&1 || echo "cp --run $name failed: $?"
    echo "== $name at ${SECONDS}s"
    grep -E "^(contiguous|zigzag|documents),|^imbalance|whole varlen" $log/cp-run-$name.txt
  done
done
tar czf $OUT/cp-run.tgz -C $OUT logs && rm -rf $OUT/logs
