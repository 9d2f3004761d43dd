#!/usr/bin/env bash
# The GPU's ceilings (a bf16 GEMM, a device copy), then every GPU test (14 shards) on the new tree.
set -u
N=.calls/new
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work2; log=$w/logs; mkdir -p $log; cp .calls/s51/final.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
timeout 90 python3 -m attnlab.peers.ceilings > $log/ceilings.toml 2> $log/ceilings.err || echo "ceilings failed"
grep -E "^\[|tflops|tbps" $log/ceilings.toml
$N/attnlab_gpu_tests --gtest_list_tests | grep -c "^  "
for i in $(seq 0 13); do
  GTEST_TOTAL_SHARDS=14 GTEST_SHARD_INDEX=$i timeout ${T:-420} $N/attnlab_gpu_tests > $log/all-shard$i.log 2>&1 &
done
wait
echo "== done at ${SECONDS}s: $(cat $log/all-shard*.log | grep -c '^\[       OK') ok, $(cat $log/all-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/all-shard*.log | grep -c '^\[  SKIPPED') skipped, $(grep -L 'PASSED\|FAILED  \]' $log/all-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/all-shard*.log | head -10
tar czf $OUT/final.tgz -C $w logs
