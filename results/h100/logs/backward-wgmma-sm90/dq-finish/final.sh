#!/usr/bin/env bash
# The final tree (kernels as 902a03d's): the context-parallel, stream and backward
# determinism GPU tests (4 shards), memcheck and initcheck on the CP pieces.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work; log=$w/logs; mkdir -p $log; cp .calls/r4/final.sh .calls/r4/commit $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 150 $N/tests/attnlab_gpu_tests \
    --gtest_filter='*Cp*:*Stream*:BackwardDeterminism.*' > $log/tests-shard$i.log 2>&1 &
done
for tool in memcheck initcheck; do
  ( timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $N/tests/attnlab_gpu_tests \
      --gtest_filter="Kernels/CpPieces.*/wgmma_sm90_bf16_d128_causal:CpOutputSums.*" || echo "SANITIZER FAILED cp $tool rc=$?" ) > $log/sanitizer-cp-$tool.log 2>&1 &
done
wait
echo "== done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|SANITIZER FAILED|PASSED" $log/sanitizer-*.log
tar czf $OUT/final.tgz -C $w logs
