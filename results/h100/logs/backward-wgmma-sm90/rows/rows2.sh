#!/usr/bin/env bash
# One GPU, one command: new2 (16-bit tiles staged by stmatrix) against new (descriptors made
# once per tile), alternating; then the shipped set's backward rows from new2 with the peers'
# beside them, the GEMM and copy ceilings; then new2's GPU suite beside compute-sanitizer.
# Each part's files go to $OUT as soon as it ends.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
N=.calls/new2
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s56/rows2.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
timeout 40 $N/attnlab run uniform-64x512 > $log/check-four-fwd.log 2>&1 || echo "forward check failed"
grep -E "^(naive|padded|packed|varlen) " $log/check-four-fwd.log | cut -c1-150
bench() { timeout 100 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2; do
  order="new new2"; [ $r = 2 ] && order="new2 new"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 \
      --implementations=varlen --pass=bwd --reps=15 --out=$csv/ab-bwd-$v-$r.csv
  done
done
for v in new new2; do
  ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 web-mix-2048 \
    --implementations=varlen --pass=fwd --reps=15 --out=$csv/ab-fwd-$v-1.csv
done
python3 - $csv <<'PY' | tee $log/timing.txt
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/ab-*.csv"):
    kind = p.split("/")[-1].split("-")[1]
    for r in csv.DictReader(open(p)):
        m.setdefault((kind, r["scenario"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)), f"new2/new {v['new2']/v['new']:.3f}",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
echo "== a/b at ${SECONDS}s"
export ATTNLAB_COMMIT=$(cat .calls/s56/new2-commit)
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
timeout --signal=INT --kill-after=10 200 $N/attnlab-bench $scenarios --pass=bwd --out=$csv/attnlab-bench-bwd.csv \
  --reps=10 > $log/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
echo "== bench done at ${SECONDS}s"
timeout 40 $N/attnlab run uniform-64x512 --pass bwd --out $csv/attnlab-run-bwd.csv > $log/four-bwd.log 2>&1 \
  || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $log/four-bwd.log | cut -c1-150
rest=$(echo $scenarios | tr ' ' '\n' | grep -v long-tail)
timeout --signal=INT --kill-after=10 170 python3 -m attnlab.peers $rest --pass bwd \
  --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd.csv > $log/peers.log 2>&1 \
  || echo "peers failed"
echo "== peers done at ${SECONDS}s"
timeout 40 python3 -m attnlab.peers.ceilings > $log/ceilings.toml 2>&1 || echo "ceilings failed"
grep -E "tflops|tbps" $log/ceilings.toml
python3 - $csv <<'PY' | tee $log/table.txt
import csv, sys
d = sys.argv[1]
ours = {}
for r in csv.DictReader(open(f"{d}/attnlab-bench-bwd.csv")):
    ours[(r["scenario"], r["implementation"])] = (float(r["median_us"]), r["useful_tflops"])
peers = {}
for r in csv.DictReader(open(f"{d}/peers-bwd.csv")):
    peers[(r["scenario"], r["source"])] = float(r["median_us"])
for (sc, impl), (us, tf) in sorted(ours.items()):
    if impl != "varlen": continue
    fa = peers.get((sc, "torch-varlen_attn")); cu = peers.get((sc, "torch-sdpa-cudnn-padded"))
    print(f"{sc:36s} ours {us:9.1f} ({float(tf):5.1f}) FA2 {fa or 0:9.1f} FA2/ours {fa/us if fa else 0:5.2f} cuDNN {cu or 0:9.1f} ours/cuDNN {us/cu if cu else 0:5.3f}")
PY
tar czf $OUT/rows.tgz -C $w logs csv
left=$((578 - SECONDS))
echo "== tests from ${SECONDS}s, ${left}s left"
for i in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$i timeout $left $N/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for tool in racecheck memcheck; do
  ( timeout $left compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
for tool in racecheck memcheck synccheck; do
  ( timeout $left compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=backward_specialized \
      $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_wgmma*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
      || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-items-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED' $f | tr '\n' ' ')"; done
tar czf $OUT/tests.tgz -C $w logs
