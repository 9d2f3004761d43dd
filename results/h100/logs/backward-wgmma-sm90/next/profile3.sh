#!/usr/bin/env bash
# The shipped backward (rung 2) against rung 1 and two measuring builds, alternating: noreds (rung 1
# without dQ's reductions) and nobulk (rung 2 with dQ staged but no bulk reduction issued); both give
# wrong dQ. Then ncu's stall samples per SASS instruction of rung 2 on uniform-16x2048.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
N=.calls/build-new/cli/attnlab; A=.calls/build-abl/cli/attnlab; A2=.calls/build-abl2/cli/attnlab
S="uniform-64x512 uniform-16x2048 one-doc-16384"
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for r in 1 2; do for v in rung1 rung2 noreds nobulk; do
  case $v in rung1) cmd=($N run $S --kernel wgmma-sm90/bwd-rung1) ;; rung2) cmd=($N run $S) ;;
    noreds) cmd=($A run $S) ;; nobulk) cmd=($A2 run $S) ;; esac
  timeout 100 "${cmd[@]}" --impl varlen --pass bwd --reps 30 --out $OUT/t/$v-$r.csv > $OUT/t/$v-$r.log 2>&1 || echo "$v $r failed"
done; done
python3 - $OUT/t <<'PY'
import csv, glob, os, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    v = os.path.basename(p).split("-")[0]
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], v), []).append(float(r["median_us"]))
for s in ("uniform-64x512", "uniform-16x2048", "one-doc-16384"):
    print(s, " ".join(f"{v} {statistics.mean(m.get((s, v), [0])):8.1f}" for v in ("rung1", "rung2", "noreds", "nobulk")))
PY
echo "== timings done at ${SECONDS}s"
timeout 150 ncu -k regex:backward -c 1 --section SourceCounters --section WarpStateStats -o $OUT/t/rung2 \
  $N run uniform-16x2048 --impl varlen --pass bwd --reps 1 --warmup 0 > $OUT/t/ncu.log 2>&1
timeout 60 ncu -i $OUT/t/rung2.ncu-rep --page source --csv --print-source sass > $OUT/t/sass-rung2.csv 2>&1
python3 - $OUT/t/sass-rung2.csv <<'PY'
import csv, sys
from collections import Counter
rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], rows[2:]
i_s, i_src = hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("Source")
tot = sum(int(r[i_s]) for r in data)
for r in sorted(data, key=lambda r: -int(r[i_s]))[:25]:
    print(f"{int(r[i_s]) / tot * 100:5.1f}%  {r[0][-5:]}  {r[i_src].strip()[:80]}")
c = Counter()
for r in data:
    src = r[i_src].strip().split()
    op = (src[1] if src and src[0].startswith("@") and len(src) > 1 else (src[0] if src else "")).split(".")[0]
    c[op] += int(r[i_s])
print([(k, round(v / tot * 100, 1)) for k, v in c.most_common(16)])
PY
tar czf $OUT/profile3.tgz -C $OUT t && rm -rf $OUT/t
