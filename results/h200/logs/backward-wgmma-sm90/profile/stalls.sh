#!/usr/bin/env bash
# ncu on one timed launch of the shipped backward (not the counting instance) on uniform-16x2048
# and uniform-64x512: speed of light, warp states, scheduler, memory, and warp stall samples per
# SASS instruction, summarized by instruction and by opcode.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
N=.calls/new
w=/tmp/work4; mkdir -p $w/t; cp .calls/s51/stalls.sh $w/t/
k='regex:backward_specializedI13__nv_bfloat16Li128ELb0E'
for sc in uniform-16x2048 uniform-64x512; do
  echo "== $sc"
  timeout 150 ncu --kernel-name-base mangled -k "$k" --launch-skip 1 -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters -o $w/t/$sc \
    $N/attnlab-bench $sc --implementations=varlen --pass=bwd --reps=3 --warmup=1 > $w/t/ncu-$sc.log 2>&1 || echo "ncu failed"
  timeout 60 ncu -i $w/t/$sc.ncu-rep --print-summary none > $w/t/sections-$sc.log 2>&1
  grep -E "Duration|SM Frequency|Throughput|Issued Warp|Eligible Warps|No Eligible|Active Warps|Warp Cycles Per Issued" $w/t/sections-$sc.log | head -14
  timeout 60 ncu -i $w/t/$sc.ncu-rep --page source --csv --print-source sass > $w/t/sass-$sc.csv 2>&1
  python3 - $w/t/sass-$sc.csv <<'PY'
import csv, sys
from collections import Counter
rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], rows[2:]
i_s, i_src = hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("Source")
tot = sum(int(r[i_s]) for r in data)
for r in sorted(data, key=lambda r: -int(r[i_s]))[:14]:
    print(f"{int(r[i_s]) / tot * 100:5.1f}%  {r[0][-5:]}  {r[i_src].strip()[:80]}")
c = Counter()
for r in data:
    src = r[i_src].strip().split()
    op = (src[1] if src and src[0].startswith("@") and len(src) > 1 else (src[0] if src else "")).split(".")[0]
    c[op] += int(r[i_s])
print([(k, round(v / tot * 100, 1)) for k, v in c.most_common(14)])
PY
done
rm -f $w/t/*.ncu-rep
tar czf $OUT/stalls.tgz -C $w t
