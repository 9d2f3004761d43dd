#!/usr/bin/env bash
# Round 7, call 4: g = main after the review (c98801e). Its backward (47) and Hopper forward
# (56) GPU tests, memcheck/racecheck/synccheck on fwd+bwd; the uniform scenarios' backward
# by attnlab run (--count) and attnlab-bench, beside FA2.
set -u
out=$OUT; log=$out/r7c4; mkdir -p $log build-device/cli build-device/bench
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
nvidia-smi > $log/env.txt 2>&1
B='AllConfigs/Backward.*wgmma_sm90:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:AllConfigs/Backward.VarlenMatchesReference/bf16_d128_causal:AllConfigs/Backward.PaddedMatchesReference/fp16_d64_full:AllConfigs/NaiveBackwardAccuracy.*/bf16_d64_causal'
W='AllConfigs/Accuracy.*wgmma*:EveryRung/*:Windows/*:KernelCounts.*:Determinism.*:WindowCounts.*:FlashKernels.*:WgmmaLadderRefusal.*'
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 330 .calls/g/attnlab_gpu_tests --gtest_filter="$B" > $log/tests-bwd-shard$i.log 2>&1 &
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 330 .calls/g/attnlab_gpu_tests --gtest_filter="$W" > $log/tests-fwd-shard$i.log 2>&1 &
done
( for tool in memcheck racecheck synccheck; do echo "---- $tool f, fwd+bwd"; timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .calls/g/attnlab run tests/gpu/sanitizer-small.toml --pass both --reps 1 --count || echo "SANITIZER FAILED $tool f"; done ) > $log/sanitizer.log 2>&1 &
wait
echo "== tests done at ${SECONDS}s"
for t in bwd fwd; do echo "$t: $(cat $log/tests-$t-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-$t-shard*.log | grep -cE '^\[  FAILED|Failure') failed"; done
grep -hE "^\[  FAILED|Failure" $log/tests-*-shard*.log | head -10
grep -E "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer.log
ok=1; grep -qE "FAILED|Failure" $log/tests-*-shard*.log && ok=0; grep -q "SANITIZER FAILED" $log/sanitizer.log && ok=0
[ "$(cat $log/tests-bwd-shard*.log | grep -c '^\[       OK')" -ge 47 ] || ok=0
[ "$(cat $log/tests-fwd-shard*.log | grep -c '^\[       OK')" -ge 56 ] || ok=0
S="scenarios/uniform-64x512.toml scenarios/uniform-16x2048.toml"
FS="$S scenarios/web-mix-2048.toml scenarios/one-doc-16384.toml"
timeout 60 .calls/g/attnlab run $S --implementations varlen --pass bwd --reps 20 --count --out $log/bwd-run.csv > $log/bwd-run.log 2>&1
grep -E "^varlen|tiles|equal" $log/bwd-run.log | head -8
timeout 120 .calls/g/attnlab-bench uniform-64x512 uniform-16x2048 --pass=bwd --implementations=varlen --reps=10 --out=$log/attnlab-bench-bwd.csv > $log/attnlab-bench-bwd.log 2>&1
awk -F, 'NR>1 {printf "bench %s/%s %.1f\n", $1, $2, $10}' $log/attnlab-bench-bwd.csv
timeout 100 python3 bench/peers/torch_peers.py uniform-64x512 uniform-16x2048 --pass bwd --peers torch-varlen_attn --attnlab .calls/g/attnlab --out $log/peers-bwd.csv > $log/peers-bwd.log 2>&1
grep -E "varlen_attn bwd" $log/peers-bwd.log | sed -E 's/ \(min.*//'
echo "== comparisons done at ${SECONDS}s; ok=$ok"
echo "== bwd done at ${SECONDS}s"
cd $out && tar czf r7c4.tgz r7c4 && rm -rf r7c4; echo "== end at ${SECONDS}s"
