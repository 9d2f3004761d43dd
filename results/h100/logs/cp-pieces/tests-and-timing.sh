#!/usr/bin/env bash
# Variant B (the backward's item as before, its bounds made on the fly): every GPU test, the
# backward's sanitizers, then before / A (bounds in the backward's item) / B alternating.
set -u
N=.calls/build-new; B=.calls/before
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
log=$OUT/logs; mkdir -p $log $OUT/compare
nvidia-smi > $log/nvidia-smi.txt 2>&1
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 400 $N/tests/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for k in wgmma-sm90 mma-sm80; do for tool in memcheck racecheck; do
  ( echo "---- $tool $k bwd"
    timeout 280 compute-sanitizer --tool $tool --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel $k --reps 1 --count || echo "SANITIZER FAILED $tool $k bwd" ) > $log/sanitizer-$k-bwd-$tool.log 2>&1 &
done; done
wait
echo "== tests done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -hE "worst rank rel_l2" $log/tests-shard*.log | awk '{k=$1; if ($7>r[k]) r[k]=$7; if ($9>l[k]) l[k]=$9; n[k]++} END {for (k in r) print "  CP pieces " k ": " n[k] " lines, worst rel_l2 " r[k] ", worst lse " l[k]}'
grep -hE "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
tail -n 3 $log/tests-shard*.log | grep -cE "PASSED"
for round in 1 2 3 4; do
  for side in before A B; do
    bench=$B/attnlab-bench; [ $side = A ] && bench=.calls/varA/attnlab-bench; [ $side = B ] && bench=$N/bench/attnlab-bench
    timeout 120 $bench uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 --implementations=varlen \
      --kernel=wgmma-sm90 --pass=both --reps=30 --out=$OUT/compare/$side-wgmma-sm90-$round.csv \
      > $log/compare-$side-wgmma-$round.log 2>&1 || echo "compare $side $round failed"
    if [ $round -le 2 ] && [ $side != A ]; then
      timeout 120 $bench uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 --implementations=varlen \
        --kernel=mma-sm80 --pass=both --reps=30 --out=$OUT/compare/$side-mma-sm80-$round.csv \
        > $log/compare-$side-mma-$round.log 2>&1 || echo "compare $side mma $round failed"
    fi
  done
  echo "== compare round $round done at ${SECONDS}s"
done
python3 - $OUT/compare <<'PY'
import csv, glob, os, statistics, sys
med = {}
for path in glob.glob(os.path.join(sys.argv[1], "*.csv")):
    side = os.path.basename(path).split("-")[0]
    for r in csv.DictReader(open(path)):
        med.setdefault((r["kernel"], r["pass"], r["scenario"]), {}).setdefault(side, []).append(float(r["median_us"]))
print("| kernel | pass | scenario | before µs | A µs | B µs | A / before | B / before |")
print("|---|---|---|---|---|---|---|---|")
for (k, p, s), v in sorted(med.items()):
    b = statistics.mean(v["before"])
    cells = [f"{statistics.mean(v[x]):.1f} ({', '.join(f'{y:.0f}' for y in v[x])})" if x in v else "" for x in ("before", "A", "B")]
    ratios = [f"{statistics.mean(v[x]) / b:.3f}" if x in v else "" for x in ("A", "B")]
    print(f"| {k} | {p} | {s} | " + " | ".join(cells + ratios) + " |")
PY
tar czf $OUT/cp-tests2.tgz -C $OUT logs compare && rm -rf $OUT/logs $OUT/compare
