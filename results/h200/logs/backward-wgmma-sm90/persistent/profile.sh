#!/usr/bin/env bash
# Where one backward pass's time goes on this GPU: every kernel of one untimed pass
# (Δ with the clearing, the kernel, the dQ conversion) under ncu, its duration and DRAM bytes;
# the persistent backward, rung 4 (359f6e8).
set -u
N=.calls/base
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work; log=$w/logs; mkdir -p $log; cp .calls/s53/profile.sh $log/
for sc in uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix; do
  timeout 100 ncu --profile-from-start off --clock-control none \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    $N/attnlab-bench $sc --implementations=varlen --pass=bwd --reps=1 --profile-one-pass > $log/ncu-$sc.log 2>&1 || echo "ncu $sc failed"
  echo "== $sc"
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__bytes|sm__throughput" $log/ncu-$sc.log | sed 's/  */ /g' | cut -c1-120
done
tar czf $OUT/profile.tgz -C $w logs
