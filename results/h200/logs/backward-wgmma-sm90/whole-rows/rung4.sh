#!/usr/bin/env bash
# Rung 4 (short rows walked whole): the backward's GPU tests (12 shards) beside compute-sanitizer's
# four tools on the shipped backward; then, if they passed, rung 3 against rung 4 (the shipped
# backward) from the same binary, three rounds in alternating order, and the peers in the same run.
set -u
N=.calls/new
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work5; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s51/rung4.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
finish() { tar czf $OUT/rung4.tgz -C $w logs csv; exit 0; }
timeout 60 $N/attnlab run uniform-64x512 web-mix-2048 --impl varlen,padded --pass bwd --reps 3 > $log/smoke.log 2>&1
rc=$?; echo "smoke rc=$rc"; grep -E "^(varlen|padded) |launch" $log/smoke.log | cut -c1-150 | head -8
[ $rc -ne 0 ] && finish
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 200 $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in memcheck racecheck synccheck initcheck; do
  ( timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
wait
ok=$(cat $log/tests-shard*.log | grep -c '^\[       OK'); bad=$(cat $log/tests-shard*.log | grep -c '^\[  FAILED')
echo "== tests at ${SECONDS}s: $ok ok, $bad failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | sort | uniq | head -12
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" $log/sanitizer-*.log
[ "$bad" != 0 ] && finish
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix sft-chats"
for r in 1 2 3; do
  order="wgmma-sm90/bwd-rung3 wgmma-sm90"; [ $r = 2 ] && order="wgmma-sm90 wgmma-sm90/bwd-rung3"
  for k in $order; do
    n=$(basename $k)
    timeout 120 $N/attnlab-bench $S --implementations=varlen --pass=bwd --reps=30 --kernel=$k --out=$csv/$n-varlen-$r.csv \
      > /dev/null 2>>$log/bench-errors.log || echo "bench failed $k"
    timeout 60 $N/attnlab-bench web-mix-2048 --implementations=padded --pass=bwd --reps=10 --kernel=$k \
      --out=$csv/$n-padded-$r.csv > /dev/null 2>>$log/bench-errors.log || echo "bench failed $k padded"
  done
done
echo "== rounds at ${SECONDS}s"
timeout 120 python3 -m attnlab.peers uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix \
  --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd-same-run.csv \
  > $log/peers.log 2>&1 || echo "peers failed"
python3 - $csv <<'PY'
import csv, glob, os, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    if "peers" in p:
        for r in csv.DictReader(open(p)): print(f"peer {r['scenario']:22s} {r['source']:26s} {float(r['median_us']):9.1f}")
        continue
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], r["implementation"]), {}).setdefault(r["kernel"], []).append(float(r["median_us"]))
for k in sorted(m):
    a, b = m[k].get("wgmma-sm90/bwd-rung3", []), m[k].get("wgmma-sm90", [])
    if a and b:
        print(*k, f"rung3 {statistics.mean(a):9.1f} rung4 {statistics.mean(b):9.1f} ratio {statistics.mean(b)/statistics.mean(a):.3f}",
              [round(x, 1) for x in a], [round(x, 1) for x in b])
PY
finish
