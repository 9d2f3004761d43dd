#!/usr/bin/env bash
set -u
export ATTNLAB_SCENARIOS=$PWD/scenarios
A=.calls/build-torch/cli/attnlab; B=.calls/build-abl/cli/attnlab
S="uniform-64x512 uniform-16x2048 one-doc-16384"
mkdir -p $OUT/t
for r in 1 2; do for b in A B; do
  bin=$A; [ $b = B ] && bin=$B
  timeout 100 $bin run $S --impl varlen --pass bwd --reps 30 --out $OUT/t/time-$b-$r.csv > $OUT/t/time-$b-$r.log 2>&1 || echo "time $b $r failed"
done; done
python3 - <<'PY'
import csv,glob,os,statistics
out=os.environ['OUT']; m={}
for p in glob.glob(out+'/t/time-*.csv'):
    b=os.path.basename(p).split('-')[1]
    for row in csv.DictReader(open(p)): m.setdefault((row['scenario'],b),[]).append(float(row['median_us']))
for s in sorted({k[0] for k in m}):
    a=statistics.mean(m.get((s,'A'),[0])); b=statistics.mean(m.get((s,'B'),[0]))
    print(f"{s:20s} shipped {a:8.1f}  no-dQ-reductions {b:8.1f}  ratio {b/a if a else 0:.3f}")
PY
timeout 200 ncu -k regex:backward -c 1 --section SourceCounters --section WarpStateStats \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio -o $OUT/bwd \
  $A run uniform-16x2048 --impl varlen --pass bwd --reps 1 --warmup 0 > $OUT/ncu.log 2>&1
ncu -i $OUT/bwd.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2> $OUT/sass.err
ncu -i $OUT/bwd.ncu-rep --page details --print-details all > $OUT/details.txt 2>&1
grep -E "stalled_.*ratio" $OUT/details.txt | sort -k3 -n -r | head -20
ls -la $OUT; tar czf $OUT/t.tgz -C $OUT t && rm -rf $OUT/t
