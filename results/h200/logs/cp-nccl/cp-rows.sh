#!/usr/bin/env bash
# Context parallelism's shipped rows: `attnlab cp --run --nccl --csv` on 2 and 4 GPUs for the long
# document and web-mix-2048, `--run --csv` on one GPU at N = 4 beside them; the CP GPU tests first.
set -u
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/commit-now)
log=$OUT/logs; rows=$OUT/rows; mkdir -p $log $rows
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1
CUDA_VISIBLE_DEVICES=0 timeout 200 $N/tests/attnlab_gpu_tests --gtest_filter='Cp*' > $log/tests-cp.log 2>&1
tail -n 3 $log/tests-cp.log
run() {  # NAME GPUS ARGS...
  local name=$1 gpus=$2; shift 2
  CUDA_VISIBLE_DEVICES=$gpus timeout 240 $N/cli/attnlab cp "$@" --csv $rows/attnlab-cp-$name.csv > $log/cp-$name.txt 2>&1 ||
    echo "$name failed: $?"
  echo "== $name at ${SECONDS}s"
  grep -E "^(contiguous|zigzag|documents),|^imbalance|^run:|whole varlen|^attnlab" $log/cp-$name.txt
}
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
run one-doc-65536-n2-nccl 0,1 $long --ranks 2 --run --nccl
run one-doc-65536-n4-nccl 0,1,2,3 $long --ranks 4 --run --nccl
run one-doc-65536-n4-one-gpu 0 $long --ranks 4 --run
run web-mix-2048-n2-nccl 0,1 web-mix-2048 --ranks 2 --run --nccl
run web-mix-2048-n4-nccl 0,1,2,3 web-mix-2048 --ranks 4 --run --nccl
run web-mix-2048-n4-one-gpu 0 web-mix-2048 --ranks 4 --run
tar czf $OUT/cp-rows.tgz -C $OUT logs rows && rm -rf $OUT/logs $OUT/rows
