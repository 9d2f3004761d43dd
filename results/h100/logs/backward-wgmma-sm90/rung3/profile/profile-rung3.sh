#!/usr/bin/env bash
# ncu on one timed launch of the shipped backward (rung 3, not the counting instance) on
# uniform-16x2048: speed of light, warp states, scheduler, memory, and warp stall samples per
# SASS instruction, summarized by instruction and by opcode.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
N=.calls/build-new
mkdir -p $OUT/t
k='regex:backward_specializedI13__nv_bfloat16Li128ELb0E'
timeout 200 ncu --kernel-name-base mangled -k "$k" --launch-skip 1 -c 1 --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters -o $OUT/t/rung3 \
  $N/bench/attnlab-bench uniform-16x2048 --implementations=varlen --pass=bwd --reps=3 --warmup=1 > $OUT/t/ncu.log 2>&1 \
  || echo "ncu failed"
timeout 60 ncu -i $OUT/t/rung3.ncu-rep --print-summary none > $OUT/t/sections.log 2>&1
grep -E "Duration|SM Frequency|Elapsed Cycles|Throughput|Busy|Issued|Eligible|No Eligible|Active Warps|Warp Cycles|Local Memory|L2 Hit" $OUT/t/sections.log | head -30
timeout 60 ncu -i $OUT/t/rung3.ncu-rep --page source --csv --print-source sass > $OUT/t/sass-rung3.csv 2>&1
python3 - $OUT/t/sass-rung3.csv <<'PY'
import csv, sys
from collections import Counter
rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], rows[2:]
i_s, i_src = hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("Source")
tot = sum(int(r[i_s]) for r in data)
for r in sorted(data, key=lambda r: -int(r[i_s]))[:30]:
    print(f"{int(r[i_s]) / tot * 100:5.1f}%  {r[0][-5:]}  {r[i_src].strip()[:80]}")
c = Counter()
for r in data:
    src = r[i_src].strip().split()
    op = (src[1] if src and src[0].startswith("@") and len(src) > 1 else (src[0] if src else "")).split(".")[0]
    c[op] += int(r[i_s])
print([(k, round(v / tot * 100, 1)) for k, v in c.most_common(18)])
PY
tar czf $OUT/profile-rung3.tgz -C $OUT t && rm -rf $OUT/t
