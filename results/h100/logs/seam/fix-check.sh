#!/usr/bin/env bash
# The Hopper forward's consumer with one K/V state (fixed) against the seam as merged (new) and the
# kernels of 5ee1c8d (base): both kernels, forward and backward, three uniform scenarios, three
# rounds alternating; then the fixed build's GPU tests (8 shards), compute-sanitizer on wgmma-sm90
# fwd+bwd and the operator's tests side by side; last, a short Muon step alone (smoke test).
set -u
d=.calls/dev; F=$d/fixed
log=$OUT/fix; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/$d/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $log/gpu.txt 2>&1
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for r in 1 2 3; do
  for k in wgmma-sm90 mma-sm80; do for b in base new fixed; do
    [ $k = mma-sm80 ] && [ $r = 3 ] && continue
    ATTNLAB_COMMIT=$b timeout 60 $d/$b/attnlab-bench $S --implementations=varlen --kernel=$k --pass=both \
      --reps=30 --out=$log/time-$b-$k-$r.csv > $log/time-$b-$k-$r.log 2>&1 || echo "timing failed: $b $k $r"
  done; done
  echo "== timing round $r done at ${SECONDS}s"
done
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 $F/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for tool in memcheck racecheck synccheck initcheck; do
  ( echo "---- $tool wgmma-sm90 fwd+bwd"
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $F/attnlab run tests/gpu/sanitizer-small.toml \
      --pass both --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool" ) > $log/sanitizer-$tool.log 2>&1 &
done
( timeout 300 python3 pytorch/test_operator.py --build $F --attnlab $F/attnlab -v > $log/operator.log 2>&1
  echo "operator rc=$?" >> $log/operator.log ) &
wait
echo "== tests, sanitizers and operator done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -hE "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
grep -E "^(Ran|OK|FAILED)|rc=|^ERROR|^FAIL" $log/operator.log | tail -8
ATTNLAB_COMMIT=smoke timeout 200 python3 train/step.py nanochat-d24 --layout varlen --backend fa2 --optimizer muon \
  --warmup 2 --steps 3 --profile-steps 1 --max-num-docs 128 --attnlab $F/attnlab --out $log/muon-smoke.csv \
  --parts-out $log/muon-smoke-parts.csv > $log/muon-smoke.log 2>&1; echo "muon rc=$?"; tail -3 $log/muon-smoke.log
for f in $log/time-*.csv; do awk -F, -v f=$(basename $f .csv) 'NR>1 {printf "%s %s %s %s\n", f, $1, $9, $10}' $f; done
cd $OUT && tar czf fix.tgz fix && rm -rf fix; echo "== end at ${SECONDS}s"
