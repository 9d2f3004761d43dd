#!/usr/bin/env bash
# The persistent backward (rung 4, shipped), new tree: the backward's GPU tests (12 shards)
# beside compute-sanitizer on the shipped backward (the small awkward batch; tests whose
# CTAs take several items); then base (the tree before) against new, three rounds in
# alternating order; the backward's ladder (rungs 1-4), two rounds; the peers' backward.
set -u
N=.calls/new; B=.calls/base
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s52/final.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
finish() { tar czf $OUT/final.tgz -C $w logs csv; exit 0; }
filter='AllConfigs/Backward.*:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*:BackwardPadding.*:EveryRung/WgmmaBackwardLadder.*:*Stream*:*Gqa*'
for i in $(seq 0 11); do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$i timeout ${T:-200} $N/attnlab_gpu_tests --gtest_filter="$filter" > $log/tests-shard$i.log 2>&1 &
done
for tool in racecheck memcheck; do
  ( timeout ${T:-200} compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
for tool in racecheck memcheck synccheck; do
  ( timeout ${T:-200} compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=backward_specialized \
      $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_wgmma*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
      || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-items-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|PASSED' $f | tr '\n' ' ')"; done
if grep -q "Race reported" $log/sanitizer-items-racecheck.log; then
  cuobjdump -sass .calls/new/attnlab_gpu_tests > $log/sass.txt 2>&1
  grep -o "+0x[0-9a-f]*" $log/sanitizer-items-racecheck.log | sort -u | head -12 | while read o; do
    off=$(printf "%04x" $((16#${o#+0x}))); echo "$o: $(grep -m2 "/\*$off\*/" $log/sass.txt | tr -s ' ' | tr '\n' '|')"; done
fi
bench() { timeout 120 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix sft-chats"
for r in 1 2 3; do
  order="base new"; [ $r = 2 ] && order="new base"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=15 --out=$csv/$v-$r.csv
  done
  echo "== round $r at ${SECONDS}s"
done
for r in 1 2; do
  order="1 2 3 4"; [ $r = 2 ] && order="4 3 2 1"
  for n in $order; do
    ATTNLAB_COMMIT=rung$n bench $N/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 --implementations=varlen \
      --pass=bwd --reps=15 --kernel=wgmma-sm90/bwd-rung$n --out=$csv/ladder-bwd-rung$n-$r.csv
  done
done
echo "== ladder done at ${SECONDS}s"
timeout 150 python3 -m attnlab.peers uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix \
  --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd-same-run.csv \
  > $log/peers.log 2>&1 || echo "peers failed"
echo "== peers done at ${SECONDS}s"
python3 - $csv <<'PY'
import csv, glob, os, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    if os.path.basename(p).startswith("peers"):
        for r in csv.DictReader(open(p)):
            print(f"peer {r['scenario']:24s} {r['source']:28s} {float(r['median_us']):9.1f}")
        continue
    for r in csv.DictReader(open(p)):
        m.setdefault((r["scenario"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)),
          f"new/base {v['new']/v['base']:.3f}" if 'new' in v and 'base' in v else "",
          f"rung4/rung3 {v['rung4']/v['rung3']:.3f}" if 'rung3' in v and 'rung4' in v else "",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
finish
