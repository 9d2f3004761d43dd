#!/usr/bin/env bash
# Rung 2 with its staging fenced by the step's own fence: the backward's GPU tests (8 shards) and
# compute-sanitizer beside them; rungs 1 and 2 alternating; attnlab-bench --pass=bwd on every
# scenario; the peers' backward (long-tail's varlen_attn alone, the rest in a second process).
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/commit)
log=$OUT/logs; mkdir -p $log $OUT/csv
nvidia-smi > $log/nvidia-smi.txt 2>&1
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:EveryRung/WgmmaBackwardLadder.*:*Stream*'
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 200 $N/tests/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in memcheck racecheck synccheck initcheck; do
  ( echo "---- $tool wgmma-sm90 bwd"
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $N/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool" ) > $log/sanitizer-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for r in 1 2; do for k in wgmma-sm90/bwd-rung1 wgmma-sm90/bwd-rung2; do
  n=$(basename $k)
  timeout 150 $N/cli/attnlab run $S --impl varlen --pass bwd --reps 30 --kernel $k \
    --out $OUT/csv/ladder-$n-$r.csv > $log/ladder-$n-$r.log 2>&1 || echo "ladder $k $r failed"
  grep -E "^varlen  " $log/ladder-$n-$r.log | cut -c1-40 | sed "s|^|$n $r |"
done; done
echo "== ladder done at ${SECONDS}s"
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 240 $N/bench/attnlab-bench $scenarios --pass=bwd --out=$OUT/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
echo "== bench done at ${SECONDS}s"
timeout 60 python3 -m attnlab.peers long-tail --pass bwd --peers torch-varlen_attn --attnlab $N/cli/attnlab \
  --out $OUT/csv/peers-bwd-long-tail.csv > $log/peers-long-tail.log 2>&1 || echo "peers long-tail failed"
timeout 200 python3 -m attnlab.peers $(echo $scenarios | tr ' ' '\n' | grep -v long-tail) --pass bwd \
  --peers torch-varlen_attn,torch-varlen_attn-kv-expanded,torch-sdpa-cudnn-padded,torch-sdpa-flash-padded \
  --attnlab $N/cli/attnlab --out $OUT/csv/peers-bwd-rest.csv > $log/peers-rest.log 2>&1 || echo "peers rest failed"
echo "== peers done at ${SECONDS}s"
python3 - $OUT <<'PY'
import csv, sys
d = sys.argv[1]
ours = {r["scenario"]: float(r["median_us"]) for r in csv.DictReader(open(f"{d}/attnlab-bench-bwd.csv")) if r["implementation"] == "varlen"}
peers = {}
for f in ("peers-bwd-long-tail.csv", "peers-bwd-rest.csv"):
    for r in csv.DictReader(open(f"{d}/csv/{f}")):
        peers[(r["scenario"], r["source"])] = float(r["median_us"])
for s, t in sorted(ours.items()):
    fa2 = peers.get((s, "torch-varlen_attn")) or peers.get((s, "torch-varlen_attn-kv-expanded"))
    cud = peers.get((s, "torch-sdpa-cudnn-padded"))
    print(f"  {s:34s} ours {t:9.1f}  FA2 {fa2 or 0:9.1f} ({(fa2 or 0) / t:.2f}x)  cuDNN padded {cud or 0:9.1f} ({t / cud if cud else 0:.2f} ours/cuDNN)")
PY
tar czf $OUT/logs.tgz -C $OUT logs csv && rm -rf $OUT/logs $OUT/csv
