#!/usr/bin/env bash
# Timing only: rung 3 against rung 4 of each listed binary folder, 3 scenarios, alternating rounds.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work; mkdir -p $w/csv; S="uniform-64x512 uniform-16x2048 one-doc-16384"
nvidia-smi --query-gpu=name --format=csv,noheader
for v in "$@"; do for sc in uniform-64x512 web-mix-2048; do
  timeout 60 .calls/r4/$v/attnlab run $sc --impl varlen,padded --pass bwd --reps 3 --kernel wgmma-sm90 > $w/check-$v-$sc.log 2>&1
  echo "check $v $sc rc=$?"; grep -E "^(varlen|padded) " $w/check-$v-$sc.log | cut -c1-130
done; done
for r in 1 2; do for v in "$@"; do for n in 3 4; do
  timeout 100 .calls/r4/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=30 --kernel=wgmma-sm90/bwd-rung$n \
    --out=$w/csv/$v-rung$n-$r.csv > /dev/null 2>>$w/errors.log || echo "failed $v $n"
done; done; done
cat $w/errors.log 2>/dev/null | tail -3
python3 - "$w/csv" <<'PY'
import csv,glob,os,statistics,sys
m={}
for p in glob.glob(sys.argv[1]+'/*.csv'):
    v,rung,_=os.path.basename(p)[:-4].rsplit('-',2)
    for r in csv.DictReader(open(p)): m.setdefault((r['scenario'],v,rung),[]).append(float(r['median_us']))
for k in sorted(m): print(*k, f"{statistics.mean(m[k]):.1f}", [round(x,1) for x in m[k]])
PY
tar czf $OUT/time.tgz -C $w csv
