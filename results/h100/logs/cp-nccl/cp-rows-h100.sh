#!/usr/bin/env bash
# Context parallelism's rows on 4 x H100: `attnlab cp --run --nccl --csv` on 2 and 4 GPUs for the
# long document and web-mix-2048, with NCCL's defaults and with registered buffers; `--run --csv`
# on one GPU at N = 4 beside them; the CP GPU tests first; then the ring's writes instead of reads
# (NCCL_P2P_READ_ENABLE=0) beside registered buffers, zigzag only, logs only.
set -u
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/commit-now)
log=$OUT/logs; rows=$OUT/rows; mkdir -p $log $rows
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1
CUDA_VISIBLE_DEVICES=0 timeout 200 $N/tests/attnlab_gpu_tests --gtest_filter='*Cp*:*Stream*' > $log/tests-cp.log 2>&1
echo "tests rc=$?"; tail -n 1 $log/tests-cp.log
run() {  # NAME GPUS ARGS...
  local name=$1 gpus=$2; shift 2
  CUDA_VISIBLE_DEVICES=$gpus timeout 240 $N/cli/attnlab cp "$@" --csv $rows/attnlab-cp-$name.csv > $log/cp-$name.txt 2>&1 ||
    echo "$name failed: $?"
  echo "== $name at ${SECONDS}s"
  grep -E "^run:" $log/cp-$name.txt | cut -c1-100
}
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
for reg in "" --register-buffers; do
  tag=nccl${reg:+-registered}
  run one-doc-65536-n4-$tag 0,1,2,3 $long --ranks 4 --run --nccl $reg
  run one-doc-65536-n2-$tag 0,1 $long --ranks 2 --run --nccl $reg
  run web-mix-2048-n4-$tag 0,1,2,3 web-mix-2048 --ranks 4 --run --nccl $reg
  run web-mix-2048-n2-$tag 0,1 web-mix-2048 --ranks 2 --run --nccl $reg
done
run one-doc-65536-n4-one-gpu 0 $long --ranks 4 --run
run web-mix-2048-n4-one-gpu 0 web-mix-2048 --ranks 4 --run
mkdir -p $log/p2p-writes
for s in "" "--sm-margin 4 --transfer-channels 4" "--sm-margin 8 --transfer-channels 8"; do
  name=n4-zigzag-registered-writes$(echo $s | tr -d ' -' | sed 's/smmargin/-margin/; s/transferchannels/-channels/')
  NCCL_P2P_READ_ENABLE=0 CUDA_VISIBLE_DEVICES=0,1,2,3 timeout 90 $N/cli/attnlab cp $long --ranks 4 --strategy zigzag \
    --run --nccl --register-buffers $s > $log/p2p-writes/$name.txt 2>&1 || echo "$name failed: $?"
  echo "== $name at ${SECONDS}s"; grep -E "^run:" $log/p2p-writes/$name.txt | head -1 | cut -c1-100
  sed -n '/^zigzag, ring/,/^run:/p' $log/p2p-writes/$name.txt | awk 'NR>=4 && NR<=7 {printf "c%.0f r%.0f t%.0f e%.0f | ", $8,$11,$12,$13}'; echo
done
cp .calls/cp-rows-h100.sh $log/
tar czf $OUT/cp-rows-h100.tgz -C $OUT logs rows && rm -rf $OUT/logs $OUT/rows
