#!/usr/bin/env bash
# Rung 4's second version against rung 3, same binary: every kernel of one backward pass on
# uniform-64x512 under ncu, its duration, DRAM bytes and L2 hit rate.
set -u
N=.calls/new
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work7; log=$w/logs; mkdir -p $log; cp .calls/s51/rung4-bytes.sh $log/
for k in wgmma-sm90/bwd-rung3 wgmma-sm90; do
  n=$(basename $k)
  timeout 60 ncu --profile-from-start off --clock-control none \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
    $N/attnlab-bench uniform-64x512 --implementations=varlen --pass=bwd --reps=1 --profile-one-pass --kernel=$k \
    > $log/ncu-$n.log 2>&1 || echo "ncu $k failed"
  echo "== $k"
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__bytes|lts__t_sector_hit" $log/ncu-$n.log | sed 's/  */ /g' | cut -c1-110
done
tar czf $OUT/rung4-bytes.tgz -C $w logs
