#!/usr/bin/env bash
# dQ staged with the odd rows' column groups swapped (g ^ 2), so that a half-warp's 8-byte
# stores land on 8 chunk positions (swap) against 28301a1 (final): the gradients checked on
# uniform-64x512; ncu's shared-store counts on one-doc-16384; three rounds in alternating
# order; then the backward's GPU tests in 12 shards. Logs straight under $OUT, phase by phase.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
log=$OUT/logs; csv=$OUT/csv; mkdir -p $log $csv; cp .calls/s54/swap.sh $log/
timeout 30 .calls/swap/attnlab run uniform-64x512 --implementations varlen --pass bwd > $log/check.log 2>&1 || echo "check failed"
grep -E "^varlen" $log/check.log | cut -c1-120
for v in final swap; do
  timeout 40 ncu --profile-from-start off --clock-control none -k regex:backward_specialized \
    --metrics gpu__time_duration.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
    .calls/$v/attnlab-bench one-doc-16384 --implementations=varlen --pass=bwd --reps=1 --profile-one-pass > $log/ncu-$v.log 2>&1 || echo "ncu $v failed"
  echo "== $v $(grep -E "gpu__time|shared_st|shared_op_st" $log/ncu-$v.log | sed 's/  */ /g' | tr '\n' ' ')"
done
bench() { timeout 40 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2 3; do
  order="final swap"; [ $r = 2 ] && order="swap final"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 \
      --implementations=varlen --pass=bwd --reps=15 --out=$csv/$v-$r.csv
  done
done
python3 - $csv <<'PY' | tee $log/timing.txt
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    for r in csv.DictReader(open(p)): m.setdefault(r["scenario"], {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)), f"swap/final {v['swap']/v['final']:.3f}", {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
echo "== timing done at ${SECONDS}s"
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 185 .calls/swap/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
