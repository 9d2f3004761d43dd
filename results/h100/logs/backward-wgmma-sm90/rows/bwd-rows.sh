#!/usr/bin/env bash
# After the backward's rung 2: head dims 64/128 and both dtypes before (B) and after, one round
# each; uniform-64x512's bwd rows of all four implementations; attnlab-bench --pass=bwd on every
# shipped scenario (as bench/device_run.sh's bwd stage).
set -u
N=.calls/build-new; B=.calls/build-torch/cli/attnlab
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/commit)
log=$OUT/logs; mkdir -p $log
nvidia-smi > $log/nvidia-smi.txt 2>&1
for side in before after; do
  bin=$B; [ $side = after ] && bin=$N/cli/attnlab
  timeout 100 $bin run uniform-64x512 uniform-16x2048 --impl varlen --pass bwd --dtypes bf16,fp16 --head-dims 64,128 \
    --reps 30 --out $OUT/variants-$side.csv > $log/variants-$side.log 2>&1 || echo "variants $side failed"
done
python3 - $OUT <<'PY'
import csv, sys
d = sys.argv[1]
def load(side):
    return {(r["scenario"], r["dtype"], r["head_dim"]): float(r["median_us"]) for r in csv.DictReader(open(f"{d}/variants-{side}.csv"))}
b, a = load("before"), load("after")
for k in sorted(b):
    print(f"  {k[0]:16s} {k[1]} d{k[2]}: {b[k]:8.1f} -> {a.get(k, 0):8.1f}  ({a.get(k, 0) / b[k]:.3f})")
PY
echo "== variants done at ${SECONDS}s"
timeout 120 $N/cli/attnlab run uniform-64x512 --pass bwd --out $OUT/attnlab-run-bwd-uniform-64x512.csv \
  > $log/four-bwd.log 2>&1 || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log
echo "== four done at ${SECONDS}s"
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 280 $N/bench/attnlab-bench $scenarios --pass=bwd --out=$OUT/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
python3 -c "
import csv
for r in csv.DictReader(open('$OUT/attnlab-bench-bwd.csv')): print(f\"  {r['scenario']:34s} {r['implementation']:7s} {r['kernel']:12s} {float(r['median_us']):10.1f}\")"
echo "== bench done at ${SECONDS}s"
tar czf $OUT/bwd-rows-logs.tgz -C $OUT logs && rm -rf $OUT/logs
