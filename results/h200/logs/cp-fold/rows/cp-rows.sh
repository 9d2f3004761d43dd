#!/usr/bin/env bash
# The shipped rows after the fold, 4 GPUs: both scenarios on one GPU at N = 4 and over NCCL at
# N = 2 and 4 (defaults, registered, registered + 3 ring buffers at N = 4); each launch's
# duration under ncu (zigzag, N = 4, one GPU). One tarball back.
set -u
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/cp49/commit)
log=$OUT/logs; rows=$OUT/rows; mkdir -p $log $rows
cp .calls/cp49/cp-rows.sh $log/
finish() { tar czf $OUT/cp-rows.tgz -C $OUT logs rows && rm -rf $OUT/logs $OUT/rows; exit 0; }
trap finish TERM
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/machine.txt
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
row() {  # NAME GPUS ARGS...
  local name=$1 gpus=$2; shift 2
  CUDA_VISIBLE_DEVICES=$gpus timeout 80 $N/cli/attnlab cp "$@" --csv $rows/attnlab-cp-$name.csv > $log/cp-$name.txt 2>&1 ||
    echo "$name failed: $?"
  echo "== row $name at ${SECONDS}s"; grep -E "^run:" $log/cp-$name.txt | cut -c1-70 | head -6
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
CUDA_VISIBLE_DEVICES=0 timeout 60 ncu --metrics gpu__time_duration.sum --csv --print-units base $N/cli/attnlab cp $long \
  --ranks 4 --strategy zigzag --run --reps 1 --warmup 0 > $log/ncu-zigzag.csv 2> $log/ncu-zigzag.err
echo "== done at ${SECONDS}s"
finish
