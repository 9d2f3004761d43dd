#!/usr/bin/env bash
# The shipped tree with the Δ pass's pair by shift (final): the backward's GPU tests (12
# shards) beside compute-sanitizer; ncu of its Δ pass; the shipped set's backward rows
# (attnlab-bench --pass=bwd on every shipped scenario; uniform-64x512's bwd rows of all four
# implementations, checked; the peers' backward on every shipped scenario but long-tail);
# then 5909709 (head) against final, three rounds in alternating order, three scenarios.
set -u
N=.calls/final
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
export ATTNLAB_COMMIT=$(cat .calls/s54/commit)
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s54/final.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 230 $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
( timeout 230 compute-sanitizer --tool memcheck --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
    --pass bwd --reps 1 --count || echo "SANITIZER FAILED memcheck rc=$?" ) > $log/sanitizer-memcheck.log 2>&1 &
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|SANITIZER FAILED' $f | tr '\n' ' ')"; done
timeout 60 ncu --profile-from-start off --clock-control none -k regex:'row_dot' \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
  $N/attnlab-bench uniform-64x512 --implementations=varlen --pass=bwd --reps=1 --profile-one-pass > $log/ncu-delta.log 2>&1
echo "== ncu Δ $(grep -E "gpu__time_duration|dram__bytes|sm__throughput" $log/ncu-delta.log | sed 's/  */ /g' | tr '\n' ' ')"
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 200 $N/attnlab-bench $scenarios --pass=bwd --out=$csv/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
echo "== bench done at ${SECONDS}s"
timeout 40 $N/attnlab run uniform-64x512 --pass bwd --out $csv/attnlab-run-bwd.csv > $log/four-bwd.log 2>&1 \
  || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log | cut -c1-150
echo "== four done at ${SECONDS}s"
rest=$(echo $scenarios | tr ' ' '\n' | grep -v long-tail)
timeout --signal=INT --kill-after=10 150 python3 -m attnlab.peers $rest --pass bwd \
  --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd.csv > $log/peers.log 2>&1 \
  || echo "peers failed"
echo "== peers done at ${SECONDS}s"
bench() { timeout 60 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2 3; do
  order="head final"; [ $r = 2 ] && order="final head"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 --implementations=varlen \
      --pass=bwd --reps=15 --out=$csv/ab-$v-$r.csv
  done
done
echo "== rounds done at ${SECONDS}s"
python3 - $csv <<'PY'
import csv, glob, statistics, sys
d = sys.argv[1]
ours = {}
for r in csv.DictReader(open(f"{d}/attnlab-bench-bwd.csv")):
    ours[(r["scenario"], r["implementation"])] = float(r["median_us"])
    print(f"  {r['scenario']:34s} {r['implementation']:7s} {r['kernel']:12s} {float(r['median_us']):10.1f}")
for r in csv.DictReader(open(f"{d}/peers-bwd.csv")):
    o = ours.get((r["scenario"], "varlen"))
    print(f"peer {r['scenario']:34s} {r['source']:28s} {r['implementation']:7s} {float(r['median_us']):10.1f}",
          f"ours varlen {o:.1f} ratio {float(r['median_us'])/o:.2f}" if o else "")
m = {}
for p in glob.glob(f"{d}/ab-*.csv"):
    for r in csv.DictReader(open(p)): m.setdefault(r["scenario"], {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)), f"final/head {v['final']/v['head']:.3f}", m[k])
PY
tar czf $OUT/final.tgz -C $w logs csv
