#!/usr/bin/env bash
# The persistent backward (rung 4, shipped), new tree: every GPU test (14 shards) beside
# compute-sanitizer's four tools on the shipped backward (a small awkward batch) and three
# on tests whose CTAs take several items; then, three rounds in alternating order, rungs 3
# and 4 from the new binary and base (the tree before) against new, on the ladder's
# scenarios and documents of mixed lengths, web-mix-2048's padded batch; head dim 64 and
# fp16, two rounds.
set -u
N=.calls/new; B=.calls/base
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s52/verify.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
finish() { tar czf $OUT/verify.tgz -C $w logs csv; exit 0; }
$N/attnlab_gpu_tests --gtest_list_tests | grep -c "^  "
for i in $(seq 0 13); do
  GTEST_TOTAL_SHARDS=14 GTEST_SHARD_INDEX=$i timeout ${T:-300} $N/attnlab_gpu_tests > $log/all-shard$i.log 2>&1 &
done
for tool in memcheck racecheck synccheck initcheck; do
  ( timeout ${T:-300} compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
for tool in memcheck racecheck synccheck; do
  ( timeout ${T:-300} compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=backward_specialized \
      $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_wgmma*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
      || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-items-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/all-shard*.log | grep -c '^\[       OK') ok, $(cat $log/all-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/all-shard*.log | grep -c '^\[  SKIPPED') skipped, $(grep -L 'PASSED\|FAILED  \]' $log/all-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/all-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|tests ran|PASSED' $f | tr '\n' ' ')"; done
bench() { timeout 120 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix sft-chats"
for r in 1 2 3; do
  order="3 4"; [ $r = 2 ] && order="4 3"
  for n in $order; do
    ATTNLAB_COMMIT=rung$n bench $N/attnlab-bench $S --implementations=varlen --pass=bwd --reps=20 \
      --kernel=wgmma-sm90/bwd-rung$n --out=$csv/rung$n-$r.csv
  done
  order="base new"; [ $r = 2 ] && order="new base"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=20 --out=$csv/$v-$r.csv
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench web-mix-2048 --implementations=padded --pass=bwd --reps=5 \
      --out=$csv/$v-padded-$r.csv
  done
  echo "== round $r at ${SECONDS}s"
done
for r in 1 2; do for v in base new; do
  ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
    --dtypes=bf16,fp16 --head-dims=64,128 --reps=20 --out=$csv/variants-$v-$r.csv
done; done
echo "== variants done at ${SECONDS}s"
python3 - $csv <<'PY'
import csv, glob, os, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], r["implementation"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)),
          f"rung4/rung3 {v['rung4']/v['rung3']:.3f}" if 'rung3' in v and 'rung4' in v else "",
          f"new/base {v['new']/v['base']:.3f}" if 'new' in v and 'base' in v else "",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
finish
