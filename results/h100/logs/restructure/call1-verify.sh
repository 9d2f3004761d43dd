#!/usr/bin/env bash
# Call A: every GPU test (4 shards), compute-sanitizer memcheck/racecheck/synccheck on
# sanitizer-small.toml --pass both with each kernel, then both kernels before (base) and
# after (new), forward and backward, on the three uniform scenarios, interleaved.
set -u
out=$OUT; log=$out/verify; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
[ -e /work/base ] || ln -s "$PWD" /work/base
nvidia-smi > $log/env.txt 2>&1; echo "repo $PWD" >> $log/env.txt
N=.calls/new; B=.calls/base
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 400 $N/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
( for k in wgmma-sm90 mma-sm80; do for tool in memcheck racecheck synccheck; do
    echo "---- $tool $k fwd+bwd"
    ATTNLAB_COMMIT=$(cat .calls/commit) timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run \
      tests/gpu/sanitizer-small.toml --pass both --kernel $k --reps 1 --count || echo "SANITIZER FAILED $tool $k"
  done; done ) > $log/sanitizer.log 2>&1 &
wait
echo "== tests and sanitizers done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED')  skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -E "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer.log
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for r in 1 2 3; do for k in wgmma-sm90 mma-sm80; do for b in base new; do
  c=$(cat .calls/commit); [ $b = base ] && c=$(cat .calls/base_commit)
  ATTNLAB_COMMIT=$c timeout 90 .calls/$b/attnlab run $S --implementations varlen --kernel $k --pass both --reps 30 \
    --out $log/time-$b-$k-$r.csv > $log/time-$b-$k-$r.log 2>&1 || echo "timing failed: $b $k $r"
done; done; echo "== timing round $r done at ${SECONDS}s"; done
for f in $log/time-*-1.csv; do echo "$f"; cut -d, -f1,2,9,10 "$f" | head -8; done
cd $out && tar czf verify.tgz verify && rm -rf verify; echo "== end at ${SECONDS}s"
