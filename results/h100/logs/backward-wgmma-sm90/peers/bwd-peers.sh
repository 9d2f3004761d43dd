#!/usr/bin/env bash
# The PyTorch peers' backward on every shipped scenario (bench/device_run.sh's bwd stage), and
# attnlab-bench's backward on the three uniform scenarios in the same call.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/commit)
log=$OUT/logs; mkdir -p $log
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout 60 $N/bench/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 --implementations=varlen --pass=bwd \
  --reps=30 --out=$OUT/attnlab-bench-bwd-same-call.csv > $log/bench-same-call.log 2>&1 || echo "bench failed"
bwd_peers=torch-varlen_attn,torch-varlen_attn-kv-expanded,torch-flex-document-mask,torch-sdpa-flash-padded,torch-sdpa-cudnn-padded,torch-sdpa-flash-packed,torch-sdpa-cudnn-packed,torch-eager-padded
timeout --signal=INT --kill-after=10 420 python3 -m attnlab.peers $scenarios --pass bwd --peers "$bwd_peers" \
  --attnlab $N/cli/attnlab --out $OUT/peers-bwd.csv > $log/peers-bwd.log 2>&1 || echo "peers failed"
python3 - $OUT <<'PY'
import csv, sys
d = sys.argv[1]
for r in csv.DictReader(open(f"{d}/attnlab-bench-bwd-same-call.csv")):
    print(f"  {r['scenario']:34s} attnlab {r['kernel']:24s} {float(r['median_us']):10.1f}")
for r in csv.DictReader(open(f"{d}/peers-bwd.csv")):
    if r["source"] in ("torch-varlen_attn", "torch-sdpa-cudnn-padded", "torch-varlen_attn-kv-expanded"):
        print(f"  {r['scenario']:34s} {r['source']:32s} {float(r['median_us']):10.1f}")
PY
grep -h "unavailable" $log/peers-bwd.log | head -20
tar czf $OUT/bwd-peers-logs.tgz -C $OUT logs && rm -rf $OUT/logs
