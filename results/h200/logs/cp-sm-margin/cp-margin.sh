#!/usr/bin/env bash
# An SM margin for the ring: every GPU test (2 shards a GPU; the launch path changed), then
# one-doc-65536 by zigzag over NCCL on 4 and 2 GPUs with each ring step's kernels leaving
# 0, 4, 8, 16 or 32 SMs to the transfer beside them.
set -u
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/commit-now)
log=$OUT/logs; rows=$OUT/rows; mkdir -p $log $rows
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1
for i in 0 1 2 3 4 5 6 7; do
  CUDA_VISIBLE_DEVICES=$((i % 4)) GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 \
    $N/tests/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed; shards passed: $(tail -n 3 $log/tests-shard*.log | grep -c PASSED)"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
for n in 4 2; do
  gpus=0,1,2,3; [ $n = 2 ] && gpus=0,1
  for m in 0 4 8 16 32; do
    name=one-doc-65536-n$n-zigzag-margin$m
    CUDA_VISIBLE_DEVICES=$gpus timeout 200 $N/cli/attnlab cp $long --ranks $n --strategy zigzag --run --nccl \
      --sm-margin $m --csv $rows/$name.csv > $log/$name.txt 2>&1 || echo "$name failed: $?"
    echo "== $name at ${SECONDS}s"
    grep -E "^run:|^imbalance" $log/$name.txt
  done
done
tar czf $OUT/cp-margin.tgz -C $OUT logs rows && rm -rf $OUT/logs $OUT/rows
