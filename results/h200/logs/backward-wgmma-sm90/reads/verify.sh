#!/usr/bin/env bash
# HEAD (1825c09; its backward kernels' PTX is 026953f's) on this GPU: the backward's GPU tests
# (12 shards) beside compute-sanitizer (the small batch; tests whose CTAs take several items);
# ncu's source counters (warp stalls per SASS instruction) on one launch of the backward's
# kernel at uniform-64x512 and uniform-16x2048; then bf16/fp16 at head dims 64 and 128,
# 28301a1 (final) against HEAD (head), three rounds in alternating order.
set -u
N=.calls/head
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s55/verify.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
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
for sc in uniform-64x512 uniform-16x2048; do
  timeout 90 ncu --profile-from-start off --clock-control none -k regex:backward_specialized \
    --section SourceCounters --section WarpStateStats --section SpeedOfLight -o $w/source-$sc \
    $N/attnlab-bench $sc --implementations=varlen --pass=bwd --reps=1 --profile-one-pass > $log/ncu-$sc.log 2>&1 || echo "ncu $sc failed"
  timeout 60 ncu --import $w/source-$sc.ncu-rep --page source --csv --print-source sass > $log/source-$sc.csv 2> $log/source-$sc.err \
    || echo "source page $sc failed"
  timeout 60 ncu --import $w/source-$sc.ncu-rep --page details --print-details all > $log/details-$sc.txt 2>&1
  echo "== $sc at ${SECONDS}s: $(wc -l < $log/source-$sc.csv) source lines; $(grep -E 'Duration' $log/details-$sc.txt | head -1 | sed 's/  */ /g')"
done
bench() { timeout 120 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2 3; do
  order="final head"; [ $r = 2 ] && order="head final"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
      --dtypes=bf16,fp16 --head-dims=64,128 --reps=15 --out=$csv/variants-$v-$r.csv
  done
done
echo "== variants at ${SECONDS}s"
python3 - $csv <<'PY' | tee $log/variants.txt
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)), f"head/final {v['head']/v['final']:.3f}",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
tar czf $OUT/verify.tgz -C $w logs csv
