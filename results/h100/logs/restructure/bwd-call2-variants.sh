#!/usr/bin/env bash
# Hopper backward fix: attnlab-bench bwd (varlen, wgmma-sm90, 30 passes, three uniform scenarios)
# of base (010503a), cur (d3fbb16) and the variants, interleaved rounds; the Backward GPU tests
# (8 shards) and compute-sanitizer racecheck (sanitizer-small, both passes) of the two candidates.
set -u
out=$OUT; log=$out/bwd2; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
[ -e /work/base ] || ln -s "$PWD" /work/base
V=/tmp/bwd; mkdir -p $V && tar xJf .calls/bwd.tar.xz -C $V && cp -r .calls/base $V/base
nvidia-smi > $log/env.txt 2>&1
export PATH=$PATH:/usr/local/cuda/bin
for f in $V/sass/*.cubin; do cuobjdump -sass $f > $log/sass-$(basename $f .cubin).txt 2>&1; done
S="uniform-64x512 uniform-16x2048 one-doc-16384"
B="base cur carry carry_m1 cur_red carry_red carry_m1_red carry_m1_red2"
time_round() {
  for b in $B; do
    ATTNLAB_COMMIT=$b timeout 40 $V/$b/attnlab-bench $S --implementations=varlen --kernel=wgmma-sm90 --pass=bwd \
      --reps=30 --out=$log/time-$b-$1.csv > $log/time-$b-$1.log 2>&1 || echo "timing failed: $b $1"
  done
  echo "== timing round $1 done at ${SECONDS}s"
}
time_round 1
time_round 2
for c in carry_m1_red2 cur_red; do
  for i in 0 1 2 3 4 5 6 7; do
    GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 110 $V/$c/attnlab_gpu_tests --gtest_filter='*Backward*' \
      > $log/tests-$c-shard$i.log 2>&1 &
  done
  ( echo "---- racecheck $c wgmma-sm90 fwd+bwd"
    ATTNLAB_COMMIT=$c timeout 125 compute-sanitizer --tool racecheck --error-exitcode 9 $V/$c/attnlab run \
      tests/gpu/sanitizer-small.toml --pass both --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED racecheck $c" ) \
    > $log/racecheck-$c.log 2>&1 &
done
wait
echo "== tests and racecheck done at ${SECONDS}s"
for c in carry_m1_red2 cur_red; do
  echo "tests $c: $(cat $log/tests-$c-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-$c-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-$c-shard*.log | grep -c '^\[  SKIPPED') skipped"
  grep -hE "^\[  FAILED|Failure" $log/tests-$c-shard*.log | head -5
done
grep -hE "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/racecheck-*.log
[ $SECONDS -lt 195 ] && time_round 3
for f in $log/time-*.csv; do awk -F, -v f=$(basename $f .csv) 'NR>1 {printf "%s %s %s\n", f, $1, $10}' $f; done
cd $out && tar czf bwd2.tgz bwd2 && rm -rf bwd2; echo "== end at ${SECONDS}s"
