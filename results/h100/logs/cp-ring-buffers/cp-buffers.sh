#!/usr/bin/env bash
# Three ring buffers against two, with the waits before each step: zigzag over 4 GPUs on
# one-doc-65536 (twice, interleaved) and on one document of 131,072 tokens; then the rows of
# registered buffers with three ring buffers at N = 4 on both scenarios.
set -u
SETTINGS="reg,reg rb3,default,rb3" bash .calls/cp-register.sh
SETTINGS="reg,reg rb3" ROUNDS=1 REPS=10 LONG=.calls/one-doc-131072.toml TAG=n4-zigzag-131072 bash .calls/cp-register.sh
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/commit-now)
log=$OUT/logs; rows=$OUT/rows; mkdir -p $rows
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
for s in "one-doc-65536 $long" "web-mix-2048 web-mix-2048"; do
  set -- $s
  name=$1-n4-nccl-registered-ringbuffers3
  CUDA_VISIBLE_DEVICES=0,1,2,3 timeout 200 $N/cli/attnlab cp $2 --ranks 4 --run --nccl --register-buffers \
    --ring-buffers 3 --csv $rows/attnlab-cp-$name.csv > $log/cp-$name.txt 2>&1 || echo "$name failed: $?"
  echo "== $name at ${SECONDS}s"; grep -E "^run:" $log/cp-$name.txt | cut -c1-100
done
cp .calls/cp-buffers.sh .calls/cp-register.sh $log/
tar czf $OUT/cp-buffers.tgz -C $OUT logs rows && rm -rf $OUT/logs $OUT/rows
