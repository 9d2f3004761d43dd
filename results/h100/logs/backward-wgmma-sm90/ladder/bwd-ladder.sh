#!/usr/bin/env bash
# The backward ladder's first two rungs on an H100: every GPU test (8 shards), compute-sanitizer's
# four tools on both backward rungs, the rungs timed alternating, the shipped backward beside
# FA2's varlen_attn and cuDNN's padded backward in one run, head dims 64/128 and both dtypes
# before (B: the tree before the rung) and after, and uniform-64x512's bwd rows of all four
# implementations. Binaries built on the developer's machine and carried.
set -u
N=.calls/build-new; B=.calls/build-torch/cli/attnlab
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/commit)
log=$OUT/logs; mkdir -p $log
nvidia-smi > $log/nvidia-smi.txt 2>&1; head -12 $log/nvidia-smi.txt | tail -4
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 $N/tests/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for k in wgmma-sm90 wgmma-sm90/bwd-rung1; do for tool in memcheck racecheck synccheck initcheck; do
  ( echo "---- $tool $k bwd"
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel $k --reps 1 --count || echo "SANITIZER FAILED $tool $k" ) > $log/sanitizer-${k//\//-}-$tool.log 2>&1 &
done; done
wait
echo "== tests and sanitizers done at ${SECONDS}s"
echo "tests: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -20
grep -hE "^  rung[0-9] " $log/tests-shard*.log | head -12
grep -hE "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
mkdir -p $OUT/csv
for r in 1 2; do for k in wgmma-sm90/bwd-rung1 wgmma-sm90/bwd-rung2; do
  n=$(basename $k)
  timeout 120 $N/cli/attnlab run $S --impl varlen --pass bwd --reps 30 --kernel $k --count \
    --out $OUT/csv/ladder-$n-$r.csv > $log/ladder-$n-$r.log 2>&1 || echo "ladder $k $r failed"
done; done
echo "== ladder done at ${SECONDS}s"
timeout 200 python3 -m attnlab.peers $S --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded \
  --attnlab $N/cli/attnlab --out $OUT/csv/peers-bwd-same-run.csv > $log/peers.log 2>&1 || echo "peers failed"
timeout 120 $N/cli/attnlab run $S --impl varlen --pass bwd --reps 30 --out $OUT/csv/ours-bwd-same-run.csv \
  > $log/ours-same-run.log 2>&1 || echo "ours same run failed"
echo "== same run done at ${SECONDS}s"
for r in 1 2; do for side in before after; do
  bin=$B; [ $side = after ] && bin=$N/cli/attnlab
  timeout 120 $bin run uniform-64x512 uniform-16x2048 --impl varlen --pass bwd --dtypes bf16,fp16 --head-dims 64,128 \
    --reps 30 --out $OUT/csv/variants-$side-$r.csv > $log/variants-$side-$r.log 2>&1 || echo "variants $side $r failed"
done; done
echo "== variants done at ${SECONDS}s"
timeout 150 $N/cli/attnlab run uniform-64x512 --pass bwd --out $OUT/csv/attnlab-run-bwd-uniform-64x512.csv \
  > $log/four-bwd.log 2>&1 || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log
python3 .calls/bwd-table.py $OUT/csv
tar czf $OUT/bwd-ladder.tgz -C $OUT logs csv && rm -rf $OUT/logs $OUT/csv
