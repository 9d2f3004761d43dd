#!/usr/bin/env bash
# The LSE merge folded into the forward's epilogue, 4 GPUs: the forward's and CP's GPU tests
# (8 shards, two per GPU) beside compute-sanitizer on the CP pieces (both kernels); then the
# forward before (B: the tree before the fold) and after (N), both kernels, alternating; then
# zigzag at N = 4 before and after, over NCCL (registered, 3 ring buffers) and on one GPU.
set -u
N=.calls/build-new; B=.calls/before
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/cp49/commit)
log=$OUT/logs; mkdir -p $log $OUT/csv
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/machine.txt
finish() { cp .calls/cp49/cp-fold-a.sh $log/; tar czf $OUT/cp-fold-a.tgz -C $OUT logs csv && rm -rf $OUT/logs $OUT/csv; exit 0; }
filter='AllConfigs/Accuracy.*:*WindowAccuracy*:KernelCounts.*:WindowCounts.*:Determinism.*:TensorMemory.*:*Cp*:*Stream*:EveryRung/WgmmaLadder.*'
for i in 0 1 2 3 4 5 6 7; do
  CUDA_VISIBLE_DEVICES=$((i % 4)) GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 230 \
    $N/tests/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
g=0
for tool in memcheck initcheck synccheck racecheck; do
  ( CUDA_VISIBLE_DEVICES=$g timeout 230 compute-sanitizer --tool $tool --error-exitcode 9 $N/tests/attnlab_gpu_tests \
      --gtest_filter='Kernels/CpPieces.*/*bf16_d128_causal' || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
  g=$((g + 1))
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|PASSED|FAILED" $log/sanitizer-*.log | head -12
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048"
bench() { CUDA_VISIBLE_DEVICES=0 timeout 100 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2; do
  sides="before after"; [ $r = 2 ] && sides="after before"
  for side in $sides; do
    bin=$B/attnlab-bench; [ $side = after ] && bin=$N/bench/attnlab-bench
    for k in wgmma-sm90 mma-sm80; do
      bench $bin $S --implementations=varlen --pass=fwd --reps=30 --kernel=$k --out=$OUT/csv/fwd-$k-$side-$r.csv
    done
  done
done
echo "== forward before/after done at ${SECONDS}s"
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
cp_run() {  # NAME BIN GPUS ARGS...
  local name=$1 bin=$2 gpus=$3; shift 3
  CUDA_VISIBLE_DEVICES=$gpus timeout 90 $bin cp "$@" > $log/$name.txt 2>&1; echo "== $name rc=$? at ${SECONDS}s"
  grep -E "slowest rank|^run:" $log/$name.txt | cut -c1-110
}
for r in 1 2; do
  sides="before after"; [ $r = 2 ] && sides="after before"
  for side in $sides; do
    bin=$B/attnlab; [ $side = after ] && bin=$N/cli/attnlab
    cp_run n4-zigzag-rb3-$side-$r $bin 0,1,2,3 $long --ranks 4 --strategy zigzag --run --nccl --register-buffers --ring-buffers 3
    cp_run n4-zigzag-one-gpu-$side-$r $bin 0 $long --ranks 4 --strategy zigzag --run
  done
done
for side in before after; do
  bin=$B/attnlab; [ $side = after ] && bin=$N/cli/attnlab
  cp_run web-mix-n4-rb3-$side $bin 0,1,2,3 web-mix-2048 --ranks 4 --run --nccl --register-buffers --ring-buffers 3
done
finish
