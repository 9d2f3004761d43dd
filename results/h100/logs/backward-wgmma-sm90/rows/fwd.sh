#!/usr/bin/env bash
# The forward of head (2d06c66), new (7bf088d, descriptors made once per tile) and new2
# (7266e0b, 16-bit tiles staged by stmatrix, the forward's O among them): three rounds in
# rotating order, 30 passes each, one H100.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s56/fwd.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
for r in 1 2 3; do
  case $r in 1) order="head new new2";; 2) order="new2 head new";; 3) order="new new2 head";; esac
  for v in $order; do
    ATTNLAB_COMMIT=$v timeout 60 .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 web-mix-2048 \
      --implementations=varlen --pass=fwd --reps=30 --out=$csv/fwd-$v-$r.csv > /dev/null 2>>$log/errors.log || echo "bench failed $v"
  done
done
python3 - $csv <<'PY' | tee $log/timing.txt
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/fwd-*.csv"):
    for r in csv.DictReader(open(p)):
        m.setdefault(r["scenario"], {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(k, " ".join(f"{c} {v[c]:7.1f}" for c in ("head", "new", "new2")),
          f"new/head {v['new']/v['head']:.3f} new2/new {v['new2']/v['new']:.3f} new2/head {v['new2']/v['head']:.3f}",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
tar czf $OUT/fwd.tgz -C $w logs csv
