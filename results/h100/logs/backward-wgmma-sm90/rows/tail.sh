#!/usr/bin/env bash
# long-tail and sft-chats, the two shipped scenarios the rows' command gave FA2 no row on:
# ours (new2, varlen backward), FA2's varlen_attn on long-tail and with K and V repeated to
# every query head on sft-chats, in one command.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/s56/new2-commit)
N=.calls/new2
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s56/tail.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
timeout 90 $N/attnlab-bench long-tail sft-chats --implementations=varlen --pass=bwd --reps=10 \
  --out=$csv/ours-bwd.csv > $log/ours.log 2>&1 || echo "bench failed"
timeout 90 python3 -m attnlab.peers long-tail --pass bwd --peers torch-varlen_attn --attnlab $N/attnlab \
  --out $csv/peers-long-tail.csv > $log/peers.log 2>&1 || echo "peers long-tail failed"
timeout 60 python3 -m attnlab.peers sft-chats --pass bwd --peers torch-varlen_attn-kv-expanded --attnlab $N/attnlab \
  --out $csv/peers-sft-chats.csv >> $log/peers.log 2>&1 || echo "peers sft-chats failed"
grep -E "bwd: median|unavailable" $log/peers.log
grep -E "^varlen/" $log/ours.log | cut -c1-120
tar czf $OUT/tail.tgz -C $w logs csv
