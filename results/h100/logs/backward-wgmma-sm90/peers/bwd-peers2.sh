#!/usr/bin/env bash
# The peers' backward on every shipped scenario but long-tail (whose padded SDPA runs lose the
# CUDA context), in a new process after the first stopped there.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
log=$OUT/logs; mkdir -p $log
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done | grep -v long-tail)
timeout --signal=INT --kill-after=10 480 python3 -m attnlab.peers $scenarios --pass bwd \
  --peers torch-varlen_attn,torch-varlen_attn-kv-expanded,torch-sdpa-cudnn-padded,torch-sdpa-flash-padded \
  --attnlab $N/cli/attnlab --out $OUT/peers-bwd-rest.csv > $log/peers-bwd-rest.log 2>&1 || echo "peers failed"
python3 - $OUT <<'PY'
import csv, sys
for r in csv.DictReader(open(f"{sys.argv[1]}/peers-bwd-rest.csv")):
    print(f"  {r['scenario']:34s} {r['source']:32s} {float(r['median_us']):10.1f}")
PY
grep -h "unavailable\|stopped" $log/peers-bwd-rest.log | head -20
tar czf $OUT/bwd-peers-rest-logs.tgz -C $OUT logs && rm -rf $OUT/logs
