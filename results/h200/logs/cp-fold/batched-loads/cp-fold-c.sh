#!/usr/bin/env bash
# The fold with its loads batched, 4 GPUs: CP GPU tests (8 shards) beside memcheck and initcheck
# on the CP pieces; each launch's duration under ncu (zigzag, N = 4, one GPU); zigzag at N = 4
# before (B: the tree before the fold) and after, on one GPU and over NCCL (registered, 3 ring
# buffers); the forward before and after; then, time allowing, the shipped rows: both scenarios
# on one GPU at N = 4 and over NCCL at N = 2 and 4 (defaults, registered, registered + 3 ring
# buffers at N = 4). Rows and logs are written straight under $OUT, so a cut run keeps them.
set -u
N=.calls/build-new; B=.calls/before
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/cp49/commit)
log=$OUT/logs; rows=$OUT/rows; mkdir -p $log $rows $OUT/csv
cp .calls/cp49/cp-fold-c.sh $log/
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/machine.txt
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
for i in 0 1 2 3 4 5 6 7; do
  CUDA_VISIBLE_DEVICES=$((i % 4)) GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 200 \
    $N/tests/attnlab_gpu_tests --gtest_filter='*Cp*:*Stream*' > $log/tests-shard$i.log 2>&1 &
done
g=0
for tool in memcheck initcheck; do for k in wgmma_sm90 mma_sm80; do
  ( CUDA_VISIBLE_DEVICES=$g timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $N/tests/attnlab_gpu_tests \
      --gtest_filter="Kernels/CpPieces.*/${k}_bf16_d128_causal" || echo "SANITIZER FAILED $tool $k rc=$?" ) > $log/sanitizer-$tool-$k.log 2>&1 &
  g=$((g + 1))
done; done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log | head -8
CUDA_VISIBLE_DEVICES=0 timeout 100 ncu --metrics gpu__time_duration.sum --csv --print-units base $N/cli/attnlab cp $long \
  --ranks 4 --strategy zigzag --run --reps 1 --warmup 0 > $log/ncu-zigzag.csv 2> $log/ncu-zigzag.err
echo "== ncu rc=$? at ${SECONDS}s"
cp_run() {  # NAME BIN GPUS ARGS...
  local name=$1 bin=$2 gpus=$3; shift 3
  CUDA_VISIBLE_DEVICES=$gpus timeout 90 $bin cp "$@" > $log/$name.txt 2>&1; echo "== $name rc=$? at ${SECONDS}s"
  grep -E "^run:" $log/$name.txt | head -2 | cut -c1-100
  sed -n '/^zigzag, ring/,/^imbalance/p' $log/$name.txt | awk 'NR>=4 && NR<=7 {printf "c%.0f r%.0f | ", $8, $11}'; echo
}
for r in 1 2; do
  sides="before after"; [ $r = 2 ] && sides="after before"
  for side in $sides; do
    bin=$B/attnlab; [ $side = after ] && bin=$N/cli/attnlab
    cp_run n4-zigzag-rb3-$side-$r $bin 0,1,2,3 $long --ranks 4 --strategy zigzag --run --nccl --register-buffers --ring-buffers 3
    cp_run n4-zigzag-one-gpu-$side-$r $bin 0 $long --ranks 4 --strategy zigzag --run
  done
done
bench() { CUDA_VISIBLE_DEVICES=0 timeout 100 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2 3; do
  sides="before after"; [ $r = 2 ] && sides="after before"
  for side in $sides; do
    bin=$B/attnlab-bench; [ $side = after ] && bin=$N/bench/attnlab-bench
    bench $bin uniform-16x2048 one-doc-16384 --implementations=varlen --pass=fwd --reps=30 --kernel=wgmma-sm90 \
      --out=$OUT/csv/fwd-wgmma-sm90-$side-$r.csv
  done
done
echo "== forward done at ${SECONDS}s"
[ $SECONDS -gt 280 ] && { echo "no time left for the rows"; exit 0; }
row() {  # NAME GPUS ARGS...
  local name=$1 gpus=$2; shift 2
  CUDA_VISIBLE_DEVICES=$gpus timeout 80 $N/cli/attnlab cp "$@" --csv $rows/attnlab-cp-$name.csv > $log/cp-$name.txt 2>&1 ||
    echo "$name failed: $?"
  echo "== row $name at ${SECONDS}s"; grep -E "^run:" $log/cp-$name.txt | cut -c1-100 | head -6
}
for s in one-doc-65536 web-mix-2048; do
  src=$s; [ $s = one-doc-65536 ] && src=$long
  row $s-n4-one-gpu 0 $src --ranks 4 --run
  row $s-n4-nccl-registered-ringbuffers3 0,1,2,3 $src --ranks 4 --run --nccl --register-buffers --ring-buffers 3
  row $s-n4-nccl-registered 0,1,2,3 $src --ranks 4 --run --nccl --register-buffers
  row $s-n4-nccl 0,1,2,3 $src --ranks 4 --run --nccl
  row $s-n2-nccl-registered 0,1 $src --ranks 2 --run --nccl --register-buffers
  row $s-n2-nccl 0,1 $src --ranks 2 --run --nccl
done
echo "== rows done at ${SECONDS}s"
