#!/usr/bin/env bash
# Timing only: the shipped backward of each listed binary folder, 3 scenarios, 3 rounds in
# alternating order; the first folder's gradients checked on two scenarios.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work; mkdir -p $w/csv; S="uniform-64x512 uniform-16x2048 one-doc-16384"
nvidia-smi --query-gpu=name --format=csv,noheader
for sc in uniform-64x512 web-mix-2048; do
  timeout 60 .calls/r4/$1/attnlab run $sc --impl varlen,padded --pass bwd --reps 3 > $w/check-$1-$sc.log 2>&1
  echo "check $1 $sc rc=$?"; grep -E "^(varlen|padded) " $w/check-$1-$sc.log | cut -c1-130
done
for r in 1 2 3; do
  order="$*"; [ $r = 2 ] && order=$(echo "$*" | tr ' ' '\n' | tac | tr '\n' ' ')
  for v in $order; do
    timeout 100 .calls/r4/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=30 \
      --out=$w/csv/$v-$r.csv > /dev/null 2>>$w/errors.log || echo "failed $v"
  done
done
python3 - "$w/csv" <<'PY'
import csv,glob,os,statistics,sys
m={}
for p in glob.glob(sys.argv[1]+'/*.csv'):
    v,_=os.path.basename(p)[:-4].rsplit('-',1)
    for r in csv.DictReader(open(p)): m.setdefault((r['scenario'],v),[]).append(float(r['median_us']))
for k in sorted(m): print(*k, f"{statistics.mean(m[k]):.1f}", [round(x,1) for x in m[k]])
PY
tar czf $OUT/time2.tgz -C $w csv
