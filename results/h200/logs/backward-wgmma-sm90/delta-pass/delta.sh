#!/usr/bin/env bash
# The Δ pass with its pair by shift and every load (dO, O, LSE) issued before any store,
# 1, 2 or 4 chunks a thread (c1, c2, c4), against the shipped tree (head, 5909709). The c4
# build: the backward's GPU tests (12 shards) beside compute-sanitizer; ncu of the Δ pass of
# each build; then the four builds, three rounds in alternating order, four scenarios; head
# dim 64 and fp16, one round.
set -u
N=.calls/c4
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s54/delta.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 220 $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in racecheck memcheck; do
  ( timeout 220 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
( timeout 220 compute-sanitizer --tool memcheck --error-exitcode 9 $N/attnlab_gpu_tests \
    --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_*:*ManyOneTokenDocuments/bf16_d128_causal_*' \
    || echo "SANITIZER FAILED memcheck rc=$?" ) > $log/sanitizer-items-memcheck.log 2>&1 &
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|PASSED' $f | tr '\n' ' ')"; done
for v in head c1 c2 c4; do for sc in uniform-64x512 one-doc-16384; do
  timeout 60 ncu --profile-from-start off --clock-control none -k regex:'row_dot' \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    .calls/$v/attnlab-bench $sc --implementations=varlen --pass=bwd --reps=1 --profile-one-pass > $log/ncu-$v-$sc.log 2>&1 || echo "ncu $sc failed"
  echo "== $v $sc $(grep -E "gpu__time_duration|dram__bytes|sm__throughput" $log/ncu-$v-$sc.log | sed 's/  */ /g' | tr '\n' ' ')"
done; done
echo "== ncu done at ${SECONDS}s"
bench() { timeout 120 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048"
for r in 1 2 3; do
  order="head c1 c2 c4"; [ $r = 2 ] && order="c4 c2 c1 head"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=15 --out=$csv/$v-$r.csv
  done
  echo "== round $r at ${SECONDS}s"
done
for v in head c4; do
  ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
    --dtypes=bf16,fp16 --head-dims=64,128 --reps=15 --out=$csv/variants-$v.csv
done
echo "== variants at ${SECONDS}s"
python3 - $csv <<'PY'
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)),
          " ".join(f"{c}/head {v[c]/v['head']:.3f}" for c in ("c1", "c2", "c4") if c in v),
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
tar czf $OUT/passes.tgz -C $w logs csv
