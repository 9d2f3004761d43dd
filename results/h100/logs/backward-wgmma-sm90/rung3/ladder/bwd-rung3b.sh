#!/usr/bin/env bash
# The backward's rung 3 (warp specialization), H100: the backward's GPU tests (8 shards) beside
# compute-sanitizer's four tools on the shipped backward; rungs 1-3 timed by attnlab-bench,
# two rounds in alternating order; the peers' backward in the same run; head dims 64/128 and
# both dtypes before (B: the tree before the rung) and after, alternating.
set -u
N=.calls/build-new; B=.calls/before
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/r3/commit)
log=$OUT/logs; mkdir -p $log $OUT/csv
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
finish() { tar czf $OUT/bwd-rung3b.tgz -C $OUT logs csv && rm -rf $OUT/logs; exit 0; }
timeout 60 $N/cli/attnlab run uniform-64x512 --impl varlen --pass bwd --reps 5 > $log/smoke-run.log 2>&1
rc=$?; echo "smoke run rc=$rc"; grep -E "^varlen" $log/smoke-run.log | cut -c1-60
[ $rc -ne 0 ] && finish
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*:*Accuracy*'
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 200 $N/tests/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in memcheck racecheck synccheck initcheck; do
  ( echo "---- $tool wgmma-sm90 bwd"
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool" ) > $log/sanitizer-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "^  rung[0-9] " $log/tests-shard*.log | head -12
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
S="uniform-64x512 uniform-16x2048 one-doc-16384"
bench() { timeout 100 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2; do
  order="1 2 3"; [ $r = 2 ] && order="3 2 1"
  for n in $order; do
    bench $N/bench/attnlab-bench $S --implementations=varlen --pass=bwd --reps=30 --kernel=wgmma-sm90/bwd-rung$n \
      --out=$OUT/csv/ladder-bwd-rung$n-$r.csv
  done
done
echo "== ladder done at ${SECONDS}s"
timeout 150 python3 -m attnlab.peers $S --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded \
  --attnlab $N/cli/attnlab --out $OUT/csv/peers-bwd-same-run.csv > $log/peers.log 2>&1 || echo "peers failed"
bench $N/bench/attnlab-bench $S --implementations=varlen,padded --pass=bwd --reps=30 --out=$OUT/csv/ours-bwd-same-run.csv
echo "== same run done at ${SECONDS}s"
for r in 1 2; do for side in before after; do
  bin=$B/attnlab-bench; [ $side = after ] && bin=$N/bench/attnlab-bench
  bench $bin uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd --dtypes=bf16,fp16 --head-dims=64,128 \
    --reps=30 --out=$OUT/csv/variants-$side-$r.csv
done; done
echo "== variants done at ${SECONDS}s"
python3 .calls/r3/bwd-table.py $OUT/csv
finish
