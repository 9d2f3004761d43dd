#!/usr/bin/env bash
# The kernel seam (one launch table, streams, scheduler and pipeline types) on an H100, binaries
# built on the developer's machine and carried in .calls/dev: every GPU test (8 shards);
# compute-sanitizer memcheck, racecheck, synccheck and initcheck on sanitizer-small.toml --pass both
# with each kernel; the operator's tests (side streams, scale, lse) on this build; a short Muon step
# as a smoke test; then both kernels before (base: the kernels of 5ee1c8d) and after (new), forward
# and backward, three uniform scenarios, alternating. Logs under $OUT/seam, tarred at the end.
set -u
d=.calls/dev; N=$d/new; B=$d/base
log=$OUT/seam; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/$d/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1 ATTNLAB_COMMIT=$(cat $d/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $log/gpu.txt 2>&1
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 $N/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for k in wgmma-sm90 mma-sm80; do
  for tool in memcheck racecheck synccheck initcheck; do
    ( echo "---- $tool $k fwd+bwd"
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
        --pass both --kernel $k --reps 1 --count || echo "SANITIZER FAILED $tool $k" ) > $log/sanitizer-$k-$tool.log 2>&1 &
  done
done
( timeout 300 python3 pytorch/test_operator.py --build $N --attnlab $N/attnlab -v > $log/operator.log 2>&1
  echo "operator rc=$?" >> $log/operator.log ) &
( timeout 300 python3 train/step.py nanochat-d24 --layout varlen --backend fa2 --optimizer muon --warmup 2 --steps 3 \
    --profile-steps 1 --max-num-docs 128 --attnlab $N/attnlab --out $log/muon-smoke.csv \
    --parts-out $log/muon-smoke-parts.csv > $log/muon-smoke.log 2>&1; echo "muon rc=$?" >> $log/muon-smoke.log ) &
wait
echo "== tests, sanitizers, operator and Muon done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -hE "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
grep -E "^(Ran|OK|FAILED)|rc=|Error|error" $log/operator.log | tail -8
tail -4 $log/muon-smoke.log
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for r in 1 2; do
  [ $SECONDS -gt 430 ] && break
  for k in wgmma-sm90 mma-sm80; do for b in base new; do
    c=$(cat $d/commit); [ $b = base ] && c=5ee1c8d
    ATTNLAB_COMMIT=$c timeout 45 $d/$b/attnlab-bench $S --implementations=varlen --kernel=$k --pass=both \
      --reps=30 --out=$log/time-$b-$k-$r.csv > $log/time-$b-$k-$r.log 2>&1 || echo "timing failed: $b $k $r"
  done; done
  echo "== timing round $r done at ${SECONDS}s"
done
for f in $log/time-*.csv; do awk -F, -v f=$(basename $f .csv) 'NR>1 {printf "%s %s %s %s\n", f, $1, $9, $10}' $f; done
cd $OUT && tar czf seam.tgz seam && rm -rf seam; echo "== end at ${SECONDS}s"
