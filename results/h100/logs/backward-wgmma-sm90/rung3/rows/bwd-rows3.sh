#!/usr/bin/env bash
# After the backward's rung 3: attnlab-bench --pass=bwd on every shipped scenario; uniform-64x512's
# bwd rows of all four implementations, checked; ncu's speed-of-light and warp states of one
# launch of the shipped backward on uniform-16x2048.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/r3/commit)
log=$OUT/logs; mkdir -p $log
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 240 $N/bench/attnlab-bench $scenarios --pass=bwd --out=$OUT/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
python3 -c "
import csv
for r in csv.DictReader(open('$OUT/attnlab-bench-bwd.csv')): print(f\"  {r['scenario']:34s} {r['implementation']:7s} {r['kernel']:12s} {float(r['median_us']):10.1f}\")"
echo "== bench done at ${SECONDS}s"
timeout 120 $N/cli/attnlab run uniform-64x512 --pass bwd --out $OUT/attnlab-run-bwd.csv > $log/four-bwd.log 2>&1 \
  || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log
echo "== four done at ${SECONDS}s"
timeout 90 ncu -k regex:backward_specialized -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy \
  --section MemoryWorkloadAnalysis $N/bench/attnlab-bench uniform-16x2048 --implementations=varlen --pass=bwd --reps=1 \
  --warmup=0 > $log/ncu-rung3-uniform-16x2048.log 2>&1 || echo "ncu failed"
grep -E "Duration|Throughput|Busy|Stall|Issued|Eligible|Active Warps|Warp Cycles" $log/ncu-rung3-uniform-16x2048.log | head -30
tar czf $OUT/bwd-rows3-logs.tgz -C $OUT logs && rm -rf $OUT/logs
