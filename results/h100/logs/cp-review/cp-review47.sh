#!/usr/bin/env bash
# After the review: the NCCL run on 4 and 2 GPUs, outputs checked (exit 1 on a mismatch).
set -u
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios NCCL_NVLS_ENABLE=0
log=$OUT/logs; mkdir -p $log
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
run() { local name=$1 gpus=$2; shift 2
  CUDA_VISIBLE_DEVICES=$gpus timeout 120 $N/cli/attnlab cp "$@" > $log/$name.txt 2>&1; echo "== $name rc=$? at ${SECONDS}s"
  grep -E "^run:" $log/$name.txt | cut -c1-100; }
run n4-zigzag-registered-rb3 0,1,2,3 $long --ranks 4 --strategy zigzag --run --nccl --register-buffers --ring-buffers 3 --reps 10
run n4-web-mix-all-channels 0,1,2,3 web-mix-2048 --ranks 4 --run --nccl --sm-margin 4 --transfer-channels 4 --reps 10
run n2-zigzag-default 0,1 $long --ranks 2 --strategy zigzag --run --nccl --reps 10
sed -n '/^zigzag, ring/,/^run:/p' $log/n4-zigzag-registered-rb3.txt
tar czf $OUT/cp-review47.tgz -C $OUT logs && rm -rf $OUT/logs
