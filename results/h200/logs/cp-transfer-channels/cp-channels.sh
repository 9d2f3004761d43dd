#!/usr/bin/env bash
# Fewer NCCL channels (CTAs) for the ring's transfers, with an SM margin to match: one-doc-65536
# by zigzag over NCCL on 4 GPUs.
set -u
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/commit-now)
log=$OUT/logs; mkdir -p $log
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
IFS=, read -ra pairs <<< "${CHANNEL_MARGINS:-8 8,4 4,16 16,8 0,2 2}"
for c in "${pairs[@]}"; do
  set -- $c
  name=n4-zigzag-channels$1-margin$2
  NCCL_MAX_P2P_NCHANNELS=$1 CUDA_VISIBLE_DEVICES=0,1,2,3 timeout 60 $N/cli/attnlab cp $long --ranks 4 \
    --strategy zigzag --run --nccl --sm-margin $2 > $log/$name.txt 2>&1 || echo "$name failed: $?"
  echo "== $name at ${SECONDS}s"
  awk '/^zigzag, ring/,/^run:/' $log/$name.txt | sed -n 4,7p | awk '{print $6, $9, $10, $11, $12}'
  grep -E "^run:" $log/$name.txt
done
tar czf $OUT/cp-channels.tgz -C $OUT logs && rm -rf $OUT/logs
