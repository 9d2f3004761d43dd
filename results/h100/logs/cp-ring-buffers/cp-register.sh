#!/usr/bin/env bash
# Settings of the ring's transfers (registered buffers, SM margins, channel caps, ring buffers):
# one-doc-65536 by zigzag over NCCL on 4 GPUs, each setting twice, interleaved.
set -u
N=.calls/build-new
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/commit-now)
log=$OUT/logs; mkdir -p $log
nvidia-smi > $log/machine.txt 2>&1; nvidia-smi topo -m >> $log/machine.txt 2>&1
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
long=${LONG:-$long}; tag=${TAG:-n4-zigzag}
IFS=, read -ra settings <<< "${SETTINGS:-default,reg,reg m4 c4,m4 c4,reg m8 c8,reg m2 c2,reg m4}"
for round in $(seq ${ROUNDS:-2}); do
  for s in "${settings[@]}"; do
    args=(); name=$tag
    for w in $s; do
      case $w in
        default) ;;
        reg) args+=(--register-buffers); name+=-registered ;;
        rb*) args+=(--ring-buffers ${w#rb}); name+=-ringbuffers${w#rb} ;;
        m*) args+=(--sm-margin ${w#m}); name+=-margin${w#m} ;;
        c*) args+=(--transfer-channels ${w#c}); name+=-channels${w#c} ;;
      esac
    done
    [ "$s" = default ] && name+=-default
    name+=-round$round
    CUDA_VISIBLE_DEVICES=0,1,2,3 timeout 90 $N/cli/attnlab cp $long --ranks 4 --strategy zigzag --run --nccl \
      --reps ${REPS:-20} "${args[@]}" > $log/$name.txt 2>&1 || echo "$name failed: $?"
    printf "== %-44s %4ss " $name $SECONDS
    grep -E "^run:" $log/$name.txt | head -1 | cut -c1-90
    sed -n '/^zigzag, ring/,/^run:/p' $log/$name.txt | awk 'NR>=4 && NR<=7 {w=""; for (i=17; i<=NF-2; i++) w=w $i; printf "c%.0f r%.0f t%.0f e%.0f w%s | ", $8,$11,$12,$13,w}'; echo
  done
done

