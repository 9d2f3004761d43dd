#!/usr/bin/env bash
# The backward's rung 4 (dQ finished in the kernel), one H100: a checked smoke run; the
# backward's and the context-parallel GPU tests (8 shards) beside compute-sanitizer's four
# tools on the shipped backward and memcheck/initcheck on the CP pieces; rungs 1-4 by
# attnlab-bench, two rounds in alternating order; cuDNN's padded and FA2's varlen backward in
# the same run beside ours. One tarball, rewritten after each step.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/r4/commit)
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv
cp .calls/r4/bwd-rung4a.sh $log/
pack() { tar czf $OUT/bwd-rung4a.tgz -C $w logs csv; }
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
timeout 60 $N/cli/attnlab run uniform-64x512 --impl varlen --pass bwd --reps 5 > $log/smoke-run.log 2>&1
rc=$?; echo "smoke run rc=$rc"; grep -E "^varlen|error|Error" $log/smoke-run.log | cut -c1-120
[ $rc -ne 0 ] && { pack; exit 0; }
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*:*Cp*'
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 240 $N/tests/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in memcheck racecheck synccheck initcheck; do
  ( echo "---- $tool wgmma-sm90 bwd"
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool" ) > $log/sanitizer-bwd-$tool.log 2>&1 &
done
for tool in memcheck initcheck; do
  ( timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $N/tests/attnlab_gpu_tests \
      --gtest_filter="Kernels/CpPieces.*/wgmma_sm90_bf16_d128_causal:CpOutputSums.*" || echo "SANITIZER FAILED cp $tool rc=$?" ) > $log/sanitizer-cp-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|PASSED|FAILED" $log/sanitizer-*.log | head -12
pack
S="uniform-64x512 uniform-16x2048 one-doc-16384"
bench() { timeout 100 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2; do
  order="1 2 3 4"; [ $r = 2 ] && order="4 3 2 1"
  for n in $order; do
    bench $N/bench/attnlab-bench $S --implementations=varlen --pass=bwd --reps=30 --kernel=wgmma-sm90/bwd-rung$n \
      --out=$csv/ladder-bwd-rung$n-$r.csv
  done
done
echo "== ladder done at ${SECONDS}s"
pack
timeout 150 python3 -m attnlab.peers $S --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded \
  --attnlab $N/cli/attnlab --out $csv/peers-bwd-same-run.csv > $log/peers.log 2>&1 || echo "peers failed"
bench $N/bench/attnlab-bench $S --implementations=varlen,padded --pass=bwd --reps=30 --out=$csv/ours-bwd-same-run.csv
echo "== same run done at ${SECONDS}s"
python3 .calls/r3/bwd-table.py $csv
pack
