#!/usr/bin/env bash
# Rung 5 (each block's first dQ stored, the rest added; the Δ pass clears no sums), new
# tree: the backward's GPU tests (12 shards) beside compute-sanitizer on the shipped backward
# (the small awkward batch; tests whose CTAs take several items); then rung 4 against rung 5
# from the same binary and base (359f6e8) against new, three rounds in alternating order;
# head dim 64 and fp16, one round; the peers' backward in the same command.
set -u
N=.calls/new
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s53/first.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
finish() { tar czf $OUT/first.tgz -C $w logs csv; exit 0; }
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout 220 $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in racecheck memcheck; do
  ( timeout 220 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
for tool in racecheck memcheck synccheck; do
  ( timeout 220 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=backward_specialized \
      $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_wgmma*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
      || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-items-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|PASSED' $f | tr '\n' ' ')"; done
bench() { timeout 120 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix sft-chats"
for r in 1 2 3; do
  order="base new"; [ $r = 2 ] && order="new base"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=15 --out=$csv/$v-$r.csv
  done
  order="4 5"; [ $r = 2 ] && order="5 4"
  for n in $order; do
    ATTNLAB_COMMIT=rung$n bench $N/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 --implementations=varlen \
      --pass=bwd --reps=15 --kernel=wgmma-sm90/bwd-rung$n --out=$csv/rung$n-$r.csv
  done
  echo "== round $r at ${SECONDS}s"
done
for v in base new; do
  ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
    --dtypes=bf16,fp16 --head-dims=64,128 --reps=15 --out=$csv/variants-$v.csv
done
echo "== variants at ${SECONDS}s"
timeout 150 python3 -m attnlab.peers uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix \
  --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd-same-run.csv \
  > $log/peers.log 2>&1 || echo "peers failed"
echo "== peers done at ${SECONDS}s"
python3 - $csv <<'PY'
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    if "peers" in p:
        for r in csv.DictReader(open(p)):
            print(f"peer {r['scenario']:24s} {r['source']:28s} {float(r['median_us']):9.1f}")
        continue
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)),
          f"new/base {v['new']/v['base']:.3f}" if 'new' in v and 'base' in v else "",
          f"rung5/rung4 {v['rung5']/v['rung4']:.3f}" if 'rung4' in v and 'rung5' in v else "",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
finish
