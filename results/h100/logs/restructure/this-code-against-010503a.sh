#!/usr/bin/env bash
# The integrated tree with the backward fix: every GPU test (8 shards) and compute-sanitizer memcheck, racecheck,
# synccheck on sanitizer-small.toml --pass both with each kernel; then both kernels before
# (base, 010503a) and after (new), forward and backward, three uniform scenarios, interleaved.
set -u
out=$OUT; log=$out/final3; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
nvidia-smi > $log/env.txt 2>&1
N=.calls/new
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 250 $N/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for k in wgmma-sm90 mma-sm80; do
  for tool in memcheck racecheck synccheck; do
    ( echo "---- $tool $k fwd+bwd"
      ATTNLAB_COMMIT=$(cat .calls/commit) timeout 280 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run \
        tests/gpu/sanitizer-small.toml --pass both --kernel $k --reps 1 --count || echo "SANITIZER FAILED $tool $k" ) \
      > $log/sanitizer-$k-$tool.log 2>&1 &
  done
done
wait
echo "== tests and sanitizers done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -hE "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for r in 1 2; do
  [ $SECONDS -gt 420 ] && break
  for k in wgmma-sm90 mma-sm80; do for b in base new; do
    c=$(cat .calls/commit); [ $b = base ] && c=$(cat .calls/base_commit)
    ATTNLAB_COMMIT=$c timeout 45 .calls/$b/attnlab-bench $S --implementations=varlen --kernel=$k --pass=both \
      --reps=30 --out=$log/time-$b-$k-$r.csv > $log/time-$b-$k-$r.log 2>&1 || echo "timing failed: $b $k $r"
  done; done
  echo "== timing round $r done at ${SECONDS}s"
done
for f in $log/time-*.csv; do awk -F, -v f=$(basename $f .csv) 'NR>1 {printf "%s %s %s %s\n", f, $1, $9, $10}' $f; done
cd $out && tar czf final3.tgz final3 && rm -rf final3; echo "== end at ${SECONDS}s"
