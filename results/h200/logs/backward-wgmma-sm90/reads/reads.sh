#!/usr/bin/env bash
# The consumers' per-query reads (new): LSE and Δ two columns a load, the mask's key spans
# as byte offsets in the key tile (two columns a 4-byte load, loaded only in a step that
# needs the mask), Δ in dPᵀ's accumulator before its product. Against HEAD (head): the
# gradients checked on uniform-64x512; three rounds in alternating order, five scenarios;
# bf16/fp16 at head dims 64 and 128, two rounds; then new's GPU tests (12 shards) beside
# compute-sanitizer.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
N=.calls/new
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s55/reads.sh $log/
timeout 40 $N/attnlab run uniform-64x512 --implementations varlen --pass bwd > $log/check.log 2>&1 || echo "check failed"
grep -E "^varlen" $log/check.log | cut -c1-150
bench() { timeout 90 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2 3; do
  order="head new"; [ $r = 2 ] && order="new head"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 \
      web-mix-2048-window512 --implementations=varlen --pass=bwd --reps=15 --out=$csv/ab-$v-$r.csv
  done
done
echo "== rounds at ${SECONDS}s"
for r in 1 2; do
  order="head new"; [ $r = 2 ] && order="new head"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
      --dtypes=bf16,fp16 --head-dims=64,128 --reps=15 --out=$csv/variants-$v-$r.csv
  done
done
echo "== variants at ${SECONDS}s"
python3 - $csv <<'PY' | tee $log/timing.txt
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    kind = p.split("/")[-1].split("-")[0]
    for r in csv.DictReader(open(p)):
        m.setdefault((kind, r["scenario"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)), f"new/head {v['new']/v['head']:.3f}",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 230 $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in racecheck memcheck; do
  ( timeout 230 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
for tool in racecheck memcheck synccheck; do
  ( timeout 230 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=backward_specialized \
      $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_wgmma*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
      || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-items-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED' $f | tr '\n' ' ')"; done
tar czf $OUT/reads.tgz -C $w logs csv
