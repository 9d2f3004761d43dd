#!/usr/bin/env bash
# Where the shipped backward's kernel (28301a1) stalls: ncu's full set of sections on one
# launch of backward_specialized, uniform-64x512 (items of 2 to 8 steps) against
# one-doc-16384 (items of up to 256 steps); the text report of each.
set -u
N=.calls/final
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work; log=$w/logs; mkdir -p $log; cp .calls/s54/stalls.sh $log/
for sc in uniform-64x512 one-doc-16384; do
  timeout 110 ncu --profile-from-start off --clock-control none -k regex:backward_specialized --set full \
    $N/attnlab-bench $sc --implementations=varlen --pass=bwd --reps=1 --profile-one-pass > $log/ncu-full-$sc.log 2>&1 \
    || echo "ncu $sc failed"
  echo "== $sc at ${SECONDS}s"; grep -E "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Warp Cycles Per Issued|Eligible Warps|Stall" $log/ncu-full-$sc.log | head -20
done
tar czf $OUT/stalls.tgz -C $w logs
