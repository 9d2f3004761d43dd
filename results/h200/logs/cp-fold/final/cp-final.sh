#!/usr/bin/env bash
# The fold as a forward instance of its own, 4 GPUs: CP and stream GPU tests (8 shards) beside
# memcheck and initcheck on the Hopper fold; zigzag at N = 4 over NCCL (registered, 3 ring
# buffers) before (B: the tree before the fold) and after; then the shipped rows. The tarball
# is rewritten after each step, so a cut run keeps what it had.
set -u
N=.calls/build-new; B=.calls/before
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/cp49/commit)
w=/tmp/work; log=$w/logs; rows=$w/rows; mkdir -p $log $rows
cp .calls/cp49/cp-final.sh $log/
pack() { tar czf $OUT/cp-final.tgz -C $w logs rows; }
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/machine.txt
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
for i in 0 1 2 3 4 5 6 7; do
  CUDA_VISIBLE_DEVICES=$((i % 4)) GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 100 \
    $N/tests/attnlab_gpu_tests --gtest_filter='*Cp*:*Stream*' > $log/tests-shard$i.log 2>&1 &
done
g=0
for tool in memcheck initcheck; do
  ( CUDA_VISIBLE_DEVICES=$g timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $N/tests/attnlab_gpu_tests \
      --gtest_filter="Kernels/CpPieces.*/wgmma_sm90_bf16_d128_causal:CpOutputSums.*" || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
  g=$((g + 1))
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log | head -4
pack
for side in before after; do
  bin=$B/attnlab; [ $side = after ] && bin=$N/cli/attnlab
  CUDA_VISIBLE_DEVICES=0,1,2,3 timeout 60 $bin cp $long --ranks 4 --strategy zigzag --run --nccl --register-buffers \
    --ring-buffers 3 > $log/n4-zigzag-rb3-$side.txt 2>&1; echo "== $side rc=$? at ${SECONDS}s"
  grep -E "^run:" $log/n4-zigzag-rb3-$side.txt | head -1 | cut -c1-90
done
pack
row() {  # NAME GPUS ARGS...
  local name=$1 gpus=$2; shift 2
  CUDA_VISIBLE_DEVICES=$gpus timeout 60 $N/cli/attnlab cp "$@" --csv $rows/attnlab-cp-$name.csv > $log/cp-$name.txt 2>&1 ||
    echo "$name failed: $?"
  echo "== row $name at ${SECONDS}s"; grep -E "^run:" $log/cp-$name.txt | sed -n 3p | cut -c1-90
  pack
}
row one-doc-65536-n4-nccl-registered-ringbuffers3 0,1,2,3 $long --ranks 4 --run --nccl --register-buffers --ring-buffers 3
row one-doc-65536-n4-one-gpu 0 $long --ranks 4 --run
row one-doc-65536-n4-nccl-registered 0,1,2,3 $long --ranks 4 --run --nccl --register-buffers
row one-doc-65536-n4-nccl 0,1,2,3 $long --ranks 4 --run --nccl
row one-doc-65536-n2-nccl-registered 0,1 $long --ranks 2 --run --nccl --register-buffers
row one-doc-65536-n2-nccl 0,1 $long --ranks 2 --run --nccl
for n in 4 2; do
  [ $n = 4 ] && row web-mix-2048-n4-one-gpu 0 web-mix-2048 --ranks 4 --run
  [ $n = 4 ] && row web-mix-2048-n4-nccl-registered-ringbuffers3 0,1,2,3 web-mix-2048 --ranks 4 --run --nccl --register-buffers --ring-buffers 3
  gpus=0,1,2,3; [ $n = 2 ] && gpus=0,1
  row web-mix-2048-n$n-nccl-registered $gpus web-mix-2048 --ranks $n --run --nccl --register-buffers
  row web-mix-2048-n$n-nccl $gpus web-mix-2048 --ranks $n --run --nccl
done
echo "== done at ${SECONDS}s"
